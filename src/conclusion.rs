//! Exit codes (docs/command-line.md, Command line), in one place: every exit
//! code number of the crate is defined here, and every exit code a run ends
//! with is computed here.

use crate::model::{FinalStatus, RunRecord};

/// Every case passed.
pub(crate) const SUCCESS: i32 = 0;
/// A case failed or errored (or a report could not be written).
pub(crate) const FAILED: i32 = 1;
/// Usage or config error: nothing ran.
pub(crate) const USAGE: i32 = 2;
/// The run was interrupted.
pub(crate) const INTERRUPTED: i32 = 3;
/// The reports disagree with each other or with the exit code.
pub(crate) const INTEGRITY: i32 = 4;
/// No case ran: the filters or the partition selected nothing, or the
/// harness declares no case (under `--no-cases fail`, the default).
pub(crate) const NO_CASES: i32 = 5;
/// The libtest-mimic harness failed (libtest's own code for a failed run).
pub(crate) const LIBTEST_FAILED: i32 = 101;

/// The exit code a final status calls for: FAILURE (interrupted) exits 3,
/// FAILURE because no case ran 5, PARTIAL 1, SUCCESS 0.
pub(crate) fn for_status(status: FinalStatus) -> i32 {
    match status {
        FinalStatus::Success => SUCCESS,
        FinalStatus::Partial { .. } => FAILED,
        FinalStatus::Failure => INTERRUPTED,
        FinalStatus::NoCases => NO_CASES,
    }
}

/// The exit code of a run that found nothing to run before it began
/// (`--failed` after a run without failures), by `--no-cases`.
pub(crate) fn for_no_cases(policy: crate::model::NoCases) -> i32 {
    match policy {
        crate::model::NoCases::Fail => NO_CASES,
        crate::model::NoCases::Warn | crate::model::NoCases::Pass => SUCCESS,
    }
}

/// What a finished run's results call for, computed once before its
/// reports are written: the file reports show it, the integrity check
/// holds them to it, and [`RunOutcome`] starts from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Results {
    /// The final status (docs/reports.md, What a run leaves).
    pub(crate) status: FinalStatus,
    /// The exit code the results alone call for: the final status's; under
    /// `gate = "baseline"` (docs/baselines.md, The verdict baseline) the
    /// baseline comparison's instead (1 when it fails the gate, else 0),
    /// unless the run was interrupted or selected no case: those say so
    /// whatever the gate.
    pub(crate) exit_code: i32,
}

impl Results {
    /// The results of `record`.
    pub(crate) fn of(record: &RunRecord) -> Results {
        let status = record.final_status();
        let exit_code = match gated(record) {
            Some(c) if gate_applies(status) && c.passes_gate() => SUCCESS,
            Some(_) if gate_applies(status) => FAILED,
            _ => for_status(status),
        };
        Results { status, exit_code }
    }
}

/// How a run ended, once its reports are written and checked: computed
/// once ([`RunOutcome::new`]) and carried by the run-finished event, so
/// every reporter shows the same status, exit code and reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunOutcome {
    /// What the results call for.
    pub(crate) results: Results,
    /// What became of the reports.
    pub(crate) reports: Reports,
    /// The reports this run wrote and left in place, in the order written:
    /// none when they could not be written whole or were never written.
    pub(crate) written: Vec<std::path::PathBuf>,
    /// A bless was asked for and could not write what it blessed.
    pub(crate) bless_failed: bool,
    /// The exit code the process ends with.
    pub(crate) exit_code: i32,
}

impl RunOutcome {
    /// The outcome of a run whose results are `results`, whose reports
    /// ended as `reports` (`written` of them left in place) and whose
    /// bless, if one was asked for, failed or not: the one place where
    /// what happened after the results changes the exit code. An integrity
    /// violation exits 4; reports that could not be written, or a bless
    /// that could not write the baseline, turn a success into 1.
    pub(crate) fn new(
        results: Results,
        reports: Reports,
        written: Vec<std::path::PathBuf>,
        bless_failed: bool,
    ) -> RunOutcome {
        RunOutcome {
            results,
            reports,
            written,
            bless_failed,
            exit_code: combine(results.exit_code, reports, bless_failed),
        }
    }
}

