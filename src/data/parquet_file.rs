//! A Parquet file as a typed table, read row by row with the `parquet`
//! crate (no Arrow): top-level columns in the file's schema order.

use ::parquet::basic::{ConvertedType, LogicalType, TimeUnit, TimestampType, Type as Physical};
use ::parquet::column::reader::{ColumnReaderImpl, get_typed_column_reader};
use ::parquet::data_type::DataType;
use ::parquet::file::reader::{ChunkReader, FileReader, RowGroupReader, SerializedFileReader};
use ::parquet::record::Field;
use ::parquet::schema::types::{ColumnDescriptor, Type};

use super::error::DataError;
use super::{Cells, ColType};

/// An open Parquet file, read a row group at a time: a column at a time
/// when every column is a flat one of a kind [`Flat`] knows, else row by
/// row. Both give the same text for the same values.
pub(super) struct ParquetFile<R: ChunkReader> {
    reader: SerializedFileReader<R>,
    /// Its top-level columns, in the file's schema order, and their types.
    pub(crate) names: Vec<String>,
    pub(crate) types: Vec<ColType>,
    /// How each column reads with the column reader; None: row by row.
    flat: Option<Vec<Flat>>,
    /// Which columns are nanosecond timestamps.
    nanos: Vec<bool>,
}

/// Takes each batch a row group is read in: its cells and its row count.
pub(super) type Emit<'a> = dyn FnMut(&[Cells], usize) -> Result<(), DataError> + 'a;

/// The Parquet file at `path`, opened through the guarded reader (a FIFO
/// or a device in its place is refused) and read as it is needed.
pub(super) fn open(path: &std::path::Path) -> Result<ParquetFile<std::fs::File>, DataError> {
    let (file, _) = crate::untrusted::open(path).map_err(DataError::Unreadable)?;
    ParquetFile::new(file)
}

impl<R: ChunkReader + 'static> ParquetFile<R> {
    pub(super) fn new(chunk: R) -> Result<ParquetFile<R>, DataError> {
        let reader = SerializedFileReader::new(chunk).map_err(DataError::NotParquet)?;
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        let fields = descr.root_schema().get_fields().to_vec();
        let nanos: Vec<bool> = fields.iter().map(|f| nano_timestamp(f)).collect();
        let flat: Option<Vec<Flat>> = (descr.num_columns() == fields.len())
            .then(|| {
                (0..fields.len())
                    .map(|i| Flat::of(&descr.column(i), nanos[i]))
                    .collect()
            })
            .flatten();
        Ok(ParquetFile {
            names: fields.iter().map(|f| f.name().to_string()).collect(),
            types: fields.iter().map(|f| col_type(f)).collect(),
            reader,
            flat,
            nanos,
        })
    }

    /// Whether it is read a column at a time (every column a flat one of
    /// a kind [`Flat`] knows), so a row group may be read in parts.
    pub(super) fn by_columns(&self) -> bool {
        self.flat.is_some()
    }

    pub(super) fn row_groups(&self) -> usize {
        self.reader.num_row_groups()
    }

    /// The rows of row group `g`.
    pub(super) fn rows_in(&self, g: usize) -> usize {
        usize::try_from(self.reader.metadata().row_group(g).num_rows()).unwrap_or(0)
    }

    /// The rows of the file.
    pub(super) fn rows(&self) -> usize {
        (0..self.row_groups()).map(|g| self.rows_in(g)).sum()
    }

    /// Read row group `g` into `cells` (one per column, each cleared
    /// first) a batch of at most [`BATCH`] rows at a time, calling `emit`
    /// with each batch's row count: the rows `part` of it (a file read a
    /// column at a time, [`ParquetFile::by_columns`], may be read a part
    /// at a time; a file read row by row is read a whole row group, one
    /// batch).
    pub(super) fn read_group(
        &self,
        g: usize,
        part: std::ops::Range<usize>,
        cells: &mut [Cells],
        emit: &mut Emit<'_>,
    ) -> Result<(), DataError> {
        let bad = DataError::Column;
        let group = self.reader.get_row_group(g).map_err(bad)?;
        let rows = self.rows_in(g);
        let Some(kinds) = &self.flat else {
            if part != (0..rows) {
                return Err(DataError::GroupReadWhole { group: g, part });
            }
            cells.iter_mut().for_each(Cells::clear);
            read_rows(group.as_ref(), &self.names, &self.nanos, cells)?;
            reread_int96(group.as_ref(), &self.names, cells)?;
            return emit(cells, rows);
        };
        let mut readers = kinds
            .iter()
            .enumerate()
            .map(|(i, kind)| {
                let required = group.metadata().column(i).column_descr().max_def_level() == 0;
                Ok((
                    Column::new(group.get_column_reader(i).map_err(bad)?, *kind),
                    required,
                ))
            })
            .collect::<Result<Vec<_>, DataError>>()?;
        let short = |got: usize| DataError::ColumnShort {
            group: g,
            rows,
            got,
        };
        if part.start > 0 {
            for (reader, _) in &mut readers {
                let skipped = reader.skip(part.start).map_err(bad)?;
                if skipped != part.start {
                    return Err(short(skipped));
                }
            }
        }
        let mut left = part.end.min(rows).saturating_sub(part.start);
        while left > 0 {
            let n = BATCH.min(left);
            for ((reader, required), cells) in readers.iter_mut().zip(cells.iter_mut()) {
                cells.clear();
                let got = reader.read(*required, n, cells).map_err(bad)?;
                if got != n {
                    return Err(short(part.end - left + got));
                }
            }
            emit(cells, n)?;
            left -= n;
        }
        Ok(())
    }
}

