//! Classification of a case's output (docs/judging.md, How a case is judged,
//! and its Presets): the output read as log records, each judged by failure
//! patterns, its level and the exception it raised, pydantic validation errors
//! extracted on the way, and `judge()`, the pure function that turns what was
//! observed into an execution status, a result and issues.
//!
//! Every line is judged without its terminal escape sequences ([`crate::ansi`]),
//! so coloured output is judged like plain output, and whole, whatever its
//! length. Lines are read into records (the `records` module): a record's first
//! line has a time-like prefix or a level column, and the indented lines
//! and tracebacks after it continue it; a preset that knows its tool's
//! record format claims that tool's lines. Who wrote a record decides what
//! judges it:
//!
//! - the team's own patterns (`[patterns]`, a case's `patterns`) judge
//!   every line at every level;
//! - a preset's patterns (with the built-ins, unless it says otherwise)
//!   judge the records of its tool, quieted by its quiet levels;
//! - the built-ins and every preset's patterns judge every record no
//!   preset claims; a record's level quiets only their abort words.
//!
//! A record at ERROR or above fails a case that exits 0, unless a later
//! record says the step recovered; an uncaught exception is judged by its
//! type. Output can be gigabytes, so patterns are not matched line by
//! line: a pre-check runs over a whole block of complete lines (the regex
//! engine's literal prefilters make that several GB/s) and only the
//! records holding a line it flags are matched. A line too long to hold is
//! fed through a lazy DFA (module `dfa`) as it arrives, so memory stays
//! bounded whatever the output.

use std::sync::{Arc, LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::bytes::{Regex, RegexBuilder};

use crate::ansi::no_controls;
use crate::config::{Expected, PatternConfig, RecordFormat};
use crate::model::ValidationError;

mod dfa;
mod exception;
mod headline;
mod judge;
mod pydantic;
mod records;
mod stream;

pub(crate) use judge::{CaseFacts, judge};
// What verify-evidence re-judges by (a command of the command line).
#[cfg(feature = "cli")]
pub(crate) use judge::{Ending, ran_status, unfinished_status, unmet};
pub(crate) use stream::StreamClassifier;

/// Built-in validation patterns (docs/judging.md, The built-ins).
/// `validation error for \w+` is pydantic's line for one error; it writes
/// `3 validation errors for X` for several, so the plural is accepted too.
///
/// `ValidationError` counts as the exception of a config-validation library
/// (pydantic, jsonschema, marshmallow), not as a bare name: tools name
/// their own data-quality exceptions so, and a failed data check is not a
/// bad config. Then command-line usage errors: click's (`Error: No such
/// option: --x`, also in typer's box, and `Aborted!` at a prompt nothing
/// answers) and argparse's (`prog: error: unrecognized arguments`). Then
/// the words tools use for a project that does not load: a config file or
/// value that is not valid, a file that does not parse or compile, a
/// schema that fails, a named part of the project (a DAG, a checkpoint, a
/// gateway) that does not exist, something that must be specified.
pub const BUILTIN_VALIDATION: &[&str] = &[
    r"validation errors? for \w+",
    "Input should be a valid",
    r"\b(?:pydantic|jsonschema|marshmallow)[\w.]*\.ValidationError\b",
    "Invalid config",
    r"^Error: (?:No such (?:option|command)|Missing (?:option|argument|parameter)|Invalid value for|Got unexpected extra arguments?|Option '[^']+' requires)",
    r"^│ (?:No such (?:option|command)|Missing (?:option|argument|parameter)|Invalid value for|Got unexpected extra arguments?)",
    r"^[\w.-]+: error: (?:unrecognized arguments|the following arguments are required|argument |invalid choice)",
    r"\berror: unrecognized arguments\b",
    r"^Aborted!$",
    r"[Cc]onfiguration validation failed",
    r"\b[Ii]nvalid (?:project |DAG |pipeline )config(?:uration)?\b",
    r"\b(?:[Cc]onfig(?:uration)?(?: file)?|[Ss]ettings) (?:'[^']*' )?is not valid\b",
    r"\bis not valid (?:JSON|YAML|TOML)\b",
    r"Failed validating '\w+' in schema",
    r"\b(?:Compilation|Parsing|Syntax) [Ee]rror\b",
    r"\bfailed to parse\b",
    r"\bFailed to load (?:model|config(?:uration)?|project|dag|DAG|pipeline|flow|settings|module)\b",
    r"\b(?:Unknown|Missing|No such) (?:connection type|gateway|profile|dialect|selector|checkpoint)\b",
    r"\b[Ss]elector did not (?:return|match) any\b",
    r"\b(?:Checkpoint|Dag|DAG|Flow|Pipeline|Model|Task|Rule|Target|Profile|Gateway|Suite|Datasource) (?:with name |named )?['\x22]?[\w.-]+['\x22]? (?:was not found|could not be found|does not exist)\b",
    r"\b(?:(?:have|has) to|must) be specified\b",
    r"\.(?:ya?ml|toml|json|cfg|ini) has errors?\b",
    r"\x22valid\x22:\s*false\b",
];
/// What the pre-check looks for in place of each [`BUILTIN_VALIDATION`]
/// pattern that starts with a class or an anchor (None: the pattern
/// itself): a literal every line it matches holds. A pattern without a
/// leading literal leaves the combined pre-check without one, and the
/// whole pre-check would run its automaton on every byte.
const BUILTIN_VALIDATION_QUICK: &[Option<&str>] = &[
    None,
    None,
    None,
    None,
    Some("Error: "),
    Some("│ "),
    Some(": error: "),
    None,
    Some("Aborted!"),
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    None,
    Some(" be specified"),
    Some(" has error"),
    None,
];
/// Built-in runtime patterns: then a JSON result that says it did not
/// succeed, and a run's summary that counts failed tasks (Luigi's, which
/// exits 0 by default).
pub const BUILTIN_RUNTIME: &[&str] = &[
    "Pipeline failed",
    "SparkException",
    "Status: FAILURE",
    "Job aborted",
    r"\x22success\x22:\s*false\b",
    r"^\s*\* [1-9]\d* failed(?: scheduling)?:",
];
/// What the pre-check looks for in place of each [`BUILTIN_RUNTIME`]
/// pattern (see [`BUILTIN_VALIDATION_QUICK`]).
const BUILTIN_RUNTIME_QUICK: &[Option<&str>] = &[None, None, None, None, None, Some(" failed")];
/// Built-in abort patterns.
///
/// Not word-bounded, since `\bTimeout\b` would miss `ReadTimeout`,
/// `TimeoutError` and `TimeoutException`, which are failures; but never
/// inside a name joined by `_` or digits: dbt names a test
/// `accepted_values_calls_outcome__Completed__Interrupted__Timeout`, a
/// setting is `timeout_s`. Lines that mention the words harmlessly
/// otherwise are named with `allow`; a record at a quiet level (INFO,
/// WARNING) aborts nothing by them.
pub const BUILTIN_ABORT: &[&str] = &[
    r"(?:^|[^_0-9])Timeout(?:[^_0-9]|$)",
    r"(?:^|[^_0-9])Interrupted(?:[^_0-9]|$)",
    r"(?:^|[^_0-9])SIGTERM(?:[^_0-9]|$)",
];
/// What the pre-check looks for in place of [`BUILTIN_ABORT`] (pattern
/// by pattern): its bare word, a superset of the lines it matches. A
/// pattern that starts with a class as wide as `[^_0-9]` leaves the
/// combined pre-check without a literal to search for, and the whole
/// pre-check would fall back to running its automaton on every byte.
const BUILTIN_ABORT_QUICK: &[&str] = &["Timeout", "Interrupted", "SIGTERM"];

/// Built-in lines that say a tool ran nothing, for golden projects (whose
/// job is to run): dbt's `Nothing to do`, Odibi's `0 nodes match`,
/// pytest's `no tests ran`, Snakemake's `Nothing to be done`, and the
/// like. A verify command may have nothing to do.
pub(crate) const BUILTIN_NOTHING: &[&str] = &[
    r"\bNothing to do\. Try checking",
    r"\b0 nodes match\b",
    r"\bno tests ran\b",
    r"^Nothing to be done\b",
    r"\bNo tasks? (?:to run|were (?:run|scheduled)|selected)\b",
    r"\bnothing (?:was )?selected\b",
    r"\bNo changes to (?:plan|apply)\b",
    r"\bNo (?:models|tasks|jobs|nodes|steps) (?:are |were )?ready to run\b",
    r"\b[Dd]id not run any (?:tasks?|jobs?|steps?|nodes?)\b",
    r"\x22evaluated_\w+\x22: 0\b",
];

/// Records that say a failed step is tried again, in the words tools use.
static RETRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bretry(?:ing)?\b|\bretried\b|\bwill (?:be )?retr(?:y|ied)\b|\bawaiting ?retry\b|\bup_for_retry\b|\battempt to run again\b|\bwill attempt to run again\b|\brestart(?:ing)? job\b")
        .expect("valid regex")
});
/// Records that say the whole run succeeded: what recovers failures a
/// retry record set aside without naming the step.
static RUN_SUCCEEDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:dag ?run|flow run|workflow|pipeline|run)\b[^\n]{0,160}?\b(?:successful|succeeded|success|completed)\b|\(100%\) done\b|\bsucceeded in a retry\b")
        .expect("valid regex")
});
/// Records that say a step succeeded (after a retry, when they name it).
static RECOVERED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:succeeded|successful(?:ly)?|success|completed|finished in state completed|marking task as success|done)\b")
        .expect("valid regex")
});
/// Records that say a step of the run started: a task, node, rule, model
/// or job. An exception raised before any is the project failing to load.
static STEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:running|executing|starting|started|beginning|begin|submitting|created|scheduled)\b.{0,120}?(?:task|node|rule|model|step|job|stage|flow run|dag ?run|batch|asset|op\b|pipeline\b)|^\d+ of \d+ START\b|^(?:local)?rule \w+:|\b(?:task|node|rule|job|step)\b.{0,80}\b(?:started|running|starting)\b")
        .expect("valid regex")
});
/// The words [`STEP`] starts from, each looked for in lower, Title and
/// UPPER case: a record holding none is no step starting.
const STEP_WORDS: &[&str] = &[
    "running",
    "executing",
    "start",
    "begin",
    "submitting",
    "created",
    "scheduled",
    "rule ",
];
/// What a line that continues a record without being indented holds: a
/// traceback's header and its chain, rich's box, a JVM exception and its
/// cause. Flagged so that such a line is always read into its record.
const STACK_WORDS: &[&str] = &[
    "Traceback",
    "xception",
    "Caused by",
    "Suppressed: ",
    "╭",
    "│",
    "╰",
];
/// The level words of an error record (`records::Level`), each looked for
/// in lower, Title and UPPER case: a record whose first line holds none is
/// at no level of error, and needs no reading unless something else flags
/// it.
const ERROR_WORDS_QUICK: &[&str] = &[
    "err", "crit", "crt", "fatal", "ftl", "severe", "alert", "emerg", "panic",
];

