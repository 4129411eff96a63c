//! A case's `outputs`: data files (CSV, JSON, JSONL, Parquet, Delta
//! tables), and tables and queries of a database, compared with data
//! snapshots, with their key, ignored columns, tolerance, format and mode.

use serde::{Deserialize, Serialize};

use std::path::Path;

use crate::config::check::{Ctx, Table, keys_of};
use crate::config::tree::{Node, Pos, Value};
use crate::config::{Database, DbtModel, OutputSpec, TableRows, TableSource};
use crate::model::DataFormat;

/// A data file a case writes, or a table or query of a database it
/// writes to, compared with its data snapshot. Exactly one of `path`,
/// `table`, `query` and `model`.
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
    pub(crate) path: Option<String>,
    /// A table (or view) of `database`, `TABLE`, `SCHEMA.TABLE` or
    /// `CATALOG.SCHEMA.TABLE`: every
    /// row of it is the output. Its snapshot is named by it.
    #[cfg_attr(feature = "schema", schemars(example = &"main.order_totals"))]
    pub(crate) table: Option<String>,
    /// A query run in `database`: the rows it returns are the output. Its
    /// snapshot is named `query-` and the first 8 hex digits of the
    /// query's sha256, so a changed query is a new snapshot.
    #[cfg_attr(
        feature = "schema",
        schemars(example = &"SELECT region, sum(total) AS total FROM orders GROUP BY region")
    )]
    pub(crate) query: Option<String>,
    /// A dbt model of the case's dbt project, by name: its table (or
    /// view) as this run's `target/manifest.json` names it, in the
    /// database of the profile and target dbt ran with (`database`
    /// overrides it). Only a model this run built (in this run's
    /// `target/run_results.json`, `success`) is compared.
    #[cfg_attr(feature = "schema", schemars(example = &"order_totals"))]
    pub(crate) model: Option<String>,
    /// The database of `table` or `query` (or of `model`, in place of dbt's
    /// profile): `duckdb:PATH` (a DuckDB file) or `sqlite:PATH` (an SQLite
    /// file), PATH relative to the case's working dir (under `copy`, in the
    /// copy), or `postgres://USER@HOST:PORT/DB` (a server; a password only
    /// in `PGPASSWORD`). The file, or the server's statistics of the
    /// table, must change during the run, as a file output must be
    /// written by it.
    #[cfg_attr(feature = "schema", schemars(example = &"duckdb:warehouse.duckdb"))]
    pub(crate) database: Option<String>,
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