/// The whole file `bytes` as one table, read as [`ParquetFile`] reads it.
#[cfg(test)]
pub(super) fn read(bytes: Vec<u8>) -> Result<super::Typed, DataError> {
    let file = ParquetFile::new(bytes::Bytes::from(bytes))?;
    let mut table = super::Typed {
        columns: file.names.iter().map(|_| Cells::default()).collect(),
        names: file.names.clone(),
        types: Some(file.types.clone()),
        rows: 0,
    };
    let mut batch: Vec<Cells> = file.names.iter().map(|_| Cells::default()).collect();
    for g in 0..file.row_groups() {
        file.read_group(g, 0..file.rows_in(g), &mut batch, &mut |cells, n| {
            let mut scratch = String::new();
            for (column, cells) in table.columns.iter_mut().zip(cells) {
                for r in 0..n {
                    column.push(cells.get(r, &mut scratch));
                }
            }
            table.rows += n;
            Ok(())
        })?;
    }
    Ok(table)
}

/// Read again, with the column reader, every top-level INT96 column of a
/// row group read row by row: the record API reads INT96 timestamps
/// (Spark's default) at milliseconds, and they hold nanoseconds.
fn reread_int96(
    group: &dyn RowGroupReader,
    names: &[String],
    cells: &mut [Cells],
) -> Result<(), DataError> {
    let bad = DataError::Column;
    let meta = group.metadata();
    for leaf in 0..meta.num_columns() {
        let column = meta.column(leaf).column_descr();
        if column.path().parts().len() != 1 || column.physical_type() != Physical::INT96 {
            continue;
        }
        let Some(i) = names.iter().position(|n| n == column.name()) else {
            continue;
        };
        let required = column.max_def_level() == 0;
        let mut reader = Column::new(group.get_column_reader(leaf).map_err(bad)?, Flat::Int96);
        let mut one = Cells::default();
        let rows = usize::try_from(meta.num_rows()).unwrap_or(0);
        reader.read(required, rows, &mut one).map_err(bad)?;
        cells[i] = one;
    }
    Ok(())
}

/// Every row of the Parquet file `bytes` as a JSON value (the record
/// API's own rendering): what a Delta checkpoint's actions are read as.
pub(super) fn json_rows(bytes: Vec<u8>) -> Result<Vec<serde_json::Value>, DataError> {
    let reader =
        SerializedFileReader::new(bytes::Bytes::from(bytes)).map_err(DataError::NotParquet)?;
    let rows = reader.get_row_iter(None).map_err(DataError::Rows)?;
    rows.map(|row| row.map(|r| r.to_json_value()).map_err(DataError::Row))
        .collect()
}

