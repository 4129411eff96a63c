//! `summary.json`: the machine-readable run summary, and the way back from
//! it to a [`RunRecord`] (what `merge` reads from each shard).
//!
//! A case carries every field of a [`CaseRecord`], so a record read back
//! renders the same reports. Output copies are stored losslessly (Base64
//! when not UTF-8, see [`super::Encoding`]), so merged shards give the same
//! observations, byte for byte, as one unsharded run.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::decode_output;
use crate::model::{
    CaseKind, CaseRecord, Counts, EmptySelection, FinalStatus, JunitFlavour, RunRecord,
};

/// The schema version written by this crate: 1.1 added `encoding` (output
/// copies were lossy text before); 1.2 added `empty_selection` and each
/// case's `expected`, `timed_out` and `interrupted`;
/// 1.3 added `redactions`; 1.4 the baseline comparison and each case's
/// snapshot checks; 1.5 each case's `stdout_end` and `stderr_end`; 1.6
/// `diff_sha256` in a changed data output's snapshot check; 1.7 each
/// case's `quarantine`; 1.8 `counts.quarantined`; 1.9 `pending` in a
/// changed or missing snapshot's check.
pub(crate) const SCHEMA_VERSION: &str = "1.9.0";

/// # cargo-golden summary
///
/// `<out_dir>/summary.json`: a whole run, cases in declaration order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct Summary {
    /// Version of this format: `1.<minor>.<patch>`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "super::schema_version_schema")
    )]
    pub(crate) schema_version: String,
    /// `SUCCESS`, `PARTIAL (N golden project(s) failed)`,
    /// `PARTIAL (N case(s) failed)` or `FAILURE`.
    #[cfg_attr(feature = "schema", schemars(extend("pattern" = super::FINAL_STATUS_PATTERN)))]
    pub(crate) final_status: String,
    /// Result counts.
    pub(crate) counts: Counts,
    /// The harness file the run used.
    pub(crate) harness: SummaryHarness,
    /// Suite name (`[harness] name`).
    pub(crate) suite_name: String,
    /// Unique, time-sortable run id.
    pub(crate) run_id: String,
    /// When the run started, RFC 3339 UTC.
    pub(crate) started_at: crate::time::Timestamp,
    /// The machine the run ran on (for a merged run, every shard's,
    /// comma-separated); empty when unknown. Absent in summaries written
    /// before it was recorded.
    #[serde(default)]
    pub(crate) hostname: String,
    /// The JUnit family of the run's `junit.xml`; absent means rich, the
    /// only one there was before.
    #[serde(default)]
    pub(crate) junit: JunitFlavour,
    /// Wall clock of the whole run in seconds.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) duration_seconds: f64,
    /// `count:K/N` or `hash:K/N` when the run was one shard.
    pub(crate) partition: Option<String>,
    /// Cases declared in the harness file (all partitions).
    pub(crate) declared_cases: usize,
    /// The run was interrupted (Ctrl-C, SIGTERM, SIGHUP).
    pub(crate) interrupted: bool,
    /// Run-level warnings.
    pub(crate) warnings: Vec<String>,
    /// Set when the filters or the partition selected no case: which one,
    /// and what the run made of it (`--no-cases`).
    #[serde(default)]
    pub(crate) empty_selection: Option<EmptySelection>,
    /// The comparison with the verdict baseline `golden-baseline.json`
    /// (docs/baselines.md, The verdict baseline); null when the run was not
    /// compared (and absent in summaries written before 1.2).
    #[serde(default)]
    pub(crate) baseline: Option<crate::model::Comparison>,
    /// Cases of this run in declaration order (other partitions left out).
    pub(crate) cases: Vec<SummaryCase>,
}

/// The harness file a run used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct SummaryHarness {
    /// As shown in the reports (usually relative to the workspace root).
    pub(crate) path: String,
    /// The absolute path the run used.
    pub(crate) absolute_path: String,
    /// sha256 of the file's bytes (empty for ad-hoc declarations): `merge`
    /// refuses shards of different files.
    pub(crate) sha256: String,
}

