//! Signing with a minisign secret key (the `sign` feature): `SHA256SUMS`
//! with minisign, the attestation's DSSE envelope with the key's Ed25519
//! half.

use super::key::KeyProblem;
use crate::layout::SUMS_FILE;

/// What signing can fail with.
pub(crate) type SignError = minisign::PError;

/// A minisign secret key, ready to sign: `SHA256SUMS` with minisign, and
/// the attestation's DSSE envelope with the same Ed25519 key (a minisign
/// key is an Ed25519 key pair and a key id).
pub struct Signer {
    key: minisign::SecretKey,
    public: minisign::PublicKey,
    dsse: ed25519_dalek::SigningKey,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer(..)")
    }
}

impl Signer {
    /// A key from the text of a minisign secret key file.
    pub(crate) fn parse(text: &str, password: Option<String>) -> Result<Signer, KeyProblem> {
        use base64::Engine as _;
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))
            .unwrap_or("");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(line)
            .map_err(KeyProblem::NoKeyLine)?;
        let key = if bytes.get(2..4) == Some(&[0, 0]) {
            // Unencrypted. `minisign -G -W` (0.11) writes these with a zero
            // checksum, which the crate's loader refuses; the key itself is
            // checked instead when signing (against its own public half).
            minisign::SecretKey::from_bytes(&bytes).map_err(KeyProblem::Key)?
        } else {
            let Some(password) = password else {
                return Err(KeyProblem::NoPassword);
            };
            minisign::SecretKeyBox::from_string(text)
                .and_then(|b| b.into_secret_key(Some(password)))
                .map_err(KeyProblem::Key)?
        };
        let public = minisign::PublicKey::from_secret_key(&key).map_err(KeyProblem::Key)?;
        let dsse = ed25519_half(&key, &public).ok_or(KeyProblem::NotEd25519)?;
        Ok(Signer { key, public, dsse })
    }

    /// The public half of the key.
    pub(crate) fn public_key(&self) -> &minisign::PublicKey {
        &self.public
    }

    /// The payload of the DSSE envelope `bytes`, once its signature by
    /// this key verifies.
    pub(crate) fn open_envelope(&self, bytes: &[u8]) -> Result<Vec<u8>, String> {
        crate::report::attest::open_envelope(bytes, &self.public)
    }

    /// The key id and the Ed25519 signature of `message` (a DSSE PAE).
    pub(crate) fn sign_dsse(&self, message: &[u8]) -> (String, Vec<u8>) {
        use ed25519_dalek::Signer as _;
        let sig = self.dsse.sign(message);
        (
            crate::report::attest::key_id(&self.public),
            sig.to_bytes().to_vec(),
        )
    }

    /// The minisign signature of `data`, as `minisign -S` writes it.
    pub(crate) fn sign(&self, data: &[u8], run_id: &str) -> Result<String, SignError> {
        let trusted = format!(
            "timestamp:{} file:{SUMS_FILE} run:{run_id}",
            crate::time::Timestamp::now().as_second()
        );
        // With the public half, the crate checks its own signature: a
        // damaged key fails here, not at the verifier.
        minisign::sign(Some(&self.public), &self.key, data, Some(&trusted), None)
            .map(|b| b.into_string())
    }
}

/// The Ed25519 key pair inside a minisign secret key: the 32-byte seed
/// that follows the algorithm, KDF and key id fields, checked against the
/// public key minisign itself derives.
fn ed25519_half(
    key: &minisign::SecretKey,
    public: &minisign::PublicKey,
) -> Option<ed25519_dalek::SigningKey> {
    // sig_alg, kdf_alg, chk_alg (2 each), kdf salt (32), ops and mem
    // limits (8 each), key id (8), then the 64-byte secret key: seed, then
    // public key.
    const SEED: std::ops::Range<usize> = 62..94;
    let mut bytes = key.to_bytes();
    let seed = bytes.get(SEED).and_then(|s| <[u8; 32]>::try_from(s).ok());
    bytes.fill(0);
    let signing = ed25519_dalek::SigningKey::from_bytes(&seed?);
    let raw = public.to_bytes();
    (raw.get(10..42) == Some(signing.verifying_key().as_bytes().as_slice())).then_some(signing)
}
