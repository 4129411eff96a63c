//! The human reporter: a line per case as it finishes, a progress bar on a
//! terminal, and a closing summary (counts, failures, final status, where
//! the reports are). Writes to stderr, like cargo, so stdout stays free for
//! `--message-format json`.
//!
//! Colors follow `CARGO_TERM_COLOR` (`always`, `never`, `auto`), then
//! `NO_COLOR` and terminal detection (through anstream). Text from the run
//! (names, messages) is printed on one line with escape sequences removed,
//! so a case cannot repaint or hijack the terminal.

use std::collections::BTreeMap;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anstyle::{AnsiColor, Effects, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{headline, one_line, seconds, status_label};
use crate::conclusion::RunOutcome;
use crate::events::{Event, Reporter};
use crate::layout::display_relative;
use crate::model::{CaseRecord, CaseResult, FinalStatus, RunRecord};

const GREEN: Style = AnsiColor::Green.on_default().effects(Effects::BOLD);
const RED: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
const YELLOW: Style = AnsiColor::Yellow.on_default().effects(Effects::BOLD);
const CYAN: Style = AnsiColor::Cyan.on_default().effects(Effects::BOLD);
const DIM: Style = Style::new().effects(Effects::DIMMED);

/// The exact commands that accept a case's changed or missing snapshots:
/// a review of the pending snapshots the run kept (here, or from the out
/// dir of a CI run) or a local bless of that case alone, which runs it
/// again. Without pending snapshots (one could not be kept), a local
/// bless or a bless from a CI run's out dir. None when no snapshot of the
/// case changed or is missing.
fn bless_command(case: &CaseRecord) -> Option<String> {
    use crate::model::{SnapshotOutcome, Stream};
    let bless = format!(
        "`cargo golden --bless --exact {}`",
        crate::shell::posix_quote(&case.name)
    );
    if case.snapshots.iter().any(|s| s.pending.is_some()) {
        return Some(format!(
            "`cargo golden review` (takes the change as this run kept it) or {bless} (runs the case again); from a CI run's out dir: `cargo golden review OUT_DIR`"
        ));
    }
    case.snapshots
        .iter()
        .any(|s| {
            s.stream != Stream::Data
                && matches!(
                    s.outcome,
                    SnapshotOutcome::Changed | SnapshotOutcome::Missing
                )
        })
        .then(|| {
            format!("{bless}, or from a CI run's out dir: `cargo golden bless --from OUT_DIR`")
        })
}

/// Lines of a snapshot diff shown under its case.
const DIFF_LINES: usize = 40;
/// Cases of the baseline comparison listed in the summary.
const BASELINE_LINES: usize = 20;

/// Whether to color, from `CARGO_TERM_COLOR` and `NO_COLOR`; `auto`
/// decides the remaining case (terminal detection).
pub(crate) fn color_enabled(
    cargo_term_color: Option<&str>,
    no_color: Option<&str>,
    auto: impl FnOnce() -> bool,
) -> bool {
    match cargo_term_color.map(str::trim) {
        Some(v) if v.eq_ignore_ascii_case("always") => true,
        Some(v) if v.eq_ignore_ascii_case("never") => false,
        // `auto`, unset or unknown: NO_COLOR (any non-empty value, per
        // no-color.org) wins, then the stream decides.
        _ => {
            if no_color.is_some_and(|v| !v.is_empty()) {
                false
            } else {
                auto()
            }
        }
    }
}

/// When a case's output is shown: as the case ends, again in the final
/// list, both, or not at all (the values of `--failure-output` and
/// `--success-output`, as in cargo-nextest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputWhen {
    /// As the case finishes.
    Immediate,
    /// In the list at the end of the run.
    Final,
    /// Both.
    #[default]
    ImmediateFinal,
    /// Not at all.
    Never,
}

impl OutputWhen {
    fn immediate(self) -> bool {
        matches!(self, OutputWhen::Immediate | OutputWhen::ImmediateFinal)
    }

    fn at_end(self) -> bool {
        matches!(self, OutputWhen::Final | OutputWhen::ImmediateFinal)
    }
}

