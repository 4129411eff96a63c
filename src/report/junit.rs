//! `junit.xml`: one `<testsuite>` with a `<testcase>` per case, written by
//! quick-junit.
//!
//! quick-junit strips ANSI escapes and the C0 controls XML forbids, and
//! escapes markup; it leaves U+FFFE and U+FFFF, which XML 1.0 forbids too,
//! so every string goes through [`text`] or [`attr`] first.

use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite, XmlString,
};

use super::markup::strip_ansi;
use super::{headline, lossy, output_excerpt, severity_str, stage_str};
use crate::model::{CaseRecord, CaseResult, RunRecord};

/// The JUnit document of `record`.
pub(super) fn render(
    record: &RunRecord,
    harness_display: &str,
) -> Result<String, quick_junit::SerializeError> {
    let mut suite = TestSuite::new(attr(&record.suite_name));
    suite.set_time(record.duration);
    suite.add_property(Property::new("run_id", attr(&record.run_id)));
    suite.add_property(Property::new("final_status", record.final_status()));
    suite.add_property(Property::new(
        "harness_sha256",
        attr(&record.harness_sha256),
    ));
    if let Some(p) = &record.partition {
        suite.add_property(Property::new("partition", attr(p)));
    }
    suite
        .extra
        .insert("file".into(), XmlString::new(attr(harness_display)));
    for case in &record.cases {
        suite.add_test_case(test_case(case, harness_display));
    }

    let mut report = Report::new(attr(&record.suite_name));
    report.set_time(record.duration);
    report.add_test_suite(suite);
    report.to_string()
}

fn test_case(case: &CaseRecord, harness_display: &str) -> TestCase {
    let status = match case.result {
        CaseResult::Passed => {
            let mut status = TestCaseStatus::success();
            // Only a flaky pass shows its failed attempts: a case that
            // passed first time has none.
            status.add_reruns(case.previous_attempts.iter().map(rerun));
            status
        }
        CaseResult::Failed | CaseResult::Error => {
            let kind = if case.result == CaseResult::Failed {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut status = TestCaseStatus::non_success(kind);
            status.set_message(attr(&headline(case)));
            status.set_type(failure_type(case));
            status.set_description(text(&failure_text(case)));
            status.add_reruns(case.previous_attempts.iter().map(rerun));
            status
        }
        CaseResult::Skipped => {
            let mut status = TestCaseStatus::skipped();
            if let Some(reason) = &case.reason {
                status.set_message(attr(reason));
            }
            status
        }
    };

    let mut tc = TestCase::new(attr(&case.name), status);
    tc.set_classname(case.kind.as_str());
    tc.set_time(case.duration);
    tc.extra
        .insert("file".into(), XmlString::new(attr(harness_display)));
    tc.extra
        .insert("line".into(), XmlString::new(case.line.to_string()));
    tc.add_property(Property::new(
        "evidence_hash",
        case.evidence_hash.as_deref().unwrap_or(""),
    ));
    tc.add_property(Property::new(
        "execution_status",
        case.execution_status.as_str(),
    ));
    tc.add_property(Property::new("status", case.status.as_str()));
    tc.add_property(Property::new(
        "exit_code",
        case.exit_code.map(|c| c.to_string()).unwrap_or_default(),
    ));
    if case.flaky {
        tc.add_property(Property::new("flaky", "true"));
    }
    if !case.stdout.is_empty() {
        tc.set_system_out(text(&lossy(&case.stdout)));
    }
    if !case.stderr.is_empty() {
        tc.set_system_err(text(&lossy(&case.stderr)));
    }
    tc
}

/// `type` of `<failure>`/`<error>`: the execution status for a case that
/// ran; for one that could not run, its issue type says more.
fn failure_type(case: &CaseRecord) -> String {
    if case.ran() {
        case.execution_status.as_str().to_string()
    } else {
        case.issues
            .first()
            .map(|i| i.issue_type.as_str())
            .unwrap_or("EXECUTION_ERROR")
            .to_string()
    }
}

/// Element text of `<failure>`/`<error>`: every issue, then the output
/// excerpt. Consumers such as Azure show it as the stack trace.
fn failure_text(case: &CaseRecord) -> String {
    let mut out = String::new();
    for issue in &case.issues {
        out.push_str(&format!(
            "[{}] {} ({}, {})\n{}\n",
            issue.issue_type.as_str(),
            issue.message,
            severity_str(issue.severity),
            stage_str(issue.stage),
            issue.evidence
        ));
    }
    if let Some(reason) = &case.reason {
        out.push_str(&format!("Reason: {reason}\n"));
    }
    for w in &case.warnings {
        out.push_str(&format!("Warning: {w}\n"));
    }
    let excerpt = output_excerpt(case);
    if !excerpt.is_empty() {
        out.push('\n');
        out.push_str(&excerpt);
    }
    out
}

fn rerun(attempt: &CaseRecord) -> TestRerun {
    let kind = if attempt.result == CaseResult::Error {
        NonSuccessKind::Error
    } else {
        NonSuccessKind::Failure
    };
    let mut r = TestRerun::new(kind);
    r.set_time(attempt.duration);
    r.set_message(attr(&headline(attempt)));
    r.set_type(failure_type(attempt));
    r.set_stack_trace(text(&failure_text(attempt)));
    if !attempt.stdout.is_empty() {
        r.set_system_out(text(&lossy(&attempt.stdout)));
    }
    if !attempt.stderr.is_empty() {
        r.set_system_err(text(&lossy(&attempt.stderr)));
    }
    r
}

/// Element text: characters XML 1.0 cannot hold and quick-junit keeps are
/// replaced by U+FFFD, and tabs are expanded to spaces (to 8-column tab
/// stops) because quick-junit's escape stripping drops tabs, which would
/// glue columns of tabular output together.
fn text(s: &str) -> String {
    if !s.contains(['\u{FFFE}', '\u{FFFF}', '\t']) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut column = 0usize;
    // Escapes and controls go first, as quick-junit would drop them, so
    // the columns counted are the ones a reader sees.
    for ch in strip_ansi(s).chars() {
        match ch {
            '\t' => {
                let n = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', n));
                column += n;
            }
            '\n' | '\r' => {
                out.push(ch);
                column = 0;
            }
            '\u{FFFE}' | '\u{FFFF}' => {
                out.push('\u{FFFD}');
                column += 1;
            }
            c if c.is_control() => {}
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

/// Attribute value: as [`text`], and on one line, because XML parsers fold
/// line breaks and tabs in attributes into spaces anyway; doing it here
/// makes the file say what readers will see.
pub(super) fn attr(s: &str) -> String {
    strip_ansi(s)
        .chars()
        .filter_map(|c| match c {
            '\u{FFFE}' | '\u{FFFF}' => Some('\u{FFFD}'),
            '\t' | '\n' | '\r' => Some(' '),
            // The other controls are dropped, as quick-junit drops them
            // from element text.
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}
