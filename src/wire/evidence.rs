//! `evidence.json` (docs/reports.md, What a run leaves): the record of one
//! case (or one attempt of it) beside its artifact files, `command.txt`,
//! `stdout.log` and `stderr.log`. `verify-evidence` reads it back to recompute
//! the hash.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::{CaseKind, CaseRecord, CaseResult, ExecutionStatus};

/// The schema version written by this crate: 1.1 added `expected`,
/// `timed_out` and `interrupted`, what re-judging a verdict needs;
/// 1.2 added `redactions`; 1.3 `snapshots`; 1.4 `golden_changes` and
/// `structured_result`; 1.5 data snapshots in `snapshots` (`stream`
/// `data`, with `output` and `sha256`); 1.6 `diff_sha256` in a changed
/// data output's check, and the evidence hash covers the data checks
/// ([`hash_with_data`]); 1.7 `quarantine`; 1.8 `pending` in a changed
/// or missing snapshot's check, covered by the evidence hash
/// ([`hash_with_pending`]).
pub(crate) const SCHEMA_VERSION: &str = "1.8.0";

/// The first minor version whose evidence hash covers the data checks.
const DATA_HASH_MINOR: u64 = 6;

/// Whether the evidence hash of a file of `schema_version` covers its data
/// checks: from 1.6 on. Older files hash as docs/reports.md (What a run
/// leaves) gives the plain evidence hash, data checks or not.
pub(crate) fn hash_covers_data(schema_version: &str) -> bool {
    schema_version
        .split('.')
        .nth(1)
        .and_then(|m| m.parse::<u64>().ok())
        .is_some_and(|minor| minor >= DATA_HASH_MINOR)
}

/// One data check as the evidence hash covers it: the output's digest and
/// what its comparison found, fields in this order.
#[derive(Serialize)]
struct HashedDataCheck<'a> {
    output: Option<&'a str>,
    file: &'a str,
    sha256: Option<&'a str>,
    outcome: crate::model::SnapshotOutcome,
    detail: Option<&'a str>,
    diff: Option<&'a str>,
    diff_sha256: Option<&'a str>,
}

/// The evidence hash of a case that compared data outputs: `hash` (the plain
/// evidence hash of docs/reports.md, What a run leaves, the kept result
/// included) when `checks` holds no data check, else the hex sha256 of
/// `hash + "|" + D`, where D is the data checks (`stream` `data`) in their
/// order as compact JSON, one object each with `output`, `file`, `sha256`,
/// `outcome`, `detail`, `diff`, `diff_sha256` in that order (null when
/// absent). The data files are not in the out dir: their digests and
/// comparisons, as recorded, are what the hash holds to.
fn hash_with_data(hash: &str, checks: &[crate::model::SnapshotCheck]) -> String {
    let data: Vec<HashedDataCheck<'_>> = checks
        .iter()
        .filter(|c| c.stream == crate::model::Stream::Data)
        .map(|c| HashedDataCheck {
            output: c.output.as_deref(),
            file: &c.file,
            sha256: c.sha256.as_deref(),
            outcome: c.outcome,
            detail: c.detail.as_deref(),
            diff: c.diff.as_deref(),
            diff_sha256: c.diff_sha256.as_deref(),
        })
        .collect();
    if data.is_empty() {
        return hash.to_string();
    }
    let d = serde_json::to_string(&data).expect("strings, enums and nulls serialize");
    crate::hash::sha256_hex(format!("{hash}|{d}").as_bytes())
}

/// One pending snapshot as the evidence hash covers it, fields in this
/// order.
#[derive(Serialize)]
struct HashedPending<'a> {
    file: &'a str,
    path: &'a str,
    sha256: &'a str,
    base_sha256: Option<&'a str>,
}

/// The evidence hash of a case that kept pending snapshots: `hash` (after
/// [`hash_with_data`]) when no check of `checks` has one, else the hex
/// sha256 of `hash + "|pending|" + P`, where P is the checks' pending
/// snapshots in their order as compact JSON, one object each with the
/// check's `file` and the pending's `path`, `sha256` and `base_sha256` in
/// that order (null when absent). The pending files are in the run dir:
/// `verify-evidence` holds each to its recorded sha256, and the hash holds
/// the record. Evidence before 1.8 keeps none, so hashes as before.
fn hash_with_pending(hash: &str, checks: &[crate::model::SnapshotCheck]) -> String {
    let pending: Vec<HashedPending<'_>> = checks
        .iter()
        .filter_map(|c| {
            let p = c.pending.as_ref()?;
            Some(HashedPending {
                file: &c.file,
                path: &p.path,
                sha256: &p.sha256,
                base_sha256: p.base_sha256.as_deref(),
            })
        })
        .collect();
    if pending.is_empty() {
        return hash.to_string();
    }
    let p = serde_json::to_string(&pending).expect("strings and nulls serialize");
    crate::hash::sha256_hex(format!("{hash}|pending|{p}").as_bytes())
}

