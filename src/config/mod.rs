//! Declarations: `harness.toml` / YAML files and ad-hoc `--golden` lists.
//!
//! Two passes: the file is parsed into a spanned tree ([`tree`]), then
//! checked into the validated types below. Every error of a file is
//! collected and reported together, each with file:line:col.

#[cfg(feature = "cli")]
pub(crate) mod adhoc;
mod check;
mod elements;
mod error;
mod keys;
pub(crate) mod preset;
pub(crate) mod schema;
mod spelling;
pub(crate) mod tree;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use check::KNOWN_KEYS;
pub(crate) use elements::case::substitute;
pub(crate) use error::{ConfigError, Diagnostic};

pub(crate) use schema::{DataOutputMode, Isolation, ResultFormat};

pub(crate) use crate::model::Gate;

use crate::model::{CaseKind, JunitFlavour};
use crate::shell::Shell;

/// What a case is expected to do.
#[derive(Clone, Debug)]
pub(crate) enum Expected {
    /// Exit 0, no failure pattern.
    Success,
    /// Fail, with output matching the regex.
    SpecificError(regex::bytes::Regex),
    /// Be ended by a timeout (ABORTED): the case proves a watchdog fires.
    Aborted,
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Success => f.write_str("success"),
            Expected::SpecificError(re) => write!(f, "specific_error:{}", re.as_str()),
            Expected::Aborted => f.write_str("aborted"),
        }
    }
}

/// Which output streams of a case are compared with snapshot files
/// (`snapshot = ["stdout", "stderr"]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnapshotStreams {
    /// Compare stdout with `snapshots/<name>.stdout`.
    pub stdout: bool,
    /// Compare stderr with `snapshots/<name>.stderr`.
    pub(crate) stderr: bool,
}

impl SnapshotStreams {
    /// No stream is snapshotted.
    pub(crate) fn is_empty(self) -> bool {
        !self.stdout && !self.stderr
    }
}

/// A data output of a case (`outputs = [{ path = "out/sales.csv", ... }]`,
/// or `{ table = "main.orders", database = "duckdb:w.duckdb" }`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OutputSpec {
    /// The file or glob, relative to the case's working dir; of a table
    /// or query, the name its snapshot and reports know it by.
    pub(crate) path: String,
    /// Where a table or query output's rows come from; None: `path` is a
    /// file (or glob).
    pub(crate) table: Option<TableSource>,
    /// The dbt model a `model` output is (its table read after the run);
    /// None for any other output.
    pub(crate) model: Option<DbtModel>,
    /// Columns rows are matched by; empty: rows are matched whole.
    pub(crate) key: Vec<String>,
    /// Columns left out.
    pub(crate) ignore: Vec<String>,
    /// Absolute numeric tolerance.
    pub(crate) abs: f64,
    /// Relative numeric tolerance (of the snapshot's value).
    pub(crate) rel: f64,
    /// The format of a file output: `path`'s extension, or a Delta table
    /// (of a table output: CSV, never used).
    pub(crate) format: crate::model::DataFormat,
    /// Every row, or a summary (`mode = "summary"`).
    pub(crate) mode: schema::DataOutputMode,
}

/// The rows of a table output: a table of a database, or a query run in
/// it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TableSource {
    pub(crate) database: Database,
    pub(crate) rows: TableRows,
}

/// A dbt model as an output (`model = "NAME"`): its relation comes from
/// the run's `target/manifest.json`, its database from `database` or,
/// without one, from the profile dbt used.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DbtModel {
    pub(crate) name: String,
    pub(crate) database: Option<Database>,
}

/// A database an output is read from (`database = URL`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Database {
    /// `duckdb:PATH`: a DuckDB file, relative to the case's working dir.
    Duckdb(String),
    /// `sqlite:PATH`: an SQLite file, relative to the case's working dir.
    Sqlite(String),
    /// `postgres://USER@HOST:PORT/DB`: a PostgreSQL server (no password
    /// in it: `PGPASSWORD` gives one).
    Postgres(String),
}

impl Database {
    /// The database file, relative to the case's working dir; None for a
    /// server.
    pub(crate) fn file(&self) -> Option<&str> {
        match self {
            Database::Duckdb(p) | Database::Sqlite(p) => Some(p),
            Database::Postgres(_) => None,
        }
    }
}

