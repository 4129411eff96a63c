//! `cargo golden validate`: one test per kind of violation, each checking
//! the line number and the field path in the message.

use crate::commands::validate::{Format, Violation};
use crate::model::{CaseKind, CaseResult, ExecutionStatus};
use crate::wire::observation::Observation;
use serde_json::{Value, json};

use super::support;

fn valid() -> Value {
    let case = support::ran(
        0,
        "etl",
        CaseKind::Golden,
        "true",
        0,
        b"out",
        b"err",
        ExecutionStatus::Success,
        CaseResult::Passed,
    );
    serde_json::to_value(Observation::from_case(&case)).unwrap()
}

/// A file of two valid lines followed by `bad` on line 3; its violations.
fn violations_of(bad: &str) -> Vec<Violation> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("obs.jsonl");
    let good = valid().to_string();
    std::fs::write(&path, format!("{good}\n{good}\n{bad}\n")).unwrap();
    validate_file(&path)
}

fn validate_file(path: &std::path::Path) -> Vec<Violation> {
    crate::commands::validate::validate_file(path, Format::Observation).unwrap()
}

fn with(field: &str, value: Value) -> String {
    let mut v = valid();
    v[field] = value;
    v.to_string()
}

fn without(field: &str) -> String {
    let mut v = valid();
    v.as_object_mut().unwrap().remove(field);
    v.to_string()
}

/// Exactly one violation, on line 3, at `path`, whose message contains
/// `message`; its Display is `…obs.jsonl:3: <path>: <message>`.
fn assert_one(bad: &str, path: &str, message: &str) {
    let v = violations_of(bad);
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(v[0].line, Some(3));
    assert_eq!(v[0].path, path);
    assert!(v[0].message.contains(message), "{}", v[0]);
    let shown = v[0].to_string();
    assert!(shown.contains(&format!("obs.jsonl:3: {path}: ")), "{shown}");
}

#[test]
fn valid_file_has_no_violation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("obs.jsonl");
    let mut b64 = valid();
    b64["encoding"] = "base64".into();
    b64["stdout"] = "AAEC/w==".into();
    b64["stderr"] = "".into();
    std::fs::write(&path, format!("{}\n{}\n", valid(), b64)).unwrap();
    assert_eq!(validate_file(&path), []);
}

#[test]
fn missing_field() {
    assert_one(
        &without("tool_call_id"),
        "$.tool_call_id",
        "missing required field",
    );
    assert_one(&without("metadata"), "$.metadata", "missing required field");
}

#[test]
fn wrong_type() {
    assert_one(
        &with("stdout", json!(5)),
        "$.stdout",
        "must be a string, found number 5",
    );
    assert_one(
        &with("exit_code", json!("0")),
        "$.exit_code",
        "must be an integer or null",
    );
    assert_one(
        &with("duration_ms", json!("1")),
        "$.duration_ms",
        "must be a number",
    );
}

#[test]
fn schema_version_v1() {
    assert_one(
        &with("schema_version", json!("v1")),
        "$.schema_version",
        "found \"v1\"",
    );
}

#[test]
fn schema_version_2() {
    assert_one(
        &with("schema_version", json!("2.0.0")),
        "$.schema_version",
        "must match ^1\\.\\d+\\.\\d+$, found \"2.0.0\"",
    );
}

#[test]
fn negative_duration() {
    let v = violations_of(&with("duration_ms", json!(-1)));
    assert_eq!(v.len(), 1);
    assert!(
        v[0].to_string()
            .ends_with("obs.jsonl:3: $.duration_ms: must be >= 0, found -1"),
        "{}",
        v[0]
    );
}

#[test]
fn nested_metadata() {
    let mut v = valid();
    v["metadata"]["nested"] = json!({"a": 1});
    v["metadata"]["odd key"] = json!([1]);
    let found = violations_of(&v.to_string());
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].path, "$.metadata.nested");
    assert!(
        found[0]
            .message
            .contains("must be a string, a number or a boolean, found object"),
        "{found:#?}"
    );
    assert_eq!(found[1].path, "$.metadata[\"odd key\"]");
}

#[test]
fn bad_base64() {
    let mut v = valid();
    v["encoding"] = "base64".into();
    v["stdout"] = "not base64!".into();
    v["stderr"] = "".into();
    assert_one(&v.to_string(), "$.stdout", "not valid base64");
}

#[test]
fn timestamp_not_a_decimal_string() {
    assert_one(
        &with("timestamp_ns", json!(1_763_765_058_123_456_789u64)),
        "$.timestamp_ns",
        "must be a string",
    );
    assert_one(
        &with("timestamp_ns", json!("2025-11-21")),
        "$.timestamp_ns",
        "decimal string",
    );
    assert_one(
        &with("timestamp_ns", json!("-5")),
        "$.timestamp_ns",
        "decimal string",
    );
}

#[test]
fn wrong_record_type() {
    assert_one(
        &with("type", json!("result")),
        "$.type",
        "must be \"observation\", found \"result\"",
    );
}

#[test]
fn bad_encoding_and_uuid() {
    assert_one(
        &with("encoding", json!("latin1")),
        "$.encoding",
        "must be \"utf8\" or \"base64\"",
    );
    assert_one(
        &with("tool_call_id", json!("42")),
        "$.tool_call_id",
        "must be a UUID",
    );
}

#[test]
fn invalid_json_line() {
    assert_one("{\"schema_version\": ", "$", "invalid JSON");
    assert_one("[1, 2]", "$", "must be an object, found array");
}

#[test]
fn every_violation_of_a_line_is_reported() {
    let mut v = valid();
    v["schema_version"] = "v1".into();
    v["duration_ms"] = json!(-1);
    v.as_object_mut().unwrap().remove("stderr");
    let found = violations_of(&v.to_string());
    let paths: Vec<_> = found.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["$.schema_version", "$.stderr", "$.duration_ms"]);
}

#[test]
fn null_exit_code_is_valid_and_null_elsewhere_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("obs.jsonl");
    std::fs::write(&path, format!("{}\n", with("exit_code", Value::Null))).unwrap();
    assert_eq!(validate_file(&path), []);

    assert_one(
        &with("stdout", Value::Null),
        "$.stdout",
        "must be a string, found null",
    );
    assert_one(
        &with("duration_ms", Value::Null),
        "$.duration_ms",
        "must be a number, found null",
    );
    assert_one(
        &with("tool_call_id", Value::Null),
        "$.tool_call_id",
        "must be a string, found null",
    );
}

#[test]
fn tool_call_id_must_be_a_uuid() {
    for bad in ["", "not-a-uuid", "12345678-1234-1234-1234-12345678901"] {
        assert_one(
            &with("tool_call_id", json!(bad)),
            "$.tool_call_id",
            "must be a UUID",
        );
    }
}

#[test]
fn checks_beyond_the_schema() {
    assert_one(
        &with("exit_code", json!(1u64 << 40)),
        "$.exit_code",
        "must fit a 32-bit exit code",
    );
    assert_one(
        &with("timestamp_ns", json!("9".repeat(60))),
        "$.timestamp_ns",
        "decimal string",
    );
}
