//! The run record: statuses, issues and per-case results.
//!
//! Every report (JUnit, markdown, summary.json, observations, terminal) is
//! rendered from one [`RunRecord`], so they cannot disagree.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

mod baseline;
mod name;
pub(crate) mod verdict;

pub use baseline::Comparison;
pub use baseline::Gate;
pub(crate) use baseline::{CaseComparison, Class, ClassCounts};
pub(crate) use baseline::{DataFormat, DiffLine, is_data_count};
pub(crate) use baseline::{PendingSnapshot, SnapshotCheck, SnapshotOutcome, Stream, Verdict};

name::serde_names!(
    pub CaseKind,
    pub JunitFlavour,
    pub ExecutionStatus,
    pub EvidenceStatus,
    pub CaseResult,
    pub IssueType
);

/// Whether a case is a golden project or a verify command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum CaseKind {
    /// A project that must always keep working.
    Golden,
    /// A post-condition command.
    Verify,
}

/// A case kept running while known to fail (`quarantine = { reason,
/// until, issue }`): its failure does not fail the run until `until` has
/// passed; from then on the quarantine itself fails the case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct Quarantine {
    /// Why the case is quarantined.
    pub(crate) reason: String,
    /// The last day (UTC, `YYYY-MM-DD`) the quarantine holds.
    #[cfg_attr(
        feature = "schema",
        schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))
    )]
    pub(crate) until: String,
    /// Where the failure is tracked (an issue URL).
    pub(crate) issue: Option<String>,
    /// `until` had passed when the case ran: the quarantine no longer
    /// holds, and fails the case with QUARANTINE_EXPIRED.
    #[serde(default)]
    pub(crate) expired: bool,
}

impl Quarantine {
    /// Whether the quarantine had expired on `day` (UTC): `until` is the
    /// last day it holds. An unreadable `until` counts as expired.
    pub(crate) fn expired_on(&self, day: crate::time::Date) -> bool {
        self.until
            .parse::<crate::time::Date>()
            .map_or(true, |until| day > until)
    }

    /// The quarantine in words: reason, until and issue.
    pub(crate) fn describe(&self) -> String {
        let issue = self
            .issue
            .as_deref()
            .map_or_else(String::new, |i| format!(", {i}"));
        format!("quarantined until {} ({}{issue})", self.until, self.reason)
    }
}

/// What a flaky case (one that passed after a failed attempt) does to the
/// run (`[harness] flaky`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum FlakyPolicy {
    /// It passes, marked flaky in every report.
    Pass,
    /// It passes, marked flaky, with a warning (a `::warning` annotation
    /// under GitHub Actions).
    #[default]
    Warn,
    /// It fails, with a `FLAKY` issue: a case that needed a retry fails
    /// the run (nextest's `--flaky-result fail`).
    Fail,
}

/// Which JUnit family `junit.xml` is written in: both carry the same
/// results and counts, and differ in where per-case facts go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum JunitFlavour {
    /// `file` and `line` on each `<testcase>`, per-case `<properties>`: what
    /// GitHub-centred consumers and GitLab read.
    #[default]
    Rich,
    /// Only what the Jenkins xUnit schema (`junit-10.xsd`) allows; per-case
    /// facts move into suite properties named `case.<name>.<fact>`.
    Strict,
}

impl JunitFlavour {}

/// Execution status of a case (docs/judging.md, How a case is judged).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ExecutionStatus {
    /// Exit 0 and no failure pattern matched.
    Success,
    /// A validation pattern matched.
    ValidationFailed,
    /// A runtime pattern matched, or exit != 0 without a validation match.
    RuntimeFailed,
    /// Timeout, interrupt, or an abort pattern matched.
    Aborted,
    /// Not run.
    Skipped,
}

/// Evidence status: whether the command ran and how it exited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EvidenceStatus {
    /// Exit code 0.
    Success,
    /// Exit code other than 0.
    Failure,
    /// The command did not run.
    NoEvidence,
}

/// The result a case counts as (docs/judging.md, How a case is judged).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CaseResult {
    /// Met its expectation.
    Passed,
    /// Ran and did not meet its expectation.
    Failed,
    /// Could not run.
    Error,
    /// Not run.
    Skipped,
}

