//! The libtest-mimic front door: `cargo test --test golden` and
//! `cargo nextest run --test golden` run the declared cases through the
//! same engine, classifier and reporters as `cargo golden`.
//!
//! `tests/golden.rs`, with `[[test]] name = "golden" harness = false` in
//! Cargo.toml, is one line:
//!
//! ```text
//! fn main() { cargo_golden::harness::main() }
//! ```
//!
//! Under `cargo test` (one process for every case) the run writes the same
//! reports as the CLI into `<target dir>/golden`. Under nextest (one process
//! per case) each case writes its evidence into one shared run directory,
//! `artifacts/nextest-<run id>/`, and nextest's own JUnit carries the
//! results.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use libtest_mimic::{Arguments, Failed, Trial};

use crate::config::Harness;
use crate::events::Fanout;
use crate::model::{CaseRecord, CaseResult, RunRecord};
use crate::runner::interrupt::Interrupt;
use crate::runner::{self, Engine};

/// Environment variable naming another harness file.
pub const CONFIG_ENV: &str = "CARGO_GOLDEN_CONFIG";

/// Run the crate's `harness.toml` as a libtest-compatible test binary and
/// exit with libtest's codes (101 on failure).
pub fn main() -> ! {
    let args = Arguments::from_args();
    std::process::exit(run(args))
}

fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `<target dir>/golden`: `CARGO_TARGET_DIR`, else derived from this test
/// binary's path (`<target>/<profile>/deps/<binary>`).
fn default_out_dir(h: &Harness) -> PathBuf {
    if let Some(o) = &h.out_dir {
        return o.clone();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| crate::layout::absolute(Path::new(&t)))
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.parent()?.parent()?.to_path_buf())
        })
        .unwrap_or_else(|| h.base_dir.join("target"));
    target.join("golden")
}

/// Run with parsed libtest arguments; returns the exit code.
pub fn run(mut args: Arguments) -> i32 {
    let file = std::env::var_os(CONFIG_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join("harness.toml"));
    // The declarations live as long as this test binary: leaking them lets
    // every trial share one engine (patterns compiled once) without copies.
    let harness: &'static Harness =
        match Harness::load(&file, None).and_then(|h| h.check_required_golden().map(|()| h)) {
            Ok(h) => Box::leak(Box::new(h)),
            Err(e) => {
                eprintln!("error: {e}");
                return 101;
            }
        };
    // One case at a time unless asked: declaration order is the contract.
    if args.test_threads.is_none() {
        args.test_threads = Some(1);
    }
    let nextest_run = std::env::var("NEXTEST_RUN_ID")
        .ok()
        .filter(|_| std::env::var_os("NEXTEST").is_some());
    let out_dir = default_out_dir(harness);
    let run_id = match &nextest_run {
        Some(id) => format!("nextest-{id}"),
        None => crate::layout::new_run_id(),
    };
    let interrupt = if args.list {
        None
    } else {
        Interrupt::install().ok()
    };
    let engine = match Engine::new(harness, &out_dir, Some(run_id.clone()), interrupt.clone()) {
        Ok(e) => Arc::new(e),
        Err(e) => {
            eprintln!("error: {e}");
            return 101;
        }
    };
    let results: Arc<Mutex<Vec<Option<CaseRecord>>>> =
        Arc::new(Mutex::new(vec![None; harness.cases.len()]));

    let trials: Vec<Trial> = harness
        .cases
        .iter()
        .map(|case| {
            let (engine, results, interrupt) =
                (Arc::clone(&engine), Arc::clone(&results), interrupt.clone());
            let index = case.index;
            Trial::test(case.name.clone(), move || {
                if interrupt.as_ref().is_some_and(|i| i.requested()) {
                    return Err("skipped: the run was interrupted".into());
                }
                let rec = engine.run_case(&harness.cases[index]);
                let verdict = describe_failure(&rec);
                results.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(rec);
                verdict
            })
        })
        .collect();
    let selected: Vec<bool> = trials
        .iter()
        .map(|t| !args.is_filtered_out(t) && !args.is_ignored(t))
        .collect();

    let started_at = jiff::Timestamp::now();
    let clock = Instant::now();
    let conclusion = libtest_mimic::run(&args, trials);
    if args.list || nextest_run.is_some() {
        // Under nextest each process holds one case; its evidence is in the
        // shared run directory and nextest reports the results.
        return i32::from(conclusion.has_failed()) * 101;
    }

    let results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    let cases: Vec<CaseRecord> = harness
        .cases
        .iter()
        .zip(results)
        .zip(&selected)
        .map(|((def, rec), sel)| {
            rec.unwrap_or_else(|| {
                let why = if *sel {
                    "the run was interrupted"
                } else {
                    "filtered out"
                };
                runner::skipped_record(def, why)
            })
        })
        .collect();
    let record = RunRecord {
        run_id,
        suite_name: harness.name.clone(),
        harness_path: harness.file.clone().unwrap_or_default(),
        harness_sha256: harness.sha256.clone(),
        out_dir: out_dir.clone(),
        started_at,
        hostname: runner::hostname(),
        junit: harness.junit,
        duration: clock.elapsed(),
        cases,
        partition: None,
        declared_cases: harness.cases.len(),
        interrupted: interrupt.as_ref().is_some_and(|i| i.requested()),
        warnings: runner::run_warnings(harness),
    };
    let code = crate::report::finish(&record, &harness.display_file(), &mut Fanout::default());
    eprintln!(
        "cargo-golden: reports in {}",
        crate::layout::display_relative(&out_dir)
    );
    match code {
        0 if !conclusion.has_failed() => 0,
        crate::exit::INTEGRITY => {
            eprintln!("cargo-golden: the reports disagree (integrity violation)");
            101
        }
        _ => 101,
    }
}

/// `Ok` for a passed case; else the result, issues and output excerpt.
fn describe_failure(rec: &CaseRecord) -> Result<(), Failed> {
    if rec.result == CaseResult::Passed {
        return Ok(());
    }
    let mut msg = format!(
        "{} ({}), exit code {}\n",
        rec.result.as_str(),
        rec.execution_status.as_str(),
        rec.exit_code
            .map_or_else(|| "none".to_string(), |c| c.to_string())
    );
    if let Some(r) = &rec.reason {
        msg.push_str(&format!("reason: {r}\n"));
    }
    for i in &rec.issues {
        msg.push_str(&format!(
            "issue {}: {}\n  {}\n",
            i.issue_type.as_str(),
            i.message,
            i.evidence
        ));
    }
    for (label, bytes) in [("stdout", &rec.stdout), ("stderr", &rec.stderr)] {
        if !bytes.is_empty() {
            msg.push_str(&format!(
                "--- {label}\n{}\n",
                String::from_utf8_lossy(bytes).trim_end()
            ));
        }
    }
    if let Some(a) = &rec.artifacts {
        msg.push_str(&format!("evidence: {}", a.evidence));
    }
    Err(msg.into())
}
