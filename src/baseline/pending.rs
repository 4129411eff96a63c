//! Pending snapshots (docs/baselines.md, Review what changed): a run that
//! finds a changed or missing snapshot keeps the text accepting the change
//! would write, so the change can be accepted later without running the case
//! again (`cargo golden review`, `bless --from`).
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
//! is never written over that newer work ([`standing`]).

use std::io;
use std::path::Path;

use crate::config::{CaseDef, HarnessConfig, OutputSpec};
use crate::model::{CaseRecord, PendingSnapshot, SnapshotCheck, SnapshotOutcome, Stream};

/// Largest pending file read back: a data snapshot is as large as the
/// data it stands for (see the data snapshot limit of [`super::snapshot`]).
const PENDING_LIMIT: u64 = 1 << 30;

/// Where a case keeps its pending snapshots: its execution dir, relative
/// to the out dir, under `out_dir`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingDir<'a> {
    pub(crate) out_dir: &'a Path,
    /// The case's execution dir, relative to the out dir.
    pub(crate) exec_dir: &'a str,
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
        crate::atomic::atomic_write(&path, text)?;
        Ok(PendingSnapshot {
            path: rel,
            sha256: crate::hash::sha256_hex(text),
            base_sha256,
        })
    }
}

/// Why a pending snapshot cannot be taken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PendingError {
    /// Its recorded path is not a plain path inside the out dir.
    #[error("the pending file {0:?} is not a plain path inside the out dir")]
    Outside(String),
    /// It could not be read.
    #[error("cannot read the pending file {0}")]
    Read(String, #[source] io::Error),
    /// Its bytes are not the ones its evidence records.
    #[error(
        "the pending file {path} changed since its run: its evidence records sha256 {recorded}, the file has {actual}"
    )]
    Changed {
        path: String,
        recorded: String,
        actual: String,
    },
    /// The snapshot file could not be written.
    #[error("cannot write {0}")]
    Write(String, #[source] io::Error),
    /// The run's record names a snapshot file the harness does not name
    /// for that change: a record is never a path to write.
    #[error(
        "refusing to write {recorded:?} for case {case:?}: the harness names {named} for that snapshot, and the record of the run says otherwise (nothing was written)"
    )]
    NotNamed {
        case: String,
        recorded: String,
        named: String,
    },
}

/// The bytes of `pending` under `out_dir`, once they are the ones its
/// evidence records (the run was verified before; the file is read again
/// now, so a change since is refused, not written).
pub(crate) fn read(out_dir: &Path, pending: &PendingSnapshot) -> Result<Vec<u8>, PendingError> {
    if !crate::layout::plain_relative(&pending.path) {
        return Err(PendingError::Outside(pending.path.clone()));
    }
    let bytes = crate::untrusted::read_limited(&out_dir.join(&pending.path), PENDING_LIMIT)
        .map_err(|e| PendingError::Read(pending.path.clone(), e))?;
    let actual = crate::hash::sha256_hex(&bytes);
    if actual != pending.sha256 {
        return Err(PendingError::Changed {
            path: pending.path.clone(),
            recorded: pending.sha256.clone(),
            actual,
        });
    }
    Ok(bytes)
}

/// Write `bytes` as the snapshot file `file` of the harness in `root`, as
/// `--bless` writes one. `file` is one [`named_file`] derived: a plain
/// name under `snapshots/`, which must resolve under the harness's own
/// `snapshots/` directory (a link out of it is refused).
pub(crate) fn write_snapshot(root: &Path, file: &str, bytes: &[u8]) -> Result<(), PendingError> {
    let outside = || {
        PendingError::Write(
            file.to_string(),
            io::Error::other(format!(
                "it does not lie under {}/ of the harness",
                crate::layout::SNAPSHOT_DIR
            )),
        )
    };
    let name = file
        .strip_prefix(crate::layout::SNAPSHOT_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .filter(|n| !n.is_empty() && !n.contains(['/', '\\']) && *n != "." && *n != "..")
        .ok_or_else(outside)?;
    let dir = root.join(crate::layout::SNAPSHOT_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| PendingError::Write(file.to_string(), e))?;
    let (real_dir, real_root) = (dir.canonicalize(), root.canonicalize());
    match (&real_dir, &real_root) {
        (Ok(d), Ok(r)) if d.starts_with(r) => {}
        _ => return Err(outside()),
    }
    crate::atomic::atomic_write(&dir.join(name), bytes)
        .map_err(|e| PendingError::Write(file.to_string(), e))
}

/// The snapshot file the harness as it is now names for `check` of `def`
/// (relative to the harness file's directory): from the case's name and
/// the stream, or from the declared output (a glob's member by its path).
/// None when `def` declares no such snapshot. This, never the record's
/// `file`, is what review and `bless --from` write.
pub(crate) fn named_file(def: &CaseDef, check: &SnapshotCheck) -> Option<String> {
    let stem = crate::layout::snapshot_stem(&def.name);
    match check.stream {
        Stream::Stdout | Stream::Stderr => Some(format!(
            "{}/{stem}.{}",
            crate::layout::SNAPSHOT_DIR,
            check.stream
        )),
        Stream::Data => {
            let o = declared_output(def, check)?;
            let rel = if crate::data::is_glob(&o.path) {
                check
                    .output
                    .as_deref()
                    .filter(|m| crate::layout::plain_relative(m))?
            } else {
                o.path.as_str()
            };
            Some(crate::data::snapshot_file(&stem, rel))
        }
    }
}

/// Why the record of `check` (of case `case`) is refused, when the
/// harness names another snapshot file for it than the record does (a
/// case or output no longer declared is stale, not refused).
pub(crate) fn misnamed(
    harness: &HarnessConfig,
    case: &str,
    check: &SnapshotCheck,
) -> Option<PendingError> {
    let def = harness.cases.iter().find(|c| c.name == case)?;
    named_file(def, check)?;
    file_to_write(harness, case, check).err()
}

/// The snapshot file to write for `check` of the case `case` of
/// `harness`: the one the harness names, when the record names the same;
/// Err when it does not (a forged or foreign record).
pub(crate) fn file_to_write(
    harness: &HarnessConfig,
    case: &str,
    check: &SnapshotCheck,
) -> Result<String, PendingError> {
    let named = harness
        .cases
        .iter()
        .find(|c| c.name == case)
        .and_then(|def| named_file(def, check));
    match named {
        Some(named) if named == check.file => Ok(named),
        named => Err(PendingError::NotNamed {
            case: case.to_string(),
            recorded: check.file.clone(),
            named: named.map_or_else(|| "no snapshot".to_string(), |n| format!("{n:?}")),
        }),
    }
}

/// Where a pending snapshot stands against the harness file as it is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Standing {
    /// It can be accepted or rejected.
    Open,
    /// The snapshot file already holds it (blessed since, here or from
    /// another run): nothing is left to decide.
    Blessed,
    /// It cannot be accepted: why (the snapshot changed since the run
    /// compared with it, or the case or the output is no longer declared).
    Stale(String),
}

