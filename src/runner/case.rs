//! One case, start to end: resolve and isolate, spawn, capture, judge,
//! keep the evidence, and retry a failed case.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::capture::{self, Capture};
use super::interrupt::Interrupt;
use super::{EngineError, process};
use crate::classify::{self, Observed, Patterns};
use crate::config::{CaseDef, Harness, Isolation};
use crate::layout::{Artifacts, execution_dir, new_run_id};
use crate::model::{CaseRecord, CaseResult};

/// Runs single cases of one harness into one run directory.
pub struct Engine<'h> {
    harness: &'h Harness,
    patterns: Patterns,
    out_dir: PathBuf,
    run_id: String,
    pub(super) retries: Option<u32>,
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
                    before = Some(
                        crate::runner::isolation::fingerprint(path, &def.ignore).map_err(|e| {
                            format!("cannot read the golden project {}: {e}", path.display())
                        })?,
                    );
                }
                Isolation::Copy => {
                    let tmp = tempfile::Builder::new()
                        .prefix("cargo-golden-")
                        .tempdir()
                        .map_err(|e| format!("cannot create a temporary copy: {e}"))?;
                    let copy =
                        crate::runner::isolation::copy_into(path, tmp.path()).map_err(|e| {
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
                let after =
                    crate::runner::isolation::fingerprint(path, &def.ignore).map_err(|e| {
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
