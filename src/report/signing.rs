//! The signing key of a run: where it comes from (`--sign-key FILE`, or
//! `CARGO_GOLDEN_SIGNING_KEY` holding the key or its path, opened with
//! `CARGO_GOLDEN_SIGNING_PASSWORD`), what is wrong with one that cannot be
//! used ([`KeyError`]), and the [`Signer`] the seal and the attestation
//! sign with. Without the `sign` feature no key loads: one offered is
//! refused, not ignored.

use std::path::Path;

/// Environment variable holding a minisign secret key, or the path of one,
/// and the one holding the password of an encrypted key. Their values
/// (and the key file's text) are masked in everything a run writes.
pub(crate) use crate::redact::SIGNING_KEY_ENV as KEY_ENV;
pub(crate) use crate::redact::SIGNING_PASSWORD_ENV as PASSWORD_ENV;
/// The variables no case may see: a case that could read the signing key
/// could sign a forged run. The front doors pass them to the runner.
pub(crate) const HIDDEN_FROM_CASES: &[&str] = &[KEY_ENV, PASSWORD_ENV];

mod key;
#[cfg(feature = "sign")]
mod signer;
#[cfg(not(feature = "sign"))]
#[path = "signing/unsigned.rs"]
mod signer;
pub(crate) use key::{KeyError, KeyProblem};
pub(crate) use signer::{SignError, Signer};

impl Signer {
    /// The key of `--sign-key FILE` when given, else of
    /// `CARGO_GOLDEN_SIGNING_KEY` (the key itself, or a path to it), else
    /// none. An encrypted key is opened with `CARGO_GOLDEN_SIGNING_PASSWORD`;
    /// there is never a prompt (CI has no terminal).
    pub(crate) fn load(flag: Option<&Path>) -> Result<Option<Signer>, KeyError> {
        let (origin, text) = match flag {
            Some(path) => {
                let origin = format!("--sign-key {}", path.display());
                let text = crate::untrusted::read_to_string(path).map_err(|e| KeyError {
                    origin: origin.clone(),
                    problem: KeyProblem::Read(e),
                })?;
                (origin, text)
            }
            None => match std::env::var(KEY_ENV) {
                Ok(v) if v.trim().is_empty() => return Ok(None),
                Ok(v) if v.contains('\n') || v.starts_with("untrusted comment:") => {
                    (format!("in ${KEY_ENV}"), v)
                }
                Ok(path) => {
                    let origin = format!("${KEY_ENV} ({path})");
                    let text = crate::untrusted::read_to_string(Path::new(&path)).map_err(|e| {
                        KeyError {
                            origin: origin.clone(),
                            problem: KeyProblem::Read(e),
                        }
                    })?;
                    (origin, text)
                }
                Err(_) => return Ok(None),
            },
        };
        Signer::parse(&text, std::env::var(PASSWORD_ENV).ok())
            .map(Some)
            .map_err(|problem| KeyError { origin, problem })
    }
}

// Both read keys, which only the `sign` feature parses.
#[cfg(all(test, feature = "sign"))]
mod tests {
    use super::*;

    #[test]
    fn a_key_whose_ed25519_halves_differ_is_refused() {
        use base64::Engine as _;
        let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
        let mut bytes = kp.sk.to_bytes();
        bytes[62] ^= 1; // the seed's first byte
        let line = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let e = Signer::parse(&line, None).unwrap_err();
        assert!(matches!(e, KeyProblem::NotEd25519), "{e:?}");
    }

    #[test]
    fn a_key_that_cannot_be_used_says_why_once() {
        let e = KeyError {
            origin: "in $CARGO_GOLDEN_SIGNING_KEY".into(),
            problem: Signer::parse("untrusted comment: x\n!!not base64!!\n", None).unwrap_err(),
        };
        let chain = crate::conclusion::error_chain(&e);
        let head = "cannot use the signing key in $CARGO_GOLDEN_SIGNING_KEY: \
                    not a minisign secret key (no base64 key line): ";
        assert!(chain.starts_with(head), "{chain}");
        assert!(!chain[head.len()..].contains("base64 key line"), "{chain}");

        // Bytes 2..4 not zero: an encrypted key, and no password to open it.
        let encrypted = Signer::parse("RWRTY3J5cHQ=", None).unwrap_err();
        assert!(matches!(encrypted, KeyProblem::NoPassword), "{encrypted:?}");
        assert!(encrypted.to_string().contains(PASSWORD_ENV));
    }
}
