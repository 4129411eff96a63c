//! Baselines and snapshots (docs/baselines.md, Baselines) through the real
//! binary: snapshot diffs in every report, redactions and wildcards,
//! `--bless`, the verdict baseline's classes and gate, `slower`, GitHub
//! annotations and `cargo golden diff`.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{Project, text, verify_evidence};
use serde_json::Value;

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Issue types of case `name` in summary.json.
fn issue_types(summary: &Value, name: &str) -> Vec<String> {
    case(summary, name)["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap().to_string())
        .collect()
}

fn case<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {summary}"))
}

/// The comparison class of `name` in summary.json.
fn class(summary: &Value, name: &str) -> String {
    summary["baseline"]["cases"]
        .as_array()
        .unwrap_or_else(|| panic!("no comparison in {summary}"))
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("{name} not compared: {summary}"))["class"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The text of `<failure>` of testcase `name` in junit.xml.
fn junit_failure(p: &Project, name: &str) -> String {
    let xml = read(p.out().join("junit.xml"));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let tc = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
        .unwrap();
    let failure = tc.children().find(|c| c.has_tag_name("failure")).unwrap();
    failure.text().unwrap_or("").to_string()
}

/// A baseline file with `(name, result, signature, seconds)` entries.
fn write_baseline(p: &Project, entries: &[(&str, &str, Option<&str>, f64)]) {
    let cases: Vec<Value> = entries
        .iter()
        .map(|(name, result, sig, secs)| {
            let mut e =
                serde_json::json!({"name": name, "result": result, "duration_seconds": secs});
            if let Some(s) = sig {
                e["signature"] = Value::from(*s);
            }
            e
        })
        .collect();
    let doc = serde_json::json!({"schema_version": "1.0.0", "suite": "t", "cases": cases});
    p.write(
        "golden-baseline.json",
        &serde_json::to_string_pretty(&doc).unwrap(),
    );
}

#[test]
fn output_gaining_a_line_fails_with_a_diff_naming_it_everywhere() {
    let harness = |extra: &str| {
        format!(
            "[[verify]]\nname = \"report\"\ncommand = \"printf 'rows: 3\\\\n{extra}total: 10\\\\n'\"\nsnapshot = [\"stdout\"]\n"
        )
    };
    let p = Project::new(&harness(""));
    p.write("snapshots/report.stdout", "rows: 3\ntotal: 10\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    p.write("harness.toml", &harness("warning: 2 rows dropped\\\\n"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(case(&summary, "report")["result"], "FAILED");
    assert_eq!(issue_types(&summary, "report"), ["OUTPUT_CHANGED"]);
    let added = "+warning: 2 rows dropped";
    // Evidence, terminal, report.md and JUnit all show the diff.
    let evidence = p.evidence("001-report");
    let diff = evidence["snapshots"][0]["diff"].as_str().unwrap();
    assert!(diff.contains(added), "{diff}");
    assert!(diff.contains("--- snapshots/report.stdout"), "{diff}");
    assert_eq!(evidence["snapshots"][0]["outcome"], "changed");
    assert!(stderr(&o).contains(added), "{}", text(&o));
    let md = read(p.out().join("report.md"));
    assert!(
        md.contains("## Output changes") && md.contains(added),
        "{md}"
    );
    assert!(junit_failure(&p, "report").contains(added));
    // The evidence holds up: the snapshot issue accounts for the FAILED.
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    // The snapshot itself is untouched by an ordinary run.
    assert_eq!(
        read(p.path().join("snapshots/report.stdout")),
        "rows: 3\ntotal: 10\n"
    );
}

#[test]
fn a_missing_snapshot_fails_the_case() {
    let p = Project::new(
        "[[verify]]\nname = \"new one\"\ncommand = \"echo hi\"\nsnapshot = [\"stdout\", \"stderr\"]\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(
        issue_types(&summary, "new one"),
        ["SNAPSHOT_MISSING", "SNAPSHOT_MISSING"]
    );
    assert!(stderr(&o).contains("--bless"), "{}", text(&o));
}

/// Output full of what changes from run to run: the temporary copy it runs
/// in, the harness directory, the temp dir, timestamps, durations, a pid.
const VOLATILE: &str = r#"
[redactions]
"[PID]" = 'pid \d+'

[[golden]]
name = "volatile"
path = "project"
command = "sh run.sh"
isolation = "copy"
snapshot = ["stdout"]
"#;

const VOLATILE_SCRIPT: &str = r#"echo "cwd $PWD"
echo "root $ROOT_DIR/project/run.sh"
echo "tmp ${TMPDIR:-/tmp}/scratch"
echo "at $(date -u +%Y-%m-%dT%H:%M:%S.%NZ) and $(date +%Y-%m-%d\ %H:%M:%S)"
echo "took $(( $$ % 90 + 1 )).$(( $$ % 7 ))s, then $(( $$ % 900 + 10 ))ms"
echo "pid $$"
"#;

#[test]
fn timestamps_temp_dirs_and_durations_do_not_break_a_snapshot() {
    let p = Project::new(VOLATILE);
    p.write("project/run.sh", VOLATILE_SCRIPT);
    let run = |args: &[&str]| p.cmd(args).env("ROOT_DIR", p.path()).output().unwrap();
    let o = run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshot = read(p.path().join("snapshots/volatile.stdout"));
    assert_eq!(
        snapshot,
        "cwd [CWD]\nroot [ROOT]/project/run.sh\ntmp [TMP]/scratch\n\
         at [TIMESTAMP] and [TIMESTAMP]\ntook [DURATION], then [DURATION]\n[PID]\n",
        "{}",
        text(&o)
    );
    // Two more runs: another temporary copy, other times, another pid.
    for _ in 0..2 {
        let o = run(&[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert_eq!(
            case(&p.summary(), "volatile")["snapshots"][0]["outcome"],
            "matched"
        );
    }
}

/// The temp dir is redacted only as a whole path component: a `mktemp`
/// name inside it keeps its own name (`[TMP]/tmp.Ab12`, never
/// `[TMP][TMP].Ab12`), and a sibling name that merely starts like it is
/// not the temp dir.
#[test]
fn the_temp_dir_is_redacted_only_on_a_path_boundary() {
    let p = Project::new(
        "[[verify]]\nname = \"scratch\"\ncommand = 'echo \"in $T/tmp.Ab12/x\"; echo \"next $T.Ab12 and $T.\"'\nsnapshot = [\"stdout\"]\n",
    );
    let tmp = std::env::temp_dir();
    let tmp = tmp.to_str().unwrap().trim_end_matches('/');
    let o = p.cmd(&["--bless"]).env("T", tmp).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshot = read(p.path().join("snapshots/scratch.stdout"));
    assert!(!snapshot.contains("[TMP][TMP]"), "{snapshot}");
    assert_eq!(
        snapshot,
        format!("in [TMP]/tmp.Ab12/x\nnext {tmp}.Ab12 and [TMP].\n"),
    );

    // The random name itself, redacted as the README says.
    let p = Project::new(
        "[redactions]\n\"[MKTEMP]\" = 'tmp\\.[A-Za-z0-9]+'\n\n[[verify]]\nname = \"scratch\"\ncommand = 'echo \"in $T/tmp.Ab12/x\"'\nsnapshot = [\"stdout\"]\n",
    );
    let o = p.cmd(&["--bless"]).env("T", tmp).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshot = read(p.path().join("snapshots/scratch.stdout"));
    assert_eq!(snapshot, "in [TMP]/[MKTEMP]/x\n");
}

#[test]
fn wildcards_match_text_and_lines_and_a_real_change_still_shows() {
    let toml = |rows: u32| {
        format!(
            "[[verify]]\nname = \"noisy\"\ncommand = \"echo started $$; echo noise 1; echo noise 2; echo rows: {rows}; echo end\"\nsnapshot = [\"stdout\"]\n"
        )
    };
    let p = Project::new(&toml(3));
    p.write(
        "snapshots/noisy.stdout",
        "started [..]\n...\nrows: 3\nend\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    p.write("harness.toml", &toml(4));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let evidence = p.evidence("001-noisy");
    let diff = evidence["snapshots"][0]["diff"].as_str().unwrap();
    assert!(diff.contains("-rows: 3\n+rows: 4"), "{diff}");
    // What the wildcards accepted is not part of the difference.
    assert!(
        !diff.contains("+started") && !diff.contains("+noise"),
        "{diff}"
    );
}

#[test]
fn bless_records_wildcard_text_in_the_output_literally() {
    let toml = |fill: &str, dots: &str| {
        format!(
            "[[verify]]\nname = \"literal\"\ncommand = \"echo 'rows [{fill}]'; echo '{dots}'; echo '[[...]]'; echo end\"\nsnapshot = [\"stdout\"]\n"
        )
    };
    let p = Project::new(&toml("..", "..."));
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        read(p.path().join("snapshots/literal.stdout")),
        "rows [[..]]\n[[...]]\n[[[[...]]]]\nend\n"
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // Unescaped, `[..]` would take any text and `...` any lines.
    for (fill, dots) in [("x", "..."), ("..", "one'; echo 'two"), ("..", "")] {
        p.write("harness.toml", &toml(fill, dots));
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(1), "{fill:?} {dots:?}: {}", text(&o));
        let summary = p.summary();
        assert_eq!(issue_types(&summary, "literal"), ["OUTPUT_CHANGED"]);
    }
}

#[test]
fn bless_rewrites_exactly_the_selected_snapshots_and_records_errors() {
    let p = Project::new(
        "[[verify]]\nname = \"alpha\"\ncommand = \"echo alpha v2\"\nsnapshot = [\"stdout\"]\n\
         [[verify]]\nname = \"beta\"\ncommand = \"echo beta v2\"\nsnapshot = [\"stdout\"]\n\
         [[verify]]\nname = \"gamma\"\ncommand = \"echo gamma $$\"\nsnapshot = [\"stdout\"]\n\
         [[golden]]\nname = \"absent\"\npath = \"no/such/project\"\ncommand = \"true\"\n",
    );
    p.write("snapshots/alpha.stdout", "alpha v1\n");
    p.write("snapshots/beta.stdout", "beta v1\n");
    // Hand-written wildcards that still match survive a bless.
    p.write("snapshots/gamma.stdout", "gamma [..]\n");

    let o = p.run(&["--bless", "alpha", "gamma", "absent"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the ERROR case still fails: {}",
        text(&o)
    );
    assert_eq!(read(p.path().join("snapshots/alpha.stdout")), "alpha v2\n");
    assert_eq!(read(p.path().join("snapshots/beta.stdout")), "beta v1\n");
    assert_eq!(
        read(p.path().join("snapshots/gamma.stdout")),
        "gamma [..]\n"
    );
    let err = stderr(&o);
    assert!(err.contains("snapshots/alpha.stdout (updated)"), "{err}");
    assert!(!err.contains("snapshots/beta.stdout"), "{err}");
    assert!(
        err.contains("absent could not run and is recorded as ERROR"),
        "{err}"
    );

    let baseline: Value =
        serde_json::from_str(&read(p.path().join("golden-baseline.json"))).unwrap();
    let names: Vec<&str> = baseline["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "gamma", "absent"], "{baseline}");
    let absent = &baseline["cases"][2];
    assert_eq!(absent["result"], "ERROR");
    let signature = absent["signature"].as_str().unwrap();
    assert!(
        signature.starts_with("EXECUTION_ERROR: Could not run: golden project path ["),
        "{absent}"
    );
    assert!(
        !signature.contains(&*p.path().to_string_lossy()),
        "unredacted: {absent}"
    );

    // beta was not blessed: it still fails, now as a new case.
    let o = p.run(&["beta"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(class(&p.summary(), "beta"), "new");
}

const GATED: &str = r#"
[harness]
gate = "baseline"

[[verify]]
name = "legacy import"
command = "echo 'Pipeline failed: legacy format'; exit 3"

[[verify]]
name = "checkout"
command = "CMD"

[[verify]]
name = "search"
command = "true"
"#;

#[test]
fn a_bless_that_cannot_write_the_baseline_says_the_real_exit_code() {
    // The case puts a directory where the bless will write its file.
    let p = Project::new(
        r#"
[harness]
name = "unblessable"

[[verify]]
name = "takes the baseline's place"
command = "mkdir golden-baseline.json"
"#,
    );
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(stderr(&o).contains("Exit code 1"), "{}", text(&o));
    // The run-finished message carries the same code.
    std::fs::remove_dir(p.path().join("golden-baseline.json")).unwrap();
    let o = p.run(&["--bless", "--message-format", "json"]);
    let last = String::from_utf8_lossy(&o.stdout)
        .lines()
        .last()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .unwrap();
    assert_eq!(last["reason"], "run-finished", "{last}");
    assert_eq!(last["exit_code"], 1, "{}", text(&o));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

fn gated(checkout: &str) -> String {
    GATED.replace("CMD", checkout)
}

#[test]
fn known_failures_pass_the_gate_and_only_a_regression_fails_it() {
    // The baseline: legacy import fails, the others pass.
    let p = Project::new(&gated("true"));
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // Now checkout fails too: one known failure, one regression.
    p.write("harness.toml", &gated("echo 'connection reset'; exit 1"));
    let o = p.run(&[]);
    let summary = p.summary();
    let classes: Vec<String> = ["legacy import", "checkout", "search"]
        .iter()
        .map(|n| class(&summary, n))
        .collect();
    assert_eq!(
        classes,
        ["known_failure", "regressed", "unchanged"],
        "{summary}"
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // Raw verdicts are kept: both failures are FAILED, the status is PARTIAL.
    assert_eq!(summary["final_status"], "PARTIAL (2 case(s) failed)");
    assert_eq!(summary["baseline"]["counts"]["regressed"], 1);
    assert_eq!(summary["baseline"]["counts"]["known_failure"], 1);
    let md = read(p.out().join("report.md"));
    let section = md
        .find("## Compared with baseline")
        .expect("comparison section");
    assert!(section < md.find("## Results").unwrap(), "{md}");
    let (regressed, known) = (
        md.find("| checkout | **regressed**").unwrap(),
        md.find("| legacy import | known_failure").unwrap(),
    );
    assert!(regressed < known, "regressions come first: {md}");
    assert!(stderr(&o).contains("regressed checkout"), "{}", text(&o));
    // JUnit carries the comparison as properties.
    let xml = read(p.out().join("junit.xml"));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let prop = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("property") && n.attribute("name") == Some(name))
            .and_then(|n| n.attribute("value"))
            .map(str::to_string)
    };
    assert_eq!(prop("baseline.regressed").as_deref(), Some("1"));
    assert_eq!(prop("baseline.gate").as_deref(), Some("baseline"));
    let checkout = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("checkout"))
        .unwrap();
    assert!(
        checkout
            .descendants()
            .any(|n| n.attribute("name") == Some("baseline")
                && n.attribute("value") == Some("regressed"))
    );

    // The same run with only the known failure: the gate passes, exit 0,
    // though the raw result is still a failure.
    p.write("harness.toml", &gated("true"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(summary["final_status"], "PARTIAL (1 case(s) failed)");
    assert_eq!(case(&summary, "legacy import")["result"], "FAILED");
    assert_eq!(class(&summary, "legacy import"), "known_failure");

    // Without the gate the raw results decide: exit 1.
    p.write(
        "harness.toml",
        &gated("true").replace("gate = \"baseline\"", ""),
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn a_changed_failure_a_missing_case_and_a_failing_new_case_fail_the_gate() {
    let p = Project::new(&gated("true"));
    write_baseline(
        &p,
        &[
            (
                "legacy import",
                "FAILED",
                Some("EXECUTION_FAILURE: something else"),
                0.1,
            ),
            ("checkout", "PASSED", None, 0.1),
            ("search", "PASSED", None, 0.1),
        ],
    );
    let o = p.run(&[]);
    assert_eq!(class(&p.summary(), "legacy import"), "changed_failure");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    // A filter that selects nothing never looks green, gate or not.
    let o = p.run(&["no-such-case"]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));

    // A case gone from the harness file is missing; a filtered run does not
    // compare what it did not select.
    write_baseline(
        &p,
        &[
            ("checkout", "PASSED", None, 0.1),
            ("retired", "PASSED", None, 0.1),
        ],
    );
    let o = p.run(&["checkout"]);
    let summary = p.summary();
    assert_eq!(summary["baseline"]["counts"]["missing"], 0, "{summary}");
    assert_eq!(summary["baseline"]["cases"].as_array().unwrap().len(), 1);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = p.run(&[]);
    let summary = p.summary();
    assert_eq!(class(&summary, "retired"), "missing");
    // legacy import fails and is new: a baseline that does not know it
    // must not turn the gate green.
    assert_eq!(class(&summary, "legacy import"), "new");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn a_case_three_times_slower_than_its_baseline_is_slower_with_a_performance_warning() {
    let p = Project::new(
        "[[verify]]\nname = \"nightly load\"\ncommand = \"sleep 1.8\"\n[[verify]]\nname = \"quick\"\ncommand = \"true\"\n",
    );
    write_baseline(
        &p,
        &[
            ("nightly load", "PASSED", None, 0.6),
            ("quick", "PASSED", None, 0.6),
        ],
    );
    let o = p
        .cmd(&[])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", p.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "slower is a warning, not a failure: {}",
        text(&o)
    );
    let summary = p.summary();
    assert_eq!(class(&summary, "nightly load"), "slower");
    assert_eq!(class(&summary, "quick"), "unchanged");
    let warnings = summary["warnings"].to_string();
    assert!(
        warnings.contains("PERFORMANCE: `nightly load` took"),
        "{warnings}"
    );
    assert!(stderr(&o).contains("PERFORMANCE"), "{}", text(&o));
    assert!(read(p.out().join("report.md")).contains("PERFORMANCE"));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("::warning file=harness.toml,line=1,title=PERFORMANCE%3A nightly load is slower than its baseline::took"),
        "{stdout}"
    );
}

#[test]
fn regressions_get_error_annotations_at_their_declarations() {
    let p = Project::new(&gated("exit 1"));
    write_baseline(&p, &[("checkout", "PASSED", None, 0.1)]);
    let o = p
        .cmd(&[])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", p.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The 0-based index of the name line is the 1-based line of the
    // `[[verify]]` above it: the declaration's line.
    let line = GATED
        .lines()
        .position(|l| l == "name = \"checkout\"")
        .unwrap();
    assert!(
        stdout.contains(&format!(
            "::error file=harness.toml,line={line},title=Regressed%3A checkout::"
        )),
        "{stdout}"
    );
}

#[test]
fn diff_between_two_out_dirs_lists_a_regression_and_a_fix() {
    let toml = |a: &str, b: &str| {
        format!(
            "[[verify]]\nname = \"alpha\"\ncommand = \"{a}\"\n[[verify]]\nname = \"beta\"\ncommand = \"{b}\"\n"
        )
    };
    let p = Project::new(&toml("true", "exit 2"));
    let base = p.path().join("base-out");
    let new = p.path().join("new-out");
    let run = |out: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
            .current_dir(p.path())
            .args(["--config", "harness.toml", "--out"])
            .arg(out)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap()
    };
    run(&base);
    p.write("harness.toml", &toml("exit 2", "true"));
    run(&new);

    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(p.path())
        .args(["diff", "base-out", "new-out"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let md = read(new.join("diff.md"));
    assert!(
        md.contains("| alpha | **regressed** | PASSED | FAILED |"),
        "{md}"
    );
    assert!(md.contains("| beta | fixed | FAILED | PASSED |"), "{md}");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim_end(), md.trim_end());
    let json: Value = serde_json::from_str(&read(new.join("diff.json"))).unwrap();
    assert_eq!(json["comparison"]["counts"]["regressed"], 1);
    assert_eq!(json["comparison"]["counts"]["fixed"], 1);

    // A run compared with itself: nothing regressed (beta is a known failure).
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(p.path())
        .args(["diff", "base-out", "base-out", "--out", "same"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(read(p.path().join("same/diff.md")).contains("Nothing regressed"));
}

#[test]
fn config_errors_name_file_line_and_column() {
    let p = Project::new(
        "[harness]\ngate = \"strict\"\nslowdown = 0.5\n[redactions]\n\"[ROOT]\" = 'x'\n\"PORT\" = 'y'\n\"[EMPTY]\" = 'a*'\n\
         [[verify]]\nname = \"a\"\ncommand = \"true\"\nsnapshot = [\"stdout\", \"stdin\"]\n\
         [[verify]]\nname = \"A\"\ncommand = \"true\"\nsnapshot = [\"stdout\"]\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = stderr(&o);
    for want in [
        "harness.toml:2:8: error: `gate` must be \"results\" or \"baseline\"",
        "harness.toml:3:12: error: `slowdown` must be between 1 and 1000",
        "harness.toml:5:1: error: `[ROOT]` is a built-in redaction",
        "harness.toml:6:1: error: redaction name `PORT` must look like `[NAME]`",
        "harness.toml:7:13: error: redaction `[EMPTY]` = `a*` matches the empty string",
        "harness.toml:11:23: error: `snapshot` lists \"stdout\" and \"stderr\", found \"stdin\"",
        "on a case-insensitive file system",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    // A broken baseline stops the run before anything runs.
    let p = Project::new("[[verify]]\nname = \"a\"\ncommand = \"touch ran\"\n");
    p.write(
        "golden-baseline.json",
        "{\"schema_version\": \"1.0.0\",\n \"cases\": [\n  {\"name\": \"a\"}]}",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("golden-baseline.json:3:"),
        "{}",
        text(&o)
    );
    assert!(!p.path().join("ran").exists());
}

/// A case that writes `out/sales.csv` from `src.csv`, with a data
/// snapshot keyed by region, `loaded_at` ignored, cents of tolerance.
const SALES: &str = r#"
[[verify]]
name = "sales"
command = "mkdir -p out && cp src.csv out/sales.csv"
outputs = [{ path = "out/sales.csv", key = ["region"], ignore = ["loaded_at"], tolerance = { abs = 0.01, rel = 1e-9 } }]
"#;

const SALES_CSV: &str = "region,total,orders,loaded_at\nWest,120.50,3,2026-01-01T10:00\nSilver,84.97,2,2026-01-01T10:00\nEast,10,1,2026-01-01T10:00\n";

/// The sales project, blessed from `SALES_CSV`.
fn blessed_sales() -> Project {
    blessed_sales_in(SALES)
}

/// A project of `harness` (with the sales case), blessed from `SALES_CSV`.
fn blessed_sales_in(harness: &str) -> Project {
    let p = Project::new(harness);
    p.write("src.csv", SALES_CSV);
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    p
}

/// Run `p` with Silver's total changed beyond the tolerance: it fails.
fn run_silver_changed(p: &Project) -> Output {
    p.write("src.csv", &SALES_CSV.replace("84.97", "90.12"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    o
}

/// The diff of the sales case's data snapshot in its evidence.
fn data_diff(p: &Project) -> String {
    p.evidence("001-sales")["snapshots"][0]["diff"]
        .as_str()
        .unwrap_or_else(|| panic!("no diff in {}", p.evidence("001-sales")))
        .to_string()
}

const SALES_SNAPSHOT: &str = "snapshots/sales.out.sales.csv.data";

#[test]
fn bless_writes_a_canonical_data_snapshot_sorted_by_key_without_ignored_columns() {
    let p = blessed_sales();
    assert_eq!(
        read(p.path().join(SALES_SNAPSHOT)),
        "# output: out/sales.csv\n\
         # columns: region:string, total:float, orders:integer\nEast,10,1\nSilver,84.97,2\nWest,120.50,3\n"
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let evidence = p.evidence("001-sales");
    let check = &evidence["snapshots"][0];
    assert_eq!(check["stream"], "data");
    assert_eq!(check["output"], "out/sales.csv");
    assert_eq!(check["outcome"], "matched");
    assert_eq!(check["sha256"].as_str().unwrap().len(), 64);
}

#[test]
fn a_number_changed_beyond_the_tolerance_is_data_changed_naming_row_column_and_values() {
    let p = blessed_sales();
    let o = run_silver_changed(&p);
    let summary = p.summary();
    assert_eq!(case(&summary, "sales")["result"], "FAILED");
    assert_eq!(issue_types(&summary, "sales"), ["DATA_CHANGED"]);
    let line = "changed: region=Silver total 84.97 -> 90.12";
    let evidence = p.evidence("001-sales");
    assert_eq!(evidence["snapshots"][0]["outcome"], "changed");
    let diff = evidence["snapshots"][0]["diff"].as_str().unwrap();
    assert_eq!(diff, format!("total: 1 of 3 rows differ\n{line}\n"));
    assert!(stderr(&o).contains(line), "{}", text(&o));
    let md = read(p.out().join("report.md"));
    assert!(md.contains("`DATA_CHANGED`") && md.contains(line), "{md}");
    assert!(junit_failure(&p, "sales").contains(line));
    // verify-evidence accepts DATA_CHANGED as the reason of the FAILED.
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    // An ordinary run leaves the snapshot as it was.
    assert!(read(p.path().join(SALES_SNAPSHOT)).contains("Silver,84.97,2"));
}

/// A wide change says how much of each column changed before its first
/// differences, in the terminal, report.md, JUnit and the evidence: one
/// column drifted everywhere and another in three rows read apart, as do
/// the rows removed and added.
#[test]
fn a_data_diff_counts_the_rows_each_column_differs_in_in_every_report() {
    let harness = r#"
[[verify]]
name = "sales"
command = "mkdir -p out && cp src.csv out/sales.csv"
outputs = [{ path = "out/sales.csv", key = ["id"] }]
"#;
    let table = |drift: bool| {
        let mut csv = String::from("id,total,region\n");
        for id in 0..1200 {
            if drift && id == 7 {
                continue;
            }
            let region = if drift && id % 400 == 1 {
                "East"
            } else {
                "West"
            };
            csv.push_str(&format!("{id},{},{region}\n", id + usize::from(drift)));
        }
        if drift {
            csv.push_str("5000,1,West\n5001,1,West\n");
        }
        csv
    };
    let p = Project::new(harness);
    p.write("src.csv", &table(false));
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    p.write("src.csv", &table(true));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let counts = [
        "total: 1,199 of 1,199 rows differ",
        "region: 3 of 1,199 rows differ",
        "rows removed: 1 of 1,200",
        "rows added: 2 of 1,201",
    ];
    let diff = data_diff(&p);
    let lines: Vec<&str> = diff.lines().collect();
    assert_eq!(lines[..4], counts, "{diff}");
    assert_eq!(lines[4], "row count: 1200 -> 1201", "{diff}");
    assert_eq!(lines[5], "changed: id=0 total 0 -> 1", "{diff}");
    assert_eq!(
        lines.last(),
        Some(&"… and 1186 more difference(s)"),
        "{diff}"
    );
    // The count of differences is of the differences alone.
    let evidence = p.evidence("001-sales");
    assert_eq!(
        evidence["snapshots"][0]["detail"], "1206 difference(s)",
        "{evidence}"
    );
    let md = read(p.out().join("report.md"));
    let junit = junit_failure(&p, "sales");
    for count in counts {
        assert!(stderr(&o).contains(count), "{count} in {}", text(&o));
        assert!(md.contains(count), "{count} in {md}");
        assert!(junit.contains(count), "{count} in {junit}");
    }
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
}

#[test]
fn a_change_within_the_tolerance_and_in_an_ignored_column_passes() {
    let p = blessed_sales();
    let now = SALES_CSV
        .replace("84.97", "84.975")
        .replace("2026-01-01T10:00", "2026-02-02T11:11");
    p.write("src.csv", &now);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Beyond it, the same column fails.
    p.write("src.csv", &SALES_CSV.replace("84.97", "84.99"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn a_dropped_row_and_a_renamed_column_are_data_changes() {
    let p = blessed_sales();
    p.write(
        "src.csv",
        &SALES_CSV.replace("West,120.50,3,2026-01-01T10:00\n", ""),
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(issue_types(&p.summary(), "sales"), ["DATA_CHANGED"]);
    let diff = data_diff(&p);
    assert_eq!(
        diff,
        "rows removed: 1 of 3\nrow count: 3 -> 2\nrow removed: region=West\n"
    );

    p.write("src.csv", &SALES_CSV.replace("total,", "total_usd,"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(issue_types(&p.summary(), "sales"), ["DATA_CHANGED"]);
    let diff = data_diff(&p);
    assert_eq!(diff, "column renamed: total -> total_usd\n");
    assert!(
        stderr(&o).contains("column renamed: total -> total_usd"),
        "{}",
        text(&o)
    );
}

/// The signature this run recorded for case `name` (summary.json's
/// comparison, `now`).
fn signature_now(summary: &Value, name: &str) -> String {
    summary["baseline"]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .and_then(|c| c["now"]["signature"].as_str())
        .unwrap_or_else(|| panic!("no signature of {name}: {summary}"))
        .to_string()
}

#[test]
fn a_data_change_is_a_known_failure_only_while_it_changes_the_data_the_same_way() {
    let p = blessed_sales_in(&format!("[harness]\ngate = \"baseline\"\n{SALES}"));
    // Silver's total changes: a regression, which fails the gate.
    run_silver_changed(&p);
    let summary = p.summary();
    assert_eq!(class(&summary, "sales"), "regressed");
    let known = signature_now(&summary, "sales");
    let (finding, digest) = known
        .split_once(" [data diff ")
        .unwrap_or_else(|| panic!("no data diff digest: {known}"));
    assert_eq!(
        finding,
        format!("DATA_CHANGED: out/sales.csv differs from {SALES_SNAPSHOT} (1 difference(s))")
    );
    let digest = digest.strip_suffix(']').unwrap();
    assert!(
        digest.len() == 16 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
        "{known}"
    );

    // The team records that failure as known: the gate passes, though the
    // case is still FAILED with its diff, and again on the next run.
    write_baseline(&p, &[("sales", "FAILED", Some(&known), 0.1)]);
    for _ in 0..2 {
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let summary = p.summary();
        assert_eq!(case(&summary, "sales")["result"], "FAILED");
        assert_eq!(class(&summary, "sales"), "known_failure");
        assert_eq!(signature_now(&summary, "sales"), known);
        assert_eq!(
            data_diff(&p),
            "total: 1 of 3 rows differ\nchanged: region=Silver total 84.97 -> 90.12\n"
        );
    }

    // Another cell changes instead: the same finding, one difference, but
    // another diff, so another failure: the gate fails.
    p.write("src.csv", &SALES_CSV.replace("120.50", "130.50"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(class(&summary, "sales"), "changed_failure");
    let other = signature_now(&summary, "sales");
    assert!(
        other.starts_with(&format!("{finding} [data diff ")),
        "{other}"
    );
    assert_ne!(other, known);
    assert!(stderr(&o).contains("changed_failure"), "{}", text(&o));

    // Bless accepts the data as it is now: the snapshot holds it, the
    // baseline entry changes from the known failure to PASSED, and the
    // next run is unchanged.
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{SALES_SNAPSHOT} (updated)")),
        "{err}"
    );
    assert!(
        err.contains(&format!("sales: FAILED: {known} → PASSED")),
        "{err}"
    );
    assert!(read(p.path().join(SALES_SNAPSHOT)).contains("West,130.50,3"));
    let baseline: Value =
        serde_json::from_str(&read(p.path().join("golden-baseline.json"))).unwrap();
    assert_eq!(baseline["cases"][0]["result"], "PASSED", "{baseline}");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(class(&p.summary(), "sales"), "unchanged");
}

/// Hex sha256 of `bytes`, computed here, apart from the tool.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The plain evidence hash (docs/reports.md, What a run leaves) of the case
/// in `dir`, from its files.
fn spec_hash(dir: &Path, exit_code: &Value) -> String {
    let mut bytes = Vec::new();
    for (i, f) in ["command.txt", "stdout.log", "stderr.log"]
        .iter()
        .enumerate()
    {
        if i > 0 {
            bytes.push(b'|');
        }
        bytes.extend(std::fs::read(dir.join(f)).unwrap());
    }
    bytes.push(b'|');
    if let Some(code) = exit_code.as_i64() {
        bytes.extend(code.to_string().as_bytes());
    }
    sha256_hex(&bytes)
}

#[test]
fn the_evidence_hash_covers_each_data_output_digest_and_comparison() {
    let p = blessed_sales_in(&format!(
        "{SALES}\n[[verify]]\nname = \"plain\"\ncommand = \"echo plain\"\n"
    ));
    run_silver_changed(&p);

    // A case without outputs hashes exactly as docs/reports.md says (What a
    // run leaves: the evidence hash).
    let plain = p.evidence("002-plain");
    assert_eq!(plain["schema_version"], "1.8.0");
    assert_eq!(
        plain["evidence_hash"],
        spec_hash(&p.case_dir("002-plain"), &plain["exit_code"])
    );
    // With outputs: sha256 of that hash, "|" and the data checks as compact
    // JSON, fields in a fixed order.
    let ev = p.evidence("001-sales");
    let check = &ev["snapshots"][0];
    assert_eq!(check["outcome"], "changed");
    let field = |k: &str| format!("\"{k}\":{}", check.get(k).unwrap_or(&Value::Null));
    let d = format!(
        "[{{{}}}]",
        [
            "output",
            "file",
            "sha256",
            "outcome",
            "detail",
            "diff",
            "diff_sha256"
        ]
        .map(field)
        .join(",")
    );
    let data_csv = sha256_hex(SALES_CSV.replace("84.97", "90.12").as_bytes());
    assert_eq!(check["sha256"], data_csv.as_str());
    let base = spec_hash(&p.case_dir("001-sales"), &ev["exit_code"]);
    let with_data = sha256_hex(format!("{base}|{d}").as_bytes());
    // And the pending snapshot the change kept (evidence 1.8 on): sha256
    // of that, "|pending|" and each pending snapshot as compact JSON.
    let pending = &check["pending"];
    assert_eq!(
        pending["sha256"],
        sha256_hex(&std::fs::read(p.out().join(pending["path"].as_str().unwrap())).unwrap())
    );
    let pending_json = format!(
        "[{{\"file\":{},\"path\":{},\"sha256\":{},\"base_sha256\":{}}}]",
        check["file"], pending["path"], pending["sha256"], pending["base_sha256"]
    );
    assert_eq!(
        ev["evidence_hash"],
        sha256_hex(format!("{with_data}|pending|{pending_json}").as_bytes()),
        "{d}"
    );
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));

    // An output digest edited in evidence.json: the hash no longer
    // recomputes.
    let path = p.case_dir("001-sales").join("evidence.json");
    let mut edited: Value = serde_json::from_str(&read(&path)).unwrap();
    edited["snapshots"][0]["sha256"] = Value::from(sha256_hex(SALES_CSV.as_bytes()));
    let forged = serde_json::to_string_pretty(&edited).unwrap();
    std::fs::write(&path, &forged).unwrap();
    // SHA256SUMS resealed too: only the evidence hash can tell.
    let sums = p.run_dir().join("SHA256SUMS");
    let resealed: String = read(&sums)
        .lines()
        .map(|l| match l.split_once("  ") {
            Some((_, f)) if f == "execution/001-sales/evidence.json" => {
                format!("{}  {f}\n", sha256_hex(forged.as_bytes()))
            }
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&sums, resealed).unwrap();
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(1), "{}", text(&v));
    let out = String::from_utf8_lossy(&v.stdout);
    let finding = "case \"sales\": execution/001-sales/evidence.json: evidence hash differs";
    assert!(out.contains(finding), "{}", text(&v));
    assert!(
        out.contains("the hash covers the data outputs' digests"),
        "{}",
        text(&v)
    );
    assert!(!out.contains("case \"plain\""), "{}", text(&v));
    assert!(!out.contains("SHA256SUMS records"), "{}", text(&v));
}

#[test]
fn a_jsonl_output_is_snapshotted_and_compared_the_same_way() {
    let harness = r#"
[[verify]]
name = "events"
command = "mkdir -p data && cp src.jsonl data/events.jsonl"
outputs = [{ path = "data/*.jsonl", key = ["id"] }]
"#;
    let p = Project::new(harness);
    let rows =
        "{\"id\": 2, \"amount\": 5.5, \"ok\": true}\n{\"id\": 1, \"amount\": 3, \"ok\": false}\n";
    p.write("src.jsonl", rows);
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        read(p.path().join("snapshots/events.data.events.jsonl.data")),
        "# output: data/events.jsonl\n# columns: id:integer, amount:float, ok:bool\n1,3,false\n2,5.5,true\n"
    );
    p.write("src.jsonl", &rows.replace("5.5", "6.5"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(issue_types(&p.summary(), "events"), ["DATA_CHANGED"]);
    assert!(
        stderr(&o).contains("changed: id=2 amount 5.5 -> 6.5"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_data_output_without_a_snapshot_is_snapshot_missing() {
    let p = Project::new(SALES);
    p.write("src.csv", SALES_CSV);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(issue_types(&p.summary(), "sales"), ["SNAPSHOT_MISSING"]);
    assert!(stderr(&o).contains(SALES_SNAPSHOT), "{}", text(&o));
}

#[test]
fn under_copy_isolation_a_data_output_is_read_from_the_copy() {
    let harness = r#"
[[golden]]
name = "etl"
path = "project"
command = "mkdir -p out && cp in.csv out/sales.csv"
isolation = "copy"
outputs = [{ path = "out/sales.csv", key = ["region"] }]
"#;
    let p = Project::new(harness);
    p.write("project/in.csv", "region,total\nWest,1.5\n");
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        read(p.path().join("snapshots/etl.out.sales.csv.data")),
        "# output: out/sales.csv\n# columns: region:string, total:float\nWest,1.5\n"
    );
    // The project itself was never written to.
    assert!(!p.path().join("project/out").exists());
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// The Python of the virtualenv `CARGO_GOLDEN_ODIBI_VENV` names (pandas,
/// pyarrow and deltalake, as `.ci/run` makes it), or None: the test says
/// why it does not run.
fn data_tools_python(test: &str) -> Option<std::path::PathBuf> {
    let Some(venv) = std::env::var_os("CARGO_GOLDEN_ODIBI_VENV") else {
        eprintln!(
            "{test} skipped: CARGO_GOLDEN_ODIBI_VENV is not set (.ci/run sets it from .ci/odibi-venv)"
        );
        return None;
    };
    Some(Path::new(&venv).join("bin/python"))
}

/// Writes `src.csv` as a Parquet file with pandas (pyarrow), and as a
/// Delta table with deltalake in two commits: a stale first version, then
/// an overwrite with the data, so only the current version is the table;
/// as a Delta table partitioned by region; and as a Delta table whose log
/// starts at a checkpoint (the commits before it cleaned up) with the data
/// in the commit after it.
const WRITE_TABLES: &str = r#"
import os, shutil
import pandas as pd
from deltalake import DeltaTable, write_deltalake

shutil.rmtree("data", ignore_errors=True)
os.makedirs("data")
df = pd.read_csv("src.csv", parse_dates=["loaded_at"])
df.to_parquet("data/sales.parquet", index=False)
stale = pd.DataFrame({"region": ["Stale"], "total": [1.0], "orders": [9]})
write_deltalake("data/sales_delta", stale)
write_deltalake("data/sales_delta", df, mode="overwrite", schema_mode="overwrite")
write_deltalake("data/sales_by_region", df, partition_by=["region"])
write_deltalake("data/sales_checkpointed", stale)
write_deltalake("data/sales_checkpointed", stale.assign(total=[2.0]), mode="overwrite")
DeltaTable("data/sales_checkpointed").create_checkpoint()
for v in (0, 1):
    os.remove(f"data/sales_checkpointed/_delta_log/{v:020}.json")
write_deltalake("data/sales_checkpointed", df, mode="overwrite", schema_mode="overwrite")
"#;

/// A project whose case writes the sales data as Parquet and Delta with
/// the real tools, blessed from `SALES_CSV`.
fn blessed_tables(python: &Path) -> Project {
    let harness = format!(
        r#"
[[verify]]
name = "sales"
command = "'{}' write_tables.py"
outputs = [
  {{ path = "data/*.parquet", key = ["region"], ignore = ["loaded_at"], tolerance = {{ abs = 0.01 }} }},
  {{ path = "data/sales_delta", format = "delta", key = ["region"], tolerance = {{ abs = 0.01 }} }},
  {{ path = "data/sales_by_region", format = "delta", key = ["region"], ignore = ["loaded_at"], tolerance = {{ abs = 0.01 }} }},
  {{ path = "data/sales_checkpointed", format = "delta", key = ["region"], ignore = ["loaded_at"], tolerance = {{ abs = 0.01 }} }},
]
"#,
        python.display()
    );
    let p = Project::new(&harness);
    p.write("write_tables.py", WRITE_TABLES);
    p.write("src.csv", SALES_CSV);
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    p
}

/// Run the tables project, which fails with DATA_CHANGED on every output:
/// the diffs of the Parquet, the Delta, the partitioned Delta and the
/// checkpointed Delta output.
fn run_changed(p: &Project) -> [String; 4] {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(issue_types(&p.summary(), "sales"), ["DATA_CHANGED"; 4]);
    let evidence = p.evidence("001-sales");
    [
        "data/sales.parquet",
        "data/sales_delta",
        "data/sales_by_region",
        "data/sales_checkpointed",
    ]
    .map(|output| {
        evidence["snapshots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["output"] == output)
            .and_then(|s| s["diff"].as_str())
            .unwrap_or_else(|| panic!("no diff of {output} in {evidence}"))
            .to_string()
    })
}

#[test]
fn parquet_and_delta_outputs_of_pandas_and_deltalake_are_snapshotted_and_compared() {
    let Some(python) = data_tools_python("parquet and delta outputs") else {
        return;
    };
    let p = blessed_tables(&python);
    assert_eq!(
        read(p.path().join("snapshots/sales.data.sales.parquet.data")),
        "# output: data/sales.parquet\n# columns: region:string, total:float, orders:integer\nEast,10,1\nSilver,84.97,2\nWest,120.5,3\n"
    );
    // The current version only: the stale first commit's row is not in it;
    // the timestamp column in ISO 8601.
    assert_eq!(
        read(p.path().join("snapshots/sales.data.sales_delta.data")),
        "# output: data/sales_delta\n\
         # columns: region:string, total:float, orders:integer, loaded_at:string\n\
         East,10,1,2026-01-01T10:00:00Z\nSilver,84.97,2,2026-01-01T10:00:00Z\nWest,120.5,3,2026-01-01T10:00:00Z\n"
    );
    // A partitioned table: the partition column from the log.
    assert_eq!(
        read(p.path().join("snapshots/sales.data.sales_by_region.data")),
        "# output: data/sales_by_region\n# columns: region:string, total:float, orders:integer\nEast,10,1\nSilver,84.97,2\nWest,120.5,3\n"
    );
    // A log read from its checkpoint on: the version after it.
    assert_eq!(
        read(
            p.path()
                .join("snapshots/sales.data.sales_checkpointed.data")
        ),
        "# output: data/sales_checkpointed\n# columns: region:string, total:float, orders:integer\nEast,10,1\nSilver,84.97,2\nWest,120.5,3\n"
    );
    // Within the tolerance, all pass.
    p.write("src.csv", &SALES_CSV.replace("84.97", "84.975"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Beyond it, each is DATA_CHANGED naming key, column and values.
    p.write("src.csv", &SALES_CSV.replace("84.97", "90.12"));
    let changed = "total: 1 of 3 rows differ\nchanged: region=Silver total 84.97 -> 90.12\n";
    assert_eq!(run_changed(&p), [changed; 4]);
}

#[test]
fn a_dropped_row_and_a_renamed_column_are_caught_in_parquet_and_delta() {
    let Some(python) = data_tools_python("parquet and delta changes") else {
        return;
    };
    let p = blessed_tables(&python);
    p.write(
        "src.csv",
        &SALES_CSV.replace("West,120.50,3,2026-01-01T10:00\n", ""),
    );
    let dropped = "rows removed: 1 of 3\nrow count: 3 -> 2\nrow removed: region=West\n";
    assert_eq!(run_changed(&p), [dropped; 4]);

    p.write("src.csv", &SALES_CSV.replace("total,", "total_usd,"));
    let renamed = "column renamed: total -> total_usd\n";
    assert_eq!(run_changed(&p), [renamed; 4]);
}

#[test]
fn a_delta_table_whose_checkpoint_is_gone_is_refused_not_read_at_a_wrong_version() {
    let harness = r#"
[[verify]]
name = "sales"
command = "mkdir -p data/sales/_delta_log && echo '{}' > data/sales/_delta_log/00000000000000000000.json && echo '{\"version\":3}' > data/sales/_delta_log/_last_checkpoint"
outputs = [{ path = "data/sales", format = "delta", key = ["region"] }]
"#;
    let p = Project::new(harness);
    p.write(
        "snapshots/sales.data.sales.data",
        "# columns: region:string\nWest\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(issue_types(&p.summary(), "sales"), ["DATA_CHANGED"]);
    let diff = p.evidence("001-sales")["snapshots"][0]["diff"].clone();
    assert!(
        diff.as_str().is_some_and(|d| d.starts_with(
            "output not read: data/sales: its _last_checkpoint names version 3, whose checkpoint is not all there"
        )),
        "{diff}"
    );
}

/// The sales project with its output snapshotted as a summary.
const SALES_SUMMARY: &str = r#"
[[verify]]
name = "sales"
command = "mkdir -p out && cp src.csv out/sales.csv"
outputs = [{ path = "out/sales.csv", mode = "summary", ignore = ["loaded_at"], tolerance = { abs = 0.01 } }]
"#;

#[test]
fn a_summary_snapshot_catches_a_changed_number_a_dropped_row_and_a_renamed_column() {
    let p = Project::new(SALES_SUMMARY);
    p.write("src.csv", SALES_CSV);
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshot = read(p.path().join(SALES_SNAPSHOT));
    let lines: Vec<&str> = snapshot.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "# output: out/sales.csv",
            "# summary: 3 rows",
            "column,type,nulls,nan,inf,-inf,min,max,sum,checksum"
        ]
    );
    assert!(
        lines[3].starts_with("region,string,0,0,0,0,East,West,,"),
        "{snapshot}"
    );
    assert!(
        lines[4].starts_with("total,float,0,0,0,0,10,120.5,215.47,"),
        "{snapshot}"
    );
    assert!(
        lines[5].starts_with("orders,integer,0,0,0,0,1,3,6,"),
        "{snapshot}"
    );
    assert_eq!(lines.len(), 6, "{snapshot}");

    // Rows in another order and a number within the tolerance: the same.
    p.write(
        "src.csv",
        "region,total,orders,loaded_at\nEast,10,1,x\nWest,120.50,3,y\nSilver,84.975,2,z\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let changed = |csv: &str| {
        p.write("src.csv", csv);
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert_eq!(issue_types(&p.summary(), "sales"), ["DATA_CHANGED"]);
        data_diff(&p)
    };
    assert_eq!(
        changed(&SALES_CSV.replace("84.97", "90.12")),
        "column total: sum 215.47 -> 220.62\n"
    );
    let dropped = changed(&SALES_CSV.replace("West,120.50,3,2026-01-01T10:00\n", ""));
    assert!(
        dropped.starts_with("row count: 3 -> 2\ncolumn region: max West -> Silver\n"),
        "{dropped}"
    );
    assert_eq!(
        changed(&SALES_CSV.replace("total,", "total_usd,")),
        "column renamed: total -> total_usd\n"
    );
    let renamed_region = changed(&SALES_CSV.replace("West", "Wests"));
    assert!(
        renamed_region.starts_with(
            "column region: max West -> Wests\ncolumn region: values changed (checksum "
        ),
        "{renamed_region}"
    );
}

#[test]
fn a_summary_of_jsonl_and_a_key_with_a_summary() {
    let harness = r#"
[[verify]]
name = "events"
command = "mkdir -p out && cp src.jsonl out/events.jsonl"
outputs = [{ path = "out/events.jsonl", mode = "summary" }]
"#;
    let p = Project::new(harness);
    p.write(
        "src.jsonl",
        "{\"id\": 2, \"amount\": 5.5}\n{\"id\": 1, \"amount\": null}\n",
    );
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshot = read(p.path().join("snapshots/events.out.events.jsonl.data"));
    assert!(
        snapshot.starts_with("# output: out/events.jsonl\n# summary: 2 rows\n"),
        "{snapshot}"
    );
    assert!(
        snapshot.contains("\namount,float,1,0,0,0,5.5,5.5,5.5,"),
        "{snapshot}"
    );
    // A snapshot of rows where a summary is wanted says to bless again.
    p.write(
        "snapshots/events.out.events.jsonl.data",
        "# columns: id:integer, amount:float\n1,\n2,5.5\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stderr(&o).contains(
            "the snapshot holds rows and `mode = \"summary\"` wants a summary: bless it again"
        ),
        "{}",
        text(&o)
    );

    let p =
        Project::new(&harness.replace("mode = \"summary\"", "mode = \"summary\", key = [\"id\"]"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("`key` matches rows, which `mode = \"summary\"` does not keep"),
        "{}",
        text(&o)
    );
}

/// A case that only runs "in CI": its output names the directory it ran in
/// (redacted to `[CWD]` in its snapshot).
const FROM_CI: &str = r#"
[harness]
name = "from-ci"

[[verify]]
name = "ci only"
command = "echo rows: $(cat rows); pwd"
working_dir = "."
snapshot = ["stdout"]
"#;

/// A project with `FROM_CI` whose case prints `rows`.
pub(crate) fn ci_project(rows: &str) -> Project {
    let p = Project::new(FROM_CI);
    p.write("rows", rows);
    p
}

/// Every file under `dir/snapshots`, by name, with its content.
fn snapshot_files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir.join("snapshots"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, read(e.path()))
        })
        .collect();
    files.sort();
    files
}

/// The baseline's entries without their durations.
fn entries(dir: &Path) -> Vec<Value> {
    let mut b: Value = serde_json::from_str(&read(dir.join("golden-baseline.json"))).unwrap();
    let cases = b["cases"].as_array_mut().unwrap();
    for c in cases.iter_mut() {
        c.as_object_mut().unwrap().remove("duration_seconds");
    }
    cases.clone()
}

fn bless_from(p: &Project, from: &Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(p.path())
        .args(["bless", "--from"])
        .arg(from)
        .arg("--config")
        .arg(p.path().join("harness.toml"))
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn bless_from_a_verified_out_dir_writes_what_a_local_bless_writes() {
    // CI: no snapshot yet, so the case fails with SNAPSHOT_MISSING.
    let ci = ci_project("3");
    let o = ci.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // The failure names both ways to accept the output.
    assert!(
        text(&o).contains(
            "bless: `cargo golden review` (takes the change as this run kept it) or `cargo golden --bless --exact 'ci only'` (runs the case again); from a CI run's out dir: `cargo golden review OUT_DIR`"
        ),
        "{}",
        text(&o)
    );
    // Here: bless from CI's out dir, without running anything.
    let here = ci_project("not run here");
    let o = bless_from(&here, &ci.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!here.out().exists(), "nothing ran here");
    // A local bless of the same case, run where it can run.
    let local = ci_project("3");
    let o = local.run(&["--bless", "--exact", "ci only"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let blessed = snapshot_files(here.path());
    assert_eq!(blessed, snapshot_files(local.path()));
    assert_eq!(blessed.len(), 1, "{blessed:?}");
    assert!(blessed[0].1.contains("rows: 3"), "{blessed:?}");
    // Redacted where it ran (CI's directory), as a local bless redacts here.
    assert!(blessed[0].1.contains("[CWD]"), "{blessed:?}");
    assert!(
        !blessed[0].1.contains(&*ci.path().to_string_lossy()),
        "{blessed:?}"
    );
    assert_eq!(entries(here.path()), entries(local.path()));
    assert_eq!(entries(here.path())[0]["result"], "PASSED");
    // What was blessed is what the case does: where it prints `rows: 3`,
    // it now passes.
    here.write("rows", "3");
    let o = here.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn bless_from_a_tampered_out_dir_is_refused() {
    let ci = ci_project("3");
    let o = ci.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let log = ci.case_dir("001-ci_only").join("stdout.log");
    assert!(read(&log).contains("rows: 3"));
    std::fs::write(&log, "rows: 4\n").unwrap();
    let here = ci_project("3");
    let o = bless_from(&here, &ci.out());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("refusing to bless"), "{err}");
    assert!(err.contains("stdout.log"), "{err}");
    assert!(!here.path().join("snapshots").exists());
    assert!(!here.path().join("golden-baseline.json").exists());
}

#[test]
fn bless_from_with_a_public_key_takes_only_a_run_signed_by_it() {
    let ci = ci_project("3");
    let key = |name: &str| {
        let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
        let secret = ci.write(
            &format!("keys/{name}.key"),
            &kp.sk.to_box(None).unwrap().into_string(),
        );
        (kp.pk.to_base64(), secret)
    };
    let (ci_public, ci_secret) = key("ci");
    let (other_public, _) = key("other");
    let o = ci.run(&["--sign-key", ci_secret.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let with_key = |p: &Project, public: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
            .current_dir(p.path())
            .args(["bless", "--from"])
            .arg(ci.out())
            .args(["--public-key", public, "--config"])
            .arg(p.path().join("harness.toml"))
            .env_remove("GITHUB_ACTIONS")
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let here = ci_project("3");
    let o = with_key(&here, &other_public);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("refusing to bless"), "{}", text(&o));
    assert!(!here.path().join("golden-baseline.json").exists());
    let o = with_key(&here, &ci_public);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(entries(here.path())[0]["result"], "PASSED");
    assert_eq!(snapshot_files(here.path()).len(), 1);
}

#[test]
fn a_time_of_day_is_redacted_so_dbt_like_text_can_be_snapshotted() {
    let p = Project::new(
        r#"
[[verify]]
name = "timed"
command = "echo \"$(date +%H:%M:%S.%N)  Done. PASS=3\""
snapshot = ["stdout"]
"#,
    );
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        read(p.path().join("snapshots/timed.stdout")),
        "[TIME]  Done. PASS=3\n"
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}
