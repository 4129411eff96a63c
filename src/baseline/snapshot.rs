//! Output snapshots (docs/baselines.md, Output snapshots): a case with
//! `snapshot = ["stdout"]` has its stored output, redacted, compared with
//! `snapshots/<stem>.stdout` beside the harness file (the stem comes from the
//! case name, see [`crate::layout::snapshot_stem`]). A mismatch is an
//! `OUTPUT_CHANGED` issue carrying a unified diff, a missing file a
//! `SNAPSHOT_MISSING` issue; either fails the case. Under `--bless` the
//! redacted output is written instead, escaped so that it matches only itself
//! ([`wildcard::escape`]); a snapshot whose wildcards already accept the
//! output is left as it is, so hand-written `[..]` and `...` survive.
//!
//! The output is read back from `stdout.log` / `stderr.log` after the case,
//! up to [`SNAPSHOT_LIMIT`] bytes per stream: a larger output is not
//! compared (nor blessed) and fails the case with an `OUTPUT_CHANGED`
//! issue that says so, so memory stays bounded and nothing passes unseen.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::pending::PendingDir;
use super::redactions::SnapshotRedactor;
use super::wildcard;
use crate::config::{CaseDef, HarnessConfig, OutputSpec, Redaction};
use crate::data::{self, OutputRead};
use crate::model::CaseRecord;
pub(crate) use crate::model::{SnapshotCheck, SnapshotOutcome, Stream};

/// Largest output (per stream, in bytes) compared with a snapshot.
pub(crate) const SNAPSHOT_LIMIT: u64 = 8 * 1024 * 1024;
/// Largest data snapshot read: a committed canonical copy of a case's
/// output data, as large as that data (a million rows of ten columns is
/// about 50 MiB), unlike the 16 MiB of the other files a user writes.
const DATA_SNAPSHOT_LIMIT: u64 = 1 << 30;
/// Lines of a unified diff kept in the records and reports.
const MAX_DIFF_LINES: usize = 200;
/// Bytes of a unified diff kept in the records and reports.
const MAX_DIFF_BYTES: usize = 32 * 1024;
/// Longest a diff may take before `similar` settles for a coarser one.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// Compares (or blesses) the snapshots of the cases of one harness.
#[derive(Clone, Debug)]
pub(crate) struct Snapshots<'h> {
    root: PathBuf,
    /// The harness file's directory where the cases ran: `root`, unless
    /// the outputs come from a run elsewhere (`bless --from`).
    ran_in: PathBuf,
    redactions: &'h [Redaction],
    run_id: String,
    bless: bool,
    /// The run's secret values: masked in a snapshot's text before it is
    /// compared or shown (the output is masked already).
    secrets: crate::redact::Redactor,
}

impl<'h> Snapshots<'h> {
    /// Snapshots of `harness` for run `run_id`, compared (not blessed).
    pub(crate) fn new(harness: &'h HarnessConfig, run_id: &str) -> Snapshots<'h> {
        Snapshots {
            root: harness.base_dir.clone(),
            ran_in: harness.base_dir.clone(),
            redactions: &harness.redactions,
            run_id: run_id.to_string(),
            bless: false,
            secrets: crate::redact::Redactor::none(),
        }
    }

    /// Mask the values of `secrets` in every snapshot text: a snapshot
    /// blessed before its variable was a secret holds the value, and its
    /// diff would show it.
    pub(crate) fn masking(mut self, secrets: crate::redact::Redactor) -> Snapshots<'h> {
        self.secrets = secrets;
        self
    }

