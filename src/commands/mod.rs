//! The subcommands that are not a run: `init`, `merge`, `verify-evidence`,
//! `diff`, `schema` and `validate`.

pub mod diff;
pub mod init;
pub mod merge;
pub mod schema;
pub mod validate;
pub mod verify;
