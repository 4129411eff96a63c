//! The keys every case has, `[[golden]]` and `[[verify]]` alike: their
//! one definition (the tail of both tables, declared by [`case_table`]),
//! `expected`, the case's command template, and the check of a case table
//! into a [`CaseDef`] — the keys only one kind has are checked by
//! [`super::golden`] and [`super::verify`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::isolation::Isolation;
use super::presets::{case_presets, judging};
use super::snapshots::SnapshotFiles;
use super::values::leaf;
use crate::config::check::{Ctx, Table, suggest};
use crate::config::tree::{Node, Pos};
use crate::config::{
    CaseDef, CasePatterns, Expected, HarnessConfig, MAX_RETRIES, OutputSpec, ResultSpec,
    SnapshotStreams,
};
use crate::model::{CaseKind, Quarantine};
use crate::shell::Shell;

/// `expected`: success, an abort by a timeout, or a failure whose output
/// matches a regex.
const EXPECTED_PATTERN: &str = r"^(success|aborted|timeout|specific_error:.+)$";

/// `"success"`, `"aborted"` (`"timeout"`) or `"specific_error:<regex>"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct ExpectedOutcome(pub String);
leaf!(
    ExpectedOutcome,
    schemars::json_schema!({
        "type": "string",
        "pattern": EXPECTED_PATTERN,
        "examples": ["success", "aborted", "specific_error:validation error for \\w+"],
    })
);

pub(crate) fn default_expected() -> ExpectedOutcome {
    ExpectedOutcome("success".to_string())
}

