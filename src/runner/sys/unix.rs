//! Unix implementation of the platform interface: `setpgid` groups,
//! `killpg`, `waitid(WNOWAIT)`, `poll(2)` over the child's pipes, and the
//! containment primitives (Linux: child subreaper, parent-death signal,
//! `/proc` to list and identify inherited processes, a guardian process
//! for a harness that is killed outright). File-type and mode helpers for
//! the isolation code live here too, so that module stays portable.
//!
//! The interface `windows.rs` implements too: [`spawn()`], [`confine`],
//! [`kill_case`], [`kill_process`], [`Watch`], [`exit_code`],
//! [`exit_signal`], [`signal_name`], [`on_interrupt`], [`become_subreaper`],
//! [`children`], [`descendants`], [`look`], [`held`], [`inspect`],
//! [`reap`], [`wait_exited`],
//! [`Guardian`],
//! [`file_kind`], [`mode`], [`make_fifo`] and [`symlink`].

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};
use std::time::Duration;

use super::{Answer, ChangeStamp, FileKind, Look, ProcInfo};

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod spawn;

/// A case's main process as this module started it: its pid and the read
/// ends of its stdout and stderr pipes. Nothing is done when it is
/// dropped; the engine reaps it with [`Child::wait`].
#[derive(Debug)]
pub(in crate::runner) struct Child {
    pid: u32,
    pub(in crate::runner) stdout: Option<OwnedFd>,
    pub(in crate::runner) stderr: Option<OwnedFd>,
    status: Option<ExitStatus>,
}

impl Child {
    fn new(pid: u32, stdout: OwnedFd, stderr: OwnedFd) -> Child {
        Child {
            pid,
            stdout: Some(stdout),
            stderr: Some(stderr),
            status: None,
        }
    }

    pub(in crate::runner) fn id(&self) -> u32 {
        self.pid
    }

    /// Wait for the process to exit and reap it (once; later calls return
    /// the same status).
    pub(in crate::runner) fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(s) = self.status {
            return Ok(s);
        }
        let mut raw = 0;
        loop {
            // SAFETY: waitpid on our own child with a valid status pointer.
            if unsafe { libc::waitpid(self.pid as libc::pid_t, &mut raw, 0) } >= 0 {
                break;
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        let status = ExitStatus::from_raw(raw);
        self.status = Some(status);
        Ok(status)
    }
}

/// Start `cmd` as a case's main process: stdin `/dev/null`, stdout and
/// stderr piped, a process group of its own (pgid = its pid) and, with
/// `parent_death_signal` on Linux, SIGKILL when the harness dies.
///
/// On Linux the child is also given what a shell would give it: glibc's
/// `posix_spawn`, as the standard library calls it, leaves its two
/// internal signals (32 and 33, SIGCANCEL and SIGSETXID) ignored in the
/// child, and an ignored signal stays ignored across `exec` and in every
/// process the case starts, which no shell does. With glibc the case is
/// started by `posix_spawn` called here with a default-signal set that
/// holds them (the `spawn` module); with the parent-death signal, or where that
/// path cannot be taken, by `fork` with the reset between fork and exec.
pub(in crate::runner) fn spawn(cmd: &mut Command, parent_death_signal: bool) -> io::Result<Child> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if !parent_death_signal && let Some(started) = spawn::spawn(cmd) {
        return started;
    }
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: the closure runs between fork and exec and makes only
        // async-signal-safe system calls; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                for sig in GLIBC_INTERNAL_SIGNALS {
                    default_disposition(sig);
                }
                if !parent_death_signal {
                    return Ok(());
                }
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The harness may have died before the prctl: no signal
                // would ever come, so do not start at all.
                if libc::getppid() != parent {
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = parent_death_signal;
    let mut child = cmd.spawn()?;
    // The standard library's child does nothing when dropped: from here on
    // the pid and the pipes are ours.
    let out = child.stdout.take().expect("stdout is piped").into();
    let err = child.stderr.take().expect("stderr is piped").into();
    Ok(Child::new(child.id(), out, err))
}

/// The real-time signals glibc keeps for itself (`__SIGRTMIN` and the one
/// after it). No program sets them to "ignore" on purpose.
#[cfg(target_os = "linux")]
const GLIBC_INTERNAL_SIGNALS: [libc::c_int; 2] = [32, 33];

/// Set `sig` to its default disposition with the system call itself:
/// glibc's `sigaction` refuses its internal signals. An all-zero kernel
/// `struct sigaction` is SIG_DFL, no flags, an empty mask, whatever the
/// architecture's layout; the buffer is larger than any of them.
/// Async-signal-safe.
#[cfg(target_os = "linux")]
fn default_disposition(sig: libc::c_int) {
    let zero = [0u64; 4];
    // SAFETY: a valid, large enough, zeroed `struct sigaction`; no old
    // action is asked for; the kernel's sigset is 8 bytes.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigaction,
            sig,
            zero.as_ptr(),
            std::ptr::null_mut::<u64>(),
            8usize,
        );
    }
}

