//! Rendering cost: every file report (junit.xml, report.md, summary.json,
//! observations.jsonl, report.html) plus the integrity check for 10,000 finished cases;
//! and what comparing them with a 10,000-entry baseline adds to that (the
//! comparison itself, then the reports rendering and checking it).
//!
//! `cargo bench --bench reports` prints `reports_10000_ms=<median>`,
//! `baseline_compare_10000_ms=<what the comparison adds to it>` and
//! `baseline_compare_only_10000_ms=<the comparison alone>`; `bench/run.py`
//! puts them in its table. Nothing here asserts on time.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cargo_golden::_support::Artifacts;
use cargo_golden::_support::Gate;
use cargo_golden::_support::{BaselineEntry, BaselineFile, SnapshotRedactor};
use cargo_golden::_support::{
    CaseKind, CaseRecord, CaseResult, EvidenceStatus, ExecutionStatus, Issue, IssueType, RunRecord,
    Severity, Stage,
};
use cargo_golden::_support::{Comparison, Observed, Settings};

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
    c.started_at = Some(cargo_golden::_support::Timestamp::now());
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
    c.evidence_hash = Some(cargo_golden::_support::sha256_hex(name.as_bytes()));
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

/// A baseline that knows every case: most as they are now, every 7th
/// passing case as failing (fixed), every 20th failing one with another
/// signature, every 11th much faster (slower now).
fn baseline(record: &RunRecord) -> BaselineFile {
    let cases = record
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| BaselineEntry {
            name: c.name.clone(),
            kind: Some(c.kind),
            result: if i % 7 == 1 {
                CaseResult::Failed
            } else {
                c.result
            },
            signature: if c.result.is_failure() && i % 20 != 0 {
                Some("EXECUTION_FAILURE: exit code 1".into())
            } else if c.result.is_failure() || i % 7 == 1 {
                Some("EXECUTION_FAILURE: another".into())
            } else {
                None
            },
            duration_seconds: if i % 11 == 0 { 0.001 } else { 0.012 },
        })
        .collect();
    BaselineFile {
        schema_version: "1.0.0".into(),
        suite: "bench".into(),
        cases,
    }
}

/// The comparison a run does before rendering: every case's verdict
/// (signatures redacted) against the baseline.
fn compare(record: &RunRecord, base: &BaselineFile) -> Comparison {
    let root = record.harness_path.parent().expect("a harness dir");
    let observed: Vec<Observed<'_>> = record
        .cases
        .iter()
        .map(|c| Observed {
            name: &c.name,
            kind: c.kind,
            line: c.line,
            verdict: cargo_golden::_support::verdict(
                c,
                &SnapshotRedactor::new(root, &c.working_dir, &record.run_id, &[]),
            ),
        })
        .collect();
    let settings = Settings {
        file: "golden-baseline.json".into(),
        gate: Gate::Baseline,
        slowdown: 2.0,
        typical: Default::default(),
    };
    let all = |_: &str| true;
    cargo_golden::_support::compare(Some(base), &observed, Some(&all), &settings)
}

/// Timings per figure; the median is reported.
const RUNS: usize = 7;

fn timed(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

fn middle(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Median of [`RUNS`] timings of `f`.
fn median(mut f: impl FnMut()) -> Duration {
    middle((0..RUNS).map(|_| timed(&mut f)).collect())
}

fn render(record: &RunRecord) {
    let code = cargo_golden::_support::expected_exit_code(record);
    cargo_golden::_support::write_all(record, "harness.toml").expect("reports");
    cargo_golden::_support::check_integrity(record, code).expect("integrity");
}

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = RunRecord {
        run_id: "bench".into(),
        suite_name: "bench".into(),
        harness_path: dir.path().join("harness.toml"),
        harness_sha256: "0".repeat(64),
        out_dir: dir.path().to_path_buf(),
        started_at: cargo_golden::_support::Timestamp::now(),
        hostname: "bench-host".into(),
        junit: cargo_golden::_support::JunitFlavour::Rich,
        jobs: 1,
        duration: Duration::from_secs(120),
        cases: (0..10_000).map(case).collect(),
        partition: None,
        declared_cases: 10_000,
        interrupted: false,
        warnings: Vec::new(),
        empty_selection: None,
        baseline: None,
    };
    let base = baseline(&record);
    let alone = median(|| {
        std::hint::black_box(compare(&record, &base));
    });
    // Alternated, so a noisy neighbour slows both sides alike.
    let mut compared = record.clone();
    let (mut plain, mut with) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        plain.push(timed(|| render(&record)));
        with.push(timed(|| {
            compared.baseline = Some(compare(&record, &base));
            render(&compared);
        }));
    }
    // The median of the paired differences: each pair ran back to back.
    let mut added: Vec<f64> = with
        .iter()
        .zip(&plain)
        .map(|(w, p)| w.as_secs_f64() - p.as_secs_f64())
        .collect();
    added.sort_by(f64::total_cmp);
    let added = added[added.len() / 2];
    println!(
        "reports_10000_ms={:.1}",
        middle(plain).as_secs_f64() * 1000.0
    );
    // Signed: on a noisy machine a difference can dip below zero, and
    // hiding that would overstate the precision.
    println!("baseline_compare_10000_ms={:.1}", added * 1000.0);
    println!(
        "baseline_compare_only_10000_ms={:.1}",
        alone.as_secs_f64() * 1000.0
    );
}
