//! Reports of a run: per-case `evidence.json`, and the file reports
//! `junit.xml`, `report.md`, `summary.json` and `observations.jsonl`, all
//! rendered from one [`RunRecord`] so they cannot disagree; plus the
//! streaming reporters that consume the event stream: [`github`], and with
//! the `cli` feature `terminal` and `json_messages`.
//!
//! Every file is replaced atomically (written to a temporary file in the
//! same directory, then renamed), so a reader never sees half a report and
//! a crash leaves the previous one in place.
//!
//! [`check_integrity`] re-reads what was written and compares it with the
//! record and the exit code: the last line of defence against a report that
//! says something different from what happened.

pub(crate) mod attest;
pub(crate) mod baseline;
mod format;
pub(crate) mod github;
pub(crate) mod history;
mod html;
mod integrity;
#[cfg(feature = "cli")]
pub(crate) mod json_messages;
mod junit;
mod markdown;
pub(crate) mod markup;
mod observations;
pub(crate) mod seal;
pub(crate) mod signing;
mod summary;
#[cfg(feature = "cli")]
pub(crate) mod terminal;

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use crate::conclusion::{Reports, Results, RunOutcome};
use crate::model::{CaseRecord, RunRecord, Severity, Stage};
use crate::wire::history::HistoryLine;

use format::{Format, RunView};

pub(crate) use crate::ansi::one_line;
pub(crate) use crate::atomic::atomic_write;
pub(crate) use crate::wire::evidence::write_evidence;

pub(crate) use format::Disagreement;
pub(crate) use html::HTML_FILE;
pub(crate) use integrity::IntegrityError;
pub use integrity::{check_integrity, expected_exit_code};
pub(crate) use junit::JUNIT_FILE;
pub(crate) use markdown::MARKDOWN_FILE;
pub(crate) use observations::OBSERVATIONS_FILE;
pub(crate) use summary::{SUMMARY_FILE, SummaryFile, read_summary, read_summary_file};

/// Every file report of a run, in the order the files are written,
/// checked and sealed. A new format is a module of this folder
/// implementing [`Format`], and a line here.
const FORMATS: &[&dyn Format] = &[
    &junit::Junit,
    &markdown::Markdown,
    &summary::SummaryJson,
    &observations::Observations,
    &html::Html,
];

/// The file names of a run's reports, in the order they are written.
pub fn report_files() -> impl Iterator<Item = &'static str> {
    FORMATS.iter().map(|f| f.file_name())
}

/// Whether the report `file_name` is one a run sealed by an earlier
/// cargo-golden may lack (see `Format::added_later`).
pub(crate) fn added_later(file_name: &str) -> bool {
    FORMATS
        .iter()
        .any(|f| f.file_name() == file_name && f.added_later())
}

/// The phrase a report may only contain when every case passed.
/// The most of a report read back (to check it, verify it or merge it):
/// a report lists every case with its output excerpts, so a run of many
/// thousands of cases writes reports of hundreds of MiB, never more.
pub(crate) const REPORT_LIMIT: u64 = 1 << 30;

pub(crate) const NO_ISSUES_PHRASE: &str = "No issues observed";

/// Paths of the reports [`write_all`] wrote, in the order written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    paths: Vec<PathBuf>,
}

impl Written {
    /// The paths of the reports of `out_dir`, whether written yet or not.
    pub(crate) fn in_dir(out_dir: &Path) -> Written {
        Written {
            paths: report_files().map(|f| out_dir.join(f)).collect(),
        }
    }

    /// Every path, in the order written.
    pub(crate) fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The path of the report named `file_name` (e.g. [`JUNIT_FILE`]).
    ///
    /// # Panics
    ///
    /// When no report has that name: a caller's mistake, not the run's.
    #[cfg(test)]
    pub(crate) fn path(&self, file_name: &str) -> &Path {
        self.paths
            .iter()
            .find(|p| p.file_name().is_some_and(|n| n == file_name))
            .unwrap_or_else(|| panic!("{file_name} is not a report file"))
    }
}

/// Writing or reading a report failed.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A report file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file that could not be written.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A report could not be rendered.
    #[error("cannot render {}", path.display())]
    Render {
        /// The file being rendered.
        path: PathBuf,
        /// Why.
        #[source]
        source: format::RenderError,
    },
    /// A summary file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A summary file is not valid JSON of the expected shape.
    #[error("{} is not a valid summary", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A summary file has a value that cannot be turned back into a record.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the field.
        message: String,
    },
}

