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

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::layout::{SIGNATURE_FILE, SUMS_FILE, run_dir};
use crate::model::{CaseRecord, RunRecord};

/// Environment variable holding a minisign secret key, or the path of one,
/// and the one holding the password of an encrypted key. Their values
/// (and the key file's text) are masked in everything a run writes.
pub(crate) use crate::redact::{SIGNING_KEY_ENV as KEY_ENV, SIGNING_PASSWORD_ENV as PASSWORD_ENV};
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
        source: SignError,
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

#[cfg(feature = "sign")]
mod signer;
#[cfg(not(feature = "sign"))]
#[path = "seal/unsigned.rs"]
mod signer;
use signer::SignError;
pub use signer::Signer;

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
}

/// What one look at a run's artifact files found: every attempt's
/// artifact paths (relative to the out dir), in declaration order, each
/// with what was there. The evidence check ([`super::lost_evidence`]) and
/// the seal read the same look, so each file is looked at once.
pub(crate) struct ArtifactLook<'r> {
    seen: Vec<(&'r str, Seen)>,
    at: HashMap<&'r str, Seen>,
}

/// What was at an artifact path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Missing,
    NotAFile,
    File { empty: bool },
}

/// Look at every artifact file of `record`'s run, on every core.
pub(crate) fn look_at_artifacts(record: &RunRecord) -> ArtifactLook<'_> {
    let paths: Vec<&str> = record
        .cases
        .iter()
        .flat_map(|c| c.previous_attempts.iter().chain([c]))
        .flat_map(artifact_paths)
        .collect();
    let seen = crate::par::map(&paths, |rel| {
        match std::fs::symlink_metadata(record.out_dir.join(rel)) {
            Err(_) => Seen::Missing,
            Ok(m) if m.is_file() => Seen::File {
                empty: m.len() == 0,
            },
            Ok(_) => Seen::NotAFile,
        }
    });
    let seen: Vec<(&str, Seen)> = paths.into_iter().zip(seen).collect();
    let at = seen.iter().copied().collect();
    ArtifactLook { seen, at }
}

impl ArtifactLook<'_> {
    /// Whether nothing was at `rel` (relative to the out dir); a path the
    /// look did not cover is looked at now.
    pub(crate) fn missing(&self, out_dir: &Path, rel: &str) -> bool {
        match self.at.get(rel) {
            Some(seen) => *seen == Seen::Missing,
            None => std::fs::symlink_metadata(out_dir.join(rel)).is_err(),
        }
    }
}

/// The artifact files of a run (see [`ArtifactLook`]) that `SHA256SUMS`
/// lists after the report copies, relative to the run dir, each with its
/// sha256 or why it could not be read. Files that were never created (a
/// case that could not start) are left out. Worked out apart from the
/// seal, so that it can be while the reports are written.
pub(crate) struct ArtifactHashes(Vec<(String, Result<String, SealError>)>);

/// Hash the artifact files `look` found, on every core.
pub(crate) fn hash_artifacts(record: &RunRecord, look: &ArtifactLook<'_>) -> ArtifactHashes {
    let prefix = format!("{}/", run_dir(&record.run_id));
    let dir = record.out_dir.join(run_dir(&record.run_id));
    let files: Vec<(&str, bool)> = (look.seen.iter())
        .filter_map(|&(rel, seen)| match seen {
            Seen::File { empty } => Some((rel.strip_prefix(&prefix)?, empty)),
            Seen::Missing | Seen::NotAFile => None,
        })
        .collect();
    // A file that was empty when looked at hashes as no bytes do, without
    // opening it: quiet cases leave many.
    let empty = crate::hash::sha256_hex(b"");
    let hashes = crate::par::map(&files, |&(rel, is_empty)| {
        if is_empty {
            Ok(empty.clone())
        } else {
            hash_file(dir.join(rel))
        }
    });
    ArtifactHashes(
        (files.into_iter().map(|(rel, _)| rel.to_string()))
            .zip(hashes)
            .collect(),
    )
}

/// The sha256 of the file at `path`, or why it could not be read.
fn hash_file(path: PathBuf) -> Result<String, SealError> {
    crate::hash::sha256_file(&path).map_err(|source| SealError::Io { path, source })
}

fn artifact_paths(case: &CaseRecord) -> Vec<&str> {
    let kept = case
        .structured_result
        .as_ref()
        .and_then(|r| r.artifact.as_ref());
    // A pending snapshot is sealed like the logs: a change accepted from
    // it is only as good as its run.
    let pending = (case.snapshots.iter()).filter_map(|s| s.pending.as_ref().map(|p| &p.path));
    case.artifacts
        .iter()
        .flat_map(|a| [&a.command, &a.stdout, &a.stderr, &a.evidence])
        .chain(kept)
        .chain(pending)
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
    let look = look_at_artifacts(record);
    seal_run(record, signer, &claim, hash_artifacts(record, &look))
}

/// [`seal`], the attestation claiming what `claim` says, the artifact
/// files listed as `artifacts` found them.
pub(crate) fn seal_run(
    record: &RunRecord,
    signer: Option<&Signer>,
    claim: &super::attest::Claim<'_>,
    artifacts: ArtifactHashes,
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
    let reports: Vec<&str> = super::report_files().collect();
    let report_hashes = crate::par::map(&reports, |rel| hash_file(dir.join(rel)));
    let reports = (reports.into_iter().map(str::to_string)).zip(report_hashes);
    let mut sums = String::new();
    for (rel, hex) in reports.chain(artifacts.0) {
        sums.push_str(&format!("{}  {rel}\n", hex?));
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
    crate::userfile::copy(from, to).map(|_| ())
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