/// A spawned child's container. The process group was set up at spawn,
/// so there is nothing more to hold.
#[derive(Debug)]
pub(in crate::runner) struct Container;

/// Finish containing a just-spawned child.
pub(in crate::runner) fn confine(_child: &mut Child) -> io::Result<Container> {
    Ok(Container)
}

/// Send `signal` to a case: to its process group and to its main process
/// `pid` itself, which may have moved to another group. The caller keeps
/// `pid` unreaped, so neither id can have been reused.
pub(in crate::runner) fn kill_case(pid: u32, signal: Signal) {
    // SAFETY: killpg and kill have no memory-safety preconditions; a group
    // or process that is already gone is not an error here.
    unsafe {
        libc::killpg(pid as libc::pid_t, signal.number());
        libc::kill(pid as libc::pid_t, signal.number());
    }
}

/// Send `signal` to the single process `pid`; whether it was sent (not:
/// the process is gone, or not this user's to signal).
pub(in crate::runner) fn kill_process(pid: u32, signal: Signal) -> bool {
    // SAFETY: as in kill_case.
    unsafe { libc::kill(pid as libc::pid_t, signal.number()) == 0 }
}

/// Signals the engine sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::runner) enum Signal {
    /// Ask politely.
    Term,
    /// Force.
    Kill,
    /// Freeze: a stopped process runs nothing of its own, so it cannot
    /// fork, until it is killed.
    Stop,
}

impl Signal {
    fn number(self) -> libc::c_int {
        match self {
            Signal::Term => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
            Signal::Stop => libc::SIGSTOP,
        }
    }
}

/// Whether `pid` has exited, looked at without reaping it; `block` waits
/// until it has. A pid that is no longer our child (reaped already)
/// counts as exited.
fn exited_no_reap(pid: u32, block: bool) -> bool {
    let flags = libc::WEXITED | libc::WNOWAIT | if block { 0 } else { libc::WNOHANG };
    loop {
        // SAFETY: siginfo is plain data, zero-initialised; with WNOHANG a
        // child that has not exited leaves si_pid 0.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid, writable siginfo_t for the call to
        // fill; waitid reads nothing else of this process's memory.
        let r = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        if r != 0 {
            if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return true;
        }
        // SAFETY: waitid succeeded, so info is a valid siginfo.
        return unsafe { info.si_pid() } != 0;
    }
}

/// Block until `pid` has exited, without reaping it: the pid (and so the
/// group id) stays reserved until the caller reaps, so a later group kill
/// can never reach an unrelated process.
fn wait_exit_no_reap(pid: u32) {
    exited_no_reap(pid, true);
}

/// Wait up to `limit` for `pid`, a child, to have exited, without reaping
/// it. Whether it has (or is no longer a child of ours: reaped already).
pub(in crate::runner) fn wait_exited(pid: u32, limit: Duration) -> bool {
    poll_until(limit, || exited_no_reap(pid, false))
}

/// A descriptor that becomes readable when `pid` exits, without reaping
/// it. Linux: a pidfd, no thread needed. Elsewhere (or on kernels without
/// pidfd_open): a pipe whose write end a waiter thread closes on exit.
fn exit_notifier(pid: u32) -> io::Result<OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        if fd >= 0 {
            // SAFETY: the kernel just gave us this descriptor; we own it.
            return Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd as RawFd) });
        }
    }
    let (rx, tx) = io::pipe()?;
    std::thread::spawn(move || {
        wait_exit_no_reap(pid);
        drop(tx);
    });
    Ok(rx.into())
}

/// Exit code of a status: the code, or 128+N when killed by signal N.
pub(in crate::runner) fn exit_code(status: ExitStatus) -> i32 {
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(-1)
}

/// The signal that ended a command: the one that killed it, or the one
/// `sh` reports in its exit status for a command it ran.
pub(in crate::runner) fn exit_signal(status: ExitStatus) -> Option<i32> {
    status
        .signal()
        .or_else(|| status.code().and_then(crate::model::shell_signal))
}

/// The name of signal `n` on this platform (`SIGSEGV`), if it has one.
pub(in crate::runner) fn signal_name(n: i32) -> Option<&'static str> {
    let names: [(i32, &str); 20] = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        (libc::SIGSYS, "SIGSYS"),
    ];
    names
        .iter()
        .find(|(sig, _)| *sig == n)
        .map(|(_, name)| *name)
}

/// Readiness of one polled descriptor.
#[derive(Clone, Copy, Debug, Default)]
struct Ready {
    /// Data (or EOF) can be read without blocking.
    readable: bool,
}

/// Poll `fds` for input for at most `timeout_ms`; EINTR counts as a timeout.
fn poll_read(fds: &[RawFd], timeout_ms: i32) -> io::Result<Vec<Ready>> {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: p is a valid slice of pollfd for the duration of the call.
    let r = unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(vec![Ready::default(); fds.len()]);
        }
        return Err(e);
    }
    Ok(p.iter()
        .map(|pfd| Ready {
            readable: pfd.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0,
        })
        .collect())
}

