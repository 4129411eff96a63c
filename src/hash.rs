//! sha256 helpers, and the evidence hash (docs/reports.md, What a run
//! leaves), defined once.

use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

/// Lowercase hex of bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// Hex sha256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// The evidence hash (docs/reports.md, What a run leaves),
/// `sha256(command + "|" + stdout + "|" + stderr + "|" + exit_code)` over
/// the full raw bytes, exit code in decimal (empty when there is none).
///
/// This is the one definition: the engine feeds it while a case streams,
/// `verify-evidence` and `merge` feed it from the artifact files, tests
/// from memory. Parts are fed in order, [`EvidenceHasher::next_part`]
/// between them.
#[derive(Clone, Debug, Default)]
pub(crate) struct EvidenceHasher {
    h: Sha256,
    /// Separators written so far: 0 in the command, 1 in stdout, 2 in stderr.
    separators: u8,
}

impl EvidenceHasher {
    /// A hasher at the start of the command.
    pub(crate) fn new() -> Self {
        EvidenceHasher::default()
    }

    /// A hasher that has taken `command` and is at the start of stdout.
    pub(crate) fn after_command(command: &str) -> Self {
        let mut h = EvidenceHasher::new();
        h.update(command.as_bytes());
        h.next_part();
        h
    }

    /// More bytes of the current part.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.h.update(bytes);
    }

    /// The rest of the current part from a file, streamed.
    pub(crate) fn update_from_file(&mut self, path: &Path) -> io::Result<()> {
        hash_file_into(&mut self.h, path)
    }

    /// End the current part (command, then stdout).
    pub(crate) fn next_part(&mut self) {
        assert!(self.separators < 2, "the evidence hash has three parts");
        self.h.update(b"|");
        self.separators += 1;
    }

    /// End stderr and add the exit code: the hex digest.
    pub(crate) fn finish(mut self, exit_code: Option<i32>) -> String {
        self.exit_code(exit_code);
        hex(&self.h.finalize())
    }

    fn exit_code(&mut self, exit_code: Option<i32>) {
        while self.separators < 3 {
            self.h.update(b"|");
            self.separators += 1;
        }
        if let Some(c) = exit_code {
            self.h.update(c.to_string().as_bytes());
        }
    }

    /// [`EvidenceHasher::finish`], then, for a case that keeps a
    /// structured result (`result = {...}`), `"|"` and the kept file's
    /// bytes: the hash covers the result as kept.
    pub(crate) fn finish_with_result(
        mut self,
        exit_code: Option<i32>,
        result: Option<&Path>,
    ) -> io::Result<String> {
        self.exit_code(exit_code);
        if let Some(path) = result {
            self.h.update(b"|");
            hash_file_into(&mut self.h, path)?;
        }
        Ok(hex(&self.h.finalize()))
    }
}

/// The evidence hash over in-memory parts.
pub fn evidence_hash(
    command: &str,
    stdout: &[u8],
    stderr: &[u8],
    exit_code: Option<i32>,
) -> String {
    let mut h = EvidenceHasher::after_command(command);
    h.update(stdout);
    h.next_part();
    h.update(stderr);
    h.finish(exit_code)
}

/// The evidence hash over a case's artifact files (`command.txt`,
/// `stdout.log`, `stderr.log`, and its kept structured result if it has
/// one), streamed: outputs can be gigabytes.
pub(crate) fn evidence_hash_of_files(
    command: &Path,
    stdout: &Path,
    stderr: &Path,
    exit_code: Option<i32>,
    result: Option<&Path>,
) -> io::Result<String> {
    let mut h = EvidenceHasher::new();
    h.update_from_file(command)?;
    h.next_part();
    h.update_from_file(stdout)?;
    h.next_part();
    h.update_from_file(stderr)?;
    h.finish_with_result(exit_code, result)
}

/// Hex sha256 of a file, streamed.
pub fn sha256_file(path: &Path) -> io::Result<String> {
    let mut h = Sha256::new();
    hash_file_into(&mut h, path)?;
    Ok(hex(&h.finalize()))
}

/// The most of a file read at once when hashing it.
const READ_CHUNK: usize = 256 * 1024;

/// A buffer to read a file of `len` bytes through: the file's size, at
/// least one byte and at most `max`. Most files read to check or hash
/// evidence are a few bytes, and zeroing a full-size buffer for each cost
/// more than reading them.
pub(crate) fn read_buffer(len: u64, max: usize) -> Vec<u8> {
    vec![0u8; usize::try_from(len).unwrap_or(max).clamp(1, max)]
}

/// Feed a file's bytes into `h` without holding it in memory.
pub(crate) fn hash_file_into(h: &mut Sha256, path: &Path) -> io::Result<()> {
    let (mut f, len) = crate::untrusted::open(path)?;
    let mut buf = read_buffer(len, READ_CHUNK);
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        h.update(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn streamed_and_in_memory_evidence_hashes_agree() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str, b: &[u8]| {
            let p = dir.path().join(n);
            std::fs::write(&p, b).unwrap();
            p
        };
        let (c, o, e) = (p("c", b"sh x"), p("o", b"out|put"), p("e", b""));
        for exit in [Some(0), Some(137), None] {
            assert_eq!(
                super::evidence_hash_of_files(&c, &o, &e, exit, None).unwrap(),
                super::evidence_hash("sh x", b"out|put", b"", exit)
            );
        }
        // The evidence hash (docs/reports.md, What a run leaves) spelled out:
        // the parts joined by `|`.
        assert_eq!(
            super::evidence_hash("sh x", b"out", b"err", Some(1)),
            super::sha256_hex(b"sh x|out|err|1")
        );
        assert_eq!(
            super::evidence_hash("sh x", b"", b"", None),
            super::sha256_hex(b"sh x|||")
        );
    }

    #[test]
    fn known_vector() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
