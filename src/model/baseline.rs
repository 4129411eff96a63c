//! What a comparison with the baseline and the snapshots records: the
//! data of `summary.json`'s `baseline` and of each case's `snapshots`. The
//! logic that computes it is in `crate::baseline`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{CaseKind, CaseResult, IssueType};

super::name::serde_names!(pub(crate) Class, pub Gate, pub(crate) Stream, pub(crate) SnapshotOutcome);

/// How a case compares with its baseline entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub(crate) enum Class {
    /// PASSED in the baseline, FAILED or ERROR now.
    Regressed,
    /// Failed in both, with another result or signature.
    ChangedFailure,
    /// In the baseline, no longer declared.
    Missing,
    /// Selected and in the baseline, but not run (fail-fast, interrupt).
    NotRun,
    /// Not in the baseline.
    New,
    /// Failed in the baseline, PASSED now.
    Fixed,
    /// Failed in both, same result and signature.
    KnownFailure,
    /// PASSED in both, but much slower.
    Slower,
    /// PASSED in both.
    Unchanged,
}

impl Class {
    /// Every class, in the order reports list them: what needs attention first.
    pub(crate) const ALL: [Class; 9] = [
        Class::Regressed,
        Class::ChangedFailure,
        Class::Missing,
        Class::NotRun,
        Class::New,
        Class::Fixed,
        Class::KnownFailure,
        Class::Slower,
        Class::Unchanged,
    ];
}

/// A case's result, failure signature and duration: what the baseline
/// records, and what a run is compared on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Verdict {
    /// PASSED, FAILED or ERROR.
    pub(crate) result: CaseResult,
    /// Issue types and first finding, redacted; for FAILED and ERROR.
    #[serde(default)]
    pub(crate) signature: Option<String>,
    /// Wall clock, seconds.
    pub(crate) duration_seconds: f64,
}

/// One case of the comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct CaseComparison {
    /// Case name.
    pub(crate) name: String,
    /// Its class.
    pub(crate) class: Class,
    /// `golden` or `verify` (from the run, else the baseline).
    #[serde(default)]
    pub(crate) kind: Option<CaseKind>,
    /// Declaration line; None for a missing case.
    #[serde(default)]
    pub(crate) line: Option<usize>,
    /// The baseline entry; None for a new case.
    pub(crate) baseline: Option<Verdict>,
    /// This run; None for a missing or not-run case.
    pub(crate) now: Option<Verdict>,
    /// One line on what changed (empty for `unchanged`).
    #[serde(default)]
    pub(crate) detail: String,
}

impl CaseComparison {
    /// Whether this case fails the baseline gate (see [`fails_gate`]).
    pub(crate) fn fails_gate(&self) -> bool {
        fails_gate(self.class, self.now.as_ref().map(|v| v.result))
    }
}

/// The gate rule: whether a case of `class` whose result in this run is
/// `now` (None when it did not run) fails the baseline gate.
pub(crate) fn fails_gate(class: Class, now: Option<CaseResult>) -> bool {
    match class {
        Class::Regressed | Class::ChangedFailure | Class::Missing | Class::NotRun => true,
        Class::New => now.is_some_and(CaseResult::is_failure),
        Class::Fixed | Class::KnownFailure | Class::Slower | Class::Unchanged => false,
    }
}

/// Cases per class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct ClassCounts {
    /// `regressed`.
    pub(crate) regressed: usize,
    /// `changed_failure`.
    pub(crate) changed_failure: usize,
    /// `missing`.
    pub(crate) missing: usize,
    /// `not_run`.
    pub(crate) not_run: usize,
    /// `new`.
    pub(crate) new: usize,
    /// `fixed`.
    pub(crate) fixed: usize,
    /// `known_failure`.
    pub(crate) known_failure: usize,
    /// `slower`.
    pub(crate) slower: usize,
    /// `unchanged`.
    pub(crate) unchanged: usize,
}

