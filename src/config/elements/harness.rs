//! `[harness]` and `[profile.NAME]`: the suite-wide settings, their
//! defaults, and how a table of them applies over the loaded harness.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::case::with_root;
use super::env::{EnvNamePattern, EnvValue};
use super::gate::{Slowdown, default_gate, default_slowdown};
use super::isolation::{Isolation, default_isolation};
use super::presets::PresetName;
use super::retries::{Retries, default_retries};
use super::values::{AtLeastZero, HumanDuration, Jobs, Truncate};
use crate::config::check::{Ctx, Table, keys_of};
use crate::config::tree::{Key, Node, Pos, Value};
use crate::config::{HarnessConfig, MAX_JOBS, MAX_RETRIES, MAX_TRUNCATE, defaults};
use crate::model::{Gate, JunitFlavour};
use crate::shell::Shell;

/// Suite-wide settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct HarnessTable {
    /// Suite name in the reports. Default: the workspace root directory's
    /// name.
    pub(crate) name: Option<String>,
    /// Default command of golden projects, run in the `shell`. `{path}`,
    /// `{dir}` and `{name}` are replaced, shell-quoted.
    #[cfg_attr(feature = "schema", schemars(example = &"odibi run {path}"))]
    pub(crate) runner: Option<String>,
    /// Default per-case timeout. On timeout the case's process group gets
    /// SIGTERM, then SIGKILL after `kill_grace` (on Windows its Job Object
    /// is terminated at once), and the case is ABORTED.
    #[serde(default = "default_timeout")]
    pub(crate) timeout: HumanDuration,
    /// Characters of stdout and stderr kept in reports; the artifact files
    /// always keep everything.
    #[serde(default = "default_truncate")]
    pub(crate) truncate: Truncate,
    /// `true`: declaring no golden project is a config error.
    #[serde(default)]
    pub(crate) require_golden: bool,
    /// `true`: a golden project with uncommitted changes in its git work
    /// tree runs anyway. Default `false`: such a case is an ERROR
    /// (GOLDEN_MODIFIED) naming the files, and does not run.
    #[serde(default)]
    pub(crate) allow_dirty: bool,
    /// Directory of reports and evidence, relative to this file. Default:
    /// `<cargo target dir>/golden`.
    #[cfg_attr(feature = "schema", schemars(example = &"target/golden"))]
    pub(crate) out_dir: Option<String>,
    /// Cases run at once. 1 runs them one after another.
    #[serde(default = "default_jobs")]
    pub(crate) jobs: Jobs,
    /// Default number of extra attempts for a failed case; a later pass
    /// makes it PASSED and flaky.
    #[serde(default = "default_retries")]
    pub(crate) retries: Retries,
    /// Time between SIGTERM and SIGKILL when a case times out (not used on
    /// Windows, which has no SIGTERM).
    #[serde(default = "default_kill_grace")]
    pub(crate) kill_grace: HumanDuration,
    /// How long to wait for output pipes still held by processes a case
    /// left behind, before killing its process group.
    #[serde(default = "default_leak_wait")]
    pub(crate) leak_wait: HumanDuration,
    /// The JUnit family of `junit.xml`. `--junit` overrides it.
    #[serde(default)]
    pub(crate) junit: JunitFlavour,
    /// A case running longer than this is reported `SLOW [> 60s] name`,
    /// again each such period, on every output.
    #[serde(default = "default_slow")]
    pub(crate) slow: HumanDuration,
    /// Default working directory of every case, relative to this file
    /// (`${VAR}` expanded).
    pub(crate) working_dir: Option<String>,
    /// Default isolation of golden projects; a project's own `isolation`
    /// overrides it. `copy` by default: a golden project is never
    /// modified, and every real data tool writes where it runs.
    #[serde(default = "default_isolation")]
    pub(crate) isolation: Isolation,
    /// Environment variables of every case, added to the inherited
    /// environment; a case's own `env` entries win, name by name.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = { "pattern": "^[^=\\u0000]+$" })))]
    pub(crate) env: BTreeMap<String, EnvValue>,
    /// Run directories kept under `artifacts/` after a run whose reports
    /// were written; older ones are removed. 0 keeps every run.
    #[serde(default = "default_keep_runs")]
    pub(crate) keep_runs: AtLeastZero,
    /// Environment variables (of the parent environment or a case's `env`)
    /// whose values are masked as `[REDACTED:NAME]` in every artifact,
    /// report and terminal line, on top of the defaults: names containing
    /// TOKEN, SECRET, PASSWORD, PASSWD, API_KEY, PRIVATE_KEY or CREDENTIAL
    /// with values of at least 6 bytes. A name masks any non-empty value; a
    /// glob (`AWS_*`) values of at least 6 bytes; `!NAME` or `!GLOB` leaves
    /// variables the defaults or a glob would mask alone.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(example = &["API_TOKEN", "AWS_*", "!MY_TOKEN_COUNT"]))]
    pub(crate) redact_env: Vec<EnvNamePattern>,
    /// What the exit code follows: the raw results, or the comparison with
    /// `golden-baseline.json`.
    #[serde(default = "default_gate")]
    #[cfg_attr(feature = "schema", schemars(with = "super::gate::GateKey"))]
    pub(crate) gate: Gate,
    /// A passing case is `slower` than its baseline above this many times
    /// its baseline duration (and at least a second more): a PERFORMANCE
    /// warning.
    #[serde(default = "default_slowdown")]
    pub(crate) slowdown: Slowdown,
    /// The shell commands run in: the program and the arguments before the
    /// command, which comes last. Default: `sh -c`; on Windows `sh -c` when
    /// an `sh` is on `PATH`, else `cmd /C`. `{path}`, `{dir}` and `{name}`
    /// are quoted for this shell (cmd and PowerShell are recognised by
    /// name, any other is quoted as a POSIX shell).
    #[cfg_attr(feature = "schema", schemars(length(min = 1), example = &["pwsh", "-Command"]))]
    pub(crate) shell: Option<Vec<String>>,
    /// The preset every case is judged by: a real tool's failure and allow
    /// patterns, its log record format (continuation lines joined, a level
    /// column read), the lines a passing case must show (`require`) and
    /// environment; shipped with cargo-golden (by name) or a file of the
    /// same form (by path, relative to this file). `[patterns]` and a
    /// case's own settings add to it. Without `preset` or `presets`, each
    /// case gets the preset of the tool its command runs (`dbt`, `odibi`,
    /// `pytest`, `spark-submit`, `python -m TOOL`).
    pub(crate) preset: Option<PresetName>,
    /// Several presets, applied in order (with `preset`, after it); `[]`
    /// turns off choosing them by the command.
    pub(crate) presets: Option<Vec<PresetName>>,
    /// Regexes that every case must show a line of to pass (with its
    /// presets'); a case's own `require` replaces them.
    pub(crate) require: Option<Vec<String>>,
    /// `COLUMNS` of every case: wide, so loggers that wrap at the terminal
    /// width (rich, click, Python's `shutil.get_terminal_size`, pytest)
    /// write each record on one line. 0 leaves `COLUMNS` as the
    /// environment has it; a case's `env` may set it.
    #[serde(default = "default_columns")]
    #[cfg_attr(feature = "schema", schemars(range(max = 100_000)))]
    pub(crate) columns: u32,
    /// What a case that passed only after a failed attempt (`retries`)
    /// does: `"pass"` passes it, marked flaky; `"warn"` also warns;
    /// `"fail"` fails it with a FLAKY issue, failing the run.
    #[serde(default)]
    pub(crate) flaky: crate::model::FlakyPolicy,
    /// `history.jsonl` in the out dir: one line per case per run, read by
    /// `cargo golden history`.
    #[serde(default)]
    pub(crate) history: History,
}

