//! `summary.json`: the machine-readable run summary, and the way back from
//! it to a [`RunRecord`] (what `merge` reads from each shard).
//!
//! The wire structs below are the format; they carry every field of a
//! [`CaseRecord`], so a record read back renders the same reports. Output
//! is stored as text: bytes that are not UTF-8 are replaced by U+FFFD, as
//! in `evidence.json` (the raw bytes stay in the artifact files).

use crate::layout::Artifacts;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{ReportError, lossy};
use crate::model::{
    CaseKind, CaseRecord, CaseResult, Counts, EvidenceStatus, ExecutionStatus, Issue, JunitFlavour,
    RunRecord, ValidationError,
};

/// Version of the summary format, bumped on incompatible change.
pub const SUMMARY_SCHEMA_VERSION: &str = "1.0.0";

#[derive(Serialize, Deserialize)]
struct SummaryWire {
    schema_version: String,
    final_status: String,
    counts: Counts,
    harness: HarnessWire,
    suite_name: String,
    run_id: String,
    started_at: String,
    /// Absent in summaries written before it was recorded.
    #[serde(default)]
    hostname: String,
    /// The JUnit family of the run's `junit.xml`; absent means rich, the
    /// only one there was before.
    #[serde(default)]
    junit: JunitFlavour,
    duration_seconds: f64,
    partition: Option<String>,
    declared_cases: usize,
    interrupted: bool,
    warnings: Vec<String>,
    cases: Vec<CaseWire>,
}

#[derive(Serialize, Deserialize)]
struct HarnessWire {
    /// As shown in the reports (usually relative to the workspace root).
    path: String,
    /// The absolute path the run used.
    absolute_path: String,
    sha256: String,
}

#[derive(Serialize, Deserialize)]
struct CaseWire {
    index: usize,
    name: String,
    kind: CaseKind,
    line: usize,
    description: Option<String>,
    raw_command: String,
    working_dir: String,
    exit_code: Option<i32>,
    stdout: String,
    stderr: String,
    started_at: Option<String>,
    finished_at: Option<String>,
    duration_seconds: f64,
    status: EvidenceStatus,
    execution_status: ExecutionStatus,
    result: CaseResult,
    evidence_hash: Option<String>,
    issues: Vec<Issue>,
    validation_errors: Vec<ValidationError>,
    artifacts: Option<Artifacts>,
    warnings: Vec<String>,
    reason: Option<String>,
    flaky: bool,
    previous_attempts: Vec<CaseWire>,
}

impl CaseWire {
    fn from_case(case: &CaseRecord) -> CaseWire {
        CaseWire {
            index: case.index,
            name: case.name.clone(),
            kind: case.kind,
            line: case.line,
            description: case.description.clone(),
            raw_command: case.raw_command.clone(),
            working_dir: case.working_dir.to_string_lossy().into_owned(),
            exit_code: case.exit_code,
            stdout: lossy(&case.stdout),
            stderr: lossy(&case.stderr),
            started_at: case.started_at.map(|t| t.to_string()),
            finished_at: case.finished_at.map(|t| t.to_string()),
            duration_seconds: case.duration.as_secs_f64(),
            status: case.status,
            execution_status: case.execution_status,
            result: case.result,
            evidence_hash: case.evidence_hash.clone(),
            issues: case.issues.clone(),
            validation_errors: case.validation_errors.clone(),
            artifacts: case.artifacts.clone(),
            warnings: case.warnings.clone(),
            reason: case.reason.clone(),
            flaky: case.flaky,
            previous_attempts: case
                .previous_attempts
                .iter()
                .map(CaseWire::from_case)
                .collect(),
        }
    }

    fn into_case(self, path: &Path, at: &str) -> Result<CaseRecord, ReportError> {
        let at = format!("{at}[{}]", self.index);
        Ok(CaseRecord {
            started_at: timestamp(
                path,
                &format!("{at}.started_at"),
                self.started_at.as_deref(),
            )?,
            finished_at: timestamp(
                path,
                &format!("{at}.finished_at"),
                self.finished_at.as_deref(),
            )?,
            duration: duration(
                path,
                &format!("{at}.duration_seconds"),
                self.duration_seconds,
            )?,
            previous_attempts: self
                .previous_attempts
                .into_iter()
                .map(|a| a.into_case(path, &format!("{at}.previous_attempts")))
                .collect::<Result<_, _>>()?,
            index: self.index,
            name: self.name,
            kind: self.kind,
            line: self.line,
            description: self.description,
            raw_command: self.raw_command,
            working_dir: PathBuf::from(self.working_dir),
            exit_code: self.exit_code,
            stdout: self.stdout.into_bytes(),
            stderr: self.stderr.into_bytes(),
            status: self.status,
            execution_status: self.execution_status,
            result: self.result,
            evidence_hash: self.evidence_hash,
            issues: self.issues,
            validation_errors: self.validation_errors,
            artifacts: self.artifacts,
            warnings: self.warnings,
            reason: self.reason,
            flaky: self.flaky,
        })
    }
}

