//! The scheduler: declaration order (or up to `jobs` at once), the
//! `exclusive` gate, fail-fast, skip reasons, interrupts, and the assembly
//! of the run record. It emits events and never writes a report.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, mpsc};
use std::time::Instant;

use super::case::{Engine, skipped_record};
use super::{EngineError, RunOptions};
use crate::config::{CaseDef, Harness};
use crate::events::{Event, Fanout};
use crate::model::{CaseRecord, RunRecord};
use crate::runner::select::Partition;

/// Which cases of `harness` a run with `partition` includes.
pub fn included<'a>(harness: &'a Harness, partition: Option<&Partition>) -> Vec<&'a CaseDef> {
    harness
        .cases
        .iter()
        .filter(|c| partition.is_none_or(|p| p.includes(c.index, &c.name)))
        .collect()
}

/// Run-level warnings (shown in the terminal and the reports).
pub fn run_warnings(harness: &Harness) -> Vec<String> {
    let mut w = Vec::new();
    if harness.golden_count() == 0 {
        w.push(
            "NO GOLDEN PROJECT DECLARED: only verify commands ran; nothing guards your golden projects. Declare [[golden]] projects (or set `require_golden = true` to make this an error)."
                .to_string(),
        );
    }
    w
}

enum Msg {
    Started(usize),
    Finished(usize, Box<CaseRecord>),
}

/// Admission of cases: `exclusive` ones run alone.
struct Gate {
    state: Mutex<(usize, bool)>,
    cv: Condvar,
}

impl Gate {
    fn enter(&self, exclusive: bool) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while s.1 || (exclusive && s.0 > 0) {
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s.0 += 1;
        s.1 = exclusive;
    }

    fn leave(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 -= 1;
        s.1 = false;
        self.cv.notify_all();
    }
}

/// Run every included case and return the run record (reports are written
/// by [`crate::report::finish`]).
pub fn run(
    harness: &Harness,
    opts: &RunOptions,
    fanout: &mut Fanout,
) -> Result<RunRecord, EngineError> {
    let mut engine = Engine::new(
        harness,
        &opts.out_dir,
        opts.run_id.clone(),
        opts.interrupt.clone(),
    )?;
    engine.retries = opts.retries;
    let started_at = jiff::Timestamp::now();
    let clock = Instant::now();
    let cases = included(harness, opts.partition.as_ref());
    let warnings = run_warnings(harness);

    let _ = fanout.emit(&Event::RunStarted {
        run_id: engine.run_id(),
        suite_name: &harness.name,
        case_count: cases.len(),
    });
    for w in &warnings {
        let _ = fanout.emit(&Event::Warning { message: w });
    }

    let jobs = if opts.jobs == 0 {
        harness.jobs
    } else {
        opts.jobs
    }
    .max(1);
    let queue = Mutex::new((0..cases.len()).collect::<VecDeque<usize>>());
    let gate = Gate {
        state: Mutex::new((0, false)),
        cv: Condvar::new(),
    };
    let stop = AtomicBool::new(false);
    let mut slots: Vec<Option<CaseRecord>> = (0..cases.len()).map(|_| None).collect();
    let interrupted = || opts.interrupt.as_ref().is_some_and(|i| i.requested());

    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<Msg>();
        for _ in 0..jobs.min(cases.len().max(1)) {
            let tx = tx.clone();
            let (queue, gate, stop, cases, engine) = (&queue, &gate, &stop, &cases, &engine);
            s.spawn(move || {
                loop {
                    let Some(pos) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
                    else {
                        break;
                    };
                    let def = cases[pos];
                    let skip = |reason: &str| skipped_record(def, reason);
                    const INTERRUPTED: &str = "the run was interrupted";
                    const FAIL_FAST: &str = "fail-fast: an earlier case failed";
                    let rec = if interrupted() {
                        skip(INTERRUPTED)
                    } else if !opts.filter.matches(&def.name) {
                        skip("filtered out")
                    } else if stop.load(Ordering::SeqCst) {
                        skip(FAIL_FAST)
                    } else {
                        gate.enter(def.exclusive);
                        // Waiting at the gate (for an exclusive case, or as
                        // one) can outlast a failure or an interrupt: look
                        // again before starting.
                        let late = if interrupted() {
                            Some(INTERRUPTED)
                        } else if stop.load(Ordering::SeqCst) {
                            Some(FAIL_FAST)
                        } else {
                            None
                        };
                        if let Some(reason) = late {
                            gate.leave();
                            skip(reason)
                        } else {
                            let _ = tx.send(Msg::Started(pos));
                            let rec = engine.run_case(def);
                            gate.leave();
                            if opts.fail_fast && rec.result.is_failure() {
                                stop.store(true, Ordering::SeqCst);
                            }
                            rec
                        }
                    };
                    if tx.send(Msg::Finished(pos, Box::new(rec))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for msg in rx {
            match msg {
                Msg::Started(pos) => {
                    let _ = fanout.emit(&Event::CaseStarted {
                        index: cases[pos].index,
                        name: &cases[pos].name,
                        kind: cases[pos].kind,
                    });
                }
                Msg::Finished(pos, rec) => {
                    let _ = fanout.emit(&Event::CaseFinished { case: &rec });
                    slots[pos] = Some(*rec);
                }
            }
        }
    });

    Ok(RunRecord {
        run_id: engine.run_id().to_string(),
        suite_name: harness.name.clone(),
        harness_path: harness.file.clone().unwrap_or_default(),
        harness_sha256: harness.sha256.clone(),
        out_dir: opts.out_dir.clone(),
        started_at,
        hostname: super::hostname(),
        junit: opts.junit.unwrap_or(harness.junit),
        duration: clock.elapsed(),
        cases: slots
            .into_iter()
            .map(|s| s.expect("every case reports"))
            .collect(),
        partition: opts.partition.map(|p| p.to_string()),
        declared_cases: harness.cases.len(),
        interrupted: interrupted(),
        warnings,
    })
}
