//! `--bless` (and `CARGO_GOLDEN=bless` under `cargo test`): rewrite the
//! baseline entries of the cases a run selected from what they did, and
//! say what changed. Snapshots are written by the engine as each case ends
//! ([`super::Snapshots`]); this module reports them too.
//!
//! A case that could not run is recorded as ERROR with its signature, never
//! left out; a selected case that was skipped (fail-fast) keeps its old
//! entry; baseline entries of cases no longer declared are dropped when the
//! run selects their names. An interrupted run writes no baseline.

use std::collections::{HashMap, HashSet};
use std::fmt;

use super::compare::{CaseComparison, Class, Comparison};
use super::file::{
    BASELINE_SCHEMA_VERSION, BaselineEntry, BaselineError, BaselineFile, round_seconds,
};
use super::snapshot::SnapshotOutcome;
use crate::config::HarnessConfig;
use crate::model::{CaseResult, RunRecord};

/// What a bless did, for the terminal.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct BlessReport {
    /// The baseline file as shown to users.
    pub(crate) file: String,
    /// Whether the baseline file was written.
    pub(crate) written: bool,
    /// Why it was not, when it was not.
    pub(crate) not_written: Option<String>,
    /// Snapshot files written or refused: (file, what happened, why).
    pub(crate) snapshots: Vec<(String, SnapshotOutcome, Option<String>)>,
    /// Entries that changed: (case, was, now).
    pub(crate) changed: Vec<(String, String, String)>,
    /// Entries recorded for the first time: (case, now).
    pub(crate) added: Vec<(String, String)>,
    /// Entries dropped: cases no longer declared.
    pub(crate) removed: Vec<String>,
    /// Cases recorded as ERROR, with their signatures.
    pub(crate) errors: Vec<(String, String)>,
    /// Selected cases that did not run and kept their old entry.
    pub(crate) not_run: Vec<String>,
    /// Entries recorded as they were (durations aside).
    pub(crate) unchanged: usize,
}

/// What a filtered bless is about to rewrite, said before anything runs:
/// the cases the filters select (`names`), and when a filter selects more
/// than the case it names (filters match parts of names unless `exact`),
/// how to match whole names.
pub(crate) fn selection_note(names: &[String], filters: &[String], exact: bool) -> String {
    let mut note = format!(
        "{:>12} {} case(s) the filters select: {}",
        "Blessing",
        names.len(),
        crate::ansi::name_list(names)
    );
    if !exact && names.iter().any(|n| !filters.contains(n)) {
        note.push_str(
            "\n        note: a filter matches any name that contains it; `--exact` blesses only the cases named",
        );
    }
    note
}

/// How an entry reads in the report: `PASSED` or `FAILED: <signature>`.
fn describe(e: &BaselineEntry) -> String {
    match &e.signature {
        Some(s) => format!("{}: {s}", e.result.as_str()),
        None => e.result.as_str().to_string(),
    }
}

/// Rewrite the baseline of `harness` from `record` (see the module docs).
pub(crate) fn bless(
    harness: &HarnessConfig,
    record: &RunRecord,
    old: Option<&BaselineFile>,
    comparison: &Comparison,
) -> Result<BlessReport, BaselineError> {
    let mut report = BlessReport {
        file: comparison.file.clone(),
        ..BlessReport::default()
    };
    for case in &record.cases {
        for s in &case.snapshots {
            if matches!(
                s.outcome,
                SnapshotOutcome::Created
                    | SnapshotOutcome::Updated
                    | SnapshotOutcome::NotWritten
                    | SnapshotOutcome::Removed
            ) {
                report
                    .snapshots
                    .push((s.file.clone(), s.outcome, s.detail.clone()));
            }
        }
    }
    if record.interrupted {
        report.not_written = Some("the run was interrupted".into());
        return Ok(report);
    }
    if harness.file.is_none() {
        report.not_written = Some(
            "ad-hoc `--golden` projects have no harness file to keep a baseline beside".into(),
        );
        return Ok(report);
    }
    let mut entries: HashMap<String, BaselineEntry> = old
        .map(|b| {
            b.cases
                .iter()
                .map(|e| (e.name.clone(), e.clone()))
                .collect()
        })
        .unwrap_or_default();
    for c in &comparison.cases {
        record_case(c, &mut entries, &mut report);
    }
    let file = BaselineFile {
        schema_version: BASELINE_SCHEMA_VERSION.to_string(),
        suite: harness.name.clone(),
        cases: ordered(harness, old, entries),
    };
    file.save(&harness.baseline_file())?;
    report.written = true;
    Ok(report)
}

