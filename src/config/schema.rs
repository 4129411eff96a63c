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

#[cfg(feature = "schema")]
use std::borrow::Cow;
use std::collections::BTreeMap;

#[cfg(feature = "schema")]
use schemars::generate::SchemaSettings;
#[cfg(feature = "schema")]
use schemars::transform::RecursiveTransform;
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::defaults;
use crate::model::{Gate, JunitFlavour, Stream};

#[cfg(feature = "schema")]
/// The JSON Schema of `harness.toml` (and of its YAML form).
///
/// Unknown keys are rejected (`additionalProperties: false`) so that
/// editors flag typos the way `cargo golden` does.
pub fn harness_schema() -> Value {
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
pub fn keys_reference() -> String {
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

/// Durations as the loader parses them (`humantime`): numbers with units,
/// optionally fractional, optionally separated by spaces.
pub const DURATION_PATTERN: &str = r"^\s*(\d+(\.\d+)?\s*(nanos|nsec|ns|usec|us|µs|millis|msec|ms|seconds|second|secs|sec|s|minutes|minute|mins|min|m|hours|hour|hrs|hr|h|days|day|d|weeks|week|wks|wk|w|months|month|M|years|year|yrs|yr|y)\s*)+$";

/// `expected`: success, an abort by a timeout, or a failure whose output
/// matches a regex.
const EXPECTED_PATTERN: &str = r"^(success|aborted|timeout|specific_error:.+)$";

/// Implements `schemars::JsonSchema` for a leaf type with a fixed, inlined schema.
macro_rules! leaf {
    ($ty:ident, $schema:expr) => {
        #[cfg(feature = "schema")]
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                $schema
            }
        }
    };
}