/// Make reads on `fd` return `WouldBlock` instead of waiting.
fn set_nonblocking(fd: &impl AsRawFd) {
    let fd = fd.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Grow a pipe's buffer where the platform allows it: fewer wake-ups for
/// chatty commands.
fn grow_pipe(fd: &impl AsRawFd) {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on a descriptor we own; failure is harmless.
    unsafe {
        libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// The signals that interrupt a run: every catchable signal whose default
/// action would end the harness and free its cases (a closed terminal's
/// SIGHUP, `kill -USR1`, ...).
const INTERRUPT_SIGNALS: &[i32] = &[
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
    signal_hook::consts::SIGUSR1,
    signal_hook::consts::SIGUSR2,
];

/// Call `f` on a background thread for every interrupting signal.
pub(in crate::runner) fn on_interrupt(f: impl Fn() + Send + Sync + 'static) -> io::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new(INTERRUPT_SIGNALS)?;
    std::thread::spawn(move || {
        for _ in signals.forever() {
            f();
        }
    });
    Ok(())
}

/// Write `message` to stderr from the signal thread without waiting: not
/// through the standard library's stderr, whose lock another thread may
/// hold while its write blocks on a full pipe, and only when the write
/// would not block (else the message is dropped: an exit must not wait on
/// whoever reads our stderr).
pub(in crate::runner) fn say(message: &str) {
    let mut fd = libc::pollfd {
        fd: libc::STDERR_FILENO,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one pollfd, no wait.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) } == 1 && fd.revents & libc::POLLOUT != 0;
    if ready {
        // SAFETY: a valid buffer of its length; a short write is accepted.
        unsafe {
            libc::write(libc::STDERR_FILENO, message.as_ptr().cast(), message.len());
        }
    }
}

/// Make this process a child subreaper: descendants orphaned by their
/// parent (a double fork, `setsid cmd &` in a shell that then exits) are
/// re-parented to it instead of to init, so it can find and kill them.
/// False where the platform has no such thing (everything but Linux).
pub(in crate::runner) fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) == 0
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// The children of this process that orphans come back to. Empty where
/// they cannot be listed.
///
/// Linux hands an orphan to the first live thread of its subreaper, which
/// is the main thread while the process runs, so only the main thread's
/// list is read: one small file rather than one per thread (a run has a
/// thread or more per running case), twice per case. The children the
/// other threads started are the cases' main processes, which the sweep
/// never takes anyway.
pub(in crate::runner) fn children() -> Vec<u32> {
    let pid = std::process::id();
    #[cfg(target_os = "linux")]
    if let Some(list) = main_thread_children(pid) {
        return list;
    }
    #[cfg(target_os = "linux")]
    if let Ok(list) = task_children(pid, &pid.to_string()) {
        return list;
    }
    children_of(pid)
}

/// The main thread's `children` list from a file opened once and read
/// again from its start (a `/proc` file shows what is true at the read):
/// two opens and closes a case fewer. None in a process other than the
/// one that opened it (a fork), or when it cannot be read.
#[cfg(target_os = "linux")]
fn main_thread_children(pid: u32) -> Option<Vec<u32>> {
    static OPENED: std::sync::OnceLock<Option<(u32, File)>> = std::sync::OnceLock::new();
    let (owner, file) = OPENED
        .get_or_init(|| {
            let path = format!("/proc/{pid}/task/{pid}/children");
            open_kernel_file(&path).ok().map(|f| (pid, f))
        })
        .as_ref()?;
    if *owner != pid {
        return None;
    }
    read_proc(file, parse_pids).ok()
}

/// Every descendant of `pid`, parents before their children.
pub(in crate::runner) fn descendants(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut next = vec![pid];
    while let Some(p) = next.pop() {
        for c in children_of(p) {
            // A pid seen twice means it was reused mid-walk: stop there.
            if c != pid && !out.contains(&c) {
                out.push(c);
                next.push(c);
            }
        }
    }
    out
}

/// The children of thread `tid` of process `pid`, from its `children`
/// file (NotFound where the kernel was built without CONFIG_PROC_CHILDREN).
#[cfg(target_os = "linux")]
fn task_children(pid: u32, tid: &str) -> io::Result<Vec<u32>> {
    with_proc(&format!("/proc/{pid}/task/{tid}/children"), parse_pids)
}

#[cfg(target_os = "linux")]
fn parse_pids(list: &str) -> Vec<u32> {
    list.split_whitespace()
        .filter_map(|p| p.parse::<u32>().ok())
        .collect()
}

/// `parse` of a `/proc` text file read whole. Such a file says it is
/// empty, so it is read in a page at a time rather than by its size. The
/// first page is read onto the stack: the files read for every case fit
/// in it, and a page asked of the heap for each made glibc's malloc sweep
/// its free lists several times a case. Bytes that are not UTF-8 (a
/// process's name can hold any) are replaced, so the fields after them
/// are still read.
#[cfg(target_os = "linux")]
fn with_proc<R>(path: &str, parse: impl FnOnce(&str) -> R) -> io::Result<R> {
    read_proc(&open_kernel_file(path)?, parse)
}

/// A file of `/proc` (or `/dev/null`), opened for reading.
#[expect(
    clippy::disallowed_methods,
    reason = "the kernel's files, which no case can replace: not read through the guarded reader"
)]
pub(in crate::runner) fn open_kernel_file(path: &str) -> io::Result<File> {
    File::open(path)
}

