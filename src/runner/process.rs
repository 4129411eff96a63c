//! Runs one command: the harness's shell in a container of its own (a
//! process group; a Job Object on Windows), both pipes streamed to sinks,
//! timeout with a grace period, leak wait, container kill, and the sweep
//! of whatever the case left running.
//!
//! The platform's `Watch` waits on both pipes and the exit at once, so the
//! run can end at any moment (timeout, leaked descendants holding a pipe,
//! interrupt) without this loop blocked on a read.
//!
//! Containment. Every case process carries an environment token
//! ([`TOKEN_VAR`], unique per spawn). Once [`contain`] made the harness a
//! child subreaper (Linux), processes that leave the case's group and are
//! orphaned (`setsid cmd &`, a double fork) come back to the harness as its
//! children; when the case ends, the inherited children carrying its token
//! are killed with their descendants. The token is read from
//! `/proc/<pid>/environ` rather than inferred from parentage because an
//! orphan's parentage is exactly what was lost; it survives `setsid`,
//! double forks and group changes, and only a process that clears its own
//! environment drops it (those are swept when no other case runs, and at
//! the end of the run). The sweep costs one read of
//! `/proc/self/task/*/children` per case when nothing was inherited. On
//! Windows the Job Object holds every descendant, so nothing comes back
//! and the sweep finds nothing.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::sys::{self, Signal};
pub(crate) use super::sys::{Answer, ProcInfo};
use crate::shell::Shell;

/// The environment variable that marks every process of a case.
pub(crate) const TOKEN_VAR: &str = "CARGO_GOLDEN_CASE_TOKEN";
/// `off` in the harness's environment: no guardian process; a case's main
/// process then gets a parent-death signal instead (it alone dies with
/// the harness).
pub(crate) const GUARDIAN_VAR: &str = "CARGO_GOLDEN_GUARDIAN";

/// Receives one stream's bytes as they are read.
pub(crate) trait Sink {
    /// Handle the next chunk.
    fn write(&mut self, chunk: &[u8]) -> io::Result<()>;
}

/// What to run and its limits.
#[derive(Clone)]
pub(crate) struct Spec<'a> {
    /// Passed to the shell.
    pub(crate) command: &'a str,
    /// The shell that runs it.
    pub(crate) shell: &'a Shell,
    /// Working directory (must exist).
    pub(crate) working_dir: &'a Path,
    /// Added to the parent's environment.
    pub(crate) env: &'a BTreeMap<String, String>,
    /// Removed from the parent's environment (before `env` is added).
    pub(crate) hidden_env: &'a [&'a str],
    /// When the case's time is up (its timeout counts from before the
    /// isolation work, which may already have used part of it).
    pub(crate) deadline: Instant,
    /// SIGTERM → SIGKILL delay.
    pub(crate) kill_grace: Duration,
    /// How long pipes may stay open after the main process exited.
    pub(crate) leak_wait: Duration,
    /// Called at least every 50 ms while the command runs.
    pub(crate) tick: &'a dyn Fn(),
}

/// How a run ended.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    /// Exit code, 128+N when killed by signal N.
    pub(crate) exit_code: i32,
    /// The signal that ended the command, if one did.
    pub(crate) signal: Option<i32>,
    /// The timeout fired.
    pub(crate) timed_out: bool,
    /// The harness was interrupted while it ran.
    pub(crate) interrupted: bool,
    /// Descendants still held a pipe after the main process exited.
    pub(crate) leaked: bool,
    /// Processes of the case still running when it ended, killed then
    /// (`pid N (command)`): background jobs and processes that escaped
    /// its group. Empty where inherited processes cannot be found.
    pub(crate) left_behind: Vec<String>,
    /// The run's guardian died while the case ran: the case (or something
    /// else of this user's) killed it. Later cases fall back to the
    /// parent-death signal.
    pub(crate) guardian_lost: bool,
}