/// `words` in their three cases, as one alternation of literals.
fn three_cases(words: &[&str]) -> String {
    let mut out = Vec::new();
    for w in words {
        let mut title = w.to_string();
        title[..1].make_ascii_uppercase();
        out.extend([w.to_string(), title, w.to_ascii_uppercase()]);
    }
    out.join("|")
}

/// Lines at least this long are not held but fed through a DFA.
const HOLD: usize = 64 * 1024;
/// Longest line kept in [`StreamFindings`], in characters.
const MAX_FINDING_CHARS: usize = 500;

const VALIDATION: usize = 0;
const RUNTIME: usize = 1;
const ABORT: usize = 2;
const AUTH: usize = 3;
const SCHEMA: usize = 4;
const SPECIFIC: usize = 5;
/// Not a finding: a line matching an allow pattern.
const ALLOW: usize = 6;
/// Slots of [`StreamFindings::headlines`] and `spans` past the
/// categories: an ERROR record, and an exception.
const ERROR_LOGGED: usize = 5;
const EXCEPTION: usize = 6;
/// Categories whose pre-check shares one regex (see [`Shared::quick`]).
const QUICK_MASK: u8 = 0b111;
/// Categories an allowed line never counts for.
const FAILURE_CATS: [usize; 5] = [VALIDATION, RUNTIME, ABORT, AUTH, SCHEMA];
/// [`FAILURE_CATS`] as a mask of category bits.
const FAILURE_MASK: u8 = 0b1_1111;

// Unicode `\b`: `éauth` is not about authentication. Both hints match at
// most a few bytes, so long lines are searched for them piece by piece
// (see `stream::find_hint`) rather than through a DFA.
static AUTH_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)unauthori[sz]ed|\bauth").expect("valid regex"));
static SCHEMA_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)schema").expect("valid regex"));
// Kept apart from the shared pre-check: 64 case variants of `schema` next to
// the other literals push the combined prefilter past what the regex crate
// accelerates, and the whole pre-check drops from ~8 GB/s to ~1 GB/s.
static SCHEMA_QUICK: LazyLock<Regex> = LazyLock::new(|| block_regex("(?i:schema)").expect("valid"));
// ASCII word boundary: the Unicode `\b` makes the lazy DFA give up on
// non-ASCII input, and the ASCII one flags a superset of lines. Kept apart
// from the shared pre-check for the reason `schema` is: the case variants
// of `unauthorized` leave the combined prefilter without literals it can
// use, and the shared pre-check, searched while no auth hint was found
// (most streams), drops from ~8 GB/s to ~0.6 GB/s.
static AUTH_QUICK: LazyLock<Regex> =
    LazyLock::new(|| block_regex(r"(?i:unauthori[sz]ed)|(?i-u:\bauth)").expect("valid regex"));
static BUILTIN_NOTHING_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&BUILTIN_NOTHING.join("|")).expect("valid regex"));

/// A custom pattern that is not valid.
#[derive(Debug, thiserror::Error)]
#[error("invalid {category} pattern `{pattern}`")]
pub struct PatternError {
    /// `validation`, `runtime`, `abort` or `allow`.
    pub(crate) category: &'static str,
    /// The pattern as written.
    pub(crate) pattern: String,
    /// What the regex parser said.
    #[source]
    pub(crate) source: regex::Error,
}

/// Patterns compiled into a DFA for long lines, and what they report.
#[derive(Debug)]
struct LongDfa {
    dfa: dfa::LineDfa,
    /// Category of each of the DFA's patterns.
    cats: Vec<usize>,
    /// The DFA is walked while one of these categories is open.
    needed_by: u8,
}

impl LongDfa {
    fn new(patterns: &[(&str, usize)], needed_by: u8) -> Result<LongDfa, String> {
        let sources: Vec<&str> = patterns.iter().map(|(p, _)| *p).collect();
        Ok(LongDfa {
            dfa: dfa::LineDfa::new(&sources).map_err(|e| e.to_string())?,
            cats: patterns.iter().map(|(_, cat)| *cat).collect(),
            needed_by,
        })
    }
}

/// The failure patterns of one judging set, by category (validation,
/// runtime, abort); None where the category has none.
type Set = [Option<Regex>; 3];

#[derive(Debug)]
struct Shared {
    /// Every failure pattern of a record no preset claims, and the auth
    /// hint, in one regex: without the built-ins' and presets' abort
    /// patterns (a quiet record's), and with them. None: not built (too
    /// large); every pattern is tried.
    gates: [Option<Regex>; 2],
    /// The team's own patterns: every line, every level.
    loud: Set,
    /// The built-ins and every preset's: records no preset's tool claims.
    soft: Set,
    /// The presets, with the records of their tools.
    tools: Vec<Tool>,
    /// Lines that never count as failures; None without allow patterns.
    allow: Option<Regex>,
    /// Lines shown as a warning of the case (a preset's `warn`).
    warn: Option<Regex>,
    /// The presets' lines saying their tool ran nothing.
    nothing: Option<Regex>,
    /// Levels of records no preset claims whose abort words abort nothing.
    quiet: QuietLevels,
    /// Wrapped sources of the patterns that may go into a block pre-check.
    block_sources: [Vec<String>; 3],
    /// Categories with a pattern that must be matched on every line.
    every_line: u8,
    /// Pre-check per set of still-open categories among validation,
    /// runtime and abort; None when it cannot be compiled, in which case
    /// every line is matched.
    quick: [OnceLock<Option<BlockCheck>>; 8],
    /// Pre-check of what is looked for beside failures, the built-ins':
    /// lines saying nothing ran, retry and recovery records, steps
    /// starting.
    extras: Regex,
    /// Pre-check of the level words of an error record, and of the lines
    /// that continue a record without being indented ([`STACK_WORDS`]).
    levels: Regex,
    /// Pre-check of the words a record of a step starting holds.
    steps: Regex,
    /// `extras` and `levels` in one pass.
    signals: Regex,
    /// The same for the presets' and the team's: `nothing`, `warn`,
    /// `require`, invocation, retry and recovery records. Ok(None): there
    /// are none; Err: one cannot be pre-checked, every line is looked at.
    custom_extras: Result<Option<Regex>, ()>,
    /// DFAs for long lines, built with the first one: the failure
    /// patterns, and allow, apart so that allow patterns cannot keep the
    /// failure patterns' prefilter from working. The auth and schema hints
    /// are short and need no DFA (see `stream::find_hint`). The error says
    /// why a DFA could not be built.
    long: OnceLock<Result<Vec<LongDfa>, String>>,
}

/// One preset's judging: its patterns, and its tool's records.
#[derive(Debug)]
struct Tool {
    /// How the harness names the preset.
    name: String,
    /// How its tool's records look; None: it claims no line, and its
    /// patterns judge records as the built-ins do.
    records: Option<Records>,
    /// Its patterns (with the built-ins unless it drops them), for the
    /// records of its tool.
    soft: Set,
    /// Lines each run of its tool must show.
    require: Option<Required>,
}

/// A tool's log records (docs/judging.md, Presets), compiled from a
/// [`RecordFormat`]: a line matching `start` (or its `prefix`) is the
/// tool's and begins a record, an indented line continues the one before.
#[derive(Debug)]
struct Records {
    /// What every line starts with and is read without.
    prefix: Option<Regex>,
    start: Regex,
    json_level: Option<String>,
    quiet: QuietLevels,
    /// A record saying the failure before it is retried.
    retry: Option<Regex>,
    /// A record saying a retried step succeeded.
    recovered: Option<Regex>,
    /// A record opening a new run of the tool.
    invocation: Option<Regex>,
}

/// Levels whose lines fail nothing (or abort nothing), upper-cased: log
/// levels are compared without case.
#[derive(Debug)]
struct QuietLevels(Vec<String>);

impl QuietLevels {
    fn new<'a>(levels: impl IntoIterator<Item = &'a str>) -> QuietLevels {
        QuietLevels(levels.into_iter().map(str::to_ascii_uppercase).collect())
    }

    fn has(&self, level: &[u8]) -> bool {
        let level = String::from_utf8_lossy(level).to_ascii_uppercase();
        self.0.contains(&level)
    }

    /// Whether a record of `level` (as the record reader reads it) is
    /// quiet: one of the names here names it.
    fn has_level(&self, level: records::Level) -> bool {
        (self.0.iter()).any(|n| records::Level::of_word(n.as_bytes()) == Some(level))
    }
}

fn compile(category: &'static str, pattern: &str) -> Result<Regex, PatternError> {
    Regex::new(pattern).map_err(|source| PatternError {
        category,
        pattern: pattern.to_string(),
        source,
    })
}

impl Records {
    fn new(format: &RecordFormat, quiet: Option<&[String]>) -> Result<Records, PatternError> {
        let optional = |category: &'static str, p: &Option<String>| {
            p.as_deref().map(|p| compile(category, p)).transpose()
        };
        Ok(Records {
            prefix: optional("record prefix", &format.prefix)?,
            start: compile("record start", &format.start)?,
            json_level: format.json_level.clone(),
            quiet: QuietLevels::new(quiet.unwrap_or(&format.quiet).iter().map(String::as_str)),
            retry: optional("record retry", &format.retry)?,
            recovered: optional("record recovered", &format.recovered)?,
            invocation: optional("record invocation", &format.invocation)?,
        })
    }

    /// The level of a record of this tool beginning with `line` (whose
    /// match of `start`, if any, is `start`): from the `level` group of
    /// `start`, or the level field of a JSON line.
    fn level(&self, line: &[u8], start: Option<&regex::bytes::Captures<'_>>) -> Option<Vec<u8>> {
        if let Some(caps) = start {
            return caps.name("level").map(|m| m.as_bytes().to_vec());
        }
        json_level(line, self.json_level.as_deref()?)
    }
}

/// Levels whose records, when no preset claims them, abort no case by an
/// abort word (and, in a preset's records, fail it by no failure word),
/// unless `quiet` says otherwise.
pub(crate) const DEFAULT_QUIET: &[&str] = &["TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING"];

/// The `key` field of a JSON log line, if `line` is one; a dotted key
/// (`info.level`) is a path into nested objects.
fn json_level(line: &[u8], key: &str) -> Option<Vec<u8>> {
    if line.first() != Some(&b'{') {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let field = key.split('.').try_fold(&v, |v, k| v.get(k))?;
    Some(field.as_str()?.as_bytes().to_vec())
}

/// Lines that must appear for a PASS (`require`, docs/judging.md, Presets).
#[derive(Debug)]
struct Required {
    res: Vec<Regex>,
    sources: Vec<String>,
}

impl Required {
    fn new(require: &[String]) -> Result<Option<Required>, PatternError> {
        if require.is_empty() {
            return Ok(None);
        }
        let res = (require.iter().take(crate::config::MAX_REQUIRE))
            .map(|p| compile("require", p))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(Required {
            sources: require.iter().take(res.len()).cloned().collect(),
            res,
        }))
    }

    fn all(&self) -> u64 {
        u64::MAX >> (64 - self.res.len())
    }
}

