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
}

impl Drop for RunLock {
    fn drop(&mut self) {
        if let Some(path) = &self.holder {
            // The holder's line would name a run that is over.
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Lock `out_dir` (created if missing) for a run.
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
    let taken = match access {
        Access::Exclusive => file.try_lock(),
        Access::Shared => file.try_lock_shared(),
    };
    match taken {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(OutDirError::Busy {
                dir: out_dir.to_path_buf(),
                holder: holder(&holder_path),
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io_at(&path)(e)),
    }
    let mut holder = None;
    if access == Access::Exclusive {
        let args: Vec<String> = std::env::args().collect();
        let line = format!(
            "pid {} since {}: {}\n",
            std::process::id(),
            jiff::Timestamp::now(),
            args.join(" ")
        );
        // Who holds it is a courtesy to the run turned away: not worth
        // failing this run over.
        if std::fs::write(&holder_path, line).is_ok() {
            holder = Some(holder_path);
        }
    }
    Ok(RunLock {
        _file: file,
        holder,
    })
}

/// What the holder wrote into the holder file, on one line. A holder that
/// has just taken the lock writes a moment later: look a few times.
fn holder(path: &Path) -> Option<String> {
    for _ in 0..10 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !line.is_empty() {
            return Some(line);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    None
}

/// Remove the reports of the previous run from `out_dir`. Something else
/// in a report's place (a directory) holds no verdict and is left for the
/// report's write to fail on, naming it.
pub(crate) fn clear_reports(out_dir: &Path) -> Result<(), OutDirError> {
    for path in crate::report::Written::in_dir(out_dir).paths() {
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
/// previous run's reports.
pub(crate) fn begin(out_dir: &Path) -> Result<RunLock, OutDirError> {
    let lock = lock(out_dir, Access::Exclusive)?;
    clear_reports(out_dir)?;
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
