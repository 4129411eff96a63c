//! `cargo golden validate`: check a file the tool writes against the JSON
//! Schema generated from its wire type (the `jsonschema` crate), plus the
//! checks a schema cannot express, and report every violation with its
//! line and field path.
//!
//! JSON Lines files (observations, messages) are read one line at a time,
//! so they may be large; documents (`summary.json`, `evidence.json`) are
//! read whole.

use std::fmt;
use std::io;
use std::path::Path;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError};
use serde_json::Value;

use crate::wire::{self, BASE64_PATTERN, SCHEMA_VERSION_PATTERN, UUID_PATTERN};

/// A wire format `validate` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// `observations.jsonl`: one observation per line.
    Observation,
    /// `--message-format json` output: one message per line.
    Message,
    /// `summary.json`.
    Summary,
    /// `evidence.json`.
    Evidence,
    /// `history.jsonl`: one case of one run per line.
    History,
}

impl Format {
    /// The format of a file the tool wrote, told by its name:
    /// `summary.json`, `evidence.json` and `history.jsonl` are what they
    /// say, anything else is read as observation lines.
    pub(crate) fn of_file(path: &Path) -> Format {
        match path.file_name().and_then(|n| n.to_str()) {
            Some(crate::report::SUMMARY_FILE) => Format::Summary,
            Some(crate::layout::Artifacts::EVIDENCE) => Format::Evidence,
            Some(crate::layout::HISTORY_FILE) => Format::History,
            _ => Format::Observation,
        }
    }

    /// The JSON Schema generated from the format's wire type.
    pub(crate) fn schema(self) -> Value {
        match self {
            Format::Observation => wire::output_schema::<wire::observation::Observation>(),
            Format::Message => wire::output_schema::<wire::message::MessageLine>(),
            Format::Summary => wire::output_schema::<wire::summary::Summary>(),
            Format::Evidence => wire::output_schema::<wire::evidence::Evidence>(),
            Format::History => wire::output_schema::<wire::history::HistoryLine>(),
        }
    }

    /// One value per line, or one document per file.
    fn is_lines(self) -> bool {
        matches!(
            self,
            Format::Observation | Format::Message | Format::History
        )
    }

    /// Checks a schema cannot express, as `(field path, message)` pairs.
    fn beyond_schema(self, value: &Value) -> Vec<(String, String)> {
        match self {
            Format::Observation => wire::observation::beyond_schema(value),
            Format::Message | Format::Summary | Format::Evidence | Format::History => Vec::new(),
        }
    }
}

/// One way a file breaks its format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Violation {
    /// The file as given.
    pub(crate) file: String,
    /// 1-based line number, for JSON Lines files.
    pub(crate) line: Option<usize>,
    /// JSON path of the field, `$` for the whole line or document.
    pub(crate) path: String,
    /// What is wrong, with the value found.
    pub(crate) message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}: {}", self.file, self.path, self.message),
            None => write!(f, "{}: {}: {}", self.file, self.path, self.message),
        }
    }
}

/// A compiled check of one format.
pub(crate) struct Validator {
    format: Format,
    schema: jsonschema::Validator,
    /// Top-level fields in the order of the format, so violations come out
    /// in the order a reader sees the fields.
    order: Vec<String>,
}

impl Validator {
    /// The validator of `format`.
    pub(crate) fn new(format: Format) -> Validator {
        let schema = format.schema();
        let order = schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let compiled = jsonschema::validator_for(&schema).expect("generated schemas compile");
        Validator {
            format,
            schema: compiled,
            order,
        }
    }

    /// Violations of one JSON text as `(field path, message)` pairs.
    pub(crate) fn check_text(&self, text: &[u8]) -> Vec<(String, String)> {
        if text.iter().all(u8::is_ascii_whitespace) {
            return vec![("$".into(), "invalid JSON: empty line".into())];
        }
        match serde_json::from_slice::<Value>(text) {
            Ok(value) => self.check_value(&value),
            Err(e) => vec![("$".into(), format!("invalid JSON: {e}"))],
        }
    }

