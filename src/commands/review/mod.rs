//! `cargo golden review [OUT_DIR]`: look at each pending snapshot change
//! of a run and accept, reject or skip it, as `cargo insta review` does
//! for insta's `.snap.new` files, without running anything.
//!
//! A run that finds a changed or missing snapshot keeps the new text as a
//! pending snapshot in its run dir ([`crate::baseline::pending`]). Review
//! takes the run its out dir's `summary.json` names (the default out dir,
//! or a CI run's, downloaded), and trusts it only once `verify-evidence`
//! passes on it (with `--public-key`, its signature too), as `bless
//! --from` does. Then, change by change:
//!
//! - accepting writes the pending text to the snapshot file, byte for
//!   byte what `--bless` writes; once every change of a case is accepted,
//!   its baseline entry is written as `--bless` writes it for that case
//!   (durations aside: the run's are kept);
//! - rejecting leaves the snapshot as it is;
//! - a pending text whose snapshot changed since the run compared with it,
//!   or whose case or output is no longer declared, is stale: said, and
//!   never written over that newer work.
//!
//! **Decisions are recorded beside the run, not by editing it.** The run
//! dir is sealed: removing a rejected pending file from it would make the
//! run fail `verify-evidence`, and a CI run's out dir is evidence of what
//! CI did. So each decision is a line of `<out_dir>/review/<run_id>.jsonl`
//! ([`crate::wire::review`]), and a change decided there is not offered
//! again; the run verifies before and after a review.

mod decisions;
mod keys;
mod screen;

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::baseline::pending::{self, PendingError, Standing};
use crate::baseline::{BaselineError, BlessReport};
use crate::config::HarnessConfig;
use crate::model::{PendingSnapshot, RunRecord, SnapshotCheck, SnapshotOutcome, Stream};
use crate::wire::review::Decision;
use decisions::Decisions;
use keys::{Key, Keys};
use screen::Paint;

/// How a review decides.
#[derive(Clone, Debug)]
pub(crate) enum Mode {
    /// One change at a time, asking (a terminal).
    Ask,
    /// List the changes; decide nothing.
    List,
    /// Decide the changes the filters match without asking.
    Decide(Filters),
}

/// The changes `--accept` and `--reject` decide.
#[derive(Clone, Debug, Default)]
pub(crate) struct Filters {
    /// Accept the changes these match.
    pub(crate) accept: Vec<String>,
    /// Reject the changes these match.
    pub(crate) reject: Vec<String>,
    /// A filter matches a whole case name or snapshot file, not a part.
    pub(crate) exact: bool,
}

impl Filters {
    /// Whether one of `patterns` matches a change of `case` to `file`: a
    /// part of either (an empty pattern matches every change), or with
    /// `exact` the whole of either.
    fn matches(&self, patterns: &[String], case: &str, file: &str) -> bool {
        patterns.iter().any(|p| {
            if self.exact {
                case == p || file == p
            } else {
                case.contains(p.as_str()) || file.contains(p.as_str())
            }
        })
    }
}

/// What a review is asked to do.
pub(crate) struct Options<'a> {
    /// Require the run's signature to verify with this key.
    pub(crate) public_key: Option<&'a minisign::PublicKey>,
    pub(crate) mode: Mode,
    /// Exit 1 while a change is left undecided (CI).
    pub(crate) check: bool,
    /// Colour the diffs.
    pub(crate) color: bool,
}

