//! Atomic file writes: a reader never sees half a file, and a crash leaves
//! the previous one in place. Used by the evidence writer, the reports and
//! the baseline files.

use std::io::{self, Write as _};
use std::path::Path;

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
    // No fsync: the rename already makes the replacement atomic for every
    // reader, and an fsync per case's evidence.json tripled the per-case
    // overhead (bench/run.py) for durability across an OS crash only.
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
