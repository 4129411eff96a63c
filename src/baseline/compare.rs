//! The comparison of a run with the verdict baseline (docs/baselines.md, The
//! verdict baseline): one class per case, the counts, and the gate rule.
//!
//! | class | when |
//! |---|---|
//! | `regressed` | PASSED in the baseline, FAILED or ERROR now |
//! | `changed_failure` | failed in the baseline and now, with another result or signature |
//! | `missing` | in the baseline, no longer declared |
//! | `not_run` | selected, in the baseline, but skipped (fail-fast, interrupt) |
//! | `new` | not in the baseline |
//! | `fixed` | failed in the baseline, PASSED now |
//! | `known_failure` | failed in the baseline and now, same result and signature |
//! | `slower` | PASSED in both, above `slowdown` × the reference duration and at least 1 s more |
//! | `unchanged` | PASSED in both |
//!
//! The reference duration of `slower` is the baseline's, unless the out
//! dir's history holds the case's last [`TYPICAL_RUNS`] passing runs at the
//! run's `--jobs`: then it is their median, so a baseline timed at
//! `--jobs 1` does not mark every case slower under `--jobs 2`.
//!
//! Under `gate = "baseline"` a run passes when no case is `regressed`,
//! `changed_failure`, `missing` or `not_run`, and no `new` case failed: a
//! baseline that covers fewer cases than the run never turns the gate
//! green for a failing case it does not know.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use super::file::{BaselineEntry, BaselineFile};
pub use crate::model::Comparison;
pub(crate) use crate::model::Verdict;
pub(crate) use crate::model::{CaseComparison, Class, ClassCounts};
use crate::model::{CaseKind, Gate};

/// A slower case must also be at least this much slower than its baseline:
/// below it, scheduling noise on a busy machine would flag cases.
pub(crate) const SLOWER_MIN_EXTRA: Duration = Duration::from_secs(1);

/// Passing runs at the same `--jobs` the history must hold of a case
/// before `slower` is judged against their median instead of the baseline.
pub(crate) const TYPICAL_RUNS: usize = 5;

/// A case's typical duration from history: the median of its last
/// [`TYPICAL_RUNS`] passing runs at `jobs` cases at once.
#[derive(Clone, Debug, PartialEq)]
pub struct Typical {
    /// The median, seconds.
    pub(crate) seconds: f64,
    /// Runs it is the median of.
    pub(crate) runs: usize,
    /// The `--jobs` of those runs (and of this one).
    pub(crate) jobs: usize,
}

impl Typical {
    /// The typical duration of each case in `lines` (history lines, oldest
    /// first) at `jobs`, for the cases with enough passing runs there.
    pub(crate) fn of_history(
        lines: &[crate::wire::history::HistoryLine],
        jobs: usize,
    ) -> HashMap<String, Typical> {
        let mut durations: HashMap<&str, Vec<f64>> = HashMap::new();
        for l in lines.iter().rev() {
            if l.jobs == Some(jobs) && l.result == crate::model::CaseResult::Passed {
                let d = durations.entry(l.case.as_str()).or_default();
                if d.len() < TYPICAL_RUNS {
                    d.push(l.duration_seconds);
                }
            }
        }
        durations
            .into_iter()
            .filter(|(_, d)| d.len() >= TYPICAL_RUNS)
            .map(|(case, mut d)| {
                d.sort_by(f64::total_cmp);
                let mid = d.len() / 2;
                let seconds = if d.len() % 2 == 0 {
                    (d[mid - 1] + d[mid]) / 2.0
                } else {
                    d[mid]
                };
                let typical = Typical {
                    seconds,
                    runs: d.len(),
                    jobs,
                };
                (case.to_string(), typical)
            })
            .collect()
    }
}

impl From<&BaselineEntry> for Verdict {
    fn from(e: &BaselineEntry) -> Verdict {
        Verdict {
            result: e.result,
            signature: e.signature.clone(),
            duration_seconds: e.duration_seconds,
        }
    }
}

/// A case of the run as the comparison sees it.
#[derive(Clone, Debug)]
pub struct Observed<'a> {
    /// Case name.
    pub name: &'a str,
    /// Kind.
    pub kind: CaseKind,
    /// Declaration line.
    pub line: usize,
    /// What it did; None when it was selected but not run.
    pub verdict: Option<Verdict>,
}