    /// Redact outputs of cases that ran with the harness file in `dir`
    /// (another checkout, e.g. a CI run's), not beside this one.
    pub(crate) fn ran_in(mut self, dir: &Path) -> Snapshots<'h> {
        self.ran_in = dir.to_path_buf();
        self
    }

    /// Write snapshots from the output instead of comparing.
    pub(crate) fn set_bless(&mut self, bless: bool) {
        self.bless = bless;
    }

    /// The redactor of a case that ran in `cwd`.
    pub(crate) fn redactor(&self, cwd: &Path) -> SnapshotRedactor<'h> {
        SnapshotRedactor::new(&self.ran_in, cwd, &self.run_id, self.redactions)
    }

    /// Compare (or bless) the snapshotted streams of `def` from the logs
    /// `rec` left in `out_dir`, and record each check: the issue a failing
    /// one raises follows from it ([`crate::model::verdict`]).
    pub(crate) fn apply(&self, def: &CaseDef, rec: &mut CaseRecord, out_dir: &Path) {
        if def.snapshot.is_empty() {
            return;
        }
        let stem = crate::layout::snapshot_stem(&def.name);
        let redactor = self.redactor(&rec.working_dir);
        let exec_dir = exec_dir(rec);
        let keep = exec_dir
            .as_deref()
            .map(|exec_dir| PendingDir { out_dir, exec_dir });
        for (stream, on) in [
            (Stream::Stdout, def.snapshot.stdout),
            (Stream::Stderr, def.snapshot.stderr),
        ] {
            if !on {
                continue;
            }
            let file = format!("{}/{stem}.{stream}", crate::layout::SNAPSHOT_DIR);
            let log = rec.artifacts.as_ref().map(|a| match stream {
                Stream::Stdout => a.stdout.clone(),
                // Only the two streams are looped over.
                Stream::Stderr | Stream::Data => a.stderr.clone(),
            });
            let check = match (rec.ran(), log) {
                (true, Some(log)) => {
                    let output = read_output(&out_dir.join(&log));
                    let (check, secrets) =
                        self.check(stream, file, output, &redactor, (keep, &mut rec.warnings));
                    if !secrets.is_empty() {
                        rec.warnings.push(format!(
                            "{} contains the value of {}: re-bless it (`cargo golden --bless`) so it holds the masked output",
                            check.file,
                            secrets.join(", ")
                        ));
                    }
                    check
                }
                // A case that could not run is an ERROR with its own issue;
                // under bless its snapshot stays as it was.
                _ if self.bless => SnapshotCheck {
                    outcome: SnapshotOutcome::NotWritten,
                    ..stream_check(stream, file)
                },
                _ => continue,
            };
            rec.snapshots.push(check);
        }
    }

    /// Compare (or bless) the data outputs of `def` read after its run
    /// (`reads`, see [`data::read_outputs`]), and record each check: the
    /// issue a failing one raises follows from it ([`crate::model::verdict`]).
    pub(crate) fn apply_data(
        &self,
        def: &CaseDef,
        rec: &mut CaseRecord,
        reads: Vec<OutputRead>,
        out_dir: &Path,
    ) {
        if def.outputs.is_empty() {
            return;
        }
        let stem = crate::layout::snapshot_stem(&def.name);
        let exec_dir = exec_dir(rec);
        let keep = exec_dir
            .as_deref()
            .map(|exec_dir| PendingDir { out_dir, exec_dir });
        if !rec.ran() || reads.is_empty() {
            // A case that could not run keeps its data snapshots as they were.
            if self.bless {
                for spec in &def.outputs {
                    rec.snapshots.push(data_check(
                        data::snapshot_file(&stem, &spec.path),
                        &spec.path,
                        SnapshotOutcome::NotWritten,
                    ));
                }
            }
            return;
        }
        let checked: Vec<String> = (reads.iter())
            .map(|r| data::snapshot_file(&stem, &r.rel))
            .collect();
        let mut checks = Vec::new();
        for read in reads {
            if !read.secrets.is_empty() {
                rec.warnings.push(format!(
                    "data output {} holds the value of {}: masked in its data snapshot and diff",
                    read.rel,
                    read.secrets.join(", ")
                ));
            }
            let file = data::snapshot_file(&stem, &read.rel);
            let spec = &def.outputs[read.spec];
            checks.push(self.check_data(spec, file, read, (keep, &mut rec.warnings)));
        }
        checks.extend(self.missing_members(def, &stem, &checked));
        rec.snapshots.extend(checks);
    }

    /// A check for each blessed output of a glob in `def`'s outputs that
    /// this run did not write (its snapshot is not among `checked`): the
    /// output is missing, a change; under bless its snapshot is removed.
    fn missing_members(&self, def: &CaseDef, stem: &str, checked: &[String]) -> Vec<SnapshotCheck> {
        let globs: Vec<_> = (def.outputs.iter())
            .filter(|o| data::is_glob(&o.path))
            .filter_map(|o| Some((data::glob(&o.path)?, flat_glob(stem, &o.path)?)))
            .collect();
        if globs.is_empty() {
            return Vec::new();
        }
        let dir = self.root.join(crate::layout::SNAPSHOT_DIR);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = (entries.filter_map(Result::ok))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&format!("{stem}.")) && n.ends_with(".data"))
            .collect();
        names.sort();
        let mut out = Vec::new();
        for name in names {
            let file = format!("{}/{name}", crate::layout::SNAPSHOT_DIR);
            if checked.contains(&file) {
                continue;
            }
            // The output the snapshot names; one blessed before snapshots
            // named it is matched by its file name.
            let output = data::snapshot_output(&dir.join(&name));
            let member = globs.iter().any(|(glob, flat)| match &output {
                Some(rel) => glob.is_match(rel),
                None => flat.is_match(&name),
            });
            if member {
                let rel = output.unwrap_or_else(|| name.clone());
                out.push(self.missing_member(file, &rel));
            }
        }
        out
    }

    /// The check of a glob's blessed output `rel`, snapshot `file`, that
    /// this run did not write.
    fn missing_member(&self, file: String, rel: &str) -> SnapshotCheck {
        let mut check = data_check(file, rel, SnapshotOutcome::OutputMissing);
        if self.bless {
            check.outcome = match std::fs::remove_file(self.root.join(&check.file)) {
                Ok(()) => SnapshotOutcome::Removed,
                Err(e) => {
                    check.detail = Some(format!("cannot remove it: {e}"));
                    SnapshotOutcome::NotWritten
                }
            };
            return check;
        }
        let diff = format!("output missing: {rel} (blessed in {})\n", check.file);
        check.diff_sha256 = Some(crate::hash::sha256_hex(diff.as_bytes()));
        check.diff = Some(diff);
        check
    }

    /// The check of one data output; `warnings` gets one when its
    /// snapshot holds the value of a secret (blessed before it was one).
    fn check_data(
        &self,
        spec: &OutputSpec,
        file: String,
        read: OutputRead,
        (keep, warnings): (Option<PendingDir<'_>>, &mut Vec<String>),
    ) -> SnapshotCheck {
        let mut check = data_check(file, &read.rel, SnapshotOutcome::Matched);
        let path = self.root.join(&check.file);
        let actual = match read.data {
            Ok((table, sha)) => {
                check.sha256 = Some(sha);
                table
            }
            Err(why) if self.bless => {
                check.outcome = SnapshotOutcome::NotWritten;
                check.detail = Some(format!("{}: {why}", read.rel));
                return check;
            }
            Err(why) => {
                check.outcome = SnapshotOutcome::Changed;
                check.detail = Some(format!("{}: {why}", read.rel));
                let diff = format!("output not read: {}: {why}\n", read.rel);
                check.diff_sha256 = Some(crate::hash::sha256_hex(diff.as_bytes()));
                check.diff = Some(diff);
                return check;
            }
        };
        let (snapshot, mut expected) =
            self.read_data_snapshot(&path, &check.file, &actual, spec, warnings);
        // The snapshot, read and compared: the differences.
        let diff = match &mut expected {
            Some(Ok(diff)) => std::mem::take(diff),
            Some(Err(_)) | None => data::DataDiff::default(),
        };
        if self.bless {
            bless_data(
                &mut check,
                &path,
                &expected,
                diff.is_empty(),
                &actual,
                &read.rel,
            );
            return check;
        }
        match expected {
            None => check.outcome = SnapshotOutcome::Missing,
            Some(Err(why)) => {
                check.outcome = SnapshotOutcome::Unreadable;
                check.detail = Some(why);
            }
            Some(Ok(_)) if diff.is_empty() => {}
            Some(Ok(_)) => {
                check.outcome = SnapshotOutcome::Changed;
                check.detail = Some(format!("{} difference(s)", diff.lines.len()));
                check.diff = Some(data::diff_text(&diff));
                check.diff_sha256 = Some(differences_digest(&diff.lines));
            }
        }
        if matches!(
            check.outcome,
            SnapshotOutcome::Missing | SnapshotOutcome::Changed
        ) {
            // What `--bless` would write, rendered only for a change.
            let text = data::render(&actual, &read.rel);
            keep_pending(
                &mut check,
                keep,
                text.as_bytes(),
                snapshot.as_deref(),
                warnings,
            );
        }
        check
    }

    /// The data snapshot at `path` (named `file`), if there is one, and
    /// its differences from `actual` (or why it could not be compared);
    /// `warnings` gets one when it holds the value of a secret.
    fn read_data_snapshot(
        &self,
        path: &Path,
        file: &str,
        actual: &data::Table,
        spec: &OutputSpec,
        warnings: &mut Vec<String>,
    ) -> (Option<Vec<u8>>, Option<Compared>) {
        match crate::untrusted::read_limited(path, DATA_SNAPSHOT_LIMIT) {
            Ok(bytes) => {
                // Masked as the output is: a cell holding a secret compares
                // as its mask.
                let text = String::from_utf8_lossy(&bytes);
                let secrets = self.secrets.names_in(text.as_bytes());
                if !secrets.is_empty() && !self.bless {
                    warnings.push(format!(
                        "{} contains the value of {}: re-bless it (`cargo golden --bless`) so it holds the masked data",
                        file,
                        secrets.join(", ")
                    ));
                }
                let compared = data::compare(&self.secrets.mask_str(&text).0, actual, spec)
                    .map_err(|e| e.to_string());
                (Some(bytes), Some(compared))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
            Err(e) => (None, Some(Err(format!("cannot read it: {e}")))),
        }
    }

    /// The check of one stream, and the names of the secret values its
    /// snapshot file holds.
    fn check(
        &self,
        stream: Stream,
        file: String,
        output: Result<String, (SnapshotOutcome, String)>,
        redactor: &SnapshotRedactor<'_>,
        (keep, warnings): (Option<PendingDir<'_>>, &mut Vec<String>),
    ) -> (SnapshotCheck, Vec<&str>) {
        let mut check = stream_check(stream, file);
        let actual = match output {
            Ok(text) => redactor.redact(&text).replace("\r\n", "\n"),
            Err((outcome, detail)) => {
                check.outcome = if self.bless && outcome == SnapshotOutcome::TooLarge {
                    SnapshotOutcome::NotWritten
                } else {
                    outcome
                };
                check.detail = Some(detail);
                return (check, Vec::new());
            }
        };
        let path = self.root.join(&check.file);
        let mut snapshot = None;
        let expected = match crate::untrusted::read(&path) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                snapshot = Some(bytes);
                Some(text)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) if self.bless => {
                check.outcome = SnapshotOutcome::NotWritten;
                check.detail = Some(format!("cannot read it: {e}"));
                return (check, Vec::new());
            }
            Err(e) => {
                check.outcome = SnapshotOutcome::Unreadable;
                check.detail = Some(format!("cannot read it: {e}"));
                return (check, Vec::new());
            }
        };
        if self.bless {
            // Compared unmasked: a snapshot holding a value is rewritten.
            return (
                bless(check, &path, expected.as_deref(), &actual),
                Vec::new(),
            );
        }
        let secrets = expected
            .as_deref()
            .map_or_else(Vec::new, |e| self.secrets.names_in(e.as_bytes()));
        let expected = expected.map(|e| match self.secrets.mask_str(&e).0 {
            std::borrow::Cow::Owned(masked) => masked,
            std::borrow::Cow::Borrowed(_) => e,
        });
        compare_stream(&mut check, expected, &actual);
        if check.outcome != SnapshotOutcome::Matched {
            // Escaped as `--bless` writes it (see [`bless`]).
            let text = wildcard::escape(&actual);
            keep_pending(
                &mut check,
                keep,
                text.as_bytes(),
                snapshot.as_deref(),
                warnings,
            );
        }
        (check, secrets)
    }
}

