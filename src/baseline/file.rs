//! `golden-baseline.json`: the verdict baseline, committed beside the
//! harness file and reviewed like code. Written only by a bless; read by
//! every run.
//!
//! ```json
//! {
//!   "schema_version": "1.0.0",
//!   "suite": "my-project",
//!   "cases": [
//!     {"name": "sales_daily_etl", "kind": "golden", "result": "PASSED", "duration_seconds": 1.25},
//!     {"name": "legacy import", "kind": "verify", "result": "FAILED",
//!      "signature": "PIPELINE_EXECUTION_ERROR: Pipeline execution failed: Pipeline failed at [ROOT]/in.csv",
//!      "duration_seconds": 0.4}
//!   ]
//! }
//! ```
//!
//! Cases are kept in declaration order and durations rounded to
//! hundredths of a second, so a bless changes few lines of the file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::{CaseKind, CaseResult};

/// Version of the baseline format, bumped on incompatible change.
pub(crate) const BASELINE_SCHEMA_VERSION: &str = "1.0.0";

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BaselineFile {
    /// `1.x.y`.
    pub schema_version: String,
    /// The suite the baseline was blessed for.
    #[serde(default)]
    pub suite: String,
    /// One entry per case, in declaration order.
    pub cases: Vec<BaselineEntry>,
}

/// What a case did when it was blessed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BaselineEntry {
    /// Case name.
    pub name: String,
    /// `golden` or `verify`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<CaseKind>,
    /// PASSED, FAILED or ERROR (never SKIPPED).
    pub result: CaseResult,
    /// For FAILED and ERROR: the issue types and the first finding,
    /// redacted (see `super::signature`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Wall clock, seconds.
    pub duration_seconds: f64,
}

/// The baseline file could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BaselineError {
    /// It exists but could not be read.
    #[error("cannot read {}", crate::layout::display_relative(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It is not a baseline.
    #[error(
        "{}:{line}:{column}: {message}\n  help: {help}",
        crate::layout::display_relative(path)
    )]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
        /// What to do.
        help: String,
    },
    /// It could not be written.
    #[error("cannot write {}", crate::layout::display_relative(path))]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

const HELP: &str = "golden-baseline.json is written by `cargo golden --bless`; fix the file, or restore it from version control and bless again";

impl BaselineFile {
    /// Read the baseline at `path`; `None` when there is no such file.
    pub(crate) fn load(path: &Path) -> Result<Option<BaselineFile>, BaselineError> {
        let text = match crate::untrusted::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(BaselineError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        Self::parse(path, &text).map(Some)
    }

    /// Parse and check the bytes of a baseline file read from `path`.
    pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<BaselineFile, BaselineError> {
        let invalid = |line: usize, column: usize, message: String| BaselineError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            message,
            help: HELP.to_string(),
        };
        let file: BaselineFile = serde_json::from_slice(bytes)
            .map_err(|e| invalid(e.line().max(1), e.column().max(1), e.to_string()))?;
        if !file.schema_version.starts_with("1.") {
            return Err(invalid(
                1,
                1,
                format!(
                    "schema_version {:?} is not supported (this version reads 1.x)",
                    file.schema_version
                ),
            ));
        }
        let text = String::from_utf8_lossy(bytes);
        let mut seen = std::collections::HashSet::new();
        for entry in &file.cases {
            let (line, column) = position_of(&text, &entry.name);
            if !seen.insert(entry.name.as_str()) {
                return Err(invalid(
                    line,
                    column,
                    format!("case {:?} is listed twice", entry.name),
                ));
            }
            if entry.result == CaseResult::Skipped {
                return Err(invalid(
                    line,
                    column,
                    format!(
                        "case {:?}: a baseline records PASSED, FAILED or ERROR, not SKIPPED",
                        entry.name
                    ),
                ));
            }
            if !(entry.duration_seconds.is_finite() && entry.duration_seconds >= 0.0) {
                return Err(invalid(
                    line,
                    column,
                    format!(
                        "case {:?}: duration_seconds must be a number of seconds ≥ 0",
                        entry.name
                    ),
                ));
            }
        }
        Ok(file)
    }

    /// Write the file atomically, pretty-printed, ending with a newline.
    pub(crate) fn save(&self, path: &Path) -> Result<(), BaselineError> {
        let mut text = serde_json::to_string_pretty(self).expect("a baseline always serializes");
        text.push('\n');
        crate::atomic::atomic_write(path, text.as_bytes()).map_err(|source| BaselineError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Seconds rounded to hundredths, as the file stores them.
pub(crate) fn round_seconds(secs: f64) -> f64 {
    (secs * 100.0).round() / 100.0
}

/// Line and column of the first `"name"` string equal to `name` in the
/// file's text (1:1 when not found): where a problem with its entry is.
fn position_of(text: &str, name: &str) -> (usize, usize) {
    let quoted = serde_json::to_string(name).unwrap_or_default();
    let Some(offset) = text.find(&quoted) else {
        return (1, 1);
    };
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<BaselineFile, BaselineError> {
        BaselineFile::parse(Path::new("golden-baseline.json"), text.as_bytes())
    }

    #[test]
    fn reads_what_it_writes() {
        let file = BaselineFile {
            schema_version: BASELINE_SCHEMA_VERSION.into(),
            suite: "s".into(),
            cases: vec![BaselineEntry {
                name: "a".into(),
                kind: Some(CaseKind::Golden),
                result: CaseResult::Failed,
                signature: Some("EXECUTION_FAILURE: Command exited with code 1".into()),
                duration_seconds: 0.25,
            }],
        };
        let text = serde_json::to_string_pretty(&file).unwrap();
        assert_eq!(parse(&text).unwrap(), file);
    }

    #[test]
    fn problems_name_line_and_column() {
        let e = parse("{\"schema_version\": \"1.0.0\",\n \"cases\": [\n  {\"name\": \"a\", \"result\": \"PASSED\", \"duration_seconds\": 1},\n  {\"name\": \"a\", \"result\": \"PASSED\", \"duration_seconds\": 1}]}").unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains(":3:") && text.contains("listed twice"),
            "{text}"
        );
        let e = parse("{\"schema_version\": \"1.0.0\", \"cases\": [{\"name\": \"b\", \"result\": \"SKIPPED\", \"duration_seconds\": 1}]}").unwrap_err();
        assert!(e.to_string().contains("not SKIPPED"), "{e}");
        let e = parse("{\"schema_version\": \"2.0.0\", \"cases\": []}").unwrap_err();
        assert!(e.to_string().contains("not supported"), "{e}");
        let e = parse("{\"schema_version\": \"1.0.0\",\n \"cases\": [}").unwrap_err();
        assert!(e.to_string().contains("golden-baseline.json:2:"), "{e}");
    }
}