/// A humantime duration such as `"90s"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HumanDuration(pub String);
leaf!(
    HumanDuration,
    json_schema!({
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

/// `"success"`, `"aborted"` (`"timeout"`) or `"specific_error:<regex>"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ExpectedOutcome(pub String);
leaf!(
    ExpectedOutcome,
    json_schema!({
        "type": "string",
        "pattern": EXPECTED_PATTERN,
        "examples": ["success", "aborted", "specific_error:validation error for \\w+"],
    })
);

/// Characters of output kept in reports: 1 to [`MAX_TRUNCATE`].
///
/// [`MAX_TRUNCATE`]: crate::config::MAX_TRUNCATE
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Truncate(pub u64);
leaf!(
    Truncate,
    json_schema!({ "type": "integer", "minimum": 1, "maximum": crate::config::MAX_TRUNCATE })
);

/// Cases at once: 1 to [`MAX_JOBS`].
///
/// [`MAX_JOBS`]: crate::config::MAX_JOBS
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Jobs(pub u64);
leaf!(
    Jobs,
    json_schema!({ "type": "integer", "minimum": 1, "maximum": crate::config::MAX_JOBS })
);

/// An integer of at least 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AtLeastZero(pub u64);
leaf!(
    AtLeastZero,
    json_schema!({ "type": "integer", "minimum": 0 })
);

/// Extra attempts: 0 to [`MAX_RETRIES`].
///
/// [`MAX_RETRIES`]: crate::config::MAX_RETRIES
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Retries(pub u64);
leaf!(
    Retries,
    json_schema!({ "type": "integer", "minimum": 0, "maximum": crate::config::MAX_RETRIES })
);

/// A Rust `regex` pattern (not checked by the schema: the JSON Schema
/// dialect of regexes differs from Rust's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RustRegex(pub String);
leaf!(RustRegex, json_schema!({ "type": "string" }));

/// A glob relative to the golden project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Glob(pub String);
leaf!(Glob, json_schema!({ "type": "string" }));

/// A variable name, a glob over names, or either after `!`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EnvNamePattern(pub String);
leaf!(
    EnvNamePattern,
    json_schema!({ "type": "string", "minLength": 1, "pattern": "^!?[^=!][^=]*$" })
);

/// `slowdown`: a factor between 1 and 1000.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Slowdown(pub f64);
leaf!(
    Slowdown,
    json_schema!({ "type": "number", "minimum": 1, "maximum": 1000 })
);

/// An environment value: the loader turns numbers and booleans into text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EnvValue {
    /// Text, used as is.
    String(String),
    /// An integer, written in decimal.
    Integer(i64),
    /// A float.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
}
leaf!(
    EnvValue,
    json_schema!({ "type": ["string", "number", "boolean"] })
);

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
    pub harness: Option<HarnessTable>,
    /// Failure patterns, regexes matched per line over stdout and stderr.
    /// A match overrides the exit code.
    pub patterns: Option<Patterns>,
    /// Snapshot redactions, `"[NAME]" = "<regex>"`: text matching the
    /// regex becomes `[NAME]` before output is compared with a snapshot.
    /// Applied after the built-in `[CWD]`, `[ROOT]`, `[TMP]`, `[RUN_ID]`,
    /// `[TIMESTAMP]` and `[DURATION]`, which cannot be redefined.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(schema_with = "redactions_schema"))]
    pub redactions: Option<BTreeMap<String, RustRegex>>,
    /// Golden projects: projects (a directory or one file) that must always
    /// keep working. A run never modifies them.
    #[serde(default)]
    pub golden: Vec<Golden>,
    /// Verify commands: shell commands whose success is a post-condition.
    #[serde(default)]
    pub verify: Vec<Verify>,
    /// Older list form of golden projects (mostly in YAML files), with
    /// `expected_outcome` for `expected`.
    #[serde(default, deserialize_with = "legacy_golden")]
    #[cfg_attr(feature = "schema", schemars(schema_with = "legacy_golden_list"))]
    pub golden_projects: Vec<Golden>,
    /// Named sets of `[harness]` settings applied over `[harness]` with
    /// `--profile NAME` or `CARGO_GOLDEN_PROFILE`.
    #[serde(default)]
    pub profile: BTreeMap<String, HarnessTable>,
}

/// Suite-wide settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HarnessTable {
    /// Suite name in the reports. Default: the workspace root directory's
    /// name.
    pub name: Option<String>,
    /// Default command of golden projects, run in the `shell`. `{path}`,
    /// `{dir}` and `{name}` are replaced, shell-quoted.
    #[cfg_attr(feature = "schema", schemars(example = &"odibi run {path}"))]
    pub runner: Option<String>,
    /// Default per-case timeout. On timeout the case's process group gets
    /// SIGTERM, then SIGKILL after `kill_grace` (on Windows its Job Object
    /// is terminated at once), and the case is ABORTED.
    #[serde(default = "default_timeout")]
    pub timeout: HumanDuration,
    /// Characters of stdout and stderr kept in reports; the artifact files
    /// always keep everything.
    #[serde(default = "default_truncate")]
    pub truncate: Truncate,
    /// `true`: declaring no golden project is a config error.
    #[serde(default)]
    pub require_golden: bool,
    /// `true`: a golden project with uncommitted changes in its git work
    /// tree runs anyway. Default `false`: such a case is an ERROR
    /// (GOLDEN_MODIFIED) naming the files, and does not run.
    #[serde(default)]
    pub allow_dirty: bool,
    /// Directory of reports and evidence, relative to this file. Default:
    /// `<cargo target dir>/golden`.
    #[cfg_attr(feature = "schema", schemars(example = &"target/golden"))]
    pub out_dir: Option<String>,
    /// Cases run at once. 1 runs them one after another.
    #[serde(default = "default_jobs")]
    pub jobs: Jobs,
    /// Default number of extra attempts for a failed case; a later pass
    /// makes it PASSED and flaky.
    #[serde(default = "default_retries")]
    pub retries: Retries,
    /// Time between SIGTERM and SIGKILL when a case times out (not used on
    /// Windows, which has no SIGTERM).
    #[serde(default = "default_kill_grace")]
    pub kill_grace: HumanDuration,
    /// How long to wait for output pipes still held by processes a case
    /// left behind, before killing its process group.
    #[serde(default = "default_leak_wait")]
    pub leak_wait: HumanDuration,
    /// The JUnit family of `junit.xml`. `--junit` overrides it.
    #[serde(default)]
    pub junit: JunitFlavour,
    /// A case running longer than this is reported `SLOW [> 60s] name`,
    /// again each such period, on every output.
    #[serde(default = "default_slow")]
    pub slow: HumanDuration,
    /// Default working directory of every case, relative to this file
    /// (`${VAR}` expanded).
    pub working_dir: Option<String>,
    /// Default isolation of golden projects; a project's own `isolation`
    /// overrides it. `copy` by default: a golden project is never
    /// modified, and every real data tool writes where it runs.
    #[serde(default = "default_isolation")]
    pub isolation: Isolation,
    /// Environment variables of every case, added to the inherited
    /// environment; a case's own `env` entries win, name by name.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = { "pattern": "^[^=\\u0000]+$" })))]
    pub env: BTreeMap<String, EnvValue>,
    /// Run directories kept under `artifacts/` after a run whose reports
    /// were written; older ones are removed. 0 keeps every run.
    #[serde(default = "default_keep_runs")]
    pub keep_runs: AtLeastZero,
    /// Environment variables (of the parent environment or a case's `env`)
    /// whose values are masked as `[REDACTED:NAME]` in every artifact,
    /// report and terminal line, on top of the defaults: names containing
    /// TOKEN, SECRET, PASSWORD, PASSWD, API_KEY, PRIVATE_KEY or CREDENTIAL
    /// with values of at least 6 bytes. A name masks any non-empty value; a
    /// glob (`AWS_*`) values of at least 6 bytes; `!NAME` or `!GLOB` leaves
    /// variables the defaults or a glob would mask alone.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(example = &["API_TOKEN", "AWS_*", "!MY_TOKEN_COUNT"]))]
    pub redact_env: Vec<EnvNamePattern>,
    /// What the exit code follows: the raw results, or the comparison with
    /// `golden-baseline.json`.
    #[serde(default = "default_gate")]
    #[cfg_attr(feature = "schema", schemars(with = "GateKey"))]
    pub gate: Gate,
    /// A passing case is `slower` than its baseline above this many times
    /// its baseline duration (and at least a second more): a PERFORMANCE
    /// warning.
    #[serde(default = "default_slowdown")]
    pub slowdown: Slowdown,
    /// The shell commands run in: the program and the arguments before the
    /// command, which comes last. Default: `sh -c`; on Windows `sh -c` when
    /// an `sh` is on `PATH`, else `cmd /C`. `{path}`, `{dir}` and `{name}`
    /// are quoted for this shell (cmd and PowerShell are recognised by
    /// name, any other is quoted as a POSIX shell).
    #[cfg_attr(feature = "schema", schemars(length(min = 1), example = &["pwsh", "-Command"]))]
    pub shell: Option<Vec<String>>,
    /// The preset every case is judged by: a real tool's failure and allow
    /// patterns, its log record format (continuation lines joined, a level
    /// column read), the lines a passing case must show (`require`) and
    /// environment; shipped with cargo-golden (by name) or a file of the
    /// same form (by path, relative to this file). `[patterns]` and a
    /// case's own settings add to it. Without `preset` or `presets`, each
    /// case gets the preset of the tool its command runs (`dbt`, `odibi`,
    /// `pytest`, `spark-submit`, `python -m TOOL`).
    pub preset: Option<PresetName>,
    /// Several presets, applied in order (with `preset`, after it); `[]`
    /// turns off choosing them by the command.
    pub presets: Option<Vec<PresetName>>,
    /// Regexes that every case must show a line of to pass (with its
    /// presets'); a case's own `require` replaces them.
    pub require: Option<Vec<String>>,
    /// `COLUMNS` of every case: wide, so loggers that wrap at the terminal
    /// width (rich, click, Python's `shutil.get_terminal_size`, pytest)
    /// write each record on one line. 0 leaves `COLUMNS` as the
    /// environment has it; a case's `env` may set it.
    #[serde(default = "default_columns")]
    #[cfg_attr(feature = "schema", schemars(range(max = 100_000)))]
    pub columns: u32,
    /// What a case that passed only after a failed attempt (`retries`)
    /// does: `"pass"` passes it, marked flaky; `"warn"` also warns;
    /// `"fail"` fails it with a FLAKY issue, failing the run.
    #[serde(default)]
    pub flaky: crate::model::FlakyPolicy,
    /// `history.jsonl` in the out dir: one line per case per run, read by
    /// `cargo golden history`.
    #[serde(default)]
    pub history: History,
}

