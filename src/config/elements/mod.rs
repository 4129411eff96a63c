//! The keys of the harness file, one element per key or table group, as
//! nextest's `config/elements`: each owns its wire definition (serde and
//! schemars attributes, doc comments that become the schema's and the
//! keys reference's descriptions), its check over the spanned tree with
//! `file:line:col` diagnostics, and its tests. Enum values are spelled
//! once, by serde ([`crate::config::spelling`]).
//!
//! The walk that visits them in file order and gathers every error of a
//! file is [`crate::config::validate`]; the whole file's type and the
//! schema it prints are [`crate::config::schema`].

pub(crate) mod case;
pub(crate) mod env;
pub(crate) mod gate;
pub(crate) mod golden;
pub(crate) mod harness;
pub(crate) mod isolation;
pub(crate) mod outputs;
pub(crate) mod patterns;
pub(crate) mod presets;
pub(crate) mod quarantine;
pub(crate) mod result;
pub(crate) mod retries;
pub(crate) mod snapshots;
pub(crate) mod values;
pub(crate) mod verify;
