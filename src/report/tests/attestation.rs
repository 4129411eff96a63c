//! The test-result predicate never says PASSED for a run that does not
//! exit 0: whatever the cases' results, retries, interrupts, empty
//! selections and baseline gates of a generated run record, the result
//! built from it is FAILED whenever the exit code is 1, 3, 4 or 5, and
//! every case lands in exactly one of the predicate's lists.

use crate::baseline::compare::Comparison;
use crate::conclusion::Results;
use crate::model::{
    CaseComparison, CaseKind, CaseRecord, CaseResult, Class, ClassCounts, EmptySelection,
    ExecutionStatus, Gate, NoCases, RunRecord,
};
use crate::report::attest::{Outcome, test_name, test_result};
use proptest::prelude::*;

use super::support;

/// One generated case: its result (0 passed, 1 failed, 2 error, 3
/// skipped), whether it passed on a retry, golden or verify, and its class
/// against the baseline.
type CaseSpec = (u8, bool, bool, usize);

fn case(index: usize, (result, flaky, golden, _): CaseSpec) -> CaseRecord {
    let name = format!("case {index}");
    let kind = if golden {
        CaseKind::Golden
    } else {
        CaseKind::Verify
    };
    let mut c = match result {
        0 => support::ran(
            index,
            &name,
            kind,
            "true",
            0,
            b"",
            b"",
            ExecutionStatus::Success,
            CaseResult::Passed,
        ),
        1 => support::ran(
            index,
            &name,
            kind,
            "false",
            1,
            b"",
            b"",
            ExecutionStatus::RuntimeFailed,
            CaseResult::Failed,
        ),
        2 => support::no_evidence(index, &name, kind, "cannot start"),
        _ => CaseRecord::skipped(
            index,
            &name,
            kind,
            1,
            "true",
            "/project".into(),
            "skipped by --skip",
        ),
    };
    c.flaky = flaky && result == 0;
    c
}

fn record(
    cases: &[CaseSpec],
    interrupted: bool,
    no_cases: Option<NoCases>,
    gate: Option<Gate>,
) -> RunRecord {
    let dir = std::path::PathBuf::from("/nonexistent-out");
    let records: Vec<CaseRecord> = cases.iter().enumerate().map(|(i, s)| case(i, *s)).collect();
    let mut r = support::record(&dir, records);
    r.interrupted = interrupted;
    r.empty_selection = no_cases.map(|policy| EmptySelection {
        reason: "the filter selected nothing".into(),
        policy,
    });
    r.baseline = gate.map(|gate| {
        let compared: Vec<CaseComparison> = r
            .cases
            .iter()
            .zip(cases)
            .map(|(c, s)| CaseComparison {
                name: c.name.clone(),
                class: Class::ALL[s.3 % Class::ALL.len()],
                kind: Some(c.kind),
                line: Some(c.line),
                baseline: None,
                now: None,
                detail: String::new(),
            })
            .collect();
        Comparison {
            file: "golden-baseline.json".into(),
            found: true,
            gate,
            slowdown: 2.0,
            blessed: false,
            missing_not_checked: false,
            counts: ClassCounts::default(),
            cases: compared,
        }
    });
    r
}

fn specs() -> impl Strategy<Value = Vec<CaseSpec>> {
    prop::collection::vec((0u8..4, any::<bool>(), any::<bool>(), 0usize..9), 0..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_run_that_does_not_exit_0_is_never_passed(
        cases in specs(),
        interrupted in any::<bool>(),
        no_cases in prop::option::of(prop::sample::select(vec![NoCases::Pass, NoCases::Warn, NoCases::Fail])),
        gate in prop::option::of(prop::sample::select(vec![Gate::Results, Gate::Baseline])),
        other in prop::sample::select(vec![1, 3, 4, 5]),
    ) {
        let r = record(&cases, interrupted, no_cases, gate);
        let code = Results::of(&r).exit_code;
        for exit in [code, other] {
            let t = test_result(&r, exit);
            if exit != 0 {
                prop_assert_eq!(t.result, Outcome::Failed, "exit {}", exit);
            }
            if t.result == Outcome::Passed {
                prop_assert!(t.failed.is_empty() && t.warned.is_empty());
            }
            // Every case in exactly one list, in declaration order.
            let mut listed: Vec<&String> = t.passed.iter().chain(&t.warned).chain(&t.failed).chain(&t.skipped).collect();
            listed.sort();
            let mut names: Vec<String> = r.cases.iter().map(test_name).collect();
            names.sort();
            prop_assert_eq!(listed, names.iter().collect::<Vec<_>>());
        }
        // What makes the run exit 1, 3 or 5 makes the predicate FAILED.
        if interrupted {
            prop_assert_eq!(test_result(&r, code).result, Outcome::Failed);
        }
    }
}
