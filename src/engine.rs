//! The engine: runs the declared cases in declaration order (or up to
//! `jobs` at once), keeps every attempt's evidence, and emits the event
//! stream. Both front doors (CLI and libtest harness) run cases through it.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::time::Instant;

use crate::capture::{self, Capture};
use crate::classify::{self, Observed, Patterns};
use crate::config::{CaseDef, Harness, Isolation};
use crate::events::{Event, Fanout};
use crate::interrupt::Interrupt;
use crate::model::{Artifacts, CaseRecord, CaseResult, RunRecord};
use crate::process;
use crate::select::{Filter, Partition};

/// How a run is shaped.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Absolute output directory.
    pub out_dir: PathBuf,
    /// Use this run id instead of a fresh one (shared nextest runs).
    pub run_id: Option<String>,
    /// Name filters; cases filtered out are SKIPPED.
    pub filter: Filter,
    /// Skip the rest after the first FAILED or ERROR case.
    pub fail_fast: bool,
    /// Cases at once (0 = the harness file's `jobs`).
    pub jobs: usize,
    /// Override every case's retries.
    pub retries: Option<u32>,
    /// Run only this shard; other cases are left out of the record.
    pub partition: Option<Partition>,
    /// Interrupt state (signals), if the caller installed it.
    pub interrupt: Option<Arc<Interrupt>>,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A pattern did not compile.
    #[error(transparent)]
    Pattern(#[from] classify::PatternError),
    /// The output directory could not be created.
    #[error("cannot create the output directory {}: {source}", path.display())]
    OutDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// A fresh run id: UTC time to the microsecond plus random bits, so ids
/// sort by time and never collide.
pub fn new_run_id() -> String {
    let now = jiff::Timestamp::now();
    let rand = uuid::Uuid::new_v4().simple().to_string();
    format!("{}-{}", now.strftime("%Y%m%dT%H%M%S%.6fZ"), &rand[..8])
}

/// Where attempt `attempt` (1-based) of the case at declaration `index`
/// keeps its evidence, relative to the out dir:
/// `artifacts/<run_id>/execution/<case_slug>[-attempt-N]`. Unique per case
/// and attempt, since the slug carries the declaration index.
pub fn execution_dir(run_id: &str, index: usize, name: &str, attempt: u32) -> String {
    let slug = crate::paths::case_slug(index, name);
    if attempt <= 1 {
        format!("artifacts/{run_id}/execution/{slug}")
    } else {
        format!("artifacts/{run_id}/execution/{slug}-attempt-{attempt}")
    }
}

/// Runs single cases of one harness into one run directory.
pub struct Engine<'h> {
    harness: &'h Harness,
    patterns: Patterns,
    out_dir: PathBuf,
    run_id: String,
    retries: Option<u32>,
    interrupt: Option<Arc<Interrupt>>,
}

