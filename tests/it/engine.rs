//! The execution engine through the real binary: process groups, timeouts,
//! leaked descendants, streaming capture, interrupts, golden isolation.

use crate::common;

use std::io::Read;
use std::time::{Duration, Instant};

use common::{Project, issue_message, processes_matching, text};
use sha2::{Digest, Sha256};

#[test]
fn timeout_kills_the_whole_group() {
    let p = Project::new(
        r#"
[harness]
kill_grace = "500ms"
[[verify]]
name = "hangs"
command = "sleep 1001.25 & sleep 1001.25"
timeout = "1s"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        processes_matching("sleep 1001.25").is_empty(),
        "group survived the timeout"
    );
    let ev = p.evidence("001-hangs");
    assert_eq!(ev["execution_status"], "ABORTED");
    assert_eq!(ev["result"], "FAILED");
    assert!(
        ev["issues"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["type"] == "TIMEOUT")
    );
}

#[test]
fn a_leaked_grandchild_does_not_hold_the_case_open() {
    let p = Project::new(
        r#"
[[verify]]
name = "leaks"
command = "(sleep 1002.5 &); echo hi"
timeout = "60s"
"#,
    );
    let start = Instant::now();
    let o = p.run(&[]);
    // The case must end after the leak wait, long before the 60 s timeout.
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the case waited for the grandchild"
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        processes_matching("sleep 1002.5").is_empty(),
        "leaked grandchild survived"
    );
    assert_eq!(
        std::fs::read(p.case_dir("001-leaks").join("stdout.log")).unwrap(),
        b"hi\n"
    );
    let ev = p.evidence("001-leaks");
    assert_eq!(ev["exit_code"], 0);
    assert!(
        ev["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("leaked")),
        "{ev}"
    );
}