fn default_columns() -> u32 {
    defaults::COLUMNS
}

/// How much of the out dir's `history.jsonl` is kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct History {
    /// Runs kept in `history.jsonl`; the lines of older runs are removed
    /// when a run is appended. 0 keeps every run.
    #[serde(default = "default_history_keep")]
    pub keep: AtLeastZero,
}

impl Default for History {
    fn default() -> History {
        History {
            keep: default_history_keep(),
        }
    }
}

fn default_history_keep() -> AtLeastZero {
    AtLeastZero(defaults::HISTORY_KEEP as u64)
}

/// The name of a preset shipped with cargo-golden, or the path of a
/// preset file (relative to the harness file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PresetName(pub String);

#[cfg(feature = "schema")]
impl JsonSchema for PresetName {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "PresetName".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [
            { "type": "string", "enum": super::preset::names() },
            { "type": "string", "pattern": r"[/\\]|\.toml$" }
        ] })
    }
}

// The schema of `[harness] gate` only: the value is a `model::Gate`, which
// `summary.json` documents for its readers; this is how the harness file
// documents it for its writers. Never built.
/// What the exit code follows.
#[cfg(feature = "schema")]
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "Gate")]
#[allow(dead_code)]
enum GateKey {
    /// Any FAILED or ERROR case fails the run.
    Results,
    /// The comparison with `golden-baseline.json`: a regressed, changed,
    /// missing or not-run case, or a failing new one, fails the run; known
    /// failures do not.
    Baseline,
}

