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
use std::io::BufRead;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::error::{DataError, Within};
use super::{ColType, Sink, widen};

/// One object of the file: its keys in order, each with its value's text
/// (borrowed from a line of JSON Lines; owned from a JSON array read as a
/// stream, whose buffer moves on).
struct Object<K, V>(Vec<(K, V)>);

impl<'de, K: serde::Deserialize<'de>, V: serde::Deserialize<'de>> serde::Deserialize<'de>
    for Object<K, V>
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<K, V>(std::marker::PhantomData<(K, V)>);
        impl<'de, K: serde::Deserialize<'de>, V: serde::Deserialize<'de>> Visitor<'de> for Fields<K, V> {
            type Value = Object<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object (a row)")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Object<K, V>, M::Error> {
                let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(entry) = map.next_entry::<K, V>()? {
                    fields.push(entry);
                }
                Ok(Object(fields))
            }
        }
        d.deserialize_map(Fields(std::marker::PhantomData))
    }
}

/// A row: each key of an object with its value.
type Fields<'a> = [(&'a str, &'a RawValue)];

/// Call `each` with every object of `input`: one JSON array of objects
/// (`lines` false), read by a streaming parser, or one object a line
/// (JSON Lines; blank lines skipped).
fn each_object(
    input: impl BufRead,
    lines: bool,
    mut each: impl FnMut(&Fields<'_>) -> Result<(), DataError>,
) -> Result<(), DataError> {
    if lines {
        return each_line(input, each);
    }
    struct Items<'f, F>(&'f mut F);
    impl<'de, F: FnMut(&Fields<'_>) -> Result<(), DataError>> Visitor<'de> for Items<'_, F> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON array of objects")
        }
        fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
            while let Some(Object(row)) = seq.next_element::<Object<String, Box<RawValue>>>()? {
                let fields: Vec<(&str, &RawValue)> =
                    row.iter().map(|(k, v)| (k.as_str(), v.as_ref())).collect();
                (self.0)(&fields).map_err(serde::de::Error::custom)?;
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_reader(input);
    de.deserialize_seq(Items(&mut each))
        .and_then(|()| de.end())
        .map_err(DataError::NotJson)
}

/// [`each_object`] of a JSON Lines file.
fn each_line(
    mut input: impl BufRead,
    mut each: impl FnMut(&Fields<'_>) -> Result<(), DataError>,
) -> Result<(), DataError> {
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(DataError::Unreadable)?;
        if read == 0 {
            return Ok(());
        }
        let text =
            std::str::from_utf8(&line).map_err(|_| DataError::JsonLinesNotUtf8 { line: n })?;
        if text.trim().is_empty() {
            continue;
        }
        let Object(row) = serde_json::from_str::<Object<Cow<'_, str>, &RawValue>>(text)
            .map_err(|source| DataError::NotJsonObject { line: n, source })?;
        let fields: Vec<(&str, &RawValue)> = row.iter().map(|(k, v)| (k.as_ref(), *v)).collect();
        each(&fields).map_err(|e| e.within(Within::Line(n)))?;
    }
    Ok(())
}

/// The columns of a JSON or JSON Lines file: in the order their keys
/// first appear, typed by their values' kinds.
pub(super) struct Columns {
    pub(crate) names: Vec<String>,
    pub(crate) types: Vec<ColType>,
    index: HashMap<String, usize>,
}

/// The columns of `input` (JSON Lines when `lines`), read once through.
pub(super) fn columns(input: impl BufRead, lines: bool) -> Result<Columns, DataError> {
    let mut c = Columns {
        names: Vec::new(),
        types: Vec::new(),
        index: HashMap::new(),
    };
    each_object(input, lines, |row| {
        for (key, value) in row {
            let i = match c.index.get(*key) {
                Some(i) => *i,
                None => {
                    c.names.push(key.to_string());
                    c.types.push(ColType::Null);
                    c.index.insert(key.to_string(), c.names.len() - 1);
                    c.names.len() - 1
                }
            };
            c.types[i] = join(c.types[i], kind(value));
        }
        Ok(())
    })?;
    Ok(c)
}