/// The command could not be started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpawnError {
    /// The working directory is missing or not a directory.
    #[error("working directory {} does not exist or is not a directory", .0.display())]
    WorkingDir(std::path::PathBuf),
    /// The shell could not be started.
    #[error("cannot start `{0}`")]
    Spawn(String, #[source] io::Error),
    /// Reading the pipes failed.
    #[error("reading the command's output failed")]
    Io(#[source] io::Error),
    /// A sink failed (e.g. the disk is full).
    #[error("writing the command's output failed")]
    Sink(#[source] io::Error),
}

/// How often an idle wait looks at the interrupt flag.
const TICK: Duration = Duration::from_millis(50);
/// How long a sweep waits for one SIGKILLed process to be reapable.
const REAP_LIMIT: Duration = Duration::from_secs(2);

/// Case main processes started and not yet reaped, by pid, with their
/// tokens. Held across spawn-and-insert and across sweeps, so a sweep never
/// mistakes a case's freshly started main process for an orphan.
static LIVE: Mutex<BTreeMap<u32, String>> = Mutex::new(BTreeMap::new());
static SEQ: AtomicU64 = AtomicU64::new(0);
static CONTAINED: OnceLock<Contained> = OnceLock::new();
static GUARDIAN: Mutex<Option<sys::Guardian>> = Mutex::new(None);

#[derive(Debug)]
struct Contained {
    /// Orphaned descendants come back to this process.
    subreaper: bool,
}

/// The guardian while it lives, whether or not it has said yet that it
/// can do its work; None without one.
fn guardian() -> MutexGuard<'static, Option<sys::Guardian>> {
    GUARDIAN.lock().unwrap_or_else(|e| e.into_inner())
}

/// A guardian has said it can do its work. Asked without waiting: a case
/// started before it has said gets the parent-death signal as well, so
/// no case waits for the guardian. One that cannot is forgotten.
fn guardian_ready() -> bool {
    let mut g = guardian();
    match g.as_mut().map(sys::Guardian::answer) {
        Some(Answer::Ready) => true,
        Some(Answer::Unusable) => {
            *g = None;
            false
        }
        Some(Answer::NotYet | Answer::Silent) | None => false,
    }
}

/// The guardian's pid while it lives: a child that is never swept. Gone
/// once it is found dead, so a process that later gets its pid is swept
/// like any other.
fn guardian_pid() -> Option<u32> {
    guardian().as_ref().map(sys::Guardian::pid)
}

/// The guardian was running and has died since: reaped, forgotten, and
/// said once. A case can kill it (it runs as the same user); what follows
/// is that later cases get the parent-death signal instead. One that left
/// because its tools do not work was not lost.
fn guardian_lost() -> bool {
    let mut g = guardian();
    let Some(guardian) = g.as_mut() else {
        return false;
    };
    let exited = guardian.exited();
    // Read after the look: one that said it cannot work and left in
    // between is not taken for killed.
    let unusable = guardian.answer() == Answer::Unusable;
    if exited || unusable {
        *g = None;
    }
    exited && !unusable
}

fn live() -> MutexGuard<'static, BTreeMap<u32, String>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// This process's token prefix: unique per harness process.
fn prefix() -> &'static str {
    static PREFIX: OnceLock<String> = OnceLock::new();
    PREFIX.get_or_init(|| {
        format!(
            "{}.{}",
            std::process::id(),
            &uuid::Uuid::new_v4().simple().to_string()[..12]
        )
    })
}

/// Take responsibility for every process the cases start, for the rest of
/// this process's life: become a child subreaper and start the guardian
/// (Linux), which no case waits for (see [`guardian_ready`]). Called once
/// by each front door before its first case, as early as it can: the
/// sooner the guardian has said it works, the fewer cases need the
/// parent-death signal's slower start. Library users that do not call it
/// get group kills only. Idempotent.
pub(crate) fn contain() {
    CONTAINED.get_or_init(|| {
        let subreaper = sys::become_subreaper();
        let wanted = std::env::var(GUARDIAN_VAR).map_or(true, |v| v != "off");
        let guardian = wanted
            .then(|| sys::Guardian::start(TOKEN_VAR, prefix()).ok())
            .flatten();
        *self::guardian() = guardian;
        Contained { subreaper }
    });
}

/// The run ended cleanly: dismiss the guardian. A process that exits
/// without calling this (a second Ctrl-C, a crash) leaves the guardian to
/// kill whatever its cases left.
pub(crate) fn release() {
    if let Some(g) = guardian().take() {
        g.release();
    }
}

/// stdout and stderr's sinks, and the first error one of them returned.
struct Sinks<'s> {
    sinks: [&'s mut dyn Sink; 2],
    failure: Option<io::Error>,
}

impl Sinks<'_> {
    fn deliver(&mut self, stream: usize, chunk: &[u8]) {
        if let Err(e) = self.sinks[stream].write(chunk)
            && self.failure.is_none()
        {
            self.failure = Some(e);
        }
    }
}

