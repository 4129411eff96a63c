//! The floor for any harness that starts each case as a process of its
//! own: a Rust loop that only starts `sh -c true` the way a case is started
//! (stdin from the null device, stdout and stderr piped and read to their
//! end, a process group of its own) and waits for it. No files, no
//! verdict, no evidence.
//!
//! `cargo bench --bench spawn_floor -- N` starts N processes (500 when N
//! is not given) and prints `spawn_floor_seconds=<wall time>`;
//! `bench/run.py` runs it beside the `sh -c true` loop and `cargo golden`
//! on the same N. Nothing here asserts on time.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    // `cargo bench` passes `--bench`; the first number is the count.
    let n = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(500);
    let start = Instant::now();
    for _ in 0..n {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().expect("sh starts");
        // `true` writes nothing: reading one pipe after the other cannot
        // block on a full second pipe.
        let mut sink = Vec::new();
        if let Some(mut out) = child.stdout.take() {
            out.read_to_end(&mut sink).expect("stdout reads");
        }
        if let Some(mut err) = child.stderr.take() {
            err.read_to_end(&mut sink).expect("stderr reads");
        }
        child.wait().expect("sh is waited for");
    }
    println!("spawn_floor_seconds={:.6}", start.elapsed().as_secs_f64());
}
