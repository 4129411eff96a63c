//! DuckDB (`database = "duckdb:PATH"`), through the `duckdb` crate's
//! bundled engine, the file opened read-only.
//!
//! The columns and their types come first, from `DESCRIBE`: integers of
//! any width are `integer`, `FLOAT`/`DOUBLE` `float`, `DECIMAL(p,s)`
//! `decimal`, `BOOLEAN` `bool`, the rest `string` (timestamps and dates
//! in ISO 8601 UTC, every other type, lists, structs and maps too, as
//! DuckDB casts it to text: `[1, 2]`, `{'a': 1}`). What the reader cannot
//! take natively the statement casts, so every cell arrives as a value
//! the reader writes exactly.
//!
//! The engine is shut in: no extension is installed or loaded (that
//! would fetch code from the network), and no file but the database is
//! read (a view over `read_csv('/etc/passwd')` is an error, not data).

use std::path::Path;

use duckdb::types::{TimeUnit, ValueRef};

use super::{EngineRead, Select, quote};
use crate::data::error::DataError;
use crate::data::summary::{Column as SummaryColumn, Summary};
use crate::data::{ColType, Masking, Sink, num};

/// How a column is selected and typed.
struct Column {
    name: String,
    ty: ColType,
    /// The select-list expression.
    expr: String,
}

/// The column `name` of DuckDB type `ty`, as it is selected.
fn column(name: String, ty: &str) -> Column {
    let q = quote(&name);
    let ty = ty.to_ascii_uppercase();
    let native = |t: ColType| (t, q.clone());
    let (col_type, expr) = match ty.as_str() {
        "TINYINT" | "SMALLINT" | "INTEGER" | "BIGINT" | "UTINYINT" | "USMALLINT" | "UINTEGER"
        | "UBIGINT" => native(ColType::Integer),
        // Past 64 bits, DuckDB's own text is exact.
        "HUGEINT" | "UHUGEINT" => (ColType::Integer, format!("CAST({q} AS VARCHAR)")),
        "FLOAT" | "DOUBLE" => native(ColType::Float),
        "BOOLEAN" => native(ColType::Bool),
        "VARCHAR" | "DATE" => native(ColType::String),
        t if t.starts_with("DECIMAL") => native(ColType::Decimal),
        t if t.starts_with("TIMESTAMP") => native(ColType::String),
        _ => (ColType::String, format!("CAST({q} AS VARCHAR)")),
    };
    Column {
        name,
        ty: col_type,
        expr,
    }
}

/// Read `select`'s rows from the DuckDB file `file` into the sink `make`
/// gives.
pub(super) fn rows<S: Sink>(
    file: &Path,
    select: &Select<'_>,
    make: impl FnOnce(&[String], Option<&[ColType]>) -> S,
) -> Result<EngineRead<S>, DataError> {
    let conn = open(file)?;
    let from = select.from();
    let columns = describe(&conn, select, &from)?;
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let types: Vec<ColType> = columns.iter().map(|c| c.ty).collect();
    let mut sink = make(&names, Some(&types));
    if columns.is_empty() {
        return Ok(EngineRead {
            names,
            types: Some(types),
            sink,
        });
    }
    let exprs: Vec<&str> = columns.iter().map(|c| c.expr.as_str()).collect();
    let sql = format!("SELECT {} FROM {from}", exprs.join(", "));
    let mut stmt = conn.prepare(&sql).map_err(engine)?;
    let mut rows = stmt.query([]).map_err(engine)?;
    let mut scratch = String::new();
    while let Some(row) = rows.next().map_err(engine)? {
        for (c, column) in columns.iter().enumerate() {
            scratch.clear();
            let null = write_cell(&mut scratch, row.get_ref(c).map_err(engine)?, &column.name)?;
            sink.cell(if null { None } else { Some(scratch.as_str()) });
        }
        sink.end_row();
    }
    Ok(EngineRead {
        names,
        types: Some(types),
        sink,
    })
}

/// The DuckDB file `file`, opened read-only and shut in (no extension
/// loaded or installed, no other file read).
fn open(file: &Path) -> Result<duckdb::Connection, DataError> {
    let config = duckdb::Config::default()
        .access_mode(duckdb::AccessMode::ReadOnly)
        .and_then(|c| c.enable_autoload_extension(false))
        .and_then(|c| c.with("autoinstall_known_extensions", "false"))
        .and_then(|c| c.enable_external_access(false))
        .map_err(engine)?;
    duckdb::Connection::open_with_flags(file, config).map_err(engine)
}

/// The columns `select` keeps of the rows `from` names, with their types.
fn describe(
    conn: &duckdb::Connection,
    select: &Select<'_>,
    from: &str,
) -> Result<Vec<Column>, DataError> {
    let mut describe = conn
        .prepare(&format!("DESCRIBE SELECT * FROM {from}"))
        .map_err(engine)?;
    let found = describe
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .map_err(engine)?;
    let mut columns = Vec::new();
    for c in found {
        let (name, ty) = c.map_err(engine)?;
        if !select.ignore.contains(&name) {
            columns.push(column(name, &ty));
        }
    }
    Ok(columns)
}