// The spellings of a `snapshot` entry: the value kept is a
// `model::Stream`, whose third variant, `data`, no `snapshot` lists.
/// An output stream compared with its snapshot file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum SnapshotStream {
    /// Compared with `snapshots/<name>.stdout`.
    Stdout,
    /// Compared with `snapshots/<name>.stderr`.
    Stderr,
}

/// Failure patterns, added to the built-in ones, and lines that never
/// count as failures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Patterns {
    /// A match makes the case VALIDATION_FAILED.
    #[serde(default)]
    pub validation: Vec<RustRegex>,
    /// A match makes the case RUNTIME_FAILED.
    #[serde(default)]
    pub runtime: Vec<RustRegex>,
    /// A match makes the case ABORTED.
    #[serde(default)]
    pub abort: Vec<RustRegex>,
    /// A line matching one of these never counts as a failure, e.g.
    /// `'Timeout=\d+'` for a line that prints a setting.
    #[serde(default)]
    pub allow: Vec<RustRegex>,
    /// `false` drops the built-in patterns.
    #[serde(default = "default_true")]
    pub builtin: bool,
    /// Log levels whose lines fail no case by a failure pattern: a line of
    /// a known log format (rich, Python logging, a timestamp then the
    /// level, log4j and Spark, JSON lines with `level`), or a record of a
    /// preset's format, at one of these levels counts like an allowed
    /// line. Default: a preset's, else TRACE, DEBUG, INFO, NOTICE, WARN and
    /// WARNING. `[]` reads no level.
    #[cfg_attr(feature = "schema", schemars(example = &["DEBUG", "INFO"]))]
    pub quiet: Option<Vec<String>>,
}