/// Which rows of a database a table output is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TableRows {
    /// Every row of a table or view: its name's parts (`SCHEMA.TABLE`).
    Table(Vec<String>),
    /// The rows a query returns.
    Query(String),
}

/// A redaction of the `[redactions]` table: text matching `regex` becomes
/// `name` before output is compared with a snapshot.
#[derive(Clone, Debug)]
pub struct Redaction {
    /// The placeholder, brackets included, e.g. `[PORT]`.
    pub(crate) name: String,
    /// What it replaces.
    pub(crate) regex: regex::Regex,
}

/// Failure patterns added to (or replacing) the built-in ones, and the
/// lines that never count as failures (`[patterns]`, docs/judging.md, The
/// built-ins), with what the case's presets know of their tools
/// (docs/judging.md, Presets).
#[derive(Clone, Debug, Default)]
pub struct PatternConfig {
    /// The team's own validation patterns (`[patterns]` and the case's):
    /// they count at every level, on every line.
    pub validation: Vec<String>,
    /// The team's own runtime patterns.
    pub runtime: Vec<String>,
    /// The team's own abort patterns.
    pub abort: Vec<String>,
    /// Lines matching one of these never count as failures (the team's
    /// and the presets').
    pub allow: Vec<String>,
    /// Lines that fail nothing, shown as a warning of the case (a
    /// preset's `warn`).
    pub warn: Vec<String>,
    /// Keep the built-in patterns (default true); false drops them for
    /// every line.
    pub builtin: bool,
    /// The case's presets: each one's patterns and the records of its
    /// tool, in the order the presets are named.
    pub tools: Vec<ToolPatterns>,
    /// Levels whose log records fail nothing by a built-in's or a
    /// preset's pattern; None: the preset's for its tool's records, else
    /// the classifier's defaults.
    pub quiet: Option<Vec<String>>,
}

/// What one preset adds to the judging of a case: its patterns, and how
/// its tool's records look. Lines its record format does not claim are
/// judged by the built-ins too, whatever the preset says of them.
#[derive(Clone, Debug, Default)]
pub struct ToolPatterns {
    /// The preset's name, as the harness names it.
    pub(crate) name: String,
    /// Its validation patterns.
    pub(crate) validation: Vec<String>,
    /// Its runtime patterns.
    pub(crate) runtime: Vec<String>,
    /// Its abort patterns.
    pub(crate) abort: Vec<String>,
    /// Lines that say its tool ran nothing (`Nothing to do`): a
    /// `NOTHING_RAN` finding whatever else the output shows.
    pub(crate) nothing: Vec<String>,
    /// The built-in patterns also judge its tool's records (`false`: the
    /// preset's own words replace them there).
    pub(crate) builtin: bool,
    /// How its tool's records look, when the preset knows.
    pub(crate) records: Option<RecordFormat>,
    /// Lines each run of its tool must show to pass (per invocation, when
    /// the record format says where one starts).
    pub(crate) require: Vec<String>,
}

/// How a tool's log records look (a preset's `[record]`, docs/judging.md,
/// Presets).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordFormat {
    /// What every line starts with and is read without (dbt's
    /// `HH:MM:SS  ` time), if the tool writes such a prefix.
    #[serde(default)]
    pub(crate) prefix: Option<String>,
    /// A line matching this regex (after its `prefix`) starts a record;
    /// its `level` group, if any, is the record's level. Indented lines
    /// continue a record.
    pub(crate) start: String,
    /// The key of the level in a JSON log line, if the tool writes them;
    /// a dotted path for a nested one (`info.level`).
    #[serde(default)]
    pub(crate) json_level: Option<String>,
    /// Levels whose records do not fail a case by a failure pattern.
    #[serde(default)]
    pub(crate) quiet: Vec<String>,
    /// A record that says the failure before it is being retried (its
    /// `key` group, if any, names what is retried: the failures of
    /// records holding that text wait for the outcome).
    #[serde(default)]
    pub(crate) retry: Option<String>,
    /// A record that says a retried step succeeded (its `key` group, if
    /// any, names which): the failures it retried are warnings.
    #[serde(default)]
    pub(crate) recovered: Option<String>,
    /// A record that opens a new run of the tool (dbt's `Running with
    /// dbt=`): the preset's `require` is met by each run on its own.
    #[serde(default)]
    pub(crate) invocation: Option<String>,
}

