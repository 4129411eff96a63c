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
use crate::data::{ColType, Sink, num};

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
    let config = duckdb::Config::default()
        .access_mode(duckdb::AccessMode::ReadOnly)
        .and_then(|c| c.enable_autoload_extension(false))
        .and_then(|c| c.with("autoinstall_known_extensions", "false"))
        .and_then(|c| c.enable_external_access(false))
        .map_err(engine)?;
    let conn = duckdb::Connection::open_with_flags(file, config).map_err(engine)?;
    let from = select.from();
    let columns: Vec<Column> = {
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
        columns
    };
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
            let value = row.get_ref(c).map_err(engine)?;
            scratch.clear();
            let null = write(&mut scratch, value).map_err(|what| DataError::Engine {
                engine: "duckdb",
                message: format!("column `{}`: {what}", column.name),
            })?;
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
