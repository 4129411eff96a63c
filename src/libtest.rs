//! The libtest-mimic front door: `cargo test --test golden` and
//! `cargo nextest run --test golden` run the declared cases through the
//! same engine, classifier and reporters as `cargo golden`.
//!
//! `tests/golden.rs`, with `[[test]] name = "golden" harness = false` in
//! Cargo.toml, is one line:
//!
//! ```text
//! fn main() { cargo_golden::harness::main() }
//! ```
//!
//! Under `cargo test` (one process for every case) the run writes the same
//! reports as the CLI into `<target dir>/golden`. Under nextest (one process
//! per case) each case writes its evidence into one shared run directory,
//! `artifacts/nextest-<run id>/`, and nextest's own JUnit carries the
//! results.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};

use crate::config::HarnessConfig;
use crate::events::Fanout;
use crate::model::{CaseRecord, CaseResult};
use crate::runner::interrupt::Interrupt;
use crate::runner::{Run, RunOptions};

/// Environment variable naming another harness file.
pub(crate) const CONFIG_ENV: &str = "CARGO_GOLDEN_CONFIG";
/// Environment variable of the run mode: `bless` rewrites the selected
/// cases' snapshots and baseline entries (like `cargo golden --bless`).
pub(crate) const MODE_ENV: &str = "CARGO_GOLDEN";

/// Why the harness cannot start.
#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error(
        "{MODE_ENV}={0:?} is not a mode: set {MODE_ENV}=bless to rewrite snapshots and golden-baseline.json, or unset it"
    )]
    Mode(String),
    #[error(transparent)]
    Baseline(#[from] crate::baseline::BaselineError),
}

/// Whether `CARGO_GOLDEN` asks for a bless; any other value (but empty) is
/// an error, so a typo never runs an ordinary test instead.
fn bless_requested() -> Result<bool, StartError> {
    match std::env::var_os(MODE_ENV) {
        None => Ok(false),
        Some(v) if v.is_empty() => Ok(false),
        Some(v) if v == "bless" => Ok(true),
        Some(v) => Err(StartError::Mode(v.to_string_lossy().into_owned())),
    }
}

/// Run the crate's `harness.toml` as a libtest-compatible test binary and
/// exit with libtest's codes (101 on failure).
pub fn main() -> ! {
    let args = Arguments::from_args();
    std::process::exit(run(args))
}

fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `<target dir>/golden`: `CARGO_TARGET_DIR`, else derived from this test
/// binary's path (`<target>/<profile>/deps/<binary>`).
fn default_out_dir(h: &HarnessConfig) -> PathBuf {
    if let Some(o) = &h.out_dir {
        return o.clone();
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| crate::layout::absolute(Path::new(&t)))
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.parent()?.parent()?.to_path_buf())
        })
        .unwrap_or_else(|| h.base_dir.join("target"));
    target.join("golden")
}

/// The declarations of this test binary: `harness.toml` beside the
/// manifest, or the file named by [`CONFIG_ENV`].
fn load() -> Result<HarnessConfig, crate::config::ConfigError> {
    let file = std::env::var_os(CONFIG_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join("harness.toml"));
    let harness = HarnessConfig::load(&file, None)?;
    harness.check_required_golden()?;
    Ok(harness)
}

/// Lock the out dir for this process: shared by the processes of one
/// nextest run (each runs one case and writes no report), else exclusive
/// with the previous reports cleared.
fn take_out_dir(
    out_dir: &Path,
    nextest: bool,
) -> Result<crate::outdir::RunLock, crate::outdir::OutDirError> {
    if nextest {
        crate::outdir::lock(out_dir, crate::outdir::Access::Shared)
    } else {
        crate::outdir::begin(out_dir, crate::report::report_files())
    }
}

