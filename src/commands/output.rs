//! How a subcommand talks to its user: stdout lines that survive a closed
//! pipe, every error printed the one way, and the errors that several
//! subcommands share.

use std::io::Write;
use std::path::PathBuf;

use crate::conclusion;
use crate::config::ConfigError;

/// Print to stdout; a closed pipe (`| head`) is not an error.
pub(crate) fn print_stdout(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Show `e` with its causes; every error a subcommand prints goes
/// through here. Config diagnostics are shown as they are: each line
/// already says `file:line:col: error:`.
pub(crate) fn print_error(e: &(dyn std::error::Error + 'static)) {
    conclusion::print_error(e, ConfigError::is_diagnostics(e));
}

/// Print `e` and return the exit code of a run that could not start.
pub(crate) fn usage_error(e: &(dyn std::error::Error + 'static)) -> i32 {
    print_error(e);
    conclusion::USAGE
}

/// Why a subcommand could not read or verify what it was given.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CommandError {
    #[error("cannot read {}", .0.display())]
    Read(PathBuf, #[source] std::io::Error),
    #[error("cannot verify {}", .0.display())]
    Verify(PathBuf, #[source] std::io::Error),
    #[error("cannot render the schema")]
    Schema(#[source] serde_json::Error),
}
