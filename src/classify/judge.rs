//! Judging a case (SPEC section 4): execution status, result and issues
//! from the exit code and the findings of both streams.

use super::{StreamFindings, clip, one_line};
use crate::config::Expected;
use crate::model::{
    CaseKind, CaseResult, EvidenceStatus, ExecutionStatus, Issue, IssueType, Severity, Stage,
    ValidationError,
};

/// Longest output excerpt in an issue's evidence, in characters.
const MAX_EVIDENCE_CHARS: usize = 200;

/// What was observed of one case, for [`judge`].
#[derive(Clone, Copy, Debug)]
pub struct Observed<'a> {
    /// Exit code; 128+N when killed by signal N; None when not run.
    pub exit_code: Option<i32>,
    /// The case hit its timeout.
    pub timed_out: bool,
    /// The run was interrupted while the case ran.
    pub interrupted: bool,
    /// Findings of stdout.
    pub stdout: &'a StreamFindings,
    /// Findings of stderr.
    pub stderr: &'a StreamFindings,
    /// Description of the golden project's files that changed, if any.
    pub golden_modified: Option<&'a str>,
    /// Why the case could not run, if it could not.
    pub not_run_reason: Option<&'a str>,
}

/// How a case is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// SUCCESS / FAILURE / NO_EVIDENCE.
    pub status: EvidenceStatus,
    /// Classification of the output (`SKIPPED` when it could not run).
    pub execution_status: ExecutionStatus,
    /// What the case counts as.
    pub result: CaseResult,
    /// At least one when the result is FAILED or ERROR, none when PASSED.
    pub issues: Vec<Issue>,
    /// Pydantic validation errors of stderr then stdout, without repeats.
    pub validation_errors: Vec<ValidationError>,
}