/// The whole of a file of `/proc`.
#[cfg(target_os = "linux")]
fn read_kernel_file(path: &str) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_kernel_file(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`with_proc`] of a file already open, read from its start by offset
/// (`pread`), so that the same file can be read again and again.
#[cfg(target_os = "linux")]
fn read_proc<R>(file: &File, parse: impl FnOnce(&str) -> R) -> io::Result<R> {
    use std::os::unix::fs::FileExt;
    let read_at = |buf: &mut [u8], at: usize| loop {
        match file.read_at(buf, at as u64) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            read => return read,
        }
    };
    let mut page = [0u8; 4096];
    let mut len = 0;
    while len < page.len() {
        match read_at(&mut page[len..], len)? {
            0 => return Ok(parse(&String::from_utf8_lossy(&page[..len]))),
            n => len += n,
        }
    }
    let mut text = page.to_vec();
    let mut more = [0u8; 4096];
    loop {
        match read_at(&mut more, text.len())? {
            0 => return Ok(parse(&String::from_utf8_lossy(&text))),
            n => text.extend_from_slice(&more[..n]),
        }
    }
}

#[cfg(target_os = "linux")]
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        match task_children(pid, &task.file_name().to_string_lossy()) {
            Ok(list) => out.extend(list),
            // Kernels built without CONFIG_PROC_CHILDREN: ask every process.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return children_by_scan(pid),
            Err(_) => {}
        }
    }
    out
}

#[cfg(target_os = "linux")]
fn children_by_scan(pid: u32) -> Vec<u32> {
    let Ok(all) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    all.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&p| stat_of(p).is_some_and(|s| s.ppid == pid))
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn children_of(_pid: u32) -> Vec<u32> {
    Vec::new()
}

#[cfg(target_os = "linux")]
struct Stat {
    state: char,
    ppid: u32,
}

#[cfg(target_os = "linux")]
impl Stat {
    /// Exited, waiting to be reaped (or being reaped).
    fn is_zombie(&self) -> bool {
        matches!(self.state, 'Z' | 'X')
    }
}

/// What the guardian check needs of `pid`, from one read of
/// `/proc/<pid>/status`: a SIGKILL is pending (sent, not yet acted on),
/// and it is stopped, or a SIGSTOP is pending (sent, and the process not
/// yet scheduled to act on it: on a busy machine that can outlast the case
/// that sent it).
#[cfg(target_os = "linux")]
fn kill_pending_or_stopped(pid: u32, status: Option<&File>) -> (bool, bool) {
    match status {
        Some(file) => read_proc(file, pending_or_stopped),
        None => with_proc(&format!("/proc/{pid}/status"), pending_or_stopped),
    }
    .unwrap_or((false, false))
}

/// [`kill_pending_or_stopped`] of the text of a `status` file.
#[cfg(target_os = "linux")]
fn pending_or_stopped(text: &str) -> (bool, bool) {
    const SIGKILL_BIT: u64 = 1 << (libc::SIGKILL - 1);
    const SIGSTOP_BIT: u64 = 1 << (libc::SIGSTOP - 1);
    let (mut pending, mut stopped) = (false, false);
    for line in text.lines() {
        if let Some(hex) = line
            .strip_prefix("SigPnd:")
            .or_else(|| line.strip_prefix("ShdPnd:"))
        {
            let set = u64::from_str_radix(hex.trim(), 16).unwrap_or(0);
            pending |= set & SIGKILL_BIT != 0;
            stopped |= set & SIGSTOP_BIT != 0;
        } else if let Some(state) = line.strip_prefix("State:") {
            // `T (stopped)` or `t (tracing stop)`.
            stopped |= matches!(state.trim_start().chars().next(), Some('T' | 't'));
        }
    }
    (pending, stopped)
}

/// The longest wait for a killed process to be gone.
#[cfg(target_os = "linux")]
const REAP_WAIT: Duration = Duration::from_secs(2);

/// `/proc/<pid>/stat`: the name may hold spaces and parentheses, so the
/// fields are read after its last `)`.
#[cfg(target_os = "linux")]
fn stat_of(pid: u32) -> Option<Stat> {
    with_proc(&format!("/proc/{pid}/stat"), |text| {
        let mut rest = text[text.rfind(')')? + 1..].split_whitespace();
        let state = rest.next()?.chars().next()?;
        let ppid = rest.next()?.parse().ok()?;
        Some(Stat { state, ppid })
    })
    .ok()?
}

/// Whether `pid` has exited and its token, with as little reading as
/// can tell them (the sweep stops a process it picks right after this
/// look: the less between the two, the smaller a fork's window); None
/// when it is gone.
#[cfg(target_os = "linux")]
pub(in crate::runner) fn look(pid: u32, token_var: &str) -> Option<Look> {
    let zombie = stat_of(pid)?.is_zombie();
    let token = if zombie {
        None
    } else {
        token_of(pid, token_var)
    };
    Some(Look { zombie, token })
}

