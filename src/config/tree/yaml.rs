//! YAML harness files (the `yaml` feature) parsed into the same tree.

use std::fmt;

use super::{Key, Node, Pos, SyntaxError, Value};

/// A YAML value read through serde, spans kept by [`serde_saphyr::Spanned`].
struct Y(Value);

impl<'de> serde::Deserialize<'de> for Y {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(YamlVisitor)
    }
}

struct YamlVisitor;

impl<'de> serde::de::Visitor<'de> for YamlVisitor {
    type Value = Y;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Y, E> {
        Ok(Y(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Y, E> {
        Ok(Y(Value::Int(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Y, E> {
        Ok(Y(i64::try_from(v).map_or(
            Value::Other("an out-of-range integer"),
            Value::Int,
        )))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Y, E> {
        Ok(Y(Value::Float(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Y, E> {
        Ok(Y(Value::Str(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Y, E> {
        Ok(Y(Value::Str(v)))
    }
    fn visit_unit<E>(self) -> Result<Y, E> {
        Ok(Y(Value::Other("null")))
    }
    fn visit_none<E>(self) -> Result<Y, E> {
        Ok(Y(Value::Other("null")))
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Y, D::Error> {
        <Y as serde::Deserialize>::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Y, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = a.next_element::<serde_saphyr::Spanned<Y>>()? {
            items.push(yaml_node(item));
        }
        Ok(Y(Value::Seq(items)))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Y, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = a.next_key::<serde_saphyr::Spanned<Y>>()? {
            let v = a.next_value::<serde_saphyr::Spanned<Y>>()?;
            let key = yaml_node(k);
            let name = match key.value {
                Value::Str(s) => s,
                Value::Int(i) => i.to_string(),
                Value::Bool(b) => b.to_string(),
                other => other.kind_name().to_string(),
            };
            entries.push((Key { name, pos: key.pos }, yaml_node(v)));
        }
        Ok(Y(Value::Map(entries)))
    }
}

fn yaml_node(s: serde_saphyr::Spanned<Y>) -> Node {
    let loc = s.referenced;
    Node {
        value: s.value.0,
        pos: Pos {
            line: loc.line() as usize,
            col: loc.column() as usize,
        },
        offset: loc.span().byte_offset().unwrap_or(0) as usize,
    }
}

/// Parse YAML text into a tree.
pub(crate) fn parse_yaml(text: &str) -> Result<Node, SyntaxError> {
    if text.trim().is_empty() {
        return Ok(Node {
            value: Value::Map(Vec::new()),
            pos: Pos { line: 1, col: 1 },
            offset: 0,
        });
    }
    // YAML 1.2 booleans only: `name: y` or `name: no` stay strings.
    let options = serde_saphyr::options! { strict_booleans: true, duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error };
    match serde_saphyr::from_str_with_options::<serde_saphyr::Spanned<Y>>(text, options) {
        Ok(root) => Ok(yaml_node(root)),
        Err(e) => {
            let pos = e.location().map_or(Pos { line: 1, col: 1 }, |l| Pos {
                line: l.line() as usize,
                col: l.column() as usize,
            });
            Err(SyntaxError {
                pos,
                message: e.to_string().lines().next().unwrap_or("").to_string(),
            })
        }
    }
}