/// One case (or one earlier attempt of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(transform = super::base64_when_encoded))]
pub(crate) struct SummaryCase {
    /// 0-based declaration index in the harness file.
    pub(crate) index: usize,
    /// Case name.
    pub(crate) name: String,
    /// `golden` or `verify`.
    pub(crate) kind: CaseKind,
    /// Line of the declaration in the harness file (1-based).
    pub(crate) line: usize,
    /// The declaration's description.
    pub(crate) description: Option<String>,
    /// The command, its outputs as kept in the reports, how it ended and
    /// how it was judged.
    #[serde(flatten)]
    pub(crate) run: super::case_run::CaseRun,
    /// When `stdout` is truncated: the real end of stdout as the reports
    /// quote it (its last lines, as text, invalid UTF-8 replaced); null
    /// otherwise (absent in summaries written before 1.5).
    #[serde(default)]
    pub(crate) stdout_end: Option<String>,
    /// When `stderr` is truncated: the real end of stderr, like
    /// `stdout_end`.
    #[serde(default)]
    pub(crate) stderr_end: Option<String>,
    /// Why the case was skipped or could not run.
    pub(crate) reason: Option<String>,
    /// Passed on a retry after failing.
    pub(crate) flaky: bool,
    /// Earlier failed attempts, oldest first.
    pub(crate) previous_attempts: Vec<SummaryCase>,
    /// The expected outcome: `success` or `specific_error:<regex>`.
    #[serde(default)]
    pub(crate) expected: String,
    /// The case hit its timeout and was killed.
    #[serde(default)]
    pub(crate) timed_out: bool,
    /// The run was interrupted while the case ran.
    #[serde(default)]
    pub(crate) interrupted: bool,
    /// Snapshot comparisons (or blesses) of its output streams; empty when
    /// the case has no snapshot.
    #[serde(default)]
    pub(crate) snapshots: Vec<crate::model::SnapshotCheck>,
}

/// A value of a summary that cannot be turned back into a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldError {
    /// JSON path of the field, e.g. `$.cases[2].stdout`.
    pub(crate) field: String,
    /// What is wrong with it.
    pub(crate) message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for FieldError {}

/// Readers take any `1.x.y`: a later minor version only adds fields.
fn check_version(version: &str) -> Result<(), FieldError> {
    if super::is_schema_version(version) {
        return Ok(());
    }
    Err(FieldError {
        field: "$.schema_version".into(),
        message: format!(
            "version {version:?} is not one this cargo-golden reads (1.x.y, up to {SCHEMA_VERSION})"
        ),
    })
}

fn duration(field: String, secs: f64) -> Result<Duration, FieldError> {
    Duration::try_from_secs_f64(secs).map_err(|_| FieldError {
        field,
        message: format!("not a duration in seconds: {secs}"),
    })
}

impl Summary {
    /// The summary of `record`, whose final status is `status` (concluded
    /// once, see [`crate::conclusion::Results`]); `harness_display` is how the
    /// reports name the harness file.
    pub(crate) fn from_record(
        record: &RunRecord,
        status: FinalStatus,
        harness_display: &str,
    ) -> Summary {
        Summary {
            schema_version: SCHEMA_VERSION.to_string(),
            final_status: status.to_string(),
            counts: record.counts(),
            harness: SummaryHarness {
                path: harness_display.to_string(),
                absolute_path: record.harness_path.to_string_lossy().into_owned(),
                sha256: record.harness_sha256.clone(),
            },
            suite_name: record.suite_name.clone(),
            run_id: record.run_id.clone(),
            started_at: record.started_at,
            hostname: record.hostname.clone(),
            junit: record.junit,
            duration_seconds: record.duration.as_secs_f64(),
            partition: record.partition.clone(),
            declared_cases: record.declared_cases,
            interrupted: record.interrupted,
            warnings: record.warnings.clone(),
            empty_selection: record.empty_selection.clone(),
            baseline: record.baseline.clone(),
            cases: record.cases.iter().map(SummaryCase::from_case).collect(),
        }
    }

