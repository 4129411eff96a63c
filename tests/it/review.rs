//! `cargo golden review` and pending snapshots (issue 44), through the real
//! binary: a run keeps the new text of each changed or missing snapshot in
//! its sealed run dir; `review` walks through them on a real terminal (a
//! pseudo-terminal driven by Python's `pty`), or decides them by filters
//! off one, writing what `--bless` writes and recording its decisions
//! beside the run; a stale or tampered pending text is never written; and
//! `bless --from` blesses data snapshots from them.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::baseline::ci_project;
use common::{Project, text, verify_evidence};
use serde_json::Value;

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `cargo-golden review <args> --config harness.toml` in `p`, off a
/// terminal (standard input closed, output captured).
fn review(p: &Project, args: &[&str]) -> Output {
    review_command(p, args).output().unwrap()
}

fn review_command(p: &Project, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
    c.current_dir(p.path())
        .arg("review")
        .args(args)
        .arg("--config")
        .arg(p.path().join("harness.toml"))
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null());
    c
}

/// Every file under `dir/snapshots`, by name, with its content.
fn snapshot_files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir.join("snapshots"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), read(e.path()))
        })
        .collect();
    files.sort();
    files
}

/// The baseline's entries without their durations.
fn entries(dir: &Path) -> Vec<Value> {
    let mut b: Value = serde_json::from_str(&read(dir.join("golden-baseline.json"))).unwrap();
    let cases = b["cases"].as_array_mut().unwrap();
    for c in cases.iter_mut() {
        c.as_object_mut().unwrap().remove("duration_seconds");
    }
    cases.clone()
}

/// The issue types of each case of the last run, by case.
#[cfg(unix)]
fn failures(p: &Project) -> Vec<(String, Vec<String>)> {
    p.summary()["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let types = c["issues"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["type"].as_str().unwrap().to_string())
                .collect();
            (c["name"].as_str().unwrap().to_string(), types)
        })
        .collect()
}

/// The snapshot check of `stream` the evidence of `slug` records.
fn check_of(p: &Project, slug: &str, stream: &str) -> Value {
    let ev = p.evidence(slug);
    ev["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stream"] == stream)
        .cloned()
        .unwrap_or_else(|| panic!("no {stream} check in {ev}"))
}

/// Three cases, three kinds of snapshot: a stream (`report`), a CSV output
/// (`sales_csv`) and a Parquet output written by pyarrow (`sales_parquet`).
#[cfg(unix)]
fn three_kinds(python: &Path) -> Project {
    let p = Project::new(&format!(
        r#"
[harness]
name = "three kinds"

[[verify]]
name = "report"
command = "cat report.txt"
snapshot = ["stdout"]

[[verify]]
name = "sales_csv"
command = "mkdir -p csv && cp sales.csv csv/sales.csv"
outputs = [{{ path = "csv/sales.csv", key = ["region"] }}]

[[verify]]
name = "sales_parquet"
command = "'{}' write_parquet.py"
outputs = [{{ path = "data/orders.parquet", key = ["id"], tolerance = {{ abs = 0.01 }} }}]
"#,
        python.display()
    ));
    p.write(
        "write_parquet.py",
        r#"
import os
import pyarrow.csv as pc, pyarrow.parquet as pq
os.makedirs("data", exist_ok=True)
if os.path.exists("data/orders.parquet"):
    os.remove("data/orders.parquet")
pq.write_table(pc.read_csv("orders.csv"), "data/orders.parquet")
"#,
    );
    p.write("report.txt", "report of 3 rows\ntotal: 215.47\n");
    p.write(
        "sales.csv",
        "region,total\nEast,10\nSilver,84.97\nWest,120.5\n",
    );
    p.write(
        "orders.csv",
        "id,amount,status\n1,10.5,open\n2,20.25,shipped\n",
    );
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Each case's output changes.
    p.write("report.txt", "report of 4 rows\ntotal: 220.62\n");
    p.write(
        "sales.csv",
        "region,total\nEast,10\nSilver,90.12\nWest,120.5\nNorth,5\n",
    );
    p.write(
        "orders.csv",
        "id,amount,status\n1,10.5,open\n2,20.25,delivered\n",
    );
    p
}

