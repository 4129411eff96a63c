//! A small spanned value tree that both TOML and YAML parse into.
//!
//! Declarations are checked on this tree rather than through
//! `#[serde(deny_unknown_fields)]` so that every error of a file is reported
//! at once, each with its line and column.

use std::fmt;

/// 1-based line and column in the source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Pos {
    /// Line, 1-based.
    pub(crate) line: usize,
    /// Column, 1-based (characters).
    pub(crate) col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A value with where it was written.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// The value.
    pub(crate) value: Value,
    /// Where it starts.
    pub(crate) pos: Pos,
    /// Byte offset of the start (declaration order).
    pub(crate) offset: usize,
}

/// A map key with where it was written.
#[derive(Clone, Debug)]
pub(crate) struct Key {
    /// The key text.
    pub(crate) name: String,
    /// Where it starts.
    pub(crate) pos: Pos,
}

/// The value kinds both formats share.
#[derive(Clone, Debug)]
pub(crate) enum Value {
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
    pub(crate) fn kind_name(&self) -> &'static str {
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
pub(crate) struct SyntaxError {
    /// Where, when known.
    pub(crate) pos: Pos,
    /// What the parser said.
    pub(crate) message: String,
}

/// Maps byte offsets to line and column.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Index the line starts of `text`.
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// Line and column (in characters) of `offset`.
    pub(crate) fn pos(&self, text: &str, offset: usize) -> Pos {
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
pub(crate) fn parse_toml(text: &str) -> Result<Node, SyntaxError> {
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

#[cfg(feature = "yaml")]
mod yaml;
#[cfg(feature = "yaml")]
pub(crate) use yaml::parse_yaml;