/// A machine-readable result the command writes: its failures fail the
/// case whatever the exit code, and the file is kept beside the logs,
/// under the evidence hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResultFile {
    /// What the result is.
    pub format: ResultFormat,
    /// The file, relative to the case's working dir (under `copy`, in the
    /// copy). `junit`: the XML file; `odibi-validate`: the JSON file
    /// (default: stdout); `odibi-story`: a directory, whose newest `*.json`
    /// story is read; `dbt`: its `run_results.json` (default:
    /// `target/run_results.json`).
    #[cfg_attr(feature = "schema", schemars(example = &"target/junit.xml"))]
    pub path: Option<String>,
    /// Let a result that ran nothing (a JUnit report of no test case or
    /// only skipped ones, an Odibi story of no node) pass a case that
    /// expects success; by default it is `NOTHING_RAN`.
    pub allow_empty: Option<bool>,
}

/// A case's quarantine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QuarantineKey {
    /// Why the case is quarantined.
    pub reason: String,
    /// The last day the quarantine holds, `YYYY-MM-DD` (UTC).
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"), example = &"2027-01-31"))]
    pub until: String,
    /// Where the failure is tracked, e.g. an issue URL.
    pub issue: Option<String>,
}

/// A data file a case writes, compared with its data snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DataOutput {
    /// The file, relative to the case's working dir (under `copy`, in the
    /// copy); a glob matches several, each compared on its own. Its
    /// extension says the format: `.csv` (a header row), `.json` (an array
    /// of objects), `.jsonl` (an object per line) or `.parquet`; a Delta
    /// table is a directory, with `format = "delta"`.
    #[cfg_attr(feature = "schema", schemars(example = &"out/sales.csv"))]
    pub path: String,
    /// Columns that identify a row: rows are matched by them and numbers
    /// compared within `tolerance`. Without a key, rows are matched whole.
    /// Not with `mode = "summary"`, which keeps no rows.
    #[serde(default)]
    pub key: Vec<String>,
    /// Columns left out of the snapshot and the comparison (load times,
    /// run ids).
    #[serde(default)]
    pub ignore: Vec<String>,
    /// How far a number may move: `|now - snapshot| <= abs + rel * |snapshot|`.
    /// Default: exact.
    pub tolerance: Option<Tolerance>,
    /// `"delta"`: `path` is a Delta table, a directory with `_delta_log/`,
    /// read at its current version (the `add` and `remove` actions of its
    /// JSON commits replayed, then every live Parquet file read). Default:
    /// the extension of `path` says the format.
    pub format: Option<DataOutputFormat>,
    /// `"rows"` (default): the snapshot holds every row. `"summary"`, for
    /// outputs too large to snapshot whole: it holds the row count and,
    /// per column, its type, null count, min, max, sum (numbers) and a
    /// checksum of its values.
    pub mode: Option<DataOutputMode>,
}

/// What a data snapshot holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DataOutputMode {
    /// Every row, sorted.
    #[default]
    Rows,
    /// The row count and per-column aggregates and checksums.
    Summary,
}

/// The format of a data output that its extension does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DataOutputFormat {
    /// A Delta table directory.
    Delta,
}

/// The numeric tolerance of a data output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Absolute difference allowed. Default: 0.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub abs: f64,
    /// Difference allowed relative to the snapshot's value. Default: 0.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub rel: f64,
}

/// The format of a case's `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ResultFormat {
    /// A JUnit XML report (pytest `--junitxml`, cargo nextest): each failed
    /// or erroring testcase is an issue.
    Junit,
    /// The JSON of `odibi validate --format json`: `valid: false` fails,
    /// each error is an issue with its field path and fix.
    OdibiValidate,
    /// An Odibi story (the run's JSON): each failed node is an issue.
    OdibiStory,
    /// dbt's `target/run_results.json`: each node that failed or errored
    /// is an issue with its id, status, failures and message.
    Dbt,
}

