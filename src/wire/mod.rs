//! Wire formats: the files and messages other tools read, one typed,
//! versioned definition each. Writers serialize these types, readers
//! (`verify-evidence`, `merge`, the integrity check) deserialize the same
//! types, and the JSON Schemas that `cargo golden schema` prints and
//! `cargo golden validate` checks against are generated from them, so a
//! field exists in exactly one place.
//!
//! | format | type | schema |
//! |---|---|---|
//! | `harness.toml` | [`crate::config::schema::HarnessFile`] | `schema` |
//! | `observations.jsonl` lines | [`observation::Observation`] | `schema --observation` |
//! | `summary.json` | `summary::Summary` | `schema --summary` |
//! | `evidence.json` | [`evidence::Evidence`] | `schema --evidence` |
//! | `history.jsonl` lines | [`history::HistoryLine`] | `schema --history` |
//! | `--message-format json` lines (`run` and `list`) | `message::Message` | `schema --message` |
//! | `review/<run_id>.jsonl` lines | `review::DecisionLine` | none (read by `review` alone) |
//!
//! Every output format carries a `schema_version` `1.<minor>.<patch>`:
//! readers accept any `1.x.y` and ignore fields they do not know; a field
//! is only ever added within a major version.

pub(crate) mod case_run;
pub(crate) mod evidence;
pub(crate) mod history;
pub(crate) mod message;
pub(crate) mod observation;
pub(crate) mod review;
pub(crate) mod summary;

#[cfg(feature = "schema")]
use crate::config::schema::generate;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
#[cfg(feature = "schema")]
use schemars::generate::{Contract, SchemaSettings};
#[cfg(feature = "schema")]
use schemars::json_schema;
#[cfg(feature = "schema")]
use schemars::transform::RecursiveTransform;
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Serialize};
#[cfg(feature = "schema")]
use serde_json::Value;

/// What every `schema_version` matches: major version 1.
pub(crate) const SCHEMA_VERSION_PATTERN: &str = r"^1\.\d+\.\d+$";

/// The final status of a run, as [`crate::model::FinalStatus`] writes it.
pub(crate) const FINAL_STATUS_PATTERN: &str =
    r"^(SUCCESS|FAILURE|PARTIAL \([0-9]+ (golden project\(s\)|case\(s\)) failed\))$";

/// Standard Base64 with padding (RFC 4648 section 4).
pub(crate) const BASE64_PATTERN: &str =
    r"^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";

/// A hyphenated UUID. The draft-07 `uuid` format does not exist (it came
/// with 2019-09), so the pattern is what checks it.
pub(crate) const UUID_PATTERN: &str =
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/// Whether `v` is a schema version this crate reads (`1.x.y`).
pub(crate) fn is_schema_version(v: &str) -> bool {
    let mut parts = v.split('.');
    let numeric =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    parts.next() == Some("1")
        && numeric(parts.next())
        && numeric(parts.next())
        && parts.next().is_none()
}

/// How the `stdout` and `stderr` copies of a case are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum Encoding {
    /// Plain UTF-8 text.
    #[default]
    Utf8,
    /// Standard Base64 (with padding) of the raw bytes: used for both when
    /// either holds bytes that are not valid UTF-8, or a NUL.
    Base64,
}

/// The output copies of a case as written on the wire, losslessly: text
/// when both are UTF-8 without NUL, else both Base64, so a reader decodes
/// both the same way and gets the exact bytes back.
pub(crate) fn encode_outputs(stdout: &[u8], stderr: &[u8]) -> (String, String, Encoding) {
    let text = |b: &[u8]| match std::str::from_utf8(b) {
        Ok(s) if !s.contains('\0') => Some(s.to_string()),
        _ => None,
    };
    match (text(stdout), text(stderr)) {
        (Some(out), Some(err)) => (out, err, Encoding::Utf8),
        _ => (
            BASE64.encode(stdout),
            BASE64.encode(stderr),
            Encoding::Base64,
        ),
    }
}

/// The bytes of an output copy written as `encoding` says.
pub(crate) fn decode_output(
    text: &str,
    encoding: Encoding,
) -> Result<Vec<u8>, base64::DecodeError> {
    match encoding {
        Encoding::Utf8 => Ok(text.as_bytes().to_vec()),
        Encoding::Base64 => BASE64.decode(text),
    }
}

