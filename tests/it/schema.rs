//! The published schemas against real files: `harness.toml` as the loader
//! sees it, and observation lines as docs/reports.md (What a run leaves)
//! describes them.

use std::collections::BTreeSet;

use cargo_golden::_support::HarnessFile;
use cargo_golden::_support::{HarnessConfig, KNOWN_KEYS};
use cargo_golden::_support::{harness_schema, observation_schema};
use serde_json::{Value, json};

/// A `harness.toml` with the tables and keys of docs/harness.md
/// (harness.toml reference), each commented.
const SPEC_HARNESS: &str = r#"
[harness]
name = "my-project"          # suite name in reports; default: the workspace root dir name
runner = "odibi run {path}"  # default command of golden projects; {path} {dir} {name} are replaced, shell-quoted
timeout = "10m"              # default per-case timeout (humantime: "500ms", "90s", "2m")
truncate = 10000             # characters of stdout/stderr kept in reports
require_golden = false       # true: declaring no golden project is a config error
out_dir = "target/golden"    # default: <cargo target dir>/golden

[patterns]                   # added to the built-in patterns (section 4)
validation = ['my custom validation marker']
runtime = []
abort = []
# builtin = false            # drop the built-in patterns

[[golden]]
name = "sales_daily_etl"
path = "golden/sales_daily_etl"        # dir or file; absolute, or relative to the harness file's dir
description = "Daily ETL: must never break"
command = "sh run.sh"                  # optional, default [harness].runner
expected = "success"                   # or "specific_error:<regex>"
timeout = "2m"
env = { RUST_LOG = "info" }
working_dir = "."                      # default: path if a dir, else its parent
isolation = "check"                    # "check" (default) or "copy"

[[verify]]
name = "workspace builds"
command = "cargo build --locked"
working_dir = "."                      # relative to the harness file's dir
timeout = "15m"
expected = "success"
env = {}
"#;

/// An observation line of `observations.jsonl` (docs/reports.md, What a run
/// leaves).
const SPEC_OBSERVATION: &str = r#"{"schema_version": "1.0.0", "type": "observation",
 "tool_call_id": "4f9c5d2e-8a1b-4c3d-9e7f-0a1b2c3d4e5f", "timestamp_ns": "1763765058123456789",
 "exit_code": 0, "stdout": "…", "stderr": "…", "encoding": "utf8",
 "duration_ms": 12.5, "metadata": {"case": "…", "kind": "golden", "result": "PASSED"}}"#;

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).expect("the schema compiles")
}

fn toml_value(text: &str) -> Value {
    toml::from_str(text).unwrap_or_else(|e| panic!("test TOML does not parse: {e}\n{text}"))
}

/// Schema errors as `path: message` lines, empty when valid.
fn schema_errors(v: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Whether `cargo_golden::_support::config` accepts the file, and its message if not.
fn loader_verdict(text: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("harness.toml");
    std::fs::write(&file, text).unwrap();
    HarnessConfig::load(&file, None)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn the_repositorys_own_harness_file_is_valid_against_the_printed_schema() {
    // The schema as users get it: printed by the real binary.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["golden", "schema"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, harness_schema());
    let own =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/harness.toml")).unwrap();
    let errors = schema_errors(&validator(&printed), &toml_value(&own));
    assert!(errors.is_empty(), "{errors:#?}");
    toml::from_str::<HarnessFile>(&own).unwrap();
    // And a typo in it would be caught.
    let typo = own.replacen("description =", "descripton =", 1);
    assert!(!schema_errors(&validator(&printed), &toml_value(&typo)).is_empty());
}

#[test]
fn spec_harness_file_is_valid() {
    let v = validator(&harness_schema());
    let errors = schema_errors(&v, &toml_value(SPEC_HARNESS));
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(loader_verdict(SPEC_HARNESS), Ok(()));
    toml::from_str::<HarnessFile>(SPEC_HARNESS).unwrap();
}

#[test]
fn typo_and_bad_expected_are_rejected_where_they_are() {
    let v = validator(&harness_schema());

    let typo = SPEC_HARNESS.replace("name = \"sales_daily_etl\"", "nmae = \"sales_daily_etl\"");
    let errors = schema_errors(&v, &toml_value(&typo));
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("/golden/0:") && e.contains("nmae")),
        "{errors:#?}"
    );

    let bad = SPEC_HARNESS.replace(
        "expected = \"success\"                   #",
        "expected = \"sucess\" #",
    );
    assert_ne!(bad, SPEC_HARNESS);
    let errors = schema_errors(&v, &toml_value(&bad));
    assert!(
        errors.iter().any(|e| e.starts_with("/golden/0/expected:")),
        "{errors:#?}"
    );
}