/// The comparison when the run's exit code may follow it
/// (`gate = "baseline"`).
fn gated(record: &RunRecord) -> Option<&crate::model::Comparison> {
    record
        .baseline
        .as_ref()
        .filter(|c| c.gate == crate::config::Gate::Baseline)
}

/// Whether a run ending in `status` has its exit code decided by the
/// baseline gate: not when interrupted, nor when it selected no case.
pub(crate) fn gate_applies(status: FinalStatus) -> bool {
    !matches!(status, FinalStatus::Failure | FinalStatus::NoCases)
}

/// What became of a run's reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reports {
    /// Written, read back, and they agree with the record.
    Consistent,
    /// A report could not be written.
    NotWritten,
    /// Written, but they disagree with the record or each other.
    Disagree,
}

fn combine(results: i32, reports: Reports, bless_failed: bool) -> i32 {
    match reports {
        Reports::Disagree => INTEGRITY,
        Reports::NotWritten if results == SUCCESS => FAILED,
        Reports::Consistent if bless_failed && results == SUCCESS => FAILED,
        Reports::Consistent | Reports::NotWritten => results,
    }
}

/// The exit code of the libtest-mimic harness for the run in `record`:
/// under `gate = "baseline"` the run's own exit code decides (a known
/// failure fails its trial, yet passes the gate); otherwise
/// [`for_libtest`].
pub(crate) fn for_libtest_record(record: &RunRecord, tests_failed: bool, run: i32) -> i32 {
    for_libtest(tests_failed && gated(record).is_none(), run)
}

/// The exit code of the libtest-mimic harness: libtest's 101 when a test
/// failed or the run itself did not end in success, else 0.
pub(crate) fn for_libtest(tests_failed: bool, run: i32) -> i32 {
    if tests_failed || run != SUCCESS {
        LIBTEST_FAILED
    } else {
        SUCCESS
    }
}

/// An error with its causes, `outer: cause: root cause`: the one way an
/// error is shown to a person. Errors keep their cause out of their own
/// message (it is their `source`), so nothing is said twice.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// Print an error to stderr, the one way every front door does:
/// `error: outer: cause`, or, for configuration diagnostics (each line
/// already says `file:line:col: error:`), the lines as they are.
pub(crate) fn print_error(e: &(dyn std::error::Error + 'static), diagnostics: bool) {
    if diagnostics {
        eprintln!("{}", error_chain(e));
    } else {
        eprintln!("error: {}", error_chain(e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_problems_override_the_results_as_the_contract_says() {
        let ok = FinalStatus::Success;
        let partial = FinalStatus::Partial {
            failed: 1,
            golden_failed: 0,
        };
        assert_eq!(for_status(ok), SUCCESS);
        assert_eq!(for_status(partial), FAILED);
        assert_eq!(for_status(FinalStatus::Failure), INTERRUPTED);
        assert_eq!(for_status(FinalStatus::NoCases), NO_CASES);
        assert_eq!(combine(SUCCESS, Reports::Consistent, false), SUCCESS);
        assert_eq!(combine(SUCCESS, Reports::NotWritten, false), FAILED);
        assert_eq!(
            combine(INTERRUPTED, Reports::NotWritten, false),
            INTERRUPTED
        );
        assert_eq!(combine(FAILED, Reports::Disagree, false), INTEGRITY);
        assert_eq!(combine(SUCCESS, Reports::Consistent, true), FAILED);
        assert_eq!(combine(NO_CASES, Reports::Consistent, true), NO_CASES);
        assert_eq!(combine(SUCCESS, Reports::Disagree, true), INTEGRITY);
        assert_eq!(for_libtest(false, SUCCESS), SUCCESS);
        assert_eq!(for_libtest(true, SUCCESS), LIBTEST_FAILED);
        assert_eq!(for_libtest(false, INTEGRITY), LIBTEST_FAILED);
    }
}