impl CaseResult {
    /// FAILED or ERROR.
    pub fn is_failure(self) -> bool {
        matches!(self, CaseResult::Failed | CaseResult::Error)
    }
}

/// Issue types, as docs/judging.md (How a case is judged) lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum IssueType {
    /// Validation failed.
    ConfigurationError,
    /// A runtime pattern matched.
    PipelineExecutionError,
    /// Exit != 0 and no pattern matched.
    ExecutionFailure,
    /// "auth" / "unauthorized" in stderr.
    AuthError,
    /// Aborted by a timeout: the case's own watchdog (`timeout`) ended
    /// it, or the tool said it timed out.
    Timeout,
    /// "schema" in stderr.
    DataError,
    /// Could not run (NO_EVIDENCE).
    ExecutionError,
    /// The command ran but the case could not be finished: its output
    /// could not be kept, its project not re-read (RUNTIME_FAILED, ERROR).
    EvidenceIncomplete,
    /// The golden project changed during the run.
    GoldenModified,
    /// A specific error was expected but the case succeeded.
    UnexpectedSuccess,
    /// A specific error was expected, another error was seen.
    UnexpectedError,
    /// The output differs from its snapshot (docs/baselines.md, Output
    /// snapshots).
    OutputChanged,
    /// A snapshotted output has no snapshot file.
    SnapshotMissing,
    /// A data output (`outputs`) differs from its data snapshot: schema,
    /// rows or values (docs/baselines.md, Data snapshots).
    DataChanged,
    /// A passing case did not show a line it `require`s: it did nothing
    /// (docs/judging.md, Presets).
    NothingRan,
    /// A log record at ERROR or above (CRITICAL, FATAL) in a run that
    /// exited 0: on fixed, known-good inputs, an error record means the
    /// run's result is wrong (docs/judging.md, An ERROR record fails a run
    /// that exits 0).
    ErrorLogged,
    /// The case's structured result (`result`) reports a failure, or is
    /// missing or unreadable.
    ResultFailed,
    /// The case passed only after a failed attempt, and `[harness] flaky =
    /// "fail"` fails such a case.
    Flaky,
    /// The case's quarantine has expired (its `until` has passed): it
    /// fails, whatever its own result, until the quarantine is removed or
    /// extended.
    QuarantineExpired,
}

/// Where in the pipeline an issue arose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Configuration validation (validation patterns).
    ConfigValidation,
    /// Everything else.
    Execution,
}

/// How bad an issue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Severity {
    /// Golden projects and validation failures.
    High,
    /// Everything else.
    Medium,
}

/// One problem found in a case; every FAILED or ERROR case has at least one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Issue {
    /// The issue type.
    #[serde(rename = "type")]
    pub issue_type: IssueType,
    /// Case name.
    pub case: String,
    /// Case kind.
    pub kind: CaseKind,
    /// Stage.
    pub stage: Stage,
    /// Severity.
    pub severity: Severity,
    /// One-line human message.
    pub message: String,
    /// `Status: … | Exit code: … | Output: …`.
    pub evidence: String,
}

impl Issue {
    /// An issue of `case` found once its command ran (stage `execution`),
    /// as severe as the case's kind makes it.
    pub(crate) fn after_run(
        case: &CaseRecord,
        issue_type: IssueType,
        message: String,
        evidence: String,
    ) -> Issue {
        Issue {
            issue_type,
            case: case.name.clone(),
            kind: case.kind,
            stage: Stage::Execution,
            severity: if case.kind == CaseKind::Golden {
                Severity::High
            } else {
                Severity::Medium
            },
            message,
            evidence,
        }
    }
}

/// What a run changed in a golden project: every entry, named relative to
/// the project (`/`-separated, a directory with a trailing `/`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct GoldenChanges {
    /// Entries that appeared.
    pub(crate) added: Vec<String>,
    /// Entries that changed, each with what changed: `a (content)`.
    pub(crate) changed: Vec<String>,
    /// Entries that disappeared.
    pub(crate) removed: Vec<String>,
}

