//! The subcommands: `run` and `list`, `init`, `merge`, `verify-evidence`,
//! `clean`, `diff`, `history`, `schema`, `snapshots`, `validate`, and the
//! blessing ones that run nothing: `bless --from` and `review`. Each takes
//! values the command line has already parsed and located (see
//! `Loaded`), does its work, tells the user, and returns the exit code.

use std::path::PathBuf;

use crate::config::HarnessConfig;

pub(crate) mod bless_from;
pub(crate) mod clean;
pub(crate) mod diff;
pub(crate) mod history;
pub(crate) mod init;
pub(crate) mod installed;
pub(crate) mod list;
pub(crate) mod merge;
pub(crate) mod output;
pub(crate) mod review;
pub(crate) mod run;
pub(crate) mod schema;
pub(crate) mod snapshots;
pub(crate) mod validate;
pub(crate) mod verify;

/// The harness file, read with what the command line adds to it, and the
/// out dir: what a subcommand that works on a harness takes.
pub(crate) struct Loaded {
    /// The declarations.
    pub(crate) harness: HarnessConfig,
    /// Where outputs go; empty when the subcommand needs none and none was
    /// given.
    pub(crate) out_dir: PathBuf,
}

/// Output format of the streaming messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum MessageFormat {
    /// Lines for people.
    #[default]
    Human,
    /// One JSON object per event on stdout.
    Json,
}
