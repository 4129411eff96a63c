//! The integrity check (SPEC section 4): the written reports are read back
//! and must agree with the run record, with each other and with the exit
//! code, or the run exits with [`crate::exit::INTEGRITY`].
//!
//! Each file is parsed for real (XML with roxmltree, JSON with serde_json,
//! the markdown tables by their fixed shape), so a report that renders
//! wrong, or was changed after writing, is caught.

use std::fmt;
use std::path::{Path, PathBuf};

use super::junit::attr;
use super::markdown::{
    COUNTS_PREFIX, EVIDENCE_HEADING, FINAL_STATUS_PREFIX, ISSUE_ITEM_PREFIX, ISSUES_HEADING,
    RESULTS_HEADING, counts_text,
};
use super::{NO_ISSUES_PHRASE, Written, observed};
use crate::exit::Results;
use crate::model::{CaseRecord, CaseResult, Counts, JunitFlavour, RunRecord};
use crate::wire::summary::{Summary, SummaryCase};

/// The exit code the record calls for (see [`Results`]).
pub fn expected_exit_code(record: &RunRecord) -> i32 {
    Results::of(record).exit_code
}

/// One thing the reports, the record or the exit code disagree on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disagreement {
    /// A report file could not be read or parsed.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A number in a report differs from the record.
    Count {
        /// The file.
        path: PathBuf,
        /// What was counted, e.g. `failure elements`.
        what: String,
        /// What the record says.
        expected: String,
        /// What the file says.
        found: String,
    },
    /// The exit code does not follow from the results.
    ExitCode {
        /// What the results call for.
        expected: i32,
        /// What the run is about to exit with.
        found: i32,
    },
    /// A FAILED or ERROR case has no issue.
    MissingIssue {
        /// The case.
        case: String,
        /// Its result.
        result: CaseResult,
    },
    /// The all-clear phrase appears although not every case passed.
    FalseAllClear {
        /// The file.
        path: PathBuf,
    },
    /// What a report says of one case differs from the record.
    Case {
        /// The file.
        path: PathBuf,
        /// The case.
        case: String,
        /// What differs.
        message: String,
    },
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::Unreadable { path, message } => {
                write!(f, "{}: cannot be read back: {message}", path.display())
            }
            Disagreement::Count {
                path,
                what,
                expected,
                found,
            } => write!(
                f,
                "{}: {what} is {found}, the run record says {expected}",
                path.display()
            ),
            Disagreement::ExitCode { expected, found } => write!(
                f,
                "exit code would be {found}, the results call for {expected}"
            ),
            Disagreement::MissingIssue { case, result } => {
                write!(f, "case {case:?} is {} but has no issue", result.as_str())
            }
            Disagreement::Case {
                path,
                case,
                message,
            } => write!(f, "{}: case {case:?}: {message}", path.display()),
            Disagreement::FalseAllClear { path } => write!(
                f,
                "{}: says {NO_ISSUES_PHRASE:?} although not every case passed",
                path.display()
            ),
        }
    }
}

/// The reports disagree with the record or the exit code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct IntegrityError {
    /// Every disagreement found, in the order checked.
    pub disagreements: Vec<Disagreement>,
}

impl fmt::Display for IntegrityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "integrity violation: ")?;
        for (i, d) in self.disagreements.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

/// Check the reports [`super::write_all`] wrote in `record.out_dir` against
/// `record` and the exit code the run is about to use. Every disagreement
/// is collected, not just the first.
pub fn check_integrity(record: &RunRecord, exit_code: i32) -> Result<(), IntegrityError> {
    check(record, &Results::of(record), exit_code)
}

/// [`check_integrity`] with the results already computed.
pub(super) fn check(
    record: &RunRecord,
    results: &Results,
    exit_code: i32,
) -> Result<(), IntegrityError> {
    let counts = record.counts();
    let files = Written::in_dir(&record.out_dir);
    let mut found = Vec::new();

    let expected = results.exit_code;
    if exit_code != expected {
        found.push(Disagreement::ExitCode {
            expected,
            found: exit_code,
        });
    }
    for case in &record.cases {
        if case.result.is_failure() && case.issues.is_empty() {
            found.push(Disagreement::MissingIssue {
                case: case.name.clone(),
                result: case.result,
            });
        }
    }

    junit(&files.junit, record, &counts, &mut found);
    let md = markdown(&files.markdown, record, results, &counts, &mut found);
    let compared = summary(&files.summary, record, results, &counts, &mut found);
    observations(&files.observations, record, &mut found);
    super::baseline::check(
        &files,
        md.as_deref(),
        compared.as_ref().map(Option::as_ref),
        record,
        (results, exit_code),
        &mut found,
    );

    if found.is_empty() {
        Ok(())
    } else {
        Err(IntegrityError {
            disagreements: found,
        })
    }
}

