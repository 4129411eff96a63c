//! GitHub Actions output (when `GITHUB_ACTIONS=true`): workflow commands on
//! stdout (on stderr under `--message-format json`, so stdout carries JSON
//! lines only) and the markdown report in the job's step summary.
//!
//! - First, `::add-mask::` for every secret value (`write_masks`), so the
//!   job log hides a value whatever prints it afterwards.
//! - One `::error` annotation per failed or errored case, pointing at the
//!   harness file (relative to `$GITHUB_WORKSPACE`) and the declaration's
//!   line. GitHub shows at most 10 error annotations per step, so the first
//!   9 failures get their own and, past that, the 10th says how many more
//!   failed and points at the report.
//! - `::warning` for run and case warnings.
//! - Each case's output excerpt in a `::group::`, fenced by
//!   `::stop-commands::` so output that looks like a workflow command (a
//!   test printing `::add-mask::` or `::error::`) is shown, not obeyed.
//! - At the end, the markdown report appended to `$GITHUB_STEP_SUMMARY`,
//!   cut at a line boundary to stay under GitHub's 1 MiB limit, and the
//!   step's outputs `status`, `out-dir` and `run-id` appended to
//!   `$GITHUB_OUTPUT` (what the repository's action, `action.yml`, gives
//!   the steps after it).

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::markup::inline;
use super::{MARKDOWN_FILE, headline, markdown, one_line, output_excerpt, status_label};
use crate::conclusion::RunOutcome;
use crate::events::{Event, Reporter};
use crate::model::{CaseRecord, CaseResult, RunRecord, Stream};
use crate::redact::{MIN_DEFAULT_LEN, Redactor};

/// GitHub's limit on a step summary, in bytes; what is appended stays
/// strictly below it.
pub(crate) const STEP_SUMMARY_LIMIT: usize = 1024 * 1024;
/// Error annotations GitHub shows per step.
pub(crate) const MAX_ERROR_ANNOTATIONS: usize = 10;

/// Escape the data (message) part of a workflow command.
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value (`file=`, `title=`) of a workflow command.
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Register every value of `redactor` with `::add-mask::`. The job log is
/// masked line by line, so a value spanning lines is also registered line
/// by line (lines shorter than [`MIN_DEFAULT_LEN`] bytes left out: masking
/// them would blank ordinary text all over the log).
pub(crate) fn write_masks(out: &mut dyn Write, redactor: &Redactor) -> io::Result<()> {
    for value in redactor.values() {
        let text = String::from_utf8_lossy(value);
        writeln!(out, "::add-mask::{}", escape_data(&text))?;
        if text.contains('\n') {
            for line in text
                .lines()
                .map(str::trim_end)
                .filter(|l| l.len() >= MIN_DEFAULT_LEN)
            {
                writeln!(out, "::add-mask::{}", escape_data(line))?;
            }
        }
    }
    out.flush()
}

/// What the reporter takes from the Actions environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GithubEnv {
    /// `$GITHUB_WORKSPACE`: annotation paths are relative to it.
    pub(crate) workspace: Option<PathBuf>,
    /// `$GITHUB_STEP_SUMMARY`: where the markdown report is appended.
    pub(crate) step_summary: Option<PathBuf>,
    /// `$GITHUB_OUTPUT`: where the step's outputs are appended.
    pub(crate) output: Option<PathBuf>,
    /// The workflow run's page (`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/
    /// actions/runs/$GITHUB_RUN_ID`), whose artifacts the step summary
    /// points at for `report.html`.
    pub(crate) run_url: Option<String>,
}

impl GithubEnv {
    /// The environment of this process, or `None` outside GitHub Actions
    /// (`GITHUB_ACTIONS` is not `true`).
    pub(crate) fn from_env() -> Option<GithubEnv> {
        if std::env::var("GITHUB_ACTIONS").ok().as_deref() != Some("true") {
            return None;
        }
        let path = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let run_url = match (
            var("GITHUB_SERVER_URL"),
            var("GITHUB_REPOSITORY"),
            var("GITHUB_RUN_ID"),
        ) {
            (Some(server), Some(repo), Some(id)) => Some(format!(
                "{}/{repo}/actions/runs/{id}",
                server.trim_end_matches('/')
            )),
            _ => None,
        };
        Some(GithubEnv {
            workspace: path("GITHUB_WORKSPACE"),
            step_summary: path("GITHUB_STEP_SUMMARY"),
            output: path("GITHUB_OUTPUT"),
            run_url,
        })
    }
}

