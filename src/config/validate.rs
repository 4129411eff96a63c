//! Second pass: the spanned tree checked into [`HarnessConfig`] and [`CaseDef`]s.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::tree::{Key, Node, Pos, Value};
use super::{
    CaseDef, CasePatterns, ConfigError, Diagnostic, Expected, HarnessConfig, Isolation, MAX_JOBS,
    MAX_RETRIES, MAX_TRUNCATE, ResultFormat,
};
use crate::model::{CaseKind, JunitFlavour};
use crate::redact::{NamePattern, RedactRules, RuleEntry};
use crate::shell::Shell;

mod baseline;

pub use baseline::BUILTIN_REDACTIONS;

/// Keys each table accepts (`""` is the top level), for the checks below
/// and suggestions: generated from the typed definition of the file
/// ([`super::schema`]), which the printed schema comes from too.
pub static KNOWN_KEYS: &[(&str, &[&str])] = super::keys::TABLE_KEYS;

fn keys_of(table: &str) -> Vec<&'static str> {
    KNOWN_KEYS
        .iter()
        .find(|(t, _)| *t == table)
        .map(|(_, keys)| keys.to_vec())
        .unwrap_or_default()
}

/// Collects diagnostics while checking one file.
struct Ctx<'f> {
    file: &'f Path,
    diags: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn err(&mut self, pos: Pos, message: String, help: Option<String>) {
        self.diags.push(Diagnostic {
            file: self.file.to_path_buf(),
            pos,
            message,
            help,
        });
    }

    /// The entries of a table, with unknown keys reported.
    fn table<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        allowed: &[&str],
    ) -> Option<BTreeMap<&'n str, (&'n Key, &'n Node)>> {
        let Value::Map(entries) = &node.value else {
            self.err(
                node.pos,
                format!("{what} must be a table, found {}", node.value.kind_name()),
                None,
            );
            return None;
        };
        let mut out = BTreeMap::new();
        for (k, v) in entries {
            if allowed.contains(&k.name.as_str()) {
                out.insert(k.name.as_str(), (k, v));
            } else {
                let help = suggest(&k.name, allowed).map_or_else(
                    || format!("known keys: {}", allowed.join(", ")),
                    |s| format!("did you mean `{s}`?"),
                );
                self.err(
                    k.pos,
                    format!("unknown key `{}` in {what}", k.name),
                    Some(help),
                );
            }
        }
        Some(out)
    }

    fn string(&mut self, node: &Node, key: &str) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be a string, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    /// A string with `${VAR}` expanded; an unset variable is an error at
    /// the value.
    fn expanded(&mut self, node: &Node, key: &str) -> Option<String> {
        let s = self.string(node, key)?;
        match expand_vars(&s, |n| std::env::var(n).ok()) {
            Ok(v) => Some(v),
            Err(var) => {
                self.err(
                    node.pos,
                    format!("`{key}` uses `${{{var}}}`, which is not set"),
                    Some(format!(
                        "set {var}, give a default with `${{{var}:-default}}`, or write `$$` for a literal `$`"
                    )),
                );
                None
            }
        }
    }

    fn boolean(&mut self, node: &Node, key: &str) -> Option<bool> {
        match &node.value {
            Value::Bool(b) => Some(*b),
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be true or false, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    fn integer(&mut self, node: &Node, key: &str, min: i64, max: i64) -> Option<i64> {
        match &node.value {
            Value::Int(i) if (min..=max).contains(i) => Some(*i),
            Value::Int(i) if *i < min => {
                self.err(
                    node.pos,
                    format!("`{key}` must be at least {min}, found {i}"),
                    None,
                );
                None
            }
            Value::Int(i) => {
                self.err(
                    node.pos,
                    format!("`{key}` must be at most {max}, found {i}"),
                    None,
                );
                None
            }
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be an integer, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    fn duration(&mut self, node: &Node, key: &str) -> Option<Duration> {
        let s = self.string(node, key)?;
        match humantime::parse_duration(s.trim()) {
            Ok(d) if d.is_zero() => {
                self.err(node.pos, format!("`{key}` must be longer than zero"), None);
                None
            }
            Ok(d) if d > super::MAX_DURATION => {
                self.err(
                    node.pos,
                    format!("`{key}` = \"{s}\" is too long: at most 1 year"),
                    None,
                );
                None
            }
            Ok(d) => Some(d),
            Err(e) => {
                self.err(
                    node.pos,
                    format!("bad duration `{s}` for `{key}`: {e}"),
                    Some(
                        "write a duration such as \"500ms\", \"90s\", \"2m\" or \"1h 30m\"".into(),
                    ),
                );
                None
            }
        }
    }

    /// A case's `env` table: names a process environment can hold (no
    /// `=`, no NUL, not empty) and string-like values without NUL.
    fn env(&mut self, node: &Node) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        let Value::Map(vars) = &node.value else {
            self.err(
                node.pos,
                format!("`env` must be a table, found {}", node.value.kind_name()),
                None,
            );
            return env;
        };
        for (k, val) in vars {
            if k.name.is_empty() || k.name.contains(['=', '\0']) {
                self.err(
                    k.pos,
                    format!("env name {:?} cannot be an environment variable", k.name),
                    Some("names must be non-empty and hold neither `=` nor NUL".into()),
                );
                continue;
            }
            let s = match &val.value {
                Value::Str(_) => match self.expanded(val, &format!("env.{}", k.name)) {
                    Some(s) => s,
                    None => continue,
                },
                Value::Int(i) => i.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Float(f) => f.to_string(),
                other => {
                    let msg = format!(
                        "env `{}` must be a string, found {}",
                        k.name,
                        other.kind_name()
                    );
                    self.err(val.pos, msg, None);
                    continue;
                }
            };
            if s.contains('\0') {
                self.err(
                    val.pos,
                    format!("env `{}` holds a NUL character", k.name),
                    None,
                );
                continue;
            }
            env.insert(k.name.clone(), s);
        }
        env
    }

    fn strings(&mut self, node: &Node, key: &str) -> Vec<(String, Pos)> {
        match &node.value {
            Value::Seq(items) => items
                .iter()
                .filter_map(|n| self.string(n, key).map(|s| (s, n.pos)))
                .collect(),
            other => {
                self.err(
                    node.pos,
                    format!(
                        "`{key}` must be an array of strings, found {}",
                        other.kind_name()
                    ),
                    None,
                );
                Vec::new()
            }
        }
    }

    /// `redact_env`: names and globs to mask, `!` entries to leave alone.
    fn redact_env(&mut self, node: &Node, key: &str) -> RedactRules {
        let mut rules = RedactRules::default();
        let mut exact: HashMap<String, bool> = HashMap::new();
        for (text, pos) in self.strings(node, key) {
            match RedactRules::entry(&text) {
                Ok(entry) => {
                    if let RuleEntry::Include(NamePattern::Exact(n))
                    | RuleEntry::Exclude(NamePattern::Exact(n)) = &entry
                    {
                        let include = matches!(entry, RuleEntry::Include(_));
                        match exact.get(n) {
                            Some(was) if *was != include => self.err(
                                pos,
                                format!("`{n}` is both masked and excluded in `{key}`"),
                                Some(format!("keep `{n}` to mask it, or `!{n}` to leave it alone")),
                            ),
                            _ => {
                                exact.insert(n.clone(), include);
                            }
                        }
                    }
                    rules.push(entry);
                }
                Err(message) => self.err(
                    pos,
                    format!("invalid `{key}` entry: {message}"),
                    Some(
                        "write a variable name (`API_TOKEN`), a glob (`AWS_*`), or `!NAME` to leave a variable unmasked"
                            .into(),
                    ),
                ),
            }
        }
        rules
    }

    /// `shell = ["program", "arg", …]`: the command is appended as the last
    /// argument.
    fn shell(&mut self, node: &Node) -> Option<Shell> {
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

    fn regex(&mut self, pattern: &str, pos: Pos, key: &str) -> Option<regex::bytes::Regex> {
        match regex::bytes::Regex::new(pattern) {
            Ok(r) => Some(r),
            Err(e) => {
                let detail = e.to_string();
                let last = detail.lines().last().unwrap_or("").trim().to_string();
                self.err(
                    pos,
                    format!("invalid regex `{pattern}` in `{key}`: {last}"),
                    Some(
                        "patterns use Rust `regex` syntax; escape special characters with `\\`"
                            .into(),
                    ),
                );
                None
            }
        }
    }

    /// `preset` / `presets`: shipped presets by name, or preset files by
    /// path (relative to the harness file), applied in order; each is
    /// loaded into `h.loaded_presets`. The names that load, without
    /// repeats.
    fn preset_names(&mut self, names: Vec<(String, Pos)>, h: &mut HarnessConfig) -> Vec<String> {
        let known = super::preset::names();
        let mut out: Vec<String> = Vec::new();
        for (name, pos) in names {
            if out.contains(&name) {
                continue;
            }
            if h.loaded_presets.contains_key(&name) {
                out.push(name);
                continue;
            }
            if super::preset::is_file(&name) {
                match super::preset::from_file(&h.base_dir.join(&name)) {
                    Ok(p) => {
                        h.loaded_presets.insert(name.clone(), p);
                        out.push(name);
                    }
                    Err(why) => self.err(
                        pos,
                        why,
                        Some("a preset file has the form of the shipped ones (presets/*.toml in cargo-golden): [patterns], [record], [require], [env]".into()),
                    ),
                }
                continue;
            }
            if let Some(p) = super::preset::preset(&name) {
                h.loaded_presets.insert(name.clone(), p);
                out.push(name);
                continue;
            }
            let hint = match suggest(&name, &known) {
                Some(near) => format!(
                    "did you mean `{near}`? The presets are: {}; a preset file is named by its path (`./ci/tool.toml`)",
                    known.join(", ")
                ),
                None => format!(
                    "the presets are: {}; a preset file is named by its path (`./ci/tool.toml`)",
                    known.join(", ")
                ),
            };
            self.err(pos, format!("unknown preset `{name}`"), Some(hint));
        }
        out
    }

    /// A table's `preset` and `presets` keys, loaded; None when it has
    /// neither.
    fn preset_keys(&mut self, t: &Table<'_>, h: &mut HarnessConfig) -> Option<Vec<String>> {
        if !t.contains_key("preset") && !t.contains_key("presets") {
            return None;
        }
        let mut names = Vec::new();
        if let Some((_, v)) = t.get("preset")
            && let Some(name) = self.string(v, "preset")
        {
            names.push((name, v.pos));
        }
        if let Some((_, v)) = t.get("presets") {
            names.extend(self.strings(v, "presets"));
        }
        Some(self.preset_names(names, h))
    }

    /// A case's `require`: regexes, at most [`super::MAX_REQUIRE`].
    fn require(&mut self, node: &Node) -> Vec<String> {
        let lines = self.strings(node, "require");
        if lines.len() > super::MAX_REQUIRE {
            self.err(
                node.pos,
                format!(
                    "`require` has {} patterns; at most {} are read",
                    lines.len(),
                    super::MAX_REQUIRE
                ),
                Some("join patterns with `|`".into()),
            );
        }
        lines
            .into_iter()
            .filter(|(p, pos)| self.regex(p, *pos, "require").is_some())
            .map(|(p, _)| p)
            .collect()
    }

    fn isolation(&mut self, node: &Node) -> Option<Isolation> {
        self.spelled(node, "isolation", None)
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

    /// A case's `quarantine = { reason, until, issue }`.
    fn quarantine(&mut self, node: &Node) -> Option<crate::model::Quarantine> {
        let t = self.table(node, "`quarantine`", &keys_of("quarantine"))?;
        let field = |cx: &mut Self, key: &str| {
            let Some((_, v)) = t.get(key) else {
                if key != "issue" {
                    cx.err(
                        node.pos,
                        format!("`quarantine` has no `{key}`"),
                        Some("write `quarantine = { reason = \"…\", until = \"2027-01-31\", issue = \"URL\" }`".into()),
                    );
                }
                return None;
            };
            cx.string(v, &format!("quarantine.{key}"))
                .map(|s| (s, v.pos))
        };
        let reason = field(self, "reason");
        let until = field(self, "until");
        let issue = field(self, "issue").map(|(s, _)| s);
        let (until, pos) = until?;
        if until.len() != 10 || until.parse::<crate::time::Date>().is_err() {
            self.err(
                pos,
                format!("`quarantine.until` must be a date `YYYY-MM-DD`, found \"{until}\""),
                None,
            );
            return None;
        }
        Some(crate::model::Quarantine {
            reason: reason?.0,
            until,
            issue,
            expired: false,
        })
    }

    fn flaky_policy(&mut self, node: &Node, key: &str) -> Option<crate::model::FlakyPolicy> {
        self.spelled(
            node,
            key,
            Some(
                "what a case that passed only after a failed attempt does: \"warn\" (default) passes it with a warning, \"fail\" fails the run",
            ),
        )
    }

    /// A `patterns` table (`[patterns]` or a case's own): lists of regexes
    /// and `builtin`. The table accepts the keys of `[patterns]`.
    fn patterns(&mut self, node: &Node, what: &str, prefix: &str) -> Option<CasePatterns> {
        let t = self.table(node, what, &keys_of("patterns"))?;
        let mut p = CasePatterns::default();
        for (key, (_, v)) in &t {
            if *key == "builtin" {
                p.builtin = self.boolean(v, key);
                continue;
            }
            if *key == "quiet" {
                p.quiet = Some(self.strings(v, key).into_iter().map(|(l, _)| l).collect());
                continue;
            }
            let list: Vec<String> = self
                .strings(v, key)
                .into_iter()
                .filter(|(re, pos)| self.regex(re, *pos, &format!("{prefix}{key}")).is_some())
                .map(|(re, _)| re)
                .collect();
            match *key {
                "validation" => p.validation = list,
                "runtime" => p.runtime = list,
                "abort" => p.abort = list,
                "allow" => p.allow = list,
                _ => unreachable!("table() filters unknown keys"),
            }
        }
        Some(p)
    }

    /// A case's `result = { format, path }`.
    fn result(&mut self, node: &Node) -> Option<super::ResultSpec> {
        let t = self.table(node, "`result`", &keys_of("result"))?;
        let path = t
            .get("path")
            .and_then(|(_, v)| self.expanded(v, "result.path"))
            .map(PathBuf::from);
        let Some((_, f)) = t.get("format") else {
            self.err(
                node.pos,
                "`result` has no `format`".into(),
                Some(result_format_help()),
            );
            return None;
        };
        let format: ResultFormat = self.spelled(f, "result.format", None)?;
        // dbt writes its results where it always does.
        let path = match (path, format) {
            (None, ResultFormat::Dbt) => Some(PathBuf::from("target/run_results.json")),
            (path, _) => path,
        };
        if path.is_none() && format != ResultFormat::OdibiValidate {
            self.err(
                node.pos,
                format!("`result` of format \"{}\" has no `path`", format.as_str()),
                Some("add `path = \"…\"`, relative to the case's working dir".into()),
            );
            return None;
        }
        let allow_empty = t
            .get("allow_empty")
            .and_then(|(_, v)| self.boolean(v, "result.allow_empty"))
            .unwrap_or(false);
        Some(super::ResultSpec {
            format,
            path,
            allow_empty,
        })
    }

    /// A case's `outputs`: data files compared with data snapshots.
    fn outputs(&mut self, node: &Node) -> Vec<super::OutputSpec> {
        let Value::Seq(items) = &node.value else {
            self.err(
                node.pos,
                format!(
                    "`outputs` must be an array of tables, found {}",
                    node.value.kind_name()
                ),
                Some("write `outputs = [{ path = \"out/sales.csv\", key = [\"id\"] }]`".into()),
            );
            return Vec::new();
        };
        items.iter().filter_map(|item| self.output(item)).collect()
    }

    fn output(&mut self, node: &Node) -> Option<super::OutputSpec> {
        let t = self.table(node, "an `outputs` entry", &keys_of("outputs"))?;
        let Some((_, p)) = t.get("path") else {
            self.err(
                node.pos,
                "an `outputs` entry has no `path`".into(),
                Some("add `path = \"…\"`, relative to the case's working dir".into()),
            );
            return None;
        };
        let path = self.expanded(p, "outputs.path")?;
        let format = match t.get("format") {
            Some((_, f)) => match self.spelled(
                f,
                "outputs.format",
                Some("leave it out for a file: its extension says the format"),
            )? {
                super::schema::DataOutputFormat::Delta => crate::model::DataFormat::Delta,
            },
            None => {
                let Some(format) = crate::model::DataFormat::of(&path) else {
                    self.err(
                        p.pos,
                        format!(
                            "`outputs.path` \"{path}\" must end in .csv, .json, .jsonl or .parquet"
                        ),
                        Some(
                            "the extension says how the file is read; for a Delta table (a directory) add `format = \"delta\"`"
                                .into(),
                        ),
                    );
                    return None;
                };
                format
            }
        };
        if let Err(e) = globset::Glob::new(&path) {
            self.err(
                p.pos,
                format!("`outputs.path` is not a valid glob: {e}"),
                None,
            );
            return None;
        }
        let columns = |cx: &mut Self, key: &str| {
            t.get(key)
                .map(|(_, v)| cx.strings(v, &format!("outputs.{key}")))
                .unwrap_or_default()
        };
        let key = columns(self, "key");
        let ignore = columns(self, "ignore");
        for (k, pos) in &key {
            if ignore.iter().any(|(i, _)| i == k) {
                self.err(
                    *pos,
                    format!("column `{k}` is both a `key` and ignored"),
                    Some("a key column identifies rows: remove it from `ignore`".into()),
                );
            }
        }
        let mode = match t.get("mode") {
            Some((_, m)) => self.spelled(m, "outputs.mode", None)?,
            None => super::schema::DataOutputMode::Rows,
        };
        if mode == super::schema::DataOutputMode::Summary
            && let Some((_, pos)) = key.first()
        {
            self.err(
                *pos,
                "`key` matches rows, which `mode = \"summary\"` does not keep".into(),
                Some("remove `key`, or leave `mode` out to snapshot every row".into()),
            );
        }
        let (mut abs, mut rel) = (0.0, 0.0);
        if let Some((_, tol)) = t.get("tolerance") {
            let tt = self.table(tol, "`outputs.tolerance`", &keys_of("tolerance"))?;
            for (name, slot) in [("abs", &mut abs), ("rel", &mut rel)] {
                if let Some((_, v)) = tt.get(name) {
                    *slot = self.non_negative(v, &format!("outputs.tolerance.{name}"))?;
                }
            }
        }
        Some(super::OutputSpec {
            path,
            key: key.into_iter().map(|(k, _)| k).collect(),
            ignore: ignore.into_iter().map(|(k, _)| k).collect(),
            abs,
            rel,
            format,
            mode,
        })
    }

    /// A string naming a value of `T` as serde spells it; any other
    /// string is an error listing the spellings.
    fn spelled<T: serde::de::DeserializeOwned>(
        &mut self,
        node: &Node,
        key: &str,
        help: Option<&str>,
    ) -> Option<T> {
        let s = self.string(node, key)?;
        let value = super::spelling::parse::<T>(&s);
        if value.is_none() {
            self.err(
                node.pos,
                format!(
                    "`{key}` must be {}, found \"{s}\"",
                    super::spelling::listed::<T>("or")
                ),
                help.map(str::to_string),
            );
        }
        value
    }

    /// A number (an integer or a float).
    fn number(&mut self, node: &Node, key: &str) -> Option<f64> {
        match &node.value {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be a number, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    /// A finite number ≥ 0.
    fn non_negative(&mut self, node: &Node, key: &str) -> Option<f64> {
        let value = self.number(node, key)?;
        if value.is_finite() && value >= 0.0 {
            Some(value)
        } else {
            self.err(
                node.pos,
                format!("`{key}` must be a number ≥ 0, found {value}"),
                None,
            );
            None
        }
    }

    fn expected(&mut self, node: &Node, key: &str) -> Option<Expected> {
        let s = self.string(node, key)?;
        let t = s.trim();
        if t == "success" {
            return Some(Expected::Success);
        }
        if t == "aborted" || t == "timeout" {
            return Some(Expected::Aborted);
        }
        if let Some(re) = t.strip_prefix("specific_error:") {
            if re.is_empty() {
                self.err(
                    node.pos,
                    format!("`{key}` = \"specific_error:\" needs a regex after the colon"),
                    None,
                );
                return None;
            }
            return self.regex(re, node.pos, key).map(Expected::SpecificError);
        }
        self.err(
            node.pos,
            format!(
                "`{key}` must be \"success\", \"aborted\" (or \"timeout\") or \"specific_error:<regex>\", found \"{s}\""
            ),
            None,
        );
        None
    }
}

/// The help of a `result` with no `format`: ``add `format = "junit"`,
/// `"odibi-validate"`, … or `"dbt"` ``.
fn result_format_help() -> String {
    let quoted: Vec<String> = super::spelling::variants::<ResultFormat>()
        .iter()
        .enumerate()
        .map(|(i, v)| match i {
            0 => format!("`format = \"{v}\"`"),
            _ => format!("`\"{v}\"`"),
        })
        .collect();
    match quoted.split_last() {
        Some((last, head)) if !head.is_empty() => format!("add {} or {last}", head.join(", ")),
        _ => format!("add {}", quoted.concat()),
    }
}

/// The closest known key, if close enough to be a typo.
fn suggest<'a>(got: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|k| (strsim::damerau_levenshtein(got, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4) && *d < k.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Replace `{path}`, `{dir}` and `{name}`, quoted for `shell`.
pub(crate) fn substitute(
    shell: &Shell,
    command: &str,
    path: &Path,
    dir: &Path,
    name: &str,
) -> String {
    command
        .replace("{path}", &shell.quote(&path.to_string_lossy()))
        .replace("{dir}", &shell.quote(&dir.to_string_lossy()))
        .replace("{name}", &shell.quote(name))
}

type Table<'n> = BTreeMap<&'n str, (&'n Key, &'n Node)>;

/// Apply the settings of a `[harness]` (or `[profile.NAME]`) table.
fn harness_settings(
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
        match *key {
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
            "truncate" => {
                h.truncate = cx
                    .integer(v, key, 1, MAX_TRUNCATE as i64)
                    .map_or(h.truncate, |n| n as usize)
            }
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
            "flaky" => h.flaky = cx.flaky_policy(v, key).unwrap_or(h.flaky),
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
            "kill_grace" => h.kill_grace = cx.duration(v, key).unwrap_or(h.kill_grace),
            "leak_wait" => h.leak_wait = cx.duration(v, key).unwrap_or(h.leak_wait),
            "junit" => h.junit = cx.junit_flavour(v, key).unwrap_or(h.junit),
            "slow" => h.slow = cx.duration(v, key).unwrap_or(h.slow),
            "redact_env" => h.redact_env = cx.redact_env(v, key),
            "gate" => h.gate = cx.gate(v, key).unwrap_or(h.gate),
            "slowdown" => h.slowdown = cx.slowdown(v, key).unwrap_or(h.slowdown),
            // Read first, below: `runner` is quoted for it.
            "shell" => {}
            // Read with `presets`, below.
            "preset" | "presets" => {}
            "require" => h.harness_require = cx.require(v),
            "columns" => {
                h.columns = cx
                    .integer(v, key, 0, 100_000)
                    .map_or(h.columns, |n| n as u32)
            }
            _ => unreachable!("table() filters unknown keys"),
        }
    }
}

/// Apply `[profile.NAME]` over the `[harness]` settings; a profile that is
/// not declared is an error naming the declared ones.
fn profile(
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

/// `{root}` (the harness file's directory, shell-quoted) replaced in a
/// command; resolved when the file is read, since the root never moves.
fn with_root(command: &str, root: &Path, shell: &Shell) -> String {
    command.replace("{root}", &shell.quote(&root.to_string_lossy()))
}

/// `${VAR}` and `${VAR:-default}` replaced from the environment, `$$` as
/// a literal `$`; any other `$` is kept. The name of an unset variable
/// without a default is the error.
pub(super) fn expand_vars(s: &str, get: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{')
            && let Some(end) = body.find('}')
        {
            let inner = &body[..end];
            let (name, default) = match inner.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            match (
                get(name).filter(|v| !v.is_empty() || default.is_none()),
                default,
            ) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => return Err(name.to_string()),
            }
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Check `root` into `h`, reporting every problem.
pub(super) fn check(root: &Node, file: &Path, h: &mut HarnessConfig) -> Result<(), ConfigError> {
    let mut cx = Ctx {
        file,
        diags: Vec::new(),
    };
    let Some(top) = cx.table(root, "the harness file", &keys_of("")) else {
        return Err(ConfigError::Invalid(cx.diags));
    };
    settings(&mut cx, &top, h);
    let mut cases = Cases::default();
    for (ordinal, (kind, list_key, node)) in case_tables(&mut cx, &top).into_iter().enumerate() {
        let what = format!("[[{list_key}]] #{}", ordinal + 1);
        if let Some(t) = cx.table(node, &what, &keys_of(list_key)) {
            cases.check(&mut cx, h, Declared { kind, what, node }, &t);
        }
    }
    cases.resolve_after(&mut cx, h);
    if cx.diags.is_empty() {
        Ok(())
    } else {
        cx.diags.sort_by_key(|d| d.pos);
        Err(ConfigError::Invalid(cx.diags))
    }
}

/// The tables that are not cases: `[harness]`, the selected `[profile]`,
/// `[patterns]` and `[redactions]`.
fn settings(cx: &mut Ctx<'_>, top: &Table<'_>, h: &mut HarnessConfig) {
    let mut require_golden_pos = None;
    if let Some((_, node)) = top.get("harness")
        && let Some(t) = cx.table(node, "[harness]", &keys_of("harness"))
    {
        harness_settings(cx, &t, h, &mut require_golden_pos);
    }
    if let Some(name) = h.profile.clone() {
        profile(
            cx,
            top.get("profile").map(|(_, n)| *n),
            &name,
            h,
            &mut require_golden_pos,
        );
    }
    h.require_golden_at = require_golden_pos;

    h.own_patterns = top
        .get("patterns")
        .and_then(|(_, node)| cx.patterns(node, "[patterns]", "patterns."))
        .unwrap_or_default();
    let presets = h.presets.clone().unwrap_or_default();
    h.patterns = judging(h, &presets, None, None, CaseKind::Golden).patterns;

    if let Some((_, node)) = top.get("redactions") {
        h.redactions = cx.redactions(node);
    }
}

/// The presets of a case whose command is `command`: its own (`own`), else
/// the harness's, else those of the tools its command runs (loaded into
/// `h.loaded_presets`), each with its tool.
pub(super) fn case_presets(
    h: &mut HarnessConfig,
    own: Option<Vec<String>>,
    command: &str,
) -> (Vec<String>, Vec<String>) {
    if let Some(p) = own.or_else(|| h.presets.clone()) {
        return (p, Vec::new());
    }
    let mut presets = Vec::new();
    let mut tools = Vec::new();
    for (preset, tool) in super::preset::detect(command) {
        let name = preset.to_string();
        // Parsed once, not once a case.
        if !h.loaded_presets.contains_key(&name)
            && let Some(p) = super::preset::preset(preset)
        {
            h.loaded_presets.insert(name.clone(), p);
        }
        presets.push(name);
        tools.push(tool);
    }
    (presets, tools)
}

/// How a case of `kind` with `presets` (loaded into `h.loaded_presets`)
/// is judged: each preset's patterns, record format, `nothing` lines and
/// `require` lines for the kind (none when the case has its own
/// `require`) judge what its tool writes; `[patterns]`' own and the
/// case's (`case_patterns`) judge every line; `[harness] require` (or the
/// case's own) must be met by the whole output.
pub(super) fn judging(
    h: &HarnessConfig,
    presets: &[String],
    case_patterns: Option<&CasePatterns>,
    case_require: Option<&[String]>,
    kind: CaseKind,
) -> super::CaseJudging {
    let own = &h.own_patterns;
    let mut allow = Vec::new();
    let mut warn = Vec::new();
    let mut tools = Vec::new();
    let mut env = std::collections::BTreeMap::new();
    for (name, p) in presets
        .iter()
        .filter_map(|n| h.loaded_presets.get(n).map(|p| (n, p)))
    {
        allow.extend(p.patterns.allow.iter().cloned());
        warn.extend(p.patterns.warn.iter().cloned());
        let require = match (case_require, kind) {
            (Some(_), _) => Vec::new(),
            (None, CaseKind::Golden) => p.require.golden.clone(),
            (None, CaseKind::Verify) => p.require.verify.clone(),
        };
        tools.push(super::ToolPatterns {
            name: name.clone(),
            validation: p.patterns.validation.clone(),
            runtime: p.patterns.runtime.clone(),
            abort: p.patterns.abort.clone(),
            nothing: p.patterns.nothing.clone(),
            builtin: p.patterns.builtin != Some(false),
            records: p.record.clone(),
            require,
        });
        for (k, v) in &p.env {
            env.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let harness = super::PatternConfig {
        validation: own.validation.clone(),
        runtime: own.runtime.clone(),
        abort: own.abort.clone(),
        allow: [allow, own.allow.clone()].concat(),
        warn,
        builtin: own.builtin.unwrap_or(true),
        tools,
        quiet: own.quiet.clone(),
    };
    super::CaseJudging {
        patterns: match case_patterns {
            Some(c) => harness.with_case(c),
            None => harness,
        },
        require: case_require.map_or_else(|| h.harness_require.clone(), <[String]>::to_vec),
        env,
    }
}

/// Every case table with its kind and list, in the order they were
/// written: `[[golden]]` and `[[verify]]` may interleave.
fn case_tables<'n>(cx: &mut Ctx<'_>, top: &Table<'n>) -> Vec<(CaseKind, &'static str, &'n Node)> {
    let mut raw: Vec<(CaseKind, &'static str, &Node)> = Vec::new();
    for (list_key, kind) in [
        ("golden", CaseKind::Golden),
        ("verify", CaseKind::Verify),
        ("golden_projects", CaseKind::Golden),
    ] {
        let Some((_, node)) = top.get(list_key) else {
            continue;
        };
        match &node.value {
            Value::Seq(items) => raw.extend(items.iter().map(|n| (kind, list_key, n))),
            other => cx.err(
                node.pos,
                format!(
                    "`{list_key}` must be an array of tables (`[[{list_key}]]`), found {}",
                    other.kind_name()
                ),
                None,
            ),
        }
    }
    raw.sort_by_key(|(_, _, n)| n.offset);
    raw
}

/// One case table: its kind, how diagnostics name it, its node.
struct Declared<'n> {
    kind: CaseKind,
    what: String,
    node: &'n Node,
}

/// What the checks of one case need from the ones before it.
#[derive(Default)]
struct Cases {
    /// Line of the first declaration of each name.
    seen: HashMap<String, usize>,
    snapshot_files: baseline::SnapshotFiles,
    /// Each case's `after`, resolved once every case is declared.
    after: Vec<AfterKey>,
}

/// A case's `after` as written.
struct AfterKey {
    /// The case.
    case: String,
    /// Where the key is.
    at: Pos,
    /// The names given, each with where it is.
    names: Vec<(String, Pos)>,
}

/// The cycles of the `after` graph of `cases` (indexed by declaration
/// index), each once, starting at its first declared case.
fn after_cycles(cases: &[CaseDef]) -> Vec<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; cases.len()];
    let mut cycles = Vec::new();
    for root in 0..cases.len() {
        if mark[root] != Mark::New {
            continue;
        }
        // Depth-first, iteratively: the path from `root`, with how many of
        // each case's `after` entries were followed.
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        mark[root] = Mark::Open;
        while let Some((case, next)) = path.last_mut() {
            let Some(&dep) = cases[*case].after.get(*next) else {
                mark[*case] = Mark::Done;
                path.pop();
                continue;
            };
            *next += 1;
            match mark[dep] {
                Mark::New => {
                    mark[dep] = Mark::Open;
                    path.push((dep, 0));
                }
                Mark::Open => {
                    let from = path.iter().position(|(c, _)| *c == dep).unwrap_or(0);
                    let mut cycle: Vec<usize> = path[from..].iter().map(|(c, _)| *c).collect();
                    let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
                    cycle.rotate_left(first);
                    cycles.push(cycle);
                }
                Mark::Done => {}
            }
        }
    }
    cycles
}

/// The keys only one kind of case has.
struct KindFields {
    path: Option<PathBuf>,
    root: Option<PathBuf>,
    command: Option<String>,
    working_dir: Option<PathBuf>,
    isolation: Isolation,
    ignore: Vec<String>,
    allow_dirty: bool,
}

impl Cases {
    /// Check one case table; a case without errors joins `h.cases`.
    fn check(&mut self, cx: &mut Ctx<'_>, h: &mut HarnessConfig, d: Declared<'_>, t: &Table<'_>) {
        let name = self.name(cx, &d, t);
        let description = t
            .get("description")
            .and_then(|(_, v)| cx.string(v, "description"));
        let timeout = t
            .get("timeout")
            .and_then(|(_, v)| cx.duration(v, "timeout"))
            .unwrap_or(h.timeout);
        let slow = t
            .get("slow")
            .and_then(|(_, v)| cx.duration(v, "slow"))
            .unwrap_or(h.slow);
        let expected_key = if t.contains_key("expected_outcome") {
            "expected_outcome"
        } else {
            "expected"
        };
        let expected = match t.get(expected_key) {
            Some((_, v)) => cx.expected(v, expected_key),
            None => Some(Expected::Success),
        };
        let mut env = h.env.clone();
        if let Some((_, v)) = t.get("env") {
            env.extend(cx.env(v));
        }
        let retries = t
            .get("retries")
            .and_then(|(_, v)| cx.integer(v, "retries", 0, MAX_RETRIES.into()))
            .map_or(h.retries, |n| n as u32);
        let exclusive = t
            .get("exclusive")
            .and_then(|(_, v)| cx.boolean(v, "exclusive"))
            .unwrap_or(false);
        if let (Some(n), Some((k, v))) = (&name, t.get("after")) {
            self.after.push(AfterKey {
                case: n.clone(),
                at: k.pos,
                names: cx.strings(v, "after"),
            });
        }
        let patterns = t
            .get("patterns")
            .and_then(|(_, v)| cx.patterns(v, &format!("`patterns` of {}", d.what), "patterns."));
        let snapshot = self.snapshot(cx, t, name.as_deref());
        let require = t.get("require").map(|(_, v)| cx.require(v));
        let result = t.get("result").and_then(|(_, v)| cx.result(v));
        let outputs = t
            .get("outputs")
            .map_or_else(Vec::new, |(_, v)| cx.outputs(v));
        let ignored = t.get("ignored").and_then(|(_, v)| cx.string(v, "ignored"));
        let quarantine = t.get("quarantine").and_then(|(_, v)| cx.quarantine(v));
        let own_presets = cx.preset_keys(t, h);
        let fields = match d.kind {
            CaseKind::Golden => golden_fields(cx, h, &d, t, name.as_deref()),
            CaseKind::Verify => verify_fields(cx, h, &d, t),
        };

        let (Some(name), Some(command), Some(working_dir), Some(expected)) =
            (name, fields.command, fields.working_dir, expected)
        else {
            return;
        };
        let path = fields.path;
        let p: PathBuf = path.clone().unwrap_or_else(|| working_dir.clone());
        let command_template = command;
        let command = substitute(&h.shell, &command_template, &p, &working_dir, &name);
        let (presets, preset_tools) = case_presets(h, own_presets, &command);
        let judging = judging(h, &presets, patterns.as_ref(), require.as_deref(), d.kind);
        h.cases.push(CaseDef {
            command_template,
            index: h.cases.len(),
            name,
            kind: d.kind,
            line: d.node.pos.line,
            description,
            path,
            root: fields.root,
            command,
            working_dir,
            expected,
            timeout,
            env,
            isolation: fields.isolation,
            ignore: fields.ignore,
            allow_dirty: fields.allow_dirty,
            retries,
            exclusive,
            // Resolved once every case is declared (see `Cases::after`).
            after: Vec::new(),
            slow,
            ignored,
            patterns,
            snapshot,
            require,
            result,
            outputs,
            quarantine,
            presets,
            preset_tools,
            judging,
        });
    }

    /// Resolve each case's `after` names into `h.cases`: a name that is no
    /// case is an error at the name, a cycle an error at the `after` of
    /// the first case in it.
    fn resolve_after(&self, cx: &mut Ctx<'_>, h: &mut HarnessConfig) {
        let mut declared: Vec<&str> = self.seen.keys().map(String::as_str).collect();
        // Ties between suggestions go the same way every time.
        declared.sort_unstable();
        let index: HashMap<&str, usize> =
            h.cases.iter().map(|c| (c.name.as_str(), c.index)).collect();
        let mut resolved = Vec::new();
        for AfterKey {
            case,
            at: key_at,
            names,
        } in &self.after
        {
            let mut after = Vec::new();
            for (name, at) in names {
                if !self.seen.contains_key(name) {
                    let help = suggest(name, &declared).map_or_else(
                        || "`after` takes names of [[golden]] or [[verify]] cases".to_string(),
                        |s| format!("did you mean `{s}`?"),
                    );
                    cx.err(
                        *at,
                        format!("`after` names `{name}`, which is not a case"),
                        Some(help),
                    );
                } else if let Some(&i) = index.get(name.as_str())
                    && !after.contains(&i)
                {
                    after.push(i);
                }
            }
            if let Some(&i) = index.get(case.as_str()) {
                resolved.push((i, *key_at, after));
            }
        }
        let mut key_pos = HashMap::new();
        for (i, pos, after) in resolved {
            h.cases[i].after = after;
            key_pos.insert(i, pos);
        }
        for cycle in after_cycles(&h.cases) {
            let names: Vec<&str> = cycle.iter().map(|&i| h.cases[i].name.as_str()).collect();
            cx.err(
                key_pos[&cycle[0]],
                format!(
                    "`after` makes a cycle: {} → {}",
                    names.join(" → "),
                    names[0]
                ),
                Some("a case cannot wait for one that waits for it: remove one of these `after` entries".into()),
            );
        }
    }

    /// The streams snapshotted; each file is claimed by one case only.
    fn snapshot(
        &mut self,
        cx: &mut Ctx<'_>,
        t: &Table<'_>,
        name: Option<&str>,
    ) -> super::SnapshotStreams {
        let Some((_, v)) = t.get("snapshot") else {
            return super::SnapshotStreams::default();
        };
        let streams = cx.snapshot_streams(v);
        if let Some(n) = name {
            self.snapshot_files.claim(cx, n, streams, v.pos);
        }
        streams
    }

    /// The case's name: present, not blank, and not declared before.
    fn name(&mut self, cx: &mut Ctx<'_>, d: &Declared<'_>, t: &Table<'_>) -> Option<String> {
        let what = &d.what;
        let Some((_, v)) = t.get("name") else {
            cx.err(
                d.node.pos,
                format!("{what} has no `name`"),
                Some("add `name = \"…\"`".into()),
            );
            return None;
        };
        let name = cx.string(v, "name")?;
        if name.trim().is_empty() {
            cx.err(
                v.pos,
                format!("empty name in {what}"),
                Some("give every case a unique, non-empty name".into()),
            );
            return None;
        }
        if let Some(first_line) = self.seen.get(&name) {
            cx.err(
                v.pos,
                format!("duplicate case name `{name}` (first declared on line {first_line})"),
                Some("case names must be unique across [[golden]] and [[verify]]".into()),
            );
        } else {
            self.seen.insert(name.clone(), d.node.pos.line);
        }
        Some(name)
    }
}

/// `working_dir` of the case, else of `[harness]`.
fn explicit_working_dir(cx: &mut Ctx<'_>, h: &HarnessConfig, t: &Table<'_>) -> Option<PathBuf> {
    t.get("working_dir")
        .and_then(|(_, v)| cx.expanded(v, "working_dir"))
        .map(|s| crate::layout::absolute_from(&h.base_dir, Path::new(&s)))
        .or_else(|| h.working_dir.clone())
}

/// A golden project: `path`, a command or the harness runner, isolation
/// and ignore globs.
fn golden_fields(
    cx: &mut Ctx<'_>,
    h: &HarnessConfig,
    d: &Declared<'_>,
    t: &Table<'_>,
    name: Option<&str>,
) -> KindFields {
    let explicit_wd = explicit_working_dir(cx, h, t);
    let path = match t.get("path") {
        Some((_, v)) => cx
            .expanded(v, "path")
            .map(|p| crate::layout::absolute_from(&h.base_dir, Path::new(&p))),
        None => {
            cx.err(
                d.node.pos,
                format!("golden project {} has no `path`", d.what),
                Some("add `path = \"golden/<project>\"` (relative to the harness file)".into()),
            );
            None
        }
    };
    let command = match t.get("command") {
        Some((_, v)) => cx
            .string(v, "command")
            .map(|c| with_root(&c, &h.base_dir, &h.shell)),
        None => match &h.runner {
            Some(r) => Some(r.clone()),
            None => {
                cx.err(
                    d.node.pos,
                    format!(
                        "golden project `{}` has no `command` and there is no `[harness] runner`",
                        name.unwrap_or("?")
                    ),
                    Some("add `command = \"…\"` to the project, or `runner = \"… {path}\"` to [harness]".into()),
                );
                None
            }
        },
    };
    let root = path.as_ref().and_then(|p| project_root(cx, h, t, p));
    // The command runs in the project directory unless told otherwise.
    let working_dir = root
        .as_ref()
        .map(|r| explicit_wd.clone().unwrap_or_else(|| r.clone()));
    KindFields {
        path,
        root,
        command,
        working_dir,
        isolation: t
            .get("isolation")
            .and_then(|(_, v)| cx.isolation(v))
            .unwrap_or(h.isolation),
        ignore: ignore_globs(cx, t),
        allow_dirty: t
            .get("allow_dirty")
            .and_then(|(_, v)| cx.boolean(v, "allow_dirty"))
            .unwrap_or(h.allow_dirty),
    }
}

/// The project directory of the golden project at `path`: `root` when
/// given (`path` must lie inside it), else [`super::default_working_dir`].
fn project_root(
    cx: &mut Ctx<'_>,
    h: &HarnessConfig,
    t: &Table<'_>,
    path: &Path,
) -> Option<PathBuf> {
    let Some((_, v)) = t.get("root") else {
        return Some(super::default_working_dir(path));
    };
    let root = crate::layout::absolute_from(&h.base_dir, Path::new(&cx.expanded(v, "root")?));
    if !path.starts_with(&root) {
        cx.err(
            v.pos,
            format!(
                "`root` {} does not contain the project's `path` {}",
                root.display(),
                path.display()
            ),
            Some("`root` is the project directory the `path` file lies in, relative to the harness file".into()),
        );
        return None;
    }
    Some(root)
}

/// The `ignore` globs that compile; each one that does not is an error.
fn ignore_globs(cx: &mut Ctx<'_>, t: &Table<'_>) -> Vec<String> {
    t.get("ignore")
        .map(|(_, v)| cx.strings(v, "ignore"))
        .unwrap_or_default()
        .into_iter()
        .filter(|(g, pos)| match globset::Glob::new(g) {
            Ok(_) => true,
            Err(e) => {
                cx.err(*pos, format!("invalid glob `{g}` in `ignore`: {e}"), None);
                false
            }
        })
        .map(|(g, _)| g)
        .collect()
}

/// A verify command: a `command`, run in the working dir or beside the
/// harness file.
fn verify_fields(
    cx: &mut Ctx<'_>,
    h: &HarnessConfig,
    d: &Declared<'_>,
    t: &Table<'_>,
) -> KindFields {
    let explicit_wd = explicit_working_dir(cx, h, t);
    let command = match t.get("command") {
        Some((_, v)) => cx
            .string(v, "command")
            .map(|c| with_root(&c, &h.base_dir, &h.shell)),
        None => {
            cx.err(
                d.node.pos,
                format!("verify command {} has no `command`", d.what),
                Some("add `command = \"…\"`".into()),
            );
            None
        }
    };
    KindFields {
        path: None,
        root: None,
        command,
        working_dir: Some(explicit_wd.unwrap_or_else(|| h.base_dir.clone())),
        isolation: Isolation::Check,
        ignore: Vec::new(),
        allow_dirty: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        assert_eq!(suggest("nmae", &keys_of("golden")), Some("name"));
        assert_eq!(suggest("comand", &keys_of("golden")), Some("command"));
        assert_eq!(suggest("zzzzzz", &keys_of("golden")), None);
    }
}
