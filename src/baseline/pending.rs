//! Pending snapshots (SPEC section 20): a run that finds a changed or
//! missing snapshot keeps the text accepting the change would write, so
//! the change can be accepted later without running the case again
//! (`cargo golden review`, `bless --from`).
//!
//! The pending file lives in the case's execution dir,
//! `artifacts/<run_id>/execution/<case>/pending/<snapshot file name>`,
//! and holds exactly what `--bless` writes: the redacted, escaped output
//! of a stream, or a data output's canonical text (its summary under
//! `mode = "summary"`), secrets masked as in every stored output. The
//! seal lists it in `SHA256SUMS` and the case's evidence hash covers its
//! recorded digest ([`crate::wire::evidence::hash_with_pending`]), so a
//! pending file from CI is as trustworthy as the run that kept it.
//!
//! Each records the digest of the snapshot file it was diffed against
//! (none when there was none). When the committed snapshot no longer has
//! that digest, someone changed it since: the pending file is stale and
//! is never written over that newer work.

use std::io;
use std::path::Path;

use crate::model::PendingSnapshot;

/// Where a case keeps its pending snapshots: its execution dir, relative
/// to the out dir, under `out_dir`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingDir<'a> {
    pub out_dir: &'a Path,
    /// The case's execution dir, relative to the out dir.
    pub exec_dir: &'a str,
}

impl PendingDir<'_> {
    /// Write `text` as the pending snapshot of the snapshot file `file`
    /// (relative to the harness file's directory), found different from
    /// the snapshot whose bytes have the sha256 `base_sha256` (None: there
    /// was no snapshot).
    pub(crate) fn keep(
        &self,
        file: &str,
        text: &[u8],
        base_sha256: Option<String>,
    ) -> io::Result<PendingSnapshot> {
        let name = Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| io::Error::other(format!("{file} names no file")))?;
        let rel = format!("{}/{}/{name}", self.exec_dir, crate::layout::PENDING_DIR);
        let path = self.out_dir.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        crate::fsio::atomic_write(&path, text)?;
        Ok(PendingSnapshot {
            path: rel,
            sha256: crate::hash::sha256_hex(text),
            base_sha256,
        })
    }
}