fn print_error(e: &(dyn std::error::Error + 'static)) {
    crate::conclusion::print_error(e, crate::config::ConfigError::is_diagnostics(e));
}

/// What a harness run needs before its first case: the declarations, the
/// signing key, and whether to bless against which baseline.
struct Setup {
    harness: &'static HarnessConfig,
    signer: Option<crate::report::seal::Signer>,
    bless: bool,
    baseline: Option<crate::baseline::BaselineFile>,
}

/// Read the declarations, the signing key and the baseline; an error is
/// printed and turned into libtest's failure code.
fn setup() -> Result<Setup, i32> {
    fn fail(e: &(dyn std::error::Error + 'static)) -> i32 {
        print_error(e);
        crate::conclusion::LIBTEST_FAILED
    }
    // The declarations live as long as this test binary: leaking them lets
    // every trial share one run (patterns compiled once) without copies.
    let harness: &'static HarnessConfig = Box::leak(Box::new(load().map_err(|e| fail(&e))?));
    let signer = crate::report::seal::Signer::load(None).map_err(|e| fail(&e))?;
    let bless = bless_requested().map_err(|e| fail(&e))?;
    let baseline = crate::baseline::load(harness).map_err(|e| fail(&e))?;
    Ok(Setup {
        harness,
        signer,
        bless,
        baseline,
    })
}

/// The id of the nextest run this process is one case of, if any.
fn nextest_run_id() -> Option<String> {
    std::env::var("NEXTEST_RUN_ID")
        .ok()
        .filter(|_| std::env::var_os("NEXTEST").is_some())
}

/// Tell the run which trials libtest will not run (filtered out, ignored
/// when `skip_ignored`); returns how many it will and how many of the
/// others were left out only because they are ignored.
fn select(
    run: &Run<'static>,
    args: &Arguments,
    trials: &[Trial],
    skip_ignored: bool,
) -> (Vec<String>, usize) {
    let (mut selected, mut ignored) = (Vec::new(), 0);
    for (&pos, trial) in run.order().iter().zip(trials) {
        let why = run.cases()[pos].ignored.as_deref();
        if args.is_filtered_out(trial) {
            run.skip(pos, crate::model::SkipReason::FilteredOut.as_str());
        } else if let Some(why) = why.filter(|_| skip_ignored) {
            run.skip(pos, &format!("ignored: {why}"));
            ignored += 1;
        } else {
            selected.push(run.cases()[pos].name.clone());
        }
    }
    (selected, ignored)
}

/// Start the run of the declared cases (libtest runs them as trials).
fn start(
    setup: &Setup,
    args: &Arguments,
    nextest_run: Option<&str>,
    out_dir: &Path,
) -> Result<Arc<Run<'static>>, i32> {
    let opts = RunOptions {
        out_dir: out_dir.to_path_buf(),
        run_id: Some(match nextest_run {
            Some(id) => format!("nextest-{id}"),
            None => crate::layout::new_run_id(),
        }),
        interrupt: (!args.list).then(|| Interrupt::install().ok()).flatten(),
        // libtest decides which ignored trials run (`--ignored`,
        // `--include-ignored`); the ones it runs, the run runs.
        ignored: crate::runner::Ignored::Include,
        bless: setup.bless,
        hidden_env: crate::report::seal::HIDDEN_FROM_CASES,
        ..RunOptions::default()
    };
    // libtest prints the progress; the run's own reporters stay silent.
    let run = match Run::start(setup.harness, opts, Fanout::default()) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            print_error(&e);
            return Err(crate::conclusion::LIBTEST_FAILED);
        }
    };
    // In GitHub Actions the job log hides the secrets too; not when
    // listing or emitting JSON, where stdout is parsed.
    if !args.list
        && args.format != Some(libtest_mimic::FormatSetting::Json)
        && crate::report::github::GithubEnv::from_env().is_some()
    {
        let _ = crate::report::github::write_masks(&mut std::io::stdout(), run.redactor());
    }
    Ok(run)
}

