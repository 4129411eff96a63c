//! What a file report is: a [`Format`] renders one file of the out dir
//! from the run and checks that file, read back, against the run. Writing
//! ([`super::write_all`]), the integrity check and the seal
//! (`SHA256SUMS`) loop over the registered formats ([`super::FORMATS`]),
//! so a new format is its own file and one registration line.

use std::fmt;
use std::path::{Path, PathBuf};

use super::NO_ISSUES_PHRASE;
use crate::conclusion::Results;
use crate::model::{CaseResult, RunRecord};

/// Why a format could not render its file.
pub(crate) type RenderError = Box<dyn std::error::Error + Send + Sync>;

/// What every file report is rendered from and checked against: the
/// record and its results (concluded once, before any file is written).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunView<'a> {
    /// The whole run.
    pub(crate) record: &'a RunRecord,
    /// Its final status and the exit code the results call for.
    pub(crate) results: &'a Results,
    /// The out dir's history of earlier runs, oldest first, for the
    /// reports that chart it; empty when checking.
    pub(crate) history: &'a [crate::wire::history::HistoryLine],
}

/// One file report of the out dir.
pub(crate) trait Format: Sync {
    /// The file's name in the out dir, and of its sealed copy in the run
    /// dir.
    fn file_name(&self) -> &'static str;

    /// The file's content; `harness_display` is how the reports name the
    /// harness file, e.g. relative to the workspace root.
    fn render(&self, run: &RunView<'_>, harness_display: &str) -> Result<String, RenderError>;

    /// Check the file as read back against the run; push every
    /// disagreement onto `found`.
    fn check(&self, file: &ReadBack<'_>, found: &mut Vec<Disagreement>);

    /// Whether a run sealed by an earlier cargo-golden may lack the file:
    /// then its absence is no disagreement. (Its run's `SHA256SUMS` says
    /// whether it had one; a listed file that is gone is a finding there.)
    fn added_later(&self) -> bool {
        false
    }
}

/// A report file as read back, and what it is checked against.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadBack<'a> {
    /// The run it was rendered from.
    pub(crate) run: RunView<'a>,
    /// The exit code the run is about to use.
    pub(crate) exit_code: i32,
    /// Where it was read from.
    pub(crate) path: &'a Path,
    /// Its text.
    pub(crate) text: &'a str,
}

/// One thing the reports, the record or the exit code disagree on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Disagreement {
    /// A report file could not be read or parsed.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A number in a report differs from the record.
    Count {
        /// The file.
        path: PathBuf,
        /// What was counted, e.g. `failure elements`.
        what: String,
        /// What the record says.
        expected: String,
        /// What the file says.
        found: String,
    },
    /// The exit code does not follow from the results.
    ExitCode {
        /// What the results call for.
        expected: i32,
        /// What the run is about to exit with.
        found: i32,
    },
    /// A FAILED or ERROR case has no issue.
    MissingIssue {
        /// The case.
        case: String,
        /// Its result.
        result: CaseResult,
    },
    /// The all-clear phrase appears although not every case passed.
    FalseAllClear {
        /// The file.
        path: PathBuf,
    },
    /// The test-result attestation differs from the record, the exit code,
    /// `SHA256SUMS` or its own envelope.
    Attestation {
        /// The statement file.
        path: PathBuf,
        /// What differs.
        message: String,
    },
    /// What a report says of one case differs from the record.
    Case {
        /// The file.
        path: PathBuf,
        /// The case.
        case: String,
        /// What differs.
        message: String,
    },
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::Unreadable { path, message } => {
                write!(f, "{}: cannot be read back: {message}", path.display())
            }
            Disagreement::Count {
                path,
                what,
                expected,
                found,
            } => write!(
                f,
                "{}: {what} is {found}, the run record says {expected}",
                path.display()
            ),
            Disagreement::ExitCode { expected, found } => write!(
                f,
                "exit code would be {found}, the results call for {expected}"
            ),
            Disagreement::MissingIssue { case, result } => {
                write!(f, "case {case:?} is {} but has no issue", result.as_str())
            }
            Disagreement::Case {
                path,
                case,
                message,
            } => write!(f, "{}: case {case:?}: {message}", path.display()),
            Disagreement::Attestation { path, message } => {
                write!(f, "{}: {message}", path.display())
            }
            Disagreement::FalseAllClear { path } => write!(
                f,
                "{}: says {NO_ISSUES_PHRASE:?} although not every case passed",
                path.display()
            ),
        }
    }
}