/// Run `spec`, streaming stdout and stderr into the sinks.
pub(crate) fn run(
    spec: &Spec<'_>,
    stdout: &mut dyn Sink,
    stderr: &mut dyn Sink,
    stop_requested: &dyn Fn() -> bool,
) -> Result<Outcome, SpawnError> {
    let token = format!("{}-{}", prefix(), SEQ.fetch_add(1, Ordering::Relaxed));
    let Started {
        mut child,
        _container,
        mut watch,
    } = spawn(spec, &token)?;
    let pid = child.id();
    let mut sinks = Sinks {
        sinks: [stdout, stderr],
        failure: None,
    };
    let mut st = LoopState::default();
    let result = pump(spec, pid, &mut watch, &mut sinks, stop_requested, &mut st);

    // From here on, whatever happened above: nothing of the case may
    // outlive it. The main process is not reaped yet, so neither its pid
    // nor its group id can have been reused. Once it has exited, whatever
    // still runs has come back to us: named and killed before the group
    // kill, so that each is seen alive and the list does not depend on
    // how fast the group dies.
    let mut left_behind = if watch.exited() {
        sweep_case(&token)
    } else {
        Vec::new()
    };
    sys::kill_case(pid, Signal::Kill);
    // Whatever is still buffered in the pipes belongs to the case's output.
    watch.finish(&mut |i, c| sinks.deliver(i, c));
    left_behind.extend(sweep_case(&token));
    let status = {
        let mut live = live();
        // The main process has exited: this wait returns at once.
        let status = child.wait();
        live.remove(&pid);
        status
    };
    let status = status.map_err(SpawnError::Io)?;
    result?;
    if let Some(e) = sinks.failure {
        return Err(SpawnError::Sink(e));
    }
    Ok(Outcome {
        exit_code: sys::exit_code(status),
        signal: sys::exit_signal(status),
        timed_out: st.timed_out,
        interrupted: st.interrupted,
        leaked: st.leaked,
        left_behind,
        guardian_lost: guardian_lost(),
    })
}

/// A case's main process, contained and watched.
struct Started {
    child: sys::Child,
    _container: sys::Container,
    watch: sys::Watch,
}

/// Start `spec`'s command with `token` in its environment, in a container
/// of its own, known to the sweep before it can fork.
fn spawn(spec: &Spec<'_>, token: &str) -> Result<Started, SpawnError> {
    let mut cmd = spec.shell.command(spec.command);
    for name in spec.hidden_env {
        cmd.env_remove(name);
    }
    cmd.current_dir(spec.working_dir)
        .envs(spec.env)
        .env(TOKEN_VAR, token);
    let cannot_start = |e| SpawnError::Spawn(spec.shell.display(), e);
    // Without a guardian that has said it works, the parent-death signal
    // is the fallback.
    let no_guardian = !guardian_ready();
    let mut child = {
        let mut live = live();
        // A missing working directory is looked for only when the start
        // failed, not before every case.
        let child = sys::spawn(&mut cmd, no_guardian).map_err(|e| {
            if spec.working_dir.is_dir() {
                cannot_start(e)
            } else {
                SpawnError::WorkingDir(spec.working_dir.to_path_buf())
            }
        })?;
        live.insert(child.id(), token.to_string());
        child
    };
    let pid = child.id();
    let contained = sys::confine(&mut child).and_then(|c| Ok((c, sys::Watch::new(&mut child)?)));
    match contained {
        Ok((container, watch)) => Ok(Started {
            child,
            _container: container,
            watch,
        }),
        Err(e) => {
            sys::kill_case(pid, Signal::Kill);
            let _ = child.wait();
            live().remove(&pid);
            Err(cannot_start(e))
        }
    }
}

/// What the wait loop learned.
#[derive(Debug, Default)]
struct LoopState {
    timed_out: bool,
    interrupted: bool,
    leaked: bool,
}

/// Wait on both pipes until they close after the main process exited, the
/// leak wait ends, a sink fails, or the case is killed (timeout,
/// interrupt).
fn pump(
    spec: &Spec<'_>,
    pid: u32,
    watch: &mut sys::Watch,
    sinks: &mut Sinks<'_>,
    stop_requested: &dyn Fn() -> bool,
    st: &mut LoopState,
) -> Result<(), SpawnError> {
    let mut leak_deadline: Option<Instant> = None;
    let mut kill_at: Option<Instant> = None;
    loop {
        (spec.tick)();
        let now = Instant::now();
        if !st.timed_out && !st.interrupted {
            if now >= spec.deadline {
                st.timed_out = true;
            } else if stop_requested() {
                st.interrupted = true;
            }
            if st.timed_out || st.interrupted {
                sys::kill_case(pid, Signal::Term);
                kill_at = Some(now.checked_add(spec.kill_grace).unwrap_or(now));
            }
        }
        if let Some(at) = kill_at
            && now >= at
        {
            sys::kill_case(pid, Signal::Kill);
            kill_at = None;
        }
        if watch.exited() && !watch.open() {
            return Ok(());
        }
        if let Some(ld) = leak_deadline
            && now >= ld
        {
            st.leaked = watch.open();
            return Ok(());
        }
        if sinks.failure.is_some() {
            return Ok(());
        }

        let mut wake = now + TICK;
        if !st.timed_out && !st.interrupted {
            wake = wake.min(spec.deadline);
        }
        for at in [kill_at, leak_deadline].into_iter().flatten() {
            wake = wake.min(at);
        }
        let was_running = !watch.exited();
        watch
            .wait(wake.saturating_duration_since(now), &mut |i, c| {
                sinks.deliver(i, c)
            })
            .map_err(SpawnError::Io)?;
        if was_running && watch.exited() {
            let now = Instant::now();
            leak_deadline = Some(now.checked_add(spec.leak_wait).unwrap_or(now));
        }
    }
}