    /// The record this summary was rendered from, with `out_dir` as its
    /// out dir.
    pub(crate) fn into_record(self, out_dir: PathBuf) -> Result<RunRecord, FieldError> {
        check_version(&self.schema_version)?;
        let cases = self
            .cases
            .into_iter()
            .map(|c| c.into_case("$.cases"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RunRecord {
            run_id: self.run_id,
            suite_name: self.suite_name,
            harness_path: PathBuf::from(self.harness.absolute_path),
            harness_sha256: self.harness.sha256,
            out_dir,
            started_at: self.started_at,
            hostname: self.hostname,
            junit: self.junit,
            jobs: 0,
            duration: duration("$.duration_seconds".into(), self.duration_seconds)?,
            cases,
            partition: self.partition,
            declared_cases: self.declared_cases,
            interrupted: self.interrupted,
            warnings: self.warnings,
            empty_selection: self.empty_selection,
            baseline: self.baseline,
        })
    }
}

impl SummaryCase {
    /// The summary entry of `case`.
    pub(crate) fn from_case(case: &CaseRecord) -> SummaryCase {
        SummaryCase {
            index: case.index,
            name: case.name.clone(),
            kind: case.kind,
            line: case.line,
            description: case.description.clone(),
            run: super::case_run::CaseRun::of(case),
            stdout_end: case.stdout_end.clone(),
            stderr_end: case.stderr_end.clone(),
            reason: case.reason.clone(),
            flaky: case.flaky,
            previous_attempts: case
                .previous_attempts
                .iter()
                .map(SummaryCase::from_case)
                .collect(),
            expected: case.expected.clone(),
            timed_out: case.timed_out,
            interrupted: case.interrupted,
            snapshots: case.snapshots.clone(),
        }
    }

    /// The record of this case; `at` is the JSON path of its list, for
    /// errors.
    pub(crate) fn into_case(self, at: &str) -> Result<CaseRecord, FieldError> {
        let at = format!("{at}[{}]", self.index);
        let run = self.run;
        let bytes = |field: &str, text: &str| {
            decode_output(text, run.encoding).map_err(|e| FieldError {
                field: format!("{at}.{field}"),
                message: format!("not valid base64 (encoding is \"base64\"): {e}"),
            })
        };
        let stdout = bytes("stdout", &run.stdout)?;
        let stderr = bytes("stderr", &run.stderr)?;
        Ok(CaseRecord {
            duration: duration(format!("{at}.duration_seconds"), run.duration_seconds)?,
            previous_attempts: self
                .previous_attempts
                .into_iter()
                .map(|a| a.into_case(&format!("{at}.previous_attempts")))
                .collect::<Result<_, _>>()?,
            index: self.index,
            name: self.name,
            kind: self.kind,
            line: self.line,
            description: self.description,
            raw_command: run.raw_command,
            working_dir: PathBuf::from(run.working_dir),
            exit_code: run.exit_code,
            // Not a field of its own: read back as the run judged it.
            signal: run.exit_code.and_then(crate::model::shell_signal),
            stdout,
            stderr,
            stdout_end: self.stdout_end,
            stderr_end: self.stderr_end,
            started_at: run.started_at,
            finished_at: run.finished_at,
            status: run.status,
            execution_status: run.execution_status,
            result: run.result,
            evidence_hash: run.evidence_hash,
            run_issues: crate::model::verdict::run_issues(&run.issues),
            issues: run.issues,
            validation_errors: run.validation_errors,
            artifacts: run.artifacts,
            redactions: run.redactions,
            warnings: run.warnings,
            reason: self.reason,
            flaky: self.flaky,
            expected: self.expected,
            timed_out: self.timed_out,
            interrupted: self.interrupted,
            snapshots: self.snapshots,
            // Kept in evidence.json only; the issues carry the summary.
            golden_changes: None,
            // Taken from evidence.json by verify-evidence and merge.
            structured_result: None,
            quarantine: run.quarantine,
            marked_lines: [Vec::new(), Vec::new()],
        })
    }
}
