//! Observation records (SPEC section 7): the wire format of each line of
//! `observations.jsonl`, and its validation for `cargo golden validate`.
//!
//! One line per case that ran:
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
//!
//! Readers accept any `1.x.y` schema version and ignore fields they do not
//! know; a field is only ever added within a major version.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, BufRead};
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::CaseRecord;

/// The schema version written by this crate.
pub const SCHEMA_VERSION: &str = "1.0.0";
/// The value of the `type` field.
pub const OBSERVATION_TYPE: &str = "observation";

/// How `stdout` and `stderr` are encoded in an observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// Plain UTF-8 text.
    Utf8,
    /// Standard Base64 (with padding) of the raw bytes.
    Base64,
}

/// A flat metadata value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MetadataValue {
    /// A boolean.
    Bool(bool),
    /// An integer or float.
    Number(serde_json::Number),
    /// A string.
    String(String),
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

/// One observation record: one line of `observations.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// `1.x.y`; see [`SCHEMA_VERSION`].
    pub schema_version: String,
    /// Always `"observation"`.
    #[serde(rename = "type")]
    pub record_type: String,
    /// A fresh UUID v4 per record.
    pub tool_call_id: String,
    /// When the case started, nanoseconds since the Unix epoch, in decimal.
    pub timestamp_ns: String,
    /// Exit code of the command.
    pub exit_code: Option<i32>,
    /// Truncated stdout, as `encoding` says.
    pub stdout: String,
    /// Truncated stderr, as `encoding` says.
    pub stderr: String,
    /// Encoding of `stdout` and `stderr`.
    pub encoding: Encoding,
    /// Wall clock of the case in milliseconds.
    pub duration_ms: f64,
    /// Flat facts about the case: `case`, `kind`, `result`,
    /// `execution_status`, `status`, `index`, `line`, `flaky`,
    /// `raw_command` and `evidence_hash` when there is one.
    pub metadata: BTreeMap<String, MetadataValue>,
}

impl Observation {
    /// The observation of a case that ran.
    pub fn from_case(case: &CaseRecord) -> Observation {
        let text = |b: &[u8]| match std::str::from_utf8(b) {
            Ok(s) if !s.contains('\0') => Some(s.to_string()),
            _ => None,
        };
        let (stdout, stderr, encoding) = match (text(&case.stdout), text(&case.stderr)) {
            (Some(out), Some(err)) => (out, err, Encoding::Utf8),
            _ => (
                BASE64.encode(&case.stdout),
                BASE64.encode(&case.stderr),
                Encoding::Base64,
            ),
        };
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

        Observation {
            schema_version: SCHEMA_VERSION.to_string(),
            record_type: OBSERVATION_TYPE.to_string(),
            tool_call_id: uuid::Uuid::new_v4().to_string(),
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

/// One way a line of an observation file breaks the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The file as given.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// JSON path of the field, `$` for the whole line.
    pub path: String,
    /// What is wrong, with the value found.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file, self.line, self.path, self.message
        )
    }
}

/// Check every line of an observation file against the schema. An empty
/// result means the file is valid. Lines are read one at a time, so the
/// file may be large.
pub fn validate_file(path: &Path) -> io::Result<Vec<Violation>> {
    let file = std::fs::File::open(path)?;
    let name = path.display().to_string();
    let mut out = Vec::new();
    for (i, line) in io::BufReader::new(file).split(b'\n').enumerate() {
        let mut line = line?;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let mut v = Vec::new();
        validate_line(&line, &mut v);
        out.extend(v.into_iter().map(|(path, message)| Violation {
            file: name.clone(),
            line: i + 1,
            path,
            message,
        }));
    }
    Ok(out)
}