/// Write every report ([`report_files`]) into `record.out_dir`, each
/// atomically. `harness_display` is how the harness file is named in the
/// reports (JUnit `file` attribute, markdown header), typically relative
/// to the workspace root.
///
/// The first file that cannot be written stops the others and is named in
/// the error.
pub fn write_all(record: &RunRecord, harness_display: &str) -> Result<Written, ReportError> {
    let history = crate::wire::history::earlier(&record.out_dir, &record.run_id);
    write_reports(record, &Results::of(record), harness_display, &history)
}

/// [`write_all`] with the results already computed.
fn write_reports(
    record: &RunRecord,
    results: &Results,
    harness_display: &str,
    history: &[HistoryLine],
) -> Result<Written, ReportError> {
    let run = RunView {
        record,
        results,
        history,
    };
    each_report(&run, harness_display, |_| ()).map(|(written, _)| written)
}

/// [`write_reports`], each report read back and checked (see
/// [`check_integrity`]) as soon as it is written: the slowest report
/// then holds up one core, not every step. The reports written, with what
/// the check found.
fn write_and_check(
    record: &RunRecord,
    results: &Results,
    harness_display: &str,
    history: &[HistoryLine],
) -> Result<(Written, Result<(), IntegrityError>), ReportError> {
    let run = RunView {
        record,
        results,
        history,
    };
    let exit_code = results.exit_code;
    let (written, per_format) = each_report(&run, harness_display, |format| {
        integrity::check_format(format, record, results, exit_code)
    })?;
    Ok((
        written,
        integrity::verdict(record, results, exit_code, per_format),
    ))
}

/// Render every report of `run` and write it beside its place in the out
/// dir, on every core; put them all in place at once (a second interrupt
/// leaves all of them or none, see [`crate::atomic::put_in_place`]); then
/// `after(format)` of each, on every core. The first report that cannot
/// be rendered or written, in the formats' order, is the error.
fn each_report<R: Send>(
    run: &RunView<'_>,
    harness_display: &str,
    after: impl Fn(&dyn Format) -> R + Sync,
) -> Result<(Written, Vec<R>), ReportError> {
    let out_dir = &run.record.out_dir;
    let written = Written::in_dir(out_dir);
    std::fs::create_dir_all(out_dir).map_err(|source| ReportError::Write {
        path: out_dir.clone(),
        source,
    })?;
    let formats: Vec<_> = FORMATS.iter().zip(written.paths()).collect();
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReportError::Write { path, source }
    };
    let staged = crate::parallel::map(&formats, |(format, path)| {
        let text = format
            .render(run, harness_display)
            .map_err(|source| ReportError::Render {
                path: path.to_path_buf(),
                source,
            })?;
        crate::atomic::stage(path, text.as_bytes()).map_err(write_error(path))
    });
    let staged = staged.into_iter().collect::<Result<Vec<_>, _>>()?;
    crate::atomic::put_in_place(staged)
        .map_err(|(path, source)| ReportError::Write { path, source })?;
    let done = crate::parallel::map(&formats, |(format, _)| after(**format));
    Ok((written, done))
}

/// Bytes as text, invalid UTF-8 replaced by U+FFFD.
pub(crate) fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The end of each stream of `case` that is not empty, as reports quote
/// it (see [`crate::model::output_end`]): from the real end of the stream
/// when the kept copy was truncated.
pub(crate) fn output_ends(case: &CaseRecord) -> Vec<(&'static str, String)> {
    [
        ("stdout", &case.stdout, &case.stdout_end),
        ("stderr", &case.stderr, &case.stderr_end),
    ]
    .into_iter()
    .filter(|(_, bytes, _)| !bytes.is_empty())
    .map(|(label, bytes, end)| {
        let end = match end {
            Some(end) => end.clone(),
            None => crate::model::output_end(&lossy(bytes)).to_string(),
        };
        (label, trim_line_ends(&end))
    })
    .collect()
}

/// `text` with each line's trailing spaces and tabs left out: rich pads
/// every line to the terminal's width, which is padding, not output.
/// What is shown only; the logs keep every byte.
pub(crate) fn trim_line_ends(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b.strip_suffix('\r').unwrap_or(b), "\n"),
            None => (line, ""),
        };
        out.push_str(body.trim_end_matches([' ', '\t']));
        out.push_str(end);
    }
    out
}