/// A case's structured result (`result = { format, path }`), as read after
/// its command ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct StructuredResult {
    /// `junit`, `odibi-validate` or `odibi-story`.
    pub(crate) format: String,
    /// Where it was read: the file, relative to the working dir, or
    /// `stdout`.
    pub(crate) source: String,
    /// The kept copy beside the logs, relative to the out dir (covered by
    /// the evidence hash); null when read from stdout or not found.
    pub(crate) artifact: Option<String>,
    /// The result reports a failure.
    pub(crate) failed: bool,
    /// Why it could not be read (missing, unparsable); the case then fails.
    pub(crate) error: Option<String>,
}

/// Entries of a [`GoldenChanges`] under one path, for its summary.
struct ChangeGroup {
    /// The path (`/`-separated, no trailing `/`).
    path: String,
    /// Entries below it (a file: itself).
    entries: usize,
    /// It is a directory.
    dir: bool,
}

/// Longest [`GoldenChanges::summary`], in characters (before its last
/// `and N more`).
const CHANGES_SUMMARY_CHARS: usize = 300;

impl GoldenChanges {
    /// Nothing changed.
    pub(crate) fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }

    fn entries(&self) -> impl Iterator<Item = &String> {
        self.added.iter().chain(&self.changed).chain(&self.removed)
    }

    /// `added: a, b; changed: c (content); removed: d`.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (label, list) in [
            ("added", &self.added),
            ("changed", &self.changed),
            ("removed", &self.removed),
        ] {
            if !list.is_empty() {
                parts.push(format!("{label}: {}", list.join(", ")));
            }
        }
        parts.join("; ")
    }

    /// The entries by their first `depth` path components, most first:
    /// (path, (entries below it, it is a directory)), and how many entries
    /// are counted (a directory's own entry is not, its contents are).
    fn grouped(&self, depth: usize) -> (Vec<ChangeGroup>, usize) {
        let mut groups: std::collections::BTreeMap<String, (usize, bool)> =
            std::collections::BTreeMap::new();
        let mut total = 0;
        for e in self.entries() {
            let (path, is_dir) = match e.strip_suffix('/') {
                Some(p) => (p, true),
                None => (e.as_str(), false),
            };
            let parts: Vec<&str> = path.split('/').collect();
            if parts.len() > depth {
                let g = groups.entry(parts[..depth].join("/")).or_default();
                g.0 += 1;
                g.1 = true;
                total += 1;
            } else {
                let g = groups.entry(path.to_string()).or_default();
                g.1 |= is_dir;
                if !is_dir {
                    g.0 += 1;
                    total += 1;
                }
            }
        }
        // A directory's own entry adds nothing beside its contents.
        let parents: std::collections::BTreeSet<String> = groups
            .keys()
            .filter_map(|k| k.rsplit_once('/').map(|(p, _)| p.to_string()))
            .collect();
        let mut groups: Vec<_> = groups
            .into_iter()
            .filter(|(k, (n, _))| *n > 0 || !parents.contains(k))
            .map(|(path, (entries, dir))| ChangeGroup { path, entries, dir })
            .collect();
        groups.sort_by(|a, b| b.entries.cmp(&a.entries).then(a.path.cmp(&b.path)));
        (groups, total)
    }

    /// [`GoldenChanges::describe`] when it is short; else the entries
    /// counted by top-level path (a level below when all lies in one
    /// directory), most first (`142 entries changed:
    /// .odibi/ (140), out.csv, report.html`), at most about
    /// 300 characters: a catalog a tool writes into the project is one
    /// name in an issue, not thousands.
    pub(crate) fn summary(&self) -> String {
        let full = self.describe();
        if full.chars().count() <= CHANGES_SUMMARY_CHARS {
            return full;
        }
        // By top-level path; when all of it lies in one directory, by
        // the paths one level below (`out/` says less than `out/_system/`).
        let mut depth = 1;
        let (mut groups, total) = self.grouped(depth);
        while depth < 4 && groups.len() == 1 && groups[0].dir && groups[0].entries > 1 {
            depth += 1;
            (groups, _) = self.grouped(depth);
        }
        let mut out = format!("{total} entries changed:");
        let mut shown = 0;
        for g in &groups {
            let (top, n) = (&g.path, g.entries);
            let item = if g.dir && n > 0 {
                format!(" {top}/ ({n})")
            } else if g.dir {
                format!(" {top}/")
            } else {
                format!(" {top}")
            };
            if shown > 0 && out.chars().count() + item.chars().count() > CHANGES_SUMMARY_CHARS - 40
            {
                break;
            }
            if shown > 0 {
                out.push(',');
            }
            out.push_str(&item);
            shown += 1;
        }
        if shown < groups.len() {
            out.push_str(&format!(" and {} more", groups.len() - shown));
        }
        out.push_str("; every entry is in evidence.json (golden_changes)");
        out
    }
}