/// Files the loader accepts must pass the schema, and files it rejects for
/// a reason a schema can express must fail it: editors and `cargo golden`
/// should agree.
#[test]
fn schema_and_loader_agree() {
    let golden = "[[golden]]\nname = \"g\"\npath = \"golden/g\"\ncommand = \"sh run.sh\"\n";
    let accepted = [
        "",
        "[[verify]]\nname = \"v\"\ncommand = \"true\"\n",
        // No command: the runner supplies it.
        "[harness]\nrunner = \"tool {path}\"\n[[golden]]\nname = \"g\"\npath = \"p\"\n",
        "[harness]\nrunner = \"tool {path}\"\n[[golden_projects]]\nname = \"g\"\npath = \"p\"\nexpected_outcome = \"specific_error:boom\"\n",
        "[harness]\njobs = 4\nretries = 0\nkill_grace = \"500ms\"\nleak_wait = \"1s 500ms\"\n",
        "[harness]\njunit = \"strict\"\n",
        "[harness]\nallow_dirty = true\n",
        &format!("{golden}allow_dirty = false\n"),
        "[harness]\njunit = \"rich\"\n",
        "[patterns]\nbuiltin = false\nabort = ['Killed']\n",
        "[patterns]\nallow = ['Timeout=\\d+']\n",
        &format!("{golden}patterns = {{ runtime = ['E\\d+'], allow = ['x'], builtin = false }}\n"),
        "[[verify]]\nname = \"v\"\ncommand = \"true\"\n[verify.patterns]\nabort = ['Killed']\n",
        &format!("{golden}expected = \"specific_error:validation error for \\\\w+\"\n"),
        &format!(
            "{golden}env = {{ N = 3, DEBUG = true, NAME = \"x\" }}\nretries = 2\nexclusive = true\n"
        ),
        &format!("{golden}isolation = \"copy\"\nignore = [\"*.log\"]\ntimeout = \"1h 30m\"\n"),
        // Suite defaults of isolation and env; cases that start after others.
        &format!(
            "[harness]\nisolation = \"copy\"\nenv = {{ A = \"1\", N = 2 }}\n{golden}env = {{ A = \"2\" }}\n"
        ),
        &format!(
            "{golden}after = [\"v\"]\n[[verify]]\nname = \"v\"\ncommand = \"true\"\nafter = []\n"
        ),
        // Declaration order may interleave.
        &format!(
            "[[verify]]\nname = \"v\"\ncommand = \"true\"\n{golden}[[verify]]\nname = \"w\"\ncommand = \"true\"\n"
        ),
    ];
    let rejected = [
        (
            "unknown top-level table",
            "[harnes]\nname = \"x\"\n".to_string(),
        ),
        (
            "unknown [harness] key",
            "[harness]\nnmae = \"x\"\n".to_string(),
        ),
        ("typo in a golden key", golden.replace("name =", "nmae =")),
        (
            "typo in a verify key",
            "[[verify]]\nname = \"v\"\ncomand = \"true\"\n".into(),
        ),
        ("bad expected", format!("{golden}expected = \"sucess\"\n")),
        (
            "empty specific_error",
            format!("{golden}expected = \"specific_error:\"\n"),
        ),
        (
            "bad duration",
            format!("{golden}timeout = \"ten minutes\"\n"),
        ),
        (
            "duration without unit",
            "[harness]\ntimeout = \"10\"\n".into(),
        ),
        ("duration as a number", "[harness]\ntimeout = 10\n".into()),
        ("truncate 0", "[harness]\ntruncate = 0\n".into()),
        ("jobs 0", "[harness]\njobs = 0\n".into()),
        ("negative retries", format!("{golden}retries = -1\n")),
        (
            "unknown junit flavour",
            "[harness]\njunit = \"xunit2\"\n".into(),
        ),
        ("junit as a boolean", "[harness]\njunit = true\n".into()),
        (
            "unknown isolation",
            format!("{golden}isolation = \"move\"\n"),
        ),
        (
            "nested env",
            format!("{golden}env = {{ A = {{ B = \"c\" }} }}\n"),
        ),
        (
            "exclusive as a string",
            format!("{golden}exclusive = \"yes\"\n"),
        ),
        (
            "unknown [harness] isolation",
            "[harness]\nisolation = \"move\"\n".into(),
        ),
        (
            "[harness] env as a string",
            "[harness]\nenv = \"A=1\"\n".into(),
        ),
        ("after as a string", format!("{golden}after = \"v\"\n")),
        (
            "allow_dirty as a string",
            format!("{golden}allow_dirty = \"yes\"\n"),
        ),
        (
            "allow_dirty on a verify command",
            "[[verify]]\nname = \"v\"\ncommand = \"true\"\nallow_dirty = true\n".into(),
        ),
        (
            "golden without name",
            "[[golden]]\npath = \"p\"\ncommand = \"x\"\n".into(),
        ),
        (
            "golden without path",
            "[[golden]]\nname = \"g\"\ncommand = \"x\"\n".into(),
        ),
        (
            "verify without command",
            "[[verify]]\nname = \"v\"\n".into(),
        ),
        (
            "no command and no runner",
            "[[golden]]\nname = \"g\"\npath = \"p\"\n".into(),
        ),
        (
            "legacy entry without command or runner",
            "[[golden_projects]]\nname = \"g\"\npath = \"p\"\n".into(),
        ),
        ("golden as a table", "[golden]\nname = \"g\"\n".into()),
        (
            "pattern list as a string",
            "[patterns]\nruntime = \"boom\"\n".into(),
        ),
        (
            "typo in a case's patterns",
            format!("{golden}patterns = {{ alow = ['x'] }}\n"),
        ),
        (
            "case builtin as a string",
            format!("{golden}patterns = {{ builtin = \"no\" }}\n"),
        ),
    ];

    // What the typed definition rejects by itself: unknown keys, missing
    // keys, wrong types. Value rules (durations, regexes, bounds) are the
    // schema's and the loader's.
    let typed_rejects = [
        "unknown top-level table",
        "unknown [harness] key",
        "typo in a golden key",
        "typo in a verify key",
        "duration as a number",
        "negative retries",
        "unknown isolation",
        "nested env",
        "exclusive as a string",
        "unknown [harness] isolation",
        "[harness] env as a string",
        "after as a string",
        "allow_dirty as a string",
        "allow_dirty on a verify command",
        "golden without name",
        "golden without path",
        "verify without command",
        "golden as a table",
        "pattern list as a string",
    ];

    let v = validator(&harness_schema());
    for text in accepted {
        assert_eq!(loader_verdict(text), Ok(()), "loader rejects:\n{text}");
        let errors = schema_errors(&v, &toml_value(text));
        assert!(errors.is_empty(), "schema rejects:\n{text}\n{errors:#?}");
        if let Err(e) = toml::from_str::<HarnessFile>(text) {
            panic!("the harness types reject:\n{text}\n{e}");
        }
    }
    for (why, text) in rejected {
        assert!(
            loader_verdict(&text).is_err(),
            "loader accepts {why}:\n{text}"
        );
        assert!(
            !v.is_valid(&toml_value(&text)),
            "schema accepts {why}:\n{text}"
        );
        if typed_rejects.contains(&why) {
            assert!(
                toml::from_str::<HarnessFile>(&text).is_err(),
                "the harness types accept {why}:\n{text}"
            );
        }
    }
}

