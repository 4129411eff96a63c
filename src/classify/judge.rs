//! Judging a case (docs/judging.md, How a case is judged): execution status,
//! result and issues from the exit code, how the command ended and the
//! findings of both streams.

use super::{RaisedException, StreamFindings, clip};
use crate::ansi::no_controls;
use crate::config::Expected;
use crate::model::{
    CaseKind, CaseResult, EvidenceStatus, ExecutionStatus, Issue, IssueType, Severity, Stage,
    ValidationError,
};

/// Longest output excerpt in an issue's evidence, in characters.
const MAX_EVIDENCE_CHARS: usize = 200;

/// What was observed of one case, for [`judge`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct CaseFacts<'a> {
    /// Exit code; 128+N when killed by signal N; None when not run.
    pub(crate) exit_code: Option<i32>,
    /// The signal that ended the command, if one did (see
    /// [`crate::model::CaseRecord::signal`]).
    pub(crate) signal: Option<i32>,
    /// The case hit its timeout.
    pub(crate) timed_out: bool,
    /// The run was interrupted while the case ran.
    pub(crate) interrupted: bool,
    /// Findings of stdout.
    pub(crate) stdout: &'a StreamFindings,
    /// Findings of stderr.
    pub(crate) stderr: &'a StreamFindings,
    /// Description of the golden project's files that changed, if any.
    pub(crate) golden_modified: Option<&'a str>,
    /// Why the case could not run, if it could not.
    pub(crate) not_run_reason: Option<&'a str>,
    /// With a `not_run_reason`: the command had started, so the case could
    /// not finish rather than not run.
    pub(crate) started: bool,
    /// The golden project's uncommitted changes, found before the run: the
    /// case did not run.
    pub(crate) dirty: Option<&'a str>,
}

/// How a case is judged (not the baseline's [`crate::model::Verdict`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Judgement {
    /// SUCCESS / FAILURE / NO_EVIDENCE.
    pub(crate) status: EvidenceStatus,
    /// Classification of the output (`SKIPPED` when it could not run).
    pub(crate) execution_status: ExecutionStatus,
    /// What the case counts as.
    pub(crate) result: CaseResult,
    /// At least one when the result is FAILED or ERROR, none when PASSED.
    pub(crate) issues: Vec<Issue>,
    /// Pydantic validation errors of stderr then stdout, without repeats.
    pub(crate) validation_errors: Vec<ValidationError>,
}

/// Judge a case from what was observed (docs/judging.md, How a case is
/// judged).
pub(crate) fn judge(
    name: &str,
    kind: CaseKind,
    expected: &Expected,
    obs: &CaseFacts<'_>,
) -> Judgement {
    let j = Judging::new(name, kind, obs);
    if let Some(files) = obs.dirty {
        let status = ExecutionStatus::Skipped;
        let message = format!(
            "Golden project has uncommitted changes, so the case did not run: {files}. Restore them (`git restore -- PATH` for a changed file, `git clean -fd -- PATH` for a new one; a tool's own output belongs in .gitignore), run it in a copy (`isolation = \"copy\"`), or set `allow_dirty = true`"
        );
        return Judgement {
            status: EvidenceStatus::NoEvidence,
            execution_status: status,
            result: CaseResult::Error,
            issues: vec![j.issue(IssueType::GoldenModified, status, &message, "")],
            validation_errors: j.validation_errors,
        };
    }
    if let Some(reason) = obs.not_run_reason {
        // A command that ran part way may have changed the project before
        // the case failed to finish: that is said too.
        let mut v = j.not_run(reason, obs.started);
        let modified = obs.golden_modified.map(|files| {
            let message = format!("Golden project modified by the run: {files}");
            j.issue(IssueType::GoldenModified, v.execution_status, &message, "")
        });
        v.issues.extend(modified);
        return v;
    }
    let status = j.status();
    let default_output = j.default_output(status);
    let failures = j.failures(status, default_output);
    let mut result = expected_result(expected, status, obs);
    let mut issues = Vec::new();
    if result == CaseResult::Failed {
        issues = j.unmet_expectation(expected, status, &failures, default_output);
        if status != ExecutionStatus::Success {
            issues.extend(j.stderr_hints(status));
        }
    }
    // Required lines show a success did something, and a tool's line
    // saying it ran nothing shows it did not; an expected error has its
    // own regex.
    if result == CaseResult::Passed
        && matches!(expected, Expected::Success)
        && let Some(message) = nothing_ran(kind, obs)
    {
        result = CaseResult::Failed;
        issues.push(j.issue(IssueType::NothingRan, status, &message, default_output));
    }
    if let Some(files) = obs.golden_modified {
        result = CaseResult::Failed;
        let message = format!("Golden project modified by the run: {files}");
        issues.push(j.issue(IssueType::GoldenModified, status, &message, default_output));
    }
    Judgement {
        status: ran_status(obs.exit_code),
        execution_status: status,
        result,
        issues,
        validation_errors: j.validation_errors,
    }
}

