//! verify-evidence over a whole run written by the library: artifact files,
//! evidence, reports and the seal, then one thing changed at a time.

use std::path::Path;

use crate::commands::verify::verify_run;
use crate::model::{CaseKind, CaseRecord, CaseResult, ExecutionStatus, IssueType};
use crate::report::seal::seal;
use crate::report::{write_all, write_evidence};

use super::support;

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

/// A run of three cases: a large passing one, a failing one, one that could
/// not run; reports written and sealed. Returns its run dir.
fn run(out: &Path) -> std::path::PathBuf {
    // Several read buffers' worth, so the streamed hash crosses reads.
    let big: Vec<u8> = (0..300_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let etl = passing_case(0, "etl", &big);
    write_case(out, &etl, &big, b"warn: x\n");
    let mut boom = support::ran(
        1,
        "boom",
        CaseKind::Verify,
        "exit 1",
        1,
        b"",
        b"boom\n",
        ExecutionStatus::RuntimeFailed,
        CaseResult::Failed,
    );
    boom.issues.push(support::issue(
        "boom",
        CaseKind::Verify,
        IssueType::ExecutionFailure,
        "Command exited with code 1",
        "Status: RUNTIME_FAILED | Exit code: 1 | Output: boom",
    ));
    write_case(out, &boom, b"", b"boom\n");
    let mut missing = support::no_evidence(2, "missing", CaseKind::Golden, "no such path");
    missing.artifacts = Some(support::artifacts(2, "missing"));
    write_evidence(&missing, out).unwrap();
    let record = support::record(out, vec![etl, boom, missing]);
    write_all(&record, "harness.toml").unwrap();
    seal(&record, None).unwrap()
}

#[test]
fn an_intact_run_verifies_from_its_out_dir_and_its_run_dir() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = run(dir.path());
    for d in [dir.path(), run_dir.as_path()] {
        let report = verify_run(d, None).unwrap();
        assert!(report.is_ok(), "{report}");
        let names: Vec<_> = report.verified.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(names, ["etl", "boom"]);
        assert_eq!(report.without_evidence, ["missing"]);
        assert_eq!(report.run_id, support::RUN_ID);
        let text = report.to_string();
        assert!(
            text.starts_with(&format!("run {}", support::RUN_ID)),
            "{text}"
        );
        assert!(text.contains("final status PARTIAL"), "{text}");
    }
}

#[test]
fn a_tampered_log_names_the_case_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = run(dir.path());
    std::fs::write(run_dir.join("execution/002-boom/stderr.log"), b"fine\n").unwrap();
    let report = verify_run(dir.path(), None).unwrap();
    assert!(!report.is_ok());
    let text = report.to_string();
    for want in [
        "case \"boom\": execution/002-boom/evidence.json: evidence hash differs: recorded ",
        "case \"boom\": execution/002-boom/evidence.json: stderr.log differs from the recorded stderr",
        "case \"boom\": execution/002-boom/stderr.log: changed: SHA256SUMS records sha256 ",
        "MISMATCH     boom",
        "verified     etl",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.case.as_deref() == Some("boom")),
        "{report}"
    );
}

#[test]
fn a_missing_log_and_a_changed_exit_code_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = run(dir.path());
    std::fs::remove_file(run_dir.join("execution/001-etl/stderr.log")).unwrap();
    let text = verify_run(dir.path(), None).unwrap().to_string();
    assert!(
        text.contains("case \"etl\": execution/001-etl/evidence.json: stderr.log is missing"),
        "{text}"
    );

    let dir = tempfile::tempdir().unwrap();
    let run_dir = run(dir.path());
    let ev = run_dir.join("execution/002-boom/evidence.json");
    let text = std::fs::read_to_string(&ev).unwrap();
    std::fs::write(&ev, text.replace("\"exit_code\": 1", "\"exit_code\": 0")).unwrap();
    let report = verify_run(dir.path(), None).unwrap();
    let text = report.to_string();
    assert!(
        text.contains("case \"boom\": execution/002-boom/evidence.json: evidence hash differs"),
        "{text}"
    );
    assert!(
        text.contains("status is FAILURE, but the exit code 0 calls for SUCCESS"),
        "{text}"
    );
}

#[test]
fn a_dir_that_is_not_a_run_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = verify_run(dir.path(), None).unwrap_err();
    assert!(err.to_string().contains("neither an out dir"), "{err}");
    assert!(verify_run(&dir.path().join("nope"), None).is_err());
}

#[test]
fn unreadable_evidence_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = run(dir.path());
    std::fs::write(run_dir.join("execution/001-etl/evidence.json"), "{not json").unwrap();
    let report = verify_run(dir.path(), None).unwrap();
    assert!(
        report.to_string().contains(
            "case \"etl\": execution/001-etl/evidence.json: evidence.json is not valid evidence"
        ),
        "{report}"
    );
}
