//! The platform layer: how processes are started, contained, looked at
//! and killed, how files are told apart, and how signals reach the run, on
//! Unix ([`unix`]-only code in `unix.rs`) and on Windows (`windows.rs`);
//! the rest of the runner names only `sys::…`, whichever platform builds.
//!
//! This file holds the types both platforms share with the runner, so the
//! platform files import nothing of the runner above them (`.ci/layers`
//! checks it): what a look at a process finds, what the guardian answers,
//! a file's kind and its change stamp.

use std::time::SystemTime;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub(in crate::runner) use unix::*;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub(in crate::runner) use windows::*;

/// What the sweep needs to know of a process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ProcInfo {
    /// Process id.
    pub(crate) pid: u32,
    /// Exited, waiting to be reaped.
    pub(crate) zombie: bool,
    /// The value of the token variable in its environment, if any.
    pub(crate) token: Option<String>,
    /// Its command line (or name), for warnings.
    pub(crate) command: String,
    /// Its command line is gone but it is no zombie yet: caught on its
    /// way out (Python's multiprocessing `resource_tracker` a moment
    /// after the tool that started it), or in the middle of an `exec`.
    pub(crate) exiting: bool,
}

/// What the sweep looks at first, to pick a process: whether it has
/// exited, and its token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Look {
    /// Exited, waiting to be reaped.
    pub(crate) zombie: bool,
    /// The value of the token variable in its environment, if any.
    pub(crate) token: Option<String>,
}

/// What a guardian has said of its tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Windows has no guardian: its stub only ever says it cannot work.
#[cfg_attr(windows, allow(dead_code))]
pub(crate) enum Answer {
    /// Nothing yet: it is still checking them.
    NotYet,
    /// They work: it will kill what the cases leave if the harness dies.
    Ready,
    /// They do not: it has left.
    Unusable,
    /// It closed its output without a word: it was killed.
    Silent,
}

/// Kinds of directory entries the isolation code tells apart.
// The kinds only Unix has are never seen on Windows.
#[cfg_attr(windows, allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device.
    CharDevice,
    /// A block device.
    BlockDevice,
}

impl FileKind {
    /// How an error or a change names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            FileKind::File => "file",
            FileKind::Dir => "directory",
            FileKind::Symlink => "symlink",
            FileKind::Fifo => "FIFO",
            FileKind::Socket => "socket",
            FileKind::CharDevice => "character device",
            FileKind::BlockDevice => "block device",
        }
    }
}

/// A file's identity and change time (see `isolation`'s module text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ChangeStamp {
    /// Device, inode, size.
    pub(crate) id: (u64, u64, u64),
    /// ctime.
    pub(crate) changed: SystemTime,
}
