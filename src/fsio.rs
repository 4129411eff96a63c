//! Atomic file writes: a reader never sees half a file, and a crash leaves
//! the previous one in place. Used by the evidence writer, the reports and
//! the baseline files.

use std::io::{self, Write as _};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// Whether writes are closed, held while a file is put in place: a
/// process exiting on a second interrupt closes it first, so that no
/// report or evidence of the run it abandons lands afterwards.
static CLOSED: Mutex<bool> = Mutex::new(false);

/// Close file writes for the rest of this process's life: every later
/// [`atomic_write`] fails, and one that was putting its file in place has
/// finished. Hold the guard until the process exits.
pub(crate) fn close_writes() -> MutexGuard<'static, bool> {
    let mut closed = CLOSED.lock().unwrap_or_else(|e| e.into_inner());
    *closed = true;
    closed
}

/// Replace `path` with `bytes`: a temporary file in the same directory
/// (same file system, so the rename is atomic) renamed over the target.
pub(crate) fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".golden-tmp-");
    // A temporary file is private by default; reports are read by other
    // users and CI steps, so give them the mode of an ordinary new file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    let closed = CLOSED.lock().unwrap_or_else(|e| e.into_inner());
    if *closed {
        // The temporary file is removed as it drops.
        return Err(io::Error::other(
            "the run was interrupted twice: nothing more is written",
        ));
    }
    // No fsync: the rename already makes the replacement atomic for every
    // reader, and an fsync per case's evidence.json tripled the per-case
    // overhead (bench/run.py) for durability across an OS crash only.
    tmp.persist(path).map_err(|e| e.error)?;
    drop(closed);
    Ok(())
}