impl Shared {
    fn quick(&self, mask: u8) -> Option<&BlockCheck> {
        let mask = mask & QUICK_MASK;
        self.quick[usize::from(mask)]
            .get_or_init(|| {
                let mut parts: Vec<&str> = vec![pydantic::HEADER_LITERAL];
                for cat in [VALIDATION, RUNTIME, ABORT] {
                    if mask & bit(cat) != 0 {
                        parts.extend(self.block_sources[cat].iter().map(String::as_str));
                    }
                }
                BlockCheck::new(&parts.join("|"))
            })
            .as_ref()
    }

    /// Every set of failure patterns: the team's, the generic one, each
    /// tool's.
    fn sets(&self) -> impl Iterator<Item = &Set> {
        [&self.loud, &self.soft]
            .into_iter()
            .chain(self.tools.iter().map(|t| &t.soft))
    }

    fn long_dfas(&self) -> Result<&[LongDfa], &str> {
        self.long
            .get_or_init(|| {
                let mut failures: Vec<(&str, usize)> = Vec::new();
                for set in self.sets() {
                    for (cat, re) in set.iter().enumerate() {
                        if let Some(re) = re
                            && !failures.contains(&(re.as_str(), cat))
                        {
                            failures.push((re.as_str(), cat));
                        }
                    }
                }
                let mut groups = Vec::new();
                if !failures.is_empty() {
                    let needed_by = bit(VALIDATION) | bit(RUNTIME) | bit(ABORT);
                    groups.push(LongDfa::new(&failures, needed_by)?);
                }
                if let Some(re) = &self.allow {
                    groups.push(LongDfa::new(&[(re.as_str(), ALLOW)], FAILURE_MASK)?);
                }
                Ok(groups)
            })
            .as_deref()
            .map_err(String::as_str)
    }

    /// Whether any set has a pattern of category `cat`.
    fn has(&self, cat: usize) -> bool {
        self.sets().any(|s| s[cat].is_some())
    }
}

#[derive(Debug)]
struct Specific {
    re: Regex,
    /// None when the regex cannot be pre-checked over blocks.
    quick: Option<Regex>,
    /// The regex as a DFA for long lines, built with the first one.
    long: OnceLock<Result<LongDfa, String>>,
}

impl Specific {
    fn long_dfa(&self) -> Result<&LongDfa, &str> {
        self.long
            .get_or_init(|| LongDfa::new(&[(self.re.as_str(), SPECIFIC)], bit(SPECIFIC)))
            .as_ref()
            .map_err(String::as_str)
    }
}

/// Compiled failure and allow patterns, plus the per-case `specific_error`
/// regex and `require` lines.
///
/// Compile once per pattern set with [`Patterns::new`];
/// `Patterns::for_expected` then makes a cheap per-case copy that shares
/// everything compiled.
#[derive(Clone, Debug)]
pub struct Patterns {
    shared: Arc<Shared>,
    specific: Option<Arc<Specific>>,
    required: Option<Arc<Required>>,
    /// The pre-check of `required`; None: every line is looked at.
    required_quick: Option<Arc<Regex>>,
}

/// The failure patterns of `lists` (validation, runtime, abort), with the
/// built-ins before them when `builtin`. `blocks` collects the sources a
/// block pre-check may hold; `every_line` the categories that need every
/// line matched.
fn compile_set(
    lists: [&[String]; 3],
    builtin: bool,
    blocks: &mut [Vec<String>; 3],
    every_line: &mut u8,
) -> Result<Set, PatternError> {
    let builtins: [&[&str]; 3] = [BUILTIN_VALIDATION, BUILTIN_RUNTIME, BUILTIN_ABORT];
    let names = ["validation", "runtime", "abort"];
    let mut set: Set = Default::default();
    for cat in [VALIDATION, RUNTIME, ABORT] {
        let builtin: &[&str] = if builtin { builtins[cat] } else { &[] };
        // The built-in patterns are known to compile wrapped plainly (a
        // test holds them to it): only custom ones are compiled on their
        // own to be checked, and each category's alternation below
        // compiles them all.
        let sources = (builtin.iter().map(|p| (*p, true)))
            .chain(lists[cat].iter().map(|p| (p.as_str(), false)));
        let mut wrapped = Vec::new();
        for (k, (pattern, builtin)) in sources.enumerate() {
            let w = if builtin {
                format!("(?:{pattern})")
            } else {
                wrapped_source(names[cat], pattern)?
            };
            let stand_in = match cat {
                ABORT => BUILTIN_ABORT_QUICK.get(k).copied(),
                VALIDATION => BUILTIN_VALIDATION_QUICK.get(k).copied().flatten(),
                RUNTIME => BUILTIN_RUNTIME_QUICK.get(k).copied().flatten(),
                _ => None,
            };
            let quick = if let Some(word) = stand_in.filter(|_| builtin) {
                word.to_string()
            } else if block_safe(pattern) {
                w.clone()
            } else {
                *every_line |= bit(cat);
                String::new()
            };
            if !quick.is_empty() && !blocks[cat].contains(&quick) {
                blocks[cat].push(quick);
            }
            wrapped.push(w);
        }
        set[cat] = alternation(names[cat], &wrapped)?;
    }
    Ok(set)
}

/// Each tool's compiled patterns, in order, and all the tools' patterns
/// by category (the generic set); `extras` gets their records' and
/// `nothing`/`require` patterns.
fn compile_tools(
    config: &PatternConfig,
    blocks: &mut [Vec<String>; 3],
    every_line: &mut u8,
    extras: &mut Extras,
) -> Result<(Vec<Tool>, [Vec<String>; 3]), PatternError> {
    let mut generic: [Vec<String>; 3] = Default::default();
    let mut tools = Vec::new();
    for t in &config.tools {
        for cat in [VALIDATION, RUNTIME, ABORT] {
            let list = [&t.validation, &t.runtime, &t.abort][cat];
            generic[cat].extend(list.iter().cloned());
        }
        let records = (t.records.as_ref())
            .map(|r| Records::new(r, config.quiet.as_deref()))
            .transpose()?;
        let soft = compile_set(
            [&t.validation, &t.runtime, &t.abort],
            t.builtin && config.builtin,
            blocks,
            every_line,
        )?;
        if let Some(r) = &t.records {
            for p in [&r.retry, &r.recovered, &r.invocation]
                .into_iter()
                .flatten()
            {
                extras.add(p);
            }
        }
        t.nothing
            .iter()
            .chain(&t.require)
            .for_each(|p| extras.add(p));
        tools.push(Tool {
            name: t.name.clone(),
            records,
            soft,
            require: Required::new(&t.require)?,
        });
    }
    Ok((tools, generic))
}

/// The presets' and the team's extra patterns (records, `nothing`,
/// `require`, `warn`), wrapped, for the block pre-check.
#[derive(Default)]
struct Extras {
    wrapped: Vec<String>,
    /// Whether one of them has no literal (or does not compile), so
    /// that every line must be searched.
    every_line: bool,
}

impl Extras {
    fn add(&mut self, pattern: &str) {
        match wrapped_source("extra", pattern) {
            Ok(w) if block_safe(pattern) => self.wrapped.push(w),
            _ => self.every_line = true,
        }
    }

    /// The presets' and the team's extras apart from the built-ins': a
    /// pattern of theirs without a literal slows theirs only.
    fn custom(self) -> Result<Option<Regex>, ()> {
        if self.every_line {
            Err(())
        } else if self.wrapped.is_empty() {
            Ok(None)
        } else {
            block_regex(&self.wrapped.join("|"))
                .map(Some)
                .map_err(|_| ())
        }
    }
}

/// What a line of a record no preset claims must match for any of its
/// failure patterns to: one search where most flagged lines (a harmless
/// word at INFO) end. The abort patterns of `soft` only when `abort`.
fn gate(loud: &Set, soft: &Set, abort: bool) -> Option<Regex> {
    let mut parts: Vec<&str> = vec![AUTH_RE.as_str()];
    parts.extend(loud.iter().flatten().map(Regex::as_str));
    let soft_cats = (soft.iter().enumerate()).filter(|&(cat, _)| abort || cat != ABORT);
    parts.extend(
        soft_cats
            .filter_map(|(_, re)| re.as_ref())
            .map(Regex::as_str),
    );
    let joined: Vec<String> = parts.iter().map(|p| format!("(?:{p})")).collect();
    Regex::new(&joined.join("|")).ok()
}

/// `patterns` each wrapped (checked as patterns of `category`).
fn wrapped_all<'a>(
    category: &'static str,
    patterns: impl IntoIterator<Item = &'a String>,
) -> Result<Vec<String>, PatternError> {
    (patterns.into_iter())
        .map(|p| wrapped_source(category, p))
        .collect()
}

/// The block pre-checks of the built-in words, apart, each few enough
/// literals for the fast prefilter.
struct BuiltinBlocks {
    extras: Regex,
    levels: Regex,
    steps: Regex,
    signals: Regex,
}

impl BuiltinBlocks {
    fn new() -> BuiltinBlocks {
        let builtin_extras = BUILTIN_NOTHING.join("|");
        let extras = block_regex(&builtin_extras).expect("the built-in extras compile");
        let levels =
            block_regex(&[three_cases(ERROR_WORDS_QUICK), STACK_WORDS.join("|")].join("|"))
                .expect("level words compile");
        let steps = block_regex(&three_cases(STEP_WORDS)).expect("step words compile");
        let signals = block_regex(
            &[
                builtin_extras.clone(),
                three_cases(ERROR_WORDS_QUICK),
                STACK_WORDS.join("|"),
            ]
            .join("|"),
        )
        .expect("the built-in signals compile");
        BuiltinBlocks {
            extras,
            levels,
            steps,
            signals,
        }
    }
}

impl Patterns {
    /// Compile the team's patterns, the presets' and the built-ins
    /// (unless `config.builtin` is false), and the allow list.
    pub fn new(config: &PatternConfig) -> Result<Patterns, PatternError> {
        let mut blocks: [Vec<String>; 3] = Default::default();
        let mut every_line = 0;
        let loud = compile_set(
            [&config.validation, &config.runtime, &config.abort],
            false,
            &mut blocks,
            &mut every_line,
        )?;
        let mut extras = Extras::default();
        let (tools, generic) = compile_tools(config, &mut blocks, &mut every_line, &mut extras)?;
        let soft = compile_set(
            [&generic[0], &generic[1], &generic[2]],
            config.builtin,
            &mut blocks,
            &mut every_line,
        )?;
        config.warn.iter().for_each(|p| extras.add(p));
        let gates = [gate(&loud, &soft, false), gate(&loud, &soft, true)];
        let allow = wrapped_all("allow", &config.allow)?;
        let warn = wrapped_all("warn", &config.warn)?;
        let nothing = wrapped_all("nothing", config.tools.iter().flat_map(|t| &t.nothing))?;
        let quiet = match &config.quiet {
            Some(levels) => QuietLevels::new(levels.iter().map(String::as_str)),
            None => QuietLevels::new(DEFAULT_QUIET.iter().copied()),
        };
        let custom_extras = extras.custom();
        let BuiltinBlocks {
            extras,
            levels,
            steps,
            signals,
        } = BuiltinBlocks::new();
        Ok(Patterns {
            shared: Arc::new(Shared {
                gates,
                loud,
                soft,
                tools,
                allow: alternation("allow", &allow)?,
                warn: alternation("warn", &warn)?,
                nothing: alternation("nothing", &nothing)?,
                quiet,
                block_sources: blocks,
                every_line,
                quick: Default::default(),
                extras,
                levels,
                steps,
                signals,
                custom_extras,
                long: OnceLock::new(),
            }),
            specific: None,
            required: None,
            required_quick: None,
        })
    }

