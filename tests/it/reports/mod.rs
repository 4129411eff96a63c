//! Report tests: the files written for a run, read back with real parsers;
//! snapshots of every format; observation validation; evidence
//! verification; the streaming reporters.

mod attestation;
mod files;
mod integrity;
mod properties;
mod reporters;
mod snapshots;
mod support;
mod validate;
mod verify;