impl PatternConfig {
    /// The patterns of a case with its own `patterns` table: the case's
    /// lists are added to these, and its `builtin`, when given, decides for
    /// the case.
    pub(crate) fn with_case(&self, case: &CasePatterns) -> PatternConfig {
        let join = |a: &[String], b: &[String]| [a, b].concat();
        PatternConfig {
            validation: join(&self.validation, &case.validation),
            runtime: join(&self.runtime, &case.runtime),
            abort: join(&self.abort, &case.abort),
            allow: join(&self.allow, &case.allow),
            warn: self.warn.clone(),
            builtin: case.builtin.unwrap_or(self.builtin),
            tools: self.tools.clone(),
            quiet: case.quiet.clone().or_else(|| self.quiet.clone()),
        }
    }
}

/// A case's own `patterns` table: added to the harness's `[patterns]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CasePatterns {
    /// Validation patterns.
    pub(crate) validation: Vec<String>,
    /// Runtime patterns.
    pub(crate) runtime: Vec<String>,
    /// Abort patterns.
    pub(crate) abort: Vec<String>,
    /// Lines matching one of these never count as failures.
    pub(crate) allow: Vec<String>,
    /// `builtin`, when the case sets it.
    pub(crate) builtin: Option<bool>,
    /// `quiet`, when the case sets it.
    pub(crate) quiet: Option<Vec<String>>,
}

/// A case's `result`: a machine-readable result its command writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResultSpec {
    /// What the result is.
    pub(crate) format: ResultFormat,
    /// Where, relative to the case's working dir (under `copy`, in the
    /// copy); None: stdout (`odibi-validate` only).
    pub(crate) path: Option<PathBuf>,
    /// A result that ran nothing passes (`allow_empty = true`); by
    /// default it is `NOTHING_RAN`.
    pub(crate) allow_empty: bool,
}

/// One declared case, validated.
#[derive(Clone, Debug)]
pub struct CaseDef {
    /// 0-based declaration index across the whole file.
    pub(crate) index: usize,
    /// Unique name.
    pub name: String,
    /// Golden project or verify command.
    pub kind: CaseKind,
    /// Line of the declaration (1-based).
    pub(crate) line: usize,
    /// Optional description.
    pub(crate) description: Option<String>,
    /// Golden project path (absolute); None for verify commands.
    pub path: Option<PathBuf>,
    /// The golden project's directory (absolute): `path` when it is a
    /// directory, else `root` or the file's directory. Isolation
    /// fingerprints and copies it. None for verify commands.
    pub(crate) root: Option<PathBuf>,
    /// The command the harness's shell runs, placeholders replaced.
    pub command: String,
    /// The command as declared, placeholders intact (re-substituted when
    /// the project runs in a copy).
    pub(crate) command_template: String,
    /// Absolute working directory.
    pub working_dir: PathBuf,
    /// Expected outcome.
    pub(crate) expected: Expected,
    /// Per-case timeout.
    pub(crate) timeout: Duration,
    /// Extra environment variables.
    pub(crate) env: BTreeMap<String, String>,
    /// Golden isolation mode.
    pub(crate) isolation: Isolation,
    /// Globs (relative to the project) excluded from the modification check.
    pub(crate) ignore: Vec<String>,
    /// Run even when the golden project has uncommitted changes in its git
    /// work tree.
    pub(crate) allow_dirty: bool,
    /// Extra attempts for a failed case.
    pub(crate) retries: u32,
    /// Run alone even with `--jobs N`.
    pub(crate) exclusive: bool,
    /// Declaration indices of the cases this one starts after (`after`),
    /// without repeats: under `--jobs N` it waits until each has finished.
    pub(crate) after: Vec<usize>,
    /// Running longer than this (and each such period again) reports the
    /// case as slow.
    pub(crate) slow: Duration,
    /// Why the case is ignored: it runs only with `--ignored` or
    /// `--include-ignored`, else it is SKIPPED with this reason.
    pub(crate) ignored: Option<String>,
    /// The case's own `patterns` table, added to the harness's.
    pub(crate) patterns: Option<CasePatterns>,
    /// Output streams compared with snapshot files.
    pub snapshot: SnapshotStreams,
    /// The machine-readable result the command writes, if declared.
    pub(crate) result: Option<ResultSpec>,
    /// Data files compared with data snapshots (`outputs`).
    pub(crate) outputs: Vec<OutputSpec>,
    /// The case's quarantine, if declared (never `expired` here: that is
    /// judged when the case runs).
    pub(crate) quarantine: Option<crate::model::Quarantine>,
    /// The presets that judge the case (shipped names or preset files, as
    /// written): its own `preset`/`presets`, else the harness's, else the
    /// ones of the tools its command runs.
    pub(crate) presets: Vec<String>,
    /// When the presets were chosen by the command: for each, the tool it
    /// runs, as the command names it (`dbt`, `python -m pytest`); empty
    /// when the presets were named.
    pub(crate) preset_tools: Vec<String>,
    /// How the case is judged, its presets applied.
    pub(crate) judging: CaseJudging,
}