fn default_columns() -> u32 {
    defaults::COLUMNS
}

/// How much of the out dir's `history.jsonl` is kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct History {
    /// Runs kept in `history.jsonl`; the lines of older runs are removed
    /// when a run is appended. 0 keeps every run.
    #[serde(default = "default_history_keep")]
    pub(crate) keep: AtLeastZero,
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

impl Ctx<'_> {
    /// `shell = ["program", "arg", …]`: the command is appended as the last
    /// argument.
    pub(crate) fn shell(&mut self, node: &Node) -> Option<Shell> {
        let argv: Vec<String> = self
            .strings(node, "shell")
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        let shell = Shell::from_argv(&argv);
        if shell.is_none() && matches!(node.value, Value::Seq(_)) {
            self.err(
                node.pos,
                "`shell` needs a program: an array such as [\"pwsh\", \"-Command\"]".into(),
                Some("the command is passed as the last argument; leave `shell` out for `sh -c` (or `cmd /C` on Windows without `sh`)".into()),
            );
        }
        shell
    }

    fn junit_flavour(&mut self, node: &Node, key: &str) -> Option<JunitFlavour> {
        self.spelled(
            node,
            key,
            Some(
                "\"rich\" puts file and line on each testcase (GitHub actions, GitLab); \"strict\" passes the Jenkins xUnit schema",
            ),
        )
    }
}