/// Why a review did not happen, or did not finish.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReviewError {
    /// The out dir could not be read.
    #[error("cannot read {}", .0.display())]
    Read(PathBuf, #[source] io::Error),
    /// `verify-evidence` found problems: nothing was written.
    #[error(
        "refusing to review {}: its evidence does not verify (nothing was written); `cargo golden verify-evidence` found:\n  - {}",
        .0.display(),
        .1.join("\n  - ")
    )]
    Unverified(PathBuf, Vec<String>),
    /// Another run holds the out dir.
    #[error(transparent)]
    OutDir(#[from] crate::outdir::OutDirError),
    /// The decisions file could not be read.
    #[error("cannot read the review decisions {}", .0.display())]
    ReadDecisions(PathBuf, #[source] io::Error),
    /// A change matches both filters.
    #[error("{0} matches both --accept and --reject (nothing was written)")]
    BothFilters(String),
    /// A pending text to accept could not be taken: nothing was written.
    #[error("cannot review the run's changes (nothing was written)")]
    Pending(#[source] PendingError),
    /// A snapshot changed while it was reviewed: nothing was written.
    #[error("cannot accept the change of {0} (nothing was written): {1}")]
    Stale(String, String),
    /// A snapshot file could not be written.
    #[error(transparent)]
    Write(PendingError),
    /// The baseline could not be read or written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// The decisions file could not be written.
    #[error("cannot record the review decisions in {}", .0.display())]
    SaveDecisions(PathBuf, #[source] io::Error),
    /// The terminal could not be read or written.
    #[error("cannot use the terminal")]
    Terminal(#[source] io::Error),
}

impl ReviewError {
    /// The exit code: 2 when nothing was written because the out dir or
    /// the command line was refused, 1 when writing failed.
    pub(crate) fn exit_code(&self) -> i32 {
        match self {
            ReviewError::Read(..)
            | ReviewError::Unverified(..)
            | ReviewError::OutDir(_)
            | ReviewError::ReadDecisions(..)
            | ReviewError::BothFilters(_)
            | ReviewError::Pending(_)
            | ReviewError::Stale(..) => crate::conclusion::USAGE,
            ReviewError::Write(_)
            | ReviewError::Baseline(_)
            | ReviewError::SaveDecisions(..)
            | ReviewError::Terminal(_) => crate::conclusion::FAILED,
        }
    }
}

/// Where a change stands when the review starts.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// To decide.
    Open,
    /// Decided by an earlier review.
    Decided(Decision),
    /// The snapshot file holds it already.
    Blessed,
    /// Never written: why.
    Stale(String),
}

/// One change of the run: a failing snapshot check that kept a pending
/// snapshot.
struct Change {
    /// Index of its case in the run record.
    case: usize,
    /// Index of its check in the case's snapshots.
    check: usize,
    state: State,
}

/// The run under review.
struct Review<'h> {
    harness: &'h HarnessConfig,
    record: RunRecord,
    /// The run's out dir (pending paths are relative to it).
    out_dir: PathBuf,
    changes: Vec<Change>,
    decisions: Decisions,
    paint: Paint,
}

impl Review<'_> {
    fn case_name(&self, c: &Change) -> &str {
        &self.record.cases[c.case].name
    }

    fn check(&self, c: &Change) -> &SnapshotCheck {
        &self.record.cases[c.case].snapshots[c.check]
    }

    fn pending(&self, c: &Change) -> &PendingSnapshot {
        self.check(c)
            .pending
            .as_ref()
            .expect("a change is a check with a pending snapshot")
    }

    /// What kind of change: `stdout, changed`, `data output out/x.csv, new`.
    fn what(&self, c: &Change) -> String {
        let check = self.check(c);
        let how = match check.outcome {
            SnapshotOutcome::Missing => "new",
            _ => "changed",
        };
        match (&check.output, check.stream) {
            (Some(output), Stream::Data) => format!("data output {output}, {how}"),
            (_, stream) => format!("{stream}, {how}"),
        }
    }

    /// The changes left to decide, by index.
    fn open(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.changes.len()).filter(|&i| self.changes[i].state == State::Open)
    }
}