/// Why a case that succeeded ran nothing, if it did: a tool said so (a
/// built-in's words count for golden projects only), a run of a tool did
/// not show its preset's `require` lines, or neither stream showed one of
/// the case's.
fn nothing_ran(kind: CaseKind, obs: &CaseFacts<'_>) -> Option<String> {
    let said = [obs.stderr, obs.stdout].into_iter().find_map(|s| {
        let (line, builtin) = s.nothing_ran.as_ref()?;
        (!builtin || kind == CaseKind::Golden).then_some(line)
    });
    if let Some(line) = said {
        return Some(format!("Nothing ran: the output says so: {line}"));
    }
    let in_run: Vec<&str> = (obs.stderr.missing_in_run.iter())
        .chain(&obs.stdout.missing_in_run)
        .map(String::as_str)
        .collect();
    if !in_run.is_empty() {
        return Some(format!(
            "Nothing ran: no line matched {}, which each run must show",
            in_run.join(", ")
        ));
    }
    let missing: Vec<String> = (obs.stdout.missing_required.iter())
        .filter(|p| obs.stderr.missing_required.contains(p))
        .map(|p| format!("`{p}`"))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "Nothing ran: no line of the output matched {}, which a passing case must show",
            missing.join(", ")
        )
    })
}

/// How a command that ran ended, as far as its verdict is concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ending {
    /// The case hit its timeout.
    pub(crate) timed_out: bool,
    /// The run was interrupted while the case ran.
    pub(crate) interrupted: bool,
    /// The signal that ended the command, if one did.
    pub(crate) signal: Option<i32>,
}

impl Ending {
    /// Stopped by its timeout or an interrupt: ABORTED, whatever it printed.
    pub(crate) fn stopped(self) -> bool {
        self.timed_out || self.interrupted
    }

    /// How the command was cut short, if it did not end by itself.
    fn cut_short(self) -> Option<String> {
        if self.timed_out {
            Some("it timed out".into())
        } else if self.interrupted {
            Some("the run was interrupted".into())
        } else {
            self.signal.map(|n| format!("it was killed by signal {n}"))
        }
    }
}

/// The evidence status of a case whose command ran to its end: SUCCESS
/// exactly on exit code 0.
pub(crate) fn ran_status(exit_code: Option<i32>) -> EvidenceStatus {
    if exit_code == Some(0) {
        EvidenceStatus::Success
    } else {
        EvidenceStatus::Failure
    }
}

/// The evidence status of a case whose command started and could not be
/// finished: from its exit code, NO_EVIDENCE only without one.
pub(crate) fn unfinished_status(exit_code: Option<i32>) -> EvidenceStatus {
    match exit_code {
        None => EvidenceStatus::NoEvidence,
        Some(_) => ran_status(exit_code),
    }
}

/// Why a case that ran is FAILED rather than PASSED (see [`unmet`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unmet {
    #[error("execution status {} fails `success`", .0.as_str())]
    NotSuccess(ExecutionStatus),
    #[error("the case succeeded, but an error was expected")]
    Succeeded,
    #[error("a timeout or an interrupt never satisfies specific_error")]
    Stopped,
    #[error("a death by signal {0} (exit code {code}) never satisfies specific_error", code = 128 + .0)]
    Signal(i32),
    #[error("the golden project was modified")]
    GoldenModified,
    #[error("its output does not match its snapshot")]
    OutputChanged,
    #[error("no line of stdout.log or stderr.log matches `{0}`")]
    NoMatch(String),
    #[error("execution status {} is not an abort by a timeout, which `aborted` expects", .0.as_str())]
    NotAborted(ExecutionStatus),
}

/// The result rule of a case that ran (docs/judging.md, How a case is judged):
/// why it is not PASSED, the first reason in this order, or None when it is.
/// `success` wants execution status SUCCESS; `specific_error` wants an error
/// that ended by itself (a timeout, an interrupt or a signal cut it short,
/// whatever it printed) and whose output matches; a modified golden project or
/// a failed snapshot fails either. `matched` says whether the output matches
/// the expected error, asked only when all else holds.
pub(crate) fn unmet<E>(
    expected: &Expected,
    status: ExecutionStatus,
    ending: Ending,
    golden_modified: bool,
    output_changed: bool,
    matched: impl FnOnce() -> Result<bool, E>,
) -> Result<Option<Unmet>, E> {
    let by_status = match expected {
        Expected::Success => {
            (status != ExecutionStatus::Success).then_some(Unmet::NotSuccess(status))
        }
        Expected::SpecificError(_) if status == ExecutionStatus::Success => Some(Unmet::Succeeded),
        Expected::SpecificError(_) if ending.stopped() => Some(Unmet::Stopped),
        Expected::SpecificError(_) => ending.signal.map(Unmet::Signal),
        // An interrupt of the run is no proof the case's watchdog works.
        Expected::Aborted => (status != ExecutionStatus::Aborted || ending.interrupted)
            .then_some(Unmet::NotAborted(status)),
    };
    let unmet = by_status
        .or(golden_modified.then_some(Unmet::GoldenModified))
        .or(output_changed.then_some(Unmet::OutputChanged));
    Ok(match (unmet, expected) {
        (Some(u), _) => Some(u),
        (None, Expected::SpecificError(re)) => {
            (!matched()?).then(|| Unmet::NoMatch(re.as_str().to_string()))
        }
        (None, Expected::Success | Expected::Aborted) => None,
    })
}