/// Apply the settings of a `[harness]` (or `[profile.NAME]`) table.
pub(crate) fn harness_settings(
    cx: &mut Ctx<'_>,
    t: &Table<'_>,
    h: &mut HarnessConfig,
    require_golden_pos: &mut Option<Pos>,
) {
    if let Some((_, v)) = t.get("shell")
        && let Some(shell) = cx.shell(v)
    {
        h.shell = shell;
    }
    if let Some(presets) = cx.preset_keys(t, h) {
        h.presets = Some(presets);
    }
    for (key, (k, v)) in t {
        harness_key(cx, key, k, v, h, require_golden_pos);
    }
}

/// Apply one key of a `[harness]` table.
fn harness_key(
    cx: &mut Ctx<'_>,
    key: &str,
    k: &Key,
    v: &Node,
    h: &mut HarnessConfig,
    require_golden_pos: &mut Option<Pos>,
) {
    match key {
        "name" => {
            if let Some(s) = cx.string(v, key) {
                h.name = s;
            }
        }
        "runner" => {
            h.runner = cx
                .string(v, key)
                .map(|r| with_root(&r, &h.base_dir, &h.shell))
        }
        "timeout" => h.timeout = cx.duration(v, key).unwrap_or(h.timeout),
        "require_golden" => {
            h.require_golden = cx.boolean(v, key).unwrap_or(false);
            *require_golden_pos = Some(k.pos);
        }
        "allow_dirty" => h.allow_dirty = cx.boolean(v, key).unwrap_or(h.allow_dirty),
        "out_dir" => {
            h.out_dir = cx
                .expanded(v, key)
                .map(|s| crate::layout::absolute_from(&h.base_dir, Path::new(&s)));
        }
        "working_dir" => {
            h.working_dir = cx
                .expanded(v, key)
                .map(|s| crate::layout::absolute_from(&h.base_dir, Path::new(&s)));
        }
        "isolation" => h.isolation = cx.isolation(v).unwrap_or(h.isolation),
        // A profile's entries go over those of `[harness]`, name by name.
        "env" => h.env.extend(cx.env(v)),
        "flaky" => h.flaky = cx.flaky_policy(v, key).unwrap_or(h.flaky),
        "kill_grace" => h.kill_grace = cx.duration(v, key).unwrap_or(h.kill_grace),
        "leak_wait" => h.leak_wait = cx.duration(v, key).unwrap_or(h.leak_wait),
        "junit" => h.junit = cx.junit_flavour(v, key).unwrap_or(h.junit),
        "slow" => h.slow = cx.duration(v, key).unwrap_or(h.slow),
        "redact_env" => h.redact_env = cx.redact_env(v, key),
        "gate" => h.gate = cx.gate(v, key).unwrap_or(h.gate),
        "slowdown" => h.slowdown = cx.slowdown(v, key).unwrap_or(h.slowdown),
        // Read first, in `harness_settings`: `runner` is quoted for it.
        "shell" => {}
        // Read with `presets`, in `harness_settings`.
        "preset" | "presets" => {}
        "require" => h.harness_require = cx.require(v),
        _ => counted_key(cx, key, v, h),
    }
}

