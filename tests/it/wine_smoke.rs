//! Smoke run of the Windows build under Wine: the cross-built binary runs a
//! small harness of `cmd /C` cases (no `sh` on Wine's `PATH`, so the
//! default shell is cmd) and its reports are read back. `.ci/wine-smoke`
//! builds the binary and sets `CARGO_GOLDEN_WINE_EXE`; without it the test
//! says so and checks nothing.
//!
//! Wine is not Windows: the Job Object details, console process groups
//! and path edge cases are left to the Windows CI job.
#![cfg(unix)]

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::processes_matching;

/// Markers in the timeout case's command lines, unique to this test.
const MAIN_PING: &str = "ping -n 1017 127.0.0.1";
const DETACHED_PING: &str = "ping -n 1018 127.0.0.1";

fn harness(golden: &Path) -> String {
    // The seed projects' spelling: drive letter, forward slashes.
    let golden = format!("Z:{}", golden.display()).replace('\\', "/");
    format!(
        r#"
[harness]
name = "wine-smoke"
kill_grace = "500ms"

[[golden]]
name = "sales etl"
path = "{golden}"
command = "type {{path}} && echo ran {{name}}"

[[verify]]
name = "validation at exit 0"
command = "echo 1 validation error for ProjectConfig"

[[verify]]
name = "exit three"
command = "echo failing & exit /b 3"

[[verify]]
name = "hangs"
command = "start /b {DETACHED_PING} > nul & {MAIN_PING} > nul"
timeout = "2s"
"#
    )
}

/// The tests run one at a time: they share one Wine prefix and one
/// wineserver, and a Ctrl-C test must not share a console's timing with
/// runs that start and stop around it.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The cross-built binary, when `.ci/wine-smoke` runs the test, with this
/// test's turn at Wine.
fn wine_exe() -> Option<(std::ffi::OsString, std::sync::MutexGuard<'static, ()>)> {
    let Some(exe) = std::env::var_os("CARGO_GOLDEN_WINE_EXE") else {
        eprintln!(
            "wine smoke run skipped: CARGO_GOLDEN_WINE_EXE is not set (.ci/wine-smoke sets it)"
        );
        return None;
    };
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    Some((exe, turn))
}

/// `cargo-golden golden` of the harness in `dir` under Wine.
fn wine_run(exe: &std::ffi::OsStr, dir: &Path) -> Command {
    let log = |name: &str| std::fs::File::create(dir.join(name)).unwrap();
    let mut c = Command::new("wine");
    c.arg(exe)
        .args(["golden", "--config", "harness.toml", "--out", "out"])
        .current_dir(dir)
        .env("WINEDEBUG", "-all")
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .stdin(std::process::Stdio::null())
        .stdout(log("stdout.txt"))
        .stderr(log("stderr.txt"));
    c
}

