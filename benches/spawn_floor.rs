//! The floor for any harness that starts each case as a process of its
//! own: a Rust loop that only starts `sh -c true` the way a case is started
//! (`sh` found on PATH once, stdin from the null device, stdout and stderr
//! piped and read to their end, a process group of its own) and waits for
//! it. No verdict, no report.
//!
//! `cargo bench --bench spawn_floor -- N [DIR]` starts N processes (500
//! when N is not given) and prints `spawn_floor_seconds=<wall time>`. With
//! DIR it also keeps, for each start, what a case keeps at the least: a
//! directory with `command.txt`, both outputs and a small `evidence.json`,
//! written the cheapest way (no hashing, no temporary file). `bench/run.py`
//! runs both beside the `sh -c true` loop and `cargo golden` on the same N.
//! Nothing here asserts on time.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    // `cargo bench` passes `--bench`: options are skipped, the first number
    // is the count, anything else the directory.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n = args
        .iter()
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(500);
    let keep = args
        .iter()
        .find(|a| a.parse::<usize>().is_err())
        .map(PathBuf::from);
    // Found on PATH once, as the harness does: a search per spawn would
    // cost each start a failed exec per PATH entry before `sh`'s.
    let sh = std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("sh"))
                .find(|p| p.is_file())
        })
        .expect("sh is on PATH");
    let start = Instant::now();
    for i in 0..n {
        let files = keep
            .as_deref()
            .map(|dir| Files::new(&dir.join(i.to_string())));
        let mut cmd = Command::new(&sh);
        cmd.args(["-c", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("sh starts");
        // `true` writes nothing: reading one pipe after the other cannot
        // block on a full second pipe.
        let (mut out, mut err) = (Vec::new(), Vec::new());
        if let Some(mut pipe) = child.stdout.take() {
            pipe.read_to_end(&mut out).expect("stdout reads");
        }
        if let Some(mut pipe) = child.stderr.take() {
            pipe.read_to_end(&mut err).expect("stderr reads");
        }
        let status = child.wait().expect("sh is waited for");
        if let Some(mut f) = files {
            f.finish(&out, &err, status.code());
        }
    }
    println!("spawn_floor_seconds={:.6}", start.elapsed().as_secs_f64());
}

/// A case's files, made before its process starts (as the harness does, so
/// that output can stream to them) and completed after it ended.
struct Files {
    dir: PathBuf,
    stdout: std::fs::File,
    stderr: std::fs::File,
}

impl Files {
    fn new(dir: &Path) -> Files {
        std::fs::create_dir_all(dir).expect("case dir");
        std::fs::write(dir.join("command.txt"), "true").expect("command.txt");
        let create = |name: &str| std::fs::File::create(dir.join(name)).expect("log file");
        Files {
            dir: dir.to_path_buf(),
            stdout: create("stdout.log"),
            stderr: create("stderr.log"),
        }
    }

    fn finish(&mut self, out: &[u8], err: &[u8], code: Option<i32>) {
        self.stdout.write_all(out).expect("stdout.log");
        self.stderr.write_all(err).expect("stderr.log");
        let evidence = format!("{{\"exit_code\": {}}}\n", code.unwrap_or(-1));
        std::fs::write(self.dir.join("evidence.json"), evidence).expect("evidence.json");
    }
}
