//! The harness file (`harness.toml`, or YAML with the same structure): the
//! typed definition of its keys, their types and their documentation.
//!
//! The loader ([`crate::config`]) checks a spanned tree so that every error
//! of a file is reported at once with its line and column; the keys it
//! accepts ([`crate::config::KNOWN_KEYS`]) and the JSON Schema that
//! `cargo golden schema` prints are both derived from the types below, so a
//! key is added in one place. Tests hold the loader's value checks to the
//! schema: files it accepts pass the schema and deserialize into
//! [`HarnessFile`], files it rejects for a reason a schema can express fail
//! both.

//!
//! Each key's definition lives with its check in `config/elements/`;
//! this file holds the whole file's type and what is generated from it.

#[cfg(feature = "schema")]
use schemars::generate::SchemaSettings;
#[cfg(feature = "schema")]
use schemars::transform::RecursiveTransform;
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, json_schema};
use serde::{Deserialize, Serialize};
#[cfg(feature = "schema")]
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) use super::elements::golden::Golden;
use super::elements::golden::legacy_golden;
#[cfg(feature = "schema")]
use super::elements::golden::legacy_golden_list;
pub(crate) use super::elements::harness::HarnessTable;
pub(crate) use super::elements::isolation::Isolation;
pub(crate) use super::elements::outputs::DataOutputMode;
pub(crate) use super::elements::patterns::Patterns;
pub(crate) use super::elements::result::ResultFormat;
#[cfg(feature = "schema")]
use super::elements::snapshots::redactions_schema;
pub(crate) use super::elements::values::RustRegex;
pub(crate) use super::elements::verify::Verify;

#[cfg(feature = "schema")]
/// The JSON Schema of `harness.toml` (and of its YAML form).
///
/// Unknown keys are rejected (`additionalProperties: false`) so that
/// editors flag typos the way `cargo golden` does.
pub(crate) fn harness_schema() -> Value {
    let mut settings = SchemaSettings::draft07().for_deserialize();
    settings.transforms.insert(
        0,
        Box::new(RecursiveTransform(drop_null as fn(&mut Schema))),
    );
    generate::<HarnessFile>(settings)
}

#[cfg(feature = "schema")]
/// The keys each table of the file accepts, read off [`harness_schema`]:
/// `""` for the top level, then `harness`, `patterns`, `golden`, `verify`
/// and `golden_projects`.
pub fn table_keys() -> Vec<(&'static str, Vec<String>)> {
    let root = harness_schema();
    tables(&root)
        .into_iter()
        .map(|(table, props)| (table, props.keys().cloned().collect()))
        .collect()
}

