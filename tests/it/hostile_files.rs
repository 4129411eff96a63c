//! Files a case or a user shapes never hang a run or exhaust its memory:
//! a snapshot, a data output, a Delta table's log or live file that is a
//! FIFO or a link to an endless device is refused by the one guarded
//! reader, naming the file, and the run ends; a second SIGTERM leaves all
//! of a run's reports or none.
#![cfg(unix)]

use crate::common;

use std::path::Path;

use common::{Project, output_within_30s, text};
use serde_json::Value;

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

fn case<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {summary}"))
}

fn messages(summary: &Value, name: &str) -> String {
    case(summary, name)["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| format!("{}: {}\n", i["type"], i["message"]))
        .collect()
}

#[test]
fn snapshot_files_that_are_a_fifo_or_an_endless_device_fail_the_case_and_the_run_ends() {
    let p = Project::new(
        r#"
[[verify]]
name = "fifo"
command = "echo hello"
snapshot = ["stdout"]

[[verify]]
name = "zero"
command = "echo hello"
snapshot = ["stdout"]

[[verify]]
name = "data"
command = "printf 'k,v\n1,2\n' > out.csv"
outputs = [{ path = "out.csv", key = ["k"] }]
"#,
    );
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshots = p.path().join("snapshots");
    std::fs::remove_file(snapshots.join("fifo.stdout")).unwrap();
    mkfifo(&snapshots.join("fifo.stdout"));
    std::fs::remove_file(snapshots.join("zero.stdout")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", snapshots.join("zero.stdout")).unwrap();
    std::fs::remove_file(snapshots.join("data.out.csv.data")).unwrap();
    mkfifo(&snapshots.join("data.out.csv.data"));

    let o = output_within_30s(&mut p.cmd(&[]));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    for (name, file) in [
        ("fifo", "fifo.stdout"),
        ("zero", "zero.stdout"),
        ("data", "data.out.csv.data"),
    ] {
        assert_eq!(case(&summary, name)["result"], "FAILED", "{summary}");
        let m = messages(&summary, name);
        assert!(
            m.contains(file) && m.contains("not a regular file"),
            "{name}: {m}"
        );
    }
    // The sealed run, its attestation included, verifies, and at once.
    let o = output_within_30s(common::verify_command(&p.out()).arg("--attestation"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// A Delta table whose first commit is a FIFO, one whose live file links
/// to `/dev/zero`, and a CSV output that links to it too.
const HOSTILE_TABLES: &str = r#"
set -e
mkdir -p fifo_table/_delta_log zero_table/_delta_log
mkfifo fifo_table/_delta_log/00000000000000000000.json
cat > zero_table/_delta_log/00000000000000000000.json <<'EOF'
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{},"createdTime":0}}
{"add":{"path":"part-0.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true}}
EOF
ln -s /dev/zero zero_table/part-0.parquet
ln -s /dev/zero zero.csv
echo written
"#;

#[test]
fn a_delta_log_fifo_and_data_files_linked_to_an_endless_device_are_refused_naming_them() {
    let p = Project::new(
        r#"
[[verify]]
name = "tables"
command = "sh hostile.sh"
timeout = "20s"
outputs = [
  { path = "fifo_table", format = "delta" },
  { path = "zero_table", format = "delta" },
  { path = "zero.csv" },
]
"#,
    );
    p.write("hostile.sh", HOSTILE_TABLES);
    let o = output_within_30s(&mut p.cmd(&[]));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    let c = case(&summary, "tables");
    assert_eq!(c["result"], "FAILED", "{summary}");
    let evidence = p.evidence("001-tables");
    let detail = |output: &str| {
        evidence["snapshots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["output"] == output)
            .and_then(|s| s["detail"].as_str())
            .unwrap_or_else(|| panic!("no check of {output} in {evidence}"))
            .to_string()
    };
    let fifo = detail("fifo_table");
    assert!(
        fifo.contains("00000000000000000000.json") && fifo.contains("not a regular file"),
        "{fifo}"
    );
    let zero = detail("zero_table");
    assert!(
        zero.contains("part-0.parquet") && zero.contains("not a regular file"),
        "{zero}"
    );
    // A link out of the working dir into /dev is refused before it is
    // opened, naming where it leads.
    let csv = detail("zero.csv");
    assert!(
        csv.contains("resolves to /dev/zero") && csv.contains("never read"),
        "{csv}"
    );
}

/// The reports a run writes into its out dir.
const REPORTS: [&str; 5] = [
    "junit.xml",
    "report.md",
    "summary.json",
    "observations.jsonl",
    "report.html",
];

#[test]
fn two_sigterms_while_the_reports_are_written_leave_all_of_them_or_none() {
    // Many cases, so the reports take a while to render; two SIGTERMs
    // sent at staggered moments around their writing.
    let mut harness = String::new();
    for i in 0..300 {
        harness.push_str(&format!(
            "[[verify]]\nname = \"c{i:03}\"\ncommand = \"echo line {i}; echo err >&2\"\n"
        ));
    }
    let p = Project::new(&harness);
    let mut outcomes = Vec::new();
    for delay_ms in [0u64, 5, 10, 20, 40, 80, 160] {
        let _ = std::fs::remove_dir_all(p.out());
        let mut child = p
            .cmd(&[])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // The last case's log exists once the cases are nearly done.
        let last = |out: &Path| {
            std::fs::read_dir(out.join("artifacts"))
                .ok()
                .and_then(|mut runs| runs.next())
                .and_then(|run| run.ok())
                .is_some_and(|run| run.path().join("execution/300-c299").exists())
        };
        let start = std::time::Instant::now();
        while !last(&p.out()) && child.try_wait().unwrap().is_none() {
            assert!(start.elapsed().as_secs() < 60, "the run never got there");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        common::signal(&child, libc::SIGTERM);
        std::thread::sleep(std::time::Duration::from_millis(2));
        common::signal(&child, libc::SIGTERM);
        child.wait().unwrap();
        let present: Vec<&str> = REPORTS
            .into_iter()
            .filter(|r| p.out().join(r).exists())
            .collect();
        assert!(
            present.is_empty() || present.len() == REPORTS.len(),
            "after two SIGTERMs {delay_ms} ms in, only {present:?} of the reports are there"
        );
        outcomes.push(present.len());
    }
    eprintln!("reports present after each pair of SIGTERMs: {outcomes:?}");
}

#[test]
fn a_second_sigterm_ends_the_run_even_while_its_stderr_is_blocked() {
    // Thousands of cases, each a line on stderr, into a pipe nobody reads:
    // the run blocks writing to it, holding stderr's lock. Two SIGTERMs
    // must still end it, at once, with the interrupted exit code.
    let mut harness = String::new();
    for i in 0..3000 {
        harness.push_str(&format!(
            "[[verify]]\nname = \"case number {i:04} with a name long enough to fill the pipe\"\ncommand = \"true\"\n"
        ));
    }
    let p = Project::new(&harness);
    let mut child = p
        .cmd(&[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Never read: the pipe fills.
    let _stderr = child.stderr.take();
    std::thread::sleep(std::time::Duration::from_secs(8));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before its stderr filled"
    );
    common::signal(&child, libc::SIGTERM);
    std::thread::sleep(std::time::Duration::from_millis(200));
    common::signal(&child, libc::SIGTERM);
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("still running 30 s after the second SIGTERM");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(3), "{status:?}");
}
