//! PostgreSQL (`database = "postgres://USER@HOST:PORT/DB"`), and servers
//! that speak its protocol, through the `postgres` crate, in a read-only
//! transaction. The password, when the server asks for one, comes only
//! from the harness's environment (`PGPASSWORD`), never from the URL.
//!
//! Columns are typed by the server: `int2`/`int4`/`int8` `integer`,
//! `float4`/`float8` `float`, `numeric` `decimal` (its own text, every
//! digit), `bool` `bool`, text types and the rest `string` (`timestamptz`
//! and `timestamp` as ISO 8601 UTC, `date` as `2026-02-03`, every other
//! type as the server casts it to text). Rows are streamed, never held.
//!
//! What was written this run is what the server's statistics say: the
//! table's `pg_stat_user_tables` row (its oid and its counts of rows
//! inserted, updated and deleted; of a query, those of every table) before
//! the command and after.

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator as _;
use postgres::types::Type;

use super::{EngineRead, Select, quote};
use crate::config::TableRows;
use crate::data::error::DataError;
use crate::data::summary::{Column as SummaryColumn, Summary};
use crate::data::{ColType, Masking, Sink, num};

/// How a column is read.
#[derive(Clone, Copy)]
enum Read {
    I16,
    I32,
    I64,
    F32,
    F64,
    Bool,
    Text,
    At,
    Naive,
    Date,
}

/// A column as it is selected, typed and read.
struct Column {
    name: String,
    ty: ColType,
    read: Read,
    /// The select-list expression.
    expr: String,
}

/// The session settings every value's text depends on, the same on every
/// server and client: timestamps in UTC and ISO, floats in their shortest
/// exact form.
const SESSION: &str = "SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'; \
                       SET LOCAL IntervalStyle = 'postgres'; SET LOCAL extra_float_digits = 1; \
                       SET LOCAL bytea_output = 'hex'";

/// A connection to the server `url`, its password from `PGPASSWORD`.
fn connect(url: &str) -> Result<postgres::Client, DataError> {
    let mut config: postgres::Config = url.parse().map_err(engine)?;
    config.connect_timeout(Duration::from_secs(10));
    if let Some(password) = std::env::var_os("PGPASSWORD") {
        config.password(password.to_string_lossy().as_bytes());
    }
    config.connect(postgres::NoTls).map_err(engine)
}

/// The column `name` of server type `ty`, as it is selected.
fn column(name: &str, ty: &Type) -> Column {
    let q = quote(name);
    let (ty, read, expr) = match *ty {
        Type::INT2 => (ColType::Integer, Read::I16, q),
        Type::INT4 => (ColType::Integer, Read::I32, q),
        Type::INT8 => (ColType::Integer, Read::I64, q),
        Type::FLOAT4 => (ColType::Float, Read::F32, q),
        Type::FLOAT8 => (ColType::Float, Read::F64, q),
        Type::BOOL => (ColType::Bool, Read::Bool, q),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => (ColType::String, Read::Text, q),
        Type::TIMESTAMPTZ => (ColType::String, Read::At, q),
        Type::TIMESTAMP => (ColType::String, Read::Naive, q),
        Type::DATE => (ColType::String, Read::Date, q),
        // Every digit, as the server writes it.
        Type::NUMERIC => (ColType::Decimal, Read::Text, format!("{q}::text")),
        _ => (ColType::String, Read::Text, format!("{q}::text")),
    };
    Column {
        name: name.to_string(),
        ty,
        read,
        expr,
    }
}

/// A read-only transaction on the server `url`, its session settings
/// made [`SESSION`]'s, and the columns of `select` it would return.
fn begin<'c>(
    client: &'c mut postgres::Client,
    select: &Select<'_>,
) -> Result<(postgres::Transaction<'c>, Vec<Column>), DataError> {
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .start()
        .map_err(engine)?;
    tx.batch_execute(SESSION).map_err(engine)?;
    let described = tx
        .prepare(&format!("SELECT * FROM {}", select.from()))
        .map_err(engine)?;
    let columns = described
        .columns()
        .iter()
        .filter(|c| !select.ignore.iter().any(|i| i == c.name()))
        .map(|c| column(c.name(), c.type_()))
        .collect();
    Ok((tx, columns))
}