fn read(path: &Path, found: &mut Vec<Disagreement>) -> Option<String> {
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => Some(s),
            Err(e) => {
                found.push(Disagreement::Unreadable {
                    path: path.to_path_buf(),
                    message: format!("not UTF-8: {e}"),
                });
                None
            }
        },
        Err(e) => {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
            None
        }
    }
}

fn compare(
    found: &mut Vec<Disagreement>,
    path: &Path,
    what: &str,
    expected: impl ToString,
    actual: impl ToString,
) {
    let (expected, actual) = (expected.to_string(), actual.to_string());
    if expected != actual {
        found.push(Disagreement::Count {
            path: path.to_path_buf(),
            what: what.to_string(),
            expected,
            found: actual,
        });
    }
}

fn junit(path: &Path, record: &RunRecord, counts: &Counts, found: &mut Vec<Disagreement>) {
    let Some(text) = read(path, found) else {
        return;
    };
    let doc = match roxmltree::Document::parse(&text) {
        Ok(d) => d,
        Err(e) => {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: format!("not well-formed XML: {e}"),
            });
            return;
        }
    };
    let testcases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    // Only direct children count: <flakyFailure> and friends inside a
    // testcase are earlier attempts, not results.
    let with_child = |tag: &str| {
        testcases
            .iter()
            .filter(|tc| tc.children().any(|c| c.has_tag_name(tag)))
            .count()
    };
    compare(
        found,
        path,
        "testcase elements",
        counts.total,
        testcases.len(),
    );
    let names: Vec<&str> = testcases
        .iter()
        .map(|tc| tc.attribute("name").unwrap_or(""))
        .collect();
    let want: Vec<String> = record.cases.iter().map(|c| attr(&c.name)).collect();
    if names != want {
        compare(
            found,
            path,
            "testcase names in order",
            format!("{want:?}"),
            format!("{names:?}"),
        );
    }
    for (tc, case) in testcases.iter().zip(&record.cases) {
        junit_case(path, (&doc, tc), record.junit, case, found);
    }
    compare(
        found,
        path,
        "testcases with <failure>",
        counts.failed,
        with_child("failure"),
    );
    compare(
        found,
        path,
        "testcases with <error>",
        counts.errors,
        with_child("error"),
    );
    compare(
        found,
        path,
        "testcases with <skipped>",
        counts.skipped,
        with_child("skipped"),
    );
    junit_totals(path, &doc, record.junit, counts, found);
}

/// The totals on `<testsuites>` and the first `<testsuite>`.
fn junit_totals(
    path: &Path,
    doc: &roxmltree::Document<'_>,
    flavour: JunitFlavour,
    counts: &Counts,
    found: &mut Vec<Disagreement>,
) {
    for tag in ["testsuites", "testsuite"] {
        let Some(node) = doc.descendants().find(|n| n.has_tag_name(tag)) else {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: format!("no <{tag}> element"),
            });
            continue;
        };
        for (attr, want) in [
            ("tests", counts.total),
            ("failures", counts.failed),
            ("errors", counts.errors),
            ("skipped", counts.skipped),
        ] {
            // The strict schema has no `skipped` on <testsuites>; the
            // <testsuite> still carries it.
            if tag == "testsuites" && attr == "skipped" && flavour == JunitFlavour::Strict {
                continue;
            }
            compare(
                found,
                path,
                &format!("<{tag}> {attr}"),
                want,
                node.attribute(attr).unwrap_or("(missing)"),
            );
        }
    }
}