/// A validation error extracted from pydantic-style output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct ValidationError {
    /// Dotted field path, e.g. `pipelines.0.nodes.2.params.1`.
    pub(crate) field: String,
    /// Message without the `[type=…]` suffix.
    pub(crate) message: String,
}

/// The signal behind exit status `code`: `sh` reports a command it ran
/// that signal N killed as exit status 128+N (and cases run under
/// `sh -c`), so 129 to 192 (signals 1 to 64) mean a death by signal.
pub(crate) fn shell_signal(code: i32) -> Option<i32> {
    (129..=192).contains(&code).then(|| code - 128)
}

/// Lines of a stream's end that reports quote.
pub(crate) const END_LINES: usize = 20;
/// Characters of a stream's end that reports quote.
pub(crate) const END_CHARS: usize = 4000;

/// The end of an output as reports quote it: its last [`END_LINES`] lines,
/// cut further to their last [`END_CHARS`] characters. Failures usually
/// explain themselves at the end of the output.
pub(crate) fn output_end(text: &str) -> &str {
    tail_lines(text, END_LINES, END_CHARS)
}

/// The last `lines` lines of `text`, cut further to its last `max_chars`
/// characters (at a char boundary).
pub(crate) fn tail_lines(text: &str, lines: usize, max_chars: usize) -> &str {
    let trimmed = text.strip_suffix('\n').unwrap_or(text);
    let mut start = 0;
    let mut seen = 0;
    for (i, b) in trimmed.bytes().enumerate().rev() {
        if b == b'\n' {
            seen += 1;
            if seen == lines {
                start = i + 1;
                break;
            }
        }
    }
    let tail = &text[start..];
    match tail.char_indices().rev().nth(max_chars.saturating_sub(1)) {
        Some((i, _)) if max_chars > 0 => &tail[i..],
        Some(_) => "",
        None => tail,
    }
}

