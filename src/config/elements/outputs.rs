//! A case's `outputs`: data files (CSV, JSON, JSONL, Parquet, Delta
//! tables) compared with data snapshots, with their key, ignored columns,
//! tolerance, format and mode.

use serde::{Deserialize, Serialize};

use crate::config::OutputSpec;
use crate::config::check::{Ctx, Table, keys_of};
use crate::config::tree::{Node, Pos, Value};
use crate::model::DataFormat;

/// A data file a case writes, compared with its data snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct DataOutput {
    /// The file, relative to the case's working dir (under `copy`, in the
    /// copy); a glob matches several, each compared on its own. Its
    /// extension says the format: `.csv` (a header row), `.json` (an array
    /// of objects), `.jsonl` (an object per line) or `.parquet`; a Delta
    /// table is a directory, with `format = "delta"`.
    #[cfg_attr(feature = "schema", schemars(example = &"out/sales.csv"))]
    pub(crate) path: String,
    /// Columns that identify a row: rows are matched by them and numbers
    /// compared within `tolerance`. Without a key, rows are matched whole.
    /// Not with `mode = "summary"`, which keeps no rows.
    #[serde(default)]
    pub(crate) key: Vec<String>,
    /// Columns left out of the snapshot and the comparison (load times,
    /// run ids).
    #[serde(default)]
    pub(crate) ignore: Vec<String>,
    /// How far a number may move: `|now - snapshot| <= abs + rel * |snapshot|`.
    /// Default: exact.
    pub(crate) tolerance: Option<Tolerance>,
    /// `"delta"`: `path` is a Delta table, a directory with `_delta_log/`,
    /// read at its current version (the `add` and `remove` actions of its
    /// JSON commits replayed, then every live Parquet file read). Default:
    /// the extension of `path` says the format.
    pub(crate) format: Option<DataOutputFormat>,
    /// `"rows"` (default): the snapshot holds every row. `"summary"`, for
    /// outputs too large to snapshot whole: it holds the row count and,
    /// per column, its type, null count, min, max, sum (numbers) and a
    /// checksum of its values.
    pub(crate) mode: Option<DataOutputMode>,
}

/// What a data snapshot holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum DataOutputMode {
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
pub(crate) enum DataOutputFormat {
    /// A Delta table directory.
    Delta,
}

/// The numeric tolerance of a data output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct Tolerance {
    /// Absolute difference allowed. Default: 0.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) abs: f64,
    /// Difference allowed relative to the snapshot's value. Default: 0.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 0)))]
    pub(crate) rel: f64,
}

/// Column names, each with where it is written.
type Columns = Vec<(String, Pos)>;