/// Review the pending snapshots of the run in `dir` (an out dir, its
/// latest run; or a run dir) against `harness`. Returns the exit code.
pub(crate) fn review(
    harness: &HarnessConfig,
    dir: &Path,
    opts: &Options<'_>,
) -> Result<i32, ReviewError> {
    // A run into this out dir would replace the summary under review and
    // could prune its run: none may start until the review is done.
    let _lock = if dir.join(crate::report::SUMMARY_FILE).is_file() {
        Some(crate::outdir::lock(dir, crate::outdir::Access::Exclusive)?)
    } else {
        None
    };
    let mut review = open_run(harness, dir, opts)?;
    let decided = match &opts.mode {
        Mode::List => {
            print_list(&review);
            Vec::new()
        }
        Mode::Decide(filters) => {
            say_not_open(&review);
            if review.open().next().is_none() {
                eprintln!(
                    "no pending change left to decide in run {}",
                    review.record.run_id
                );
            }
            by_filters(&review, filters)?
        }
        Mode::Ask => {
            say_not_open(&review);
            match ask(&review)? {
                Some(decided) => decided,
                None => {
                    eprintln!("{:>12} nothing was written", "Interrupted");
                    return Ok(crate::conclusion::INTERRUPTED);
                }
            }
        }
    };
    if !decided.is_empty() {
        let applied = apply(&mut review, &decided)?;
        eprint!("{}", applied.render(review.paint));
    }
    let left = review.open().count();
    if left > 0 && !matches!(opts.mode, Mode::List) {
        eprintln!(
            "{:>12} {left} change(s) undecided: `cargo golden review` asks again",
            "Left"
        );
    }
    Ok(if opts.check && left > 0 {
        crate::conclusion::FAILED
    } else {
        crate::conclusion::SUCCESS
    })
}

/// The run of `dir`, once it verifies, with its changes and the decisions
/// earlier reviews took on them.
fn open_run<'h>(
    harness: &'h HarnessConfig,
    dir: &Path,
    opts: &Options<'_>,
) -> Result<Review<'h>, ReviewError> {
    let (record, run_dir) = super::verify::verified_record(dir, opts.public_key)
        .map_err(|e| ReviewError::Read(dir.to_path_buf(), e))?
        .map_err(|findings| ReviewError::Unverified(dir.to_path_buf(), findings))?;
    // The run dir is `<out_dir>/artifacts/<run_id>`.
    let out_dir = run_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(dir)
        .to_path_buf();
    let mut warnings = Vec::new();
    let decisions = Decisions::load(&out_dir, &record.run_id, &mut warnings).map_err(|e| {
        ReviewError::ReadDecisions(out_dir.join(crate::layout::review_file(&record.run_id)), e)
    })?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let changes = gather(harness, &record, &decisions)?;
    Ok(Review {
        changes,
        harness,
        record,
        out_dir,
        decisions,
        paint: Paint(opts.color),
    })
}

/// Every change of the run's selected cases, in declaration order, each
/// with where it stands.
/// A change whose record names a snapshot file the harness does not is
/// refused before anything is shown or written.
fn gather(
    harness: &HarnessConfig,
    record: &RunRecord,
    decisions: &Decisions,
) -> Result<Vec<Change>, ReviewError> {
    let mut changes = Vec::new();
    for (i, case) in record.cases.iter().enumerate() {
        if case.filtered_out() {
            continue;
        }
        for (j, check) in case.snapshots.iter().enumerate() {
            let Some(p) = check.pending.as_ref().filter(|_| check.fails()) else {
                continue;
            };
            if let Some(e) = pending::misnamed(harness, &case.name, check) {
                return Err(ReviewError::Pending(e));
            }
            let state = match decisions.of(&p.path, &p.sha256) {
                Some(d) => State::Decided(d),
                None => match pending::standing(harness, &case.name, check, p) {
                    Standing::Open => State::Open,
                    Standing::Blessed => State::Blessed,
                    Standing::Stale(why) => State::Stale(why),
                },
            };
            changes.push(Change {
                case: i,
                check: j,
                state,
            });
        }
    }
    Ok(changes)
}

