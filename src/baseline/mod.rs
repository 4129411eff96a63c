//! Baselines and snapshots (docs/baselines.md, Baselines): not only "it still
//! runs" but "it still does the same thing".
//!
//! - snapshots (`Snapshots`, [`SnapshotCheck`]): a case's output,
//!   redacted ([`SnapshotRedactor`]), compared with
//!   `snapshots/<name>.stdout|.stderr` beside the harness file, with
//!   trycmd's `[..]` and `...` wildcards;
//! - the baseline file ([`BaselineFile`]): `golden-baseline.json`, the
//!   approved verdicts, written only by a bless;
//! - [`compare`]: every run compared with it, case by case, and the rule
//!   of `gate = "baseline"`;
//! - bless (`BlessReport`): `--bless` rewrites the selected cases' entries
//!   from a run.
//!
//! Both front doors call `conclude` once the cases have run and before
//! the reports are written, so the comparison is part of the one record
//! every report is rendered from. Raw verdicts are never changed by it.

pub(crate) mod bless;
pub(crate) mod compare;
pub(crate) mod file;
pub(crate) mod pending;
pub(crate) mod redactions;
pub(crate) mod snapshot;
pub(crate) mod wildcard;

use std::collections::HashSet;

pub(crate) use crate::model::DiffLine;
pub(crate) use bless::{BlessReport, selection_note};
pub(crate) use compare::{CaseComparison, Class, Comparison, Verdict};
pub use file::BaselineEntry;
pub(crate) use file::BaselineError;
pub use file::BaselineFile;
pub use redactions::SnapshotRedactor;
pub(crate) use snapshot::{SnapshotCheck, Snapshots};

use crate::config::{Gate, HarnessConfig};
use crate::model::{CaseRecord, CaseResult, RunRecord};

/// Longest failure signature kept, in characters.
const MAX_SIGNATURE_CHARS: usize = 300;

/// The failure signature of a FAILED or ERROR case: its issue types (in
/// order, without repeats) and its first finding (the first issue's
/// message, else the reason it could not run), redacted; with changed data
/// outputs, then ` [data diff <digest>]` (see [`data_change_digest`]),
/// never cut. None for a case that passed or was skipped.
pub(crate) fn signature(case: &CaseRecord, redactor: &SnapshotRedactor<'_>) -> Option<String> {
    if !case.result.is_failure() {
        return None;
    }
    let mut types: Vec<&str> = Vec::new();
    for t in case.issues.iter().map(|i| i.issue_type.as_str()) {
        if !types.contains(&t) {
            types.push(t);
        }
    }
    let finding = case
        .issues
        .first()
        .map(|i| i.message.as_str())
        .or(case.reason.as_deref())
        .unwrap_or("");
    let finding = crate::ansi::one_line(&redactor.redact(finding));
    let text = if types.is_empty() {
        finding
    } else {
        format!("{}: {finding}", types.join("+"))
    };
    let Some(digest) = data_change_digest(case) else {
        return Some(text.chars().take(MAX_SIGNATURE_CHARS).collect());
    };
    let suffix = format!(" [data diff {digest}]");
    let mut text: String = text
        .chars()
        .take(MAX_SIGNATURE_CHARS - suffix.chars().count())
        .collect();
    text.push_str(&suffix);
    Some(text)
}

/// Hex digits of the data diff digest a signature carries.
const DATA_DIGEST_CHARS: usize = 16;