/// How one case is judged, from its presets, `[patterns]`, `[harness]`
/// settings and its own keys.
#[derive(Clone, Debug, Default)]
pub(crate) struct CaseJudging {
    /// Its failure, allow and warning patterns and record format.
    pub(crate) patterns: PatternConfig,
    /// Lines it must show to pass.
    pub(crate) require: Vec<String>,
    /// Environment its presets give it (under the harness's and its own).
    pub(crate) env: BTreeMap<String, String>,
}

/// A validated harness file.
#[derive(Clone, Debug)]
pub struct HarnessConfig {
    /// The harness file (absolute); None when only ad-hoc declarations exist.
    pub(crate) file: Option<PathBuf>,
    /// Directory relative paths are resolved against.
    pub(crate) base_dir: PathBuf,
    /// sha256 of the file's bytes (empty without a file).
    pub(crate) sha256: String,
    /// Suite name.
    pub name: String,
    /// Default command of golden projects.
    pub(crate) runner: Option<String>,
    /// Default per-case timeout.
    pub(crate) timeout: Duration,
    /// Characters of output kept in reports.
    pub(crate) truncate: usize,
    /// No golden project is a config error.
    pub(crate) require_golden: bool,
    /// Where `require_golden` was set, for its error.
    pub(crate) require_golden_at: Option<tree::Pos>,
    /// Default `allow_dirty` of golden projects.
    pub(crate) allow_dirty: bool,
    /// Output directory, if configured (relative paths resolved).
    pub(crate) out_dir: Option<PathBuf>,
    /// Parallel jobs.
    pub(crate) jobs: usize,
    /// Default retries.
    pub(crate) retries: u32,
    /// Time between SIGTERM and SIGKILL on timeout.
    pub(crate) kill_grace: Duration,
    /// How long to wait for pipes held by leaked descendants.
    pub(crate) leak_wait: Duration,
    /// The JUnit family of `junit.xml`.
    pub(crate) junit: JunitFlavour,
    /// Default period after which a running case is reported slow.
    pub(crate) slow: Duration,
    /// Default working directory of cases (`[harness] working_dir`).
    pub(crate) working_dir: Option<PathBuf>,
    /// Default isolation of golden projects (`[harness] isolation`).
    pub(crate) isolation: Isolation,
    /// Environment of every case (`[harness] env`), under each case's own.
    pub(crate) env: BTreeMap<String, String>,
    /// Run directories kept under `artifacts/` (0: all).
    pub(crate) keep_runs: usize,
    /// Runs kept in `history.jsonl` (`history.keep`; 0: all).
    pub(crate) history_keep: usize,
    /// What a case that passed after a failed attempt does (`flaky`).
    pub(crate) flaky: crate::model::FlakyPolicy,
    /// The `[profile.NAME]` applied over `[harness]`, if any.
    pub(crate) profile: Option<String>,
    /// The shell every command runs in.
    pub(crate) shell: Shell,
    /// Failure patterns of every case (`[patterns]`).
    pub(crate) patterns: PatternConfig,
    /// Which environment values are secret (`redact_env` on top of the
    /// defaults).
    pub(crate) redact_env: crate::redact::RedactRules,
    /// `[redactions]`, in file order (applied after the built-in ones).
    pub(crate) redactions: Vec<Redaction>,
    /// What the exit code follows.
    pub(crate) gate: Gate,
    /// A passing case is `slower` above this many times its baseline
    /// duration (and at least a second more).
    pub(crate) slowdown: f64,
    /// The presets of `[harness] preset` / `presets`, in order; None when
    /// neither is written (each case then gets the preset of its tool).
    pub(crate) presets: Option<Vec<String>>,
    /// `[patterns]` as written, to which each case's presets are added.
    pub(crate) own_patterns: CasePatterns,
    /// `[harness] require`: lines every case must show (with its presets').
    pub(crate) harness_require: Vec<String>,
    /// `COLUMNS` of every case (0: left as the environment has it).
    pub(crate) columns: u32,
    /// The presets loaded, by name or file as written (a preset file is
    /// read once, whatever cases name it).
    pub(crate) loaded_presets: BTreeMap<String, preset::Preset>,
    /// Cases in declaration order.
    pub cases: Vec<CaseDef>,
}