/// Kill what the case with `token` left running that came back to this
/// process (with its descendants), and name it.
fn sweep_case(token: &str) -> Vec<String> {
    let killed = sweep(|found, live| {
        let others = live.values().filter(|t| *t != token).count();
        match found {
            Some(t) if t == token => true,
            // Another running case's: its own end will see to it.
            Some(t) if live.values().any(|v| v == t) => false,
            // A finished case's.
            Some(t) if t.starts_with(prefix()) => true,
            // No token of ours (it cleared its environment): whose it is
            // can only be told when no other case runs.
            _ => others == 0,
        }
    });
    killed.iter().map(describe).collect()
}

/// At the end of a run (no case running): kill every process the cases
/// left behind that came back to this process. Returns them, named.
pub(crate) fn sweep_all() -> Vec<String> {
    sweep(|_, live| live.is_empty())
        .iter()
        .map(describe)
        .collect()
}

/// Kill every case process now, inherited ones included (a second
/// interrupt: the harness is about to exit).
pub(crate) fn kill_all() {
    let cases: Vec<u32> = live().keys().copied().collect();
    for &pid in &cases {
        sys::kill_case(pid, Signal::Kill);
    }
    // SIGKILL takes effect when a process next runs: wait for each main
    // process to be gone, so that what it leaves has come back to us and
    // the sweep reaps it before the harness exits, not after. One limit
    // for all: with many cases stuck in the kernel, exit still comes soon.
    let deadline = Instant::now() + REAP_LIMIT;
    for &pid in &cases {
        sys::wait_exited(pid, deadline.saturating_duration_since(Instant::now()));
    }
    sweep(|_, _| true);
}

/// Kill, with all their descendants, the inherited children `select`
/// picks (by their token), and reap them; reap inherited zombies. Returns
/// every process killed, as it was when first seen.
///
/// Freeze, then kill. A process killed by pid may have forked a moment
/// before, and one that forks and exits again and again (a fresh pid
/// every few ms) is gone by the time a look at it is acted on: killing
/// what one look found leaves a successor running, and a look that
/// happens to fall between two hops finds nothing at all. So the
/// processes are first stopped (SIGSTOP), in passes, until two passes in
/// a row find nothing new and every process stopped runs nothing more
/// of its own: a stopped process cannot fork, and the child of a fork it
/// was finishing is its own child, where the next pass finds it. Then
/// they are all killed at once, and the whole is done again, since what
/// a killed process leaves comes back to us only once it is gone: until
/// a freeze finds nothing.
fn sweep(select: impl Fn(Option<&str>, &BTreeMap<u32, String>) -> bool) -> Vec<ProcInfo> {
    if !CONTAINED.get().is_some_and(|c| c.subreaper) {
        return Vec::new();
    }
    let live = live();
    let mut freeze = Freeze {
        select: &select,
        live: &live,
        guardian: guardian_pid(),
        frozen: Vec::new(),
        frozen_pids: HashSet::new(),
        killed: Vec::new(),
        seen: HashSet::new(),
    };
    let deadline = Instant::now() + SWEEP_LIMIT;
    loop {
        let mut calm = 0;
        while calm < CALM_PASSES && Instant::now() < deadline {
            // A look that finds nothing, with nothing stopped: nothing is
            // left (when nothing was, that costs one read of our children).
            if !freeze.pass() {
                if freeze.frozen.is_empty() {
                    break;
                }
                calm += 1;
            } else {
                calm = 0;
            }
            // The stopped are given a moment to act on their stop.
            std::thread::sleep(PASS_GAP);
        }
        if freeze.frozen.is_empty() {
            break;
        }
        freeze.kill();
        if Instant::now() >= deadline {
            break;
        }
    }
    let mut killed = freeze.killed;
    killed.sort_by_key(|i| i.pid);
    killed
}

