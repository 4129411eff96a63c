//! Containment and durability (docs/guarantees.md, Guarantees) through the
//! real binary: nothing of a case outlives it, a dying harness does not free
//! its cases, isolation is exact and bounded, one run per out dir, no stale
//! verdict, every number bounded.
//!
//! Each test finds its own processes by a marker it sets in the case's
//! environment (`CG_TEST_MARK`), through /proc.
#![cfg(target_os = "linux")]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Project, issue_message, signal, survivors_with_env, text, unique, verify_evidence};

const MARK: &str = "CG_TEST_MARK";

fn warnings(ev: &serde_json::Value) -> String {
    ev["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn no_survivors(mark: &str) {
    let left = survivors_with_env(MARK, mark);
    assert!(left.is_empty(), "case processes survived: {left:?}");
}

// 1. A main process that leaves its process group is still timed out, and
//    the harness still answers SIGTERM.

#[test]
fn a_main_process_that_leaves_its_group_is_still_timed_out() {
    let mark = unique("leaves-group");
    let p = Project::new(&format!(
        r#"
[harness]
kill_grace = "500ms"
[[verify]]
name = "leaves"
command = "exec perl -e 'setpgrp(0, getpgrp(getppid())) or die; sleep 600'"
timeout = "1s"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-leaves");
    assert_eq!(ev["execution_status"], "ABORTED", "{ev}");
    // Killed by the timeout's SIGTERM, not run to its end.
    assert_eq!(ev["exit_code"], 128 + 15, "{ev}");
    no_survivors(&mark);
}

#[test]
fn sigterm_to_the_harness_ends_a_case_that_left_its_group() {
    let mark = unique("leaves-term");
    let p = Project::new(&format!(
        r#"
[[verify]]
name = "leaves"
command = "echo started; exec perl -e 'setpgrp(0, getpgrp(getppid())) or die; sleep 600'"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    let mut child = p.cmd(&[]).stderr(Stdio::null()).spawn().unwrap();
    p.wait_for_output("001-leaves", "started");
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, libc::SIGTERM);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(3));
    assert_eq!(p.summary()["cases"][0]["execution_status"], "ABORTED");
    no_survivors(&mark);
}

// 2. Escapes (setsid, double fork, a cleared environment) are killed when
//    the case ends, and named.

#[test]
fn processes_that_escape_the_group_are_killed_and_named() {
    let mark = unique("escapes");
    let argv_mark = format!("1012.{}", std::process::id());
    let p = Project::new(&format!(
        r#"
[[verify]]
name = "escapes"
command = "setsid sleep 1011 >/dev/null 2>&1 & (setsid sleep 1011.5 >/dev/null 2>&1 &); setsid env -i sleep {argv_mark} >/dev/null 2>&1 & echo ok"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let ev = p.evidence("001-escapes");
    assert_eq!(ev["result"], "PASSED", "{ev}");
    let w = warnings(&ev);
    assert!(w.contains("processes left running were killed"), "{w}");
    // Named by their command line; one caught before its `exec` still
    // shows the `setsid …` that was starting it.
    for name in ["sleep 1011", "sleep 1011.5", &format!("sleep {argv_mark}")] {
        assert!(w.contains(&format!("{name})")), "{name} not named: {w}");
    }
    assert!(w.contains("pid "), "{w}");
    no_survivors(&mark);
    // The one with a cleared environment is found by its command line.
    assert!(common::processes_matching(&format!("sleep {argv_mark}")).is_empty());
}

#[test]
fn with_jobs_each_case_sweeps_only_its_own_escapes() {
    let mark = unique("jobs");
    let p = Project::new(&format!(
        r#"
[harness]
jobs = 2
[[verify]]
name = "escapes"
command = "setsid sleep 1011.75 >/dev/null 2>&1 & echo a"
env = {{ {MARK} = "{mark}" }}
[[verify]]
name = "keeps running"
command = "(setsid sh -c 'sleep 0.5; echo child-done' &); sleep 1; echo b"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first = p.evidence("001-escapes");
    assert!(warnings(&first).contains("sleep 1011.75"), "{first}");
    assert!(!warnings(&first).contains("sleep 0.5"), "{first}");
    // The second case's orphan (already the harness's child, carrying the
    // second case's token) lived on while the first case ended.
    let log = std::fs::read_to_string(p.case_dir("002-keeps_running").join("stdout.log")).unwrap();
    assert!(log.contains("child-done"), "{log}");
    no_survivors(&mark);
}

#[test]
fn an_escaped_writer_cannot_modify_the_project_after_the_check() {
    let mark = unique("escaped-writer");
    let p = Project::new(&format!(
        r#"
[harness]
leak_wait = "200ms"
[[golden]]
name = "writer"
path = "golden/p"
command = "setsid sh -c 'sleep 1; echo x >> data.txt' & echo ok"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    let data = p.write("golden/p/data.txt", "data\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    no_survivors(&mark);
    // Past the moment the writer would have written.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "data\n");
    let w = warnings(&p.evidence("001-writer"));
    assert!(w.contains("sleep 1; echo x >> data.txt"), "{w}");
}

/// A process that hops through fresh pids: in a session of its own, it
/// forks and its parent exits, again and again (a fresh pid every
/// fraction of a millisecond), writing its pid to the file it is given
/// before each hop. A look through /proc for its token misses it (the
/// pid it lists is gone when its environment is read): whether the file
/// still grows is what tells that it lives.
const HOPPER: &str = r#"open(my $m, ">>", shift) or die; $m->autoflush(1);
while (1) { print $m "$$\n"; select(undef, undef, undef, 0.0003); fork and exit; }
"#;

/// Whether `file` still grows: its size now and a while later differ.
fn grows(file: &Path) -> bool {
    let size = || std::fs::metadata(file).map_or(0, |m| m.len());
    let before = size();
    std::thread::sleep(Duration::from_millis(300));
    size() != before
}

#[test]
fn a_process_hopping_through_fresh_pids_never_outlives_its_case() {
    let mark = unique("hopper");
    let p = Project::new(&format!(
        r#"
[harness]
leak_wait = "100ms"
[[verify]]
name = "hops"
command = "setsid perl hop.pl hops.log >/dev/null 2>&1 & sleep 0.1; echo started"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    p.write("hop.pl", HOPPER);
    let marker = p.path().join("hops.log");
    let load_mark = unique("load");
    let mut escaped = Vec::new();
    // Quiet first, then with every core kept busy by twice as many busy
    // loops as there are cores: the escape showed mostly under load.
    for run in 0..24 {
        let loaded = run >= 8;
        let load = loaded.then(|| common::Load::start(2, MARK, &load_mark));
        let o = p.run(&[]);
        let left = survivors_with_env(MARK, &mark);
        let growing = grows(&marker);
        drop(load);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        // Killed when its case ended, not later (by the sweep at the end
        // of the run, or never): named on the case.
        let w = warnings(&p.evidence("001-hops"));
        let at_case_end =
            w.contains("processes left running were killed") && w.contains("perl hop.pl");
        if !left.is_empty() || growing || !at_case_end {
            escaped.push(format!(
                "run {run}{}: left running {left:?}, hops.log growing: {growing}, killed when the case ended: {at_case_end}; {}",
                if loaded { " (loaded)" } else { "" },
                String::from_utf8_lossy(&o.stderr).lines().filter(|l| l.contains("killed")).collect::<Vec<_>>().join(" / ")
            ));
            common::kill_with_env(MARK, &mark);
        }
    }
    assert!(
        escaped.is_empty(),
        "the hopper outlived its case in {} of 24 runs:\n{}",
        escaped.len(),
        escaped.join("\n")
    );
    assert!(survivors_with_env(MARK, &load_mark).is_empty());
}

// 3. The harness dying does not free the case.

fn harness_dies_by(sig: i32) -> (Project, String, std::process::ExitStatus) {
    let mark = unique("dies");
    let p = Project::new(&format!(
        r#"
[[verify]]
name = "long"
command = "sleep 1013 & setsid sleep 1013.25 >/dev/null 2>&1 & echo started; sleep 1013.5"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    let mut child = p
        .cmd(&[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    p.wait_for_output("001-long", "started");
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, sig);
    let status = child.wait().unwrap();
    (p, mark, status)
}

#[test]
fn a_sigkilled_harness_takes_its_cases_with_it() {
    let (_p, mark, status) = harness_dies_by(libc::SIGKILL);
    assert_eq!(status.code(), None);
    no_survivors(&mark);
}

#[test]
fn without_a_guardian_the_main_process_dies_with_the_harness() {
    let mark = unique("pdeathsig");
    let p = Project::new(&format!(
        r#"
[[verify]]
name = "long"
command = "echo started; exec sleep 1013.75"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    let mut child = p
        .cmd(&[])
        .env("CARGO_GOLDEN_GUARDIAN", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    p.wait_for_output("001-long", "started");
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    // The parent-death signal: no guardian is there to sweep.
    no_survivors(&mark);
}

#[test]
fn sighup_and_sigusr1_are_interrupts() {
    for sig in [libc::SIGHUP, libc::SIGUSR1] {
        let (p, mark, status) = harness_dies_by(sig);
        assert_eq!(status.code(), Some(3), "signal {sig}");
        no_survivors(&mark);
        let case = &p.summary()["cases"][0];
        assert_eq!(case["execution_status"], "ABORTED", "signal {sig}: {case}");
    }
}

// 4. `copy` runs in the copy whatever `working_dir` spells.

#[test]
fn copy_runs_in_the_copy_when_working_dir_climbs_or_is_a_symlink() {
    let p = Project::new("");
    let data = p.write("golden/proj/data.txt", "a\n");
    std::os::unix::fs::symlink(p.path().join("golden/proj"), p.path().join("link")).unwrap();
    p.write(
        "h/harness.toml",
        r#"
[[golden]]
name = "dotdot"
path = "../golden/proj"
working_dir = "../golden/proj"
command = "echo changed >> data.txt && pwd"
isolation = "copy"

[[golden]]
name = "symlink"
path = "../golden/proj"
working_dir = "../link"
command = "echo changed >> data.txt && pwd"
isolation = "copy"
"#,
    );
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(p.path().join("h"))
        .args(["--config", "harness.toml", "--out"])
        .arg(p.out())
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "a\n");
    for slug in ["001-dotdot", "002-symlink"] {
        let ran_in = std::fs::read_to_string(p.case_dir(slug).join("stdout.log")).unwrap();
        let ran_in = Path::new(ran_in.trim());
        assert!(
            !ran_in.starts_with(p.path()),
            "{slug} ran in the original: {}",
            ran_in.display()
        );
    }
}

#[test]
fn copy_repoints_a_link_into_the_project_at_the_copy() {
    let p = Project::new(
        r#"
[[golden]]
name = "through"
path = "golden/p"
command = "echo x > out; echo y > sub/link/in.txt; cat out"
isolation = "copy"
"#,
    );
    let data = p.write("golden/p/data.csv", "a,b\n");
    let inner = p.write("golden/p/dir/in.txt", "1\n");
    let root = p.path().join("golden/p");
    std::os::unix::fs::symlink(&data, root.join("out")).unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::os::unix::fs::symlink(root.join("dir"), root.join("sub/link")).unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "a,b\n");
    assert_eq!(std::fs::read_to_string(&inner).unwrap(), "1\n");
    let ev = p.evidence("001-through");
    assert_eq!(ev["result"], "PASSED", "{ev}");
    // The copy's own data.csv got the write.
    assert_eq!(ev["stdout"], "x\n", "{ev}");
}

#[test]
fn copy_copies_a_linked_file_outside_and_refuses_a_linked_dir_outside() {
    let p = Project::new(
        r#"
[[golden]]
name = "file"
path = "golden/p"
command = "echo x > shared.txt"
isolation = "copy"

[[golden]]
name = "dir"
path = "golden/q"
command = "echo x > shared/f.txt"
isolation = "copy"
"#,
    );
    let shared = p.write("elsewhere/shared.txt", "kept\n");
    let outside = p.path().join("elsewhere");
    p.write("golden/p/config.yaml", "x: 1\n");
    p.write("golden/q/config.yaml", "x: 1\n");
    std::os::unix::fs::symlink(&shared, p.path().join("golden/p/shared.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, p.path().join("golden/q/shared")).unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), "kept\n");
    assert!(!outside.join("f.txt").exists(), "written through the link");
    let ev = p.evidence("001-file");
    assert_eq!(ev["result"], "PASSED", "{ev}");
    assert!(
        warnings(&ev).contains("symlink shared.txt points outside the project"),
        "{ev}"
    );
    let ev = p.evidence("002-dir");
    assert_eq!(ev["result"], "ERROR", "{ev}");
    let message = ev["issues"][0]["message"].as_str().unwrap();
    for part in [
        "symlink shared points to the directory",
        &*outside.to_string_lossy(),
        "isolation = \"check\"",
    ] {
        assert!(message.contains(part), "{part:?} not in: {message}");
    }
}

#[test]
fn copy_fails_a_case_that_changes_the_original_by_its_absolute_path() {
    let p = Project::new("");
    let data = p.write("golden/p/data.csv", "a,b\n");
    p.write(
        "harness.toml",
        &format!(
            "[[golden]]\nname = \"absolute\"\npath = \"golden/p\"\nisolation = \"copy\"\ncommand = \"echo x >> '{}'\"\n",
            data.display()
        ),
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-absolute");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let message = issue_message(&ev, "GOLDEN_MODIFIED");
    assert!(message.contains("data.csv (content)"), "{message}");
}

// 5. `copy` never blocks on special files and is removed even on a second
//    Ctrl-C.

#[test]
fn copy_recreates_fifos_and_leaves_out_sockets() {
    let p = Project::new(
        r#"
[[golden]]
name = "special"
path = "golden/p"
command = "test -p pipe && ! test -e sock && test -f data.txt && echo ok"
isolation = "copy"
timeout = "30s"
"#,
    );
    p.write("golden/p/data.txt", "a\n");
    let st = Command::new("mkfifo")
        .arg(p.path().join("golden/p/pipe"))
        .status()
        .unwrap();
    assert!(st.success());
    let _sock = std::os::unix::net::UnixListener::bind(p.path().join("golden/p/sock")).unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let ev = p.evidence("001-special");
    assert_eq!(ev["result"], "PASSED", "{ev}");
    let w = warnings(&ev);
    assert!(w.contains("FIFO pipe recreated empty"), "{w}");
    assert!(w.contains("socket sock left out"), "{w}");
}

#[test]
fn a_second_sigint_removes_the_temporary_copy() {
    let p = Project::new(
        r#"
[harness]
kill_grace = "60s"
[[golden]]
name = "stubborn"
path = "golden/p"
command = "trap '' TERM INT; pwd; while :; do sleep 1014.5; done"
isolation = "copy"
"#,
    );
    p.write("golden/p/data.txt", "a\n");
    let mut child = p.cmd(&[]).stderr(Stdio::null()).spawn().unwrap();
    p.wait_for_output("001-stubborn", "/");
    let copy = std::fs::read_dir(p.out().join("artifacts"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join("execution/001-stubborn/stdout.log");
    let copy = std::fs::read_to_string(copy).unwrap();
    let copy = Path::new(copy.trim());
    assert!(copy.is_dir(), "{}", copy.display());
    signal(&child, libc::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, libc::SIGINT);
    assert_eq!(child.wait().unwrap().code(), Some(3));
    assert!(
        !copy.exists(),
        "the copy {} was left behind",
        copy.display()
    );
    assert!(common::processes_matching("sleep 1014.5").is_empty());
}

#[test]
fn copy_of_a_config_file_project_copies_its_directory_and_runs_the_files_copy() {
    // The project is declared by its config file; the command reads its
    // data relative to the config, as a pipeline tool does.
    let p = Project::new(
        r#"
[[golden]]
name = "by_file"
path = "golden/sales/cfg.yaml"
command = "cd \"$(dirname {path})\" && test -f cfg.yaml && cat data/in.csv > out.csv && cat out.csv && echo {path}"
isolation = "copy"

[[golden]]
name = "by_root"
path = "golden/sales/conf/cfg.yaml"
root = "golden/sales"
command = "cat data/in.csv > out.csv && cat {path} && pwd"
isolation = "copy"
"#,
    );
    p.write("golden/sales/cfg.yaml", "pipeline: sales\n");
    p.write("golden/sales/conf/cfg.yaml", "pipeline: nested\n");
    p.write("golden/sales/data/in.csv", "region,amount\nnorth,3\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stdout = std::fs::read_to_string(p.case_dir("001-by_file").join("stdout.log")).unwrap();
    assert!(stdout.starts_with("region,amount\nnorth,3\n"), "{stdout}");
    let ran = stdout.lines().last().unwrap();
    assert!(ran.ends_with("/sales/cfg.yaml"), "{stdout}");
    assert!(
        !Path::new(ran).starts_with(p.path()),
        "ran the original: {ran}"
    );
    // With `root`, the whole root is copied and the case runs in it.
    let stdout = std::fs::read_to_string(p.case_dir("002-by_root").join("stdout.log")).unwrap();
    assert!(stdout.starts_with("pipeline: nested\n"), "{stdout}");
    let ran = stdout.lines().last().unwrap();
    assert!(ran.ends_with("/sales"), "{stdout}");
    assert!(
        !Path::new(ran).starts_with(p.path()),
        "ran in the original: {ran}"
    );
    assert!(!p.path().join("golden/sales/out.csv").exists());
    let mut names: Vec<_> = std::fs::read_dir(p.path().join("golden/sales"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["cfg.yaml", "conf", "data"]);
}

#[test]
fn a_root_that_does_not_contain_the_path_is_a_config_error_at_its_line() {
    let p = Project::new(
        r#"
[[golden]]
name = "astray"
path = "golden/a/cfg.yaml"
root = "golden/b"
command = "true"
"#,
    );
    p.write("golden/a/cfg.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("harness.toml:5:"), "{err}");
    assert!(err.contains("`root`"), "{err}");
}

#[test]
fn check_of_a_config_file_project_sees_its_directory_and_summarises_a_catalog() {
    // A tool that writes its catalog beside the config: the issue names
    // the catalog and a count, evidence.json every file.
    let p = Project::new(
        r#"
[[golden]]
isolation = "check"
name = "catalog"
path = "golden/p/cfg.yaml"
command = "mkdir .catalog && for i in $(seq 1 150); do echo $i > .catalog/part-$i.json; done; echo x > out.csv"
"#,
    );
    p.write("golden/p/cfg.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-catalog");
    let issue = issue_message(&ev, "GOLDEN_MODIFIED");
    assert!(issue.contains(".catalog/ (150)"), "{issue}");
    assert!(issue.contains("out.csv"), "{issue}");
    assert!(
        issue.chars().count() <= 400,
        "{} chars: {issue}",
        issue.len()
    );
    let added = ev["golden_changes"]["added"].as_array().unwrap();
    assert_eq!(added.len(), 152, "{added:?}");
    for i in 1..=150 {
        let name = format!(".catalog/part-{i}.json");
        assert!(added.iter().any(|a| *a == *name), "{name} not listed");
    }
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    // The list is under SHA256SUMS: editing it is seen.
    let file = p.case_dir("001-catalog").join("evidence.json");
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace(".catalog/part-7.json", ".catalog/part-x.json");
    std::fs::write(&file, edited).unwrap();
    let v = verify_evidence(&p.out());
    assert_ne!(v.status.code(), Some(0), "{}", text(&v));
}

// 6. `check` sees modes, kinds, symlink targets and empty directories,
//    prunes ignored directories, never counts the out dir, and its work
//    counts towards the timeout.

#[test]
fn check_sees_modes_kinds_links_and_empty_dirs_naming_each() {
    let p = Project::new(
        r#"
[[golden]]
isolation = "check"
name = "subtle"
path = "golden/p"
command = "chmod 000 f; chmod +x run.sh; mkdir empty; mkfifo p; ln -sfn b link; rm swap; mkfifo swap"
"#,
    );
    p.write("golden/p/f", "x");
    p.write("golden/p/run.sh", "echo hi");
    p.write("golden/p/swap", "was a file");
    std::os::unix::fs::symlink("a", p.path().join("golden/p/link")).unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-subtle");
    let issue = issue_message(&ev, "GOLDEN_MODIFIED");
    for part in [
        "f (mode 644 → 0)",
        "run.sh (mode 644 → 755)",
        "empty/",
        "p",
        "link (target)",
        "swap (file → FIFO)",
    ] {
        assert!(issue.contains(part), "{part:?} not in: {issue}");
    }
}

#[test]
fn a_retry_never_washes_out_a_modified_project() {
    // The first attempt creates .cache and fails; a second attempt would
    // find it and pass.
    let p = Project::new(
        r#"
[[golden]]
isolation = "check"
name = "caches"
path = "golden/p"
command = "test -d .cache && exit 0; mkdir .cache; exit 1"
retries = 1
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-caches");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    assert_eq!(ev["flaky"], false, "{ev}");
    assert!(
        issue_message(&ev, "GOLDEN_MODIFIED").contains(".cache/"),
        "{ev}"
    );
    // No second attempt ran: the first one's change is never retried away.
    assert!(
        ev["previous_attempts"]
            .as_array()
            .is_none_or(|a| a.is_empty()),
        "{ev}"
    );
    let status = p.summary()["final_status"].as_str().unwrap().to_string();
    assert!(!status.starts_with("SUCCESS"), "{status}");
}

#[cfg(unix)]
#[test]
fn check_tells_apart_names_that_are_not_utf8_and_shows_them_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let p = Project::new(
        r#"
[[golden]]
isolation = "check"
name = "bytes"
path = "golden/p"
command = "rm \"$(printf 'x\\376')\""
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    // Same content: a lossy key would see one entry, before and after.
    for b in [0xfe, 0xff] {
        let name = [b'x', b];
        let file = p
            .path()
            .join("golden/p")
            .join(std::ffi::OsStr::from_bytes(&name));
        std::fs::write(file, "same").unwrap();
    }
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-bytes");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    let message = issue_message(&ev, "GOLDEN_MODIFIED");
    assert!(message.contains(r"removed: x\xfe"), "{message}");
    assert!(!message.contains(r"x\xff"), "{message}");
}

/// `git ARGS` in `dir`, which must succeed.
fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", text(&o));
}

fn has_git() -> bool {
    let found = Command::new("git").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: git is not installed");
    }
    found
}

#[test]
fn a_golden_project_left_dirty_does_not_run_until_committed_or_allowed() {
    if !has_git() {
        return;
    }
    let harness = |extra: &str| {
        format!(
            "[[golden]]\nname = \"kept\"\npath = \"golden/p\"\ncommand = \"true\"\nignore = [\"cache/**\"]\n{extra}"
        )
    };
    let p = Project::new(&harness(""));
    p.write("golden/p/config.yaml", "x: 1\n");
    p.write("golden/p/.gitignore", "*.log\n");
    git(p.path(), &["init", "-q"]);
    git(p.path(), &["config", "user.email", "test@example.com"]);
    git(p.path(), &["config", "user.name", "Test"]);
    // A project not committed yet has no committed version to differ
    // from: it runs, and the run says it was not checked.
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(said.contains("has nothing committed yet"), "{said}");
    git(p.path(), &["add", "golden"]);
    git(p.path(), &["commit", "-q", "-m", "golden project"]);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!said.contains("not checked for uncommitted"), "{said}");

    // A stray file fails the next run before it runs; what .gitignore and
    // `ignore` leave out does not.
    p.write("golden/p/stray.txt", "left behind\n");
    p.write("golden/p/build.log", "ignored by git\n");
    p.write("golden/p/cache/x", "ignored by the case\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-kept");
    assert_eq!(ev["result"], "ERROR", "{ev}");
    assert_eq!(ev["status"], "NO_EVIDENCE", "{ev}");
    assert_eq!(ev["execution_status"], "SKIPPED", "{ev}");
    assert_eq!(issue_types(&ev), ["GOLDEN_MODIFIED"], "{ev}");
    let message = issue_message(&ev, "GOLDEN_MODIFIED");
    assert!(message.contains("stray.txt"), "{message}");
    assert!(message.contains("allow_dirty = true"), "{message}");
    assert!(!message.contains("build.log"), "{message}");
    assert!(!message.contains("cache"), "{message}");
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));

    // A modified tracked file too.
    std::fs::remove_file(p.path().join("golden/p/stray.txt")).unwrap();
    p.write("golden/p/config.yaml", "x: 2\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let message = issue_message(&p.evidence("001-kept"), "GOLDEN_MODIFIED");
    assert!(message.contains("config.yaml"), "{message}");

    p.write("harness.toml", &harness("allow_dirty = true\n"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    p.write(
        "harness.toml",
        &format!("[harness]\nallow_dirty = true\n{}", harness("")),
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn outside_git_the_dirty_check_is_skipped_and_said_once() {
    if !has_git() {
        return;
    }
    let p = Project::new(
        "[[golden]]\nname = \"a\"\npath = \"golden/p\"\ncommand = \"true\"\n[[golden]]\nname = \"b\"\npath = \"golden/p\"\ncommand = \"true\"\n",
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let inside = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(p.path())
        .output()
        .unwrap();
    if inside.status.success() {
        eprintln!("skipped: the temporary directory lies in a git work tree");
        return;
    }
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(
        said.matches("not checked for uncommitted changes").count(),
        1,
        "{said}"
    );
    assert!(said.contains("is not in a git work tree"), "{said}");
}

/// A file that takes far longer than any test timeout to hash: 64 GiB of
/// holes, which costs no disk.
fn sparse(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let f = std::fs::File::create(path).unwrap();
    f.set_len(64 << 30).unwrap();
}

#[test]
fn ignored_directories_are_not_entered_and_the_out_dir_never_counts() {
    // The project is the harness's own directory: the out dir lies inside,
    // and the case's own output changes a file in it.
    let p = Project::new(
        r#"
[[golden]]
isolation = "check"
name = "here"
path = "."
command = "echo hi; touch sub/new"
ignore = ["sub/**"]
timeout = "5s"
"#,
    );
    // Reading either would hash 64 GiB: only skipping both passes in 5 s.
    sparse(&p.path().join("sub/huge"));
    sparse(&p.out().join("huge"));
    // A directory that cannot be listed (unless we are root, who can).
    std::fs::create_dir(p.path().join("sub/locked")).unwrap();
    std::fs::set_permissions(
        p.path().join("sub/locked"),
        std::os::unix::fs::PermissionsExt::from_mode(0o000),
    )
    .unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let ev = p.evidence("001-here");
    assert_eq!(ev["result"], "PASSED", "{ev}");
}

/// A directory whose absolute path is `len` bytes long, below `base`.
fn dir_of_length(base: &Path, len: usize) -> std::path::PathBuf {
    let mut dir = base.to_path_buf();
    while dir.as_os_str().len() < len {
        let room = len - dir.as_os_str().len() - 1;
        dir.push("p".repeat(room.clamp(1, 200)));
    }
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(dir.as_os_str().len(), len);
    dir
}

/// `mkdir NAME` run in `dir`: a relative name, so the new directory may
/// lie past PATH_MAX, where nothing can open it by its full path.
fn mkdir_in(dir: &Path, name: &str) {
    let st = Command::new("mkdir")
        .arg(name)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success());
}

/// Run the binary in `dir` on its harness.toml, into the out dir `out`.
fn run_in(dir: &Path, out: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["--config", "harness.toml", "--out", out])
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn only_evidence(dir: &Path, out: &str) -> serde_json::Value {
    let runs = dir.join(out).join("artifacts");
    let run = std::fs::read_dir(runs).unwrap().next().unwrap().unwrap();
    let ev = run.path().join("execution/001-here/evidence.json");
    serde_json::from_slice(&std::fs::read(ev).unwrap()).unwrap()
}

#[test]
fn ignored_directories_and_the_out_dir_are_never_opened_even_by_root() {
    // The project's own path is 3900 bytes long; a directory with a
    // 255-byte name inside it lies past PATH_MAX (4096), so opening it by
    // its full path fails with ENAMETOOLONG whoever we are (chmod 000
    // would not stop root). Entering such a directory is therefore an
    // error, and a run that passes never opened it.
    let long = "c".repeat(255);
    let project = |isolation: &str, ignore: &str| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = dir_of_length(tmp.path(), 3900);
        std::fs::write(
            dir.join("harness.toml"),
            format!(
                "[[golden]]\nname = \"here\"\npath = \".\"\ncommand = \"echo ran\"\nisolation = \"{isolation}\"\nignore = [{ignore}]\n"
            ),
        )
        .unwrap();
        std::fs::write(dir.join("data.csv"), "a,b\n").unwrap();
        // The out dir holds one too, from an earlier run's point of view.
        std::fs::create_dir(dir.join("out")).unwrap();
        mkdir_in(&dir.join("out"), &long);
        (tmp, dir)
    };

    // The controls: a directory that is neither ignored nor the out dir
    // is entered, and entering it fails naming it. Without them the passes
    // below would prove nothing.
    let (_tmp, dir) = project("check", "");
    mkdir_in(&dir, &long);
    let o = run_in(&dir, "out");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = only_evidence(&dir, "out");
    assert_eq!(ev["result"], "ERROR", "{ev}");
    let message = ev["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot read the golden project"),
        "{message}"
    );
    assert!(message.contains(&long), "names the entry: {message}");
    let (_tmp, dir) = project("check", "");
    let o = run_in(&dir, "other-out");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = only_evidence(&dir, "other-out");
    let message = ev["issues"][0]["message"].as_str().unwrap();
    assert!(message.contains(&format!("out/{long}")), "{message}");

    // Ignored under `check`: neither it nor the out dir is opened.
    let (_tmp, dir) = project("check", &format!("\"{long}/**\""));
    mkdir_in(&dir, &long);
    let o = run_in(&dir, "out");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(only_evidence(&dir, "out")["result"], "PASSED");

    // `copy` copies the project (ignore is about what may change, so an
    // ignored directory is copied too) but never the out dir.
    let (_tmp, dir) = project("copy", "");
    let o = run_in(&dir, "out");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let ev = only_evidence(&dir, "out");
    assert_eq!(ev["result"], "PASSED", "{ev}");
    assert_eq!(ev["stdout"], "ran\n", "{ev}");
    assert!(
        !ev["working_dir"]
            .as_str()
            .unwrap()
            .starts_with(dir.to_str().unwrap()),
        "ran in the copy: {ev}"
    );
    // Its control: the same directory outside the out dir is entered, and
    // entering it fails naming it (by the fingerprint of the original,
    // taken under `copy` too before the copy is made).
    let (_tmp, dir) = project("copy", "");
    let o = run_in(&dir, "other-out");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = only_evidence(&dir, "other-out");
    let message = ev["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot read the golden project"),
        "{message}"
    );
    assert!(message.contains(&format!("out/{long}")), "{message}");
}

#[test]
fn a_project_too_big_to_fingerprint_in_time_is_aborted() {
    let p = Project::new(
        r#"
[[golden]]
name = "huge"
path = "golden/p"
command = "touch ran"
timeout = "1s"
"#,
    );
    sparse(&p.path().join("golden/p/huge"));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-huge");
    assert_eq!(ev["execution_status"], "ABORTED", "{ev}");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    assert!(ev["exit_code"].is_null(), "{ev}");
    assert!(warnings(&ev).contains("fingerprinting"), "{ev}");
    assert!(!p.path().join("golden/p/ran").exists(), "the command ran");
    // The evidence says how it ended, and verify-evidence agrees with it.
    assert_eq!(ev["timed_out"], true, "{ev}");
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
}

// 7. One run per out dir.

#[test]
fn a_second_run_into_a_busy_out_dir_exits_2_naming_the_holder() {
    let p = Project::new(
        r#"
[[verify]]
name = "holds"
command = "echo started; while ! test -e release; do sleep 0.05; done"
"#,
    );
    let mut first = p.cmd(&[]).stderr(Stdio::null()).spawn().unwrap();
    p.wait_for_output("001-holds", "started");
    let second = p.run(&[]);
    assert_eq!(second.status.code(), Some(2), "{}", text(&second));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("in use by another run"), "{err}");
    assert!(err.contains(&format!("pid {}", first.id())), "{err}");
    // `clean` does not pull the out dir from under a run either.
    let clean = p.run(&["clean"]);
    assert_eq!(clean.status.code(), Some(2), "{}", text(&clean));
    assert!(
        String::from_utf8_lossy(&clean.stderr).contains("in use by another run"),
        "{}",
        text(&clean)
    );
    // The refused run wrote nothing: one run directory, the first's.
    assert_eq!(
        std::fs::read_dir(p.out().join("artifacts"))
            .unwrap()
            .count(),
        1
    );
    std::fs::write(p.path().join("release"), "").unwrap();
    assert_eq!(first.wait().unwrap().code(), Some(0));
    assert_eq!(p.summary()["final_status"], "SUCCESS");
}

#[test]
fn two_runs_at_once_never_show_one_verdict_under_the_others_exit_code() {
    let p = Project::new("");
    p.write(
        "pass.toml",
        "[harness]\nname = \"pass\"\n[[verify]]\nname = \"ok\"\ncommand = \"true\"\n",
    );
    p.write(
        "fail.toml",
        "[harness]\nname = \"fail\"\n[[verify]]\nname = \"bad\"\ncommand = \"false\"\n",
    );
    let start = |file: &str| {
        Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
            .current_dir(p.path())
            .args(["--config", file, "--out", "out"])
            .env_remove("GITHUB_ACTIONS")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    for trial in 0..10 {
        let (a, b) = (start("pass.toml"), start("fail.toml"));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let codes = [("pass", a.status.code()), ("fail", b.status.code())];
        for (suite, code) in codes {
            assert!(
                matches!(code, Some(0..=2)),
                "trial {trial}: {suite} exited {code:?}"
            );
        }
        let summary = p.summary();
        let suite = summary["suite_name"].as_str().unwrap().to_string();
        let code = codes.iter().find(|(s, _)| *s == suite).unwrap().1;
        let want = if suite == "pass" { Some(0) } else { Some(1) };
        assert_eq!(
            code, want,
            "trial {trial}: {suite}'s verdict, exits {codes:?}"
        );
        let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let junit_suite = doc
            .descendants()
            .find(|n| n.has_tag_name("testsuite"))
            .and_then(|n| n.attribute("name"))
            .unwrap();
        assert_eq!(junit_suite, suite, "trial {trial}: mixed reports");
        for o in [&a, &b] {
            if o.status.code() == Some(2) {
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(err.contains("in use by another run (pid "), "{err}");
            }
        }
    }
}

// 8. No stale verdict.

fn passing_run(p: &Project) {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(p.summary()["final_status"], "SUCCESS");
}

#[test]
fn a_failed_report_write_leaves_no_earlier_success() {
    let p = Project::new(
        r#"
[[verify]]
name = "sabotage"
command = "if test -e armed; then mkdir out/report.md; fi"
"#,
    );
    passing_run(&p);
    std::fs::write(p.path().join("armed"), "").unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("report.md"), "{err}");
    for f in ["junit.xml", "summary.json", "observations.jsonl"] {
        assert!(!p.out().join(f).exists(), "{f} left behind: {err}");
    }
}

#[test]
fn a_report_path_taken_before_the_run_leaves_no_earlier_success() {
    let p = Project::new(
        r#"
[[verify]]
name = "fine"
command = "true"
"#,
    );
    passing_run(&p);
    std::fs::remove_file(p.out().join("report.md")).unwrap();
    std::fs::create_dir(p.out().join("report.md")).unwrap();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("report.md"), "{err}");
    assert!(err.contains("incomplete and were removed"), "{err}");
    for f in ["junit.xml", "summary.json", "observations.jsonl"] {
        assert!(!p.out().join(f).exists(), "{f} left behind: {err}");
    }
}

#[test]
fn a_second_sigint_leaves_no_earlier_success() {
    let p = Project::new(
        r#"
[harness]
kill_grace = "60s"
[[verify]]
name = "stubborn"
command = "if test -e armed; then trap '' TERM; echo started; while :; do sleep 1015.5; done; fi"
"#,
    );
    passing_run(&p);
    std::fs::write(p.path().join("armed"), "").unwrap();
    std::fs::remove_dir_all(p.out().join("artifacts")).unwrap();
    let err_path = p.path().join("harness-stderr.txt");
    let err_file = std::fs::File::create(&err_path).unwrap();
    let mut child = p.cmd(&[]).stderr(err_file).spawn().unwrap();
    p.wait_for_output("001-stubborn", "started");
    signal(&child, libc::SIGINT);
    // The second signal only once the first was taken: two sent close
    // together to a process not scheduled in between arrive as one (the
    // kernel keeps one pending SIGINT), which is a single interrupt.
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(&err_path)
        .unwrap_or_default()
        .contains("press Ctrl-C again")
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the first SIGINT was never acknowledged"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(&child, libc::SIGINT);
    assert_eq!(child.wait().unwrap().code(), Some(3));
    for f in [
        "junit.xml",
        "summary.json",
        "report.md",
        "observations.jsonl",
    ] {
        assert!(
            !p.out().join(f).exists(),
            "{f} left: {}",
            std::fs::read_to_string(&err_path).unwrap_or_default()
        );
    }
}

// 9. Every number is bounded.

#[test]
fn numbers_out_of_range_are_config_errors_with_positions() {
    for (line, want) in [
        (r#"timeout = "18446744073709551615s""#, "too long"),
        (r#"leak_wait = "2y""#, "too long"),
        (r#"kill_grace = "100000000h""#, "too long"),
        ("retries = 4294967295", "at most 100"),
        ("retries = 4294967296", "at most 100"),
        ("jobs = 100000", "at most 1024"),
        ("truncate = 1000000000000", "at most"),
    ] {
        let p = Project::new(&format!(
            "[harness]\n{line}\n[[verify]]\nname = \"x\"\ncommand = \"true\"\n"
        ));
        let o = p.run(&["list"]);
        assert_eq!(o.status.code(), Some(2), "{line}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("harness.toml:2:"), "{line}: {err}");
        assert!(err.contains(want), "{line}: {err}");
    }
    for env in [r#""A=B" = "x""#, r#""A\u0000B" = "x""#, r#"A = "x\u0000y""#] {
        let p = Project::new(&format!(
            "[[verify]]\nname = \"x\"\ncommand = \"true\"\n[verify.env]\n{env}\n"
        ));
        let o = p.run(&["list"]);
        assert_eq!(o.status.code(), Some(2), "{env}: {}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("harness.toml:5:"),
            "{env}: {}",
            text(&o)
        );
    }
    let p = Project::new("[[verify]]\nname = \"x\"\ncommand = \"true\"\n");
    for n in ["4294967295", "101"] {
        let o = p.run(&["--retries", n]);
        assert_eq!(o.status.code(), Some(2), "--retries {n}: {}", text(&o));
        assert!(!p.out().exists(), "--retries {n} ran something");
    }
}

// 10. Smaller: a failing sink still kills and reaps (a main process out of
//     its group too), removes the copy and reports a change to the project;
//     a project that cannot be re-read is an ERROR naming the entry; an
//     unwritable step summary is reported, JUnit text keeps CR-only lines
//     and every byte after an escape.

#[test]
fn a_failing_output_write_still_kills_the_case() {
    let mark = unique("sink");
    let p = Project::new(&format!(
        r#"
[[verify]]
name = "floods"
command = "sleep 1016 & head -c 50000000 /dev/zero; wait"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    // Files are limited to 2 MB and SIGXFSZ ignored: writing stdout.log
    // fails with EFBIG part way.
    let o = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 4096; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["--config", "harness.toml", "--out", "out"])
        .current_dir(p.path())
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-floods");
    assert_eq!(ev["result"], "ERROR", "{ev}");
    assert!(
        ev["issues"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Could not finish: writing the command's output failed"),
        "{ev}"
    );
    no_survivors(&mark);
}

/// Run the binary with files limited to 2 MB and SIGXFSZ ignored, so that
/// writing a log fails with EFBIG part way; temporary copies go to `tmp`.
fn run_with_small_files(p: &Project, tmp: &Path) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 4096; exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["--config", "harness.toml", "--out", "out"])
        .current_dir(p.path())
        .env_remove("GITHUB_ACTIONS")
        .env("TMPDIR", tmp)
        .output()
        .unwrap()
}

fn issue_types(ev: &serde_json::Value) -> Vec<String> {
    ev["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_case_cut_short_by_a_failing_write_leaves_nothing_behind_and_loses_nothing() {
    let mark = unique("sink-iso");
    let p = Project::new(&format!(
        r#"
[[golden]]
name = "copied"
path = "golden/p"
isolation = "copy"
command = "sleep 1018 & head -c 50000000 /dev/zero; wait"
env = {{ {MARK} = "{mark}" }}

[[golden]]
isolation = "check"
name = "checked"
path = "golden/p"
command = "echo changed >> config.yaml; head -c 50000000 /dev/zero >&2"
env = {{ {MARK} = "{mark}" }}

[[verify]]
name = "left its group"
command = "exec perl -e 'setpgrp(0, getpgrp(getppid())) or die; print qq(x) x 50000000; sleep 30'"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    p.write("golden/p/config.yaml", "x: 1\n");
    let tmp = p.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let o = run_with_small_files(&p, &tmp);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    for slug in ["001-copied", "002-checked", "003-left_its_group"] {
        let ev = p.evidence(slug);
        assert_eq!(ev["result"], "ERROR", "{slug}: {ev}");
        assert!(
            ev["issues"][0]["message"]
                .as_str()
                .unwrap()
                .starts_with("Could not finish: writing the command's output failed"),
            "{slug}: {ev}"
        );
    }
    no_survivors(&mark);
    // The temporary copy went with the error.
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    // The change the command made before its write failed is reported.
    let ev = p.evidence("002-checked");
    assert_eq!(
        issue_types(&ev),
        ["EVIDENCE_INCOMPLETE", "GOLDEN_MODIFIED"],
        "{ev}"
    );
    assert!(
        ev["issues"][1]["message"]
            .as_str()
            .unwrap()
            .contains("config.yaml"),
        "{ev}"
    );
    // It ran: not "not run", though the write failed before its exit code
    // was known.
    for slug in ["001-copied", "002-checked", "003-left_its_group"] {
        let ev = p.evidence(slug);
        assert_eq!(ev["execution_status"], "RUNTIME_FAILED", "{slug}: {ev}");
        assert_eq!(ev["status"], "NO_EVIDENCE", "{slug}: {ev}");
    }
    // The evidence covers what the logs hold, so it verifies.
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("did not run"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_project_that_cannot_be_re_read_after_the_run_is_an_error_naming_the_entry() {
    let mark = unique("reread");
    // The command nests directories past PATH_MAX, through relative
    // names: the check after the run cannot name the deepest (root too).
    let p = Project::new(&format!(
        r#"
[[golden]]
isolation = "check"
name = "nests"
path = "golden/p"
command = "sleep 1019 & perl -e 'for (1..20) {{ mkdir(q(d) x 250) or die; chdir(q(d) x 250) or die }}'; echo nested"
env = {{ {MARK} = "{mark}" }}
"#
    ));
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-nests");
    assert_eq!(ev["result"], "ERROR", "{ev}");
    let message = ev["issues"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("cannot re-read the golden project"),
        "{message}"
    );
    assert!(
        message.contains(&"d".repeat(250)),
        "names the entry: {message}"
    );
    assert!(
        !message.contains("IO error for operation"),
        "names it once: {message}"
    );
    assert!(!ev["evidence_hash"].is_null(), "the command ran: {ev}");
    // It ran to exit code 0 and could not be finished: not "not run".
    assert_eq!(ev["issues"][0]["type"], "EVIDENCE_INCOMPLETE", "{ev}");
    assert!(message.starts_with("Could not finish: "), "{message}");
    assert_eq!(ev["execution_status"], "RUNTIME_FAILED", "{ev}");
    assert_eq!(ev["status"], "SUCCESS", "{ev}");
    assert_eq!(ev["exit_code"], 0, "{ev}");
    no_survivors(&mark);
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let said = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(said.contains("verified     nests (ERROR"), "{said}");
    assert!(!said.contains("did not run"), "{said}");
    // verify-evidence still re-judges it: each forgery is a finding.
    let path = p.case_dir("001-nests").join("evidence.json");
    let original = std::fs::read(&path).unwrap();
    type Forgery = (&'static str, fn(&mut serde_json::Value));
    let forgeries: [Forgery; 3] = [
        (
            "result is PASSED, but execution status RUNTIME_FAILED fails `success`",
            |v| {
                v["result"] = "PASSED".into();
                v["issues"] = serde_json::Value::Array(Vec::new());
            },
        ),
        (
            "result is FAILED, but a case that ran and could not be finished is ERROR",
            |v| v["result"] = "FAILED".into(),
        ),
        (
            "status is NO_EVIDENCE, but the exit code 0 calls for SUCCESS",
            |v| v["status"] = "NO_EVIDENCE".into(),
        ),
    ];
    for (finding, forge) in forgeries {
        let mut v: serde_json::Value = serde_json::from_slice(&original).unwrap();
        forge(&mut v);
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
        let o = verify_evidence(&p.out());
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains(finding),
            "{finding}\n{}",
            text(&o)
        );
    }
}

#[test]
fn a_project_the_command_removed_is_modified_not_unreadable() {
    let p = Project::new(
        r#"
[[golden]]
isolation = "check"
name = "removes"
path = "golden/p"
command = "cd .. && rm -rf p && echo gone"
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let ev = p.evidence("001-removes");
    assert_eq!(ev["result"], "FAILED", "{ev}");
    assert_eq!(issue_types(&ev), ["GOLDEN_MODIFIED"], "{ev}");
    assert!(
        issue_message(&ev, "GOLDEN_MODIFIED").contains("the golden project was removed"),
        "{ev}"
    );
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn an_unwritable_step_summary_is_reported() {
    let p = Project::new(
        r#"
[[verify]]
name = "fine"
command = "true"
"#,
    );
    let o = p
        .cmd(&[])
        .env("GITHUB_ACTIONS", "true")
        .env(
            "GITHUB_STEP_SUMMARY",
            p.path().join("no/such/dir/summary.md"),
        )
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot write the step summary"),
        "{}",
        text(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("::warning "),
        "{}",
        text(&o)
    );
}

#[test]
fn junit_keeps_cr_only_lines_and_the_byte_after_an_escape() {
    let p = Project::new(
        r#"
[[verify]]
name = "odd bytes"
command = "printf 'a\\rb\\n\\033\\177xy\\n'"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let out = doc
        .descendants()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap_or_else(|| panic!("no system-out: {xml}"));
    assert!(out.contains("a\nb"), "{out:?}");
    assert!(out.contains("xy"), "{out:?}");
}

// A case that removes the out dir (`cargo clean`, `rm -rf target`) or
// another case's evidence: the run notices and exits non-zero naming what
// was lost, and writes no report that its evidence no longer backs.

#[test]
fn a_case_that_removes_the_out_dir_fails_the_run_naming_what_was_lost() {
    let p = Project::new(
        r#"
[harness]
name = "cleaner"

[[verify]]
name = "first"
command = "echo one"

[[verify]]
name = "cargo clean"
command = "rm -rf out"

[[verify]]
name = "third"
command = "echo three"
"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("evidence was lost while it ran"), "{t}");
    assert!(t.contains(".lock was removed while the run held it"), "{t}");
    assert!(t.contains("001-first/stdout.log"), "{t}");
    assert!(!p.out().join("report.md").exists(), "{t}");
    assert!(!p.out().join("summary.json").exists(), "{t}");
}

/// A project whose second case removes the first case's stdout.log.
fn forger() -> Project {
    Project::new(
        r#"
[harness]
name = "forger"

[[verify]]
name = "first"
command = "echo one"

[[verify]]
name = "second"
command = "rm out/artifacts/*/execution/001-first/stdout.log"
"#,
    )
}

#[test]
fn a_case_that_removes_another_cases_log_fails_the_run_naming_it() {
    let p = forger();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("1 artifact file(s) removed while the run ran")
            && t.contains("001-first/stdout.log"),
        "{t}"
    );
}

#[test]
fn a_run_whose_reports_were_not_written_lists_none_of_them() {
    let p = forger();
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("Exit code 4"), "{t}");
    assert!(!p.out().join("junit.xml").exists(), "{t}");
    let listed: Vec<&str> = t
        .lines()
        .filter(|l| l.trim_start().starts_with("Report "))
        .collect();
    assert!(
        listed.is_empty(),
        "lists reports it did not write: {listed:?}\n{t}"
    );
}

#[test]
fn a_second_run_started_after_the_out_dir_was_removed_is_noticed() {
    let p = Project::new("");
    p.write(
        "inner.toml",
        "[harness]\nname = \"inner\"\n[[verify]]\nname = \"inner case\"\ncommand = \"true\"\n",
    );
    let bin = env!("CARGO_BIN_EXE_cargo-golden");
    // The case deletes the out dir, then a second run takes it.
    std::fs::write(
        p.path().join("harness.toml"),
        format!(
            "[harness]\nname = \"outer\"\n[[verify]]\nname = \"steals\"\ncommand = \"rm -rf out && '{bin}' run --config inner.toml --out out >/dev/null 2>&1; echo inner exit $?\"\n"
        ),
    )
    .unwrap();
    let o = p.run(&[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(4), "{t}");
    assert!(
        t.contains(".lock was replaced while the run held it"),
        "{t}"
    );
    // The reports in the out dir are the second run's, untouched.
    let summary = p.summary();
    assert_eq!(summary["suite_name"], "inner", "{summary}");
}

// A case sees what a plain shell would give it: the same signal mask,
// ignored signals, file descriptors beyond 0-2, limits, umask, stdin and
// session. What differs is chosen and documented: its own process group,
// the case token, the signing key variables removed.

const PROBE: &str = r#"grep -E '^(SigBlk|SigIgn)' /proc/self/status
echo "fds: $(ls /proc/self/fd | sort -n | tr '\n' ' ')"
for f in /proc/self/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && echo "fd $n -> $(readlink "$f" | sed 's/:\[.*//')"; done
echo "limits: $(ulimit -a | tr -s ' ' | tr '\n' ';')"
echo "umask: $(umask)"
echo "stdin: $(readlink /proc/self/fd/0)"
echo "session: $(ps -o sid= -p $$)"
"#;

#[test]
fn a_case_sees_what_a_plain_shell_would_give_it() {
    // Once the guardian has said it works, cases are started by
    // posix_spawn: the probe runs after a case long enough for that.
    case_matches_a_plain_shell(None);
}

#[test]
fn a_case_started_by_fork_sees_what_a_plain_shell_would_give_it_too() {
    // Without it, by fork, for the parent-death signal.
    case_matches_a_plain_shell(Some("off"));
}

/// The parent-death signal a case's process was started with: 9 when it
/// was started by fork (no guardian yet), 0 by posix_spawn.
const PDEATHSIG: &str = "python3 -c 'import ctypes; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); print(s.value)'";

fn case_matches_a_plain_shell(guardian: Option<&str>) {
    // The python line holds no double quote or backslash: it goes into a
    // TOML basic string as it is.
    let p = Project::new(&format!(
        "[harness]\nname = \"probe\"\n[[verify]]\nname = \"wait\"\ncommand = \"sleep 1\"\n[[verify]]\nname = \"probe\"\ncommand = \"sh probe.sh\"\n[[verify]]\nname = \"how\"\ncommand = \"exec {PDEATHSIG}\"\n"
    ));
    p.write("probe.sh", PROBE);
    let mut cmd = p.cmd(&[]);
    match guardian {
        Some(v) => cmd.env("CARGO_GOLDEN_GUARDIAN", v),
        None => cmd.env_remove("CARGO_GOLDEN_GUARDIAN"),
    };
    let o = cmd.output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let how = std::fs::read_to_string(p.case_dir("003-how").join("stdout.log")).unwrap();
    let by_fork = if guardian.is_some() { "9" } else { "0" };
    assert_eq!(how.trim(), by_fork, "the parent-death signal the cases got");
    let case = std::fs::read_to_string(p.case_dir("002-probe").join("stdout.log")).unwrap();

    // The same probe from a plain shell, started from this process the way
    // a terminal-less shell starts a command (fork and exec, signals as a
    // shell leaves them).
    let mut plain = Command::new("sh");
    plain
        .args(["-c", "sh probe.sh"])
        .current_dir(p.path())
        .stdin(Stdio::null());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        use std::os::unix::process::CommandExt;
        plain.pre_exec(|| {
            // A shell never has glibc's internal signals ignored; this
            // test binary may (its own parent may have spawned it with
            // posix_spawn).
            // glibc's `signal` refuses them: the system call itself.
            let zero = [0u64; 4];
            for sig in [32, 33] {
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    sig,
                    zero.as_ptr(),
                    std::ptr::null_mut::<u64>(),
                    8usize,
                );
            }
            Ok(())
        });
    }
    let plain = plain.output().unwrap();
    let plain = String::from_utf8_lossy(&plain.stdout);
    // The harness was started with its output on pipes, the plain shell
    // too: compare line by line, session aside (the harness is in this
    // test's session, like the plain shell).
    for (a, b) in case.lines().zip(plain.lines()) {
        assert_eq!(a, b, "case:\n{case}\nplain shell:\n{plain}");
    }
    assert_eq!(
        case.lines().count(),
        plain.lines().count(),
        "case:\n{case}\nplain shell:\n{plain}"
    );
}

// A case runs as the same user as the harness, so it can signal the
// guardian: the harness notices, says so on that case, and gives later
// cases the parent-death signal instead.

#[test]
fn a_case_that_kills_the_guardian_is_named_and_later_cases_fall_back() {
    guardian_lost_to("-9");
}

#[test]
fn a_case_that_stops_the_guardian_is_named_and_later_cases_fall_back() {
    guardian_lost_to("-STOP");
}

fn guardian_lost_to(signal: &str) {
    let p = Project::new(
        &r#"
[harness]
name = "hostile"

[[verify]]
name = "kills the guardian"
command = "for p in $(cat /proc/$PPID/task/*/children); do if tr '\\0' ' ' < /proc/$p/cmdline | grep -q cargo-golden-guardia[n]; then kill SIGNAL $p && echo killed $p; fi; done"

[[verify]]
name = "after"
command = "exec python3 -c 'import ctypes; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); print(\"pdeathsig\", s.value)'"
"#
        .replace("SIGNAL", signal),
    );
    let o = p
        .cmd(&[])
        .env_remove("CARGO_GOLDEN_GUARDIAN")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let first =
        std::fs::read_to_string(p.case_dir("001-kills_the_guardian").join("stdout.log")).unwrap();
    assert!(
        first.starts_with("killed "),
        "the case found the guardian: {first}"
    );
    let ev = p.evidence("001-kills_the_guardian");
    assert!(
        warnings(&ev).contains("guardian process was killed while this case ran"),
        "{ev}"
    );
    let after = std::fs::read_to_string(p.case_dir("002-after").join("stdout.log")).unwrap();
    assert_eq!(
        after.trim(),
        "pdeathsig 9",
        "the next case dies with the harness"
    );
}