/// Declares a case table: its own keys as given, then the keys every case
/// has, from `retries` on — one definition for [`super::golden::Golden`]
/// and [`super::verify::Verify`]. (A `#[serde(flatten)]` struct would
/// lose `deny_unknown_fields`, which serde does not support beside it.)
macro_rules! case_table {
    ($(#[$attr:meta])* pub struct $name:ident { $($own:tt)* }) => {
        $(#[$attr])*
        pub(crate) struct $name {
            $($own)*
            /// Extra attempts when the case fails. Default: `[harness] retries`.
            pub(crate) retries: Option<$crate::config::elements::retries::Retries>,
            /// `true`: run alone, even with `jobs` > 1.
            #[serde(default)]
            pub(crate) exclusive: bool,
            /// Names of cases this one starts after: with `jobs` > 1 it waits until
            /// each has finished (passed or not). A case the filters, `ignored` or
            /// the partition leave out is not waited for.
            #[serde(default)]
            pub(crate) after: Vec<String>,
            /// Period after which this case is reported slow. Default:
            /// `[harness] slow`.
            pub(crate) slow: Option<$crate::config::elements::values::HumanDuration>,
            /// Why the case is ignored: it runs only with `--ignored` or
            /// `--include-ignored`, else it is SKIPPED with this reason.
            pub(crate) ignored: Option<String>,
            /// Patterns of this case, added to `[patterns]`.
            pub(crate) patterns: Option<$crate::config::elements::patterns::CasePatterns>,
            /// Regexes that must each match a line (a record, with a preset's
            /// record format) of stdout or stderr for the case to pass; a missing
            /// one fails it with `NOTHING_RAN`. Replaces the presets' and
            /// `[harness] require`; `[]` drops it.
            #[cfg_attr(feature = "schema", schemars(length(max = 64)))]
            pub(crate) require: Option<Vec<String>>,
            /// The case's own preset, by name or file, in place of `[harness]
            /// preset`/`presets` and of the one its command's tool would get.
            pub(crate) preset: Option<$crate::config::elements::presets::PresetName>,
            /// The case's own presets, applied in order; `[]` judges it by no
            /// preset.
            pub(crate) presets: Option<Vec<$crate::config::elements::presets::PresetName>>,
            /// Output streams compared, redacted, with `snapshots/<name>.stdout`
            /// and `.stderr` beside this file; in a snapshot `[..]` matches text
            /// within a line and a `...` line any number of lines.
            /// `cargo golden --bless` writes them.
            #[serde(default)]
            #[cfg_attr(feature = "schema", schemars(with = "Vec<crate::config::elements::snapshots::SnapshotStream>", length(max = 2), extend("uniqueItems" = true)))]
            pub(crate) snapshot: Vec<$crate::model::Stream>,
            /// A machine-readable result the command writes, judged and kept as
            /// evidence.
            pub(crate) result: Option<$crate::config::elements::result::ResultFile>,
            /// Keep running the case while known to fail: its failure does not
            /// fail the run (it is marked QUARANTINED) until `until` has passed;
            /// from then on the quarantine fails the case, naming itself. It never
            /// holds a modified or dirty golden project, lost evidence or a
            /// containment finding.
            pub(crate) quarantine: Option<$crate::config::elements::quarantine::QuarantineKey>,
            /// Data the case writes (CSV, JSON, JSONL, Parquet files, Delta
            /// tables; tables and queries of DuckDB and SQLite files; dbt
            /// models by name), each compared with
            /// `snapshots/<name>.<path>.data` beside this file (the path's `/` as
            /// `.`), a canonical CSV under a schema line: on column names and
            /// types, row count, and rows matched by `key` with numbers within
            /// `tolerance`. A difference fails the case with DATA_CHANGED;
            /// `cargo golden --bless` writes them.
            #[serde(default)]
            #[cfg_attr(feature = "schema", schemars(length(max = 64)))]
            pub(crate) outputs: Vec<$crate::config::elements::outputs::DataOutput>,
        }
    };
}
pub(crate) use case_table;

impl Ctx<'_> {
    pub(crate) fn expected(&mut self, node: &Node, key: &str) -> Option<Expected> {
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

/// `{root}` (the harness file's directory, shell-quoted) replaced in a
/// command; resolved when the file is read, since the root never moves.
pub(crate) fn with_root(command: &str, root: &Path, shell: &Shell) -> String {
    command.replace("{root}", &shell.quote(&root.to_string_lossy()))
}

/// One case table: its kind, how diagnostics name it, its node.
pub(crate) struct Declared<'n> {
    pub(crate) kind: CaseKind,
    pub(crate) what: String,
    pub(crate) node: &'n Node,
}

/// The keys only one kind of case has.
pub(crate) struct KindFields {
    pub(crate) path: Option<PathBuf>,
    pub(crate) root: Option<PathBuf>,
    pub(crate) command: Option<String>,
    pub(crate) working_dir: Option<PathBuf>,
    pub(crate) isolation: Isolation,
    pub(crate) ignore: Vec<String>,
    pub(crate) allow_dirty: bool,
}

/// The check of the keys only one kind of case has (the case's name, if
/// it has one, names it in diagnostics).
pub(crate) type KindCheck =
    fn(&mut Ctx<'_>, &HarnessConfig, &Declared<'_>, &Table<'_>, Option<&str>) -> KindFields;

/// The keys every case has, checked.
struct CaseKeys {
    description: Option<String>,
    expected: Option<Expected>,
    timeout: Duration,
    slow: Duration,
    env: BTreeMap<String, String>,
    retries: u32,
    exclusive: bool,
    patterns: Option<CasePatterns>,
    snapshot: SnapshotStreams,
    require: Option<Vec<String>>,
    result: Option<ResultSpec>,
    outputs: Vec<OutputSpec>,
    ignored: Option<String>,
    quarantine: Option<Quarantine>,
    presets: Option<Vec<String>>,
}

/// What the checks of one case need from the ones before it.
#[derive(Default)]
pub(crate) struct Cases {
    /// Line of the first declaration of each name.
    seen: HashMap<String, usize>,
    snapshot_files: SnapshotFiles,
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

impl Cases {
    /// Check one case table, its own keys by `kind_check`; a case without
    /// errors joins `h.cases`.
    pub(crate) fn check(
        &mut self,
        cx: &mut Ctx<'_>,
        h: &mut HarnessConfig,
        d: Declared<'_>,
        t: &Table<'_>,
        kind_check: KindCheck,
    ) {
        let name = self.name(cx, &d, t);
        let keys = self.case_keys(cx, h, &d, t, name.as_deref());
        let fields = kind_check(cx, h, &d, t, name.as_deref());

        let (Some(name), Some(command), Some(working_dir), Some(expected)) =
            (name, fields.command, fields.working_dir, keys.expected)
        else {
            return;
        };
        let path = fields.path;
        let p: PathBuf = path.clone().unwrap_or_else(|| working_dir.clone());
        let command_template = command;
        let command = substitute(&h.shell, &command_template, &p, &working_dir, &name);
        let (presets, preset_tools) = case_presets(h, keys.presets, &command);
        let judging = judging(
            h,
            &presets,
            keys.patterns.as_ref(),
            keys.require.as_deref(),
            d.kind,
        );
        h.cases.push(CaseDef {
            command_template,
            index: h.cases.len(),
            name,
            kind: d.kind,
            line: d.node.pos.line,
            description: keys.description,
            path,
            root: fields.root,
            command,
            working_dir,
            expected,
            timeout: keys.timeout,
            env: keys.env,
            isolation: fields.isolation,
            ignore: fields.ignore,
            allow_dirty: fields.allow_dirty,
            retries: keys.retries,
            exclusive: keys.exclusive,
            // Resolved once every case is declared (see `Cases::after`).
            after: Vec::new(),
            slow: keys.slow,
            ignored: keys.ignored,
            patterns: keys.patterns,
            snapshot: keys.snapshot,
            result: keys.result,
            outputs: keys.outputs,
            quarantine: keys.quarantine,
            presets,
            preset_tools,
            judging,
        });
    }

    /// The keys every case has, in the order the checks have always
    /// visited them; the case's `after` is kept for [`Cases::resolve_after`].
    fn case_keys(
        &mut self,
        cx: &mut Ctx<'_>,
        h: &mut HarnessConfig,
        d: &Declared<'_>,
        t: &Table<'_>,
        name: Option<&str>,
    ) -> CaseKeys {
        let description = t
            .get("description")
            .and_then(|(_, v)| cx.string(v, "description"));
        let duration = |cx: &mut Ctx<'_>, key: &str, default: Duration| {
            t.get(key)
                .and_then(|(_, v)| cx.duration(v, key))
                .unwrap_or(default)
        };
        let timeout = duration(cx, "timeout", h.timeout);
        let slow = duration(cx, "slow", h.slow);
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
        if let (Some(n), Some((k, v))) = (name, t.get("after")) {
            self.after.push(AfterKey {
                case: n.to_string(),
                at: k.pos,
                names: cx.strings(v, "after"),
            });
        }
        CaseKeys {
            description,
            expected,
            timeout,
            slow,
            env,
            retries,
            exclusive,
            patterns: t.get("patterns").and_then(|(_, v)| {
                cx.patterns(v, &format!("`patterns` of {}", d.what), "patterns.")
            }),
            snapshot: self.snapshot(cx, t, name),
            require: t.get("require").map(|(_, v)| cx.require(v)),
            result: t.get("result").and_then(|(_, v)| cx.result(v)),
            outputs: t
                .get("outputs")
                .map_or_else(Vec::new, |(_, v)| cx.outputs(v)),
            ignored: t.get("ignored").and_then(|(_, v)| cx.string(v, "ignored")),
            quarantine: t.get("quarantine").and_then(|(_, v)| cx.quarantine(v)),
            presets: cx.preset_keys(t, h),
        }
    }

    /// the first case in it.
    pub(crate) fn resolve_after(&self, cx: &mut Ctx<'_>, h: &mut HarnessConfig) {
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
    fn snapshot(&mut self, cx: &mut Ctx<'_>, t: &Table<'_>, name: Option<&str>) -> SnapshotStreams {
        let Some((_, v)) = t.get("snapshot") else {
            return SnapshotStreams::default();
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
pub(crate) fn explicit_working_dir(
    cx: &mut Ctx<'_>,
    h: &HarnessConfig,
    t: &Table<'_>,
) -> Option<PathBuf> {
    t.get("working_dir")
        .and_then(|(_, v)| cx.expanded(v, "working_dir"))
        .map(|s| crate::layout::absolute_from(&h.base_dir, Path::new(&s)))
        .or_else(|| h.working_dir.clone())
}
