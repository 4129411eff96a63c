//! The integration tests, in one test binary: one module per area, the
//! shared helpers in `common`. One binary links once and runs all of its
//! tests in parallel (libtest's `--test-threads`), where a binary per file
//! linked the library again for each file and ran the files one by one.
//!
//! `tests/golden.rs` stays a target of its own: it is the libtest-mimic
//! harness (`harness = false`) that `cargo test --test golden` runs.
//!
//! Tests here share one process: none may change process-wide state (the
//! environment, the current directory); they pass what a child needs to
//! its `Command`, and each works in its own temporary directory.
// Tests read the files they wrote and the tool wrote: clippy.toml
// keeps the guarded reader to the library.
#![allow(clippy::disallowed_methods)]

mod common;

mod attestation;
mod baseline;
mod classification;
mod cli;
mod containment;
mod corpus;
mod data_teams;
mod docs;
mod engine;
mod first_hour;
mod front_doors;
mod github;
mod history;
mod hostile_files;
mod html_report;
mod init;
mod judging;
mod junit;
mod merge;
mod messages;
mod real_tools;
mod review;
mod scale;
mod schema;
mod secrets;
mod tables;
mod trust;
mod typed_data;
mod windows;
mod wine_smoke;
mod wire;