/// `--list`: one line per change on stdout, where it stands first.
fn print_list(review: &Review<'_>) {
    let mut out = String::new();
    for c in &review.changes {
        let (state, note) = match &c.state {
            State::Open => ("pending", review.what(c)),
            State::Decided(d) => (d.as_str(), review.what(c)),
            State::Blessed => ("blessed", "the snapshot already holds it".to_string()),
            State::Stale(why) => ("stale", why.clone()),
        };
        let _ = writeln!(
            out,
            "{state:<8} {}  {}  ({note})",
            review.case_name(c),
            review.check(c).file
        );
    }
    let _ = io::stdout().lock().write_all(out.as_bytes());
    let open = review.open().count();
    if open > 0 {
        eprintln!(
            "{open} pending change(s) of run {}: `cargo golden review` on a terminal asks about each; `--accept FILTER` / `--reject FILTER` decide without asking",
            review.record.run_id
        );
    } else {
        eprintln!(
            "no pending change left to decide in run {}",
            review.record.run_id
        );
    }
}

/// Say the changes that are not offered: stale ones (never written), and
/// those the snapshot already holds.
fn say_not_open(review: &Review<'_>) {
    for c in &review.changes {
        let file = &review.check(c).file;
        match &c.state {
            State::Stale(why) => eprintln!(
                "{} {file}: {why}; skipped, never written over it",
                review.paint.yellow(&format!("{:>12}", "Stale"))
            ),
            State::Blessed => eprintln!(
                "{:>12} {file}: the snapshot already holds this run's text",
                "Blessed"
            ),
            State::Open | State::Decided(_) => {}
        }
    }
}

/// The decisions `filters` take: each open change either matches, the
/// accept filters, the reject ones, or neither (left undecided).
fn by_filters(
    review: &Review<'_>,
    filters: &Filters,
) -> Result<Vec<(usize, Decision)>, ReviewError> {
    let mut decided = Vec::new();
    for i in review.open() {
        let c = &review.changes[i];
        let (case, file) = (review.case_name(c), &review.check(c).file);
        let accept = filters.matches(&filters.accept, case, file);
        let reject = filters.matches(&filters.reject, case, file);
        match (accept, reject) {
            (true, true) => return Err(ReviewError::BothFilters(file.clone())),
            (true, false) => decided.push((i, Decision::Accepted)),
            (false, true) => decided.push((i, Decision::Rejected)),
            (false, false) => {}
        }
    }
    Ok(decided)
}

/// One change at a time on the terminal; the decisions taken, or None
/// when the review was aborted (Ctrl-C).
fn ask(review: &Review<'_>) -> Result<Option<Vec<(usize, Decision)>>, ReviewError> {
    let open: Vec<usize> = review.open().collect();
    if open.is_empty() {
        eprintln!(
            "no pending change left to decide in run {}",
            review.record.run_id
        );
        return Ok(Some(Vec::new()));
    }
    let paint = review.paint;
    let mut prompt = Prompt {
        out: io::stdout(),
        keys: Keys::new(),
        paint,
    };
    let head = format!(
        "{} {} change(s) of run {} ({})\n",
        paint.bold("Reviewing"),
        open.len(),
        review.record.run_id,
        crate::layout::display_relative(&review.out_dir)
    );
    write_out(&mut prompt.out, &head)?;
    let mut decided = Vec::new();
    for (n, &i) in open.iter().enumerate() {
        let c = &review.changes[i];
        let diff = change_diff(review, c);
        let (shown, more) = diff.render(paint, Some(screen::SCREEN_LINES));
        let mut screen = format!(
            "\n{} {}  {}  {}\n{shown}",
            paint.dim(&format!("[{}/{}]", n + 1, open.len())),
            paint.bold(review.case_name(c)),
            review.check(c).file,
            paint.dim(&format!("({})", review.what(c)))
        );
        if more > 0 {
            let _ = writeln!(
                screen,
                "{}",
                paint.dim(&format!("… {more} more line(s): d shows the whole diff"))
            );
        }
        write_out(&mut prompt.out, &screen)?;
        match prompt.answer(&diff)? {
            Key::Accept => decided.push((i, Decision::Accepted)),
            Key::Reject => decided.push((i, Decision::Rejected)),
            Key::Quit => break,
            Key::Abort => return Ok(None),
            Key::Skip | Key::Diff | Key::Other => {}
        }
    }
    Ok(Some(decided))
}

