//! `cargo golden history [FILTER]`: each case across the runs the out
//! dir's `history.jsonl` keeps: its last results as a strip, pass rate,
//! median and p90 duration, the commit it has failed since, and the
//! commits on which it both passed and failed (flaky without a retry).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::model::{CaseKind, CaseResult};
use crate::wire::history::{HistoryLine, strip_mark};

/// The schema version of a `--message-format json` line of `history`.
pub(crate) const SCHEMA_VERSION: &str = "1.0.0";

/// One case across the runs of a history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct CaseHistory {
    /// Version of this format: `1.<minor>.<patch>`.
    pub(crate) schema_version: &'static str,
    /// Always `"case_history"`.
    #[serde(rename = "type")]
    pub(crate) line_type: &'static str,
    /// Case name.
    pub(crate) case: String,
    /// `golden` or `verify` (as its latest line says).
    pub(crate) kind: CaseKind,
    /// Runs of the history that hold the case.
    pub(crate) runs: usize,
    /// Results of the last runs shown, oldest first.
    pub(crate) last: Vec<CaseResult>,
    /// `last` as a strip: ✔ passed, ✘ failed, ! error, · skipped.
    pub(crate) strip: String,
    /// Passed runs among those of `last` that ran, 0 to 1; null when none
    /// ran.
    pub(crate) pass_rate: Option<f64>,
    /// Median duration in seconds of the runs of `last` that ran.
    pub(crate) median_seconds: Option<f64>,
    /// 90th percentile duration in seconds (nearest rank), likewise.
    pub(crate) p90_seconds: Option<f64>,
    /// When the latest run that ran it failed: the run that began the
    /// current streak of failures.
    pub(crate) failing_since: Option<FailingSince>,
    /// Commits (clean work trees only) on which the case both passed and
    /// failed: flaky whatever the retries said.
    pub(crate) flipped_commits: Vec<String>,
    /// The case is quarantined in its latest run.
    pub(crate) quarantined: bool,
    /// Quarantined, and it passed its last [`LEAVE_QUARANTINE_AFTER`]
    /// runs (skips aside): it may leave quarantine.
    pub(crate) may_leave_quarantine: bool,
}

/// Passing runs in a row after which a quarantined case may leave
/// quarantine.
pub(crate) const LEAVE_QUARANTINE_AFTER: usize = 5;

/// The run that began a case's current streak of failures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct FailingSince {
    /// Its run id.
    pub(crate) run_id: String,
    /// Its commit; null outside git.
    pub(crate) commit: Option<String>,
}

/// Each case of `lines` that `selects` keeps, at most `last` results per
/// strip: the latest run's cases first, in its order, then the cases only
/// older runs hold.
pub(crate) fn summarize(
    lines: &[HistoryLine],
    selects: impl Fn(&str) -> bool,
    last: usize,
) -> Vec<CaseHistory> {
    let mut runs: Vec<&str> = Vec::new();
    let mut by_run: BTreeMap<&str, Vec<&HistoryLine>> = BTreeMap::new();
    let mut by_case: BTreeMap<&str, Vec<&HistoryLine>> = BTreeMap::new();
    for l in lines.iter().filter(|l| selects(&l.case)) {
        let run = by_run.entry(&l.run_id).or_default();
        if run.is_empty() {
            runs.push(&l.run_id);
        }
        run.push(l);
        by_case.entry(&l.case).or_default().push(l);
    }
    let mut order: Vec<&str> = Vec::new();
    let mut placed = std::collections::BTreeSet::new();
    for run in runs.iter().rev() {
        for l in &by_run[run] {
            if placed.insert(l.case.as_str()) {
                order.push(&l.case);
            }
        }
    }
    order
        .into_iter()
        .map(|case| one_case(case, &by_case[case], last.max(1)))
        .collect()
}

fn one_case(case: &str, lines: &[&HistoryLine], last: usize) -> CaseHistory {
    let shown = &lines[lines.len().saturating_sub(last)..];
    let ran: Vec<&&HistoryLine> = shown
        .iter()
        .filter(|l| matches!(l.result, CaseResult::Passed | CaseResult::Failed))
        .collect();
    let counted: Vec<&&HistoryLine> = shown
        .iter()
        .filter(|l| l.result != CaseResult::Skipped)
        .collect();
    let passed = counted
        .iter()
        .filter(|l| l.result == CaseResult::Passed)
        .count();
    let mut durations: Vec<f64> = ran.iter().map(|l| l.duration_seconds).collect();
    durations.sort_by(f64::total_cmp);
    CaseHistory {
        schema_version: SCHEMA_VERSION,
        line_type: "case_history",
        case: case.to_string(),
        kind: lines.last().map_or(CaseKind::Golden, |l| l.kind),
        runs: lines.len(),
        last: shown.iter().map(|l| l.result).collect(),
        strip: shown.iter().map(|l| strip_mark(l.result)).collect(),
        pass_rate: (!counted.is_empty()).then(|| passed as f64 / counted.len() as f64),
        median_seconds: percentile(&durations, 50),
        p90_seconds: percentile(&durations, 90),
        failing_since: failing_since(lines),
        flipped_commits: flipped_commits(lines),
        quarantined: lines.last().is_some_and(|l| l.quarantined),
        may_leave_quarantine: may_leave_quarantine(lines),
    }
}

