//! `cargo golden bless --from OUT_DIR`: bless from a run made elsewhere
//! (a CI run's out dir, downloaded as an artifact) instead of running the
//! cases here, for cases that only run in CI.
//!
//! The out dir is trusted only once `verify-evidence` passes on it (and
//! its signature, with a public key). Then each case of that run that this
//! harness file declares is blessed as a local `--bless` would have
//! blessed it: its stream snapshots from its kept `stdout.log` /
//! `stderr.log` (redacted as if they ran here), and its baseline entry
//! from its verdict with the stream snapshot differences blessed away.
//! Data outputs' tables are not kept in an out dir: their snapshots are
//! not written (said so), and a case whose data changed keeps failing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::baseline::bless::BlessReport;
use crate::baseline::compare::{self, Observed, Settings};
use crate::baseline::snapshot::Snapshots;
use crate::baseline::{BaselineError, BaselineFile};
use crate::config::HarnessConfig;
use crate::model::{CaseRecord, CaseResult, IssueType, RunRecord, SnapshotOutcome, Stream};

/// Why a bless from an out dir did not happen.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BlessFromError {
    /// The out dir could not be read.
    #[error("cannot read {}", .0.display())]
    Read(PathBuf, #[source] std::io::Error),
    /// `verify-evidence` found problems: nothing was blessed.
    #[error(
        "refusing to bless from {}: its evidence does not verify (nothing was written); `cargo golden verify-evidence` found:\n  - {}",
        .0.display(),
        .1.join("\n  - ")
    )]
    Unverified(PathBuf, Vec<String>),
    /// The baseline could not be read or written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
}

/// Bless `harness`'s snapshots and baseline entries from the run in
/// `from`, once its evidence verifies (with `public_key`, its signature
/// too).
pub(crate) fn bless_from(
    harness: &HarnessConfig,
    from: &Path,
    public_key: Option<&minisign::PublicKey>,
) -> Result<BlessReport, BlessFromError> {
    let (mut record, run_dir) = super::verify::verified_record(from, public_key)
        .map_err(|e| BlessFromError::Read(from.to_path_buf(), e))?
        .map_err(|findings| BlessFromError::Unverified(from.to_path_buf(), findings))?;
    // The run dir is `<out_dir>/artifacts/<run_id>`; the logs are named
    // relative to the out dir.
    let out_dir = run_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(from)
        .to_path_buf();
    let ran_in = record
        .harness_path
        .parent()
        .unwrap_or(Path::new("/"))
        .to_path_buf();
    let mut snapshots = Snapshots::new(harness, &record.run_id).ran_in(&ran_in);
    snapshots.set_bless(true);
    let defs: HashMap<&str, &crate::config::CaseDef> =
        harness.cases.iter().map(|c| (c.name.as_str(), c)).collect();
    record
        .cases
        .retain(|c| defs.contains_key(c.name.as_str()) && !c.filtered_out());
    for case in &mut record.cases {
        rebless(&snapshots, defs[case.name.as_str()], case, &out_dir);
    }
    let baseline = crate::baseline::load(harness)?;
    let comparison = compare_here(harness, &record, baseline.as_ref(), &snapshots);
    Ok(crate::baseline::bless::bless(
        harness,
        &record,
        baseline.as_ref(),
        &comparison,
    )?)
}

/// Bless the stream snapshots of `case` from its kept logs, and make its
/// verdict what a local bless would have seen: without the stream
/// snapshot issues, PASSED when they were all that failed it.
fn rebless(
    snapshots: &Snapshots<'_>,
    def: &crate::config::CaseDef,
    case: &mut CaseRecord,
    out_dir: &Path,
) {
    let data_missing = case
        .snapshots
        .iter()
        .any(|s| s.stream == Stream::Data && s.outcome == SnapshotOutcome::Missing);
    case.snapshots.retain(|s| s.stream == Stream::Data);
    for s in &mut case.snapshots {
        if s.fails() {
            s.outcome = SnapshotOutcome::NotWritten;
            s.detail = Some(
                "a run's out dir does not keep its data outputs: bless them with a local `cargo golden --bless`".into(),
            );
        }
    }
    let before = case.issues.len();
    case.issues.retain(|i| {
        !(i.issue_type == IssueType::OutputChanged
            || (i.issue_type == IssueType::SnapshotMissing && !data_missing))
    });
    if case.issues.is_empty() && before > 0 && case.result == CaseResult::Failed {
        case.result = CaseResult::Passed;
    }
    let mut stream_checks = Vec::new();
    std::mem::swap(&mut case.snapshots, &mut stream_checks);
    snapshots.apply(def, case, out_dir);
    case.snapshots.extend(stream_checks);
}

/// The comparison of `record`'s cases with `baseline`, as a local run's
/// (no case is looked for as missing: the run may have been one shard).
fn compare_here(
    harness: &HarnessConfig,
    record: &RunRecord,
    baseline: Option<&BaselineFile>,
    snapshots: &Snapshots<'_>,
) -> compare::Comparison {
    let verdicts: Vec<_> = record
        .cases
        .iter()
        .map(|c| crate::baseline::verdict(c, &snapshots.redactor(&c.working_dir)))
        .collect();
    let observed: Vec<Observed<'_>> = record
        .cases
        .iter()
        .zip(verdicts)
        .map(|(c, verdict)| Observed::of(c, verdict))
        .collect();
    let settings = Settings {
        file: crate::layout::display_relative(&harness.baseline_file()),
        gate: harness.gate,
        slowdown: harness.slowdown,
        typical: HashMap::new(),
    };
    compare::compare(baseline, &observed, None, &settings)
}
