//! One case, start to end: resolve and isolate, spawn, capture, judge, keep
//! the evidence, and retry a failed case. Every text a record carries is
//! masked here (docs/secrets.md, Secrets are masked), so no report has to.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use super::capture::{self, Capture};
use super::interrupt::Interrupt;
use super::isolation::{self, Exclude, IsolationError, Stop};
use super::{EngineError, process};
use crate::classify::{self, CaseFacts, Patterns};
use crate::config::{CaseDef, HarnessConfig, Isolation};
use crate::layout::{Artifacts, execution_dir, new_run_id};
use crate::model::{CaseRecord, CaseResult};
use crate::redact::Redactor;

/// Runs single cases of one harness into one run directory.
pub(crate) struct Engine<'h> {
    harness: &'h HarnessConfig,
    redactor: Redactor,
    /// Patterns of each declared case, by declaration index: compiled
    /// once for all the cases judged alike (same presets, no `patterns`
    /// table of their own).
    case_patterns: HashMap<usize, Patterns>,
    out_dir: PathBuf,
    run_id: String,
    pub(super) retries: Option<u32>,
    /// Stream each case's output live (`--no-capture`).
    pub(super) live: bool,
    /// Removed from every case's environment.
    pub(super) hidden_env: &'static [&'static str],
    interrupt: Option<Arc<Interrupt>>,
    snapshots: crate::baseline::Snapshots<'h>,
    /// Why a golden project's uncommitted changes could not be read, the
    /// first time it happened: said once for the run.
    unchecked: std::sync::OnceLock<String>,
}

