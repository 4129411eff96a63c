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

use cargo_golden::_support::PatternConfig;
use cargo_golden::_support::Patterns;
use cargo_golden::_support::Redactor;
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
    drop(long);

    // The record reader: each shape of log record alone, then all mixed
    // as a healthy run's log is: one record in 64 names a failure word
    // harmlessly (an INFO `Timeout`, a WARNING `Interrupted`), and among
    // the mixed ones a caught traceback at WARNING every 200 records. The
    // last rows are the most the reader's matching can be asked: every
    // record naming a word, every record a caught traceback.
    let (line_shapes, traceback) = SHAPES.split_at(SHAPES.len() - 1);
    for (name, shape) in line_shapes {
        let s = shaped(&[shape], 64, None);
        let mut c = patterns.classifier();
        run(&format!("records: {name}"), &s, |b| c.feed(b));
        let f = c.finish();
        assert!(f.runtime.is_none() && f.error_logged.is_none(), "{name}");
    }
    let all: Vec<&Shape> = line_shapes.iter().map(|(_, s)| s).collect();
    for (name, shapes, every, tb) in [
        ("records: mixed shapes", &all[..], 64, Some(200)),
        ("records: mixed, all words", &all[..], 1, Some(200)),
        (
            "records: caught tracebacks",
            &[&traceback[0].1][..],
            64,
            None,
        ),
    ] {
        let mixed = shaped(shapes, every, tb.map(|n| (&traceback[0].1, n)));
        let mut c = patterns.classifier();
        run(name, &mixed, |b| c.feed(b));
        let f = c.finish();
        assert!(f.abort.is_none() && f.error_logged.is_none(), "{name}");
        assert!(f.exception.is_none_or(|e| e.logged), "{name}");
    }
}

/// Writes the `i`th record of a shape, with the message `m`.
type Shape = fn(&mut Vec<u8>, u64, &str);

/// The shapes of log records the reader knows.
const SHAPES: &[(&str, Shape)] = &[
    ("python logging", |o, i, m| {
        writeln!(
            o,
            "2026-11-28 22:56:{:02},{:03} - etl.load - INFO - batch {i}: {m}",
            i % 60,
            i % 1000
        )
        .unwrap()
    }),
    ("python default", |o, i, m| {
        writeln!(o, "WARNING:etl.load:batch {i}: {m}").unwrap()
    }),
    ("rich with date", |o, i, m| {
        writeln!(
            o,
            "[12/01/26 20:09:{:02}] INFO     batch {i}: {m}   etl.py:12",
            i % 60
        )
        .unwrap();
        writeln!(
            o,
            "                    WARNING  batch {i} slow, carrying on            etl.py:13"
        )
        .unwrap()
    }),
    ("loguru", |o, i, m| {
        writeln!(
            o,
            "2026-12-01 20:09:58.{:03} | INFO     | etl.load:run:42 - batch {i}: {m}",
            i % 1000
        )
        .unwrap()
    }),
    ("structlog", |o, i, m| {
        writeln!(
            o,
            "2026-12-01T20:09:58.123456Z [info     ] batch_loaded   batch={i} note=\"{m}\""
        )
        .unwrap()
    }),
    ("json", |o, i, m| {
        writeln!(o, "{{\"timestamp\": \"2026-12-01T20:09:58Z\", \"level\": \"info\", \"message\": \"batch {i}: {m}\", \"logger\": \"etl\"}}").unwrap()
    }),
    ("log4j / spark", |o, i, m| {
        writeln!(
            o,
            "26/12/01 20:09:58 INFO TaskSetManager: Finished task {i}.0 in stage 1.0 (TID {i}): {m}"
        )
        .unwrap()
    }),
    ("logrus / slog", |o, i, m| {
        writeln!(
            o,
            "time=\"2026-12-01T20:09:58Z\" level=info msg=\"batch {i}: {m}\" component=etl"
        )
        .unwrap()
    }),
    ("continuations", |o, i, m| {
        writeln!(o, "[20:09:58] INFO     Completed transform {i}:").unwrap();
        writeln!(
            o,
            "                    (node_id=clean, rows_in=3, note={m})"
        )
        .unwrap()
    }),
    ("caught traceback", |o, i, m| {
        writeln!(
            o,
            "2026-11-28 22:56:51,001 - etl - WARNING - batch {i}: {m}"
        )
        .unwrap();
        writeln!(o, "Traceback (most recent call last):").unwrap();
        writeln!(o, "  File \"etl.py\", line 12, in load").unwrap();
        writeln!(o, "TimeoutError: read timed out").unwrap();
        writeln!(o, "2026-11-28 22:56:52,001 - etl - INFO - batch {i} done").unwrap()
    }),
];

/// [`SAMPLE`] bytes of records of `shapes`, in turn; every `every`th
/// names failure words harmlessly; with `traceback`, its shape every so
/// many records.
fn shaped(shapes: &[&Shape], every: u64, traceback: Option<(&Shape, u64)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(SAMPLE + 400);
    let mut i = 0u64;
    while out.len() < SAMPLE {
        let m = if i.is_multiple_of(every) {
            "call ended in Timeout, Interrupted once, retried"
        } else {
            "loaded 1200 rows into orders"
        };
        match traceback {
            Some((tb, n)) if i.is_multiple_of(n) => tb(&mut out, i, m),
            _ => (shapes[(i as usize) % shapes.len()])(&mut out, i, m),
        }
        i += 1;
    }
    // Whole records: cut after the last line of the last whole record.
    let cut = out[..SAMPLE]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    out.truncate(cut);
    out
}