impl<'h> Engine<'h> {
    /// Prepare to run cases of `harness` into `out_dir`.
    pub fn new(
        harness: &'h Harness,
        out_dir: &Path,
        run_id: Option<String>,
        interrupt: Option<Arc<Interrupt>>,
    ) -> Result<Engine<'h>, EngineError> {
        let patterns = Patterns::new(&harness.patterns)?;
        std::fs::create_dir_all(out_dir).map_err(|source| EngineError::OutDir {
            path: out_dir.to_path_buf(),
            source,
        })?;
        Ok(Engine {
            harness,
            patterns,
            out_dir: out_dir.to_path_buf(),
            run_id: run_id.unwrap_or_else(new_run_id),
            retries: None,
            interrupt,
        })
    }

    /// This run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Run one case, with its retries; the record of the last attempt,
    /// earlier failed attempts attached.
    pub fn run_case(&self, def: &CaseDef) -> CaseRecord {
        let attempts = 1 + self.retries.unwrap_or(def.retries);
        let mut earlier = Vec::new();
        for n in 1..=attempts {
            let mut rec = self.attempt(def, n);
            let again = rec.result == CaseResult::Failed
                && n < attempts
                && !self.interrupt.as_ref().is_some_and(|i| i.requested());
            if rec.result == CaseResult::Passed && !earlier.is_empty() {
                rec.flaky = true;
            }
            if !again {
                rec.previous_attempts = earlier;
                if rec.flaky || !rec.previous_attempts.is_empty() {
                    // The final attempt's evidence.json lists the earlier ones.
                    self.write_evidence(&mut rec);
                }
                return rec;
            }
            earlier.push(rec);
        }
        unreachable!("the last attempt always returns")
    }

    fn write_evidence(&self, rec: &mut CaseRecord) {
        if let Err(e) = crate::report::write_evidence(rec, &self.out_dir) {
            rec.warnings
                .push(format!("could not write evidence.json: {e}"));
        }
    }

    fn attempt(&self, def: &CaseDef, n: u32) -> CaseRecord {
        let rel = execution_dir(&self.run_id, def.index, &def.name, n);
        let dir = self.out_dir.join(&rel);
        let mut rec = skipped_record(def, "");
        rec.reason = None;
        let artifacts = Artifacts::in_dir(&rel);
        let stdout_log = self.out_dir.join(&artifacts.stdout);
        let stderr_log = self.out_dir.join(&artifacts.stderr);
        rec.artifacts = Some(artifacts);

        let outcome = self.execute(def, &dir, &stdout_log, &stderr_log, &mut rec);
        let (ran, not_run) = match outcome {
            Ok(x) => (Some(x), None),
            Err(reason) => (None, Some(reason)),
        };
        let empty = classify::StreamFindings::default();
        let verdict = classify::judge(
            &def.name,
            def.kind,
            &def.expected,
            &Observed {
                exit_code: rec.exit_code,
                timed_out: ran.as_ref().is_some_and(|r| r.timed_out),
                interrupted: ran.as_ref().is_some_and(|r| r.interrupted),
                stdout: ran.as_ref().map_or(&empty, |r| &r.stdout),
                stderr: ran.as_ref().map_or(&empty, |r| &r.stderr),
                golden_modified: ran.as_ref().and_then(|r| r.changes.as_deref()),
                not_run_reason: not_run.as_deref(),
            },
        );
        rec.execution_status = verdict.execution_status;
        rec.result = verdict.result;
        rec.issues = verdict.issues;
        rec.validation_errors = verdict.validation_errors;
        rec.reason = not_run;
        rec.status = verdict.status;
        self.write_evidence(&mut rec);
        rec
    }

    /// Resolve, isolate and run; `Err` is the reason the case could not run.
    fn execute(
        &self,
        def: &CaseDef,
        dir: &Path,
        stdout_log: &Path,
        stderr_log: &Path,
        rec: &mut CaseRecord,
    ) -> Result<Executed, String> {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create the artifact directory {}: {e}",
                dir.display()
            )
        })?;
        // Files exist for every case that was attempted, so report links work.
        let touch = |p: &Path| {
            std::fs::File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))
        };
        let stdout_file = touch(stdout_log)?;
        let stderr_file = touch(stderr_log)?;
        std::fs::write(dir.join(Artifacts::COMMAND), &def.command)
            .map_err(|e| format!("cannot write command.txt: {e}"))?;

        let mut command = def.command.clone();
        let mut working_dir = def.working_dir.clone();
        let mut before = None;
        let mut _copy_dir = None;
        if let Some(path) = &def.path {
            if !path.exists() {
                return Err(format!(
                    "golden project path {} does not exist",
                    path.display()
                ));
            }
            match def.isolation {
                Isolation::Check => {
                    before = Some(crate::isolation::fingerprint(path, &def.ignore).map_err(
                        |e| format!("cannot read the golden project {}: {e}", path.display()),
                    )?);
                }
                Isolation::Copy => {
                    let tmp = tempfile::Builder::new()
                        .prefix("cargo-golden-")
                        .tempdir()
                        .map_err(|e| format!("cannot create a temporary copy: {e}"))?;
                    let copy = crate::isolation::copy_into(path, tmp.path()).map_err(|e| {
                        format!("cannot copy the golden project {}: {e}", path.display())
                    })?;
                    let project_dir = crate::config::default_working_dir(path);
                    let copy_dir = crate::config::default_working_dir(&copy);
                    working_dir = match working_dir.strip_prefix(&project_dir) {
                        Ok(rel) => copy_dir.join(rel),
                        Err(_) => working_dir,
                    };
                    command = crate::config::substitute(
                        &def.command_template,
                        &copy,
                        &working_dir,
                        &def.name,
                    );
                    _copy_dir = Some(tmp);
                }
            }
        }
        if command != def.command {
            std::fs::write(dir.join(Artifacts::COMMAND), &command)
                .map_err(|e| format!("cannot write command.txt: {e}"))?;
        }
        rec.raw_command = command.clone();
        rec.working_dir = working_dir.clone();

        let truncate = self.harness.truncate;
        let patterns = self.patterns.for_expected(&def.expected);
        let io_err = |e: std::io::Error| format!("cannot write the output logs: {e}");
        let mut out = Capture::new(
            stdout_file,
            truncate,
            patterns.classifier(),
            Some(capture::evidence_start(&command)),
        );
        let mut err = Capture::new(stderr_file, truncate, patterns.classifier(), None);

        let spec = process::Spec {
            command: &command,
            working_dir: &working_dir,
            env: &def.env,
            timeout: def.timeout,
            kill_grace: self.harness.kill_grace,
            leak_wait: self.harness.leak_wait,
        };
        rec.started_at = Some(jiff::Timestamp::now());
        let clock = Instant::now();
        let result = process::run(&spec, &mut out, &mut err, self.interrupt.as_ref());
        rec.duration = clock.elapsed();
        rec.finished_at = Some(jiff::Timestamp::now());
        let outcome = result.map_err(|e| e.to_string())?;

        let out = out.finish().map_err(io_err)?;
        let err = err.finish().map_err(io_err)?;
        rec.exit_code = Some(outcome.exit_code);
        if let Some(h) = out.evidence {
            rec.evidence_hash = Some(
                capture::evidence_finish(h, &err, stderr_log, rec.exit_code)
                    .map_err(|e| format!("cannot hash stderr.log: {e}"))?,
            );
        }
        rec.stdout = out.excerpt;
        rec.stderr = err.excerpt;
        if outcome.timed_out {
            rec.warnings.push(format!(
                "timed out after {}: the process group was killed",
                humantime::format_duration(def.timeout)
            ));
        }
        if outcome.interrupted {
            rec.warnings
                .push("interrupted: the process group was killed".to_string());
        }
        if outcome.leaked {
            rec.warnings.push(format!(
                "leaked processes: a background process still held the output open {} after the main process exited; its process group was killed",
                humantime::format_duration(self.harness.leak_wait)
            ));
        }
        let changes = match (&def.path, before) {
            (Some(path), Some(before)) => {
                let after = crate::isolation::fingerprint(path, &def.ignore).map_err(|e| {
                    format!("cannot re-read the golden project {}: {e}", path.display())
                })?;
                let c = before.diff(&after);
                (!c.is_empty()).then(|| c.describe())
            }
            _ => None,
        };
        Ok(Executed {
            stdout: out.findings,
            stderr: err.findings,
            changes,
            timed_out: outcome.timed_out,
            interrupted: outcome.interrupted,
        })
    }
}

