//! The first hour of a new user, through the real binary: a failure
//! explains itself in the terminal, slow cases show signs of life.

use crate::common;

use common::Project;

/// A verify command that prints 30 numbered stderr lines and a runtime
/// error, then exits 2.
const FAILING: &str = r#"
[[verify]]
name = "etl"
command = "for i in $(seq 1 30); do echo line-$i >&2; done; echo 'Pipeline failed: step load' >&2; exit 2"
"#;

#[test]
fn a_failed_case_shows_its_last_stderr_lines_and_log_paths_twice() {
    let p = Project::new(FAILING);
    let o = p.run(&[]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("\n           | line-30\n"), "{err}");
    assert_ne!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let run_id = p
        .run_dir()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let log = format!("out/artifacts/{run_id}/execution/001-etl/stderr.log");
    assert!(
        err.matches(&log).count() >= 2,
        "the stderr log path, immediately and in the final list:\n{err}"
    );
    assert_eq!(err.matches("| line-30\n").count(), 2, "{err}");
    assert!(err.contains("| line-12\n"), "20 lines by default:\n{err}");
    assert!(!err.contains("| line-11\n"), "only the last 20:\n{err}");
    assert!(
        err.contains("> Pipeline failed: step load\n"),
        "the finding is marked:\n{err}"
    );
}

#[test]
fn failure_output_never_and_final_and_success_output() {
    let p = Project::new(FAILING);
    let err = String::from_utf8_lossy(&p.run(&["--failure-output", "never"]).stderr).into_owned();
    assert!(!err.contains("line-30"), "{err}");
    assert!(!err.contains("stderr.log"), "{err}");

    let err = String::from_utf8_lossy(&p.run(&["--failure-output", "final"]).stderr).into_owned();
    assert_eq!(err.matches("| line-30\n").count(), 1, "{err}");
    let summary = err.find("Summary").expect("a summary");
    assert!(err.find("| line-30").unwrap() > summary, "{err}");

    let ok = Project::new("[[verify]]\nname = \"ok\"\ncommand = \"echo all-good\"\n");
    let err = String::from_utf8_lossy(&ok.run(&[]).stderr).into_owned();
    assert!(
        !err.contains("all-good"),
        "success output is hidden by default:\n{err}"
    );
    let err =
        String::from_utf8_lossy(&ok.run(&["--success-output", "immediate"]).stderr).into_owned();
    assert!(err.contains("| all-good\n"), "{err}");
}

#[test]
fn no_capture_streams_the_output_and_still_logs_it() {
    let p = Project::new(
        "[[verify]]\nname = \"a\"\ncommand = \"echo live-out; echo live-err >&2\"\n[[verify]]\nname = \"b\"\ncommand = \"echo second\"\n",
    );
    let o = p.run(&["--no-capture", "--jobs", "4", "--failure-output", "never"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr).into_owned()
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        err.contains("live-out\n") && err.contains("live-err\n"),
        "{err}"
    );
    let a = err.find("live-out").unwrap();
    let b = err.find("second").unwrap();
    assert!(a < b, "one case at a time, in order:\n{err}");
    let log = std::fs::read_to_string(p.case_dir("001-a").join("stdout.log")).unwrap();
    assert_eq!(log, "live-out\n");
}

