//! The subcommands that are not a run: `init`, `merge`, `verify-evidence`,
//! `diff`, `history`, `schema`, `snapshots`, `validate`, and the
//! blessing ones that run nothing: `bless --from` and `review`.

pub(crate) mod bless_from;
pub(crate) mod diff;
pub(crate) mod history;
pub mod init;
pub mod installed;
pub(crate) mod merge;
pub(crate) mod review;
pub mod schema;
pub(crate) mod snapshots;
pub mod validate;
pub mod verify;
