//! The seal of a run (docs/evidence.md, Evidence anyone can verify): a copy of
//! the run's reports in its run dir, `SHA256SUMS` over every artifact file and
//! report of the run, and, with a signing key, `SHA256SUMS.minisig`.
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

// The signing key and its types live in `super::signing`; what the
// command line and the harness name through here.
pub(crate) use super::signing::HIDDEN_FROM_CASES;
use super::signing::SignError;
pub(crate) use super::signing::Signer;

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
    let seen = crate::parallel::map(&paths, |rel| {
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
    let hashes = crate::parallel::map(&files, |&(rel, is_empty)| {
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
        exit_code: crate::conclusion::Results::of(record).exit_code,
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
    let report_hashes = crate::parallel::map(&reports, |rel| hash_file(dir.join(rel)));
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
    crate::untrusted::copy(from, to).map(|_| ())
}
