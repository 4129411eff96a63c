//! JSON Schemas of the files users write and tools read: `harness.toml`
//! (for editors, through `cargo golden schema`) and the observation record
//! of `observations.jsonl` (SPEC section 7, `schema --observation`).
//!
//! Both are generated with schemars from documentation types that mirror
//! the files key for key; doc comments become descriptions. The loader does
//! not deserialize through these types (it checks a spanned tree so that
//! every error carries a line and column, see [`crate::config`]), so tests
//! hold the two together: each table's properties equal
//! [`crate::config::KNOWN_KEYS`], and files the loader accepts or rejects
//! are accepted or rejected by the schema.
//!
//! Both schemas are JSON Schema draft-07: the newest draft that TOML and
//! YAML editor tooling broadly understands.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::generate::SchemaSettings;
use schemars::transform::RecursiveTransform;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::{Value, json};

use crate::config::defaults;

/// The JSON Schema of `harness.toml` (and of its YAML form).
///
/// Unknown keys are rejected (`additionalProperties: false`) so that
/// editors flag typos the way `cargo golden` does.
pub fn harness_schema() -> Value {
    generate::<HarnessFile>()
}

/// The JSON Schema of one line of `observations.jsonl`.
///
/// Fields a later `1.x` version may add are allowed; every field of `1.0.0`
/// is required.
pub fn observation_schema() -> Value {
    generate::<Observation>()
}

fn generate<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft07();
    // Ahead of the draft-07 transforms, which must see the final `$ref`s
    // (draft-07 ignores keywords beside a `$ref`).
    settings.transforms.splice(
        0..0,
        [
            Box::new(RecursiveTransform(drop_null as fn(&mut Schema))) as _,
            Box::new(RecursiveTransform(reflow_description as fn(&mut Schema))) as _,
        ],
    );
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

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

/// Durations as the loader parses them (`humantime`): numbers with units,
/// optionally fractional, optionally separated by spaces.
const DURATION_PATTERN: &str = r"^\s*(\d+(\.\d+)?\s*(nanos|nsec|ns|usec|us|µs|millis|msec|ms|seconds|second|secs|sec|s|minutes|minute|mins|min|m|hours|hour|hrs|hr|h|days|day|d|weeks|week|wks|wk|w|months|month|M|years|year|yrs|yr|y)\s*)+$";

/// `expected`: success, or a failure whose output matches a regex.
const EXPECTED_PATTERN: &str = r"^(success|specific_error:.+)$";

/// Standard Base64 with padding (RFC 4648 section 4).
const BASE64_PATTERN: &str = r"^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";

/// Implements [`JsonSchema`] for a leaf type with a fixed, inlined schema.
macro_rules! leaf {
    ($ty:ident, $schema:expr) => {
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                Schema::try_from($schema).expect("leaf schemas are JSON objects")
            }
        }
    };
}

/// A humantime duration such as `"90s"`.
#[derive(Serialize)]
#[serde(transparent)]
struct HumanDuration(String);
leaf!(
    HumanDuration,
    json!({
        "type": "string",
        "pattern": DURATION_PATTERN,
        "examples": ["500ms", "90s", "2m", "1h 30m"],
    })
);

impl HumanDuration {
    fn of(d: std::time::Duration) -> HumanDuration {
        HumanDuration(humantime::format_duration(d).to_string())
    }
}

