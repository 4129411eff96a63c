//! `--message-format json`: one JSON object per line on stdout, each with a
//! `reason` naming what it reports, as `cargo build --message-format json`
//! does. `cargo golden run` prints the event messages, `cargo golden list`
//! one `case` message per case.
//!
//! | reason | fields |
//! |---|---|
//! | `run-started` | `run_id`, `suite_name`, `case_count` |
//! | `case-started` | `index`, `name`, `kind` |
//! | `case-finished` | `index`, `name`, `kind`, `line`, `result`, `execution_status`, `status`, `exit_code`, `duration_seconds`, `evidence_hash`, `flaky`, `attempts`, `issues`, `warnings`, `not_run_reason`, `evidence` |
//! | `warning` | `message` |
//! | `run-finished` | `run_id`, `final_status`, `counts`, `duration_seconds`, `interrupted`, `exit_code`, `reports` |
//! | `case` (`list`) | `index`, `name`, `kind`, `file`, `line`, `command` |
//!
//! Every line also carries `schema_version`. Output text is not included
//! (it is in the evidence files and reports); a consumer that wants it
//! follows `evidence`.

use serde::{Deserialize, Serialize};

use crate::model::{CaseKind, CaseResult, Counts, EvidenceStatus, ExecutionStatus, Issue};

/// The schema version written by this crate: 1.1 added `baseline` to
/// `run-finished`; 1.2 `counts.quarantined`.
pub(crate) const SCHEMA_VERSION: &str = "1.2.0";

/// # cargo-golden JSON message
///
/// One line of `--message-format json` output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct MessageLine {
    /// What the line reports, named by `reason`.
    #[serde(flatten)]
    pub(crate) message: Message,
    /// Version of this format: `1.<minor>.<patch>`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "super::schema_version_schema")
    )]
    pub(crate) schema_version: String,
}

impl From<Message> for MessageLine {
    fn from(message: Message) -> Self {
        MessageLine {
            message,
            schema_version: SCHEMA_VERSION.to_string(),
        }
    }
}

/// What a message line reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub(crate) enum Message {
    /// The run is about to start.
    RunStarted {
        /// Run id.
        run_id: String,
        /// Suite name.
        suite_name: String,
        /// Cases that will run or be skipped in this run.
        case_count: usize,
    },
    /// A case started running.
    CaseStarted {
        /// 0-based declaration index.
        index: usize,
        /// Case name.
        name: String,
        /// `golden` or `verify`.
        kind: CaseKind,
    },
    /// A case is still running after another `slow` period.
    CaseSlow {
        /// 0-based declaration index.
        index: usize,
        /// Case name.
        name: String,
        /// `golden` or `verify`.
        kind: CaseKind,
        /// How long it has run: a whole number of `slow` periods.
        elapsed_seconds: f64,
    },
    /// A case finished: passed, failed, errored or was skipped.
    CaseFinished(Box<CaseFinished>),
    /// A run-level warning.
    Warning {
        /// The warning.
        message: String,
    },
    /// The run is over and its reports are written.
    RunFinished(Box<RunFinished>),
    /// A case as `cargo golden list` shows it.
    Case {
        /// 0-based declaration index.
        index: usize,
        /// Case name.
        name: String,
        /// `golden` or `verify`.
        kind: CaseKind,
        /// The harness file, as the reports name it.
        file: String,
        /// Line of the declaration (1-based).
        line: usize,
        /// The command the case runs.
        command: String,
    },
}

/// The `case-finished` message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct CaseFinished {
    /// 0-based declaration index.
    pub(crate) index: usize,
    /// Case name.
    pub(crate) name: String,
    /// `golden` or `verify`.
    pub(crate) kind: CaseKind,
    /// Line of the declaration (1-based).
    pub(crate) line: usize,
    /// What the case counts as.
    pub(crate) result: CaseResult,
    /// Classification of its output.
    pub(crate) execution_status: ExecutionStatus,
    /// `SUCCESS`, `FAILURE` or `NO_EVIDENCE`.
    pub(crate) status: EvidenceStatus,
    /// Exit code; null when not run.
    pub(crate) exit_code: Option<i32>,
    /// Wall clock in seconds.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) duration_seconds: f64,
    /// Hex sha256 evidence hash; null when not run.
    pub(crate) evidence_hash: Option<String>,
    /// Passed on a retry after failing.
    pub(crate) flaky: bool,
    /// Attempts made (1 without retries).
    pub(crate) attempts: usize,
    /// Issues (at least one when FAILED or ERROR).
    pub(crate) issues: Vec<Issue>,
    /// Warnings about the case.
    pub(crate) warnings: Vec<String>,
    /// Why the case was skipped or could not run.
    pub(crate) not_run_reason: Option<String>,
    /// Its `evidence.json`, relative to the out dir; null when none.
    pub(crate) evidence: Option<String>,
}

/// The `run-finished` message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct RunFinished {
    /// Run id.
    pub(crate) run_id: String,
    /// `SUCCESS`, `PARTIAL (...)` or `FAILURE`.
    #[cfg_attr(feature = "schema", schemars(extend("pattern" = super::FINAL_STATUS_PATTERN)))]
    pub(crate) final_status: String,
    /// Result counts.
    pub(crate) counts: Counts,
    /// Wall clock of the run in seconds.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) duration_seconds: f64,
    /// The run was interrupted.
    pub(crate) interrupted: bool,
    /// The exit code the process ends with, report failures and integrity
    /// violations included.
    pub(crate) exit_code: i32,
    /// Paths of the reports.
    pub(crate) reports: ReportPaths,
    /// The comparison with the verdict baseline; null when the run was not
    /// compared.
    #[serde(default)]
    pub(crate) baseline: Option<BaselineOutcome>,
}

/// How a run compared with its baseline (summary.json holds every case).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct BaselineOutcome {
    /// What the exit code follows.
    pub(crate) gate: crate::config::Gate,
    /// Cases per comparison class.
    pub(crate) counts: crate::model::ClassCounts,
    /// Whether the baseline gate lets the run pass.
    pub(crate) passes_gate: bool,
}

/// Paths of the file reports of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct ReportPaths {
    /// `junit.xml`.
    pub(crate) junit: String,
    /// `report.md`.
    pub(crate) markdown: String,
    /// `summary.json`.
    pub(crate) summary: String,
    /// `observations.jsonl`.
    pub(crate) observations: String,
}