/// The end of stdout and of stderr (see [`output_ends`]), each under a
/// heading; empty when both are.
pub(crate) fn output_excerpt(case: &CaseRecord) -> String {
    let mut out = String::new();
    for (label, tail) in output_ends(case) {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "--- {label} (end) ---");
        out.push_str(&tail);
        if !tail.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The one-line headline of a failed or errored case: its first issue's
/// message, else the reason it could not run.
pub(crate) fn headline(case: &CaseRecord) -> String {
    // A modified project comes first: it outweighs how the command ended.
    let modified =
        (case.issues.iter()).find(|i| i.issue_type == crate::model::IssueType::GoldenModified);
    let raw = modified
        .or(case.issues.first())
        .map(|i| i.message.as_str())
        .or(case.reason.as_deref())
        .unwrap_or("");
    let line = one_line(raw);
    if line.is_empty() {
        format!(
            "{} {}",
            case.result.as_str(),
            case.execution_status.as_str()
        )
    } else {
        line
    }
}

/// `config_validation` or `execution`.
pub(crate) fn stage_str(stage: Stage) -> &'static str {
    match stage {
        Stage::ConfigValidation => "config_validation",
        Stage::Execution => "execution",
    }
}

/// `HIGH` or `MEDIUM`.
pub(crate) fn severity_str(severity: Severity) -> &'static str {
    match severity {
        Severity::High => "HIGH",
        Severity::Medium => "MEDIUM",
    }
}

/// The status to show beside a case: its execution status; `NO_EVIDENCE`
/// for a case that could not run (its execution status says nothing
/// then); and for a case that failed although its command succeeded (a
/// changed output, a modified golden project), the type of the issue
/// that failed it, since `FAILED (SUCCESS)` would read as a contradiction.
pub(crate) fn status_label(case: &CaseRecord) -> &'static str {
    use crate::model::{CaseResult, ExecutionStatus};
    if case.result == CaseResult::Failed && case.execution_status == ExecutionStatus::Success {
        case.issues
            .first()
            .map_or(case.execution_status.as_str(), |i| i.issue_type.as_str())
    } else if case.ran() || case.result == CaseResult::Skipped {
        case.execution_status.as_str()
    } else {
        case.status.as_str()
    }
}

/// ` · partition NAME (N of M declared cases)` for a partial run, its name
/// escaped by `esc`; empty for a whole run.
pub(crate) fn partition_note(record: &RunRecord, esc: fn(&str) -> String) -> String {
    record.partition.as_ref().map_or_else(String::new, |p| {
        format!(
            " · partition {} ({} of {} declared cases)",
            esc(p),
            record.cases.len(),
            record.declared_cases
        )
    })
}

/// What the reports say beside a case's result: its quarantine (the
/// label wrapped by `mark`), a flaky pass, its warnings; user text escaped
/// by `esc`.
pub(crate) fn case_notes(
    case: &CaseRecord,
    esc: fn(&str) -> String,
    mark: fn(&str) -> String,
) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(q) = &case.quarantine {
        let not_held = case
            .not_quarantinable()
            .filter(|_| case.result.is_failure());
        let label = if q.expired {
            "QUARANTINE EXPIRED"
        } else if not_held.is_some() {
            "QUARANTINE DOES NOT HOLD"
        } else {
            "QUARANTINED"
        };
        parts.push(format!("{}: {}", mark(label), esc(&q.describe())));
        if let Some(why) = not_held.filter(|_| !q.expired) {
            parts.push(format!(
                "the quarantine covers the case's known failure, not this: {}",
                esc(&one_line(&why))
            ));
        }
    }
    if case.flaky {
        parts.push(format!(
            "flaky: passed after {} failed attempt(s)",
            case.previous_attempts.len()
        ));
    }
    for w in &case.warnings {
        parts.push(format!("warning: {}", esc(w)));
    }
    parts
}

/// Seconds with two decimals, as every human-facing report shows them.
pub(crate) fn seconds(d: std::time::Duration) -> String {
    format!("{:.2}s", d.as_secs_f64())
}

/// Why a run's reports cannot be trusted.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FinishError {
    /// A report could not be written.
    #[error(transparent)]
    Write(#[from] ReportError),
    /// The reports disagree with the record, each other or the exit code.
    #[error(transparent)]
    Integrity(#[from] IntegrityError),
    /// The run dir could not be sealed (`SHA256SUMS`, its signature).
    #[error(transparent)]
    Seal(#[from] seal::SealError),
    /// Evidence the run wrote, or its hold on the out dir, was lost while
    /// it ran: no report is written for it.
    #[error(
        "integrity violation: the run's evidence was lost while it ran, so no report was written:\n  - {}\n  help: a case must not delete the out dir (`cargo clean`, `rm -rf target` delete the default `<target dir>/golden`); set `[harness] out_dir` or `--out` outside what the cases remove",
        .0.join("\n  - ")
    )]
    Lost(Vec<String>),
}

