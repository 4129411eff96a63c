//! The subcommands that are not a run: `init`, `merge`, `verify-evidence`,
//! `diff`, `history`, `schema` and `validate`.

pub(crate) mod diff;
pub(crate) mod history;
pub mod init;
pub mod installed;
pub(crate) mod merge;
pub mod schema;
pub mod validate;
pub mod verify;