impl ResultFormat {
    /// The name in the harness file.
    pub fn as_str(self) -> &'static str {
        super::spelling::name_of(&self)
    }
}

/// A case's own patterns, added to those of `[patterns]`; the keys are
/// those of `[patterns]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CasePatterns {
    /// A match makes the case VALIDATION_FAILED.
    #[serde(default)]
    pub validation: Vec<RustRegex>,
    /// A match makes the case RUNTIME_FAILED.
    #[serde(default)]
    pub runtime: Vec<RustRegex>,
    /// A match makes the case ABORTED.
    #[serde(default)]
    pub abort: Vec<RustRegex>,
    /// A line matching one of these never counts as a failure of this
    /// case.
    #[serde(default)]
    pub allow: Vec<RustRegex>,
    /// `false` drops the built-in patterns for this case, `true` keeps
    /// them. Default: `[patterns] builtin`.
    pub builtin: Option<bool>,
    /// Log levels whose lines fail nothing, for this case. Default:
    /// `[patterns] quiet`.
    pub quiet: Option<Vec<String>>,
}

/// Declares a case table: its own keys as given, then the keys every case
/// has, from `retries` on — one definition for [`Golden`] and [`Verify`].
/// (A `#[serde(flatten)]` struct would lose `deny_unknown_fields`, which
/// serde does not support beside it.)
macro_rules! case_table {
    ($(#[$attr:meta])* pub struct $name:ident { $($own:tt)* }) => {
        $(#[$attr])*
        pub struct $name {
            $($own)*
            /// Extra attempts when the case fails. Default: `[harness] retries`.
            pub retries: Option<Retries>,
            /// `true`: run alone, even with `jobs` > 1.
            #[serde(default)]
            pub exclusive: bool,
            /// Names of cases this one starts after: with `jobs` > 1 it waits until
            /// each has finished (passed or not). A case the filters, `ignored` or
            /// the partition leave out is not waited for.
            #[serde(default)]
            pub after: Vec<String>,
            /// Period after which this case is reported slow. Default:
            /// `[harness] slow`.
            pub slow: Option<HumanDuration>,
            /// Why the case is ignored: it runs only with `--ignored` or
            /// `--include-ignored`, else it is SKIPPED with this reason.
            pub ignored: Option<String>,
            /// Patterns of this case, added to `[patterns]`.
            pub patterns: Option<CasePatterns>,
            /// Regexes that must each match a line (a record, with a preset's
            /// record format) of stdout or stderr for the case to pass; a missing
            /// one fails it with `NOTHING_RAN`. Replaces the presets' and
            /// `[harness] require`; `[]` drops it.
            #[cfg_attr(feature = "schema", schemars(length(max = 64)))]
            pub require: Option<Vec<String>>,
            /// The case's own preset, by name or file, in place of `[harness]
            /// preset`/`presets` and of the one its command's tool would get.
            pub preset: Option<PresetName>,
            /// The case's own presets, applied in order; `[]` judges it by no
            /// preset.
            pub presets: Option<Vec<PresetName>>,
            /// Output streams compared, redacted, with `snapshots/<name>.stdout`
            /// and `.stderr` beside this file; in a snapshot `[..]` matches text
            /// within a line and a `...` line any number of lines.
            /// `cargo golden --bless` writes them.
            #[serde(default)]
            #[cfg_attr(feature = "schema", schemars(with = "Vec<SnapshotStream>", length(max = 2), extend("uniqueItems" = true)))]
            pub snapshot: Vec<Stream>,
            /// A machine-readable result the command writes, judged and kept as
            /// evidence.
            pub result: Option<ResultFile>,
            /// Keep running the case while known to fail: its failure does not
            /// fail the run (it is marked QUARANTINED) until `until` has passed;
            /// from then on the quarantine fails the case, naming itself. It never
            /// holds a modified or dirty golden project, lost evidence or a
            /// containment finding.
            pub quarantine: Option<QuarantineKey>,
            /// Data the case writes (CSV, JSON, JSONL, Parquet files, Delta
            /// tables), each compared with
            /// `snapshots/<name>.<path>.data` beside this file (the path's `/` as
            /// `.`), a canonical CSV under a schema line: on column names and
            /// types, row count, and rows matched by `key` with numbers within
            /// `tolerance`. A difference fails the case with DATA_CHANGED;
            /// `cargo golden --bless` writes them.
            #[serde(default)]
            #[cfg_attr(feature = "schema", schemars(length(max = 64)))]
            pub outputs: Vec<DataOutput>,
        }
    };
}

case_table! {
    /// A golden project: one test case.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
    #[serde(deny_unknown_fields)]
    pub struct Golden {
        /// Case name, unique across all `[[golden]]` and `[[verify]]` tables.
        #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
        pub name: String,
        /// The project: a directory or one file, absolute or relative to this
        /// file.
        #[cfg_attr(feature = "schema", schemars(example = &"golden/sales_daily_etl"))]
        pub path: String,
        /// The project directory when `path` names a file (a config file of a
        /// project), relative to this file; `path` must lie inside it. Default:
        /// the file's directory. `isolation` fingerprints or copies this whole
        /// directory, and under `copy` the command runs the file's copy.
        #[cfg_attr(feature = "schema", schemars(example = &"golden/sales"))]
        pub root: Option<String>,
        /// What the project is and why it must keep working.
        pub description: Option<String>,
        /// Command run in the `shell`. Default: `[harness] runner`. `{path}`,
        /// `{dir}` and `{name}` are replaced, shell-quoted.
        #[cfg_attr(feature = "schema", schemars(example = &"sh run.sh"))]
        pub command: Option<String>,
        /// `"success"`; `"aborted"` (or `"timeout"`): the case must be ended by
        /// its timeout, to prove a watchdog fires; or
        /// `"specific_error:<regex>"`: the case must fail and its stdout or
        /// stderr match the regex.
        #[serde(default = "default_expected")]
        pub expected: ExpectedOutcome,
        /// Timeout of this case. Default: `[harness] timeout`.
        pub timeout: Option<HumanDuration>,
        /// Environment variables added to the inherited environment and to
        /// `[harness] env` (these win, name by name).
        #[serde(default)]
        #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = { "pattern": "^[^=\\u0000]+$" })))]
        pub env: BTreeMap<String, EnvValue>,
        /// Directory the command runs in, relative to this file. Default: the
        /// project directory: `path` if it is a directory, else `root`, else
        /// the file's directory.
        pub working_dir: Option<String>,
        /// How the project is protected from modification by a run. Default:
        /// `[harness] isolation`.
        pub isolation: Option<Isolation>,
        /// Globs, relative to the project, of files the modification check
        /// leaves out.
        #[serde(default)]
        pub ignore: Vec<Glob>,
        /// `true`: run even when the project has uncommitted changes in its git
        /// work tree. Default: `[harness] allow_dirty`.
        pub allow_dirty: Option<bool>,
    }
}

/// How a golden project is protected from modification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// Run in place: hash the project's files before and after the run;
    /// any change (but to what git ignores) fails the case with
    /// GOLDEN_MODIFIED. For projects that must not write at all.
    Check,
    /// Run in a fresh temporary copy of the project (the default); the
    /// original is still checked.
    Copy,
}

case_table! {
    /// A verify command: one test case.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
    #[serde(deny_unknown_fields)]
    pub struct Verify {
        /// Case name, unique across all `[[golden]]` and `[[verify]]` tables.
        #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
        pub name: String,
        /// Command run in the `shell` (`sh -c` by default).
        #[cfg_attr(feature = "schema", schemars(example = &"cargo build --locked"))]
        pub command: String,
        /// What the command checks.
        pub description: Option<String>,
        /// Directory the command runs in, relative to this file. Default: this
        /// file's directory.
        pub working_dir: Option<String>,
        /// Timeout of this case. Default: `[harness] timeout`.
        pub timeout: Option<HumanDuration>,
        /// `"success"`; `"aborted"` (or `"timeout"`): the command must be ended
        /// by its timeout, to prove a watchdog fires; or
        /// `"specific_error:<regex>"`: the command must fail and its stdout or
        /// stderr match the regex.
        #[serde(default = "default_expected")]
        pub expected: ExpectedOutcome,
        /// Environment variables added to the inherited environment and to
        /// `[harness] env` (these win, name by name).
        #[serde(default)]
        #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = { "pattern": "^[^=\\u0000]+$" })))]
        pub env: BTreeMap<String, EnvValue>,
    }
}

fn default_slow() -> HumanDuration {
    HumanDuration::of(defaults::SLOW)
}
fn default_keep_runs() -> AtLeastZero {
    AtLeastZero(defaults::KEEP_RUNS as u64)
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
fn default_truncate() -> Truncate {
    Truncate(defaults::TRUNCATE as u64)
}
fn default_jobs() -> Jobs {
    Jobs(1)
}
fn default_retries() -> Retries {
    Retries(0)
}
fn default_true() -> bool {
    true
}
fn default_expected() -> ExpectedOutcome {
    ExpectedOutcome("success".to_string())
}
fn default_isolation() -> Isolation {
    Isolation::Copy
}
fn default_gate() -> Gate {
    Gate::Results
}
fn default_slowdown() -> Slowdown {
    Slowdown(defaults::SLOWDOWN)
}

#[cfg(feature = "schema")]
/// `[redactions]`: placeholder names, other than the built-in ones, to
/// Rust regexes.
fn redactions_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "propertyNames": {
            "pattern": "^\\[[A-Z0-9_]+\\]$",
            "not": { "enum": crate::config::BUILTIN_REDACTIONS },
        },
        "additionalProperties": { "type": "string" },
        "examples": [{ "[PORT]": ":\\d{4,5}\\b" }],
    })
}

