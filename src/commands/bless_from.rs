//! `cargo golden bless --from OUT_DIR`: bless from a run made elsewhere
//! (a CI run's out dir, downloaded as an artifact) instead of running the
//! cases here, for cases that only run in CI.
//!
//! The out dir is trusted only once `verify-evidence` passes on it (and
//! its signature, with a public key). Then each case of that run that this
//! harness file declares is blessed as a local `--bless` would have
//! blessed it: its stream snapshots from its kept `stdout.log` /
//! `stderr.log` (redacted as if they ran here), its data snapshots from the
//! pending snapshots the run kept of each changed or missing one (see
//! [`crate::baseline::pending`]), and its baseline entry from its verdict
//! with those differences blessed away. A data snapshot the run kept no
//! pending text for (an output it could not read, a glob's output it no
//! longer wrote), or whose committed snapshot changed since the run
//! (stale), is not written (said so), and its case keeps failing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::baseline::BaselineError;
use crate::baseline::bless::BlessReport;
use crate::baseline::pending::{self, Standing};
use crate::baseline::snapshot::Snapshots;
use crate::config::HarnessConfig;
use crate::model::{CaseRecord, SnapshotOutcome, Stream};

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
    /// A pending snapshot changed since the run was verified: nothing was
    /// blessed.
    #[error("refusing to bless from {} (nothing was written)", .0.display())]
    Pending(PathBuf, #[source] pending::PendingError),
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
    // Every pending text is read (and held to its digest) before anything
    // is written: a file changed since the run verified writes nothing.
    let mut data = Vec::new();
    for case in &record.cases {
        data.push(
            pending_data(harness, case, &out_dir)
                .map_err(|e| BlessFromError::Pending(from.to_path_buf(), e))?,
        );
    }
    for (case, data) in record.cases.iter_mut().zip(data) {
        bless_data(harness, case, data);
        rebless(
            &snapshots,
            defs[case.name.as_str()],
            case,
            &out_dir,
            harness.flaky,
        );
    }
    Ok(crate::baseline::bless::bless_record(
        harness, &record, &ran_in,
    )?)
}

/// What becomes of one failing data check of a case: the text to bless it
/// with, or why it is not written.
type DataBless = (String, Result<Option<Vec<u8>>, String>);

/// The failing data checks of `case`, each with the pending text to bless
/// it with (None: the snapshot already holds it), or why it cannot be.
fn pending_data(
    harness: &HarnessConfig,
    case: &CaseRecord,
    out_dir: &Path,
) -> Result<Vec<DataBless>, pending::PendingError> {
    let mut out = Vec::new();
    for check in case
        .snapshots
        .iter()
        .filter(|s| s.stream == Stream::Data && s.fails())
    {
        // A record naming another file than the harness does for it is
        // refused whole; the file written is then the one the harness names.
        if let Some(e) = pending::misnamed(harness, &case.name, check) {
            return Err(e);
        }
        let file = check.file.clone();
        let Some(p) = &check.pending else {
            out.push((
                file,
                Err("that run kept no pending snapshot of it (its output was not read, or no longer written): bless it with a local `cargo golden --bless`".into()),
            ));
            continue;
        };
        let taken = match pending::standing(harness, &case.name, check, p) {
            Standing::Open => Ok(Some(pending::read(out_dir, p)?)),
            Standing::Blessed => Ok(None),
            Standing::Stale(why) => Err(format!("stale pending snapshot, skipped: {why}")),
        };
        out.push((file, taken));
    }
    Ok(out)
}

/// Bless the data snapshots of `case` from `data` (see [`pending_data`]):
/// write each, and make the verdict what a local bless would have seen;
/// those not written keep failing it.
fn bless_data(harness: &HarnessConfig, case: &mut CaseRecord, data: Vec<DataBless>) {
    let mut blessed = Vec::new();
    let mut refused = Vec::new();
    for (file, taken) in data {
        let written = match taken {
            Ok(Some(bytes)) => pending::write_snapshot(&harness.base_dir, &file, &bytes)
                .map_err(|e| crate::conclusion::error_chain(&e)),
            Ok(None) => Ok(()),
            Err(why) => Err(why),
        };
        match written {
            Ok(()) => blessed.push(file),
            Err(why) => refused.push((file, why)),
        }
    }
    let blessed: Vec<&str> = blessed.iter().map(String::as_str).collect();
    pending::accept_in_record(case, &blessed, harness.flaky);
    for (file, why) in refused {
        if let Some(s) = case.snapshots.iter_mut().find(|s| s.file == file) {
            s.outcome = SnapshotOutcome::NotWritten;
            s.detail = Some(why);
        }
    }
}

/// Bless the stream snapshots of `case` from its kept logs, and make its
/// verdict what a local bless would have seen: its stream checks those of
/// the bless, its verdict decided again from its facts.
fn rebless(
    snapshots: &Snapshots<'_>,
    def: &crate::config::CaseDef,
    case: &mut CaseRecord,
    out_dir: &Path,
    flaky: crate::model::FlakyPolicy,
) {
    let mut data_checks: Vec<_> = std::mem::take(&mut case.snapshots)
        .into_iter()
        .filter(|s| s.stream == Stream::Data)
        .collect();
    snapshots.apply(def, case, out_dir);
    case.snapshots.append(&mut data_checks);
    crate::model::verdict::decide(case, flaky);
}

/// `cargo golden bless --from OUT_DIR`: bless `loaded`'s cases from the
/// run in `from`, once it verifies (with `public_key`, its signature
/// too); exit 1 when nothing could be written.
pub(crate) fn command(
    loaded: &crate::commands::Loaded,
    from: &Path,
    public_key: Option<&str>,
) -> i32 {
    use crate::commands::output::usage_error;
    let key = match crate::commands::verify::public_key(public_key) {
        Ok(k) => k,
        Err(e) => return usage_error(&e),
    };
    match bless_from(&loaded.harness, from, key.as_ref()) {
        Ok(report) => {
            eprint!("{report}");
            if report.written {
                crate::conclusion::SUCCESS
            } else {
                crate::conclusion::FAILED
            }
        }
        Err(e) => usage_error(&e),
    }
}
