//! SQLite (`database = "sqlite:PATH"`), through the bundled SQLite of
//! `rusqlite`, the file opened read-only.
//!
//! SQLite types values, not columns (a column declared `REAL` may hold
//! text), so each column's type is that of the values it holds: integers
//! only, `integer`; integers and reals, `float`; any text or blob,
//! `string` (a blob as `x'…'` hex); none, `null`.

use std::path::Path;

use rusqlite::types::ValueRef;

use super::{EngineRead, Select};
use crate::data::error::DataError;
use crate::data::{ColType, Sink, num};

/// The storage classes seen in one column.
#[derive(Clone, Copy, Default)]
struct Seen {
    int: bool,
    real: bool,
    text: bool,
}

impl Seen {
    fn col_type(self) -> ColType {
        match (self.text, self.real, self.int) {
            (true, _, _) => ColType::String,
            (false, true, _) => ColType::Float,
            (false, false, true) => ColType::Integer,
            (false, false, false) => ColType::Null,
        }
    }
}

/// Read `select`'s rows from the SQLite file `file` into the sink `make`
/// gives.
pub(super) fn rows<S: Sink>(
    file: &Path,
    select: &Select<'_>,
    make: impl FnOnce(&[String], Option<&[ColType]>) -> S,
) -> Result<EngineRead<S>, DataError> {
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = rusqlite::Connection::open_with_flags(file, flags).map_err(engine)?;
    let sql = format!("SELECT * FROM {}", select.from());
    let mut stmt = conn.prepare(&sql).map_err(engine)?;
    let all: Vec<String> = stmt.column_names().map(String::from).collect();
    let kept: Vec<usize> = (0..all.len())
        .filter(|&i| !select.ignore.contains(&all[i]))
        .collect();
    let names: Vec<String> = kept.iter().map(|&i| all[i].clone()).collect();
    let mut sink = make(&names, None);
    let mut seen = vec![Seen::default(); kept.len()];
    let mut scratch = String::new();
    let mut rows = stmt.query([]).map_err(engine)?;
    while let Some(row) = rows.next().map_err(engine)? {
        for (c, &i) in kept.iter().enumerate() {
            let value = row.get_ref(i).map_err(engine)?;
            scratch.clear();
            let cell = match value {
                ValueRef::Null => None,
                ValueRef::Integer(v) => {
                    seen[c].int = true;
                    scratch.push_str(itoa::Buffer::new().format(v));
                    Some(scratch.as_str())
                }
                ValueRef::Real(v) => {
                    seen[c].real = true;
                    num::push_f64(&mut scratch, v);
                    Some(scratch.as_str())
                }
                ValueRef::Text(t) => {
                    seen[c].text = true;
                    scratch.push_str(&String::from_utf8_lossy(t));
                    Some(scratch.as_str())
                }
                ValueRef::Blob(b) => {
                    seen[c].text = true;
                    scratch.push_str("x'");
                    for byte in b {
                        scratch.push_str(&format!("{byte:02x}"));
                    }
                    scratch.push('\'');
                    Some(scratch.as_str())
                }
            };
            sink.cell(cell);
        }
        sink.end_row();
    }
    Ok(EngineRead {
        names,
        types: Some(seen.into_iter().map(Seen::col_type).collect()),
        sink,
    })
}

/// SQLite's error, as the engine words it.
fn engine(e: rusqlite::Error) -> DataError {
    DataError::Engine {
        engine: "sqlite",
        message: e.to_string(),
    }
}
