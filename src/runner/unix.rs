//! Unix implementation: `setpgid` groups, `killpg`, `waitid(WNOWAIT)`,
//! `poll(2)` over the child's pipes.

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus};

/// The `sh` that `PATH` names, looked up once: a bare `sh` made every spawn
/// try each `PATH` entry in turn (bench/run.py measured the cost).
pub fn shell() -> &'static std::path::Path {
    static SHELL: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    SHELL.get_or_init(|| {
        use std::os::unix::fs::PermissionsExt;
        std::env::var_os("PATH")
            .and_then(|path| {
                std::env::split_paths(&path)
                    .map(|d| d.join("sh"))
                    .find(|p| {
                        std::fs::metadata(p)
                            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                    })
            })
            .unwrap_or_else(|| std::path::PathBuf::from("/bin/sh"))
    })
}

/// Put the command in a process group of its own (pgid = its pid).
pub fn new_process_group(cmd: &mut Command) {
    cmd.process_group(0);
}

/// Send `signal` to every process of group `pgid`; a group that is already
/// gone is not an error.
pub fn kill_group(pgid: u32, signal: Signal) {
    let sig = match signal {
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    // SAFETY: killpg has no memory-safety preconditions.
    unsafe {
        libc::killpg(pgid as libc::pid_t, sig);
    }
}

/// Signals the engine sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Ask politely.
    Term,
    /// Force.
    Kill,
}

/// Block until `pid` has exited, without reaping it: the pid (and so the
/// group id) stays reserved until the caller reaps, so a later group kill
/// can never reach an unrelated process.
pub fn wait_exit_no_reap(pid: u32) {
    loop {
        // SAFETY: siginfo is plain data, zero-initialised.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// A descriptor that becomes readable when `pid` exits, without reaping
/// it. Linux: a pidfd, no thread needed. Elsewhere (or on kernels without
/// pidfd_open): a pipe whose write end a waiter thread closes on exit.
pub fn exit_notifier(pid: u32) -> io::Result<std::os::fd::OwnedFd> {
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
pub fn exit_code(status: ExitStatus) -> i32 {
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(-1)
}

/// The signal that ended a command: the one that killed it, or the one
/// `sh` reports in its exit status for a command it ran.
pub fn exit_signal(status: ExitStatus) -> Option<i32> {
    status
        .signal()
        .or_else(|| status.code().and_then(crate::model::shell_signal))
}

/// The name of signal `n` on this platform (`SIGSEGV`), if it has one.
pub fn signal_name(n: i32) -> Option<&'static str> {
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
pub struct Ready {
    /// Data (or EOF) can be read without blocking.
    pub readable: bool,
}

/// Poll `fds` for input for at most `timeout_ms`; EINTR counts as a timeout.
pub fn poll_read(fds: &[RawFd], timeout_ms: i32) -> io::Result<Vec<Ready>> {
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
pub fn set_nonblocking(fd: &impl AsRawFd) {
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
pub fn grow_pipe(fd: &impl AsRawFd) {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on a descriptor we own; failure is harmless.
    unsafe {
        libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fd;
}

/// The signals that interrupt a run.
pub const INTERRUPT_SIGNALS: &[i32] = &[signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