#[cfg(feature = "schema")]
/// Each table of the file with the schemas of its keys, in the order of
/// [`table_keys`].
fn tables(root: &Value) -> Vec<(&'static str, serde_json::Map<String, Value>)> {
    let keys = |schema: &Value| {
        resolve(root, schema)["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default()
    };
    let props = &root["properties"];
    vec![
        ("", keys(root)),
        ("harness", keys(&props["harness"])),
        ("patterns", keys(&props["patterns"])),
        ("golden", keys(&props["golden"]["items"])),
        ("verify", keys(&props["verify"]["items"])),
        ("golden_projects", keys(&props["golden_projects"]["items"])),
        ("result", keys(&root["definitions"]["ResultFile"])),
        ("outputs", keys(&root["definitions"]["DataOutput"])),
        ("tolerance", keys(&root["definitions"]["Tolerance"])),
        ("history", keys(&root["definitions"]["History"])),
        ("quarantine", keys(&root["definitions"]["QuarantineKey"])),
    ]
}

#[cfg(feature = "schema")]
/// The reference of every key of the harness file in Markdown, written
/// from [`harness_schema`] (`cargo golden schema --keys`): a key declared
/// in the types below, with its doc comment, is documented here with no
/// other edit.
pub(crate) fn keys_reference() -> String {
    let root = harness_schema();
    let mut out = String::from(
        "# harness.toml keys\n\n\
         Every key of the harness file (and of its YAML form), generated from \
         the types the loader reads (`cargo golden schema --keys`). Unknown \
         keys are errors with a \"did you mean\".\n",
    );
    for (table, props) in tables(&root) {
        let heading = match table {
            "" => "Top level".to_string(),
            "golden" | "verify" | "golden_projects" => format!("`[[{table}]]`"),
            "outputs" => "`outputs` entries".to_string(),
            "tolerance" => "`outputs.tolerance`".to_string(),
            "history" => "`[harness] history`".to_string(),
            "quarantine" => "a case's `quarantine`".to_string(),
            _ => format!("`[{table}]`"),
        };
        out.push_str(&format!(
            "\n## {heading}\n\n| key | type | default | meaning |\n|---|---|---|---|\n"
        ));
        for (key, schema) in props {
            let cell = |s: String| s.replace('|', "\\|").replace('\n', " ");
            let default = schema
                .get("default")
                .map(|d| format!("`{d}`"))
                .unwrap_or_default();
            let meaning = schema["description"]
                .as_str()
                .unwrap_or_default()
                .split("\n\n")
                .next()
                .unwrap_or_default()
                .to_string();
            out.push_str(&format!(
                "| `{key}` | {} | {} | {} |\n",
                cell(type_name(&root, &schema)),
                cell(default),
                cell(meaning)
            ));
        }
    }
    out
}

#[cfg(feature = "schema")]
/// A short name of the type a schema allows: `string`, `"a" \| "b"`,
/// `array of string`, `table`.
fn type_name(root: &Value, schema: &Value) -> String {
    let schema = resolve(root, schema);
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    if let Some(values) = schema["enum"].as_array() {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    if let Some(any) = schema["anyOf"].as_array().or(schema["oneOf"].as_array()) {
        return any
            .iter()
            .map(|s| type_name(root, s))
            .collect::<Vec<_>>()
            .join(" | ");
    }
    let one = |t: &Value| match t.as_str() {
        Some("object") => "table".to_string(),
        Some("array") => format!("array of {}", type_name(root, &schema["items"])),
        Some(other) => other.to_string(),
        None => "any".to_string(),
    };
    match &schema["type"] {
        Value::Array(types) => types.iter().map(one).collect::<Vec<_>>().join(" or "),
        t => one(t),
    }
}

#[cfg(feature = "schema")]
/// Follows a local `$ref` (possibly inside a one-element `allOf`) to the
/// schema it names.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let target = schema
        .get("$ref")
        .or_else(|| schema.pointer("/allOf/0/$ref"))
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer));
    match target {
        Some(t) => resolve(root, t),
        None => schema,
    }
}

#[cfg(feature = "schema")]
/// TOML has no null, and the loader rejects YAML's `~` wherever a value is
/// expected, so the `null` schemars allows in `Option` fields is dropped.
fn drop_null(schema: &mut Schema) {
    let is_null = |s: &Value| s.get("type").is_some_and(|t| t == "null");
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            schema.insert("type".into(), only);
        }
    }
    let Some(Value::Array(any_of)) = schema.get_mut("anyOf") else {
        return;
    };
    if !any_of.iter().any(is_null) {
        return;
    }
    any_of.retain(|s| !is_null(s));
    if let [Value::Object(only)] = any_of.as_slice() {
        let only = only.clone();
        schema.remove("anyOf");
        for (k, v) in only {
            schema.insert(k, v);
        }
    }
}

/// # cargo-golden harness file
///
/// Golden projects and verify commands that `cargo golden` (and
/// `cargo test --test golden`) runs as test cases, in the order they are
/// written: `[[golden]]` and `[[verify]]` tables may interleave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", schemars(transform = require_command_without_runner))]
pub struct HarnessFile {
    /// Suite-wide settings.
    pub(crate) harness: Option<HarnessTable>,
    /// Failure patterns, regexes matched per line over stdout and stderr.
    /// A match overrides the exit code.
    pub(crate) patterns: Option<Patterns>,
    /// Snapshot redactions, `"[NAME]" = "<regex>"`: text matching the
    /// regex becomes `[NAME]` before output is compared with a snapshot.
    /// Applied after the built-in `[CWD]`, `[ROOT]`, `[TMP]`, `[RUN_ID]`,
    /// `[TIMESTAMP]` and `[DURATION]`, which cannot be redefined.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(schema_with = "redactions_schema"))]
    pub(crate) redactions: Option<BTreeMap<String, RustRegex>>,
    /// Golden projects: projects (a directory or one file) that must always
    /// keep working. A run never modifies them.
    #[serde(default)]
    pub(crate) golden: Vec<Golden>,
    /// Verify commands: shell commands whose success is a post-condition.
    #[serde(default)]
    pub(crate) verify: Vec<Verify>,
    /// Older list form of golden projects (mostly in YAML files), with
    /// `expected_outcome` for `expected`.
    #[serde(default, deserialize_with = "legacy_golden")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "legacy_golden_list"))]
    pub(crate) golden_projects: Vec<Golden>,
    /// Named sets of `[harness]` settings applied over `[harness]` with
    /// `--profile NAME` or `CARGO_GOLDEN_PROFILE`.
    #[serde(default)]
    pub(crate) profile: BTreeMap<String, HarnessTable>,
}

