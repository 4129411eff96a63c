//! The command line through the real binary: listing, config errors,
//! exit codes, invocation styles.

use crate::common;

use std::process::Command;

#[cfg(unix)]
use common::output_within_30s;
use common::{Project, text};

const INTERLEAVED: &str = r#"
[harness]
name = "suite"
runner = "sh run.sh"

[[golden]]
name = "g-one"
path = "golden/one"

[[verify]]
name = "v-one"
command = "true"

[[golden]]
name = "g-two"
path = "golden/two"

[[verify]]
name = "v-two"
command = "true"
"#;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
}

#[test]
fn list_prints_cases_in_file_order_with_kind_and_line() {
    let p = Project::new(INTERLEAVED);
    let o = p.run(&["list"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    let got: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(
        got,
        vec![
            ("golden", "g-one", "(harness.toml:6)"),
            ("verify", "v-one", "(harness.toml:10)"),
            ("golden", "g-two", "(harness.toml:14)"),
            ("verify", "v-two", "(harness.toml:18)"),
        ]
    );
}

#[test]
fn list_as_json_lines() {
    let p = Project::new(INTERLEAVED);
    let o = p.run(&["list", "--message-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let lines: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = lines.iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["g-one", "v-one", "g-two", "v-two"]);
    assert_eq!(lines[2]["kind"], "golden");
    assert_eq!(lines[2]["line"], 14);
}

#[test]
fn both_invocation_styles_work() {
    let p = Project::new(INTERLEAVED);
    let direct = p.run(&["list"]);
    let via_cargo = p.run(&["golden", "list"]);
    assert_eq!(direct.status.code(), Some(0), "{}", text(&direct));
    assert_eq!(direct.stdout, via_cargo.stdout);
}

/// `after` names cases: an unknown name is an error at its line with the
/// closest name, and a cycle is an error naming it.
#[test]
fn after_an_unknown_case_or_in_a_cycle_is_a_config_error() {
    let p = Project::new(
        "[[verify]]\nname = \"writes\"\ncommand = \"true\"\n\n\
         [[verify]]\nname = \"reads\"\ncommand = \"true\"\nafter = [\"writse\"]\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("harness.toml:8:10: error: `after` names `writse`, which is not a case"),
        "{err}"
    );
    assert!(err.contains("did you mean `writes`?"), "{err}");
    assert!(!p.out().join("artifacts").exists(), "something ran");

    let p = Project::new(
        "[[verify]]\nname = \"a\"\ncommand = \"true\"\nafter = [\"c\"]\n\n\
         [[verify]]\nname = \"b\"\ncommand = \"true\"\nafter = [\"a\"]\n\n\
         [[verify]]\nname = \"c\"\ncommand = \"true\"\nafter = [\"b\"]\n\n\
         [[verify]]\nname = \"d\"\ncommand = \"true\"\nafter = [\"d\"]\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("harness.toml:4:1: error: `after` makes a cycle: a → c → b → a"),
        "{err}"
    );
    assert!(
        err.contains("harness.toml:19:1: error: `after` makes a cycle: d → d"),
        "{err}"
    );
}

#[test]
fn config_errors_exit_2_name_file_line_and_leave_reports_alone() {
    let p = Project::new(
        "[[verify]]\nname = \"a\"\ncommand = \"true\"\nnmae = \"x\"\ntimeout = \"soon\"\n",
    );
    std::fs::create_dir_all(p.out()).unwrap();
    std::fs::write(p.out().join("junit.xml"), "earlier").unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("harness.toml:4:1: error: unknown key `nmae`"),
        "{err}"
    );
    assert!(err.contains("did you mean `name`?"), "{err}");
    assert!(
        err.contains("harness.toml:5:11: error: bad duration `soon`"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(p.out().join("junit.xml")).unwrap(),
        "earlier"
    );
    assert!(!p.out().join("artifacts").exists(), "something ran");
}

#[test]
fn unknown_flags_are_usage_errors() {
    let o = bin().args(["golden", "--no-such-flag"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = bin()
        .args(["golden", "--jobs", "0", "list"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = bin()
        .args(["golden", "--partition", "count:4/3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

#[test]
fn help_documents_every_run_flag() {
    let o = bin().args(["golden", "--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8(o.stdout).unwrap();
    for flag in [
        "--config",
        "--out",
        "--golden",
        "--exact",
        "--skip",
        "--fail-fast",
        "--jobs",
        "--partition",
        "--message-format",
        "--list",
        "--manifest-path",
        "--retries",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help:\n{help}");
    }
    for sub in [
        "run",
        "list",
        "init",
        "validate",
        "verify-evidence",
        "merge",
        "schema",
    ] {
        assert!(help.contains(sub), "{sub} missing from --help");
    }
}

#[test]
fn missing_harness_file_is_a_usage_error_with_help() {
    let dir = tempfile::tempdir().unwrap();
    let o = bin()
        .current_dir(dir.path())
        .arg("golden")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no harness file found") && err.contains("cargo golden init"),
        "{err}"
    );
}

#[test]
fn adhoc_golden_projects_are_listed_after_declared_cases() {
    let p = Project::new(INTERLEAVED);
    let o = p.run(&[
        "list",
        "--golden",
        "extra.yaml, named:golden/x, D:/x/p.yaml",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let names: Vec<&str> = out
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["g-one", "v-one", "g-two", "v-two", "extra", "named", "p"]
    );
    let o = p.run(&["list", "--golden", "g-one:elsewhere"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "duplicate ad-hoc name accepted: {}",
        text(&o)
    );
}

#[test]
fn filters_and_partitions_select_cases_for_list() {
    let p = Project::new(INTERLEAVED);
    let names = |args: &[&str]| -> Vec<String> {
        let o = p.run(args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&["list", "two"]), vec!["g-two", "v-two"]);
    assert_eq!(names(&["list", "--skip", "g-"]), vec!["v-one", "v-two"]);
    assert_eq!(names(&["list", "--exact", "v-one"]), vec!["v-one"]);
    assert_eq!(
        names(&["list", "--partition", "count:2/2"]),
        vec!["v-one", "v-two"]
    );
}

#[test]
fn require_golden_counts_adhoc_projects_too() {
    let p = Project::new(
        "[harness]\nrequire_golden = true\nrunner = \"true\"\n[[verify]]\nname = \"v\"\ncommand = \"true\"\n",
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("harness.toml:2:1: error: `require_golden = true`"),
        "{}",
        text(&o)
    );
    assert!(!p.out().join("artifacts").exists(), "something ran");
    std::fs::create_dir_all(p.path().join("golden/x")).unwrap();
    let o = p.run(&["--golden", "x:golden/x"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// The JSON messages of a run's stdout.
fn messages(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn run_finished_carries_the_exit_code_the_process_ends_with() {
    let p = Project::new("[[verify]]\nname = \"fine\"\ncommand = \"true\"\n");
    // A directory where junit.xml belongs: the report cannot be written,
    // so a run whose every case passed still exits 1.
    std::fs::create_dir_all(p.out().join("junit.xml").join("in-the-way")).unwrap();
    let o = p.run(&["--message-format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let msgs = messages(&o.stdout);
    let finished = msgs.last().unwrap();
    assert_eq!(finished["reason"], "run-finished", "{finished}");
    assert_eq!(finished["final_status"], "SUCCESS", "{finished}");
    assert_eq!(finished["exit_code"], 1, "{finished}");
    let err = String::from_utf8_lossy(&o.stderr);
    let junit = p.out().join("junit.xml");
    assert!(
        err.contains(&format!("error: cannot write {}: ", junit.display())),
        "{err}"
    );
}

#[test]
fn an_error_names_its_cause_once() {
    let p = Project::new("");
    let missing = p.path().join("nowhere.toml");
    let o = bin()
        .current_dir(p.path())
        .args(["golden", "--config"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    // The OS's own words for a missing file, on any platform.
    let cause = std::fs::read(&missing).unwrap_err().to_string();
    assert_eq!(
        err.matches(&cause).count(),
        1,
        "the cause {cause:?} is not said exactly once:\n{err}"
    );
    assert!(err.starts_with("error: cannot read "), "{err}");
}

#[test]
fn a_failing_reporter_is_named_once_and_the_run_goes_on() {
    let p = Project::new("");
    let go = p.path().join("go");
    p.write(
        "harness.toml",
        &format!(
            "[[verify]]\nname = \"waits\"\ncommand = 'until [ -e \"{}\" ]; do sleep 0.02; done'\n\
             [[verify]]\nname = \"second\"\ncommand = \"true\"\n\
             [[verify]]\nname = \"third\"\ncommand = \"true\"\n",
            go.display()
        ),
    );
    let mut child = p
        .cmd(&["--message-format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Nobody reads the JSON messages any more: every write after this fails.
    drop(child.stdout.take());
    std::fs::write(&go, "").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.matches("warning: the JSON messages reporter failed: ")
            .count(),
        1,
        "{err}"
    );
    assert_eq!(p.summary()["counts"]["passed"], 3, "the run went on");
}

#[cfg(unix)]
#[test]
fn special_and_oversized_files_are_refused_not_read() {
    let p = Project::new(INTERLEAVED);
    let fifo = p.path().join("fifo.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path, alive for the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);

    let o = output_within_30s(bin().args(["golden", "validate", "/dev/zero"]));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("/dev/zero: is not a regular file"),
        "{}",
        text(&o)
    );

    let o = output_within_30s(bin().args(["golden", "--config"]).arg(&fifo));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("fifo.toml: is not a regular file"),
        "{}",
        text(&o)
    );

    let o = output_within_30s(
        bin()
            .args(["golden", "--config"])
            .arg(p.path().join("harness.toml"))
            .arg("--sign-key")
            .arg(&fifo),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is not a regular file"),
        "{}",
        text(&o)
    );

    // A sparse file: 17 MiB long, nothing written.
    let big = p.path().join("big.toml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(17 << 20)
        .unwrap();
    let o = output_within_30s(bin().args(["golden", "--config"]).arg(&big));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("big.toml: is larger than 16 MiB"),
        "{}",
        text(&o)
    );
}
