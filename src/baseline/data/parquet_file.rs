//! A Parquet file as a typed table, read row by row with the `parquet`
//! crate (no Arrow): top-level columns in the file's schema order.

use ::parquet::basic::{ConvertedType, LogicalType, TimeUnit, TimestampType, Type as Physical};
use ::parquet::column::reader::{ColumnReaderImpl, get_typed_column_reader};
use ::parquet::data_type::DataType;
use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::Field;
use ::parquet::schema::types::{ColumnDescriptor, Type};

use super::{Cells, ColType, Typed};

/// The table in the Parquet file `bytes`: read a column at a time when
/// every column is a flat one of a kind [`Flat`] knows, else row by row.
/// Both give the same text for the same values.
pub(super) fn read(bytes: Vec<u8>) -> Result<Typed, String> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))
        .map_err(|e| format!("not Parquet: {e}"))?;
    let descr = reader.metadata().file_metadata().schema_descr_ptr();
    let fields = descr.root_schema().get_fields().to_vec();
    let names: Vec<String> = fields.iter().map(|f| f.name().to_string()).collect();
    let types: Vec<ColType> = fields.iter().map(|f| col_type(f)).collect();
    let nanos: Vec<bool> = fields.iter().map(|f| nano_timestamp(f)).collect();
    let flat: Option<Vec<Flat>> = (descr.num_columns() == fields.len())
        .then(|| {
            (0..fields.len())
                .map(|i| Flat::of(&descr.column(i), nanos[i]))
                .collect()
        })
        .flatten();
    let mut table = Typed {
        columns: names.iter().map(|_| Cells::default()).collect(),
        names,
        types: Some(types),
        rows: 0,
    };
    match flat {
        Some(kinds) => read_columns(&reader, &kinds, &mut table)?,
        None => {
            read_rows(&reader, &nanos, &mut table)?;
            reread_int96(&reader, &mut table)?;
        }
    }
    Ok(table)
}

/// Read again, with the column reader, every top-level INT96 column of a
/// file read row by row: the record API reads INT96 timestamps (Spark's
/// default) at milliseconds, and they hold nanoseconds.
fn reread_int96(
    reader: &SerializedFileReader<bytes::Bytes>,
    table: &mut Typed,
) -> Result<(), String> {
    let descr = reader.metadata().file_metadata().schema_descr_ptr();
    for leaf in 0..descr.num_columns() {
        let column = descr.column(leaf);
        if column.path().parts().len() != 1 || column.physical_type() != Physical::INT96 {
            continue;
        }
        let Some(i) = table.names.iter().position(|n| n == column.name()) else {
            continue;
        };
        let mut one = Typed {
            names: vec![table.names[i].clone()],
            types: None,
            columns: vec![Cells::default()],
            rows: 0,
        };
        read_leaves(reader, &[(leaf, Flat::Int96)], &mut one)?;
        table.columns[i] = one.columns.swap_remove(0);
    }
    Ok(())
}

/// Every row of the Parquet file `bytes` as a JSON value (the record
/// API's own rendering): what a Delta checkpoint's actions are read as.
pub(super) fn json_rows(bytes: Vec<u8>) -> Result<Vec<serde_json::Value>, String> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))
        .map_err(|e| format!("not Parquet: {e}"))?;
    let rows = reader
        .get_row_iter(None)
        .map_err(|e| format!("cannot read its rows: {e}"))?;
    rows.map(|row| {
        row.map(|r| r.to_json_value())
            .map_err(|e| format!("cannot read a row: {e}"))
    })
    .collect()
}

/// Row by row, with the `parquet` crate's record API.
fn read_rows(
    reader: &SerializedFileReader<bytes::Bytes>,
    nanos: &[bool],
    table: &mut Typed,
) -> Result<(), String> {
    let iter = reader
        .get_row_iter(None)
        .map_err(|e| format!("cannot read its rows: {e}"))?;
    for row in iter {
        let row = row.map_err(|e| format!("cannot read a row: {e}"))?;
        let mut cells: Vec<Option<String>> = vec![None; table.names.len()];
        for (i, (name, field)) in row.get_column_iter().enumerate() {
            // The row's columns follow the schema; look up by name if not.
            let i = if table.names.get(i) == Some(name) {
                i
            } else {
                match table.names.iter().position(|n| n == name) {
                    Some(i) => i,
                    None => continue,
                }
            };
            cells[i] = cell(field, nanos[i]);
        }
        table.push_row(cells.iter().map(Option::as_deref));
    }
    Ok(())
}

