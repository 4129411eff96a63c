//! The subcommands that are not a run: `init`, `merge`, `verify-evidence`,
//! `diff`, `history`, `schema`, `snapshots` and `validate`.

pub(crate) mod bless_from;
pub(crate) mod diff;
pub(crate) mod history;
pub mod init;
pub mod installed;
pub(crate) mod merge;
pub mod schema;
pub(crate) mod snapshots;
pub mod validate;
pub mod verify;
