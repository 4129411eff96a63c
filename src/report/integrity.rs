//! The integrity check (exit code 4 in docs/command-line.md, Command line):
//! the written reports are read back and must agree with the run record, with
//! each other and with the exit code, or the run exits with
//! [`crate::conclusion::INTEGRITY`].
//!
//! Each registered format ([`super::FORMATS`]) parses its file for real
//! (XML with `crate::xml`, JSON with serde_json, the markdown tables by their
//! fixed shape), so a report that renders wrong, or was changed after
//! writing, is caught. This module holds what is checked of the run as a
//! whole, and the helpers the formats' checks share.

use std::fmt;
use std::path::Path;

use super::FORMATS;
use super::format::Disagreement;
use super::format::{ReadBack, RunView};
use crate::conclusion::Results;
use crate::model::{CaseRecord, RunRecord};

/// The exit code the record calls for (see [`Results`]).
pub fn expected_exit_code(record: &RunRecord) -> i32 {
    Results::of(record).exit_code
}

/// The reports disagree with the record or the exit code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct IntegrityError {
    /// Every disagreement found, in the order checked.
    pub(crate) disagreements: Vec<Disagreement>,
}

impl fmt::Display for IntegrityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "integrity violation: ")?;
        for (i, d) in self.disagreements.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// Check the reports [`super::write_all`] wrote in `record.out_dir` against
/// `record` and the exit code the run is about to use. Every disagreement
/// is collected, not just the first.
pub fn check_integrity(record: &RunRecord, exit_code: i32) -> Result<(), IntegrityError> {
    let results = &Results::of(record);
    let per_format = crate::parallel::map(FORMATS, |format| {
        check_format(*format, record, results, exit_code)
    });
    verdict(record, results, exit_code, per_format)
}

/// What is checked of the run as a whole: the exit code follows from the
/// results, and every failed case has an issue.
fn check_run(record: &RunRecord, results: &Results, exit_code: i32) -> Vec<Disagreement> {
    let mut found = Vec::new();
    let expected = results.exit_code;
    if exit_code != expected {
        found.push(Disagreement::ExitCode {
            expected,
            found: exit_code,
        });
    }
    for case in &record.cases {
        if case.result.is_failure() && case.issues.is_empty() {
            found.push(Disagreement::MissingIssue {
                case: case.name.clone(),
                result: case.result,
            });
        }
    }
    found
}

/// `format`'s report in `record.out_dir`, read back and checked against
/// the record and `exit_code`.
pub(super) fn check_format(
    format: &dyn super::format::Format,
    record: &RunRecord,
    results: &Results,
    exit_code: i32,
) -> Vec<Disagreement> {
    let mut found = Vec::new();
    let path = record.out_dir.join(format.file_name());
    if format.added_later() && std::fs::symlink_metadata(&path).is_err() {
        return found;
    }
    if let Some(text) = read(&path, &mut found) {
        let run = RunView {
            record,
            results,
            history: &[],
        };
        let file = ReadBack {
            run,
            exit_code,
            path: &path,
            text: &text,
        };
        format.check(&file, &mut found);
    }
    found
}

/// The run checked as a whole ([`check_run`]), then what each report's
/// [`check_format`] found: Ok when nothing disagrees.
pub(super) fn verdict(
    record: &RunRecord,
    results: &Results,
    exit_code: i32,
    per_format: Vec<Vec<Disagreement>>,
) -> Result<(), IntegrityError> {
    let mut found = check_run(record, results, exit_code);
    found.extend(per_format.into_iter().flatten());
    if found.is_empty() {
        Ok(())
    } else {
        Err(IntegrityError {
            disagreements: found,
        })
    }
}

fn read(path: &Path, found: &mut Vec<Disagreement>) -> Option<String> {
    match crate::untrusted::read_limited(path, super::REPORT_LIMIT) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => Some(s),
            Err(e) => {
                found.push(Disagreement::Unreadable {
                    path: path.to_path_buf(),
                    message: format!("not UTF-8: {e}"),
                });
                None
            }
        },
        Err(e) => {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
            None
        }
    }
}

pub(super) fn compare(
    found: &mut Vec<Disagreement>,
    path: &Path,
    what: &str,
    expected: impl ToString,
    actual: impl ToString,
) {
    let (expected, actual) = (expected.to_string(), actual.to_string());
    if expected != actual {
        found.push(Disagreement::Count {
            path: path.to_path_buf(),
            what: what.to_string(),
            expected,
            found: actual,
        });
    }
}

/// The result cell of each case's row, in declaration order, against
/// the case's result.
pub(super) fn result_cells<'a>(
    found: &mut Vec<Disagreement>,
    path: &Path,
    record: &RunRecord,
    cells: impl IntoIterator<Item = &'a str>,
) {
    for (got, case) in cells.into_iter().zip(&record.cases) {
        case_field(
            found,
            path,
            case,
            "the result cell",
            case.result.as_str(),
            got,
        );
    }
}

/// The all-clear phrase in a report of a run where a case did not pass.
pub(super) fn all_clear(
    found: &mut Vec<Disagreement>,
    path: &Path,
    record: &RunRecord,
    text: &str,
) {
    let counts = record.counts();
    if counts.passed != counts.total && text.contains(super::NO_ISSUES_PHRASE) {
        found.push(Disagreement::FalseAllClear {
            path: path.to_path_buf(),
        });
    }
}

/// `want` and `got` of one case's field, as a disagreement when they differ.
pub(super) fn case_field(
    found: &mut Vec<Disagreement>,
    path: &Path,
    case: &CaseRecord,
    what: &str,
    want: impl ToString,
    got: impl ToString,
) {
    let (want, got) = (want.to_string(), got.to_string());
    if want != got {
        found.push(Disagreement::Case {
            path: path.to_path_buf(),
            case: case.name.clone(),
            message: format!("{what} is {got}, the run record says {want}"),
        });
    }
}

/// A value as JSON text, for comparing with a JSON field.
pub(super) fn json_of(v: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or_default()
}