/// The environment variable that picks a `[profile.NAME]` when
/// `--profile` is not given.
pub(crate) const PROFILE_ENV: &str = "CARGO_GOLDEN_PROFILE";

/// Most extra attempts a case may have (`retries`, `--retries`).
pub(crate) const MAX_RETRIES: u32 = 100;
/// Most `require` patterns of one case: the classifier keeps one bit each.
pub(crate) const MAX_REQUIRE: usize = 64;
/// Most cases at once (`jobs`, `--jobs`).
pub(crate) const MAX_JOBS: usize = 1024;
/// Most characters of output kept in reports (`truncate`).
pub(crate) const MAX_TRUNCATE: usize = 100_000_000;
/// Longest duration (`timeout`, `kill_grace`, `leak_wait`): one year, as
/// humantime reads `1y`.
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(31_557_600);

/// Defaults of the `[harness]` table.
pub(crate) mod defaults {
    use std::time::Duration;
    /// `timeout`.
    pub(crate) const TIMEOUT: Duration = Duration::from_secs(600);
    /// `truncate`.
    pub(crate) const TRUNCATE: usize = 10_000;
    /// `kill_grace`.
    pub(crate) const KILL_GRACE: Duration = Duration::from_secs(2);
    /// `leak_wait`.
    pub(crate) const LEAK_WAIT: Duration = Duration::from_secs(1);
    /// `keep_runs`.
    pub(crate) const KEEP_RUNS: usize = 10;
    /// `history.keep`.
    pub(crate) const HISTORY_KEEP: usize = 200;
    /// `slow`.
    pub(crate) const SLOW: Duration = Duration::from_secs(60);
    /// `slowdown`.
    pub(crate) const SLOWDOWN: f64 = 2.0;
    /// `columns`: wide enough that rich and other loggers that wrap at the
    /// terminal width write each record on one line.
    pub(crate) const COLUMNS: u32 = 1000;
}