/// Which cases' output the terminal shows, and where their logs are.
#[derive(Clone, Debug)]
pub(crate) struct OutputOptions {
    /// Output of failed and errored cases.
    pub(crate) failure: OutputWhen,
    /// Output of passed cases.
    pub(crate) success: OutputWhen,
    /// Last lines shown of each stream.
    pub(crate) tail_lines: usize,
    /// The out dir the artifact paths are relative to.
    pub(crate) out_dir: PathBuf,
}

impl Default for OutputOptions {
    fn default() -> Self {
        OutputOptions {
            failure: OutputWhen::Never,
            success: OutputWhen::Never,
            tail_lines: DEFAULT_TAIL_LINES,
            out_dir: PathBuf::new(),
        }
    }
}

/// Last lines of each stream shown for a failed case.
pub(crate) const DEFAULT_TAIL_LINES: usize = 20;

/// Bytes read from the end of a log to find its last lines: enough for
/// any sensible tail, bounded whatever the log size.
const TAIL_BYTES: u64 = 64 * 1024;

/// Reports to a terminal (or any writer, for tests).
pub(crate) struct TerminalReporter<W: Write> {
    out: W,
    color: bool,
    progress: Option<ProgressBar>,
    /// Cases the name filters left out: counted, shown in one line.
    filtered_out: usize,
    output: OutputOptions,
    /// Cases running now, by declaration index: the bar shows each with
    /// its elapsed time.
    running: Running,
    /// Warnings already printed as they came: the summary does not
    /// repeat them.
    warned: Vec<String>,
}

/// The running cases and when each started, shared with the bar's
/// `{running}` key (redrawn every second).
type Running = Arc<Mutex<BTreeMap<usize, (String, Instant)>>>;