/// Apply one key of a `[harness]` table that counts something.
fn counted_key(cx: &mut Ctx<'_>, key: &str, v: &Node, h: &mut HarnessConfig) {
    match key {
        "truncate" => {
            h.truncate = cx
                .integer(v, key, 1, MAX_TRUNCATE as i64)
                .map_or(h.truncate, |n| n as usize)
        }
        "jobs" => {
            h.jobs = cx
                .integer(v, key, 1, MAX_JOBS as i64)
                .map_or(1, |n| n as usize)
        }
        "keep_runs" => {
            h.keep_runs = cx
                .integer(v, key, 0, i64::MAX)
                .map_or(h.keep_runs, |n| n as usize)
        }
        "history" => {
            if let Some(t) = cx.table(v, "`history`", &keys_of("history"))
                && let Some((_, keep)) = t.get("keep")
            {
                h.history_keep = cx
                    .integer(keep, "history.keep", 0, i64::MAX)
                    .map_or(h.history_keep, |n| n as usize);
            }
        }
        "retries" => {
            h.retries = cx
                .integer(v, key, 0, MAX_RETRIES.into())
                .map_or(0, |n| n as u32)
        }
        "columns" => {
            h.columns = cx
                .integer(v, key, 0, 100_000)
                .map_or(h.columns, |n| n as u32)
        }
        _ => unreachable!("table() filters unknown keys"),
    }
}

/// Apply `[profile.NAME]` over the `[harness]` settings; a profile that is
/// not declared is an error naming the declared ones.
pub(crate) fn profile(
    cx: &mut Ctx<'_>,
    profiles: Option<&Node>,
    name: &str,
    h: &mut HarnessConfig,
    require_golden_pos: &mut Option<Pos>,
) {
    let declared: Vec<&str> = match profiles.map(|n| &n.value) {
        Some(Value::Map(entries)) => entries.iter().map(|(k, _)| k.name.as_str()).collect(),
        _ => Vec::new(),
    };
    let found = match profiles.map(|n| &n.value) {
        Some(Value::Map(entries)) => entries.iter().find(|(k, _)| k.name == name),
        _ => None,
    };
    let Some((_, node)) = found else {
        let help = if declared.is_empty() {
            "declare it as a `[profile.NAME]` table with [harness] keys".to_string()
        } else {
            format!("declared profiles: {}", declared.join(", "))
        };
        let pos = profiles.map_or(Pos { line: 1, col: 1 }, |n| n.pos);
        cx.err(
            pos,
            format!("profile `{name}` is not declared (--profile or CARGO_GOLDEN_PROFILE)"),
            Some(help),
        );
        return;
    };
    if let Some(t) = cx.table(node, &format!("[profile.{name}]"), &keys_of("harness")) {
        harness_settings(cx, &t, h, require_golden_pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::{assert_spelled, diagnose};

    #[test]
    fn junit_flavours_are_spelled_as_serde_spells_them() {
        assert_spelled(
            |cx, n| cx.junit_flavour(n, "junit"),
            ("strict", JunitFlavour::Strict),
            "loose",
            "`junit` must be \"rich\" or \"strict\", found \"loose\"",
        );
    }

    #[test]
    fn a_shell_needs_a_program() {
        let (shell, errors) = diagnose("[]", |cx, n| cx.shell(n));
        assert!(shell.is_none());
        assert_eq!(
            errors,
            ["1:5: `shell` needs a program: an array such as [\"pwsh\", \"-Command\"]"]
        );
    }
}