impl HarnessConfig {
    /// An empty harness rooted at `base_dir` (for ad-hoc declarations).
    pub(crate) fn empty(base_dir: &Path) -> HarnessConfig {
        HarnessConfig {
            file: None,
            base_dir: base_dir.to_path_buf(),
            sha256: String::new(),
            name: base_dir.file_name().map_or_else(
                || "golden".to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            runner: None,
            timeout: defaults::TIMEOUT,
            truncate: defaults::TRUNCATE,
            require_golden: false,
            require_golden_at: None,
            allow_dirty: false,
            out_dir: None,
            jobs: 1,
            retries: 0,
            kill_grace: defaults::KILL_GRACE,
            leak_wait: defaults::LEAK_WAIT,
            junit: JunitFlavour::Rich,
            slow: defaults::SLOW,
            working_dir: None,
            isolation: Isolation::Copy,
            env: BTreeMap::new(),
            keep_runs: defaults::KEEP_RUNS,
            history_keep: defaults::HISTORY_KEEP,
            flaky: crate::model::FlakyPolicy::Warn,
            profile: None,
            shell: Shell::platform_default(),
            patterns: PatternConfig {
                builtin: true,
                ..PatternConfig::default()
            },
            redact_env: crate::redact::RedactRules::default(),
            redactions: Vec::new(),
            gate: Gate::Results,
            slowdown: defaults::SLOWDOWN,
            presets: None,
            own_patterns: CasePatterns::default(),
            harness_require: Vec::new(),
            columns: defaults::COLUMNS,
            loaded_presets: BTreeMap::new(),
            cases: Vec::new(),
        }
    }

    /// Load and validate a harness file (TOML, or YAML by extension).
    /// `suite_default` names the suite when `[harness].name` is absent.
    pub fn load(path: &Path, suite_default: Option<&str>) -> Result<HarnessConfig, ConfigError> {
        let profile = std::env::var(PROFILE_ENV).ok().filter(|p| !p.is_empty());
        HarnessConfig::load_profile(path, suite_default, profile.as_deref())
    }

    /// [`HarnessConfig::load`] with `[profile.NAME]` applied over `[harness]`
    /// (None: no profile, whatever the environment says).
    pub(crate) fn load_profile(
        path: &Path,
        suite_default: Option<&str>,
        profile: Option<&str>,
    ) -> Result<HarnessConfig, ConfigError> {
        let path = crate::layout::absolute(path);
        let bytes = crate::untrusted::read(&path).map_err(|e| ConfigError::Read {
            path: path.clone(),
            source: e,
        })?;
        let text = String::from_utf8(bytes.clone()).map_err(|_| {
            ConfigError::single(
                &path,
                tree::Pos { line: 1, col: 1 },
                "the file is not valid UTF-8",
                None,
            )
        })?;
        let is_yaml = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        );
        let root = match is_yaml {
            #[cfg(feature = "yaml")]
            true => tree::parse_yaml(&text),
            #[cfg(not(feature = "yaml"))]
            true => {
                return Err(ConfigError::single(
                    &path,
                    tree::Pos { line: 1, col: 1 },
                    "a YAML harness file needs cargo-golden's `yaml` feature (on by default), which this build leaves out",
                    None,
                ));
            }
            false => tree::parse_toml(&text),
        }
        .map_err(|e| {
            let what = if is_yaml { "YAML" } else { "TOML" };
            ConfigError::single(
                &path,
                e.pos,
                &format!("malformed {what}: {}", e.message),
                None,
            )
        })?;
        let base_dir = path
            .parent()
            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
        let mut h = HarnessConfig::empty(&base_dir);
        if let Some(n) = suite_default {
            h.name = n.to_string();
        }
        h.file = Some(path.clone());
        h.sha256 = crate::hash::sha256_hex(&bytes);
        h.profile = profile.map(str::to_string);
        validate::check(&root, &path, &mut h)?;
        Ok(h)
    }

    /// With `require_golden = true`, no golden project (in the file or
    /// from `--golden`) is a config error. Call once every declaration is in.
    pub(crate) fn check_required_golden(&self) -> Result<(), ConfigError> {
        if !self.require_golden || self.golden_count() > 0 {
            return Ok(());
        }
        Err(ConfigError::single(
            self.file.as_deref().unwrap_or(Path::new("harness.toml")),
            self.require_golden_at
                .unwrap_or(tree::Pos { line: 1, col: 1 }),
            "`require_golden = true` but no golden project is declared",
            Some("declare at least one [[golden]] project, or pass `--golden`"),
        ))
    }

    /// The secrets of a run of this harness: values from this process's
    /// environment and every case's `env` that [`HarnessConfig::redact_env`]
    /// (with the defaults) makes secret.
    pub(crate) fn redactor(&self) -> crate::redact::Redactor {
        crate::redact::Redactor::for_run(&self.redact_env, self.cases.iter().map(|c| &c.env))
    }

    /// The lines `case` must show to pass: its own `require`, else
    /// `[harness] require` and its presets' for its kind.
    pub(crate) fn require_for<'a>(&'a self, case: &'a CaseDef) -> &'a [String] {
        &case.judging.require
    }