/// A flat column the column reader handles, by how its values read as
/// text: the same text [`cell`] gives the record API's field.
#[derive(Clone, Copy)]
enum Flat {
    Bool,
    /// INT32 as signed integers of 8, 16 or 32 bits, or unsigned.
    Int32 {
        bits: u8,
        unsigned: bool,
    },
    /// INT32 days since the epoch.
    Date,
    /// INT64, as signed or unsigned.
    Int64 {
        unsigned: bool,
    },
    /// INT64 since the epoch in this unit.
    Timestamp(TimeUnitKind),
    Float,
    Double,
    /// BYTE_ARRAY holding UTF-8 text.
    Utf8,
    /// BYTE_ARRAY of bytes: UTF-8 when it is, else hex.
    Bytes,
    /// INT96 nanoseconds since the epoch (Spark's timestamps).
    Int96,
}

#[derive(Clone, Copy)]
enum TimeUnitKind {
    Millis,
    Micros,
    Nanos,
}

impl Flat {
    /// How the column `c` reads, or None for a kind it does not know
    /// (decimals, times, fixed-length, nested).
    fn of(c: &ColumnDescriptor, nanos: bool) -> Option<Flat> {
        if c.max_rep_level() > 0 || c.max_def_level() > 1 {
            return None;
        }
        let converted = c.converted_type();
        Some(match (c.physical_type(), converted) {
            (Physical::BOOLEAN, ConvertedType::NONE) => Flat::Bool,
            (Physical::INT32, ConvertedType::NONE | ConvertedType::INT_32) => Flat::Int32 {
                bits: 32,
                unsigned: false,
            },
            (Physical::INT32, ConvertedType::INT_8) => Flat::Int32 {
                bits: 8,
                unsigned: false,
            },
            (Physical::INT32, ConvertedType::INT_16) => Flat::Int32 {
                bits: 16,
                unsigned: false,
            },
            (Physical::INT32, ConvertedType::UINT_8) => Flat::Int32 {
                bits: 8,
                unsigned: true,
            },
            (Physical::INT32, ConvertedType::UINT_16) => Flat::Int32 {
                bits: 16,
                unsigned: true,
            },
            (Physical::INT32, ConvertedType::UINT_32) => Flat::Int32 {
                bits: 32,
                unsigned: true,
            },
            (Physical::INT32, ConvertedType::DATE) => Flat::Date,
            (Physical::INT64, ConvertedType::NONE) if nanos => Flat::Timestamp(TimeUnitKind::Nanos),
            (Physical::INT64, ConvertedType::NONE | ConvertedType::INT_64) => {
                Flat::Int64 { unsigned: false }
            }
            (Physical::INT64, ConvertedType::UINT_64) => Flat::Int64 { unsigned: true },
            (Physical::INT64, ConvertedType::TIMESTAMP_MILLIS) => {
                Flat::Timestamp(TimeUnitKind::Millis)
            }
            (Physical::INT64, ConvertedType::TIMESTAMP_MICROS) => {
                Flat::Timestamp(TimeUnitKind::Micros)
            }
            (Physical::FLOAT, ConvertedType::NONE) => Flat::Float,
            (Physical::DOUBLE, ConvertedType::NONE) => Flat::Double,
            (
                Physical::BYTE_ARRAY,
                ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON,
            ) => Flat::Utf8,
            (Physical::BYTE_ARRAY, ConvertedType::NONE | ConvertedType::BSON) => Flat::Bytes,
            (Physical::INT96, _) => Flat::Int96,
            _ => return None,
        })
    }
}

/// Records read from a column at once.
const BATCH: usize = 64 * 1024;

/// Every column of every row group, with the typed column readers.
fn read_columns(
    reader: &SerializedFileReader<bytes::Bytes>,
    kinds: &[Flat],
    table: &mut Typed,
) -> Result<(), String> {
    let leaves: Vec<(usize, Flat)> = kinds.iter().copied().enumerate().collect();
    read_leaves(reader, &leaves, table)
}

