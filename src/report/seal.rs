//! The seal of a run (SPEC section 13): a copy of the run's reports in its
//! run dir, `SHA256SUMS` over every artifact file and report of the run,
//! and, with a signing key, `SHA256SUMS.minisig`.
//!
//! `SHA256SUMS` lists paths relative to the run dir, so `sha256sum -c
//! SHA256SUMS` works there. The reports live in the out dir, where the next
//! run replaces them; the run dir keeps its own copy (a hard link where the
//! file system allows, else a copy), so an older run stays checkable and
//! the run dir stands on its own when it is archived or moved.
//!
//! Without a key the seal detects accidents and inconsistent edits, not a
//! forger who rewrites files and checksums alike; a minisign signature
//! from a key the forger does not hold does.

use std::io;
use std::path::{Path, PathBuf};

use crate::layout::{SIGNATURE_FILE, SUMS_FILE, run_dir};
use crate::model::{CaseRecord, RunRecord};

/// Environment variable holding a minisign secret key, or the path of one.
pub(crate) const KEY_ENV: &str = "CARGO_GOLDEN_SIGNING_KEY";
/// Environment variable holding the password of an encrypted secret key.
pub(crate) const PASSWORD_ENV: &str = "CARGO_GOLDEN_SIGNING_PASSWORD";
/// The variables no case may see: a case that could read the signing key
/// could sign a forged run. The front doors pass them to the runner.
pub(crate) const HIDDEN_FROM_CASES: &[&str] = &[KEY_ENV, PASSWORD_ENV];

/// Sealing a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// A file of the seal could not be written or read.
    #[error("cannot seal the run: {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The signature could not be made.
    #[error("cannot sign {}", path.display())]
    Sign {
        /// The checksum file.
        path: PathBuf,
        /// What minisign said.
        #[source]
        source: minisign::PError,
    },
}

/// A signing key could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("cannot use the signing key {origin}")]
pub(crate) struct KeyError {
    /// Where the key came from (`--sign-key FILE` or the variable).
    pub origin: String,
    /// What is wrong.
    #[source]
    pub problem: KeyProblem,
}

