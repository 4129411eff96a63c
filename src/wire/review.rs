//! `review/<run_id>.jsonl` in the out dir: the decisions `cargo golden
//! review` took on the pending snapshots of one run, one line each,
//! appended as they are taken.
//!
//! ```json
//! {"schema_version": "1.0.0", "case": "sales", "file": "snapshots/sales.out.sales.csv.data",
//!  "pending": "artifacts/<run_id>/execution/002-sales/pending/sales.out.sales.csv.data",
//!  "sha256": "3b0f…", "decision": "rejected", "at": "2026-11-29T02:01:40Z"}
//! ```
//!
//! The run dir is sealed and never edited, so a decision is recorded here,
//! beside it, rather than by removing the pending file: the run still
//! verifies after a review, and a change decided once is not offered again.
//! A line names the pending file and its sha256, so a decision holds for
//! that text alone.

use serde::{Deserialize, Serialize};

/// The schema version written by this crate.
pub(crate) const SCHEMA_VERSION: &str = "1.0.0";

/// What was decided on a pending snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Decision {
    /// Its text was written to the snapshot file.
    Accepted,
    /// It was turned down: the snapshot file was left as it was.
    Rejected,
}

impl Decision {
    /// `accepted` or `rejected`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Decision::Accepted => "accepted",
            Decision::Rejected => "rejected",
        }
    }
}

/// One decision on one pending snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct DecisionLine {
    /// Version of this format: `1.<minor>.<patch>`.
    pub(crate) schema_version: String,
    /// The case whose snapshot it is.
    pub(crate) case: String,
    /// The snapshot file, relative to the harness file's directory.
    pub(crate) file: String,
    /// The pending file, relative to the out dir.
    pub(crate) pending: String,
    /// sha256 of the pending file's bytes.
    pub(crate) sha256: String,
    /// What was decided.
    pub(crate) decision: Decision,
    /// When, RFC 3339 UTC.
    pub(crate) at: crate::time::Timestamp,
}