#[test]
fn a_200_mb_output_is_kept_whole_with_a_matching_hash() {
    let p = Project::new(
        r#"
[harness]
truncate = 100
[[verify]]
name = "big"
command = "yes abcdefghij | head -c 200000000"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let log = p.case_dir("001-big").join("stdout.log");
    assert_eq!(std::fs::metadata(&log).unwrap().len(), 200_000_000);
    // The expected bytes, generated independently of the tool.
    let mut expected = Sha256::new();
    let line = b"abcdefghij\n";
    let mut left = 200_000_000usize;
    let block: Vec<u8> = line
        .iter()
        .copied()
        .cycle()
        .take(line.len() * 4096)
        .collect();
    while left > 0 {
        let n = left.min(block.len());
        expected.update(&block[..n]);
        left -= n;
    }
    let mut got = Sha256::new();
    let mut f = std::fs::File::open(&log).unwrap();
    let mut buf = vec![0; 1 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        got.update(&buf[..n]);
    }
    assert_eq!(got.finalize(), expected.finalize());
    let ev = p.evidence("001-big");
    let stdout = ev["stdout"].as_str().unwrap();
    assert!(
        stdout.ends_with("\n\n[TRUNCATED - output exceeded limit]"),
        "{}",
        &stdout[..120]
    );
}

#[test]
fn non_utf8_and_nul_bytes_are_kept_exactly() {
    let p = Project::new(
        r#"
[[verify]]
name = "bytes"
command = "printf 'a\\000b\\377\\376c'; printf '\\033[31mred\\000' >&2"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let dir = p.case_dir("001-bytes");
    assert_eq!(
        std::fs::read(dir.join("stdout.log")).unwrap(),
        b"a\0b\xff\xfec"
    );
    assert_eq!(
        std::fs::read(dir.join("stderr.log")).unwrap(),
        b"\x1b[31mred\0"
    );
    let ev = p.evidence("001-bytes");
    let want = cargo_golden::_support::evidence_hash(
        ev["raw_command"].as_str().unwrap(),
        b"a\0b\xff\xfec",
        b"\x1b[31mred\0",
        Some(0),
    );
    assert_eq!(ev["evidence_hash"], want);
}

#[test]
fn a_missing_golden_path_is_an_error_without_evidence() {
    let p = Project::new(
        r#"
[[golden]]
name = "ghost"
path = "golden/does-not-exist"
command = "true"
[[verify]]
name = "after"
command = "true"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-ghost");
    assert_eq!(ev["result"], "ERROR");
    assert_eq!(ev["status"], "NO_EVIDENCE");
    assert!(ev["exit_code"].is_null());
    let issues = ev["issues"].as_array().unwrap();
    assert_eq!(issues[0]["type"], "EXECUTION_ERROR");
    assert!(
        issues[0]["message"]
            .as_str()
            .unwrap()
            .contains("does not exist"),
        "{ev}"
    );
    // The run went on.
    assert_eq!(p.evidence("002-after")["result"], "PASSED");
}

#[test]
fn a_missing_working_dir_is_an_error_not_a_panic() {
    let p = Project::new(
        r#"
[[verify]]
name = "nowhere"
command = "true"
working_dir = "missing"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-nowhere");
    assert_eq!(ev["result"], "ERROR");
    assert!(
        ev["issues"][0]["message"]
            .as_str()
            .unwrap()
            .contains("working directory"),
        "{ev}"
    );
}

#[test]
fn check_isolation_fails_a_case_that_modifies_its_project() {
    let p = Project::new(
        r#"
[[golden]]
name = "mutates"
path = "golden/p"
isolation = "check"
command = "echo changed >> data.csv; rm old.txt; touch new.txt; mkdir -p target; touch target/ignored"
ignore = ["target/**", "target"]
"#,
    );
    p.write("golden/p/data.csv", "a,b\n");
    p.write("golden/p/old.txt", "x");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-mutates");
    assert_eq!(ev["result"], "FAILED");
    let issue = ev["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "GOLDEN_MODIFIED")
        .unwrap_or_else(|| panic!("no GOLDEN_MODIFIED issue: {ev}"));
    let text = issue.to_string();
    for name in ["data.csv", "old.txt", "new.txt"] {
        assert!(text.contains(name), "{name} not named: {text}");
    }
    assert!(
        !text.contains("ignored"),
        "an ignored file was reported: {text}"
    );
}

#[test]
fn copy_isolation_never_touches_the_original() {
    let p = Project::new(
        r#"
[[golden]]
name = "mutates"
path = "golden/p"
command = "echo changed >> data.csv && pwd"
isolation = "copy"
"#,
    );
    let data = p.write("golden/p/data.csv", "a,b\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "a,b\n");
    let ran_in = std::fs::read_to_string(p.case_dir("001-mutates").join("stdout.log")).unwrap();
    assert!(
        !ran_in.trim().starts_with(&*p.path().to_string_lossy()),
        "ran in the original: {ran_in}"
    );
    assert!(
        !std::path::Path::new(ran_in.trim()).exists(),
        "the temporary copy was left behind"
    );
}

/// `[harness] isolation` and `env` are defaults: a golden project without
/// its own `isolation` takes the harness's, one with it keeps its own, and
/// a case's `env` entries win over the harness's, key by key.
#[test]
fn harness_isolation_and_env_are_defaults_a_case_overrides() {
    let p = Project::new(
        r#"
[harness]
isolation = "copy"
env = { SHARED = "from-harness", OVERRIDDEN = "from-harness" }

[[golden]]
name = "copied"
path = "golden/p"
command = "echo changed >> data.csv && echo \"$SHARED $OVERRIDDEN\""
env = { OVERRIDDEN = "from-case" }

[[golden]]
name = "checked"
path = "golden/q"
command = "echo changed >> data.csv"
isolation = "check"

[[verify]]
name = "plain"
command = "echo \"$SHARED $OVERRIDDEN\""
"#,
    );
    let data = p.write("golden/p/data.csv", "a,b\n");
    p.write("golden/q/data.csv", "a,b\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    let case = |i: usize| &summary["cases"][i];

    // The harness's `copy`: the original is untouched.
    assert_eq!(case(0)["result"], "PASSED", "{}", case(0));
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "a,b\n");
    assert_eq!(case(0)["stdout"], "from-harness from-case\n");
    // Its own `check`: the change is caught.
    assert_eq!(case(1)["result"], "FAILED", "{}", case(1));
    assert_eq!(case(1)["issues"][0]["type"], "GOLDEN_MODIFIED");
    // A verify command gets the harness's env too.
    assert_eq!(case(2)["stdout"], "from-harness from-harness\n");
}

#[cfg(unix)]
#[test]
fn sigint_kills_the_running_case_and_skips_the_rest() {
    let p = Project::new(
        r#"
[[verify]]
name = "first"
command = "true"
[[verify]]
name = "long"
command = "echo started; sleep 1003.75 & sleep 1003.75"
[[verify]]
name = "never"
command = "true"
"#,
    );
    let mut child = p
        .cmd(&[])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    p.wait_for_output("002-long", "started");
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3));
    assert!(
        processes_matching("sleep 1003.75").is_empty(),
        "case processes survived"
    );
    let summary = p.summary();
    let cases = summary["cases"].as_array().unwrap();
    assert_eq!(cases[0]["result"], "PASSED");
    assert_eq!(cases[1]["execution_status"], "ABORTED");
    assert_eq!(cases[2]["result"], "SKIPPED");
    assert_eq!(summary["final_status"], "FAILURE");
}

#[cfg(unix)]
#[test]
fn a_second_sigint_exits_at_once_and_kills_the_group() {
    // The case ignores SIGTERM and the grace period is long: only the
    // second interrupt can end the run quickly.
    let p = Project::new(
        r#"
[harness]
kill_grace = "60s"
[[verify]]
name = "stubborn"
command = "trap '' TERM; echo started; while :; do sleep 1004.5; done"
"#,
    );
    let mut child = p
        .cmd(&[])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    p.wait_for_output("001-stubborn", "started");
    // SAFETY: signals to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: the same child, not yet waited for.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3));
    // Well before the 60 s grace period would have ended.
    assert!(start.elapsed() < Duration::from_secs(30));
    // At once: the harness waits for the group to die before it exits.
    assert!(
        processes_matching("sleep 1004.5").is_empty(),
        "the case's group survived"
    );
}

#[cfg(unix)] // the windows module has the Windows one
#[test]
fn the_process_check_sees_a_live_process() {
    // Guards the "nothing left behind" assertions above against passing
    // because the check cannot see processes at all.
    struct KillOnDrop(std::process::Child);
    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    // Unique to this test process, so no other run's leftovers count.
    let marker = format!("sleep 1005.{}", std::process::id());
    let child = KillOnDrop(
        std::process::Command::new("sleep")
            .arg(marker.trim_start_matches("sleep "))
            .spawn()
            .unwrap(),
    );
    // Right after spawn the child may not have exec'd `sleep` yet.
    let start = Instant::now();
    while processes_matching(&marker).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "a live `{marker}` was never seen"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(processes_matching(&marker).len(), 1);
    drop(child);
    assert!(processes_matching(&marker).is_empty());
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let o = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", text(&o));
}

/// A project a tool writes into on every run, as dbt does: its `target/`,
/// `logs/` and database, which its `.gitignore` lists.
fn writing_project(isolation: &str) -> Project {
    let p = Project::new(&format!(
        r#"
[[golden]]
name = "builds"
path = "shop"
command = "mkdir -p target logs && echo m > target/manifest.json && echo l >> logs/tool.log && echo d >> shop.db && echo built"
{isolation}
"#
    ));
    p.write("shop/model.sql", "select 1\n");
    p.write("shop/.gitignore", "target/\nlogs/\n*.db\n");
    git(p.path(), &["init", "-q"]);
    git(p.path(), &["add", "."]);
    git(p.path(), &["commit", "-q", "-m", "first"]);
    p
}

fn git_status(p: &Project) -> String {
    let o = std::process::Command::new("git")
        .current_dir(p.path())
        .args(["status", "--porcelain", "--untracked-files=all"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn by_default_a_golden_project_runs_in_a_copy_and_stays_as_committed() {
    let p = writing_project("");
    for _ in 0..2 {
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    assert!(!p.path().join("shop/target").exists());
    // The out dir is the only new thing.
    let status = git_status(&p);
    assert!(status.lines().all(|l| l.starts_with("?? out/")), "{status}");
}

#[test]
fn in_place_what_git_ignores_is_no_change_and_a_change_names_its_fix() {
    let p = writing_project("isolation = \"check\"");
    for _ in 0..2 {
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    // A committed file is a change, whatever .gitignore says.
    std::fs::write(
        p.path().join("shop/.gitignore"),
        "target/\nlogs/\n*.db\nmodel.sql\n",
    )
    .unwrap();
    git(p.path(), &["commit", "-q", "-am", "ignore the model too"]);
    let harness = std::fs::read_to_string(p.path().join("harness.toml"))
        .unwrap()
        .replace("echo built", "echo 2 >> model.sql; touch new.txt");
    p.write("harness.toml", &harness);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-builds");
    let issue = ev["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "GOLDEN_MODIFIED")
        .unwrap_or_else(|| panic!("no GOLDEN_MODIFIED: {ev}"))["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        issue.contains("model.sql") && issue.contains("new.txt") && !issue.contains("target"),
        "{issue}"
    );
    assert!(
        issue.contains("isolation = \"copy\"")
            && issue.contains("ignore = [\"")
            && !issue.to_lowercase().contains("commit"),
        "{issue}"
    );
    // The next run finds the project dirty, and says how to undo that.
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-builds");
    let message = ev["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("uncommitted changes")
            && message.contains("git restore")
            && message.contains("git clean")
            && !message.contains("Commit"),
        "{message}"
    );
}

#[test]
fn in_place_an_ignore_rule_the_run_writes_excuses_nothing_and_the_next_run_sees_it() {
    // Where a run hides the file it leaves: a `.gitignore` of its own (that
    // ignores itself too), `.git/info/exclude`, the file
    // `core.excludesFile` names, a `.gitignore` above the project. Each is
    // shown as the run's change.
    let elsewhere = tempfile::tempdir().unwrap();
    let excludes = elsewhere.path().join("excludes");
    let excludes_shown = excludes.to_str().unwrap();
    let ways = [
        ("echo '*' > models/.gitignore", "models/.gitignore"),
        (
            "echo stray.csv >> ../.git/info/exclude",
            ".git/info/exclude",
        ),
        (
            &format!("echo stray.csv >> {excludes_shown}") as &str,
            excludes_shown,
        ),
        // A `.gitignore` above the project reaches into it too.
        ("echo stray.csv > ../.gitignore", "../.gitignore"),
    ];
    for (hide, rule_file) in ways {
        std::fs::write(&excludes, "").unwrap();
        let p = Project::new(
            r#"
[[golden]]
name = "builds"
path = "shop"
isolation = "check"
command = "sh build.sh"
"#,
        );
        p.write("shop/models/orders.sql", "select 1\n");
        p.write("shop/.gitignore", "target/\n");
        // Writing where the committed rules ignored before the run passes.
        p.write(
            "shop/build.sh",
            "mkdir -p target && echo m > target/manifest.json\n",
        );
        git(p.path(), &["init", "-q"]);
        git(p.path(), &["config", "core.excludesFile", excludes_shown]);
        git(p.path(), &["add", "."]);
        git(p.path(), &["commit", "-q", "-m", "first"]);
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(0), "{hide}: {}", text(&o));

        p.write(
            "shop/build.sh",
            &format!("mkdir -p target && echo m > target/manifest.json\n{hide}\necho x > models/stray.csv\n"),
        );
        git(p.path(), &["commit", "-q", "-am", "hides"]);
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(1), "{hide}: {}", text(&o));
        let ev = p.evidence("001-builds");
        assert_eq!(ev["result"], "FAILED", "{hide}: {ev}");
        let message = issue_message(&ev, "GOLDEN_MODIFIED");
        assert!(
            message.contains(rule_file) && message.contains("models/stray.csv"),
            "{hide}: {message}"
        );
        assert!(!message.contains("target"), "{hide}: {message}");

        // The next run is refused: the project is dirty.
        let o = p.run(&[]);
        assert_eq!(o.status.code(), Some(1), "{hide}: {}", text(&o));
        let ev = p.evidence("001-builds");
        assert_eq!(ev["execution_status"], "SKIPPED", "{hide}: {ev}");
        let message = issue_message(&ev, "GOLDEN_MODIFIED");
        assert!(
            message.contains("uncommitted changes") && message.contains("models/stray.csv"),
            "{hide}: {message}"
        );
    }
}
