//! The scheduler, one for both front doors: declaration order (or up to
//! `jobs` at once), cases that start `after` others, the admission of
//! `exclusive` cases, fail-fast, skip reasons, retries, interrupts, and the
//! assembly of the run record. It emits events and never writes a report.
//!
//! Cases are taken in [`Run::order`]: declaration order, except that a case
//! comes after every case it is `after`. A case waits, before admission,
//! until each of those has its record (it ran, or was skipped): since they
//! were all taken before it, each is running, waiting or done, so the wait
//! ends. `after` orders cases; it does not make one depend on another's
//! success, so a case runs whatever the ones before it did.
//!
//! A [`Run`] is driven by whoever owns the threads: `cargo golden` calls
//! [`Run::run_all`], which starts its own workers; the libtest-mimic
//! harness calls [`Run::run_case`] from each libtest trial, on libtest's
//! threads (`--test-threads`). Either way every case passes the same admission
//! and [`Run::finish`] assembles the one record.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use super::case::Engine;
use super::{EngineError, RunOptions};
use crate::config::{CaseDef, HarnessConfig};
use crate::events::{Event, Fanout};
use crate::model::{CaseRecord, EmptySelection, NoCases, RunRecord, SkipReason};
use crate::runner::select::{Partition, why_nothing};

const INTERRUPTED: &str = SkipReason::Interrupted.as_str();
const FAIL_FAST: &str = SkipReason::FailFast.as_str();
const FILTERED_OUT: &str = SkipReason::FilteredOut.as_str();
const NOT_RUN: &str = SkipReason::NotRun.as_str();

/// Which cases of `harness` a run with `partition` includes.
pub(crate) fn included<'a>(
    harness: &'a HarnessConfig,
    partition: Option<&Partition>,
) -> Vec<&'a CaseDef> {
    harness
        .cases
        .iter()
        .filter(|c| partition.is_none_or(|p| p.includes(c.index, &c.name)))
        .collect()
}

/// Run-level warnings (shown in the terminal and the reports).
pub(crate) fn run_warnings(harness: &HarnessConfig) -> Vec<String> {
    let mut w = Vec::new();
    // `require_golden = false` written out says a verify-only harness is
    // meant: nothing to warn about.
    if harness.golden_count() == 0 && harness.require_golden_at.is_none() {
        w.push(
            "no golden project is declared, so only verify commands ran: declare [[golden]] projects to guard them, or write `require_golden = false` under [harness] if that is intended"
                .to_string(),
        );
    }
    w
}

/// Kill what the cases left behind that no case's own end could attribute
/// (a process that cleared its environment while other cases ran), and say
/// so.
fn leftovers_warning() -> Option<String> {
    let killed = super::process::sweep_all();
    (!killed.is_empty()).then(|| {
        format!(
            "processes left behind by the cases were killed when the run ended: {}",
            crate::ansi::name_list(&killed)
        )
    })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking case thread must not take the whole run down with it:
    // the data behind these locks stays consistent at every await point.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Which preset each tool's cases got by their command, said once: a
/// verdict depends on it. None when no case's preset was chosen so.
fn presets_note(cases: &[&CaseDef]) -> Option<String> {
    let mut by_tool: Vec<(String, &str, Vec<String>)> = Vec::new();
    for c in cases {
        for (tool, preset) in c.preset_tools.iter().zip(&c.presets) {
            match by_tool
                .iter_mut()
                .find(|(t, p, _)| t == tool && *p == preset)
            {
                Some((_, _, names)) => names.push(c.name.clone()),
                None => by_tool.push((tool.clone(), preset, vec![c.name.clone()])),
            }
        }
    }
    if by_tool.is_empty() {
        return None;
    }
    let parts: Vec<String> = by_tool
        .iter()
        .map(|(tool, preset, names)| {
            format!(
                "preset `{preset}` for {} case(s) whose command runs {tool} ({})",
                names.len(),
                crate::ansi::name_list(names)
            )
        })
        .collect();
    Some(format!(
        "{}; `presets = [...]` under [harness] or in a case names others, `presets = []` none",
        parts.join("; ")
    ))
}

/// Admission of cases: an `exclusive` case runs alone. A waiting exclusive
/// case holds back cases that arrive after it, so it is not starved by
/// later ones and runs at its place in declaration order.
#[derive(Default)]
struct Admission {
    state: Mutex<AdmissionState>,
    cv: Condvar,
}

#[derive(Default)]
struct AdmissionState {
    running: usize,
    exclusive_running: bool,
    exclusive_waiting: usize,
}

/// A case's pass through the admission; leaving it on drop, even on a panic.
struct Pass<'g>(&'g Admission);

