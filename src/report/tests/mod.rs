//! Report tests: the files written for a run, read back with real parsers;
//! snapshots of every format; observation validation; evidence
//! verification; the streaming reporters.

mod attestation;
// It drives a subcommand or a reporter of the command line.
#[cfg(feature = "cli")]
mod files;
mod integrity;
mod properties;
// It drives a subcommand or a reporter of the command line.
#[cfg(feature = "cli")]
mod reporters;
mod snapshots;
mod support;
// It drives a subcommand or a reporter of the command line.
#[cfg(feature = "cli")]
mod validate;
// It drives a subcommand or a reporter of the command line.
#[cfg(feature = "cli")]
mod verify;

// The strict JUnit schema's rules, shared with the integration tests.
#[allow(unreachable_pub)]
#[path = "../../../tests/it/common/xunit.rs"]
mod xunit;

use super::*;

#[test]
fn reports_that_disagree_are_left_in_place_listed_and_not_sealed() {
    let dir = tempfile::tempdir().unwrap();
    let record = attest::tests::record(dir.path());
    let mut fanout = crate::events::Fanout::with_diagnostics(Box::new(std::io::sink()));
    let finished = finish(&record, "harness.toml", &mut fanout, None);
    assert_eq!(finished.outcome.reports, Reports::Disagree);
    assert!(
        matches!(&finished.problem, Some(FinishError::Integrity(e))
            if e.to_string().contains("has no issue")),
        "{:?}",
        finished.problem
    );
    let all = Written::in_dir(dir.path());
    assert_eq!(finished.outcome.written, all.paths());
    assert!(all.paths().iter().all(|p| p.is_file()));
    let run_dir = dir.path().join(crate::layout::run_dir(&record.run_id));
    assert!(!run_dir.join(crate::layout::SUMS_FILE).exists());
}
