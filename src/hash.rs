//! sha256 helpers.

use sha2::{Digest, Sha256};

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
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

/// The evidence hash of SPEC section 5 over in-memory parts (tests and
/// small outputs); the engine computes the same incrementally.
pub fn evidence_hash(
    command: &str,
    stdout: &[u8],
    stderr: &[u8],
    exit_code: Option<i32>,
) -> String {
    let mut h = Sha256::new();
    h.update(command.as_bytes());
    h.update(b"|");
    h.update(stdout);
    h.update(b"|");
    h.update(stderr);
    h.update(b"|");
    if let Some(c) = exit_code {
        h.update(c.to_string().as_bytes());
    }
    hex(&h.finalize())
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_vector() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