impl<'h> Engine<'h> {
    /// Prepare to run cases of `harness` into `out_dir`.
    pub(crate) fn new(
        harness: &'h HarnessConfig,
        out_dir: &Path,
        run_id: Option<String>,
        interrupt: Option<Arc<Interrupt>>,
    ) -> Result<Engine<'h>, EngineError> {
        let mut case_patterns = HashMap::new();
        let mut alike: HashMap<&[String], Patterns> = HashMap::new();
        for case in &harness.cases {
            let compiled = match (&case.patterns, alike.get(case.presets.as_slice())) {
                (None, Some(p)) => p.clone(),
                (None, None) => {
                    let p = Patterns::new(&harness.patterns_for(case))?;
                    alike.insert(&case.presets, p.clone());
                    p
                }
                (Some(_), _) => Patterns::new(&harness.patterns_for(case))?,
            };
            case_patterns.insert(case.index, compiled);
        }
        std::fs::create_dir_all(out_dir).map_err(|source| EngineError::OutDir {
            path: out_dir.to_path_buf(),
            source,
        })?;
        let run_id = run_id.unwrap_or_else(new_run_id);
        let redactor = harness.redactor();
        Ok(Engine {
            harness,
            case_patterns,
            out_dir: out_dir.to_path_buf(),
            snapshots: crate::baseline::Snapshots::new(harness, &run_id).masking(redactor.clone()),
            redactor,
            run_id,
            retries: None,
            live: false,
            hidden_env: &[],
            interrupt,
            unchecked: std::sync::OnceLock::new(),
        })
    }

    /// Write each case's snapshots from its output instead of comparing
    /// (`--bless`).
    pub(crate) fn set_bless(&mut self, bless: bool) {
        self.snapshots.set_bless(bless);
    }

    /// This run's id.
    pub(crate) fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The secrets this engine masks.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Why a golden project of this run was not checked for uncommitted
    /// changes (the first such reason), if one was not.
    pub(crate) fn unchecked_note(&self) -> Option<String> {
        self.unchecked
            .get()
            .map(|why| format!("golden projects not checked for uncommitted changes: {why}"))
    }

    /// Refuse to run a golden project with uncommitted changes in its git
    /// work tree (unless `allow_dirty`): a change a failed run left behind
    /// must fail the next run too. Outside git it is noted, not refused.
    fn refuse_dirty(&self, def: &CaseDef) -> Result<(), CaseError> {
        let Some(path) = def.root.as_ref().filter(|p| !def.allow_dirty && p.exists()) else {
            return Ok(());
        };
        let exclude = Exclude::new(path, &def.ignore, Some(&self.out_dir));
        match super::git::uncommitted(path, &exclude) {
            Ok(files) if files.is_empty() => Ok(()),
            Ok(files) => Err(CaseError::Dirty {
                path: path.clone(),
                files: crate::ansi::name_list(&files),
            }),
            Err(why) => {
                let _ = self.unchecked.set(crate::conclusion::error_chain(&why));
                Ok(())
            }
        }
    }

    /// The record of a declared case that did not run, and why.
    pub(crate) fn skipped_record(&self, def: &CaseDef, reason: &str) -> CaseRecord {
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
        r.quarantine = def.quarantine.clone().map(|mut q| {
            q.expired = q.expired_on(today());
            q
        });
        mask_record(&self.redactor, &mut r);
        r
    }

    /// Run one case, with its retries; the record of the last attempt,
    /// earlier failed attempts attached. Calls `tick` at least every 50 ms
    /// while the case runs (isolation work included), on the calling thread: how a
    /// scheduler notices a slow case without a thread of its own per case.
    pub(crate) fn run_case_ticking(&self, def: &CaseDef, tick: &dyn Fn()) -> CaseRecord {
        // Retries are bounded when read; saturating keeps this loop sound
        // for any library caller.
        let attempts = self.retries.unwrap_or(def.retries).saturating_add(1);
        let mut earlier = Vec::new();
        // Every attempt is checked against the project as it was before
        // the first: a change an attempt made is never the new normal.
        let mut first = None;
        let mut n = 0;
        loop {
            n += 1;
            let mut rec = self.attempt(def, n, &mut first, tick);
            // A golden modification is never flaky: it stays in the project
            // whatever a later attempt does.
            let modified = rec
                .issues
                .iter()
                .any(|i| i.issue_type == crate::model::IssueType::GoldenModified);
            // An expired quarantine fails the case whatever an attempt does.
            let expired = rec.quarantine.as_ref().is_some_and(|q| q.expired);
            let again = rec.result == CaseResult::Failed
                && !modified
                && !expired
                && n < attempts
                && !self.interrupt.as_ref().is_some_and(|i| i.requested());
            if !again {
                let passed_on_retry = rec.result == CaseResult::Passed && !earlier.is_empty();
                rec.previous_attempts = earlier;
                if passed_on_retry {
                    rec.flaky = true;
                    if self.harness.flaky == crate::model::FlakyPolicy::Warn {
                        rec.warnings.push(format!(
                            "flaky: passed on attempt {n} after {} failed attempt(s)",
                            rec.previous_attempts.len()
                        ));
                    }
                    // `[harness] flaky = "fail"` makes it a FLAKY failure.
                    crate::model::verdict::decide(&mut rec, self.harness.flaky);
                }
                if rec.flaky || expired || !rec.previous_attempts.is_empty() {
                    // The final attempt's evidence.json lists the earlier ones.
                    self.write_evidence(&mut rec);
                }
                return rec;
            }
            earlier.push(rec);
        }
    }

    /// The patterns `def` is judged by.
    fn patterns_for(&self, def: &CaseDef) -> Result<Patterns, classify::PatternError> {
        match self.case_patterns.get(&def.index) {
            Some(p) => Ok(p.clone()),
            // A case that is not one of the harness's own declarations.
            None => Patterns::new(&self.harness.patterns_for(def)),
        }
    }

    fn write_evidence(&self, rec: &mut CaseRecord) {
        if let Err(e) = crate::wire::evidence::write_evidence(rec, &self.out_dir) {
            rec.warnings.push(format!(
                "{}: {}",
                crate::wire::evidence::EVIDENCE_NOT_WRITTEN,
                crate::conclusion::error_chain(&e)
            ));
        }
    }

    fn attempt(
        &self,
        def: &CaseDef,
        n: u32,
        first: &mut Option<Rc<isolation::Fingerprint>>,
        tick: &dyn Fn(),
    ) -> CaseRecord {
        let rel = execution_dir(&self.run_id, def.index, &def.name, n);
        let dir = self.out_dir.join(&rel);
        let mut rec = self.skipped_record(def, "");
        rec.reason = None;
        let artifacts = Artifacts::in_dir(&rel);
        let paths = AttemptPaths {
            stdout_log: self.out_dir.join(&artifacts.stdout),
            stderr_log: self.out_dir.join(&artifacts.stderr),
            dir,
        };
        rec.artifacts = Some(artifacts);

        // Set when the command ran and changed the project, but the case
        // could not be finished.
        let mut changed = None;
        let outcome = self.execute(def, &paths, &mut rec, first, &mut changed, tick);
        if let Some(c) = &mut changed {
            self.redactor.mask_in_place(c);
        }
        let settled = self.settle(outcome, &mut rec, &paths);
        let empty = classify::StreamFindings::default();
        let verdict = classify::judge(
            &def.name,
            def.kind,
            &def.expected,
            &settled.facts(&rec, changed.as_deref(), &empty),
        );
        let Settled {
            mut ran, not_run, ..
        } = settled;
        rec.execution_status = verdict.execution_status;
        rec.issues = verdict.issues;
        if let Some(x) = &ran {
            rec.marked_lines = [x.stdout.marked_lines(), x.stderr.marked_lines()];
            output_warnings(&mut rec, x);
        }
        rec.validation_errors = verdict.validation_errors;
        rec.reason = not_run;
        rec.status = verdict.status;
        if let Some(read) = ran.as_mut().and_then(|r| r.result.take()) {
            apply_result(def, &mut rec, read, &rel);
            self.hash_with_result(&mut rec, &paths.dir);
        }
        rec.run_issues = rec.issues.len();
        self.check_snapshots(def, &mut rec, ran.as_mut());
        mask_record(&self.redactor, &mut rec);
        // The verdict, from every fact of the attempt (its checks masked).
        crate::model::verdict::decide(&mut rec, self.harness.flaky);
        chain_snapshots(&mut rec);
        self.write_evidence(&mut rec);
        rec
    }

    /// The outcome of an attempt's execution, its reason masked (as output
    /// is as it streams: what else reaches the verdict is masked here,
    /// before the judge quotes it). A case that could not run gets what
    /// evidence its files give.
    fn settle(
        &self,
        outcome: Result<Executed, CaseError>,
        rec: &mut CaseRecord,
        paths: &AttemptPaths,
    ) -> Settled {
        let started = outcome.as_ref().err().is_some_and(CaseError::after_start);
        let dirty = match &outcome {
            Err(CaseError::Dirty { files, .. }) => Some(files.clone()),
            _ => None,
        };
        let (ran, not_run) = match outcome {
            Ok(mut x) => {
                if let Some(c) = &mut x.changes {
                    self.redactor.mask_in_place(c);
                }
                (Some(x), None)
            }
            Err(e) => {
                let mut reason = crate::conclusion::error_chain(&e);
                self.redactor.mask_in_place(&mut reason);
                if rec.evidence_hash.is_none() {
                    let command = paths.dir.join(Artifacts::COMMAND);
                    rec.evidence_hash = partial_evidence(
                        &command,
                        &paths.stdout_log,
                        &paths.stderr_log,
                        rec.exit_code,
                    );
                }
                (None, Some(reason))
            }
        };
        Settled {
            ran,
            not_run,
            started,
            dirty,
        }
    }

    /// The snapshot checks of an attempt, its data outputs' too; none for
    /// one stopped before its command ran.
    fn check_snapshots(&self, def: &CaseDef, rec: &mut CaseRecord, ran: Option<&mut Executed>) {
        if ran.as_ref().is_some_and(|r| !r.ran) {
            // Stopped while fingerprinting or copying: the command never ran.
            rec.status = crate::model::EvidenceStatus::NoEvidence;
        } else {
            self.snapshots.apply(def, rec, &self.out_dir);
            let outputs = ran.map(|r| std::mem::take(&mut r.outputs));
            self.snapshots
                .apply_data(def, rec, outputs.unwrap_or_default(), &self.out_dir);
        }
    }

    /// With a kept structured result, the evidence hash covers it too:
    /// recomputed from the artifact files, the result appended.
    fn hash_with_result(&self, rec: &mut CaseRecord, dir: &Path) {
        let kept = rec
            .structured_result
            .as_ref()
            .and_then(|r| r.artifact.as_ref())
            .map(|a| self.out_dir.join(a));
        let (Some(kept), Some(_)) = (kept, &rec.evidence_hash) else {
            return;
        };
        let files = [Artifacts::COMMAND, Artifacts::STDOUT, Artifacts::STDERR].map(|f| dir.join(f));
        // The checks are added once they are made (`chain`, at the end).
        match crate::wire::evidence::case_hash(
            [&files[0], &files[1], &files[2]],
            rec.exit_code,
            Some(&kept),
            &[],
            crate::wire::evidence::SCHEMA_VERSION,
        ) {
            Ok(h) => rec.evidence_hash = Some(h),
            Err(e) => rec.warnings.push(format!(
                "the evidence hash does not cover the kept result: {e}"
            )),
        }
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
        paths: &AttemptPaths,
        rec: &mut CaseRecord,
        first: &mut Option<Rc<isolation::Fingerprint>>,
        changed: &mut Option<String>,
        tick: &dyn Fn(),
    ) -> Result<Executed, CaseError> {
        let AttemptPaths {
            dir,
            stdout_log,
            stderr_log,
        } = paths;
        let files = prepare_artifacts(dir, stdout_log, stderr_log)?;
        self.write_command(dir, &def.command, rec)?;
        self.refuse_dirty(def)?;

        // The timeout covers the isolation work too: a project too big to
        // fingerprint in time ends the case like a command that hangs.
        rec.started_at = Some(crate::time::Timestamp::now());
        let clock = Instant::now();
        let deadline = clock.checked_add(def.timeout).unwrap_or(clock);
        let budget = case_budget(tick, deadline, self.interrupt.clone());
        let finish = |rec: &mut CaseRecord| {
            rec.duration = clock.elapsed();
            rec.finished_at = Some(crate::time::Timestamp::now());
        };
        let isolated = match self.isolate(def, &budget, first, rec) {
            Ok(i) => i,
            Err(CaseError::Stopped(stop)) => {
                finish(rec);
                // The evidence says how the case ended, as for a command
                // that was stopped.
                rec.timed_out = stop == Stop::TimedOut;
                rec.interrupted = stop == Stop::Interrupted;
                rec.warnings
                    .push(stopped_warning(stop, def, "before the command ran"));
                return Ok(Executed::stopped(stop));
            }
            Err(e) => return Err(e),
        };
        if isolated.command != def.command {
            self.write_command(dir, &isolated.command, rec)?;
        }
        rec.working_dir = isolated.working_dir.clone();

        let before = Before::look(def, &isolated.working_dir);
        let mut ran = self.run_command(def, &isolated, files, stderr_log, (deadline, tick), rec);
        if let Ok(x) = &mut ran {
            self.read_products(def, &isolated, &before, paths, x);
        }
        // Checked whatever became of the run: a change the command made is
        // not lost because its output could not be kept.
        let after = self.check_after(def, &isolated, &budget, rec);
        finish(rec);
        let mut executed = match ran {
            Ok(x) => x,
            Err(e) => {
                *changed = after.ok().and_then(|a| a.changes);
                return Err(e);
            }
        };
        let after = after?;
        executed.changes = after.changes;
        executed.timed_out |= after.stop == Some(Stop::TimedOut);
        executed.interrupted |= after.stop == Some(Stop::Interrupted);
        Ok(executed)
    }

    /// Reads what the command of `def` made into `x`: its structured result
    /// and its data outputs (given what was there before), masked; before
    /// the copy is removed, as the result may lie in it.
    fn read_products(
        &self,
        def: &CaseDef,
        isolated: &Isolated,
        before: &Before,
        paths: &AttemptPaths,
        x: &mut Executed,
    ) {
        if let Some(spec) = &def.result {
            let mask = |b: Vec<u8>| self.redactor.mask_bytes(&b).0.into_owned();
            x.result = Some(super::result_files::read(
                spec,
                &isolated.working_dir,
                &before.result,
                &paths.dir,
                &paths.stdout_log,
                &mask,
            ));
        }
        let mut mask = crate::data::Masking::new(&self.redactor);
        x.outputs = crate::data::read_outputs(
            &def.outputs,
            &isolated.working_dir,
            &before.outputs,
            &mut mask,
        );
    }

    /// Compare the project (under `copy`, the original) with its
    /// fingerprint from before the run. A walk the budget stopped is a
    /// warning.
    fn check_after(
        &self,
        def: &CaseDef,
        isolated: &Isolated,
        budget: isolation::Budget<'_>,
        rec: &mut CaseRecord,
    ) -> Result<AfterCheck, CaseError> {
        let mut after = AfterCheck::default();
        let (Some(path), Some(before)) = (&def.root, &isolated.before) else {
            return Ok(after);
        };
        match isolation::fingerprint(path, &isolated.exclude, budget, Some(before)) {
            Ok(now) => {
                // In place, what git ignores is the tool's own output
                // (target/, logs/): no change to the project as committed,
                // by the rules as they stood when the case started.
                let c = match def.isolation {
                    Isolation::Check => {
                        super::git::unignored_changes(path, isolated.rules.as_ref(), before, &now)
                    }
                    Isolation::Copy => before.diff(&now),
                };
                if !c.is_empty() {
                    // The issue summarises and names the fix that fits;
                    // evidence.json lists every entry.
                    after.changes = Some(format!("{}; {}", c.summary(), modified_fix(def, &c)));
                    rec.golden_changes = Some(c);
                }
            }
            Err(IsolationError::Stopped(stop)) => {
                rec.warnings.push(stopped_warning(
                    stop,
                    def,
                    "while checking the project for changes",
                ));
                after.stop = Some(stop);
            }
            // A project the command removed is a modification, not a
            // project that cannot be read.
            Err(_)
                if std::fs::symlink_metadata(path)
                    .is_err_and(|e| e.kind() == ErrorKind::NotFound) =>
            {
                after.changes = Some("the golden project was removed".to_string());
            }
            Err(source) => {
                return Err(CaseError::RereadGolden {
                    path: path.clone(),
                    source,
                });
            }
        }
        Ok(after)
    }

    /// Run the command, capturing both streams, and record what it did.
    fn run_command(
        &self,
        def: &CaseDef,
        isolated: &Isolated,
        files: (std::fs::File, std::fs::File),
        stderr_log: &Path,
        (deadline, tick): (Instant, &dyn Fn()),
        rec: &mut CaseRecord,
    ) -> Result<Executed, CaseError> {
        let patterns = self
            .patterns_for(def)?
            .for_expected(&def.expected)
            .requiring(self.harness.require_for(def))?;
        let mut out = Capture::new(
            files.0,
            self.harness.truncate,
            patterns.classifier(),
            // The hash covers command.txt as stored: masked.
            Some(crate::hash::EvidenceHasher::after_command(&rec.raw_command)),
            &self.redactor,
        )
        .live(self.live);
        let mut err = Capture::new(
            files.1,
            self.harness.truncate,
            patterns.classifier(),
            None,
            &self.redactor,
        )
        .live(self.live);
        let spec = process::Spec {
            command: &isolated.command,
            working_dir: &isolated.working_dir,
            env: &self.harness.env_for(def),
            hidden_env: self.hidden_env,
            deadline,
            shell: &self.harness.shell,
            kill_grace: self.harness.kill_grace,
            leak_wait: self.harness.leak_wait,
            tick,
        };
        // A stop asked for (a first signal) kills the case.
        let stop = || self.interrupt.as_ref().is_some_and(|i| i.requested());
        let outcome = process::run(&spec, &mut out, &mut err, &stop)?;
        // Known before the logs are finished: a case whose last write
        // fails still ran to this exit code.
        rec.exit_code = Some(outcome.exit_code);
        rec.signal = outcome.signal;

        let write_logs = |source| CaseError::WriteLogs { source };
        let out = out.finish().map_err(write_logs)?;
        let err = err.finish().map_err(write_logs)?;
        if let Some(h) = out.evidence {
            rec.evidence_hash = Some(
                capture::evidence_finish(h, &err, stderr_log, rec.exit_code)
                    .map_err(|source| CaseError::HashStderr { source })?,
            );
        }
        rec.stdout = out.excerpt;
        rec.stderr = err.excerpt;
        rec.stdout_end = out.end;
        rec.stderr_end = err.end;
        rec.timed_out = outcome.timed_out;
        rec.interrupted = outcome.interrupted;
        rec.redactions.stdout = out.redactions;
        rec.redactions.stderr = err.redactions;
        self.warn_about(def, &outcome, rec);
        Ok(Executed {
            stdout: out.findings,
            stderr: err.findings,
            changes: None,
            result: None,
            outputs: Vec::new(),
            timed_out: outcome.timed_out,
            interrupted: outcome.interrupted,
            ran: true,
        })
    }

    /// Warnings about how the case's processes ended.
    fn warn_about(&self, def: &CaseDef, outcome: &process::Outcome, rec: &mut CaseRecord) {
        if outcome.timed_out {
            rec.warnings.push(format!(
                "timed out after {}: the case's processes were killed",
                humantime::format_duration(def.timeout)
            ));
        }
        if outcome.interrupted {
            rec.warnings
                .push("interrupted: the case's processes were killed".to_string());
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
                "{}: a background process still held the output open {} after the main process exited; the case's processes were killed",
                crate::model::finding::LEAKED,
                humantime::format_duration(self.harness.leak_wait)
            ));
        }
        if outcome.guardian_lost {
            rec.warnings.push(format!(
                "{} while this case ran (a case runs as the same user and can signal it): a harness killed outright can no longer take the cases' descendants with it; later cases get a parent-death signal instead",
                crate::model::finding::GUARDIAN_LOST
            ));
        }
        if !outcome.left_behind.is_empty() {
            rec.warnings.push(format!(
                "{} were killed when the case ended (background jobs, or escaped from its process group): {}",
                crate::model::finding::LEFT_RUNNING,
                crate::ansi::name_list(&outcome.left_behind)
            ));
        }
    }

    /// Fingerprint the golden project, copy it too under `copy`, and say
    /// where and what to run. The fingerprint of the first attempt,
    /// kept in `first`, is the one every later attempt is checked against.
    fn isolate(
        &self,
        def: &CaseDef,
        budget: isolation::Budget<'_>,
        first: &mut Option<Rc<isolation::Fingerprint>>,
        rec: &mut CaseRecord,
    ) -> Result<Isolated, CaseError> {
        let mut iso = Isolated {
            command: def.command.clone(),
            working_dir: def.working_dir.clone(),
            before: None,
            exclude: Exclude::default(),
            rules: None,
            _copy: None,
        };
        let (Some(file), Some(path)) = (&def.path, &def.root) else {
            return Ok(iso);
        };
        if !file.exists() {
            return Err(CaseError::GoldenMissing { path: file.clone() });
        }
        // The original is fingerprinted under `copy` too: a command that
        // reaches it by an absolute path is seen (docs/guarantees.md,
        // Isolation is exact and bounded).
        iso.exclude = Exclude::new(path, &def.ignore, Some(&self.out_dir));
        let (fp, copied) = self.fingerprint(def, path, &iso.exclude, budget, first)?;
        if !fp.unreadable.is_empty() {
            rec.warnings.push(format!(
                "isolation check: cannot read {} (permission denied): only kind and mode are compared",
                crate::ansi::name_list(&fp.unreadable)
            ));
        }
        iso.before = Some(fp);
        match def.isolation {
            Isolation::Check => iso.rules = super::git::IgnoreRules::look(path),
            Isolation::Copy => {
                let (copy, copied) = match copied {
                    Some(both) => both,
                    None => {
                        let copy = CopyDir::new(self.interrupt.clone())
                            .map_err(|source| CaseError::TempCopy { source })?;
                        let copied = isolation::copy_into(path, copy.path(), &iso.exclude, budget)
                            .map_err(|e| CaseError::copy_golden(path, e))?;
                        (copy, copied)
                    }
                };
                for note in &copied.notes {
                    rec.warnings.push(format!("isolation copy: {note}"));
                }
                // The project directory is copied whole; `{path}` names the
                // copy of the file (or directory) the case declared.
                iso.working_dir = in_copy(&def.working_dir, path, &copied.path);
                iso.command = crate::config::substitute(
                    &self.harness.shell,
                    &def.command_template,
                    &in_copy(file, path, &copied.path),
                    &iso.working_dir,
                    &def.name,
                );
                iso._copy = Some(copy);
            }
        }
        Ok(iso)
    }

    /// The fingerprint of the project at `path` that attempts are checked
    /// against: taken by the first attempt (and kept in `first`), under
    /// `copy` as it copies the project, reading each file once: then the
    /// copy too.
    fn fingerprint(
        &self,
        def: &CaseDef,
        path: &Path,
        exclude: &Exclude,
        budget: isolation::Budget<'_>,
        first: &mut Option<Rc<isolation::Fingerprint>>,
    ) -> Result<(Rc<isolation::Fingerprint>, Option<CopyMade>), CaseError> {
        // Under `copy` the first attempt fingerprints the original as it
        // copies it, reading each file once.
        let mut copied = None;
        let fp = match first {
            Some(fp) => Rc::clone(fp),
            None if def.isolation == Isolation::Copy => {
                let copy = CopyDir::new(self.interrupt.clone())
                    .map_err(|source| CaseError::TempCopy { source })?;
                let (done, fp) =
                    isolation::copy_and_fingerprint(path, copy.path(), exclude, budget).map_err(
                        |e| match &e {
                            // The original could not be read, as a walk of
                            // it would say.
                            IsolationError::Io { path: at, .. } if !at.starts_with(copy.path()) => {
                                CaseError::read_golden(path, e)
                            }
                            _ => CaseError::copy_golden(path, e),
                        },
                    )?;
                copied = Some((copy, done));
                Rc::clone(first.insert(Rc::new(fp)))
            }
            None => {
                let fp = isolation::fingerprint(path, exclude, budget, None)
                    .map_err(|e| CaseError::read_golden(path, e))?;
                Rc::clone(first.insert(Rc::new(fp)))
            }
        };
        Ok((fp, copied))
    }
}