    /// Violations of one JSON value as `(field path, message)` pairs.
    pub(crate) fn check_value(&self, value: &Value) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = self
            .schema
            .iter_errors(value)
            .flat_map(|e| describe(&e, value))
            .collect();
        if value.is_object() {
            found.extend(self.format.beyond_schema(value));
        }
        found.dedup();
        let rank = |path: &str| {
            let field = path
                .strip_prefix("$.")
                .map(|p| p.split(['.', '[']).next().unwrap_or(p));
            field.map_or(0, |f| {
                1 + self
                    .order
                    .iter()
                    .position(|o| o == f)
                    .unwrap_or(self.order.len())
            })
        };
        found.sort_by_key(|(path, _)| rank(path));
        found
    }
}

/// The most `validate` reads of a file: a large run's observations or
/// summary are far over the limit of a harness file.
pub(crate) const LIMIT: u64 = 256 << 20;

/// Check `path` as `format`. An empty result means the file is valid.
pub(crate) fn validate_file(path: &Path, format: Format) -> io::Result<Vec<Violation>> {
    let validator = Validator::new(format);
    let name = path.display().to_string();
    let violation = |line, (path, message)| Violation {
        file: name.clone(),
        line,
        path,
        message,
    };
    if !format.is_lines() {
        let text = crate::untrusted::read_limited(path, LIMIT)?;
        return Ok(validator
            .check_text(&text)
            .into_iter()
            .map(|v| violation(None, v))
            .collect());
    }
    let text = crate::untrusted::read_limited(path, LIMIT)?;
    let mut out = Vec::new();
    let mut unparsable = false;
    // The newline that ends the last line starts no line of its own.
    let body = text.strip_suffix(b"\n").unwrap_or(&text);
    if text.is_empty() {
        return Ok(out);
    }
    for (i, line) in body.split(|b| *b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        unparsable |= serde_json::from_slice::<Value>(line).is_err();
        let found = validator.check_text(line);
        out.extend(found.into_iter().map(|v| violation(Some(i + 1), v)));
    }
    if let Some(whole) = not_lines(&text, unparsable, format) {
        return Ok(vec![violation(None, ("$".into(), whole))]);
    }
    Ok(out)
}

/// One message for a whole JSON document (say a pretty-printed object)
/// where JSON Lines were expected, rather than one error per line.
fn not_lines(text: &[u8], unparsable: bool, format: Format) -> Option<String> {
    if !unparsable || serde_json::from_slice::<Value>(text).is_err() {
        return None;
    }
    let lines = text
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let what = match format {
        Format::Observation => "an observations file",
        _ => "a JSON Lines file",
    };
    Some(format!(
        "this is not {what} (one JSON document over {lines} lines; expected one JSON object per line)"
    ))
}

/// A schema error as `(field path, message)` pairs, in the words of a
/// reader of the format rather than of JSON Schema.
fn describe(e: &ValidationError<'_>, root: &Value) -> Vec<(String, String)> {
    let at = json_path(e.instance_path().as_str(), root);
    let found = e.instance();
    let message = match e.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            return vec![(
                format!("{at}{}", key_path(name)),
                "missing required field".into(),
            )];
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            return unexpected
                .iter()
                .map(|k| (format!("{at}{}", key_path(k)), "unknown field".into()))
                .collect();
        }
        ValidationErrorKind::Type { kind } => {
            format!("must be {}, found {}", types(kind), value_of(found))
        }
        ValidationErrorKind::Pattern { pattern } => pattern_message(pattern, found),
        ValidationErrorKind::Minimum { limit } => format!("must be >= {limit}, found {found}"),
        ValidationErrorKind::Maximum { limit } => format!("must be <= {limit}, found {found}"),
        ValidationErrorKind::Constant { expected_value } => {
            format!("must be {expected_value}, found {found}")
        }
        ValidationErrorKind::Enum { options } => {
            let list: Vec<String> = match options.as_ref() {
                Value::Array(a) => a.iter().map(Value::to_string).collect(),
                other => vec![other.to_string()],
            };
            format!("must be {}, found {found}", or_list(&list))
        }
        ValidationErrorKind::MinLength { limit: 1 } => "must not be empty".into(),
        _ => e.to_string(),
    };
    vec![(at, message)]
}