/// `"success"` or `"specific_error:<regex>"`.
#[derive(Serialize)]
#[serde(transparent)]
struct ExpectedOutcome(&'static str);
leaf!(
    ExpectedOutcome,
    json!({
        "type": "string",
        "pattern": EXPECTED_PATTERN,
        "examples": ["success", "specific_error:validation error for \\w+"],
    })
);

/// An integer of at least 1.
#[derive(Serialize)]
#[serde(transparent)]
struct AtLeastOne(u64);
leaf!(AtLeastOne, json!({ "type": "integer", "minimum": 1 }));

/// An integer of at least 0.
#[derive(Serialize)]
#[serde(transparent)]
struct AtLeastZero(u64);
leaf!(AtLeastZero, json!({ "type": "integer", "minimum": 0 }));

/// A Rust `regex` pattern (not checked here: the JSON Schema dialect of
/// regexes differs from Rust's).
struct RustRegex;
leaf!(RustRegex, json!({ "type": "string" }));

/// A glob relative to the golden project.
struct Glob;
leaf!(Glob, json!({ "type": "string" }));

/// An environment value: the loader turns numbers and booleans into text.
struct EnvValue;
leaf!(EnvValue, json!({ "type": ["string", "number", "boolean"] }));

/// # cargo-golden harness file
///
/// Golden projects and verify commands that `cargo golden` (and
/// `cargo test --test golden`) runs as test cases, in the order they are
/// written: `[[golden]]` and `[[verify]]` tables may interleave.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = require_command_without_runner)]
#[allow(dead_code)] // describes the file; never built
struct HarnessFile {
    /// Suite-wide settings.
    harness: Option<HarnessTable>,
    /// Failure patterns, regexes matched per line over stdout and stderr.
    /// A match overrides the exit code.
    patterns: Option<Patterns>,
    /// Golden projects: projects (a directory or one file) that must always
    /// keep working. A run never modifies them.
    #[serde(default)]
    golden: Vec<Golden>,
    /// Verify commands: shell commands whose success is a post-condition.
    #[serde(default)]
    verify: Vec<Verify>,
    /// Older list form of golden projects (mostly in YAML files), with
    /// `expected_outcome` for `expected`.
    #[serde(default)]
    #[schemars(schema_with = "legacy_golden_list")]
    golden_projects: Vec<Golden>,
}

/// Suite-wide settings.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // describes the file; never built
struct HarnessTable {
    /// Suite name in the reports. Default: the workspace root directory's
    /// name.
    name: Option<String>,
    /// Default command of golden projects, run with `sh -c`. `{path}`,
    /// `{dir}` and `{name}` are replaced, shell-quoted.
    #[schemars(example = &"odibi run {path}")]
    runner: Option<String>,
    /// Default per-case timeout. On timeout the case's process group gets
    /// SIGTERM, then SIGKILL after `kill_grace`, and the case is ABORTED.
    #[serde(default = "default_timeout")]
    timeout: HumanDuration,
    /// Characters of stdout and stderr kept in reports; the artifact files
    /// always keep everything.
    #[serde(default = "default_truncate")]
    truncate: AtLeastOne,
    /// `true`: declaring no golden project is a config error.
    #[serde(default)]
    require_golden: bool,
    /// Directory of reports and evidence, relative to this file. Default:
    /// `<cargo target dir>/golden`.
    #[schemars(example = &"target/golden")]
    out_dir: Option<String>,
    /// Cases run at once. 1 runs them one after another.
    #[serde(default = "default_jobs")]
    jobs: AtLeastOne,
    /// Default number of extra attempts for a failed case; a later pass
    /// makes it PASSED and flaky.
    #[serde(default = "default_retries")]
    retries: AtLeastZero,
    /// Time between SIGTERM and SIGKILL when a case times out.
    #[serde(default = "default_kill_grace")]
    kill_grace: HumanDuration,
    /// How long to wait for output pipes still held by processes a case
    /// left behind, before killing its process group.
    #[serde(default = "default_leak_wait")]
    leak_wait: HumanDuration,
    /// The JUnit family of `junit.xml`. `--junit` overrides it.
    #[serde(default = "default_junit")]
    junit: Junit,
}

/// The JUnit family of `junit.xml`: both carry the same results and
/// counts.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // describes the file; only the default is built
enum Junit {
    /// `file` and `line` on each testcase and per-case properties, as
    /// GitHub-centred actions and GitLab read them.
    Rich,
    /// Valid against the Jenkins xUnit schema (`junit-10.xsd`): per-case
    /// file, line, hash and statuses move into suite properties named
    /// `case.<name>.<fact>`.
    Strict,
}

/// Failure patterns, added to the built-in ones.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // describes the file; never built
struct Patterns {
    /// A match makes the case VALIDATION_FAILED.
    #[serde(default)]
    validation: Vec<RustRegex>,
    /// A match makes the case RUNTIME_FAILED.
    #[serde(default)]
    runtime: Vec<RustRegex>,
    /// A match makes the case ABORTED.
    #[serde(default)]
    abort: Vec<RustRegex>,
    /// `false` drops the built-in patterns.
    #[serde(default = "default_true")]
    builtin: bool,
}

/// A golden project: one test case.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // describes the file; never built
struct Golden {
    /// Case name, unique across all `[[golden]]` and `[[verify]]` tables.
    #[schemars(length(min = 1))]
    name: String,
    /// The project: a directory or one file, absolute or relative to this
    /// file.
    #[schemars(example = &"golden/sales_daily_etl")]
    path: String,
    /// What the project is and why it must keep working.
    description: Option<String>,
    /// Command run with `sh -c`. Default: `[harness] runner`. `{path}`,
    /// `{dir}` and `{name}` are replaced, shell-quoted.
    #[schemars(example = &"sh run.sh")]
    command: Option<String>,
    /// `"success"`, or `"specific_error:<regex>"`: the case must fail and
    /// its stdout or stderr match the regex.
    #[serde(default = "default_expected")]
    expected: ExpectedOutcome,
    /// Timeout of this case. Default: `[harness] timeout`.
    timeout: Option<HumanDuration>,
    /// Environment variables added to the inherited environment.
    #[serde(default)]
    env: BTreeMap<String, EnvValue>,
    /// Directory the command runs in, relative to this file. Default: `path`
    /// if it is a directory, else its parent.
    working_dir: Option<String>,
    /// How the project is protected from modification by a run.
    #[serde(default = "default_isolation")]
    isolation: Isolation,
    /// Globs, relative to the project, of files the modification check
    /// leaves out.
    #[serde(default)]
    ignore: Vec<Glob>,
    /// Extra attempts when the case fails. Default: `[harness] retries`.
    retries: Option<AtLeastZero>,
    /// `true`: run alone, even with `jobs` > 1.
    #[serde(default)]
    exclusive: bool,
}

/// How a golden project is protected from modification.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)] // describes the file; only the default is built
enum Isolation {
    /// Hash the project's files before and after the run; any change fails
    /// the case with GOLDEN_MODIFIED.
    Check,
    /// Run in a fresh temporary copy of the project.
    Copy,
}

/// A verify command: one test case.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // describes the file; never built
struct Verify {
    /// Case name, unique across all `[[golden]]` and `[[verify]]` tables.
    #[schemars(length(min = 1))]
    name: String,
    /// Command run with `sh -c`.
    #[schemars(example = &"cargo build --locked")]
    command: String,
    /// What the command checks.
    description: Option<String>,
    /// Directory the command runs in, relative to this file. Default: this
    /// file's directory.
    working_dir: Option<String>,
    /// Timeout of this case. Default: `[harness] timeout`.
    timeout: Option<HumanDuration>,
    /// `"success"`, or `"specific_error:<regex>"`: the command must fail
    /// and its stdout or stderr match the regex.
    #[serde(default = "default_expected")]
    expected: ExpectedOutcome,
    /// Environment variables added to the inherited environment.
    #[serde(default)]
    env: BTreeMap<String, EnvValue>,
    /// Extra attempts when the case fails. Default: `[harness] retries`.
    retries: Option<AtLeastZero>,
    /// `true`: run alone, even with `jobs` > 1.
    #[serde(default)]
    exclusive: bool,
}

fn default_timeout() -> HumanDuration {
    HumanDuration::of(defaults::TIMEOUT)
}
fn default_kill_grace() -> HumanDuration {
    HumanDuration::of(defaults::KILL_GRACE)
}
fn default_leak_wait() -> HumanDuration {
    HumanDuration::of(defaults::LEAK_WAIT)
}
fn default_truncate() -> AtLeastOne {
    AtLeastOne(defaults::TRUNCATE as u64)
}
fn default_jobs() -> AtLeastOne {
    AtLeastOne(1)
}
fn default_retries() -> AtLeastZero {
    AtLeastZero(0)
}
fn default_true() -> bool {
    true
}
fn default_expected() -> ExpectedOutcome {
    ExpectedOutcome("success")
}
fn default_isolation() -> Isolation {
    Isolation::Check
}
fn default_junit() -> Junit {
    Junit::Rich
}

/// `golden_projects` entries: a golden project that may spell `expected`
/// as `expected_outcome`.
fn legacy_golden_list(generator: &mut SchemaGenerator) -> Schema {
    let mut item = Golden::json_schema(generator);
    let mut outcome = ExpectedOutcome::json_schema(generator);
    outcome.insert(
        "description".into(),
        "Older spelling of `expected`; wins when both are given.".into(),
    );
    if let Some(Value::Object(props)) = item.get_mut("properties") {
        props.insert("expected_outcome".into(), outcome.to_value());
    }
    json_schema!({ "type": "array", "items": item })
}

/// A golden project with no `command` runs `[harness] runner`; without a
/// runner the command is required.
fn require_command_without_runner(schema: &mut Schema) {
    let needs_command = json!({ "items": { "required": ["command"] } });
    schema.insert(
        "if".into(),
        json!({
            "required": ["harness"],
            "properties": { "harness": { "required": ["runner"] } },
        }),
    );
    schema.insert(
        "else".into(),
        json!({
            "properties": {
                "golden": needs_command,
                "golden_projects": needs_command,
            },
        }),
    );
}

/// # cargo-golden observation
///
/// One line of `observations.jsonl`: one case that ran. Fields added by
/// later `1.x` versions are allowed.
#[derive(JsonSchema)]
#[schemars(transform = base64_when_encoded)]
#[allow(dead_code)] // describes the record; never built
struct Observation {
    /// Version of this record format: `1.<minor>.<patch>`.
    #[schemars(regex(pattern = r"^1\.\d+\.\d+$"), example = &"1.0.0")]
    schema_version: String,
    /// Always `"observation"`.
    #[serde(rename = "type")]
    record_type: ObservationType,
    /// Unique id of this execution (a UUID).
    #[schemars(length(min = 1))]
    tool_call_id: String,
    /// When the observation was made: nanoseconds since the Unix epoch, as
    /// a decimal string (too large for a JSON number read as a double).
    #[schemars(regex(pattern = r"^[0-9]+$"), example = &"1763765058123456789")]
    timestamp_ns: String,
    /// Exit code of the command; 128+N when it was killed by signal N.
    exit_code: Integer,
    /// stdout, truncated as in the reports; Base64 when `encoding` is
    /// `"base64"`.
    stdout: String,
    /// stderr, truncated as in the reports; Base64 when `encoding` is
    /// `"base64"`.
    stderr: String,
    /// `"utf8"`, or `"base64"` when stdout or stderr holds bytes that are
    /// not valid UTF-8 (or a NUL): then both are Base64.
    encoding: Encoding,
    /// Wall-clock duration in milliseconds.
    duration_ms: NonNegative,
    /// Flat key/value facts about the case (`case`, `kind`, `result`, ...):
    /// strings, numbers or booleans, never nested.
    metadata: BTreeMap<String, MetadataValue>,
}

/// The record type tag.
struct ObservationType;
leaf!(
    ObservationType,
    json!({ "type": "string", "const": "observation" })
);

/// Any integer.
struct Integer;
leaf!(Integer, json!({ "type": "integer" }));

/// A number of at least 0.
struct NonNegative;
leaf!(NonNegative, json!({ "type": "number", "minimum": 0 }));

/// How stdout and stderr are encoded.
struct Encoding;
leaf!(
    Encoding,
    json!({ "type": "string", "enum": ["utf8", "base64"] })
);

/// A flat metadata value.
struct MetadataValue;
leaf!(
    MetadataValue,
    json!({ "type": ["string", "number", "boolean"] })
);

/// With `"encoding": "base64"`, stdout and stderr must be Base64.
fn base64_when_encoded(schema: &mut Schema) {
    let b64 = json!({ "type": "string", "pattern": BASE64_PATTERN });
    schema.insert(
        "if".into(),
        json!({
            "required": ["encoding"],
            "properties": { "encoding": { "const": "base64" } },
        }),
    );
    schema.insert(
        "then".into(),
        json!({ "properties": { "stdout": b64, "stderr": b64 } }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_valid_draft07() {
        for (what, schema) in [
            ("harness", harness_schema()),
            ("observation", observation_schema()),
        ] {
            assert_eq!(
                schema["$schema"], "http://json-schema.org/draft-07/schema#",
                "{what}"
            );
            if let Err(e) = jsonschema::meta::validate(&schema) {
                panic!("{what} schema is not a valid draft-07 schema: {e}");
            }
            // Meta-validation does not compile the patterns; building a
            // validator does.
            if let Err(e) = jsonschema::validator_for(&schema) {
                panic!("{what} schema does not compile: {e}");
            }
        }
    }

    #[test]
    fn meta_validation_can_fail() {
        let broken = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "objekt",
        });
        assert!(jsonschema::meta::validate(&broken).is_err());
    }

    #[test]
    fn no_null_and_no_line_breaks_inside_paragraphs() {
        let text = harness_schema().to_string();
        assert!(!text.contains("\"null\""), "{text}");
        fn walk(v: &Value) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(d)) = m.get("description") {
                        assert!(
                            !d.replace("\n\n", "").contains('\n'),
                            "hard line break in {d:?}"
                        );
                    }
                    m.values().for_each(walk);
                }
                Value::Array(a) => a.iter().for_each(walk),
                _ => {}
            }
        }
        walk(&harness_schema());
        walk(&observation_schema());
    }

    #[test]
    fn duration_pattern_agrees_with_humantime() {
        let re = regex::Regex::new(DURATION_PATTERN).unwrap();
        let samples = [
            "500ms",
            "90s",
            "2m",
            "10m",
            "1h 30m",
            "1h30m",
            "1.5h",
            " 2 min ",
            "3 days",
            "1week",
            "250us",
            "250µs",
            "7ns",
            "1M",
            "2y",
            "",
            "10",
            "ms",
            "1 fortnight",
            "1.h",
            "-1s",
            "1s,2s",
            "10m later",
        ];
        for s in samples {
            let loader = humantime::parse_duration(s.trim()).is_ok();
            assert_eq!(
                re.is_match(s),
                loader,
                "pattern and humantime disagree on {s:?}"
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
        let golden = &schema["definitions"]["Golden"]["properties"];
        assert_eq!(golden["expected"]["default"], "success");
        assert_eq!(golden["isolation"]["default"], "check");
    }
}