/// What happened to one case (or one attempt of it).
#[derive(Clone, Debug)]
pub struct CaseRecord {
    /// 0-based declaration index in the harness file.
    pub(crate) index: usize,
    /// Case name.
    pub name: String,
    /// Golden project or verify command.
    pub kind: CaseKind,
    /// Line of the declaration in the harness file (1-based).
    pub line: usize,
    /// Optional description from the declaration.
    pub(crate) description: Option<String>,
    /// The exact command string run.
    pub(crate) raw_command: String,
    /// Absolute working directory.
    pub working_dir: PathBuf,
    /// Exit code; 128+N when killed by signal N; None when not run.
    pub exit_code: Option<i32>,
    /// The signal that ended the command, if one did: the one that killed
    /// it, or the one `sh` reports as exit status 128+N for a command it
    /// ran (see [`shell_signal`]). None when it ended by itself or did not
    /// run.
    pub(crate) signal: Option<i32>,
    /// Truncated copy of stdout (raw bytes, marker included when truncated).
    pub stdout: Vec<u8>,
    /// Truncated copy of stderr.
    pub stderr: Vec<u8>,
    /// When `stdout` was truncated: the real end of the stream (see
    /// [`output_end`]), which the truncated copy does not hold.
    pub(crate) stdout_end: Option<String>,
    /// When `stderr` was truncated: the real end of the stream.
    pub(crate) stderr_end: Option<String>,
    /// When the command started (None when it did not run).
    pub started_at: Option<crate::time::Timestamp>,
    /// When it finished.
    pub finished_at: Option<crate::time::Timestamp>,
    /// Wall clock duration.
    pub duration: Duration,
    /// SUCCESS / FAILURE / NO_EVIDENCE.
    pub status: EvidenceStatus,
    /// Classification of the output.
    pub execution_status: ExecutionStatus,
    /// What the case counts as.
    pub result: CaseResult,
    /// Hex sha256 evidence hash; None when not run.
    pub evidence_hash: Option<String>,
    /// How many secret values were masked in each artifact.
    pub(crate) redactions: crate::redact::Redactions,
    /// Issues (≥ 1 when FAILED or ERROR): the `run_issues` its run raised
    /// (its output, its structured result), then those its checks, retries
    /// and quarantine raise ([`verdict::decide`]).
    pub issues: Vec<Issue>,
    /// How many of `issues`, from the first, the case's run raised.
    pub(crate) run_issues: usize,
    /// Extracted validation errors.
    pub(crate) validation_errors: Vec<ValidationError>,
    /// Artifact paths; None when nothing was written (skipped).
    pub artifacts: Option<crate::layout::Artifacts>,
    /// Warnings about the case (leaked processes, …).
    pub(crate) warnings: Vec<String>,
    /// Why the case was skipped or could not run.
    pub reason: Option<String>,
    /// Passed on a retry after failing.
    pub(crate) flaky: bool,
    /// Earlier failed attempts (retries), oldest first.
    pub(crate) previous_attempts: Vec<CaseRecord>,
    /// The expected outcome as declared: `success` or
    /// `specific_error:<regex>`; what the result is judged against.
    pub(crate) expected: String,
    /// The case hit its timeout and was killed.
    pub(crate) timed_out: bool,
    /// The run was interrupted while the case ran, and it was killed.
    pub(crate) interrupted: bool,
    /// Snapshot comparisons (or blesses) of its output streams.
    pub(crate) snapshots: Vec<SnapshotCheck>,
    /// Every entry of the golden project the run changed, when it changed
    /// one (issues carry a summary).
    pub(crate) golden_changes: Option<GoldenChanges>,
    /// The structured result the case declared, as read.
    pub(crate) structured_result: Option<StructuredResult>,
    /// The case's quarantine, if it has one.
    pub(crate) quarantine: Option<Quarantine>,
    /// The physical lines (1-based, first and last) of stdout and of
    /// stderr behind the case's findings, as the classifier read them:
    /// what an excerpt of the output marks. Not kept in any report.
    pub(crate) marked_lines: [Vec<(u64, u64)>; 2],
}

/// Why a case was skipped without running, when the engine decided it: the
/// record's `reason` carries its text, so the wire formats stay plain text
/// and every layer tells the reasons apart through this one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SkipReason {
    /// The run was interrupted before the case started.
    Interrupted,
    /// An earlier case failed under fail-fast.
    FailFast,
    /// The name filters (or `--ignored` alone) left the case out.
    FilteredOut,
    /// The case never reported (its runner died).
    NotRun,
}

impl SkipReason {
    /// The text of the record's `reason`.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            SkipReason::Interrupted => "the run was interrupted",
            SkipReason::FailFast => "fail-fast: an earlier case failed",
            SkipReason::FilteredOut => "filtered out",
            SkipReason::NotRun => "the case was never run",
        }
    }
}

impl CaseRecord {
    /// Whether the case was skipped because the filters left it out: it
    /// was never selected.
    pub(crate) fn filtered_out(&self) -> bool {
        self.result == CaseResult::Skipped
            && self.reason.as_deref() == Some(SkipReason::FilteredOut.as_str())
    }

