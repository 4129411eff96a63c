//! The wire formats against the files the real binary writes: every file
//! passes `cargo golden validate` against the schema `cargo golden schema`
//! prints, and each printed schema lists exactly the fields the tool
//! writes. Both schema and validator are generated from the wire types, so
//! a field added to or removed from a type shows up here without editing
//! either; a hand-kept schema or validator would drift and fail this.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Project, text};
use serde_json::{Value, json};

/// One case of each kind of result: passed, passed on a retry (flaky, with
/// its earlier attempt's evidence), failed with validation errors, output
/// that is not UTF-8, and a golden project that cannot run (ERROR).
const HARNESS: &str = r#"
[harness]
name = "wire"

[[golden]]
name = "passes"
path = "golden/p"
command = "echo ok; echo note >&2"

[[verify]]
name = "flaky"
command = "test -f marker || { touch marker; echo 'Pipeline failed' >&2; exit 1; }"
retries = 1

[[golden]]
name = "invalid config"
path = "golden/p"
command = "echo '1 validation error for ProjectConfig'; echo pipelines.0.name; echo '  Input should be a valid string [type=string_type, input_value=5, input_type=int]'"

[[verify]]
name = "bytes"
command = '''printf 'caf\351 \000\n'; printf '\377\n' >&2'''

[[golden]]
name = "missing"
path = "golden/missing"
command = "true"
"#;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
    c.env_remove("GITHUB_ACTIONS").env("NO_COLOR", "1");
    c
}

