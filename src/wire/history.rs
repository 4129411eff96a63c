//! `history.jsonl`: one line per case per run, appended to the out dir
//! once the run's reports are written and agree, so later runs and
//! `cargo golden history` can see each case across runs.
//!
//! ```json
//! {"schema_version": "1.0.0", "type": "history", "run_id": "…",
//!  "started_at": "2026-11-27T09:30:00Z", "commit": "3c9f…", "dirty": false,
//!  "case": "sales_daily_etl", "kind": "golden", "result": "PASSED",
//!  "execution_status": "SUCCESS", "status": "SUCCESS", "issue_types": [],
//!  "duration_seconds": 1.25, "jobs": 1, "attempts": 1, "flaky": false,
//!  "evidence_hash": "…"}
//! ```
//!
//! A line holds no output and no message: names, statuses, issue types,
//! numbers and hashes only, so no secret a case printed can reach it. Each
//! line says what that run's evidence says; `verify-evidence` holds the
//! lines of the run it checks to it.

use serde::{Deserialize, Serialize};

use crate::model::{
    CaseKind, CaseRecord, CaseResult, EvidenceStatus, ExecutionStatus, IssueType, RunRecord,
};

/// The schema version written by this crate.
pub(crate) const SCHEMA_VERSION: &str = "1.0.0";

/// The `type` tag of a history line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) enum HistoryType {
    /// Always `"history"`.
    #[serde(rename = "history")]
    History,
}

/// Where the run's sources stood: the commit checked out in the harness
/// file's git work tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Revision {
    /// The full commit hash; `None` outside git.
    pub(crate) commit: Option<String>,
    /// Whether tracked files differed from that commit.
    pub(crate) dirty: Option<bool>,
}

/// # cargo-golden history line
///
/// One line of `<out_dir>/history.jsonl`: one case of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct HistoryLine {
    /// Version of this format: `1.<minor>.<patch>`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "super::schema_version_schema")
    )]
    pub(crate) schema_version: String,
    /// Always `"history"`.
    #[serde(rename = "type")]
    pub(crate) line_type: HistoryType,
    /// The run (its evidence is under `artifacts/<run_id>` while kept).
    pub(crate) run_id: String,
    /// When the run started, RFC 3339 UTC.
    pub(crate) started_at: crate::time::Timestamp,
    /// The git commit checked out where the harness file lies; null
    /// outside a git work tree.
    pub(crate) commit: Option<String>,
    /// Whether tracked files differed from `commit`; null outside git.
    pub(crate) dirty: Option<bool>,
    /// Case name.
    pub(crate) case: String,
    /// `golden` or `verify`.
    pub(crate) kind: CaseKind,
    /// `PASSED`, `FAILED`, `ERROR` or `SKIPPED`.
    pub(crate) result: CaseResult,
    /// Classification of the output.
    pub(crate) execution_status: ExecutionStatus,
    /// `SUCCESS`, `FAILURE` or `NO_EVIDENCE`.
    pub(crate) status: EvidenceStatus,
    /// The types of the case's issues, in order.
    pub(crate) issue_types: Vec<IssueType>,
    /// Wall clock of the last attempt in seconds.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) duration_seconds: f64,
    /// Cases the run ran at once (`--jobs`); null when unknown (a merged
    /// run).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub(crate) jobs: Option<usize>,
    /// Attempts made (1 without retries).
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub(crate) attempts: usize,
    /// Passed after a failed attempt.
    pub(crate) flaky: bool,
    /// Held by a quarantine that had not expired: its failure did not
    /// fail the run.
    pub(crate) quarantined: bool,
    /// The evidence hash of the last attempt; null when it did not run.
    pub(crate) evidence_hash: Option<String>,
}

impl HistoryLine {
    /// The line of `case` in run `record`.
    pub(crate) fn of(record: &RunRecord, case: &CaseRecord, revision: &Revision) -> HistoryLine {
        HistoryLine {
            schema_version: SCHEMA_VERSION.to_string(),
            line_type: HistoryType::History,
            run_id: record.run_id.clone(),
            started_at: record.started_at,
            commit: revision.commit.clone(),
            dirty: revision.dirty,
            case: case.name.clone(),
            kind: case.kind,
            result: case.result,
            execution_status: case.execution_status,
            status: case.status,
            issue_types: case.issues.iter().map(|i| i.issue_type).collect(),
            duration_seconds: case.duration.as_secs_f64(),
            jobs: (record.jobs > 0).then_some(record.jobs),
            attempts: case.previous_attempts.len() + 1,
            flaky: case.flaky,
            quarantined: case.quarantined(),
            evidence_hash: case.evidence_hash.clone(),
        }
    }

