//! Windows implementation: each case in a Job Object of its own (started
//! suspended, assigned, then resumed, so not even its first child escapes),
//! the job terminated as a whole; a reader thread per pipe and a waiter
//! thread on the process feed one channel; Ctrl-C, Ctrl-Break and a closed
//! console through `SetConsoleCtrlHandler`.
//!
//! Windows has no SIGTERM for console programs: asking politely and forcing
//! are the same `TerminateJobObject`, so `kill_grace` does not apply.

use std::collections::HashMap;
use std::io::{self, Read};
use std::os::windows::io::{AsHandle, AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::os::windows::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::{ChangeStamp, FileKind, Look, ProcInfo};
use windows_sys::Win32::Foundation::{FALSE, HANDLE, INVALID_HANDLE_VALUE, TRUE};
use windows_sys::Win32::System::Console::{
    CTRL_BREAK_EVENT, CTRL_C_EVENT, CTRL_CLOSE_EVENT, SetConsoleCtrlHandler,
};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectExtendedLimitInformation, SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, CREATE_SUSPENDED, INFINITE, OpenThread, ResumeThread,
    THREAD_SUSPEND_RESUME, WaitForSingleObject,
};

/// Exit code of every process of a terminated job.
const TERMINATED: u32 = 1;

/// Start the command suspended, so it can join its job before it runs,
/// and in a console process group of its own, so a Ctrl-C typed at the
/// console reaches the harness, which then ends the case, as on Unix. No
/// parent-death signal is needed: the job dies with the harness.
/// stdin is the null device, stdout and stderr are piped.
pub(in crate::runner) fn spawn(cmd: &mut Command, _parent_death_signal: bool) -> io::Result<Child> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .creation_flags(CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP)
        .spawn()
}

/// A case's main process: the standard library's, which keeps its process
/// handle open until it is dropped.
pub(in crate::runner) type Child = std::process::Child;

/// A case's Job Object, by its main process id, so `kill_case` (and a
/// second Ctrl-C) can reach it; the id cannot be reused while the
/// `Child` keeps its process handle open.
fn jobs() -> &'static Mutex<HashMap<u32, OwnedHandle>> {
    static JOBS: OnceLock<Mutex<HashMap<u32, OwnedHandle>>> = OnceLock::new();
    JOBS.get_or_init(Mutex::default)
}

/// A case's Job Object. Dropping it closes the job, and
/// `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE` kills whatever is still in it; the
/// OS closes it too when the harness dies, so a case never outlives it.
#[derive(Debug)]
pub(in crate::runner) struct Container {
    id: u32,
}

impl Drop for Container {
    fn drop(&mut self) {
        jobs()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.id);
    }
}

/// Put the suspended `child` in a new Job Object, then let it run. On
/// failure the child is killed.
pub(in crate::runner) fn confine(child: &mut Child) -> io::Result<Container> {
    let job = match new_job().and_then(|job| {
        // SAFETY: both handles are valid for the duration of the call.
        let ok = unsafe { AssignProcessToJobObject(raw(&job), raw(&*child)) };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }) {
        Ok(job) => job,
        Err(e) => {
            let _ = child.kill();
            return Err(e);
        }
    };
    if let Err(e) = resume(child.id()) {
        // SAFETY: a valid job handle.
        unsafe { TerminateJobObject(raw(&job), TERMINATED) };
        return Err(e);
    }
    jobs()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(child.id(), job);
    Ok(Container { id: child.id() })
}

fn raw(h: &impl AsRawHandle) -> HANDLE {
    h.as_raw_handle() as HANDLE
}

