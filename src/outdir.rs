//! The out dir as a run sees it: one run at a time, and no stale verdict.
//!
//! - A run holds an OS lock on `<out_dir>/.lock` (`flock` on Unix) for its
//!   whole life, released by the OS however the run ends. A second run into
//!   the same out dir does not wait: it exits 2 at once, naming the holder
//!   written into `<out_dir>/.lock.holder`, because a CI job silently queued behind a
//!   hung run is worse than one that says why it stopped. Processes of one
//!   nextest run share the lock (each runs one case and writes no report);
//!   they still exclude `cargo golden` and `cargo test`.
//! - When a run starts, the reports of the previous run are removed, so
//!   that nothing can show an earlier verdict as this run's: not a failed
//!   write, not a second Ctrl-C, not a crash. The earlier runs' evidence
//!   stays under `artifacts/`.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The lock file's name in the out dir.
pub(crate) const LOCK_FILE: &str = ".lock";
/// Who holds the lock, on one line. A file of its own: Windows locks are
/// mandatory, so the lock file itself cannot be read by the run it turns
/// away.
pub(crate) const HOLDER_FILE: &str = ".lock.holder";

/// How a process holds the out dir.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// A run that writes reports: alone.
    Exclusive,
    /// One process of a nextest run: with the others of its kind.
    Shared,
}

/// The out dir could not be taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OutDirError {
    /// Another run holds it.
    #[error(
        "the out dir {} is in use by another run{}\n  help: wait for it to finish, or pass another `--out DIR`",
        crate::layout::display_relative(dir),
        holder.as_deref().map(|h| format!(" ({h})")).unwrap_or_default()
    )]
    Busy {
        /// The out dir.
        dir: PathBuf,
        /// What the holder wrote into the holder file, on one line.
        holder: Option<String>,
    },
    /// A file of the out dir could not be created, locked or removed.
    #[error("cannot prepare the out dir: {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The lock of an out dir; released when dropped (or when the process
/// ends, however it ends).
#[derive(Debug)]
pub(crate) struct RunLock {
    _file: File,
    /// The holder file this run wrote (exclusive access only).
    holder: Option<PathBuf>,
    /// The lock file, while this run is known to [`lost`].
    held: Option<PathBuf>,
}

/// The lock files held by this process's runs, with the identity of the
/// file each lock is on: a lock holds a file, not a path, so a case that
/// removes the out dir (`cargo clean`) frees the path for a second run
/// without this run knowing. [`lost`] compares the two at the end.
static HELD: Mutex<Vec<(PathBuf, Option<FileId>)>> = Mutex::new(Vec::new());

fn held() -> std::sync::MutexGuard<'static, Vec<(PathBuf, Option<FileId>)>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// What identifies a file, whatever its path: device and inode on Unix.
/// Windows has no stable identity in `std`; there the path is checked
/// to still exist.
#[cfg(unix)]
type FileId = (u64, u64);
#[cfg(not(unix))]
type FileId = ();

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_meta: &std::fs::Metadata) -> Option<FileId> {
    Some(())
}