    /// What of this line differs from `expected` (the line the evidence
    /// calls for), as `field: line says …, evidence says …` phrases.
    pub(crate) fn differences(&self, expected: &HistoryLine) -> Vec<String> {
        let mut found = Vec::new();
        let mut field = |name: &str, got: String, want: String| {
            if got != want {
                found.push(format!("{name}: the line says {got}, the evidence {want}"));
            }
        };
        field("kind", json(&self.kind), json(&expected.kind));
        field("result", json(&self.result), json(&expected.result));
        field(
            "execution_status",
            json(&self.execution_status),
            json(&expected.execution_status),
        );
        field("status", json(&self.status), json(&expected.status));
        field(
            "issue_types",
            json(&self.issue_types),
            json(&expected.issue_types),
        );
        field(
            "duration_seconds",
            json(&self.duration_seconds),
            json(&expected.duration_seconds),
        );
        field("attempts", json(&self.attempts), json(&expected.attempts));
        field("flaky", json(&self.flaky), json(&expected.flaky));
        field(
            "quarantined",
            json(&self.quarantined),
            json(&expected.quarantined),
        );
        field(
            "evidence_hash",
            json(&self.evidence_hash),
            json(&expected.evidence_hash),
        );
        found
    }
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// The most read of a history file: far above `keep = 200` runs of a
/// thousand cases, and never all of memory.
pub(crate) const READ_LIMIT: u64 = 256 << 20;

/// One line of a history file as read: parsed, or why not.
pub(crate) type ReadLine = Result<HistoryLine, String>;

/// The lines of the history file at `path`, each with its 1-based line
/// number; empty when there is no file yet.
pub(crate) fn read(path: &std::path::Path) -> std::io::Result<Vec<(usize, ReadLine)>> {
    Ok(read_text(path)?
        .lines
        .into_iter()
        .map(|(n, _, line)| (n, line))
        .collect())
}

/// A history file as read: its text, and each line that is not blank with
/// its 1-based number, its place in the text (without the line's end) and
/// what it parses to. A rewrite copies the lines it keeps from the text
/// as they are, rather than writing each one out again.
#[derive(Debug, Default)]
pub(crate) struct HistoryText {
    pub(crate) text: String,
    pub(crate) lines: Vec<(usize, std::ops::Range<usize>, ReadLine)>,
}

/// [`read`], keeping the text (see [`HistoryText`]); empty when there is
/// no file yet.
pub(crate) fn read_text(path: &std::path::Path) -> std::io::Result<HistoryText> {
    let bytes = match crate::untrusted::read_limited(path, READ_LIMIT) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HistoryText::default()),
        Err(e) => return Err(e),
    };
    let text = String::from_utf8(bytes)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    let mut lines = Vec::new();
    let mut start = 0;
    // The lines `str::lines` gives: split at '\n', a '\r' before it dropped.
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        if !body.trim().is_empty() {
            lines.push((i + 1, start..start + body.len(), parse(body)));
        }
        start += raw.len();
    }
    Ok(HistoryText { text, lines })
}

/// One line of a history file.
fn parse(line: &str) -> ReadLine {
    let line: HistoryLine = serde_json::from_str(line).map_err(|e| e.to_string())?;
    if super::is_schema_version(&line.schema_version) {
        Ok(line)
    } else {
        Err(format!(
            "schema_version {:?} is not 1.x.y",
            line.schema_version
        ))
    }
}

/// A result's mark in a strip of last results, oldest first, as
/// `cargo golden history` and report.html show it.
pub(crate) fn strip_mark(result: CaseResult) -> char {
    match result {
        CaseResult::Passed => '✔',
        CaseResult::Failed => '✘',
        CaseResult::Error => '!',
        CaseResult::Skipped => '·',
    }
}

/// The readable lines of `out_dir`'s history that are not of `run_id`:
/// the runs before it, for what compares with them or charts them. None
/// when the file cannot be read (the append after the run says why).
pub(crate) fn earlier(out_dir: &std::path::Path, run_id: &str) -> Vec<HistoryLine> {
    others(
        &read_text(&out_dir.join(crate::layout::HISTORY_FILE)),
        run_id,
    )
}

/// [`earlier`] of a history file already read ([`read_text`]).
pub(crate) fn others(read: &std::io::Result<HistoryText>, run_id: &str) -> Vec<HistoryLine> {
    let Ok(read) = read else {
        return Vec::new();
    };
    read.lines
        .iter()
        .filter_map(|(_, _, l)| l.as_ref().ok())
        .filter(|l| l.run_id != run_id)
        .cloned()
        .collect()
}

/// The lines of the last `keep` runs (0: every run) of `lines`, in order:
/// a run's lines are kept or dropped together. `run_of` is a line's run.
pub(crate) fn bounded<T>(lines: Vec<T>, keep: usize, run_of: impl Fn(&T) -> &str) -> Vec<T> {
    let mut runs: Vec<&str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for l in &lines {
        if seen.insert(run_of(l)) {
            runs.push(run_of(l));
        }
    }
    if keep == 0 || runs.len() <= keep {
        return lines;
    }
    let kept: std::collections::HashSet<String> = runs[runs.len() - keep..]
        .iter()
        .map(|r| r.to_string())
        .collect();
    lines
        .into_iter()
        .filter(|l| kept.contains(run_of(l)))
        .collect()
}

/// One line of the file's text: one JSON object, without the line's end.
pub(crate) fn render_line(line: &HistoryLine) -> String {
    serde_json::to_string(line).expect("a history line always serializes")
}
