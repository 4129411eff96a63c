//! What one case's run showed, written alike by `evidence.json` and by each
//! case of `summary.json` (both flatten it, so the files keep their flat
//! shape): the command, the outputs as kept in the reports, how it ended
//! and how it was judged.

use serde::{Deserialize, Serialize};

use super::{Encoding, encode_outputs};
use crate::layout::Artifacts;
use crate::model::{
    CaseRecord, CaseResult, EvidenceStatus, ExecutionStatus, Issue, ValidationError,
};
use crate::redact::Redactions;

/// The run of one case (or one attempt of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct CaseRun {
    /// The exact command string run (also in `command.txt`).
    pub(crate) raw_command: String,
    /// Absolute working directory.
    pub(crate) working_dir: String,
    /// Exit code; 128+N when killed by signal N; null when not run.
    pub(crate) exit_code: Option<i32>,
    /// stdout, truncated as in the reports (the full output is in
    /// `stdout.log`); Base64 when `encoding` is `"base64"`.
    pub(crate) stdout: String,
    /// stderr, truncated as in the reports (the full output is in
    /// `stderr.log`); Base64 when `encoding` is `"base64"`.
    pub(crate) stderr: String,
    /// `"utf8"`, or `"base64"` when stdout or stderr holds bytes that are
    /// not valid UTF-8 (or a NUL): then both are Base64.
    #[serde(default)]
    pub(crate) encoding: Encoding,
    /// When the command started, RFC 3339 UTC.
    pub(crate) started_at: Option<crate::time::Timestamp>,
    /// When it finished, RFC 3339 UTC.
    pub(crate) finished_at: Option<crate::time::Timestamp>,
    /// Wall clock in seconds.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) duration_seconds: f64,
    /// `SUCCESS`, `FAILURE` or `NO_EVIDENCE`: exit code 0, not 0, or not run.
    pub(crate) status: EvidenceStatus,
    /// Classification of the output.
    pub(crate) execution_status: ExecutionStatus,
    /// What the case counts as.
    pub(crate) result: CaseResult,
    /// Hex sha256 of `command + "|" + stdout + "|" + stderr + "|" +
    /// exit_code` over the full artifact files, then `"|" + result` when
    /// evidence.json's `structured_result` kept a file; null when not run.
    pub(crate) evidence_hash: Option<String>,
    /// Issues (at least one when FAILED or ERROR).
    pub(crate) issues: Vec<Issue>,
    /// Validation errors extracted from pydantic-style output.
    pub(crate) validation_errors: Vec<ValidationError>,
    /// Paths of the artifact files, relative to the out dir; null when
    /// nothing was written.
    pub(crate) artifacts: Option<Artifacts>,
    /// How many secret values were masked in each artifact file (never
    /// which); all zero in files written before masking.
    #[serde(default)]
    pub(crate) redactions: Redactions,
    /// Warnings about the case (leaked processes, ...).
    pub(crate) warnings: Vec<String>,
    /// The case's quarantine (`quarantine = { reason, until, issue }`);
    /// null when it has none (absent before 1.7). While it holds (not
    /// `expired`), the case's failure does not fail the run.
    #[serde(default)]
    pub(crate) quarantine: Option<crate::model::Quarantine>,
}

impl CaseRun {
    /// The run of `case`.
    pub(crate) fn of(case: &CaseRecord) -> CaseRun {
        let (stdout, stderr, encoding) = encode_outputs(&case.stdout, &case.stderr);
        CaseRun {
            raw_command: case.raw_command.clone(),
            working_dir: case.working_dir.to_string_lossy().into_owned(),
            exit_code: case.exit_code,
            stdout,
            stderr,
            encoding,
            started_at: case.started_at,
            finished_at: case.finished_at,
            duration_seconds: case.duration.as_secs_f64(),
            status: case.status,
            execution_status: case.execution_status,
            result: case.result,
            evidence_hash: case.evidence_hash.clone(),
            issues: case.issues.clone(),
            validation_errors: case.validation_errors.clone(),
            artifacts: case.artifacts.clone(),
            redactions: case.redactions,
            warnings: case.warnings.clone(),
            quarantine: case.quarantine.clone(),
        }
    }
}