    /// A record for a case that was not run.
    pub fn skipped(
        index: usize,
        name: &str,
        kind: CaseKind,
        line: usize,
        raw_command: &str,
        working_dir: PathBuf,
        reason: &str,
    ) -> Self {
        CaseRecord {
            index,
            name: name.to_string(),
            kind,
            line,
            description: None,
            raw_command: raw_command.to_string(),
            working_dir,
            exit_code: None,
            signal: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_end: None,
            stderr_end: None,
            started_at: None,
            finished_at: None,
            duration: Duration::ZERO,
            status: EvidenceStatus::NoEvidence,
            execution_status: ExecutionStatus::Skipped,
            result: CaseResult::Skipped,
            evidence_hash: None,
            redactions: crate::redact::Redactions::default(),
            issues: Vec::new(),
            run_issues: 0,
            validation_errors: Vec::new(),
            artifacts: None,
            warnings: Vec::new(),
            reason: Some(reason.to_string()),
            flaky: false,
            previous_attempts: Vec::new(),
            expected: "success".to_string(),
            timed_out: false,
            interrupted: false,
            snapshots: Vec::new(),
            golden_changes: None,
            structured_result: None,
            quarantine: None,
            marked_lines: [Vec::new(), Vec::new()],
        }
    }

    /// Whether the command actually ran (there is evidence).
    pub(crate) fn ran(&self) -> bool {
        self.status != EvidenceStatus::NoEvidence
    }

    /// Whether a quarantine that has not expired holds the case: one
    /// whose failure is its own known one, nothing [`Self::not_quarantinable`]
    /// names.
    pub(crate) fn quarantined(&self) -> bool {
        self.quarantine.as_ref().is_some_and(|q| !q.expired) && self.not_quarantinable().is_none()
    }

    /// What of this case no quarantine holds, in words: a golden project
    /// the run modified or found dirty, lost evidence, or a finding about
    /// the harness's hold on the case's processes. A quarantine is for a
    /// case's known failure, never for these. None when there is none.
    pub(crate) fn not_quarantinable(&self) -> Option<String> {
        if let Some(i) = (self.issues.iter()).find(|i| i.issue_type == IssueType::GoldenModified) {
            return Some(i.message.clone());
        }
        (self.warnings.iter())
            .find(|w| finding::NOT_QUARANTINABLE.iter().any(|f| w.starts_with(f)))
            .cloned()
    }

    /// Whether the case fails the run: FAILED or ERROR, and not held by
    /// its quarantine.
    pub(crate) fn fails_run(&self) -> bool {
        self.result.is_failure() && !self.quarantined()
    }
}

/// Warnings that are findings about the harness's hold on a case, by how
/// they start: no quarantine covers them.
pub(crate) mod finding {
    /// A background process still held the output after the main one exited.
    pub(crate) const LEAKED: &str = "leaked processes";
    /// Processes outlived the case (escaped its group) and were killed.
    pub(crate) const LEFT_RUNNING: &str = "processes left running";
    /// The guardian that takes a killed harness's cases with it was killed.
    pub(crate) const GUARDIAN_LOST: &str = "the harness's guardian process was killed";
    /// The case's evidence.json could not be written.
    pub(crate) const EVIDENCE_NOT_WRITTEN: &str = "could not write evidence.json";

    /// Every one of them.
    pub(crate) const NOT_QUARANTINABLE: &[&str] =
        &[LEAKED, LEFT_RUNNING, GUARDIAN_LOST, EVIDENCE_NOT_WRITTEN];
}

/// Counts of case results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct Counts {
    /// All cases in the record.
    pub(crate) total: usize,
    /// PASSED (flaky included).
    pub(crate) passed: usize,
    /// FAILED.
    pub(crate) failed: usize,
    /// ERROR.
    pub(crate) errors: usize,
    /// SKIPPED.
    pub(crate) skipped: usize,
    /// PASSED after a retry.
    pub(crate) flaky: usize,
    /// Of the FAILED and ERROR cases, those a quarantine holds: counted
    /// there too, yet not failing the run (absent before summary 1.8).
    #[serde(default)]
    pub(crate) quarantined: usize,
}

impl Counts {
    /// Count the results of `cases`.
    pub(crate) fn of(cases: &[CaseRecord]) -> Counts {
        let mut c = Counts {
            total: cases.len(),
            ..Counts::default()
        };
        for case in cases {
            match case.result {
                CaseResult::Passed => c.passed += 1,
                CaseResult::Failed => c.failed += 1,
                CaseResult::Error => c.errors += 1,
                CaseResult::Skipped => c.skipped += 1,
            }
            if case.flaky {
                c.flaky += 1;
            }
            if case.result.is_failure() && case.quarantined() {
                c.quarantined += 1;
            }
        }
        c
    }