/// The bar's `{running}` text: each running case with its elapsed time.
fn running_text(running: &Running) -> String {
    let running = running.lock().unwrap_or_else(|e| e.into_inner());
    running
        .values()
        .map(|(name, since)| format!("{name} {}s", since.elapsed().as_secs()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl TerminalReporter<io::Stderr> {
    /// A reporter on stderr, colored per the environment, with a progress
    /// bar when stderr is a terminal.
    pub(crate) fn stderr() -> Self {
        use std::io::IsTerminal;
        let stderr = io::stderr();
        let tty = stderr.is_terminal();
        let color = color_enabled(
            std::env::var("CARGO_TERM_COLOR").ok().as_deref(),
            std::env::var("NO_COLOR").ok().as_deref(),
            || anstream::AutoStream::choice(&io::stderr()) != anstream::ColorChoice::Never,
        );
        TerminalReporter::new(stderr, color, tty)
    }
}

impl<W: Write> TerminalReporter<W> {
    /// A reporter on `out`; `progress` shows a bar (on stderr), meant for
    /// when stderr is a terminal.
    pub(crate) fn new(out: W, color: bool, progress: bool) -> Self {
        let running = Running::default();
        let progress = progress.then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            let shown = Arc::clone(&running);
            if let Ok(style) = ProgressStyle::with_template(
                "{prefix:>12.cyan.bold} [{bar:30}] {pos}/{len} {running}",
            ) {
                bar.set_style(style.progress_chars("=> ").with_key(
                    "running",
                    move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&running_text(&shown));
                    },
                ));
            }
            bar.set_prefix("Running");
            bar.enable_steady_tick(Duration::from_secs(1));
            bar
        });
        TerminalReporter {
            out,
            color,
            progress,
            output: OutputOptions::default(),
            running,
            filtered_out: 0,
            warned: Vec::new(),
        }
    }

    /// Show cases' output tails and log paths per `output`.
    pub(crate) fn with_output(mut self, output: OutputOptions) -> Self {
        self.output = output;
        self
    }

    /// When `case`'s output is shown.
    fn output_when(&self, case: &CaseRecord) -> OutputWhen {
        match case.result {
            CaseResult::Failed | CaseResult::Error => self.output.failure,
            CaseResult::Passed => self.output.success,
            CaseResult::Skipped => OutputWhen::Never,
        }
    }

    /// The log paths of `case` and the last lines of each non-empty log,
    /// the lines of the records behind its findings marked with `>`.
    fn case_output(&self, case: &CaseRecord) -> String {
        let Some(artifacts) = &case.artifacts else {
            return String::new();
        };
        // Without a finding's record (a command that failed with no
        // pattern), the line an issue quotes whole is marked.
        let quoted: Vec<&str> = case
            .issues
            .iter()
            .map(|i| i.message.trim())
            .filter(|m| !m.is_empty())
            .collect();
        let mut s = String::new();
        let streams = [
            ("stdout", &artifacts.stdout, &case.marked_lines[0]),
            ("stderr", &artifacts.stderr, &case.marked_lines[1]),
        ];
        for (stream, rel, marked) in streams {
            let path = self.output.out_dir.join(rel);
            let numbered = case.marked_lines.iter().any(|m| !m.is_empty());
            let (lines, total, first) = tail(&path, self.output.tail_lines, numbered);
            if total == 0 {
                continue;
            }
            s.push_str(&format!(
                "{} {} {}\n",
                self.paint(CYAN, &format!("{:>12}", format!("--- {stream}"))),
                one_line(&case.name),
                self.paint(DIM, &format!("(last {} line(s))", lines.len())),
            ));
            for (n, line) in (first..).zip(&lines) {
                // The line as printed: its indentation and runs of spaces
                // are what lines up columns and a traceback's `^^^^`;
                // trailing padding (rich pads to the width) is left out.
                let text = crate::ansi::visible(line);
                let text = text.trim_end();
                let hit = if numbered {
                    marked.iter().any(|&(a, b)| a <= n && n <= b)
                } else {
                    let whole = one_line(text);
                    whole.chars().filter(|c| c.is_alphabetic()).count() >= 3
                        && quoted.iter().any(|q| q.ends_with(whole.as_str()))
                };
                if hit {
                    s.push_str(&format!(
                        "{} {text}\n",
                        self.paint(RED, &format!("{:>12}", ">"))
                    ));
                } else {
                    s.push_str(format!("{:>12} {text}", "|").trim_end());
                    s.push('\n');
                }
            }
        }
        for (label, rel) in [
            ("stdout log", &artifacts.stdout),
            ("stderr log", &artifacts.stderr),
        ] {
            s.push_str(&format!(
                "{} {}\n",
                self.paint(DIM, &format!("{label:>12}")),
                shown(&self.output.out_dir.join(rel))
            ));
        }
        s
    }

    /// The underlying writer (tests read what was written).
    #[cfg(test)]
    pub(crate) fn into_inner(self) -> W {
        if let Some(bar) = &self.progress {
            bar.finish_and_clear();
        }
        self.out
    }

    fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }

    /// Write lines above the progress bar, if any.
    fn emit(&mut self, text: &str) -> io::Result<()> {
        let out = &mut self.out;
        match &self.progress {
            Some(bar) => bar.suspend(|| out.write_all(text.as_bytes()).and_then(|()| out.flush())),
            None => out.write_all(text.as_bytes()).and_then(|()| out.flush()),
        }
    }

    fn result_label_text(&self, text: &str, style: Style) -> String {
        self.paint(style, &format!("{text:>12}"))
    }

    fn result_label(&self, case: &CaseRecord) -> String {
        let (text, style) = match case.result {
            CaseResult::Failed | CaseResult::Error if case.quarantined() => ("QUARANTINED", YELLOW),
            CaseResult::Passed if case.flaky => ("FLAKY", YELLOW),
            CaseResult::Passed => ("PASSED", GREEN),
            CaseResult::Failed => ("FAILED", RED),
            CaseResult::Error => ("ERROR", RED),
            CaseResult::Skipped => ("SKIPPED", YELLOW),
        };
        self.paint(style, &format!("{text:>12}"))
    }

    fn case_line(&self, case: &CaseRecord) -> String {
        let mut line = format!(
            "{} [{:>8}] {} {} {}",
            self.result_label(case),
            seconds(case.duration),
            case.kind.as_str(),
            one_line(&case.name),
            self.paint(DIM, &format!("({})", status_label(case))),
        );
        match case.result {
            CaseResult::Failed | CaseResult::Error => {
                line.push_str(": ");
                line.push_str(&headline(case));
            }
            CaseResult::Skipped => {
                if let Some(r) = &case.reason {
                    line.push_str(": ");
                    line.push_str(&one_line(r));
                }
            }
            CaseResult::Passed => {
                if case.flaky {
                    line.push_str(&format!(
                        ": passed after {} failed attempt(s)",
                        case.previous_attempts.len()
                    ));
                }
            }
        }
        line.push('\n');
        for w in &case.warnings {
            line.push_str(&format!(
                "{} {}\n",
                self.paint(YELLOW, &format!("{:>12}", "warning:")),
                one_line(w)
            ));
        }
        for s in &case.snapshots {
            let Some(diff) = s.diff.as_deref() else {
                continue;
            };
            // A data diff says which output it is of, as report.md and
            // JUnit do: two changed outputs never read as one.
            if s.output.is_some() {
                line.push_str(&format!(
                    "{} {} ({})\n",
                    self.paint(CYAN, &format!("{:>12}", "data:")),
                    one_line(s.subject()),
                    one_line(&s.file)
                ));
            }
            line.push_str(&self.diff_block(diff));
        }
        if let Some(command) = bless_command(case) {
            line.push_str(&format!("{:>12} {command}\n", "bless:"));
        }
        line
    }

    /// A snapshot diff under its case, indented, coloured, at most
    /// [`DIFF_LINES`] lines (the rest is in report.md and evidence.json).
    fn diff_block(&self, diff: &str) -> String {
        use crate::baseline::DiffLine;
        let mut out = String::new();
        let total = diff.lines().count();
        for l in diff.lines().take(DIFF_LINES) {
            let clean: String = crate::ansi::strip_str(l)
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .collect();
            let style = match DiffLine::of(l) {
                DiffLine::Hunk => CYAN,
                DiffLine::Added => GREEN,
                DiffLine::Removed => RED,
                DiffLine::Other => DIM,
            };
            out.push_str(&format!("{:>12} {}\n", "", self.paint(style, &clean)));
        }
        if total > DIFF_LINES {
            out.push_str(&format!(
                "{:>12} … {} more diff line(s) in report.md\n",
                "",
                total - DIFF_LINES
            ));
        }
        out
    }

    fn summary(&self, record: &RunRecord, outcome: &RunOutcome) -> String {
        let mut s = self.summary_counts(record);
        self.failure_lines(record, &mut s);
        self.notes(record, &mut s);
        self.closing_lines(outcome, &mut s);
        s
    }

    /// The filtered-out line and the count line.
    fn summary_counts(&self, record: &RunRecord) -> String {
        let c = record.counts();
        let mut s = String::new();
        if self.filtered_out > 0 {
            s.push_str(&format!(
                "{} {} case(s) filtered out (not selected by the name filters)\n",
                self.result_label_text("SKIPPED", YELLOW),
                self.filtered_out
            ));
        }
        let total = format!(
            "{} case(s): {} passed{}, {} failed{}, {} error(s), {} skipped",
            c.total,
            c.passed,
            if c.flaky > 0 {
                format!(" ({} flaky)", c.flaky)
            } else {
                String::new()
            },
            c.failed,
            super::markdown::quarantined_note(&c),
            c.errors,
            c.skipped
        );
        s.push_str(&format!(
            "{} [{:>8}] {total}\n",
            self.paint(CYAN, &format!("{:>12}", "Summary")),
            seconds(record.duration)
        ));
        s
    }

    /// Each failed case, with its output when it is shown at the end.
    fn failure_lines(&self, record: &RunRecord, s: &mut String) {
        for case in record.cases.iter().filter(|c| c.result.is_failure()) {
            s.push_str(&format!(
                "{} {} {}: {}\n",
                self.result_label(case),
                case.kind.as_str(),
                one_line(&case.name),
                headline(case)
            ));
            if self.output_when(case).at_end() {
                s.push_str(&self.case_output(case));
            }
        }
    }

    /// The baseline comparison, warnings, an interrupt, an empty selection.
    fn notes(&self, record: &RunRecord, s: &mut String) {
        if let Some(c) = &record.baseline {
            for (i, l) in super::baseline::terminal_lines(c, BASELINE_LINES)
                .iter()
                .enumerate()
            {
                let label = if i == 0 { "Baseline" } else { "" };
                s.push_str(&format!(
                    "{} {}\n",
                    self.paint(CYAN, &format!("{label:>12}")),
                    one_line(l)
                ));
            }
        }
        let no_case = record.empty_selection.as_ref().map(|e| e.reason.as_str());
        // The empty selection has its own line below; what was said as it
        // happened is not said again.
        let said = |w: &String| {
            self.warned.contains(w) || (record.fails_for_no_case() && no_case == Some(w.as_str()))
        };
        for w in record.warnings.iter().filter(|w| !said(w)) {
            s.push_str(&format!(
                "{} {}\n",
                self.paint(YELLOW, &format!("{:>12}", "warning:")),
                one_line(w)
            ));
        }
        if record.interrupted {
            s.push_str(&format!(
                "{} by a signal: cases cut short are ABORTED, cases not started SKIPPED\n",
                self.paint(RED, &format!("{:>12}", "Interrupted"))
            ));
        }
        if let Some(e) = record
            .empty_selection
            .as_ref()
            .filter(|_| record.fails_for_no_case())
        {
            s.push_str(&format!(
                "{} {} (`--no-cases warn` or `pass` accepts this)\n",
                self.paint(RED, &format!("{:>12}", "No case ran")),
                one_line(e.reason.strip_prefix("no case ran: ").unwrap_or(&e.reason)),
            ));
        }
    }

    /// Final status, exit code and the reports this run wrote.
    fn closing_lines(&self, outcome: &RunOutcome, s: &mut String) {
        let (status, exit_code) = (outcome.results.status, outcome.exit_code);
        let style = if status == FinalStatus::Success {
            GREEN
        } else {
            RED
        };
        s.push_str(&format!(
            "{} {}\n",
            self.paint(style, &format!("{:>12}", "Final status")),
            self.paint(style, &status.to_string())
        ));
        // The process's real exit code: a report that cannot be written or
        // an integrity violation changes it after the results are in.
        let style = if exit_code == crate::conclusion::SUCCESS {
            GREEN
        } else {
            RED
        };
        s.push_str(&format!(
            "{} {}\n",
            self.paint(style, &format!("{:>12}", "Exit code")),
            self.paint(style, &exit_code.to_string())
        ));
        for path in &outcome.written {
            s.push_str(&format!(
                "{} {}\n",
                self.paint(CYAN, &format!("{:>12}", "Report")),
                shown(path)
            ));
        }
    }
}