/// The terminal a review asks on.
struct Prompt {
    out: io::Stdout,
    keys: Keys,
    paint: Paint,
}

impl Prompt {
    /// Ask about the change whose diff is `diff` until a key decides it
    /// (accept, reject, skip), ends the review (quit, abort) or is not
    /// one; `d` pages the whole diff and asks again.
    fn answer(&mut self, diff: &screen::Diff) -> Result<Key, ReviewError> {
        let single = self.keys.single();
        let legend = format!(
            "  {} accept  {} reject  {} skip  {} whole diff  {} quit{}  › ",
            self.paint.green("a"),
            self.paint.red("r"),
            self.paint.bold("s"),
            self.paint.bold("d"),
            self.paint.bold("q"),
            if single { "" } else { " (then Enter)" }
        );
        loop {
            write_out(&mut self.out, &legend)?;
            let key = self.keys.next().map_err(ReviewError::Terminal)?;
            let said = match key {
                Key::Accept => self.paint.green("accepted"),
                Key::Reject => self.paint.red("rejected"),
                Key::Skip => "skipped".to_string(),
                Key::Diff => "whole diff".to_string(),
                Key::Quit => "quit".to_string(),
                Key::Abort => "interrupted".to_string(),
                Key::Other => "?".to_string(),
            };
            write_out(&mut self.out, &format!("{said}\n"))?;
            match key {
                Key::Diff => {
                    self.keys.pause();
                    page(&diff.render(self.paint, None).0, &mut self.out)?;
                    self.keys.resume(single);
                }
                Key::Other => {}
                decided => return Ok(decided),
            }
        }
    }
}

fn write_out(out: &mut io::Stdout, text: &str) -> Result<(), ReviewError> {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(ReviewError::Terminal)
}

/// The diff of accepting change `c`: from the committed snapshot to its
/// pending text (a pending file that cannot be read says why instead).
fn change_diff(review: &Review<'_>, c: &Change) -> screen::Diff {
    let check = review.check(c);
    let pending = match pending::read(&review.out_dir, review.pending(c)) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            return screen::Diff {
                lines: vec![(
                    anstyle::AnsiColor::Red.on_default(),
                    crate::conclusion::error_chain(&e),
                )],
            };
        }
    };
    let committed = crate::untrusted::read(&review.harness.base_dir.join(&check.file))
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    screen::diff(
        review.harness,
        review.case_name(c),
        check,
        committed.as_deref(),
        &pending,
        &review.record.run_id,
    )
}

/// Show `text` in `$PAGER`, else `less -R`, else print it whole.
fn page(text: &str, out: &mut io::Stdout) -> Result<(), ReviewError> {
    let pager = std::env::var("PAGER").ok().filter(|p| !p.trim().is_empty());
    let mut cmd = match &pager {
        Some(p) => crate::shell::Shell::platform_default().command(p),
        None => {
            let mut less = std::process::Command::new("less");
            less.arg("-R");
            less
        }
    };
    match cmd.stdin(std::process::Stdio::piped()).spawn() {
        Ok(mut child) => {
            if let Some(mut stdin) = child.stdin.take() {
                // A pager quit before the end closes the pipe: not an error.
                let _ = stdin.write_all(text.as_bytes());
            }
            child.wait().map_err(ReviewError::Terminal)?;
            Ok(())
        }
        Err(_) => write_out(out, text),
    }
}

