//! Observation records (docs/reports.md, What a run leaves): one line of
//! `observations.jsonl` per case that ran.
//!
//! ```json
//! {"schema_version": "1.0.0", "type": "observation",
//!  "tool_call_id": "<uuid v4>", "timestamp_ns": "1763765058123456789",
//!  "exit_code": 0, "stdout": "…", "stderr": "…", "encoding": "utf8",
//!  "duration_ms": 12.5, "metadata": {"case": "…", "kind": "golden", "result": "PASSED"}}
//! ```
//!
//! - `timestamp_ns` is a decimal **string**: nanoseconds since the epoch do
//!   not fit the 53-bit integers many JSON readers use.
//! - `stdout`/`stderr` are the truncated copies; when either is not valid
//!   UTF-8 or holds a NUL, both are Base64 and `encoding` is `"base64"`, so a
//!   reader decodes both the same way.
//! - `metadata` is flat: string, number or boolean values only.

#[cfg(feature = "schema")]
use std::borrow::Cow;
use std::collections::BTreeMap;

#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg(feature = "schema")]
use super::UUID_PATTERN;
use super::{Encoding, encode_outputs};
use crate::model::CaseRecord;

/// The schema version written by this crate.
pub(crate) const SCHEMA_VERSION: &str = "1.0.0";

/// What `timestamp_ns` matches: decimal digits only.
pub(crate) const TIMESTAMP_PATTERN: &str = r"^[0-9]+$";

/// The `type` tag of an observation record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) enum ObservationType {
    /// Always `"observation"`.
    #[serde(rename = "observation")]
    Observation,
}

/// A flat metadata value: a string, a number or a boolean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum MetadataValue {
    /// A boolean.
    Bool(bool),
    /// An integer or float.
    Number(serde_json::Number),
    /// A string.
    String(String),
}

// One `type` list rather than the `anyOf` a derive would give: a nested
// value is then reported as one plain type error.
#[cfg(feature = "schema")]
impl JsonSchema for MetadataValue {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "MetadataValue".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": ["string", "number", "boolean"] })
    }
}

impl From<&str> for MetadataValue {
    fn from(s: &str) -> Self {
        MetadataValue::String(s.to_string())
    }
}

impl From<usize> for MetadataValue {
    fn from(n: usize) -> Self {
        MetadataValue::Number(serde_json::Number::from(n))
    }
}

impl From<bool> for MetadataValue {
    fn from(b: bool) -> Self {
        MetadataValue::Bool(b)
    }
}

/// # cargo-golden observation
///
/// One line of `observations.jsonl`: one case that ran. Fields added by
/// later `1.x` versions are allowed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(transform = super::base64_when_encoded))]
pub struct Observation {
    /// Version of this record format: `1.<minor>.<patch>`.
    #[cfg_attr(
        feature = "schema",
        schemars(schema_with = "super::schema_version_schema")
    )]
    pub(crate) schema_version: String,
    /// Always `"observation"`.
    #[serde(rename = "type")]
    pub(crate) record_type: ObservationType,
    /// Unique id of this execution: a fresh UUID v4 per record.
    #[cfg_attr(feature = "schema", schemars(extend("pattern" = UUID_PATTERN)))]
    pub(crate) tool_call_id: uuid::Uuid,
    /// When the case started: nanoseconds since the Unix epoch, as a
    /// decimal string (too large for a JSON number read as a double).
    #[cfg_attr(feature = "schema", schemars(extend("pattern" = TIMESTAMP_PATTERN), example = &"1763765058123456789"))]
    pub(crate) timestamp_ns: String,
    /// Exit code of the command; 128+N when it was killed by signal N;
    /// null when there is none.
    pub(crate) exit_code: Option<i32>,
    /// stdout, truncated as in the reports; Base64 when `encoding` is
    /// `"base64"`.
    pub(crate) stdout: String,
    /// stderr, truncated as in the reports; Base64 when `encoding` is
    /// `"base64"`.
    pub(crate) stderr: String,
    /// `"utf8"`, or `"base64"` when stdout or stderr holds bytes that are
    /// not valid UTF-8 (or a NUL): then both are Base64.
    pub(crate) encoding: Encoding,
    /// Wall-clock duration in milliseconds.
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) duration_ms: f64,
    /// Flat key/value facts about the case (`case`, `kind`, `result`,
    /// `execution_status`, `status`, `index`, `line`, `flaky`,
    /// `raw_command`, and `evidence_hash` when there is one): strings,
    /// numbers or booleans, never nested.
    pub(crate) metadata: BTreeMap<String, MetadataValue>,
}

impl Observation {
    /// The observation of a case that ran.
    pub(crate) fn from_case(case: &CaseRecord) -> Observation {
        let (stdout, stderr, encoding) = encode_outputs(&case.stdout, &case.stderr);
        let timestamp_ns = case
            .started_at
            .or(case.finished_at)
            .map(|t| t.as_nanosecond())
            .unwrap_or(0)
            .to_string();

        let mut metadata = BTreeMap::new();
        metadata.insert("case".to_string(), case.name.as_str().into());
        metadata.insert("kind".to_string(), case.kind.as_str().into());
        metadata.insert("result".to_string(), case.result.as_str().into());
        metadata.insert(
            "execution_status".to_string(),
            case.execution_status.as_str().into(),
        );
        metadata.insert("status".to_string(), case.status.as_str().into());
        metadata.insert("index".to_string(), case.index.into());
        metadata.insert("line".to_string(), case.line.into());
        metadata.insert("flaky".to_string(), case.flaky.into());
        metadata.insert("raw_command".to_string(), case.raw_command.as_str().into());
        if let Some(h) = &case.evidence_hash {
            metadata.insert("evidence_hash".to_string(), h.as_str().into());
        }
        if case.quarantined() {
            metadata.insert("quarantined".to_string(), true.into());
        }

        Observation {
            schema_version: SCHEMA_VERSION.to_string(),
            record_type: ObservationType::Observation,
            tool_call_id: uuid::Uuid::new_v4(),
            timestamp_ns,
            exit_code: case.exit_code,
            stdout,
            stderr,
            encoding,
            duration_ms: case.duration.as_secs_f64() * 1000.0,
            metadata,
        }
    }
}

/// Checks of an observation line that its JSON Schema cannot express, as
/// `(field path, message)` pairs: the timestamp must fit 128 bits, the
/// exit code 32.
pub(crate) fn beyond_schema(line: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(Value::String(t)) = line.get("timestamp_ns")
        && !t.is_empty()
        && t.bytes().all(|b| b.is_ascii_digit())
        && t.parse::<u128>().is_err()
    {
        out.push((
            "$.timestamp_ns".to_string(),
            format!("must be a decimal string of nanoseconds since the Unix epoch, found {t:?}"),
        ));
    }
    if let Some(Value::Number(n)) = line.get("exit_code")
        && (n.is_i64() || n.is_u64())
        && n.as_i64().and_then(|c| i32::try_from(c).ok()).is_none()
    {
        out.push((
            "$.exit_code".to_string(),
            format!("must fit a 32-bit exit code, found {n}"),
        ));
    }
    out
}
