//! The one way in for a file a case or a user can shape: the harness
//! file, `validate FILE`, snapshots and the baseline, a case's data
//! outputs (every file of a Delta table included), structured results,
//! history, the evidence and reports being verified or merged, and keys.
//! CI holds every other module to it: `clippy.toml` disallows
//! `std::fs::read`, `read_to_string`, `File::open`, `OpenOptions::open` and
//! `std::fs::copy` everywhere else.
//!
//! A name can point anywhere: `/dev/zero` would be read until memory runs
//! out, a FIFO would block the run forever, and `/proc/self/environ` is
//! the harness's own environment, signing key included. The file is
//! opened without blocking (on Unix, `O_NONBLOCK`: opening a FIFO with no
//! writer returns at once), checked through the open handle (no window
//! between the check and the read: on Linux a file of the kernel's own
//! file systems, `/proc` and `/sys`, is refused as a device is), and read
//! through [`Read::take`], so a file that grows while it is read cannot
//! pass the limit either. A path a case writes (a structured result, a
//! data output) must moreover lie in the case's directory once its links
//! are resolved ([`confined`]).
#![allow(clippy::disallowed_methods)]

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The most read of a harness, snapshot, baseline or key file.
pub(crate) const LIMIT: u64 = 16 << 20;

/// Why a named file is not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UserFileError {
    /// A FIFO, device, socket or directory.
    #[error("is not a regular file (a FIFO, device or directory?): name a plain file")]
    NotRegular,
    /// Over the limit.
    #[error("is larger than {} MiB, the most cargo-golden reads of it", limit >> 20)]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// A file of the kernel's (`/proc`, `/sys`, `/dev`): the harness's
    /// own environment, memory and devices are never read.
    #[error("{}a file of the kernel's (under /proc, /sys or /dev), which is never read", resolved.as_ref().map_or_else(|| "is ".to_string(), |r| format!("resolves to {}, ", r.display())))]
    Kernel {
        /// Where its links lead, when that is known.
        resolved: Option<PathBuf>,
    },
    /// Its links lead out of the directory it must lie in.
    #[error("resolves to {}, outside {what} ({}): name a file inside it", resolved.display(), root.display())]
    Outside {
        /// Where its links lead.
        resolved: PathBuf,
        /// The directory it must lie in.
        root: PathBuf,
        /// What that directory is, in words.
        what: &'static str,
    },
}

impl From<UserFileError> for io::Error {
    fn from(e: UserFileError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, e)
    }
}

/// Whether `e` says a file was refused as not regular or too large (not
/// that it could not be opened).
pub(crate) fn refused(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<UserFileError>())
}

/// The regular file `path`, open for reading, with its size when opened.
/// Errors keep the kind of the failed open (`NotFound` stays `NotFound`);
/// a file that is not regular is an `InvalidInput` error holding
/// [`UserFileError::NotRegular`]. For a file read as a stream (a log
/// hashed, an output summarised): its size is whatever it is.
pub(crate) fn open(path: &Path) -> io::Result<(File, u64)> {
    // Windows: a named pipe or device (`\\.\pipe\x`, `NUL`) is refused
    // before it is opened, since reading one could block.
    #[cfg(not(unix))]
    if !std::fs::metadata(path)?.is_file() {
        return Err(UserFileError::NotRegular.into());
    }
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(UserFileError::NotRegular.into());
    }
    if of_the_kernel(&file) {
        return Err(UserFileError::Kernel { resolved: None }.into());
    }
    Ok((file, meta.len()))
}

/// The directories whose files are the kernel's, never read for a case.
const KERNEL_DIRS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// `path` with its links resolved, when it lies in `root` (also resolved);
/// else an `InvalidInput` error holding [`UserFileError::Outside`] or,
/// under `/proc`, `/sys` or `/dev`, [`UserFileError::Kernel`]. `what`
/// says what `root` is (`the case's working directory`). A path that
/// cannot be resolved (nothing there) keeps the error's kind, as
/// [`open`] would. For a file a case names and the harness reads (a
/// result, a data output): a link to `/proc/self/environ` would have the
/// harness read, and keep, its own environment.
pub(crate) fn confined(path: &Path, root: &Path, what: &'static str) -> io::Result<PathBuf> {
    let resolved = std::fs::canonicalize(path)?;
    if KERNEL_DIRS.iter().any(|d| resolved.starts_with(d)) {
        return Err(UserFileError::Kernel {
            resolved: Some(resolved),
        }
        .into());
    }
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if !resolved.starts_with(&root) {
        return Err(UserFileError::Outside {
            resolved,
            root,
            what,
        }
        .into());
    }
    Ok(resolved)
}

/// Whether `file` lies on one of the kernel's own file systems (`/proc`,
/// `/sys` and the like), asked of the open handle: no link swapped in
/// after a look at the path can lead there unseen.
#[cfg(target_os = "linux")]
#[allow(
    clippy::unnecessary_cast,
    reason = "f_type and the magic numbers have types that differ between C libraries"
)]
fn of_the_kernel(file: &File) -> bool {
    use std::os::fd::AsRawFd as _;
    // SAFETY: statfs is plain data; fstatfs fills it for a valid fd.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a descriptor we own and a valid out pointer.
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut fs) } != 0 {
        return false;
    }
    #[allow(
        clippy::unnecessary_cast,
        reason = "f_type's type differs between C libraries"
    )]
    let kind = fs.f_type as i64;
    [
        libc::PROC_SUPER_MAGIC as i64,
        libc::SYSFS_MAGIC as i64,
        libc::DEBUGFS_MAGIC as i64,
        libc::TRACEFS_MAGIC as i64,
        libc::SECURITYFS_MAGIC as i64,
        libc::CGROUP_SUPER_MAGIC as i64,
        libc::CGROUP2_SUPER_MAGIC as i64,
        libc::BPF_FS_MAGIC as i64,
    ]
    .contains(&kind)
}