/// A data snapshot compared with its output: the differences, or why
/// it could not be.
type Compared = Result<data::DataDiff, String>;

/// A check of stream `stream` against snapshot `file`, matched until
/// found otherwise.
fn stream_check(stream: Stream, file: String) -> SnapshotCheck {
    SnapshotCheck {
        stream,
        file,
        outcome: SnapshotOutcome::Matched,
        diff: None,
        detail: None,
        output: None,
        sha256: None,
        diff_sha256: None,
        pending: None,
    }
}

/// The stream's snapshot `expected` (masked; none when missing) compared
/// with its output `actual`, into `check`.
fn compare_stream(check: &mut SnapshotCheck, expected: Option<String>, actual: &str) {
    match expected {
        None => check.outcome = SnapshotOutcome::Missing,
        Some(expected) if wildcard::matches(&expected, actual) => {}
        Some(expected) => {
            let (diff, added, removed) = unified_diff(&check.file, check.stream, &expected, actual);
            check.outcome = SnapshotOutcome::Changed;
            check.diff = Some(diff);
            check.detail = Some(format!("{added} line(s) added, {removed} removed"));
        }
    }
}

/// Blesses a data output: writes `actual` (output `rel`) to its snapshot
/// at `path` unless the snapshot `expected` compared with no difference.
fn bless_data(
    check: &mut SnapshotCheck,
    path: &Path,
    expected: &Option<Compared>,
    no_difference: bool,
    actual: &data::Table,
    rel: &str,
) {
    if matches!(expected, Some(Ok(_))) && no_difference {
        // Within the tolerance: the snapshot stays as it is.
        check.outcome = SnapshotOutcome::Unchanged;
        return;
    }
    check.outcome = if expected.is_some() {
        SnapshotOutcome::Updated
    } else {
        SnapshotOutcome::Created
    };
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| {
            let text = data::render(actual, rel);
            crate::atomic::atomic_write(path, text.as_bytes())
        });
    if let Err(e) = written {
        check.outcome = SnapshotOutcome::NotWritten;
        check.detail = Some(format!("cannot write it: {e}"));
    }
}

