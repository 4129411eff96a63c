//! The streaming reporters, fed the events of a run: terminal, JSON
//! messages and GitHub Actions.

use std::path::Path;

use crate::conclusion::{Reports, Results, RunOutcome};
use crate::events::{Event, Reporter};
use crate::model::{CaseKind, CaseRecord, CaseResult, ExecutionStatus, IssueType, RunRecord};
use crate::report::github::{GithubEnv, GithubReporter, STEP_SUMMARY_LIMIT};
use crate::report::json_messages::JsonMessageReporter;
use crate::report::terminal::TerminalReporter;

use super::support;

/// The events the engine emits for a finished record.
fn feed(reporter: &mut dyn Reporter, record: &RunRecord) {
    reporter
        .report(&Event::RunStarted {
            run_id: &record.run_id,
            suite_name: &record.suite_name,
            case_count: record.cases.len(),
        })
        .unwrap();
    for w in &record.warnings {
        reporter.report(&Event::Warning { message: w }).unwrap();
    }
    for case in &record.cases {
        if case.result != CaseResult::Skipped {
            reporter
                .report(&Event::CaseStarted {
                    index: case.index,
                    name: &case.name,
                    kind: case.kind,
                })
                .unwrap();
        }
        reporter.report(&Event::CaseFinished { case }).unwrap();
    }
    let written = crate::report::Written::in_dir(&record.out_dir);
    let outcome = RunOutcome::new(
        Results::of(record),
        Reports::Consistent,
        written.paths().to_vec(),
        false,
    );
    reporter
        .report(&Event::RunFinished {
            record,
            outcome: &outcome,
        })
        .unwrap();
}

fn redact(text: &str, out_dir: &Path) -> String {
    text.replace(&out_dir.display().to_string(), "[out]")
}

fn terminal_output(record: &RunRecord, color: bool) -> String {
    let mut r = TerminalReporter::new(Vec::new(), color, false);
    feed(&mut r, record);
    String::from_utf8(r.into_inner()).unwrap()
}

#[test]
fn terminal_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record
        .warnings
        .push("no golden project declared".to_string());
    let text = terminal_output(&record, false);
    assert!(!text.contains('\x1b'));
    insta::assert_snapshot!(redact(&text, dir.path()));
}

#[test]
fn terminal_colors_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let colored = terminal_output(&record, true);
    assert!(
        colored.contains("\x1b[1m\x1b[31m") || colored.contains("\x1b[31m"),
        "{colored:?}"
    );
    let plain = terminal_output(&record, false);
    assert_eq!(anstream::adapter::strip_str(&colored).to_string(), plain);
}

#[test]
fn terminal_keeps_case_text_on_one_line_without_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::hostile(dir.path());
    // The huge output is not printed anyway; keep the test quick.
    record.cases[0].stdout.truncate(100);
    let text = terminal_output(&record, false);
    assert!(
        !text.contains('\x1b') && !text.contains('\x07') && !text.contains('\0'),
        "{text:?}"
    );
    let failed: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("FAILED"))
        .collect();
    // The finished line and the summary line, each whole.
    assert_eq!(failed.len(), 2, "{text}");
    assert!(
        failed[0].contains("a | b `code` <script>alert(1)</script> line2 & ]]>"),
        "{}",
        failed[0]
    );
    assert!(
        failed[0].ends_with(": Pipeline failed: line two | `x` <script> bold"),
        "{}",
        failed[0]
    );
}

#[test]
fn json_messages_one_object_per_event() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let mut r = JsonMessageReporter::new(Vec::new());
    feed(&mut r, &record);
    let text = String::from_utf8(r.into_inner()).unwrap();
    let reasons: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["reason"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(reasons.first().map(String::as_str), Some("run-started"));
    assert_eq!(reasons.last().map(String::as_str), Some("run-finished"));
    assert_eq!(
        reasons.iter().filter(|r| *r == "case-finished").count(),
        record.cases.len()
    );
    assert_eq!(
        reasons.iter().filter(|r| *r == "case-started").count(),
        record.cases.len() - 1
    );
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["exit_code"], 1);
    assert_eq!(last["counts"]["failed"], 1);
    insta::assert_snapshot!(redact(&text, dir.path()));
}

fn github(record: &RunRecord, summary: Option<&Path>) -> String {
    let env = GithubEnv {
        workspace: Some("/project".into()),
        step_summary: summary.map(Path::to_path_buf),
        output: None,
        run_url: Some("https://github.com/acme/etl/actions/runs/42".into()),
    };
    let mut r = GithubReporter::new(Vec::new(), env, Path::new("/project/ci/harness.toml"))
        .with_stop_token("STOPTOKEN");
    assert_eq!(r.harness_file(), "ci/harness.toml");
    feed(&mut r, record);
    String::from_utf8(r.into_inner()).unwrap()
}

#[test]
fn github_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record.out_dir = "/project/target/golden".into();
    insta::assert_snapshot!(github(&record, None));
}

fn failing(n: usize, out_dir: &Path) -> RunRecord {
    let cases: Vec<CaseRecord> = (0..n)
        .map(|i| {
            let name = format!("case {i}");
            let mut c = support::ran(
                i,
                &name,
                CaseKind::Verify,
                "false",
                1,
                b"",
                format!("boom {i}\n").as_bytes(),
                ExecutionStatus::RuntimeFailed,
                CaseResult::Failed,
            );
            c.issues.push(support::issue(
                &name,
                CaseKind::Verify,
                IssueType::ExecutionFailure,
                "Command exited with code 1",
                "Status: RUNTIME_FAILED | Exit code: 1 | Output: boom",
            ));
            c
        })
        .collect();
    support::record(out_dir, cases)
}

