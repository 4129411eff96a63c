//! cargo-golden: golden projects and verify commands as test cases that
//! never report a false green.
//!
//! One engine ([`engine`]) runs the declared cases ([`config`]), classifies
//! their output ([`classify`]) and emits one event stream ([`events`]) that
//! every reporter consumes. Two front doors share it: the `cargo golden`
//! command line ([`cli`]) and the libtest-mimic harness ([`harness`]).

pub mod capture;
pub mod classify;
pub mod cli;
pub mod config;
pub mod engine;
pub mod events;
pub mod exit;
pub mod harness;
pub mod hash;
pub mod init;
pub mod interrupt;
pub mod isolation;
pub mod merge;
pub mod model;
pub mod observation;
pub mod paths;
pub mod process;
pub mod report;
pub mod schema;
pub mod select;
pub mod sys;
pub mod verify;
