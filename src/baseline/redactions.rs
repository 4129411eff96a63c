//! Snapshot redactions (docs/baselines.md, Output snapshots): the parts of a
//! case's output that change from run to run, replaced by placeholders before
//! the output is compared with, or written to, a snapshot file, and before a
//! failure signature is recorded in the baseline.
//!
//! Applied in this order, each to the result of the one before:
//!
//! 1. paths, longest first so a path inside another keeps its own name:
//!    `[CWD]` (the case's working directory, its temporary copy included),
//!    `[ROOT]` (the harness file's directory), `[TMP]` (the system temporary
//!    directory); each also in its canonical form when that differs. A path
//!    is replaced only where it starts and ends at a path boundary, so
//!    `/tmp` never eats into `/tmpfiles` or `/tmp.Ab12`, and `/tmp/tmp.Ab12`
//!    becomes `[TMP]/tmp.Ab12` (the random name is left to a wildcard or a
//!    `[redactions]` entry);
//! 2. `[RUN_ID]`, this run's id;
//! 3. `[TIMESTAMP]`: RFC 3339 / ISO 8601 date-times such as
//!    `2026-11-21T23:00:00Z`, `2026-11-21 23:00:00.123+01:00`,
//!    `20261121T230000Z`;
//! 4. `[TIME]`: a time of day without a date, `22:34:20`, `22:34:20.123`
//!    (dbt's and rich's log lines start with one);
//! 5. `[DURATION]`: a number with a unit, `12.5s`, `340ms`, `250us`,
//!    `1m30s`, `2h`;
//! 6. the `[redactions]` table of the harness file, in file order.
//!
//! This is not secret masking: secrets are masked before output is stored
//! at all; redactions only make stored output comparable.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::config::Redaction;

static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?\b",
        r"|\b\d{8}T\d{6}(?:[.,]\d+)?Z?\b",
    ))
    .expect("the timestamp pattern compiles")
});

static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d+)?\b")
        .expect("the time pattern compiles")
});

static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+\b")
        .expect("the duration pattern compiles")
});

/// Replaces what changes between runs in one case's output with the
/// placeholders of `[redactions]` (docs/baselines.md, Output snapshots),
/// before it is compared with a snapshot or the baseline; secrets are masked
/// by [`crate::redact::Redactor`]. Cheap to make: the file system is asked for
/// canonical paths only when text is redacted.
#[derive(Clone, Debug)]
pub struct SnapshotRedactor<'a> {
    root: PathBuf,
    cwd: PathBuf,
    run_id: String,
    user: &'a [Redaction],
}

impl<'a> SnapshotRedactor<'a> {
    /// The redactor of a case run in `cwd`, declared in a harness file in
    /// `root`, during run `run_id`, with the harness's own `redactions`.
    pub fn new(root: &Path, cwd: &Path, run_id: &str, user: &'a [Redaction]) -> Self {
        Self {
            root: root.to_path_buf(),
            cwd: cwd.to_path_buf(),
            run_id: run_id.to_string(),
            user,
        }
    }

    /// (path text, placeholder), longest path first; on equal paths the
    /// order [CWD], [ROOT], [TMP] decides.
    fn paths(&self) -> Vec<(String, &'static str)> {
        let mut paths: Vec<(String, &'static str)> = Vec::new();
        for (path, name) in [
            (self.cwd.clone(), "[CWD]"),
            (self.root.clone(), "[ROOT]"),
            (std::env::temp_dir(), "[TMP]"),
        ] {
            for text in path_forms(&path) {
                if !paths.iter().any(|(p, _)| *p == text) {
                    paths.push((text, name));
                }
            }
        }
        paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        paths
    }

    /// `text` with every redaction applied.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (path, name) in self.paths() {
            if out.contains(path.as_str()) {
                out = replace_path(&out, &path, name);
            }
        }
        if !self.run_id.is_empty() && out.contains(&self.run_id) {
            out = out.replace(&self.run_id, "[RUN_ID]");
        }
        out = TIMESTAMP.replace_all(&out, "[TIMESTAMP]").into_owned();
        out = TIME.replace_all(&out, "[TIME]").into_owned();
        out = DURATION.replace_all(&out, "[DURATION]").into_owned();
        for r in self.user {
            // `NoExpand`: a `$` in a placeholder is text, not a group reference.
            out = r
                .regex
                .replace_all(&out, regex::NoExpand(&r.name))
                .into_owned();
        }
        out
    }
}