/// The rows of `input`, whose [`columns`] are `columns`, pushed into
/// `sink`: the columns `keep` of each.
pub(super) fn rows(
    input: impl BufRead,
    lines: bool,
    columns: &Columns,
    keep: &[usize],
    sink: &mut impl Sink,
) -> Result<(), DataError> {
    // Where in the row each column's value is.
    let mut at: Vec<Option<usize>> = vec![None; columns.names.len()];
    each_object(input, lines, |row| {
        at.fill(None);
        for (k, (key, _)) in row.iter().enumerate() {
            let i = columns
                .index
                .get(*key)
                .ok_or_else(|| DataError::KeyAppeared {
                    key: key.to_string(),
                })?;
            at[*i] = Some(k);
        }
        for &i in keep {
            let value = at[i].map(|k| row[k].1);
            sink.cell(text(columns.types[i], value)?.as_deref());
        }
        sink.end_row();
        Ok(())
    })
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

/// The cell of `value` (absent or `null`: null) in a column of type
/// `ty`: a string's text, a JSON column's JSON text (compact), a number's
/// or a truth value's text as written.
fn text(ty: ColType, value: Option<&RawValue>) -> Result<Option<Cow<'_, str>>, DataError> {
    let Some(value) = value.filter(|v| kind(v) != Kind::Null) else {
        return Ok(None);
    };
    let text = value.get();
    Ok(Some(match kind(value) {
        Kind::String if ty == ColType::String => {
            serde_json::from_str::<Cow<'_, str>>(text).map_err(DataError::NotJson)?
        }
        Kind::Nested => {
            // Whitespace inside a nested value is no change.
            let mut out = String::with_capacity(text.len());
            compact(value, &mut out).map_err(DataError::NotJson)?;
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(text),
    }))
}

/// Write the nested value `raw` as `serde_json::Value` writes it once
/// read (no whitespace, keys in order, a key given twice where it came
/// first with the value it came with last, strings escaped its way, a
/// number as the double it reads as) but for a number no double holds
/// (`1.000000000000000001`, `123456789012345678901234567890`): that is
/// written as it stands, so no digit of it is lost.
fn compact(raw: &RawValue, out: &mut String) -> Result<(), serde_json::Error> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'{') => {
            let Object(fields) = serde_json::from_str::<Object<String, &RawValue>>(text)?;
            let mut kept: Vec<(String, &RawValue)> = Vec::with_capacity(fields.len());
            for (key, value) in fields {
                match kept.iter_mut().find(|(k, _)| *k == key) {
                    Some(field) => field.1 = value,
                    None => kept.push((key, value)),
                }
            }
            out.push('{');
            for (k, (key, value)) in kept.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key)?);
                out.push(':');
                compact(value, out)?;
            }
            out.push('}');
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = serde_json::from_str(text)?;
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                compact(item, out)?;
            }
            out.push(']');
        }
        Some(b'"') => {
            let s: Cow<'_, str> = serde_json::from_str(text)?;
            out.push_str(&serde_json::to_string(&s)?);
        }
        Some(b'-' | b'0'..=b'9') => match serde_json::from_str::<serde_json::Number>(text) {
            Ok(n) => {
                let written = n.to_string();
                let held = super::num::same_number(text, &written);
                out.push_str(if held { &written } else { text });
            }
            // Out of a double's range (`1e400`): as it stands.
            Err(_) => out.push_str(text),
        },
        // `true`, `false`, `null`.
        _ => out.push_str(text),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column names and types of a JSON (or JSON Lines) text, and its
    /// rows.
    #[allow(clippy::type_complexity)]
    fn table(
        text: &[u8],
        lines: bool,
    ) -> Result<(Vec<String>, Vec<ColType>, Vec<Vec<Option<String>>>), DataError> {
        struct Collect(Vec<Vec<Option<String>>>, Vec<Option<String>>);
        impl Sink for Collect {
            fn cell(&mut self, value: Option<&str>) {
                self.1.push(value.map(str::to_string));
            }
            fn end_row(&mut self) {
                self.0.push(std::mem::take(&mut self.1));
            }
        }
        let c = columns(text, lines)?;
        let keep: Vec<usize> = (0..c.names.len()).collect();
        let mut rows_seen = Collect(Vec::new(), Vec::new());
        rows(text, lines, &c, &keep, &mut rows_seen)?;
        Ok((c.names, c.types, rows_seen.0))
    }

    #[test]
    fn json_values_keep_their_kind_and_exact_text() {
        let (names, types, rows) = table(
            br#"[{"id": 1234567890123456789, "amount": 42, "name": "", "tags": {"a": [1, 2]}},
                 {"id": 2, "amount": "42", "name": null, "ok": true}]"#,
            false,
        )
        .unwrap();
        assert_eq!(names, ["id", "amount", "name", "tags", "ok"]);
        assert_eq!(
            types,
            [
                ColType::Integer,
                ColType::Json,
                ColType::String,
                ColType::Json,
                ColType::Bool
            ]
        );
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            rows,
            [
                vec![
                    s("1234567890123456789"),
                    s("42"),
                    s(""),
                    s(r#"{"a":[1,2]}"#),
                    None
                ],
                vec![s("2"), s("\"42\""), None, None, s("true")],
            ]
        );
    }

    /// A nested value is written compact, as `serde_json::Value` writes
    /// it, but for numbers no double holds, which keep every digit.
    #[test]
    fn a_nested_value_keeps_every_digit_of_its_numbers() {
        let nested = |text: &str| {
            let raw: &RawValue = serde_json::from_str(text).unwrap();
            let mut out = String::new();
            compact(raw, &mut out).unwrap();
            out
        };
        // As before: what a double holds, strings, keys, repeated keys.
        for text in [
            r#"{"a": [1, 2.50, 1E2, -0, 1e20, 0.1], "b": {"c": null, "d": true}}"#,
            r#"{"s": "\u00e9\n\"", "k": 1, "k": 2, "z": [[], {}]}"#,
            r#"[18446744073709551615, -9223372036854775808, 1.7976931348623157e308]"#,
        ] {
            let before = serde_json::from_str::<serde_json::Value>(text).unwrap();
            assert_eq!(nested(text), before.to_string(), "{text}");
        }
        let out =
            nested(r#"{"x": 1.000000000000000001, "n": [123456789012345678901234567890, 1e400]}"#);
        assert_eq!(
            out,
            r#"{"x":1.000000000000000001,"n":[123456789012345678901234567890,1e400]}"#
        );
    }

    #[test]
    fn json_lines_name_the_line_that_is_not_an_object() {
        let (_, types, _) = table(b"{\"a\": 1}\n\n{\"a\": 2.5}\n", true).unwrap();
        assert_eq!(types, [ColType::Float]);
        let e = table(b"{\"a\": 1}\n[1]\n", true).unwrap_err().to_string();
        assert!(e.starts_with("line 2: not a JSON object"), "{e}");
        let e = table(b"{\"a\": 1}", false).unwrap_err().to_string();
        assert!(e.contains("a JSON array of objects"), "{e}");
        let e = table(b"[{\"a\": 1}] x", false).unwrap_err().to_string();
        assert!(e.starts_with("not JSON: trailing characters"), "{e}");
    }
}
