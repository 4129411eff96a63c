//! The artifact layout, defined once for the engine, the reports,
//! `verify-evidence` and `merge`: run ids, execution directories, artifact
//! file names, case slugs, the files beside the harness file (baseline,
//! snapshots); and path helpers (absolute paths without touching the file
//! system, display relative to the current directory).

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A relative path of plain names only: joined to a dir, it stays inside.
pub(crate) fn plain_relative(path: &str) -> bool {
    let path = Path::new(path);
    !path.as_os_str().is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// A fresh run id: UTC time to the microsecond plus random bits, so ids
/// sort by time and never collide.
pub(crate) fn new_run_id() -> String {
    let now = crate::time::Timestamp::now();
    let rand = uuid::Uuid::new_v4().simple().to_string();
    format!("{}-{}", now.strftime("%Y%m%dT%H%M%S%.6fZ"), &rand[..8])
}

/// Where attempt `attempt` (1-based) of the case at declaration `index`
/// keeps its evidence, relative to the out dir:
/// `artifacts/<run_id>/execution/<case_slug>[-attempt-N]`. Unique per case
/// and attempt, since the slug carries the declaration index.
pub(crate) fn execution_dir(run_id: &str, index: usize, name: &str, attempt: u32) -> String {
    let slug = case_slug(index, name);
    if attempt <= 1 {
        format!("artifacts/{run_id}/execution/{slug}")
    } else {
        format!("artifacts/{run_id}/execution/{slug}-attempt-{attempt}")
    }
}

/// A run's directory, relative to the out dir: `artifacts/<run_id>`. It
/// holds every case's execution dir, a copy of the run's reports, and
/// [`SUMS_FILE`] (docs/evidence.md, Evidence anyone can verify).
pub(crate) fn run_dir(run_id: &str) -> String {
    format!("artifacts/{run_id}")
}

/// The checksum list of a run dir, in the format `sha256sum -c` reads.
pub(crate) const SUMS_FILE: &str = "SHA256SUMS";
/// The out dir's record of every case across runs (`history.jsonl`).
pub(crate) const HISTORY_FILE: &str = "history.jsonl";
/// The minisign signature of [`SUMS_FILE`].
pub(crate) const SIGNATURE_FILE: &str = "SHA256SUMS.minisig";

/// Paths of a case's artifact files, relative to the out dir.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Artifacts {
    /// `command.txt`.
    pub command: String,
    /// `stdout.log`.
    pub stdout: String,
    /// `stderr.log`.
    pub stderr: String,
    /// `evidence.json`.
    pub evidence: String,
}

impl Artifacts {
    /// Each file that has a path, with the label reports link it by
    /// (`command`, `stdout`, `stderr`, `evidence`).
    pub(crate) fn labelled(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("command", self.command.as_str()),
            ("stdout", self.stdout.as_str()),
            ("stderr", self.stderr.as_str()),
            ("evidence", self.evidence.as_str()),
        ]
        .into_iter()
        .filter(|(_, p)| !p.is_empty())
    }

    /// The command file's name inside a case's execution directory.
    pub(crate) const COMMAND: &'static str = "command.txt";
    /// The full stdout log's name.
    pub(crate) const STDOUT: &'static str = "stdout.log";
    /// The full stderr log's name.
    pub(crate) const STDERR: &'static str = "stderr.log";
    /// The evidence record's name.
    pub(crate) const EVIDENCE: &'static str = "evidence.json";

    /// The artifact paths of the execution directory `dir` (relative to the
    /// out dir).
    pub(crate) fn in_dir(dir: &str) -> Artifacts {
        Artifacts {
            command: format!("{dir}/{}", Self::COMMAND),
            stdout: format!("{dir}/{}", Self::STDOUT),
            stderr: format!("{dir}/{}", Self::STDERR),
            evidence: format!("{dir}/{}", Self::EVIDENCE),
        }
    }
}

/// `p` made absolute against the current directory, `.` and `..` folded.
pub(crate) fn absolute(p: &Path) -> PathBuf {
    absolute_from(
        &std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        p,
    )
}

