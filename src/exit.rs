//! Exit codes of `cargo golden` (SPEC section 8), in one place.

/// Every case passed.
pub const SUCCESS: i32 = 0;
/// A case failed or errored (or a report could not be written).
pub const FAILED: i32 = 1;
/// Usage or config error: nothing ran.
pub const USAGE: i32 = 2;
/// The run was interrupted.
pub const INTERRUPTED: i32 = crate::interrupt::EXIT_INTERRUPTED;
/// The reports disagree with each other or with the exit code.
pub const INTEGRITY: i32 = 4;