    /// FAILED + ERROR.
    pub(crate) fn failures(&self) -> usize {
        self.failed + self.errors
    }
}

/// What a run makes of selecting no case at all (`--no-cases`; exit code 5
/// in docs/command-line.md, Command line): a typo in a filter must never
/// look green.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub(crate) enum NoCases {
    /// Succeed quietly.
    Pass,
    /// Succeed with a warning.
    Warn,
    /// Fail the run: final status `FAILURE`, exit code 5.
    #[default]
    Fail,
}

/// A run whose filters or partition selected no case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EmptySelection {
    /// Which filter or partition selected nothing, in words.
    pub(crate) reason: String,
    /// What the run makes of it.
    pub(crate) policy: NoCases,
}

/// A whole run: what every report is rendered from.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// Unique, time-sortable run id.
    pub run_id: String,
    /// Suite name (`[harness].name`).
    pub suite_name: String,
    /// The harness file as given (absolute).
    pub harness_path: PathBuf,
    /// sha256 of the harness file's bytes (empty for ad-hoc declarations).
    pub harness_sha256: String,
    /// The output directory (absolute).
    pub out_dir: PathBuf,
    /// When the run started.
    pub started_at: crate::time::Timestamp,
    /// The machine the run ran on (for a merged run, every shard's,
    /// comma-separated); empty when unknown.
    pub hostname: String,
    /// The JUnit family `junit.xml` is written in.
    pub junit: JunitFlavour,
    /// Cases run at once (`--jobs`, else `[harness] jobs`): what the
    /// durations were measured under. 0 when unknown (a record read back
    /// from a summary, a merged run).
    pub jobs: usize,
    /// Wall clock of the whole run.
    pub duration: Duration,
    /// Cases of this run in declaration order (other partitions left out).
    pub cases: Vec<CaseRecord>,
    /// `count:K/N` or `hash:K/N` when sharded.
    pub partition: Option<String>,
    /// Total cases declared in the harness file (all partitions).
    pub declared_cases: usize,
    /// The run was interrupted (Ctrl-C / SIGTERM).
    pub interrupted: bool,
    /// Run-level warnings (no golden project declared, …).
    pub warnings: Vec<String>,
    /// Set when the filters or the partition selected no case.
    pub empty_selection: Option<EmptySelection>,
    /// The comparison with the verdict baseline (docs/baselines.md, The
    /// verdict baseline); None when the run was not compared (a merged run).
    pub baseline: Option<Comparison>,
}

impl RunRecord {
    /// Result counts.
    pub(crate) fn counts(&self) -> Counts {
        Counts::of(&self.cases)
    }

    /// The final status (docs/reports.md, What a run leaves): FAILURE when
    /// interrupted, else PARTIAL when a case failed or errored, else FAILURE
    /// when no case was selected and `--no-cases fail` holds, else SUCCESS.
    pub(crate) fn final_status(&self) -> FinalStatus {
        if self.interrupted {
            return FinalStatus::Failure;
        }
        let (failed, golden_failed) = self
            .cases
            .iter()
            .filter(|c| c.fails_run())
            .fold((0, 0), |(all, golden), c| {
                (all + 1, golden + usize::from(c.kind == CaseKind::Golden))
            });
        if failed == 0 && self.fails_for_no_case() {
            FinalStatus::NoCases
        } else if failed == 0 {
            FinalStatus::Success
        } else {
            FinalStatus::Partial {
                failed,
                golden_failed,
            }
        }
    }

    /// Whether no case was selected and the run must fail for it
    /// (`--no-cases fail`).
    pub(crate) fn fails_for_no_case(&self) -> bool {
        self.empty_selection
            .as_ref()
            .is_some_and(|e| e.policy == NoCases::Fail)
    }

    /// All issues of all cases, in declaration order.
    pub(crate) fn issues(&self) -> impl Iterator<Item = &Issue> {
        self.cases.iter().flat_map(|c| c.issues.iter())
    }
}

