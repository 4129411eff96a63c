//! Exit codes of `cargo golden` (SPEC section 8), in one place.

/// Every case passed.
pub const SUCCESS: i32 = 0;
/// A case failed or errored (or a report could not be written).
pub const FAILED: i32 = 1;
/// Usage or config error: nothing ran.
pub const USAGE: i32 = 2;
/// The run was interrupted.
pub const INTERRUPTED: i32 = 3;
/// The reports disagree with each other or with the exit code.
pub const INTEGRITY: i32 = 4;

/// The exit code a finished run earns before its reports are written:
/// interrupted, else failed when any case failed or errored, else success.
pub fn for_record(record: &crate::model::RunRecord) -> i32 {
    if record.interrupted {
        INTERRUPTED
    } else if record.counts().failures() > 0 {
        FAILED
    } else {
        SUCCESS
    }
}

/// An error with its causes, `outer: cause: root cause`, for the terminal.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}