    /// A copy that also requires a line matching each of `require` (at
    /// most [`crate::config::MAX_REQUIRE`]); none when empty.
    pub(crate) fn requiring(mut self, require: &[String]) -> Result<Patterns, PatternError> {
        self.required = Required::new(require)?.map(Arc::new);
        self.required_quick = match &self.required {
            Some(r) if r.sources.iter().all(|p| block_safe(p)) => {
                let wrapped: Vec<String> = r.sources.iter().map(|p| format!("(?:{p})")).collect();
                block_regex(&wrapped.join("|")).ok().map(Arc::new)
            }
            _ => None,
        };
        Ok(self)
    }

    /// A copy for one case that also looks for `specific_error`.
    pub(crate) fn with_specific_error(&self, specific_error: Option<&Regex>) -> Patterns {
        let specific = specific_error.map(|re| {
            // Recompiled from its source in multi-line mode: harness regexes
            // are built with `Regex::new`, so the source says everything.
            let quick = block_safe(re.as_str())
                .then(|| block_regex(re.as_str()).ok())
                .flatten();
            Arc::new(Specific {
                re: re.clone(),
                quick,
                long: OnceLock::new(),
            })
        });
        Patterns {
            shared: Arc::clone(&self.shared),
            specific,
            required: self.required.clone(),
            required_quick: self.required_quick.clone(),
        }
    }

    /// A copy for a case expecting `expected`.
    pub(crate) fn for_expected(&self, expected: &Expected) -> Patterns {
        match expected {
            Expected::Success | Expected::Aborted => self.with_specific_error(None),
            Expected::SpecificError(re) => self.with_specific_error(Some(re)),
        }
    }

    /// Every DFA a long line is walked through: the shared ones, then the
    /// `specific_error` one.
    fn long_dfas(&self) -> Result<Vec<&LongDfa>, &str> {
        let mut dfas: Vec<&LongDfa> = self.shared.long_dfas()?.iter().collect();
        if let Some(specific) = &self.specific {
            dfas.push(specific.long_dfa()?);
        }
        Ok(dfas)
    }

    /// A classifier for one output stream.
    pub fn classifier(&self) -> StreamClassifier {
        StreamClassifier::with_hold(self.clone(), HOLD)
    }
}

fn bit(cat: usize) -> u8 {
    1 << cat
}

fn block_regex(src: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(src).multi_line(true).crlf(true).build()
}

/// A block pre-check of many patterns: its regex, and the literals every
/// match of it starts with. With more than a few literals the regex's own
/// prefilter keeps only their first 4 bytes, which common words match
/// (`Task` in `TaskSetManager`, `Comp` in `Completed`), and each such hit
/// costs a run of the automaton; the literals kept longer, searched for
/// first, say where a match may start, and the regex is run from there.
#[derive(Debug)]
struct BlockCheck {
    re: Regex,
    /// None when the regex has no such literals, or too many.
    starts: Option<AhoCorasick>,
}

/// Most literals [`BlockCheck::starts`] holds: as many as the packed
/// searcher takes.
const MAX_STARTS: usize = 64;

impl BlockCheck {
    fn new(src: &str) -> Option<BlockCheck> {
        let re = block_regex(src).ok()?;
        Some(BlockCheck {
            starts: match_starts(src),
            re,
        })
    }
}

/// The literals every match of `src` (compiled as [`block_regex`] does)
/// starts with, as long as [`MAX_STARTS`] of them allow; None when some
/// match may start with none (a class too wide, an empty match) or they
/// would be too short to be worth searching for.
fn match_starts(src: &str) -> Option<AhoCorasick> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let hir = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .crlf(true)
        .utf8(false)
        .build()
        .parse(src)
        .ok()?;
    let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
    for keep in (4..=8).rev() {
        let mut starts = seq.clone();
        starts.keep_first_bytes(keep);
        starts.minimize_by_preference();
        if starts.min_literal_len()? < 3 {
            return None;
        }
        let literals = starts.literals()?;
        if literals.len() <= MAX_STARTS {
            // Leftmost: the earliest place a match may start.
            return AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .build(literals.iter().map(|l| l.as_bytes()))
                .ok();
        }
    }
    None
}

fn wrapped_source(category: &'static str, pattern: &str) -> Result<String, PatternError> {
    wrap(pattern).map_err(|source| PatternError {
        category,
        pattern: pattern.to_string(),
        source,
    })
}

/// One regex matching any of `wrapped`; None when there is none.
fn alternation(category: &'static str, wrapped: &[String]) -> Result<Option<Regex>, PatternError> {
    if wrapped.is_empty() {
        return Ok(None);
    }
    let joined = wrapped.join("|");
    Regex::new(&joined)
        .map(Some)
        .map_err(|source| PatternError {
            category,
            pattern: joined,
            source,
        })
}

/// `(?:p)`, so alternatives and inline flags stay inside the pattern. A
/// trailing `#` comment in verbose mode would swallow the `)`: the newline
/// variant ends the comment, and is only tried when the plain one fails.
fn wrap(pattern: &str) -> Result<String, regex::Error> {
    Regex::new(pattern)?;
    let plain = format!("(?:{pattern})");
    if Regex::new(&plain).is_ok() {
        return Ok(plain);
    }
    let verbose = format!("(?:{pattern}\n)");
    Regex::new(&verbose).map(|_| verbose)
}

/// Whether a block pre-check flags every line the pattern matches alone.
/// Haystack anchors and flags switching multi-line or CRLF mode off would
/// make it miss lines; this errs on the side of matching every line.
fn block_safe(pattern: &str) -> bool {
    if pattern.contains(r"\A") || pattern.contains(r"\z") {
        return false;
    }
    let mut rest = pattern;
    while let Some(i) = rest.find("(?") {
        rest = &rest[i + 2..];
        let flags = rest.split([':', ')']).next().unwrap_or("");
        if flags.contains('-') {
            return false;
        }
    }
    true
}

/// The team's own patterns of `config` that can never fire, each with
/// why: one that only matches text holding a line end (a line never holds
/// one), or one whose every match an `allow` pattern without anchors also
/// matches (every line it would fail is allowed). Said on the terminal
/// when a run starts.
pub(crate) fn never_firing(config: &PatternConfig) -> Vec<String> {
    let lists = [
        ("validation", &config.validation),
        ("runtime", &config.runtime),
        ("abort", &config.abort),
    ];
    let allow: Vec<Regex> = (config.allow.iter())
        .filter(|p| unanchored(p))
        .filter_map(|p| Regex::new(p).ok())
        .collect();
    let mut out = Vec::new();
    for (category, list) in lists {
        for p in list {
            let Some(literals) = exact_literals(p) else {
                continue;
            };
            if literals.iter().all(|l| l.contains(&b'\n')) {
                out.push(format!(
                    "[patterns] {category} `{p}` can never fire: it only matches text holding a line end, and each line is matched alone"
                ));
            } else if let Some(a) = allow
                .iter()
                .find(|a| literals.iter().all(|l| a.is_match(l)))
            {
                out.push(format!(
                    "[patterns] {category} `{p}` can never fire: every line it matches is allowed by `{}`",
                    a.as_str()
                ));
            }
        }
    }
    out
}

/// The strings `pattern` matches, when they are a small finite set of
/// exact literals.
fn exact_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::literal::Extractor;
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let seq = Extractor::new().extract(&hir);
    if !seq.is_exact() {
        return None;
    }
    let literals: Vec<Vec<u8>> = seq
        .literals()?
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .collect();
    (!literals.is_empty() && literals.len() <= 16).then_some(literals)
}

/// Whether `pattern` matches the same inside any longer text: no anchor
/// or word boundary.
fn unanchored(pattern: &str) -> bool {
    regex_syntax::Parser::new()
        .parse(pattern)
        .is_ok_and(|hir| hir.properties().look_set().is_empty())
}

/// An exception the output raised: an uncaught traceback's last line, or
/// one in a record at ERROR or above.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RaisedException {
    /// The exception line, masked and clipped: what headlines the issue.
    pub(crate) line: String,
    /// Its type, module path included.
    pub(crate) type_path: String,
    /// The type says the project's configuration is at fault.
    pub(crate) config: bool,
    /// It was raised while the tool loaded its project: after log records
    /// of the tool, before any record of a step starting (in this stream),
    /// and not about a file, a connection or a timeout (missing input is a
    /// runtime failure whenever it is found).
    pub(crate) while_loading: bool,
    /// A record at a quiet level (a warning) logged it, and it is the last
    /// record of the stream: it counts only as the crash of a run that
    /// failed.
    pub logged: bool,
}

/// What one output stream showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamFindings {
    /// First line matching a validation pattern.
    pub(crate) validation: Option<String>,
    /// First line matching a runtime pattern.
    pub runtime: Option<String>,
    /// First line matching an abort pattern.
    pub abort: Option<String>,
    /// First line mentioning auth or unauthorized.
    pub(crate) auth: Option<String>,
    /// First line mentioning a schema.
    pub(crate) schema: Option<String>,
    /// Whether the case's `specific_error` regex matched a line.
    pub(crate) specific_error: bool,
    /// First line with something other than whitespace.
    pub(crate) first_line: Option<String>,
    /// Pydantic validation errors, in output order.
    pub(crate) validation_errors: Vec<ValidationError>,
    /// The case's `require` patterns no line of the stream matched.
    pub(crate) missing_required: Vec<String>,
    /// A preset's `require` lines a run of its tool did not show, each
    /// described with the run (it fails whatever the other stream shows).
    pub(crate) missing_in_run: Vec<String>,
    /// The last line near the end of the stream that looks like an error
    /// (it holds `error`, `failed`, `Exception`, `fatal` or `panicked`).
    pub(crate) last_error: Option<String>,
    /// Lines a preset's `warn` patterns matched (a few), and failures a
    /// retry recovered from: warnings of the case, not failures.
    pub(crate) warnings: Vec<String>,
    /// The first record at ERROR or above (CRITICAL, FATAL) that no later
    /// record recovered from and no `allow` names.
    pub error_logged: Option<String>,
    /// The exception the output raised, if it raised one.
    pub exception: Option<RaisedException>,
    /// The first line saying a tool ran nothing, and whether it is a
    /// built-in one (which counts for golden projects only).
    pub(crate) nothing_ran: Option<(String, bool)>,
    /// A record said a step of the run started.
    pub(crate) step_seen: bool,
    /// For a finding whose record carries fields (JSON, a `key=value`
    /// tail), the few that say what failed (`headline::of`), by
    /// category (then the ERROR record's and the exception's); the finding
    /// itself quotes the record.
    pub(crate) headlines: [Option<String>; 7],
    /// The physical lines (1-based, first and last) of the record behind
    /// each finding, by category (then the ERROR record's and the
    /// exception's): what an excerpt marks.
    pub(crate) spans: [Option<(u64, u64)>; 7],
}

