//! The decisions of earlier reviews of a run: `<out_dir>/review/<run_id>.jsonl`
//! (see [`crate::wire::review`]), read when a review starts and appended
//! to when it ends.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::wire::review::{Decision, DecisionLine, SCHEMA_VERSION};

/// Largest decisions file read: a line per pending snapshot of one run.
const DECISIONS_LIMIT: u64 = 64 << 20;

/// The decisions taken on the pending snapshots of one run.
pub(super) struct Decisions {
    /// The file, in the out dir.
    pub(crate) path: PathBuf,
    /// The file as read: kept whole, lines this version cannot read
    /// included, when the decisions taken now are added to it.
    read: Vec<u8>,
    /// The decisions taken now, in order.
    added: Vec<DecisionLine>,
    /// The decision on each pending file, by its path and sha256 (the
    /// last line about it wins).
    by_pending: HashMap<(String, String), Decision>,
}

impl Decisions {
    /// The decisions recorded for run `run_id` of `out_dir` (none when
    /// there is no file yet); a line that does not read is named in
    /// `warnings` and decides nothing.
    pub(super) fn load(
        out_dir: &Path,
        run_id: &str,
        warnings: &mut Vec<String>,
    ) -> io::Result<Decisions> {
        let path = out_dir.join(crate::layout::review_file(run_id));
        let bytes = match crate::untrusted::read_limited(&path, DECISIONS_LIMIT) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let mut decisions = Decisions {
            path,
            read: Vec::new(),
            added: Vec::new(),
            by_pending: HashMap::new(),
        };
        for (n, line) in String::from_utf8_lossy(&bytes).lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<DecisionLine>(line) {
                Ok(l) if crate::wire::is_schema_version(&l.schema_version) => {
                    decisions
                        .by_pending
                        .insert((l.pending, l.sha256), l.decision);
                }
                Ok(l) => warnings.push(format!(
                    "{}:{}: schema_version {:?} is not 1.x.y: the line is left out",
                    decisions.path.display(),
                    n + 1,
                    l.schema_version
                )),
                Err(e) => warnings.push(format!(
                    "{}:{}: not a review decision ({e}): the line is left out",
                    decisions.path.display(),
                    n + 1
                )),
            }
        }
        decisions.read = bytes;
        Ok(decisions)
    }

    /// What was decided on the pending file at `pending` whose bytes have
    /// the sha256 `sha256`, if anything.
    pub(super) fn of(&self, pending: &str, sha256: &str) -> Option<Decision> {
        self.by_pending
            .get(&(pending.to_string(), sha256.to_string()))
            .copied()
    }

    /// Record `decision` on the pending snapshot `pending` of `file` of
    /// `case` (not written until [`Decisions::save`]).
    pub(super) fn record(
        &mut self,
        case: &str,
        file: &str,
        pending: &crate::model::PendingSnapshot,
        decision: Decision,
    ) {
        self.by_pending
            .insert((pending.path.clone(), pending.sha256.clone()), decision);
        self.added.push(DecisionLine {
            schema_version: SCHEMA_VERSION.to_string(),
            case: case.to_string(),
            file: file.to_string(),
            pending: pending.path.clone(),
            sha256: pending.sha256.clone(),
            decision,
            at: crate::time::Timestamp::now(),
        });
    }

    /// Write the file: as it was read (lines that did not read stay, for
    /// a version that can), then the decisions recorded, atomically.
    pub(super) fn save(&self) -> io::Result<()> {
        let mut text = self.read.clone();
        if text.last().is_some_and(|&b| b != b'\n') {
            text.push(b'\n');
        }
        for line in &self.added {
            text.extend(serde_json::to_vec(line).map_err(io::Error::other)?);
            text.push(b'\n');
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        crate::atomic::atomic_write(&self.path, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_decision_on_a_pending_text_holds_and_bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let pending = crate::model::PendingSnapshot {
            path: "artifacts/r/execution/001-x/pending/x.stdout".into(),
            sha256: "aa".into(),
            base_sha256: None,
        };
        let mut warnings = Vec::new();
        let mut d = Decisions::load(dir.path(), "r", &mut warnings).unwrap();
        assert_eq!(d.of(&pending.path, "aa"), None);
        d.record("x", "snapshots/x.stdout", &pending, Decision::Rejected);
        d.record("x", "snapshots/x.stdout", &pending, Decision::Accepted);
        d.save().unwrap();
        let mut text = std::fs::read_to_string(&d.path).unwrap();
        text.push_str("{not json\n");
        std::fs::write(&d.path, text).unwrap();
        let d = Decisions::load(dir.path(), "r", &mut warnings).unwrap();
        assert_eq!(d.of(&pending.path, "aa"), Some(Decision::Accepted));
        // Another text at the same path was not decided.
        assert_eq!(d.of(&pending.path, "bb"), None);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("r.jsonl:3: not a review decision"),
            "{warnings:?}"
        );
        // A line this version cannot read stays for one that can.
        let mut d = d;
        d.record("x", "snapshots/x.stdout", &pending, Decision::Rejected);
        d.save().unwrap();
        let text = std::fs::read_to_string(&d.path).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert!(text.contains("\n{not json\n"), "{text}");
    }
}