impl Ctx<'_> {
    /// A case's `outputs`: data files compared with data snapshots.
    pub(crate) fn outputs(&mut self, node: &Node) -> Vec<OutputSpec> {
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

    fn output(&mut self, node: &Node) -> Option<OutputSpec> {
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
        let format = self.output_format(&t, p, &path)?;
        if let Err(e) = globset::Glob::new(&path) {
            self.err(
                p.pos,
                format!("`outputs.path` is not a valid glob: {e}"),
                None,
            );
            return None;
        }
        let (key, ignore) = self.output_columns(&t);
        let mode = match t.get("mode") {
            Some((_, m)) => self.spelled(m, "outputs.mode", None)?,
            None => DataOutputMode::Rows,
        };
        if mode == DataOutputMode::Summary
            && let Some((_, pos)) = key.first()
        {
            self.err(
                *pos,
                "`key` matches rows, which `mode = \"summary\"` does not keep".into(),
                Some("remove `key`, or leave `mode` out to snapshot every row".into()),
            );
        }
        let (abs, rel) = self.tolerance(&t)?;
        Some(OutputSpec {
            path,
            key: key.into_iter().map(|(k, _)| k).collect(),
            ignore: ignore.into_iter().map(|(k, _)| k).collect(),
            abs,
            rel,
            format,
            mode,
        })
    }

    /// The format of the output at `path` (the node `p`): `format`, else
    /// the extension of `path`.
    fn output_format(&mut self, t: &Table<'_>, p: &Node, path: &str) -> Option<DataFormat> {
        if let Some((_, f)) = t.get("format") {
            let format: DataOutputFormat = self.spelled(
                f,
                "outputs.format",
                Some("leave it out for a file: its extension says the format"),
            )?;
            return Some(match format {
                DataOutputFormat::Delta => DataFormat::Delta,
            });
        }
        let format = DataFormat::of(path);
        if format.is_none() {
            self.err(
                p.pos,
                format!("`outputs.path` \"{path}\" must end in .csv, .json, .jsonl or .parquet"),
                Some(
                    "the extension says how the file is read; for a Delta table (a directory) add `format = \"delta\"`"
                        .into(),
                ),
            );
        }
        format
    }

    /// The `key` and `ignore` columns; a column in both is an error.
    fn output_columns(&mut self, t: &Table<'_>) -> (Columns, Columns) {
        let mut columns = |key: &str| {
            t.get(key)
                .map(|(_, v)| self.strings(v, &format!("outputs.{key}")))
                .unwrap_or_default()
        };
        let key = columns("key");
        let ignore = columns("ignore");
        for (k, pos) in &key {
            if ignore.iter().any(|(i, _)| i == k) {
                self.err(
                    *pos,
                    format!("column `{k}` is both a `key` and ignored"),
                    Some("a key column identifies rows: remove it from `ignore`".into()),
                );
            }
        }
        (key, ignore)
    }

    /// `tolerance = { abs, rel }`, each 0 by default; None when it is
    /// not a table or a bound is not a number ≥ 0.
    fn tolerance(&mut self, t: &Table<'_>) -> Option<(f64, f64)> {
        let (mut abs, mut rel) = (0.0, 0.0);
        if let Some((_, tol)) = t.get("tolerance") {
            let tt = self.table(tol, "`outputs.tolerance`", &keys_of("tolerance"))?;
            for (name, slot) in [("abs", &mut abs), ("rel", &mut rel)] {
                if let Some((_, v)) = tt.get(name) {
                    *slot = self.non_negative(v, &format!("outputs.tolerance.{name}"))?;
                }
            }
        }
        Some((abs, rel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::diagnose;

    #[test]
    fn modes_and_formats_are_spelled_as_serde_spells_them() {
        let (_, errors) = diagnose("[{ path = \"a.csv\", mode = \"sum\" }]", |cx, n| {
            cx.outputs(n)
        });
        assert_eq!(
            errors,
            ["1:31: `outputs.mode` must be \"rows\" or \"summary\", found \"sum\""]
        );
        let (_, errors) = diagnose("[{ path = \"t\", format = \"delt\" }]", |cx, n| {
            cx.outputs(n)
        });
        assert_eq!(
            errors,
            ["1:29: `outputs.format` must be \"delta\", found \"delt\""]
        );
        let (out, errors) = diagnose(
            "[{ path = \"t\", format = \"delta\", mode = \"summary\" }]",
            |cx, n| cx.outputs(n),
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            (out[0].format, out[0].mode),
            (DataFormat::Delta, DataOutputMode::Summary)
        );
    }

    #[test]
    fn a_summary_keeps_no_key_and_tolerances_are_not_negative() {
        let text =
            "[{ path = \"a.csv\", mode = \"summary\", key = [\"k\"], tolerance = { abs = -1 } }]";
        let (out, errors) = diagnose(text, |cx, n| cx.outputs(n));
        assert!(out.is_empty());
        assert_eq!(
            errors,
            [
                "1:49: `key` matches rows, which `mode = \"summary\"` does not keep",
                "1:75: `outputs.tolerance.abs` must be a number ≥ 0, found -1",
            ]
        );
    }
}