impl StreamFindings {
    /// The line spans of the findings that fail a case, `specific_error`'s
    /// aside: what an excerpt of the stream marks.
    pub(crate) fn marked_lines(&self) -> Vec<(u64, u64)> {
        let mut spans: Vec<(u64, u64)> = self.spans.iter().flatten().copied().collect();
        spans.sort_unstable();
        spans.dedup();
        spans
    }

    fn slot(&mut self, cat: usize) -> &mut Option<String> {
        match cat {
            VALIDATION => &mut self.validation,
            RUNTIME => &mut self.runtime,
            ABORT => &mut self.abort,
            AUTH => &mut self.auth,
            SCHEMA => &mut self.schema,
            _ => &mut self.error_logged,
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Up to [`MAX_FINDING_CHARS`] of `line` around byte `at`, as one clean
/// line of text.
fn snippet(line: &[u8], at: usize) -> String {
    const BEFORE: usize = 100;
    let mut start = if at <= 4 * BEFORE { 0 } else { at - BEFORE };
    while start > 0 && start < line.len() && line[start] & 0xC0 == 0x80 {
        start -= 1;
    }
    let end = line.len().min(start + 4 * MAX_FINDING_CHARS);
    let text = no_controls(&String::from_utf8_lossy(&line[start..end]));
    let text = clip(text.trim(), MAX_FINDING_CHARS);
    if start > 0 {
        format!("…{text}")
    } else {
        text
    }
}

/// The end of a line as one clean line of text: at most
/// [`MAX_FINDING_CHARS`] characters, starting with `…` when `cut` (bytes
/// before `tail` were left out) or when it had to be shortened.
fn tail_snippet(tail: &[u8], cut: bool) -> String {
    let mut start = 0;
    while cut && start < tail.len() && tail[start] & 0xC0 == 0x80 {
        start += 1;
    }
    let text = no_controls(&String::from_utf8_lossy(&tail[start..]));
    let text = text.trim();
    let count = text.chars().count();
    if !cut && count <= MAX_FINDING_CHARS {
        return text.to_string();
    }
    let keep = count.min(MAX_FINDING_CHARS - 1);
    let kept: String = text.chars().skip(count - keep).collect();
    format!("…{}", kept.trim_start())
}

/// Words that make a line look like an error when no pattern names one.
static ERROR_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("error|Error|ERROR|failed|Failed|FAILED|Exception|fatal|Fatal|FATAL|panicked")
        .expect("valid regex")
});

/// The last line of `text` that looks like an error (it holds `error`,
/// `failed`, `Exception`, `fatal` or `panicked`), as one clean line: what
/// a command that failed without a matching pattern is headlined by
/// rather than its exit code. Given the end of a stream, where failures
/// explain themselves.
pub(crate) fn last_error_line(text: &str) -> Option<String> {
    // Only the lines that may hold a word are cleaned. An item of a list
    // of hints (`2. Inspect a specific failed node:`) tells what to do
    // about an error, not what it was.
    text.lines()
        .rev()
        .filter(|l| ERROR_WORDS.is_match(l.as_bytes()))
        .map(crate::ansi::one_line)
        .find(|l| ERROR_WORDS.is_match(l.as_bytes()) && !LIST_ITEM.is_match(l))
        .map(|l| clip(&l, MAX_FINDING_CHARS))
}

/// A line that is an item of a numbered or bulleted list.
static LIST_ITEM: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r"^\s*(?:\d{1,2}[.)]|[-*•])\s").expect("valid regex"));