/// What a case's walks and its command ask between chunks of work:
/// `tick` first, then whether `deadline` has passed or an interrupt was
/// asked for.
fn case_budget(
    tick: &dyn Fn(),
    deadline: Instant,
    interrupt: Option<Arc<Interrupt>>,
) -> impl Fn() -> Option<Stop> + '_ {
    move || {
        tick();
        if Instant::now() >= deadline {
            Some(Stop::TimedOut)
        } else if interrupt.as_ref().is_some_and(|i| i.requested()) {
            Some(Stop::Interrupted)
        } else {
            None
        }
    }
}

/// Where an attempt's evidence goes: its execution dir under the out dir,
/// and its full stdout and stderr logs.
struct AttemptPaths {
    dir: PathBuf,
    stdout_log: PathBuf,
    stderr_log: PathBuf,
}

/// What the working dir held before the command ran: the files its
/// structured result may be read from, and its data outputs. What the run
/// left as it was is not this run's result or output.
struct Before {
    result: super::result_files::Before,
    outputs: crate::data::OutputsBefore,
}

impl Before {
    fn look(def: &CaseDef, working_dir: &Path) -> Before {
        let result = (def.result.as_ref())
            .map(|spec| super::result_files::Before::look(spec, working_dir))
            .unwrap_or_default();
        Before {
            result,
            outputs: crate::data::OutputsBefore::look(&def.outputs, working_dir),
        }
    }
}

