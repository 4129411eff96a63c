//! One case's evidence: its `evidence.json` read back, its artifact paths
//! checked to stay inside the run dir as plain files, its hash recomputed
//! from the files, and its verdict re-judged from what it records.

use std::path::{Path, PathBuf};

use crate::classify::{Ending, Patterns, ran_status, unfinished_status, unmet};
use crate::config::{Expected, PatternConfig};
use crate::layout::Artifacts;
use crate::model::{CaseResult, EvidenceStatus, ExecutionStatus, IssueType, Stream};
use crate::runner::capture::TRUNCATION_MARKER;
use crate::wire::decode_output;
pub(crate) use crate::wire::evidence::Evidence;

/// Why a file of the run, or a case's evidence, cannot be taken as it
/// stands. Shown after the file's name, the cause chain appended.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EvidenceError {
    #[error("is a symlink")]
    Symlink,
    #[error("is not a regular file")]
    NotRegular,
    #[error("is missing")]
    Missing,
    #[error("cannot be read")]
    Unreadable(#[source] std::io::Error),
    #[error("is not valid evidence")]
    Invalid(#[source] serde_json::Error),
    #[error("has schema_version {0:?}; this cargo-golden reads 1.x.y")]
    SchemaVersion(String),
    #[error("records the artifact path {rel:?}, which is not a plain path inside {prefix}")]
    OutsideRun { rel: String, prefix: String },
    #[error("expected outcome {expected:?} is not a valid regex")]
    ExpectedRegex {
        expected: String,
        #[source]
        source: regex::Error,
    },
    #[error("records no valid expected outcome ({0:?}): the result cannot be re-judged")]
    NoExpected(String),
    #[error("the line classifier cannot be built")]
    Classifier(#[source] crate::classify::PatternError),
    #[error("{}", path.display())]
    Log {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl EvidenceError {
    /// The message a finding shows: this error and its causes.
    pub(crate) fn message(&self) -> String {
        crate::conclusion::error_chain(self)
    }
}

/// Read an `evidence.json`: a plain file (never through a symlink) that
/// parses.
pub(crate) fn read(path: &Path) -> Result<Evidence, EvidenceError> {
    let bytes = read_plain(path)?;
    let ev: Evidence = serde_json::from_slice(&bytes).map_err(EvidenceError::Invalid)?;
    // A later minor version only adds fields; another major may mean
    // something else by the same names.
    if !crate::wire::is_schema_version(&ev.schema_version) {
        return Err(EvidenceError::SchemaVersion(ev.schema_version));
    }
    Ok(ev)
}

/// The bytes of `path`, a regular file read without following a symlink.
pub(crate) fn read_plain(path: &Path) -> Result<Vec<u8>, EvidenceError> {
    plain_file(path)?;
    crate::untrusted::read_limited(path, crate::report::REPORT_LIMIT)
        .map_err(EvidenceError::Unreadable)
}

/// `Ok` when `path` is a regular file and not a symlink.
pub(crate) fn plain_file(path: &Path) -> Result<(), EvidenceError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(EvidenceError::Symlink),
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(EvidenceError::NotRegular),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(EvidenceError::Missing),
        Err(e) => Err(EvidenceError::Unreadable(e)),
    }
}

/// `rel` (a recorded artifact path, relative to the out dir) as a path
/// inside the run dir `run_dir` of run `run_id`; an error when it is
/// absolute, climbs out, or lies outside this run's directory.
pub(crate) fn inside_run(
    run_dir: &Path,
    run_id: &str,
    rel: &str,
) -> Result<PathBuf, EvidenceError> {
    let prefix = format!("{}/", crate::layout::run_dir(run_id));
    let inside = rel.strip_prefix(&prefix).filter(|r| plain_relative(r));
    match inside {
        Some(r) => Ok(run_dir.join(r)),
        None => Err(EvidenceError::OutsideRun {
            rel: rel.to_string(),
            prefix,
        }),
    }
}

pub(crate) use crate::layout::plain_relative;

/// Everything wrong with the evidence of one case at `evidence_path`
/// (already read as `ev`) in run `run_id`, whose dir is `run_dir`: unsafe
/// artifact paths, files that are missing or symlinks, a hash that does
/// not recompute, a verdict that does not follow.
pub(crate) fn check(run_dir: &Path, run_id: &str, ev: &Evidence) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(a) = &ev.run.artifacts else {
        problems.push("records no artifact paths".to_string());
        return problems;
    };
    let mut files = Vec::new();
    for (name, rel) in [
        (Artifacts::COMMAND, &a.command),
        (Artifacts::STDOUT, &a.stdout),
        (Artifacts::STDERR, &a.stderr),
    ] {
        match inside_run(run_dir, run_id, rel) {
            Ok(p) => files.push((name, p)),
            Err(e) => problems.push(e.message()),
        }
    }
    if let Err(e) = inside_run(run_dir, run_id, &a.evidence) {
        problems.push(e.message());
    }
    if files.len() < 3 {
        return problems;
    }
    // A kept structured result is under the hash too.
    let kept = ev
        .structured_result
        .as_ref()
        .and_then(|r| r.artifact.as_ref());
    if let Some(rel) = kept {
        match inside_run(run_dir, run_id, rel) {
            Ok(p) => files.push((RESULT, p)),
            Err(e) => {
                problems.push(e.message());
                return problems;
            }
        }
    }
    let logs = (files[1].1.as_path(), files[2].1.as_path());
    match &ev.run.evidence_hash {
        Some(recorded) => hash(ev, recorded, &files, &mut problems),
        None => {
            // The command never ran: its logs, if any, must be empty.
            for (name, p) in &files[1..] {
                if std::fs::symlink_metadata(p).is_ok_and(|m| m.len() > 0) {
                    problems.push(format!(
                        "{name} holds output although the evidence says the command did not run"
                    ));
                }
            }
        }
    }
    problems.extend(pending_rule(run_dir, run_id, ev));
    problems.extend(rejudge(ev, logs));
    problems
}

/// Each pending snapshot the evidence records is kept by a check that
/// failed (a changed or missing snapshot), and is a plain file inside the
/// run dir with the sha256 recorded: what accepting it writes is what the
/// run kept.
fn pending_rule(run_dir: &Path, run_id: &str, ev: &Evidence) -> Vec<String> {
    let mut problems = Vec::new();
    let prefix = format!("{}/", crate::layout::run_dir(run_id));
    for s in &ev.snapshots {
        let Some(p) = &s.pending else { continue };
        if !s.fails() {
            problems.push(format!(
                "records a pending snapshot of {}, whose check ({}) changed nothing",
                s.file,
                s.outcome.as_str()
            ));
        }
        let path = match inside_run(run_dir, run_id, &p.path) {
            Ok(path) => path,
            Err(e) => {
                problems.push(e.message());
                continue;
            }
        };
        let rel = p.path.strip_prefix(&prefix).unwrap_or(&p.path);
        if let Err(e) = plain_file(&path) {
            problems.push(format!("the pending snapshot {rel} {}", e.message()));
            continue;
        }
        match crate::hash::sha256_file(&path) {
            Ok(actual) if actual == p.sha256 => {}
            Ok(actual) => problems.push(format!(
                "the pending snapshot {rel} changed: the evidence records sha256 {}, the file has {actual}",
                p.sha256
            )),
            Err(e) => problems.push(format!("the pending snapshot {rel} cannot be read: {e}")),
        }
    }
    problems
}

/// How a finding names a case's kept structured result.
const RESULT: &str = "the kept result";

fn hash(ev: &Evidence, recorded: &str, files: &[(&str, PathBuf)], problems: &mut Vec<String>) {
    let mut broken = false;
    for (name, p) in files {
        if let Err(e) = plain_file(p) {
            problems.push(format!("{name} {} ({})", e.message(), p.display()));
            broken = true;
        }
    }
    if broken {
        return;
    }
    let [command, stdout, stderr] = [&files[0].1, &files[1].1, &files[2].1];
    let result = files.get(3).map(|(_, p)| p.as_path());
    let recomputed = crate::wire::evidence::case_hash(
        [command, stdout, stderr],
        ev.run.exit_code,
        result,
        &ev.snapshots,
        &ev.schema_version,
    );
    match recomputed {
        Ok(actual) if actual == recorded => {}
        Ok(actual) => {
            problems.push(format!(
                "evidence hash differs: recorded {recorded}, recomputed {actual}"
            ));
            // The hash covers everything; say which part is off where it
            // can be told.
            if crate::untrusted::read(command).ok().as_deref()
                != Some(ev.run.raw_command.as_bytes())
            {
                problems.push("command.txt differs from raw_command".to_string());
            }
            for (name, field, file, copy) in [
                (Artifacts::STDOUT, "stdout", stdout, &ev.run.stdout),
                (Artifacts::STDERR, "stderr", stderr, &ev.run.stderr),
            ] {
                let differs = decode_output(copy, ev.run.encoding)
                    .map_or(true, |copy| prefix_differs(file, &copy));
                if differs {
                    problems.push(format!("{name} differs from the recorded {field}"));
                }
            }
            if crate::wire::evidence::hash_covers_data(&ev.schema_version)
                && ev.snapshots.iter().any(|s| s.stream == Stream::Data)
            {
                problems.push(
                    "the hash covers the data outputs' digests and comparisons (`snapshots`, stream `data`) as recorded: they may have been changed".to_string(),
                );
            }
            if ev.snapshots.iter().any(|s| s.pending.is_some()) {
                problems.push(
                    "the hash covers the pending snapshots' paths and digests (`snapshots`, `pending`) as recorded: they may have been changed".to_string(),
                );
            }
        }
        Err(e) => problems.push(format!("artifacts cannot be read: {e}")),
    }
}

/// Whether the file visibly disagrees with the truncated copy recorded in
/// `evidence.json`: the copy, without its truncation marker, must be the
/// start of the file.
fn prefix_differs(path: &Path, copy: &[u8]) -> bool {
    use std::io::Read;
    let (expected, truncated) = match copy.strip_suffix(TRUNCATION_MARKER.as_bytes()) {
        Some(head) => (head, true),
        None => (copy, false),
    };
    let mut head = Vec::new();
    let read = crate::untrusted::open(path)
        .and_then(|(f, _)| f.take(expected.len() as u64 + 1).read_to_end(&mut head));
    if read.is_err() {
        return true;
    }
    if truncated {
        !head.starts_with(expected)
    } else {
        head != expected
    }
}

/// Whether the command of this evidence's case ran: it has an exit code
/// and status, or it ran and could not be finished.
pub(crate) fn ran(ev: &Evidence) -> bool {
    ev.run.status != EvidenceStatus::NoEvidence || incomplete(ev)
}

/// The case ran and could not be finished (an `EVIDENCE_INCOMPLETE` issue).
fn incomplete(ev: &Evidence) -> bool {
    ev.run
        .issues
        .iter()
        .any(|i| i.issue_type == IssueType::EvidenceIncomplete)
}

/// The verdict the evidence records must follow from what it records
/// (docs/judging.md, How a case is judged): the evidence status from the exit
/// code, the execution status from the exit code and the ending, the result
/// from the execution status and the expected outcome (a `specific_error`
/// regex is matched against the logs again), and issues exactly for failures.
/// Output patterns are not re-applied: they live in the harness file.
pub(crate) fn rejudge(ev: &Evidence, logs: (&Path, &Path)) -> Vec<String> {
    if incomplete(ev) {
        return rejudge_incomplete(ev);
    }
    let mut p = Vec::new();
    let ran = ev.run.status != EvidenceStatus::NoEvidence;
    let status = if ran {
        ran_status(ev.run.exit_code)
    } else {
        EvidenceStatus::NoEvidence
    };
    if ran && (ev.run.exit_code.is_none() || status != ev.run.status) {
        p.push(format!(
            "status is {}, but the exit code {} calls for {}",
            ev.run.status.as_str(),
            shown(ev.run.exit_code),
            status.as_str()
        ));
    }
    // The reverse (a hash with NO_EVIDENCE) is not refused: the hash is
    // recomputed from the logs like any other.
    if ran && ev.run.evidence_hash.is_none() {
        p.push(format!(
            "evidence_hash is null, but the case ran (status {})",
            ev.run.status.as_str()
        ));
    }
    if !ran {
        // Stopped by its timeout or an interrupt while its project was
        // fingerprinted or copied: ABORTED and FAILED, like a command that
        // was stopped. Anything else that did not run could not run.
        let stopped = ending(ev).stopped();
        let (result, why) = if stopped {
            (
                CaseResult::Failed,
                "a case stopped before its command ran is FAILED",
            )
        } else {
            (CaseResult::Error, "a case that could not run is ERROR")
        };
        if ev.run.result != result {
            p.push(format!("result is {}, but {why}", ev.run.result.as_str()));
        }
        if stopped && ev.run.execution_status != ExecutionStatus::Aborted {
            p.push(format!(
                "execution status is {}, but a case stopped by its timeout or an interrupt is ABORTED",
                ev.run.execution_status.as_str()
            ));
        }
        p.extend(issue_rule(ev));
        return p;
    }
    p.extend(execution_rule(ev));
    p.extend(snapshot_rule(ev));
    match result_rule(ev, logs) {
        Ok(Some(problem)) => p.push(problem),
        Ok(None) => {}
        Err(e) => p.push(e.message()),
    }
    p.extend(issue_rule(ev));
    p.extend(flaky_rule(ev));
    p.extend(quarantine_rule(ev));
    p
}

/// The evidence records a FLAKY issue.
fn flaky_failed(ev: &Evidence) -> bool {
    has_issue(ev, IssueType::Flaky)
}

fn has_issue(ev: &Evidence, t: IssueType) -> bool {
    ev.run.issues.iter().any(|i| i.issue_type == t)
}

/// A quarantine is expired exactly when its `until` had passed on the day
/// the case started, and a QUARANTINE_EXPIRED issue exactly when it is.
fn quarantine_rule(ev: &Evidence) -> Option<String> {
    let q = ev.run.quarantine.as_ref();
    if let (Some(q), Some(at)) = (q, ev.run.started_at) {
        let day = at.date();
        if q.expired != q.expired_on(day) {
            return Some(format!(
                "quarantine.expired is {}, but the case started on {day} and the quarantine holds until {}",
                q.expired, q.until
            ));
        }
    }
    let expired = q.is_some_and(|q| q.expired);
    match (has_issue(ev, IssueType::QuarantineExpired), expired) {
        (true, false) => {
            Some("records a QUARANTINE_EXPIRED issue, but no expired quarantine".into())
        }
        (false, true) if matches!(ev.run.result, CaseResult::Passed | CaseResult::Failed) => {
            Some("its quarantine had expired, but it records no QUARANTINE_EXPIRED issue".into())
        }
        _ => None,
    }
}

/// A FLAKY issue only where a case was marked flaky, and a flaky mark
/// only where an earlier attempt failed.
fn flaky_rule(ev: &Evidence) -> Option<String> {
    let earlier_failed = ev
        .previous_attempts
        .iter()
        .any(|a| a.result == CaseResult::Failed);
    if ev.flaky && !earlier_failed {
        return Some("flaky is true, but no earlier attempt failed".into());
    }
    (flaky_failed(ev) && !ev.flaky)
        .then(|| "records a FLAKY issue, but the case is not marked flaky".into())
}

/// A case that ran and could not be finished (docs/judging.md, How a case is
/// judged): ERROR, RUNTIME_FAILED, its status from its exit code (NO_EVIDENCE
/// only without one), and an evidence hash whenever it has an exit code.
fn rejudge_incomplete(ev: &Evidence) -> Vec<String> {
    let mut p = Vec::new();
    let status = unfinished_status(ev.run.exit_code);
    if ev.run.status != status {
        p.push(format!(
            "status is {}, but the exit code {} calls for {}",
            ev.run.status.as_str(),
            shown(ev.run.exit_code),
            status.as_str()
        ));
    }
    if ev.run.exit_code.is_some() && ev.run.evidence_hash.is_none() {
        p.push(format!(
            "evidence_hash is null, but the case ran to exit code {}",
            shown(ev.run.exit_code)
        ));
    }
    if ev.run.execution_status != ExecutionStatus::RuntimeFailed {
        p.push(format!(
            "execution_status is {}, but a case that ran and could not be finished is RUNTIME_FAILED",
            ev.run.execution_status.as_str()
        ));
    }
    if ev.run.result != CaseResult::Error {
        p.push(format!(
            "result is {}, but a case that ran and could not be finished is ERROR",
            ev.run.result.as_str()
        ));
    }
    p.extend(snapshot_rule(ev));
    p
}

fn shown(code: Option<i32>) -> String {
    code.map_or_else(|| "null".to_string(), |c| c.to_string())
}

fn execution_rule(ev: &Evidence) -> Option<String> {
    let x = ev.run.execution_status;
    if x == ExecutionStatus::Skipped {
        return Some("execution_status is SKIPPED, but the case ran".into());
    }
    if x == ExecutionStatus::Success && ev.run.exit_code != Some(0) {
        return Some(format!(
            "execution_status is SUCCESS, but the exit code is {}",
            shown(ev.run.exit_code)
        ));
    }
    if ending(ev).stopped() && x != ExecutionStatus::Aborted {
        return Some(format!(
            "execution_status is {}, but a case killed by a timeout or an interrupt is ABORTED",
            x.as_str()
        ));
    }
    None
}

/// How the case's command ended, as its evidence records it.
fn ending(ev: &Evidence) -> Ending {
    Ending {
        timed_out: ev.timed_out,
        interrupted: ev.interrupted,
        signal: ev.run.exit_code.and_then(crate::model::shell_signal),
    }
}

/// The expected outcome the evidence records, parsed as the harness file's.
fn expected(ev: &Evidence) -> Result<Expected, EvidenceError> {
    let expected = ev.expected.as_deref().unwrap_or("");
    match expected {
        "success" => return Ok(Expected::Success),
        "aborted" => return Ok(Expected::Aborted),
        _ => {}
    }
    let Some(re) = expected.strip_prefix("specific_error:") else {
        return Err(EvidenceError::NoExpected(expected.to_string()));
    };
    regex::bytes::Regex::new(re)
        .map(Expected::SpecificError)
        .map_err(|source| EvidenceError::ExpectedRegex {
            expected: expected.to_string(),
            source,
        })
}

/// The result a ran case must have, by the judge's rule
/// ([`crate::classify::unmet`]) with a `specific_error` regex matched
/// against the logs again; `Err` when the expected outcome cannot be read.
fn result_rule(ev: &Evidence, logs: (&Path, &Path)) -> Result<Option<String>, EvidenceError> {
    let expected = expected(ev)?;
    let golden_modified = (ev.run.issues.iter()).any(|i| i.issue_type == IssueType::GoldenModified);
    // A snapshot that does not match fails a case whatever its status;
    // `snapshot_rule` holds the issue to the recorded comparison.
    // So does a `require` line the output lacked (NOTHING_RAN), and a
    // structured result that failed or could not be read (`RESULT_FAILED`):
    // its kept copy is under the hash.
    let output_changed = (ev.run.issues.iter()).any(|i| {
        is_snapshot_issue(i)
            || matches!(
                i.issue_type,
                IssueType::NothingRan | IssueType::ResultFailed
            )
    });
    // A FLAKY issue fails a case that passed only after a failed attempt
    // (`flaky_rule` holds it to the attempts recorded).
    let output_changed =
        output_changed || flaky_failed(ev) || has_issue(ev, IssueType::QuarantineExpired);
    // The engine matched the output as written; with values masked in the
    // logs a line it matched may no longer match here.
    let matched = || match &expected {
        Expected::SpecificError(re) => logs_match(re, logs).map(|m| m || masked_logs(ev)),
        Expected::Success | Expected::Aborted => Ok(true),
    };
    let why_not = unmet(
        &expected,
        ev.run.execution_status,
        ending(ev),
        golden_modified,
        output_changed,
        matched,
    )?;
    Ok(match (ev.run.result, why_not) {
        (CaseResult::Passed, Some(why)) => Some(format!(
            "result is PASSED, but {why} (expected {expected}): it is FAILED"
        )),
        (CaseResult::Failed, None) if matches!(expected, Expected::Success) => Some(
            "result is FAILED, but execution status SUCCESS with expected success is PASSED"
                .to_string(),
        ),
        (CaseResult::Error | CaseResult::Skipped, _) => Some(format!(
            "result is {}, but the case ran",
            ev.run.result.as_str()
        )),
        _ => None,
    })
}

/// Whether secret values were masked in the logs: they are then not the
/// bytes the engine judged.
fn masked_logs(ev: &Evidence) -> bool {
    ev.run.redactions.stdout + ev.run.redactions.stderr > 0
}

/// Whether `re` matches a line of either log, judged as the engine judges
/// lines (the same classifier, no other pattern).
fn logs_match(re: &regex::bytes::Regex, logs: (&Path, &Path)) -> Result<bool, EvidenceError> {
    use std::io::Read;
    let none = PatternConfig {
        builtin: false,
        ..PatternConfig::default()
    };
    let patterns = Patterns::new(&none)
        .map_err(EvidenceError::Classifier)?
        .with_specific_error(Some(re));
    for log in [logs.0, logs.1] {
        let mut c = patterns.classifier();
        let unreadable = |source| EvidenceError::Log {
            path: log.to_path_buf(),
            source,
        };
        let (mut f, len) = crate::untrusted::open(log).map_err(unreadable)?;
        let mut buf = crate::hash::read_buffer(len, 256 * 1024);
        loop {
            let n = f.read(&mut buf).map_err(unreadable)?;
            if n == 0 {
                break;
            }
            c.feed(&buf[..n]);
        }
        if c.finish().specific_error {
            return Ok(true);
        }
    }
    Ok(false)
}

fn is_snapshot_issue(i: &crate::model::Issue) -> bool {
    matches!(
        i.issue_type,
        IssueType::OutputChanged | IssueType::SnapshotMissing | IssueType::DataChanged
    )
}

/// Snapshot issues exactly when a recorded snapshot comparison failed
/// (docs/baselines.md, Output snapshots and Data snapshots).
fn snapshot_rule(ev: &Evidence) -> Option<String> {
    let issues = ev
        .run
        .issues
        .iter()
        .filter(|i| is_snapshot_issue(i))
        .count();
    let failed = ev.snapshots.iter().filter(|s| s.fails()).count();
    (issues != failed).then(|| {
        format!(
            "records {issues} OUTPUT_CHANGED/DATA_CHANGED/SNAPSHOT_MISSING issue(s), but {failed} failed snapshot comparison(s)"
        )
    })
}

fn issue_rule(ev: &Evidence) -> Option<String> {
    match (ev.run.result, ev.run.issues.is_empty()) {
        (CaseResult::Failed | CaseResult::Error, true) => Some(format!(
            "result is {} without any issue",
            ev.run.result.as_str()
        )),
        (CaseResult::Passed, false) => Some(format!(
            "result is PASSED, but it records {} issue(s)",
            ev.run.issues.len()
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_a_file_is_refused_is_said_once_with_its_cause() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("evidence.json");
        assert_eq!(read(&missing).unwrap_err().message(), "is missing");
        assert_eq!(
            plain_file(dir.path()).unwrap_err().message(),
            "is not a regular file"
        );
        std::fs::write(&missing, "{not json").unwrap();
        let message = read(&missing).unwrap_err().message();
        let cause = serde_json::from_str::<serde_json::Value>("{not json")
            .unwrap_err()
            .to_string();
        assert_eq!(message, format!("is not valid evidence: {cause}"));
        let outside = inside_run(dir.path(), "r1", "artifacts/r1/../x").unwrap_err();
        assert!(
            matches!(&outside, EvidenceError::OutsideRun { rel, .. } if rel == "artifacts/r1/../x"),
            "{outside:?}"
        );
    }
}