/// The leaf columns `leaves` (index in the file, kind) of every row group
/// into the columns of `table`, one each in order.
fn read_leaves(
    reader: &SerializedFileReader<bytes::Bytes>,
    leaves: &[(usize, Flat)],
    table: &mut Typed,
) -> Result<(), String> {
    use ::parquet::data_type::{
        BoolType, ByteArrayType, DoubleType, FloatType, Int32Type, Int64Type, Int96Type,
    };
    use std::fmt::Write;
    let bad = |e: ::parquet::errors::ParquetError| format!("cannot read a column: {e}");
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).map_err(bad)?;
        let rows = usize::try_from(group.metadata().num_rows()).unwrap_or(0);
        for (k, &(i, kind)) in leaves.iter().enumerate() {
            let column = group.get_column_reader(i).map_err(bad)?;
            let required = group.metadata().column(i).column_descr().max_def_level() == 0;
            let cells = &mut table.columns[k];
            macro_rules! each {
                ($ty:ty, |$cells:ident, $v:ident| $write:expr) => {{
                    let mut reader = get_typed_column_reader::<$ty>(column);
                    read_values(&mut reader, required, rows, cells, |$cells, $v| $write)
                        .map_err(bad)?
                }};
            }
            match kind {
                Flat::Int96 => each!(Int96Type, |c, v| c.push(
                    iso(Some(chrono::DateTime::from_timestamp_nanos(v.to_nanos()))).as_deref()
                )),
                Flat::Bool => each!(BoolType, |c, v| c.push(Some(if *v {
                    "true"
                } else {
                    "false"
                }))),
                Flat::Int32 { bits, unsigned } => each!(Int32Type, |c, v| c.push_with(|t| {
                    let _ = match (bits, unsigned) {
                        (8, false) => write!(t, "{}", *v as i8),
                        (16, false) => write!(t, "{}", *v as i16),
                        (8, true) => write!(t, "{}", *v as u8),
                        (16, true) => write!(t, "{}", *v as u16),
                        (_, true) => write!(t, "{}", *v as u32),
                        _ => write!(t, "{v}"),
                    };
                })),
                Flat::Date => each!(Int32Type, |c, v| c.push_with(|t| {
                    if let Some(d) = chrono::DateTime::from_timestamp(i64::from(*v) * 86_400, 0) {
                        let _ = write!(t, "{}", d.format("%Y-%m-%d"));
                    }
                })),
                Flat::Int64 { unsigned } => each!(Int64Type, |c, v| c.push_with(|t| {
                    let _ = if unsigned {
                        write!(t, "{}", *v as u64)
                    } else {
                        write!(t, "{v}")
                    };
                })),
                Flat::Timestamp(unit) => each!(Int64Type, |c, v| c.push(
                    iso(match unit {
                        TimeUnitKind::Millis => chrono::DateTime::from_timestamp_millis(*v),
                        TimeUnitKind::Micros => chrono::DateTime::from_timestamp_micros(*v),
                        TimeUnitKind::Nanos => Some(chrono::DateTime::from_timestamp_nanos(*v)),
                    })
                    .as_deref()
                )),
                Flat::Float => each!(FloatType, |c, v| c.push_with(|t| {
                    let _ = write!(t, "{v}");
                })),
                Flat::Double => each!(DoubleType, |c, v| c.push_with(|t| {
                    let _ = write!(t, "{v}");
                })),
                Flat::Utf8 => each!(ByteArrayType, |c, v| c
                    .push(Some(&String::from_utf8_lossy(v.data())))),
                Flat::Bytes => each!(ByteArrayType, |c, v| c.push_with(|t| {
                    match std::str::from_utf8(v.data()) {
                        Ok(s) => t.push_str(s),
                        Err(_) => {
                            for x in v.data() {
                                let _ = write!(t, "{x:02x}");
                            }
                        }
                    }
                })),
            }
        }
        table.rows += rows;
        if let Some(short) = table.columns.iter().find(|c| c.len() != table.rows) {
            return Err(format!(
                "cannot read a column: row group {g} holds {rows} rows, a column {}",
                short.len() + rows - table.rows
            ));
        }
    }
    Ok(())
}