/// `p` made absolute against `base`, `.` and `..` folded lexically (never
/// above a root, a drive `C:\` or a share `\\server\share\`). On Windows
/// `\x` takes `base`'s drive, and a drive-relative `D:x` is resolved
/// against drive D's current directory, as Windows does.
pub(crate) fn absolute_from(base: &Path, p: &Path) -> PathBuf {
    let drive_relative =
        !p.has_root() && matches!(p.components().next(), Some(Component::Prefix(_)));
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else if drive_relative {
        std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
    } else {
        base.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `p` relative to the current directory when it lies below it.
pub(crate) fn display_relative(p: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .filter(|r| !r.as_os_str().is_empty())
        .unwrap_or_else(|| p.to_path_buf())
        .display()
        .to_string()
}

/// `path` relative to `base` with `/` separators when it lies below it,
/// else as given.
pub(crate) fn relative_to(path: &Path, base: Option<&Path>) -> String {
    let rel = base
        .and_then(|b| path.strip_prefix(b).ok())
        .filter(|r| !r.as_os_str().is_empty())
        .unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    // Rooted covers Windows' `\x` too, which is not absolute (no drive).
    if rel.has_root() {
        rel.to_string_lossy().into_owned()
    } else {
        parts.join("/")
    }
}

/// `p` as named for tools that resolve paths against the repository root
/// (JUnit consumers such as publish-unit-test-result-action,
/// action-junit-report and GitLab; GitHub annotations): relative to
/// `$GITHUB_WORKSPACE` when set and `p` lies in it, else to the top of
/// the git work tree that holds `p`, else as [`display_relative`] shows
/// it. Whichever directory the run started in (a workspace member under
/// `cargo test`, the root under `cargo golden`), the name is the same.
pub(crate) fn repo_relative(p: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let abs = absolute_from(&cwd, p);
    let workspace = std::env::var_os("GITHUB_WORKSPACE")
        .filter(|w| !w.is_empty())
        .map(|w| absolute_from(&cwd, Path::new(&w)))
        .filter(|w| abs.starts_with(w));
    let top = workspace.or_else(|| {
        abs.ancestors()
            .skip(1)
            .find(|d| d.join(".git").exists())
            .map(Path::to_path_buf)
    });
    match top {
        Some(top) => relative_to(&abs, Some(&top)),
        None => display_relative(p),
    }
}

/// The directory of a case's execution dir that holds its pending
/// snapshots: the new text of each changed or missing snapshot, named as
/// the snapshot file is (`pending/<stem>.stdout`, `pending/<stem>.<output>.data`).
pub(crate) const PENDING_DIR: &str = "pending";

/// The directory of the out dir where `cargo golden review` records its
/// decisions, one file per run: `review/<run_id>.jsonl`. Beside the run
/// dirs, never in one: a sealed run dir is never edited, so a decision
/// cannot be recorded by removing a pending file from it.
pub(crate) const REVIEW_DIR: &str = "review";

/// The decisions file of run `run_id`, relative to the out dir.
pub(crate) fn review_file(run_id: &str) -> String {
    format!("{REVIEW_DIR}/{run_id}.jsonl")
}

/// The verdict baseline, beside the harness file (docs/baselines.md, The
/// verdict baseline).
pub(crate) const BASELINE_FILE: &str = "golden-baseline.json";
/// The directory of output snapshots, beside the harness file.
pub(crate) const SNAPSHOT_DIR: &str = "snapshots";

/// Longest snapshot file stem kept from a case name, in bytes.
const MAX_STEM: usize = 80;

/// The file stem of a case's snapshots (`snapshots/<stem>.stdout`): the
/// name itself when it is a portable file name, else its portable
/// characters plus 8 hex digits of the name's sha256, so two names never
/// share a stem. Depends on the name alone, so reordering cases moves no
/// snapshot.
pub(crate) fn snapshot_stem(name: &str) -> String {
    let mut s = String::new();
    let mut exact = true;
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || matches!(ch, '-' | '_' | '.') {
            s.push(ch);
        } else {
            exact = false;
            if !s.ends_with('_') {
                s.push('_');
            }
        }
    }
    // Leading dots hide a file; Windows drops trailing ones.
    let trimmed = s.trim_matches('.').to_string();
    if trimmed != s || trimmed.len() > MAX_STEM || trimmed.is_empty() || is_reserved(&trimmed) {
        exact = false;
    }
    let mut stem: String = trimmed.chars().take(MAX_STEM).collect();
    if stem.is_empty() {
        stem.push_str("case");
    }
    if !exact {
        let hash = crate::hash::sha256_hex(name.as_bytes());
        stem.push('-');
        stem.push_str(&hash[..8]);
    }
    stem
}

/// Device names Windows reserves whatever the extension.
fn is_reserved(stem: &str) -> bool {
    let base = stem.split('.').next().unwrap_or("").to_ascii_uppercase();
    matches!(base.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || (base.len() == 4
            && (base.starts_with("COM") || base.starts_with("LPT"))
            && base.as_bytes()[3].is_ascii_digit())
}

/// A directory name for a case: portable characters only, never `.`/`..`,
/// unique through the declaration index prefix (and, lower case, unique on
/// case-insensitive file systems too). Valid on Windows: the `NNN-` prefix
/// means it is never a reserved device name (`CON`, `NUL`, `COM1`, …) and
/// it never ends in a dot or a space.
pub(crate) fn case_slug(index: usize, name: &str) -> String {
    let mut s = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
            s.push(ch.to_ascii_lowercase());
        } else if !s.ends_with('_') {
            s.push('_');
        }
        if s.len() >= 60 {
            break;
        }
    }
    let s = s.trim_matches('_');
    let s = if s.is_empty() { "case" } else { s };
    format!("{:03}-{s}", index + 1)
}

