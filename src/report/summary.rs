//! `summary.json`: written from the run record, and read back into one
//! (what `merge` reads from each shard). The format is
//! [`crate::wire::summary::Summary`].

use std::path::{Path, PathBuf};

use super::ReportError;
use super::format::Disagreement;
use super::format::{Format, ReadBack, RenderError, RunView};
use super::integrity::{case_field, compare, json_of};
use super::markdown::counts_text;
use crate::model::{CaseRecord, CaseResult, Comparison, Counts, ExecutionStatus, RunRecord};
use crate::wire::summary::Summary;

/// File name of the JSON summary in the out dir.
pub(crate) const SUMMARY_FILE: &str = "summary.json";

/// The summary document of `record`, pretty-printed, ending with a newline.
pub(super) fn render(
    record: &RunRecord,
    results: &crate::conclusion::Results,
    harness_display: &str,
) -> String {
    let summary = Summary::from_record(record, results.status, harness_display);
    let mut s = serde_json::to_string_pretty(&summary).expect("a summary always serializes");
    s.push('\n');
    s
}

/// A `summary.json` read back.
#[derive(Clone, Debug)]
pub(crate) struct SummaryFile {
    /// The record it was rendered from (see [`read_summary`]).
    pub(crate) record: RunRecord,
    /// How the reports named the harness file (`harness.path`), e.g.
    /// relative to the workspace root: what re-rendered reports should
    /// show again.
    pub(crate) harness_display: String,
}

/// Read a `summary.json` back into the record it was rendered from. The
/// record's `out_dir` is the directory holding the file; output comes back
/// from its copies.
pub(crate) fn read_summary(path: &Path) -> Result<RunRecord, ReportError> {
    read_summary_file(path).map(|s| s.record)
}

/// Parse a `summary.json` into its wire form.
pub(crate) fn parse_summary(path: &Path) -> Result<Summary, ReportError> {
    let bytes = crate::untrusted::read_limited(path, super::REPORT_LIMIT).map_err(|source| {
        ReportError::Read {
            path: path.to_path_buf(),
            source,
        }
    })?;
    serde_json::from_slice(&bytes).map_err(|source| ReportError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

/// [`read_summary`], keeping the harness file's display name as well.
pub(crate) fn read_summary_file(path: &Path) -> Result<SummaryFile, ReportError> {
    let wire = parse_summary(path)?;
    let out_dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let harness_display = wire.harness.path.clone();
    let record = wire
        .into_record(crate::layout::absolute(&out_dir))
        .map_err(|e| ReportError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    Ok(SummaryFile {
        record,
        harness_display,
    })
}

/// The `summary.json` format.
pub(super) struct SummaryJson;

impl Format for SummaryJson {
    fn file_name(&self) -> &'static str {
        SUMMARY_FILE
    }

    fn render(&self, run: &RunView<'_>, harness_display: &str) -> Result<String, RenderError> {
        Ok(render(run.record, run.results, harness_display))
    }

    fn check(&self, file: &ReadBack<'_>, found: &mut Vec<Disagreement>) {
        check(file.path, file.text, &file.run, file.exit_code, found);
    }
}

/// Check a summary.json read back against the run, and its baseline
/// comparison against the exit code the run is about to use.
fn check(
    path: &Path,
    text: &str,
    run: &RunView<'_>,
    exit_code: i32,
    found: &mut Vec<Disagreement>,
) {
    let (record, results, counts) = (run.record, run.results, &run.record.counts());
    let summary: Held = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: format!("not a valid summary: {e}"),
            });
            return;
        }
    };
    compare(
        found,
        path,
        "final_status",
        results.status,
        summary.final_status,
    );
    compare(
        found,
        path,
        "counts",
        counts_text(counts),
        counts_text(&summary.counts),
    );
    compare(found, path, "cases", counts.total, summary.cases.len());
    let names: Vec<&str> = summary.cases.iter().map(|c| c.name.as_str()).collect();
    let want: Vec<&str> = record.cases.iter().map(|c| c.name.as_str()).collect();
    if names != want {
        compare(
            found,
            path,
            "case names in order",
            format!("{want:?}"),
            format!("{names:?}"),
        );
    }
    for (c, case) in summary.cases.iter().zip(&record.cases) {
        summary_case(found, path, case, c);
    }
    let failures = summary
        .cases
        .iter()
        .filter(|c| c.result.is_failure())
        .count();
    compare(
        found,
        path,
        "cases FAILED or ERROR",
        counts.failures(),
        failures,
    );
    let compared = (results, exit_code);
    super::baseline::check_summary(path, summary.baseline.as_ref(), record, compared, found);
}

/// What the check reads back of a summary.json: the fields it holds to
/// the run. The rest is skipped unparsed: reading every field of every
/// case (through the case's flattened run) took most of the check's time,
/// and `merge` and `verify-evidence` still read it whole.
#[derive(serde::Deserialize)]
struct Held {
    final_status: String,
    counts: Counts,
    cases: Vec<HeldCase>,
    #[serde(default)]
    baseline: Option<Comparison>,
}

/// What the check holds to the run of one case of summary.json.
#[derive(serde::Deserialize)]
struct HeldCase {
    name: String,
    result: CaseResult,
    execution_status: ExecutionStatus,
    exit_code: Option<i32>,
    evidence_hash: Option<String>,
}

/// One case of summary.json against the run record.
fn summary_case(found: &mut Vec<Disagreement>, path: &Path, case: &CaseRecord, c: &HeldCase) {
    case_field(
        found,
        path,
        case,
        "result",
        case.result.as_str(),
        c.result.as_str(),
    );
    case_field(
        found,
        path,
        case,
        "execution_status",
        case.execution_status.as_str(),
        c.execution_status.as_str(),
    );
    case_field(
        found,
        path,
        case,
        "exit_code",
        json_of(case.exit_code),
        json_of(c.exit_code),
    );
    case_field(
        found,
        path,
        case,
        "evidence_hash",
        json_of(case.evidence_hash.as_deref()),
        json_of(c.evidence_hash.as_deref()),
    );
}
