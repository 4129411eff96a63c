//! One case, start to end: resolve and isolate, spawn, capture, judge,
//! keep the evidence, and retry a failed case. Every text a record carries
//! is masked here (SPEC section 14), so no report has to.

use std::collections::HashMap;
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
use crate::redact::Redactor;

/// Runs single cases of one harness into one run directory.
pub struct Engine<'h> {
    harness: &'h Harness,
    patterns: Patterns,
    redactor: Redactor,
    /// Patterns of the cases with a `patterns` table of their own, by
    /// declaration index.
    case_patterns: HashMap<usize, Patterns>,
    out_dir: PathBuf,
    run_id: String,
    pub(super) retries: Option<u32>,
    /// Stream each case's output live (`--no-capture`).
    pub(super) live: bool,
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
        let mut case_patterns = HashMap::new();
        for case in harness.cases.iter().filter(|c| c.patterns.is_some()) {
            case_patterns.insert(case.index, Patterns::new(&harness.patterns_for(case))?);
        }
        std::fs::create_dir_all(out_dir).map_err(|source| EngineError::OutDir {
            path: out_dir.to_path_buf(),
            source,
        })?;
        Ok(Engine {
            harness,
            patterns,
            redactor: harness.redactor(),
            case_patterns,
            out_dir: out_dir.to_path_buf(),
            run_id: run_id.unwrap_or_else(new_run_id),
            retries: None,
            live: false,
            interrupt,
        })
    }

    /// This run's id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The secrets this engine masks.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The record of a declared case that did not run, and why.
    pub fn skipped_record(&self, def: &CaseDef, reason: &str) -> CaseRecord {
        let mut r = CaseRecord::skipped(
            def.index,
            &def.name,
            def.kind,
            def.line,
            &self.redactor.mask_str(&def.command).0,
            def.working_dir.clone(),
            reason,
        );
        r.description = def.description.clone();
        r.expected = def.expected.to_string();
        mask_record(&self.redactor, &mut r);
        r
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

    /// The patterns `def` is judged by.
    fn patterns_for(&self, def: &CaseDef) -> Result<Patterns, classify::PatternError> {
        if def.patterns.is_none() {
            return Ok(self.patterns.clone());
        }
        match self.case_patterns.get(&def.index) {
            Some(p) => Ok(p.clone()),
            // A case that is not one of the harness's own declarations.
            None => Patterns::new(&self.harness.patterns_for(def)),
        }
    }

    fn write_evidence(&self, rec: &mut CaseRecord) {
        if let Err(e) = crate::report::write_evidence(rec, &self.out_dir) {
            rec.warnings.push(format!(
                "could not write evidence.json: {}",
                crate::exit::error_chain(&e)
            ));
        }
    }

    fn attempt(&self, def: &CaseDef, n: u32) -> CaseRecord {
        let rel = execution_dir(&self.run_id, def.index, &def.name, n);
        let dir = self.out_dir.join(&rel);
        let mut rec = self.skipped_record(def, "");
        rec.reason = None;
        let artifacts = Artifacts::in_dir(&rel);
        let stdout_log = self.out_dir.join(&artifacts.stdout);
        let stderr_log = self.out_dir.join(&artifacts.stderr);
        rec.artifacts = Some(artifacts);

        let outcome = self.execute(def, &dir, &stdout_log, &stderr_log, &mut rec);
        // Output is masked as it streams; what else reaches the verdict is
        // masked here, before the judge quotes it.
        let (ran, not_run) = match outcome {
            Ok(mut x) => {
                if let Some(c) = &mut x.changes {
                    self.redactor.mask_in_place(c);
                }
                (Some(x), None)
            }
            Err(e) => {
                let mut reason = crate::exit::error_chain(&e);
                self.redactor.mask_in_place(&mut reason);
                (None, Some(reason))
            }
        };
        let empty = classify::StreamFindings::default();
        let verdict = classify::judge(
            &def.name,
            def.kind,
            &def.expected,
            &Observed {
                exit_code: rec.exit_code,
                signal: rec.signal,
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
        mask_record(&self.redactor, &mut rec);
        self.write_evidence(&mut rec);
        rec
    }

    /// Write `command` masked to command.txt; the record shows what was
    /// written.
    fn write_command(
        &self,
        dir: &Path,
        command: &str,
        rec: &mut CaseRecord,
    ) -> Result<(), CaseError> {
        let (shown, n) = self.redactor.mask_str(command);
        std::fs::write(dir.join(Artifacts::COMMAND), shown.as_bytes())
            .map_err(|source| CaseError::WriteCommand { source })?;
        rec.raw_command = shown.into_owned();
        rec.redactions.command = n;
        Ok(())
    }

    /// Resolve, isolate and run; `Err` is why the case could not run.
    fn execute(
        &self,
        def: &CaseDef,
        dir: &Path,
        stdout_log: &Path,
        stderr_log: &Path,
        rec: &mut CaseRecord,
    ) -> Result<Executed, CaseError> {
        let (stdout_file, stderr_file) = prepare_artifacts(dir, stdout_log, stderr_log)?;
        self.write_command(dir, &def.command, rec)?;
        let isolated = isolate(def)?;
        if isolated.command != def.command {
            self.write_command(dir, &isolated.command, rec)?;
        }
        rec.working_dir = isolated.working_dir.clone();

        let patterns = self.patterns_for(def)?.for_expected(&def.expected);
        let mut out = Capture::new(
            stdout_file,
            self.harness.truncate,
            patterns.classifier(),
            // The hash covers command.txt as stored: masked.
            Some(crate::hash::EvidenceHasher::after_command(&rec.raw_command)),
            &self.redactor,
        )
        .live(self.live);
        let mut err = Capture::new(
            stderr_file,
            self.harness.truncate,
            patterns.classifier(),
            None,
            &self.redactor,
        )
        .live(self.live);
        let spec = process::Spec {
            command: &isolated.command,
            working_dir: &isolated.working_dir,
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
        let outcome = result?;

        let write_logs = |source| CaseError::WriteLogs { source };
        let out = out.finish().map_err(write_logs)?;
        let err = err.finish().map_err(write_logs)?;
        rec.exit_code = Some(outcome.exit_code);
        rec.signal = outcome.signal;
        if let Some(h) = out.evidence {
            rec.evidence_hash = Some(
                capture::evidence_finish(h, &err, stderr_log, rec.exit_code)
                    .map_err(|source| CaseError::HashStderr { source })?,
            );
        }
        rec.stdout = out.excerpt;
        rec.stderr = err.excerpt;
        rec.timed_out = outcome.timed_out;
        rec.interrupted = outcome.interrupted;
        rec.redactions.stdout = out.redactions;
        rec.redactions.stderr = err.redactions;
        self.warn_about(def, &outcome, rec);
        Ok(Executed {
            stdout: out.findings,
            stderr: err.findings,
            changes: isolated.changes(def)?,
            timed_out: outcome.timed_out,
            interrupted: outcome.interrupted,
        })
    }

    fn warn_about(&self, def: &CaseDef, outcome: &process::Outcome, rec: &mut CaseRecord) {
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
        if let Some(n) = outcome.signal
            && !outcome.timed_out
            && !outcome.interrupted
        {
            let name = super::sys::signal_name(n).map_or_else(String::new, |s| format!(" ({s})"));
            rec.warnings.push(format!("killed by signal {n}{name}"));
        }
        if outcome.leaked {
            rec.warnings.push(format!(
                "leaked processes: a background process still held the output open {} after the main process exited; its process group was killed",
                humantime::format_duration(self.harness.leak_wait)
            ));
        }
    }
}

/// Create the case's artifact directory and its two logs. The files exist
/// for every case that was attempted, so report links work.
fn prepare_artifacts(
    dir: &Path,
    stdout_log: &Path,
    stderr_log: &Path,
) -> Result<(std::fs::File, std::fs::File), CaseError> {
    std::fs::create_dir_all(dir).map_err(|source| CaseError::ArtifactDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let touch = |p: &Path| {
        std::fs::File::create(p).map_err(|source| CaseError::CreateLog {
            path: p.to_path_buf(),
            source,
        })
    };
    Ok((touch(stdout_log)?, touch(stderr_log)?))
}

/// Where and how a case runs once its golden project is isolated.
struct Isolated {
    command: String,
    working_dir: PathBuf,
    /// The project's fingerprint before the run (`isolation = "check"`).
    before: Option<crate::runner::isolation::Fingerprint>,
    /// The temporary copy (`isolation = "copy"`), removed on drop.
    _copy: Option<tempfile::TempDir>,
}

/// Fingerprint the golden project, or run in a temporary copy of it.
fn isolate(def: &CaseDef) -> Result<Isolated, CaseError> {
    let mut iso = Isolated {
        command: def.command.clone(),
        working_dir: def.working_dir.clone(),
        before: None,
        _copy: None,
    };
    let Some(path) = &def.path else {
        return Ok(iso);
    };
    if !path.exists() {
        return Err(CaseError::GoldenMissing { path: path.clone() });
    }
    match def.isolation {
        Isolation::Check => {
            iso.before = Some(
                crate::runner::isolation::fingerprint(path, &def.ignore).map_err(|source| {
                    CaseError::ReadGolden {
                        path: path.clone(),
                        source,
                    }
                })?,
            );
        }
        Isolation::Copy => {
            let tmp = tempfile::Builder::new()
                .prefix("cargo-golden-")
                .tempdir()
                .map_err(|source| CaseError::TempCopy { source })?;
            let copy = crate::runner::isolation::copy_into(path, tmp.path()).map_err(|source| {
                CaseError::CopyGolden {
                    path: path.clone(),
                    source,
                }
            })?;
            let project_dir = crate::config::default_working_dir(path);
            let copy_dir = crate::config::default_working_dir(&copy);
            if let Ok(rel) = iso.working_dir.strip_prefix(&project_dir) {
                iso.working_dir = copy_dir.join(rel);
            }
            iso.command = crate::config::substitute(
                &def.command_template,
                &copy,
                &iso.working_dir,
                &def.name,
            );
            iso._copy = Some(tmp);
        }
    }
    Ok(iso)
}

impl Isolated {
    /// What the run changed in the golden project (`isolation = "check"`).
    fn changes(&self, def: &CaseDef) -> Result<Option<String>, CaseError> {
        let (Some(path), Some(before)) = (&def.path, &self.before) else {
            return Ok(None);
        };
        let after = crate::runner::isolation::fingerprint(path, &def.ignore).map_err(|source| {
            CaseError::RereadGolden {
                path: path.clone(),
                source,
            }
        })?;
        let c = before.diff(&after);
        Ok((!c.is_empty()).then(|| c.describe()))
    }
}

/// Why a case could not run (its result is ERROR, the chain its reason).
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The case's artifact directory could not be created.
    #[error("cannot create the artifact directory {}", path.display())]
    ArtifactDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A log file could not be created.
    #[error("cannot create {}", path.display())]
    CreateLog {
        /// The log.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// `command.txt` could not be written.
    #[error("cannot write command.txt")]
    WriteCommand {
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The golden project's path does not exist.
    #[error("golden project path {} does not exist", path.display())]
    GoldenMissing {
        /// The declared path.
        path: PathBuf,
    },
    /// The golden project could not be fingerprinted before the run.
    #[error("cannot read the golden project {}", path.display())]
    ReadGolden {
        /// The project.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// No temporary directory for the copy.
    #[error("cannot create a temporary copy")]
    TempCopy {
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The golden project could not be copied.
    #[error("cannot copy the golden project {}", path.display())]
    CopyGolden {
        /// The project.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The case's own patterns did not compile.
    #[error(transparent)]
    Patterns(#[from] classify::PatternError),
    /// The command could not be started or its output not read.
    #[error(transparent)]
    Spawn(#[from] process::SpawnError),
    /// The output logs could not be written.
    #[error("cannot write the output logs")]
    WriteLogs {
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// stderr.log could not be read back for the evidence hash.
    #[error("cannot hash stderr.log")]
    HashStderr {
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The golden project could not be fingerprinted after the run.
    #[error("cannot re-read the golden project {}", path.display())]
    RereadGolden {
        /// The project.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
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

/// Mask the texts of `rec` that do not come from the (already masked)
/// output streams; `raw_command` is masked where command.txt is written.
fn mask_record(redactor: &Redactor, rec: &mut CaseRecord) {
    if redactor.is_empty() {
        return;
    }
    let texts = rec
        .description
        .iter_mut()
        .chain(rec.reason.iter_mut())
        .chain(rec.warnings.iter_mut())
        .chain(
            rec.issues
                .iter_mut()
                .flat_map(|i| [&mut i.message, &mut i.evidence]),
        )
        .chain(
            rec.validation_errors
                .iter_mut()
                .flat_map(|v| [&mut v.field, &mut v.message]),
        );
    for t in texts {
        redactor.mask_in_place(t);
    }
    let dir = rec.working_dir.to_string_lossy();
    if let (std::borrow::Cow::Owned(masked), _) = redactor.mask_str(&dir) {
        rec.working_dir = PathBuf::from(masked);
    }
}
