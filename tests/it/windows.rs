//! Windows behaviour through the real binary, with cmd as the shell: a
//! timeout terminates the case's whole Job Object, detached children
//! included; Ctrl-Break interrupts a run like SIGINT does on Unix.
#![cfg(windows)]

use crate::common;

use std::os::windows::process::CommandExt;
use std::time::{Duration, Instant};

use common::{Project, processes_matching, text};
use windows_sys::Win32::System::Console::{CTRL_BREAK_EVENT, GenerateConsoleCtrlEvent};
use windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP;

#[test]
fn the_process_check_sees_a_live_process() {
    // Guards the "nothing left behind" assertions against passing because
    // the check cannot see processes at all.
    let count = 100_000 + std::process::id();
    let marker = format!("ping -n {count} 127.0.0.1");
    let mut child = std::process::Command::new("ping")
        .args(["-n", &count.to_string(), "127.0.0.1"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let seen = processes_matching(&marker).len();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(seen, 1, "a live `{marker}` was not seen");
    assert!(processes_matching(&marker).is_empty());
}

#[test]
fn a_timeout_terminates_the_whole_job() {
    let p = Project::new(
        r#"
[harness]
shell = ["cmd", "/C"]
[[verify]]
name = "hangs"
command = "start /b ping -n 1021 127.0.0.1 > nul & ping -n 1022 127.0.0.1 > nul"
timeout = "2s"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-hangs");
    assert_eq!(ev["execution_status"], "ABORTED", "{ev}");
    for marker in ["ping -n 1021 127.0.0.1", "ping -n 1022 127.0.0.1"] {
        let left = processes_matching(marker);
        assert!(left.is_empty(), "{marker} outlived the case: {left:?}");
    }
}

#[test]
fn a_detached_child_does_not_hold_the_case_open() {
    let p = Project::new(
        r#"
[harness]
shell = ["cmd", "/C"]
[[verify]]
name = "leaks"
command = "start /b ping -n 1024 127.0.0.1 & echo hi"
timeout = "60s"
"#,
    );
    let start = Instant::now();
    let o = p.run(&[]);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the case waited for its child"
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(processes_matching("ping -n 1024 127.0.0.1").is_empty());
    let ev = p.evidence("001-leaks");
    let warned = ev["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("leaked"));
    assert!(warned, "{ev}");
}

#[test]
fn ctrl_break_kills_the_running_case_and_skips_the_rest() {
    let p = Project::new(
        r#"
[harness]
shell = ["cmd", "/C"]
[[verify]]
name = "first"
command = "echo fine"
[[verify]]
name = "long"
command = "echo started& ping -n 1025 127.0.0.1 > nul"
[[verify]]
name = "never"
command = "echo never"
"#,
    );
    // A process group of its own, so the Ctrl-Break reaches only the harness.
    let mut child = p
        .cmd(&[])
        .creation_flags(CREATE_NEW_PROCESS_GROUP)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    p.wait_for_output("002-long", "started");
    // SAFETY: a console event to the group of our own child.
    let sent = unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, child.id()) };
    if sent == 0 {
        let _ = child.kill();
        panic!(
            "GenerateConsoleCtrlEvent: {}",
            std::io::Error::last_os_error()
        );
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3));
    assert!(processes_matching("ping -n 1025 127.0.0.1").is_empty());
    let summary = p.summary();
    let cases = summary["cases"].as_array().unwrap();
    assert_eq!(cases[0]["result"], "PASSED");
    assert_eq!(cases[1]["execution_status"], "ABORTED");
    assert_eq!(cases[2]["result"], "SKIPPED");
}