impl ClassCounts {
    /// The count of `class`.
    pub(crate) fn get(&self, class: Class) -> usize {
        match class {
            Class::Regressed => self.regressed,
            Class::ChangedFailure => self.changed_failure,
            Class::Missing => self.missing,
            Class::NotRun => self.not_run,
            Class::New => self.new,
            Class::Fixed => self.fixed,
            Class::KnownFailure => self.known_failure,
            Class::Slower => self.slower,
            Class::Unchanged => self.unchanged,
        }
    }

    pub(crate) fn slot(&mut self, class: Class) -> &mut usize {
        match class {
            Class::Regressed => &mut self.regressed,
            Class::ChangedFailure => &mut self.changed_failure,
            Class::Missing => &mut self.missing,
            Class::NotRun => &mut self.not_run,
            Class::New => &mut self.new,
            Class::Fixed => &mut self.fixed,
            Class::KnownFailure => &mut self.known_failure,
            Class::Slower => &mut self.slower,
            Class::Unchanged => &mut self.unchanged,
        }
    }

    /// `regressed N · changed_failure N · …`, every class in report order:
    /// the line report.md carries and the integrity check reads back.
    pub(crate) fn text(&self) -> String {
        Class::ALL
            .iter()
            .map(|c| format!("{} {}", c.as_str(), self.get(*c)))
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// A run compared with the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Comparison {
    /// The baseline file as shown to users.
    pub(crate) file: String,
    /// Whether the baseline file existed (without one, every case is new).
    pub(crate) found: bool,
    /// What the exit code follows.
    pub(crate) gate: Gate,
    /// The `slowdown` factor applied.
    pub(crate) slowdown: f64,
    /// This run was blessed: the baseline now records it.
    #[serde(default)]
    pub(crate) blessed: bool,
    /// Missing cases were not looked for (a partition other than the first,
    /// or two runs of which the newer is a partition).
    #[serde(default)]
    pub(crate) missing_not_checked: bool,
    /// Cases per class (derived from `cases`, stored for readers).
    pub(crate) counts: ClassCounts,
    /// Compared cases in declaration order, then missing ones in baseline order.
    pub(crate) cases: Vec<CaseComparison>,
}

impl Comparison {
    /// Cases that fail the baseline gate.
    pub(crate) fn gate_failures(&self) -> impl Iterator<Item = &CaseComparison> {
        self.cases.iter().filter(|c| c.fails_gate())
    }

    /// Whether the baseline gate lets the run pass: a blessed run always
    /// does, its baseline now records exactly it.
    pub(crate) fn passes_gate(&self) -> bool {
        self.blessed || self.gate_failures().next().is_none()
    }

    /// Cases of `class`.
    pub(crate) fn of_class(&self, class: Class) -> impl Iterator<Item = &CaseComparison> {
        self.cases.iter().filter(move |c| c.class == class)
    }

    /// Class of each compared case, by name.
    pub(crate) fn classes(&self) -> HashMap<&str, Class> {
        self.cases
            .iter()
            .map(|c| (c.name.as_str(), c.class))
            .collect()
    }
}

/// What the exit code follows (`[harness] gate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// The raw results: any FAILED or ERROR case fails the run.
    #[default]
    Results,
    /// The comparison with `golden-baseline.json`: only what regressed,
    /// changed or went missing fails the run.
    Baseline,
}

/// An output stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
    /// Not a stream: a data file the case wrote (`outputs`), named by the
    /// check's `output`.
    Data,
}

/// What became of one snapshotted stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", schemars(rename = "Outcome"))]
pub(crate) enum SnapshotOutcome {
    /// The output is what the snapshot allows.
    Matched,
    /// The output differs (`diff` says how).
    Changed,
    /// There is no snapshot file.
    Missing,
    /// The output is over the snapshot limit (8 MiB per stream): not
    /// compared, not blessed.
    TooLarge,
    /// The snapshot file or the output log could not be read.
    Unreadable,
    /// Bless wrote a new snapshot file.
    Created,
    /// Bless replaced a snapshot the output no longer matched.
    Updated,
    /// Bless kept the snapshot: it already accepts the output.
    Unchanged,
    /// Bless could not write the snapshot (`detail` says why).
    NotWritten,
    /// Bless removed the data snapshot of a glob's output that the case
    /// no longer writes.
    Removed,
    /// A glob's output blessed earlier (its data snapshot is there) that
    /// this run did not write: a change (`DATA_CHANGED`).
    OutputMissing,
}