/// The matcher of the snapshot file names of a glob's outputs, for the
/// snapshots blessed before they named their output: `<stem>.` and the
/// glob with its `/` made `.`, as [`data::snapshot_file`] flattens a path.
fn flat_glob(stem: &str, pattern: &str) -> Option<globset::GlobMatcher> {
    let flat = format!("{stem}.{}.data", pattern.replace(['/', '\\'], "."));
    Some(globset::Glob::new(&flat).ok()?.compile_matcher())
}

/// sha256 of every difference, each line ending in `\n`: the whole diff
/// of which `diff` shows the first ones.
fn differences_digest(lines: &[String]) -> String {
    use sha2::Digest as _;
    let mut h = sha2::Sha256::new();
    for l in lines {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    crate::hash::hex(&h.finalize())
}

/// A check of data output `rel` against snapshot `file`.
fn data_check(file: String, rel: &str, outcome: SnapshotOutcome) -> SnapshotCheck {
    SnapshotCheck {
        stream: Stream::Data,
        file,
        outcome,
        diff: None,
        detail: None,
        output: Some(rel.to_string()),
        sha256: None,
        diff_sha256: None,
        pending: None,
    }
}

/// The execution dir of `rec` (relative to the out dir), where its pending
/// snapshots go: the directory of its `evidence.json`.
fn exec_dir(rec: &CaseRecord) -> Option<String> {
    let a = rec.artifacts.as_ref()?;
    Some(a.evidence.rsplit_once('/')?.0.to_string())
}

/// Keep `text`, what accepting the change of `check` writes, as its
/// pending snapshot in `keep` (found different from the snapshot whose
/// sha256 is `base`); a file that cannot be written is a warning: the
/// change can still be blessed by running the case again.
fn keep_pending(
    check: &mut SnapshotCheck,
    keep: Option<PendingDir<'_>>,
    text: &[u8],
    snapshot: Option<&[u8]>,
    warnings: &mut Vec<String>,
) {
    let Some(keep) = keep else {
        return;
    };
    // The snapshot the change was found against, hashed only for a change.
    let base = snapshot.map(crate::hash::sha256_hex);
    match keep.keep(&check.file, text, base) {
        Ok(pending) => check.pending = Some(pending),
        Err(e) => warnings.push(format!(
            "the new text of {} was not kept for `cargo golden review`: {e}",
            check.file
        )),
    }
}

fn bless(
    mut check: SnapshotCheck,
    path: &Path,
    expected: Option<&str>,
    actual: &str,
) -> SnapshotCheck {
    check.outcome = match expected {
        Some(e) if wildcard::matches(e, actual) => SnapshotOutcome::Unchanged,
        Some(_) => SnapshotOutcome::Updated,
        None => SnapshotOutcome::Created,
    };
    if check.outcome == SnapshotOutcome::Unchanged {
        return check;
    }
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        // Escaped: output holding `[..]` or a `...` line is recorded as
        // that text, not as wildcards that would accept anything there.
        .and_then(|()| crate::atomic::atomic_write(path, wildcard::escape(actual).as_bytes()));
    if let Err(e) = written {
        check.outcome = SnapshotOutcome::NotWritten;
        check.detail = Some(format!("cannot write it: {e}"));
    }
    check
}

/// A stored output log as text, unless it is over [`SNAPSHOT_LIMIT`] or
/// cannot be read.
fn read_output(path: &Path) -> Result<String, (SnapshotOutcome, String)> {
    let unreadable = |e: std::io::Error| {
        (
            SnapshotOutcome::Unreadable,
            format!("cannot read {}: {e}", path.display()),
        )
    };
    let (file, len) = crate::untrusted::open(path).map_err(unreadable)?;
    if len > SNAPSHOT_LIMIT {
        return Err((
            SnapshotOutcome::TooLarge,
            format!(
                "the output is {len} bytes, over the {} MiB snapshot limit",
                SNAPSHOT_LIMIT >> 20
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // `take`: a log still growing (a leaked writer) cannot exceed the limit.
    file.take(SNAPSHOT_LIMIT)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The unified diff from `expected` (the snapshot) to `actual`, wildcard
/// matches folded away, cut to a bounded size; with the numbers of lines
/// added and removed.
pub(crate) fn unified_diff(
    file: &str,
    stream: Stream,
    expected: &str,
    actual: &str,
) -> (String, usize, usize) {
    let normalized = wildcard::normalize(expected, actual);
    let diff = similar::TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(expected, &normalized);
    let (mut added, mut removed) = (0, 0);
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
    }
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(file, &format!("{stream} (this run, redacted)"))
        .to_string();
    (cap(&text), added, removed)
}

/// The whole unified diff from the file text `old` (labelled `file`) to
/// `new` (labelled `label`), line for line as the files read (wildcards
/// not folded): what accepting `new` in place of `old` changes in the
/// file. Not cut: `cargo golden review` pages it.
pub(crate) fn file_diff(file: &str, old: &str, label: &str, new: &str) -> String {
    similar::TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(file, label)
        .to_string()
}

/// `diff` cut to [`MAX_DIFF_LINES`] lines and [`MAX_DIFF_BYTES`] bytes,
/// saying how much was left out.
fn cap(diff: &str) -> String {
    let total = diff.lines().count();
    let mut out = String::new();
    let mut kept = 0;
    for line in diff.split_inclusive('\n') {
        if kept == MAX_DIFF_LINES || out.len() + line.len() > MAX_DIFF_BYTES {
            break;
        }
        out.push_str(line);
        kept += 1;
    }
    if kept < total {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("[… {} more line(s) of diff]\n", total - kept));
    }
    out
}