impl<'a> Observed<'a> {
    /// Case `case` of a run's record, which did `verdict`.
    pub(crate) fn of(case: &'a crate::model::CaseRecord, verdict: Option<Verdict>) -> Observed<'a> {
        Observed {
            name: &case.name,
            kind: case.kind,
            line: case.line,
            verdict,
        }
    }
}

/// Settings of a comparison.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The baseline file as shown to users.
    pub file: String,
    /// What the exit code follows.
    pub gate: Gate,
    /// The `slowdown` factor.
    pub slowdown: f64,
    /// Each case's typical duration from history at this run's `--jobs`;
    /// `slower` is judged against it where there is one.
    pub typical: HashMap<String, Typical>,
}

/// Compare `observed` (the selected cases of a run, in declaration order)
/// with `baseline`. `missing(name)` says whether a baseline case that was
/// not observed counts as missing (no longer declared, and selected); None
/// when missing cases are not looked for.
pub fn compare(
    baseline: Option<&BaselineFile>,
    observed: &[Observed<'_>],
    missing: Option<&dyn Fn(&str) -> bool>,
    settings: &Settings,
) -> Comparison {
    let entries: HashMap<&str, &BaselineEntry> = baseline
        .map(|b| b.cases.iter().map(|e| (e.name.as_str(), e)).collect())
        .unwrap_or_default();
    let mut cases: Vec<CaseComparison> = observed
        .iter()
        .map(|o| {
            let base = entries.get(o.name).map(|e| Verdict::from(*e));
            let (class, detail) = classify(
                base.as_ref(),
                o.verdict.as_ref(),
                settings.slowdown,
                settings.typical.get(o.name),
            );
            CaseComparison {
                name: o.name.to_string(),
                class,
                kind: Some(o.kind),
                line: Some(o.line),
                baseline: base,
                now: o.verdict.clone(),
                detail,
            }
        })
        .collect();
    if let (Some(b), Some(is_missing)) = (baseline, missing) {
        let seen: HashSet<&str> = observed.iter().map(|o| o.name).collect();
        for e in b.cases.iter().filter(|e| !seen.contains(e.name.as_str())) {
            if is_missing(&e.name) {
                cases.push(CaseComparison {
                    name: e.name.clone(),
                    class: Class::Missing,
                    kind: e.kind,
                    line: None,
                    baseline: Some(Verdict::from(e)),
                    now: None,
                    detail: format!("{} in the baseline, no longer declared", e.result.as_str()),
                });
            }
        }
    }
    let mut counts = ClassCounts::default();
    for c in &cases {
        *counts.slot(c.class) += 1;
    }
    Comparison {
        file: settings.file.clone(),
        found: baseline.is_some(),
        gate: settings.gate,
        slowdown: settings.slowdown,
        blessed: false,
        missing_not_checked: missing.is_none(),
        counts,
        cases,
    }
}

/// The comparison of a merged run: the shards' comparisons joined, cases
/// in the merged record's order, then the missing ones. None unless every
/// shard was compared.
pub(crate) fn merge<'a>(
    parts: impl Iterator<Item = Option<&'a Comparison>>,
    cases: &[crate::model::CaseRecord],
) -> Option<Comparison> {
    let parts: Vec<&Comparison> = parts.collect::<Option<_>>()?;
    let first = parts.first()?;
    let order: HashMap<&str, usize> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let mut joined: Vec<CaseComparison> = parts.iter().flat_map(|p| p.cases.clone()).collect();
    joined.sort_by_key(|c| order.get(c.name.as_str()).copied().unwrap_or(usize::MAX));
    let mut counts = ClassCounts::default();
    for c in &joined {
        *counts.slot(c.class) += 1;
    }
    Some(Comparison {
        file: first.file.clone(),
        found: parts.iter().any(|p| p.found),
        gate: first.gate,
        slowdown: first.slowdown,
        blessed: parts.iter().all(|p| p.blessed),
        missing_not_checked: parts.iter().all(|p| p.missing_not_checked),
        counts,
        cases: joined,
    })
}

