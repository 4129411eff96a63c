//! The one owner of a case's verdict: [`decide`] sets a case's result and
//! issues from all its facts, and nothing else assigns them.
//!
//! The facts are the record's: the issues its run raised (what its output
//! showed, judged by `classify::judge`, and its structured result), whether
//! it could be run at all (`reason`), its snapshot and data checks, whether
//! it passed only on a retry (and the harness's `flaky` policy), and its
//! quarantine. The issues a run raised come first in the record
//! (`run_issues` of them); every other issue follows from a fact, so a
//! verdict is re-computed, never patched, when a fact changes: a review or
//! `bless --from` accepting a change, a retry passing, a quarantine
//! expiring.

use super::{
    CaseRecord, CaseResult, DiffLine, FlakyPolicy, Issue, IssueType, SnapshotCheck, Stream,
};

/// Longest output excerpt in a snapshot issue's evidence, in characters.
const MAX_EVIDENCE_CHARS: usize = 200;

/// Decide `case`'s result and issues from its facts (see the module):
/// ERROR when it could not be run or finished, else FAILED with at least
/// one issue or PASSED with none. A case that was not attempted (SKIPPED)
/// keeps its verdict.
pub(crate) fn decide(case: &mut CaseRecord, flaky: FlakyPolicy) {
    if case.result == CaseResult::Skipped && case.started_at.is_none() && case.artifacts.is_none() {
        return;
    }
    let run = case.run_issues.min(case.issues.len());
    case.issues.truncate(run);
    let derived = derived(case, flaky);
    case.issues.extend(derived);
    case.result = if case.reason.is_some() {
        CaseResult::Error
    } else if case.issues.is_empty() {
        CaseResult::Passed
    } else {
        CaseResult::Failed
    };
}

/// How many of `issues` (a case's, as recorded) its run raised: all but
/// the last ones of the types only [`decide`] raises from the other facts.
/// The judge of the output and a structured result never raise those.
pub(crate) fn run_issues(issues: &[Issue]) -> usize {
    let derived = issues
        .iter()
        .rev()
        .take_while(|i| {
            matches!(
                i.issue_type,
                IssueType::OutputChanged
                    | IssueType::SnapshotMissing
                    | IssueType::DataChanged
                    | IssueType::Flaky
                    | IssueType::QuarantineExpired
            )
        })
        .count();
    issues.len() - derived
}

/// The issues `case`'s facts raise beside its run's: each failing check's,
/// then a FLAKY one, then an expired quarantine's.
fn derived(case: &CaseRecord, flaky: FlakyPolicy) -> Vec<Issue> {
    let mut issues: Vec<Issue> = (case.snapshots.iter())
        .filter_map(|c| check_issue(case, c))
        .collect();
    let ran = case.reason.is_none();
    let failed_before = case.previous_attempts.len();
    if ran && case.flaky && flaky == FlakyPolicy::Fail && failed_before > 0 {
        let what = format!(
            "flaky: passed on attempt {} after {failed_before} failed attempt(s)",
            failed_before + 1
        );
        let evidence = format!(
            "Status: {} | Exit code: {} | Attempts: {}",
            case.execution_status.as_str(),
            exit(case),
            failed_before + 1
        );
        let message = format!("{what}; [harness] flaky = \"fail\" fails such a case");
        issues.push(Issue::after_run(case, IssueType::Flaky, message, evidence));
    }
    if let Some(q) = case.quarantine.as_ref().filter(|q| q.expired && ran) {
        let message = format!(
            "{}: the quarantine expired after {}; remove it or extend `until`",
            q.describe(),
            q.until
        );
        let evidence = format!(
            "Status: {} | Quarantine until: {}",
            case.execution_status.as_str(),
            q.until
        );
        issues.push(Issue::after_run(
            case,
            IssueType::QuarantineExpired,
            message,
            evidence,
        ));
    }
    issues
}