/// The aggregates of one column in the summary statement, in order:
/// nulls, NaN, inf, -inf, min, max, sum, checksum.
const PER_COLUMN: usize = 8;

/// The select list of the summary statement's aggregates of `c`: counts
/// of nulls and of values that are not finite, min and max (of a float's
/// finite values; of a type read as text, of the text, but a HUGEINT's by
/// value), a sum (integers and decimals exact, a float's finite values by
/// `fsum`, whose result does not depend on the order rows come in, as
/// `sum`'s does on a large table), and the checksum: the sum mod 2^64 of
/// DuckDB's `hash` of each value that is not null.
fn aggregates(c: &Column) -> String {
    let q = quote(&c.name);
    let cast = |e: String| format!("CAST({e} AS VARCHAR)");
    let counts = if c.ty == ColType::Float {
        format!(
            "count(*) FILTER (WHERE isnan({q})), count(*) FILTER (WHERE {q} = 'inf'::DOUBLE), \
             count(*) FILTER (WHERE {q} = '-inf'::DOUBLE)"
        )
    } else {
        "0, 0, 0".to_string()
    };
    let (min, max, sum) = match c.ty {
        ColType::Float => (
            format!("min({q}) FILTER (WHERE isfinite({q}))"),
            format!("max({q}) FILTER (WHERE isfinite({q}))"),
            format!("fsum({q}) FILTER (WHERE isfinite({q}))"),
        ),
        ColType::Integer | ColType::Decimal => (
            cast(format!("min({q})")),
            cast(format!("max({q})")),
            cast(format!("sum({q})")),
        ),
        _ => (
            format!("min({})", c.expr),
            format!("max({})", c.expr),
            "CAST(NULL AS VARCHAR)".to_string(),
        ),
    };
    format!(
        "count(*) - count({q}), {counts}, {min}, {max}, {sum}, \
         CAST(COALESCE(sum(hash({q})) FILTER (WHERE {q} IS NOT NULL), 0) % 18446744073709551616 AS UBIGINT)"
    )
}

/// The summary of the rows `select` names in the DuckDB file `file`,
/// computed by DuckDB in one aggregate statement: no row leaves the
/// engine, and memory does not grow with the table. Its text figures
/// (min, max) are masked by `mask`.
pub(super) fn summary(
    file: &Path,
    select: &Select<'_>,
    mask: &mut Masking<'_>,
) -> Result<Summary, DataError> {
    let conn = open(file)?;
    let from = select.from();
    let columns = describe(&conn, select, &from)?;
    let version: String = conn
        .query_row("SELECT version()", [], |r| r.get(0))
        .map_err(engine)?;
    let mut list = vec!["count(*)".to_string()];
    list.extend(columns.iter().map(aggregates));
    let sql = format!("SELECT {} FROM {from}", list.join(", "));
    let mut stmt = conn.prepare(&sql).map_err(engine)?;
    let mut rows = stmt.query([]).map_err(engine)?;
    let row = rows
        .next()
        .map_err(engine)?
        .ok_or_else(|| DataError::Engine {
            engine: "duckdb",
            message: "the summary statement returned no row".into(),
        })?;
    let count = |i: usize| -> Result<u64, DataError> {
        let n: i64 = row.get(i).map_err(engine)?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let rows_n = count(0)?;
    let mut out = Vec::with_capacity(columns.len());
    for (k, c) in columns.iter().enumerate() {
        let at = 1 + k * PER_COLUMN;
        let mut text = |i: usize| -> Result<Option<String>, DataError> {
            let mut s = String::new();
            let null = write_cell(&mut s, row.get_ref(at + i).map_err(engine)?, &c.name)?;
            Ok((!null).then(|| mask.mask(&s).into_owned()))
        };
        let (min, max, sum) = (text(4)?, text(5)?, text(6)?);
        let checksum: u64 = row.get(at + 7).map_err(engine)?;
        out.push(SummaryColumn {
            name: c.name.clone(),
            ty: c.ty,
            nulls: count(at)?,
            not_finite: [count(at + 1)?, count(at + 2)?, count(at + 3)?],
            min,
            max,
            sum,
            checksum,
        });
    }
    Ok(Summary {
        rows: rows_n,
        columns: out,
        engine: Some(format!("duckdb {version}")),
    })
}

/// [`write`] of a value of the column `name`, its error naming the column.
fn write_cell(out: &mut String, value: ValueRef<'_>, name: &str) -> Result<bool, DataError> {
    write(out, value).map_err(|what| DataError::Engine {
        engine: "duckdb",
        message: format!("column `{name}`: {what}"),
    })
}

/// Write `value` into `out` as a data snapshot writes it; true for null,
/// Err for a value the statement should have cast to text.
fn write(out: &mut String, value: ValueRef<'_>) -> Result<bool, String> {
    use std::fmt::Write as _;
    let mut int = |i: i64| out.push_str(itoa::Buffer::new().format(i));
    match value {
        ValueRef::Null => return Ok(true),
        ValueRef::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
        ValueRef::TinyInt(v) => int(v.into()),
        ValueRef::SmallInt(v) => int(v.into()),
        ValueRef::Int(v) => int(v.into()),
        ValueRef::BigInt(v) => int(v),
        ValueRef::UTinyInt(v) => int(v.into()),
        ValueRef::USmallInt(v) => int(v.into()),
        ValueRef::UInt(v) => int(v.into()),
        ValueRef::UBigInt(v) => out.push_str(itoa::Buffer::new().format(v)),
        ValueRef::HugeInt(v) => out.push_str(itoa::Buffer::new().format(v)),
        ValueRef::Float(v) => num::push_f64(out, f64::from(v)),
        ValueRef::Double(v) => num::push_f64(out, v),
        ValueRef::Decimal(d) => {
            let _ = write!(out, "{d}");
        }
        ValueRef::Text(t) => out.push_str(&String::from_utf8_lossy(t)),
        ValueRef::Date32(days) => {
            let d = chrono::DateTime::from_timestamp(i64::from(days) * 86_400, 0)
                .ok_or("a date out of range")?;
            let _ = write!(out, "{}", d.format("%Y-%m-%d"));
        }
        ValueRef::Timestamp(unit, v) => {
            let t = match unit {
                TimeUnit::Second => chrono::DateTime::from_timestamp(v, 0),
                TimeUnit::Millisecond => chrono::DateTime::from_timestamp_millis(v),
                TimeUnit::Microsecond => chrono::DateTime::from_timestamp_micros(v),
                TimeUnit::Nanosecond => Some(chrono::DateTime::from_timestamp_nanos(v)),
            }
            .ok_or("a timestamp out of range")?;
            out.push_str(&t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true));
        }
        other => {
            return Err(format!(
                "a value of type {:?} was not cast to text",
                other.data_type()
            ));
        }
    }
    Ok(false)
}

