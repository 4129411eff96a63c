//! The human reporter: a line per case as it finishes, a progress bar on a
//! terminal, and a closing summary (counts, failures, final status, where
//! the reports are). Writes to stderr, like cargo, so stdout stays free for
//! `--message-format json`.
//!
//! Colors follow `CARGO_TERM_COLOR` (`always`, `never`, `auto`), then
//! `NO_COLOR` and terminal detection (through anstream). Text from the run
//! (names, messages) is printed on one line with escape sequences removed,
//! so a case cannot repaint or hijack the terminal.

use std::io::{self, Write};
use std::path::Path;

use anstyle::{AnsiColor, Effects, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Written, headline, one_line, seconds, status_label};
use crate::events::{Event, Reporter};
use crate::layout::display_relative;
use crate::model::{CaseRecord, CaseResult, FinalStatus, RunRecord};

const GREEN: Style = AnsiColor::Green.on_default().effects(Effects::BOLD);
const RED: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
const YELLOW: Style = AnsiColor::Yellow.on_default().effects(Effects::BOLD);
const CYAN: Style = AnsiColor::Cyan.on_default().effects(Effects::BOLD);
const DIM: Style = Style::new().effects(Effects::DIMMED);

/// Whether to color, from `CARGO_TERM_COLOR` and `NO_COLOR`; `auto`
/// decides the remaining case (terminal detection).
pub fn color_enabled(
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

/// Reports to a terminal (or any writer, for tests).
pub struct TerminalReporter<W: Write> {
    out: W,
    color: bool,
    progress: Option<ProgressBar>,
}

impl TerminalReporter<io::Stderr> {
    /// A reporter on stderr, colored per the environment, with a progress
    /// bar when stderr is a terminal.
    pub fn stderr() -> Self {
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
    pub fn new(out: W, color: bool, progress: bool) -> Self {
        let progress = progress.then(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("{prefix:>12.cyan.bold} [{bar:30}] {pos}/{len} {msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix("Running");
            bar
        });
        TerminalReporter {
            out,
            color,
            progress,
        }
    }

    /// The underlying writer (tests read what was written).
    pub fn into_inner(self) -> W {
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

    fn result_label(&self, case: &CaseRecord) -> String {
        let (text, style) = match case.result {
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
        line
    }

    fn summary(&self, record: &RunRecord, exit_code: i32) -> String {
        let c = record.counts();
        let mut s = String::new();
        let total = format!(
            "{} case(s): {} passed{}, {} failed, {} error(s), {} skipped",
            c.total,
            c.passed,
            if c.flaky > 0 {
                format!(" ({} flaky)", c.flaky)
            } else {
                String::new()
            },
            c.failed,
            c.errors,
            c.skipped
        );
        s.push_str(&format!(
            "{} [{:>8}] {total}\n",
            self.paint(CYAN, &format!("{:>12}", "Summary")),
            seconds(record.duration)
        ));
        for case in record.cases.iter().filter(|c| c.result.is_failure()) {
            s.push_str(&format!(
                "{} {} {}: {}\n",
                self.result_label(case),
                case.kind.as_str(),
                one_line(&case.name),
                headline(case)
            ));
        }
        for w in &record.warnings {
            s.push_str(&format!(
                "{} {}\n",
                self.paint(YELLOW, &format!("{:>12}", "warning:")),
                one_line(w)
            ));
        }
        if record.interrupted {
            s.push_str(&format!(
                "{} the run was interrupted\n",
                self.paint(RED, &format!("{:>12}", "Interrupted"))
            ));
        }
        let status = record.final_status();
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
        let style = if exit_code == crate::exit::SUCCESS {
            GREEN
        } else {
            RED
        };
        s.push_str(&format!(
            "{} {}\n",
            self.paint(style, &format!("{:>12}", "Exit code")),
            self.paint(style, &exit_code.to_string())
        ));
        let written = Written::in_dir(&record.out_dir);
        for path in written.paths() {
            s.push_str(&format!(
                "{} {}\n",
                self.paint(CYAN, &format!("{:>12}", "Report")),
                shown(path)
            ));
        }
        s
    }
}

fn shown(path: &Path) -> String {
    display_relative(path)
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
            Event::CaseStarted { name, kind, .. } => {
                if let Some(bar) = &self.progress {
                    bar.set_message(format!("{} {}", kind.as_str(), one_line(name)));
                }
                Ok(())
            }
            Event::CaseFinished { case } => {
                let line = self.case_line(case);
                if let Some(bar) = &self.progress {
                    bar.inc(1);
                }
                self.emit(&line)
            }
            Event::Warning { message } => {
                let line = format!(
                    "{} {}\n",
                    self.paint(YELLOW, &format!("{:>12}", "warning:")),
                    one_line(message)
                );
                self.emit(&line)
            }
            Event::RunFinished { record, exit_code } => {
                if let Some(bar) = self.progress.take() {
                    bar.finish_and_clear();
                }
                let summary = self.summary(record, *exit_code);
                self.emit(&summary)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::color_enabled;

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