impl Admission {
    fn enter(&self, exclusive: bool) -> Pass<'_> {
        let mut s = lock(&self.state);
        if exclusive {
            s.exclusive_waiting += 1;
            while s.running > 0 {
                s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            s.exclusive_waiting -= 1;
            s.exclusive_running = true;
        } else {
            while s.exclusive_running || s.exclusive_waiting > 0 {
                s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
            }
        }
        s.running += 1;
        Pass(self)
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        let mut s = lock(&self.0.state);
        s.running -= 1;
        s.exclusive_running = false;
        self.0.cv.notify_all();
    }
}

/// Positions in `cases` (sorted by declaration index) in the order cases
/// are taken: declaration order, the cases named in `first` before the
/// others, except that a case comes after every case of `cases` it is
/// `after` (the loader refuses cycles).
fn run_order(cases: &[&CaseDef], first: &[String]) -> Vec<usize> {
    let rank = |p: usize| (usize::from(!first.contains(&cases[p].name)), p);
    let mut waits_for = vec![0; cases.len()];
    let mut followers: Vec<Vec<usize>> = vec![Vec::new(); cases.len()];
    for (pos, case) in cases.iter().enumerate() {
        for dep in after_positions(cases, case) {
            waits_for[pos] += 1;
            followers[dep].push(pos);
        }
    }
    let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..cases.len())
        .filter(|&p| waits_for[p] == 0)
        .map(|p| Reverse(rank(p)))
        .collect();
    let mut order = Vec::with_capacity(cases.len());
    while let Some(Reverse((_, pos))) = ready.pop() {
        order.push(pos);
        for &f in &followers[pos] {
            waits_for[f] -= 1;
            if waits_for[f] == 0 {
                ready.push(Reverse(rank(f)));
            }
        }
    }
    debug_assert_eq!(order.len(), cases.len(), "a cycle of `after`");
    order
}

/// Positions in `cases` of the cases `case` is `after`; one that is not in
/// this run (another partition) is not waited for.
fn after_positions<'c>(
    cases: &'c [&CaseDef],
    case: &'c CaseDef,
) -> impl Iterator<Item = usize> + 'c {
    case.after
        .iter()
        .filter_map(|i| cases.binary_search_by_key(i, |c| c.index).ok())
}

/// One run of the included cases of a harness.
pub(crate) struct Run<'h> {
    harness: &'h HarnessConfig,
    engine: Engine<'h>,
    opts: RunOptions,
    cases: Vec<&'h CaseDef>,
    /// Positions in `cases`, in the order they are taken.
    order: Vec<usize>,
    warnings: Vec<String>,
    /// Set when neither the filters nor the partition leave a case to run.
    empty_selection: Option<EmptySelection>,
    admission: Admission,
    /// Fail-fast tripped.
    stop: AtomicBool,
    /// An interrupt cut a case short or kept one from running.
    cut_short: AtomicBool,
    /// The note that a golden project was not checked for uncommitted
    /// changes was emitted.
    noted: AtomicBool,
    slots: Mutex<Vec<Option<CaseRecord>>>,
    /// Notified each time a slot is filled, for cases waiting on `after`.
    recorded: Condvar,
    /// A case thread panicked: its slot may never be filled, so no case
    /// waits any longer.
    abandoned: AtomicBool,
    fanout: Mutex<Fanout>,
    started_at: crate::time::Timestamp,
    clock: Instant,
}

