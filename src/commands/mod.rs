//! The subcommands that are not a run: `init`, `merge`, `verify-evidence`,
//! `schema` and `validate`.

pub mod init;
pub mod merge;
pub mod schema;
pub mod validate;
pub mod verify;