/// Drives a program on a pseudo-terminal: sends each key of KEYS once the
/// prompt has shown once more, then prints everything the program showed
/// and its exit code.
#[cfg(unix)]
const PTY_DRIVER: &str = r#"
import os, pty, select, subprocess, sys, time, fcntl, termios, struct
keys, argv = sys.argv[1], sys.argv[2:]
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
screen = b""
PROMPT = "\u203a ".encode()
def read(until, timeout=60):
    global screen
    end = time.time() + timeout
    while not until():
        if time.time() > end:
            sys.stdout.write(screen.decode(errors="replace"))
            sys.exit("timed out waiting for the program")
        if select.select([master], [], [], 0.1)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            screen += chunk
prompts = 0
for key in keys:
    read(lambda: screen.count(PROMPT) > prompts)
    prompts = screen.count(PROMPT)
    os.write(master, key.encode())
read(lambda: child.poll() is not None)
while select.select([master], [], [], 0.3)[0]:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    screen += chunk
sys.stdout.write(screen.decode(errors="replace"))
sys.stdout.write("\n[exit %d]\n" % child.wait())
"#;

/// `review` of `p` on a pseudo-terminal, answering with `keys`: what the
/// terminal showed (escape sequences kept) and the exit code.
#[cfg(unix)]
fn review_on_a_terminal(python: &Path, p: &Project, keys: &str) -> (String, i32) {
    let o = Command::new(python)
        .current_dir(p.path())
        .args(["-c", PTY_DRIVER, keys])
        .arg(env!("CARGO_BIN_EXE_cargo-golden"))
        .arg("review")
        .arg("--config")
        .arg(p.path().join("harness.toml"))
        .arg("--out")
        .arg(p.out())
        .env_remove("GITHUB_ACTIONS")
        .env_remove("NO_COLOR")
        .env_remove("CARGO_TERM_COLOR")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "the driver: {}", text(&o));
    let screen = stdout(&o);
    let (screen, code) = screen
        .rsplit_once("\n[exit ")
        .expect("the driver's exit line");
    let code = code.trim().trim_end_matches(']').parse().unwrap();
    (screen.replace("\r\n", "\n"), code)
}

/// The text of a terminal screen without its escape sequences.
#[cfg(unix)]
fn plain(screen: &str) -> String {
    cargo_golden::_support::strip_str(screen).into_owned()
}

