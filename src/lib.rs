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
//! ([`shell`]), secret masking ([`redact`]), evidence hashes ([`hash`]),
//! exit codes ([`exit`]) and the wire formats ([`wire`]) are shared by all
//! of them.

/// Escape-sequence removal; not a library API (exposed for the crate's own
/// tests).
#[doc(hidden)]
pub mod ansi;
pub mod baseline;
pub mod classify;
#[cfg(feature = "cli")]
pub mod cli;
/// The subcommands that are not a run; not a library API (exposed for the
/// crate's own tests).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod commands;
pub mod config;
pub mod events;
pub mod exit;
pub(crate) mod fsio;
pub mod harness;
pub mod hash;
pub mod layout;
pub mod model;
pub(crate) mod outdir;
pub mod redact;
pub mod report;
pub mod runner;
pub mod shell;
pub mod userfile;
pub mod wire;