/// DuckDB's error, as the engine words it.
fn engine(e: duckdb::Error) -> DataError {
    DataError::Engine {
        engine: "duckdb",
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TableRows;

    /// A DuckDB file in a temp dir holding `sql`'s tables.
    fn database(sql: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.duckdb");
        let conn = duckdb::Connection::open(&file).unwrap();
        conn.execute_batch(sql).unwrap();
        drop(conn);
        (dir, file)
    }

    fn summarise(file: &Path, table: &str) -> Summary {
        let rows = TableRows::Table(vec![table.to_string()]);
        let select = Select {
            rows: &rows,
            ignore: &[],
        };
        let redactor = crate::redact::Redactor::new(Vec::<(String, Vec<u8>)>::new());
        summary(file, &select, &mut Masking::new(&redactor)).unwrap()
    }

    /// Doubles whose plain `sum()` depends on the order DuckDB's threads
    /// add them in: the summary's figures are the same on every run.
    #[test]
    fn an_engine_summary_is_the_same_on_every_run_of_the_same_data() {
        let (_dir, file) = database(
            "SELECT setseed(0.5);
             CREATE TABLE t AS SELECT range AS id, random() * 1e12 - 5e11 AS x, \
             'v' || (range % 977) AS s FROM range(600000);",
        );
        let first = summarise(&file, "t");
        for _ in 0..2 {
            assert_eq!(summarise(&file, "t"), first);
        }
        assert_eq!(first.rows, 600_000);
        let id = &first.columns[0];
        assert_eq!(
            (id.min.as_deref(), id.max.as_deref()),
            (Some("0"), Some("599999"))
        );
        assert_eq!(id.sum.as_deref(), Some("179999700000"));
        assert!(
            first
                .engine
                .as_deref()
                .is_some_and(|e| e.starts_with("duckdb v"))
        );
    }

    /// NaN and the infinities are counted, not aggregated; nulls counted;
    /// a changed value anywhere changes the checksum.
    #[test]
    fn an_engine_summary_counts_what_is_not_finite_and_sees_one_changed_value() {
        let (_dir, file) = database(
            "CREATE TABLE t (x DOUBLE, n BIGINT);
             INSERT INTO t VALUES (1.5, 1), ('nan', 2), ('inf', NULL), ('-inf', 4), (NULL, 5);",
        );
        let s = summarise(&file, "t");
        let x = &s.columns[0];
        assert_eq!((x.nulls, x.not_finite), (1, [1, 1, 1]));
        assert_eq!(
            (x.min.as_deref(), x.sum.as_deref()),
            (Some("1.5"), Some("1.5"))
        );
        assert_eq!(
            (s.columns[1].nulls, s.columns[1].sum.as_deref()),
            (1, Some("12"))
        );
        let conn = duckdb::Connection::open(&file).unwrap();
        conn.execute_batch("UPDATE t SET n = 3 WHERE n = 2; UPDATE t SET n = 2 WHERE n = 1;")
            .unwrap();
        drop(conn);
        let after = summarise(&file, "t");
        // 1,2 became 2,3: min and sum moved, and the checksum with them.
        assert_ne!(after.columns[1].checksum, s.columns[1].checksum);
        assert_eq!(after.columns[0], s.columns[0]);
    }
}