#[test]
fn a_slow_case_prints_slow_lines_each_period_without_a_tty() {
    let p = Project::new(
        "[harness]\nslow = \"1s\"\n[[verify]]\nname = \"long etl\"\ncommand = \"sleep 4\"\n[[verify]]\nname = \"quick\"\ncommand = \"true\"\nslow = \"1h\"\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let slow: Vec<&str> = err.lines().filter(|l| l.contains("SLOW")).collect();
    assert!(slow.len() >= 2, "repeated each period:\n{err}");
    assert!(
        slow[0].ends_with("SLOW [>    1s] verify long etl"),
        "{slow:?}"
    );
    assert!(slow[1].contains("[>    2s]"), "{slow:?}");
    assert!(!err.contains("verify quick\n           SLOW"), "{err}");

    let o = p.run(&["--message-format", "json"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let slow = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|m| m["reason"] == "case-slow")
        .count();
    assert!(slow >= 2, "{out}");
}

#[test]
fn slow_must_be_a_duration() {
    let p = Project::new("[[verify]]\nname = \"a\"\ncommand = \"true\"\nslow = \"soon\"\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("harness.toml:4:8"), "{err}");
    assert!(err.contains("`slow`"), "{err}");
}

fn stderr_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn root_placeholder_names_a_shared_script_from_any_project() {
    let p = Project::new(
        "[harness]\nrunner = \"sh {root}/tools/run.sh {path}\"\nisolation = \"check\"\n[[golden]]\nname = \"sales\"\npath = \"golden/sales\"\n",
    );
    p.write("tools/run.sh", "echo \"ran $1 in $(pwd)\"\n");
    p.write("golden/sales/job.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let log = std::fs::read_to_string(p.case_dir("001-sales").join("stdout.log")).unwrap();
    assert!(log.starts_with("ran "), "{log}");
    assert!(
        log.trim_end().ends_with("golden/sales"),
        "runs in the project: {log}"
    );
}

#[test]
fn harness_working_dir_is_the_default_of_every_case() {
    let p = Project::new(
        "[harness]\nworking_dir = \"tools\"\n[[verify]]\nname = \"here\"\ncommand = \"test -f run.sh\"\n[[verify]]\nname = \"own\"\nworking_dir = \".\"\ncommand = \"test -d tools\"\n",
    );
    p.write("tools/run.sh", "true\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
}

#[test]
fn env_values_and_paths_expand_variables() {
    let p = Project::new(
        "[[verify]]\nname = \"env\"\nworking_dir = \"${GOLDEN_T_SUB:-sub}\"\ncommand = 'echo \"$DATA|$OTHER|$LIT|$(basename $(pwd))\"'\nenv = { DATA = \"${GOLDEN_T_HOME}/data\", OTHER = \"${GOLDEN_T_UNSET_X:-fallback}\", LIT = \"$$HOME\" }\n",
    );
    p.write("sub/keep", "");
    let o = p
        .cmd(&[])
        .env("GOLDEN_T_HOME", "/h")
        .env_remove("GOLDEN_T_UNSET_X")
        .env_remove("GOLDEN_T_SUB")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let log = std::fs::read_to_string(p.case_dir("001-env").join("stdout.log")).unwrap();
    assert_eq!(log, "/h/data|fallback|$HOME|sub\n");

    let o = p.cmd(&[]).env_remove("GOLDEN_T_HOME").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr_of(&o);
    assert!(err.contains("harness.toml:5:"), "file:line:col: {err}");
    assert!(
        err.contains("${GOLDEN_T_HOME}"),
        "names the variable: {err}"
    );
}

#[test]
fn ignored_cases_are_skipped_with_their_reason_unless_asked_for() {
    let p = Project::new(
        "[[verify]]\nname = \"db\"\ncommand = \"echo ran-db\"\nignored = \"needs a database\"\n[[verify]]\nname = \"fast\"\ncommand = \"echo ran-fast\"\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let err = stderr_of(&o);
    assert!(err.contains("SKIPPED"), "{err}");
    assert!(err.contains("ignored: needs a database"), "{err}");
    assert!(!p.case_dir("001-db").join("stdout.log").exists());

    let o = p.run(&["--ignored"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(p.case_dir("001-db").join("stdout.log").exists());
    assert!(!p.case_dir("002-fast").join("stdout.log").exists());

    let o = p.run(&["--include-ignored"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(p.case_dir("001-db").join("stdout.log").exists());
    assert!(p.case_dir("002-fast").join("stdout.log").exists());
}

#[test]
fn a_run_whose_selected_cases_are_all_ignored_ran_nothing_and_exits_5() {
    let p = Project::new(
        "[[verify]]\nname = \"db migrate\"\ncommand = \"echo ran-db\"\nignored = \"needs a database\"\n[[verify]]\nname = \"fast\"\ncommand = \"echo ran-fast\"\n",
    );
    // An earlier green run: its verdict must not stay in the out dir.
    assert_eq!(p.run(&["fast"]).status.code(), Some(0));
    let o = p.run(&["db"]);
    let err = stderr_of(&o);
    assert_eq!(o.status.code(), Some(5), "{err}");
    assert!(
        err.contains("the 1 selected case(s) are all ignored (`db migrate`: needs a database)"),
        "names the cases and why: {err}"
    );
    assert!(
        err.contains("--ignored") && err.contains("--include-ignored"),
        "says how to run them: {err}"
    );
    assert!(err.contains("Final status FAILURE"), "{err}");
    let summary = p.summary();
    assert_eq!(summary["final_status"], "FAILURE");
    assert_eq!(summary["counts"]["passed"], 0);
    assert!(
        summary["empty_selection"]["reason"]
            .as_str()
            .unwrap()
            .contains("all ignored"),
        "{summary}"
    );
    assert!(!p.case_dir("001-db_migrate").join("stdout.log").exists());

    // `--no-cases` governs it like any empty selection.
    let o = p.run(&["db", "--no-cases", "warn"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(stderr_of(&o).contains("warning: no case ran: the 1 selected case(s) are all ignored"));

    // `--ignored` with no ignored case selected ran nothing too.
    let o = p.run(&["fast", "--ignored"]);
    let err = stderr_of(&o);
    assert_eq!(o.status.code(), Some(5), "{err}");
    assert!(err.contains("none of the 1 selected case(s) is"), "{err}");

    // Asked for, the ignored case runs and the run is green again.
    let o = p.run(&["db", "--ignored"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert_eq!(p.summary()["final_status"], "SUCCESS");
    assert!(p.case_dir("001-db_migrate").join("stdout.log").exists());
}

#[test]
fn a_profile_overrides_harness_settings() {
    let p = Project::new(
        "[harness]\nworking_dir = \".\"\n[profile.ci]\nworking_dir = \"tools\"\n[[verify]]\nname = \"where\"\ncommand = \"test -f run.sh\"\n",
    );
    p.write("tools/run.sh", "true\n");
    let without = p
        .cmd(&[])
        .env_remove("CARGO_GOLDEN_PROFILE")
        .output()
        .unwrap();
    assert_eq!(without.status.code(), Some(1), "{}", stderr_of(&without));
    let flag = p.cmd(&["--profile", "ci"]).output().unwrap();
    assert_eq!(flag.status.code(), Some(0), "{}", stderr_of(&flag));
    let env = p
        .cmd(&[])
        .env("CARGO_GOLDEN_PROFILE", "ci")
        .output()
        .unwrap();
    assert_eq!(env.status.code(), Some(0), "{}", stderr_of(&env));
    let unknown = p.cmd(&["--profile", "nightly"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    let err = stderr_of(&unknown);
    assert!(err.contains("profile `nightly` is not declared"), "{err}");
    assert!(err.contains("declared profiles: ci"), "{err}");
}

#[test]
fn keep_runs_keeps_the_newest_runs_and_clean_empties_the_artifacts() {
    let p =
        Project::new("[harness]\nkeep_runs = 2\n[[verify]]\nname = \"a\"\ncommand = \"true\"\n");
    // Not a run id: never the tool's to remove.
    p.write("out/artifacts/notes/keep.txt", "mine\n");
    let mut ids = Vec::new();
    for _ in 0..5 {
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(p.out().join("summary.json")).unwrap()).unwrap();
        ids.push(summary["run_id"].as_str().unwrap().to_string());
    }
    let mut left: Vec<String> = std::fs::read_dir(p.out().join("artifacts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let mut want = vec![ids[3].clone(), ids[4].clone(), "notes".to_string()];
    want.sort();
    assert_eq!(left, want);

    let o = p.cmd(&["clean"]).output();
    // `clean` takes --config and --out like a run.
    let o = o.unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let left: Vec<String> = std::fs::read_dir(p.out().join("artifacts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["notes".to_string()]);
    assert!(!p.out().join("summary.json").exists());
    assert!(p.out().join("artifacts/notes/keep.txt").exists());
}

#[test]
fn a_config_error_says_error_once() {
    let p = Project::new("[[verify]]\nname = \"a\"\ncommand = \"true\"\nnmae = \"x\"\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr_of(&o);
    assert!(
        err.contains("harness.toml:4:1: error: unknown key `nmae`"),
        "{err}"
    );
    assert!(!err.contains("error: harness.toml"), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "{err}");
}

#[test]
fn a_dot_working_dir_is_shown_without_the_dot() {
    let p = Project::new(
        "[[verify]]\nname = \"here\"\nworking_dir = \".\"\ncommand = \"true\"\n[[verify]]\nname = \"up\"\nworking_dir = \"sub/..\"\ncommand = \"true\"\n",
    );
    p.write("sub/x", "");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let want = p.path().to_string_lossy().into_owned();
    for slug in ["001-here", "002-up"] {
        let ev: serde_json::Value =
            serde_json::from_slice(&std::fs::read(p.case_dir(slug).join("evidence.json")).unwrap())
                .unwrap();
        assert_eq!(ev["working_dir"], want.as_str(), "{slug}");
    }
}

/// `validate target/golden/summary.json` checks it as a summary (the
/// format follows the file name), in one line, not as observations.
#[test]
fn validate_takes_a_summary_file_for_what_it_is() {
    let p = Project::new("[[verify]]\nname = \"a\"\ncommand = \"true\"\n");
    assert_eq!(p.run(&[]).status.code(), Some(0));
    for file in ["summary.json", "observations.jsonl"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
            .current_dir(p.path())
            .arg("validate")
            .arg(p.out().join(file))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(out, format!("out/{file}: valid\n"));
    }
}

#[test]
fn list_help_shows_only_list_flags() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["list", "--help"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout).into_owned();
    for flag in [
        "--config",
        "--exact",
        "--skip",
        "--partition",
        "--message-format",
    ] {
        assert!(help.contains(flag), "{flag}:\n{help}");
    }
    for flag in [
        "--fail-fast",
        "--jobs",
        "--retries",
        "--junit",
        "--out",
        "--no-capture",
        "--failure-output",
        "--list",
    ] {
        assert!(
            !help.contains(&format!("{flag} ")),
            "{flag} is not a list flag:\n{help}"
        );
    }
}

/// The CI examples of the docs: every `verify-evidence` step runs with
/// `if: always()`, since a red build is when the evidence matters.
#[test]
fn readme_ci_runs_verify_evidence_always() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ci.md")).unwrap();
    let mut seen = 0;
    for block in readme.split("```yaml").skip(1) {
        let yaml = block.split("```").next().unwrap();
        let doc: serde_json::Value = serde_saphyr::from_str(yaml).unwrap();
        for job in doc["jobs"].as_object().into_iter().flat_map(|j| j.values()) {
            for step in job["steps"].as_array().into_iter().flatten() {
                if step["run"]
                    .as_str()
                    .is_some_and(|r| r.contains("verify-evidence"))
                {
                    seen += 1;
                    assert_eq!(step["if"], "always()", "{step}");
                }
            }
        }
    }
    assert!(seen > 0, "the README shows verify-evidence in CI");
}

#[test]
fn cargo_toml_states_the_minimum_rust_version() {
    let manifest: toml::Table = toml::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap(),
    )
    .unwrap();
    let msrv = manifest["package"]["rust-version"].as_str().unwrap();
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust {msrv} or newer")),
        "README states {msrv}"
    );
    let front_doors =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/front-doors.md"))
            .unwrap();
    assert!(front_doors.contains("nextest runs the cases in its own order"));
}

/// report.md's evidence table: Status is the exit status, explained by a
/// legend, and marked where the case result says otherwise.
#[test]
fn evidence_status_is_explained_and_a_disagreement_marked() {
    let p = Project::new(
        "[[verify]]\nname = \"quiet failure\"\ncommand = \"echo '1 validation error for Config'; exit 0\"\n\n\
         [[verify]]\nname = \"fine\"\ncommand = \"true\"\n",
    );
    assert_ne!(p.run(&[]).status.code(), Some(0));
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    let row = |name: &str| {
        md.lines()
            .skip_while(|l| *l != "## Execution Evidence")
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("{md}"))
            .to_string()
    };
    assert!(row("quiet failure").contains("| SUCCESS † |"), "{md}");
    assert!(row("fine").contains("| SUCCESS |"), "{md}");
    assert!(
        md.contains("_Status is the process's own exit status: SUCCESS exit 0"),
        "{md}"
    );
}

/// A pretty-printed JSON object given as observations: one error saying
/// what the file is not, instead of one error per line.
#[test]
fn validate_names_a_json_document_that_is_not_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pretty.json");
    std::fs::write(&file, "{\n  \"a\": 1,\n  \"b\": [1, 2]\n}\n").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .arg("validate")
        .arg("--observation")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.contains("this is not an observations file (one JSON document over 4 lines"),
        "{out}"
    );
    assert!(
        stderr_of(&o).contains("1 violation(s)"),
        "{}",
        stderr_of(&o)
    );
}

/// Issue 26, item 4: an excerpt keeps the output's spacing (a table's
/// columns, a traceback's indentation under which `^^^^` points) in the
/// terminal, report.md and JUnit; escapes go, controls are shown.
#[test]
fn output_excerpts_keep_their_whitespace_everywhere() {
    let p = Project::new(
        r#"[[verify]]
name = "report"
command = '''printf 'region    total\nnorth     7 units\n' ; printf 'Traceback (most recent call last):\n  File "etl.py", line 3\n    total = rows[0] +\n                    ^^^^\nSyntaxError: bell\007 here\n' >&2; exit 1'''
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr_of(&o));
    let err = stderr_of(&o);
    assert!(err.contains("| north     7 units\n"), "{err}");
    assert!(err.contains("|     total = rows[0] +\n"), "{err}");
    assert!(err.contains("|                     ^^^^\n"), "{err}");
    assert!(err.contains("SyntaxError: bell\u{2407} here"), "{err}");

    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(md.contains("\n  north     7 units\n"), "{md}");
    assert!(
        md.contains("\n      total = rows[0] +\n                      ^^^^\n"),
        "{md}"
    );

    let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(failure.contains("north     7 units"), "{failure}");
    assert!(
        failure.contains("    total = rows[0] +\n                    ^^^^\n"),
        "{failure}"
    );
    assert!(failure.contains("bell\u{2407} here"), "{failure}");
}

/// A cargo workspace in a temp dir: `[workspace]` at the root and a
/// library crate for each of `members`, nothing built.
fn workspace(members: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let list: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
    std::fs::write(
        tmp.path().join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n",
            list.join(", ")
        ),
    )
    .unwrap();
    for m in members {
        let dir = tmp.path().join(m);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!("[package]\nname = {m:?}\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        )
        .unwrap();
        std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    }
    tmp
}

fn golden_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    common::binary_in(dir, &[&["golden"], args].concat())
}

/// Issue 26, item 3: from the workspace root, the members' harness files
/// are found through `cargo metadata`; where nothing is found the error
/// says everywhere it looked.
#[test]
fn the_workspace_root_finds_member_harness_files() {
    let ws = workspace(&["etl", "api"]);
    let root = ws.path();
    let o = golden_in(root, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    let err = stderr_of(&o);
    assert!(err.contains("looked for harness.toml"), "{err}");
    assert!(
        err.contains("in the directory of each workspace member (etl, api)"),
        "{err}"
    );

    let case = |name: &str| format!("[[verify]]\nname = \"{name}\"\ncommand = \"true\"\n");
    std::fs::write(root.join("etl/harness.toml"), case("etl smoke")).unwrap();
    let o = golden_in(root, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    let err = stderr_of(&o);
    assert!(
        err.contains("Using etl/harness.toml (the harness file of workspace member `etl`)"),
        "{err}"
    );
    assert!(err.contains("verify etl smoke"), "{err}");

    std::fs::write(root.join("api/harness.toml"), case("api smoke")).unwrap();
    let o = golden_in(root, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    let err = stderr_of(&o);
    assert!(err.contains("\n  etl: etl/harness.toml"), "{err}");
    assert!(err.contains("\n  api: api/harness.toml"), "{err}");
    assert!(err.contains("choose one with `-p "), "{err}");

    let o = golden_in(root, &["-p", "api"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(
        stderr_of(&o).contains("verify api smoke"),
        "{}",
        stderr_of(&o)
    );
    let o = golden_in(root, &["list", "-p", "etl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr_of(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("etl smoke"));
    let o = golden_in(root, &["-p", "nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr_of(&o));
    assert!(
        stderr_of(&o).contains("no workspace member is named `nope` (members: etl, api)"),
        "{}",
        stderr_of(&o)
    );
}