fn timestamp(
    path: &Path,
    field: &str,
    value: Option<&str>,
) -> Result<Option<jiff::Timestamp>, ReportError> {
    value
        .map(|s| {
            s.parse::<jiff::Timestamp>()
                .map_err(|e| ReportError::Invalid {
                    path: path.to_path_buf(),
                    message: format!("{field}: not an RFC 3339 timestamp: {e}"),
                })
        })
        .transpose()
}

fn duration(path: &Path, field: &str, secs: f64) -> Result<Duration, ReportError> {
    Duration::try_from_secs_f64(secs).map_err(|_| ReportError::Invalid {
        path: path.to_path_buf(),
        message: format!("{field}: not a duration in seconds: {secs}"),
    })
}

/// The summary document of `record`, pretty-printed, ending with a newline.
pub(super) fn render(record: &RunRecord, harness_display: &str) -> String {
    let wire = SummaryWire {
        schema_version: SUMMARY_SCHEMA_VERSION.to_string(),
        final_status: record.final_status().to_string(),
        counts: record.counts(),
        harness: HarnessWire {
            path: harness_display.to_string(),
            absolute_path: record.harness_path.to_string_lossy().into_owned(),
            sha256: record.harness_sha256.clone(),
        },
        suite_name: record.suite_name.clone(),
        run_id: record.run_id.clone(),
        started_at: record.started_at.to_string(),
        hostname: record.hostname.clone(),
        junit: record.junit,
        duration_seconds: record.duration.as_secs_f64(),
        partition: record.partition.clone(),
        declared_cases: record.declared_cases,
        interrupted: record.interrupted,
        warnings: record.warnings.clone(),
        cases: record.cases.iter().map(CaseWire::from_case).collect(),
    };
    let mut s = serde_json::to_string_pretty(&wire).expect("a summary always serializes");
    s.push('\n');
    s
}

/// A `summary.json` read back.
#[derive(Clone, Debug)]
pub struct SummaryFile {
    /// The record it was rendered from (see [`read_summary`]).
    pub record: RunRecord,
    /// How the reports named the harness file (`harness.path`), e.g.
    /// relative to the workspace root: what re-rendered reports should
    /// show again.
    pub harness_display: String,
}

/// Read a `summary.json` back into the record it was rendered from. The
/// record's `out_dir` is the directory holding the file; output comes back
/// from its text copies.
pub fn read_summary(path: &Path) -> Result<RunRecord, ReportError> {
    read_summary_file(path).map(|s| s.record)
}

/// [`read_summary`], keeping the harness file's display name as well.
pub fn read_summary_file(path: &Path) -> Result<SummaryFile, ReportError> {
    let bytes = std::fs::read(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let wire: SummaryWire =
        serde_json::from_slice(&bytes).map_err(|source| ReportError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
    let out_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let started_at = timestamp(path, "$.started_at", Some(&wire.started_at))?
        .expect("a present value parses to Some");
    let cases = wire
        .cases
        .into_iter()
        .map(|c| c.into_case(path, "$.cases"))
        .collect::<Result<Vec<_>, _>>()?;
    let record = RunRecord {
        run_id: wire.run_id,
        suite_name: wire.suite_name,
        harness_path: PathBuf::from(wire.harness.absolute_path),
        harness_sha256: wire.harness.sha256,
        out_dir: crate::layout::absolute(&out_dir),
        started_at,
        hostname: wire.hostname,
        junit: wire.junit,
        duration: duration(path, "$.duration_seconds", wire.duration_seconds)?,
        cases,
        partition: wire.partition,
        declared_cases: wire.declared_cases,
        interrupted: wire.interrupted,
        warnings: wire.warnings,
    };
    Ok(SummaryFile {
        record,
        harness_display: wire.harness.path,
    })
}