/// How this run's hold on `out_dir` was lost while it ran, if it was:
/// the lock file removed (the out dir deleted by a case) or replaced
/// (and so possibly taken by another run). None when the out dir is not
/// held by a run of this process.
pub(crate) fn lost(out_dir: &Path) -> Option<String> {
    let path = out_dir.join(LOCK_FILE);
    let expected = held().iter().find(|(p, _)| *p == path)?.1;
    match std::fs::symlink_metadata(&path) {
        Err(_) => Some(format!(
            "the out dir's lock file {} was removed while the run held it (was the out dir deleted, e.g. by `cargo clean`?)",
            path.display()
        )),
        Ok(meta) if file_id(&meta) != expected => Some(format!(
            "the out dir's lock file {} was replaced while the run held it: another run may have taken the out dir",
            path.display()
        )),
        Ok(_) => None,
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if let Some(path) = &self.held {
            held().retain(|(p, _)| p != path);
        }
        if let Some(path) = &self.holder {
            // The holder's line would name a run that is over.
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Lock `out_dir` (created if missing) for a run.
#[expect(
    clippy::disallowed_methods,
    reason = "the lock file is opened to lock it, never read: a FIFO there opens at once read-write"
)]
pub(crate) fn lock(out_dir: &Path, access: Access) -> Result<RunLock, OutDirError> {
    let io_at = |path: &Path| {
        let path = path.to_path_buf();
        move |source| OutDirError::Io { path, source }
    };
    std::fs::create_dir_all(out_dir).map_err(io_at(out_dir))?;
    let path = out_dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io_at(&path))?;
    let holder_path = out_dir.join(HOLDER_FILE);
    let try_take = || match access {
        Access::Exclusive => file.try_lock(),
        Access::Shared => file.try_lock_shared(),
    };
    // Who holds it: a holder that has just taken the lock writes its line a
    // moment later, and one that has just finished has removed its line
    // and let go. So look a few times, trying the lock between looks: a
    // run is turned away only while another really holds the out dir.
    let mut looks = 0;
    loop {
        match try_take() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {
                let line = holder(&holder_path);
                if line.is_some() || looks == HOLDER_LOOKS {
                    return Err(OutDirError::Busy {
                        dir: out_dir.to_path_buf(),
                        holder: line,
                    });
                }
                looks += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_at(&path)(e)),
        }
    }
    let mut holder = None;
    if access == Access::Exclusive {
        let args: Vec<String> = std::env::args().collect();
        let line = format!(
            "pid {} since {}: {}\n",
            std::process::id(),
            crate::time::Timestamp::now(),
            args.join(" ")
        );
        // Who holds it is a courtesy to the run turned away: not worth
        // failing this run over.
        if std::fs::write(&holder_path, line).is_ok() {
            holder = Some(holder_path);
        }
    }
    let mut held_path = None;
    if access == Access::Exclusive {
        let id = file.metadata().ok().as_ref().and_then(file_id);
        held().push((path.clone(), id));
        held_path = Some(path);
    }
    Ok(RunLock {
        _file: file,
        holder,
        held: held_path,
    })
}

/// Looks at the holder file, 20 ms apart, before a busy out dir is
/// reported without naming its holder.
const HOLDER_LOOKS: usize = 10;

/// What the holder wrote into the holder file, on one line, if anything.
fn holder(path: &Path) -> Option<String> {
    let text = crate::untrusted::read_to_string(path).unwrap_or_default();
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!line.is_empty()).then_some(line)
}

/// Remove the reports of the previous run from `out_dir`. Something else
/// in a report's place (a directory) holds no verdict and is left for the
/// report's write to fail on, naming it.
pub(crate) fn clear_reports<'a>(
    out_dir: &Path,
    reports: impl IntoIterator<Item = &'a str>,
) -> Result<(), OutDirError> {
    for name in reports {
        let path = &out_dir.join(name);
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(_) if path.is_dir() => {}
            Err(source) => {
                return Err(OutDirError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
    }
    Ok(())
}

/// Start a run that writes reports into `out_dir`: lock it, then clear the
/// previous run's `reports` (their file names; the report layer, above
/// this one, knows them).
pub(crate) fn begin<'a>(
    out_dir: &Path,
    reports: impl IntoIterator<Item = &'a str>,
) -> Result<RunLock, OutDirError> {
    let lock = lock(out_dir, Access::Exclusive)?;
    clear_reports(out_dir, reports)?;
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_exclusive_lock_is_refused_naming_the_holder() {
        let d = tempfile::tempdir().unwrap();
        let first = lock(d.path(), Access::Exclusive).unwrap();
        let err = lock(d.path(), Access::Exclusive).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        assert!(matches!(
            lock(d.path(), Access::Shared),
            Err(OutDirError::Busy { .. })
        ));
        drop(first);
        assert!(
            !d.path().join(HOLDER_FILE).exists(),
            "a released lock names no holder"
        );
        let a = lock(d.path(), Access::Shared).unwrap();
        let b = lock(d.path(), Access::Shared).unwrap();
        assert!(matches!(
            lock(d.path(), Access::Exclusive),
            Err(OutDirError::Busy { .. })
        ));
        drop((a, b));
        lock(d.path(), Access::Exclusive).unwrap();
    }
}