/// The evidence hash of a case of evidence `schema_version` whose
/// artifact files (its kept structured result included) hash to `base`
/// (docs/reports.md, What a run leaves): then its data checks (from 1.6 on)
/// and its pending snapshots (from 1.8, which keeps them). The one place the
/// parts of the hash are combined: the engine, `merge` and `verify-evidence`
/// all come here.
pub(crate) fn chain(
    base: &str,
    checks: &[crate::model::SnapshotCheck],
    schema_version: &str,
) -> String {
    let h = if hash_covers_data(schema_version) {
        hash_with_data(base, checks)
    } else {
        base.to_string()
    };
    hash_with_pending(&h, checks)
}

/// The evidence hash of a case of evidence `schema_version`, from its
/// artifact files (`command.txt`, `stdout.log`, `stderr.log`), its exit
/// code, its kept structured result and its checks ([`chain`]).
pub(crate) fn case_hash(
    files: [&Path; 3],
    exit_code: Option<i32>,
    result: Option<&Path>,
    checks: &[crate::model::SnapshotCheck],
    schema_version: &str,
) -> io::Result<String> {
    let [command, stdout, stderr] = files;
    let base = crate::hash::evidence_hash_of_files(command, stdout, stderr, exit_code, result)?;
    Ok(chain(&base, checks, schema_version))
}

/// How a case's warning begins when its evidence.json could not be
/// written: the end of the run then does not look for the file.
pub(crate) const EVIDENCE_NOT_WRITTEN: &str = crate::model::finding::EVIDENCE_NOT_WRITTEN;

/// Write `<out_dir>/<case.artifacts.evidence>` atomically, creating its
/// directory. A case without artifact paths is an `InvalidInput` error: the
/// engine decides where evidence lives. The runner calls it as each case
/// ends, so a run cut short still leaves the evidence of the cases it ran.
pub(crate) fn write_evidence(case: &CaseRecord, out_dir: &Path) -> io::Result<()> {
    let Some(artifacts) = &case.artifacts else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("case {:?} has no artifact paths", case.name),
        ));
    };
    let path = out_dir.join(&artifacts.evidence);
    let mut text =
        serde_json::to_string_pretty(&Evidence::from_case(case)).map_err(io::Error::other)?;
    text.push('\n');
    // The case's directory is there once its outputs were kept: it is made
    // only when it is not (a case that never started, or one that removed
    // its own), not looked up for every case.
    match crate::atomic::atomic_write(&path, text.as_bytes()) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            crate::atomic::atomic_write(&path, text.as_bytes())
        }
        written => written,
    }
}

/// # cargo-golden evidence
///
/// The evidence of one case: `<out_dir>/artifacts/<run_id>/execution/<case_slug>/evidence.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(transform = super::base64_when_encoded))]
pub struct Evidence {
    /// Version of this format: `1.<minor>.<patch>`. Files written before
    /// it was recorded read as `1.0.0`.
    #[serde(default = "first_version")]
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "super::schema_version_schema")
    )]
    pub(crate) schema_version: String,
    /// Case name.
    pub(crate) case: String,
    /// `golden` or `verify`.
    pub(crate) kind: CaseKind,
    /// The command, its outputs as kept in the reports, how it ended and
    /// how it was judged.
    #[serde(flatten)]
    pub(crate) run: super::case_run::CaseRun,
    /// Passed on a retry after failing.
    pub(crate) flaky: bool,
    /// Why the case could not run, when it did not.
    pub(crate) reason: Option<String>,
    /// Earlier failed attempts of a retried case, oldest first, each with
    /// its own evidence.
    pub(crate) previous_attempts: Vec<PreviousAttempt>,
    /// The expected outcome: `success` or `specific_error:<regex>`. With
    /// the exit code, the ending and the issues, the verdict can be
    /// re-judged from this file alone (`verify-evidence`). Absent before
    /// 1.1.
    #[serde(default)]
    pub(crate) expected: Option<String>,
    /// The case hit its timeout and was killed.
    #[serde(default)]
    pub(crate) timed_out: bool,
    /// The run was interrupted while the case ran, and it was killed.
    #[serde(default)]
    pub(crate) interrupted: bool,
    /// Snapshot comparisons (or blesses) of its output streams, with the
    /// diff of a changed one (docs/baselines.md, Output snapshots); empty when
    /// the case has no snapshot (and in files written before snapshots
    /// existed).
    #[serde(default)]
    pub(crate) snapshots: Vec<crate::model::SnapshotCheck>,
    /// Every entry of the golden project the run added, changed or
    /// removed, when it changed one; the `GOLDEN_MODIFIED` issue's message
    /// summarises them. Null when nothing changed (absent before 1.4).
    #[serde(default)]
    pub(crate) golden_changes: Option<crate::model::GoldenChanges>,
    /// The case's structured result (`result = { format, path }`), as read:
    /// its kept copy is covered by `evidence_hash` (its bytes after
    /// `"|"` and the exit code). Null without one (absent before 1.4).
    #[serde(default)]
    pub(crate) structured_result: Option<crate::model::StructuredResult>,
}