/// Whether the case is what it was expected to be, golden files aside:
/// the golden project is compared, and snapshots are, after judging.
fn expected_result(
    expected: &Expected,
    status: ExecutionStatus,
    obs: &CaseFacts<'_>,
) -> CaseResult {
    let matched = || {
        Ok::<_, std::convert::Infallible>(obs.stdout.specific_error || obs.stderr.specific_error)
    };
    match unmet(expected, status, obs.ending(), false, false, matched) {
        Ok(None) => CaseResult::Passed,
        Ok(Some(_)) | Err(_) => CaseResult::Failed,
    }
}

impl CaseFacts<'_> {
    /// How the command ended.
    fn ending(&self) -> Ending {
        Ending {
            timed_out: self.timed_out,
            interrupted: self.interrupted,
            signal: self.signal,
        }
    }
}

/// One issue's description: its type, its message and the output line that
/// shows it.
type Failure<'a> = (IssueType, String, &'a str);

/// What every issue of one case shares.
struct Judging<'a> {
    name: &'a str,
    kind: CaseKind,
    obs: &'a CaseFacts<'a>,
    /// Errors are usually written to stderr, so its lines come first.
    streams: [&'a StreamFindings; 2],
    exit: String,
    validation_errors: Vec<ValidationError>,
}

impl<'a> Judging<'a> {
    fn new(name: &'a str, kind: CaseKind, obs: &'a CaseFacts<'a>) -> Judging<'a> {
        let streams = [obs.stderr, obs.stdout];
        let mut validation_errors: Vec<ValidationError> = Vec::new();
        for e in streams.iter().flat_map(|s| &s.validation_errors) {
            if !validation_errors.contains(e) {
                validation_errors.push(e.clone());
            }
        }
        Judging {
            name,
            kind,
            obs,
            streams,
            exit: obs
                .exit_code
                .map_or_else(|| "none".to_string(), |c| c.to_string()),
            validation_errors,
        }
    }

    /// The first line of either stream in `slot`, stderr first.
    fn first(&self, slot: fn(&StreamFindings) -> &Option<String>) -> Option<&'a str> {
        self.streams.iter().find_map(|s| slot(s).as_deref())
    }

    /// The first finding of category `cat` (in `slot`), stderr first,
    /// with its headline: the fields that say what failed when its
    /// record carries them, else the finding itself.
    fn first_headlined(
        &self,
        slot: fn(&StreamFindings) -> &Option<String>,
        cat: usize,
    ) -> Option<(&'a str, &'a str)> {
        self.streams.iter().find_map(|s| {
            let line = slot(s).as_deref()?;
            Some((line, s.headlines[cat].as_deref().unwrap_or(line)))
        })
    }

    fn issue(
        &self,
        issue_type: IssueType,
        status: ExecutionStatus,
        message: &str,
        output: &str,
    ) -> Issue {
        let stage = if issue_type == IssueType::ConfigurationError
            || (issue_type == IssueType::UnexpectedError
                && status == ExecutionStatus::ValidationFailed)
        {
            Stage::ConfigValidation
        } else {
            Stage::Execution
        };
        let severity = if self.kind == CaseKind::Golden || stage == Stage::ConfigValidation {
            Severity::High
        } else {
            Severity::Medium
        };
        let output = if output.is_empty() {
            "(no output)"
        } else {
            output
        };
        Issue {
            issue_type,
            case: self.name.to_string(),
            kind: self.kind,
            stage,
            severity,
            message: no_controls(message),
            evidence: format!(
                "Status: {} | Exit code: {} | Output: {}",
                status.as_str(),
                self.exit,
                clip(&no_controls(output), MAX_EVIDENCE_CHARS)
            ),
        }
    }

    /// The verdict of a case that could not run, or that ran and could not
    /// be finished (`started`): the latter is RUNTIME_FAILED with its
    /// evidence status from its exit code, since it did run.
    fn not_run(&self, reason: &str, started: bool) -> Judgement {
        let (status, evidence, issue_type, message) = if started {
            let evidence = unfinished_status(self.obs.exit_code);
            (
                ExecutionStatus::RuntimeFailed,
                evidence,
                IssueType::EvidenceIncomplete,
                format!("Could not finish: {reason}"),
            )
        } else {
            (
                ExecutionStatus::Skipped,
                EvidenceStatus::NoEvidence,
                IssueType::ExecutionError,
                format!("Could not run: {reason}"),
            )
        };
        Judgement {
            status: evidence,
            execution_status: status,
            result: CaseResult::Error,
            issues: vec![self.issue(issue_type, status, &message, "")],
            validation_errors: self.validation_errors.clone(),
        }
    }

    /// The execution status; precedence ABORTED > VALIDATION_FAILED >
    /// RUNTIME_FAILED. An exception counts by its type; a record at ERROR
    /// or above is a runtime failure.
    fn status(&self) -> ExecutionStatus {
        let obs = self.obs;
        if obs.ending().stopped() || self.first(|s| &s.abort).is_some() {
            ExecutionStatus::Aborted
        } else if self.first(|s| &s.validation).is_some() || self.config_exception().is_some() {
            ExecutionStatus::ValidationFailed
        } else if self.first(|s| &s.runtime).is_some()
            || self.exception().is_some()
            || self.first(|s| &s.error_logged).is_some()
            || obs.exit_code != Some(0)
        {
            ExecutionStatus::RuntimeFailed
        } else {
            ExecutionStatus::Success
        }
    }

