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
//! Layers, each depending only on those before it: declarations
//! ([`config`]) → output classification ([`classify`]) → the process side
//! ([`runner`], whose [`runner::Run`] is the one engine of both front
//! doors) → the event stream ([`events`]) → reporters ([`report`]) → the
//! subcommands that are not a run and the command line (the `cli`
//! feature). Baselines and snapshots ([`baseline`]) compare a finished run
//! with what was approved before its reports are written. The record model
//! ([`model`]), the artifact layout ([`layout`]), the shell commands run in
//! (`shell`), secret masking ([`redact`]), evidence hashes ([`hash`]),
//! exit codes ([`exit`]) and the wire formats ([`wire`]) are shared by all
//! of them.

#![warn(unreachable_pub)]
// Without the command line, the code only it calls is unused.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]

// The modules marked `#[doc(hidden)]` are no library API: they are public
// only for the crate's own integration tests and benches, and expose no more
// than those use.

#[doc(hidden)]
pub mod ansi;
#[doc(hidden)]
pub mod baseline;
#[doc(hidden)]
pub mod classify;
/// The command line of the `cargo golden` binary; not a library API.
#[cfg(feature = "cli")]
#[doc(hidden)]
// Its doc comments are clap's help text, where `<out dir>` is a
// placeholder, not HTML.
#[allow(rustdoc::invalid_html_tags)]
pub mod cli;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod commands;
pub mod config;
pub mod events;
#[doc(hidden)]
pub mod exit;
pub(crate) mod fsio;
pub mod harness;
#[doc(hidden)]
pub mod hash;
#[doc(hidden)]
pub mod layout;
pub mod model;
pub(crate) mod outdir;
#[doc(hidden)]
pub mod redact;
#[doc(hidden)]
pub mod report;
pub mod runner;
pub(crate) mod shell;
pub(crate) mod userfile;
#[doc(hidden)]
pub mod wire;