fn new_job() -> io::Result<OwnedHandle> {
    // SAFETY: no security attributes, no name.
    let h = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if h.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh handle we own.
    let job = unsafe { OwnedHandle::from_raw_handle(h as RawHandle) };
    // SAFETY: plain data, zero-initialised.
    let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
    // A crash ends the process instead of waiting on an error dialog
    // until the timeout.
    limits.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
    // SAFETY: `limits` is the structure this information class expects.
    let ok = unsafe {
        SetInformationJobObject(
            raw(&job),
            JobObjectExtendedLimitInformation,
            (&raw const limits).cast(),
            size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(job)
}

/// Resume the threads of suspended process `pid` (just its first one).
/// `std` does not hand out the main thread's handle, so it is found in a
/// thread snapshot.
fn resume(pid: u32) -> io::Result<()> {
    // SAFETY: a snapshot of all threads; the handle is closed below.
    let snap = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snap == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh handle we own.
    let snap = unsafe { OwnedHandle::from_raw_handle(snap as RawHandle) };
    // SAFETY: plain data; dwSize set as the API requires.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = size_of::<THREADENTRY32>() as u32;
    let mut resumed = 0;
    // SAFETY: valid snapshot handle and entry.
    let mut more = unsafe { Thread32First(raw(&snap), &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: plain call; the handle is closed right after use.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, FALSE, entry.th32ThreadID) };
            if !thread.is_null() {
                // SAFETY: a fresh handle we own.
                let thread = unsafe { OwnedHandle::from_raw_handle(thread as RawHandle) };
                // SAFETY: a valid thread handle with THREAD_SUSPEND_RESUME.
                if unsafe { ResumeThread(raw(&thread)) } != u32::MAX {
                    resumed += 1;
                }
            }
        }
        // SAFETY: as for Thread32First.
        more = unsafe { Thread32Next(raw(&snap), &mut entry) } != 0;
    }
    if resumed == 0 {
        return Err(io::Error::other(format!(
            "could not resume process {pid} after putting it in its job"
        )));
    }
    Ok(())
}

/// Kill every process of the job whose main process is `id`. Both signals
/// terminate: Windows console programs have no polite stop. A job that is
/// already gone is not an error.
pub(in crate::runner) fn kill_case(id: u32, _signal: Signal) {
    let jobs = jobs().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(job) = jobs.get(&id) {
        // SAFETY: a valid job handle, kept open by the map.
        unsafe { TerminateJobObject(raw(job), TERMINATED) };
    }
}

/// Signals the engine sends (both terminate the job on Windows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::runner) enum Signal {
    /// Ask politely.
    Term,
    /// Force.
    Kill,
    /// Freeze (never sent: nothing comes back to be swept).
    Stop,
}

/// The exit code as Windows reports it (NTSTATUS codes such as
/// `0xC0000005` come out negative).
pub(in crate::runner) fn exit_code(status: ExitStatus) -> i32 {
    status.code().unwrap_or(-1)
}

/// The signal that ended a command. Windows has none: a terminated job
/// or a crash is an exit code. Under Git for Windows' `sh`, an exit status
/// of 128+N still reads as signal N, as `sh` means it.
pub(in crate::runner) fn exit_signal(status: ExitStatus) -> Option<i32> {
    status.code().and_then(crate::model::shell_signal)
}

/// Signal names: Windows has no signals.
pub(in crate::runner) fn signal_name(_n: i32) -> Option<&'static str> {
    None
}

/// Kill the single process `pid`. Never called: nothing of a case comes
/// back to the harness to be swept (see [`children`]).
pub(in crate::runner) fn kill_process(_pid: u32, _signal: Signal) -> bool {
    false
}

/// Windows has no subreaper: a case's descendants stay in its Job Object,
/// which the case's end (or the harness's death) terminates whole.
pub(in crate::runner) fn become_subreaper() -> bool {
    false
}

/// Inherited processes to sweep: none, everything stays in its job.
pub(in crate::runner) fn children() -> Vec<u32> {
    Vec::new()
}

/// Descendants of an inherited process: none (see [`children`]).
pub(in crate::runner) fn descendants(_pid: u32) -> Vec<u32> {
    Vec::new()
}

/// Whether an inherited process exited, and its token: nothing is ever
/// inherited.
pub(in crate::runner) fn look(_pid: u32, _token_var: &str) -> Option<Look> {
    None
}

/// Whether an inherited process runs nothing more: nothing is ever
/// inherited.
pub(in crate::runner) fn held(_pid: u32) -> bool {
    true
}

/// What an inherited process is: nothing is ever inherited.
pub(in crate::runner) fn inspect(_pid: u32, _token_var: &str) -> Option<ProcInfo> {
    None
}

/// Reap an inherited process: nothing is ever inherited.
pub(in crate::runner) fn reap(_pid: u32, _limit: Duration) -> bool {
    true
}