/// What a case that ran left for judging.
struct Executed {
    stdout: classify::StreamFindings,
    stderr: classify::StreamFindings,
    /// Description of golden files changed by the run.
    changes: Option<String>,
    timed_out: bool,
    interrupted: bool,
}

/// The record of a declared case that did not run, and why.
pub fn skipped_record(def: &CaseDef, reason: &str) -> CaseRecord {
    let mut r = CaseRecord::skipped(
        def.index,
        &def.name,
        def.kind,
        def.line,
        &def.command,
        def.working_dir.clone(),
        reason,
    );
    r.description = def.description.clone();
    r
}

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
/// by [`finish`]).
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

/// Write every report, check their integrity, emit `RunFinished`, and
/// return the exit code (SPEC section 8).
pub fn finish(record: &RunRecord, harness_display: &str, fanout: &mut Fanout) -> i32 {
    use crate::exit;
    let mut code = if record.interrupted {
        exit::INTERRUPTED
    } else if record.counts().failures() > 0 {
        exit::FAILED
    } else {
        exit::SUCCESS
    };
    match crate::report::write_all(record, harness_display) {
        Ok(_) => {
            if let Err(e) = crate::report::check_integrity(record, code) {
                eprintln!("error: integrity violation: {e}");
                code = exit::INTEGRITY;
            }
        }
        Err(e) => {
            eprintln!("error: {}", exit::error_chain(&e));
            if code == exit::SUCCESS {
                code = exit::FAILED;
            }
        }
    }
    let _ = fanout.emit(&Event::RunFinished { record });
    code
}