#[cfg(feature = "schema")]
/// The JSON Schema (draft-07) of an output format: what the writer
/// produces, so every serialized field is required; `null` is allowed
/// where the field is optional.
pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft07();
    settings.contract = Contract::Serialize;
    settings.transforms.insert(
        0,
        Box::new(RecursiveTransform(consts_to_enum as fn(&mut Schema))),
    );
    generate::<T>(settings)
}

#[cfg(feature = "schema")]
/// A unit enum with documented variants comes out as a `oneOf` of
/// `const`s; an `enum` says the same, and a validator then reports a wrong
/// value as "must be one of these" rather than "matches no branch". The
/// variants' docs move into the description.
fn consts_to_enum(schema: &mut Schema) {
    let Some(Value::Array(variants)) = schema.get("oneOf") else {
        return;
    };
    let consts: Option<Vec<(Value, Option<&str>)>> = variants
        .iter()
        .map(|v| {
            let text = v.get("const").filter(|c| c.is_string())?;
            Some((text.clone(), v.get("description").and_then(Value::as_str)))
        })
        .collect();
    let Some(consts) = consts else {
        return;
    };
    let docs: Vec<String> = consts
        .iter()
        .filter_map(|(c, doc)| Some(format!("`{}`: {}", c.as_str()?, (*doc)?)))
        .collect();
    let values: Vec<Value> = consts.into_iter().map(|(c, _)| c).collect();
    schema.remove("oneOf");
    schema.insert("type".into(), "string".into());
    schema.insert("enum".into(), values.into());
    if !docs.is_empty() {
        let head = schema
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!("{d}\n\n"))
            .unwrap_or_default();
        schema.insert(
            "description".into(),
            format!("{head}{}", docs.join(" ")).into(),
        );
    }
}

#[cfg(feature = "schema")]
/// With `"encoding": "base64"`, `stdout` and `stderr` must be Base64: the
/// schema of every type that carries [`encode_outputs`]'s result.
fn base64_when_encoded(schema: &mut Schema) {
    let b64 = json_schema!({ "type": "string", "pattern": BASE64_PATTERN });
    let base64 = json_schema!({
        "required": ["encoding"],
        "properties": { "encoding": { "const": "base64" } },
    });
    let then = json_schema!({ "properties": { "stdout": b64, "stderr": b64 } });
    schema.insert("if".into(), base64.to_value());
    schema.insert("then".into(), then.to_value());
}

#[cfg(feature = "schema")]
/// The schema of a string field that holds a `1.x.y` version.
fn schema_version_schema(_: &mut schemars::SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": SCHEMA_VERSION_PATTERN,
        "examples": ["1.0.0"],
    })
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
        let re = regex::Regex::new(SCHEMA_VERSION_PATTERN).unwrap();
        for v in ["1.0.0", "1.12.3", "v1", "2.0.0", "1.0", "1.0.0.0"] {
            assert_eq!(re.is_match(v), is_schema_version(v), "{v}");
        }
    }

    #[test]
    fn final_status_pattern_matches_every_final_status() {
        use crate::model::FinalStatus;
        let re = regex::Regex::new(FINAL_STATUS_PATTERN).unwrap();
        for status in [
            FinalStatus::Success,
            FinalStatus::Failure,
            FinalStatus::Partial {
                failed: 3,
                golden_failed: 0,
            },
            FinalStatus::Partial {
                failed: 12,
                golden_failed: 10,
            },
            FinalStatus::Partial {
                failed: 10,
                golden_failed: 10,
            },
        ] {
            assert!(re.is_match(&status.to_string()), "{status}");
        }
        assert!(!re.is_match("PARTIAL"));
    }

    #[test]
    fn outputs_round_trip() {
        for (out, err) in [
            (&b"plain"[..], &b"text"[..]),
            (b"\xff\xfe bytes", b"ok"),
            (b"nul \0 inside", b""),
            (b"", b""),
        ] {
            let (o, e, enc) = encode_outputs(out, err);
            assert_eq!(decode_output(&o, enc).unwrap(), out);
            assert_eq!(decode_output(&e, enc).unwrap(), err);
        }
        assert_eq!(encode_outputs(b"a", b"\xff").2, Encoding::Base64);
        assert_eq!(encode_outputs(b"a", b"b").2, Encoding::Utf8);
    }
}
