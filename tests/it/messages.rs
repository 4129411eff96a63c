//! Messages that never contradict each other (issue 26), through the real
//! binary: the terminal and report.md of a run are snapshotted with what
//! changes between runs (durations, run ids, hashes, paths) redacted, and
//! the facts behind each wording are checked in the files written.

use crate::common;

use common::{Project, text};

/// A verify-only harness: an output that no longer matches its snapshot
/// (exit 0, yet FAILED), a hung command its watchdog ends (a TIMEOUT), a
/// case that must be ended by its watchdog, and one that should have been
/// but finished by itself.
const HARNESS: &str = r#"[harness]
name = "first hour"
kill_grace = "200ms"

[[verify]]
name = "report_builder"
command = "printf 'rows: 4\n'"
snapshot = ["stdout"]

[[verify]]
name = "hangs"
command = "echo begun; exec sleep 30"
timeout = "300ms"

[[verify]]
name = "watchdog fires"
command = "echo waiting; exec sleep 30"
timeout = "300ms"
expected = "aborted"

[[verify]]
name = "watchdog never fires"
command = "echo done"
timeout = "5s"
expected = "timeout"
"#;

/// `text` with what changes from run to run replaced by fixed marks.
fn redact(text: &str, p: &Project) -> String {
    let text = text.replace(&p.path().display().to_string(), "[project]");
    let rules = [
        (r"\d{8}T\d{6}(\.\d+)?Z-[0-9a-f]+", "[run]"),
        (r"\b[0-9a-f]{64}\b", "[sha256]"),
        (r"\| [0-9a-f]{12} \|", "| [hash] |"),
        (r"\d+\.\d\ds", "[t]s"),
        (r"started \d{4}-\d\d-\d\dT[0-9:.]+Z", "started [time]"),
    ];
    rules.iter().fold(text, |t, (re, with)| {
        regex::Regex::new(re)
            .unwrap()
            .replace_all(&t, *with)
            .into_owned()
    })
}

fn project() -> Project {
    let p = Project::new(HARNESS);
    p.write("snapshots/report_builder.stdout", "rows: 3\n");
    p
}

#[test]
fn terminal_and_report_say_why_each_case_failed() {
    let p = project();
    let o = p.run(&["--failure-output", "never"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();

    // A failure whose command succeeded shows why it failed, not SUCCESS.
    assert!(
        err.contains("verify report_builder (OUTPUT_CHANGED)"),
        "{err}"
    );
    assert!(!err.contains("(SUCCESS)"), "{err}");
    // The no-golden note is said once, in lower case.
    assert_eq!(
        err.matches("no golden project is declared").count(),
        1,
        "{err}"
    );
    assert!(!err.contains("NO GOLDEN"), "{err}");
    insta::assert_snapshot!("terminal", redact(&err, &p));

    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(md.contains("| ❌ FAILED |"), "{md}");
    assert!(md.contains("| ✅ PASSED |"), "{md}");
    assert!(!md.contains("Execution Status"), "{md}");
    insta::assert_snapshot!("report_md", redact(&md, &p));

    // The evidence keeps the full hash the table shortens.
    let hash = p.evidence("001-report_builder")["evidence_hash"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(hash.len(), 64);
    assert!(md.contains(&format!("| {} |", &hash[..12])), "{md}");
    assert!(!md.contains(&hash), "{md}");
}

#[test]
fn issue_types_name_the_timeout_and_junit_types_are_issue_types() {
    let p = project();
    let o = p.run(&["--failure-output", "never"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    let case = |name: &str| {
        summary["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    let types = |name: &str| -> Vec<String> {
        case(name)["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["type"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(types("hangs"), ["TIMEOUT"]);
    assert_eq!(case("hangs")["execution_status"], "ABORTED");
    assert_eq!(case("watchdog fires")["result"], "PASSED");
    assert_eq!(case("watchdog fires")["execution_status"], "ABORTED");
    assert_eq!(case("watchdog never fires")["result"], "FAILED");
    assert_eq!(types("watchdog never fires"), ["UNEXPECTED_SUCCESS"]);

    let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failure_type = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
            .and_then(|tc| tc.children().find(|n| n.has_tag_name("failure")))
            .and_then(|f| f.attribute("type"))
            .map(str::to_string)
    };
    assert_eq!(
        failure_type("report_builder").as_deref(),
        Some("OUTPUT_CHANGED")
    );
    assert_eq!(failure_type("hangs").as_deref(), Some("TIMEOUT"));
    assert_eq!(failure_type("watchdog fires"), None);
    // The evidence of a case expected to abort holds up on its own.
    let v = common::verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
}

#[test]
fn require_golden_false_written_out_silences_the_note() {
    let p = Project::new(
        "[harness]\nrequire_golden = false\n[[verify]]\nname = \"builds\"\ncommand = \"true\"\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        !text(&o).to_lowercase().contains("golden project"),
        "{}",
        text(&o)
    );
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(!md.contains("golden project"), "{md}");
}

#[test]
fn bless_says_what_it_recorded_and_which_cases_a_filter_selected() {
    let harness = "[[verify]]\nname = \"orders_etl\"\ncommand = \"echo ok\"\n[[verify]]\nname = \"orders_etl_bad_config\"\ncommand = \"echo ok\"\n";
    let p = Project::new(harness);
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("Blessed golden-baseline.json"), "{err}");
    assert!(!err.contains("none yet"), "no contradiction: {err}");
    assert!(
        err.contains("golden-baseline.json recorded by this run"),
        "{err}"
    );
    assert!(p.path().join("golden-baseline.json").exists());
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(!md.contains("No baseline yet"), "{md}");

    // A filter that matches more than the case it names says so before
    // anything is rewritten; `--exact` narrows it.
    let o = p.run(&["--bless", "orders_etl"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let said = err
        .find("Blessing 2 case(s) the filters select: orders_etl, orders_etl_bad_config")
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        said < err.find("Starting").unwrap(),
        "before the run: {err}"
    );
    assert!(
        err.contains("`--exact` blesses only the cases named"),
        "{err}"
    );

    let o = p.run(&["--bless", "--exact", "orders_etl"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        err.contains("Blessing 1 case(s) the filters select: orders_etl\n"),
        "{err}"
    );
    assert!(!err.contains("--exact"), "{err}");
}