/// Whether `name` is a run directory's name this tool creates: a
/// [`new_run_id`] (`YYYYMMDDTHHMMSS.ffffffZ-xxxxxxxx`), or `nextest-<id>`
/// when `nextest` is allowed. Nothing else under `artifacts/` is ever
/// removed.
pub(crate) fn is_run_id(name: &str, nextest: bool) -> bool {
    if nextest
        && name
            .strip_prefix("nextest-")
            .is_some_and(|id| !id.is_empty())
    {
        return true;
    }
    let b = name.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    b.len() == 32
        && digits(0..8)
        && b[8] == b'T'
        && digits(9..15)
        && b[15] == b'.'
        && digits(16..22)
        && &b[22..24] == b"Z-"
        && b[24..].iter().all(|c| c.is_ascii_hexdigit())
}

/// Remove the oldest run directories under `<out_dir>/artifacts` so that
/// at most `keep` remain (0: keep all), never `current`; returns those
/// removed. Only
/// [`new_run_id`]-named directories count (their names sort by time).
pub(crate) fn prune_runs(
    out_dir: &Path,
    keep: usize,
    current: &str,
) -> std::io::Result<Vec<PathBuf>> {
    if keep == 0 {
        return Ok(Vec::new());
    }
    let mut runs = run_dirs(out_dir, false)?;
    runs.sort();
    let excess = runs.len().saturating_sub(keep);
    let mut removed = Vec::new();
    for dir in runs.into_iter().take(excess) {
        if dir.file_name().is_some_and(|n| n == current) {
            continue;
        }
        std::fs::remove_dir_all(&dir)?;
        // The review decisions of a run that is gone decide nothing.
        if let Some(name) = dir.file_name().and_then(|n| n.to_str()) {
            let _ = std::fs::remove_file(out_dir.join(review_file(name)));
        }
        removed.push(dir);
    }
    Ok(removed)
}

