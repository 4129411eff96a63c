//! The classification corpus (`tests/corpus/`) through the real binary:
//! every benign line of real tools, printed by a command that exits 0, must
//! pass, and every real failure output must fail with the status it calls
//! for, under the built-in patterns and the allow list of
//! `tests/corpus/patterns.toml`.
//!
//! Run with `--nocapture` to see the counts.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{Project, text};
use serde_json::Value;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// `s` single-quoted for sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A TOML basic string holding `s`.
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// One failure output of `failures.toml`.
struct FailureOutput {
    file: String,
    exit: i64,
    stderr: bool,
    status: String,
}

fn failure_outputs() -> Vec<FailureOutput> {
    let text = std::fs::read_to_string(corpus().join("failures.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let entries = doc["output"].as_array().expect("[[output]] entries");
    let outputs: Vec<FailureOutput> = entries
        .iter()
        .map(|e| FailureOutput {
            file: e["file"].as_str().unwrap().to_string(),
            exit: e["exit"].as_integer().unwrap(),
            stderr: e.get("stderr").and_then(toml::Value::as_bool) == Some(true),
            status: e["status"].as_str().unwrap().to_string(),
        })
        .collect();
    // Every file is judged, and every entry has its file.
    let mut files: Vec<String> = std::fs::read_dir(corpus().join("failures"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = outputs.iter().map(|o| o.file.clone()).collect();
    listed.sort();
    listed.dedup();
    assert_eq!(files, listed, "failures/ and failures.toml disagree");
    outputs
}

/// What each case is expected to be: its name, and the execution status a
/// failure must get (None: a benign line, which must pass).
type Expectations = Vec<(String, Option<String>)>;

/// A harness with `patterns` and one case per benign line and per failure
/// output.
fn harness(patterns: &str, benign: usize, failures: &[FailureOutput]) -> (String, Expectations) {
    let mut toml = format!("[harness]\njobs = 2\n{patterns}\n");
    let mut expected = Vec::new();
    let lines = corpus().join("benign.txt");
    for n in 1..=benign {
        let name = format!("benign-{n:03}");
        let command = format!("sed -n '{n}p' {}", sh_quote(&lines.display().to_string()));
        toml.push_str(&format!(
            "[[verify]]\nname = \"{name}\"\ncommand = {}\n",
            toml_str(&command)
        ));
        expected.push((name, None));
    }
    for (i, f) in failures.iter().enumerate() {
        let name = format!("failure-{:02}-{}-exit-{}", i + 1, f.file, f.exit);
        let path = corpus().join("failures").join(&f.file);
        let redirect = if f.stderr { " >&2" } else { "" };
        let command = format!(
            "cat {}{redirect}; exit {}",
            sh_quote(&path.display().to_string()),
            f.exit
        );
        toml.push_str(&format!(
            "[[verify]]\nname = \"{name}\"\ncommand = {}\n",
            toml_str(&command)
        ));
        expected.push((name, Some(f.status.clone())));
    }
    (toml, expected)
}

/// Run the harness and return the cases judged other than expected, as
/// `name: status/result (line or file)`.
fn misclassified(toml: &str, expected: &Expectations) -> Vec<String> {
    let p = Project::new(toml);
    let o = p.run(&[]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "the run itself failed: {}",
        text(&o)
    );
    let summary = p.summary();
    let cases: BTreeMap<&str, &Value> = summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c))
        .collect();
    assert_eq!(cases.len(), expected.len(), "every case ran");
    let benign: Vec<String> = std::fs::read_to_string(corpus().join("benign.txt"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut wrong = Vec::new();
    for (i, (name, status)) in expected.iter().enumerate() {
        let case = cases[name.as_str()];
        let (got_status, got_result) = (&case["execution_status"], &case["result"]);
        let right = match status {
            None => got_result == "PASSED",
            Some(s) => got_result == "FAILED" && got_status == s.as_str(),
        };
        if !right {
            let what = match status {
                None => benign[i].clone(),
                Some(s) => format!("expected {s}"),
            };
            wrong.push(format!("{name}: {got_status}/{got_result} ({what})"));
        }
    }
    wrong
}

#[test]
fn benign_lines_pass_and_failure_outputs_fail() {
    let benign_lines = std::fs::read_to_string(corpus().join("benign.txt"))
        .unwrap()
        .lines()
        .inspect(|l| assert!(!l.trim().is_empty(), "benign.txt has an empty line"))
        .count();
    let failures = failure_outputs();
    let patterns = std::fs::read_to_string(corpus().join("patterns.toml")).unwrap();

    let (toml, expected) = harness(&patterns, benign_lines, &failures);
    let wrong = misclassified(&toml, &expected);
    eprintln!(
        "corpus: {benign_lines} benign lines, {} failure outputs, misclassified: {}",
        failures.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));

    // Without the allow list the built-ins alone redden benign lines: the
    // corpus holds the lines precision is about.
    let (toml, expected) = harness("", benign_lines, &failures);
    let wrong = misclassified(&toml, &expected);
    eprintln!(
        "without the allow list: misclassified: {} (all benign lines)",
        wrong.len()
    );
    assert!(!wrong.is_empty());
    assert!(wrong.iter().all(|w| w.starts_with("benign-")), "{wrong:#?}");
}

/// One recorded run of a real tool (`tests/corpus/<tool>/MANIFEST.toml`).
struct Recorded {
    name: String,
    exit: i64,
    outcome: String,
    expect: String,
    /// What kind of outcome it is (`config_error`, `nothing_selected`, …).
    kind: Option<String>,
}

fn recorded(dir: &str) -> Vec<Recorded> {
    let text = std::fs::read_to_string(corpus().join(dir).join("MANIFEST.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    doc["output"]
        .as_array()
        .expect("[[output]] entries")
        .iter()
        .map(|e| Recorded {
            name: e["name"].as_str().unwrap().to_string(),
            exit: e["exit"].as_integer().unwrap(),
            outcome: e["outcome"].as_str().unwrap().to_string(),
            expect: e["expect"].as_str().unwrap().to_string(),
            kind: e.get("kind").and_then(|v| v.as_str()).map(String::from),
        })
        .collect()
}

/// Every recorded run of `dir`, replayed (its stdout, its stderr, its exit
/// status) as a golden case under `preset` (or the built-ins) and nothing
/// else; returns the summary's cases with the recordings.
fn replay(dir: &str, preset: Option<&str>) -> Vec<(Recorded, Value)> {
    replay_some(dir, preset, |_| true)
}

/// [`replay`] of the recordings `keep` keeps.
fn replay_some(
    dir: &str,
    preset: Option<&str>,
    keep: impl Fn(&Recorded) -> bool,
) -> Vec<(Recorded, Value)> {
    let runs: Vec<Recorded> = recorded(dir).into_iter().filter(|r| keep(r)).collect();
    let preset = preset.map_or("presets = []\n".to_string(), |p| {
        format!("preset = \"{p}\"\n")
    });
    let mut toml = format!("[harness]\n{preset}jobs = 2\n");
    for r in &runs {
        let file = |ext: &str| {
            let path = corpus().join(dir).join(format!("{}.{ext}", r.name));
            assert!(path.is_file(), "{} is missing", path.display());
            sh_quote(&path.display().to_string())
        };
        let command = format!(
            "cat {}; cat {} >&2; exit {}",
            file("stdout"),
            file("stderr"),
            r.exit
        );
        toml.push_str(&format!(
            "[[golden]]\nname = \"{}\"\npath = \".\"\ncommand = {}\n",
            r.name,
            toml_str(&command)
        ));
    }
    let p = Project::new(&toml);
    let o = p.run(&[]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let summary = p.summary();
    let cases = summary["cases"].as_array().unwrap().clone();
    assert_eq!(cases.len(), runs.len());
    runs.into_iter().zip(cases).collect()
}

fn issue_types(case: &Value) -> Vec<&str> {
    case["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect()
}

/// Real odibi 3.15.1 runs, at 80 columns (rich wraps) and at 1000, judged
/// with `preset = "odibi"` alone: every outcome right, and each filed
/// under its cause.
#[test]
fn real_odibi_runs_judge_right_with_the_preset_alone() {
    let mut wrong = Vec::new();
    let replayed = replay("odibi", Some("odibi"));
    for (r, case) in &replayed {
        let types = issue_types(case);
        let status = case["execution_status"].as_str().unwrap();
        let filed = match r.outcome.as_str() {
            "config_error" | "validate_config_error" => {
                status == "VALIDATION_FAILED" && types.contains(&"CONFIGURATION_ERROR")
            }
            "dq_gate_failure" | "runtime_error" => {
                status == "RUNTIME_FAILED" && !types.contains(&"CONFIGURATION_ERROR")
            }
            "nothing_selected" => status == "SUCCESS" && types == ["NOTHING_RAN"],
            _ => status == "SUCCESS",
        };
        if case["result"] != r.expect.as_str() || !filed {
            wrong.push(format!(
                "{} ({}): {status}/{} {types:?}",
                r.name, r.outcome, case["result"]
            ));
        }
    }
    eprintln!(
        "odibi corpus: {} recorded runs, misjudged: {}",
        replayed.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "misjudged:\n{}", wrong.join("\n"));
    // The config error's issue quotes the cause whole, even where rich
    // wrapped it over four lines.
    for (r, case) in &replayed {
        if r.outcome == "config_error" {
            let message = case["issues"][0]["message"].as_str().unwrap();
            assert!(
                message.contains("write.mode: Input should be 'overwrite', 'append'"),
                "{}: {message}",
                r.name
            );
        }
    }
}

/// Real dbt 1.11 builds (dbt-duckdb), text and JSON logs, judged with the
/// `dbt` preset alone: every outcome right and filed under its cause, a
/// warn-severity test a warning of a passed case, a failure headlined by
/// dbt's own line.
#[test]
fn real_dbt_builds_judge_right_with_the_preset_alone() {
    let mut wrong = Vec::new();
    let replayed = replay("dbt", Some("dbt"));
    for (r, case) in &replayed {
        let types = issue_types(case);
        let status = case["execution_status"].as_str().unwrap();
        let headline = case["issues"][0]["message"].as_str().unwrap_or("");
        let filed = match r.outcome.as_str() {
            "compilation_error" | "parsing_error" => {
                status == "VALIDATION_FAILED" && types.contains(&"CONFIGURATION_ERROR")
            }
            "test_failure" => {
                status == "RUNTIME_FAILED"
                    && headline.contains("Failure in test unique_stg_orders_order_id")
            }
            // The text log joins the cause to its line; the JSON log says
            // it in a record of its own.
            "runtime_error" => {
                status == "RUNTIME_FAILED"
                    && (headline.contains("Runtime Error in model stg_orders")
                        || headline.ends_with(
                            "Failure in model stg_orders (models/staging/stg_orders.sql)",
                        ))
            }
            "hook_failure" => status == "RUNTIME_FAILED" && headline.contains("shop-on-run-end-0"),
            "nothing_selected" => status == "SUCCESS" && types == ["NOTHING_RAN"],
            "test_warn" => status == "SUCCESS" && case["warnings"].to_string().contains("WARN=1"),
            _ => status == "SUCCESS",
        };
        if case["result"] != r.expect.as_str() || !filed {
            wrong.push(format!(
                "{} ({}): {status}/{} {types:?} {headline}",
                r.name, r.outcome, case["result"]
            ));
        }
    }
    eprintln!(
        "dbt corpus: {} recorded runs, misjudged: {}",
        replayed.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "misjudged:\n{}", wrong.join("\n"));
}

/// Real pytest 9 and PySpark 3.5 runs, each judged with its preset alone.
#[test]
fn real_pytest_and_spark_runs_judge_right_with_their_presets_alone() {
    for (dir, preset) in [("tools", "pytest"), ("spark", "spark")] {
        let wrong: Vec<String> = replay(dir, Some(preset))
            .into_iter()
            .filter(|(r, case)| case["result"] != r.expect.as_str())
            .map(|(r, case)| format!("{}: {} {}", r.name, case["result"], case["issues"]))
            .collect();
        assert!(
            wrong.is_empty(),
            "{preset} misjudged:\n{}",
            wrong.join("\n")
        );
    }
}

/// The built-ins alone, on the real runs as `cargo golden` makes them (a
/// wide terminal: the 1000-column recordings), give no false red and no
/// false green: a run that selected nothing is FAILED with NOTHING_RAN by
/// the tool's own words, without its preset.
#[test]
fn the_built_ins_alone_judge_real_runs_without_false_reds_or_greens() {
    // dbt ignores COLUMNS: its recordings are of one width.
    let wide: fn(&Recorded) -> bool =
        |r| r.name.ends_with("-1000") || r.name.ends_with("-80") && r.name.contains("build");
    let mut wrong = Vec::new();
    let mut judged = 0;
    for (dir, keep) in [
        ("odibi", wide),
        ("tools", wide),
        ("spark", wide),
        ("build", wide),
        ("dbt", wide),
    ] {
        for (r, case) in replay_some(dir, None, keep) {
            judged += 1;
            let right = case["result"] == r.expect.as_str()
                && (r.outcome != "nothing_selected" || issue_types(&case) == ["NOTHING_RAN"]);
            if !right {
                wrong.push(format!(
                    "{} ({}): {}/{} {:?}",
                    r.name,
                    r.outcome,
                    case["execution_status"],
                    case["result"],
                    issue_types(&case)
                ));
            }
        }
    }
    eprintln!(
        "built-ins alone: {judged} real runs, misjudged: {}",
        wrong.len()
    );
    assert!(wrong.is_empty(), "misjudged:\n{}", wrong.join("\n"));
}

/// `examples/odibi/` run by the real tool (the virtualenv `.ci/odibi-venv`
/// makes, named by `CARGO_GOLDEN_ODIBI_VENV`): with `preset = "odibi"`
/// every example is judged as declared, the run that selected nothing is
/// FAILED with NOTHING_RAN, the changed tax rate is FAILED with
/// DATA_CHANGED by its data snapshot while the healthy ETL's output matches
/// its own, the evidence verifies, and no example project was written to
/// (every case ran in a copy).
#[test]
fn the_odibi_examples_judge_right_with_the_real_tool() {
    let Some(venv) = std::env::var_os("CARGO_GOLDEN_ODIBI_VENV") else {
        eprintln!(
            "odibi examples skipped: CARGO_GOLDEN_ODIBI_VENV is not set (.ci/run sets it from .ci/odibi-venv)"
        );
        return;
    };
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/odibi");
    let out = tempfile::tempdir().unwrap();
    let path = crate::common::path_with(&Path::new(&venv).join("bin"));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["golden", "--jobs", "2", "--config"])
        .arg(examples.join("harness.toml"))
        .arg("--out")
        .arg(out.path())
        .env("PATH", path)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("summary.json")).unwrap()).unwrap();
    let mut wrong = Vec::new();
    for case in summary["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let want = match name {
            "nothing_selected" => ("FAILED", vec!["NOTHING_RAN"]),
            "tax_rate_changed" => ("FAILED", vec!["DATA_CHANGED"]),
            _ => ("PASSED", vec![]),
        };
        let got = (case["result"].as_str().unwrap(), issue_types(case));
        if got != want {
            wrong.push(format!("{name}: {got:?} {}", case["issues"]));
        }
    }
    assert!(wrong.is_empty(), "misjudged:\n{}", wrong.join("\n"));
    // The changed tax rate is named cell by cell; the healthy ETL's output
    // matched its snapshot.
    let cases = summary["cases"].as_array().unwrap();
    let changed = cases
        .iter()
        .find(|c| c["name"] == "tax_rate_changed")
        .unwrap();
    let message = changed["issues"].to_string();
    assert!(
        message.contains("order_id=1 amount_with_tax 144.6 -> 150.625"),
        "{message}"
    );
    let healthy = cases.iter().find(|c| c["name"] == "healthy_etl").unwrap();
    assert_eq!(healthy["snapshots"][0]["stream"], "data", "{healthy}");
    let v = common::verify_evidence(out.path());
    assert!(v.status.success(), "{}", text(&v));
    for project in std::fs::read_dir(&examples).unwrap() {
        let project = project.unwrap().path();
        assert!(
            !project.join("out").exists(),
            "{} was written to",
            project.display()
        );
    }
}

/// The real pydantic v2 outputs of the failure corpus are caught by the
/// `pydantic` preset's own patterns, the built-ins dropped.
#[test]
fn real_pydantic_errors_are_caught_by_the_preset_alone() {
    let outputs: Vec<FailureOutput> = failure_outputs()
        .into_iter()
        .filter(|f| f.file.starts_with("pydantic"))
        .collect();
    assert!(outputs.len() >= 4);
    let (toml, expected) = harness(
        "preset = \"pydantic\"\n[patterns]\nbuiltin = false\n",
        0,
        &outputs,
    );
    let wrong = misclassified(&toml, &expected);
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}

/// One recording replayed as a case under `preset`, for its terminal
/// output and reports: (the project, the run's stderr).
fn replay_one(dir: &str, name: &str, preset: &str, exit: i32) -> (Project, String) {
    let file = |ext: &str| {
        sh_quote(
            &corpus()
                .join(dir)
                .join(format!("{name}.{ext}"))
                .display()
                .to_string(),
        )
    };
    let toml = format!(
        "[[golden]]\nname = \"replayed\"\npath = \".\"\npreset = \"{preset}\"\ncommand = {}\n",
        toml_str(&format!(
            "cat {}; cat {} >&2; exit {exit}",
            file("stdout"),
            file("stderr")
        ))
    );
    let p = Project::new(&toml);
    let o = p.cmd(&[]).env("COLUMNS", "200").output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    (p, String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The lines an excerpt in the terminal marks with `>`, without the mark.
fn marked(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("> "))
        .map(str::to_string)
        .collect()
}

#[test]
fn an_excerpt_marks_the_lines_of_the_findings_record_and_no_bare_prefix() {
    let (_, err) = replay_one("dbt", "test_failure-build-80", "dbt", 1);
    let lines = marked(&err);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("Failure in test unique_stg_orders_order_id"))
            && lines
                .iter()
                .any(|l| l.contains("Got 1 result, configured to fail")),
        "{err}"
    );
    // Every marked line says something beyond dbt's time prefix.
    for l in &lines {
        let after_time = l.get(10..).unwrap_or("").trim();
        assert!(
            !after_time.is_empty(),
            "a bare prefix is marked: {l:?}\n{err}"
        );
    }
    assert!(lines.len() <= 6, "{lines:#?}");
}

#[test]
fn shown_output_is_without_the_padding_rich_adds_and_the_logs_keep_it() {
    let (p, err) = replay_one("odibi", "runtime_error-run-80", "odibi", 1);
    let excerpt: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(" | ") || l.contains(" > "))
        .collect();
    assert!(!excerpt.is_empty(), "{err}");
    assert!(excerpt.iter().all(|l| !l.ends_with(' ')), "{excerpt:#?}");
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    let output = md.split("Output of failed cases").nth(1).expect(&md);
    assert!(output.lines().all(|l| !l.ends_with(' ')), "{output}");
    let log = std::fs::read_to_string(p.case_dir("001-replayed").join("stdout.log")).unwrap();
    assert!(
        log.lines().any(|l| l.ends_with(' ')),
        "the log is byte-exact"
    );
}

/// The six pipeline tools recorded for the built-ins (no preset was ever
/// written for them), each run recorded as `cargo golden` runs it.
const UNPRESET: &[&str] = &[
    "prefect",
    "airflow",
    "snakemake",
    "sqlmesh",
    "great_expectations",
    "luigi",
];

/// Every recorded run of every tool, judged by the built-ins alone
/// (`presets = []`): no false green, no false red, every configuration
/// error a configuration error, every run that ran nothing NOTHING_RAN.
/// A recording whose right verdict the tool's output cannot tell
/// (`expect = "UNKNOWABLE"`: an ignored config typo, an ERROR record the
/// tool prints as bare text) is judged and listed, not held to a verdict.
#[test]
fn the_built_ins_alone_judge_every_recorded_tool_right() {
    let wide: fn(&Recorded) -> bool =
        |r| r.name.ends_with("-1000") || r.name.ends_with("-80") && r.name.contains("build");
    let mut wrong = Vec::new();
    let mut unknowable = Vec::new();
    let mut judged = 0;
    let dirs = ["odibi", "tools", "spark", "build", "dbt"]
        .iter()
        .chain(UNPRESET)
        .copied();
    for dir in dirs {
        for (r, case) in replay_some(dir, None, wide) {
            judged += 1;
            let status = case["execution_status"].as_str().unwrap_or("");
            let types = issue_types(&case);
            if r.expect == "UNKNOWABLE" {
                unknowable.push(format!("{dir}/{}: {status}/{}", r.name, case["result"]));
                continue;
            }
            let kind = r.kind.as_deref().unwrap_or(r.outcome.as_str());
            // A run that ran nothing is said to be one; a configuration
            // error is one; the rest are held to their verdict.
            let filed = match kind {
                "nothing_selected" => types.contains(&"NOTHING_RAN"),
                "config_error"
                | "compilation_error"
                | "parsing_error"
                | "validate_config_error" => status == "VALIDATION_FAILED",
                _ => true,
            };
            if case["result"] != r.expect.as_str() || !filed {
                wrong.push(format!(
                    "{dir}/{} ({kind}): {status}/{} {types:?} {}",
                    r.name,
                    case["result"],
                    case["issues"][0]["message"].as_str().unwrap_or("")
                ));
            }
        }
    }
    eprintln!(
        "built-ins alone: {judged} recorded runs, misjudged {}; unknowable: {unknowable:#?}",
        wrong.len()
    );
    assert!(wrong.is_empty(), "misjudged:\n{}", wrong.join("\n"));
}

/// `examples/luigi/` and `examples/snakemake/` run by the real tools (the
/// virtualenvs `.ci/luigi-venv` and `.ci/snakemake-venv` make, named by
/// `CARGO_GOLDEN_LUIGI_VENV` and `CARGO_GOLDEN_SNAKEMAKE_VENV`), in the
/// README's shape (a runner, then name and path) with no preset: every
/// outcome judged right and filed under its cause, the evidence verifying.
#[test]
fn the_luigi_and_snakemake_examples_judge_right_with_no_preset() {
    for (tool, var, want) in [
        (
            "luigi",
            "CARGO_GOLDEN_LUIGI_VENV",
            &[
                ("Report", "PASSED", "SUCCESS", &[][..]),
                ("Warned", "PASSED", "SUCCESS", &[]),
                ("CallStats", "PASSED", "SUCCESS", &[]),
                ("Flaky", "PASSED", "SUCCESS", &[]),
                (
                    "Broken",
                    "FAILED",
                    "RUNTIME_FAILED",
                    &["PIPELINE_EXECUTION_ERROR"],
                ),
                ("missing_input", "FAILED", "SUCCESS", &["NOTHING_RAN"]),
                ("Unsigned", "FAILED", "RUNTIME_FAILED", &["ERROR_LOGGED"]),
                (
                    "Reprot",
                    "FAILED",
                    "VALIDATION_FAILED",
                    &["CONFIGURATION_ERROR"],
                ),
                (
                    "config_error",
                    "FAILED",
                    "VALIDATION_FAILED",
                    &["CONFIGURATION_ERROR"],
                ),
                ("ran_nothing", "FAILED", "SUCCESS", &["NOTHING_RAN"]),
            ][..],
        ),
        (
            "snakemake",
            "CARGO_GOLDEN_SNAKEMAKE_VENV",
            &[
                ("all", "PASSED", "SUCCESS", &[][..]),
                ("warned", "PASSED", "SUCCESS", &[]),
                ("count_failed_calls", "PASSED", "SUCCESS", &[]),
                ("flaky", "PASSED", "SUCCESS", &[]),
                ("broken", "FAILED", "RUNTIME_FAILED", &["EXECUTION_FAILURE"]),
                (
                    "refunds",
                    "FAILED",
                    "RUNTIME_FAILED",
                    &["EXECUTION_FAILURE"],
                ),
                ("unsigned", "FAILED", "RUNTIME_FAILED", &["ERROR_LOGGED"]),
                (
                    "reprot",
                    "FAILED",
                    "VALIDATION_FAILED",
                    &["CONFIGURATION_ERROR"],
                ),
                (
                    "syntax_error",
                    "FAILED",
                    "VALIDATION_FAILED",
                    &["CONFIGURATION_ERROR"],
                ),
                (
                    "config_yaml_error",
                    "FAILED",
                    "VALIDATION_FAILED",
                    &["CONFIGURATION_ERROR"],
                ),
                ("up_to_date", "FAILED", "SUCCESS", &["NOTHING_RAN"]),
            ][..],
        ),
    ] {
        let how = format!("run .ci/{tool}-venv; .ci/run does");
        let Some(venv) = common::from_ci(var, &how, &format!("the {tool} examples")) else {
            continue;
        };
        let examples = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(tool);
        let harness = std::fs::read_to_string(examples.join("harness.toml")).unwrap();
        assert!(
            !harness
                .lines()
                .any(|l| l.trim_start().starts_with("preset")),
            "{tool}: a preset is named"
        );
        let out = tempfile::tempdir().unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
            .args(["golden", "--jobs", "2", "--config"])
            .arg(examples.join("harness.toml"))
            .arg("--out")
            .arg(out.path())
            .env("PATH", common::path_with(&venv.join("bin")))
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{tool}: {}", text(&o));
        assert!(
            !String::from_utf8_lossy(&o.stderr).contains("note: preset"),
            "{tool}: {}",
            text(&o)
        );
        let summary: Value =
            serde_json::from_slice(&std::fs::read(out.path().join("summary.json")).unwrap())
                .unwrap();
        let cases = summary["cases"].as_array().unwrap();
        assert_eq!(cases.len(), want.len(), "{tool}");
        let mut wrong = Vec::new();
        for (name, result, status, types) in want {
            let case = cases.iter().find(|c| c["name"] == *name).unwrap();
            let got = (
                case["result"].as_str().unwrap(),
                case["execution_status"].as_str().unwrap(),
                issue_types(case),
            );
            if got != (*result, *status, types.to_vec()) {
                wrong.push(format!("{tool} {name}: {got:?} {}", case["issues"]));
            }
        }
        assert!(wrong.is_empty(), "misjudged:\n{}", wrong.join("\n"));
        let v = common::verify_evidence(out.path());
        assert!(v.status.success(), "{tool}: {}", text(&v));
    }
}