/// What is wrong with a signing key.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyProblem {
    /// The key file could not be read.
    #[error("cannot be read")]
    Read(#[source] io::Error),
    /// No base64 line where the key should be.
    #[error("not a minisign secret key (no base64 key line)")]
    NoKeyLine(#[source] base64::DecodeError),
    /// Encrypted, and no password given.
    #[error(
        "the key is encrypted: put its password in ${PASSWORD_ENV}, or use a key made with `minisign -G -W`"
    )]
    NoPassword,
    /// minisign refused the key (or its password).
    #[error("not a usable minisign secret key")]
    Key(#[source] minisign::PError),
    /// The key's Ed25519 half does not match its public key.
    #[error("not an Ed25519 minisign key (its secret and public halves differ)")]
    NotEd25519,
}

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
    /// The key of `--sign-key FILE` when given, else of
    /// `CARGO_GOLDEN_SIGNING_KEY` (the key itself, or a path to it), else
    /// none. An encrypted key is opened with `CARGO_GOLDEN_SIGNING_PASSWORD`;
    /// there is never a prompt (CI has no terminal).
    pub(crate) fn load(flag: Option<&Path>) -> Result<Option<Signer>, KeyError> {
        let (origin, text) = match flag {
            Some(path) => {
                let origin = format!("--sign-key {}", path.display());
                let text = crate::userfile::read_to_string(path).map_err(|e| KeyError {
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
                    let text = crate::userfile::read_to_string(Path::new(&path)).map_err(|e| {
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

    /// The key id and the Ed25519 signature of `message` (a DSSE PAE).
    pub(crate) fn sign_dsse(&self, message: &[u8]) -> (String, Vec<u8>) {
        use ed25519_dalek::Signer as _;
        let sig = self.dsse.sign(message);
        (super::attest::key_id(&self.public), sig.to_bytes().to_vec())
    }

    /// The minisign signature of `data`, as `minisign -S` writes it.
    pub(crate) fn sign(&self, data: &[u8], run_id: &str) -> Result<String, minisign::PError> {
        let trusted = format!(
            "timestamp:{} file:{SUMS_FILE} run:{run_id}",
            jiff::Timestamp::now().as_second()
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

/// The files of a run that `SHA256SUMS` lists, relative to the run dir:
/// the report copies, then every attempt's artifact files, in declaration
/// order. Files that were never created (a case that could not start) are
/// left out.
pub(crate) fn sealed_files(record: &RunRecord) -> Vec<String> {
    let prefix = format!("{}/", run_dir(&record.run_id));
    let dir = record.out_dir.join(run_dir(&record.run_id));
    let mut files: Vec<String> = super::report_files().map(str::to_string).collect();
    let attempts = record
        .cases
        .iter()
        .flat_map(|c| c.previous_attempts.iter().chain([c]));
    for case in attempts {
        for rel in artifact_paths(case) {
            if let Some(inside) = rel.strip_prefix(&prefix)
                && std::fs::symlink_metadata(dir.join(inside)).is_ok_and(|m| m.is_file())
            {
                files.push(inside.to_string());
            }
        }
    }
    files
}

fn artifact_paths(case: &CaseRecord) -> Vec<&str> {
    let kept = case
        .structured_result
        .as_ref()
        .and_then(|r| r.artifact.as_ref());
    case.artifacts
        .iter()
        .flat_map(|a| [&a.command, &a.stdout, &a.stderr, &a.evidence])
        .chain(kept)
        .map(String::as_str)
        .collect()
}

/// Seal the run of `record`, whose reports are written: copy them into the
/// run dir, write `SHA256SUMS`, sign it when there is a `signer`, and
/// write the test-result attestation (see [`super::attest`]) of the exit
/// code its results call for. Returns the run dir.
pub fn seal(record: &RunRecord, signer: Option<&Signer>) -> Result<PathBuf, SealError> {
    let claim = super::attest::Claim {
        exit_code: crate::exit::Results::of(record).exit_code,
        context: &super::attest::Context::default(),
    };
    seal_run(record, signer, &claim)
}

/// [`seal`], the attestation claiming what `claim` says.
pub(crate) fn seal_run(
    record: &RunRecord,
    signer: Option<&Signer>,
    claim: &super::attest::Claim<'_>,
) -> Result<PathBuf, SealError> {
    let dir = record.out_dir.join(run_dir(&record.run_id));
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SealError::Io { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    for name in super::report_files() {
        let to = dir.join(name);
        link_or_copy(&record.out_dir.join(name), &to).map_err(io_err(&to))?;
    }
    let mut sums = String::new();
    for rel in sealed_files(record) {
        let path = dir.join(&rel);
        let hex = crate::hash::sha256_file(&path).map_err(io_err(&path))?;
        sums.push_str(&format!("{hex}  {rel}\n"));
    }
    let sums_path = dir.join(SUMS_FILE);
    super::atomic_write(&sums_path, sums.as_bytes()).map_err(io_err(&sums_path))?;
    let sig_path = dir.join(SIGNATURE_FILE);
    match signer {
        Some(signer) => {
            let sig = signer
                .sign(sums.as_bytes(), &record.run_id)
                .map_err(|source| SealError::Sign {
                    path: sums_path.clone(),
                    source,
                })?;
            super::atomic_write(&sig_path, sig.as_bytes()).map_err(io_err(&sig_path))?;
        }
        None => match std::fs::remove_file(&sig_path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_err(&sig_path)(e)),
            _ => {}
        },
    }
    let statement = dir.join(super::attest::STATEMENT_FILE);
    super::attest::write(&dir, record, sums.as_bytes(), claim, signer)
        .map_err(io_err(&statement))?;
    Ok(dir)
}

/// Replace `to` with a hard link to `from`, or a copy where links are not
/// possible (another file system, no link support).
fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::remove_file(to) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    if std::fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    std::fs::copy(from, to).map(|_| ())
}

#[cfg(test)]
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
        let chain = crate::exit::error_chain(&e);
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
