//! verify-evidence over real artifact files.

use std::path::Path;

use cargo_golden::commands::verify::verify_evidence;
use cargo_golden::model::{CaseKind, CaseRecord, CaseResult, ExecutionStatus};
use cargo_golden::report::write_evidence;

use crate::support;

/// Write a case's artifacts as the engine does, then its evidence.json.
fn write_case(out_dir: &Path, case: &CaseRecord, stdout: &[u8], stderr: &[u8]) {
    let a = case.artifacts.as_ref().unwrap();
    std::fs::create_dir_all(out_dir.join(&a.command).parent().unwrap()).unwrap();
    std::fs::write(out_dir.join(&a.command), &case.raw_command).unwrap();
    std::fs::write(out_dir.join(&a.stdout), stdout).unwrap();
    std::fs::write(out_dir.join(&a.stderr), stderr).unwrap();
    write_evidence(case, out_dir).unwrap();
}

fn passing_case(index: usize, name: &str, stdout: &[u8]) -> CaseRecord {
    support::ran(
        index,
        name,
        CaseKind::Golden,
        "sh run.sh --flag 'a b'",
        0,
        stdout,
        b"warn: x\n",
        ExecutionStatus::Success,
        CaseResult::Passed,
    )
}

#[test]
fn intact_evidence_verifies_from_out_run_and_case_dirs() {
    let dir = tempfile::tempdir().unwrap();
    // Several 64 KiB buffers' worth, so the streamed hash crosses reads.
    let big: Vec<u8> = (0..300_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let case = passing_case(0, "etl", &big);
    write_case(dir.path(), &case, &big, b"warn: x\n");
    let other = passing_case(1, "second", b"ok\n");
    write_case(dir.path(), &other, b"ok\n", b"warn: x\n");
    let missing = support::no_evidence(2, "missing", CaseKind::Golden, "no such path");
    let mut missing = missing;
    missing.artifacts = Some(support::artifacts(2, "missing"));
    write_evidence(&missing, dir.path()).unwrap();

    let report = verify_evidence(dir.path()).unwrap();
    assert!(report.is_ok(), "{report}");
    let names: Vec<_> = report.verified.iter().map(|c| c.case.as_str()).collect();
    assert_eq!(names, ["etl", "second"]);
    assert_eq!(report.not_checked.len(), 1);
    assert_eq!(report.not_checked[0].case, "missing");

    let run_dir = dir.path().join("artifacts").join(support::RUN_ID);
    assert_eq!(verify_evidence(&run_dir).unwrap().verified.len(), 2);
    let case_dir = dir
        .path()
        .join(case.artifacts.as_ref().unwrap().evidence.as_str())
        .parent()
        .unwrap()
        .to_path_buf();
    let one = verify_evidence(&case_dir).unwrap();
    assert_eq!(one.verified.len(), 1);
    assert_eq!(one.verified[0].case, "etl");
}

#[test]
fn tampered_stdout_names_the_case() {
    let dir = tempfile::tempdir().unwrap();
    let case = passing_case(0, "etl", b"rows: 12\n");
    write_case(dir.path(), &case, b"rows: 12\n", b"warn: x\n");
    let other = passing_case(1, "untouched", b"ok\n");
    write_case(dir.path(), &other, b"ok\n", b"warn: x\n");
    assert!(verify_evidence(dir.path()).unwrap().is_ok());

    let stdout = dir.path().join(&case.artifacts.as_ref().unwrap().stdout);
    std::fs::write(&stdout, b"rows: 13\n").unwrap();
    let report = verify_evidence(dir.path()).unwrap();
    assert!(!report.is_ok());
    assert_eq!(report.mismatches.len(), 1);
    let m = &report.mismatches[0];
    assert_eq!(m.case, "etl");
    assert!(
        m.problems[0].starts_with("evidence hash differs: recorded "),
        "{m}"
    );
    assert!(
        m.problems
            .contains(&"stdout.log differs from the recorded stdout".to_string()),
        "{m}"
    );
    assert_eq!(report.verified.len(), 1);
    assert_eq!(report.verified[0].case, "untouched");
    assert!(
        report
            .to_string()
            .contains("MISMATCH     etl: evidence hash differs")
    );
}

#[test]
fn tampered_command_and_missing_file_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let case = passing_case(0, "etl", b"x");
    write_case(dir.path(), &case, b"x", b"warn: x\n");
    let a = case.artifacts.as_ref().unwrap();
    std::fs::write(dir.path().join(&a.command), "sh other.sh").unwrap();
    let report = verify_evidence(dir.path()).unwrap();
    assert!(
        report.mismatches[0]
            .problems
            .contains(&"command.txt differs from raw_command".to_string()),
        "{report}"
    );

    std::fs::remove_file(dir.path().join(&a.stderr)).unwrap();
    let report = verify_evidence(dir.path()).unwrap();
    assert_eq!(report.mismatches[0].problems.len(), 1);
    assert!(
        report.mismatches[0].problems[0].starts_with("stderr.log is missing ("),
        "{report}"
    );
}

#[test]
fn tampered_exit_code_in_evidence_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let case = passing_case(0, "etl", b"x");
    write_case(dir.path(), &case, b"x", b"warn: x\n");
    let ev = dir.path().join(&case.artifacts.as_ref().unwrap().evidence);
    let text = std::fs::read_to_string(&ev).unwrap();
    std::fs::write(&ev, text.replace("\"exit_code\": 0", "\"exit_code\": 1")).unwrap();
    let report = verify_evidence(dir.path()).unwrap();
    assert_eq!(report.mismatches.len(), 1, "{report}");
}

#[test]
fn nothing_to_verify_is_not_ok() {
    let dir = tempfile::tempdir().unwrap();
    let report = verify_evidence(dir.path()).unwrap();
    assert!(!report.is_ok());
    assert!(report.to_string().contains("no evidence.json found"));
    assert!(verify_evidence(&dir.path().join("nope")).is_err());
}

#[test]
fn unreadable_evidence_is_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("evidence.json"), "{not json").unwrap();
    let report = verify_evidence(dir.path()).unwrap();
    assert_eq!(report.mismatches.len(), 1);
    assert!(report.mismatches[0].problems[0].starts_with("evidence.json cannot be read"));
}