/// What one `<testcase>` says of its case: the result element and the
/// evidence hash property (on the testcase in the rich flavour, the suite's
/// `case.<name>.evidence_hash` in the strict one).
fn junit_case(
    path: &Path,
    (doc, tc): (&roxmltree::Document<'_>, &roxmltree::Node<'_, '_>),
    flavour: JunitFlavour,
    case: &CaseRecord,
    found: &mut Vec<Disagreement>,
) {
    let has = |tag: &str| tc.children().any(|c| c.has_tag_name(tag));
    let shown = match (has("failure"), has("error"), has("skipped")) {
        (false, false, false) => "PASSED",
        (true, false, false) => "FAILED",
        (false, true, false) => "ERROR",
        (false, false, true) => "SKIPPED",
        _ => "several results",
    };
    let mut differs = |message: String| {
        found.push(Disagreement::Case {
            path: path.to_path_buf(),
            case: case.name.clone(),
            message,
        })
    };
    if shown != case.result.as_str() {
        differs(format!(
            "the testcase says {shown}, the result is {}",
            case.result.as_str()
        ));
    }
    let (scope, name) = match flavour {
        JunitFlavour::Rich => (*tc, "evidence_hash".to_string()),
        JunitFlavour::Strict => (
            doc.root_element(),
            format!("case.{}.evidence_hash", attr(&case.name)),
        ),
    };
    let hash = scope
        .descendants()
        .find(|n| n.has_tag_name("property") && n.attribute("name") == Some(name.as_str()))
        .and_then(|n| n.attribute("value"))
        .unwrap_or("");
    if hash != case.evidence_hash.as_deref().unwrap_or("") {
        differs(format!(
            "the evidence_hash property is {hash:?}, the evidence says {:?}",
            case.evidence_hash.as_deref().unwrap_or("")
        ));
    }
}

/// `want` and `got` of one case's field, as a disagreement when they differ.
fn case_field(
    found: &mut Vec<Disagreement>,
    path: &Path,
    case: &CaseRecord,
    what: &str,
    want: impl ToString,
    got: impl ToString,
) {
    let (want, got) = (want.to_string(), got.to_string());
    if want != got {
        found.push(Disagreement::Case {
            path: path.to_path_buf(),
            case: case.name.clone(),
            message: format!("{what} is {got}, the run record says {want}"),
        });
    }
}

/// Check report.md; its text, for the baseline section's check.
fn markdown(
    path: &Path,
    record: &RunRecord,
    results: &Results,
    counts: &Counts,
    found: &mut Vec<Disagreement>,
) -> Option<String> {
    let text = read(path, found)?;
    let lines: Vec<&str> = text.lines().collect();

    let status = lines
        .iter()
        .find_map(|l| l.strip_prefix(FINAL_STATUS_PREFIX))
        .unwrap_or("(missing)");
    compare(found, path, "final status", results.status, status);

    let counts_line = lines
        .iter()
        .find_map(|l| l.strip_prefix(COUNTS_PREFIX))
        .unwrap_or("(missing)");
    compare(found, path, "counts line", counts_text(counts), counts_line);

    results_table(path, record, counts, &lines, found);

    let evidence = table_rows(&lines, EVIDENCE_HEADING);
    compare(
        found,
        path,
        "execution evidence rows",
        counts.total,
        evidence.len(),
    );

    let issue_items = section(&lines, ISSUES_HEADING)
        .iter()
        .filter(|l| l.starts_with(ISSUE_ITEM_PREFIX))
        .count();
    compare(
        found,
        path,
        "issue items",
        record.issues().count(),
        issue_items,
    );

    if counts.passed != counts.total && text.contains(NO_ISSUES_PHRASE) {
        found.push(Disagreement::FalseAllClear {
            path: path.to_path_buf(),
        });
    }
    Some(text)
}

/// The results table of report.md: a row per case, each with its result.
fn results_table(
    path: &Path,
    record: &RunRecord,
    counts: &Counts,
    lines: &[&str],
    found: &mut Vec<Disagreement>,
) {
    let results = table_rows(lines, RESULTS_HEADING);
    compare(
        found,
        path,
        "results table rows",
        counts.total,
        results.len(),
    );
    for (label, result) in [
        ("PASSED", CaseResult::Passed),
        ("FAILED", CaseResult::Failed),
        ("ERROR", CaseResult::Error),
        ("SKIPPED", CaseResult::Skipped),
    ] {
        let want = record.cases.iter().filter(|c| c.result == result).count();
        let got = results
            .iter()
            .filter(|r| r.get(3).map(String::as_str) == Some(label))
            .count();
        compare(found, path, &format!("results rows {label}"), want, got);
    }

    for (row, case) in results.iter().zip(&record.cases) {
        let got = row.get(3).map_or("(missing)", String::as_str);
        case_field(
            found,
            path,
            case,
            "the result cell",
            case.result.as_str(),
            got,
        );
    }
}

/// The lines after `heading` up to the next heading of the same level.
fn section<'a>(lines: &[&'a str], heading: &str) -> Vec<&'a str> {
    lines
        .iter()
        .skip_while(|l| **l != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .copied()
        .collect()
}