/// What a string that fails one of the formats' patterns must be.
fn pattern_message(pattern: &str, found: &Value) -> String {
    let what = match pattern {
        SCHEMA_VERSION_PATTERN => format!("must match {SCHEMA_VERSION_PATTERN}"),
        UUID_PATTERN => "must be a UUID".into(),
        BASE64_PATTERN => return "not valid base64 (encoding is \"base64\")".into(),
        wire::observation::TIMESTAMP_PATTERN => {
            "must be a decimal string of nanoseconds since the Unix epoch".into()
        }
        other => format!("must match {other}"),
    };
    format!("{what}, found {found}")
}

/// `a string`, `an integer or null`, ...: scalars first, null last.
fn types(kind: &TypeKind) -> String {
    let mut list: Vec<JsonType> = match kind {
        TypeKind::Single(t) => vec![*t],
        TypeKind::Multiple(set) => set.iter().collect(),
    };
    let order = [
        JsonType::String,
        JsonType::Integer,
        JsonType::Number,
        JsonType::Boolean,
        JsonType::Object,
        JsonType::Array,
        JsonType::Null,
    ];
    list.sort_by_key(|t| order.iter().position(|o| o == t));
    or_list(&list.into_iter().map(article).collect::<Vec<_>>())
}

fn article(t: JsonType) -> String {
    match t {
        JsonType::Null => "null".into(),
        JsonType::Integer | JsonType::Object | JsonType::Array => format!("an {t}"),
        _ => format!("a {t}"),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A JSON pointer into `root` as a JSON path: `/metadata/odd key` becomes
/// `$.metadata["odd key"]`, `/cases/2` becomes `$.cases[2]`.
fn json_path(pointer: &str, root: &Value) -> String {
    let mut out = String::from("$");
    let mut node = Some(root);
    for raw in pointer.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        match node {
            Some(Value::Array(items)) if seg.parse::<usize>().is_ok() => {
                out.push_str(&format!("[{seg}]"));
                node = seg.parse::<usize>().ok().and_then(|i| items.get(i));
            }
            Some(Value::Object(map)) => {
                out.push_str(&key_path(&seg));
                node = map.get(&seg);
            }
            _ => {
                out.push_str(&key_path(&seg));
                node = None;
            }
        }
    }
    out
}

/// `.key` for identifier-like keys, `["key"]` otherwise.
fn key_path(key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        format!(".{key}")
    } else {
        format!("[{}]", Value::String(key.to_string()))
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The type and, for scalars, the value: `number 5`, `object`.
fn value_of(v: &Value) -> String {
    match v {
        Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            let mut s = v.to_string();
            if s.len() > 40 {
                s.truncate(s.floor_char_boundary(40));
                s.push('…');
            }
            format!("{} {s}", type_name(v))
        }
        _ => type_name(v).to_string(),
    }
}

/// `cargo golden validate FILE`: print every violation of `file` (its
/// format told by its name unless given), or that it is valid.
pub(crate) fn command(file: &Path, format: Option<Format>) -> i32 {
    use crate::commands::output::{CommandError, print_stdout, usage_error};
    let format = format.unwrap_or_else(|| Format::of_file(file));
    match validate_file(file, format) {
        Ok(violations) if violations.is_empty() => {
            print_stdout(&format!("{}: valid", crate::layout::display_relative(file)));
            crate::conclusion::SUCCESS
        }
        Ok(violations) => {
            for v in &violations {
                print_stdout(&v.to_string());
            }
            eprintln!("{} violation(s)", violations.len());
            crate::conclusion::FAILED
        }
        Err(e) => usage_error(&CommandError::Read(file.to_path_buf(), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths() {
        assert_eq!(key_path("case"), ".case");
        assert_eq!(key_path("a b"), "[\"a b\"]");
        let doc = json!({"cases": [{"x": 1}], "metadata": {"0": 1, "a/b": 2}});
        assert_eq!(json_path("", &doc), "$");
        assert_eq!(json_path("/cases/0/x", &doc), "$.cases[0].x");
        assert_eq!(json_path("/metadata/0", &doc), "$.metadata[\"0\"]");
        assert_eq!(json_path("/metadata/a~1b", &doc), "$.metadata[\"a/b\"]");
    }

    #[test]
    fn lists() {
        assert_eq!(or_list(&["a".into()]), "a");
        assert_eq!(or_list(&["a".into(), "b".into(), "c".into()]), "a, b or c");
    }
}