/// At most `max` characters; a cut is marked with `…`.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some(_) => {
            let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
            s.push('…');
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::judge::Judgement;
    use super::*;
    use crate::model::{
        CaseKind, CaseResult, EvidenceStatus, ExecutionStatus, IssueType, Severity, Stage,
    };

    const ONE_ERROR: &[u8] = include_bytes!("../../tests/fixtures/pydantic-1-error.txt");
    const THREE_ERRORS: &[u8] = include_bytes!("../../tests/fixtures/pydantic-3-errors.txt");

    fn patterns() -> Patterns {
        Patterns::new(&PatternConfig {
            builtin: true,
            ..PatternConfig::default()
        })
        .unwrap()
    }

    fn classify_chunks(p: &Patterns, chunks: &[&[u8]]) -> StreamFindings {
        let mut c = p.classifier();
        for chunk in chunks {
            c.feed(chunk);
        }
        c.finish()
    }

    fn classify(p: &Patterns, out: &[u8]) -> StreamFindings {
        classify_chunks(p, &[out])
    }

    fn ran(exit: i32, stdout: &StreamFindings, stderr: &StreamFindings) -> Judgement {
        ran_expecting(&Expected::Success, exit, stdout, stderr)
    }

    fn ran_expecting(
        expected: &Expected,
        exit: i32,
        stdout: &StreamFindings,
        stderr: &StreamFindings,
    ) -> Judgement {
        let obs = CaseFacts {
            exit_code: Some(exit),
            signal: None,
            timed_out: false,
            interrupted: false,
            stdout,
            stderr,
            golden_modified: None,
            not_run_reason: None,
            started: false,
            dirty: None,
        };
        judge("case", CaseKind::Verify, expected, &obs)
    }

    fn types(v: &Judgement) -> Vec<IssueType> {
        v.issues.iter().map(|i| i.issue_type).collect()
    }

    fn err(field: &str, message: &str) -> ValidationError {
        ValidationError {
            field: field.into(),
            message: message.into(),
        }
    }

    #[test]
    fn the_last_error_looking_line_is_found_cleaned() {
        let text = "Error: early\nall fine\n\x1b[31mfatal:   the  cause\x1b[0m\nbye\n";
        assert_eq!(last_error_line(text).as_deref(), Some("fatal: the cause"));
        let hints = "FileNotFoundError: stock_levels.csv\nSuggestions:\n  1. Check the path\n  2. Inspect a specific failed node:\n";
        assert_eq!(
            last_error_line(hints).as_deref(),
            Some("FileNotFoundError: stock_levels.csv")
        );
        assert_eq!(last_error_line("ok\ndone\n"), None);
        let long = format!("ERROR {}", "x".repeat(2 * MAX_FINDING_CHARS));
        let got = last_error_line(&long).unwrap();
        assert_eq!(got.chars().count(), MAX_FINDING_CHARS);
    }

    #[test]
    fn validation_message_at_exit_zero_fails_with_both_errors() {
        let p = patterns();
        let out = b"loading\n2 validation errors for ProjectConfig\npipelines.0.name\n  \
            Input should be a valid string [type=string_type, input_value=5, input_type=int]\n    \
            For further information visit https://errors.pydantic.dev/2.13/v/string_type\n\
            pipelines.1\n  Field required [type=missing, input_value={}, input_type=dict]\ndone\n";
        let stdout = classify(&p, out);
        let v = ran(0, &stdout, &StreamFindings::default());
        assert_eq!(v.execution_status, ExecutionStatus::ValidationFailed);
        assert_eq!(v.result, CaseResult::Failed);
        assert_eq!(v.status, EvidenceStatus::Success);
        assert_eq!(
            v.validation_errors,
            [
                err("pipelines.0.name", "Input should be a valid string"),
                err("pipelines.1", "Field required"),
            ]
        );
        assert_eq!(types(&v), [IssueType::ConfigurationError]);
        let issue = &v.issues[0];
        assert_eq!(
            issue.message,
            "Pipeline validation failed: pipelines.0.name - Input should be a valid string"
        );
        assert_eq!(issue.stage, Stage::ConfigValidation);
        assert_eq!(issue.severity, Severity::High);
        assert_eq!(
            issue.evidence,
            "Status: VALIDATION_FAILED | Exit code: 0 | Output: 2 validation errors for ProjectConfig"
        );
    }

    #[test]
    fn runtime_patterns_at_exit_zero_fail() {
        let p = patterns();
        for line in [
            "org.apache.spark.SparkException: boom",
            "Job aborted due to stage failure",
        ] {
            let stderr = classify(&p, format!("starting\n{line}\n").as_bytes());
            let v = ran(0, &StreamFindings::default(), &stderr);
            assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed, "{line}");
            assert_eq!(v.result, CaseResult::Failed);
            assert_eq!(types(&v), [IssueType::PipelineExecutionError]);
            assert_eq!(
                v.issues[0].message,
                format!("Pipeline execution failed: {line}")
            );
            assert_eq!(v.issues[0].stage, Stage::Execution);
            assert_eq!(v.issues[0].severity, Severity::Medium);
        }
    }

    #[test]
    fn specific_error_seen_not_seen_and_success() {
        let expected = Expected::SpecificError(Regex::new("missing column `id`").unwrap());
        let p = patterns().for_expected(&expected);
        let seen = classify(&p, b"error: missing column `id`\n");
        let v = ran_expecting(&expected, 2, &StreamFindings::default(), &seen);
        assert_eq!(v.result, CaseResult::Passed);
        assert!(v.issues.is_empty());

        let other = classify(&p, b"error: disk full\n");
        let v = ran_expecting(&expected, 2, &StreamFindings::default(), &other);
        assert_eq!(v.result, CaseResult::Failed);
        assert_eq!(types(&v), [IssueType::UnexpectedError]);
        assert!(
            v.issues[0].message.contains("got RUNTIME_FAILED"),
            "{}",
            v.issues[0].message
        );

        // Seen, but the case succeeded: an expected error must make it fail.
        let v = ran_expecting(&expected, 0, &seen, &StreamFindings::default());
        assert_eq!(v.result, CaseResult::Failed);
        assert_eq!(types(&v), [IssueType::UnexpectedSuccess]);
    }

    #[test]
    fn auth_and_schema_lines_are_found() {
        let p = patterns();
        let f = classify(&p, b"ok\nHTTP 401 Unauthorized\nbad Schema for t\n");
        assert_eq!(f.auth.as_deref(), Some("HTTP 401 Unauthorized"));
        assert_eq!(f.schema.as_deref(), Some("bad Schema for t"));
        assert!(classify(&p, b"auth: token expired\n").auth.is_some());
        // Inside a word it is not about authentication.
        assert_eq!(
            classify(&p, b"oauth token refreshed\n\xc3\xa9auth\n").auth,
            None
        );
    }

    #[test]
    fn classifiers_can_run_on_the_threads_reading_the_pipes() {
        fn send<T: Send + 'static>(_: &T) {}
        let p = patterns();
        send(&p);
        send(&p.classifier());
    }

    #[test]
    fn builtin_patterns_compile_wrapped_plainly() {
        for p in BUILTIN_VALIDATION
            .iter()
            .chain(BUILTIN_RUNTIME)
            .chain(BUILTIN_ABORT)
        {
            assert_eq!(wrap(p).unwrap(), format!("(?:{p})"), "{p}");
        }
    }

    /// Each built-in abort pattern's pre-check word is in every line the
    /// pattern matches: the pre-check never drops a line it would flag.
    #[test]
    fn the_abort_pre_check_words_stand_in_their_patterns() {
        assert_eq!(BUILTIN_ABORT.len(), BUILTIN_ABORT_QUICK.len());
        for (pattern, word) in BUILTIN_ABORT.iter().zip(BUILTIN_ABORT_QUICK) {
            let re = Regex::new(pattern).unwrap();
            for line in [
                word.to_string(),
                format!("x {word}: y"),
                format!("a{word}Error"),
            ] {
                assert!(re.is_match(line.as_bytes()), "{pattern} on {line}");
            }
            let literal = pattern
                .replace("(?:^|[^_0-9])", "")
                .replace("(?:[^_0-9]|$)", "");
            assert_eq!(literal, *word, "{pattern}");
        }
    }

    /// Lines the built-in failure patterns match, and words that start
    /// like them.
    const PRE_CHECKED: &[&str] = &[
        "1 validation error for Config",
        "Input should be a valid integer",
        "pydantic_core.ValidationError: x",
        "Invalid config",
        "Error: No such option: --x",
        "│ Missing option '--y'",
        "prog: error: unrecognized arguments: x",
        "Aborted!",
        "Configuration validation failed",
        "Invalid project config",
        "Config file 'a\nb.yml' is not valid",
        "is not valid JSON",
        "Failed validating 'type' in schema",
        "Compilation Error in x",
        "failed to parse",
        "Failed to load model",
        "Unknown profile",
        "Selector did not match any",
        "Task 'load' was not found",
        "x must be specified",
        "a.yaml has errors",
        "\"valid\": false",
        "Pipeline failed",
        "SparkException",
        "Status: FAILURE",
        "Job aborted",
        "\"success\":\r\n  false",
        "  * 2 failed:",
        "call ended in Timeout",
        "Interrupted",
        "SIGTERM",
        "TaskSetManager",
        "Completed",
        "Model",
        "  ",
        "\n",
    ];

    /// Every match of the shared pre-check starts where one of the literals
    /// searched for first does.
    fn starts_cover_every_match(text: &[u8]) -> Result<usize, String> {
        let p = patterns();
        let check = p.shared.quick(QUICK_MASK).ok_or("no pre-check")?;
        let starts = check.starts.as_ref().ok_or("no literals")?;
        let mut n = 0;
        for m in check.re.find_iter(text) {
            n += 1;
            if starts.find(&text[m.start()..]).map(|s| s.start()) != Some(0) {
                return Err(format!("{:?}", String::from_utf8_lossy(&text[m.range()])));
            }
        }
        Ok(n)
    }

    #[test]
    fn the_shared_pre_check_is_searched_from_where_its_matches_can_start() {
        let text = PRE_CHECKED.join("\n");
        assert_eq!(starts_cover_every_match(text.as_bytes()), Ok(31));
    }

    proptest! {
        #[test]
        fn no_match_of_the_shared_pre_check_starts_before_its_literals(
            pieces in proptest::collection::vec((0..PRE_CHECKED.len(), 0usize..4), 0..24),
        ) {
            let mut text = Vec::new();
            for (i, sep) in pieces {
                text.extend_from_slice(PRE_CHECKED[i].as_bytes());
                text.extend_from_slice([&b" "[..], b"\n", b"", b"_"][sep]);
            }
            prop_assert!(starts_cover_every_match(&text).is_ok());
        }
    }

    #[test]
    fn custom_patterns_are_added_and_builtin_false_drops_the_rest() {
        let config = PatternConfig {
            validation: vec!["(?i)bad manifest".into()],
            runtime: vec![r"^E\d+ ".into()],
            abort: vec![],
            allow: vec![],
            warn: vec![],
            builtin: true,
            tools: vec![],
            quiet: None,
        };
        let p = Patterns::new(&config).unwrap();
        assert!(classify(&p, b"x\nBAD Manifest here\n").validation.is_some());
        assert!(classify(&p, b"ok\nE42 broke\n").runtime.is_some());
        // Anchors mean the start of a line, not of the output or a block.
        assert_eq!(classify(&p, b"ok\nsee E42 broke\n").runtime, None);
        assert!(classify(&p, b"SparkException\n").runtime.is_some());

        let p = Patterns::new(&PatternConfig {
            builtin: false,
            ..config
        })
        .unwrap();
        let out = classify(&p, b"SparkException\nTimeout\nInvalid config\n");
        let v = ran(0, &out, &StreamFindings::default());
        assert_eq!(v.execution_status, ExecutionStatus::Success);
        assert!(classify(&p, b"E7 x\n").runtime.is_some());
    }

    #[test]
    fn invalid_custom_pattern_is_an_error() {
        let e = Patterns::new(&PatternConfig {
            runtime: vec!["(unclosed".into()],
            builtin: true,
            ..PatternConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.category, "runtime");
        assert_eq!(e.pattern, "(unclosed");
    }

    #[test]
    fn patterns_a_block_cannot_precheck_are_matched_on_every_line() {
        let p = Patterns::new(&PatternConfig {
            runtime: vec![
                r"\Afatal".into(),
                "(?-m:^oops$)".into(),
                "(?x) broken # comment".into(),
            ],
            builtin: false,
            ..PatternConfig::default()
        })
        .unwrap();
        assert!(classify(&p, b"a\nb\nfatal: no\n").runtime.is_some());
        assert!(classify(&p, b"a\noops\r\nb\n").runtime.is_some());
        assert!(classify(&p, b"a\nthis is broken\n").runtime.is_some());
        assert_eq!(classify(&p, b"a\nnot fatal\n").runtime, None);
    }

    #[test]
    fn a_block_match_across_lines_is_not_a_line_match() {
        let p = Patterns::new(&PatternConfig {
            runtime: vec![r"disk\sfull".into()],
            builtin: false,
            ..PatternConfig::default()
        })
        .unwrap();
        assert_eq!(classify(&p, b"disk\nfull\n").runtime, None);
        assert_eq!(
            classify(&p, b"disk\nfull\ndisk full\n").runtime.as_deref(),
            Some("disk full")
        );
    }

    #[test]
    fn pattern_split_at_every_chunk_boundary_is_found() {
        let expected = Expected::SpecificError(Regex::new("code=E42").unwrap());
        let p = patterns().for_expected(&expected);
        let out: &[u8] = b"line one\nstage 3: Pipeline failed (code=E42)\r\nlast";
        let whole = classify(&p, out);
        assert_eq!(
            whole.runtime.as_deref(),
            Some("stage 3: Pipeline failed (code=E42)")
        );
        assert!(whole.specific_error);
        for i in 0..=out.len() {
            for j in i..=out.len() {
                let split = classify_chunks(&p, &[&out[..i], &out[i..j], &out[j..]]);
                assert_eq!(split, whole, "split at {i} and {j}");
            }
        }
    }

    #[test]
    fn crlf_line_endings_are_stripped() {
        let p = Patterns::new(&PatternConfig {
            runtime: vec!["failed$".into()],
            builtin: false,
            ..PatternConfig::default()
        })
        .unwrap();
        let f = classify(&p, b"first\r\nthe step failed\r\n");
        assert_eq!(f.runtime.as_deref(), Some("the step failed"));
        assert_eq!(f.first_line.as_deref(), Some("first"));
        let f = classify_chunks(&p, &[b"the step fail", b"ed\r", b"\nok\r\n"]);
        assert_eq!(f.runtime.as_deref(), Some("the step failed"));
    }

    #[test]
    fn huge_line_without_newline_stays_bounded() {
        let p = patterns();
        let mut c = p.classifier();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..100 {
            c.feed(&chunk);
            assert!(c.carry.capacity() <= HOLD, "{}", c.carry.capacity());
        }
        c.feed(b"Job aborted");
        assert!(c.carry.capacity() <= HOLD);
        let f = c.finish();
        let runtime = f.runtime.expect("pattern at the end of the line");
        assert!(runtime.ends_with("Job aborted"), "{runtime}");
        assert!(runtime.chars().count() <= MAX_FINDING_CHARS + 1);
        assert_eq!(
            f.first_line.map(|l| l.chars().count()),
            Some(MAX_FINDING_CHARS)
        );
    }

    #[test]
    fn long_lines_in_one_chunk_match_like_long_lines_in_pieces() {
        let p = patterns();
        let mut out = vec![b'a'; 3 * HOLD];
        out.extend_from_slice(b" Status: FAILURE\nnext\n");
        out.extend(std::iter::repeat_n(b'b', HOLD / 3));
        out.extend_from_slice(b"Invalid config\n");
        let whole = classify(&p, &out);
        assert!(whole.runtime.is_some() && whole.validation.is_some());
        let pieces: Vec<&[u8]> = out.chunks(1000).collect();
        assert_eq!(classify_chunks(&p, &pieces), whole);
    }

    #[test]
    fn fixtures_are_extracted() {
        let p = patterns();
        let one = classify(&p, ONE_ERROR);
        assert_eq!(
            one.validation_errors,
            [err("stages.0.columns.1", "Input should be a valid string")]
        );
        assert!(one.validation.is_some());
        let three = classify(&p, THREE_ERRORS);
        assert_eq!(
            three.validation_errors,
            [
                err("stages.0.name", "Input should be a valid string"),
                err(
                    "stages.0.source.partitions",
                    "Input should be greater than or equal to 1"
                ),
                err("stages.0.columns", "Input should be a valid list"),
            ]
        );
        // Both blocks in one stream, in pieces of every size.
        let both = [ONE_ERROR, b"\n", THREE_ERRORS].concat();
        for size in 1..both.len() {
            let pieces: Vec<&[u8]> = both.chunks(size).collect();
            let f = classify_chunks(&p, &pieces);
            assert_eq!(f.validation_errors.len(), 4, "pieces of {size}");
            assert_eq!(f.validation_errors[1], three.validation_errors[0]);
        }
    }

    #[test]
    fn findings_are_clean_single_lines() {
        let p = patterns();
        let f = classify(&p, b"\x1b[31mPipeline failed\x1b[0m\tat \xff step\n");
        assert_eq!(
            f.runtime.as_deref(),
            Some("Pipeline failed at \u{fffd} step")
        );
        let long = [vec![b'y'; 5000], b" SparkException".to_vec()].concat();
        let f = classify(&p, &long);
        let line = f.runtime.unwrap();
        assert!(
            line.starts_with('…') && line.ends_with("SparkException"),
            "{line}"
        );
    }

    fn custom(runtime: &[&str], allow: &[&str]) -> Patterns {
        Patterns::new(&PatternConfig {
            runtime: runtime.iter().map(|s| s.to_string()).collect(),
            allow: allow.iter().map(|s| s.to_string()).collect(),
            builtin: true,
            ..PatternConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn escape_sequences_are_removed_before_matching() {
        let p = patterns();
        let out = b"1 validation error for \x1b[1mProjectConfig\x1b[0m\nname\n  \x1b[31mInput should be a valid string\x1b[0m [type=string_type]\n";
        for size in [1, 3, out.len()] {
            let pieces: Vec<&[u8]> = out.chunks(size).collect();
            let f = classify_chunks(&p, &pieces);
            assert_eq!(
                f.validation.as_deref(),
                Some("1 validation error for ProjectConfig"),
                "pieces of {size}"
            );
            assert_eq!(
                f.validation_errors,
                [err("name", "Input should be a valid string")]
            );
        }
        // A hyperlink (OSC 8) around a word, and colour inside one.
        let f = classify(
            &p,
            b"\x1b]8;;file:///x\x1b\\Job\x1b]8;;\x1b\\ ab\x1b[1morted\n",
        );
        assert_eq!(f.runtime.as_deref(), Some("Job aborted"));
        // What a sequence holds is not output: a title that says Timeout.
        let f = classify(&p, b"\x1b]0;Timeout settings\x07ok\n");
        assert_eq!((f.abort, f.first_line.as_deref()), (None, Some("ok")));
        // An unterminated sequence hides no more than the rest of its line.
        let f = classify(&p, b"\x1b]0;no end\nSparkException\n");
        assert_eq!(f.runtime.as_deref(), Some("SparkException"));
    }

    #[test]
    fn a_long_line_is_matched_whole() {
        let p = custom(&["START.*END", "^BOOM"], &[]);
        // A match of 10 KB inside a 170 KB line.
        let mut line = vec![b'a'; 100_000];
        line.extend_from_slice(b"START");
        line.extend(std::iter::repeat_n(b'b', 10_000));
        line.extend_from_slice(b"END");
        line.extend(std::iter::repeat_n(b'c', 170_000 - line.len()));
        line.push(b'\n');
        for size in [1000, 4096, line.len()] {
            let pieces: Vec<&[u8]> = line.chunks(size).collect();
            let f = classify_chunks(&p, &pieces);
            let found = f.runtime.expect("START.*END spans the line");
            assert!(
                found.starts_with('…') && found.ends_with("bbbbEND"),
                "{found}"
            );
            assert!(found.chars().count() <= MAX_FINDING_CHARS);
        }
        // `^` is the start of the line, not of a window or a chunk.
        let mut line = vec![b'x'; 64 * 1024];
        line.extend_from_slice(b"BOOM and more\n");
        for size in [1000, 64 * 1024, line.len()] {
            let pieces: Vec<&[u8]> = line.chunks(size).collect();
            assert_eq!(
                classify_chunks(&p, &pieces).runtime,
                None,
                "pieces of {size}"
            );
        }
        let mut line = b"BOOM".to_vec();
        line.extend(std::iter::repeat_n(b'x', 200_000));
        assert!(classify(&p, &line).runtime.is_some());
    }

    #[test]
    fn hints_on_a_long_line_are_found_across_pieces() {
        let p = patterns();
        let mut line = vec![b'x'; HOLD];
        line.extend_from_slice(b" HTTP 401 Unauthorized, see schema v2 ");
        line.extend(std::iter::repeat_n(b'y', 300));
        line.push(b'\n');
        let whole = classify(&p, &line);
        let auth = whole.auth.clone().expect("auth hint");
        assert!(
            auth.starts_with('…') && auth.ends_with("Unauthorized"),
            "{auth}"
        );
        assert!(whole.schema.clone().unwrap().ends_with("see schema"));
        for size in [1, 7, 13, 4096] {
            let pieces: Vec<&[u8]> = line.chunks(size).collect();
            assert_eq!(classify_chunks(&p, &pieces), whole, "pieces of {size}");
        }
        // Inside a word it is not about authentication, however cut.
        let mut line = vec![b'x'; HOLD];
        line.extend_from_slice("d\u{e9}auth and oauth\n".as_bytes());
        for size in [1, 2, 3, line.len()] {
            let pieces: Vec<&[u8]> = line.chunks(size).collect();
            assert_eq!(classify_chunks(&p, &pieces).auth, None, "pieces of {size}");
        }
    }

    #[test]
    fn dollar_is_the_end_of_a_long_line() {
        let p = custom(&["failed$"], &[]);
        let mut line = vec![b'x'; HOLD * 2];
        line.extend_from_slice(b" the step failed\r\nnext\n");
        let f = classify(&p, &line);
        assert!(f.runtime.unwrap().ends_with("the step failed"));
        let mut line = vec![b'x'; HOLD * 2];
        line.extend_from_slice(b" failed, retrying\n");
        assert_eq!(classify(&p, &line).runtime, None);
    }

    #[test]
    fn allowed_lines_never_count_as_failures() {
        let p = custom(
            &[],
            &[
                r"Timeout=\d+",
                "^SIGTERM handler installed",
                "0 records with",
            ],
        );
        let out = b"INFO http client: Timeout=30s\nSIGTERM handler installed\n\
            loaded 0 records with ValidationError\n";
        let f = classify(&p, out);
        assert_eq!((&f.abort, &f.validation), (&None, &None));
        let v = ran(0, &f, &StreamFindings::default());
        assert_eq!(v.result, CaseResult::Passed);
        // The same words on other lines still fail.
        let f = classify(&p, b"Timeout=30s\nworker got SIGTERM\n");
        assert_eq!(f.abort.as_deref(), Some("worker got SIGTERM"));
        // A long line is allowed as a whole, wherever the allow match is.
        let mut long = b"ReadTimeout while fetching ".to_vec();
        long.extend(std::iter::repeat_n(b'x', HOLD));
        long.extend_from_slice(b" Timeout=5\n");
        assert_eq!(classify(&p, &long).abort, None);
        // An allowed line says nothing about authentication either.
        let p = custom(&[], &["auth cache"]);
        assert_eq!(classify(&p, b"auth cache warmed\n").auth, None);
    }

    #[test]
    fn allow_does_not_hide_the_expected_error() {
        let expected = Expected::SpecificError(Regex::new("Invalid config").unwrap());
        let p = custom(&[], &["Invalid config"]).for_expected(&expected);
        let f = classify(&p, b"Invalid config: no sink\n");
        assert!(f.specific_error);
        assert_eq!(f.validation, None);
    }

    /// The plain meaning of the rules: every line, without its escape
    /// sequences, matched on its own.
    fn reference(p: &Patterns, out: &[u8]) -> StreamFindings {
        let mut f = StreamFindings::default();
        let mut extractor = pydantic::Extractor::new();
        let lines: Vec<&[u8]> = match out.strip_suffix(b"\n") {
            Some(rest) => rest.split(|&b| b == b'\n').collect(),
            None if out.is_empty() => Vec::new(),
            None => out.split(|&b| b == b'\n').collect(),
        };
        for raw in lines {
            let stripped = crate::ansi::strip_bytes(raw);
            let line = strip_cr(&stripped);
            let text = snippet(line, line.len() - line.trim_ascii_start().len());
            if f.first_line.is_none() && !text.is_empty() {
                f.first_line = Some(text);
            }
            let allowed = p.shared.allow.as_ref().is_some_and(|re| re.is_match(line));
            extractor.line(line, || allowed);
            for cat in [VALIDATION, RUNTIME, ABORT, AUTH, SCHEMA] {
                let found = match cat {
                    AUTH => AUTH_RE.find(line),
                    SCHEMA => SCHEMA_RE.find(line),
                    _ => (p.shared.loud[cat].as_ref().and_then(|re| re.find(line)))
                        .or_else(|| p.shared.soft[cat].as_ref().and_then(|re| re.find(line))),
                };
                if !allowed
                    && f.slot(cat).is_none()
                    && let Some(m) = found
                {
                    *f.slot(cat) = Some(snippet(line, m.start()));
                }
            }
            f.specific_error |= p.specific.as_ref().is_some_and(|s| s.re.is_match(line));
        }
        f.validation_errors = extractor.into_errors();
        f
    }

    fn output() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            3 => proptest::collection::vec(any::<u8>(), 0..12),
            2 => Just(b"\n".to_vec()),
            1 => Just(b"\r\n".to_vec()),
            1 => Just(b"  ".to_vec()),
            1 => prop::sample::select(vec![
                "Pipeline failed", "SparkException", "Timeout", "SIGTERM", "Invalid config",
                "ValidationError", "2 validation errors for Job", "1 validation error for X",
                "stages.0.name", "  Input should be a valid string [type=string_type]",
                "    For further information visit x", "  Value error, x", "Unauthorized",
                "oauth", "auth", "SCHEMA", "E42", "Job ab", "orted", "\u{e9}auth",
                "Timeout=30s", "SIGTERM handler installed",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::sample::select(vec![
                "\x1b[31m", "\x1b[0m", "\x1b[1", "\x1b", "\x1b]8;;http://x/Timeout\x07",
                "\x1b]0;never ended", "\x1b\\", "\x1b(B", "Pipe\x1b[1mline failed",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    fn config() -> impl Strategy<Value = (PatternConfig, Option<&'static str>)> {
        let custom =
            prop::sample::subsequence(vec!["^E4", r"\d$", r"(?i)job\s+ab", r"\Aauth"], 0..3);
        let allow =
            prop::sample::subsequence(vec![r"Timeout=\d+", "^SIGTERM handler", "E42$"], 0..2);
        let specific = prop::option::of(prop::sample::select(vec!["E42", "^SIG", r"for \w+$"]));
        (custom, allow, any::<bool>(), specific).prop_map(|(custom, allow, builtin, specific)| {
            let config = PatternConfig {
                runtime: custom.into_iter().map(String::from).collect(),
                allow: allow.into_iter().map(String::from).collect(),
                builtin,
                ..PatternConfig::default()
            };
            (config, specific)
        })
    }

    fn chunked(p: &Patterns, hold: usize, out: &[u8], cuts: &[usize]) -> StreamFindings {
        let mut c = StreamClassifier::with_hold(p.clone(), hold);
        let mut cuts: Vec<usize> = cuts.iter().map(|&i| i % (out.len() + 1)).collect();
        cuts.sort_unstable();
        let mut last = 0;
        for cut in cuts.into_iter().chain([out.len()]) {
            c.feed(&out[last..cut]);
            last = cut;
        }
        c.finish()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn chunking_never_changes_the_findings(
            out in output(),
            (config, specific) in config(),
            cuts in proptest::collection::vec(any::<usize>(), 0..8),
            hold in prop::sample::select(vec![HOLD, 16, 7, 2, 1]),
        ) {
            let specific = specific.map(|s| Regex::new(s).unwrap());
            let p = Patterns::new(&config).unwrap().with_specific_error(specific.as_ref());
            let whole = chunked(&p, hold, &out, &[]);
            prop_assert_eq!(&chunked(&p, hold, &out, &cuts), &whole);
            let bytewise: Vec<usize> = (0..out.len()).collect();
            prop_assert_eq!(&chunked(&p, hold, &out, &bytewise), &whole);
            let expected = reference(&p, &out);
            // Which categories match does not depend on how long lines are;
            // the text of a finding does (long lines keep the end).
            let some = |f: &StreamFindings| [
                f.validation.is_some(), f.runtime.is_some(), f.abort.is_some(),
                f.auth.is_some(), f.schema.is_some(), f.specific_error,
            ];
            prop_assert_eq!(some(&whole), some(&expected));
            if hold == HOLD {
                prop_assert_eq!(&whole.validation, &expected.validation);
                prop_assert_eq!(&whole.runtime, &expected.runtime);
                prop_assert_eq!(&whole.abort, &expected.abort);
                prop_assert_eq!(&whole.auth, &expected.auth);
                prop_assert_eq!(&whole.schema, &expected.schema);
                prop_assert_eq!(&whole.first_line, &expected.first_line);
                prop_assert_eq!(&whole.validation_errors, &expected.validation_errors);
            }
        }

        #[test]
        fn failures_always_carry_issues_and_passes_never(
            stdout in output(),
            stderr in output(),
            exit_code in prop::option::of(prop_oneof![Just(0), -2..300i32]),
            signal in prop::option::of(1..32i32),
            timed_out in any::<bool>(),
            interrupted in any::<bool>(),
            specific in prop::option::of(prop::sample::select(vec!["Timeout", "E42", "nothing"])),
            golden in any::<bool>(),
            modified in prop::option::of(Just("a.txt")),
            not_run in prop::option::of(Just("missing dir")),
        ) {
            let expected = match specific {
                Some(s) => Expected::SpecificError(Regex::new(s).unwrap()),
                None => Expected::Success,
            };
            let p = patterns().for_expected(&expected);
            let (out, err) = (classify(&p, &stdout), classify(&p, &stderr));
            let obs = CaseFacts {
                exit_code,
                signal,
                timed_out,
                interrupted,
                stdout: &out,
                stderr: &err,
                golden_modified: modified,
                not_run_reason: not_run,
                started: exit_code.is_some(),
                dirty: None,
            };
            let kind = if golden { CaseKind::Golden } else { CaseKind::Verify };
            let v = judge("c", kind, &expected, &obs);
            prop_assert_eq!(v.result == CaseResult::Passed, v.issues.is_empty());
            prop_assert_ne!(v.result, CaseResult::Skipped);
            let prefix = format!("Status: {} | Exit code: ", v.execution_status.as_str());
            for issue in &v.issues {
                prop_assert!(!issue.message.contains(['\n', '\r']));
                prop_assert!(!issue.evidence.contains(['\n', '\r']));
                prop_assert!(issue.evidence.starts_with(&prefix));
            }
            // An expected error never passes a case that was cut short.
            if matches!(expected, Expected::SpecificError(_))
                && (timed_out || interrupted || signal.is_some())
            {
                prop_assert_ne!(v.result, CaseResult::Passed);
            }
            if not_run.is_none() && modified.is_none() && matches!(expected, Expected::Success) {
                prop_assert_eq!(
                    v.result == CaseResult::Passed,
                    v.execution_status == ExecutionStatus::Success
                );
            }
        }
    }
    /// The judgement of `out` (stdout, exit `exit`) under `config`.
    fn judged(config: &PatternConfig, exit: i32, out: &str) -> Judgement {
        let p = Patterns::new(config).unwrap();
        let stdout = classify(&p, out.as_bytes());
        let obs = CaseFacts {
            exit_code: Some(exit),
            signal: None,
            timed_out: false,
            interrupted: false,
            stdout: &stdout,
            stderr: &StreamFindings::default(),
            golden_modified: None,
            not_run_reason: None,
            started: false,
            dirty: None,
        };
        judge("case", CaseKind::Golden, &Expected::Success, &obs)
    }

    fn builtin() -> PatternConfig {
        PatternConfig {
            builtin: true,
            ..PatternConfig::default()
        }
    }

    #[test]
    fn abort_words_in_info_and_warning_records_abort_nothing() {
        for out in [
            "[12/01/26 20:09:58] INFO     call ended in Timeout, using the cache   etl.py:12\n",
            "2026-11-28 22:56:51 +0000 - etl - WARNING - hook caught TimeoutError, carrying on\n",
            "2026-11-28 22:56:51,001 - etl - WARNING - step failed: Traceback follows\nTraceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nTimeoutError: read timed out\n2026-11-28 22:56:52,001 - etl - INFO - retried, done\n",
        ] {
            let v = judged(&builtin(), 0, out);
            assert_eq!(v.result, CaseResult::Passed, "{out}: {:?}", v.issues);
        }
        // The same words abort from an ERROR record, an uncaught
        // exception, or a line of no known shape.
        for out in [
            "2026-11-28 22:56:51,001 ERROR Timeout talking to the warehouse\n",
            "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nTimeoutError: timed out\n",
            "worker got SIGTERM\n",
        ] {
            let v = judged(&builtin(), 0, out);
            assert_eq!(
                v.execution_status,
                ExecutionStatus::Aborted,
                "{out}: {:?}",
                v.issues
            );
        }
    }

    #[test]
    fn an_error_record_fails_a_run_that_exits_zero_unless_it_recovered() {
        let v = judged(
            &builtin(),
            0,
            "2026-11-28 22:56:51,001 INFO start\n2026-11-28 22:56:52,001 ERROR revenue not signed off\n2026-11-28 22:56:53,001 INFO done\n",
        );
        assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed);
        assert_eq!(types(&v), [IssueType::ErrorLogged]);
        assert_eq!(v.issues[0].message, "Error logged: revenue not signed off");
        for level in ["CRITICAL", "FATAL"] {
            let v = judged(&builtin(), 0, &format!("{level}: disk gone\n"));
            assert_eq!(types(&v), [IssueType::ErrorLogged], "{level}");
        }
        // A later record of the same step says it succeeded on a retry.
        let v = judged(
            &builtin(),
            0,
            "12:00:01.000 | ERROR   | Task run 'load-7' - Task run failed with exception: ConnectionError - Retry 1/3 will start 1 second(s) from now\n12:00:02.000 | INFO    | Task run 'load-7' - Finished in state Completed()\n",
        );
        assert_eq!(v.result, CaseResult::Passed, "{:?}", v.issues);
        // Another step's success recovers nothing.
        let v = judged(
            &builtin(),
            0,
            "12:00:01.000 | ERROR   | Task run 'load-7' - failed - Retry 1/3 will start 1 second(s) from now\n12:00:02.000 | INFO    | Task run 'other-1' - Finished in state Completed()\n",
        );
        assert_eq!(types(&v), [IssueType::ErrorLogged]);
        // An allow names it.
        let mut allowed = builtin();
        allowed.allow = vec!["revenue not signed off".into()];
        let v = judged(
            &allowed,
            0,
            "2026-11-28 22:56:52,001 ERROR revenue not signed off\n",
        );
        assert_eq!(v.result, CaseResult::Passed);
    }

    #[test]
    fn exceptions_are_judged_by_their_type_and_headline_the_issue() {
        let tb = |last: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    load()\n{last}\n"
            )
        };
        for (last, status) in [
            (
                "yaml.scanner.ScannerError: while scanning a simple key",
                ExecutionStatus::ValidationFailed,
            ),
            (
                "prefect.exceptions.ParameterTypeError: Flow run received invalid parameters:",
                ExecutionStatus::ValidationFailed,
            ),
            ("KeyError: 'revenue'", ExecutionStatus::RuntimeFailed),
        ] {
            let v = judged(&builtin(), 1, &tb(last));
            assert_eq!(v.execution_status, status, "{last}");
            assert!(
                v.issues[0].message.ends_with(last),
                "{:?}",
                v.issues[0].message
            );
        }
        let v = judged(&builtin(), 1, &tb("KeyError: 'revenue'"));
        assert_eq!(types(&v), [IssueType::ExecutionFailure]);
        // Raised while the tool loaded its project: it logged, but no step
        // had started.
        let loading = format!(
            "2026-11-28 22:56:51,001 INFO Loading project from x.yaml\n{}",
            tb("KeyError: 'pipelines'")
        );
        assert_eq!(
            judged(&builtin(), 1, &loading).execution_status,
            ExecutionStatus::ValidationFailed
        );
        let running = format!(
            "2026-11-28 22:56:51,001 INFO Running task load\n{}",
            tb("KeyError: 'revenue'")
        );
        assert_eq!(
            judged(&builtin(), 1, &running).execution_status,
            ExecutionStatus::RuntimeFailed
        );
        // A JVM root cause.
        let jvm = "2026-11-28 22:56:51,001 ERROR Job failed\njava.lang.RuntimeException: wrapper\n\tat a.B.c(B.java:1)\nCaused by: org.yaml.snakeyaml.parser.ParserException: bad\n";
        assert_eq!(
            judged(&builtin(), 1, jvm).execution_status,
            ExecutionStatus::ValidationFailed
        );
    }

    #[test]
    fn a_teams_own_patterns_count_at_every_level_under_a_preset() {
        let odibi = crate::config::ToolPatterns {
            name: "odibi".into(),
            builtin: false,
            records: Some(RecordFormat {
                start:
                    r"^(?:\[\d\d:\d\d:\d\d\] | {11})(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) "
                        .into(),
                quiet: vec!["DEBUG".into(), "INFO".into(), "WARNING".into()],
                ..RecordFormat::default()
            }),
            ..Default::default()
        };
        let config = PatternConfig {
            runtime: vec!["Filtering by tag '[^']*': 0 nodes match".into()],
            builtin: true,
            tools: vec![odibi],
            ..PatternConfig::default()
        };
        let out = "[20:44:10] INFO     Loading configuration\n           INFO     Filtering by tag 'nightly': 0 nodes match (pipeline_id=orders)\n";
        let v = judged(&config, 0, out);
        assert_eq!(
            types(&v),
            [IssueType::PipelineExecutionError],
            "{:?}",
            v.issues
        );
    }

    #[test]
    fn require_matches_the_line_as_printed_or_the_records_message() {
        let dbt = crate::config::ToolPatterns {
            name: "dbt".into(),
            records: Some(RecordFormat {
                prefix: Some(r"^\d\d:\d\d:\d\d  ".into()),
                start: r"^\d+ of \d+ (?P<level>START|OK)\b".into(),
                ..RecordFormat::default()
            }),
            builtin: true,
            ..Default::default()
        };
        let p = Patterns::new(&PatternConfig {
            builtin: true,
            tools: vec![dbt],
            ..PatternConfig::default()
        })
        .unwrap();
        let out = b"00:36:37  Running with dbt=1.11\n00:36:39  Done. PASS=3 WARN=0 ERROR=0\n";
        for require in [r"^\d\d:\d\d:\d\d  Done\. PASS=[1-9]", r"^Done\. PASS=[1-9]"] {
            let p = p.clone().requiring(&[require.to_string()]).unwrap();
            assert_eq!(
                classify(&p, out).missing_required,
                Vec::<String>::new(),
                "{require}"
            );
        }
    }

    #[test]
    fn patterns_that_can_never_fire_are_named() {
        let config = PatternConfig {
            runtime: vec![
                "a\nb".into(),
                "Filtering by tag".into(),
                "real failure".into(),
            ],
            allow: vec!["Filtering".into()],
            builtin: true,
            ..PatternConfig::default()
        };
        let never = never_firing(&config);
        assert_eq!(never.len(), 2, "{never:?}");
        assert!(
            never[0].contains("line end") && never[1].contains("allowed by `Filtering`"),
            "{never:?}"
        );
    }
}