/// An error annotation waiting for the end of the run: past the 9th, only
/// the total decides whether it is shown itself or summarised.
struct Pending {
    name: String,
    line: usize,
    title: String,
    message: String,
}

/// Emits workflow commands for GitHub Actions.
pub(crate) struct GithubReporter<W: Write> {
    out: W,
    env: GithubEnv,
    harness_file: String,
    failures: usize,
    pending: Vec<Pending>,
    stop_token: String,
}

/// Where workflow commands go: GitHub Actions reads them on either stream.
pub(crate) type CommandStream = Box<dyn Write + Send>;

impl GithubReporter<CommandStream> {
    /// A reporter when running in GitHub Actions, else `None`; on stdout,
    /// or on stderr when stdout is reserved for JSON messages
    /// (`--message-format json` promises JSON lines only there).
    pub(crate) fn from_env(harness_path: &Path, on_stderr: bool) -> Option<Self> {
        let out: CommandStream = if on_stderr {
            Box::new(io::stderr())
        } else {
            Box::new(io::stdout())
        };
        GithubEnv::from_env().map(|env| GithubReporter::new(out, env, harness_path))
    }
}

impl<W: Write> GithubReporter<W> {
    /// A reporter on `out` for the harness file at `harness_path`.
    pub(crate) fn new(out: W, env: GithubEnv, harness_path: &Path) -> Self {
        let harness_file = crate::layout::relative_to(harness_path, env.workspace.as_deref());
        GithubReporter {
            out,
            env,
            harness_file,
            failures: 0,
            pending: Vec::new(),
            // Unguessable, so output cannot end the fence early.
            stop_token: uuid::Uuid::new_v4().simple().to_string(),
        }
    }

    /// Use a fixed stop-commands token (deterministic output for tests).
    #[cfg(test)]
    pub(crate) fn with_stop_token(mut self, token: &str) -> Self {
        self.stop_token = token.to_string();
        self
    }

    /// Register the secrets of the run (see [`write_masks`]); call before
    /// anything else is printed.
    pub(crate) fn add_masks(&mut self, redactor: &Redactor) -> io::Result<()> {
        write_masks(&mut self.out, redactor)
    }

    /// The harness file as annotations name it.
    #[cfg(test)]
    pub(crate) fn harness_file(&self) -> &str {
        &self.harness_file
    }

    /// The underlying writer.
    #[cfg(test)]
    pub(crate) fn into_inner(self) -> W {
        self.out
    }

    fn annotation(
        &mut self,
        level: &str,
        line: Option<usize>,
        title: &str,
        message: &str,
    ) -> io::Result<()> {
        let mut props = format!("file={}", escape_property(&self.harness_file));
        if let Some(line) = line {
            props.push_str(&format!(",line={line}"));
        }
        props.push_str(&format!(",title={}", escape_property(title)));
        writeln!(self.out, "::{level} {props}::{}", escape_data(message))
    }

    fn group(&mut self, case: &CaseRecord) -> io::Result<()> {
        if case.result == CaseResult::Skipped {
            return Ok(());
        }
        let mut body = output_excerpt(case);
        if body.is_empty() {
            match &case.reason {
                Some(r) => body = format!("{r}\n"),
                None => return Ok(()),
            }
        }
        let title = one_line(&format!(
            "{} {} {}: {}",
            case.result.as_str(),
            case.kind.as_str(),
            case.name,
            status_label(case)
        ));
        writeln!(self.out, "::group::{}", escape_data(&title))?;
        writeln!(self.out, "::stop-commands::{}", self.stop_token)?;
        self.out.write_all(body.as_bytes())?;
        if !body.ends_with('\n') {
            writeln!(self.out)?;
        }
        writeln!(self.out, "::{}::", self.stop_token)?;
        writeln!(self.out, "::endgroup::")
    }

