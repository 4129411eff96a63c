//! Verdicts you can trust, through the real binary: a run that selects no
//! case never looks green (exit 5), `--message-format json` keeps stdout
//! to JSON lines a case cannot forge, every run dir is sealed with
//! `SHA256SUMS` (checked with the real `sha256sum`) and optionally signed
//! (checked with the real `minisign`), and `verify-evidence` and `merge`
//! catch each forgery of a run.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Project, text};
use serde_json::Value;

/// Three cases: one passes, one fails on its exit code, one passes by
/// failing the way it is expected to.
const HARNESS: &str = r#"
[harness]
name = "trust"

[[golden]]
name = "orders_daily"
path = "golden/orders"
command = "echo 'rows: 12'"

[[verify]]
name = "smoke fails"
command = "echo 'smoke: boom' >&2; exit 1"

[[verify]]
name = "rejects bad input"
command = "echo 'Invalid config: x' >&2; exit 2"
expected = "specific_error:Invalid config"
"#;

fn project() -> Project {
    let p = Project::new(HARNESS);
    p.write("golden/orders/data.csv", "day,total\nmon,3\n");
    p
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
    c.env_remove("GITHUB_ACTIONS")
        .env_remove("CARGO_GOLDEN_SIGNING_KEY")
        .env("NO_COLOR", "1");
    c
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn verify(dir: &Path, extra: &[&str]) -> Output {
    bin()
        .arg("verify-evidence")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

/// A finished run of [`HARNESS`] (exit 1: one case fails), its run dir.
fn finished_run(p: &Project) -> PathBuf {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    p.run_dir()
}

/// `verify-evidence` of the out dir fails and names `case` and `file`.
fn assert_caught(p: &Project, case: &str, file: &str) {
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let want = format!("FINDING      case {case:?}: {file}");
    assert!(stdout(&o).contains(&want), "{want}\n{}", text(&o));
}

/// Replace `path` with a new file (new inode: a report's run-dir copy may
/// be a hard link of the out dir's).
fn forge(path: &Path, content: &str) {
    std::fs::remove_file(path).unwrap();
    std::fs::write(path, content).unwrap();
}

fn edit_json(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    f(&mut v);
    forge(path, &serde_json::to_string_pretty(&v).unwrap());
}

// ---- item 1: no case ran -------------------------------------------------

#[test]
fn a_typo_in_a_filter_exits_5_and_says_which_filter_selected_nothing() {
    let p = project();
    let o = p.run(&["ordrs_daily"]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    let err = stderr(&o);
    assert!(
        err.contains("none of the 3 declared case(s) contains the filter `ordrs_daily` (did you mean `orders_daily`?)"),
        "{}",
        text(&o)
    );
    // One line for the filtered-out cases, not one each.
    assert_eq!(err.matches("SKIPPED").count(), 1, "{}", text(&o));
    assert!(err.contains("3 case(s) filtered out"), "{}", text(&o));
    assert!(err.contains("Final status FAILURE"), "{}", text(&o));
    // The reports written say so too: no green report is left behind.
    assert_eq!(p.summary()["final_status"], "FAILURE");
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(md.contains("**Final status:** FAILURE"), "{md}");
    assert!(md.contains("ordrs"), "{md}");

    let o = p.run(&["ordrs_daily", "--no-cases", "warn"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(stderr(&o).contains("warning: no case ran"), "{}", text(&o));
    let o = p.run(&["ordrs_daily", "--no-cases", "pass"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!stderr(&o).contains("no case ran"), "{}", text(&o));
}

#[test]
fn an_empty_partition_or_harness_or_skip_exits_5_naming_it() {
    let p = project();
    let o = p.run(&["--partition", "count:4/4"]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    assert!(
        stderr(&o).contains("partition count:4/4 holds none of the 3 declared case(s)"),
        "{}",
        text(&o)
    );
    let o = p.run(&["--skip", "s"]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    assert!(
        stderr(&o).contains("--skip `s` leaves out every one"),
        "{}",
        text(&o)
    );

    let empty = Project::new("[harness]\nname = \"empty\"\n");
    let o = empty.run(&[]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    assert!(
        stderr(&o).contains("the harness declares no case"),
        "{}",
        text(&o)
    );
}

#[test]
fn flags_before_list_run_the_list_subcommand() {
    let p = project();
    for args in [
        vec!["golden", "--config", "harness.toml", "list"],
        vec!["--config=harness.toml", "list"],
        vec!["golden", "--exact", "--config", "harness.toml", "list"],
    ] {
        let o = bin().current_dir(p.path()).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o));
        let out = stdout(&o);
        assert!(
            out.contains("golden  orders_daily"),
            "{args:?}: {}",
            text(&o)
        );
        assert!(
            out.contains("verify  smoke fails"),
            "{args:?}: {}",
            text(&o)
        );
    }
    assert!(!p.out().exists(), "listing runs nothing");
}

// ---- item 6: JSON on stdout, and nothing else ----------------------------

#[test]
fn json_stdout_stays_json_under_github_actions_and_a_case_cannot_forge_events() {
    let p = Project::new(
        r#"
[harness]
name = "forger"

[[verify]]
name = "forger"
command = """
echo '{"reason":"run-finished","final_status":"SUCCESS","exit_code":0}'
echo '{"reason":"run-finished","final_status":"SUCCESS","exit_code":0}' >&2
echo '::error::forged'
exit 1
"""

[[verify]]
name = "fine"
command = "echo fine"
"#,
    );
    let summary = p.path().join("step-summary.md");
    let o = p
        .cmd(&["--message-format", "json"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", p.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    let mut finished = Vec::new();
    for line in out.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line:?}\n{}", text(&o)));
        if v["reason"] == "run-finished" {
            finished.push(v);
        }
    }
    assert_eq!(finished.len(), 1, "{out}");
    assert_eq!(finished[0]["exit_code"], 1, "{out}");
    assert_eq!(finished[0]["final_status"], "PARTIAL (1 case(s) failed)");
    // The workflow commands still reach GitHub, on stderr.
    let err = stderr(&o);
    assert!(err.contains("::error file=harness.toml"), "{}", text(&o));
    assert!(err.contains("::group::"), "{}", text(&o));
    assert!(
        std::fs::read_to_string(&summary)
            .unwrap()
            .contains("forger")
    );
}

#[test]
fn json_run_finished_carries_the_real_exit_code() {
    let p = project();
    let o = p.run(&["--message-format", "json", "no_such_case"]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    let last: Value = serde_json::from_str(stdout(&o).lines().last().unwrap()).unwrap();
    assert_eq!(last["reason"], "run-finished");
    assert_eq!(last["exit_code"], 5);
    assert_eq!(last["final_status"], "FAILURE");
}

// ---- docs/evidence.md: SHA256SUMS and the signature ----------------------

fn sha256sum_check(dir: &Path) -> Output {
    Command::new("sha256sum")
        .args(["-c", "--strict", "SHA256SUMS"])
        .current_dir(dir)
        .output()
        .expect("sha256sum (coreutils) runs")
}

#[test]
fn sha256sum_checks_a_fresh_run_and_catches_any_change() {
    let p = project();
    let run = finished_run(&p);
    let sums = std::fs::read_to_string(run.join("SHA256SUMS")).unwrap();
    for listed in [
        "junit.xml",
        "report.md",
        "summary.json",
        "observations.jsonl",
        "execution/002-smoke_fails/stderr.log",
        "execution/002-smoke_fails/evidence.json",
    ] {
        assert!(sums.contains(&format!("  {listed}\n")), "{listed}: {sums}");
    }
    let o = sha256sum_check(&run);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let log = run.join("execution/001-orders_daily/stdout.log");
    std::fs::write(&log, "rows: 13\n").unwrap();
    let o = sha256sum_check(&run);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(stdout(&o).contains("execution/001-orders_daily/stdout.log: FAILED"));

    // A report changed in the out dir is caught through its run-dir copy.
    let p = project();
    let run = finished_run(&p);
    let md = p.out().join("report.md");
    let text_md = std::fs::read_to_string(&md).unwrap();
    std::fs::write(&md, text_md.replace("FAILED", "PASSED")).unwrap();
    assert_ne!(sha256sum_check(&run).status.code(), Some(0));
}

#[test]
fn every_registered_report_is_sealed_and_a_change_to_it_is_caught() {
    let names: Vec<&str> = cargo_golden::_support::report_files().collect();
    assert!(names.len() >= 4, "{names:?}");
    for name in names {
        let p = project();
        let run = finished_run(&p);
        let sums = std::fs::read_to_string(run.join("SHA256SUMS")).unwrap();
        assert!(sums.contains(&format!("  {name}\n")), "{name}: {sums}");
        let outside = p.out().join(name);
        let mut forged = std::fs::read_to_string(&outside).unwrap();
        forged.push('\n');
        forge(&outside, &forged);
        let o = verify(&p.out(), &[]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", text(&o));
        let want = format!("{name}: differs from the run's copy");
        assert!(stdout(&o).contains(&want), "{want}\n{}", text(&o));
    }
}

/// `minisign`, or `None` with a loud note when it is not installed.
fn minisign() -> Option<()> {
    match Command::new("minisign").arg("-v").output() {
        Ok(_) => Some(()),
        Err(_) => {
            eprintln!(
                "SKIPPED: `minisign` is not installed (apt-get install minisign); .ci/run installs it"
            );
            None
        }
    }
}

/// A passwordless minisign key pair made by the real tool: (public, secret).
fn keypair(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let (public, secret) = (
        dir.join(format!("{name}.pub")),
        dir.join(format!("{name}.key")),
    );
    let o = Command::new("minisign")
        .args(["-G", "-W", "-f", "-p"])
        .arg(&public)
        .arg("-s")
        .arg(&secret)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    (public, secret)
}

fn minisign_verify(public: &Path, run: &Path) -> Output {
    Command::new("minisign")
        .args(["-V", "-p"])
        .arg(public)
        .args(["-m", "SHA256SUMS"])
        .current_dir(run)
        .output()
        .unwrap()
}

#[test]
fn a_signed_run_verifies_with_minisign_and_a_tampered_one_does_not() {
    if minisign().is_none() {
        return;
    }
    let p = project();
    let keys = tempfile::tempdir().unwrap();
    let (public, secret) = keypair(keys.path(), "golden");
    let (other_public, _) = keypair(keys.path(), "other");

    let o = p
        .cmd(&["--sign-key", secret.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let run = p.run_dir();
    let o = minisign_verify(&public, &run);
    assert!(o.status.success(), "{}", text(&o));
    let o = verify(&p.out(), &["--public-key", public.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stdout(&o).contains("signature    valid (minisign)"),
        "{}",
        text(&o)
    );
    let o = verify(&p.out(), &[]);
    assert!(stdout(&o).contains("signed, not checked"), "{}", text(&o));
    let o = verify(&p.out(), &["--public-key", other_public.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    // A forger rewrites a verdict and every checksum consistently: without
    // the key, the signature no longer matches.
    let ev = run.join("execution/002-smoke_fails/evidence.json");
    edit_json(&ev, |v| v["result"] = "PASSED".into());
    let hash = cargo_golden::_support::sha256_file(&ev).unwrap();
    let sums = std::fs::read_to_string(run.join("SHA256SUMS")).unwrap();
    let sums: String = sums
        .lines()
        .map(|l| match l.split_once("  ") {
            Some((_, f)) if f == "execution/002-smoke_fails/evidence.json" => {
                format!("{hash}  {f}\n")
            }
            _ => format!("{l}\n"),
        })
        .collect();
    forge(&run.join("SHA256SUMS"), &sums);
    assert_eq!(sha256sum_check(&run).status.code(), Some(0));
    let o = minisign_verify(&public, &run);
    assert!(!o.status.success(), "{}", text(&o));
    let o = verify(&p.out(), &["--public-key", public.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains("FINDING      SHA256SUMS.minisig: does not verify SHA256SUMS"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_signing_key_can_come_from_the_environment_and_never_reaches_a_case() {
    if minisign().is_none() {
        return;
    }
    let keys = tempfile::tempdir().unwrap();
    let (public, secret) = keypair(keys.path(), "env");
    let p = Project::new(
        "[[verify]]\nname = \"peek\"\ncommand = \"echo \\\"key=[${CARGO_GOLDEN_SIGNING_KEY:-}]\\\"\"\n",
    );
    let key = std::fs::read_to_string(&secret).unwrap();
    let o = p
        .cmd(&[])
        .env("CARGO_GOLDEN_SIGNING_KEY", &key)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let run = p.run_dir();
    assert!(minisign_verify(&public, &run).status.success());
    let log = std::fs::read_to_string(run.join("execution/001-peek/stdout.log")).unwrap();
    assert_eq!(log, "key=[]\n");

    let o = p
        .cmd(&[])
        .env("CARGO_GOLDEN_SIGNING_KEY", "not a key\nat all\n")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("cannot use the signing key"),
        "{}",
        text(&o)
    );
}

// ---- item 7: each forgery is caught, naming the case and the file --------

#[test]
fn an_untouched_run_verifies_by_default_from_the_default_out_dir() {
    let p = project();
    std::fs::write(
        p.path().join("harness.toml"),
        format!("{HARNESS}\n").replace("name = \"trust\"", "name = \"trust\"\nout_dir = \"out\""),
    )
    .unwrap();
    finished_run(&p);
    let o = bin()
        .current_dir(p.path())
        .args(["verify-evidence", "--config", "harness.toml"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = stdout(&o);
    let run_id = p.summary()["run_id"].as_str().unwrap().to_string();
    assert!(out.starts_with(&format!("run {run_id} (")), "{out}");
    assert!(
        out.contains("verified     smoke fails (FAILED per its evidence)"),
        "{out}"
    );
    assert!(
        out.contains("3 evidence record(s) verified, 0 without evidence, 0 finding(s)"),
        "{out}"
    );

    // The strict JUnit family keeps per-case facts elsewhere; still verified.
    let o = p.run(&["--junit", "strict"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn a_result_flipped_to_passed_in_evidence_json_is_caught() {
    let p = project();
    let run = finished_run(&p);
    edit_json(&run.join("execution/002-smoke_fails/evidence.json"), |v| {
        v["result"] = "PASSED".into();
        v["issues"] = Value::Array(Vec::new());
    });
    assert_caught(
        &p,
        "smoke fails",
        "execution/002-smoke_fails/evidence.json: result is PASSED, but execution status RUNTIME_FAILED fails `success`",
    );
}

#[test]
fn an_expected_outcome_rewritten_in_evidence_json_is_judged_by_the_engines_rule() {
    let file = "execution/003-rejects_bad_input/evidence.json";
    for (expected, finding) in [
        (
            "specific_error:never printed",
            "result is PASSED, but no line of stdout.log or stderr.log matches `never printed` (expected specific_error:never printed): it is FAILED",
        ),
        (
            "success",
            "result is PASSED, but execution status VALIDATION_FAILED fails `success` (expected success): it is FAILED",
        ),
        (
            "specific_error:(",
            "expected outcome \"specific_error:(\" is not a valid regex",
        ),
        (
            "sometimes",
            "records no valid expected outcome (\"sometimes\"): the result cannot be re-judged",
        ),
    ] {
        let p = project();
        let run = finished_run(&p);
        edit_json(&run.join(file), |v| v["expected"] = expected.into());
        assert_caught(&p, "rejects bad input", &format!("{file}: {finding}"));
    }
}

/// Rewrite summary.json (out dir and run-dir copy) to all-pass.
fn all_pass_summary(v: &mut Value) {
    v["final_status"] = "SUCCESS".into();
    v["counts"]["passed"] = 3.into();
    v["counts"]["failed"] = 0.into();
    for c in v["cases"].as_array_mut().unwrap() {
        c["result"] = "PASSED".into();
        c["issues"] = Value::Array(Vec::new());
    }
}

#[test]
fn a_summary_rewritten_to_all_pass_is_caught() {
    let p = project();
    let run = finished_run(&p);
    edit_json(&p.out().join("summary.json"), all_pass_summary);
    edit_json(&run.join("summary.json"), all_pass_summary);
    assert_caught(&p, "smoke fails", "summary.json: result is PASSED");
}

#[test]
fn a_junit_rewritten_to_all_pass_is_caught() {
    let p = project();
    let run = finished_run(&p);
    let all_pass = |path: &Path| {
        let xml = std::fs::read_to_string(path).unwrap();
        let start = xml.find("<failure").unwrap();
        let end = xml.find("</failure>").unwrap() + "</failure>".len();
        let forged =
            format!("{}{}", &xml[..start], &xml[end..]).replace("failures=\"1\"", "failures=\"0\"");
        assert!(roxmltree::Document::parse(&forged).is_ok());
        forge(path, &forged);
    };
    all_pass(&p.out().join("junit.xml"));
    all_pass(&run.join("junit.xml"));
    assert_caught(
        &p,
        "smoke fails",
        "junit.xml: the testcase says PASSED, the result is FAILED",
    );

    // Only the out dir's copy forged: caught too, and named.
    let p = project();
    finished_run(&p);
    all_pass(&p.out().join("junit.xml"));
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let want = format!(
        "FINDING      case \"smoke fails\": {}: the testcase says PASSED",
        p.out().join("junit.xml").display()
    );
    assert!(stdout(&o).contains(&want), "{want}\n{}", text(&o));
}

#[test]
fn a_report_md_rewritten_to_all_pass_is_caught() {
    let p = project();
    let run = finished_run(&p);
    for path in [p.out().join("report.md"), run.join("report.md")] {
        let md = std::fs::read_to_string(&path).unwrap();
        let forged = md
            .replace("PARTIAL (1 case(s) failed)", "SUCCESS")
            .replace("| ❌ FAILED ", "| ✅ PASSED ");
        assert_ne!(forged, md);
        forge(&path, &forged);
    }
    assert_caught(&p, "smoke fails", "report.md: the result cell is PASSED");
}

#[test]
fn deleted_artifact_dirs_of_failing_cases_are_caught() {
    let p = project();
    let run = finished_run(&p);
    std::fs::remove_dir_all(run.join("execution/002-smoke_fails")).unwrap();
    assert_caught(
        &p,
        "smoke fails",
        "execution/002-smoke_fails/evidence.json: evidence.json is missing",
    );
}

#[cfg(unix)] // symlinks need a privilege on Windows
#[test]
fn evidence_json_replaced_by_a_symlink_is_caught() {
    let p = project();
    let run = finished_run(&p);
    let ev = run.join("execution/002-smoke_fails/evidence.json");
    let elsewhere = p.path().join("forged.json");
    std::fs::copy(&ev, &elsewhere).unwrap();
    edit_json(&elsewhere, |v| v["result"] = "PASSED".into());
    std::fs::remove_file(&ev).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &ev).unwrap();
    assert_caught(
        &p,
        "smoke fails",
        "execution/002-smoke_fails/evidence.json: evidence.json is a symlink",
    );
}

#[test]
fn a_null_evidence_hash_is_caught() {
    let p = project();
    let run = finished_run(&p);
    edit_json(&run.join("execution/002-smoke_fails/evidence.json"), |v| {
        v["evidence_hash"] = Value::Null;
    });
    assert_caught(
        &p,
        "smoke fails",
        "execution/002-smoke_fails/evidence.json: evidence_hash is null, but the case ran",
    );
}

#[test]
fn an_absolute_artifact_path_outside_the_out_dir_is_caught() {
    let p = project();
    let run = finished_run(&p);
    edit_json(&run.join("execution/002-smoke_fails/evidence.json"), |v| {
        v["artifacts"]["stderr"] = "/etc/passwd".into();
    });
    assert_caught(
        &p,
        "smoke fails",
        "execution/002-smoke_fails/evidence.json: records the artifact path \"/etc/passwd\"",
    );
}

// ---- merge never trusts a shard ------------------------------------------

fn shards(p: &Project) {
    for k in 1..=2 {
        let o = bin()
            .current_dir(p.path())
            .args(["--config", "harness.toml", "--out"])
            .arg(format!("shard-{k}"))
            .args(["--partition", &format!("count:{k}/2")])
            .output()
            .unwrap();
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    }
}

fn merge(p: &Project) -> Output {
    bin()
        .current_dir(p.path())
        .args(["merge", "shard-1", "shard-2", "--out", "merged"])
        .output()
        .unwrap()
}

fn shard_run(p: &Project, k: u32) -> PathBuf {
    let dir = p.path().join(format!("shard-{k}"));
    let id = common_run_id(&dir);
    dir.join("artifacts").join(id)
}

fn common_run_id(out: &Path) -> String {
    let v: Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    v["run_id"].as_str().unwrap().to_string()
}

#[test]
fn merge_refuses_a_shard_edited_to_passed() {
    let p = project();
    shards(&p);
    // "smoke fails" (index 1) is in shard 2; edited everywhere a careless
    // forger would: evidence, summary copies.
    let run = shard_run(&p, 2);
    edit_json(&run.join("execution/002-smoke_fails/evidence.json"), |v| {
        v["result"] = "PASSED".into();
        v["issues"] = Value::Array(Vec::new());
    });
    for path in [
        run.join("summary.json"),
        p.path().join("shard-2/summary.json"),
    ] {
        edit_json(&path, |v| {
            v["final_status"] = "SUCCESS".into();
            for c in v["cases"].as_array_mut().unwrap() {
                c["result"] = "PASSED".into();
                c["issues"] = Value::Array(Vec::new());
            }
        });
    }
    let o = merge(&p);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = stderr(&o);
    assert!(
        err.contains("shard-2: its evidence does not verify"),
        "{}",
        text(&o)
    );
    assert!(err.contains("case \"smoke fails\""), "{}", text(&o));
    assert!(
        !p.path().join("merged").exists(),
        "a refused merge writes nothing"
    );
}

#[cfg(unix)] // symlinks need a privilege on Windows
#[test]
fn merge_refuses_a_symlinked_log_and_copies_none() {
    let p = project();
    shards(&p);
    let log = shard_run(&p, 1).join("execution/001-orders_daily/stdout.log");
    std::fs::remove_file(&log).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &log).unwrap();
    let o = merge(&p);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("execution/001-orders_daily/stdout.log: is a symlink"),
        "{}",
        text(&o)
    );
    assert!(!p.path().join("merged").exists());
}

#[test]
fn merged_verdicts_come_from_the_evidence_and_verify() {
    let p = project();
    shards(&p);
    let o = merge(&p);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let merged = p.path().join("merged");
    let v: Value =
        serde_json::from_slice(&std::fs::read(merged.join("summary.json")).unwrap()).unwrap();
    assert_eq!(v["final_status"], "PARTIAL (1 case(s) failed)");
    let o = verify(&merged, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let run = merged.join("artifacts").join(common_run_id(&merged));
    assert_eq!(sha256sum_check(&run).status.code(), Some(0));
}

// ---- structured results -----------------------------------------------------

/// Cases whose command writes a machine-readable result, each exiting 0.
const RESULTS: &str = r#"
[[golden]]
name = "pytest suite"
path = "golden/suite"
command = "mkdir -p reports && cp junit.xml reports/junit.xml"
isolation = "copy"
result = { format = "junit", path = "reports/junit.xml" }

[[verify]]
name = "config validates"
command = "printf '%s\n' '[20:27:29] INFO     validating' '{\"valid\": false, \"errors\": [{\"code\": \"MODEL_VALIDATION_FAILED\", \"field_path\": \"pipelines.0.nodes.0.write.mode\", \"message\": \"Input should be overwrite or append\", \"fix\": \"Use a valid write mode.\"}]}'"
result = { format = "odibi-validate" }

[[verify]]
name = "forgot its report"
command = "echo all good"
result = { format = "junit", path = "out/junit.xml" }

[[verify]]
name = "odibi run"
command = "cp -r ../stories out"
working_dir = "golden/run"
result = { format = "odibi-story", path = "out" }

[[verify]]
name = "green suite"
command = "printf '<testsuite><testcase classname=\"t\" name=\"ok\"/></testsuite>' > green.xml"
result = { format = "junit", path = "green.xml" }

[[golden]]
name = "stale report"
path = "golden/stale"
command = "echo the suite did not run"
result = { format = "junit", path = "junit.xml" }

[[verify]]
name = "stale story"
command = "echo the pipeline did not run"
working_dir = "golden/stale"
result = { format = "odibi-story", path = "stories" }
"#;

const JUNIT: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="2" failures="1">
<testcase classname="tests.test_totals" name="test_ok" time="0.01"/>
<testcase classname="tests.test_totals" name="test_sum_by_region" time="0.02"><failure message="AssertionError: assert 12 == 13">def test_sum_by_region(): ...</failure></testcase>
</testsuite></testsuites>
"#;

fn results_project() -> Project {
    let p = Project::new(RESULTS);
    p.write("golden/suite/junit.xml", JUNIT);
    // A real story's shape (odibi 3.15.1), trimmed, beside the lineage
    // JSON Odibi writes at the same time.
    p.write(
        "golden/stories/orders/2026-11-25/run_20-27-32.json",
        r#"{"pipeline_name": "orders", "failed_nodes": 1, "nodes": [{"node_name": "clean_orders", "status": "failed", "error_type": "NodeExecutionError", "error_message": "[X] Node execution failed: clean_orders\n\n  Error: [X] Validation failed for node: clean_orders\n\n  Failures:\n    * Column 'amount' contains 1 values out of range\n"}]}"#,
    );
    p.write(
        "golden/stories/lineage/2026-11-25/run_20-27-32.json",
        r#"{"generated_at": "x", "nodes": [], "edges": []}"#,
    );
    std::fs::create_dir_all(p.path().join("golden/run")).unwrap();
    // Green results an earlier run left in a project: not this run's.
    p.write(
        "golden/stale/junit.xml",
        r#"<testsuite><testcase classname="t" name="ok"/></testsuite>"#,
    );
    p.write(
        "golden/stale/stories/orders/run.json",
        r#"{"pipeline_name": "orders", "failed_nodes": 0, "nodes": [{"node_name": "a", "status": "success"}]}"#,
    );
    p
}

fn issues_of(ev: &Value, issue_type: &str) -> Vec<String> {
    ev["issues"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == issue_type)
        .map(|i| i["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_failed_structured_result_fails_the_case_whatever_the_exit_code() {
    let p = results_project();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    let ev = p.evidence("001-pytest_suite");
    assert_eq!(ev["exit_code"], 0);
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let issues = issues_of(&ev, "RESULT_FAILED");
    assert_eq!(
        issues,
        ["testcase tests.test_totals::test_sum_by_region failure: AssertionError: assert 12 == 13"]
    );
    // Read in the copy, kept beside the logs as written.
    let kept = p.case_dir("001-pytest_suite").join("result.xml");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), JUNIT);
    assert_eq!(ev["structured_result"]["source"], "reports/junit.xml");
    assert!(!p.path().join("golden/suite/reports").exists());

    let ev = p.evidence("002-config_validates");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let issues = issues_of(&ev, "RESULT_FAILED");
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert!(
        issues[0].contains("pipelines.0.nodes.0.write.mode"),
        "{issues:?}"
    );
    assert!(issues[0].contains("Use a valid write mode."), "{issues:?}");
    assert_eq!(
        ev["validation_errors"][0]["field"],
        "pipelines.0.nodes.0.write.mode"
    );
    assert_eq!(ev["structured_result"]["source"], "stdout");

    let ev = p.evidence("003-forgot_its_report");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let issues = issues_of(&ev, "RESULT_FAILED");
    assert!(issues[0].contains("out/junit.xml is missing"), "{issues:?}");

    let ev = p.evidence("004-odibi_run");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let issues = issues_of(&ev, "RESULT_FAILED");
    assert_eq!(
        issues,
        [
            "odibi story: node clean_orders failed: NodeExecutionError: Validation failed for node: clean_orders; Column 'amount' contains 1 values out of range"
        ]
    );
    assert_eq!(
        ev["structured_result"]["source"],
        "out/orders/2026-11-25/run_20-27-32.json"
    );

    let ev = p.evidence("005-green_suite");
    assert_eq!(ev["result"], "PASSED", "{ev}");
    assert_eq!(ev["structured_result"]["failed"], false);

    let ev = p.evidence("006-stale_report");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let issues = issues_of(&ev, "RESULT_FAILED");
    assert!(
        issues[0].contains("junit.xml was not written by this run"),
        "{issues:?}"
    );
    let ev = p.evidence("007-stale_story");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let issues = issues_of(&ev, "RESULT_FAILED");
    assert!(
        issues[0].contains("stories holds no run story this run wrote"),
        "{issues:?}"
    );

    // The kept results are evidence: verify-evidence holds, and catches an
    // edit of one.
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    forge(&kept, &JUNIT.replace("failure message", "skipped message"));
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains(
            "case \"pytest suite\": execution/001-pytest_suite/evidence.json: evidence hash differs"
        ),
        "{}",
        text(&o)
    );
}

/// Cases whose result ran nothing: a JUnit report with no test case, one
/// with only skipped ones, a story of no node, and the same JUnit report
/// allowed empty.
const EMPTY_RESULTS: &str = r#"
[[verify]]
name = "no tests"
command = "printf '<testsuite name=\"pytest\" tests=\"0\"></testsuite>' > junit.xml"
result = { format = "junit", path = "junit.xml" }

[[verify]]
name = "all skipped"
command = "printf '<testsuite><testcase classname=\"t\" name=\"a\"><skipped/></testcase></testsuite>' > skipped.xml"
result = { format = "junit", path = "skipped.xml" }

[[verify]]
name = "no node"
command = "mkdir -p out && cp nothing_selected.story.json out/run.json"
result = { format = "odibi-story", path = "out" }

[[verify]]
name = "empty allowed"
command = "printf '<testsuite name=\"pytest\" tests=\"0\"></testsuite>' > allowed.xml"
result = { format = "junit", path = "allowed.xml", allow_empty = true }
"#;

#[test]
fn a_structured_result_that_ran_nothing_is_nothing_ran() {
    let p = Project::new(EMPTY_RESULTS);
    // A recorded story with its nodes taken out: what a run that selects
    // no node writes.
    let mut story: Value = serde_json::from_slice(
        &std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/corpus/odibi/healthy_etl-run-80.story.json"),
        )
        .unwrap(),
    )
    .unwrap();
    story["nodes"] = Value::Array(Vec::new());
    for count in [
        "total_nodes",
        "completed_nodes",
        "failed_nodes",
        "skipped_nodes",
    ] {
        story[count] = 0.into();
    }
    p.write("nothing_selected.story.json", &story.to_string());
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    for (slug, unit) in [
        ("001-no_tests", "0 test case(s) run"),
        ("002-all_skipped", "0 test case(s) run"),
        ("003-no_node", "0 node(s) run"),
    ] {
        let ev = p.evidence(slug);
        assert_eq!(ev["result"], "FAILED", "{ev}");
        let issues = issues_of(&ev, "NOTHING_RAN");
        assert!(
            issues.len() == 1 && issues[0].contains(unit),
            "{slug}: {issues:?}"
        );
    }
    assert_eq!(p.evidence("004-empty_allowed")["result"], "PASSED");
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}