/// Passes of a freeze in a row that find nothing new before the frozen
/// are killed.
const CALM_PASSES: usize = 2;
/// Between two passes of a freeze.
const PASS_GAP: Duration = Duration::from_millis(1);
/// The longest a sweep goes on: what it has stopped by then is killed.
const SWEEP_LIMIT: Duration = Duration::from_secs(10);

/// A process a sweep stopped.
struct Frozen {
    pid: u32,
    /// An inherited child of ours, not only a descendant of one: ours to
    /// reap.
    root: bool,
    /// The stop was sent (not: gone, or not ours to signal).
    sent: bool,
}

/// One sweep's state (see [`sweep`]).
struct Freeze<'s, F> {
    select: &'s F,
    live: &'s BTreeMap<u32, String>,
    guardian: Option<u32>,
    /// Stopped since the last kill, in the order they were.
    frozen: Vec<Frozen>,
    /// Their pids.
    frozen_pids: HashSet<u32>,
    /// Every process killed, as it was when first seen.
    killed: Vec<ProcInfo>,
    seen: HashSet<u32>,
}

impl<F: Fn(Option<&str>, &BTreeMap<u32, String>) -> bool> Freeze<'_, F> {
    /// Stop every inherited child `select` picks and every descendant of
    /// one, and reap inherited zombies. Whether anything stirred: a
    /// zombie reaped, a process stopped that was not, or one stopped
    /// that still runs its own code.
    fn pass(&mut self) -> bool {
        let mut stirred = false;
        let known = self.frozen.len();
        for pid in sys::children() {
            if self.live.contains_key(&pid) || Some(pid) == self.guardian {
                continue;
            }
            if !self.frozen_pids.contains(&pid) {
                let Some(look) = sys::look(pid, TOKEN_VAR) else {
                    continue;
                };
                if look.zombie {
                    sys::reap(pid, Duration::ZERO);
                    stirred = true;
                    continue;
                }
                if !(self.select)(look.token.as_deref(), self.live) {
                    continue;
                }
                self.stop(pid, true);
            }
            for d in sys::descendants(pid) {
                if !self.frozen_pids.contains(&d) {
                    self.stop(d, false);
                }
            }
        }
        stirred |= self.frozen.len() > known;
        // Named once stopped, before they are killed: a killed process is
        // soon a zombie, and a zombie has no command line.
        self.name_from(known);
        for f in self.frozen.iter().filter(|f| f.sent && !sys::held(f.pid)) {
            // Not yet scheduled to act on its stop, or continued by
            // another of the case's processes: stopped again.
            sys::kill_process(f.pid, Signal::Stop);
            stirred = true;
        }
        stirred
    }

    fn stop(&mut self, pid: u32, root: bool) {
        let sent = sys::kill_process(pid, Signal::Stop);
        self.frozen.push(Frozen { pid, root, sent });
        self.frozen_pids.insert(pid);
    }

    /// Name the processes stopped from index `from` on. A root caught on
    /// its way out (no command line) is not left running: given a
    /// moment, it is gone by itself, and only one still there is named.
    fn name_from(&mut self, from: usize) {
        let mut gone = HashSet::new();
        for f in &self.frozen[from..] {
            let Some(info) = sys::inspect(f.pid, TOKEN_VAR) else {
                continue;
            };
            if f.root && info.exiting && sys::reap(f.pid, EXITING_WAIT) {
                gone.insert(f.pid);
            } else if !info.zombie && self.seen.insert(f.pid) {
                self.killed.push(info);
            }
        }
        self.frozen.retain(|f| !gone.contains(&f.pid));
        self.frozen_pids.retain(|p| !gone.contains(p));
    }

    /// Kill every process stopped, and reap the inherited ones.
    fn kill(&mut self) {
        for f in &self.frozen {
            sys::kill_process(f.pid, Signal::Kill);
        }
        for f in std::mem::take(&mut self.frozen).iter().filter(|f| f.root) {
            sys::reap(f.pid, REAP_LIMIT);
        }
        self.frozen_pids.clear();
    }
}

/// How long a process caught with no command line (on its way out) is
/// given to exit by itself before it counts as left running.
const EXITING_WAIT: Duration = Duration::from_millis(200);

/// `pid N (command)`, the command cut to a readable length.
fn describe(info: &ProcInfo) -> String {
    let mut command = info.command.clone();
    if command.chars().count() > 120 {
        command = command.chars().take(117).collect::<String>() + "...";
    }
    format!("pid {} ({command})", info.pid)
}