    fn case_finished(&mut self, case: &CaseRecord) -> io::Result<()> {
        self.group(case)?;
        for w in &case.warnings {
            let title = one_line(&format!("{} {}", case.kind.as_str(), case.name));
            self.annotation("warning", Some(case.line), &title, w)?;
        }
        if case.quarantined() && case.result.is_failure() {
            let title = one_line(&format!(
                "{} {} QUARANTINED ({})",
                case.kind.as_str(),
                case.name,
                case.result.as_str()
            ));
            let q = case
                .quarantine
                .as_ref()
                .map(|q| q.describe())
                .unwrap_or_default();
            let message = format!("{q}\n{}", failure_message(case));
            return self.annotation("warning", Some(case.line), &title, &message);
        }
        if !case.result.is_failure() {
            return Ok(());
        }
        self.failures += 1;
        let pending = Pending {
            name: one_line(&case.name),
            line: case.line,
            title: one_line(&format!(
                "{} {} {} ({})",
                case.kind.as_str(),
                case.name,
                case.result.as_str(),
                status_label(case)
            )),
            message: failure_message(case),
        };
        if self.failures < MAX_ERROR_ANNOTATIONS {
            self.annotation(
                "error",
                Some(pending.line),
                &pending.title,
                &pending.message,
            )
        } else {
            self.pending.push(pending);
            Ok(())
        }
    }

    fn run_finished(&mut self, record: &RunRecord, outcome: &RunOutcome) -> io::Result<()> {
        let report = crate::layout::relative_to(
            &record.out_dir.join(MARKDOWN_FILE),
            self.env.workspace.as_deref(),
        );
        let (results_call_for, exit_code) = (outcome.results.exit_code, outcome.exit_code);
        if exit_code != results_call_for {
            // The results alone would not explain the step's outcome.
            let message = format!(
                "The results call for exit code {results_call_for}, but cargo-golden exits {exit_code}: a report could not be written or the reports disagree. The log names the cause."
            );
            self.annotation(
                "error",
                None,
                &format!("cargo-golden exit code {exit_code}"),
                &message,
            )?;
        }
        let pending = std::mem::take(&mut self.pending);
        match pending.as_slice() {
            [] => {}
            [only] => self.annotation("error", Some(only.line), &only.title, &only.message)?,
            [first, ..] => {
                let names: Vec<&str> = pending.iter().map(|p| p.name.as_str()).collect();
                let title = format!("{} more case(s) failed", pending.len());
                let message = format!(
                    "{} more case(s) failed: {}.\nSee {report} for every failure.",
                    pending.len(),
                    names.join(", ")
                );
                self.annotation("error", Some(first.line), &title, &message)?;
            }
        }
        if let Some(c) = &record.baseline {
            let used = self.failures.min(MAX_ERROR_ANNOTATIONS);
            self.baseline_annotations(c, used, &report)?;
        }
        self.out.flush()?;
        if let Some(path) = self.env.output.clone() {
            let out_dir =
                crate::layout::relative_to(&record.out_dir, self.env.workspace.as_deref());
            let outputs = [
                ("status", outcome.results.status.to_string()),
                ("out-dir", out_dir),
                ("run-id", record.run_id.clone()),
            ];
            if let Err(e) = append_outputs(&path, &outputs) {
                let message = format!("cannot write the step outputs {}: {e}", path.display());
                self.annotation("warning", None, "step outputs not written", &message)?;
                self.out.flush()?;
            }
        }
        if let Some(path) = self.env.step_summary.clone() {
            let md = with_html_note(
                &markdown::render(
                    record,
                    &outcome.results,
                    &self.harness_file,
                    markdown::Artifacts::Paths,
                ),
                self.env.run_url.as_deref(),
            );
            if let Err(e) = append_step_summary(&path, &md, &report) {
                // The reports on disk are whole; the summary is a view of
                // them. Say so where the job's reader looks, and on stderr.
                let message = format!(
                    "cannot write the step summary {}: {e}; the report is {report}",
                    path.display()
                );
                self.annotation("warning", None, "step summary not written", &message)?;
                self.out.flush()?;
                return Err(io::Error::new(e.kind(), message));
            }
        }
        Ok(())
    }
}