/// Where the pending snapshot of `check` (of case `case`) stands against
/// `harness` as it is now.
pub(crate) fn standing(
    harness: &HarnessConfig,
    case: &str,
    check: &SnapshotCheck,
    pending: &PendingSnapshot,
) -> Standing {
    let Some(def) = harness.cases.iter().find(|c| c.name == case) else {
        return Standing::Stale(format!(
            "case {case:?} is no longer declared in {}",
            harness.display_file()
        ));
    };
    if !declares(def, check) {
        let what = match check.stream {
            Stream::Data => format!("no longer declares the output {}", check.subject()),
            stream => format!("no longer snapshots {stream}"),
        };
        return Standing::Stale(format!("case {case:?} {what}"));
    }
    let now =
        match crate::untrusted::read_limited(&harness.base_dir.join(&check.file), PENDING_LIMIT) {
            Ok(bytes) => Some(crate::hash::sha256_hex(&bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Standing::Stale(format!("{} cannot be read: {e}", check.file)),
        };
    if now.as_deref() == Some(pending.sha256.as_str()) {
        return Standing::Blessed;
    }
    if now == pending.base_sha256 {
        return Standing::Open;
    }
    Standing::Stale(match (&pending.base_sha256, &now) {
        (None, _) => format!("{} was written since the run found it missing", check.file),
        (Some(_), None) => format!("{} was removed since the run", check.file),
        (Some(_), Some(_)) => format!("{} changed since the run compared with it", check.file),
    })
}

/// Whether `def` still declares what `check` compared: the stream's
/// snapshot, or the data output (see [`declared_output`]).
fn declares(def: &CaseDef, check: &SnapshotCheck) -> bool {
    match check.stream {
        Stream::Stdout => def.snapshot.stdout,
        Stream::Stderr => def.snapshot.stderr,
        Stream::Data => declared_output(def, check).is_some(),
    }
}

/// The output of `def` whose data snapshot `check` is: a path whose
/// snapshot file it is, or a glob that matches its output.
pub(crate) fn declared_output<'d>(
    def: &'d CaseDef,
    check: &SnapshotCheck,
) -> Option<&'d OutputSpec> {
    let stem = crate::layout::snapshot_stem(&def.name);
    let rel = check.output.as_deref().unwrap_or("");
    def.outputs.iter().find(|o| {
        if crate::data::is_glob(&o.path) {
            crate::data::glob(&o.path).is_some_and(|g| g.is_match(rel))
        } else {
            crate::data::snapshot_file(&stem, &o.path) == check.file
        }
    })
}

/// Make `case` what a bless of the snapshot files `accepted` would have
/// recorded: those checks blessed (created or updated), and its verdict
/// decided again from its facts ([`crate::model::verdict::decide`]).
pub(crate) fn accept_in_record(
    case: &mut CaseRecord,
    accepted: &[&str],
    flaky: crate::model::FlakyPolicy,
) {
    for check in &mut case.snapshots {
        if !accepted.contains(&check.file.as_str()) || !check.fails() {
            continue;
        }
        check.outcome = match check.outcome {
            SnapshotOutcome::Missing => SnapshotOutcome::Created,
            _ => SnapshotOutcome::Updated,
        };
        check.diff = None;
        check.diff_sha256 = None;
        check.detail = None;
    }
    crate::model::verdict::decide(case, flaky);
}
