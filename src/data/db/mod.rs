//! Table outputs: the rows of a table (or view) of a database file or
//! server, or of a query run in it (`{ table = "main.orders", database = "duckdb:w.duckdb" }`),
//! read into the sinks file outputs are read into, so every rule of data
//! snapshots holds for them (key, ignore, tolerance, summary, masking).
//!
//! Each engine is one module behind one small interface ([`rows`]): it
//! opens the database read-only, runs the statement and pushes each cell
//! as the text a data snapshot writes (integers at any width exactly,
//! doubles in their shortest form, decimals with every digit, timestamps
//! as ISO 8601 UTC, NULL as null), with each column's type from the
//! engine where it has one. A column the engine types as DuckDB's
//! `DOUBLE` is a float, `DECIMAL(p,s)` a decimal, and so on; SQLite types
//! values, not columns, so a column is typed by the values it holds.
//!
//! A table output obeys the rule file outputs do: its database file must
//! change during the run ([`super::OutputsBefore`]), else it is not this
//! run's output; a server's table, its statistics ([`server_state`]). Its evidence hash is the sha256 of the rows as its
//! snapshot writes them (a database file holds other tables too).

use std::path::{Path, PathBuf};

use super::error::DataError;
use super::summary::Summary;
use super::{ColType, Masked, Masking, Sink};
use crate::config::{Database, TableRows, TableSource};

#[cfg(feature = "duckdb")]
mod duckdb;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "sqlite")]
mod sqlite;

/// The statement an engine runs for `rows`, with the columns of `ignore`
/// left out by the engine (or the reader, for SQLite).
#[cfg_attr(
    not(any(feature = "duckdb", feature = "postgres", feature = "sqlite")),
    allow(dead_code)
)]
pub(super) struct Select<'a> {
    pub(super) rows: &'a TableRows,
    pub(super) ignore: &'a [String],
}

#[cfg_attr(
    not(any(feature = "duckdb", feature = "postgres", feature = "sqlite")),
    allow(dead_code)
)]
impl Select<'_> {
    /// The `FROM` part: the table, each part of its name quoted, or the
    /// query as a subquery.
    fn from(&self) -> String {
        match self.rows {
            TableRows::Table(parts) => {
                let quoted: Vec<String> = parts.iter().map(|p| quote(p)).collect();
                quoted.join(".")
            }
            TableRows::Query(sql) => {
                let sql = sql.trim().trim_end_matches(';');
                // On a line of its own: a query may end in a `--` comment.
                format!("({sql}\n) AS golden_query")
            }
        }
    }
}

/// `name` as a quoted SQL identifier.
#[cfg_attr(
    not(any(feature = "duckdb", feature = "postgres", feature = "sqlite")),
    allow(dead_code)
)]
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// What an engine read: the columns kept (names, and types where the
/// engine gives them) and the sink it pushed the rows into.
pub(super) struct EngineRead<S> {
    pub(super) names: Vec<String>,
    pub(super) types: Option<Vec<ColType>>,
    pub(super) sink: S,
}

/// The database file of `source` under `working_dir`, there, inside it
/// and a regular file.
fn database_file(source: &TableSource, working_dir: &Path) -> Result<PathBuf, DataError> {
    let rel = source.database.file().unwrap_or_default();
    let file = working_dir.join(rel);
    if std::fs::symlink_metadata(&file).is_err() {
        return Err(DataError::NoDatabase(rel.to_string()));
    }
    // A link out of the working dir would have the harness open a
    // database of its own choosing.
    let file = crate::untrusted::confined(&file, working_dir, "the case's working directory")
        .map_err(DataError::Refused)?;
    // A FIFO or a device in its place would hang or feed the engine.
    crate::untrusted::open(&file).map_err(DataError::Refused)?;
    Ok(file)
}

/// The summary of the rows `source` names, computed by its engine in one
/// statement, where the engine can (DuckDB, Postgres); None where the rows are to
/// be summarised as they are read (SQLite, which has no hash function of
/// its own: it runs in this process either way).
pub(super) fn engine_summary(
    source: &TableSource,
    working_dir: &Path,
    ignore: &[String],
    mask: &mut Masking<'_>,
) -> Result<Option<Summary>, DataError> {
    let select = Select {
        rows: &source.rows,
        ignore,
    };
    let summary = match &source.database {
        Database::Duckdb(_) => {
            database_file(source, working_dir).and_then(|file| duckdb_summary(&file, &select, mask))
        }
        Database::Postgres(url) => postgres_summary(url, &select, mask),
        Database::Sqlite(_) => return Ok(None),
    };
    let mut summary = summary.map_err(|e| masked_error(mask, e))?;
    let mut names: Vec<String> = summary.columns.iter().map(|c| c.name.clone()).collect();
    mask.names(&mut names);
    for (c, name) in summary.columns.iter_mut().zip(names) {
        c.name = name;
    }
    Ok(Some(summary))
}