impl<W: Write> GithubReporter<W> {
    /// `::error` for each regressed case and `::warning` for each slower
    /// one, at their declarations. Regressions share GitHub's 10 error
    /// annotations per step with the failures (`used` of them): the last
    /// one left names the regressions that did not get their own.
    fn baseline_annotations(
        &mut self,
        c: &crate::baseline::Comparison,
        used: usize,
        report: &str,
    ) -> io::Result<()> {
        use crate::baseline::Class;
        let mut budget = MAX_ERROR_ANNOTATIONS.saturating_sub(used);
        let regressed: Vec<_> = c.of_class(Class::Regressed).collect();
        for (i, r) in regressed.iter().enumerate() {
            let left = regressed.len() - i;
            if budget == 0 {
                break;
            }
            if budget == 1 && left > 1 {
                let names: Vec<String> = regressed[i..].iter().map(|r| one_line(&r.name)).collect();
                let message = format!(
                    "{left} more case(s) regressed against {}: {}.\nSee {report}.",
                    c.file,
                    names.join(", ")
                );
                let title = format!("{left} more regression(s)");
                return self.annotation("error", r.line, &title, &message);
            }
            let title = one_line(&format!("Regressed: {}", r.name));
            let message = format!(
                "{} passed in the baseline ({}) and now fails: {}",
                r.name, c.file, r.detail
            );
            self.annotation("error", r.line, &title, &message)?;
            budget -= 1;
        }
        for s in c.of_class(Class::Slower) {
            let title = one_line(&format!(
                "PERFORMANCE: {} is slower than its baseline",
                s.name
            ));
            self.annotation("warning", s.line, &title, &s.detail)?;
        }
        Ok(())
    }
}

/// Lines of data diff one annotation quotes, over all of a case's outputs;
/// the rest are in report.md and evidence.json.
const ANNOTATION_DIFF_LINES: usize = 10;
/// Characters kept of one quoted diff line.
const ANNOTATION_LINE_CHARS: usize = 200;

/// The annotation text of a failed case: every issue on its own line, then
/// the diff of each changed data output, bounded (already masked, as the
/// issues are).
fn failure_message(case: &CaseRecord) -> String {
    let mut lines = if case.issues.is_empty() {
        vec![headline(case)]
    } else {
        case.issues
            .iter()
            .map(|i| format!("[{}] {}", i.issue_type.as_str(), one_line(&i.message)))
            .collect()
    };
    lines.extend(data_diff_lines(case));
    lines.join("\n")
}

/// The first [`ANNOTATION_DIFF_LINES`] lines of the data diffs of `case`,
/// each under its output's name, each cut to [`ANNOTATION_LINE_CHARS`],
/// and a line counting the rest.
fn data_diff_lines(case: &CaseRecord) -> Vec<String> {
    let mut out = Vec::new();
    let (mut budget, mut left) = (ANNOTATION_DIFF_LINES, 0);
    let diffs = case
        .snapshots
        .iter()
        .filter(|s| s.stream == Stream::Data)
        .filter_map(|s| Some((s.subject(), s.diff.as_deref()?)));
    for (output, diff) in diffs {
        if budget == 0 {
            left += diff.lines().count();
            continue;
        }
        out.push(format!("{}:", one_line(output)));
        for l in diff.lines() {
            if budget == 0 {
                left += 1;
                continue;
            }
            budget -= 1;
            let l = one_line(l);
            let mut shown: String = l.chars().take(ANNOTATION_LINE_CHARS).collect();
            if shown.len() < l.len() {
                shown.push('…');
            }
            out.push(format!("  {shown}"));
        }
    }
    if left > 0 {
        out.push(format!(
            "… {left} more line(s) of data diff in report.md and evidence.json"
        ));
    }
    out
}

/// `md` with a note under its title pointing at `report.html`, which a
/// step summary cannot show: in the out dir the workflow uploads, on the
/// run's page (`run_url`) when known. Under the title, so shortening the
/// summary never drops it.
fn with_html_note(md: &str, run_url: Option<&str>) -> String {
    let where_ = match run_url {
        Some(url) => format!(
            "download the out dir from [this run's artifacts]({}#artifacts)",
            super::markup::link_url(url)
        ),
        None => "it is in the out dir the workflow uploads as an artifact".to_string(),
    };
    let note = format!(
        "> [!TIP]\n> The same run with charts, history and every failure's details: \
         `{}` ({where_}, then open `{}` in a browser).\n\n",
        super::HTML_FILE,
        super::HTML_FILE
    );
    match md.split_once("\n\n") {
        Some((title, rest)) => format!("{title}\n\n{note}{rest}"),
        None => format!("{md}\n\n{note}"),
    }
}