fn shown(path: &Path) -> String {
    display_relative(path)
}

/// The last `n` lines of the file at `path`, how many lines the part
/// read holds (the whole file when under [`TAIL_BYTES`]) and the number
/// of the first line returned: its line in the file when `numbered`
/// (counting the lines before the part read reads the file up to it),
/// else in the part read. Nothing when it cannot be read.
fn tail(path: &Path, n: usize, numbered: bool) -> (Vec<String>, usize, u64) {
    let read = || -> io::Result<(Vec<u8>, u64)> {
        let (mut f, len) = crate::untrusted::open(path)?;
        let from = len.saturating_sub(TAIL_BYTES);
        // The lines before the part read, for the numbers of those in it.
        let mut before = 0;
        if numbered {
            let mut chunk = vec![0u8; 256 * 1024];
            let mut left = from;
            while left > 0 {
                let want = usize::try_from(left.min(chunk.len() as u64)).unwrap_or(chunk.len());
                let got = f.read(&mut chunk[..want])?;
                if got == 0 {
                    break;
                }
                before += memchr::memchr_iter(b'\n', &chunk[..got]).count() as u64;
                left -= got as u64;
            }
        }
        f.seek(io::SeekFrom::Start(from))?;
        let mut buf = Vec::new();
        f.read_to_end(&mut buf)?;
        Ok((buf, before))
    };
    let Ok((bytes, before)) = read() else {
        return (Vec::new(), 0, 1);
    };
    let text = String::from_utf8_lossy(&bytes);
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(n);
    (
        all[start..].iter().map(|l| l.to_string()).collect(),
        all.len(),
        before + 1 + start as u64,
    )
}