/// The schema the binary prints for `flag` (none: the harness file's).
fn printed_schema(flag: Option<&str>) -> Value {
    let o = bin().arg("schema").args(flag).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `cargo golden validate <file> [flag]`.
fn validate(file: &Path, flag: Option<&str>) -> Output {
    bin().arg("validate").arg(file).args(flag).output().unwrap()
}

fn assert_valid(file: &Path, flag: Option<&str>) {
    let o = validate(file, flag);
    assert_eq!(o.status.code(), Some(0), "{}: {}", file.display(), text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(": valid"),
        "{}",
        text(&o)
    );
}

/// A run of [`HARNESS`] with `--message-format json`: the project and the
/// message lines it printed.
fn run() -> (Project, String) {
    let p = Project::new(HARNESS);
    p.write("golden/p/data.csv", "a,b\n");
    let o = p.run(&["--message-format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    (p, String::from_utf8(o.stdout).unwrap())
}

fn evidence_files(out: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![out.join("artifacts")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name().is_some_and(|n| n == "evidence.json") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The local schema a `$ref` names.
fn deref<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => deref(root, root.pointer(&r[1..]).expect("reference resolves")),
        None => schema,
    }
}

/// The properties `schema` gives an object `value`: its own, those of its
/// `$ref`/`allOf` parts, and those of the `oneOf`/`anyOf` branch whose
/// `const` properties `value` carries.
fn properties(root: &Value, schema: &Value, value: &Value) -> serde_json::Map<String, Value> {
    let schema = deref(root, schema);
    let mut props = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for part in schema["allOf"].as_array().into_iter().flatten() {
        props.extend(properties(root, part, value));
    }
    for key in ["oneOf", "anyOf"] {
        let branches = schema[key].as_array().into_iter().flatten();
        let chosen = branches.map(|b| deref(root, b)).find(|b| {
            b["type"] != "null"
                && b["properties"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .all(|(k, p)| p.get("const").is_none_or(|c| value.get(k) == Some(c)))
        });
        if let Some(b) = chosen {
            props.extend(properties(root, b, value));
        }
    }
    props
}

/// The schema of the items of an array, or of the values of a map.
fn inner<'a>(root: &'a Value, schema: &'a Value, key: &str) -> Option<&'a Value> {
    let schema = deref(root, schema);
    if let Some(s) = schema.get(key).filter(|s| s.is_object()) {
        return Some(s);
    }
    schema["anyOf"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|b| deref(root, b).get(key).filter(|s| s.is_object()))
}

/// Every object in `value` has exactly the fields its schema lists, all
/// the way down.
fn assert_fields_match(root: &Value, schema: &Value, value: &Value, at: &str) {
    match value {
        Value::Object(map) => {
            let props = properties(root, schema, value);
            if props.is_empty() {
                // A map (`metadata`, `env`): its values follow one schema.
                if let Some(values) = inner(root, schema, "additionalProperties") {
                    for (k, v) in map {
                        assert_fields_match(root, values, v, &format!("{at}.{k}"));
                    }
                }
                return;
            }
            let written: BTreeSet<&str> = map.keys().map(String::as_str).collect();
            let listed: BTreeSet<&str> = props.keys().map(String::as_str).collect();
            assert_eq!(written, listed, "fields of {at}");
            for (k, v) in map {
                assert_fields_match(root, &props[k], v, &format!("{at}.{k}"));
            }
        }
        Value::Array(items) => {
            if let Some(item) = inner(root, schema, "items") {
                for (i, v) in items.iter().enumerate() {
                    assert_fields_match(root, item, v, &format!("{at}[{i}]"));
                }
            }
        }
        _ => {}
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn every_file_the_tool_writes_validates_and_matches_its_printed_schema() {
    let (p, messages) = run();
    let out = p.out();

    assert_valid(&out.join("observations.jsonl"), None);
    assert_valid(&out.join("summary.json"), None);
    let evidence = evidence_files(&out);
    // Five cases, one of them with an earlier attempt of its own.
    assert_eq!(evidence.len(), 6, "{evidence:#?}");
    for file in &evidence {
        assert_valid(file, None);
    }
    let messages_file = p.write("messages.jsonl", &messages);
    assert_valid(&messages_file, Some("--message"));

    let observation = printed_schema(Some("--observation"));
    let lines: Vec<Value> = std::fs::read_to_string(out.join("observations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for (i, line) in lines.iter().enumerate() {
        assert_fields_match(&observation, &observation, line, &format!("line {}", i + 1));
    }

    let summary = printed_schema(Some("--summary"));
    let written = read_json(&out.join("summary.json"));
    assert_fields_match(&summary, &summary, &written, "summary.json");
    let flaky = &written["cases"][1];
    assert_eq!(flaky["flaky"], true);
    assert_eq!(flaky["previous_attempts"].as_array().unwrap().len(), 1);
    assert_eq!(written["cases"][3]["encoding"], "base64");
    assert!(
        !written["cases"][2]["validation_errors"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let schema = printed_schema(Some("--evidence"));
    for file in &evidence {
        assert_fields_match(
            &schema,
            &schema,
            &read_json(file),
            &file.display().to_string(),
        );
    }

    let schema = printed_schema(Some("--message"));
    let reasons: Vec<String> = messages
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert_fields_match(&schema, &schema, &v, l);
            v["reason"].as_str().unwrap().to_string()
        })
        .collect();
    for reason in [
        "run-started",
        "case-started",
        "case-finished",
        "run-finished",
    ] {
        assert!(reasons.iter().any(|r| r == reason), "{reasons:?}");
    }
}

#[test]
fn list_messages_validate_and_match_the_printed_schema() {
    let p = Project::new(HARNESS);
    let o = p.run(&["list", "--message-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let lines = String::from_utf8(o.stdout).unwrap();
    assert_eq!(lines.lines().count(), 5);
    let schema = printed_schema(Some("--message"));
    for l in lines.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["reason"], "case");
        assert_fields_match(&schema, &schema, &v, l);
    }
    assert_valid(&p.write("list.jsonl", &lines), Some("--message"));
}

#[test]
fn the_harness_schema_lists_exactly_the_keys_of_the_harness_types() {
    let file: cargo_golden::_support::HarnessFile = toml::from_str(
        r#"
[harness]
runner = "tool {path}"
[patterns]
abort = ["Killed"]
[[golden]]
name = "g"
path = "p"
[[verify]]
name = "v"
command = "true"
"#,
    )
    .unwrap();
    let serialized = serde_json::to_value(&file).unwrap();
    let schema = printed_schema(None);
    assert_fields_match(&schema, &schema, &serialized, "harness.toml");
}

/// `validate` output for `file` as `(exit code, stdout lines)`.
fn violations(file: &Path, flag: Option<&str>) -> (Option<i32>, Vec<String>) {
    let o = validate(file, flag);
    let lines = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    (o.status.code(), lines)
}

#[test]
fn validate_rejects_each_violation_kind_with_line_and_field_path() {
    let (p, _) = run();
    let text = std::fs::read_to_string(p.out().join("observations.jsonl")).unwrap();
    let good: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let with = |field: &str, value: Value| {
        let mut v = good.clone();
        v[field] = value;
        v
    };
    let mut without = good.clone();
    without.as_object_mut().unwrap().remove("encoding");
    let mut nested = good.clone();
    nested["metadata"]["deep"] = json!({"a": 1});
    let mut null_exit = good.clone();
    null_exit["exit_code"] = Value::Null;

    let kinds = [
        (without, "$.encoding: missing required field"),
        (
            with("stdout", json!(5)),
            "$.stdout: must be a string, found number 5",
        ),
        (
            with("schema_version", json!("v1")),
            "$.schema_version: must match",
        ),
        (with("schema_version", json!("2.0.0")), "found \"2.0.0\""),
        (
            with("duration_ms", json!(-1)),
            "$.duration_ms: must be >= 0, found -1",
        ),
        (
            nested,
            "$.metadata.deep: must be a string, a number or a boolean, found object",
        ),
        (
            with("stderr", Value::Null),
            "$.stderr: must be a string, found null",
        ),
        (
            with("tool_call_id", json!("call-1")),
            "$.tool_call_id: must be a UUID",
        ),
    ];
    // Line 1 is valid (a null exit code is allowed); line N+1 breaks the
    // N-th rule.
    let mut file = format!("{null_exit}\n");
    for (bad, _) in &kinds {
        file.push_str(&format!("{bad}\n"));
    }
    let path = p.write("bad.jsonl", &file);
    let (code, lines) = violations(&path, None);
    assert_eq!(code, Some(1));
    assert_eq!(lines.len(), kinds.len(), "{lines:#?}");
    for (i, (_, expected)) in kinds.iter().enumerate() {
        let line = &lines[i];
        assert!(
            line.contains(&format!("bad.jsonl:{}: ", i + 2)) && line.contains(expected),
            "line {}: expected {expected:?}, got {line:?}",
            i + 2
        );
    }
}

#[test]
fn validate_names_the_field_of_a_broken_summary_or_evidence() {
    let (p, _) = run();
    let out = p.out();
    let mut summary = read_json(&out.join("summary.json"));
    summary["cases"][2]["exit_code"] = json!("1");
    summary["cases"][0]
        .as_object_mut()
        .unwrap()
        .remove("result");
    summary["schema_version"] = json!("2.0.0");
    let broken = p.write("broken/summary.json", &summary.to_string());
    let (code, lines) = violations(&broken, None);
    assert_eq!(code, Some(1));
    let expected = [
        "summary.json: $.schema_version: must match ^1\\.\\d+\\.\\d+$, found \"2.0.0\"",
        "summary.json: $.cases[0].result: missing required field",
        "summary.json: $.cases[2].exit_code: must be an integer or null, found string \"1\"",
    ];
    assert_eq!(lines.len(), expected.len(), "{lines:#?}");
    for e in expected {
        assert!(lines.iter().any(|l| l.ends_with(e)), "{e}\n{lines:#?}");
    }

    let file = &evidence_files(&out)[0];
    let mut evidence = read_json(file);
    evidence["encoding"] = json!("base64");
    evidence["stdout"] = json!("not base64!");
    evidence["stderr"] = json!("");
    let broken = p.write("broken/evidence.json", &evidence.to_string());
    let (code, lines) = violations(&broken, None);
    assert_eq!(code, Some(1));
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        lines[0].ends_with("evidence.json: $.stdout: not valid base64 (encoding is \"base64\")"),
        "{lines:#?}"
    );
    // The same file named otherwise is told by flag.
    let renamed = p.write("broken/e.json", &evidence.to_string());
    assert_eq!(violations(&renamed, Some("--evidence")).0, Some(1));
}

#[test]
fn the_field_check_fails_on_a_field_the_schema_does_not_list() {
    let schema = printed_schema(Some("--message"));
    let line = json!({
        "reason": "case-started", "index": 0, "name": "a", "kind": "golden",
        "schema_version": "1.0.0",
    });
    assert_fields_match(&schema, &schema, &line, "ok");
    for broken in [
        {
            let mut l = line.clone();
            l["extra"] = json!(1);
            l
        },
        {
            let mut l = line.clone();
            l.as_object_mut().unwrap().remove("kind");
            l
        },
    ] {
        let caught = std::panic::catch_unwind(|| {
            assert_fields_match(&schema, &schema, &broken, "broken");
        });
        assert!(caught.is_err(), "{broken}");
    }
}

/// Write `value` to the evidence file `file` as another writer would, and
/// record its new checksum in the run's `SHA256SUMS`, so only the version
/// differs, not the seal.
fn rewrite_sealed(file: &Path, value: &Value) {
    std::fs::write(file, value.to_string()).unwrap();
    let run = file.parent().unwrap().parent().unwrap().parent().unwrap();
    let rel = file
        .strip_prefix(run)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let hash = cargo_golden::_support::sha256_file(file).unwrap();
    let sums_path = run.join("SHA256SUMS");
    let sums: String = std::fs::read_to_string(&sums_path)
        .unwrap()
        .lines()
        .map(|l| match l.split_once("  ") {
            Some((_, f)) if f == rel => format!("{hash}  {f}\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&sums_path, sums).unwrap();
}

/// Readers take any `1.x.y` (a later minor version only adds fields, and
/// an evidence.json from before versions reads as 1.0.0) and refuse
/// another major version rather than misread it.
#[test]
fn readers_take_any_1_x_and_refuse_another_major_version() {
    let (p, _) = run();
    let out = p.out();
    let verify = || bin().arg("verify-evidence").arg(&out).output().unwrap();
    assert_eq!(verify().status.code(), Some(0), "{}", text(&verify()));

    let file = evidence_files(&out)[0].clone();
    let original = read_json(&file);
    let mut unversioned = original.clone();
    unversioned
        .as_object_mut()
        .unwrap()
        .remove("schema_version");
    rewrite_sealed(&file, &unversioned);
    assert_eq!(verify().status.code(), Some(0), "{}", text(&verify()));

    let mut later = original.clone();
    later["schema_version"] = json!("1.9.0");
    later["added_later"] = json!(true);
    rewrite_sealed(&file, &later);
    assert_eq!(verify().status.code(), Some(0), "{}", text(&verify()));

    let mut next_major = original.clone();
    next_major["schema_version"] = json!("2.0.0");
    rewrite_sealed(&file, &next_major);
    let o = verify();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("schema_version \"2.0.0\""),
        "{}",
        text(&o)
    );
    rewrite_sealed(&file, &original);

    let summary_file = out.join("summary.json");
    let mut summary = read_json(&summary_file);
    summary["schema_version"] = json!("2.0.0");
    std::fs::write(&summary_file, summary.to_string()).unwrap();
    let o = bin()
        .arg("merge")
        .arg(&out)
        .arg("--out")
        .arg(p.path().join("merged"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("$.schema_version"),
        "{}",
        text(&o)
    );
}