fn error_lines(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.starts_with("::error ")).collect()
}

#[test]
fn github_caps_error_annotations_at_ten() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = failing(12, dir.path());
    record.out_dir = "/project/target/golden".into();
    let out = github(&record, None);
    let errors = error_lines(&out);
    assert_eq!(errors.len(), 10, "{out}");
    for (i, e) in errors[..9].iter().enumerate() {
        assert!(
            e.starts_with(&format!(
                "::error file=ci/harness.toml,line={},title=verify case {i} FAILED (RUNTIME_FAILED)::",
                10 + i * 6
            )),
            "{e}"
        );
    }
    assert_eq!(
        errors[9],
        "::error file=ci/harness.toml,line=64,title=3 more case(s) failed::3 more case(s) failed: \
         case 9, case 10, case 11.%0ASee target/golden/report.md for every failure."
    );

    // Exactly ten failures: every one gets its own annotation.
    let record = failing(10, dir.path());
    let errors = error_lines(&github(&record, None)).len();
    assert_eq!(errors, 10);
    assert!(!github(&record, None).contains("more case(s) failed"));
}

#[test]
fn github_escapes_properties_and_data() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = failing(1, dir.path());
    let c = &mut record.cases[0];
    c.name = "100% sure: a,b\nc".to_string();
    c.issues[0].message = "50% done\r\nnext: a,b".to_string();
    c.warnings.push("leaked: 2% of\nprocesses".to_string());
    let out = github(&record, None);
    let error = error_lines(&out)[0];
    assert_eq!(
        error,
        "::error file=ci/harness.toml,line=10,title=verify 100%25 sure%3A a%2Cb c FAILED (RUNTIME_FAILED)::\
         [EXECUTION_FAILURE] 50%25 done next: a,b"
    );
    assert!(out.contains("::warning file=ci/harness.toml,line=10,title=verify 100%25 sure%3A a%2Cb c::leaked: 2%25 of%0Aprocesses"), "{out}");
}

#[test]
fn github_groups_output_behind_stop_commands() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = failing(1, dir.path());
    record.cases[0].stdout = b"::error::injected\n::add-mask::x\n".to_vec();
    let out = github(&record, None);
    let lines: Vec<&str> = out.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("::group::"))
        .unwrap();
    assert_eq!(
        lines[start],
        "::group::FAILED verify case 0: RUNTIME_FAILED"
    );
    assert_eq!(lines[start + 1], "::stop-commands::STOPTOKEN");
    let injected = lines
        .iter()
        .position(|l| *l == "::error::injected")
        .unwrap();
    let resume = lines.iter().position(|l| *l == "::STOPTOKEN::").unwrap();
    let end = lines.iter().position(|l| *l == "::endgroup::").unwrap();
    assert!(
        start + 1 < injected && injected < resume && resume + 1 == end,
        "{out}"
    );
    assert!(out.contains("boom 0"));
    // The annotation itself comes after the group, outside the fence.
    assert!(
        lines
            .iter()
            .position(|l| l.starts_with("::error file="))
            .unwrap()
            > end
    );
}

#[test]
fn github_appends_report_to_step_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("step_summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let record = support::fixed(dir.path());
    github(&record, Some(&summary));
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("# earlier step\n# Golden report: demo\n"),
        "{text}"
    );
    assert!(text.contains("| Step | Command | Exit Code | Status | Hash | Artifacts |"));
    assert!(text.contains("**Final status:** PARTIAL (2 case(s) failed)"));
    assert!(text.ends_with("_Total duration: 5.43s_\n"));
}

#[test]
fn github_step_summary_stays_under_one_mib() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("step_summary.md");
    let earlier = "x".repeat(1000) + "\n";
    std::fs::write(&summary, &earlier).unwrap();
    let mut record = failing(4000, dir.path());
    for c in &mut record.cases {
        c.raw_command = "cargo run --release -- ".to_string() + &"arg ".repeat(60);
    }
    let out = github(&record, Some(&summary));
    assert_eq!(error_lines(&out).len(), 10);
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(text.len() < STEP_SUMMARY_LIMIT, "{}", text.len());
    assert!(
        text.len() > STEP_SUMMARY_LIMIT - 2000,
        "uses the room it has: {}",
        text.len()
    );
    assert!(text.starts_with(&earlier));
    assert!(text.contains("| case 100 |"));
    let note_at = text
        .find("\n> [!NOTE]\n> This summary was shortened")
        .unwrap();
    // Cut at a line boundary: the note follows a complete line.
    assert_eq!(&text[note_at - 1..note_at], "\n");
    assert!(text.ends_with("report.md.\n"), "{}", &text[note_at..]);
}

#[test]
fn reporters_fit_the_fanout() {
    // Fanout holds `Box<dyn Reporter + Send>`; the real constructors'
    // types must qualify.
    fn boxed<R: Reporter + Send + 'static>(_: Option<R>) {}
    boxed::<TerminalReporter<std::io::Stderr>>(None);
    boxed::<JsonMessageReporter<std::io::Stdout>>(None);
    boxed::<GithubReporter<crate::report::github::CommandStream>>(None);
}

#[test]
fn terminal_labels_end_in_one_column_and_interrupted_says_what_happened() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record.interrupted = true;
    let text = terminal_output(&record, false);
    for line in text.lines() {
        assert_eq!(
            line.chars().nth(12),
            Some(' '),
            "every label, `Final status` too, ends at column 12: {line:?}"
        );
        assert!(!line.starts_with(' ') || line.len() > 12, "{line:?}");
    }
    assert!(!text.contains("the run was interrupted"), "{text}");
    assert!(text.contains(" Interrupted by a signal: "), "{text}");
}
