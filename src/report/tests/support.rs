//! Run records for the report tests: a small fixed one for snapshots and a
//! hostile one whose names, commands and outputs try to break every format.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::hash::evidence_hash;
use crate::layout::Artifacts;
use crate::layout::case_slug;
use crate::model::{
    CaseKind, CaseRecord, CaseResult, EvidenceStatus, ExecutionStatus, Issue, IssueType,
    JunitFlavour, RunRecord, Severity, Stage,
};
use crate::report::github::STEP_SUMMARY_LIMIT;

pub(super) const RUN_ID: &str = "20251121T230700Z-0001";
pub(super) const HOSTNAME: &str = "ci-runner-7";
pub(super) const T0_NS: i128 = 1_763_766_420_000_000_000;

pub(super) fn ts(offset_ms: i64) -> crate::time::Timestamp {
    crate::time::Timestamp::from_nanosecond(T0_NS + i128::from(offset_ms) * 1_000_000).unwrap()
}

pub(super) fn artifacts(index: usize, name: &str) -> Artifacts {
    let dir = format!("artifacts/{RUN_ID}/execution/{}", case_slug(index, name));
    Artifacts {
        command: format!("{dir}/command.txt"),
        stdout: format!("{dir}/stdout.log"),
        stderr: format!("{dir}/stderr.log"),
        evidence: format!("{dir}/evidence.json"),
    }
}

pub(super) fn issue(
    case: &str,
    kind: CaseKind,
    t: IssueType,
    message: &str,
    evidence: &str,
) -> Issue {
    Issue {
        issue_type: t,
        case: case.to_string(),
        kind,
        stage: if t == IssueType::ConfigurationError {
            Stage::ConfigValidation
        } else {
            Stage::Execution
        },
        severity: if kind == CaseKind::Golden {
            Severity::High
        } else {
            Severity::Medium
        },
        message: message.to_string(),
        evidence: evidence.to_string(),
    }
}

/// A case that ran, with its evidence hash over the given outputs.
#[allow(clippy::too_many_arguments)]
pub(super) fn ran(
    index: usize,
    name: &str,
    kind: CaseKind,
    command: &str,
    exit: i32,
    stdout: &[u8],
    stderr: &[u8],
    execution_status: ExecutionStatus,
    result: CaseResult,
) -> CaseRecord {
    let start = i64::try_from(index).unwrap() * 1000;
    CaseRecord {
        index,
        name: name.to_string(),
        kind,
        line: 10 + index * 6,
        description: None,
        raw_command: command.to_string(),
        working_dir: PathBuf::from("/project/golden"),
        exit_code: Some(exit),
        signal: crate::model::shell_signal(exit),
        stdout: stdout.to_vec(),
        stderr: stderr.to_vec(),
        stdout_end: None,
        stderr_end: None,
        started_at: Some(ts(start)),
        finished_at: Some(ts(start + 250)),
        duration: Duration::from_millis(250),
        status: if exit == 0 {
            EvidenceStatus::Success
        } else {
            EvidenceStatus::Failure
        },
        execution_status,
        result,
        evidence_hash: Some(evidence_hash(command, stdout, stderr, Some(exit))),
        redactions: Default::default(),
        issues: Vec::new(),
        run_issues: 0,
        validation_errors: Vec::new(),
        artifacts: Some(artifacts(index, name)),
        warnings: Vec::new(),
        reason: None,
        flaky: false,
        previous_attempts: Vec::new(),
        expected: "success".to_string(),
        timed_out: false,
        interrupted: false,
        snapshots: Vec::new(),
        golden_changes: None,
        structured_result: None,
        quarantine: None,
        marked_lines: [Vec::new(), Vec::new()],
    }
}

pub(super) fn no_evidence(index: usize, name: &str, kind: CaseKind, reason: &str) -> CaseRecord {
    let mut c = CaseRecord::skipped(
        index,
        name,
        kind,
        10 + index * 6,
        "sh run.sh",
        PathBuf::from("/project/missing"),
        reason,
    );
    c.execution_status = ExecutionStatus::RuntimeFailed;
    c.result = CaseResult::Error;
    c.issues.push(issue(
        name,
        kind,
        IssueType::ExecutionError,
        reason,
        "Status: NO_EVIDENCE | Exit code: none | Output: ",
    ));
    c
}

pub(super) fn record(out_dir: &Path, cases: Vec<CaseRecord>) -> RunRecord {
    let declared = cases.len();
    RunRecord {
        run_id: RUN_ID.to_string(),
        suite_name: "demo".to_string(),
        harness_path: PathBuf::from("/project/harness.toml"),
        harness_sha256: "ab".repeat(32),
        out_dir: out_dir.to_path_buf(),
        started_at: ts(0),
        hostname: HOSTNAME.to_string(),
        junit: JunitFlavour::Rich,
        jobs: 1,
        duration: Duration::from_millis(5_432),
        cases,
        partition: None,
        declared_cases: declared,
        interrupted: false,
        warnings: Vec::new(),
        empty_selection: None,
        baseline: None,
    }
}