/// Data rows of the first table under `heading`, split into trimmed cells.
/// Cells never hold a literal `|` (user text has it as a character
/// reference), so splitting on it is exact.
fn table_rows(lines: &[&str], heading: &str) -> Vec<Vec<String>> {
    section(lines, heading)
        .into_iter()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            let inner = l.trim().trim_start_matches('|').trim_end_matches('|');
            inner.split('|').map(|c| c.trim().to_string()).collect()
        })
        .collect()
}

/// Check summary.json; the comparison it holds, for the baseline
/// section's check (None when the file could not be read).
fn summary(
    path: &Path,
    record: &RunRecord,
    results: &Results,
    counts: &Counts,
    found: &mut Vec<Disagreement>,
) -> Option<Option<crate::baseline::Comparison>> {
    let text = read(path, found)?;
    let summary: Summary = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: format!("not a valid summary: {e}"),
            });
            return None;
        }
    };
    compare(
        found,
        path,
        "final_status",
        results.status,
        summary.final_status,
    );
    compare(
        found,
        path,
        "counts",
        counts_text(counts),
        counts_text(&summary.counts),
    );
    compare(found, path, "cases", counts.total, summary.cases.len());
    let names: Vec<&str> = summary.cases.iter().map(|c| c.name.as_str()).collect();
    let want: Vec<&str> = record.cases.iter().map(|c| c.name.as_str()).collect();
    if names != want {
        compare(
            found,
            path,
            "case names in order",
            format!("{want:?}"),
            format!("{names:?}"),
        );
    }
    for (c, case) in summary.cases.iter().zip(&record.cases) {
        summary_case(found, path, case, c);
    }
    let failures = summary
        .cases
        .iter()
        .filter(|c| c.result.is_failure())
        .count();
    compare(
        found,
        path,
        "cases FAILED or ERROR",
        counts.failures(),
        failures,
    );
    Some(summary.baseline)
}

/// One case of summary.json against the run record.
fn summary_case(found: &mut Vec<Disagreement>, path: &Path, case: &CaseRecord, c: &SummaryCase) {
    case_field(
        found,
        path,
        case,
        "result",
        case.result.as_str(),
        c.result.as_str(),
    );
    case_field(
        found,
        path,
        case,
        "execution_status",
        case.execution_status.as_str(),
        c.execution_status.as_str(),
    );
    case_field(
        found,
        path,
        case,
        "exit_code",
        json_of(case.exit_code),
        json_of(c.exit_code),
    );
    case_field(
        found,
        path,
        case,
        "evidence_hash",
        json_of(case.evidence_hash.as_deref()),
        json_of(c.evidence_hash.as_deref()),
    );
}

fn observations(path: &Path, record: &RunRecord, found: &mut Vec<Disagreement>) {
    let Some(text) = read(path, found) else {
        return;
    };
    let want = record.cases.iter().filter(|c| observed(c)).count();
    compare(found, path, "observation lines", want, text.lines().count());
    for (line, case) in text
        .lines()
        .zip(record.cases.iter().filter(|c| observed(c)))
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        let meta = &v["metadata"];
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("(missing)").to_string();
        case_field(
            found,
            path,
            case,
            "metadata.case",
            &case.name,
            text(&meta["case"]),
        );
        case_field(
            found,
            path,
            case,
            "metadata.result",
            case.result.as_str(),
            text(&meta["result"]),
        );
        case_field(
            found,
            path,
            case,
            "exit_code",
            json_of(case.exit_code),
            &v["exit_code"],
        );
    }
}

/// A value as JSON text, for comparing with a JSON field.
fn json_of(v: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or_default()
}