/// A row group's rows, row by row with the `parquet` crate's record API,
/// into `cells` (one per column of `names`).
fn read_rows(
    group: &dyn RowGroupReader,
    names: &[String],
    nanos: &[bool],
    cells: &mut [Cells],
) -> Result<(), DataError> {
    let iter = group.get_row_iter(None).map_err(DataError::Rows)?;
    let mut row_cells: Vec<Option<String>> = vec![None; names.len()];
    for row in iter {
        let row = row.map_err(DataError::Row)?;
        row_cells.fill(None);
        for (i, (name, field)) in row.get_column_iter().enumerate() {
            // The row's columns follow the schema; look up by name if not.
            let i = if names.get(i) == Some(name) {
                i
            } else {
                match names.iter().position(|n| n == name) {
                    Some(i) => i,
                    None => continue,
                }
            };
            row_cells[i] = cell(field, nanos[i]);
        }
        for (column, value) in cells.iter_mut().zip(&row_cells) {
            column.push(value.as_deref());
        }
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

/// Rows read from a row group at once: small enough that a batch of
/// cells stays in the cache while it is taken, large enough that the
/// readers' calls cost nothing.
const BATCH: usize = 8 * 1024;

/// A flat column's typed reader and the buffers it reads into.
struct Reader<T: DataType> {
    inner: ColumnReaderImpl<T>,
    defs: Vec<i16>,
    values: Vec<T::T>,
}

impl<T: DataType> Reader<T> {
    /// Skip `n` records; the records skipped.
    fn skip(&mut self, n: usize) -> ::parquet::errors::Result<usize> {
        self.inner.skip_records(n)
    }

    fn new(column: ::parquet::column::reader::ColumnReader) -> Reader<T> {
        Reader {
            inner: get_typed_column_reader::<T>(column),
            defs: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Read `n` records (fewer at the end of the column) into `cells`: a
    /// value present (its definition level at the maximum, or the column
    /// required) through `push`, else null. The records read.
    fn read(
        &mut self,
        required: bool,
        n: usize,
        cells: &mut Cells,
        push: impl Fn(&mut Cells, &T::T),
    ) -> ::parquet::errors::Result<usize> {
        self.read_all(required, n, cells, |c, values| {
            for v in values {
                push(c, v);
            }
        })
    }

    /// [`Reader::read`], the values pushed by `push_all` a run of present
    /// values at a time: a batch without nulls in one go.
    fn read_all(
        &mut self,
        required: bool,
        n: usize,
        cells: &mut Cells,
        push_all: impl Fn(&mut Cells, &[T::T]),
    ) -> ::parquet::errors::Result<usize> {
        let mut done = 0;
        while done < n {
            self.defs.clear();
            self.values.clear();
            let (records, _, _) = self.inner.read_records(
                n - done,
                (!required).then_some(&mut self.defs),
                None,
                &mut self.values,
            )?;
            if records == 0 {
                break;
            }
            done += records;
            if required || self.values.len() == records {
                push_all(cells, &self.values);
            } else {
                let mut v = self.values.iter();
                for d in &self.defs[..records] {
                    match (*d > 0).then(|| v.next()).flatten() {
                        Some(value) => push_all(cells, std::slice::from_ref(value)),
                        None => cells.push(None),
                    }
                }
            }
        }
        Ok(done)
    }
}

/// A flat column's reader, by its kind.
enum Column {
    Bool(Reader<::parquet::data_type::BoolType>),
    Int32(Reader<::parquet::data_type::Int32Type>, Flat),
    Int64(Reader<::parquet::data_type::Int64Type>, Flat),
    Float(Reader<::parquet::data_type::FloatType>),
    Double(Reader<::parquet::data_type::DoubleType>),
    Bytes(Reader<::parquet::data_type::ByteArrayType>, Flat),
    Int96(Reader<::parquet::data_type::Int96Type>),
}

impl Column {
    /// Skip `n` records; the records skipped.
    fn skip(&mut self, n: usize) -> ::parquet::errors::Result<usize> {
        match self {
            Column::Bool(r) => r.skip(n),
            Column::Int32(r, _) => r.skip(n),
            Column::Int64(r, _) => r.skip(n),
            Column::Float(r) => r.skip(n),
            Column::Double(r) => r.skip(n),
            Column::Bytes(r, _) => r.skip(n),
            Column::Int96(r) => r.skip(n),
        }
    }

    fn new(column: ::parquet::column::reader::ColumnReader, kind: Flat) -> Column {
        match kind {
            Flat::Bool => Column::Bool(Reader::new(column)),
            Flat::Int32 { .. } | Flat::Date => Column::Int32(Reader::new(column), kind),
            Flat::Int64 { .. } | Flat::Timestamp(_) => Column::Int64(Reader::new(column), kind),
            Flat::Float => Column::Float(Reader::new(column)),
            Flat::Double => Column::Double(Reader::new(column)),
            Flat::Utf8 | Flat::Bytes => Column::Bytes(Reader::new(column), kind),
            Flat::Int96 => Column::Int96(Reader::new(column)),
        }
    }

    /// Read `n` records into `cells` as text; the records read.
    fn read(
        &mut self,
        required: bool,
        n: usize,
        cells: &mut Cells,
    ) -> ::parquet::errors::Result<usize> {
        use std::fmt::Write;
        match self {
            Column::Int96(r) => r.read(required, n, cells, |c, v| {
                c.push(iso(Some(chrono::DateTime::from_timestamp_nanos(v.to_nanos()))).as_deref())
            }),
            Column::Bool(r) => r.read(required, n, cells, |c, v| {
                c.push(Some(if *v { "true" } else { "false" }))
            }),
            Column::Int32(r, Flat::Date) => r.read(required, n, cells, |c, v| {
                c.push_with(|t| {
                    if let Some(d) = chrono::DateTime::from_timestamp(i64::from(*v) * 86_400, 0) {
                        let _ = write!(t, "{}", d.format("%Y-%m-%d"));
                    }
                })
            }),
            Column::Int32(r, kind) => {
                let (bits, unsigned) = match *kind {
                    Flat::Int32 { bits, unsigned } => (bits, unsigned),
                    _ => (32, false),
                };
                r.read(required, n, cells, |c, v| {
                    c.push_int(match (bits, unsigned) {
                        (8, false) => i64::from(*v as i8),
                        (16, false) => i64::from(*v as i16),
                        (8, true) => i64::from(*v as u8),
                        (16, true) => i64::from(*v as u16),
                        (_, true) => i64::from(*v as u32),
                        _ => i64::from(*v),
                    })
                })
            }
            Column::Int64(r, Flat::Timestamp(unit)) => {
                let unit = *unit;
                r.read(required, n, cells, |c, v| {
                    c.push(
                        iso(match unit {
                            TimeUnitKind::Millis => chrono::DateTime::from_timestamp_millis(*v),
                            TimeUnitKind::Micros => chrono::DateTime::from_timestamp_micros(*v),
                            TimeUnitKind::Nanos => Some(chrono::DateTime::from_timestamp_nanos(*v)),
                        })
                        .as_deref(),
                    )
                })
            }
            Column::Int64(r, kind) => {
                if matches!(kind, Flat::Int64 { unsigned: true }) {
                    r.read(required, n, cells, |c, v| {
                        c.push_with(|t| t.push_str(itoa::Buffer::new().format(*v as u64)))
                    })
                } else {
                    r.read_all(required, n, cells, Cells::push_ints)
                }
            }
            Column::Float(r) => r.read(required, n, cells, |c, v| {
                c.push_with(|t| super::num::push_f32(t, *v))
            }),
            Column::Double(r) => r.read_all(required, n, cells, Cells::push_f64s),
            Column::Bytes(r, Flat::Utf8) => r.read(required, n, cells, |c, v| {
                // Checked as UTF-8 first: the common case, faster than
                // the lossy walk.
                match std::str::from_utf8(v.data()) {
                    Ok(text) => c.push(Some(text)),
                    Err(_) => c.push(Some(&String::from_utf8_lossy(v.data()))),
                }
            }),
            Column::Bytes(r, _) => r.read(required, n, cells, |c, v| {
                c.push_with(|t| match std::str::from_utf8(v.data()) {
                    Ok(s) => t.push_str(s),
                    Err(_) => t.push_str(&crate::hash::hex(v.data())),
                })
            }),
        }
    }
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
            Err(_) => crate::hash::hex(b.data()),
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

    fn cells(t: &super::super::Typed) -> Vec<Vec<Option<String>>> {
        (0..t.rows)
            .map(|r| {
                t.columns
                    .iter()
                    .map(|c| c.get(r, &mut String::new()).map(str::to_string))
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
        assert!((0..descr.num_columns()).all(|i| Flat::of(&descr.column(i), false).is_some()));
        let by_columns = read(file.to_vec()).unwrap();
        let mut by_rows = super::super::Typed {
            names: by_columns.names.clone(),
            types: None,
            columns: by_columns.names.iter().map(|_| Cells::default()).collect(),
            rows: 0,
        };
        let nanos = vec![false; by_rows.names.len()];
        for g in 0..reader.num_row_groups() {
            let group = reader.get_row_group(g).unwrap();
            let mut part: Vec<Cells> = by_rows.names.iter().map(|_| Cells::default()).collect();
            read_rows(group.as_ref(), &by_rows.names, &nanos, &mut part).unwrap();
            for (all, cells) in by_rows.columns.iter_mut().zip(&part) {
                for r in 0..group.metadata().num_rows() as usize {
                    all.push(cells.get(r, &mut String::new()));
                }
            }
            by_rows.rows += group.metadata().num_rows() as usize;
        }
        assert_eq!(by_columns.rows, 6);
        assert_eq!(cells(&by_columns), cells(&by_rows));
        let mut scratch = String::new();
        let first: Vec<Option<String>> = (0..9)
            .map(|c| {
                by_columns.columns[c]
                    .get(0, &mut scratch)
                    .map(str::to_string)
            })
            .collect();
        let first: Vec<Option<&str>> = first.iter().map(Option::as_deref).collect();
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
                .all(|c| by_columns.columns[c].get(1, &mut String::new()).is_none())
        );
    }
}