/// Read `select`'s rows from the server `url` into the sink `make`
/// gives, streamed: no more than a row is held.
pub(super) fn rows<S: Sink>(
    url: &str,
    select: &Select<'_>,
    make: impl FnOnce(&[String], Option<&[ColType]>) -> S,
) -> Result<EngineRead<S>, DataError> {
    let mut client = connect(url)?;
    let (mut tx, columns) = begin(&mut client, select)?;
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let types: Vec<ColType> = columns.iter().map(|c| c.ty).collect();
    let mut sink = make(&names, Some(&types));
    if !columns.is_empty() {
        let exprs: Vec<&str> = columns.iter().map(|c| c.expr.as_str()).collect();
        let sql = format!("SELECT {} FROM {}", exprs.join(", "), select.from());
        let mut found = tx
            .query_raw(&sql, std::iter::empty::<&str>())
            .map_err(engine)?;
        let mut scratch = String::new();
        while let Some(row) = found.next().map_err(engine)? {
            for (c, column) in columns.iter().enumerate() {
                scratch.clear();
                let null = write(&mut scratch, &row, c, column.read).map_err(engine)?;
                sink.cell(if null { None } else { Some(scratch.as_str()) });
            }
            sink.end_row();
        }
    }
    tx.rollback().map_err(engine)?;
    Ok(EngineRead {
        names,
        types: Some(types),
        sink,
    })
}

/// The aggregates of one column in the summary statement, in order:
/// nulls, NaN, inf, -inf, min, max, sum, checksum.
const PER_COLUMN: usize = 8;

/// The select list of the summary statement's aggregates of `c`, each
/// the same on every run of the same data however the server splits the
/// work: counts of nulls and of values that are not finite; min and max
/// (of a float's finite values; of text by its bytes, `COLLATE "C"`,
/// whatever the database's locale; a boolean's by `bool_and`/`bool_or`);
/// a sum (integers and numerics exact; a float's finite values summed as
/// `numeric`, exactly, so in any order); and the checksum, the sum mod
/// 2^64 of `hashtextextended` of each value's text (exact in `numeric`).
fn aggregates(c: &Column) -> String {
    let q = quote(&c.name);
    let finite = format!("{q} > '-Infinity'::float8 AND {q} < 'Infinity'::float8");
    let counts = if c.ty == ColType::Float {
        // The server orders NaN above every number, and NaN = NaN.
        format!(
            "count(*) FILTER (WHERE {q} = 'NaN'::float8), \
             count(*) FILTER (WHERE {q} = 'Infinity'::float8), \
             count(*) FILTER (WHERE {q} = '-Infinity'::float8)"
        )
    } else {
        "0::int8, 0::int8, 0::int8".to_string()
    };
    let (min, max, sum) = match (c.ty, c.read) {
        (ColType::Float, _) => (
            format!("min({q}) FILTER (WHERE {finite})"),
            format!("max({q}) FILTER (WHERE {finite})"),
            format!("(sum({q}::numeric) FILTER (WHERE {finite}))::float8"),
        ),
        (ColType::Integer | ColType::Decimal, _) => (
            format!("min({q})"),
            format!("max({q})"),
            format!("sum({q})::text"),
        ),
        (ColType::Bool, _) => (
            format!("bool_and({q})"),
            format!("bool_or({q})"),
            "NULL::text".to_string(),
        ),
        (_, Read::Text) => (
            format!("min({q}::text COLLATE \"C\")"),
            format!("max({q}::text COLLATE \"C\")"),
            "NULL::text".to_string(),
        ),
        _ => (
            format!("min({q})"),
            format!("max({q})"),
            "NULL::text".to_string(),
        ),
    };
    let (min, max) = if c.ty == ColType::Decimal {
        (format!("{min}::text"), format!("{max}::text"))
    } else {
        (min, max)
    };
    format!(
        "count(*) - count({q}), {counts}, {min}, {max}, {sum}, \
         ((coalesce(sum(hashtextextended({q}::text, 0)::numeric), 0) % 18446744073709551616 \
         + 18446744073709551616) % 18446744073709551616)::text"
    )
}

/// How the min and max of `c` come back from [`aggregates`].
fn extreme_read(c: &Column) -> Read {
    match c.ty {
        ColType::Decimal => Read::Text,
        _ => c.read,
    }
}