/// Judge a case from what was observed (SPEC section 4).
pub fn judge(name: &str, kind: CaseKind, expected: &Expected, obs: &Observed<'_>) -> Verdict {
    // Errors are usually written to stderr, so its lines come first.
    let streams = [obs.stderr, obs.stdout];
    let first = |f: fn(&StreamFindings) -> &Option<String>| -> Option<&str> {
        streams.iter().find_map(|s| f(s).as_deref())
    };
    let mut validation_errors: Vec<ValidationError> = Vec::new();
    for e in streams.iter().flat_map(|s| &s.validation_errors) {
        if !validation_errors.contains(e) {
            validation_errors.push(e.clone());
        }
    }
    let exit = obs
        .exit_code
        .map_or_else(|| "none".to_string(), |c| c.to_string());
    let issue = |issue_type: IssueType, status: ExecutionStatus, message: &str, output: &str| {
        let stage = if issue_type == IssueType::ConfigurationError
            || (issue_type == IssueType::UnexpectedError
                && status == ExecutionStatus::ValidationFailed)
        {
            Stage::ConfigValidation
        } else {
            Stage::Execution
        };
        let severity = if kind == CaseKind::Golden || stage == Stage::ConfigValidation {
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
            case: name.to_string(),
            kind,
            stage,
            severity,
            message: one_line(message),
            evidence: format!(
                "Status: {} | Exit code: {exit} | Output: {}",
                status.as_str(),
                clip(&one_line(output), MAX_EVIDENCE_CHARS)
            ),
        }
    };

    if let Some(reason) = obs.not_run_reason {
        let status = ExecutionStatus::Skipped;
        return Verdict {
            status: EvidenceStatus::NoEvidence,
            execution_status: status,
            result: CaseResult::Error,
            issues: vec![issue(
                IssueType::ExecutionError,
                status,
                &format!("Could not run: {reason}"),
                "",
            )],
            validation_errors,
        };
    }

    let validation = first(|s| &s.validation);
    let runtime = first(|s| &s.runtime);
    let abort = first(|s| &s.abort);
    let status = if obs.timed_out || obs.interrupted || abort.is_some() {
        ExecutionStatus::Aborted
    } else if validation.is_some() {
        ExecutionStatus::ValidationFailed
    } else if runtime.is_some() || obs.exit_code != Some(0) {
        ExecutionStatus::RuntimeFailed
    } else {
        ExecutionStatus::Success
    };
    let first_line = if status == ExecutionStatus::Success {
        obs.stdout
            .first_line
            .as_deref()
            .or(obs.stderr.first_line.as_deref())
    } else {
        first(|s| &s.first_line)
    };
    let default_output = match status {
        ExecutionStatus::Aborted => abort,
        ExecutionStatus::ValidationFailed => validation,
        ExecutionStatus::RuntimeFailed => runtime,
        ExecutionStatus::Success | ExecutionStatus::Skipped => None,
    }
    .or(first_line)
    .unwrap_or("");

    // The issues describing what went wrong, the one behind the status first.
    let mut failures: Vec<(IssueType, String, &str)> = Vec::new();
    if status == ExecutionStatus::Aborted {
        if obs.timed_out {
            failures.push((IssueType::Performance, "Timed out".into(), default_output));
        } else if obs.interrupted {
            failures.push((
                IssueType::ExecutionFailure,
                "Interrupted before it finished".into(),
                default_output,
            ));
        } else if let Some(line) = abort {
            // An abort line alone is a timeout reported by the tool itself
            // when it says so (a performance problem); otherwise the tool
            // stopped for a reason of its own, a plain execution failure.
            let lower = line.to_lowercase();
            let issue_type = if lower.contains("timeout") || lower.contains("timed out") {
                IssueType::Performance
            } else {
                IssueType::ExecutionFailure
            };
            failures.push((issue_type, format!("Aborted: {line}"), line));
        }
    }
    if let Some(line) = validation {
        let message = match validation_errors.first() {
            Some(e) if e.field.is_empty() => format!("Pipeline validation failed: {}", e.message),
            Some(e) => format!("Pipeline validation failed: {} - {}", e.field, e.message),
            None => format!("Pipeline validation failed: {line}"),
        };
        failures.push((IssueType::ConfigurationError, message, line));
    }
    if let Some(line) = runtime {
        failures.push((
            IssueType::PipelineExecutionError,
            format!("Pipeline execution failed: {line}"),
            line,
        ));
    }
    if failures.is_empty() && status != ExecutionStatus::Success {
        let message = match obs.exit_code {
            Some(code) => format!("Command exited with code {code}"),
            None => "Command ended without an exit code".to_string(),
        };
        failures.push((IssueType::ExecutionFailure, message, default_output));
    }

    let specific_seen = obs.stdout.specific_error || obs.stderr.specific_error;
    let mut issues = Vec::new();
    let mut result = match expected {
        Expected::Success if status == ExecutionStatus::Success => CaseResult::Passed,
        Expected::SpecificError(_) if status != ExecutionStatus::Success && specific_seen => {
            CaseResult::Passed
        }
        _ => CaseResult::Failed,
    };
    if result == CaseResult::Failed {
        match expected {
            Expected::Success => {
                for (t, message, output) in &failures {
                    issues.push(issue(*t, status, message, output));
                }
            }
            Expected::SpecificError(re) if status == ExecutionStatus::Success => {
                issues.push(issue(
                    IssueType::UnexpectedSuccess,
                    status,
                    &format!(
                        "Expected an error matching `{}`, but the case succeeded",
                        re.as_str()
                    ),
                    default_output,
                ));
            }
            Expected::SpecificError(re) => {
                let (seen, output) = failures
                    .first()
                    .map_or(("no detail", default_output), |(_, m, o)| (m.as_str(), *o));
                issues.push(issue(
                    IssueType::UnexpectedError,
                    status,
                    &format!(
                        "Expected an error matching `{}`, got {}: {seen}",
                        re.as_str(),
                        status.as_str()
                    ),
                    output,
                ));
            }
        }
        if status != ExecutionStatus::Success {
            if let Some(line) = obs.stderr.auth.as_deref() {
                let message = format!("Authentication problem: {line}");
                issues.push(issue(IssueType::AuthError, status, &message, line));
            }
            if let Some(line) = obs.stderr.schema.as_deref() {
                let message = format!("Schema problem: {line}");
                issues.push(issue(IssueType::DataError, status, &message, line));
            }
        }
    }
    if let Some(files) = obs.golden_modified {
        result = CaseResult::Failed;
        let message = format!("Golden project modified by the run: {files}");
        issues.push(issue(
            IssueType::GoldenModified,
            status,
            &message,
            default_output,
        ));
    }
    Verdict {
        status: if obs.exit_code == Some(0) {
            EvidenceStatus::Success
        } else {
            EvidenceStatus::Failure
        },
        execution_status: status,
        result,
        issues,
        validation_errors,
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
                other => panic!("no slot {other}"),
            }
        }
        f
    }

    fn observed<'a>(
        exit: Option<i32>,
        stdout: &'a StreamFindings,
        stderr: &'a StreamFindings,
    ) -> Observed<'a> {
        Observed {
            exit_code: exit,
            timed_out: false,
            interrupted: false,
            stdout,
            stderr,
            golden_modified: None,
            not_run_reason: None,
        }
    }

    fn types(v: &Verdict) -> Vec<IssueType> {
        v.issues.iter().map(|i| i.issue_type).collect()
    }

    fn verify(obs: &Observed<'_>) -> Verdict {
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
    fn timeout_aborts_with_a_performance_issue() {
        let out = lines(&[("first", "working")]);
        let none = StreamFindings::default();
        let obs = Observed {
            timed_out: true,
            ..observed(Some(143), &out, &none)
        };
        let v = judge("slow", CaseKind::Golden, &Expected::Success, &obs);
        assert_eq!(v.execution_status, ExecutionStatus::Aborted);
        assert_eq!(types(&v), [IssueType::Performance]);
        assert_eq!(v.issues[0].severity, Severity::High);
        assert_eq!(
            v.issues[0].evidence,
            "Status: ABORTED | Exit code: 143 | Output: working"
        );
        let obs = Observed {
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
        assert_eq!(types(&v), [IssueType::Performance]);
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
    fn golden_modified_fails_even_a_passing_case() {
        let out = lines(&[("first", "ok")]);
        let none = StreamFindings::default();
        let obs = Observed {
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
        let obs = Observed {
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
    fn evidence_output_is_clipped() {
        let long = "x".repeat(300);
        let out = lines(&[("runtime", &long)]);
        let v = verify(&observed(Some(1), &out, &StreamFindings::default()));
        let output = v.issues[0].evidence.split("Output: ").nth(1).unwrap();
        assert_eq!(output.chars().count(), MAX_EVIDENCE_CHARS);
        assert!(output.ends_with('…'));
    }
}
