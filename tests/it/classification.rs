//! Classification and judging (docs/judging.md, How a case is judged) through
//! the real binary: each case runs a real command, and the verdict is read
//! back from the exit code, `evidence.json` and `summary.json`.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Project, text};
use serde_json::Value;

/// The path of a fixture file, shell-quoted for a `command`.
fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    assert!(p.is_file(), "missing fixture {}", p.display());
    sh_quote(&p.display().to_string())
}

/// `s` single-quoted for sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A TOML basic string holding `s`.
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A harness with one verify case running `command`, plus `extra` keys.
fn verify(command: &str, extra: &str) -> Project {
    Project::new(&format!(
        "[[verify]]\nname = \"case\"\ncommand = {}\n{extra}\n",
        toml_str(command)
    ))
}

/// Run the project, check the exit code and return the only case's evidence
/// after checking that summary.json says the same.
fn run_one(p: &Project, exit: i32) -> Value {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(exit), "{}", text(&o));
    let ev = p.evidence("001-case");
    let summary = p.summary();
    let case = &summary["cases"][0];
    for key in [
        "execution_status",
        "result",
        "exit_code",
        "issues",
        "validation_errors",
    ] {
        assert_eq!(
            case[key], ev[key],
            "summary.json and evidence.json disagree on {key}"
        );
    }
    ev
}

fn issue_types(ev: &Value) -> Vec<&str> {
    ev["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect()
}

fn issue<'a>(ev: &'a Value, kind: &str) -> &'a Value {
    ev["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} issue: {ev:#}"))
}