/// What a case's data changes were, in a few hex digits: the sha256 of
/// each changed data output's path and the digest of its full diff
/// (`diff_sha256`), one a line. A count of differences would call two
/// different changes of as many cells the same failure, and the first
/// finding names only the first output: under `gate = "baseline"` a known
/// `DATA_CHANGED` failure stays known only while the data changes the same
/// way. None when no data output changed.
fn data_change_digest(case: &CaseRecord) -> Option<String> {
    let mut parts = String::new();
    for s in &case.snapshots {
        if let (Some(output), Some(diff), crate::model::SnapshotOutcome::Changed) =
            (&s.output, &s.diff_sha256, s.outcome)
        {
            parts.push_str(&format!("{output}\t{diff}\n"));
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut digest = crate::hash::sha256_hex(parts.as_bytes());
    digest.truncate(DATA_DIGEST_CHARS);
    Some(digest)
}

/// What a case did, as the comparison sees it; None when it was skipped.
pub fn verdict(case: &CaseRecord, redactor: &SnapshotRedactor<'_>) -> Option<Verdict> {
    (case.result != CaseResult::Skipped).then(|| Verdict {
        result: case.result,
        signature: signature(case, redactor),
        duration_seconds: case.duration.as_secs_f64(),
    })
}

/// Whether a case of a run's record was selected by its filters: every
/// case is, except those skipped as filtered out.
pub(crate) fn selected(case: &CaseRecord) -> bool {
    !case.filtered_out()
}

/// Which cases a run selected, for the comparison.
pub(crate) struct Selection<'a> {
    /// Whether the run's filters select a case of this name (asked for
    /// baseline cases that are no longer declared).
    pub(crate) selects: &'a dyn Fn(&str) -> bool,
    /// Whether this run looks for missing cases: a partitioned run does
    /// only in its first shard, so a sharded CI reports them once.
    pub(crate) look_for_missing: bool,
}

/// Load the baseline of `harness` (None when there is none yet). Called
/// before the run, so a broken file stops it before anything runs.
pub(crate) fn load(harness: &HarnessConfig) -> Result<Option<BaselineFile>, BaselineError> {
    if harness.file.is_none() {
        return Ok(None);
    }
    BaselineFile::load(&harness.baseline_file())
}

/// Compare the finished run in `record` with `baseline` and attach the
/// comparison (and its `PERFORMANCE` warnings) to the record; with
/// `bless`, also rewrite the baseline entries of the selected cases and
/// say what changed. `earlier` holds the lines of the runs before it in
/// its out dir's history (the readable ones: history only refines what
/// `slower` compares with), for each case's typical duration.
pub(crate) fn conclude(
    harness: &HarnessConfig,
    record: &mut RunRecord,
    baseline: Option<&BaselineFile>,
    selection: &Selection<'_>,
    bless: bool,
    earlier: &[crate::wire::history::HistoryLine],
) -> Result<Option<BlessReport>, BaselineError> {
    let snapshots = Snapshots::new(harness, &record.run_id);
    let verdicts: Vec<(usize, Option<Verdict>)> = record
        .cases
        .iter()
        .enumerate()
        .filter(|(_, c)| selected(c))
        .map(|(i, c)| (i, verdict(c, &snapshots.redactor(&c.working_dir))))
        .collect();
    let observed: Vec<compare::Observed<'_>> = verdicts
        .iter()
        .map(|(i, v)| {
            let c = &record.cases[*i];
            compare::Observed {
                name: &c.name,
                kind: c.kind,
                line: c.line,
                verdict: v.clone(),
            }
        })
        .collect();
    let declared: HashSet<&str> = harness.cases.iter().map(|c| c.name.as_str()).collect();
    let is_missing = |name: &str| !declared.contains(name) && (selection.selects)(name);
    let settings = compare::Settings {
        file: display_file(harness),
        gate: harness.gate,
        slowdown: harness.slowdown,
        typical: compare::Typical::of_history(earlier, record.jobs),
    };
    let missing: Option<&dyn Fn(&str) -> bool> =
        selection.look_for_missing.then_some(&is_missing as _);
    let mut comparison = compare::compare(baseline, &observed, missing, &settings);
    drop(observed);

    let mut warnings = Vec::new();
    if harness.gate == Gate::Baseline && baseline.is_none() && !bless {
        warnings.push(format!(
            "gate = \"baseline\" but {} does not exist: every case is new, and a failing new case fails the run. Record one with `cargo golden --bless`.",
            settings.file
        ));
    }
    for c in comparison.of_class(Class::Slower) {
        warnings.push(format!("PERFORMANCE: `{}` {}", c.name, c.detail));
    }
    record.warnings.extend(warnings);

    let report = if bless {
        let report = bless::bless(harness, record, baseline, &comparison)?;
        comparison.blessed = report.written;
        Some(report)
    } else {
        None
    };
    record.baseline = Some(comparison);
    Ok(report)
}

/// The baseline file as reports name it: relative to the current
/// directory when inside it.
fn display_file(harness: &HarnessConfig) -> String {
    crate::layout::display_relative(&harness.baseline_file())
}