/// A copy of the project, and what making it found.
type CopyMade = (CopyDir, isolation::Copied);

/// An attempt's execution, settled: what ran (None when it could not),
/// why not, whether it had started, and the dirty files that kept it
/// from running.
struct Settled {
    ran: Option<Executed>,
    not_run: Option<String>,
    started: bool,
    dirty: Option<String>,
}

impl Settled {
    /// What the judge is given of the attempt of record `rec`; `changed`
    /// says how the project changed when the case could not be finished.
    fn facts<'a>(
        &'a self,
        rec: &CaseRecord,
        changed: Option<&'a str>,
        empty: &'a classify::StreamFindings,
    ) -> CaseFacts<'a> {
        let ran = self.ran.as_ref();
        CaseFacts {
            exit_code: rec.exit_code,
            signal: rec.signal,
            timed_out: ran.is_some_and(|r| r.timed_out),
            interrupted: ran.is_some_and(|r| r.interrupted),
            stdout: ran.map_or(empty, |r| &r.stdout),
            stderr: ran.map_or(empty, |r| &r.stderr),
            golden_modified: ran.and_then(|r| r.changes.as_deref()).or(changed),
            not_run_reason: self.not_run.as_deref(),
            started: self.started,
            dirty: self.dirty.as_deref(),
        }
    }
}