/// The run directories under `<out_dir>/artifacts` (none when it does not
/// exist).
pub(crate) fn run_dirs(out_dir: &Path, nextest: bool) -> std::io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(out_dir.join("artifacts")) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut runs = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if entry.file_type()?.is_dir() && name.to_str().is_some_and(|n| is_run_id(n, nextest)) {
            runs.push(entry.path());
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_stay_inside_and_are_unique() {
        let a = case_slug(0, "../../x | y 😀");
        assert_eq!(a, "001-x_y");
        assert!(!a.contains('/') && !a.contains(".."));
        assert_ne!(case_slug(1, "a b"), case_slug(2, "a_b"));
        assert_eq!(case_slug(4, "..."), "005-case");
    }

    /// Whether Windows accepts `name` as a file name.
    fn valid_on_windows(name: &str) -> bool {
        const RESERVED: &[&str] = &[
            "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7",
            "COM8", "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
        ];
        let stem = name.split('.').next().unwrap_or(name).trim_end();
        !name.is_empty()
            && !name.ends_with(['.', ' '])
            && !name.chars().any(|c| c < ' ' || r#"<>:"/\|?*"#.contains(c))
            && !RESERVED.iter().any(|r| stem.eq_ignore_ascii_case(r))
    }

    #[test]
    fn slugs_are_valid_windows_file_names() {
        assert!(!valid_on_windows("con") && !valid_on_windows("x. ") && !valid_on_windows("a:b"));
        let names = [
            "CON",
            "con",
            "NUL",
            "nul.txt",
            "PRN",
            "AUX",
            "COM1",
            "com9",
            "LPT1",
            "lpt9 ",
            "trailing.",
            "trailing ",
            "...",
            " ",
            "a:b",
            "a\\b",
            "a/b",
            "D:/x/p.yaml",
            "what?*",
            "tab\tname",
            "\u{0}",
        ];
        for (i, name) in names.iter().enumerate() {
            for attempt in [1, 2] {
                let dir = execution_dir("20250101T000000.000000Z-abcdef01", i, name, attempt);
                let slug = dir.rsplit('/').next().unwrap();
                assert!(valid_on_windows(slug), "{name:?} gave {slug:?}");
            }
        }
        assert_eq!(case_slug(0, "CON"), "001-con");
        assert!(valid_on_windows(&new_run_id()));
    }

    #[test]
    fn snapshot_stems_are_safe_stable_and_distinct() {
        assert_eq!(snapshot_stem("sales_daily-etl.v2"), "sales_daily-etl.v2");
        let odd = snapshot_stem("../x | y");
        assert!(odd.starts_with("_x_y-") && odd.len() == 5 + 8, "{odd}");
        assert_ne!(snapshot_stem("a b"), snapshot_stem("a_b"));
        assert_eq!(snapshot_stem("a b"), snapshot_stem("a b"));
        assert!(snapshot_stem("con").starts_with("con-"));
        assert!(snapshot_stem("...").starts_with("case-"));
        assert!(snapshot_stem(&"x".repeat(300)).len() <= MAX_STEM + 9);
        for name in ["../../etc/passwd", "a/b", "a\\b", "\u{0}", "é"] {
            let s = snapshot_stem(name);
            assert!(
                !s.contains('/') && !s.contains('\\') && !s.starts_with('.'),
                "{s}"
            );
        }
    }

    #[test]
    fn folds_dots() {
        let root = if cfg!(windows) { "C:\\" } else { "/" };
        let base = Path::new(root).join("a").join("b");
        assert_eq!(
            absolute_from(&base, Path::new("../c/./d")),
            Path::new(root).join("a").join("c").join("d")
        );
        // Never above the root.
        assert_eq!(
            absolute_from(&base, Path::new("../../../..")),
            PathBuf::from(root)
        );
    }

    #[test]
    fn run_ids_are_recognised_and_nothing_else() {
        assert!(super::is_run_id(&super::new_run_id(), false));
        assert!(super::is_run_id("nextest-abc", true));
        assert!(!super::is_run_id("nextest-abc", false));
        for other in [
            "notes",
            "",
            "20261123T050239.557121Z-cd82fc6",
            "20261123T050239.557121Z-cd82fc6g",
        ] {
            assert!(!super::is_run_id(other, true), "{other}");
        }
    }

    #[cfg(windows)]
    #[test]
    fn windows_drives_and_shares() {
        let base = Path::new(r"C:\work\suite");
        // The seed projects' spelling: a drive letter and forward slashes.
        assert_eq!(
            absolute_from(base, Path::new("D:/projects/sales_etl/pipeline.yaml")),
            PathBuf::from(r"D:\projects\sales_etl\pipeline.yaml")
        );
        assert_eq!(
            absolute_from(base, Path::new(r"golden\..\golden/p.yaml")),
            PathBuf::from(r"C:\work\suite\golden\p.yaml")
        );
        // Rooted without a drive: the base's drive.
        assert_eq!(
            absolute_from(base, Path::new(r"\data\x")),
            PathBuf::from(r"C:\data\x")
        );
        assert_eq!(
            absolute_from(base, Path::new(r"\\server\share\etl\..\..\p.yaml")),
            PathBuf::from(r"\\server\share\p.yaml")
        );
        assert!(absolute_from(base, Path::new("D:rel")).is_absolute());
    }
}