/// Nothing is known of processes off Linux.
#[cfg(not(target_os = "linux"))]
pub(in crate::runner) fn look(_pid: u32, _token_var: &str) -> Option<Look> {
    None
}

/// Whether `pid` runs nothing more of its own: it is stopped, has a stop
/// or a kill pending (acted on before it returns to its own code), has
/// exited, or is gone. One that shows a stop pending may still finish a
/// fork it was in the middle of; its child is then its own child, where
/// the sweep's next look finds it.
#[cfg(target_os = "linux")]
pub(in crate::runner) fn held(pid: u32) -> bool {
    with_proc(&format!("/proc/{pid}/status"), |text| {
        let (killed, stopped) = pending_or_stopped(text);
        let exited = (text.lines())
            .find_map(|l| l.strip_prefix("State:"))
            .is_some_and(|state| matches!(state.trim_start().chars().next(), Some('Z' | 'X')));
        killed || stopped || exited
    })
    .unwrap_or(true)
}

/// Nothing is ever inherited off Linux.
#[cfg(not(target_os = "linux"))]
pub(in crate::runner) fn held(_pid: u32) -> bool {
    true
}

/// The value of `token_var` in the environment of `pid`, if it has one.
#[cfg(target_os = "linux")]
fn token_of(pid: u32, token_var: &str) -> Option<String> {
    let prefix = format!("{token_var}=");
    let env = read_kernel_file(&format!("/proc/{pid}/environ")).ok()?;
    env.split(|&b| b == 0)
        .find_map(|var| var.strip_prefix(prefix.as_bytes()))
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// What `pid` is, reading `token_var` from its environment; None when it
/// is gone.
#[cfg(target_os = "linux")]
pub(in crate::runner) fn inspect(pid: u32, token_var: &str) -> Option<ProcInfo> {
    let stat = stat_of(pid)?;
    let token = token_of(pid, token_var);
    let zombie = stat.is_zombie();
    let mut command = command_line(pid);
    // A process in the middle of an `exec` shows an empty command line for
    // a moment: look again briefly before naming it by its short name.
    for _ in 0..20 {
        if !command.is_empty() || zombie {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
        command = command_line(pid);
    }
    let exiting = command.is_empty() && !zombie;
    if command.is_empty() {
        command = read_kernel_file(&format!("/proc/{pid}/comm"))
            .map(|c| format!("[{}]", String::from_utf8_lossy(&c).trim()))
            .unwrap_or_default();
    }
    Some(ProcInfo {
        pid,
        zombie,
        token,
        command,
        exiting,
    })
}

/// `/proc/<pid>/cmdline` with its arguments joined by spaces; empty for a
/// zombie or a process in the middle of an `exec`.
#[cfg(target_os = "linux")]
fn command_line(pid: u32) -> String {
    let cmdline = read_kernel_file(&format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&cmdline)
        .split('\0')
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What `pid` is; nothing is known of processes off Linux.
#[cfg(not(target_os = "linux"))]
pub(in crate::runner) fn inspect(_pid: u32, _token_var: &str) -> Option<ProcInfo> {
    None
}

/// Reap the child `pid`, waiting at most `limit` for it to exit. True
/// when it was reaped (or is not our child any more).
pub(in crate::runner) fn reap(pid: u32, limit: Duration) -> bool {
    poll_until(limit, || {
        let mut status = 0;
        // SAFETY: waitpid on a specific pid with a valid status pointer.
        let r = unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) };
        r != 0
    })
}

/// Ask `done` every 2 ms until it says yes or `limit` has passed (it is
/// asked at least once). Whether it said yes.
fn poll_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A process that outlives the harness for one purpose: when the harness
/// dies without saying goodbye (SIGKILL, a crash), it kills every process
/// whose environment carries one of the harness's case tokens. Those are
/// descendants of this harness's cases and nothing else.
#[derive(Debug)]
pub(in crate::runner) struct Guardian {
    child: std::process::Child,
    /// What the harness has heard from it (see [`Guardian::answer`]).
    hearing: Hearing,
    /// Its `/proc/<pid>/status`, opened while it is surely our child and
    /// read again for each look (see [`Guardian::exited`]): a third less
    /// than opening it by pid every case, and never another process's
    /// once its pid is reused.
    #[cfg(target_os = "linux")]
    status: Option<File>,
}

/// What the harness has heard from its guardian.
#[derive(Debug)]
// Only Linux starts a guardian, and so waits to hear from one.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
enum Hearing {
    /// Nothing yet: its stdout, where it says whether its tools work.
    Waiting(std::process::ChildStdout),
    /// What it said.
    Said(Answer),
}

/// The guardian's script: `$1` is the token variable, `$2` the prefix of
/// this harness's tokens. It first checks that its tools work (`ready`, or
/// `unusable` and out), then waits: a line `done` on stdin means the
/// harness ended cleanly; end of file without it means it died. Stopped
/// then killed, in rounds, so a process forking meanwhile is caught by the
/// next round.
#[cfg(target_os = "linux")]
const GUARDIAN_SCRIPT: &str = r#"trap '' HUP INT TERM QUIT USR1 USR2 PIPE
if [ "$(printf 'x\0' | grep -lz -e '^x$' 2>/dev/null)" = "(standard input)" ] && [ -r /proc/self/environ ]; then
  echo ready
else
  echo unusable
  exit 0
fi
exec >/dev/null
read line
[ "$line" = done ] && exit 0
n=0
while [ $n -lt 20 ]; do
  pids=$(grep -lsz -e "^$1=$2-" /proc/[0-9]*/environ | sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p')
  [ -z "$pids" ] && exit 0
  kill -STOP $pids 2>/dev/null
  kill -KILL $pids 2>/dev/null
  n=$((n+1))
  sleep 0.1
done
"#;

impl Guardian {
    /// Start the guardian for tokens `<prefix>-…` in `token_var`. It is
    /// never waited for: [`Guardian::answer`] reads whether its tools work
    /// once it has said, and the harness goes on meanwhile. Linux only (it
    /// reads `/proc`); elsewhere an error.
    pub(in crate::runner) fn start(token_var: &str, prefix: &str) -> io::Result<Guardian> {
        #[cfg(target_os = "linux")]
        {
            let mut child = Command::new("sh")
                .args([
                    "-c",
                    GUARDIAN_SCRIPT,
                    "cargo-golden-guardian",
                    token_var,
                    prefix,
                ])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .env_remove(token_var)
                // Out of the terminal's reach: Ctrl-C is for the harness.
                .process_group(0)
                .spawn()?;
            let hearing =
                (child.stdout.take()).map_or(Hearing::Said(Answer::NotYet), Hearing::Waiting);
            let status = open_kernel_file(&format!("/proc/{}/status", child.id())).ok();
            Ok(Guardian {
                child,
                hearing,
                status,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (token_var, prefix);
            Err(io::Error::from(io::ErrorKind::Unsupported))
        }
    }

    /// What the guardian has said of its tools (grep -z, /proc), asked
    /// without waiting. One that cannot do its work is ended.
    pub(in crate::runner) fn answer(&mut self) -> Answer {
        let out = match &mut self.hearing {
            Hearing::Said(said) => return *said,
            Hearing::Waiting(out) => out,
        };
        if !poll_read(&[out.as_raw_fd()], 0).is_ok_and(|r| r[0].readable) {
            return Answer::NotYet;
        }
        // It writes its answer with one `echo`, before anything else.
        let mut line = String::new();
        let _ = io::BufRead::read_line(&mut io::BufReader::new(out), &mut line);
        let said = match line.trim() {
            "ready" => Answer::Ready,
            "unusable" => {
                drop(self.child.stdin.take());
                let _ = self.child.wait();
                Answer::Unusable
            }
            // It closed its output without a word: it was killed.
            _ => Answer::Silent,
        };
        // Its stdout is closed with what was waiting on it.
        self.hearing = Hearing::Said(said);
        said
    }

    /// Its process id (a child of this process, never to be swept).
    pub(in crate::runner) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// It has died (and is reaped now): something killed it, since it
    /// leaves only when released. A SIGKILL sent to it but not yet acted
    /// on (it takes effect when the process next runs) is waited for, and
    /// a guardian that was stopped, or has a SIGSTOP pending, cannot do its work: it is
    /// ended here and counts as lost too.
    pub(in crate::runner) fn exited(&mut self) -> bool {
        let child = &mut self.child;
        let pid = child.id();
        let mut gone = || matches!(child.try_wait(), Ok(Some(_)));
        if gone() {
            return true;
        }
        #[cfg(target_os = "linux")]
        {
            let (pending, stopped) = kill_pending_or_stopped(pid, self.status.as_ref());
            if pending {
                return poll_until(REAP_WAIT, gone);
            }
            if stopped {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return true;
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = pid;
        false
    }

    /// The harness ends cleanly: tell the guardian to leave, and reap it.
    pub(in crate::runner) fn release(mut self) {
        use std::io::Write;
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = stdin.write_all(b"done\n");
        }
        let _ = self.child.wait();
    }
}

/// The kind of an entry, from its `lstat` type.
pub(in crate::runner) fn file_kind(ft: std::fs::FileType) -> FileKind {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_symlink() {
        FileKind::Symlink
    } else if ft.is_dir() {
        FileKind::Dir
    } else if ft.is_fifo() {
        FileKind::Fifo
    } else if ft.is_socket() {
        FileKind::Socket
    } else if ft.is_char_device() {
        FileKind::CharDevice
    } else if ft.is_block_device() {
        FileKind::BlockDevice
    } else {
        FileKind::File
    }
}

/// Permission bits (with set-id and sticky bits) of an entry.
pub(in crate::runner) fn mode(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

/// What identifies a file's content version without reading it: device,
/// inode, size and change time (ctime, which every content change sets
/// and no unprivileged process can set back).
pub(in crate::runner) fn change_stamp(meta: &std::fs::Metadata) -> Option<ChangeStamp> {
    use std::os::unix::fs::MetadataExt;
    Some(ChangeStamp {
        id: (meta.dev(), meta.ino(), meta.size()),
        changed: std::time::UNIX_EPOCH.checked_add(std::time::Duration::new(
            u64::try_from(meta.ctime()).ok()?,
            u32::try_from(meta.ctime_nsec()).ok()?,
        ))?,
    })
}

/// Create a named pipe at `path` with permission bits `mode`.
pub(in crate::runner) fn make_fifo(path: &std::path::Path, mode: u32) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: c is a valid NUL-terminated path for the duration of the call.
    if unsafe { libc::mkfifo(c.as_ptr(), mode as libc::mode_t) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Create a symbolic link `link` pointing at `target`.
pub(in crate::runner) fn symlink(
    target: &std::path::Path,
    link: &std::path::Path,
) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

/// Bytes read from a pipe at once, at most.
const CHUNK: usize = 256 * 1024;
/// The read buffer's first size: it grows to [`CHUNK`] once a read fills
/// it, so a case with little output does not pay for zeroing the full size.
const FIRST_CHUNK: usize = 16 * 1024;

/// A running child's output pipes (0 = stdout, 1 = stderr) and its exit,
/// watched by one thread with `poll(2)`: the run can end at any moment
/// without a thread left blocked on a read.
pub(in crate::runner) struct Watch {
    pipes: [Option<File>; 2],
    /// Readable once the main process exited; `None` after that.
    exit: Option<OwnedFd>,
    pid: u32,
    buf: Vec<u8>,
}

impl Watch {
    /// Take the child's piped stdout and stderr and watch them and its exit.
    pub(in crate::runner) fn new(child: &mut Child) -> io::Result<Watch> {
        let out = child.stdout.take().expect("stdout is piped");
        let err = child.stderr.take().expect("stderr is piped");
        Ok(Watch {
            pipes: [Some(File::from(out)), Some(File::from(err))],
            exit: Some(exit_notifier(child.id())?),
            pid: child.id(),
            buf: vec![0; FIRST_CHUNK],
        })
    }

    /// The main process has exited (it is not reaped yet).
    pub(in crate::runner) fn exited(&self) -> bool {
        self.exit.is_none()
    }

    /// A pipe is still open: something may still write to it.
    pub(in crate::runner) fn open(&self) -> bool {
        self.pipes.iter().any(Option::is_some)
    }

    /// Wait at most `timeout` for output or the exit; `on(stream, bytes)`
    /// gets what was read.
    pub(in crate::runner) fn wait(
        &mut self,
        timeout: Duration,
        on: &mut dyn FnMut(usize, &[u8]),
    ) -> io::Result<()> {
        let mut fds = Vec::with_capacity(3);
        let mut who = Vec::with_capacity(3);
        for (i, p) in self.pipes.iter().enumerate() {
            if let Some(p) = p {
                fds.push(p.as_raw_fd());
                who.push(Some(i));
            }
        }
        if let Some(e) = &self.exit {
            fds.push(e.as_raw_fd());
            who.push(None);
        }
        let ms = timeout.as_millis().clamp(1, 1000) as i32;
        let ready = poll_read(&fds, ms)?;
        for (r, w) in ready.iter().zip(who) {
            match w {
                _ if !r.readable => {}
                Some(i) => self.read(i, on)?,
                None => self.exit = None,
            }
        }
        Ok(())
    }

    fn read(&mut self, i: usize, on: &mut dyn FnMut(usize, &[u8])) -> io::Result<()> {
        let Some(pipe) = &mut self.pipes[i] else {
            return Ok(());
        };
        match pipe.read(&mut self.buf) {
            Ok(0) => self.pipes[i] = None,
            Ok(n) => {
                on(i, &self.buf[..n]);
                if n == self.buf.len() && n < CHUNK {
                    // A chatty command: a larger buffer here and in both
                    // pipes means fewer wake-ups. A quiet one never pays
                    // for them.
                    self.buf.resize(CHUNK, 0);
                    self.pipes.iter().flatten().for_each(grow_pipe);
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Once the container was killed: wait until the main process is gone
    /// (without reaping it), then hand over what the pipes still hold.
    pub(in crate::runner) fn finish(mut self, on: &mut dyn FnMut(usize, &[u8])) {
        if self.exit.is_some() {
            wait_exit_no_reap(self.pid);
        }
        for (i, pipe) in self.pipes.iter_mut().enumerate() {
            let Some(pipe) = pipe else { continue };
            set_nonblocking(pipe);
            while let Ok(n) = pipe.read(&mut self.buf) {
                if n == 0 {
                    break;
                }
                on(i, &self.buf[..n]);
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read_whole_past_a_page_and_past_bytes_that_are_not_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("status");
        let mut bytes = b"Name:\t\xff\xfeodd\n".to_vec();
        while bytes.len() < 9000 {
            bytes.extend_from_slice(b"Filler:\t0\n");
        }
        bytes.extend_from_slice(b"SigPnd:\t0000000000000100\nState:\tS (sleeping)\n");
        std::fs::write(&path, &bytes).unwrap();
        let path = path.to_str().unwrap();
        let (len, last) =
            with_proc(path, |t| (t.len(), t.lines().last().map(str::to_owned))).unwrap();
        // Two bytes became a U+FFFD (three bytes) each.
        assert_eq!(len, bytes.len() + 4);
        assert_eq!(last.as_deref(), Some("State:\tS (sleeping)"));
        // SIGKILL (9) is bit 8: pending, not stopped.
        assert_eq!(with_proc(path, pending_or_stopped).unwrap(), (true, false));
        // This process's own files, shorter than a page.
        let me = std::process::id();
        let stat = stat_of(me).expect("own stat");
        assert_eq!(stat.ppid, std::os::unix::process::parent_id());
        assert!(with_proc("/proc/self/nothing-here", |_| ()).is_err());
    }

    /// A child of the test, killed and reaped however the test ends (a
    /// stopped one would otherwise outlive it).
    struct Reaped(std::process::Child);

    impl Drop for Reaped {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn a_proc_file_kept_open_shows_what_is_true_at_each_read() {
        let child = Reaped(Command::new("sleep").arg("30").spawn().unwrap());
        let pid = child.0.id();
        let status = open_kernel_file(&format!("/proc/{pid}/status")).unwrap();
        assert_eq!(
            read_proc(&status, pending_or_stopped).unwrap(),
            (false, false)
        );
        // SAFETY: kill of our own child.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGSTOP) }, 0);
        // SAFETY: siginfo is plain data; zeroed is a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waits for our own child to stop, leaving it waitable.
        let waited = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WSTOPPED | libc::WNOWAIT,
            )
        };
        assert_eq!(waited, 0);
        assert_eq!(
            read_proc(&status, pending_or_stopped).unwrap(),
            (false, true)
        );
        assert_eq!(kill_pending_or_stopped(pid, Some(&status)), (false, true));
        drop(child);
        // Reaped: the file kept open reads nothing more, and the look says
        // neither, as one by pid would.
        assert!(read_proc(&status, |_| ()).is_err());
        assert_eq!(kill_pending_or_stopped(pid, Some(&status)), (false, false));
        // This process's main thread's list, from the file kept open,
        // agrees with a fresh read by path (looked at again while other
        // tests' processes come and go).
        let me = std::process::id();
        let agree = (0..20).any(|_| {
            let kept = main_thread_children(me).expect("children file");
            kept == task_children(me, &me.to_string()).unwrap()
        });
        assert!(agree);
    }

    #[test]
    fn a_process_is_held_once_stopped_and_its_look_tells_its_token() {
        let child = Reaped(
            Command::new("sleep")
                .arg("30")
                .env("CARGO_GOLDEN_TEST_LOOK", "t-1")
                .spawn()
                .unwrap(),
        );
        let pid = child.0.id();
        // Until the child has exec'd, its environment is still its
        // parent's, without the token.
        let first = (0..500)
            .map(|_| {
                let l = look(pid, "CARGO_GOLDEN_TEST_LOOK").unwrap();
                if l.token.is_none() {
                    std::thread::sleep(Duration::from_millis(10));
                }
                l
            })
            .find(|l| l.token.is_some())
            .expect("the token shows once the child has exec'd");
        assert_eq!((first.zombie, first.token.as_deref()), (false, Some("t-1")));
        assert!(!held(pid), "a sleeping process runs on");
        assert!(kill_process(pid, Signal::Stop));
        // Held from the moment the stop is sent: pending, then stopped.
        assert!(held(pid));
        drop(child);
        assert!(held(pid), "gone");
        assert!(look(pid, "CARGO_GOLDEN_TEST_LOOK").is_none());
    }

    #[test]
    fn a_guardian_says_ready_once_and_one_killed_before_it_answered_stays_silent() {
        let token = "CARGO_GOLDEN_TEST_GUARDIAN_TOKEN";
        let mut g = Guardian::start(token, "unit-test").unwrap();
        let start = std::time::Instant::now();
        while g.answer() == Answer::NotYet {
            assert!(start.elapsed() < Duration::from_secs(30), "no answer");
            std::thread::sleep(Duration::from_millis(1));
        }
        // grep -z and /proc are there wherever these tests run.
        assert_eq!(g.answer(), Answer::Ready);
        assert_eq!(g.answer(), Answer::Ready, "asked again");
        g.release();

        // Killed at once, it has (almost always) not answered yet; when
        // it had, try again.
        for _ in 0..20 {
            let mut g = Guardian::start(token, "unit-test").unwrap();
            let _ = g.child.kill();
            let _ = g.child.wait();
            let start = std::time::Instant::now();
            let first = loop {
                match g.answer() {
                    Answer::NotYet => {
                        // Its check's own processes hold its output a moment.
                        assert!(start.elapsed() < Duration::from_secs(30), "no end");
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    said => break said,
                }
            };
            if first == Answer::Ready {
                continue;
            }
            assert_eq!(first, Answer::Silent);
            assert_eq!(g.answer(), Answer::Silent, "asked again, it is not ready");
            return;
        }
        panic!("every guardian answered before it could be killed");
    }
}