/// Where an output's rows come from.
enum Source {
    File,
    Table(TableSource),
    Model(DbtModel),
}

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
        let (path, source, format) = self.output_source(node, &t)?;
        let (table, model) = match source {
            Source::File => (None, None),
            Source::Table(t) => (Some(t), None),
            Source::Model(m) => (None, Some(m)),
        };
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
            table,
            model,
            key: key.into_iter().map(|(k, _)| k).collect(),
            ignore: ignore.into_iter().map(|(k, _)| k).collect(),
            abs,
            rel,
            format,
            mode,
        })
    }

    /// What the entry `t` (the node `node`) reads: a file (`path`, its
    /// format), or a table or query of a `database` (named in reports as
    /// the table, or `query-` and 8 hex digits of the query's sha256).
    fn output_source(
        &mut self,
        node: &Node,
        t: &Table<'_>,
    ) -> Option<(String, Source, DataFormat)> {
        let named: Vec<(&str, &Node)> = ["path", "table", "query", "model"]
            .into_iter()
            .filter_map(|k| t.get(k).map(|(_, n)| (k, *n)))
            .collect();
        let (what, n) = match named.as_slice() {
            [] => {
                self.err(
                    node.pos,
                    "an `outputs` entry has no `path`, `table`, `query` or `model`".into(),
                    Some(
                        "add `path = \"…\"` (a file, relative to the case's working dir), or \
                         `table = \"…\"` with `database = \"duckdb:…\"`"
                            .into(),
                    ),
                );
                return None;
            }
            [one] => *one,
            [(first, _), (second, n), ..] => {
                self.err(
                    n.pos,
                    format!("an `outputs` entry names both `{first}` and `{second}`"),
                    Some("each entry is one output: give each its own entry".into()),
                );
                return None;
            }
        };
        let database = t.get("database").map(|(_, d)| d);
        if what == "path" {
            return self.file_source(t, n, database);
        }
        if let Some((_, f)) = t.get("format") {
            self.err(
                f.pos,
                format!("`format` is the format of a file `path`, not of a `{what}`"),
                Some("remove it: the database's engine gives each column its type".into()),
            );
            return None;
        }
        if what == "model" {
            let name = self.string(n, "outputs.model")?;
            self.table_name(n, &name, "outputs.model", 1)?;
            let database = match database {
                Some(d) => Some(self.database(d)?),
                None => None,
            };
            return Some((
                name.clone(),
                Source::Model(DbtModel { name, database }),
                DataFormat::Csv,
            ));
        }
        self.table_source(node, n, what, database)
    }

    /// A `path` output (the node `n` of the entry `t`): its format, a
    /// valid glob, and no `database`.
    fn file_source(
        &mut self,
        t: &Table<'_>,
        n: &Node,
        database: Option<&&Node>,
    ) -> Option<(String, Source, DataFormat)> {
        if let Some(d) = database {
            self.err(
                d.pos,
                "`database` is where a `table` or `query` is read from, not a `path`".into(),
                Some("remove it, or write `table = \"…\"` in place of `path`".into()),
            );
            return None;
        }
        let path = self.expanded(n, "outputs.path")?;
        let format = self.output_format(t, n, &path)?;
        if let Err(e) = globset::Glob::new(&path) {
            self.err(
                n.pos,
                format!("`outputs.path` is not a valid glob: {e}"),
                None,
            );
            return None;
        }
        Some((path, Source::File, format))
    }

    /// A `table` or `query` output (`what`, the node `n` of the entry
    /// `node`) and its `database`, which it must have.
    fn table_source(
        &mut self,
        node: &Node,
        n: &Node,
        what: &str,
        database: Option<&&Node>,
    ) -> Option<(String, Source, DataFormat)> {
        let Some(d) = database else {
            self.err(
                node.pos,
                format!("an `outputs` entry with a `{what}` has no `database`"),
                Some(
                    "add `database = \"duckdb:PATH\"` or `\"sqlite:PATH\"`, PATH relative to \
                     the case's working dir"
                        .into(),
                ),
            );
            return None;
        };
        let database = self.database(d)?;
        let text = self.string(n, &format!("outputs.{what}"))?;
        let (name, rows) = if what == "table" {
            let parts = self.table_name(n, &text, "outputs.table", 3)?;
            (text, TableRows::Table(parts))
        } else {
            if text.trim().is_empty() {
                self.err(n.pos, "`outputs.query` is empty".into(), None);
                return None;
            }
            let sha = crate::hash::sha256_hex(text.as_bytes());
            (format!("query-{}", &sha[..8]), TableRows::Query(text))
        };
        Some((
            name,
            Source::Table(TableSource { database, rows }),
            DataFormat::Csv,
        ))
    }

    /// `database = URL`: `duckdb:PATH` or `sqlite:PATH`, PATH relative
    /// and inside the case's working dir.
    fn database(&mut self, node: &Node) -> Option<Database> {
        let url = self.expanded(node, "outputs.database")?;
        let (engine, file) = url.split_once(':').unwrap_or(("", ""));
        let make: fn(String) -> Database = match engine {
            "duckdb" => Database::Duckdb,
            "sqlite" => Database::Sqlite,
            "postgres" | "postgresql" => return self.postgres_url(node, &url),
            _ => {
                self.err(
                    node.pos,
                    format!(
                        "`outputs.database` \"{url}\" is not a `duckdb:`, `sqlite:` or \
                         `postgres://` URL"
                    ),
                    Some(
                        "write `duckdb:PATH` or `sqlite:PATH`, PATH relative to the case's \
                         working dir, or `postgres://USER@HOST:PORT/DB`"
                            .into(),
                    ),
                );
                return None;
            }
        };
        let path = Path::new(file);
        let escapes = path.components().any(|c| {
            !matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
        if file.is_empty() || escapes {
            self.err(
                node.pos,
                format!(
                    "`outputs.database` \"{url}\" must name a file inside the case's working dir"
                ),
                Some(format!(
                    "write `{engine}:PATH`, PATH relative to the working dir (under `copy`, the copy), with no `..`"
                )),
            );
            return None;
        }
        Some(make(file.to_string()))
    }

    /// `database = "postgres://USER@HOST:PORT/DB"` (at `node`): a server,
    /// never with a password in it (it would be kept in the harness file,
    /// the reports and the evidence).
    fn postgres_url(&mut self, node: &Node, url: &str) -> Option<Database> {
        let rest = url.split_once("://").map_or("", |(_, r)| r);
        let userinfo = rest.split_once('@').map(|(u, _)| u);
        if userinfo.is_some_and(|u| u.contains(':')) || url.contains("password=") {
            self.err(
                node.pos,
                "`outputs.database` holds a password".into(),
                Some(
                    "write `postgres://USER@HOST:PORT/DB` and give the password in the \
                     PGPASSWORD environment variable"
                        .into(),
                ),
            );
            return None;
        }
        if rest.is_empty() || !rest.contains('/') {
            self.err(
                node.pos,
                format!("`outputs.database` \"{url}\" names no server and database"),
                Some("write `postgres://USER@HOST:PORT/DB`".into()),
            );
            return None;
        }
        Some(Database::Postgres(url.to_string()))
    }

    /// The parts of the name `text` of the key `what` (at `node`): at most
    /// `most` of them (`CATALOG.SCHEMA.TABLE`), each letters, digits, `_`
    /// or `$`.
    fn table_name(
        &mut self,
        node: &Node,
        text: &str,
        what: &str,
        most: usize,
    ) -> Option<Vec<String>> {
        let parts: Vec<String> = text.split('.').map(str::to_string).collect();
        let plain = |p: &String| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        };
        if parts.len() > most || !parts.iter().all(plain) {
            let help = if most == 1 {
                "write the model's name as dbt knows it (`order_totals`), with no schema"
            } else {
                "write `TABLE`, `SCHEMA.TABLE` or `CATALOG.SCHEMA.TABLE` (letters, digits, `_`); \
                 for anything else write a `query`"
            };
            self.err(
                node.pos,
                format!("`{what}` \"{text}\" is not a table name"),
                Some(help.into()),
            );
            return None;
        }
        Some(parts)
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