/// What the presets call warnings (dbt's `WARN=1`, a failure a retry
/// recovered from), stderr's first, each once.
fn output_warnings(rec: &mut CaseRecord, x: &Executed) {
    for w in x.stderr.warnings.iter().chain(&x.stdout.warnings) {
        let w = format!("the output says: {w}");
        if !rec.warnings.contains(&w) {
            rec.warnings.push(w);
        }
    }
}

/// The data outputs' digests and comparisons, as written, are under the
/// evidence hash too; so are the pending snapshots' digests.
fn chain_snapshots(rec: &mut CaseRecord) {
    if let Some(h) = &rec.evidence_hash {
        rec.evidence_hash = Some(crate::wire::evidence::chain(
            h,
            &rec.snapshots,
            crate::wire::evidence::SCHEMA_VERSION,
        ));
    }
}

/// Judge a case's structured result into its record: a result that cannot
/// be read fails the case (whatever it expects: the declared evidence is
/// not there); a result that reports failures fails a case expected to
/// succeed, each failure an issue. A case that expects a specific error
/// keeps the verdict of its output: a failing result is what it expects.
fn apply_result(
    def: &CaseDef,
    rec: &mut CaseRecord,
    read: super::result_files::ResultRead,
    rel: &str,
) {
    let Some(spec) = &def.result else {
        return;
    };
    let format = spec.format.as_str();
    let mut kept = crate::model::StructuredResult {
        format: format.to_string(),
        source: read.source,
        artifact: read.kept.map(|name| format!("{rel}/{name}")),
        failed: false,
        error: None,
    };
    let exit = rec
        .exit_code
        .map_or_else(|| "none".to_string(), |c| c.to_string());
    let issue = |message: String, detail: &str| crate::model::Issue {
        issue_type: crate::model::IssueType::ResultFailed,
        case: def.name.clone(),
        kind: def.kind,
        stage: crate::model::Stage::Execution,
        severity: if def.kind == crate::model::CaseKind::Golden {
            crate::model::Severity::High
        } else {
            crate::model::Severity::Medium
        },
        message,
        evidence: format!(
            "Exit code: {exit} | Result: {} ({format}) | {detail}",
            kept.source
        ),
    };
    match read.outcome {
        Err(why) => {
            let message = format!("Structured result ({format}): {why}");
            rec.issues.push(issue(message, "not read"));
            kept.error = Some(why);
        }
        Ok(parsed) => {
            kept.failed = parsed.failed;
            let success = matches!(def.expected, crate::config::Expected::Success);
            if parsed.failed && success {
                for f in &parsed.failures {
                    rec.issues.push(issue(f.message.clone(), &f.detail));
                }
                rec.validation_errors.extend(parsed.validation_errors);
            } else if parsed.ran == Some(0) && success && !spec.allow_empty {
                // A result that ran nothing is no pass, as output that
                // misses a `require` line is none.
                let message = format!(
                    "Nothing ran: the {format} result {} reports 0 {} run (`allow_empty = true` accepts that)",
                    kept.source, parsed.unit
                );
                let mut nothing = issue(message, "0 run");
                nothing.issue_type = crate::model::IssueType::NothingRan;
                rec.issues.push(nothing);
            }
        }
    }
    rec.structured_result = Some(kept);
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

/// The evidence hash of a case whose command wrote output but that could
/// not be finished (its log could not be written to the end, say): the
/// artifacts as stored, so the evidence never claims less than the logs
/// hold, with the exit code when it is known. None when there is neither
/// an exit code nor output (the command never ran).
fn partial_evidence(
    command: &Path,
    stdout: &Path,
    stderr: &Path,
    exit_code: Option<i32>,
) -> Option<String> {
    let len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    if exit_code.is_none() && len(stdout) == 0 && len(stderr) == 0 {
        return None;
    }
    crate::wire::evidence::case_hash(
        [command, stdout, stderr],
        exit_code,
        None,
        &[],
        crate::wire::evidence::SCHEMA_VERSION,
    )
    .ok()
}

/// Where a path of the project lies in the copy (the working dir, the
/// declared file): moved from the project to the copy when it lies inside
/// the project, however it is spelled (`..` is folded when the
/// declarations are read; symlinks are resolved here).
fn in_copy(working_dir: &Path, project_dir: &Path, copy_dir: &Path) -> PathBuf {
    // `join("")` would add a trailing separator.
    let join = |rel: &Path| {
        if rel.as_os_str().is_empty() {
            copy_dir.to_path_buf()
        } else {
            copy_dir.join(rel)
        }
    };
    if let Ok(rel) = working_dir.strip_prefix(project_dir) {
        return join(rel);
    }
    if let (Ok(w), Ok(p)) = (working_dir.canonicalize(), project_dir.canonicalize())
        && let Ok(rel) = w.strip_prefix(&p)
    {
        return join(rel);
    }
    working_dir.to_path_buf()
}

/// What to do about a golden project the run changed: under `copy` the
/// command reached the original from its copy; in place, a tool that
/// writes where it runs wants a copy, or its output left out.
fn modified_fix(def: &CaseDef, changes: &crate::model::GoldenChanges) -> String {
    if def.isolation == Isolation::Copy {
        return "the command wrote into the original project from its copy (an absolute path, or a link out of the copy?)".to_string();
    }
    // The first entry's top-level name, as an `ignore` glob.
    let first = (changes.added.iter())
        .chain(&changes.changed)
        .chain(&changes.removed)
        .map(|e| e.split(" (").next().unwrap_or(e))
        .find(|e| !e.is_empty() && !e.starts_with('('));
    let glob = match first.map(|e| e.split_once('/')) {
        Some(Some((dir, _))) => format!("{dir}/**"),
        Some(None) => first.unwrap_or_default().to_string(),
        None => "out/**".to_string(),
    };
    format!(
        "a tool that writes where it runs wants `isolation = \"copy\"` (the default), or its output left out with `ignore = [\"{glob}\"]` or .gitignore; `git restore`/`git clean` undoes the change"
    )
}

fn stopped_warning(stop: Stop, def: &CaseDef, when: &str) -> String {
    match stop {
        Stop::TimedOut => format!(
            "timed out after {} {when}: fingerprinting or copying the golden project counts towards the timeout",
            humantime::format_duration(def.timeout)
        ),
        Stop::Interrupted => format!("interrupted {when}"),
    }
}

/// What the check after the run found.
#[derive(Default)]
struct AfterCheck {
    /// The project's changes, described.
    changes: Option<String>,
    /// The walk was stopped before it ended.
    stop: Option<Stop>,
}

/// Where and how a case runs once its golden project is isolated.
struct Isolated {
    command: String,
    working_dir: PathBuf,
    /// The project's fingerprint before the run (under `copy`, of the
    /// original).
    before: Option<Rc<isolation::Fingerprint>>,
    /// What the fingerprints leave out.
    exclude: Exclude,
    /// Under `check`, git's ignore rules outside the project when the case
    /// started.
    rules: Option<super::git::IgnoreRules>,
    /// The temporary copy (`isolation = "copy"`), removed on drop.
    _copy: Option<CopyDir>,
}

/// A temporary copy of a golden project, known to the interrupt handling
/// so that even a second Ctrl-C removes it.
struct CopyDir {
    dir: Option<tempfile::TempDir>,
    interrupt: Option<Arc<Interrupt>>,
}

impl CopyDir {
    fn new(interrupt: Option<Arc<Interrupt>>) -> std::io::Result<CopyDir> {
        let dir = tempfile::Builder::new().prefix("cargo-golden-").tempdir()?;
        if let Some(i) = &interrupt {
            i.add_temp_dir(dir.path());
        }
        Ok(CopyDir {
            dir: Some(dir),
            interrupt,
        })
    }

    fn path(&self) -> &Path {
        self.dir.as_ref().map_or(Path::new(""), |d| d.path())
    }
}

impl Drop for CopyDir {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_path_buf();
            let _ = dir.close();
            if let Some(i) = &self.interrupt {
                i.remove_temp_dir(&path);
            }
        }
    }
}