/// Run with parsed libtest arguments; returns the exit code.
pub(crate) fn run(mut args: Arguments) -> i32 {
    let setup = match setup() {
        Ok(s) => s,
        Err(code) => return code,
    };
    let harness = setup.harness;
    // One case at a time unless asked: declaration order is the contract.
    if args.test_threads.is_none() {
        args.test_threads = Some(1);
    }
    let nextest_run = nextest_run_id();
    let out_dir = default_out_dir(harness);
    let run = match start(&setup, &args, nextest_run.as_deref(), &out_dir) {
        Ok(r) => r,
        Err(code) => return code,
    };
    // Without `--ignored` / `--include-ignored` an ignored case does not run.
    let skip_ignored = !args.ignored && !args.include_ignored;
    let trials = trials(&run, skip_ignored && !args.list);
    let (names, ignored) = select(&run, &args, &trials, skip_ignored);
    let selected = names.len();
    let filtered = args.filter.is_some() || !args.skip.is_empty();
    if setup.bless && filtered && !args.list {
        let filters: Vec<String> = args.filter.iter().cloned().collect();
        eprintln!(
            "{}",
            crate::baseline::selection_note(&names, &filters, args.exact)
        );
    }
    // One run per out dir (a nextest run's processes share it), and no
    // earlier verdict left once this run has started; a run that selects
    // nothing touches nothing (`cargo test some_unit_test` passes its
    // filter to this binary too), not even the lock.
    let _lock = if args.list || selected == 0 {
        None
    } else {
        match lock(&out_dir, nextest_run.is_some()) {
            Ok(l) => Some(l),
            Err(code) => return code,
        }
    };
    let conclusion = libtest_mimic::run(&args, trials);
    if args.list || nextest_run.is_some() {
        crate::runner::release();
        // Under nextest each process holds one case; its evidence is in the
        // shared run directory and nextest reports the results. No process
        // sees the whole run, so none compares it with the baseline.
        if setup.bless && !args.list {
            eprintln!(
                "cargo-golden: under nextest a bless writes snapshots only; `cargo test --test golden` or `cargo golden --bless` also updates golden-baseline.json"
            );
        }
        return crate::conclusion::for_libtest(conclusion.has_failed(), crate::conclusion::SUCCESS);
    }
    let (mut record, mut fanout) = run.finish();
    if selected == 0 {
        nothing_ran(ignored, &record.out_dir);
        return crate::conclusion::for_libtest(conclusion.has_failed(), crate::conclusion::SUCCESS);
    }
    conclude(
        &setup,
        &args,
        &mut record,
        &mut fanout,
        conclusion.has_failed(),
    )
}

/// Takes the out dir for this run, and contains the cases' processes
/// from then on; the exit code when the out dir cannot be had.
fn lock(out_dir: &Path, nextest: bool) -> Result<crate::outdir::RunLock, i32> {
    match take_out_dir(out_dir, nextest) {
        Ok(l) => {
            crate::runner::contain();
            Ok(l)
        }
        Err(e) => {
            print_error(&e);
            Err(crate::conclusion::USAGE)
        }
    }
}

/// Says why a run that selected no case ran none.
fn nothing_ran(ignored: usize, out_dir: &Path) {
    // libtest semantics: a filter that matches nothing is not a failure
    // (`cargo test some_unit_test` passes its filter to every test
    // binary, this one included), nor is a run whose selected cases
    // are all ignored. Nothing ran, so the reports of the last run that
    // did are left as they are.
    let why = if ignored > 0 {
        format!(
            "the {ignored} selected case(s) are all ignored (run them with `-- --ignored`, or `-- --include-ignored` beside the others)"
        )
    } else {
        "no case selected by the filters".to_string()
    };
    eprintln!(
        "cargo-golden: {why}; the reports in {} were left untouched",
        crate::layout::display_relative(out_dir)
    );
}