#[cfg(feature = "schema")]
/// A golden project with no `command` runs `[harness] runner`; without a
/// runner the command is required.
fn require_command_without_runner(schema: &mut Schema) {
    let needs_command = json_schema!({ "items": { "required": ["command"] } });
    let runner_given = json_schema!({
        "required": ["harness"],
        "properties": { "harness": { "required": ["runner"] } },
    });
    let else_ = json_schema!({
        "properties": {
            "golden": needs_command,
            "golden_projects": needs_command,
        },
    });
    schema.insert("if".into(), runner_given.to_value());
    schema.insert("else".into(), else_.to_value());
}

#[cfg(feature = "schema")]
/// Draft-07 because it is the newest draft that TOML and YAML editor
/// tooling broadly understands; descriptions reflowed for editors.
pub(crate) fn generate<T: JsonSchema>(mut settings: SchemaSettings) -> Value {
    // Ahead of the draft-07 transforms, which must see the final `$ref`s
    // (draft-07 ignores keywords beside a `$ref`).
    settings.transforms.insert(
        0,
        Box::new(RecursiveTransform(reflow_description as fn(&mut Schema))),
    );
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

#[cfg(feature = "schema")]
/// Doc comments arrive with their source line breaks; editors show
/// descriptions as running text, so single breaks become spaces and only
/// paragraph breaks stay.
fn reflow_description(schema: &mut Schema) {
    let Some(Value::String(text)) = schema.get_mut("description") else {
        return;
    };
    *text = text
        .split("\n\n")
        .map(|paragraph| {
            paragraph
                .split('\n')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n\n");
}

#[cfg(all(test, feature = "schema"))]
mod tests {
    use super::*;
    use crate::config::defaults;
    use crate::config::elements::golden::LEGACY_EXPECTED;

    /// `src/config/keys.rs`, the loader's list of keys, is what
    /// [`table_keys`] reads off the types: the libtest harness builds
    /// without schemars, so the list is generated and committed. Outside CI
    /// a stale file is rewritten (commit it); the test still fails once.
    #[test]
    fn the_loaders_keys_are_generated_from_the_types() {
        let mut text = String::from(
            "//! The keys each table of the harness file accepts (`\"\"` is the top\n\
             //! level), generated from the types in [`super::schema`] by the test\n\
             //! `the_loaders_keys_are_generated_from_the_types`, which rewrites this\n\
             //! file when a key is added (outside CI). Do not edit by hand.\n\n\
             #[rustfmt::skip]\n\
             pub(crate) const TABLE_KEYS: &[(&str, &[&str])] = &[\n",
        );
        for (table, keys) in table_keys() {
            let keys: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
            text.push_str(&format!("    ({table:?}, &[{}]),\n", keys.join(", ")));
        }
        text.push_str("];\n");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config/keys.rs");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != text {
            let ci = std::env::var_os("CI").is_some();
            if !ci {
                std::fs::write(&path, &text).unwrap();
            }
            panic!(
                "src/config/keys.rs is not the keys of the harness types{}",
                if ci {
                    ""
                } else {
                    ": it was rewritten, commit it"
                }
            );
        }
    }

    #[test]
    fn defaults_come_from_the_loader() {
        let schema = harness_schema();
        let harness = &schema["definitions"]["HarnessTable"]["properties"];
        let duration = |key: &str| {
            let text = harness[key]["default"].as_str().unwrap_or_default();
            humantime::parse_duration(text).ok()
        };
        assert_eq!(duration("timeout"), Some(defaults::TIMEOUT));
        assert_eq!(duration("kill_grace"), Some(defaults::KILL_GRACE));
        assert_eq!(duration("leak_wait"), Some(defaults::LEAK_WAIT));
        assert_eq!(harness["truncate"]["default"], defaults::TRUNCATE);
        assert_eq!(harness["isolation"]["default"], "copy");
        let golden = &schema["definitions"]["Golden"]["properties"];
        assert_eq!(golden["expected"]["default"], "success");
    }

    #[test]
    fn every_table_has_keys() {
        let tables = table_keys();
        for (table, keys) in &tables {
            assert!(!keys.is_empty(), "no keys found for [{table}]");
        }
        let legacy = &tables
            .iter()
            .find(|(t, _)| *t == "golden_projects")
            .unwrap()
            .1;
        let golden = &tables.iter().find(|(t, _)| *t == "golden").unwrap().1;
        assert_eq!(legacy.len(), golden.len() + 1);
        assert!(legacy.iter().any(|k| k == LEGACY_EXPECTED));
    }
}