/// Quarantined in the latest run, and passed in each of the last
/// [`LEAVE_QUARANTINE_AFTER`] runs that ran it.
fn may_leave_quarantine(lines: &[&HistoryLine]) -> bool {
    let ran: Vec<&&HistoryLine> = lines
        .iter()
        .rev()
        .filter(|l| l.result != CaseResult::Skipped)
        .take(LEAVE_QUARANTINE_AFTER)
        .collect();
    lines.last().is_some_and(|l| l.quarantined)
        && ran.len() == LEAVE_QUARANTINE_AFTER
        && ran.iter().all(|l| l.result == CaseResult::Passed)
}

/// The nearest-rank percentile `p` of sorted `values`.
fn percentile(sorted: &[f64], p: usize) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    Some(sorted[rank - 1])
}

/// The first run of the current streak of failures, when the latest run
/// that ran the case (skips aside) failed or errored.
fn failing_since(lines: &[&HistoryLine]) -> Option<FailingSince> {
    let mut first = None;
    for l in lines
        .iter()
        .rev()
        .filter(|l| l.result != CaseResult::Skipped)
    {
        if !l.result.is_failure() {
            break;
        }
        first = Some(FailingSince {
            run_id: l.run_id.clone(),
            commit: l.commit.clone(),
        });
    }
    first
}

/// Commits of a clean work tree on which the case both passed and failed.
fn flipped_commits(lines: &[&HistoryLine]) -> Vec<String> {
    let mut seen: BTreeMap<&str, (bool, bool)> = BTreeMap::new();
    let mut order = Vec::new();
    for l in lines {
        let (Some(commit), Some(false)) = (&l.commit, l.dirty) else {
            continue;
        };
        let entry = seen.entry(commit).or_insert_with(|| {
            order.push(commit.as_str());
            (false, false)
        });
        match l.result {
            CaseResult::Passed => entry.0 = true,
            CaseResult::Failed => entry.1 = true,
            CaseResult::Error | CaseResult::Skipped => {}
        }
    }
    order
        .into_iter()
        .filter(|c| seen[c] == (true, true))
        .map(str::to_string)
        .collect()
}

/// The human table of `cases`, one line each, read from `file`.
pub(crate) fn human(cases: &[CaseHistory], file: &Path) -> String {
    let mut out = String::new();
    if cases.is_empty() {
        let _ = writeln!(
            out,
            "no case in {} (a run appends to it once its reports are written)",
            crate::layout::display_relative(file)
        );
        return out;
    }
    let width = cases
        .iter()
        .map(|c| c.strip.chars().count())
        .max()
        .unwrap_or(0);
    let secs = |s: Option<f64>| s.map_or_else(|| "-".to_string(), |s| format!("{s:.2}s"));
    for c in cases {
        let rate = c
            .pass_rate
            .map_or_else(|| "-".into(), |r| format!("{:.0}%", r * 100.0));
        let _ = write!(
            out,
            "{}{}  {rate:>4} passed  median {:>8}  p90 {:>8}  {}",
            c.strip,
            " ".repeat(width - c.strip.chars().count()),
            secs(c.median_seconds),
            secs(c.p90_seconds),
            c.case
        );
        if let Some(since) = &c.failing_since {
            let commit = since
                .commit
                .as_deref()
                .map_or("no commit recorded", |c| &c[..c.len().min(12)]);
            let _ = write!(out, "  failing since {commit} (run {})", since.run_id);
        }
        if c.may_leave_quarantine {
            let _ = write!(
                out,
                "  QUARANTINED: passed its last {LEAVE_QUARANTINE_AFTER} runs, may leave quarantine"
            );
        } else if c.quarantined {
            let _ = write!(out, "  QUARANTINED");
        }
        if !c.flipped_commits.is_empty() {
            let _ = write!(
                out,
                "  FLAKY: passed and failed on {} commit(s)",
                c.flipped_commits.len()
            );
        }
        out.push('\n');
    }
    out
}

/// What `cargo golden history` shows of the out dir's history.
pub(crate) struct Query {
    /// Which cases (their filters).
    pub(crate) filter: crate::runner::select::Filter,
    /// Results shown per case.
    pub(crate) last: usize,
    /// A line per case, or one JSON object per case.
    pub(crate) format: crate::commands::MessageFormat,
}

/// `cargo golden history`: each case `query` selects across the runs of
/// `out_dir`'s history file; unreadable lines are warned about and left
/// out.
pub(crate) fn command(out_dir: &Path, query: &Query) -> i32 {
    use crate::commands::MessageFormat;
    use crate::commands::output::{CommandError, print_stdout, usage_error};
    let file = out_dir.join(crate::layout::HISTORY_FILE);
    let lines = match crate::wire::history::read(&file) {
        Ok(lines) => lines,
        Err(e) => return usage_error(&CommandError::Read(file, e)),
    };
    let mut readable = Vec::new();
    for (n, line) in lines {
        match line {
            Ok(l) => readable.push(l),
            Err(e) => eprintln!(
                "warning: {}:{n}: not a history line: {e}",
                crate::layout::display_relative(&file)
            ),
        }
    }
    let cases = summarize(&readable, |n| query.filter.matches(n), query.last);
    match query.format {
        MessageFormat::Human => print_stdout(human(&cases, &file).trim_end()),
        MessageFormat::Json => {
            for c in &cases {
                match serde_json::to_string(c) {
                    Ok(line) => print_stdout(&line),
                    Err(e) => return usage_error(&CommandError::Schema(e)),
                }
            }
        }
    }
    crate::conclusion::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile(&v, 50), Some(5.0));
        assert_eq!(percentile(&v, 90), Some(9.0));
        assert_eq!(percentile(&[3.0], 90), Some(3.0));
        assert_eq!(percentile(&[], 50), None);
    }
}