impl<W: Write> TerminalReporter<W> {
    /// The bar lists the case as running from now on.
    fn case_started(&self, index: usize, label: &str) {
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(index, (label.to_string(), Instant::now()));
        if let Some(bar) = &self.progress {
            bar.tick();
        }
    }

    /// The case's line (and output, when shown as it ends); a case the
    /// name filters left out is only counted.
    fn case_finished(&mut self, case: &CaseRecord) -> io::Result<()> {
        if case.filtered_out() {
            self.filtered_out += 1;
            if let Some(bar) = &self.progress {
                bar.inc(1);
            }
            return Ok(());
        }
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&case.index);
        let mut line = self.case_line(case);
        if self.output_when(case).immediate() {
            line.push_str(&self.case_output(case));
        }
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
        self.emit(&line)
    }
}

impl<W: Write> Reporter for TerminalReporter<W> {
    fn name(&self) -> &'static str {
        "terminal"
    }

    fn report(&mut self, event: &Event<'_>) -> io::Result<()> {
        match event {
            Event::RunStarted {
                run_id,
                suite_name,
                case_count,
            } => {
                if let Some(bar) = &self.progress {
                    bar.set_length(*case_count as u64);
                }
                let line = format!(
                    "{} {case_count} case(s) of {} {}\n",
                    self.paint(CYAN, &format!("{:>12}", "Starting")),
                    one_line(suite_name),
                    self.paint(DIM, &format!("(run {})", one_line(run_id)))
                );
                self.emit(&line)
            }
            Event::CaseStarted { index, name, kind } => {
                self.case_started(*index, &format!("{} {}", kind.as_str(), one_line(name)));
                Ok(())
            }
            Event::CaseSlow {
                name,
                kind,
                elapsed,
                ..
            } => {
                let line = format!(
                    "{} [> {:>5}] {} {}\n",
                    self.paint(YELLOW, &format!("{:>12}", "SLOW")),
                    humantime::format_duration(*elapsed).to_string(),
                    kind.as_str(),
                    one_line(name)
                );
                self.emit(&line)
            }
            Event::CaseFinished { case } => self.case_finished(case),
            Event::Warning { message } => {
                self.warned.push(message.to_string());
                let line = format!(
                    "{} {}\n",
                    self.paint(YELLOW, &format!("{:>12}", "warning:")),
                    one_line(message)
                );
                self.emit(&line)
            }
            Event::Note { message } => {
                let line = format!("{:>12} {}\n", "note:", one_line(message));
                self.emit(&line)
            }
            Event::RunFinished { record, outcome } => {
                if let Some(bar) = self.progress.take() {
                    bar.finish_and_clear();
                }
                let summary = self.summary(record, outcome);
                self.emit(&summary)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_shows_each_running_case_with_its_elapsed_time() {
        let running = Running::default();
        let since = Instant::now() - Duration::from_secs(75);
        running
            .lock()
            .unwrap()
            .insert(3, ("golden etl".into(), since));
        running
            .lock()
            .unwrap()
            .insert(1, ("verify a".into(), Instant::now()));
        assert_eq!(running_text(&running), "verify a 0s, golden etl 75s");
    }

    #[test]
    fn color_choice_follows_cargo_then_no_color() {
        assert!(color_enabled(Some("always"), Some("1"), || false));
        assert!(!color_enabled(Some("never"), None, || true));
        assert!(!color_enabled(Some("auto"), Some("1"), || true));
        assert!(!color_enabled(None, Some("yes"), || true));
        assert!(color_enabled(None, Some(""), || true));
        assert!(!color_enabled(None, None, || false));
        assert!(color_enabled(Some("bogus"), None, || true));
    }
}