impl<'h> Run<'h> {
    /// Prepare the run (patterns compiled, output directory created) and
    /// emit `RunStarted` and the run-level warnings.
    pub(crate) fn start(
        harness: &'h HarnessConfig,
        opts: RunOptions,
        fanout: Fanout,
    ) -> Result<Run<'h>, EngineError> {
        let mut engine = Engine::new(
            harness,
            &opts.out_dir,
            opts.run_id.clone(),
            opts.interrupt.clone(),
        )?;
        engine.retries = opts.retries;
        engine.live = opts.no_capture;
        engine.hidden_env = opts.hidden_env;
        engine.set_bless(opts.bless);
        let cases = included(harness, opts.partition.as_ref());
        let mut warnings = run_warnings(harness);
        let empty_selection = empty_selection(harness, &cases, &opts);
        if let Some(e) = &empty_selection
            && e.policy != NoCases::Pass
        {
            warnings.push(e.reason.clone());
        }
        let run = Run {
            harness,
            engine,
            warnings,
            empty_selection,
            admission: Admission::default(),
            stop: AtomicBool::new(false),
            cut_short: AtomicBool::new(false),
            noted: AtomicBool::new(false),
            slots: Mutex::new(cases.iter().map(|_| None).collect()),
            recorded: Condvar::new(),
            abandoned: AtomicBool::new(false),
            order: run_order(&cases, &opts.first),
            cases,
            opts,
            fanout: Mutex::new(fanout),
            started_at: crate::time::Timestamp::now(),
            clock: Instant::now(),
        };
        run.emit(&Event::RunStarted {
            run_id: run.engine.run_id(),
            suite_name: &harness.name,
            case_count: run.cases.len(),
        });
        for w in &run.warnings {
            run.emit(&Event::Warning { message: w });
        }
        if let Some(note) = presets_note(&run.cases) {
            run.emit(&Event::Note { message: &note });
        }
        let mut never = Vec::new();
        for c in &run.cases {
            for n in crate::classify::never_firing(&harness.patterns_for(c)) {
                if !never.contains(&n) {
                    never.push(n);
                }
            }
        }
        for n in &never {
            run.emit(&Event::Warning { message: n });
        }
        Ok(run)
    }

    /// The secrets this run masks.
    pub(crate) fn redactor(&self) -> &crate::redact::Redactor {
        self.engine.redactor()
    }

    /// The included cases, in declaration order; a case's position here is
    /// what [`Run::run_case`] takes.
    pub(crate) fn cases(&self) -> &[&'h CaseDef] {
        &self.cases
    }

    /// Positions in [`Run::cases`] in the order cases must be taken so that
    /// none waits for one taken after it: declaration order, except that a
    /// case comes after those it is `after`.
    pub(crate) fn order(&self) -> &[usize] {
        &self.order
    }

    fn emit(&self, event: &Event<'_>) {
        lock(&self.fanout).emit(event);
    }

    fn interrupted(&self) -> bool {
        self.opts.interrupt.as_ref().is_some_and(|i| i.requested())
    }

    /// Why `def` must not start now, if it must not.
    fn reason_to_skip(&self, def: &CaseDef) -> Option<std::borrow::Cow<'static, str>> {
        use super::Ignored;
        let ignored = match (self.opts.ignored, &def.ignored) {
            (Ignored::Skip, Some(why)) => Some(format!("ignored: {why}").into()),
            (Ignored::Only, None) => Some(FILTERED_OUT.into()),
            _ => None,
        };
        if self.interrupted() {
            Some(INTERRUPTED.into())
        } else if !self.opts.filter.matches(&def.name) {
            Some(FILTERED_OUT.into())
        } else if ignored.is_some() {
            ignored
        } else if self.stop.load(Ordering::SeqCst) {
            Some(FAIL_FAST.into())
        } else {
            None
        }
    }

    /// Cases run at once: `--jobs`, else the harness file's `jobs`.
    fn jobs(&self) -> usize {
        match self.opts.jobs {
            // Live output of cases at once would interleave.
            _ if self.opts.no_capture => 1,
            0 => self.harness.jobs,
            n => n,
        }
    }

    /// Run every case on up to `jobs` worker threads (`--jobs`, else the
    /// harness file's `jobs`), taking them in declaration order.
    pub(crate) fn run_all(&self) {
        let jobs = self.jobs().clamp(1, self.cases.len().max(1));
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..jobs {
                s.spawn(|| {
                    while let Some(&pos) = self.order.get(next.fetch_add(1, Ordering::SeqCst)) {
                        self.run_case(pos, |_| ());
                    }
                });
            }
        });
    }

    /// Run the case at `pos` of [`Run::cases`] (or skip it, with its
    /// reason): wait for admission, run it with its retries, emit its events,
    /// keep its record, and hand the record to `inspect`.
    pub(crate) fn run_case<R>(&self, pos: usize, inspect: impl FnOnce(&CaseRecord) -> R) -> R {
        let def = self.cases[pos];
        let _watch = PanicWatch(self);
        self.wait_for_after(def);
        let rec = match self.reason_to_skip(def) {
            Some(reason) => self.engine.skipped_record(def, &reason),
            None => self.admit_and_run(def),
        };
        // Only an interrupt seen before a case ended counts: one that
        // arrives after the last case finished leaves the run complete.
        if self.interrupted() {
            self.cut_short.store(true, Ordering::SeqCst);
        }
        self.record(pos, rec, inspect)
    }

    /// Wait until every case `def` is `after` has its record.
    fn wait_for_after(&self, def: &CaseDef) {
        let deps: Vec<usize> = after_positions(&self.cases, def).collect();
        if deps.is_empty() {
            return;
        }
        let mut slots = lock(&self.slots);
        while deps.iter().any(|&p| slots[p].is_none()) && !self.abandoned.load(Ordering::SeqCst) {
            slots = self.recorded.wait(slots).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn admit_and_run(&self, def: &CaseDef) -> CaseRecord {
        let pass = self.admission.enter(def.exclusive);
        // Waiting for admission can outlast a failure or an interrupt: look
        // again before starting.
        if let Some(reason) = self.reason_to_skip(def) {
            return self.engine.skipped_record(def, &reason);
        }
        self.emit(&Event::CaseStarted {
            index: def.index,
            name: &def.name,
            kind: def.kind,
        });
        let rec = self.run_watched(def);
        // Before giving up its pass: a case waiting for admission must see the stop.
        if self.opts.fail_fast && rec.result.is_failure() {
            self.stop.store(true, Ordering::SeqCst);
        }
        drop(pass);
        rec
    }

    /// Run `def`, emitting `CaseSlow` each `slow` period it is still
    /// running. The case's own wait loop ticks (a thread per case cost
    /// 0.4 ms a case, measured, about half of spawning `sh` itself).
    fn run_watched(&self, def: &CaseDef) -> CaseRecord {
        let start = std::time::Instant::now();
        let next = std::cell::Cell::new(def.slow);
        let tick = || {
            let due = next.get();
            if start.elapsed() >= due {
                self.emit(&Event::CaseSlow {
                    index: def.index,
                    name: &def.name,
                    kind: def.kind,
                    elapsed: due,
                });
                next.set(due.saturating_add(def.slow));
            }
        };
        self.engine.run_case_ticking(def, &tick)
    }

    /// Record the case at `pos` as not run, for `reason` (a front door
    /// that filtered it out itself).
    pub(crate) fn skip(&self, pos: usize, reason: &str) {
        self.record(
            pos,
            self.engine.skipped_record(self.cases[pos], reason),
            |_| (),
        );
    }

    fn record<R>(&self, pos: usize, rec: CaseRecord, inspect: impl FnOnce(&CaseRecord) -> R) -> R {
        if let Some(note) = self.engine.unchecked_note()
            && !self.noted.swap(true, Ordering::SeqCst)
        {
            self.emit(&Event::Note { message: &note });
        }
        self.emit(&Event::CaseFinished { case: &rec });
        let out = inspect(&rec);
        lock(&self.slots)[pos] = Some(rec);
        self.recorded.notify_all();
        out
    }

    /// The run record, cases in declaration order, and the reporters back
    /// (for `RunFinished`, once the reports are written and checked).
    pub(crate) fn finish(&self) -> (RunRecord, Fanout) {
        let mut warnings = self.warnings.clone();
        if let Some(w) = leftovers_warning() {
            self.emit(&Event::Warning { message: &w });
            warnings.push(w);
        }
        let slots = std::mem::take(&mut *lock(&self.slots));
        let cases = slots
            .into_iter()
            .zip(&self.cases)
            .map(|(slot, def)| slot.unwrap_or_else(|| self.engine.skipped_record(def, NOT_RUN)))
            .collect();
        let record = RunRecord {
            run_id: self.engine.run_id().to_string(),
            suite_name: self.harness.name.clone(),
            harness_path: self.harness.file.clone().unwrap_or_default(),
            harness_sha256: self.harness.sha256.clone(),
            out_dir: self.opts.out_dir.clone(),
            started_at: self.started_at,
            hostname: super::hostname(),
            junit: self.opts.junit.unwrap_or(self.harness.junit),
            jobs: self.jobs(),
            duration: self.clock.elapsed(),
            cases,
            partition: self.opts.partition.map(|p| p.to_string()),
            declared_cases: self.harness.cases.len(),
            interrupted: self.cut_short.load(Ordering::SeqCst),
            warnings,
            empty_selection: self.empty_selection.clone(),
            baseline: None,
        };
        (record, std::mem::take(&mut *lock(&self.fanout)))
    }
}

/// Ends every wait on `after` when a case thread panics, whose record may
/// then never come.
struct PanicWatch<'r, 'h>(&'r Run<'h>);

impl Drop for PanicWatch<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abandoned.store(true, Ordering::SeqCst);
            // Under the lock, so no waiter misses it between its check and
            // its wait.
            let _slots = lock(&self.0.slots);
            self.0.recorded.notify_all();
        }
    }
}

