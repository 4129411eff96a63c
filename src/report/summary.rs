//! `summary.json`: written from the run record, and read back into one
//! (what `merge` reads from each shard). The format is
//! [`crate::wire::summary::Summary`].

use std::path::{Path, PathBuf};

use super::ReportError;
use crate::model::RunRecord;
use crate::wire::summary::Summary;

/// The summary document of `record`, pretty-printed, ending with a newline.
pub(super) fn render(
    record: &RunRecord,
    results: &crate::exit::Results,
    harness_display: &str,
) -> String {
    let summary = Summary::from_record(record, results.status, harness_display);
    let mut s = serde_json::to_string_pretty(&summary).expect("a summary always serializes");
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
/// from its copies.
pub fn read_summary(path: &Path) -> Result<RunRecord, ReportError> {
    read_summary_file(path).map(|s| s.record)
}

/// Parse a `summary.json` into its wire form.
pub fn parse_summary(path: &Path) -> Result<Summary, ReportError> {
    let bytes = std::fs::read(path).map_err(|source| ReportError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_slice(&bytes).map_err(|source| ReportError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

/// [`read_summary`], keeping the harness file's display name as well.
pub fn read_summary_file(path: &Path) -> Result<SummaryFile, ReportError> {
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
