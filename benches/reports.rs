//! Rendering cost: every file report (junit.xml, report.md, summary.json,
//! observations.jsonl) plus the integrity check for 10,000 finished cases.
//!
//! `cargo bench --bench reports` prints `reports_10000_ms=<median>`;
//! `bench/run.py` puts it in its table. Nothing here asserts on time.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cargo_golden::layout::Artifacts;
use cargo_golden::model::{
    CaseKind, CaseRecord, CaseResult, EvidenceStatus, ExecutionStatus, Issue, IssueType, RunRecord,
    Severity, Stage,
};

fn case(i: usize) -> CaseRecord {
    let kind = if i.is_multiple_of(3) {
        CaseKind::Verify
    } else {
        CaseKind::Golden
    };
    let failed = i.is_multiple_of(10);
    let name = format!("case_{i:05}");
    let mut c = CaseRecord::skipped(
        i,
        &name,
        kind,
        3 + i * 4,
        "sh run.sh",
        PathBuf::from("/work/p"),
        "",
    );
    let rel = format!("artifacts/run/execution/{i:05}-{name}");
    c.reason = None;
    c.exit_code = Some(if failed { 1 } else { 0 });
    c.stdout = format!("processed {i} rows\nStatus: SUCCESS\n")
        .repeat(20)
        .into_bytes();
    c.stderr = b"warning: slow partition\n".to_vec();
    c.started_at = Some(jiff::Timestamp::now());
    c.finished_at = c.started_at;
    c.duration = Duration::from_millis(12);
    c.status = if failed {
        EvidenceStatus::Failure
    } else {
        EvidenceStatus::Success
    };
    c.execution_status = if failed {
        ExecutionStatus::RuntimeFailed
    } else {
        ExecutionStatus::Success
    };
    c.result = if failed {
        CaseResult::Failed
    } else {
        CaseResult::Passed
    };
    c.evidence_hash = Some(cargo_golden::hash::sha256_hex(name.as_bytes()));
    c.artifacts = Some(Artifacts {
        command: format!("{rel}/command.txt"),
        stdout: format!("{rel}/stdout.log"),
        stderr: format!("{rel}/stderr.log"),
        evidence: format!("{rel}/evidence.json"),
    });
    if failed {
        c.issues.push(Issue {
            issue_type: IssueType::ExecutionFailure,
            case: name,
            kind,
            stage: Stage::Execution,
            severity: Severity::High,
            message: "exit code 1".into(),
            evidence: "Status: RUNTIME_FAILED | Exit code: 1 | Output: boom".into(),
        });
    }
    c
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = RunRecord {
        run_id: "bench".into(),
        suite_name: "bench".into(),
        harness_path: dir.path().join("harness.toml"),
        harness_sha256: "0".repeat(64),
        out_dir: dir.path().to_path_buf(),
        started_at: jiff::Timestamp::now(),
        hostname: "bench-host".into(),
        junit: cargo_golden::model::JunitFlavour::Rich,
        duration: Duration::from_secs(120),
        cases: (0..10_000).map(case).collect(),
        partition: None,
        declared_cases: 10_000,
        interrupted: false,
        warnings: Vec::new(),
        empty_selection: None,
    };
    let code = cargo_golden::report::expected_exit_code(&record);
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        cargo_golden::report::write_all(&record, "harness.toml").expect("reports");
        cargo_golden::report::check_integrity(&record, code).expect("integrity");
        times.push(t.elapsed());
    }
    times.sort();
    println!("reports_10000_ms={:.1}", times[2].as_secs_f64() * 1000.0);
}
