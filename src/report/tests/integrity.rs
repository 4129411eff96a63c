//! check_integrity: consistent reports pass; any report, record or exit
//! code that disagrees is named.

use crate::model::JunitFlavour;
use crate::report::{Disagreement, check_integrity, expected_exit_code, write_all};
use crate::report::{JUNIT_FILE, MARKDOWN_FILE, OBSERVATIONS_FILE, SUMMARY_FILE};

use super::support;

fn tamper(path: &std::path::Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn consistent_run_passes() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    write_all(&record, "harness.toml").unwrap();
    assert_eq!(expected_exit_code(&record), 1);
    check_integrity(&record, 1).unwrap();

    let hostile = support::hostile(dir.path());
    write_all(&hostile, "harness.toml").unwrap();
    check_integrity(&hostile, 1).unwrap();
}

#[test]
fn both_junit_flavours_pass_and_strict_counts_are_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    for flavour in [JunitFlavour::Rich, JunitFlavour::Strict] {
        for mut record in [support::fixed(dir.path()), support::hostile(dir.path())] {
            record.junit = flavour;
            write_all(&record, "harness.toml").unwrap();
            check_integrity(&record, 1).unwrap_or_else(|e| panic!("{flavour:?}: {e}"));
        }
    }

    // Strict has no testsuites@skipped, so the testsuite's must hold.
    let mut record = support::fixed(dir.path());
    record.junit = JunitFlavour::Strict;
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(written.path(JUNIT_FILE), "skipped=\"1\"", "skipped=\"0\"");
    let err = check_integrity(&record, 1).unwrap_err();
    assert_eq!(
        err.disagreements,
        [Disagreement::Count {
            path: written.path(JUNIT_FILE).to_path_buf(),
            what: "<testsuite> skipped".into(),
            expected: "1".into(),
            found: "0".into(),
        }]
    );
}

#[test]
fn all_passed_run_passes_with_exit_zero() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record
        .cases
        .retain(|c| c.result == crate::model::CaseResult::Passed);
    write_all(&record, "harness.toml").unwrap();
    check_integrity(&record, 0).unwrap();
    let err = check_integrity(&record, 1).unwrap_err();
    assert_eq!(
        err.disagreements,
        [Disagreement::ExitCode {
            expected: 0,
            found: 1
        }]
    );
}

#[test]
fn interrupted_run_must_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record.interrupted = true;
    write_all(&record, "harness.toml").unwrap();
    check_integrity(&record, 3).unwrap();
    let err = check_integrity(&record, 1).unwrap_err();
    assert!(
        err.to_string()
            .contains("exit code would be 1, the results call for 3"),
        "{err}"
    );
}

#[test]
fn corrupted_junit_counts_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(written.path(JUNIT_FILE), "<failure ", "<skipped ");
    tamper(written.path(JUNIT_FILE), "</failure>", "</skipped>");
    let err = check_integrity(&record, 1).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("junit.xml: testcases with <failure> is 0, the run record says 1"),
        "{msg}"
    );
    assert!(
        msg.contains("junit.xml: testcases with <skipped> is 2, the run record says 1"),
        "{msg}"
    );
}

#[test]
fn corrupted_junit_suite_attribute_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(written.path(JUNIT_FILE), "failures=\"1\"", "failures=\"0\"");
    let msg = check_integrity(&record, 1).unwrap_err().to_string();
    assert!(
        msg.contains("<testsuites> failures is 0, the run record says 1"),
        "{msg}"
    );
}

#[test]
fn malformed_junit_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(written.path(JUNIT_FILE), "</testsuites>", "");
    let msg = check_integrity(&record, 1).unwrap_err().to_string();
    assert!(
        msg.contains("junit.xml: cannot be read back: not well-formed XML"),
        "{msg}"
    );
}

#[test]
fn failed_case_without_issue_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record.cases[1].issues.clear();
    write_all(&record, "harness.toml").unwrap();
    let err = check_integrity(&record, 1).unwrap_err();
    assert_eq!(
        err.disagreements,
        [Disagreement::MissingIssue {
            case: "workspace builds".to_string(),
            result: crate::model::CaseResult::Failed,
        }]
    );
    assert!(
        err.to_string()
            .contains("case \"workspace builds\" is FAILED but has no issue")
    );
}

#[test]
fn false_all_clear_in_markdown_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(
        written.path(MARKDOWN_FILE),
        "## Issues\n",
        "## Issues\n\nNo issues observed.\n",
    );
    let msg = check_integrity(&record, 1).unwrap_err().to_string();
    assert!(
        msg.contains("report.md: says \"No issues observed\" although not every case passed"),
        "{msg}"
    );
}

#[test]
fn markdown_counts_and_rows_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(written.path(MARKDOWN_FILE), "· failed 1 ·", "· failed 0 ·");
    tamper(
        written.path(MARKDOWN_FILE),
        "| ❌ FAILED |",
        "| ✅ PASSED |",
    );
    let msg = check_integrity(&record, 1).unwrap_err().to_string();
    assert!(msg.contains("report.md: counts line is"), "{msg}");
    assert!(
        msg.contains("report.md: results rows FAILED is 0, the run record says 1"),
        "{msg}"
    );
}

#[test]
fn summary_counts_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(written.path(SUMMARY_FILE), "\"failed\": 1", "\"failed\": 0");
    let msg = check_integrity(&record, 1).unwrap_err().to_string();
    assert!(msg.contains("summary.json: counts is"), "{msg}");
}

#[test]
fn missing_report_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    std::fs::remove_file(written.path(OBSERVATIONS_FILE)).unwrap();
    let msg = check_integrity(&record, 1).unwrap_err().to_string();
    assert!(
        msg.contains("observations.jsonl: cannot be read back"),
        "{msg}"
    );
}

#[test]
fn junit_case_order_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    tamper(
        written.path(JUNIT_FILE),
        "name=\"sales_daily_etl\"",
        "name=\"renamed\"",
    );
    let msg = check_integrity(&record, 1).unwrap_err().to_string();
    assert!(
        msg.contains("junit.xml: testcase names in order is"),
        "{msg}"
    );
}