fn exit(case: &CaseRecord) -> String {
    case.exit_code
        .map_or_else(|| "none".to_string(), |c| c.to_string())
}

/// The issue a snapshot or data check of `case` raises, as every report
/// shows it: its message, and the first change of its diff as evidence
/// (for data, the first difference, not a count).
pub(crate) fn check_issue(case: &CaseRecord, check: &SnapshotCheck) -> Option<Issue> {
    let log = match check.stream {
        Stream::Data => String::new(),
        stream => (case.artifacts.as_ref())
            .map(|a| match stream {
                Stream::Stderr => a.stderr.clone(),
                Stream::Stdout | Stream::Data => a.stdout.clone(),
            })
            .unwrap_or_default(),
    };
    let (issue_type, message) = check.issue(&log)?;
    let diff = check.diff.as_deref();
    let first = match check.stream {
        // The first difference, after the counts that sum them up.
        Stream::Data => diff.and_then(|d| d.lines().find(|l| !super::is_data_count(l))),
        Stream::Stdout | Stream::Stderr => first_change(diff),
    };
    let evidence = format!(
        "Status: {} | Exit code: {} | Output: {}",
        case.execution_status.as_str(),
        exit(case),
        crate::ansi::one_line(first.unwrap_or("(no output excerpt)"))
            .chars()
            .take(MAX_EVIDENCE_CHARS)
            .collect::<String>()
    );
    Some(Issue::after_run(
        case,
        issue_type,
        crate::ansi::one_line(&message),
        evidence,
    ))
}

/// The first changed line of a unified diff.
fn first_change(diff: Option<&str>) -> Option<&str> {
    diff.and_then(|d| {
        d.lines()
            .find(|l| matches!(DiffLine::of(l), DiffLine::Added | DiffLine::Removed))
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every non-test line of `src/` holding `needle`, as `file: line`,
    /// beside the files where it belongs.
    #[allow(clippy::disallowed_methods)]
    fn lines_with(needle: &str, allowed: &[&str]) -> Vec<String> {
        fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                // A `tests` module's own files are test code.
                if p.file_name()
                    .is_some_and(|n| n == "tests" || n == "tests.rs")
                {
                    continue;
                }
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        let mut found = Vec::new();
        for f in files {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&f).unwrap();
            // Test code comes last in a file; what it assigns is its own.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for line in code.lines().filter(|l| l.contains(needle)) {
                let line = line.trim();
                if !line.starts_with("//") && !allowed.iter().any(|a| rel == *a || line.contains(a))
                {
                    found.push(format!("{rel}: {line}"));
                }
            }
        }
        found
    }

    /// No code but [`super::decide`] assigns a case's result: a record
    /// read back from a run's files takes the one recorded, and nothing
    /// else sets one (a check pushes no issue, an accept removes none).
    #[test]
    fn only_the_verdict_assigns_a_cases_result() {
        let found = lines_with(
            ".result = ",
            &[
                "model/verdict.rs",
                // The record read back from evidence.json.
                "case.result = ev.run.result",
                // The structured result file's read, not a verdict.
                "x.result = Some(",
                // The attestation's own `result` field.
                "t.result = if exit_code",
            ],
        );
        assert!(
            found.is_empty(),
            "a result is assigned outside model::verdict:\n{}",
            found.join("\n")
        );
    }

    /// No code but `wire::evidence` combines the parts of an evidence
    /// hash: the engine, `merge` and `verify-evidence` all call it.
    #[test]
    fn only_the_evidence_module_combines_the_hash() {
        for needle in [
            "evidence_hash_of_files(",
            "hash_with_data(",
            "hash_with_pending(",
        ] {
            let found = lines_with(needle, &["wire/evidence.rs", "hash.rs"]);
            assert!(
                found.is_empty(),
                "{needle} outside wire::evidence:\n{}",
                found.join("\n")
            );
        }
    }
}
