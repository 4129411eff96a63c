//! The subcommands that are not a run: `init`, `merge`, `verify-evidence`,
//! `schema` (and the observation validator behind `validate`).

pub mod init;
pub mod merge;
pub mod schema;
pub mod verify;
