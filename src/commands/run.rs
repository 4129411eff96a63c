//! `cargo golden [run]`: run the selected cases of a loaded harness,
//! compare them with what was blessed (blessing them with `--bless`),
//! and write the reports. `--failed` and `--failed-first` take the cases
//! that failed in the out dir's last run, once its evidence verifies.

use std::path::{Path, PathBuf};

use crate::baseline::BaselineFile;
use crate::commands::output::{CommandError, usage_error};
use crate::commands::{Loaded, MessageFormat};
use crate::conclusion;
use crate::config::HarnessConfig;
use crate::events::Fanout;
use crate::model::{JunitFlavour, NoCases, RunRecord};
use crate::report::seal::Signer;
use crate::report::terminal::{OutputOptions, OutputWhen};
use crate::runner::select::{Filter, Partition};
use crate::runner::{self, RunOptions};

/// What a run was asked for beyond the harness file.
pub(crate) struct Run {
    /// The filters, `--exact` and `--skip`.
    pub(crate) filter: Filter,
    /// `--partition`: run one shard.
    pub(crate) partition: Option<Partition>,
    /// `--fail-fast`.
    pub(crate) fail_fast: bool,
    /// `--jobs`; `None`: the harness file's.
    pub(crate) jobs: Option<u32>,
    /// `--retries`; `None`: the harness file's.
    pub(crate) retries: Option<u32>,
    /// `--junit`; `None`: the harness file's.
    pub(crate) junit: Option<JunitFlavour>,
    /// Terminal lines or JSON messages.
    pub(crate) message_format: MessageFormat,
    /// What a run that selects no case does.
    pub(crate) no_cases: NoCases,
    /// `--sign-key`; `None`: the key of the environment, if any.
    pub(crate) sign_key: Option<PathBuf>,
    /// When a failed case's output is shown.
    pub(crate) failure_output: OutputWhen,
    /// When a passed case's output is shown.
    pub(crate) success_output: OutputWhen,
    /// `--no-capture`.
    pub(crate) no_capture: bool,
    /// `--ignored` / `--include-ignored`.
    pub(crate) ignored: runner::Ignored,
    /// `--bless`.
    pub(crate) bless: bool,
    /// `--failed` or `--failed-first`.
    pub(crate) again: Option<Again>,
}

/// Which cases of the last run a run takes up again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Again {
    /// `--failed`: only those that failed or errored.
    Failed,
    /// `--failed-first`: those first, then the rest.
    FailedFirst,
}

/// Why a run cannot take up the cases of the last run.
#[derive(Debug, thiserror::Error)]
enum LastRunError {
    #[error("--failed and --failed-first read the last run's {}, and there is none", .0.display())]
    NoLastRun(PathBuf),
    #[error(
        "--failed and --failed-first trust only a last run whose evidence verifies; `cargo golden verify-evidence` found:\n  - {0}"
    )]
    Unverified(String),
    #[error(transparent)]
    Read(#[from] CommandError),
}

/// Run `body` with every process the cases start taken responsibility for
/// (see `runner::contain`): started before the harness file is read,
/// so the guardian checks its tools meanwhile.
pub(crate) fn contained(body: impl FnOnce() -> i32) -> i32 {
    runner::contain();
    let code = body();
    runner::release();
    code
}

