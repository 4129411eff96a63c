//! Throughput of the output path: mask secrets, capture to a file, hash
//! and classify.
//!
//! `cargo bench --bench classify` feeds 1 GiB of typical log lines (about
//! 80 bytes, no pattern in them) through it in 64 KiB reads, as from a pipe,
//! and prints MB/s for each stage added. Masking looks for 20 secret
//! values, which the sample holds once every 64 lines. Then the classifier
//! alone on coloured lines (escape sequences removed before matching) and
//! on 1 MiB lines (matched whole by the streaming DFA).

use std::io::Write;
use std::time::Instant;

use cargo_golden::classify::Patterns;
use cargo_golden::config::PatternConfig;
use cargo_golden::redact::Redactor;
use sha2::{Digest, Sha256};

const TOTAL: usize = 1 << 30;
const SAMPLE: usize = 64 << 20;
const READ: usize = 64 << 10;

fn sample(colour: bool) -> Vec<u8> {
    let (on, off) = if colour {
        ("\x1b[32m", "\x1b[0m")
    } else {
        ("", "")
    };
    let mut out = Vec::with_capacity(SAMPLE + 200);
    let mut i = 0u64;
    while out.len() < SAMPLE {
        writeln!(
            out,
            "2024-05-01 12:{:02}:{:02},{:03} {on}INFO{off}  [worker-{}] etl.stage.Load - batch {} rows={}",
            (i / 60) % 60,
            i % 60,
            i % 1000,
            i % 8,
            i,
            i * 37 % 100_000
        )
        .unwrap();
        if i.is_multiple_of(64) {
            writeln!(out, "auth token={}", secret((i / 64) as usize % 20)).unwrap();
        }
        i += 1;
    }
    out.truncate(SAMPLE);
    out
}

/// The sample joined into lines of 1 MiB (as minified JSON or a progress
/// bar without newlines would be).
fn long_lines() -> Vec<u8> {
    let mut out = sample(false);
    for (i, b) in out.iter_mut().enumerate() {
        if *b == b'\n' && (i + 1) % (1 << 20) != 0 {
            *b = b' ';
        }
    }
    out
}

fn secret(i: usize) -> String {
    format!("s3cr3t-{i:02}-{}", "k".repeat(8 + i))
}

fn run(name: &str, sample: &[u8], mut stage: impl FnMut(&[u8])) {
    let start = Instant::now();
    for _ in 0..TOTAL / sample.len() {
        for read in sample.chunks(READ) {
            stage(read);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{name:<28} {:>7.0} MB/s", TOTAL as f64 / secs / 1e6);
}

fn main() {
    let plain = sample(false);
    let patterns = Patterns::new(&PatternConfig {
        builtin: true,
        ..PatternConfig::default()
    })
    .unwrap();

    let redactor = Redactor::new((0..20).map(|i| (format!("TOKEN_{i:02}"), secret(i))));
    let mut m = redactor.masker();
    run("mask", &plain, |b| {
        std::hint::black_box(m.push(b));
    });
    assert!(m.count() > 0);

    let mut c = patterns.classifier();
    run("classify", &plain, |b| c.feed(b));
    assert!(c.finish().runtime.is_none());

    let mut c = patterns.classifier();
    let mut h = Sha256::new();
    run("hash + classify", &plain, |b| {
        h.update(b);
        c.feed(b);
    });
    std::hint::black_box(h.finalize());

    let mut file = tempfile::tempfile().unwrap();
    let mut c = patterns.classifier();
    let mut h = Sha256::new();
    run("capture + hash + classify", &plain, |b| {
        file.write_all(b).unwrap();
        h.update(b);
        c.feed(b);
    });
    std::hint::black_box(h.finalize());

    let mut file = tempfile::tempfile().unwrap();
    let mut m = redactor.masker();
    let mut c = patterns.classifier();
    let mut h = Sha256::new();
    run("mask + capture + hash + cl.", &plain, |b| {
        let b = m.push(b);
        file.write_all(b).unwrap();
        h.update(b);
        c.feed(b);
    });
    std::hint::black_box(h.finalize());
    drop(plain);

    let coloured = sample(true);
    let mut c = patterns.classifier();
    run("classify, coloured lines", &coloured, |b| c.feed(b));
    assert!(c.finish().runtime.is_none());
    drop(coloured);

    let long = long_lines();
    let mut c = patterns.classifier();
    run("classify, 1 MiB lines", &long, |b| c.feed(b));
    assert!(c.finish().runtime.is_none());
}