/// Whether `line` has the shape of a line of a data diff's counts (the
/// lines before its differences, docs/baselines.md, Data outputs):
/// `NAME: N of M rows differ`, `rows removed: N of M`, `rows added: N of M`
/// (N and M digits and commas). A cell's change has ` -> ` in it, a row
/// that was removed or added starts so: neither is a count.
pub(crate) fn is_data_count(line: &str) -> bool {
    fn number(s: &str) -> bool {
        s.starts_with(|c: char| c.is_ascii_digit())
            && s.bytes().all(|b| b.is_ascii_digit() || b == b',')
    }
    let n_of_m = |s: &str| {
        s.split_once(" of ")
            .is_some_and(|(n, m)| number(n) && number(m))
    };
    if let Some(rest) = (line.strip_prefix("rows removed: ")).or(line.strip_prefix("rows added: "))
    {
        return n_of_m(rest);
    }
    let row = ["row removed: ", "row added: "]
        .iter()
        .any(|p| line.starts_with(p));
    !row && !line.contains(" -> ")
        && (line.strip_suffix(" rows differ"))
            .and_then(|l| l.rsplit_once(": "))
            .is_some_and(|(name, counts)| !name.is_empty() && n_of_m(counts))
}

/// The snapshot comparison (or bless) of one stream of one case, as
/// `evidence.json` and `summary.json` record it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct SnapshotCheck {
    /// The stream.
    pub(crate) stream: Stream,
    /// The snapshot file, relative to the harness file's directory.
    pub(crate) file: String,
    /// What happened.
    pub(crate) outcome: SnapshotOutcome,
    /// Unified diff, snapshot (`---`) to this run's redacted output
    /// (`+++`), cut to a bounded size; only for `changed`.
    #[serde(default)]
    pub(crate) diff: Option<String>,
    /// Why, for outcomes that need a reason.
    #[serde(default)]
    pub(crate) detail: Option<String>,
    /// For `data`: the data file, relative to the case's working dir.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) output: Option<String>,
    /// For `data`: sha256 of the data file as the case wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sha256: Option<String>,
    /// For a `changed` data output: sha256 of every difference found, one
    /// a line (each ending in `\n`), of which `diff` shows the first 20:
    /// two runs with the same digest changed the data the same way. The
    /// failure signature of the case carries it (absent before evidence
    /// 1.6 and summary 1.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) diff_sha256: Option<String>,
    /// For a `changed` or `missing` snapshot: the new snapshot text this
    /// run kept beside its artifacts, what accepting the change writes
    /// (`cargo golden review`, `bless --from`). Absent before evidence
    /// 1.8 and summary 1.9, and for checks that keep none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pending: Option<PendingSnapshot>,
}

/// A pending snapshot: the text a changed or missing snapshot would hold
/// once accepted, kept in the run dir
/// (`artifacts/<run_id>/execution/<case>/pending/<snapshot file name>`)
/// exactly as `--bless` would write it: redacted, escaped, secrets masked
/// (a data output's canonical text, or its summary). Listed in
/// `SHA256SUMS` and under the case's evidence hash, so a pending snapshot
/// from CI is as trustworthy as its run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct PendingSnapshot {
    /// The pending file, relative to the out dir.
    pub(crate) path: String,
    /// sha256 of the pending file's bytes.
    pub(crate) sha256: String,
    /// sha256 of the snapshot file's bytes this run compared with; null
    /// when there was none (`missing`). A snapshot that differs from it
    /// when the change is reviewed was changed since: the pending file is
    /// stale and is never written over it.
    pub(crate) base_sha256: Option<String>,
}