/// After libtest ran the trials: compare with the baseline (and bless),
/// write the reports, apply `keep_runs`, and decide the exit code.
fn conclude(
    setup: &Setup,
    args: &Arguments,
    record: &mut crate::model::RunRecord,
    fanout: &mut Fanout,
    trials_failed: bool,
) -> i32 {
    let harness = setup.harness;
    let selects = |name: &str| !args.is_filtered_out(&Trial::test(name, || Ok(())));
    let selection = crate::baseline::Selection {
        selects: &selects,
        look_for_missing: true,
    };
    let outcome = crate::report::conclude(
        harness,
        record,
        fanout,
        setup.baseline.as_ref(),
        (&selection, setup.bless),
        setup.signer.as_ref(),
    );
    crate::runner::release();
    eprintln!(
        "cargo-golden: reports in {}",
        crate::layout::display_relative(&record.out_dir)
    );
    // A bless that could not write its baseline left a non-zero code,
    // which libtest's 101 follows.
    let code = crate::conclusion::for_libtest_record(record, trials_failed, outcome.exit_code);
    if trials_failed && code == crate::conclusion::SUCCESS {
        eprintln!(
            "cargo-golden: gate = \"baseline\": every failing case is a known failure of the baseline"
        );
    }
    code
}

/// One libtest trial per declared case, in the run's order (libtest takes
/// them in that order, so no case waits for one it is `after` that was not
/// taken yet); each runs its case through `run`, so `--test-threads`
/// trials share its gate and its record. With
/// `say_why`, an ignored case is a trial that reports itself ignored with
/// its reason (libtest-mimic prints no reason for a trial flagged
/// ignored); the flag is kept otherwise, so `--ignored`, `--include-ignored`
/// and `--list --ignored` select by it.
fn trials(run: &Arc<Run<'static>>, say_why: bool) -> Vec<Trial> {
    run.order()
        .iter()
        .map(|&pos| (pos, run.cases()[pos]))
        .map(|(pos, case)| match case.ignored.as_deref() {
            Some(why) if say_why => {
                let why = why.to_string();
                Trial::ignorable_test(case.name.clone(), move || {
                    Ok(libtest_mimic::Completion::ignored_with(why))
                })
            }
            _ => {
                let run = Arc::clone(run);
                Trial::test(case.name.clone(), move || {
                    run.run_case(pos, describe_failure)
                })
                .with_ignored_flag(case.ignored.is_some())
            }
        })
        .collect()
}

/// `Ok` for a passed case; else the result, issues and output excerpt.
fn describe_failure(rec: &CaseRecord) -> Result<(), Failed> {
    if rec.result == CaseResult::Passed {
        return Ok(());
    }
    let mut msg = format!(
        "{} ({}), exit code {}\n",
        rec.result.as_str(),
        rec.execution_status.as_str(),
        rec.exit_code
            .map_or_else(|| "none".to_string(), |c| c.to_string())
    );
    if let Some(r) = &rec.reason {
        msg.push_str(&format!("reason: {r}\n"));
    }
    for i in &rec.issues {
        msg.push_str(&format!(
            "issue {}: {}\n  {}\n",
            i.issue_type.as_str(),
            i.message,
            i.evidence
        ));
    }
    for (label, bytes, end) in [
        ("stdout", &rec.stdout, &rec.stdout_end),
        ("stderr", &rec.stderr, &rec.stderr_end),
    ] {
        if !bytes.is_empty() {
            msg.push_str(&format!(
                "--- {label}\n{}\n",
                String::from_utf8_lossy(bytes).trim_end()
            ));
        }
        if let Some(end) = end {
            msg.push_str(&format!("--- {label} (end)\n{}\n", end.trim_end()));
        }
    }
    for s in &rec.snapshots {
        if let Some(diff) = &s.diff {
            msg.push_str(&format!(
                "--- {} differs from {}\n{diff}",
                s.subject(),
                s.file
            ));
        }
    }
    if let Some(a) = &rec.artifacts {
        msg.push_str(&format!("evidence: {}", a.evidence));
    }
    Err(msg.into())
}
