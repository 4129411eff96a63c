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
    let staged = stage(path, bytes)?;
    put_in_place(vec![staged]).map_err(|(_, e)| e)
}

/// `bytes` written to a temporary file beside `path`, to be put in place
/// by [`put_in_place`]; removed if dropped before.
pub(crate) struct Staged {
    tmp: tempfile::NamedTempFile,
    path: std::path::PathBuf,
}

/// Write `bytes` beside `path` for [`put_in_place`].
pub(crate) fn stage(path: &Path, bytes: &[u8]) -> io::Result<Staged> {
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
    Ok(Staged {
        tmp,
        path: path.to_path_buf(),
    })
}

/// Rename every staged file over its target, all under one hold of the
/// writes: a second interrupt (see [`close_writes`]) finds either none of
/// them in place or all of them, never a part of the set. A rename that
/// fails leaves the ones before it in place and is the error, with the
/// file it was for; the rest are removed.
pub(crate) fn put_in_place(files: Vec<Staged>) -> Result<(), (std::path::PathBuf, io::Error)> {
    let closed = CLOSED.lock().unwrap_or_else(|e| e.into_inner());
    if *closed {
        // The temporary files are removed as they drop.
        let first = files.first().map(|f| f.path.clone()).unwrap_or_default();
        return Err((
            first,
            io::Error::other("the run was interrupted twice: nothing more is written"),
        ));
    }
    // No fsync: the rename already makes the replacement atomic for every
    // reader, and an fsync per case's evidence.json tripled the per-case
    // overhead (bench/run.py) for durability across an OS crash only.
    for Staged { tmp, path } in files {
        tmp.persist(&path).map_err(|e| (path.clone(), e.error))?;
    }
    drop(closed);
    Ok(())
}