/// How a run ended, as every report states it (docs/reports.md, What a run
/// leaves). Rendered with [`std::fmt::Display`] as the contract's exact
/// strings: `SUCCESS`, `PARTIAL (N golden project(s) failed)`,
/// `PARTIAL (N case(s) failed)`, `FAILURE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum FinalStatus {
    /// Every case that ran passed.
    Success,
    /// The run completed, and some cases failed or errored.
    Partial {
        /// Cases FAILED or ERROR.
        failed: usize,
        /// Of those, golden projects.
        golden_failed: usize,
    },
    /// The run did not complete (interrupted).
    Failure,
    /// No case was selected and `--no-cases fail` holds; stated as
    /// `FAILURE` like an interrupted run, but exits 5.
    NoCases,
}

impl std::fmt::Display for FinalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            FinalStatus::Success => f.write_str("SUCCESS"),
            // Name golden projects only when they are all that failed, so
            // a failed verify case beside them is never left out of N.
            FinalStatus::Partial {
                failed,
                golden_failed,
            } if golden_failed == failed => {
                write!(f, "PARTIAL ({failed} golden project(s) failed)")
            }
            FinalStatus::Partial { failed, .. } => write!(f, "PARTIAL ({failed} case(s) failed)"),
            FinalStatus::Failure | FinalStatus::NoCases => f.write_str("FAILURE"),
        }
    }
}

impl Serialize for FinalStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::{FinalStatus, GoldenChanges, tail_lines};

    #[test]
    fn one_directory_of_changes_is_summarised_a_level_below() {
        let c = GoldenChanges {
            added: [
                "out/".to_string(),
                "out/_system/".to_string(),
                "out/orders.csv".to_string(),
            ]
            .into_iter()
            .chain((0..90).map(|i| format!("out/_system/part-{i}.json")))
            .collect(),
            ..GoldenChanges::default()
        };
        assert_eq!(
            c.summary(),
            "92 entries changed: out/_system/ (90), out/orders.csv; every entry is in evidence.json (golden_changes)"
        );
    }

    #[test]
    fn a_long_change_list_is_summarised_by_top_level_path_and_bounded() {
        let short = GoldenChanges {
            added: vec!["a".into()],
            ..GoldenChanges::default()
        };
        assert_eq!(short.summary(), "added: a");
        let many = GoldenChanges {
            added: (0..500)
                .map(|i| format!("dir{}/sub/file-{i}", i % 40))
                .chain(["out.csv".to_string(), ".odibi/".to_string()])
                .collect(),
            changed: vec!["report.html (content)".into()],
            removed: vec![],
        };
        let s = many.summary();
        assert!(
            s.starts_with("502 entries changed: dir0/ (13), dir1/ (13)"),
            "{s}"
        );
        assert!(s.contains(" and "), "{s}");
        assert!(s.chars().count() <= 320, "{} chars: {s}", s.chars().count());
    }

    #[test]
    fn tail_keeps_last_lines_and_chars() {
        assert_eq!(tail_lines("a\nb\nc\n", 2, 100), "b\nc\n");
        assert_eq!(tail_lines("a\nb\nc", 5, 100), "a\nb\nc");
        assert_eq!(tail_lines("abcdef", 5, 3), "def");
        assert_eq!(tail_lines("ééé", 5, 2), "éé");
        assert_eq!(tail_lines("", 5, 2), "");
    }

    #[test]
    fn final_status_renders_the_contract_strings() {
        let partial = |failed, golden_failed| FinalStatus::Partial {
            failed,
            golden_failed,
        };
        assert_eq!(FinalStatus::Success.to_string(), "SUCCESS");
        assert_eq!(FinalStatus::Failure.to_string(), "FAILURE");
        assert_eq!(partial(3, 0).to_string(), "PARTIAL (3 case(s) failed)");
        // A failed verify case beside failed golden projects: all are counted.
        assert_eq!(partial(3, 2).to_string(), "PARTIAL (3 case(s) failed)");
        assert_eq!(
            partial(2, 2).to_string(),
            "PARTIAL (2 golden project(s) failed)"
        );
        assert_eq!(
            serde_json::to_value(partial(1, 1)).unwrap(),
            "PARTIAL (1 golden project(s) failed)"
        );
    }
}