/// The summary of the rows `select` names on the server `url`, computed
/// by the server in one aggregate statement: no row leaves it, and the
/// harness's memory does not grow with the table. Its text figures (min,
/// max) are masked by `mask`.
pub(super) fn summary(
    url: &str,
    select: &Select<'_>,
    mask: &mut Masking<'_>,
) -> Result<Summary, DataError> {
    let mut client = connect(url)?;
    let (mut tx, columns) = begin(&mut client, select)?;
    let version: String = tx
        .query_one("SELECT current_setting('server_version')", &[])
        .and_then(|r| r.try_get(0))
        .map_err(engine)?;
    let mut list = vec!["count(*)".to_string()];
    list.extend(columns.iter().map(aggregates));
    let sql = format!("SELECT {} FROM {}", list.join(", "), select.from());
    let row = tx.query_one(&sql, &[]).map_err(engine)?;
    let count = |i: usize| -> Result<u64, DataError> {
        let n: i64 = row.try_get(i).map_err(engine)?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let mut out = Vec::with_capacity(columns.len());
    for (k, c) in columns.iter().enumerate() {
        let at = 1 + k * PER_COLUMN;
        let mut text = |i: usize, read: Read| -> Result<Option<String>, DataError> {
            let mut s = String::new();
            let null = write(&mut s, &row, at + i, read).map_err(engine)?;
            Ok((!null).then(|| mask.mask(&s).into_owned()))
        };
        let sum_read = if c.ty == ColType::Float {
            Read::F64
        } else {
            Read::Text
        };
        let (min, max) = (text(4, extreme_read(c))?, text(5, extreme_read(c))?);
        let sum = text(6, sum_read)?;
        let checksum: &str = row.try_get(at + 7).map_err(engine)?;
        out.push(SummaryColumn {
            name: c.name.clone(),
            ty: c.ty,
            nulls: count(at)?,
            not_finite: [count(at + 1)?, count(at + 2)?, count(at + 3)?],
            min,
            max,
            sum,
            checksum: checksum.parse().unwrap_or(0),
        });
    }
    tx.rollback().map_err(engine)?;
    let version = version.split_whitespace().next().unwrap_or_default();
    Ok(Summary {
        rows: count(0)?,
        columns: out,
        engine: Some(format!("postgres {version}")),
    })
}

/// Write the cell `c` of `row`, read as `read`, into `out`; true for null.
fn write(
    out: &mut String,
    row: &postgres::Row,
    c: usize,
    read: Read,
) -> Result<bool, postgres::Error> {
    fn put<T: std::fmt::Display>(out: &mut String, v: Option<T>) -> bool {
        use std::fmt::Write as _;
        match v {
            Some(v) => {
                let _ = write!(out, "{v}");
                false
            }
            None => true,
        }
    }
    let float = |out: &mut String, v: Option<f64>| match v {
        Some(f) => {
            num::push_f64(out, f);
            false
        }
        None => true,
    };
    Ok(match read {
        Read::I16 => put(out, row.try_get::<_, Option<i16>>(c)?),
        Read::I32 => put(out, row.try_get::<_, Option<i32>>(c)?),
        Read::I64 => put(out, row.try_get::<_, Option<i64>>(c)?),
        Read::F32 => float(out, row.try_get::<_, Option<f32>>(c)?.map(f64::from)),
        Read::F64 => float(out, row.try_get::<_, Option<f64>>(c)?),
        Read::Bool => put(out, row.try_get::<_, Option<bool>>(c)?),
        Read::Text => match row.try_get::<_, Option<&str>>(c)? {
            Some(t) => {
                out.push_str(t);
                false
            }
            None => true,
        },
        Read::At => put(
            out,
            row.try_get::<_, Option<chrono::DateTime<chrono::Utc>>>(c)?
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        ),
        Read::Naive => put(
            out,
            row.try_get::<_, Option<chrono::NaiveDateTime>>(c)?
                .map(|t| {
                    t.and_utc()
                        .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
                }),
        ),
        Read::Date => put(
            out,
            row.try_get::<_, Option<chrono::NaiveDate>>(c)?
                .map(|d| d.format("%Y-%m-%d").to_string()),
        ),
    })
}

/// What the server's statistics say of `rows` now: of a table its oid
/// and its counts of rows inserted, updated and deleted (`absent` when
/// there is no such table), of a query those of every table; None when
/// the server cannot be asked.
pub(super) fn state(url: &str, rows: &TableRows) -> Option<String> {
    let mut client = connect(url).ok()?;
    let counts = "relid::text || ':' || n_tup_ins || ':' || n_tup_upd || ':' || n_tup_del";
    let row = match rows {
        TableRows::Table(parts) => {
            let name: Vec<String> = parts.iter().map(|p| quote(p)).collect();
            client
                .query_one(
                    &format!(
                        "SELECT coalesce((SELECT {counts} FROM pg_stat_user_tables \
                         WHERE relid = to_regclass($1)), 'absent')"
                    ),
                    &[&name.join(".")],
                )
                .ok()?
        }
        TableRows::Query(_) => client
            .query_one(
                &format!(
                    "SELECT coalesce(string_agg({counts}, ',' ORDER BY relid), '') \
                     FROM pg_stat_user_tables"
                ),
                &[],
            )
            .ok()?,
    };
    row.try_get::<_, String>(0).ok()
}

/// The server's error, as it words it (or the client's, with its
/// cause: `invalid configuration: password missing`).
fn engine(e: postgres::Error) -> DataError {
    let mut message = match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => e.to_string(),
    };
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        if e.as_db_error().is_none() {
            message = format!("{message}: {c}");
        }
        cause = c.source();
    }
    if message.contains("password missing") {
        message.push_str(" (the server asks for one: give it in PGPASSWORD)");
    }
    DataError::Engine {
        engine: "postgres",
        message,
    }
}