/// Read `rows` records of a flat column into `cells`: a value present
/// (its definition level at the maximum, or the column required) through
/// `push`, else null.
fn read_values<T: DataType>(
    reader: &mut ColumnReaderImpl<T>,
    required: bool,
    rows: usize,
    cells: &mut Cells,
    push: impl Fn(&mut Cells, &T::T),
) -> ::parquet::errors::Result<()> {
    let mut defs: Vec<i16> = Vec::with_capacity(BATCH);
    let mut values: Vec<T::T> = Vec::with_capacity(BATCH);
    let mut left = rows;
    while left > 0 {
        defs.clear();
        values.clear();
        let (records, _, _) = reader.read_records(
            BATCH.min(left),
            (!required).then_some(&mut defs),
            None,
            &mut values,
        )?;
        if records == 0 {
            break;
        }
        left -= records;
        if required {
            for v in &values {
                push(cells, v);
            }
        } else {
            let mut v = values.iter();
            for d in &defs[..records] {
                match (*d > 0).then(|| v.next()).flatten() {
                    Some(value) => push(cells, value),
                    None => cells.push(None),
                }
            }
        }
    }
    Ok(())
}

/// The column type of a top-level schema field.
fn col_type(field: &Type) -> ColType {
    if !field.is_primitive() {
        return ColType::String;
    }
    let info = field.get_basic_info();
    let temporal = matches!(
        info.logical_type_ref(),
        Some(LogicalType::Date | LogicalType::Time { .. } | LogicalType::Timestamp { .. })
    ) || matches!(
        info.converted_type(),
        ConvertedType::DATE
            | ConvertedType::TIME_MILLIS
            | ConvertedType::TIME_MICROS
            | ConvertedType::TIMESTAMP_MILLIS
            | ConvertedType::TIMESTAMP_MICROS
    );
    let decimal = matches!(info.logical_type_ref(), Some(LogicalType::Decimal { .. }))
        || info.converted_type() == ConvertedType::DECIMAL;
    let float16 = matches!(info.logical_type_ref(), Some(LogicalType::Float16));
    match field.get_physical_type() {
        _ if decimal => ColType::Decimal,
        _ if float16 => ColType::Float,
        _ if temporal => ColType::String,
        Physical::BOOLEAN => ColType::Bool,
        Physical::INT32 | Physical::INT64 => ColType::Integer,
        Physical::FLOAT | Physical::DOUBLE => ColType::Float,
        Physical::INT96 | Physical::BYTE_ARRAY | Physical::FIXED_LEN_BYTE_ARRAY => ColType::String,
    }
}

/// Whether a field is a nanosecond timestamp, which the row API reads as a
/// plain integer.
fn nano_timestamp(field: &Type) -> bool {
    field.is_primitive()
        && matches!(
            field.get_basic_info().logical_type_ref(),
            Some(LogicalType::Timestamp(TimestampType {
                unit: TimeUnit::NANOS,
                ..
            }))
        )
}

/// A timestamp in ISO 8601 (UTC).
fn iso(t: Option<chrono::DateTime<chrono::Utc>>) -> Option<String> {
    t.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}

