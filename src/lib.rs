//! cargo-golden: golden projects and verify commands as test cases that
//! never report a false green.
//!
//! The library's API is one function: [`harness::main`], the body of
//! `tests/golden.rs` (a `harness = false` test target), which runs the
//! cases declared in `harness.toml` under `cargo test` or `cargo nextest
//! run`. For that, depend on this crate with `default-features = false`:
//! the `cli` feature (on by default) builds the `cargo golden` command line
//! and its subcommands, which the harness does not need.
//!
//! Every module is private. The crate's own integration tests, benches and
//! binaries reach what they use through a hidden `_support` module, which
//! is no API and may change in any release.
//!
//! Inside, each layer depends only on those below it (`.ci/layers` checks
//! it): the ground (escape stripping, hashes, the artifact layout, shells,
//! secret masking, atomic writes) → the record model → the declarations →
//! output classification, the wire formats, the event stream and exit
//! codes → baselines and snapshots → the runner → the reports and the out
//! dir → the subcommands → the front doors.

#![warn(unreachable_pub)]
// Docs of internals link to other internals: they are read in the source
// and with `cargo doc --document-private-items`, never in the public docs.
#![allow(rustdoc::private_intra_doc_links)]
// Without the command line, the code only it calls is unused.
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]
// Unit tests read the files they wrote themselves; the code they test is
// linted without this, in the library's own build (see clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

// Every module is private: the API is the front door below. The crate's
// own integration tests, benches and binaries reach the rest through
// `_support`, which is no API.

mod ansi;
mod atomic;
mod baseline;
mod classify;
// Its doc comments are clap's help text, where `<out dir>` is a
// placeholder, not HTML, and `[harness]` the harness file's table, not a
// link.
#[cfg(feature = "cli")]
#[allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]
mod cli;
#[cfg(feature = "cli")]
mod commands;
mod conclusion;
mod config;
mod data;
mod events;
mod hash;
mod layout;
mod libtest;
mod model;
mod outdir;
mod parallel;
mod redact;
mod report;
mod runner;
mod shell;
mod time;
mod untrusted;
mod wire;
mod xml;

/// The `cargo test` / `cargo nextest run` front door: [`harness::main`]
/// is the body of `tests/golden.rs`.
pub mod harness {
    pub use crate::libtest::main;
}

#[doc(hidden)]
pub mod _support;
