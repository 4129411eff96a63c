//! A small spanned value tree that both TOML and YAML parse into.
//!
//! Declarations are checked on this tree rather than through
//! `#[serde(deny_unknown_fields)]` so that every error of a file is reported
//! at once, each with its line and column.

use std::fmt;

/// 1-based line and column in the source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, 1-based.
    pub line: usize,
    /// Column, 1-based (characters).
    pub col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A value with where it was written.
#[derive(Clone, Debug)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it starts.
    pub pos: Pos,
    /// Byte offset of the start (declaration order).
    pub offset: usize,
}

/// A map key with where it was written.
#[derive(Clone, Debug)]
pub struct Key {
    /// The key text.
    pub name: String,
    /// Where it starts.
    pub pos: Pos,
}

/// The value kinds both formats share.
#[derive(Clone, Debug)]
pub enum Value {
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A sequence.
    Seq(Vec<Node>),
    /// A map, in source order.
    Map(Vec<(Key, Node)>),
    /// Null (YAML `~`) or a value kind the declarations never use.
    Other(&'static str),
}

impl Value {
    /// The kind's name for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a boolean",
            Value::Seq(_) => "an array",
            Value::Map(_) => "a table",
            Value::Other(k) => k,
        }
    }
}

/// A parse error of the file itself (malformed TOML or YAML).
#[derive(Clone, Debug)]
pub struct SyntaxError {
    /// Where, when known.
    pub pos: Pos,
    /// What the parser said.
    pub message: String,
}

/// Maps byte offsets to line and column.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Index the line starts of `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// Line and column (in characters) of `offset`.
    pub fn pos(&self, text: &str, offset: usize) -> Pos {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let col = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        Pos { line, col }
    }
}

/// Parse TOML text into a tree.
pub fn parse_toml(text: &str) -> Result<Node, SyntaxError> {
    use toml::de::{DeTable, DeValue};
    let index = LineIndex::new(text);
    let root = DeTable::parse(text).map_err(|e| SyntaxError {
        pos: index.pos(text, e.span().map_or(0, |s| s.start)),
        message: e.message().trim().to_string(),
    })?;

    fn convert(v: &toml::Spanned<DeValue<'_>>, text: &str, index: &LineIndex) -> Node {
        let span = v.span();
        let value = match v.get_ref() {
            DeValue::String(s) => Value::Str(s.to_string()),
            DeValue::Integer(i) => {
                let digits: String = i.as_str().chars().filter(|c| *c != '_').collect();
                let (neg, digits) = match digits.strip_prefix('-') {
                    Some(d) => (true, d.to_string()),
                    None => (false, digits.trim_start_matches('+').to_string()),
                };
                let body = match i.radix() {
                    16 | 8 | 2 => digits.get(2..).unwrap_or("").to_string(),
                    _ => digits,
                };
                match i64::from_str_radix(&body, i.radix()) {
                    Ok(n) => Value::Int(if neg { -n } else { n }),
                    Err(_) => Value::Other("an out-of-range integer"),
                }
            }
            DeValue::Float(f) => f
                .as_str()
                .replace('_', "")
                .parse()
                .map_or(Value::Other("a float"), Value::Float),
            DeValue::Boolean(b) => Value::Bool(*b),
            DeValue::Datetime(_) => Value::Other("a datetime"),
            DeValue::Array(a) => Value::Seq(a.iter().map(|n| convert(n, text, index)).collect()),
            DeValue::Table(t) => Value::Map(
                t.iter()
                    .map(|(k, n)| {
                        (
                            Key {
                                name: k.get_ref().to_string(),
                                pos: index.pos(text, k.span().start),
                            },
                            convert(n, text, index),
                        )
                    })
                    .collect(),
            ),
        };
        // Tables of an array of tables span from their header: use the
        // header's line so errors and declaration lines point at `[[golden]]`.
        Node {
            value,
            pos: index.pos(text, span.start),
            offset: span.start,
        }
    }

    let span = root.span();
    let table = toml::Spanned::new(span, DeValue::Table(root.into_inner()));
    Ok(convert(&table, text, &index))
}

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
pub fn parse_yaml(text: &str) -> Result<Node, SyntaxError> {
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