/// Why a case could not run (its result is ERROR, the chain its reason).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CaseError {
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
    /// The golden project has uncommitted changes in its git work tree.
    #[error(
        "the golden project {} has uncommitted changes: {files}; restore them (`git restore` / `git clean` of those paths; a tool's own output belongs in .gitignore), or set allow_dirty = true",
        path.display()
    )]
    Dirty {
        /// The project.
        path: PathBuf,
        /// The changed entries, a bounded list.
        files: String,
    },
    /// The golden project's path does not exist.
    #[error("golden project path {} does not exist", path.display())]
    GoldenMissing {
        /// The declared path.
        path: PathBuf,
    },
    /// The golden project could not be fingerprinted before the run; the
    /// cause names the entry.
    #[error("cannot read the golden project {}", path.display())]
    ReadGolden {
        /// The project.
        path: PathBuf,
        /// The cause.
        #[source]
        source: IsolationError,
    },
    /// No temporary directory for the copy.
    #[error("cannot create a temporary copy")]
    TempCopy {
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The golden project could not be copied; the cause names the entry.
    #[error("cannot copy the golden project {}", path.display())]
    CopyGolden {
        /// The project.
        path: PathBuf,
        /// The cause.
        #[source]
        source: IsolationError,
    },
    /// The case's own patterns did not compile.
    #[error(transparent)]
    Patterns(#[from] classify::PatternError),
    /// The timeout or an interrupt came while fingerprinting or copying
    /// (handled as a timeout or an interrupt, never shown as an error).
    #[error("stopped before the command ran")]
    Stopped(Stop),
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
    /// The golden project could not be fingerprinted after the run; the
    /// cause names the entry.
    #[error("cannot re-read the golden project {}", path.display())]
    RereadGolden {
        /// The project.
        path: PathBuf,
        /// The cause.
        #[source]
        source: IsolationError,
    },
}

impl CaseError {
    /// The command had started when this went wrong: the case could not
    /// finish, rather than not run.
    fn after_start(&self) -> bool {
        matches!(
            self,
            CaseError::Spawn(process::SpawnError::Io(_) | process::SpawnError::Sink(_))
                | CaseError::WriteLogs { .. }
                | CaseError::HashStderr { .. }
                | CaseError::RereadGolden { .. }
        )
    }

    fn read_golden(path: &Path, e: IsolationError) -> CaseError {
        match e {
            IsolationError::Stopped(stop) => CaseError::Stopped(stop),
            source => CaseError::ReadGolden {
                path: path.to_path_buf(),
                source,
            },
        }
    }

    fn copy_golden(path: &Path, e: IsolationError) -> CaseError {
        match e {
            IsolationError::Stopped(stop) => CaseError::Stopped(stop),
            source => CaseError::CopyGolden {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// What a case that ran left for judging.
struct Executed {
    stdout: classify::StreamFindings,
    stderr: classify::StreamFindings,
    /// Description of golden files changed by the run.
    changes: Option<String>,
    /// The structured result, when the case declares one.
    result: Option<super::result_files::ResultRead>,
    /// The data outputs (`outputs`), read before a copy is removed.
    outputs: Vec<crate::data::OutputRead>,
    timed_out: bool,
    interrupted: bool,
    /// The command was started (false: stopped during isolation).
    ran: bool,
}

impl Executed {
    /// Stopped before the command started.
    fn stopped(stop: Stop) -> Executed {
        Executed {
            stdout: classify::StreamFindings::default(),
            stderr: classify::StreamFindings::default(),
            changes: None,
            result: None,
            outputs: Vec::new(),
            timed_out: stop == Stop::TimedOut,
            interrupted: stop == Stop::Interrupted,
            ran: false,
        }
    }
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
        )
        // Data diffs quote values of the data, not of the masked logs; a
        // check's detail goes into its issue.
        .chain(
            (rec.snapshots.iter_mut()).flat_map(|s| s.diff.iter_mut().chain(s.detail.iter_mut())),
        );
    for t in texts {
        redactor.mask_in_place(t);
    }
    let changed = rec.golden_changes.iter_mut().flat_map(|c| {
        c.added
            .iter_mut()
            .chain(c.changed.iter_mut())
            .chain(c.removed.iter_mut())
    });
    for t in changed {
        redactor.mask_in_place(t);
    }
    let dir = rec.working_dir.to_string_lossy();
    if let (std::borrow::Cow::Owned(masked), _) = redactor.mask_str(&dir) {
        rec.working_dir = PathBuf::from(masked);
    }
}

/// Today's date in UTC: what a quarantine's `until` is compared with.
fn today() -> crate::time::Date {
    crate::time::Timestamp::now().date()
}