/// Violations of one line as `(field path, message)` pairs.
fn validate_line(line: &[u8], out: &mut Vec<(String, String)>) {
    let mut push = |path: &str, msg: String| out.push((path.to_string(), msg));
    if line.iter().all(u8::is_ascii_whitespace) {
        push("$", "invalid JSON: empty line".to_string());
        return;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            push("$", format!("invalid JSON: {e}"));
            return;
        }
    };
    let Some(obj) = value.as_object() else {
        push(
            "$",
            format!("must be an object, found {}", type_name(&value)),
        );
        return;
    };

    // Fields are checked in the order of the format, so messages come out
    // in the order a reader sees them.
    let field = |name: &str| obj.get(name);
    let string_field = |name: &str, push: &mut dyn FnMut(&str, String)| -> Option<String> {
        let path = format!("$.{name}");
        match field(name) {
            None => {
                push(&path, "missing required field".to_string());
                None
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                push(
                    &path,
                    format!("must be a string, found {}", describe(other)),
                );
                None
            }
        }
    };

    if let Some(v) = string_field("schema_version", &mut push)
        && !is_schema_version(&v)
    {
        push(
            "$.schema_version",
            format!("must match ^1\\.\\d+\\.\\d+$, found {v:?}"),
        );
    }
    if let Some(v) = string_field("type", &mut push)
        && v != OBSERVATION_TYPE
    {
        push("$.type", format!("must be \"observation\", found {v:?}"));
    }
    if let Some(v) = string_field("tool_call_id", &mut push)
        && uuid::Uuid::parse_str(&v).is_err()
    {
        push("$.tool_call_id", format!("must be a UUID, found {v:?}"));
    }
    if let Some(v) = string_field("timestamp_ns", &mut push)
        && (v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) || v.parse::<u128>().is_err())
    {
        push(
            "$.timestamp_ns",
            format!("must be a decimal string of nanoseconds since the Unix epoch, found {v:?}"),
        );
    }
    match field("exit_code") {
        None => push("$.exit_code", "missing required field".to_string()),
        Some(Value::Null) => {}
        Some(Value::Number(n)) if n.as_i64().is_some_and(|c| i32::try_from(c).is_ok()) => {}
        Some(other) => push(
            "$.exit_code",
            format!("must be an integer or null, found {}", describe(other)),
        ),
    }
    let stdout = string_field("stdout", &mut push);
    let stderr = string_field("stderr", &mut push);
    let encoding = string_field("encoding", &mut push);
    match encoding.as_deref() {
        Some("utf8") | None => {}
        Some("base64") => {
            for (name, text) in [("$.stdout", &stdout), ("$.stderr", &stderr)] {
                if let Some(t) = text
                    && let Err(e) = BASE64.decode(t)
                {
                    push(
                        name,
                        format!("not valid base64 (encoding is \"base64\"): {e}"),
                    );
                }
            }
        }
        Some(other) => push(
            "$.encoding",
            format!("must be \"utf8\" or \"base64\", found {other:?}"),
        ),
    }
    match field("duration_ms") {
        None => push("$.duration_ms", "missing required field".to_string()),
        Some(Value::Number(n)) => {
            if n.as_f64().is_none_or(|d| d < 0.0) {
                push("$.duration_ms", format!("must be >= 0, found {n}"));
            }
        }
        Some(other) => push(
            "$.duration_ms",
            format!("must be a number, found {}", describe(other)),
        ),
    }
    match field("metadata") {
        None => push("$.metadata", "missing required field".to_string()),
        Some(Value::Object(m)) => {
            for (k, v) in m {
                if matches!(v, Value::Object(_) | Value::Array(_) | Value::Null) {
                    push(
                        &format!("$.metadata{}", key_path(k)),
                        format!(
                            "metadata must be flat: a string, number or boolean, found {}",
                            type_name(v)
                        ),
                    );
                }
            }
        }
        Some(other) => push(
            "$.metadata",
            format!("must be an object, found {}", describe(other)),
        ),
    }
}

fn is_schema_version(v: &str) -> bool {
    let mut parts = v.split('.');
    let numeric =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    parts.next() == Some("1")
        && numeric(parts.next())
        && numeric(parts.next())
        && parts.next().is_none()
}

/// `.key` for identifier-like keys, `["key"]` otherwise.
fn key_path(key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!(".{key}")
    } else {
        format!("[{}]", Value::String(key.to_string()))
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The type and, for scalars, the value: `number 5`, `object`.
fn describe(v: &Value) -> String {
    match v {
        Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            let mut s = v.to_string();
            if s.len() > 40 {
                s.truncate(s.floor_char_boundary(40));
                s.push('…');
            }
            format!("{} {s}", type_name(v))
        }
        _ => type_name(v).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_versions() {
        assert!(is_schema_version("1.0.0"));
        assert!(is_schema_version("1.12.3"));
        for bad in ["v1", "2.0.0", "1.0", "1.0.0.0", "1..0", "1.a.0", ""] {
            assert!(!is_schema_version(bad), "{bad}");
        }
    }

    #[test]
    fn key_paths() {
        assert_eq!(key_path("case"), ".case");
        assert_eq!(key_path("a b"), "[\"a b\"]");
    }
}