/// Wait for a killed case's main process to exit: nothing of a case ever
/// comes back to the harness (the job kill reaches every process in it).
pub(in crate::runner) fn wait_exited(_pid: u32, _limit: Duration) -> bool {
    true
}

/// The guardian of a harness killed outright: not needed on Windows, where
/// the OS closes the harness's job handles and kill-on-close ends the cases.
#[derive(Debug)]
pub(in crate::runner) struct Guardian;

impl Guardian {
    /// Never starts (see the type).
    pub(in crate::runner) fn start(_token_var: &str, _prefix: &str) -> io::Result<Guardian> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    /// Never called: no guardian ever starts.
    pub(in crate::runner) fn answer(&mut self) -> super::Answer {
        super::Answer::Unusable
    }

    /// Never called: no guardian ever starts.
    pub(in crate::runner) fn pid(&self) -> u32 {
        0
    }

    /// Never called: no guardian ever starts.
    pub(in crate::runner) fn exited(&mut self) -> bool {
        false
    }

    /// Nothing to release.
    pub(in crate::runner) fn release(self) {}
}

/// The kind of an entry. Windows has no FIFOs, sockets or devices among
/// ordinary directory entries.
pub(in crate::runner) fn file_kind(ft: std::fs::FileType) -> FileKind {
    if ft.is_symlink() {
        FileKind::Symlink
    } else if ft.is_dir() {
        FileKind::Dir
    } else {
        FileKind::File
    }
}

/// Windows offers no change time a process cannot set: every file is
/// hashed again after a run.
pub(in crate::runner) fn change_stamp(_meta: &std::fs::Metadata) -> Option<ChangeStamp> {
    None
}

/// Permission bits: only read-only is known, as the owner's write bit.
pub(in crate::runner) fn mode(meta: &std::fs::Metadata) -> u32 {
    if meta.permissions().readonly() {
        0o444
    } else {
        0o666
    }
}

/// Named pipes are not directory entries on Windows: never called, since
/// [`file_kind`] never says `Fifo`.
pub(in crate::runner) fn make_fifo(_path: &Path, _mode: u32) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Create a symbolic link `link` pointing at `target` (a file or directory
/// symlink after what the target is, relative to the link's directory).
/// Needs Developer Mode or the symlink privilege.
pub(in crate::runner) fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    let resolved = link.parent().unwrap_or(Path::new("")).join(target);
    if resolved.is_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    }
}

type Handler = Box<dyn Fn() + Send + Sync>;

fn handlers() -> &'static Mutex<Vec<Handler>> {
    static HANDLERS: OnceLock<Mutex<Vec<Handler>>> = OnceLock::new();
    HANDLERS.get_or_init(Mutex::default)
}

unsafe extern "system" fn on_console_event(event: u32) -> windows_sys::core::BOOL {
    match event {
        CTRL_C_EVENT | CTRL_BREAK_EVENT | CTRL_CLOSE_EVENT => {
            // The system runs this on a thread of its own; a second
            // interrupt may exit the process from here.
            for f in handlers().lock().unwrap_or_else(|e| e.into_inner()).iter() {
                f();
            }
            if event == CTRL_CLOSE_EVENT {
                // The process ends when this returns (or after 5 s): give
                // the run that time to kill its case and write the reports.
                std::thread::sleep(Duration::from_millis(4500));
            }
            TRUE
        }
        _ => FALSE,
    }
}

/// Call `f` for every Ctrl-C, Ctrl-Break or closing of the console.
/// Write `message` to stderr from the interrupt handler (a console write
/// does not wait on a reader).
pub(in crate::runner) fn say(message: &str) {
    use std::io::Write as _;
    let _ = std::io::stderr().write_all(message.as_bytes());
}

pub(in crate::runner) fn on_interrupt(f: impl Fn() + Send + Sync + 'static) -> io::Result<()> {
    let mut list = handlers().lock().unwrap_or_else(|e| e.into_inner());
    if list.is_empty() {
        // SAFETY: registers a function that lives as long as the process.
        if unsafe { SetConsoleCtrlHandler(Some(on_console_event), TRUE) } == 0 {
            return Err(io::Error::last_os_error());
        }
    }
    list.push(Box::new(f));
    Ok(())
}