/// The end of a run, once its reports are written and checked.
#[derive(Debug)]
pub(crate) struct Finished {
    /// How the run ended, as the run-finished event carried it.
    pub(crate) outcome: RunOutcome,
    /// What went wrong with the reports, for the caller to show.
    pub(crate) problem: Option<FinishError>,
    /// Reports removed because the set could not be written whole.
    pub(crate) removed: Vec<String>,
}

impl Finished {
    /// What to tell a person about the reports beyond [`Finished::problem`].
    pub(crate) fn removed_note(&self) -> Option<String> {
        (!self.removed.is_empty()).then(|| {
            format!(
                "the reports of this run are incomplete and were removed ({})",
                self.removed.join(", ")
            )
        })
    }

    /// Say on stderr what went wrong with the reports, if anything.
    pub(crate) fn tell(&self) {
        if let Some(problem) = &self.problem {
            crate::conclusion::print_error(problem, false);
        }
        if let Some(note) = self.removed_note() {
            eprintln!("error: {note}");
        }
    }
}

/// End a finished run the way both front doors do: compare it with its
/// baseline (blessing it when `bless`), write and check the reports, apply
/// `keep_runs` once they agree, and say on stderr what went wrong. Returns
/// the outcome the run-finished event carried; what a front door makes of
/// it (libtest's codes) is left to it.
pub(crate) fn conclude(
    harness: &crate::config::HarnessConfig,
    record: &mut RunRecord,
    fanout: &mut crate::events::Fanout,
    baseline: Option<&crate::baseline::BaselineFile>,
    (selection, bless): (&crate::baseline::Selection<'_>, bool),
    signer: Option<&signing::Signer>,
) -> RunOutcome {
    // The history file, read once: `slower` compares with the runs before
    // this one and the reports chart them, and this run is appended to it.
    let existing =
        crate::wire::history::read_text(&record.out_dir.join(crate::layout::HISTORY_FILE));
    let earlier = crate::wire::history::others(&existing, &record.run_id);
    let blessed = crate::baseline::conclude(harness, record, baseline, selection, bless, &earlier);
    match &blessed {
        Ok(Some(report)) => eprint!("{report}"),
        Ok(None) => {}
        Err(e) => crate::conclusion::print_error(e, false),
    }
    let display = harness.report_file();
    let sealing = Sealing {
        signer,
        context: &attest::Context::of(harness),
    };
    let (finished, revision) = std::thread::scope(|s| {
        // The commit the history records is asked of git (one or two
        // processes) while the reports are written, not after them.
        let revision = s.spawn(|| crate::runner::git::revision(&harness.base_dir));
        let finished = finish_run(
            record,
            (&display, &earlier),
            fanout,
            &sealing,
            blessed.is_err(),
        );
        (finished, revision.join())
    });
    if finished.problem.is_none() {
        // A git probe that panicked records no commit, as outside git.
        let revision = revision.unwrap_or_default();
        history::record_run(record, &revision, existing, harness.history_keep);
        retain(record, harness.keep_runs);
    }
    finished.tell();
    finished.outcome
}

/// Apply `keep_runs` once the run's reports are written and agree: a run
/// whose reports failed keeps every earlier run's evidence.
pub(crate) fn retain(record: &RunRecord, keep: usize) {
    if let Err(e) = crate::layout::prune_runs(&record.out_dir, keep, &record.run_id) {
        eprintln!(
            "warning: cannot remove old runs (keep_runs = {keep}): {}",
            crate::conclusion::error_chain(&e)
        );
    }
}

/// Write every report, check their integrity, seal the run dir
/// (`SHA256SUMS`, signed when there is a `signer`), conclude the run's
/// [`RunOutcome`] (docs/command-line.md, Command line: the exit codes), then
/// emit `RunFinished` with it: every reporter sees the code the process really
/// ends with and the reports that are really there.
///
/// The results are concluded once, before the reports are written (they
/// show them, and the integrity check holds them to them); what became of
/// the reports then adjusts only the exit code, in [`RunOutcome::new`].
pub(crate) fn finish(
    record: &RunRecord,
    harness_display: &str,
    fanout: &mut crate::events::Fanout,
    signer: Option<&signing::Signer>,
) -> Finished {
    let sealing = Sealing {
        signer,
        context: &attest::Context::ci(),
    };
    let history = crate::wire::history::earlier(&record.out_dir, &record.run_id);
    finish_run(record, (harness_display, &history), fanout, &sealing, false)
}

/// How a run is sealed: the key that signs it, if any, and what its
/// attestation says beyond the record.
#[derive(Clone, Copy, Debug)]
struct Sealing<'a> {
    signer: Option<&'a signing::Signer>,
    context: &'a attest::Context,
}