/// A value as snapshot text: numbers in their shortest form, dates and
/// timestamps in ISO 8601; None for null only (an empty string is one).
fn cell(field: &Field, nanos: bool) -> Option<String> {
    use chrono::DateTime;
    let text = match field {
        Field::Null => return None,
        Field::Bool(b) => b.to_string(),
        Field::Byte(v) => v.to_string(),
        Field::Short(v) => v.to_string(),
        Field::Int(v) => v.to_string(),
        Field::Long(v) if nanos => return iso(Some(DateTime::from_timestamp_nanos(*v))),
        Field::Long(v) => v.to_string(),
        Field::UByte(v) => v.to_string(),
        Field::UShort(v) => v.to_string(),
        Field::UInt(v) => v.to_string(),
        Field::ULong(v) => v.to_string(),
        Field::Float16(v) => v.to_string(),
        Field::Float(v) => v.to_string(),
        Field::Double(v) => v.to_string(),
        Field::Str(s) => s.clone(),
        Field::Bytes(b) => match std::str::from_utf8(b.data()) {
            Ok(s) => s.to_string(),
            Err(_) => b.data().iter().map(|x| format!("{x:02x}")).collect(),
        },
        Field::TimestampMillis(v) => return iso(DateTime::from_timestamp_millis(*v)),
        Field::TimestampMicros(v) => return iso(DateTime::from_timestamp_micros(*v)),
        // Decimals, dates, times; lists, maps and groups as Parquet shows them.
        other => other.to_string(),
    };
    Some(text)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ::parquet::data_type::{
        BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type,
    };
    use ::parquet::file::properties::WriterProperties;
    use ::parquet::file::writer::SerializedFileWriter;
    use ::parquet::schema::parser::parse_message_type;

    use super::*;

    /// A file of every flat kind, nulls included, in two row groups.
    fn flat_file() -> Vec<u8> {
        let schema = Arc::new(
            parse_message_type(
                "message m {
                    required int64 id;
                    optional binary name (UTF8);
                    optional binary raw;
                    optional double x;
                    optional int32 day (DATE);
                    optional int64 at (TIMESTAMP_MILLIS);
                    optional int32 small (INT_8);
                    optional int32 count (UINT_32);
                    optional boolean ok;
                }",
            )
            .unwrap(),
        );
        let mut out = Vec::new();
        let props = Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(&mut out, schema, props).unwrap();
        for group in 0..2i64 {
            let mut g = writer.next_row_group().unwrap();
            let defs = [1i16, 0, 1];
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<Int64Type>()
                .write_batch(&[group * 3, group * 3 + 1, group * 3 + 2], None, None)
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<ByteArrayType>()
                .write_batch(
                    &[ByteArray::from("Wést"), ByteArray::from("")],
                    Some(&defs),
                    None,
                )
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<ByteArrayType>()
                .write_batch(
                    &[ByteArray::from(vec![0xffu8, 0]), ByteArray::from("ok")],
                    Some(&defs),
                    None,
                )
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<DoubleType>()
                .write_batch(&[84.97, 1e21], Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<Int32Type>()
                .write_batch(&[20454, -1], Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<Int64Type>()
                .write_batch(&[1_767_261_600_123, 0], Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<Int32Type>()
                .write_batch(&[-7, 100], Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<Int32Type>()
                .write_batch(&[-1, 5], Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            let mut col = g.next_column().unwrap().unwrap();
            col.typed::<BoolType>()
                .write_batch(&[true, false], Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            g.close().unwrap();
        }
        writer.close().unwrap();
        out
    }

    fn cells(t: &Typed) -> Vec<Vec<Option<String>>> {
        (0..t.rows)
            .map(|r| {
                t.columns
                    .iter()
                    .map(|c| c.get(r).map(str::to_string))
                    .collect()
            })
            .collect()
    }

    /// The column reader gives every cell the text the record API gives.
    #[test]
    fn columns_read_as_the_record_api_reads_rows() {
        let file = bytes::Bytes::from(flat_file());
        let reader = SerializedFileReader::new(file.clone()).unwrap();
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        let kinds: Vec<Flat> = (0..descr.num_columns())
            .map(|i| Flat::of(&descr.column(i), false).expect("a flat kind"))
            .collect();
        let empty = |t: &Typed| Typed {
            names: t.names.clone(),
            types: None,
            columns: t.columns.iter().map(|_| Cells::default()).collect(),
            rows: 0,
        };
        let by_columns = read(file.to_vec()).unwrap();
        let mut by_rows = empty(&by_columns);
        read_rows(&reader, &vec![false; kinds.len()], &mut by_rows).unwrap();
        assert_eq!(by_columns.rows, 6);
        assert_eq!(cells(&by_columns), cells(&by_rows));
        let first: Vec<Option<&str>> = (0..9).map(|c| by_columns.columns[c].get(0)).collect();
        assert_eq!(
            first,
            [
                Some("0"),
                Some("Wést"),
                Some("ff00"),
                Some("84.97"),
                Some("2026-01-01"),
                Some("2026-01-01T10:00:00.123Z"),
                Some("-7"),
                Some("4294967295"),
                Some("true")
            ]
        );
        assert!(
            (0..9)
                .skip(1)
                .all(|c| by_columns.columns[c].get(1).is_none())
        );
    }
}