/// Run the cases `run` selects from `loaded`; the exit code is the run's
/// conclusion.
pub(crate) fn command(loaded: &Loaded, run: &Run) -> i32 {
    let h = &loaded.harness;
    warn_orphans(h);
    let (filter, first) = match selection(run, &loaded.out_dir) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let signer = match Signer::load(run.sign_key.as_deref()) {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    // Read before anything runs: a broken baseline stops the run here.
    let baseline = match crate::baseline::load(h) {
        Ok(b) => b,
        Err(e) => return usage_error(&e),
    };
    if let Some(note) = bless_selection(h, run) {
        eprintln!("{note}");
    }
    // Held until the reports are written; the OS releases it if we die.
    let _lock = match crate::outdir::begin(&loaded.out_dir, crate::report::report_files()) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let interrupt = match crate::runner::interrupt::Interrupt::install() {
        Ok(i) => Some(i),
        Err(e) => {
            eprintln!(
                "warning: cannot handle Ctrl-C: {}",
                conclusion::error_chain(&e)
            );
            None
        }
    };
    let opts = RunOptions {
        out_dir: loaded.out_dir.clone(),
        run_id: None,
        filter,
        first,
        fail_fast: run.fail_fast,
        jobs: run.jobs.map_or(0, |j| j as usize),
        retries: run.retries,
        partition: run.partition,
        interrupt,
        junit: run.junit,
        no_capture: run.no_capture,
        ignored: run.ignored,
        no_cases: run.no_cases,
        bless: run.bless,
        hidden_env: crate::report::seal::HIDDEN_FROM_CASES,
    };
    let output = OutputOptions {
        failure: run.failure_output,
        success: run.success_output,
        out_dir: loaded.out_dir.clone(),
        ..OutputOptions::default()
    };
    match runner::run(h, opts, reporters(run.message_format, h, output)) {
        Ok((mut record, mut fanout)) => {
            let trust = Trust {
                baseline: baseline.as_ref(),
                signer: signer.as_ref(),
            };
            conclude_run(h, run, &mut record, &mut fanout, trust)
        }
        Err(e) => usage_error(&e),
    }
}

/// Snapshot files and baseline entries no declared case owns, said before
/// the run.
fn warn_orphans(h: &HarnessConfig) {
    match crate::commands::snapshots::find(h, None) {
        Ok(o) if !o.is_empty() => eprintln!(
            "warning: {} orphaned snapshot file(s) or baseline entr(y/ies) no declared case owns ({}); `cargo golden snapshots --prune` removes them",
            o.lines().len(),
            crate::ansi::name_list(
                &o.files
                    .iter()
                    .chain(&o.entries)
                    .cloned()
                    .collect::<Vec<_>>()
            )
        ),
        _ => {}
    }
}

/// The filter the run uses and the cases it runs first; with `--failed`,
/// only the last run's failures the filters select. `Err` is the exit code
/// of a run that stops here.
fn selection(run: &Run, out_dir: &Path) -> Result<(Filter, Vec<String>), i32> {
    let failed = match last_failures(run, out_dir) {
        Ok(failed) => failed,
        Err(e) => return Err(usage_error(&e)),
    };
    match failed {
        Some(failed) if run.again == Some(Again::Failed) => {
            if failed.is_empty() {
                eprintln!(
                    "no case failed in the last run of {}: nothing to run again",
                    crate::layout::display_relative(out_dir)
                );
                return Err(conclusion::for_no_cases(run.no_cases));
            }
            let names: Vec<String> = failed
                .into_iter()
                .filter(|n| run.filter.matches(n))
                .collect();
            if names.is_empty() {
                eprintln!("no case that failed in the last run matches the filters");
                return Err(conclusion::for_no_cases(run.no_cases));
            }
            let only = Filter {
                patterns: names,
                exact: true,
                skip: Vec::new(),
            };
            Ok((only, Vec::new()))
        }
        Some(failed) => Ok((run.filter.clone(), failed)),
        None => Ok((run.filter.clone(), Vec::new())),
    }
}

/// What a filtered `--bless` is about to rewrite, said before anything
/// runs: the cases its filters select, and when a filter selects more
/// than the case it names (filters match parts of names), how to match
/// whole names.
fn bless_selection(h: &HarnessConfig, run: &Run) -> Option<String> {
    let filter = &run.filter;
    if !run.bless || (filter.patterns.is_empty() && filter.skip.is_empty()) {
        return None;
    }
    let names: Vec<String> = runner::included(h, run.partition.as_ref())
        .into_iter()
        .filter(|c| filter.matches(&c.name))
        .map(|c| c.name.clone())
        .collect();
    Some(crate::baseline::selection_note(
        &names,
        &filter.patterns,
        filter.exact,
    ))
}

/// With `--failed` or `--failed-first`: the cases that failed or errored
/// in the last run of `out_dir`, in declaration order, taken from its
/// evidence once `verify-evidence`'s checks pass; `None` without either
/// flag.
fn last_failures(run: &Run, out_dir: &Path) -> Result<Option<Vec<String>>, LastRunError> {
    if run.again.is_none() {
        return Ok(None);
    }
    let summary = out_dir.join(crate::report::SUMMARY_FILE);
    if !summary.is_file() {
        return Err(LastRunError::NoLastRun(summary));
    }
    let (record, _) = crate::commands::verify::verified_record(out_dir, None)
        .map_err(|e| CommandError::Verify(out_dir.to_path_buf(), e))?
        .map_err(|findings| LastRunError::Unverified(findings.join("\n  - ")))?;
    Ok(Some(
        record
            .cases
            .iter()
            .filter(|c| c.result.is_failure())
            .map(|c| c.name.clone())
            .collect(),
    ))
}

/// What the finished run is compared with and signed by.
#[derive(Clone, Copy)]
struct Trust<'a> {
    baseline: Option<&'a BaselineFile>,
    signer: Option<&'a Signer>,
}

/// Compare the finished run with its baseline (and bless it when asked),
/// then write the reports and apply `keep_runs`.
fn conclude_run(
    h: &HarnessConfig,
    run: &Run,
    record: &mut RunRecord,
    fanout: &mut Fanout,
    trust: Trust<'_>,
) -> i32 {
    let selects = |name: &str| {
        run.filter.matches(name) && run.partition.is_none_or(|p| p.includes_undeclared(name))
    };
    let selection = crate::baseline::Selection {
        selects: &selects,
        look_for_missing: true,
    };
    crate::report::conclude(
        h,
        record,
        fanout,
        trust.baseline,
        (&selection, run.bless),
        trust.signer,
    )
    .exit_code
}

/// The streaming reporters of a run: terminal lines or JSON messages, plus
/// GitHub Actions workflow commands when running there, which register the
/// run's secrets with the log masker before any other line is printed.
fn reporters(format: MessageFormat, h: &HarnessConfig, output: OutputOptions) -> Fanout {
    let mut fanout = Fanout::default();
    let github = crate::report::github::GithubReporter::from_env(
        h.file.as_deref().unwrap_or(&h.base_dir),
        format == MessageFormat::Json,
    )
    .map(|mut gh| {
        if let Err(e) = gh.add_masks(&h.redactor()) {
            eprintln!("warning: cannot register secrets with GitHub Actions: {e}");
        }
        gh
    });
    match format {
        MessageFormat::Human => fanout.push(Box::new(
            crate::report::terminal::TerminalReporter::stderr().with_output(output),
        )),
        MessageFormat::Json => fanout.push(Box::new(
            crate::report::json_messages::JsonMessageReporter::stdout(),
        )),
    }
    if let Some(gh) = github {
        fanout.push(Box::new(gh));
    }
    fanout
}