/// Set when the filters, the partition or the cases' `ignored` marks
/// leave no case to run.
fn empty_selection(
    harness: &HarnessConfig,
    cases: &[&CaseDef],
    opts: &RunOptions,
) -> Option<EmptySelection> {
    let selected: Vec<(&str, Option<&str>)> = cases
        .iter()
        .filter(|c| opts.filter.matches(&c.name))
        .map(|c| (c.name.as_str(), c.ignored.as_deref()))
        .collect();
    let reason = if selected.is_empty() {
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        why_nothing(
            harness.cases.len(),
            opts.partition.as_ref(),
            &names,
            &opts.filter,
        )
    } else if selected
        .iter()
        .any(|(_, why)| opts.ignored.runs(why.is_some()))
    {
        return None;
    } else {
        super::select::why_all_ignored(opts.ignored, &selected)
    };
    Some(EmptySelection {
        reason,
        policy: opts.no_cases,
    })
}

/// Run every included case with `opts` and return the run record and the
/// reporters (the reports are written by `crate::report::conclude`).
pub(crate) fn run(
    harness: &HarnessConfig,
    opts: RunOptions,
    fanout: Fanout,
) -> Result<(RunRecord, Fanout), EngineError> {
    let run = Run::start(harness, opts, fanout)?;
    run.run_all();
    Ok(run.finish())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::CaseResult;
    use crate::runner::interrupt::Interrupt;

    /// A harness of `cases` verify commands (`true`) in a temp dir.
    fn harness(dir: &std::path::Path, cases: usize) -> HarnessConfig {
        let toml: String = (0..cases)
            .map(|i| format!("[[verify]]\nname = \"c{i}\"\ncommand = \"true\"\n"))
            .collect();
        let file = dir.join("harness.toml");
        std::fs::write(&file, toml).unwrap();
        HarnessConfig::load(&file, None).unwrap()
    }

    fn options(dir: &std::path::Path, interrupt: &Arc<Interrupt>) -> RunOptions {
        RunOptions {
            out_dir: dir.join("out"),
            interrupt: Some(Arc::clone(interrupt)),
            ..RunOptions::default()
        }
    }

    #[test]
    fn an_interrupt_after_the_last_case_leaves_the_run_complete() {
        let dir = tempfile::tempdir().unwrap();
        let h = harness(dir.path(), 2);
        let interrupt = Interrupt::new();
        let run = Run::start(&h, options(dir.path(), &interrupt), Fanout::default()).unwrap();
        run.run_all();
        interrupt.request();
        let (record, _) = run.finish();
        assert!(!record.interrupted);
        assert!(record.cases.iter().all(|c| c.result == CaseResult::Passed));
        assert_eq!(
            crate::conclusion::Results::of(&record).exit_code,
            crate::conclusion::SUCCESS
        );
    }

    #[test]
    fn an_interrupt_before_the_last_case_interrupts_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let h = harness(dir.path(), 2);
        let interrupt = Interrupt::new();
        let run = Run::start(&h, options(dir.path(), &interrupt), Fanout::default()).unwrap();
        run.run_case(0, |_| ());
        interrupt.request();
        run.run_case(1, |_| ());
        let (record, _) = run.finish();
        assert!(record.interrupted);
        assert_eq!(record.cases[0].result, CaseResult::Passed);
        assert_eq!(record.cases[1].reason.as_deref(), Some(INTERRUPTED));
        assert_eq!(
            crate::conclusion::Results::of(&record).exit_code,
            crate::conclusion::INTERRUPTED
        );
    }
}