fn fields(ev: &Value) -> Vec<(String, String)> {
    ev["validation_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_string(),
                e["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(f, m)| (f.to_string(), m.to_string()))
        .collect()
}

#[test]
fn real_pydantic_output_at_exit_zero_is_a_validation_failure() {
    let p = verify(&format!("cat {}", fixture("pydantic-3-errors.txt")), "");
    let ev = run_one(&p, 1);
    assert_eq!(ev["exit_code"], 0);
    assert_eq!(ev["status"], "SUCCESS", "the process itself exited 0");
    assert_eq!(ev["execution_status"], "VALIDATION_FAILED");
    assert_eq!(ev["result"], "FAILED");
    assert_eq!(issue_types(&ev), ["CONFIGURATION_ERROR"]);
    // Every error, message without its `[type=…]` suffix.
    assert_eq!(
        fields(&ev),
        pairs(&[
            ("stages.0.name", "Input should be a valid string"),
            (
                "stages.0.source.partitions",
                "Input should be greater than or equal to 1"
            ),
            ("stages.0.columns", "Input should be a valid list"),
        ])
    );
    let message = issue(&ev, "CONFIGURATION_ERROR")["message"]
        .as_str()
        .unwrap();
    assert_eq!(
        message,
        "Pipeline validation failed: stages.0.name - Input should be a valid string"
    );
}

/// A model with two invalid fields, printed by pydantic itself when it is
/// installed; otherwise the text pydantic 2 prints for it.
const TWO_ERRORS_PY: &str = r#"
from pydantic import BaseModel, Field, ValidationError
class Node(BaseModel):
    name: str
    retries: int = Field(ge=0)
class Pipeline(BaseModel):
    nodes: list[Node]
try:
    Pipeline(nodes=[{"name": 5, "retries": -1}])
except ValidationError as e:
    print(e)
"#;

const TWO_ERRORS_TEXT: &str = "2 validation errors for Pipeline
nodes.0.name
  Input should be a valid string [type=string_type, input_value=5, input_type=int]
    For further information visit https://errors.pydantic.dev/2.13/v/string_type
nodes.0.retries
  Input should be greater than or equal to 0 [type=greater_than_equal, input_value=-1, input_type=int]
    For further information visit https://errors.pydantic.dev/2.13/v/greater_than_equal
";

fn pydantic_installed() -> bool {
    Command::new("python3")
        .args(["-c", "import pydantic"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn two_pydantic_errors_at_exit_zero_are_both_extracted() {
    let p = Project::new("");
    let command = if pydantic_installed() {
        p.write("two_errors.py", TWO_ERRORS_PY);
        "python3 two_errors.py; echo done"
    } else {
        p.write("two_errors.txt", TWO_ERRORS_TEXT);
        "cat two_errors.txt; echo done"
    };
    p.write(
        "harness.toml",
        &format!(
            "[[verify]]\nname = \"case\"\ncommand = {}\n",
            toml_str(command)
        ),
    );
    let ev = run_one(&p, 1);
    let stdout = ev["stdout"].as_str().unwrap();
    assert!(
        stdout.starts_with("2 validation errors for Pipeline\n"),
        "{stdout}"
    );
    assert_eq!(ev["exit_code"], 0);
    assert_eq!(ev["execution_status"], "VALIDATION_FAILED");
    assert_eq!(ev["result"], "FAILED");
    assert_eq!(issue_types(&ev), ["CONFIGURATION_ERROR"]);
    assert_eq!(
        fields(&ev),
        pairs(&[
            ("nodes.0.name", "Input should be a valid string"),
            (
                "nodes.0.retries",
                "Input should be greater than or equal to 0"
            ),
        ])
    );
    let i = issue(&ev, "CONFIGURATION_ERROR");
    assert_eq!(i["stage"], "config_validation");
    // Validation failures are HIGH even for a verify command.
    assert_eq!(i["severity"], "HIGH");
}

#[test]
fn runtime_patterns_at_exit_zero_fail_the_case() {
    for line in [
        "ERROR org.apache.spark.SparkException: Job 3 cancelled",
        "Job aborted due to stage failure",
    ] {
        let p = verify(&format!("echo {}", sh_quote(line)), "");
        let ev = run_one(&p, 1);
        assert_eq!(ev["exit_code"], 0, "{line}");
        assert_eq!(ev["execution_status"], "RUNTIME_FAILED", "{line}");
        assert_eq!(ev["result"], "FAILED", "{line}");
        assert_eq!(issue_types(&ev), ["PIPELINE_EXECUTION_ERROR"], "{line}");
        let i = issue(&ev, "PIPELINE_EXECUTION_ERROR");
        assert_eq!(i["stage"], "execution");
        assert_eq!(i["severity"], "MEDIUM");
        assert!(ev["validation_errors"].as_array().unwrap().is_empty());
    }
}

#[test]
fn a_nonzero_exit_without_a_pattern_is_an_execution_failure() {
    let p = verify("echo working; echo 'something odd' >&2; exit 3", "");
    let ev = run_one(&p, 1);
    assert_eq!(ev["exit_code"], 3);
    assert_eq!(ev["status"], "FAILURE");
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED");
    assert_eq!(ev["result"], "FAILED");
    assert_eq!(issue_types(&ev), ["EXECUTION_FAILURE"]);
    assert!(
        issue(&ev, "EXECUTION_FAILURE")["evidence"]
            .as_str()
            .unwrap()
            .contains("Exit code: 3"),
        "{ev:#}"
    );
}

#[test]
fn specific_error_seen_passes_without_issues() {
    let p = verify(
        "echo 'Invalid config: missing key sales.region'; exit 2",
        "expected = 'specific_error:missing key \\w+\\.region'",
    );
    let ev = run_one(&p, 0);
    assert_eq!(ev["execution_status"], "VALIDATION_FAILED");
    assert_eq!(ev["result"], "PASSED");
    assert!(ev["issues"].as_array().unwrap().is_empty(), "{ev:#}");
    assert_eq!(p.summary()["final_status"], "SUCCESS");
}

#[test]
fn specific_error_not_seen_is_an_unexpected_error() {
    let p = verify(
        "echo 'Pipeline failed: disk full' >&2; exit 1",
        "expected = 'specific_error:missing key \\w+\\.region'",
    );
    let ev = run_one(&p, 1);
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED");
    assert_eq!(ev["result"], "FAILED");
    assert_eq!(issue_types(&ev), ["UNEXPECTED_ERROR"]);
}

#[test]
fn specific_error_expected_but_the_case_succeeded() {
    let p = verify(
        // The regex matches, but a run that succeeds is not the error.
        "echo 'missing key sales.region (ignored)'",
        "expected = 'specific_error:missing key \\w+\\.region'",
    );
    let ev = run_one(&p, 1);
    assert_eq!(ev["execution_status"], "SUCCESS");
    assert_eq!(ev["result"], "FAILED");
    assert_eq!(issue_types(&ev), ["UNEXPECTED_SUCCESS"]);
}

#[test]
fn a_timeout_is_aborted_with_a_performance_issue() {
    let p = Project::new(
        r#"
[harness]
kill_grace = "200ms"

[[verify]]
name = "case"
command = "echo begun; sleep 30"
timeout = "300ms"
"#,
    );
    let ev = run_one(&p, 1);
    // Killed by the group's SIGTERM (or the SIGKILL after the grace).
    let code = ev["exit_code"].as_i64().unwrap();
    assert!(code == 128 + 15 || code == 128 + 9, "exit code {code}");
    assert_eq!(ev["execution_status"], "ABORTED");
    assert_eq!(ev["result"], "FAILED");
    assert!(issue_types(&ev).contains(&"TIMEOUT"), "{ev:#}");
}

#[test]
fn an_auth_failure_adds_an_auth_issue() {
    let p = verify("echo 'HTTP 401 Unauthorized' >&2; exit 1", "");
    let ev = run_one(&p, 1);
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED");
    assert_eq!(ev["result"], "FAILED");
    let types = issue_types(&ev);
    assert!(types.contains(&"EXECUTION_FAILURE"), "{types:?}");
    assert!(types.contains(&"AUTH_ERROR"), "{types:?}");
}

#[test]
fn custom_patterns_classify_like_the_builtin_ones() {
    let p = Project::new(
        r#"
[patterns]
validation = ['my custom marker']
runtime = ['stage \d+ exploded']
abort = ['operator pulled the plug']

[[verify]]
name = "validation"
command = "echo 'found my custom marker here'"

[[verify]]
name = "runtime"
command = "echo 'stage 7 exploded'"

[[verify]]
name = "abort"
command = "echo 'operator pulled the plug' >&2"

[[verify]]
name = "clean"
command = "echo 'stage seven exploded is not a match'"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let want = [
        ("001-validation", "VALIDATION_FAILED", "FAILED"),
        ("002-runtime", "RUNTIME_FAILED", "FAILED"),
        ("003-abort", "ABORTED", "FAILED"),
        ("004-clean", "SUCCESS", "PASSED"),
    ];
    for (slug, status, result) in want {
        let ev = p.evidence(slug);
        assert_eq!(ev["exit_code"], 0, "{slug}");
        assert_eq!(ev["execution_status"], status, "{slug}");
        assert_eq!(ev["result"], result, "{slug}");
    }
    assert_eq!(
        issue_types(&p.evidence("001-validation")),
        ["CONFIGURATION_ERROR"]
    );
    assert_eq!(
        issue_types(&p.evidence("002-runtime")),
        ["PIPELINE_EXECUTION_ERROR"]
    );
    assert!(!issue_types(&p.evidence("003-abort")).is_empty());
}

#[test]
fn without_builtin_patterns_only_the_exit_code_and_custom_ones_count() {
    let p = Project::new(
        r#"
[patterns]
builtin = false
runtime = ['my marker']

[[verify]]
name = "builtin line"
command = "echo 'Job aborted due to stage failure'"

[[verify]]
name = "custom line"
command = "echo 'my marker'"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-builtin_line");
    assert_eq!(ev["execution_status"], "SUCCESS");
    assert_eq!(ev["result"], "PASSED");
    // The custom pattern still applies, so the switch did not drop them all.
    assert_eq!(
        p.evidence("002-custom_line")["execution_status"],
        "RUNTIME_FAILED"
    );
}

#[test]
fn a_pattern_split_across_pipe_reads_is_found() {
    // The two halves reach the harness in separate reads of the pipe.
    let p = verify("printf 'Pipeline fai'; sleep 0.2; printf 'led\\n'", "");
    let ev = run_one(&p, 1);
    assert_eq!(ev["stdout"], "Pipeline failed\n");
    assert_eq!(ev["exit_code"], 0);
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED");
    assert_eq!(issue_types(&ev), ["PIPELINE_EXECUTION_ERROR"]);
}

#[test]
fn golden_issues_are_high_and_verify_issues_medium() {
    let p = Project::new(
        r#"
[[golden]]
name = "golden"
path = "golden/p"
command = "echo 'Status: FAILURE'"

[[verify]]
name = "verify"
command = "echo 'Status: FAILURE'"

[[verify]]
name = "verify validation"
command = "echo 'Invalid config: x'"
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let golden = p.evidence("001-golden");
    let i = issue(&golden, "PIPELINE_EXECUTION_ERROR");
    assert_eq!(
        (&i["severity"], &i["stage"]),
        (&"HIGH".into(), &"execution".into())
    );
    assert_eq!(i["kind"], "golden");
    let verify = p.evidence("002-verify");
    let i = issue(&verify, "PIPELINE_EXECUTION_ERROR");
    assert_eq!(
        (&i["severity"], &i["stage"]),
        (&"MEDIUM".into(), &"execution".into())
    );
    assert_eq!(i["kind"], "verify");
    let validation = p.evidence("003-verify_validation");
    let i = issue(&validation, "CONFIGURATION_ERROR");
    assert_eq!(
        (&i["severity"], &i["stage"]),
        (&"HIGH".into(), &"config_validation".into())
    );
}

fn report_md(p: &Project) -> String {
    std::fs::read_to_string(p.out().join("report.md")).unwrap()
}

#[test]
fn final_status_counts_a_failed_verify_case_beside_a_failed_golden_project() {
    let p = Project::new(
        r#"
[[golden]]
name = "g-bad"
path = "golden/p"
command = "exit 1"

[[verify]]
name = "v-bad"
command = "exit 1"

[[verify]]
name = "v-good"
command = "true"
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // docs/reports.md, What a run leaves: the golden form only when every
    // failed case is a golden project; otherwise N counts every failed case.
    assert_eq!(p.summary()["final_status"], "PARTIAL (2 case(s) failed)");
    let md = report_md(&p);
    assert!(md.contains("PARTIAL (2 case(s) failed)"), "{md}");
    assert!(!md.contains("golden project(s) failed"), "{md}");
    assert!(!md.contains("No issues observed"), "{md}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("PARTIAL (2 case(s) failed)"), "{stderr}");
}

#[test]
fn final_status_names_golden_projects_when_only_they_failed() {
    let p = Project::new(
        r#"
[[golden]]
name = "g-bad"
path = "golden/p"
command = "exit 1"

[[golden]]
name = "g-good"
path = "golden/p"
command = "true"

[[verify]]
name = "v-good"
command = "true"
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(
        p.summary()["final_status"],
        "PARTIAL (1 golden project(s) failed)"
    );
    let md = report_md(&p);
    assert!(md.contains("PARTIAL (1 golden project(s) failed)"), "{md}");
    assert!(!md.contains("No issues observed"), "{md}");
}

#[test]
fn final_status_counts_failed_verify_cases() {
    let p = Project::new(
        r#"
[[golden]]
name = "g-good"
path = "golden/p"
command = "true"

[[verify]]
name = "v-bad-1"
command = "exit 1"

[[verify]]
name = "v-good"
command = "true"

[[verify]]
name = "v-bad-2"
command = "echo 'Pipeline failed'"
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(summary["final_status"], "PARTIAL (2 case(s) failed)");
    assert_eq!(summary["counts"]["failed"], 2);
    assert_eq!(summary["counts"]["passed"], 2);
    assert!(!report_md(&p).contains("No issues observed"));
}

#[test]
fn final_status_success_and_no_issues_only_when_all_passed() {
    let p = Project::new(
        r#"
[[golden]]
name = "g-good"
path = "golden/p"
command = "echo fine"

[[verify]]
name = "v-good"
command = "true"
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(p.summary()["final_status"], "SUCCESS");
    let md = report_md(&p);
    assert!(md.contains("No issues observed"), "{md}");
}

// Issue 12, item 2: patterns match the line without its escape sequences.
#[test]
fn a_coloured_validation_error_at_exit_zero_fails() {
    let p = verify(
        r"printf '1 validation error for \033[1mProjectConfig\033[0m\n'; exit 0",
        "",
    );
    let ev = run_one(&p, 1);
    assert_eq!(ev["exit_code"], 0);
    assert_eq!(ev["execution_status"], "VALIDATION_FAILED");
    assert_eq!(ev["result"], "FAILED");
    // The log keeps the bytes as printed; the issue reads without escapes.
    assert!(
        ev["stdout"].as_str().unwrap().contains("\u{1b}[1m"),
        "{ev:#}"
    );
    assert!(
        issue(&ev, "CONFIGURATION_ERROR")["evidence"]
            .as_str()
            .unwrap()
            .ends_with("Output: 1 validation error for ProjectConfig"),
        "{ev:#}"
    );
}

/// A harness whose one case prints `line` (from a file) and exits 0, with
/// a custom runtime pattern.
fn long_line_case(p: &Project, line: &[u8], pattern: &str) {
    std::fs::write(p.path().join("line.txt"), line).unwrap();
    p.write(
        "harness.toml",
        &format!(
            "[patterns]\nruntime = [{}]\n[[verify]]\nname = \"case\"\ncommand = \"cat line.txt\"\n",
            toml_str(pattern)
        ),
    );
}

// Issue 12, item 3: a line is matched whole, at any length.
#[test]
fn a_match_spanning_ten_kilobytes_of_a_long_line_is_found() {
    let mut line = vec![b'a'; 100_000];
    line.extend_from_slice(b"START");
    line.extend(std::iter::repeat_n(b'b', 10_000));
    line.extend_from_slice(b"END");
    line.extend(std::iter::repeat_n(b'c', 170_000 - line.len()));
    line.push(b'\n');
    let p = Project::new("");
    long_line_case(&p, &line, "START.*END");
    let ev = run_one(&p, 1);
    assert_eq!(ev["exit_code"], 0);
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED");
    let message = issue(&ev, "PIPELINE_EXECUTION_ERROR")["message"]
        .as_str()
        .unwrap();
    assert!(message.ends_with("bbbEND"), "{message}");
}

#[test]
fn a_line_start_anchor_never_matches_inside_a_long_line() {
    // Where the old 64 KiB windows began, `^` used to match.
    let mut line = vec![b'x'; 64 * 1024];
    line.extend_from_slice(b"BOOM in the middle\nBOOMERANG\n");
    let p = Project::new("");
    long_line_case(&p, &line, "^BOOM$");
    let ev = run_one(&p, 0);
    assert_eq!(ev["execution_status"], "SUCCESS");
    // The anchor still means the start of a line.
    let mut line = b"BOOM".to_vec();
    line.extend(std::iter::repeat_n(b'x', 200_000));
    line.extend_from_slice(b"\n");
    long_line_case(&p, &line, "^BOOMx+$");
    let ev = run_one(&p, 1);
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED");
}

// Issue 12, item 4: allow lists and a case's own patterns.
#[test]
fn allowed_lines_never_fail_and_other_lines_still_do() {
    let p = Project::new(
        r#"
[patterns]
allow = ['Timeout=\d+s?$', 'handler for SIGTERM installed']

[[verify]]
name = "settings"
command = "echo 'INFO http client: Timeout=30s'; echo 'handler for SIGTERM installed'"

[[verify]]
name = "counters"
command = "echo '0 records with Invalid config'"
patterns = { allow = ['^\d+ records with Invalid config$'] }

[[verify]]
name = "no allow here"
command = "echo '0 records with Invalid config'"

[[verify]]
name = "real timeout"
command = "echo 'ReadTimeout: server did not answer in 30s'"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let want = [
        ("001-settings", "SUCCESS", "PASSED"),
        ("002-counters", "SUCCESS", "PASSED"),
        ("003-no_allow_here", "VALIDATION_FAILED", "FAILED"),
        ("004-real_timeout", "ABORTED", "FAILED"),
    ];
    for (slug, status, result) in want {
        let ev = p.evidence(slug);
        assert_eq!(
            (ev["execution_status"].as_str(), ev["result"].as_str()),
            (Some(status), Some(result)),
            "{slug}"
        );
    }
}

#[test]
fn a_case_can_add_patterns_and_drop_the_builtins_for_itself() {
    let p = Project::new(
        r#"
[patterns]
runtime = ['harness marker']

[[verify]]
name = "own pattern"
command = "echo 'case marker'"
patterns = { runtime = ['case marker'] }

[[verify]]
name = "harness pattern still applies"
command = "echo 'harness marker'"
patterns = { runtime = ['case marker'] }

[[verify]]
name = "builtins dropped here"
command = "echo 'Job aborted by the user: expected in this test'"
patterns = { builtin = false }

[[verify]]
name = "builtins kept elsewhere"
command = "echo 'Job aborted by the user: expected in this test'"

[[verify]]
name = "case pattern stays in its case"
command = "echo 'case marker'"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let want = [
        ("001-own_pattern", "RUNTIME_FAILED"),
        ("002-harness_pattern_still_applies", "RUNTIME_FAILED"),
        ("003-builtins_dropped_here", "SUCCESS"),
        ("004-builtins_kept_elsewhere", "RUNTIME_FAILED"),
        ("005-case_pattern_stays_in_its_case", "SUCCESS"),
    ];
    for (slug, status) in want {
        assert_eq!(p.evidence(slug)["execution_status"], status, "{slug}");
    }
}

// Issue 12, item 5: `specific_error` needs a command that ended by itself.
#[test]
fn a_timeout_after_the_expected_message_fails() {
    let p = Project::new(
        r#"
[harness]
kill_grace = "200ms"

[[verify]]
name = "case"
command = "echo 'Invalid config'; sleep 30"
timeout = "1s"
expected = "specific_error:Invalid config"
"#,
    );
    let ev = run_one(&p, 1);
    assert_eq!(ev["execution_status"], "ABORTED");
    assert_eq!(ev["result"], "FAILED");
    assert_eq!(issue_types(&ev), ["UNEXPECTED_ERROR"]);
    let message = issue(&ev, "UNEXPECTED_ERROR")["message"].as_str().unwrap();
    assert!(
        message.contains("the output matches, but it timed out"),
        "{message}"
    );
}

#[test]
fn a_crash_after_the_expected_message_fails() {
    // The shell itself dies of the signal, and `sh` reports a command it
    // ran that died of one as exit status 128+N: both are crashes.
    for command in [
        "echo 'Invalid config'; kill -SEGV $$",
        "echo 'Invalid config'; sh -c 'kill -SEGV $$'",
    ] {
        let p = verify(command, "expected = 'specific_error:Invalid config'");
        let ev = run_one(&p, 1);
        assert_eq!(ev["exit_code"], 139, "{command}");
        assert_eq!(ev["result"], "FAILED", "{command}");
        assert_eq!(issue_types(&ev), ["UNEXPECTED_ERROR"], "{command}");
        let message = issue(&ev, "UNEXPECTED_ERROR")["message"].as_str().unwrap();
        assert!(message.contains("killed by signal 11"), "{message}");
        let warnings = ev["warnings"].to_string();
        assert!(
            warnings.contains("killed by signal 11 (SIGSEGV)"),
            "{warnings}"
        );
    }
    // The same message from a command that failed by itself passes.
    let p = verify(
        "echo 'Invalid config'; exit 2",
        "expected = 'specific_error:Invalid config'",
    );
    assert_eq!(run_one(&p, 0)["result"], "PASSED");
}

#[test]
fn verify_evidence_rejects_a_crash_forged_into_a_pass() {
    let p = verify(
        "echo 'Invalid config'; sh -c 'kill -SEGV $$'",
        "expected = 'specific_error:Invalid config'",
    );
    let ev = run_one(&p, 1);
    assert_eq!(ev["result"], "FAILED");
    let path = p.case_dir("001-case").join("evidence.json");
    let mut forged = ev.clone();
    forged["result"] = "PASSED".into();
    forged["issues"] = serde_json::json!([]);
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(&forged).unwrap()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .arg("verify-evidence")
        .arg(p.out())
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("a death by signal 11 (exit code 139) never satisfies specific_error"),
        "{}",
        text(&o)
    );
}

/// A passing command that does not show a `require`d line did nothing: it
/// is FAILED with NOTHING_RAN naming the pattern, and verify-evidence
/// agrees with the verdict; the line present, it passes.
#[test]
fn a_required_line_missing_is_nothing_ran() {
    let p = verify(
        "echo 'rows written: 0'",
        "require = ['rows written: [1-9]']",
    );
    let ev = run_one(&p, 1);
    assert_eq!(ev["execution_status"], "SUCCESS");
    assert_eq!(ev["result"], "FAILED");
    assert_eq!(issue_types(&ev), ["NOTHING_RAN"]);
    let message = ev["issues"][0]["message"].as_str().unwrap();
    assert!(message.contains("`rows written: [1-9]`"), "{message}");
    let v = common::verify_evidence(&p.out());
    assert!(v.status.success(), "{}", text(&v));

    let p = verify(
        "echo 'rows written: 3' >&2",
        "require = ['rows written: [1-9]']",
    );
    assert_eq!(run_one(&p, 0)["result"], "PASSED");
}

/// A preset's record format: a rich-style record wrapped over lines is
/// matched whole, and a failure word in a WARNING record fails nothing,
/// while an ERROR record does.
#[test]
fn the_odibi_preset_joins_wrapped_records_and_reads_their_level() {
    let out = "[10:00:00] INFO     Loading configuration\n           WARNING  [WARN] Validation Warning: Column 'status' contains invalid\n                    values. Found: ['Timeout']\n           INFO     Pipeline SUCCESS: x (completed=1, failed=0)\n";
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), out).unwrap();
    let cat = format!("cat {}", sh_quote(&file.path().display().to_string()));
    let p = verify("true", "");
    p.write(
        "harness.toml",
        &format!(
            "[harness]\npreset = \"odibi\"\n[[verify]]\nname = \"case\"\ncommand = {}\nrequire = ['completed=[1-9]']\n",
            toml_str(&cat)
        ),
    );
    assert_eq!(run_one(&p, 0)["result"], "PASSED");

    let wrapped = "           ERROR    [ERROR] Pipeline failed: Configuration validation failed for\n                    odibi.yaml: field: Input\n                    should be 'overwrite'\n";
    std::fs::write(file.path(), wrapped).unwrap();
    let ev = run_one(&p, 1);
    assert_eq!(ev["execution_status"], "VALIDATION_FAILED");
    let message = ev["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("field: Input should be 'overwrite'"),
        "{message}"
    );
}

/// An unknown preset is a config error naming the known ones.
#[test]
fn an_unknown_preset_is_a_config_error() {
    let p = verify("true", "");
    p.write(
        "harness.toml",
        "[harness]\npreset = \"odbi\"\n[[verify]]\nname = \"case\"\ncommand = \"true\"\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("harness.toml:2:"), "{t}");
    assert!(t.contains("unknown preset `odbi`"), "{t}");
    assert!(t.contains("did you mean `odibi`?"), "{t}");
}

/// A failure word in a log line of a known format at a quiet level (here
/// Python logging's WARNING and a JSON line at INFO) fails nothing; the
/// same at ERROR, or with `quiet = []`, still does. A bare
/// `ValidationError` (a tool's own data-check exception) is not a config
/// error; pydantic's is.
#[test]
fn quiet_levels_of_known_log_formats_fail_nothing() {
    let warn = "echo 'WARNING:odibi.retry:TimeoutError absorbed, retrying'; echo '{\"level\": \"INFO\", \"message\": \"value Timeout seen\"}'";
    assert_eq!(run_one(&verify(warn, ""), 0)["result"], "PASSED");
    let ev = run_one(&verify(warn, "patterns = { quiet = [] }"), 1);
    assert_eq!(ev["execution_status"], "ABORTED");
    let error = "echo 'ERROR:odibi.retry:TimeoutError, giving up'";
    assert_eq!(
        run_one(&verify(error, ""), 1)["execution_status"],
        "ABORTED"
    );

    let dq = "echo 'Node execution failed: ValidationError: [X] Validation failed for node: orders'; exit 1";
    let ev = run_one(&verify(dq, ""), 1);
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED");
    assert_eq!(issue_types(&ev), ["EXECUTION_FAILURE"]);
    let pydantic = "echo 'pydantic_core._pydantic_core.ValidationError: bad'";
    let ev = run_one(&verify(pydantic, ""), 1);
    assert_eq!(ev["execution_status"], "VALIDATION_FAILED");
}

/// `require` is about successes: a case expecting an error that shows it
/// passes without the required lines.
#[test]
fn an_expected_error_needs_no_required_line() {
    let p = verify(
        "echo 'Binder Error: no column'; exit 1",
        "require = ['rows written']\nexpected = \"specific_error:Binder Error\"",
    );
    assert_eq!(run_one(&p, 0)["result"], "PASSED");
}

/// A stand-in program named `name` in `dir/bin` that prints `text` and
/// exits `exit`: what matters here is the word a command runs, not the
/// tool (the real tools' own output is judged in `corpus` and
/// `real_tools`). The tests that use it run on Unix.
#[cfg(unix)]
fn program(dir: &Path, name: &str, text: &str, exit: i32) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nprintf '%s\\n' {}\nexit {exit}\n",
            sh_quote(text)
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[cfg(unix)]
fn run_with_bin(p: &Project) -> std::process::Output {
    p.cmd(&[])
        .env("PATH", common::path_with(&p.path().join("bin")))
        .output()
        .unwrap()
}

#[cfg(unix)]
fn case<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_commands_tool_chooses_its_preset_unless_presets_name_others() {
    // `dbt` that says nothing ran and exits 0: its preset's `require`
    // makes that a NOTHING_RAN; `presets = []` judges it by the built-ins.
    let p = Project::new(
        r#"
[[verify]]
name = "by its tool"
command = "DBT_PROFILES_DIR=. dbt build --select tag:typo"

[[verify]]
name = "turned off"
command = "dbt build --select tag:typo"
presets = []

[[verify]]
name = "not a tool"
command = "echo dbt build"
"#,
    );
    program(
        p.path(),
        "dbt",
        "Nothing to do. Try checking your model configs",
        0,
    );
    let o = run_with_bin(&p);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("preset `dbt` for 1 case(s) whose command runs dbt (by its tool)"),
        "{err}"
    );
    let summary = p.summary();
    assert_eq!(issue_types(case(&summary, "by its tool")), ["NOTHING_RAN"]);
    assert_eq!(case(&summary, "turned off")["result"], "PASSED");
    assert_eq!(case(&summary, "not a tool")["result"], "PASSED");
}

#[cfg(unix)]
#[test]
fn a_teams_own_preset_file_and_a_harness_require_judge_like_a_shipped_one() {
    let p = Project::new(
        r#"
[harness]
presets = ["./ci/ourtool.toml"]
require = ['rows written: [1-9]']

[[verify]]
name = "fails its own way"
command = "ourtool run"

[[verify]]
name = "wrote nothing"
command = "echo 'rows written: 0'"

[[verify]]
name = "wrote rows"
command = "echo 'rows written: 12'"
"#,
    );
    p.write(
        "ci/ourtool.toml",
        r#"
about = "our tool"
[patterns]
runtime = ['^OURTOOL-E\d+ ']
"#,
    );
    program(
        p.path(),
        "ourtool",
        "OURTOOL-E42 the ledger does not balance",
        0,
    );
    let o = run_with_bin(&p);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    let own = case(&summary, "fails its own way");
    assert_eq!(own["execution_status"], "RUNTIME_FAILED", "{own}");
    assert!(
        own["issues"][0]["message"]
            .as_str()
            .unwrap()
            .contains("OURTOOL-E42 the ledger does not balance"),
        "{own}"
    );
    assert_eq!(
        issue_types(case(&summary, "wrote nothing")),
        ["NOTHING_RAN"]
    );
    assert_eq!(case(&summary, "wrote rows")["result"], "PASSED");

    // A preset file that is not there, or not a preset, is a config error
    // naming it.
    p.write(
        "harness.toml",
        "[harness]\npresets = [\"./ci/missing.toml\"]\n[[verify]]\nname = \"a\"\ncommand = \"true\"\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("harness.toml:2:") && err.contains("ci/missing.toml"),
        "{err}"
    );
}
