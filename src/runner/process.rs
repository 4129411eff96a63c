//! Runs one command: `sh -c` in a process group of its own, both pipes
//! streamed to sinks, timeout with a grace period, leak wait, group kill.
//!
//! A single thread polls both pipes and an exit notification, so the run
//! can end at any moment (timeout, leaked descendants holding a pipe,
//! interrupt) without threads left blocked on a read.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::sys::{self, Signal};
use crate::runner::interrupt::Interrupt;

/// Receives one stream's bytes as they are read.
pub trait Sink {
    /// Handle the next chunk.
    fn write(&mut self, chunk: &[u8]) -> io::Result<()>;
}

/// What to run and its limits.
#[derive(Clone, Debug)]
pub struct Spec<'a> {
    /// Passed to `sh -c`.
    pub command: &'a str,
    /// Working directory (must exist).
    pub working_dir: &'a Path,
    /// Added to the parent's environment.
    pub env: &'a BTreeMap<String, String>,
    /// Wall-clock limit.
    pub timeout: Duration,
    /// SIGTERM → SIGKILL delay.
    pub kill_grace: Duration,
    /// How long pipes may stay open after the main process exited.
    pub leak_wait: Duration,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Exit code, 128+N when killed by signal N.
    pub exit_code: i32,
    /// The signal that ended the command, if one did.
    pub signal: Option<i32>,
    /// The timeout fired.
    pub timed_out: bool,
    /// The harness was interrupted while it ran.
    pub interrupted: bool,
    /// Descendants still held a pipe after the main process exited.
    pub leaked: bool,
    /// Wall clock from spawn to reap.
    pub duration: Duration,
}

/// The command could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The working directory is missing or not a directory.
    #[error("working directory {} does not exist or is not a directory", .0.display())]
    WorkingDir(std::path::PathBuf),
    /// `sh` could not be started.
    #[error("cannot start `sh -c`")]
    Spawn(#[source] io::Error),
    /// Reading the pipes failed.
    #[error("reading the command's output failed")]
    Io(#[source] io::Error),
    /// A sink failed (e.g. the disk is full).
    #[error("writing the command's output failed")]
    Sink(#[source] io::Error),
}

const CHUNK: usize = 256 * 1024;
/// How often an idle wait looks at the interrupt flag.
const TICK: Duration = Duration::from_millis(50);

/// Run `spec`, streaming stdout and stderr into the sinks.
pub fn run(
    spec: &Spec<'_>,
    stdout: &mut dyn Sink,
    stderr: &mut dyn Sink,
    interrupt: Option<&Arc<Interrupt>>,
) -> Result<Outcome, SpawnError> {
    if !spec.working_dir.is_dir() {
        return Err(SpawnError::WorkingDir(spec.working_dir.to_path_buf()));
    }
    let mut cmd = Command::new(sys::shell());
    cmd.arg("-c")
        .arg(spec.command)
        .current_dir(spec.working_dir)
        // A case that could read the signing key could sign a forged run.
        .env_remove(crate::report::seal::KEY_ENV)
        .env_remove(crate::report::seal::PASSWORD_ENV)
        .envs(spec.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    sys::new_process_group(&mut cmd);

    let start = Instant::now();
    let mut child = cmd.spawn().map_err(SpawnError::Spawn)?;
    let pgid = child.id();
    if let Some(i) = interrupt {
        i.add_group(pgid);
    }
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    sys::grow_pipe(&out);
    sys::grow_pipe(&err);

    // Readable once the main process has exited (not reaped): folds
    // "exited" into the same poll as the output.
    let exit_fd = sys::exit_notifier(pgid).map_err(SpawnError::Spawn)?;

    let deadline = start + spec.timeout;
    let mut buf = vec![0u8; CHUNK];
    let mut open = [true, true];
    let mut exited = false;
    let mut leak_deadline: Option<Instant> = None;
    let mut kill_at: Option<Instant> = None;
    let mut timed_out = false;
    let mut interrupted = false;
    let mut leaked = false;
    let mut failure: Option<SpawnError> = None;

    loop {
        let now = Instant::now();
        if !timed_out && !interrupted {
            if now >= deadline {
                timed_out = true;
            } else if interrupt.is_some_and(|i| i.requested()) {
                interrupted = true;
            }
            if timed_out || interrupted {
                sys::kill_group(pgid, Signal::Term);
                kill_at = Some(now + spec.kill_grace);
            }
        }
        if let Some(at) = kill_at
            && now >= at
        {
            sys::kill_group(pgid, Signal::Kill);
            kill_at = None;
        }
        if exited && !open[0] && !open[1] {
            break;
        }
        if let Some(ld) = leak_deadline
            && now >= ld
        {
            leaked = open[0] || open[1];
            break;
        }
        if failure.is_some() {
            break;
        }

        let mut wake = now + TICK;
        if !timed_out && !interrupted {
            wake = wake.min(deadline);
        }
        if let Some(at) = kill_at {
            wake = wake.min(at);
        }
        if let Some(ld) = leak_deadline {
            wake = wake.min(ld);
        }
        let ms = wake
            .saturating_duration_since(now)
            .as_millis()
            .clamp(1, 1000) as i32;

        let mut fds = Vec::with_capacity(3);
        if open[0] {
            fds.push(out.as_raw_fd());
        }
        if open[1] {
            fds.push(err.as_raw_fd());
        }
        if !exited {
            fds.push(exit_fd.as_raw_fd());
        }
        let ready = sys::poll_read(&fds, ms).map_err(SpawnError::Io)?;
        let mut k = 0;
        for (stream, is_open) in open.iter_mut().enumerate() {
            if !*is_open {
                continue;
            }
            if ready[k].readable {
                let (pipe, sink): (&mut dyn Read, &mut dyn Sink) = if stream == 0 {
                    (&mut out, &mut *stdout)
                } else {
                    (&mut err, &mut *stderr)
                };
                match pipe.read(&mut buf) {
                    Ok(0) => *is_open = false,
                    Ok(n) => {
                        if let Err(e) = sink.write(&buf[..n]) {
                            failure = Some(SpawnError::Sink(e));
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => failure = Some(SpawnError::Io(e)),
                }
            }
            k += 1;
        }
        if !exited && ready[k].readable {
            exited = true;
            leak_deadline = Some(Instant::now() + spec.leak_wait);
        }
    }

    // Nothing of the group may outlive the case. The main process is not
    // reaped yet, so the group id cannot have been reused.
    sys::kill_group(pgid, Signal::Kill);
    if !exited {
        sys::wait_exit_no_reap(pgid);
    }
    // Whatever is still buffered in the pipes belongs to the case's output.
    for (stream, is_open) in open.iter().enumerate() {
        if !*is_open {
            continue;
        }
        let (pipe, sink): (&mut dyn Read, &mut dyn Sink) = if stream == 0 {
            sys::set_nonblocking(&out);
            (&mut out, &mut *stdout)
        } else {
            sys::set_nonblocking(&err);
            (&mut err, &mut *stderr)
        };
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 || sink.write(&buf[..n]).is_err() {
                break;
            }
        }
    }
    // Forget the group before reaping: once reaped its id may be reused.
    if let Some(i) = interrupt {
        i.remove_group(pgid);
    }
    let status = child.wait().map_err(SpawnError::Io)?;
    if let Some(f) = failure {
        return Err(f);
    }
    Ok(Outcome {
        exit_code: sys::exit_code(status),
        signal: sys::exit_signal(status),
        timed_out,
        interrupted,
        leaked,
        duration: start.elapsed(),
    })
}