/// The engine's error `e` with the secret values it quotes masked: why a
/// table could not be read may quote a value (a constraint's text).
fn masked_error(mask: &mut Masking<'_>, e: DataError) -> DataError {
    let text = e.to_string();
    match mask.mask(&text) {
        std::borrow::Cow::Borrowed(_) => e,
        std::borrow::Cow::Owned(masked) => DataError::Masked(masked),
    }
}

/// Read the rows `source` names from its database under `working_dir`
/// into the sink `make` gives for their columns' names and (where the
/// engine knows them before the rows) types, each cell masked by `mask`
/// first.
pub(super) fn rows<S: Sink>(
    source: &TableSource,
    working_dir: &Path,
    ignore: &[String],
    mask: &mut Masking<'_>,
    make: impl FnOnce(&[String], Option<&[ColType]>) -> S,
) -> Result<EngineRead<S>, DataError> {
    let select = Select {
        rows: &source.rows,
        ignore,
    };
    let masked = |names: &[String], types: Option<&[ColType]>| Masked {
        inner: make(names, types),
        mask: &mut *mask,
    };
    let read =
        match &source.database {
            Database::Duckdb(_) => database_file(source, working_dir)
                .and_then(|file| duckdb_rows(&file, &select, masked)),
            Database::Sqlite(_) => database_file(source, working_dir)
                .and_then(|file| sqlite_rows(&file, &select, masked)),
            Database::Postgres(url) => postgres_rows(url, &select, masked),
        };
    let read = match read {
        Ok(read) => read,
        Err(e) => return Err(masked_error(mask, e)),
    };
    let EngineRead {
        mut names,
        types,
        sink,
    } = read;
    let sink = sink.inner;
    mask.names(&mut names);
    Ok(EngineRead { names, types, sink })
}

#[cfg(feature = "duckdb")]
use duckdb::{rows as duckdb_rows, summary as duckdb_summary};
#[cfg(feature = "postgres")]
use postgres::{rows as postgres_rows, summary as postgres_summary};
#[cfg(feature = "sqlite")]
use sqlite::rows as sqlite_rows;

/// What the server's own statistics say of the rows `source` names now
/// (a server keeps no file to stamp); None for a database file, or a
/// server that cannot be asked.
pub(super) fn server_state(source: &TableSource) -> Option<String> {
    match &source.database {
        #[cfg(feature = "postgres")]
        Database::Postgres(url) => postgres::state(url, &source.rows),
        _ => None,
    }
}

/// Built without the `postgres` feature, likewise.
#[cfg(not(feature = "postgres"))]
fn postgres_rows<S: Sink>(
    _url: &str,
    _select: &Select<'_>,
    _make: impl FnOnce(&[String], Option<&[ColType]>) -> S,
) -> Result<EngineRead<S>, DataError> {
    Err(DataError::EngineMissing("postgres"))
}

/// Built without the `postgres` feature, likewise.
#[cfg(not(feature = "postgres"))]
fn postgres_summary(
    _url: &str,
    _select: &Select<'_>,
    _mask: &mut Masking<'_>,
) -> Result<Summary, DataError> {
    Err(DataError::EngineMissing("postgres"))
}

/// Built without the `duckdb` feature: a DuckDB table output is one that
/// cannot be read, said so where the case's outputs are.
#[cfg(not(feature = "duckdb"))]
fn duckdb_rows<S: Sink>(
    _file: &Path,
    _select: &Select<'_>,
    _make: impl FnOnce(&[String], Option<&[ColType]>) -> S,
) -> Result<EngineRead<S>, DataError> {
    Err(DataError::EngineMissing("duckdb"))
}

/// Built without the `duckdb` feature, likewise.
#[cfg(not(feature = "duckdb"))]
fn duckdb_summary(
    _file: &Path,
    _select: &Select<'_>,
    _mask: &mut Masking<'_>,
) -> Result<Summary, DataError> {
    Err(DataError::EngineMissing("duckdb"))
}

/// Built without the `sqlite` feature, likewise.
#[cfg(not(feature = "sqlite"))]
fn sqlite_rows<S: Sink>(
    _file: &Path,
    _select: &Select<'_>,
    _make: impl FnOnce(&[String], Option<&[ColType]>) -> S,
) -> Result<EngineRead<S>, DataError> {
    Err(DataError::EngineMissing("sqlite"))
}
