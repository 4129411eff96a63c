//! cargo-golden: golden projects and verify commands as test cases that
//! never report a false green.
//!
//! Layers, each depending only on those before it: declarations
//! ([`config`]) → output classification ([`classify`]) → the process side
//! ([`runner`]) → the event stream ([`events`]) → reporters ([`report`]) →
//! subcommands that are not a run ([`commands`]) and the command line
//! ([`cli`]). Baselines and snapshots ([`baseline`]) compare a finished
//! run with what was approved before its reports are written. The record
//! model ([`model`]), the artifact layout ([`layout`]), escape-sequence
//! removal ([`ansi`]), the shell commands run in ([`shell`]), secret masking
//! ([`redact`]), the out dir's lock and stale-report rule ([`outdir`]) and the
//! wire formats ([`wire`]) are shared by all of them. Two front doors use one
//! engine: the `cargo golden` command line and the libtest-mimic harness
//! ([`harness`]).

pub mod ansi;
pub mod baseline;
pub mod classify;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
pub mod commands;
pub mod config;
pub mod events;
pub mod exit;
pub mod harness;
pub mod hash;
pub mod layout;
pub mod model;
pub mod outdir;
pub mod redact;
pub mod report;
pub mod runner;
pub mod shell;
pub mod wire;