/// Bytes read from a pipe at once.
const CHUNK: usize = 64 * 1024;
/// Chunks in flight per case: reader threads wait (and so does the case)
/// when the sinks fall behind, so memory stays bounded.
const IN_FLIGHT: usize = 16;
/// Longest wait for the pipes to close once the job was terminated.
const FINISH_LIMIT: Duration = Duration::from_secs(5);

enum Msg {
    Data(usize, Vec<u8>),
    Closed(usize),
    Failed(usize, io::Error),
    Exited,
}

/// A running child's output pipes (0 = stdout, 1 = stderr) and its exit:
/// a blocking reader thread per pipe and a waiter thread on the process
/// handle send to one channel, which the engine waits on with a timeout.
pub(in crate::runner) struct Watch {
    rx: Receiver<Msg>,
    open: [bool; 2],
    exited: bool,
}

impl Watch {
    /// Take the child's piped stdout and stderr and watch them and its exit.
    pub(in crate::runner) fn new(child: &mut Child) -> io::Result<Watch> {
        let (tx, rx) = mpsc::sync_channel(IN_FLIGHT);
        let process = child.as_handle().try_clone_to_owned()?;
        let out = child.stdout.take().expect("stdout is piped");
        let err = child.stderr.take().expect("stderr is piped");
        read_into(0, out, tx.clone())?;
        read_into(1, err, tx.clone())?;
        std::thread::Builder::new()
            .name("case-exit".into())
            .spawn(move || {
                // SAFETY: `process` is our own duplicate of the handle.
                unsafe { WaitForSingleObject(raw(&process), INFINITE) };
                let _ = tx.send(Msg::Exited);
            })?;
        Ok(Watch {
            rx,
            open: [true, true],
            exited: false,
        })
    }

    /// The main process has exited.
    pub(in crate::runner) fn exited(&self) -> bool {
        self.exited
    }

    /// A pipe is still open: something may still write to it.
    pub(in crate::runner) fn open(&self) -> bool {
        self.open[0] || self.open[1]
    }

    /// Wait at most `timeout` for output or the exit; `on(stream, bytes)`
    /// gets what was read.
    pub(in crate::runner) fn wait(
        &mut self,
        timeout: Duration,
        on: &mut dyn FnMut(usize, &[u8]),
    ) -> io::Result<()> {
        let first = match self.rx.recv_timeout(timeout) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Err(RecvTimeoutError::Disconnected) => {
                self.open = [false, false];
                self.exited = true;
                return Ok(());
            }
        };
        self.take(first, on)?;
        // Whatever else is queued, without waiting; bounded so timers are
        // still looked at under a flood of output.
        for _ in 0..IN_FLIGHT {
            match self.rx.try_recv() {
                Ok(m) => self.take(m, on)?,
                Err(_) => break,
            }
        }
        Ok(())
    }

    fn take(&mut self, m: Msg, on: &mut dyn FnMut(usize, &[u8])) -> io::Result<()> {
        match m {
            Msg::Data(i, bytes) => on(i, &bytes),
            Msg::Closed(i) => self.open[i] = false,
            Msg::Exited => self.exited = true,
            Msg::Failed(i, e) => {
                self.open[i] = false;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Once the job was terminated: wait (boundedly) for the exit and for
    /// the pipes to close, handing over what they still held.
    pub(in crate::runner) fn finish(mut self, on: &mut dyn FnMut(usize, &[u8])) {
        let limit = Instant::now() + FINISH_LIMIT;
        while !self.exited || self.open() {
            let left = limit.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            // A read error at this point loses nothing more than the rest.
            let _ = self.wait(left, on);
        }
    }
}

/// A thread reading `pipe` to its end into `tx`.
fn read_into(
    stream: usize,
    mut pipe: impl Read + Send + 'static,
    tx: SyncSender<Msg>,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name("case-pipe".into())
        .spawn(move || {
            let mut buf = vec![0u8; CHUNK];
            loop {
                let msg = match pipe.read(&mut buf) {
                    Ok(0) => Msg::Closed(stream),
                    Ok(n) => Msg::Data(stream, buf[..n].to_vec()),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => Msg::Failed(stream, e),
                };
                let last = !matches!(msg, Msg::Data(..));
                if tx.send(msg).is_err() || last {
                    return;
                }
            }
        })?;
    Ok(())
}
