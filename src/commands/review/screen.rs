//! What the review shows of one change: the case, the snapshot file, and
//! the diff from the committed snapshot to the pending text, coloured. A
//! stream snapshot's diff is the unified diff of the two files; a data
//! snapshot's is its schema, row-count and cell changes, by the output's
//! key and tolerance, as a run reports them (all of them, not the first
//! 20).

use anstyle::{AnsiColor, Effects, Style};

use crate::baseline::DiffLine;
use crate::config::{HarnessConfig, OutputSpec};
use crate::data::{self, DataDiffLine};
use crate::model::{SnapshotCheck, Stream};

const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();
const CYAN: Style = AnsiColor::Cyan.on_default();
const BOLD: Style = Style::new().effects(Effects::BOLD);
const DIM: Style = Style::new().effects(Effects::DIMMED);

/// Lines of a diff shown on the screen; `d` pages the whole of it.
pub(super) const SCREEN_LINES: usize = 40;

/// Paints text when colour is on.
#[derive(Clone, Copy, Debug)]
pub(super) struct Paint(pub bool);

impl Paint {
    pub(super) fn paint(self, style: Style, text: &str) -> String {
        if self.0 {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }

    pub(super) fn bold(self, text: &str) -> String {
        self.paint(BOLD, text)
    }

    pub(super) fn dim(self, text: &str) -> String {
        self.paint(DIM, text)
    }

    pub(super) fn green(self, text: &str) -> String {
        self.paint(GREEN.effects(Effects::BOLD), text)
    }

    pub(super) fn red(self, text: &str) -> String {
        self.paint(RED.effects(Effects::BOLD), text)
    }

    pub(super) fn yellow(self, text: &str) -> String {
        self.paint(YELLOW.effects(Effects::BOLD), text)
    }
}

/// The lines of a change's diff, each with its style.
pub(super) struct Diff {
    pub(crate) lines: Vec<(Style, String)>,
}

impl Diff {
    /// The first `n` lines (all with `None`), painted, each ending in `\n`;
    /// and how many were left out.
    pub(super) fn render(&self, paint: Paint, n: Option<usize>) -> (String, usize) {
        let shown = n.unwrap_or(self.lines.len()).min(self.lines.len());
        let mut out = String::new();
        for (style, line) in &self.lines[..shown] {
            // A snapshot holds what a case printed: no escape sequence of
            // it reaches the terminal.
            let clean: String = crate::ansi::strip_str(line)
                .chars()
                .map(crate::ansi::shown_char)
                .collect();
            out.push_str(&paint.paint(*style, &clean));
            out.push('\n');
        }
        (out, self.lines.len() - shown)
    }
}

/// The diff of accepting `pending` (the pending text) for `check` of case
/// `case`, from the committed snapshot (`committed`, None when there is
/// none), labelled with the run `run_id`. Both texts are masked with the
/// secrets of `harness`, as a run shows them.
pub(super) fn diff(
    harness: &HarnessConfig,
    case: &str,
    check: &SnapshotCheck,
    committed: Option<&str>,
    pending: &str,
    run_id: &str,
) -> Diff {
    let secrets = harness.redactor();
    let committed = committed.map(|c| secrets.mask_str(c).0.into_owned());
    let pending = secrets.mask_str(pending).0.into_owned();
    if check.stream == Stream::Data
        && let Some(committed) = &committed
        && let Some(diff) = data_differences(harness, case, check, committed, &pending)
    {
        // The counts first, as every report shows them.
        let counts = diff.counts.into_iter().map(|l| (BOLD, l));
        let lines = (diff.lines.into_iter()).map(|l| {
            let style = match DataDiffLine::of(&l) {
                DataDiffLine::Schema => CYAN,
                DataDiffLine::RowCount => BOLD,
                DataDiffLine::RowRemoved => RED,
                DataDiffLine::RowAdded => GREEN,
                DataDiffLine::Changed => YELLOW,
            };
            (style, l)
        });
        let lines = counts.chain(lines).collect();
        return Diff { lines };
    }
    let label = format!("pending (run {run_id})");
    let text = crate::baseline::snapshot::file_diff(
        &check.file,
        committed.as_deref().unwrap_or(""),
        &label,
        &pending,
    );
    let lines = text
        .lines()
        .map(|l| {
            let style = match DiffLine::of(l) {
                DiffLine::Hunk => CYAN,
                DiffLine::Added => GREEN,
                DiffLine::Removed => RED,
                DiffLine::Other => DIM,
            };
            (style, l.to_string())
        })
        .collect();
    Diff { lines }
}

/// Every difference between the committed data snapshot and the pending
/// one, by the output's key and tolerance; None when either text does not
/// read as a data snapshot, or the output is no longer declared (the text
/// diff is shown then).
fn data_differences(
    harness: &HarnessConfig,
    case: &str,
    check: &SnapshotCheck,
    committed: &str,
    pending: &str,
) -> Option<data::DataDiff> {
    let spec = output_spec(harness, case, check)?;
    let was = data::parse_snapshot(committed).ok()?;
    let now = data::parse_snapshot(pending).ok()?;
    Some(data::differences(&was, &now, spec))
}

/// The declaration of the data output `check` compared.
fn output_spec<'h>(
    harness: &'h HarnessConfig,
    case: &str,
    check: &SnapshotCheck,
) -> Option<&'h OutputSpec> {
    let def = harness.cases.iter().find(|c| c.name == case)?;
    crate::baseline::pending::declared_output(def, check)
}