#[test]
fn cmd_cases_under_wine() {
    let Some((exe, _turn)) = wine_exe() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let golden = dir.path().join("golden/sales etl 50% & co/pipeline.yaml");
    std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
    std::fs::write(&golden, "pipeline: daily sales\n").unwrap();
    std::fs::write(dir.path().join("harness.toml"), harness(&golden)).unwrap();

    let mut run = wine_run(&exe, dir.path()).spawn().unwrap();
    // Wine's processes show their Windows command lines: the check below
    // can see the pings while the case runs, so its "gone" means gone.
    let start = Instant::now();
    while processes_matching(MAIN_PING).is_empty() || processes_matching(DETACHED_PING).is_empty() {
        if start.elapsed() > Duration::from_secs(120) || run.try_wait().unwrap().is_some() {
            let _ = run.kill();
            panic!("the timeout case's pings were never seen running");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // The case times out after 2 s; a harness that cannot end it would
    // wait for the pings (17 minutes).
    let status = loop {
        if let Some(status) = run.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = run.kill();
            panic!("the harness did not end the timed-out case");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    assert_eq!(
        status.code(),
        Some(1),
        "--- stdout\n{}\n--- stderr\n{}",
        read("stdout.txt"),
        read("stderr.txt")
    );
    let out = dir.path().join("out");

    check_junit(&std::fs::read_to_string(out.join("junit.xml")).unwrap());
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    let cases = summary["cases"].as_array().unwrap();
    let field = |i: usize, k: &str| cases[i][k].clone();
    assert_eq!(field(0, "result"), "PASSED", "{summary}");
    assert_eq!(field(1, "result"), "FAILED");
    assert_eq!(field(1, "execution_status"), "VALIDATION_FAILED");
    assert_eq!(field(1, "exit_code"), 0);
    assert_eq!(field(2, "result"), "FAILED");
    assert_eq!(field(2, "exit_code"), 3);
    assert_eq!(field(3, "execution_status"), "ABORTED");
    assert_eq!(summary["counts"]["passed"], 1);
    assert_eq!(summary["counts"]["failed"], 3);

    // `{path}` reached cmd quoted: the file with ` `, `%` and `&` in its
    // path was read.
    let run = std::fs::read_dir(out.join("artifacts"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let stdout = std::fs::read_to_string(run.join("execution/001-sales_etl/stdout.log")).unwrap();
    assert!(stdout.contains("pipeline: daily sales"), "{stdout}");
    assert!(stdout.contains("ran \"sales etl\""), "{stdout}");

    // The job went down whole: the main ping and the one `start /b` detached.
    std::thread::sleep(Duration::from_millis(500));
    for marker in [MAIN_PING, DETACHED_PING] {
        let left = processes_matching(marker);
        assert!(left.is_empty(), "{marker} outlived the case: {left:?}");
    }
}

fn check_junit(xml: &str) {
    let doc = roxmltree::Document::parse(xml).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("tests"), Some("4"), "{xml}");
    assert_eq!(root.attribute("failures"), Some("3"), "{xml}");
    let names: Vec<&str> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(
        names,
        ["sales etl", "validation at exit 0", "exit three", "hangs"]
    );
}

/// Wine turns SIGINT into the console's Ctrl-C event: the harness's
/// console handler stops the run like SIGINT does on Unix.
#[test]
fn ctrl_c_under_wine_stops_the_run() {
    let Some((exe, _turn)) = wine_exe() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("harness.toml"),
        "[[verify]]\nname = \"first\"\ncommand = \"echo fine\"\n\
         [[verify]]\nname = \"long\"\ncommand = \"echo started& ping -n 1019 127.0.0.1 > nul\"\n\
         [[verify]]\nname = \"never\"\ncommand = \"echo never\"\n",
    )
    .unwrap();
    let mut run = wine_run(&exe, dir.path()).spawn().unwrap();
    let start = Instant::now();
    while processes_matching("ping -n 1019 127.0.0.1").is_empty() {
        if start.elapsed() > Duration::from_secs(120) || run.try_wait().unwrap().is_some() {
            let _ = run.kill();
            let _ = run.wait();
            let read =
                |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_default();
            panic!(
                "the long case never started ({:?})\nstdout:\n{}\nstderr:\n{}",
                run.try_wait().ok().flatten(),
                read("stdout.txt"),
                read("stderr.txt")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: a signal to our own child (`wine` execs the Windows process).
    unsafe { libc::kill(run.id() as i32, libc::SIGINT) };
    let status = loop {
        if let Some(status) = run.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = run.kill();
            panic!("Ctrl-C did not stop the run");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(3));
    assert!(processes_matching("ping -n 1019 127.0.0.1").is_empty());
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/summary.json")).unwrap())
            .unwrap();
    let cases = summary["cases"].as_array().unwrap();
    assert_eq!(cases[0]["result"], "PASSED", "{summary}");
    assert_eq!(cases[1]["execution_status"], "ABORTED");
    assert_eq!(cases[2]["result"], "SKIPPED");
}

/// A second run into the same out dir replaces every report (a rename over
/// an existing file on Windows) and never shows the first run's verdict.
#[test]
fn a_second_run_replaces_the_reports_under_wine() {
    let Some((exe, _turn)) = wine_exe() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let summary = || -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.path().join("out/summary.json")).unwrap())
            .unwrap()
    };
    let mut run_ids = Vec::new();
    for command in ["echo first", "exit /b 5"] {
        std::fs::write(
            dir.path().join("harness.toml"),
            format!("[[verify]]\nname = \"v\"\ncommand = \"{command}\"\n"),
        )
        .unwrap();
        let status = wine_run(&exe, dir.path()).status().unwrap();
        assert_eq!(
            status.code(),
            Some(if command == "exit /b 5" { 1 } else { 0 })
        );
        run_ids.push(summary()["run_id"].as_str().unwrap().to_string());
    }
    assert_ne!(run_ids[0], run_ids[1]);
    let s = summary();
    assert_eq!(s["cases"][0]["exit_code"], 5, "{s}");
    let junit = std::fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap();
    assert_eq!(
        doc.root_element().attribute("failures"),
        Some("1"),
        "{junit}"
    );
}

/// Two runs into one out dir under Wine: the second exits 2 at once, naming
/// the first (Windows locks are mandatory, so the holder's line is read
/// from a file of its own), and the first still finishes green.
#[test]
fn a_second_run_into_a_busy_out_dir_is_turned_away_under_wine() {
    let Some((exe, _turn)) = wine_exe() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("harness.toml"),
        "[[verify]]\nname = \"long\"\ncommand = \"ping -n 4 127.0.0.1 > nul& echo marker-1020\"\n",
    )
    .unwrap();
    let mut first = wine_run(&exe, dir.path()).spawn().unwrap();
    let start = Instant::now();
    while processes_matching("ping -n 4 127.0.0.1").is_empty() {
        if start.elapsed() > Duration::from_secs(120) || first.try_wait().unwrap().is_some() {
            let _ = first.kill();
            panic!("the first run's case never started");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = Command::new("wine")
        .arg(&exe)
        .args(["golden", "--config", "harness.toml", "--out", "out"])
        .current_dir(dir.path())
        .env("WINEDEBUG", "-all")
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("in use by another run (pid "), "{stderr}");
    assert_eq!(first.wait().unwrap().code(), Some(0));
    assert!(!dir.path().join("out/.lock.holder").exists());
}