/// Append `md` to the step summary, shortened so the file stays under
/// [`STEP_SUMMARY_LIMIT`] (other steps' content included).
#[expect(
    clippy::disallowed_methods,
    reason = "opened to append, not to read: GitHub's own step summary file"
)]
fn append_step_summary(path: &Path, md: &str, report: &str) -> io::Result<()> {
    let existing = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let budget = STEP_SUMMARY_LIMIT
        .saturating_sub(1)
        .saturating_sub(usize::try_from(existing).unwrap_or(usize::MAX));
    let text = shorten(md, budget, report);
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(text.as_bytes())?;
    f.flush()
}

/// Append `name=value` lines to GitHub's step output file; a value that
/// is not one line is left out (it would end the file's syntax).
#[expect(
    clippy::disallowed_methods,
    reason = "opened to append, not to read: GitHub's own step output file"
)]
fn append_outputs(path: &Path, outputs: &[(&str, String)]) -> io::Result<()> {
    let mut text = String::new();
    for (name, value) in outputs {
        if !value.contains(['\n', '\r']) {
            text += &format!("{name}={value}\n");
        }
    }
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(text.as_bytes())?;
    f.flush()
}

fn shortened_note(report: &str) -> String {
    format!(
        "\n> [!NOTE]\n> This summary was shortened to stay under GitHub's 1 MiB step summary \
         limit. The full report is {}.\n",
        inline(report)
    )
}

/// `md` if it fits in `budget` bytes, else its longest prefix of whole
/// lines that fits together with a note pointing at the full report. The
/// note alone is dropped too when even it does not fit.
pub(crate) fn shorten(md: &str, budget: usize, report: &str) -> String {
    if md.len() <= budget {
        return md.to_string();
    }
    let note = shortened_note(report);
    let Some(room) = budget.checked_sub(note.len()) else {
        return String::new();
    };
    let cut = md[..md.floor_char_boundary(room)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    format!("{}{note}", &md[..cut])
}

impl<W: Write> Reporter for GithubReporter<W> {
    fn name(&self) -> &'static str {
        "GitHub Actions"
    }

    fn report(&mut self, event: &Event<'_>) -> io::Result<()> {
        match event {
            // The terminal reporter beside this one shows slow cases and
            // notes.
            Event::RunStarted { .. }
            | Event::CaseStarted { .. }
            | Event::CaseSlow { .. }
            | Event::Note { .. } => Ok(()),
            Event::CaseFinished { case } => self.case_finished(case),
            Event::Warning { message } => {
                writeln!(
                    self.out,
                    "::warning title=cargo-golden::{}",
                    escape_data(message)
                )
            }
            Event::RunFinished { record, outcome } => self.run_finished(record, outcome),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb: c,d"), "50%25 a%0D%0Ab: c,d");
        assert_eq!(escape_property("50% a\nb: c,d"), "50%25 a%0Ab%3A c%2Cd");
    }

    #[test]
    fn relative_paths() {
        let ws = Path::new("/ws");
        assert_eq!(
            crate::layout::relative_to(Path::new("/ws/a/harness.toml"), Some(ws)),
            "a/harness.toml"
        );
        assert_eq!(
            crate::layout::relative_to(Path::new("/elsewhere/h.toml"), Some(ws)),
            "/elsewhere/h.toml"
        );
        assert_eq!(
            crate::layout::relative_to(Path::new("/ws/h.toml"), None),
            "/ws/h.toml"
        );
        if cfg!(windows) {
            // Annotations name files with `/` whatever the platform.
            assert_eq!(
                crate::layout::relative_to(
                    Path::new(r"C:\ws\a\harness.toml"),
                    Some(Path::new(r"C:\ws"))
                ),
                "a/harness.toml"
            );
        }
    }

    #[test]
    fn shorten_cuts_at_a_line() {
        let md = "line one\nline two\nline three\n";
        assert_eq!(shorten(md, 100, "r.md"), md);
        let long = format!("line one\n{}\n", "x".repeat(400));
        let note = shortened_note("r.md");
        // Room for the first line and part of the second.
        let budget = 9 + 4 + note.len();
        assert_eq!(shorten(&long, budget, "r.md"), format!("line one\n{note}"));
        assert_eq!(shorten(&long, note.len() - 1, "r.md"), "");
    }
}