// A pseudo-terminal is a Unix device (Python's `pty`).
#[cfg(unix)]
#[test]
fn review_on_a_terminal_accepts_and_rejects_as_bless_would() {
    let Some(python) = common::data_python("review on a terminal") else {
        return;
    };
    let p = three_kinds(&python);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stderr(&o).contains("`cargo golden review` (takes the change as this run kept it)"),
        "{}",
        text(&o)
    );
    // Each change left its pending text in the sealed run dir, listed in
    // SHA256SUMS; the run verifies.
    let sums = read(p.run_dir().join("SHA256SUMS"));
    for f in [
        "execution/001-report/pending/report.stdout",
        "execution/002-sales_csv/pending/sales_csv.csv.sales.csv.data",
        "execution/003-sales_parquet/pending/sales_parquet.data.orders.parquet.data",
    ] {
        assert!(sums.contains(&format!("  {f}\n")), "{f} not in\n{sums}");
    }
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));

    // The same project, blessed by running the two cases the review accepts.
    let blessed = three_kinds(&python);
    let o = blessed.run(&["--bless", "--exact", "report", "sales_parquet"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    // Accept the stream change, look at the whole CSV diff and reject it,
    // accept the Parquet change.
    let (screen, code) = review_on_a_terminal(&python, &p, "adra");
    let shown = plain(&screen);
    eprintln!("--- the review session, as the terminal showed it:\n{shown}---");
    assert_eq!(code, 0, "{shown}");
    assert!(
        screen.contains("\u{1b}["),
        "the diffs are coloured: {screen:?}"
    );
    for line in [
        "Reviewing 3 change(s) of run ",
        "[1/3] report  snapshots/report.stdout  (stdout, changed)",
        "-report of 3 rows",
        "+report of 4 rows",
        "[2/3] sales_csv  snapshots/sales_csv.csv.sales.csv.data  (data output csv/sales.csv, changed)",
        // The counts first, then each difference.
        "total: 1 of 3 rows differ\nrows added: 1 of 4\nrow count: 3 -> 4\n",
        "changed: region=Silver total 84.97 -> 90.12",
        "row added: region=North",
        "[3/3] sales_parquet  snapshots/sales_parquet.data.orders.parquet.data  (data output data/orders.parquet, changed)",
        "status: 1 of 2 rows differ\nchanged: id=2 status shipped -> delivered",
        "a accept  r reject  s skip  d whole diff  q quit",
        "Accepted snapshots/report.stdout (updated)",
        "Rejected snapshots/sales_csv.csv.sales.csv.data (left as it was)",
        "Accepted snapshots/sales_parquet.data.orders.parquet.data (updated)",
        "Recorded 3 decision(s) in ",
    ] {
        assert!(shown.contains(line), "no {line:?} in:\n{shown}");
    }
    // `d` paged the whole CSV diff (PAGER=cat): it shows twice.
    assert_eq!(
        shown.matches("row added: region=North").count(),
        2,
        "{shown}"
    );

    // What the review wrote is what `--bless` of those two cases wrote.
    assert_eq!(snapshot_files(p.path()), snapshot_files(blessed.path()));
    assert_eq!(entries(p.path()), entries(blessed.path()));
    // The sealed run is as it was; the decisions lie beside it.
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    let run_id = p.summary()["run_id"].as_str().unwrap().to_string();
    let decisions = read(p.out().join(format!("review/{run_id}.jsonl")));
    assert_eq!(decisions.lines().count(), 3, "{decisions}");
    assert!(
        decisions.contains(r#""decision":"rejected""#),
        "{decisions}"
    );
    // Nothing is left to decide: the rejected change is not offered again.
    let o = review(
        &p,
        &["--out", p.out().to_str().unwrap(), "--list", "--check"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stdout(&o).contains("rejected sales_csv  snapshots/sales_csv.csv.sales.csv.data"),
        "{}",
        text(&o)
    );
    // A run fails on the rejected change alone.
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(
        failures(&p),
        [
            ("report".to_string(), vec![]),
            ("sales_csv".to_string(), vec!["DATA_CHANGED".to_string()]),
            ("sales_parquet".to_string(), vec![]),
        ]
    );
}

#[test]
fn a_ci_run_is_reviewed_once_it_verifies_and_a_tampered_pending_text_is_refused() {
    let ci = ci_project("3");
    let o = ci.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let check = check_of(&ci, "001-ci_only", "stdout");
    let snapshot = check["file"].as_str().unwrap().to_string();
    let pending = &check["pending"];
    assert_eq!(pending["base_sha256"], Value::Null, "no snapshot yet");
    let name = snapshot.strip_prefix("snapshots/").unwrap().to_string();
    assert_eq!(
        pending["path"].as_str().unwrap(),
        format!(
            "{}/execution/001-ci_only/pending/{name}",
            ci.run_dir().strip_prefix(ci.out()).unwrap().display()
        )
    );

    // Accepted here, without running anything: what a local bless writes.
    let here = ci_project("not run here");
    let o = review(&here, &[ci.out().to_str().unwrap(), "--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stderr(&o).contains(&format!("Accepted {snapshot} (created)")),
        "{}",
        text(&o)
    );
    assert!(!here.out().exists(), "nothing ran here");
    let local = ci_project("3");
    let o = local.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(snapshot_files(here.path()), snapshot_files(local.path()));
    assert_eq!(entries(here.path()), entries(local.path()));
    // CI's run still verifies.
    let v = verify_evidence(&ci.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));

    // The pending text edited in the downloaded out dir: refused, naming
    // the file, and nothing is written.
    let file = ci.case_dir("001-ci_only").join("pending").join(&name);
    std::fs::write(&file, "rows: 1000\n").unwrap();
    let elsewhere = ci_project("3");
    let o = review(&elsewhere, &[ci.out().to_str().unwrap(), "--accept"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = stderr(&o);
    assert!(err.contains("refusing to review"), "{err}");
    let rel = format!("execution/001-ci_only/pending/{name}");
    assert!(
        err.contains(&format!(
            "case \"ci only\": {rel}: changed: SHA256SUMS records"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "the pending snapshot {rel} changed: the evidence records sha256"
        )),
        "{err}"
    );
    assert!(!elsewhere.path().join("snapshots").exists(), "{err}");
    assert!(!elsewhere.path().join("golden-baseline.json").exists());
}

/// A greeting snapshotted on stdout (it prints a secret), a CSV output
/// snapshotted as a summary, and a case soon no longer declared.
const OFF_TERMINAL: &str = r#"
[harness]
redact_env = ["API_TOKEN"]

[[verify]]
name = "greet"
command = "echo hello $(cat name); echo token=$API_TOKEN"
env = { API_TOKEN = "s3cr3t-t0ken-value" }
snapshot = ["stdout"]

[[verify]]
name = "totals"
command = "cp totals.csv out.csv"
outputs = [{ path = "out.csv", mode = "summary" }]
"#;

const GONE: &str = r#"
[[verify]]
name = "gone"
command = "cat name"
snapshot = ["stdout"]
"#;

#[test]
fn off_a_terminal_review_lists_decides_by_filters_and_never_writes_a_stale_text() {
    let p = Project::new(&format!("{OFF_TERMINAL}{GONE}"));
    p.write("name", "Ada\n");
    p.write("totals.csv", "region,total\nEast,10\nWest,2.5\n");
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    p.write("name", "Grace\n");
    p.write("totals.csv", "region,total\nEast,10\nWest,3.5\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let before = snapshot_files(p.path());
    let out = p.out();
    let out = out.to_str().unwrap();

    // Pending texts are stored outputs: secrets masked; a summary stays one.
    let greet = read(p.case_dir("001-greet").join("pending/greet.stdout"));
    assert_eq!(greet, "hello Grace\ntoken=[REDACTED:API_TOKEN]\n");
    let totals = read(p.case_dir("002-totals").join("pending/totals.out.csv.data"));
    assert!(
        totals.starts_with("# output: out.csv\n# summary: 2 rows\n"),
        "{totals}"
    );

    // No terminal, no flag: a list, nothing written.
    let o = review(&p, &["--out", out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        stdout(&o),
        "pending  greet  snapshots/greet.stdout  (stdout, changed)\n\
         pending  totals  snapshots/totals.out.csv.data  (data output out.csv, changed)\n\
         pending  gone  snapshots/gone.stdout  (stdout, changed)\n"
    );
    assert_eq!(snapshot_files(p.path()), before);
    let o = review(&p, &["--out", out, "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // A change both filters match is refused whole.
    let o = review(
        &p,
        &["--out", out, "--accept", "totals", "--reject", "out.csv"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        stderr(&o).contains("matches both --accept and --reject"),
        "{}",
        text(&o)
    );
    assert_eq!(snapshot_files(p.path()), before);

    // Newer work on a snapshot, and a case no longer declared: both stale,
    // said, never written over.
    p.write("snapshots/greet.stdout", "hello [..]\ntoken=[..]\n");
    p.write("harness.toml", OFF_TERMINAL);
    let o = review(&p, &["--out", out, "--accept", "", "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = stderr(&o);
    assert!(
        err.contains("Stale snapshots/greet.stdout: snapshots/greet.stdout changed since the run compared with it; skipped"),
        "{err}"
    );
    assert!(
        err.contains("Stale snapshots/gone.stdout: case \"gone\" is no longer declared"),
        "{err}"
    );
    assert!(
        err.contains("Accepted snapshots/totals.out.csv.data (updated)"),
        "{err}"
    );
    assert_eq!(
        read(p.path().join("snapshots/greet.stdout")),
        "hello [..]\ntoken=[..]\n"
    );
    assert_eq!(read(p.path().join("snapshots/totals.out.csv.data")), totals);
    let o = review(&p, &["--out", out, "--list"]);
    assert_eq!(
        stdout(&o),
        "stale    greet  snapshots/greet.stdout  (snapshots/greet.stdout changed since the run compared with it)\n\
         accepted totals  snapshots/totals.out.csv.data  (data output out.csv, changed)\n\
         stale    gone  snapshots/gone.stdout  (case \"gone\" is no longer declared in harness.toml)\n",
        "{}",
        text(&o)
    );
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));

    // A merged run carries its pending texts and verifies.
    let merged = p.path().join("merged");
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .arg("merge")
        .arg(p.out())
        .arg("--out")
        .arg(&merged)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v = verify_evidence(&merged);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    let runs: Vec<PathBuf> = std::fs::read_dir(merged.join("artifacts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        read(runs[0].join("execution/001-greet/pending/greet.stdout")),
        greet
    );
}

#[test]
fn bless_from_writes_data_snapshots_from_the_pending_texts() {
    const HARNESS: &str = r#"
[[verify]]
name = "sales"
command = "cp src.csv out.csv"
outputs = [{ path = "out.csv", key = ["region"] }]
"#;
    let project = |rows: &str| {
        let p = Project::new(HARNESS);
        p.write("src.csv", "region,total\nEast,10\nWest,2.5\n");
        let o = p.run(&["--bless"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        p.write("src.csv", rows);
        p
    };
    let changed = "region,total\nEast,11\nWest,2.5\n";
    let ci = project(changed);
    let o = ci.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let here = project("not read here");
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(here.path())
        .args(["bless", "--from"])
        .arg(ci.out())
        .arg("--config")
        .arg(here.path().join("harness.toml"))
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stderr(&o).contains("Blessed snapshots/sales.out.csv.data (updated)"),
        "{}",
        text(&o)
    );
    let local = project(changed);
    let o = local.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(snapshot_files(here.path()), snapshot_files(local.path()));
    assert_eq!(entries(here.path()), entries(local.path()));
    assert_eq!(entries(here.path())[0]["result"], "PASSED");
}

/// Hex sha256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Forge the out dir of `p` as a hostile user with no signing key can:
/// every `from` in every file becomes `to`, then each case's evidence hash
/// is recomputed from its artifacts and records (the evidence hash of
/// docs/reports.md, What a run leaves, then the data checks, then the pending
/// snapshots) and replaced wherever it stands, and `SHA256SUMS` is written
/// anew. The run still verifies: an unsigned run detects accidents, not a
/// forger.
fn forge(p: &Project, from: &str, to: &str) {
    let out = p.out();
    for f in files_under(&out) {
        if let Ok(text) = std::fs::read_to_string(&f)
            && text.contains(from)
        {
            std::fs::write(&f, text.replace(from, to)).unwrap();
        }
    }
    let run = p.run_dir();
    let mut hashes = Vec::new();
    for ev in files_under(&run)
        .into_iter()
        .filter(|f| f.ends_with("evidence.json"))
    {
        let e: Value = serde_json::from_str(&read(&ev)).unwrap();
        let Some(old) = e["evidence_hash"].as_str() else {
            continue;
        };
        let dir = ev.parent().unwrap();
        let mut base = Vec::new();
        for (i, name) in ["command.txt", "stdout.log", "stderr.log"]
            .iter()
            .enumerate()
        {
            if i > 0 {
                base.push(b'|');
            }
            base.extend(std::fs::read(dir.join(name)).unwrap());
        }
        base.push(b'|');
        if let Some(code) = e["exit_code"].as_i64() {
            base.extend(code.to_string().as_bytes());
        }
        let mut hash = sha256_hex(&base);
        let checks = e["snapshots"].as_array().cloned().unwrap_or_default();
        let data: Vec<Value> = (checks.iter())
            .filter(|c| c["stream"] == "data")
            .map(|c| {
                serde_json::json!({"output": c["output"], "file": c["file"], "sha256": c["sha256"],
                    "outcome": c["outcome"], "detail": c["detail"], "diff": c["diff"],
                    "diff_sha256": c["diff_sha256"]})
            })
            .collect();
        if !data.is_empty() {
            hash =
                sha256_hex(format!("{hash}|{}", serde_json::to_string(&data).unwrap()).as_bytes());
        }
        let pending: Vec<Value> = (checks.iter())
            .filter(|c| c["pending"].is_object())
            .map(|c| {
                let p = &c["pending"];
                serde_json::json!({"file": c["file"], "path": p["path"], "sha256": p["sha256"],
                    "base_sha256": p["base_sha256"]})
            })
            .collect();
        if !pending.is_empty() {
            hash = sha256_hex(
                format!(
                    "{hash}|pending|{}",
                    serde_json::to_string(&pending).unwrap()
                )
                .as_bytes(),
            );
        }
        hashes.push((old.to_string(), hash));
    }
    for f in files_under(&out) {
        if let Ok(text) = std::fs::read_to_string(&f) {
            let mut new = text.clone();
            for (old, hash) in &hashes {
                new = new.replace(old.as_str(), hash);
            }
            if new != text {
                std::fs::write(&f, new).unwrap();
            }
        }
    }
    let sums = run.join("SHA256SUMS");
    let lines: Vec<String> = read(&sums)
        .lines()
        .map(|l| {
            let (_, name) = l.split_once("  ").unwrap();
            format!(
                "{}  {name}",
                sha256_hex(&std::fs::read(run.join(name)).unwrap())
            )
        })
        .collect();
    std::fs::write(&sums, lines.join("\n") + "\n").unwrap();
}

/// A forged record never makes review or `bless --from` write outside
/// `snapshots/`: the file each accepted change writes is the one the
/// harness names, and a record naming another is refused whole.
#[test]
fn a_forged_record_never_writes_outside_snapshots() {
    for target in ["outside/victim.txt", ".git/hooks/pre-commit"] {
        let p = Project::new(
            "[[verify]]\nname = \"report\"\ncommand = \"cat report.txt\"\nsnapshot = [\"stdout\"]\n",
        );
        p.write("report.txt", "report of 3 rows\n");
        assert_eq!(p.run(&["--bless"]).status.code(), Some(0));
        p.write("report.txt", "report of 4 rows\n");
        assert_eq!(p.run(&[]).status.code(), Some(1));
        let victim = p.write(target, "precious\n");
        forge(&p, "snapshots/report.stdout", target);
        let v = verify_evidence(&p.out());
        assert_eq!(
            v.status.code(),
            Some(0),
            "the forgery verifies: {}",
            text(&v)
        );
        let before = snapshot_files(p.path());
        let o = review(
            &p,
            &["--accept", "report", "--out", p.out().to_str().unwrap()],
        );
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(
            stderr(&o).contains("refusing to write")
                && stderr(&o).contains("snapshots/report.stdout"),
            "{}",
            text(&o)
        );
        assert_eq!(read(&victim), "precious\n", "{target} was written");
        assert_eq!(snapshot_files(p.path()), before, "a snapshot was written");
    }
}

/// `bless --from` through a glob data output: a forged member's record is
/// refused and nothing is written.
#[test]
fn bless_from_refuses_a_forged_glob_member_record() {
    let p = Project::new(
        "[[verify]]\nname = \"parts\"\ncommand = \"mkdir -p out && cp a.csv out/a.csv\"\noutputs = [{ path = \"out/*.csv\", key = [\"id\"] }]\n",
    );
    p.write("a.csv", "id,total\n1,10\n");
    assert_eq!(p.run(&["--bless"]).status.code(), Some(0));
    p.write("a.csv", "id,total\n1,11\n");
    assert_eq!(p.run(&[]).status.code(), Some(1));
    let victim = p.write("outside/victim.txt", "precious\n");
    let file = p.evidence("001-parts")["snapshots"][0]["file"]
        .as_str()
        .unwrap()
        .to_string();
    forge(&p, &file, "outside/victim.txt");
    let v = verify_evidence(&p.out());
    assert_eq!(
        v.status.code(),
        Some(0),
        "the forgery verifies: {}",
        text(&v)
    );
    let before = snapshot_files(p.path());
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(p.path())
        .args(["bless", "--from"])
        .arg(p.out())
        .arg("--config")
        .arg(p.path().join("harness.toml"))
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(stderr(&o).contains("refusing to write"), "{}", text(&o));
    assert_eq!(read(&victim), "precious\n");
    assert_eq!(snapshot_files(p.path()), before);
}
