//! A case's `result`: a machine-readable result file the command writes
//! (JUnit, Odibi, dbt), judged and kept as evidence.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::check::{Ctx, keys_of};
use crate::config::spelling;
use crate::config::tree::Node;

/// A machine-readable result the command writes: its failures fail the
/// case whatever the exit code, and the file is kept beside the logs,
/// under the evidence hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct ResultFile {
    /// What the result is.
    pub(crate) format: ResultFormat,
    /// The file, relative to the case's working dir (under `copy`, in the
    /// copy). `junit`: the XML file; `odibi-validate`: the JSON file
    /// (default: stdout); `odibi-story`: a directory, whose newest `*.json`
    /// story is read; `dbt`: its `run_results.json` (default:
    /// `target/run_results.json`).
    #[cfg_attr(feature = "schema", schemars(example = &"target/junit.xml"))]
    pub(crate) path: Option<String>,
    /// Let a result that ran nothing (a JUnit report of no test case or
    /// only skipped ones, an Odibi story of no node) pass a case that
    /// expects success; by default it is `NOTHING_RAN`.
    pub(crate) allow_empty: Option<bool>,
}

/// The format of a case's `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ResultFormat {
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
    pub(crate) fn as_str(self) -> &'static str {
        spelling::name_of(&self)
    }
}

/// The help of a `result` with no `format`: ``add `format = "junit"`,
/// `"odibi-validate"`, … or `"dbt"` ``.
fn format_help() -> String {
    let quoted: Vec<String> = spelling::variants::<ResultFormat>()
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

impl Ctx<'_> {
    /// A case's `result = { format, path }`.
    pub(crate) fn result(&mut self, node: &Node) -> Option<crate::config::ResultSpec> {
        let t = self.table(node, "`result`", &keys_of("result"))?;
        let path = t
            .get("path")
            .and_then(|(_, v)| self.expanded(v, "result.path"))
            .map(PathBuf::from);
        let Some((_, f)) = t.get("format") else {
            self.err(
                node.pos,
                "`result` has no `format`".into(),
                Some(format_help()),
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
        Some(crate::config::ResultSpec {
            format,
            path,
            allow_empty,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::diagnose;

    #[test]
    fn formats_are_spelled_as_serde_spells_them() {
        assert_eq!(ResultFormat::OdibiStory.as_str(), "odibi-story");
        let (_, errors) = diagnose("{ format = \"xunit\", path = \"x\" }", |cx, n| cx.result(n));
        assert_eq!(
            errors,
            [
                "1:16: `result.format` must be \"junit\", \"odibi-validate\", \"odibi-story\" or \"dbt\", found \"xunit\""
            ]
        );
        assert_eq!(
            format_help(),
            "add `format = \"junit\"`, `\"odibi-validate\"`, `\"odibi-story\"` or `\"dbt\"`"
        );
    }

    #[test]
    fn dbt_results_have_a_default_path() {
        let (spec, errors) = diagnose("{ format = \"dbt\" }", |cx, n| cx.result(n));
        assert!(errors.is_empty(), "{errors:?}");
        let path = spec.and_then(|s| s.path);
        assert_eq!(path, Some(PathBuf::from("target/run_results.json")));
        let (_, errors) = diagnose("{ format = \"junit\" }", |cx, n| cx.result(n));
        assert_eq!(errors, ["1:5: `result` of format \"junit\" has no `path`"]);
    }
}