/// Elsewhere the kernel's files are devices, refused as not regular.
#[cfg(not(target_os = "linux"))]
fn of_the_kernel(_file: &File) -> bool {
    false
}

/// The bytes of the regular file `path`, at most `limit` of them. Errors
/// as for [`open`]; a file larger than `limit` is an `InvalidInput` error
/// holding [`UserFileError::TooLarge`].
pub(crate) fn read_limited(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open(path)?;
    if len > limit {
        return Err(UserFileError::TooLarge { limit }.into());
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(UserFileError::TooLarge { limit }.into());
    }
    Ok(bytes)
}

/// The first `n` bytes of the regular file `path` (fewer when it is
/// shorter), refused as [`open`] refuses it.
pub(crate) fn read_head(path: &Path, n: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open(path)?;
    let mut bytes = Vec::with_capacity(len.min(n) as usize);
    file.take(n).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_limited`] with [`LIMIT`].
pub(crate) fn read(path: &Path) -> io::Result<Vec<u8>> {
    read_limited(path, LIMIT)
}

/// [`read`] as UTF-8 text (`InvalidData` when it is not).
pub(crate) fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Copy the regular file `from` to `to` (created or truncated) without
/// reading it into memory; the bytes copied. `from` is refused as
/// [`open`] refuses it.
pub(crate) fn copy(from: &Path, to: &Path) -> io::Result<u64> {
    let (mut src, _) = open(from)?;
    let mut dst = File::create(to)?;
    let n = io::copy(&mut src, &mut dst)?;
    dst.set_permissions(src.metadata()?.permissions())?;
    Ok(n)
}

/// What a file is, to tell whether a command wrote it: its identity (on
/// Unix, device and inode: a file written anew and renamed into place is
/// another file), size and modification time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    id: (u64, u64),
    len: u64,
    modified: Option<std::time::SystemTime>,
}

/// The [`Stamp`] of what `path` names now (a link followed), or None when
/// nothing is there.
pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let id = {
        use std::os::unix::fs::MetadataExt as _;
        (m.dev(), m.ino())
    };
    #[cfg(not(unix))]
    let id = (0, 0);
    Some(Stamp {
        id,
        len: m.len(),
        modified: m.modified().ok(),
    })
}

/// Open `path` for reading, whatever it is, without ever blocking in the
/// open (a FIFO put in place of a file since it was listed would otherwise
/// wait for a writer). The caller looks at what it opened before reading:
/// [`open`] does so for the callers that want a regular file only.
#[cfg(unix)]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    // Without a writer, a FIFO opened for reading blocks in open(2) unless
    // O_NONBLOCK; for a regular file the flag changes nothing.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Open `path` for reading, whatever it is: opening never blocks on
/// Windows, which has no FIFOs in the file system.
#[cfg(not(unix))]
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_limit_or_not_regular_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_limited(&file, 5).unwrap(), b"12345");
        let e = read_limited(&file, 4).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(refused(&e));
        assert!(e.to_string().contains("larger than"), "{e}");
        let e = read(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read(&dir.path().join("absent")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(!refused(&e));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_kernels_files_are_refused_and_a_confined_path_stays_in_its_root() {
        let dir = tempfile::tempdir().unwrap();
        let environ = dir.path().join("environ");
        std::os::unix::fs::symlink("/proc/self/environ", &environ).unwrap();
        let e = read(&environ).unwrap_err();
        assert!(refused(&e), "{e}");
        assert!(e.to_string().contains("kernel's"), "{e}");
        let e = confined(&environ, dir.path(), "the dir").unwrap_err();
        assert!(
            e.to_string().starts_with("resolves to /proc/") && e.to_string().contains("never read"),
            "{e}"
        );

        let inside = dir.path().join("sub/r.xml");
        std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
        std::fs::write(&inside, b"x").unwrap();
        let via = dir.path().join("via");
        std::os::unix::fs::symlink("sub", &via).unwrap();
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(
            confined(&via.join("r.xml"), dir.path(), "the dir").unwrap(),
            root.join("sub/r.xml")
        );
        let e = confined(&inside, &dir.path().join("via/.."), "the dir");
        assert!(e.is_ok(), "a root with `..` is resolved too: {e:?}");
        let e = confined(&inside, &root.join("elsewhere"), "the dir").unwrap_err();
        assert!(refused(&e));
        assert!(e.to_string().contains("outside the dir"), "{e}");
        let e = confined(&dir.path().join("absent"), dir.path(), "the dir").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let link = dir.path().join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        for p in [&fifo, &link] {
            assert!(refused(&read(p).unwrap_err()), "{}", p.display());
            assert!(refused(&open(p).unwrap_err()), "{}", p.display());
            assert!(refused(&copy(p, &dir.path().join("to")).unwrap_err()));
        }
    }
}
