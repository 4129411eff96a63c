//! Platform code: process groups, signals, pipe polling.
//!
//! Everything that differs between operating systems lives below this
//! module so another platform can follow with a sibling of `unix.rs`.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;