    /// The environment `case` runs with on top of the harness's: its
    /// presets' variables, then `COLUMNS`, then the case's own `env`.
    pub(crate) fn env_for(&self, case: &CaseDef) -> BTreeMap<String, String> {
        let mut env = case.judging.env.clone();
        if self.columns > 0 {
            env.insert("COLUMNS".into(), self.columns.to_string());
        }
        env.extend(case.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        env
    }

    /// The patterns `case` is judged by: its presets', `[patterns]` and
    /// its own.
    pub(crate) fn patterns_for(&self, case: &CaseDef) -> PatternConfig {
        case.judging.patterns.clone()
    }

    /// Number of golden projects declared.
    pub(crate) fn golden_count(&self) -> usize {
        self.cases
            .iter()
            .filter(|c| c.kind == CaseKind::Golden)
            .count()
    }

    /// `golden-baseline.json` beside the harness file (docs/baselines.md,
    /// The verdict baseline).
    pub(crate) fn baseline_file(&self) -> PathBuf {
        self.base_dir.join(crate::layout::BASELINE_FILE)
    }

    /// The harness file shown to users: relative to `cwd` when inside it.
    pub(crate) fn display_file(&self) -> String {
        match &self.file {
            Some(f) => crate::layout::display_relative(f),
            None => "<--golden>".to_string(),
        }
    }

    /// The harness file as the reports name it (JUnit `testcase@file`,
    /// summary.json, report.md): relative to the repository root, so CI
    /// tools resolve it whichever directory the run started in.
    pub(crate) fn report_file(&self) -> String {
        match &self.file {
            Some(f) => crate::layout::repo_relative(f),
            None => "<--golden>".to_string(),
        }
    }

    /// Append ad-hoc golden projects after the declared cases.
    #[cfg(feature = "cli")]
    pub(crate) fn add_adhoc(&mut self, entries: &[adhoc::AdhocGolden]) -> Result<(), ConfigError> {
        let mut diags = Vec::new();
        for e in entries {
            if self.cases.iter().any(|c| c.name == e.name) {
                diags.push(Diagnostic {
                    file: PathBuf::from("--golden"),
                    pos: tree::Pos { line: 1, col: 1 },
                    message: format!("duplicate case name `{}`", e.name),
                    help: Some("give the ad-hoc project another name with `name:path`".into()),
                });
                continue;
            }
            let path =
                crate::layout::absolute_from(&std::env::current_dir().unwrap_or_default(), &e.path);
            let Some(runner) = self.runner.clone() else {
                diags.push(Diagnostic {
                    file: PathBuf::from("--golden"),
                    pos: tree::Pos { line: 1, col: 1 },
                    message: format!("golden project `{}` has no command and no runner", e.name),
                    help: Some("set `[harness] runner = \"… {path}\"` in the harness file".into()),
                });
                continue;
            };
            let working_dir = default_working_dir(&path);
            let command = substitute(&self.shell, &runner, &path, &working_dir, &e.name);
            let (presets, preset_tools) = elements::presets::case_presets(self, None, &command);
            let judging = elements::presets::judging(self, &presets, None, None, CaseKind::Golden);
            self.cases.push(CaseDef {
                command_template: runner,
                index: self.cases.len(),
                name: e.name.clone(),
                kind: CaseKind::Golden,
                line: 0,
                description: None,
                root: Some(default_working_dir(&path)),
                path: Some(path),
                command,
                working_dir,
                expected: Expected::Success,
                timeout: self.timeout,
                env: self.env.clone(),
                isolation: self.isolation,
                ignore: Vec::new(),
                allow_dirty: self.allow_dirty,
                retries: self.retries,
                exclusive: false,
                after: Vec::new(),
                slow: self.slow,
                ignored: None,
                patterns: None,
                snapshot: SnapshotStreams::default(),
                result: None,
                outputs: Vec::new(),
                quarantine: None,
                presets,
                preset_tools,
                judging,
            });
        }
        if diags.is_empty() {
            Ok(())
        } else {
            Err(ConfigError::Invalid(diags))
        }
    }
}

/// A golden project's default working dir: the path if it is a directory,
/// else its parent.
pub(crate) fn default_working_dir(path: &Path) -> PathBuf {
    if path.is_file() {
        path.parent()
            .map_or_else(|| path.to_path_buf(), Path::to_path_buf)
    } else {
        path.to_path_buf()
    }
}

#[cfg(test)]
mod tests;