    /// The exception the output raised, stderr's first. One a warning
    /// logged counts only as the crash of a run that exited non-zero by
    /// itself (an uncaught exception exits 1).
    fn exception(&self) -> Option<&'a RaisedException> {
        let crashed = self.obs.exit_code.is_some_and(|c| c != 0) && self.obs.signal.is_none();
        (self.streams.iter())
            .filter_map(|s| s.exception.as_ref())
            .find(|e| !e.logged || crashed)
    }

    /// The exception, when it says the configuration is at fault: by its
    /// type, or raised while the tool loaded its project (it had logged
    /// records, none of a step starting, in either stream).
    fn config_exception(&self) -> Option<&'a RaisedException> {
        let loading =
            |e: &RaisedException| e.while_loading && !self.streams.iter().any(|s| s.step_seen);
        self.exception().filter(|e| e.config || loading(e))
    }

    /// The output line that best shows `status`.
    fn default_output(&self, status: ExecutionStatus) -> &'a str {
        let first_line = if status == ExecutionStatus::Success {
            let (out, err) = (self.obs.stdout, self.obs.stderr);
            out.first_line.as_deref().or(err.first_line.as_deref())
        } else {
            self.first(|s| &s.first_line)
        };
        match status {
            ExecutionStatus::Aborted => self.first(|s| &s.abort),
            ExecutionStatus::ValidationFailed => (self.first(|s| &s.validation))
                .or_else(|| self.config_exception().map(|e| e.line.as_str())),
            ExecutionStatus::RuntimeFailed => (self.first(|s| &s.runtime))
                .or_else(|| self.exception().map(|e| e.line.as_str()))
                .or_else(|| self.first(|s| &s.error_logged)),
            ExecutionStatus::Success | ExecutionStatus::Skipped => None,
        }
        .or(first_line)
        .unwrap_or("")
    }

    /// The issues describing what went wrong, the one behind the status
    /// first.
    fn failures(&self, status: ExecutionStatus, default_output: &'a str) -> Vec<Failure<'a>> {
        let mut failures = Vec::new();
        if status == ExecutionStatus::Aborted {
            failures.extend(self.abort_failure(default_output));
        }
        if let Some((line, headline)) = self.first_headlined(|s| &s.validation, super::VALIDATION) {
            let message = match self.validation_errors.first() {
                Some(e) if e.field.is_empty() => {
                    format!("Pipeline validation failed: {}", e.message)
                }
                Some(e) => format!("Pipeline validation failed: {} - {}", e.field, e.message),
                None => format!("Pipeline validation failed: {headline}"),
            };
            failures.push((IssueType::ConfigurationError, message, line));
        } else if let Some(e) = self.config_exception() {
            let message = format!("Pipeline validation failed: {}", e.line);
            failures.push((IssueType::ConfigurationError, message, &e.line));
        }
        if let Some((line, headline)) = self.first_headlined(|s| &s.runtime, super::RUNTIME) {
            let message = format!("Pipeline execution failed: {headline}");
            failures.push((IssueType::PipelineExecutionError, message, line));
        }
        if failures.is_empty() && status != ExecutionStatus::Success {
            failures.push(self.exit_failure(default_output));
        }
        failures
    }

    /// What failed a case no pattern explains: an exception, an ERROR
    /// record, how the command exited.
    fn exit_failure(&self, default_output: &'a str) -> Failure<'a> {
        let exception = self.exception().map(|e| e.line.as_str());
        let logged = self.first_headlined(|s| &s.error_logged, super::ERROR_LOGGED);
        match (self.obs.exit_code, self.obs.signal) {
            // Exit 0: what the output raised or logged is the failure.
            (Some(0), None) => match (logged, exception) {
                (Some((line, headline)), e) => (
                    IssueType::ErrorLogged,
                    format!("Error logged: {}", e.unwrap_or(headline)),
                    line,
                ),
                (None, Some(e)) => (
                    IssueType::PipelineExecutionError,
                    format!("Pipeline execution failed: {e}"),
                    e,
                ),
                (None, None) => (
                    IssueType::ExecutionFailure,
                    "Command exited with code 0".to_string(),
                    default_output,
                ),
            },
            (Some(code), Some(n)) => (
                IssueType::ExecutionFailure,
                format!("Command killed by signal {n} (exit code {code})"),
                default_output,
            ),
            // The exit code stays in the issue's evidence: the exception,
            // the error record, or the last line that looks like an error
            // says more.
            (Some(code), None) => {
                let said = exception
                    .map(|e| (e, e))
                    .or(logged)
                    .or_else(|| self.first(|s| &s.last_error).map(|l| (l, l)));
                match said {
                    Some((line, headline)) => {
                        (IssueType::ExecutionFailure, headline.to_string(), line)
                    }
                    None => (
                        IssueType::ExecutionFailure,
                        format!("Command exited with code {code}"),
                        default_output,
                    ),
                }
            }
            (None, _) => (
                IssueType::ExecutionFailure,
                "Command ended without an exit code".to_string(),
                default_output,
            ),
        }
    }

    fn abort_failure(&self, default_output: &'a str) -> Option<Failure<'a>> {
        if self.obs.timed_out {
            return Some((IssueType::Timeout, "Timed out".into(), default_output));
        }
        if self.obs.interrupted {
            let message = "Interrupted before it finished".into();
            return Some((IssueType::ExecutionFailure, message, default_output));
        }
        let line = self.first(|s| &s.abort)?;
        // An abort line alone is a timeout reported by the tool itself
        // when it says so; otherwise the tool
        // stopped for a reason of its own, a plain execution failure.
        let lower = line.to_lowercase();
        let issue_type = if lower.contains("timeout") || lower.contains("timed out") {
            IssueType::Timeout
        } else {
            IssueType::ExecutionFailure
        };
        Some((issue_type, format!("Aborted: {line}"), line))
    }

    /// The issues of a case whose result is not what was expected.
    fn unmet_expectation(
        &self,
        expected: &Expected,
        status: ExecutionStatus,
        failures: &[Failure<'a>],
        default_output: &str,
    ) -> Vec<Issue> {
        let re = match expected {
            Expected::Success => {
                return failures
                    .iter()
                    .map(|(t, message, output)| self.issue(*t, status, message, output))
                    .collect();
            }
            Expected::SpecificError(re) => re.as_str(),
            Expected::Aborted => return self.not_aborted(status, failures, default_output),
        };
        if status == ExecutionStatus::Success {
            let message = format!("Expected an error matching `{re}`, but the case succeeded");
            return vec![self.issue(
                IssueType::UnexpectedSuccess,
                status,
                &message,
                default_output,
            )];
        }
        let (seen, output) = failures
            .first()
            .map_or(("no detail", default_output), |(_, m, o)| (m.as_str(), *o));
        let seen_expected = self.obs.stdout.specific_error || self.obs.stderr.specific_error;
        let message = match self.obs.ending().cut_short() {
            Some(how) if seen_expected => format!(
                "Expected an error matching `{re}`: the output matches, but {how} instead of ending by itself ({}: {seen})",
                status.as_str()
            ),
            _ => format!(
                "Expected an error matching `{re}`, got {}: {seen}",
                status.as_str()
            ),
        };
        vec![self.issue(IssueType::UnexpectedError, status, &message, output)]
    }

    /// The issue of a case expected to be ended by its timeout that was
    /// not: it succeeded, failed another way, or the run was interrupted.
    fn not_aborted(
        &self,
        status: ExecutionStatus,
        failures: &[Failure<'a>],
        default_output: &str,
    ) -> Vec<Issue> {
        let (issue_type, message, output) = match failures.first() {
            None => (
                IssueType::UnexpectedSuccess,
                "Expected the case to be aborted by its timeout, but it ended by itself with SUCCESS"
                    .to_string(),
                default_output,
            ),
            Some((_, seen, output)) => (
                IssueType::UnexpectedError,
                format!(
                    "Expected the case to be aborted by its timeout, got {}: {seen}",
                    status.as_str()
                ),
                *output,
            ),
        };
        vec![self.issue(issue_type, status, &message, output)]
    }

    /// Issues naming an authentication or schema problem on stderr.
    fn stderr_hints(&self, status: ExecutionStatus) -> Vec<Issue> {
        let err = self.obs.stderr;
        let mut issues = Vec::new();
        if let Some(line) = err.auth.as_deref() {
            let message = format!("Authentication problem: {line}");
            issues.push(self.issue(IssueType::AuthError, status, &message, line));
        }
        if let Some(line) = err.schema.as_deref() {
            let message = format!("Schema problem: {line}");
            issues.push(self.issue(IssueType::DataError, status, &message, line));
        }
        issues
    }
}

#[cfg(test)]
mod tests {
    use regex::bytes::Regex;

    use super::*;

    fn lines(pairs: &[(&str, &str)]) -> StreamFindings {
        let mut f = StreamFindings::default();
        for (slot, line) in pairs {
            let line = Some(line.to_string());
            match *slot {
                "validation" => f.validation = line,
                "runtime" => f.runtime = line,
                "abort" => f.abort = line,
                "auth" => f.auth = line,
                "schema" => f.schema = line,
                "first" => f.first_line = line,
                "last_error" => f.last_error = line,
                other => panic!("no slot {other}"),
            }
        }
        f
    }

    fn observed<'a>(
        exit: Option<i32>,
        stdout: &'a StreamFindings,
        stderr: &'a StreamFindings,
    ) -> CaseFacts<'a> {
        CaseFacts {
            exit_code: exit,
            signal: None,
            timed_out: false,
            interrupted: false,
            stdout,
            stderr,
            golden_modified: None,
            not_run_reason: None,
            started: false,
            dirty: None,
        }
    }

    fn types(v: &Judgement) -> Vec<IssueType> {
        v.issues.iter().map(|i| i.issue_type).collect()
    }

    fn verify(obs: &CaseFacts<'_>) -> Judgement {
        judge("case", CaseKind::Verify, &Expected::Success, obs)
    }

    #[test]
    fn clean_exit_passes_without_issues() {
        let out = lines(&[("first", "all good")]);
        let v = verify(&observed(Some(0), &out, &StreamFindings::default()));
        assert_eq!(v.execution_status, ExecutionStatus::Success);
        assert_eq!(v.status, EvidenceStatus::Success);
        assert_eq!(v.result, CaseResult::Passed);
        assert!(v.issues.is_empty());
    }

    #[test]
    fn nonzero_exit_without_pattern_is_an_execution_failure() {
        let out = lines(&[("first", "on stdout")]);
        let err = lines(&[("first", "something went sideways")]);
        let v = verify(&observed(Some(3), &out, &err));
        assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed);
        assert_eq!(v.status, EvidenceStatus::Failure);
        assert_eq!(types(&v), [IssueType::ExecutionFailure]);
        assert_eq!(v.issues[0].message, "Command exited with code 3");
        assert_eq!(v.issues[0].severity, Severity::Medium);
        assert_eq!(
            v.issues[0].evidence,
            "Status: RUNTIME_FAILED | Exit code: 3 | Output: something went sideways"
        );
    }

    #[test]
    fn a_failed_exit_is_headlined_by_the_last_error_line_stderr_first() {
        let out = lines(&[("first", "start"), ("last_error", "stdout failed")]);
        let err = lines(&[("first", "loading"), ("last_error", "fatal: the cause")]);
        let v = verify(&observed(Some(1), &out, &err));
        assert_eq!(types(&v), [IssueType::ExecutionFailure]);
        assert_eq!(v.issues[0].message, "fatal: the cause");
        assert_eq!(
            v.issues[0].evidence,
            "Status: RUNTIME_FAILED | Exit code: 1 | Output: fatal: the cause"
        );
        let v = verify(&observed(Some(1), &out, &StreamFindings::default()));
        assert_eq!(v.issues[0].message, "stdout failed");
    }

    #[test]
    fn validation_failure_is_high_and_in_config_validation_even_for_verify() {
        let mut out = lines(&[("validation", "1 validation error for M")]);
        out.validation_errors = vec![ValidationError {
            field: String::new(),
            message: "Value error, bad".into(),
        }];
        let v = verify(&observed(Some(0), &out, &StreamFindings::default()));
        assert_eq!(v.execution_status, ExecutionStatus::ValidationFailed);
        assert_eq!(
            v.issues[0].message,
            "Pipeline validation failed: Value error, bad"
        );
        assert_eq!(v.issues[0].stage, Stage::ConfigValidation);
        assert_eq!(v.issues[0].severity, Severity::High);
        // Without an extracted error, the line says what failed.
        let out = lines(&[("validation", "Invalid config: no sink")]);
        let v = verify(&observed(Some(0), &out, &StreamFindings::default()));
        assert_eq!(
            v.issues[0].message,
            "Pipeline validation failed: Invalid config: no sink"
        );
    }

    #[test]
    fn timeout_aborts_with_a_timeout_issue() {
        let out = lines(&[("first", "working")]);
        let none = StreamFindings::default();
        let obs = CaseFacts {
            timed_out: true,
            ..observed(Some(143), &out, &none)
        };
        let v = judge("slow", CaseKind::Golden, &Expected::Success, &obs);
        assert_eq!(v.execution_status, ExecutionStatus::Aborted);
        assert_eq!(types(&v), [IssueType::Timeout]);
        assert_eq!(v.issues[0].severity, Severity::High);
        assert_eq!(
            v.issues[0].evidence,
            "Status: ABORTED | Exit code: 143 | Output: working"
        );
        let obs = CaseFacts {
            interrupted: true,
            ..observed(Some(130), &out, &none)
        };
        let v = verify(&obs);
        assert_eq!(v.execution_status, ExecutionStatus::Aborted);
        assert_eq!(types(&v), [IssueType::ExecutionFailure]);
    }

    #[test]
    fn abort_lines_alone_abort() {
        let none = StreamFindings::default();
        let out = lines(&[("abort", "Timeout waiting for executor")]);
        let v = verify(&observed(Some(0), &out, &none));
        assert_eq!(v.execution_status, ExecutionStatus::Aborted);
        assert_eq!(types(&v), [IssueType::Timeout]);
        let out = lines(&[("abort", "worker got SIGTERM")]);
        let v = verify(&observed(Some(0), &out, &none));
        assert_eq!(v.execution_status, ExecutionStatus::Aborted);
        assert_eq!(types(&v), [IssueType::ExecutionFailure]);
        assert_eq!(v.issues[0].message, "Aborted: worker got SIGTERM");
    }

    #[test]
    fn precedence_is_abort_then_validation_then_runtime() {
        let none = StreamFindings::default();
        let out = lines(&[
            ("runtime", "Pipeline failed"),
            ("validation", "Invalid config"),
        ]);
        let v = verify(&observed(Some(1), &out, &none));
        assert_eq!(v.execution_status, ExecutionStatus::ValidationFailed);
        assert_eq!(
            types(&v),
            [
                IssueType::ConfigurationError,
                IssueType::PipelineExecutionError
            ]
        );
        let err = lines(&[("abort", "Interrupted")]);
        let v = verify(&observed(Some(1), &out, &err));
        assert_eq!(v.execution_status, ExecutionStatus::Aborted);
        assert_eq!(v.issues[0].issue_type, IssueType::ExecutionFailure);
        let out = lines(&[("runtime", "Job aborted")]);
        let v = verify(&observed(Some(0), &out, &none));
        assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed);
    }

    #[test]
    fn auth_and_schema_in_stderr_add_issues_to_failures() {
        let none = StreamFindings::default();
        let err = lines(&[
            ("auth", "HTTP 401 Unauthorized"),
            ("schema", "schema mismatch"),
        ]);
        let v = verify(&observed(Some(1), &none, &err));
        assert_eq!(
            types(&v),
            [
                IssueType::ExecutionFailure,
                IssueType::AuthError,
                IssueType::DataError
            ]
        );
        assert_eq!(
            v.issues[1].evidence,
            "Status: RUNTIME_FAILED | Exit code: 1 | Output: HTTP 401 Unauthorized"
        );
        let v = verify(&observed(Some(1), &err, &none));
        assert_eq!(types(&v), [IssueType::ExecutionFailure]);
        let v = verify(&observed(Some(0), &none, &err));
        assert_eq!(v.result, CaseResult::Passed);
    }

    #[test]
    fn specific_error_expectations() {
        let expected = Expected::SpecificError(Regex::new("E42").unwrap());
        let none = StreamFindings::default();
        let mut seen = lines(&[("first", "error E42")]);
        seen.specific_error = true;
        let other = lines(&[("runtime", "Pipeline failed: disk")]);
        let run = |exit, out: &StreamFindings, err: &StreamFindings| {
            judge(
                "c",
                CaseKind::Verify,
                &expected,
                &observed(Some(exit), out, err),
            )
        };
        let v = run(2, &none, &seen);
        assert_eq!((v.result, v.issues.len()), (CaseResult::Passed, 0));
        let v = run(2, &other, &none);
        assert_eq!(types(&v), [IssueType::UnexpectedError]);
        assert_eq!(
            v.issues[0].message,
            "Expected an error matching `E42`, got RUNTIME_FAILED: Pipeline execution failed: Pipeline failed: disk"
        );
        let v = run(0, &seen, &none);
        assert_eq!(types(&v), [IssueType::UnexpectedSuccess]);
    }

    #[test]
    fn an_expected_error_never_passes_a_case_cut_short() {
        let expected = Expected::SpecificError(Regex::new("Invalid config").unwrap());
        let none = StreamFindings::default();
        let mut seen = lines(&[("validation", "Invalid config")]);
        seen.specific_error = true;
        let judged = |obs: CaseFacts<'_>| judge("c", CaseKind::Verify, &expected, &obs);
        // The same output, ended by itself: passed.
        let v = judged(observed(Some(1), &seen, &none));
        assert_eq!(v.result, CaseResult::Passed);
        for (obs, how) in [
            (
                CaseFacts {
                    timed_out: true,
                    signal: Some(15),
                    ..observed(Some(143), &seen, &none)
                },
                "it timed out",
            ),
            (
                CaseFacts {
                    interrupted: true,
                    ..observed(Some(130), &seen, &none)
                },
                "the run was interrupted",
            ),
            (
                CaseFacts {
                    signal: Some(11),
                    ..observed(Some(139), &seen, &none)
                },
                "it was killed by signal 11",
            ),
        ] {
            let v = judged(obs);
            assert_eq!(v.result, CaseResult::Failed, "{how}");
            assert_eq!(types(&v), [IssueType::UnexpectedError]);
            assert!(
                v.issues[0]
                    .message
                    .contains(&format!("the output matches, but {how}")),
                "{}",
                v.issues[0].message
            );
        }
    }

    #[test]
    fn the_result_rule_gives_the_first_reason_and_asks_for_a_match_last() {
        let re = Expected::SpecificError(Regex::new("E42").unwrap());
        let runtime = ExecutionStatus::RuntimeFailed;
        let by_itself = Ending::default();
        let never = || -> Result<bool, ()> { panic!("the match was asked for") };
        let rule = |expected, status, ending, golden, snapshot, matched: bool| {
            unmet(expected, status, ending, golden, snapshot, || {
                Ok::<_, ()>(matched)
            })
            .unwrap()
        };
        assert_eq!(
            rule(
                &Expected::Success,
                ExecutionStatus::Success,
                by_itself,
                false,
                false,
                false
            ),
            None
        );
        assert_eq!(
            rule(&Expected::Success, runtime, by_itself, true, true, true),
            Some(Unmet::NotSuccess(runtime))
        );
        assert_eq!(rule(&re, runtime, by_itself, false, false, true), None);
        assert_eq!(
            rule(&re, runtime, by_itself, false, false, false),
            Some(Unmet::NoMatch("E42".into()))
        );
        let killed = Ending {
            signal: Some(9),
            ..by_itself
        };
        assert_eq!(
            unmet(&re, runtime, killed, false, false, never),
            Ok(Some(Unmet::Signal(9)))
        );
        assert_eq!(
            Unmet::Signal(9).to_string(),
            "a death by signal 9 (exit code 137) never satisfies specific_error"
        );
        let stopped = Ending {
            timed_out: true,
            signal: Some(15),
            ..by_itself
        };
        assert_eq!(
            unmet(&re, ExecutionStatus::Aborted, stopped, false, false, never),
            Ok(Some(Unmet::Stopped))
        );
        assert_eq!(
            unmet(&re, runtime, by_itself, true, true, never),
            Ok(Some(Unmet::GoldenModified))
        );
        assert_eq!(
            unmet(&re, runtime, by_itself, false, true, never),
            Ok(Some(Unmet::OutputChanged))
        );
    }

    #[test]
    fn a_death_by_signal_says_so() {
        let none = StreamFindings::default();
        let obs = CaseFacts {
            signal: Some(9),
            ..observed(Some(137), &none, &none)
        };
        let v = verify(&obs);
        assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed);
        assert_eq!(
            v.issues[0].message,
            "Command killed by signal 9 (exit code 137)"
        );
    }

    #[test]
    fn golden_modified_fails_even_a_passing_case() {
        let out = lines(&[("first", "ok")]);
        let none = StreamFindings::default();
        let obs = CaseFacts {
            golden_modified: Some("data/out.csv, config.yaml"),
            ..observed(Some(0), &out, &none)
        };
        let v = judge("g", CaseKind::Golden, &Expected::Success, &obs);
        assert_eq!(v.execution_status, ExecutionStatus::Success);
        assert_eq!(v.result, CaseResult::Failed);
        assert_eq!(types(&v), [IssueType::GoldenModified]);
        assert_eq!(
            v.issues[0].message,
            "Golden project modified by the run: data/out.csv, config.yaml"
        );
    }

    #[test]
    fn not_run_is_an_error_without_evidence() {
        let none = StreamFindings::default();
        let obs = CaseFacts {
            not_run_reason: Some("path golden/x does not exist\n(checked twice)"),
            ..observed(None, &none, &none)
        };
        let v = verify(&obs);
        assert_eq!(v.result, CaseResult::Error);
        assert_eq!(v.status, EvidenceStatus::NoEvidence);
        assert_eq!(types(&v), [IssueType::ExecutionError]);
        assert_eq!(
            v.issues[0].message,
            "Could not run: path golden/x does not exist (checked twice)"
        );
        assert_eq!(
            v.issues[0].evidence,
            "Status: SKIPPED | Exit code: none | Output: (no output)"
        );
    }

    #[test]
    fn a_case_that_could_not_finish_still_names_a_modified_project() {
        let none = StreamFindings::default();
        let obs = CaseFacts {
            not_run_reason: Some("writing the command's output failed"),
            started: true,
            golden_modified: Some("changed: config.yaml (content)"),
            ..observed(None, &none, &none)
        };
        let v = judge("g", CaseKind::Golden, &Expected::Success, &obs);
        assert_eq!(v.result, CaseResult::Error);
        assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed);
        assert_eq!(v.status, EvidenceStatus::NoEvidence);
        assert_eq!(
            types(&v),
            [IssueType::EvidenceIncomplete, IssueType::GoldenModified]
        );
        // It ran: "could not run" would say the project was never touched.
        assert_eq!(
            v.issues[0].message,
            "Could not finish: writing the command's output failed"
        );
        assert_eq!(
            v.issues[1].message,
            "Golden project modified by the run: changed: config.yaml (content)"
        );
    }

    #[test]
    fn a_case_that_ran_to_an_exit_code_and_could_not_finish_keeps_its_status() {
        let none = StreamFindings::default();
        for (exit, status) in [
            (Some(0), EvidenceStatus::Success),
            (Some(2), EvidenceStatus::Failure),
            (None, EvidenceStatus::NoEvidence),
        ] {
            let obs = CaseFacts {
                not_run_reason: Some("cannot hash stderr.log"),
                started: true,
                ..observed(exit, &none, &none)
            };
            let v = verify(&obs);
            assert_eq!(v.status, status, "{exit:?}");
            assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed);
            assert_eq!(v.result, CaseResult::Error);
            assert_eq!(types(&v), [IssueType::EvidenceIncomplete]);
        }
    }

    #[test]
    fn a_dirty_project_did_not_run_and_says_what_to_do() {
        let none = StreamFindings::default();
        let obs = CaseFacts {
            not_run_reason: Some("the golden project has uncommitted changes"),
            dirty: Some("stray.txt"),
            ..observed(None, &none, &none)
        };
        let v = judge("g", CaseKind::Golden, &Expected::Success, &obs);
        assert_eq!(v.status, EvidenceStatus::NoEvidence);
        assert_eq!(v.execution_status, ExecutionStatus::Skipped);
        assert_eq!(v.result, CaseResult::Error);
        assert_eq!(types(&v), [IssueType::GoldenModified]);
        assert!(v.issues[0].message.contains("stray.txt"));
        assert!(v.issues[0].message.contains("allow_dirty = true"));
    }

    #[test]
    fn evidence_output_is_clipped() {
        let long = "x".repeat(300);
        let out = lines(&[("runtime", &long)]);
        let v = verify(&observed(Some(1), &out, &StreamFindings::default()));
        let output = v.issues[0].evidence.split("Output: ").nth(1).unwrap();
        assert_eq!(output.chars().count(), MAX_EVIDENCE_CHARS);
        assert!(output.ends_with('…'));
    }
}
