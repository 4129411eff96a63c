//! A Parquet file as a typed table, read row by row with the `parquet`
//! crate (no Arrow): top-level columns in the file's schema order.

use ::parquet::basic::{ConvertedType, LogicalType, TimeUnit, TimestampType, Type as Physical};
use ::parquet::file::reader::{FileReader, SerializedFileReader};
use ::parquet::record::Field;
use ::parquet::schema::types::Type;

use super::{ColType, Typed};

/// The table in the Parquet file `bytes`.
pub(crate) fn read(bytes: Vec<u8>) -> Result<Typed, String> {
    let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))
        .map_err(|e| format!("not Parquet: {e}"))?;
    let fields = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .root_schema()
        .get_fields()
        .to_vec();
    let names: Vec<String> = fields.iter().map(|f| f.name().to_string()).collect();
    let types: Vec<ColType> = fields.iter().map(|f| col_type(f)).collect();
    let nanos: Vec<bool> = fields.iter().map(|f| nano_timestamp(f)).collect();
    let mut rows = Vec::new();
    let iter = reader
        .get_row_iter(None)
        .map_err(|e| format!("cannot read its rows: {e}"))?;
    for row in iter {
        let row = row.map_err(|e| format!("cannot read a row: {e}"))?;
        let mut cells: Vec<Option<String>> = vec![None; names.len()];
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
            cells[i] = cell(field, nanos[i]);
        }
        rows.push(cells);
    }
    Ok(Typed {
        names,
        types: Some(types),
        rows,
    })
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
        _ if decimal || float16 => ColType::Float,
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
/// timestamps in ISO 8601, an empty string as null (as in CSV).
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
    (!text.is_empty()).then_some(text)
}