/// The class of one case and a line on what changed. `slower` is judged
/// against `typical` when there is one, else against the baseline.
pub(crate) fn classify(
    base: Option<&Verdict>,
    now: Option<&Verdict>,
    slowdown: f64,
    typical: Option<&Typical>,
) -> (Class, String) {
    let sig = |v: &Verdict| match &v.signature {
        Some(s) => format!("{}: {s}", v.result.as_str()),
        None => v.result.as_str().to_string(),
    };
    let Some(now) = now else {
        return match base {
            Some(b) => (
                Class::NotRun,
                format!("{} in the baseline, not run this time", b.result.as_str()),
            ),
            None => (Class::New, "not in the baseline; not run".to_string()),
        };
    };
    let Some(base) = base else {
        return (Class::New, format!("not in the baseline; now {}", sig(now)));
    };
    match (base.result.is_failure(), now.result.is_failure()) {
        (false, true) => (Class::Regressed, format!("PASSED → {}", sig(now))),
        (true, false) => (Class::Fixed, format!("{} → PASSED", base.result.as_str())),
        (true, true) if base.result == now.result && base.signature == now.signature => (
            Class::KnownFailure,
            format!("{}, as in the baseline", sig(now)),
        ),
        (true, true) => (
            Class::ChangedFailure,
            format!("was {}; now {}", sig(base), sig(now)),
        ),
        (false, false) => {
            let b = typical.map_or(base.duration_seconds, |t| t.seconds);
            let n = now.duration_seconds;
            if n > slowdown * b && n - b >= SLOWER_MIN_EXTRA.as_secs_f64() {
                let ratio = if b > 0.0 { n / b } else { f64::INFINITY };
                let reference = match typical {
                    Some(t) => format!(
                        "{b:.2}s, the median of its last {} runs at --jobs {}",
                        t.runs, t.jobs
                    ),
                    None => format!("its baseline {b:.2}s"),
                };
                (
                    Class::Slower,
                    format!("took {n:.2}s, {ratio:.1}× {reference} (limit {slowdown}×)"),
                )
            } else {
                (Class::Unchanged, String::new())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CaseResult;

    fn v(result: CaseResult, sig: Option<&str>, secs: f64) -> Verdict {
        Verdict {
            result,
            signature: sig.map(str::to_string),
            duration_seconds: secs,
        }
    }

    #[test]
    fn every_class_from_its_rule() {
        use CaseResult::*;
        let pass = v(Passed, None, 1.0);
        let fail = v(Failed, Some("EXECUTION_FAILURE: exit 1"), 1.0);
        let other = v(Failed, Some("EXECUTION_FAILURE: exit 2"), 1.0);
        let error = v(Error, Some("EXECUTION_FAILURE: exit 1"), 1.0);
        let c = |b: Option<&Verdict>, n: Option<&Verdict>| classify(b, n, 2.0, None).0;
        assert_eq!(c(Some(&pass), Some(&fail)), Class::Regressed);
        assert_eq!(c(Some(&pass), Some(&error)), Class::Regressed);
        assert_eq!(c(Some(&fail), Some(&pass)), Class::Fixed);
        assert_eq!(c(Some(&fail), Some(&fail)), Class::KnownFailure);
        assert_eq!(c(Some(&fail), Some(&other)), Class::ChangedFailure);
        assert_eq!(c(Some(&fail), Some(&error)), Class::ChangedFailure);
        assert_eq!(c(None, Some(&pass)), Class::New);
        assert_eq!(c(Some(&pass), None), Class::NotRun);
        assert_eq!(c(Some(&pass), Some(&pass)), Class::Unchanged);
    }

    #[test]
    fn slower_needs_both_the_factor_and_a_second() {
        let c = |b: f64, n: f64| {
            classify(
                Some(&v(CaseResult::Passed, None, b)),
                Some(&v(CaseResult::Passed, None, n)),
                2.0,
                None,
            )
            .0
        };
        assert_eq!(c(1.0, 3.0), Class::Slower);
        assert_eq!(c(1.0, 1.9), Class::Unchanged);
        // 10× slower but only 0.9 s more: noise, not a slowdown.
        assert_eq!(c(0.1, 1.0), Class::Unchanged);
        assert_eq!(c(0.0, 1.5), Class::Slower);
        assert_eq!(c(10.0, 19.0), Class::Unchanged);
    }

    #[test]
    fn gate_counts_new_failures_and_missing_cases() {
        let base = BaselineFile {
            schema_version: "1.0.0".into(),
            suite: String::new(),
            cases: vec![BaselineEntry {
                name: "gone".into(),
                kind: None,
                result: CaseResult::Passed,
                signature: None,
                duration_seconds: 1.0,
            }],
        };
        let settings = Settings {
            file: "golden-baseline.json".into(),
            gate: Gate::Baseline,
            slowdown: 2.0,
            typical: HashMap::new(),
        };
        let observed = [Observed {
            name: "fresh",
            kind: CaseKind::Verify,
            line: 3,
            verdict: Some(v(CaseResult::Failed, Some("X: y"), 0.1)),
        }];
        let all = |_: &str| true;
        let cmp = compare(Some(&base), &observed, Some(&all), &settings);
        assert_eq!(cmp.counts.new, 1);
        assert_eq!(cmp.counts.missing, 1);
        assert_eq!(cmp.gate_failures().count(), 2);
        assert!(!cmp.passes_gate());
        let cmp = compare(Some(&base), &observed[..0], None, &settings);
        assert!(cmp.passes_gate() && cmp.missing_not_checked);
    }
}