/// Five cases covering every result: passed, failed, error, skipped and a
/// flaky pass.
pub(super) fn fixed(out_dir: &Path) -> RunRecord {
    let passed = ran(
        0,
        "sales_daily_etl",
        CaseKind::Golden,
        "odibi run golden/sales_daily_etl",
        0,
        b"loaded 12 rows\nok\n",
        b"",
        ExecutionStatus::Success,
        CaseResult::Passed,
    );

    let mut failed = ran(
        1,
        "workspace builds",
        CaseKind::Verify,
        "cargo build --locked",
        101,
        b"Compiling demo\n",
        b"error[E0425]: cannot find value `x`\nerror: could not compile `demo`\n",
        ExecutionStatus::RuntimeFailed,
        CaseResult::Failed,
    );
    failed.issues.push(issue(
        "workspace builds",
        CaseKind::Verify,
        IssueType::ExecutionFailure,
        "Command exited with code 101",
        "Status: RUNTIME_FAILED | Exit code: 101 | Output: error: could not compile `demo`",
    ));

    let error = no_evidence(
        2,
        "inventory",
        CaseKind::Golden,
        "golden path does not exist: golden/inventory",
    );

    let skipped = CaseRecord::skipped(
        3,
        "lint",
        CaseKind::Verify,
        28,
        "cargo clippy",
        PathBuf::from("/project"),
        "fail-fast: an earlier case failed",
    );

    let mut attempt = ran(
        4,
        "flaky api",
        CaseKind::Verify,
        "sh api.sh",
        1,
        b"",
        b"connection reset\n",
        ExecutionStatus::RuntimeFailed,
        CaseResult::Failed,
    );
    attempt.artifacts = Some(Artifacts {
        command: format!("artifacts/{RUN_ID}/execution/005-flaky_api-attempt-1/command.txt"),
        stdout: format!("artifacts/{RUN_ID}/execution/005-flaky_api-attempt-1/stdout.log"),
        stderr: format!("artifacts/{RUN_ID}/execution/005-flaky_api-attempt-1/stderr.log"),
        evidence: format!("artifacts/{RUN_ID}/execution/005-flaky_api-attempt-1/evidence.json"),
    });
    attempt.issues.push(issue(
        "flaky api",
        CaseKind::Verify,
        IssueType::ExecutionFailure,
        "Command exited with code 1",
        "Status: RUNTIME_FAILED | Exit code: 1 | Output: connection reset",
    ));
    let mut flaky = ran(
        4,
        "flaky api",
        CaseKind::Verify,
        "sh api.sh",
        0,
        b"200 OK\n",
        b"",
        ExecutionStatus::Success,
        CaseResult::Passed,
    );
    flaky.flaky = true;
    flaky.previous_attempts.push(attempt);

    record(out_dir, vec![passed, failed, error, skipped, flaky])
}

/// The huge line, built once per call: big enough to find quadratic
/// escaping, and twice the largest limit a report applies (the GitHub step
/// summary's). Not bigger: the tests' debug build walks it in every report.
pub(super) fn huge_line() -> Vec<u8> {
    let mut v = b"x".repeat(2 * STEP_SUMMARY_LIMIT);
    v.push(b'\n');
    v
}

pub(super) const HOSTILE_NAME: &str =
    "a | b `code` <script>alert(1)</script>\nline2 & ]]> \u{FFFE}";

/// Cases whose names, commands and outputs hold everything that has broken
/// report writers before.
pub(super) fn hostile(out_dir: &Path) -> RunRecord {
    let mut stdout =
        b"\x1b[31mred\x1b[0m\0nul ]]> <tag> & \xef\xbf\xbe \xff\xfe invalid\ttab\r\n".to_vec();
    stdout.extend_from_slice(&huge_line());
    let stderr = b"Pipeline failed | `boom` \x07bell \x1b]0;title\x07 \xc3\x28\n".to_vec();

    let mut failed = ran(
        0,
        HOSTILE_NAME,
        CaseKind::Golden,
        "echo '| `x` <b>'\nprintf '%s' \"]]>\"",
        3,
        &stdout,
        &stderr,
        ExecutionStatus::RuntimeFailed,
        CaseResult::Failed,
    );
    failed.issues.push(issue(
        HOSTILE_NAME,
        CaseKind::Golden,
        IssueType::PipelineExecutionError,
        "Pipeline failed:\nline two | `x` <script> \x1b[1mbold\x1b[0m",
        "Status: RUNTIME_FAILED | Exit code: 3 | Output: ]]> \0",
    ));
    failed.warnings.push("leaked processes: <1234>".to_string());

    let passed = ran(
        1,
        "pipe|name\twith tab",
        CaseKind::Verify,
        "true | cat",
        0,
        b"No issues observed\n",
        b"",
        ExecutionStatus::Success,
        CaseResult::Passed,
    );
    let error = no_evidence(
        2,
        "`tick`",
        CaseKind::Verify,
        "cannot start: <denied> | \n retry",
    );
    let skipped = CaseRecord::skipped(
        3,
        "skip & <me>",
        CaseKind::Golden,
        40,
        "x",
        PathBuf::from("/p"),
        "filtered | out",
    );
    let mut r = record(out_dir, vec![failed, passed, error, skipped]);
    r.warnings
        .push("No golden project declared: nothing guards against regressions".to_string());
    r.partition = Some("count:1/2".to_string());
    r.declared_cases = 8;
    r
}
