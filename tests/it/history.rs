//! Across runs, through the real binary: each run appends its cases to the
//! out dir's `history.jsonl` (bounded, checked by `validate` and
//! `verify-evidence`), `merge` joins the shards' histories, and
//! `cargo golden history` reads them back per case.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Project, binary_in, text, verify_evidence};
use serde_json::Value;

/// One case that always passes, one that passes while the file `pass`
/// exists beside the harness file.
const HARNESS: &str = r#"
[harness]
name = "across"
history = { keep = 2 }

[[verify]]
name = "steady"
command = "echo steady"

[[verify]]
name = "toggle"
command = "test -f pass"
working_dir = "."
"#;

fn lines(out: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(out.join("history.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Run once, passing `toggle` or not; returns the run's summary.json.
fn run(p: &Project, toggle_passes: bool) -> Value {
    let marker = p.path().join("pass");
    if toggle_passes {
        std::fs::write(&marker, "").unwrap();
    } else {
        let _ = std::fs::remove_file(&marker);
    }
    let o = p.run(&[]);
    assert_eq!(
        o.status.code(),
        Some(if toggle_passes { 0 } else { 1 }),
        "{}",
        text(&o)
    );
    p.summary()
}

#[test]
fn each_run_appends_one_line_per_case_and_only_the_last_runs_are_kept() {
    let p = Project::new(HARNESS);
    let first = run(&p, true);
    let after_one = lines(&p.out());
    assert_eq!(after_one.len(), 2);
    let second = run(&p, false);
    let third = run(&p, true);
    let kept = lines(&p.out());
    // keep = 2: the first run's lines are gone, the last two runs' remain.
    assert_eq!(kept.len(), 4, "{kept:#?}");
    let runs: Vec<&str> = kept.iter().map(|l| l["run_id"].as_str().unwrap()).collect();
    let id = |s: &Value| s["run_id"].as_str().unwrap().to_string();
    assert!(!runs.contains(&id(&first).as_str()));
    assert_eq!(runs, [id(&second), id(&second), id(&third), id(&third)]);
    // Each line says what its run's summary says of the case.
    for (summary, pair) in [(&second, &kept[..2]), (&third, &kept[2..])] {
        for (case, line) in summary["cases"].as_array().unwrap().iter().zip(pair) {
            assert_eq!(line["schema_version"], "1.0.0");
            assert_eq!(line["type"], "history");
            assert_eq!(line["case"], case["name"]);
            assert_eq!(line["result"], case["result"]);
            assert_eq!(line["execution_status"], case["execution_status"]);
            assert_eq!(line["evidence_hash"], case["evidence_hash"]);
            assert_eq!(line["duration_seconds"], case["duration_seconds"]);
            assert_eq!(line["attempts"], 1);
            assert_eq!(line["jobs"], 1);
            assert_eq!(line["started_at"], summary["started_at"]);
        }
    }
    assert_eq!(kept[0]["result"], "PASSED");
    assert_eq!(kept[1]["result"], "FAILED");
    assert_eq!(
        kept[1]["issue_types"],
        serde_json::json!(["EXECUTION_FAILURE"])
    );
    assert_eq!(kept[3]["result"], "PASSED");
    // Outside git there is no commit to record.
    assert_eq!(kept[0]["commit"], Value::Null);

    let history = p.out().join("history.jsonl");
    let o = binary_in(p.path(), &["validate", history.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let broken = p.path().join("broken").join("history.jsonl");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    let mut content = std::fs::read_to_string(&history).unwrap();
    content = content.replacen(
        "\"schema_version\":\"1.0.0\"",
        "\"schema_version\":\"2.0.0\"",
        1,
    );
    content = content.replacen("\"attempts\":1", "\"attempts\":0", 1);
    std::fs::write(&broken, content).unwrap();
    let o = binary_in(p.path(), &["validate", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(":1: $.schema_version"), "{out}");
    assert!(out.contains(":1: $.attempts"), "{out}");
}

#[test]
fn a_run_writes_the_lines_it_keeps_back_as_they_were_and_drops_unreadable_ones() {
    let p = Project::new(HARNESS);
    run(&p, true);
    let history = p.out().join("history.jsonl");
    let text = std::fs::read_to_string(&history).unwrap();
    let mut kept: Vec<String> = text.lines().map(str::to_string).collect();
    // Another writer's spelling of the same line: spaces after the colons
    // and a CRLF end. Then a line no reader can parse.
    kept[0] = kept[0].replace("\":", "\": ");
    let edited = format!("{}\r\n{}\nnot a history line\n", kept[0], kept[1]);
    std::fs::write(&history, &edited).unwrap();

    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("dropped 1 unreadable line(s)"),
        "{}",
        common::text(&o)
    );
    let after = std::fs::read_to_string(&history).unwrap();
    let after: Vec<&str> = after.lines().collect();
    assert_eq!(after.len(), 4, "{after:#?}");
    // The earlier run's lines are as they were, without their line ends;
    // the unreadable one is gone; this run's two follow.
    assert_eq!(after[0], kept[0]);
    assert_eq!(after[1], kept[1]);
    assert!(after.iter().all(|l| *l != "not a history line"));
    assert_eq!(lines(&p.out()).len(), 4);
    let o = binary_in(p.path(), &["validate", history.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", common::text(&o));
}

#[test]
fn a_bad_history_key_is_a_config_error() {
    let p = Project::new(&HARNESS.replace("keep = 2", "kept = 2"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown key `kept`"), "{err}");
}

#[test]
fn verify_evidence_holds_the_run_s_history_lines_to_its_evidence() {
    let p = Project::new(HARNESS);
    run(&p, true);
    run(&p, false);
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let path = p.out().join("history.jsonl");
    let good = std::fs::read_to_string(&path).unwrap();
    // The last run's `toggle` line claims a pass its evidence denies.
    let mut all: Vec<String> = good.lines().map(str::to_string).collect();
    let last = all.len() - 1;
    all[last] = all[last].replace("\"result\":\"FAILED\"", "\"result\":\"PASSED\"");
    std::fs::write(&path, all.join("\n") + "\n").unwrap();
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("case \"toggle\"") && out.contains("history.jsonl: line 4: result"),
        "{out}"
    );

    // A line of the run left out is a finding too; an earlier run's
    // line is not held to this run's evidence.
    let without: Vec<&str> = good.lines().take(3).collect();
    std::fs::write(&path, without.join("\n") + "\n").unwrap();
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("case \"toggle\"") && out.contains("no line of run"),
        "{out}"
    );
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn history_shows_each_case_s_strip_rate_durations_and_failing_commit() {
    let p = Project::new(&HARNESS.replace("keep = 2", "keep = 10"));
    git(p.path(), &["init", "-q"]);
    git(p.path(), &["add", "harness.toml"]);
    git(p.path(), &["commit", "-q", "-m", "first"]);
    let head = git(p.path(), &["rev-parse", "HEAD"]);
    run(&p, true);
    run(&p, false);
    run(&p, false);

    let line = &lines(&p.out())[0];
    assert_eq!(line["commit"], head.as_str());
    assert_eq!(line["dirty"], false);

    let o = p.run(&["history"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let shown: Vec<&str> = out.lines().collect();
    assert_eq!(shown.len(), 2, "{out}");
    assert!(
        shown[0].starts_with("✔✔✔") && shown[0].contains("100% passed"),
        "{out}"
    );
    assert!(shown[0].ends_with("steady"), "{out}");
    assert!(
        shown[1].starts_with("✔✘✘") && shown[1].contains("33% passed"),
        "{out}"
    );
    assert!(
        shown[1].contains(&format!("failing since {}", &head[..12])),
        "{out}"
    );
    // Passed and failed on one clean commit: flaky without any retry.
    assert!(shown[1].contains("FLAKY"), "{out}");
    assert!(!shown[0].contains("FLAKY"), "{out}");

    let o = p.run(&["history", "togg", "--message-format", "json", "--last", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let cases: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cases.len(), 1, "{cases:#?}");
    let c = &cases[0];
    assert_eq!(c["case"], "toggle");
    assert_eq!(c["runs"], 3);
    assert_eq!(c["strip"], "✘✘");
    assert_eq!(c["last"], serde_json::json!(["FAILED", "FAILED"]));
    assert_eq!(c["pass_rate"], 0.0);
    assert_eq!(c["failing_since"]["commit"], head.as_str());
    let all = lines(&p.out());
    assert_eq!(c["failing_since"]["run_id"], all[3]["run_id"]);
    assert_eq!(c["flipped_commits"], serde_json::json!([head]));
    let mut durations: Vec<f64> = [&all[3], &all[5]]
        .iter()
        .map(|l| l["duration_seconds"].as_f64().unwrap())
        .collect();
    durations.sort_by(f64::total_cmp);
    assert_eq!(c["median_seconds"].as_f64(), Some(durations[0]));
    assert_eq!(c["p90_seconds"].as_f64(), Some(durations[1]));
}

#[test]
fn merge_joins_the_shards_histories() {
    let p = Project::new(HARNESS);
    std::fs::write(p.path().join("pass"), "").unwrap();
    let shard = |k: usize, out: &str| {
        let partition = format!("count:{k}/2");
        let args = [
            "--config",
            "harness.toml",
            "--partition",
            &partition,
            "--out",
            out,
        ];
        let o = binary_in(p.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    };
    // Each shard ran twice into its out dir: one earlier run, one now.
    for _ in 0..2 {
        shard(1, "s1");
        shard(2, "s2");
    }
    let merged = p.path().join("merged");
    let o = binary_in(
        p.path(),
        &["merge", "s1", "s2", "--out", merged.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let joined = lines(&merged);
    // The earlier run of each shard (one case each), then the merged run.
    assert_eq!(joined.len(), 4, "{joined:#?}");
    let earlier_s1 = &lines(&p.path().join("s1"))[0];
    let earlier_s2 = &lines(&p.path().join("s2"))[0];
    let earlier: Vec<&Value> = joined[..2].iter().collect();
    assert!(earlier.contains(&earlier_s1) && earlier.contains(&earlier_s2));
    let summary: Value =
        serde_json::from_slice(&std::fs::read(merged.join("summary.json")).unwrap()).unwrap();
    for (line, name) in joined[2..].iter().zip(["steady", "toggle"]) {
        assert_eq!(line["run_id"], summary["run_id"]);
        assert_eq!(line["case"], name);
        assert_eq!(line["jobs"], Value::Null);
    }
    let o = verify_evidence(&merged);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// A case that fails its first attempt and passes its second, with one
/// retry, under `[harness] flaky = POLICY` (none: the default).
fn flaky_project(policy: Option<&str>) -> Project {
    let setting = policy.map_or_else(String::new, |p| format!("flaky = \"{p}\"\n"));
    Project::new(&format!(
        r#"
[harness]
name = "flaky"
retries = 1
{setting}
[[verify]]
name = "second time lucky"
command = "if [ -f tried ]; then echo ok; else touch tried; echo boom >&2; exit 1; fi"
working_dir = "."
"#
    ))
}

/// The `<testcase>` of junit.xml: its element children's names.
fn junit_children(p: &Project) -> Vec<String> {
    let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase"))
        .unwrap();
    case.children()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name().to_string())
        .collect()
}

#[test]
fn flaky_fail_fails_a_run_that_needed_a_retry() {
    let p = flaky_project(Some("fail"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    let case = &summary["cases"][0];
    assert_eq!(case["result"], "FAILED");
    assert_eq!(case["execution_status"], "SUCCESS");
    assert_eq!(case["flaky"], true);
    assert_eq!(case["issues"][0]["type"], "FLAKY");
    let message = case["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("passed on attempt 2 after 1 failed attempt(s)"),
        "{message}"
    );
    assert!(
        summary["final_status"]
            .as_str()
            .unwrap()
            .starts_with("PARTIAL")
    );
    // As Maven Surefire writes a test that failed its reruns.
    let children = junit_children(&p);
    assert!(children.contains(&"failure".to_string()), "{children:?}");
    assert!(
        children.contains(&"rerunFailure".to_string()),
        "{children:?}"
    );
    assert_eq!(lines(&p.out())[0]["result"], "FAILED");
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // The FLAKY issue is held to the attempts the evidence records.
    let evidence = p
        .case_dir("001-second_time_lucky-attempt-2")
        .join("evidence.json");
    let mut ev: Value = serde_json::from_slice(&std::fs::read(&evidence).unwrap()).unwrap();
    ev["flaky"] = Value::Bool(false);
    std::fs::write(&evidence, serde_json::to_vec_pretty(&ev).unwrap()).unwrap();
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("records a FLAKY issue, but the case is not marked flaky"),
        "{out}"
    );
}

#[test]
fn flaky_warn_passes_with_a_warning_and_flaky_pass_without() {
    for (policy, warned) in [(None, true), (Some("warn"), true), (Some("pass"), false)] {
        let p = flaky_project(policy);
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(0), "{policy:?}: {}", text(&o));
        let case = &p.summary()["cases"][0];
        assert_eq!(case["result"], "PASSED", "{policy:?}");
        assert_eq!(case["flaky"], true, "{policy:?}");
        assert_eq!(case["issues"], serde_json::json!([]), "{policy:?}");
        let warning = "flaky: passed on attempt 2 after 1 failed attempt(s)";
        let warnings = case["warnings"].to_string();
        assert_eq!(warnings.contains(warning), warned, "{policy:?}: {warnings}");
        // As Maven Surefire writes a test that passed on a rerun.
        let children = junit_children(&p);
        assert!(
            children.contains(&"flakyFailure".to_string()),
            "{children:?}"
        );
        assert!(!children.contains(&"failure".to_string()), "{children:?}");
        let o = verify_evidence(&p.out());
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
}

#[test]
fn a_bad_flaky_policy_is_a_config_error() {
    let p = flaky_project(Some("sometimes"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`flaky` must be \"pass\", \"warn\" or \"fail\""),
        "{err}"
    );
}

const QUARANTINED: &str = r#"
[harness]
name = "quarantine"

[[verify]]
name = "known broken"
command = "echo 'Pipeline failed' >&2; exit 1"
quarantine = { reason = "upstream bug", until = "UNTIL", issue = "https://example.com/issues/7" }

[[verify]]
name = "fine"
command = "echo fine"
"#;

#[test]
fn a_quarantined_failure_before_its_date_does_not_fail_the_run() {
    let p = Project::new(&QUARANTINED.replace("UNTIL", "2099-12-31"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("QUARANTINED") && err.contains("known broken"),
        "{err}"
    );
    let summary = p.summary();
    assert_eq!(summary["final_status"], "SUCCESS");
    // The counts say how many failures the quarantine holds, so they read
    // together with the final status.
    assert_eq!(summary["counts"]["failed"], 1);
    assert_eq!(summary["counts"]["quarantined"], 1);
    assert!(err.contains("1 failed (1 quarantined)"), "{err}");
    let case = &summary["cases"][0];
    // The raw verdict stands; the quarantine is beside it.
    assert_eq!(case["result"], "FAILED");
    assert_eq!(case["issues"][0]["type"], "PIPELINE_EXECUTION_ERROR");
    assert_eq!(case["quarantine"]["reason"], "upstream bug");
    assert_eq!(case["quarantine"]["until"], "2099-12-31");
    assert_eq!(case["quarantine"]["issue"], "https://example.com/issues/7");
    assert_eq!(case["quarantine"]["expired"], false);
    assert_eq!(summary["cases"][1]["quarantine"], Value::Null);

    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(md.contains("failed 1 (1 quarantined)"), "{md}");
    let row = md.lines().find(|l| l.contains("| known broken |")).unwrap();
    assert!(
        row.contains("**QUARANTINED**") && row.contains("upstream bug"),
        "{row}"
    );
    let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let prop = doc
        .descendants()
        .find(|n| n.has_tag_name("property") && n.attribute("name") == Some("quarantined"))
        .expect("a quarantined property");
    assert_eq!(prop.attribute("value"), Some("true"));
    let obs = std::fs::read_to_string(p.out().join("observations.jsonl")).unwrap();
    let first: Value = serde_json::from_str(obs.lines().next().unwrap()).unwrap();
    assert_eq!(first["metadata"]["quarantined"], true);
    let statement: Value = serde_json::from_slice(
        &std::fs::read(p.run_dir().join("test-result.intoto.json")).unwrap(),
    )
    .unwrap();
    let warned = statement["predicate"]["warnedTests"].to_string();
    assert!(warned.contains("known broken"), "{warned}");
    assert_eq!(statement["predicate"]["result"], "WARNED");
    assert_eq!(lines(&p.out())[0]["quarantined"], true);

    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Lifting the quarantine in the evidence makes the summary's verdict
    // one the evidence does not support.
    let evidence = p.case_dir("001-known_broken").join("evidence.json");
    let mut ev: Value = serde_json::from_slice(&std::fs::read(&evidence).unwrap()).unwrap();
    ev["quarantine"] = Value::Null;
    std::fs::write(&evidence, serde_json::to_vec_pretty(&ev).unwrap()).unwrap();
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

/// A quarantined golden case that appends to its project's committed
/// file and exits 1: its known failure is not what it did.
const QUARANTINED_TAMPERING: &str = r#"
[[golden]]
name = "tampers"
path = "project"
isolation = "check"
command = "echo tampered >> data.csv; exit 1"
quarantine = { reason = "known broken", until = "2099-01-01" }

[[golden]]
name = "reads"
path = "project"
isolation = "check"
command = "cat data.csv"
"#;

#[test]
fn a_quarantine_never_holds_a_modified_or_dirty_project() {
    let p = Project::new(QUARANTINED_TAMPERING);
    p.write("project/data.csv", "a\n1\n");
    git(p.path(), &["init", "-q"]);
    git(p.path(), &["add", "."]);
    git(p.path(), &["commit", "-q", "-m", "first"]);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("tampers") && l.contains("FAILED"))
        .unwrap_or_else(|| panic!("no FAILED line for tampers: {err}"));
    assert!(!line.contains("QUARANTINED"), "{line}");
    // The headline names the modification, not only the exit code.
    assert!(err.contains("Golden project modified by the run"), "{err}");
    let summary = p.summary();
    // The later case finds the project dirty, and does not run on it.
    assert_eq!(
        summary["final_status"],
        "PARTIAL (2 golden project(s) failed)"
    );
    assert_eq!(summary["cases"][1]["result"], "ERROR");
    let issues = summary["cases"][0]["issues"].to_string();
    assert!(issues.contains("GOLDEN_MODIFIED"), "{issues}");
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(md.contains("QUARANTINE DOES NOT HOLD"), "{md}");
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // The next run finds the project dirty: not quarantined either.
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(summary["cases"][0]["result"], "ERROR");
    assert_eq!(summary["cases"][0]["issues"][0]["type"], "GOLDEN_MODIFIED");
    assert_ne!(summary["final_status"], "SUCCESS");

    // Outside git, the later case reads the tampered file and passes; the
    // run fails all the same.
    let p = Project::new(QUARANTINED_TAMPERING);
    p.write("project/data.csv", "a\n1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(p.summary()["cases"][1]["result"], "PASSED");
}

#[cfg(target_os = "linux")]
#[test]
fn a_quarantine_never_holds_a_containment_finding() {
    let p = Project::new(
        r#"
[[verify]]
name = "escapes"
command = "setsid sleep 300 & echo 'Pipeline failed' >&2; exit 1"
quarantine = { reason = "known broken", until = "2099-01-01" }
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let case = &p.summary()["cases"][0];
    assert!(
        case["warnings"]
            .to_string()
            .contains("processes left running"),
        "{case}"
    );
    assert_ne!(p.summary()["final_status"], "SUCCESS");
}

#[test]
fn an_expired_quarantine_fails_the_run_naming_it() {
    let p = Project::new(
        &QUARANTINED
            .replace("UNTIL", "2020-01-31")
            .replace("echo 'Pipeline failed' >&2; exit 1", "echo fixed"),
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(summary["final_status"], "PARTIAL (1 case(s) failed)");
    let case = &summary["cases"][0];
    assert_eq!(case["result"], "FAILED");
    assert_eq!(case["execution_status"], "SUCCESS");
    assert_eq!(case["quarantine"]["expired"], true);
    assert_eq!(case["issues"][0]["type"], "QUARANTINE_EXPIRED");
    let message = case["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("2020-01-31") && message.contains("upstream bug"),
        "{message}"
    );
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // The expiry is held to the day the case ran.
    let evidence = p.case_dir("001-known_broken").join("evidence.json");
    let mut ev: Value = serde_json::from_slice(&std::fs::read(&evidence).unwrap()).unwrap();
    ev["quarantine"]["expired"] = Value::Bool(false);
    std::fs::write(&evidence, serde_json::to_vec_pretty(&ev).unwrap()).unwrap();
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("quarantine.expired is false"), "{out}");
}

#[test]
fn a_quarantined_case_that_keeps_passing_may_leave_quarantine() {
    let p = Project::new(
        &QUARANTINED
            .replace("UNTIL", "2099-12-31")
            .replace("echo 'Pipeline failed' >&2; exit 1", "echo fixed"),
    );
    for n in 1..=5 {
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let o = p.run(&["history", "known"]);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        assert_eq!(
            out.contains("may leave quarantine"),
            n == 5,
            "run {n}: {out}"
        );
    }
}

#[test]
fn a_quarantine_without_a_date_is_a_config_error() {
    let p = Project::new(&QUARANTINED.replace("UNTIL", "next week"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("`quarantine.until` must be a date"), "{err}");
}

/// Four cases; `b` and `d` pass once their marker file exists.
const FOUR: &str = r#"
[[verify]]
name = "a"
command = "echo a"

[[verify]]
name = "b"
command = "test -f pass-b"
working_dir = "."

[[verify]]
name = "c"
command = "echo c"

[[verify]]
name = "d"
command = "test -f pass-d"
working_dir = "."
"#;

/// The names of the cases in the order they started, from the JSON
/// messages of a run.
fn started(o: &std::process::Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "case-started")
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect()
}

fn results(summary: &Value) -> Vec<(String, String)> {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            (s("name"), s("result"))
        })
        .collect()
}

#[test]
fn failed_runs_exactly_the_last_run_s_failures() {
    let p = Project::new(FOUR);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let o = p.run(&["--failed", "--message-format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(started(&o), ["b", "d"]);
    let summary = p.summary();
    let want = [
        ("a", "SKIPPED"),
        ("b", "FAILED"),
        ("c", "SKIPPED"),
        ("d", "FAILED"),
    ];
    assert_eq!(
        results(&summary),
        want.map(|(n, r)| (n.to_string(), r.to_string()))
    );

    // A filter narrows the failures further.
    std::fs::write(p.path().join("pass-d"), "").unwrap();
    let o = p.run(&["--failed", "d", "--message-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(started(&o), ["d"]);

    // Now only `b` failed (the last run skipped it: it did not fail).
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let o = p.run(&["--failed-first", "--message-format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(started(&o), ["b", "a", "c", "d"]);
    // Reports keep declaration order.
    let names: Vec<String> = results(&p.summary()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["a", "b", "c", "d"]);

    // Nothing failed: nothing to run again, which must not look green.
    std::fs::write(p.path().join("pass-b"), "").unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = p.run(&["--failed"]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no case failed in the last run"));
}

#[test]
fn failed_trusts_only_a_last_run_that_verifies() {
    let p = Project::new(FOUR);
    let o = p.run(&["--failed"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("there is none"),
        "{}",
        text(&o)
    );

    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // The summary is rewritten to say `d` passed: its evidence says not.
    let path = p.out().join("summary.json");
    let mut summary: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    summary["cases"][3]["result"] = "PASSED".into();
    std::fs::write(&path, serde_json::to_vec_pretty(&summary).unwrap()).unwrap();
    let o = p.run(&["--failed"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("trust only a last run whose evidence verifies"),
        "{err}"
    );
    assert!(err.contains("summary.json"), "{err}");
}

#[test]
fn orphaned_snapshots_and_baseline_entries_are_found_and_pruned() {
    let p = Project::new(
        r#"
[[verify]]
name = "keep"
command = "echo keep"
snapshot = ["stdout"]

[[verify]]
name = "gone"
command = "echo gone"
snapshot = ["stdout", "stderr"]

[[verify]]
name = "data"
command = "mkdir -p data && echo 'id,v' > data/a.csv && echo '1,2' >> data/a.csv"
outputs = [{ path = "data/*.csv", key = ["id"] }]
"#,
    );
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(p.path().join("snapshots/gone.stderr").is_file());
    assert!(p.path().join("snapshots/data.data.a.csv.data").is_file());
    // A file nobody ever owned is an orphan too.
    p.write("snapshots/stray.stdout", "stray\n");
    // `gone` is no longer declared.
    let harness = std::fs::read_to_string(p.path().join("harness.toml")).unwrap();
    let start = harness.find("[[verify]]\nname = \"gone\"").unwrap();
    let end = harness.find("[[verify]]\nname = \"data\"").unwrap();
    p.write(
        "harness.toml",
        &format!("{}{}", &harness[..start], &harness[end..]),
    );

    let list = || {
        Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
            .current_dir(p.path())
            .args(["snapshots", "--config", "harness.toml"])
            .output()
            .unwrap()
    };
    let o = list();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let listed: Vec<&str> = out.lines().collect();
    assert_eq!(
        listed,
        [
            "snapshot file  snapshots/gone.stderr",
            "snapshot file  snapshots/gone.stdout",
            "snapshot file  snapshots/stray.stdout",
            "baseline entry golden-baseline.json: \"gone\"",
        ],
        "{out}"
    );
    // A run warns about them once.
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("orphaned snapshot file(s)").count(), 1, "{err}");

    let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(p.path())
        .args(["snapshots", "--prune", "--config", "harness.toml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let mut left: Vec<String> = std::fs::read_dir(p.path().join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["data.data.a.csv.data", "keep.stdout"]);
    let baseline: Value =
        serde_json::from_slice(&std::fs::read(p.path().join("golden-baseline.json")).unwrap())
            .unwrap();
    let names: Vec<String> = results(&baseline).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["keep", "data"]);
    let o = list();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("orphaned"));
}

/// One case that sleeps as many seconds as the file `delay` says.
const TIMED: &str = r#"
[harness]
name = "timed"

[[verify]]
name = "timed"
command = "sleep $(cat delay)"
working_dir = "."
"#;

/// Run `timed` sleeping `delay` seconds with `args`; returns the run's
/// summary.json and its stderr.
fn timed_run(p: &Project, delay: &str, args: &[&str]) -> (Value, String) {
    std::fs::write(p.path().join("delay"), delay).unwrap();
    let o = p.run(args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    (p.summary(), text(&o))
}

fn slower(summary: &Value) -> Vec<String> {
    summary["baseline"]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["class"] == "slower")
        .map(|c| c["detail"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn slower_compares_with_the_median_of_earlier_runs_at_the_same_jobs() {
    let p = Project::new(TIMED);
    // The baseline and four more runs, fast, at --jobs 1.
    let (blessed, _) = timed_run(&p, "0", &["--bless", "--jobs", "1"]);
    assert_eq!(blessed["baseline"]["blessed"], true, "{blessed:#}");
    for _ in 0..4 {
        timed_run(&p, "0", &["--jobs", "1"]);
    }
    // Slow at --jobs 2: history has no run at --jobs 2 yet, so the baseline
    // is what it is compared with, and it is slower.
    let (first, out) = timed_run(&p, "1.2", &["--jobs", "2"]);
    let details = slower(&first);
    assert_eq!(details.len(), 1, "{first:#}");
    assert!(details[0].contains("its baseline"), "{details:?}");
    assert!(out.contains("PERFORMANCE: `timed`"), "{out}");
    for _ in 0..4 {
        timed_run(&p, "1.2", &["--jobs", "2"]);
    }
    let jobs: Vec<Value> = lines(&p.out()).iter().map(|l| l["jobs"].clone()).collect();
    assert_eq!(jobs, [1, 1, 1, 1, 1, 2, 2, 2, 2, 2].map(Value::from));
    // Five runs at --jobs 2 as slow as this one: like with like, not slower.
    let (like, out) = timed_run(&p, "1.2", &["--jobs", "2"]);
    assert!(slower(&like).is_empty(), "{like:#}");
    assert_eq!(like["baseline"]["counts"]["slower"], 0, "{like:#}");
    assert!(!out.contains("PERFORMANCE"), "{out}");
    // As slow at --jobs 1, where history holds five fast runs: slower than
    // their median, and the warning says so.
    let (unlike, out) = timed_run(&p, "1.2", &["--jobs", "1"]);
    let details = slower(&unlike);
    assert_eq!(details.len(), 1, "{unlike:#}");
    assert!(
        details[0].contains("the median of its last 5 runs at --jobs 1"),
        "{details:?}"
    );
    assert!(
        out.contains("the median of its last 5 runs at --jobs 1"),
        "{out}"
    );
}