/// What a review wrote.
struct Applied {
    /// Snapshot files written: (file, created or updated).
    accepted: Vec<(String, SnapshotOutcome)>,
    /// Snapshot files left as they were.
    rejected: Vec<String>,
    /// Cases whose baseline entry was kept, with why.
    kept: Vec<(String, String)>,
    /// The baseline entries written.
    bless: Option<BlessReport>,
    /// The decisions file and how many decisions it gained.
    decisions: (PathBuf, usize),
}

/// Take `decided` (change index, decision): write the accepted snapshots,
/// then the baseline entries of the cases whose every change is now
/// accepted, then record the decisions. Every accepted text is read
/// (and held to its digest) before anything is written.
fn apply(review: &mut Review<'_>, decided: &[(usize, Decision)]) -> Result<Applied, ReviewError> {
    let mut texts = Vec::new();
    for &(i, d) in decided {
        if d == Decision::Accepted {
            let c = &review.changes[i];
            // Looked at again just before writing: the snapshot may have
            // been written or changed while the review waited on a key.
            let check = review.check(c);
            if let Standing::Stale(why) = pending::standing(
                review.harness,
                review.case_name(c),
                check,
                review.pending(c),
            ) {
                return Err(ReviewError::Stale(check.file.clone(), why));
            }
            let bytes =
                pending::read(&review.out_dir, review.pending(c)).map_err(ReviewError::Pending)?;
            texts.push((i, bytes));
        }
    }
    let mut applied = Applied {
        accepted: Vec::new(),
        rejected: Vec::new(),
        kept: Vec::new(),
        bless: None,
        decisions: (review.decisions.path.clone(), decided.len()),
    };
    for (i, bytes) in texts {
        let c = &review.changes[i];
        let check = review.check(c);
        let file = pending::file_to_write(review.harness, review.case_name(c), check)
            .map_err(ReviewError::Pending)?;
        pending::write_snapshot(&review.harness.base_dir, &file, &bytes)
            .map_err(ReviewError::Write)?;
        let outcome = match check.outcome {
            SnapshotOutcome::Missing => SnapshotOutcome::Created,
            _ => SnapshotOutcome::Updated,
        };
        applied.accepted.push((check.file.clone(), outcome));
    }
    for &(i, d) in decided {
        review.changes[i].state = State::Decided(d);
        let c = &review.changes[i];
        let (case, check) = (review.case_name(c).to_string(), review.check(c));
        if d == Decision::Rejected {
            applied.rejected.push(check.file.clone());
        }
        let pending = review.pending(c).clone();
        let file = check.file.clone();
        review.decisions.record(&case, &file, &pending, d);
    }
    let bless = bless_accepted(review, decided, &mut applied.kept);
    // The snapshots are written: their decisions are recorded even when
    // the baseline could not be.
    review
        .decisions
        .save()
        .map_err(|e| ReviewError::SaveDecisions(review.decisions.path.clone(), e))?;
    applied.bless = bless?;
    Ok(applied)
}

