//! Who judges what a command prints, through the real binary: every
//! program of a command is judged (a preset claims only its own tool's
//! records, the built-ins judge the rest), presets are chosen by reading
//! the command as a shell does, each run of a tool answers for itself,
//! result statuses are an allow-list, and records are read by their shape
//! (levels, ERROR records, exceptions by type) with no preset at all.
//!
//! The stand-in tools are scripts on `PATH` that print real recordings of
//! the tools (`tests/corpus`).

#![cfg(unix)] // the stand-in tools are sh scripts

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, Project, text};

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(rel)
}

/// A project with stand-in `dbt` and `odibi` on its `bin/`: dbt prints the
/// recorded nothing-selected build for `--select tag:typo`, the healthy
/// one otherwise; odibi prints the healthy run, or the run whose tag
/// selected no node for `--tag nightly`.
fn with_tools(harness: &str) -> Project {
    let p = Project::new(harness);
    let script = |name: &str, body: String| {
        let path = p.write(&format!("bin/{name}"), &format!("#!/bin/sh\n{body}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let q = |rel: &str| format!("'{}'", corpus(rel).display());
    script(
        "dbt",
        format!(
            "case \"$*\" in\n  *tag:typo*) cat {};;\n  *) cat {};;\nesac\n",
            q("dbt/shop-build-select-tag-nonexistent-80.stdout"),
            q("dbt/shop-build-80.stdout")
        ),
    );
    script(
        "odibi",
        format!(
            "case \"$*\" in\n  *nightly*) cat {};;\n  *) cat {};;\nesac\n",
            q("odibi/nothing_selected-run-tag-nightly-1000.stdout"),
            q("odibi/healthy_etl-run-1000.stdout")
        ),
    );
    p.write(
        "post.py",
        "print('publishing')\nprint('1 validation error for ProjectConfig')\nprint('name')\nprint('  Field required [type=missing, input_value={}, input_type=dict]')\n",
    );
    p.write(
        "pub.py",
        "print('Status: FAILURE')\nprint('Invalid config: no sink')\n",
    );
    p.write(
        "cfg.py",
        "print('noise')\nprint('1 validation error for ProjectConfig')\nprint('dbt')\n",
    );
    p
}

/// Run the project with its `bin/` first on `PATH`; the summary and the
/// terminal.
fn run(p: &Project) -> (Value, String) {
    let o = p
        .cmd(&[])
        .env("PATH", common::path_with(&p.path().join("bin")))
        .output()
        .unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    (p.summary(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn case<'s>(summary: &'s Value, name: &str) -> &'s Value {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name}: {summary}"))
}

fn issue_types(case: &Value) -> Vec<String> {
    case["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap().to_string())
        .collect()
}

fn verify(name: &str, command: &str) -> String {
    format!(
        "[[verify]]\nname = \"{name}\"\ncommand = {}\n",
        toml::Value::String(command.to_string())
    )
}

fn golden(name: &str, command: &str) -> String {
    format!(
        "[[golden]]\nname = \"{name}\"\npath = \".\"\ncommand = {}\n",
        toml::Value::String(command.to_string())
    )
}

/// A preset chosen for one program never silences the others: the
/// built-ins judge every line the preset's tool did not write.
#[test]
fn a_preset_for_one_program_leaves_the_rest_of_the_command_to_the_built_ins() {
    let harness = [
        golden("dbt_then_post", "dbt build && python3 post.py"),
        golden("odibi_then_pub", "odibi run x.yaml && python3 pub.py"),
        golden("dbt_alone", "dbt build"),
        golden("odibi_alone", "odibi run x.yaml"),
    ]
    .concat();
    let p = with_tools(&format!("[harness]\n{harness}"));
    let (summary, terminal) = run(&p);
    let c = case(&summary, "dbt_then_post");
    assert_eq!(
        (&c["result"], &c["execution_status"]),
        (&Value::from("FAILED"), &Value::from("VALIDATION_FAILED")),
        "{c}"
    );
    let c = case(&summary, "odibi_then_pub");
    assert_eq!(c["result"], "FAILED", "{c}");
    assert_eq!(c["execution_status"], "VALIDATION_FAILED", "{c}");
    let messages = c["issues"].to_string();
    assert!(
        messages.contains("Invalid config") && messages.contains("Status: FAILURE"),
        "{messages}"
    );
    // The tools alone still pass with their presets.
    for name in ["dbt_alone", "odibi_alone"] {
        assert_eq!(
            case(&summary, name)["result"],
            "PASSED",
            "{}",
            case(&summary, name)
        );
    }
    assert!(
        terminal.contains("preset `dbt`") && terminal.contains("preset `odibi`"),
        "{terminal}"
    );
}

/// A tool only mentioned gets no preset; one run through a wrapper or a
/// compound command does; every program of a command counts.
#[test]
fn presets_follow_the_programs_a_command_runs() {
    let harness = [
        verify("mentioned", "command -v dbt >/dev/null && python3 cfg.py"),
        verify("grepped", "python3 cfg.py | grep -vE 'noise|dbt'"),
        golden("timeout", "timeout 600 dbt build --select tag:typo"),
        golden(
            "if_then",
            "if dbt build --select tag:typo; then echo built; fi",
        ),
        golden("both", "odibi run x.yaml && dbt build"),
    ]
    .concat();
    let p = with_tools(&format!("[harness]\n{harness}"));
    let (summary, terminal) = run(&p);
    for name in ["mentioned", "grepped"] {
        let c = case(&summary, name);
        assert_eq!(c["execution_status"], "VALIDATION_FAILED", "{c}");
    }
    let note = terminal
        .lines()
        .find(|l| l.contains("note: preset"))
        .unwrap_or_else(|| panic!("{terminal}"));
    assert!(
        !note.contains("mentioned") && !note.contains("grepped"),
        "{note}"
    );
    for name in ["timeout", "if_then"] {
        let c = case(&summary, name);
        assert_eq!(c["result"], "FAILED", "{c}");
        assert_eq!(issue_types(c), ["NOTHING_RAN"], "{c}");
    }
    assert!(
        note.contains("preset `odibi`") && note.contains("preset `dbt`"),
        "{note}"
    );
    assert!(note.contains("both"), "{note}");
    assert_eq!(case(&summary, "both")["result"], "PASSED");
}

/// Each run of a tool answers for itself: a nothing-ran line fails the
/// case whatever else the output shows, and a preset's `require` is met
/// per run where the tool opens each one (`Running with dbt=`).
#[test]
fn one_run_of_a_tool_does_not_answer_for_another() {
    let harness = [
        golden("seed_then_typo", "dbt seed && dbt build --select tag:typo"),
        golden(
            "odibi_twice",
            "odibi run x.yaml && odibi run x.yaml --tag nightly",
        ),
        golden("twice_healthy", "dbt seed && dbt build"),
    ]
    .concat();
    let p = with_tools(&format!("[harness]\n{harness}"));
    let (summary, _) = run(&p);
    for name in ["seed_then_typo", "odibi_twice"] {
        let c = case(&summary, name);
        assert_eq!(c["result"], "FAILED", "{c}");
        assert_eq!(issue_types(c), ["NOTHING_RAN"], "{c}");
    }
    let message = case(&summary, "seed_then_typo")["issues"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("Nothing to do"), "{message}");
    assert_eq!(case(&summary, "twice_healthy")["result"], "PASSED");

    // With the nothing-ran line allowed, the second run's missing `Done.`
    // line still fails it, naming the run.
    let p = with_tools(&format!(
        "[harness]\n[patterns]\nallow = ['Nothing to do']\n{}",
        golden("seed_then_typo", "dbt seed && dbt build --select tag:typo")
    ));
    let (summary, _) = run(&p);
    let c = case(&summary, "seed_then_typo");
    assert_eq!(issue_types(c), ["NOTHING_RAN"], "{c}");
    let message = c["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("run 2 of the `dbt` preset's tool")
            && message.contains("Running with dbt="),
        "{message}"
    );
}

/// A dbt node passes only with a status dbt documents as a success.
#[test]
fn dbt_result_statuses_are_an_allow_list() {
    for (status, passes) in [
        (Some("success"), true),
        (Some("partial success"), false),
        (Some("Error"), false),
        (None, false),
    ] {
        let node = match status {
            Some(s) => {
                format!(r#"{{"unique_id": "model.shop.orders", "status": "{s}", "message": "m"}}"#)
            }
            None => r#"{"unique_id": "model.shop.orders", "message": "m"}"#.to_string(),
        };
        let p = Project::new(
            "[[golden]]\nname = \"shop\"\npath = \".\"\ncommand = \"mkdir -p target && cp results.json target/run_results.json && echo done\"\nresult = { format = \"dbt\" }\n",
        );
        p.write("results.json", &format!(r#"{{"results": [{node}]}}"#));
        p.run(&[]);
        let c = case(&p.summary(), "shop").clone();
        assert_eq!(c["result"] == "PASSED", passes, "{status:?}: {c}");
        if !passes {
            let message = c["issues"][0]["message"].as_str().unwrap();
            let shown = status.unwrap_or("(no status)");
            assert!(
                message.contains("model.shop.orders") && message.contains(shown),
                "{message}"
            );
        }
    }
}

/// A team's own pattern counts at every level, also under a preset that
/// quiets its tool's INFO records; one that can never fire is said.
#[test]
fn a_teams_patterns_count_at_every_level_and_one_that_cannot_fire_is_said() {
    let p = with_tools(&format!(
        "[harness]\n[patterns]\nruntime = [\"Filtering by tag '[^']*': 0 nodes match\", 'a\\nb', 'Sorting by key']\nallow = ['by key']\n{}",
        golden("odibi_tag", "odibi run x.yaml --tag nightly")
    ));
    let (summary, terminal) = run(&p);
    let c = case(&summary, "odibi_tag");
    assert_eq!(c["execution_status"], "RUNTIME_FAILED", "{c}");
    assert!(
        terminal.contains("`a\\nb` can never fire")
            && terminal.contains("`Sorting by key` can never fire"),
        "{terminal}"
    );
}

/// A `require` written from the log as printed (dbt's time prefix and its
/// two spaces) matches, and a message quoting a team's regex quotes it
/// exactly.
#[test]
fn require_matches_the_line_as_printed_and_is_quoted_exactly() {
    let p = with_tools(&format!(
        "[harness]\n{}require = ['^\\d\\d:\\d\\d:\\d\\d  Done\\. PASS=[1-9]']\n{}require = ['^\\d\\d:\\d\\d:\\d\\d  Never  here']\n",
        golden("as_printed", "dbt build"),
        golden("missing", "dbt build")
    ));
    let (summary, terminal) = run(&p);
    assert_eq!(case(&summary, "as_printed")["result"], "PASSED");
    let c = case(&summary, "missing");
    assert_eq!(issue_types(c), ["NOTHING_RAN"], "{c}");
    let quoted = r"`^\d\d:\d\d:\d\d  Never  here`";
    assert!(
        c["issues"][0]["message"].as_str().unwrap().contains(quoted),
        "{c}"
    );
    assert!(terminal.contains(quoted), "{terminal}");
}
