//! JSON and JSON Lines outputs as typed tables: JSON carries its own
//! types, so a column's type comes from its values' JSON kinds, never from
//! how their text reads. `42` is an integer and `"42"` a string; a number
//! keeps its exact text (`1234567890123456789` does not round through a
//! float); `null` is null and `""` an empty string. A column whose values
//! are of more than one kind (numbers and strings, say), or nested
//! (objects, arrays), is a `json` column: each cell is its value's JSON
//! text, so `42` and `"42"` still differ there.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Cells, ColType, Typed, widen};

/// One object of the file: its keys in order, each with its value's text.
struct Object<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Object<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Object<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object (a row)")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Object<'de>, M::Error> {
                let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(entry) = map.next_entry::<Cow<'de, str>, &'de RawValue>()? {
                    fields.push(entry);
                }
                Ok(Object(fields))
            }
        }
        d.deserialize_map(Fields)
    }
}

/// The rows of a file that is one JSON array of objects.
struct Rows<'a>(Vec<Object<'a>>);

impl<'de> serde::Deserialize<'de> for Rows<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Items;
        impl<'de> Visitor<'de> for Items {
            type Value = Rows<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON array of objects")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Rows<'de>, S::Error> {
                let mut rows = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(row) = seq.next_element::<Object<'de>>()? {
                    rows.push(row);
                }
                Ok(Rows(rows))
            }
        }
        d.deserialize_seq(Items)
    }
}

/// A file holding one JSON array of objects.
pub(super) fn array(bytes: &[u8]) -> Result<Typed, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let Rows(rows) = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    table(rows)
}

/// A JSON Lines file: one object a line; blank lines skipped.
pub(super) fn lines(bytes: &[u8]) -> Result<Typed, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not JSON Lines: {e}"))?;
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        rows.push(
            serde_json::from_str::<Object<'_>>(line)
                .map_err(|e| format!("line {}: not a JSON object: {e}", n + 1))?,
        );
    }
    table(rows)
}

/// The kind of a JSON value, from its text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Integer,
    Float,
    String,
    Nested,
}

fn kind(raw: &RawValue) -> Kind {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'n') => Kind::Null,
        Some(b't' | b'f') => Kind::Bool,
        Some(b'"') => Kind::String,
        Some(b'{' | b'[') => Kind::Nested,
        _ if text.contains(['.', 'e', 'E']) => Kind::Float,
        _ => Kind::Integer,
    }
}

/// The type a column of values of `kind` has.
fn col_type(kind: Kind) -> ColType {
    match kind {
        Kind::Null => ColType::Null,
        Kind::Bool => ColType::Bool,
        Kind::Integer => ColType::Integer,
        Kind::Float => ColType::Float,
        Kind::String => ColType::String,
        Kind::Nested => ColType::Json,
    }
}

/// The type of a column holding values of type `a` and a value of
/// `kind`: numbers widen to float, any other mix is JSON text.
fn join(a: ColType, kind: Kind) -> ColType {
    let b = col_type(kind);
    match widen(a, b) {
        ColType::String if a != b && a != ColType::Null && b != ColType::Null => ColType::Json,
        t => t,
    }
}

/// The table of `rows`: columns in the order their keys first appear,
/// typed by their values' kinds.
fn table(rows: Vec<Object<'_>>) -> Result<Typed, String> {
    let mut names: Vec<&str> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut types: Vec<ColType> = Vec::new();
    for row in &rows {
        for (key, value) in &row.0 {
            let i = *index.entry(key.as_ref()).or_insert_with(|| {
                names.push(key.as_ref());
                types.push(ColType::Null);
                names.len() - 1
            });
            types[i] = join(types[i], kind(value));
        }
    }
    let mut columns: Vec<Cells> = names.iter().map(|_| Cells::default()).collect();
    let mut cells: Vec<Option<&RawValue>> = vec![None; names.len()];
    for row in &rows {
        cells.fill(None);
        for (key, value) in &row.0 {
            cells[index[key.as_ref()]] = Some(value);
        }
        for ((column, ty), value) in columns.iter_mut().zip(&types).zip(&cells) {
            push(column, *ty, *value)?;
        }
    }
    Ok(Typed {
        names: names.into_iter().map(str::to_string).collect(),
        types: Some(types),
        rows: rows.len(),
        columns,
    })
}

/// Push the cell of `value` (absent or `null`: null) to a column of type
/// `ty`: a string's text, a JSON column's JSON text (compact), a number's
/// or a truth value's text as written.
fn push(column: &mut Cells, ty: ColType, value: Option<&RawValue>) -> Result<(), String> {
    let Some(value) = value.filter(|v| kind(v) != Kind::Null) else {
        column.push(None);
        return Ok(());
    };
    let text = value.get();
    match kind(value) {
        Kind::String if ty == ColType::String => {
            let s: Cow<'_, str> =
                serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
            column.push(Some(&s));
        }
        Kind::Nested => {
            // Whitespace inside a nested value is no change.
            let v: serde_json::Value =
                serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
            column.push(Some(&v.to_string()));
        }
        _ => column.push(Some(text)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(t: &Typed) -> Vec<Vec<Option<&str>>> {
        (0..t.rows)
            .map(|r| t.columns.iter().map(|c| c.get(r)).collect())
            .collect()
    }

    #[test]
    fn json_values_keep_their_kind_and_exact_text() {
        let t = array(
            br#"[{"id": 1234567890123456789, "amount": 42, "name": "", "tags": {"a": [1, 2]}},
                 {"id": 2, "amount": "42", "name": null, "ok": true}]"#,
        )
        .unwrap();
        assert_eq!(t.names, ["id", "amount", "name", "tags", "ok"]);
        assert_eq!(
            t.types.as_deref().unwrap(),
            [
                ColType::Integer,
                ColType::Json,
                ColType::String,
                ColType::Json,
                ColType::Bool
            ]
        );
        assert_eq!(
            cells(&t),
            [
                [
                    Some("1234567890123456789"),
                    Some("42"),
                    Some(""),
                    Some(r#"{"a":[1,2]}"#),
                    None
                ],
                [Some("2"), Some("\"42\""), None, None, Some("true")],
            ]
        );
    }

    #[test]
    fn json_lines_name_the_line_that_is_not_an_object() {
        let t = lines(b"{\"a\": 1}\n\n{\"a\": 2.5}\n").unwrap();
        assert_eq!(t.types.as_deref().unwrap(), [ColType::Float]);
        let e = lines(b"{\"a\": 1}\n[1]\n").unwrap_err();
        assert!(e.starts_with("line 2: not a JSON object"), "{e}");
        let e = array(b"{\"a\": 1}").unwrap_err();
        assert!(e.contains("a JSON array of objects"), "{e}");
    }
}