impl SnapshotCheck {
    /// Whether this check fails its case (it raises an issue).
    pub(crate) fn fails(&self) -> bool {
        self.issue("").is_some()
    }

    /// What was compared, as reports name it: the stream, or the data
    /// file.
    pub(crate) fn subject(&self) -> &str {
        match (&self.output, self.stream) {
            (Some(output), _) => output,
            (None, stream) => stream.as_str(),
        }
    }

    /// The issue type a difference raises: `DATA_CHANGED` for a data
    /// output, else `OUTPUT_CHANGED`.
    pub(crate) fn changed_type(&self) -> IssueType {
        match self.stream {
            Stream::Data => IssueType::DataChanged,
            Stream::Stdout | Stream::Stderr => IssueType::OutputChanged,
        }
    }

    /// The issue this check raises, if any: `OUTPUT_CHANGED` (or
    /// `DATA_CHANGED`) or `SNAPSHOT_MISSING`, with its message.
    pub(crate) fn issue(&self, log: &str) -> Option<(IssueType, String)> {
        let (file, stream) = (&self.file, self.subject());
        let detail = self.detail.as_deref().unwrap_or("");
        match self.outcome {
            SnapshotOutcome::Matched
            | SnapshotOutcome::Created
            | SnapshotOutcome::Updated
            | SnapshotOutcome::Unchanged
            | SnapshotOutcome::Removed => None,
            SnapshotOutcome::Changed => Some((
                self.changed_type(),
                format!("{stream} differs from {file} ({detail})"),
            )),
            SnapshotOutcome::OutputMissing => Some((
                IssueType::DataChanged,
                format!(
                    "data output {stream} is missing: this run did not write it ({file} holds its snapshot)"
                ),
            )),
            SnapshotOutcome::Missing => Some((
                IssueType::SnapshotMissing,
                format!("no snapshot {file} for {stream}: `cargo golden --bless` records one"),
            )),
            SnapshotOutcome::TooLarge => Some((
                IssueType::OutputChanged,
                format!(
                    "{stream} was not compared with {file}: {detail}; the full output is in {log}"
                ),
            )),
            SnapshotOutcome::Unreadable => Some((
                IssueType::SnapshotMissing,
                format!("{stream} was not compared with {file}: {detail}"),
            )),
            SnapshotOutcome::NotWritten if detail.is_empty() => None,
            SnapshotOutcome::NotWritten => Some((
                IssueType::SnapshotMissing,
                format!("{file} was not blessed: {detail}"),
            )),
        }
    }
}

/// The format of a data output: from its extension, or `format = "delta"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataFormat {
    /// `.csv`: a header row, then rows.
    Csv,
    /// `.json`: an array of objects.
    Json,
    /// `.jsonl`: one object per line.
    Jsonl,
    /// `.parquet`: an Apache Parquet file.
    Parquet,
    /// A Delta table: a directory with `_delta_log/`, read at its current
    /// version (`format = "delta"`).
    Delta,
}

impl DataFormat {
    /// The format of `path` (a file or a glob), by its extension.
    pub(crate) fn of(path: &str) -> Option<DataFormat> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(DataFormat::Csv),
            "json" => Some(DataFormat::Json),
            "jsonl" | "ndjson" => Some(DataFormat::Jsonl),
            "parquet" => Some(DataFormat::Parquet),
            _ => None,
        }
    }
}

/// What a line of a unified diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DiffLine {
    /// `@@ -a,b +c,d @@`.
    Hunk,
    /// `+…`, not the `+++` file header.
    Added,
    /// `-…`, not the `---` file header.
    Removed,
    /// Context, or a file header.
    Other,
}

impl DiffLine {
    /// The kind of `line`, as every view of a diff marks it.
    pub(crate) fn of(line: &str) -> DiffLine {
        if line.starts_with("@@") {
            DiffLine::Hunk
        } else if line.starts_with('+') && !line.starts_with("+++") {
            DiffLine::Added
        } else if line.starts_with('-') && !line.starts_with("---") {
            DiffLine::Removed
        } else {
            DiffLine::Other
        }
    }
}