/// Follows `$ref` (possibly inside a one-element `allOf`) to the schema
/// that describes a table.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let target = schema
        .get("$ref")
        .or_else(|| schema.pointer("/allOf/0/$ref"))
        .and_then(Value::as_str);
    match target {
        Some(r) => {
            let pointer = r.strip_prefix('#').expect("local reference");
            resolve(root, root.pointer(pointer).expect("reference resolves"))
        }
        None => schema,
    }
}

fn property_names(table: &Value) -> BTreeSet<String> {
    table["properties"]
        .as_object()
        .expect("a table schema has properties")
        .keys()
        .cloned()
        .collect()
}

#[test]
fn every_table_has_exactly_the_loaders_keys() {
    let root = harness_schema();
    for (table, keys) in KNOWN_KEYS.iter() {
        let schema = match *table {
            "" => &root,
            "harness" | "patterns" => resolve(&root, &root["properties"][table]),
            "golden" | "verify" | "golden_projects" => {
                resolve(&root, &root["properties"][table]["items"])
            }
            // A case's `result = { format, path }`.
            "result" => resolve(
                &root,
                &resolve(&root, &root["properties"]["golden"]["items"])["properties"]["result"],
            ),
            // An entry of a case's `outputs = [{ path, key, ignore, tolerance }]`.
            "outputs" => resolve(
                &root,
                &resolve(&root, &root["properties"]["verify"]["items"])["properties"]["outputs"]["items"],
            ),
            // Its `tolerance = { abs, rel }`.
            "tolerance" => {
                let outputs = resolve(
                    &root,
                    &resolve(&root, &root["properties"]["golden"]["items"])["properties"]["outputs"]
                        ["items"],
                );
                resolve(&root, &outputs["properties"]["tolerance"])
            }
            // `[harness] history = { keep }`.
            "history" => resolve(
                &root,
                &resolve(&root, &root["properties"]["harness"])["properties"]["history"],
            ),
            // A case's `quarantine = { reason, until, issue }`.
            "quarantine" => resolve(
                &root,
                &resolve(&root, &root["properties"]["verify"]["items"])["properties"]["quarantine"],
            ),
            other => panic!("KNOWN_KEYS has a table this test does not know: {other}"),
        };
        let expected: BTreeSet<String> = keys.iter().map(|k| k.to_string()).collect();
        assert_eq!(property_names(schema), expected, "keys of [{table}]");
        if !table.is_empty() {
            assert_eq!(
                schema["additionalProperties"], false,
                "[{table}] allows typos"
            );
        }
    }
    assert_eq!(root["additionalProperties"], false);

    // A case's own `patterns` table takes the keys of `[patterns]`.
    let (_, pattern_keys) = KNOWN_KEYS.iter().find(|(t, _)| *t == "patterns").unwrap();
    let expected: BTreeSet<String> = pattern_keys.iter().map(|k| k.to_string()).collect();
    for list in ["golden", "verify"] {
        let case = resolve(&root, &root["properties"][list]["items"]);
        let own = resolve(&root, &case["properties"]["patterns"]);
        assert_eq!(
            property_names(own),
            expected,
            "keys of a {list} case's patterns"
        );
        assert_eq!(own["additionalProperties"], false);
    }

    let legacy = resolve(&root, &root["properties"]["golden_projects"]["items"]);
    let golden = resolve(&root, &root["properties"]["golden"]["items"]);
    let mut expected = property_names(golden);
    expected.insert("expected_outcome".into());
    assert_eq!(property_names(legacy), expected);
    assert_eq!(legacy["additionalProperties"], false);
}