/// Bless the baseline entries of the cases of `record` as a local bless of
/// them would, for a run that did not bless (`bless --from`, `review`):
/// each case's entry from its verdict as it stands in `record`, compared
/// with the baseline as a local run's is, with no case looked for as
/// missing (the run may have been one shard, or a review of a few cases).
/// Signatures are redacted as where the cases ran: with the harness file
/// in `ran_in`.
pub(crate) fn bless_record(
    harness: &HarnessConfig,
    record: &RunRecord,
    ran_in: &std::path::Path,
) -> Result<BlessReport, BaselineError> {
    let baseline = super::load(harness)?;
    let snapshots = super::Snapshots::new(harness, &record.run_id).ran_in(ran_in);
    let verdicts: Vec<_> = (record.cases.iter())
        .map(|c| super::verdict(c, &snapshots.redactor(&c.working_dir)))
        .collect();
    let observed: Vec<super::compare::Observed<'_>> = (record.cases.iter())
        .zip(verdicts)
        .map(|(c, verdict)| super::compare::Observed::of(c, verdict))
        .collect();
    let settings = super::compare::Settings {
        file: crate::layout::display_relative(&harness.baseline_file()),
        gate: harness.gate,
        slowdown: harness.slowdown,
        typical: HashMap::new(),
    };
    let comparison = super::compare::compare(baseline.as_ref(), &observed, None, &settings);
    bless(harness, record, baseline.as_ref(), &comparison)
}

/// One case of the comparison into the new entries, noted in `report`.
fn record_case(
    c: &CaseComparison,
    entries: &mut HashMap<String, BaselineEntry>,
    report: &mut BlessReport,
) {
    match (c.class, &c.now) {
        (Class::Missing, _) => {
            entries.remove(&c.name);
            report.removed.push(c.name.clone());
        }
        (_, None) => report.not_run.push(c.name.clone()),
        (_, Some(now)) => {
            let entry = BaselineEntry {
                name: c.name.clone(),
                kind: c.kind,
                result: now.result,
                signature: now.signature.clone(),
                duration_seconds: round_seconds(now.duration_seconds),
            };
            if now.result == CaseResult::Error {
                report
                    .errors
                    .push((c.name.clone(), now.signature.clone().unwrap_or_default()));
            }
            match entries.insert(c.name.clone(), entry.clone()) {
                None => report.added.push((c.name.clone(), describe(&entry))),
                Some(was) if was.result != entry.result || was.signature != entry.signature => {
                    report
                        .changed
                        .push((c.name.clone(), describe(&was), describe(&entry)))
                }
                Some(_) => report.unchanged += 1,
            }
        }
    }
}

/// The entries in declaration order, then those of cases no longer
/// declared (kept by a filtered bless) in their old order.
fn ordered(
    harness: &HarnessConfig,
    old: Option<&BaselineFile>,
    mut entries: HashMap<String, BaselineEntry>,
) -> Vec<BaselineEntry> {
    let mut out: Vec<BaselineEntry> = harness
        .cases
        .iter()
        .filter_map(|c| entries.remove(&c.name))
        .collect();
    let declared: HashSet<&str> = harness.cases.iter().map(|c| c.name.as_str()).collect();
    for e in old.map(|b| b.cases.as_slice()).unwrap_or(&[]) {
        if !declared.contains(e.name.as_str())
            && let Some(kept) = entries.remove(&e.name)
        {
            out.push(kept);
        }
    }
    out
}

impl fmt::Display for BlessReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = |f: &mut fmt::Formatter<'_>, l: &str| write!(f, "{l:>12} ");
        for (file, outcome, why) in &self.snapshots {
            match outcome {
                SnapshotOutcome::NotWritten => {
                    label(f, "Not blessed")?;
                    writeln!(
                        f,
                        "{file}: {}",
                        why.as_deref().unwrap_or("the case could not run")
                    )?;
                }
                other => {
                    label(f, "Blessed")?;
                    writeln!(f, "{file} ({})", other.as_str())?;
                }
            }
        }
        if let Some(why) = &self.not_written {
            label(f, "Not blessed")?;
            return writeln!(f, "{}: {why}; it was left as it was", self.file);
        }
        label(f, "Blessed")?;
        writeln!(
            f,
            "{}: {} changed, {} added, {} removed, {} unchanged",
            self.file,
            self.changed.len(),
            self.added.len(),
            self.removed.len(),
            self.unchanged
        )?;
        for (name, was, now) in &self.changed {
            label(f, "changed")?;
            writeln!(f, "{name}: {was} → {now}")?;
        }
        for (name, now) in &self.added {
            label(f, "added")?;
            writeln!(f, "{name}: {now}")?;
        }
        for name in &self.removed {
            label(f, "removed")?;
            writeln!(f, "{name} (no longer declared)")?;
        }
        for (name, sig) in &self.errors {
            label(f, "ERROR")?;
            writeln!(f, "{name} could not run and is recorded as ERROR: {sig}")?;
        }
        for name in &self.not_run {
            label(f, "not run")?;
            writeln!(f, "{name}: skipped in this run; its entry was kept")?;
        }
        Ok(())
    }
}