/// Write the baseline entries of the cases a change of which `decided`
/// accepted, once every failing snapshot of the case is accepted (now,
/// earlier, or already blessed): the entry `--bless` writes for the case,
/// from its verdict with those snapshots blessed. A case with a change
/// left (rejected, undecided, stale, or one no pending text was kept of)
/// keeps its entry: `kept` says why.
fn bless_accepted(
    review: &Review<'_>,
    decided: &[(usize, Decision)],
    kept: &mut Vec<(String, String)>,
) -> Result<Option<BlessReport>, ReviewError> {
    let mut cases: Vec<usize> = (decided.iter())
        .filter(|(_, d)| *d == Decision::Accepted)
        .map(|&(i, _)| review.changes[i].case)
        .collect();
    cases.sort_unstable();
    cases.dedup();
    let mut record = review.record.clone();
    record.cases.clear();
    for k in cases {
        let mut case = review.record.cases[k].clone();
        let accepted: Vec<&str> = (review.changes.iter())
            .filter(|c| c.case == k)
            .filter(|c| matches!(c.state, State::Decided(Decision::Accepted) | State::Blessed))
            .map(|c| review.check(c).file.as_str())
            .collect();
        pending::accept_in_record(&mut case, &accepted, review.harness.flaky);
        let left: Vec<&str> = (case.snapshots.iter())
            .filter(|s| s.fails())
            .map(|s| s.file.as_str())
            .collect();
        if left.is_empty() {
            record.cases.push(case);
        } else {
            kept.push((
                case.name.clone(),
                format!(
                    "{} not accepted (`cargo golden --bless --exact {}` blesses all of it)",
                    crate::ansi::name_list(&left.iter().map(|f| f.to_string()).collect::<Vec<_>>()),
                    crate::shell::posix_quote(&case.name)
                ),
            ));
        }
    }
    if record.cases.is_empty() {
        return Ok(None);
    }
    let ran_in = record
        .harness_path
        .parent()
        .unwrap_or(Path::new("/"))
        .to_path_buf();
    let mut report = crate::baseline::bless::bless_record(review.harness, &record, &ran_in)?;
    // The snapshots were written and are said by the review itself.
    report.snapshots.clear();
    Ok(Some(report))
}

impl Applied {
    fn render(&self, paint: Paint) -> String {
        let mut out = String::new();
        for (file, outcome) in &self.accepted {
            let _ = writeln!(
                out,
                "{} {file} ({})",
                paint.green(&format!("{:>12}", "Accepted")),
                outcome.as_str()
            );
        }
        for file in &self.rejected {
            let _ = writeln!(
                out,
                "{} {file} (left as it was)",
                paint.red(&format!("{:>12}", "Rejected"))
            );
        }
        if let Some(bless) = &self.bless {
            out.push_str(&bless.to_string());
        }
        for (case, why) in &self.kept {
            let _ = writeln!(out, "{:>12} the baseline entry of {case}: {why}", "Kept");
        }
        let (path, n) = &self.decisions;
        let _ = writeln!(
            out,
            "{:>12} {n} decision(s) in {}",
            "Recorded",
            crate::layout::display_relative(path)
        );
        out
    }
}

/// Whether the review can ask: standard input and output are terminals.
pub(crate) fn can_ask() -> bool {
    io::stdin().is_terminal() && io::stdout().is_terminal()
}

/// What `cargo golden review` was asked for.
pub(crate) struct Request {
    /// The out dir of the run; `None`: the harness file's.
    pub(crate) dir: Option<PathBuf>,
    /// Ask, decide by filters, or list.
    pub(crate) mode: Mode,
    /// `--check`: exit 1 while a change is left undecided.
    pub(crate) check: bool,
    /// `--public-key`: also require the run's signature to verify.
    pub(crate) public_key: Option<String>,
}

/// `cargo golden review`: review the pending changes of the run in
/// `request.dir` (default: `loaded`'s out dir) against `loaded`'s harness.
pub(crate) fn command(loaded: &crate::commands::Loaded, request: Request) -> i32 {
    use crate::commands::output::{print_error, usage_error};
    let key = match crate::commands::verify::public_key(request.public_key.as_deref()) {
        Ok(k) => k,
        Err(e) => return usage_error(&e),
    };
    let dir = request.dir.unwrap_or_else(|| loaded.out_dir.clone());
    let color = crate::report::terminal::color_enabled(
        std::env::var("CARGO_TERM_COLOR").ok().as_deref(),
        std::env::var("NO_COLOR").ok().as_deref(),
        || std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    let opts = Options {
        public_key: key.as_ref(),
        mode: request.mode,
        check: request.check,
        color,
    };
    match review(&loaded.harness, &dir, &opts) {
        Ok(code) => code,
        Err(e) => {
            print_error(&e);
            e.exit_code()
        }
    }
}
