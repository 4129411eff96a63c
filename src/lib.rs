//! cargo-golden: golden projects and verify commands as test cases that
//! never report a false green.
//!
//! Most users need one function: [`harness::main`], the body of
//! `tests/golden.rs` (a `harness = false` test target), which runs the
//! cases declared in `harness.toml` under `cargo test` or `cargo nextest
//! run`. For that, depend on this crate with `default-features = false`:
//! the `cli` feature (on by default) builds the `cargo golden` command line
//! and its subcommands, which the harness does not need.
//!
//! The library API beyond it: the declarations ([`config`], loaded with
//! [`config::HarnessConfig::load`]), the run entry point ([`runner::Run`] with
//! [`runner::RunOptions`], the one engine of both front doors), the event
//! stream it emits ([`events`]) and the record of a run ([`model`]).
//!
//! Inside, each layer depends only on those below it (`.ci/layers` checks
//! it): the ground (escape stripping, hashes, the artifact layout, shells,
//! secret masking, atomic writes) → the record model → the declarations →
//! output classification, the wire formats, the event stream and exit
//! codes → baselines and snapshots → the runner → the reports and the out
//! dir → the subcommands → the front doors.

#![warn(unreachable_pub)]
// Without the command line, the code only it calls is unused.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]
// Unit tests read the files they wrote themselves; the code they test is
// linted without this, in the library's own build (see clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

// The modules marked `#[doc(hidden)]` are no library API: they are public
// only for the crate's own integration tests and benches, and expose no more
// than those use.

#[doc(hidden)]
pub mod ansi;
pub(crate) mod atomic;
#[doc(hidden)]
pub mod baseline;
#[doc(hidden)]
pub mod classify;
/// The command line of the `cargo golden` binary; not a library API.
#[cfg(feature = "cli")]
#[doc(hidden)]
// Its doc comments are clap's help text, where `<out dir>` is a
// placeholder, not HTML, and `[harness]` the harness file's table, not a
// link.
#[allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]
pub mod cli;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod commands;
#[doc(hidden)]
pub mod conclusion;
pub mod config;
pub(crate) mod data;
pub mod events;
/// The `cargo test` / `cargo nextest run` front door: [`harness::main`]
/// is the body of `tests/golden.rs`.
pub mod harness {
    pub use crate::libtest::main;
}
#[doc(hidden)]
pub mod hash;
#[doc(hidden)]
pub mod layout;
pub(crate) mod libtest;
pub mod model;
pub(crate) mod outdir;
pub(crate) mod parallel;
#[doc(hidden)]
pub mod redact;
#[doc(hidden)]
pub mod report;
pub mod runner;
pub(crate) mod shell;
/// Instants and days as the run record writes them.
pub mod time;
pub(crate) mod untrusted;
#[doc(hidden)]
pub mod wire;
pub(crate) mod xml;