/// The older spelling of `expected` in `golden_projects` entries.
const LEGACY_EXPECTED: &str = "expected_outcome";

/// `golden_projects` entries: golden projects that may spell `expected` as
/// `expected_outcome` (which wins when both are given).
fn legacy_golden<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Golden>, D::Error> {
    let entries = Vec::<serde_json::Map<String, Value>>::deserialize(d)?;
    entries
        .into_iter()
        .map(|mut entry| {
            if let Some(outcome) = entry.remove(LEGACY_EXPECTED) {
                entry.insert("expected".into(), outcome);
            }
            Golden::deserialize(Value::Object(entry)).map_err(serde::de::Error::custom)
        })
        .collect()
}

#[cfg(feature = "schema")]
/// The schema of `golden_projects`: [`Golden`] plus `expected_outcome`.
fn legacy_golden_list(generator: &mut SchemaGenerator) -> Schema {
    let mut item = Golden::json_schema(generator);
    let mut outcome = ExpectedOutcome::json_schema(generator);
    outcome.insert(
        "description".into(),
        "Older spelling of `expected`; wins when both are given.".into(),
    );
    if let Some(Value::Object(props)) = item.get_mut("properties") {
        props.insert(LEGACY_EXPECTED.into(), outcome.to_value());
    }
    json_schema!({ "type": "array", "items": item })
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
        assert_eq!(harness["isolation"]["default"], "copy");
        let golden = &schema["definitions"]["Golden"]["properties"];
        assert_eq!(golden["expected"]["default"], "success");
    }

    /// The schema's spellings of `gate` are those the loader accepts.
    #[test]
    fn the_schema_spells_gate_as_the_loader_does() {
        let schema = schemars::schema_for!(GateKey).to_value();
        let listed: Vec<&str> = schema["oneOf"]
            .as_array()
            .map(|values| values.iter().filter_map(|v| v["const"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(listed, crate::config::spelling::variants::<Gate>());
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