#[test]
fn spec_observation_line_is_valid() {
    let v = validator(&observation_schema());
    let line: Value = serde_json::from_str(SPEC_OBSERVATION).unwrap();
    let errors = schema_errors(&v, &line);
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn bad_observations_are_rejected_at_their_field() {
    let v = validator(&observation_schema());
    let good: Value = serde_json::from_str(SPEC_OBSERVATION).unwrap();
    let with = |pointer: &str, value: Value| {
        let mut o = good.clone();
        *o.pointer_mut(pointer).expect("field exists") = value;
        o
    };
    let without = |field: &str| {
        let mut o = good.clone();
        o.as_object_mut().unwrap().remove(field);
        o
    };
    let cases = [
        ("/schema_version", with("/schema_version", json!("v1"))),
        ("/schema_version", with("/schema_version", json!("2.0.0"))),
        ("/schema_version", with("/schema_version", json!("1.0"))),
        ("/type", with("/type", json!("event"))),
        (
            "/timestamp_ns",
            with("/timestamp_ns", json!(1763765058123456789u64)),
        ),
        ("/timestamp_ns", with("/timestamp_ns", json!("17637e9"))),
        ("/exit_code", with("/exit_code", json!("0"))),
        ("/exit_code", with("/exit_code", json!(0.5))),
        ("/duration_ms", with("/duration_ms", json!(-1))),
        ("/encoding", with("/encoding", json!("latin1"))),
        (
            "/metadata/case",
            with("/metadata/case", json!({"nested": "no"})),
        ),
        ("/metadata/kind", with("/metadata/kind", json!(["golden"]))),
        ("/metadata/result", with("/metadata/result", Value::Null)),
        ("/stdout", with("/stdout", json!(42))),
        ("", without("tool_call_id")),
        ("", without("metadata")),
    ];
    for (path, instance) in cases {
        let errors = schema_errors(&v, &instance);
        assert!(
            errors.iter().any(|e| e.starts_with(&format!("{path}:"))),
            "expected an error at `{path}` for {instance}\ngot {errors:#?}"
        );
    }
}

#[test]
fn base64_encoding_requires_base64_output() {
    let v = validator(&observation_schema());
    let mut line: Value = serde_json::from_str(SPEC_OBSERVATION).unwrap();
    line["encoding"] = json!("base64");
    line["stdout"] = json!("AP8=");
    line["stderr"] = json!("");
    assert!(schema_errors(&v, &line).is_empty());

    line["stderr"] = json!("not base64!");
    let errors = schema_errors(&v, &line);
    assert!(
        errors.iter().any(|e| e.starts_with("/stderr:")),
        "{errors:#?}"
    );
}

#[test]
fn later_minor_versions_may_add_fields() {
    let v = validator(&observation_schema());
    let mut line: Value = serde_json::from_str(SPEC_OBSERVATION).unwrap();
    line["schema_version"] = json!("1.3.0");
    line["attempt"] = json!(2);
    assert!(schema_errors(&v, &line).is_empty());
}

/// The harness.toml reference (docs/harness.md) names every key the file
/// accepts, per table, so a key added to the typed definition cannot go
/// undocumented.
#[test]
fn the_readme_reference_names_every_key() {
    let reference =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/harness.md")).unwrap();
    for (table, keys) in KNOWN_KEYS.iter() {
        let heading = match *table {
            "harness" | "patterns" => format!("`[{table}]`"),
            "golden" | "verify" => format!("`[[{table}]]`"),
            _ => continue,
        };
        let part = reference
            .split(&format!("\n{heading}"))
            .nth(1)
            .and_then(|p| p.split("\n\n`[").find(|s| !s.trim().is_empty()))
            .unwrap_or_else(|| panic!("README reference has no {heading}"));
        for key in keys.iter() {
            if let Some((_, _, page)) = DOCUMENTED_ELSEWHERE
                .iter()
                .find(|(t, k, _)| t == table && k == key)
            {
                let text = std::fs::read_to_string(
                    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(page),
                )
                .unwrap();
                assert!(
                    text.contains(&format!("`{key}")),
                    "{page} does not name `{key}`"
                );
                continue;
            }
            assert!(
                part.contains(&format!("`{key}`")),
                "README reference of {heading} does not name `{key}`"
            );
        }
    }
}

/// Keys whose reference is a page of `docs/` rather than the README's
/// section, as `(table, key, page)`.
const DOCUMENTED_ELSEWHERE: &[(&str, &str, &str)] = &[
    ("harness", "history", "docs/history.md"),
    ("harness", "flaky", "docs/history.md"),
    ("golden", "quarantine", "docs/history.md"),
    ("verify", "quarantine", "docs/history.md"),
];

/// `docs/harness-keys.md` is what `cargo golden schema --keys` prints: a
/// key added to the harness file's types is documented by regenerating it.
/// Outside CI a stale file is rewritten (commit it); the test still fails
/// once, so a stale file never lands.
#[test]
fn the_keys_reference_is_generated_from_the_schema() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["golden", "schema", "--keys"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/harness-keys.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    // Every key the loader knows is in the reference.
    for (table, keys) in cargo_golden::_support::table_keys() {
        for key in keys {
            assert!(
                printed.contains(&format!("| `{key}` |")),
                "{table}.{key} is missing from the keys reference"
            );
        }
    }
    if committed != printed {
        if std::env::var_os("CI").is_none() {
            std::fs::write(&path, &printed).unwrap();
        }
        panic!(
            "docs/harness-keys.md is not what `cargo golden schema --keys` prints{}",
            if std::env::var_os("CI").is_none() {
                ": it was rewritten, commit it"
            } else {
                ""
            }
        );
    }
}
