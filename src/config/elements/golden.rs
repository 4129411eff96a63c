//! Golden projects: `[[golden]]` (and the older `golden_projects` list,
//! which may spell `expected` as `expected_outcome`) and the keys only a
//! golden project has: `path`, `root`, `command` or the harness runner,
//! `isolation`, `ignore` and `allow_dirty`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::case::ExpectedOutcome;
use super::case::{
    Declared, KindFields, case_table, default_expected, explicit_working_dir, with_root,
};
use super::env::EnvValue;
use super::isolation::Isolation;
use super::values::{Glob, HumanDuration};
use crate::config::HarnessConfig;
use crate::config::check::{Ctx, Table};

case_table! {
    /// A golden project: one test case.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
    #[serde(deny_unknown_fields)]
    pub struct Golden {
        /// Case name, unique across all `[[golden]]` and `[[verify]]` tables.
        #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
        pub(crate) name: String,
        /// The project: a directory or one file, absolute or relative to this
        /// file.
        #[cfg_attr(feature = "schema", schemars(example = &"golden/sales_daily_etl"))]
        pub(crate) path: String,
        /// The project directory when `path` names a file (a config file of a
        /// project), relative to this file; `path` must lie inside it. Default:
        /// the file's directory. `isolation` fingerprints or copies this whole
        /// directory, and under `copy` the command runs the file's copy.
        #[cfg_attr(feature = "schema", schemars(example = &"golden/sales"))]
        pub(crate) root: Option<String>,
        /// What the project is and why it must keep working.
        pub(crate) description: Option<String>,
        /// Command run in the `shell`. Default: `[harness] runner`. `{path}`,
        /// `{dir}` and `{name}` are replaced, shell-quoted.
        #[cfg_attr(feature = "schema", schemars(example = &"sh run.sh"))]
        pub(crate) command: Option<String>,
        /// `"success"`; `"aborted"` (or `"timeout"`): the case must be ended by
        /// its timeout, to prove a watchdog fires; or
        /// `"specific_error:<regex>"`: the case must fail and its stdout or
        /// stderr match the regex.
        #[serde(default = "default_expected")]
        pub(crate) expected: ExpectedOutcome,
        /// Timeout of this case. Default: `[harness] timeout`.
        pub(crate) timeout: Option<HumanDuration>,
        /// Environment variables added to the inherited environment and to
        /// `[harness] env` (these win, name by name).
        #[serde(default)]
        #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = { "pattern": "^[^=\\u0000]+$" })))]
        pub(crate) env: BTreeMap<String, EnvValue>,
        /// Directory the command runs in, relative to this file. Default: the
        /// project directory: `path` if it is a directory, else `root`, else
        /// the file's directory.
        pub(crate) working_dir: Option<String>,
        /// How the project is protected from modification by a run. Default:
        /// `[harness] isolation`.
        pub(crate) isolation: Option<Isolation>,
        /// Globs, relative to the project, of files the modification check
        /// leaves out.
        #[serde(default)]
        pub(crate) ignore: Vec<Glob>,
        /// `true`: run even when the project has uncommitted changes in its git
        /// work tree. Default: `[harness] allow_dirty`.
        pub(crate) allow_dirty: Option<bool>,
    }
}

/// The older spelling of `expected` in `golden_projects` entries.
pub(crate) const LEGACY_EXPECTED: &str = "expected_outcome";

/// `golden_projects` entries: golden projects that may spell `expected` as
/// `expected_outcome` (which wins when both are given).
pub(crate) fn legacy_golden<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Golden>, D::Error> {
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
pub(crate) fn legacy_golden_list(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut item = <Golden as schemars::JsonSchema>::json_schema(generator);
    let mut outcome = <ExpectedOutcome as schemars::JsonSchema>::json_schema(generator);
    outcome.insert(
        "description".into(),
        "Older spelling of `expected`; wins when both are given.".into(),
    );
    if let Some(Value::Object(props)) = item.get_mut("properties") {
        props.insert(LEGACY_EXPECTED.into(), outcome.to_value());
    }
    schemars::json_schema!({ "type": "array", "items": item })
}

/// A golden project: `path`, a command or the harness runner, isolation
/// and ignore globs.
pub(crate) fn fields(
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
/// given (`path` must lie inside it), else [`crate::config::default_working_dir`].
pub(crate) fn project_root(
    cx: &mut Ctx<'_>,
    h: &HarnessConfig,
    t: &Table<'_>,
    path: &Path,
) -> Option<PathBuf> {
    let Some((_, v)) = t.get("root") else {
        return Some(crate::config::default_working_dir(path));
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
pub(crate) fn ignore_globs(cx: &mut Ctx<'_>, t: &Table<'_>) -> Vec<String> {
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
