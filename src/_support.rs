//! What the crate's own integration tests, benches and binaries use of its
//! internals, in one flat list. No API: it
//! is hidden from the docs and may change in any release (the pattern of
//! insta's `_cargo_insta_support`).

pub use crate::ansi::strip_str;
pub use crate::baseline::compare::{Comparison, Observed, Settings, compare};
pub use crate::baseline::{BaselineEntry, BaselineFile, SnapshotRedactor, verdict};
pub use crate::classify::{BUILTIN_ABORT, BUILTIN_RUNTIME, BUILTIN_VALIDATION, Patterns};
#[cfg(feature = "cli")]
pub use crate::cli::{golden_main, main};
#[cfg(feature = "cli")]
pub use crate::commands::init::{
    Conflict, Dependency, InitError, InitOptions, InitReport, ShapeProblem, init,
};
#[cfg(feature = "cli")]
pub use crate::commands::schema::{harness_schema, observation_schema};
pub use crate::conclusion::{Reports, Results, error_chain};
pub use crate::config::schema::HarnessFile;
#[cfg(feature = "schema")]
pub use crate::config::schema::table_keys;
pub use crate::config::{HarnessConfig, KNOWN_KEYS, PatternConfig};
pub use crate::hash::{evidence_hash, sha256_file, sha256_hex};
pub use crate::layout::Artifacts;
pub use crate::model::{
    CaseKind, CaseRecord, CaseResult, EvidenceStatus, ExecutionStatus, Gate, Issue, IssueType,
    JunitFlavour, RunRecord, Severity, Stage,
};
pub use crate::redact::Redactor;
pub use crate::report::attest::{ENVELOPE_FILE, EXTENSION_KEY, PAYLOAD_TYPE, STATEMENT_FILE, pae};
pub use crate::report::seal::seal;
pub use crate::report::{check_integrity, expected_exit_code, report_files, write_all};
pub use crate::time::Timestamp;
pub use crate::wire::evidence::Evidence;
pub use crate::wire::observation::Observation;