fn first_version() -> String {
    "1.0.0".to_string()
}

/// An earlier attempt of a retried case, as `evidence.json` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct PreviousAttempt {
    /// What the attempt counted as.
    pub(crate) result: CaseResult,
    /// Classification of its output.
    pub(crate) execution_status: ExecutionStatus,
    /// Its exit code.
    pub(crate) exit_code: Option<i32>,
    /// Its evidence hash.
    pub(crate) evidence_hash: Option<String>,
    /// Its own `evidence.json`, relative to the out dir.
    pub(crate) evidence: Option<String>,
}

impl Evidence {
    /// The evidence document of `case`.
    pub(crate) fn from_case(case: &CaseRecord) -> Evidence {
        Evidence {
            schema_version: SCHEMA_VERSION.to_string(),
            case: case.name.clone(),
            kind: case.kind,
            run: super::case_run::CaseRun::of(case),
            flaky: case.flaky,
            reason: case.reason.clone(),
            previous_attempts: case
                .previous_attempts
                .iter()
                .map(|a| PreviousAttempt {
                    result: a.result,
                    execution_status: a.execution_status,
                    exit_code: a.exit_code,
                    evidence_hash: a.evidence_hash.clone(),
                    evidence: a.artifacts.as_ref().map(|x| x.evidence.clone()),
                })
                .collect(),
            expected: Some(case.expected.clone()),
            timed_out: case.timed_out,
            interrupted: case.interrupted,
            snapshots: case.snapshots.clone(),
            golden_changes: case.golden_changes.clone(),
            structured_result: case.structured_result.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SnapshotCheck, Stream};

    fn check(stream: Stream) -> SnapshotCheck {
        let json = serde_json::json!({
            "stream": stream, "file": "snapshots/x.stdout", "outcome": "matched",
        });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn only_data_checks_of_1_6_evidence_and_later_change_the_hash() {
        for (v, covers) in [
            ("1.0.0", false),
            ("1.5.0", false),
            ("1.6.0", true),
            ("1.12.1", true),
        ] {
            assert_eq!(hash_covers_data(v), covers, "{v}");
        }
        assert!(hash_covers_data(SCHEMA_VERSION));
        let h = crate::hash::sha256_hex(b"sh x|||0");
        assert_eq!(hash_with_data(&h, &[]), h);
        assert_eq!(hash_with_data(&h, &[check(Stream::Stdout)]), h);
        let data = check(Stream::Data);
        let d = r#"[{"output":null,"file":"snapshots/x.stdout","sha256":null,"outcome":"matched","detail":null,"diff":null,"diff_sha256":null}]"#;
        assert_eq!(
            hash_with_data(&h, &[check(Stream::Stdout), data]),
            crate::hash::sha256_hex(format!("{h}|{d}").as_bytes())
        );
    }

    #[test]
    fn only_checks_that_kept_a_pending_snapshot_change_the_hash() {
        let h = crate::hash::sha256_hex(b"sh x|||1");
        let mut stdout = check(Stream::Stdout);
        assert_eq!(hash_with_pending(&h, &[stdout.clone()]), h);
        stdout.pending = Some(crate::model::PendingSnapshot {
            path: "artifacts/r/execution/001-x/pending/x.stdout".into(),
            sha256: "ab".into(),
            base_sha256: None,
        });
        let p = r#"[{"file":"snapshots/x.stdout","path":"artifacts/r/execution/001-x/pending/x.stdout","sha256":"ab","base_sha256":null}]"#;
        assert_eq!(
            hash_with_pending(&h, &[check(Stream::Data), stdout]),
            crate::hash::sha256_hex(format!("{h}|pending|{p}").as_bytes())
        );
    }
}