/// The spellings of `path` worth replacing: as given and canonical, without
/// a trailing separator; nothing for the root directory, which would match
/// every `/`.
fn path_forms(path: &Path) -> Vec<String> {
    let mut forms: Vec<PathBuf> = vec![path.to_path_buf()];
    if let Ok(c) = path.canonicalize()
        && c != path
    {
        forms.push(c);
    }
    forms
        .into_iter()
        .map(|p| {
            let s = p.to_string_lossy().into_owned();
            s.trim_end_matches(['/', '\\']).to_string()
        })
        .filter(|s| s.len() > 1)
        .collect()
}

/// Characters that continue a file name: a path followed or preceded by
/// one of these is part of a longer name, not this path.
fn continues_name(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-')
}

/// `text` with every occurrence of `path` that stands on its own (a path
/// boundary on both sides, judged in `text` as given) replaced by `name`:
/// `/tmp` is replaced in `/tmp/tmp.Ab12` once, as the directory, and not
/// in `/tmp.Ab12` or `/x/tmp`.
fn replace_path(text: &str, path: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for (i, _) in text.match_indices(path) {
        let before = text[..i].chars().next_back();
        let starts = !before.is_some_and(|c| continues_name(c) || c == '/' || c == '.');
        if starts && ends_component(&text[i + path.len()..]) {
            out.push_str(&text[kept..i]);
            out.push_str(name);
            kept = i + path.len();
        }
    }
    out.push_str(&text[kept..]);
    out
}

/// Whether a path followed by `rest` ends there: at a separator, the end
/// of the text or a character no name holds. A dot ends it only when no
/// name goes on after it (`/tmp.` closing a sentence, not `/tmp.Ab12`).
fn ends_component(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        Some('.') => !chars.next().is_some_and(|c| continues_name(c) || c == '.'),
        Some(c) => !continues_name(c),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(user: &[Redaction]) -> SnapshotRedactor<'_> {
        SnapshotRedactor::new(
            Path::new("/home/u/proj"),
            Path::new("/home/u/proj/golden/sales"),
            "20261121T230000.123456Z-abcd1234",
            user,
        )
    }

    #[test]
    fn paths_longest_first_and_only_whole() {
        let r = redactor(&[]);
        assert_eq!(
            r.redact("in /home/u/proj/golden/sales/x and /home/u/proj/y"),
            "in [CWD]/x and [ROOT]/y"
        );
        assert_eq!(r.redact("/home/u/project2"), "/home/u/project2");
        assert_eq!(r.redact("/x/home/u/proj"), "/x/home/u/proj");
        assert_eq!(r.redact("'/home/u/proj'."), "'[ROOT]'.");
        assert_eq!(r.redact("/home/u/proj/proj.a1"), "[ROOT]/proj.a1");
        assert_eq!(
            r.redact("/home/u/proj.a1 /home/u/proj"),
            "/home/u/proj.a1 [ROOT]"
        );
    }

    #[test]
    fn a_path_repeated_inside_itself_is_replaced_once() {
        assert_eq!(
            replace_path("/tmp/tmp.Ab12/x", "/tmp", "[TMP]"),
            "[TMP]/tmp.Ab12/x"
        );
        assert_eq!(replace_path("/tmp/tmp", "/tmp", "[TMP]"), "[TMP]/tmp");
        assert_eq!(replace_path("/tmp.Ab12", "/tmp", "[TMP]"), "/tmp.Ab12");
        assert_eq!(
            replace_path("/tmp\\x /tmp.", "/tmp", "[TMP]"),
            "[TMP]\\x [TMP]."
        );
    }

    #[test]
    fn run_ids_timestamps_and_durations() {
        let r = redactor(&[]);
        assert_eq!(
            r.redact(
                "run 20261121T230000.123456Z-abcd1234 at 2026-11-21T23:00:00.5+01:00 took 12.5s"
            ),
            "run [RUN_ID] at [TIMESTAMP] took [DURATION]"
        );
        assert_eq!(
            r.redact("2026-01-02 03:04:05Z, 20260102T030405Z, 340ms 1m30s 250µs"),
            "[TIMESTAMP], [TIMESTAMP], [DURATION] [DURATION] [DURATION]"
        );
        assert_eq!(
            r.redact("3 rows, 5 items, v2, 10sigma"),
            "3 rows, 5 items, v2, 10sigma"
        );
        assert_eq!(
            r.redact("22:34:20  Done. [22:34:20] INFO at 22:34:20.123, 2026-01-02T03:04:05Z"),
            "[TIME]  Done. [[TIME]] INFO at [TIME], [TIMESTAMP]"
        );
    }

    #[test]
    fn user_redactions_come_last_and_are_literal() {
        let user = [Redaction {
            name: "[PORT]".into(),
            regex: Regex::new(r":\d{4,5}\b").unwrap(),
        }];
        let r = redactor(&user);
        assert_eq!(
            r.redact("listening on 127.0.0.1:43121"),
            "listening on 127.0.0.1[PORT]"
        );
    }
}