/// [`finish`] a run whose bless, if one was asked for, failed or not.
/// `history` holds the earlier runs' lines the reports chart.
fn finish_run(
    record: &RunRecord,
    (harness_display, history): (&str, &[HistoryLine]),
    fanout: &mut crate::events::Fanout,
    sealing: &Sealing<'_>,
    bless_failed: bool,
) -> Finished {
    let results = Results::of(record);
    // The exit code the run ends with when its reports agree: what the
    // attestation claims (a run whose reports fail keeps none).
    let claim = attest::Claim {
        exit_code: RunOutcome::new(results, Reports::Consistent, Vec::new(), bless_failed)
            .exit_code,
        context: sealing.context,
    };
    let look = seal::look_at_artifacts(record);
    let lost = lost_evidence(record, &look);
    let mut written = Vec::new();
    let checked = (if lost.is_empty() {
        Ok(())
    } else {
        Err(FinishError::Lost(lost))
    })
    .and_then(|()| {
        // The artifact files are hashed for the seal while the reports
        // are written and read back: neither touches the other's files.
        std::thread::scope(|s| {
            let artifacts = s.spawn(|| seal::hash_artifacts(record, &look));
            let reports = write_and_check(record, &results, harness_display, history);
            let artifacts = artifacts
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            reports.map(|r| (r, artifacts))
        })
        .map_err(FinishError::from)
    })
    .and_then(|((w, checked), artifacts)| {
        // Reports that disagree are left in place, and listed.
        written = w.paths().to_vec();
        checked?;
        seal::seal_run(record, sealing.signer, &claim, artifacts).map_err(FinishError::from)
    })
    .and_then(|dir| {
        let found = attest::check_written(&dir, record, claim.exit_code, sealing.signer);
        if found.is_empty() {
            Ok(())
        } else {
            attest::remove_all(&dir);
            Err(FinishError::Integrity(IntegrityError {
                disagreements: found,
            }))
        }
    });
    // Half a set of reports is no verdict: none is left rather than some
    // that might say SUCCESS for a run that exits non-zero.
    let removed = match &checked {
        Err(FinishError::Write(_)) => remove_reports(&record.out_dir),
        _ => Vec::new(),
    };
    let reports = match &checked {
        Ok(()) => Reports::Consistent,
        Err(FinishError::Write(_) | FinishError::Seal(_)) => Reports::NotWritten,
        Err(FinishError::Integrity(_) | FinishError::Lost(_)) => Reports::Disagree,
    };
    let outcome = RunOutcome::new(results, reports, written, bless_failed);
    fanout.emit(&crate::events::Event::RunFinished {
        record,
        outcome: &outcome,
    });
    Finished {
        outcome,
        problem: checked.err(),
        removed,
    }
}

/// What of the run's hold on its out dir and of the evidence its cases
/// wrote is gone now (a case that deleted the out dir, or another case's
/// logs): each entry one line, at most a few files named.
fn lost_evidence(record: &RunRecord, look: &seal::ArtifactLook<'_>) -> Vec<String> {
    let mut lost: Vec<String> = crate::outdir::lost(&record.out_dir).into_iter().collect();
    let mut files: Vec<&String> = Vec::new();
    let attempts = record
        .cases
        .iter()
        .flat_map(|c| c.previous_attempts.iter().chain(std::iter::once(c)));
    for case in attempts {
        let Some(a) = &case.artifacts else { continue };
        // A case whose evidence.json could not be written says so itself.
        let evidence_written = !case
            .warnings
            .iter()
            .any(|w| w.starts_with(crate::wire::evidence::EVIDENCE_NOT_WRITTEN));
        if evidence_written {
            files.push(&a.evidence);
        }
        if case.exit_code.is_some() {
            files.extend([&a.command, &a.stdout, &a.stderr]);
        }
        files.extend((case.snapshots.iter()).filter_map(|s| s.pending.as_ref().map(|p| &p.path)));
    }
    let missing: Vec<String> = (files.into_iter())
        .filter(|f| look.missing(&record.out_dir, f))
        .cloned()
        .collect();
    if !missing.is_empty() {
        lost.push(format!(
            "{} artifact file(s) removed while the run ran: {}",
            missing.len(),
            crate::ansi::name_list(&missing)
        ));
    }
    lost
}

/// Remove whatever reports `out_dir` holds; returns the names removed.
fn remove_reports(out_dir: &Path) -> Vec<String> {
    Written::in_dir(out_dir)
        .paths()
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect()
}

#[cfg(test)]
mod tests;
