//! Why a signing key cannot be used.

use std::io;

#[cfg(feature = "sign")]
use crate::redact::SIGNING_PASSWORD_ENV as PASSWORD_ENV;

/// A signing key could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("cannot use the signing key {origin}")]
pub(crate) struct KeyError {
    /// Where the key came from (`--sign-key FILE` or the variable).
    pub(crate) origin: String,
    /// What is wrong.
    #[source]
    pub(crate) problem: KeyProblem,
}

/// What is wrong with a signing key.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyProblem {
    /// The key file could not be read.
    #[error("cannot be read")]
    Read(#[source] io::Error),
    /// No base64 line where the key should be.
    #[cfg(feature = "sign")]
    #[error("not a minisign secret key (no base64 key line)")]
    NoKeyLine(#[source] base64::DecodeError),
    /// Encrypted, and no password given.
    #[cfg(feature = "sign")]
    #[error(
        "the key is encrypted: put its password in ${PASSWORD_ENV}, or use a key made with `minisign -G -W`"
    )]
    NoPassword,
    /// minisign refused the key (or its password).
    #[cfg(feature = "sign")]
    #[error("not a usable minisign secret key")]
    Key(#[source] minisign::PError),
    /// The key's Ed25519 half does not match its public key.
    #[cfg(feature = "sign")]
    #[error("not an Ed25519 minisign key (its secret and public halves differ)")]
    NotEd25519,
    /// This build cannot sign.
    #[cfg(not(feature = "sign"))]
    #[error(
        "signing needs cargo-golden's `sign` feature (on by default), which this build leaves out"
    )]
    NotBuilt,
}
