//! Reading a file a user named (the harness file, `validate FILE`, a
//! snapshot or baseline file, a signing or public key): only a regular
//! file, and never more than a limit.
//!
//! A name can point anywhere: `/dev/zero` would be read until memory runs
//! out, a FIFO would block the run forever. The file is opened without
//! blocking (on Unix, `O_NONBLOCK`: opening a FIFO with no writer returns
//! at once), checked through the open handle (no window between the check
//! and the read), and read through [`Read::take`], so a file that grows
//! while it is read cannot pass the limit either.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most read of a harness, snapshot, baseline or key file.
pub(crate) const LIMIT: u64 = 16 << 20;

/// Why a named file is not read.
#[derive(Debug, thiserror::Error)]
pub enum UserFileError {
    /// A FIFO, device, socket or directory.
    #[error("is not a regular file (a FIFO, device or directory?): name a plain file")]
    NotRegular,
    /// Over the limit.
    #[error("is larger than {} MiB, the most cargo-golden reads of it", limit >> 20)]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
}

impl From<UserFileError> for io::Error {
    fn from(e: UserFileError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, e)
    }
}

/// The bytes of the regular file `path`, at most `limit` of them. Errors
/// keep the kind of the failed open (`NotFound` stays `NotFound`); a file
/// that is not regular or is larger than `limit` is an `InvalidInput`
/// error holding a [`UserFileError`].
pub(crate) fn read_limited(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(UserFileError::NotRegular.into());
    }
    if meta.len() > limit {
        return Err(UserFileError::TooLarge { limit }.into());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(UserFileError::TooLarge { limit }.into());
    }
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

#[cfg(unix)]
fn open(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    // Without a writer, a FIFO opened for reading blocks in open(2) unless
    // O_NONBLOCK; for a regular file the flag changes nothing.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> io::Result<File> {
    // A named pipe or device is refused before it is opened (Windows has
    // no FIFOs in the file system, but `\\.\pipe\x` and `NUL` are names).
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(UserFileError::NotRegular.into());
    }
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
        assert!(e.to_string().contains("larger than"), "{e}");
        let e = read(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read(&dir.path().join("absent")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
