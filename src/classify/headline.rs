//! The headline of a finding whose record carries fields: a JSON log line,
//! or a message with a `(key=value, …)` tail (Odibi's records). The few
//! fields that say what failed (the node, the error type, the error
//! message) say more than the record whole, which stays in the issue's
//! evidence: `load_stock: FileNotFoundError: … stock_levels.csv` rather
//! than 500 characters of timestamps, engines and durations.

use std::sync::LazyLock;

use regex::Regex;

/// Field names, in order of preference, of what failed.
const NODE: &[&str] = &[
    "node_id",
    "node_name",
    "node",
    "model",
    "unique_id",
    "task_id",
    "step",
];
/// Field names of the kind of error.
const ERROR_TYPE: &[&str] = &["error_type", "exc_type", "exception_type", "exception"];
/// Field names of the error's message.
const MESSAGE: &[&str] = &["error_message", "error", "msg", "message", "exc"];

/// Most characters of a headline.
const MAX_CHARS: usize = 300;

/// A log line's time and level before its message (rich's
/// `[12:00:00] ERROR    `, Odibi's `[ERROR] ` tag), left out of a headline.
static LEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s+)?(?:(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL)\s+)?(?:\[(?:ERROR|WARN|WARNING|INFO|CRITICAL)\]\s*)?",
    )
    .expect("valid regex")
});

/// The start of a `(key=value, …)` tail.
static TAIL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\s\(([A-Za-z_][\w.]*)=").expect("valid regex"));

/// A `, key=` between two fields of a tail.
static NEXT_FIELD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r", ([A-Za-z_][\w.]*)=").expect("valid regex"));

/// The headline of `record`, when it carries the fields that say what
/// failed (at least a message, from a field or the text before a tail);
/// None for a record without fields.
pub(crate) fn of(record: &str) -> Option<String> {
    let record = record.trim();
    let line = if record.starts_with('{') {
        json(record)?
    } else {
        tail(record)?
    };
    let line = crate::ansi::one_line(&crate::ansi::visible(&line));
    let line = line.trim();
    (!line.is_empty()).then(|| clip(line))
}

fn clip(s: &str) -> String {
    if s.chars().count() <= MAX_CHARS {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_CHARS - 1).collect();
    out.push('…');
    out
}

/// `node: type: message`, each part left out when missing or already said
/// by the message.
fn compose(node: Option<String>, kind: Option<String>, message: String) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in [node, kind].into_iter().flatten() {
        if !part.is_empty() && !message.contains(&part) {
            parts.push(part);
        }
    }
    parts.push(message);
    parts.join(": ")
}

/// A JSON log line's headline: its fields, found at any depth.
fn json(record: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(record).ok()?;
    let message = find(&v, MESSAGE)?;
    Some(compose(find(&v, NODE), find(&v, ERROR_TYPE), message))
}

/// The first string field of `v` named one of `names` (in their order),
/// looked for at the top, then in nested objects.
fn find(v: &serde_json::Value, names: &[&str]) -> Option<String> {
    let obj = v.as_object()?;
    for n in names {
        if let Some(s) = obj.get(*n).and_then(serde_json::Value::as_str)
            && !s.trim().is_empty()
        {
            return Some(s.to_string());
        }
    }
    obj.values().find_map(|inner| find(inner, names))
}

/// A record with a `(key=value, …)` tail: its message (the text before
/// the tail, or the `error_message` field) with the node and error type.
fn tail(record: &str) -> Option<String> {
    let m = TAIL.find(record)?;
    let head = LEAD
        .replace(record[..m.start()].trim(), "")
        .trim()
        .to_string();
    let body = record[m.start()..].trim_start();
    let body = body.strip_prefix('(').unwrap_or(body);
    let body = body.strip_suffix(')').unwrap_or(body);
    // Fields split where `, key=` starts the next one: values may hold
    // commas of their own.
    let mut fields: Vec<(&str, &str)> = Vec::new();
    let mut rest = body;
    while let Some((key, value)) = rest.split_once('=') {
        match NEXT_FIELD.find(value) {
            Some(next) => {
                fields.push((key.trim(), value[..next.start()].trim()));
                rest = &value[next.start() + 2..];
            }
            None => {
                fields.push((key.trim(), value.trim()));
                break;
            }
        }
    }
    let field = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| {
                fields
                    .iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, v)| v.to_string())
            })
            .filter(|v| !v.is_empty())
    };
    let node = field(NODE);
    let kind = field(ERROR_TYPE);
    let message =
        field(&["error_message", "error"]).or_else(|| (!head.is_empty()).then_some(head))?;
    // A record of only a time and a node is no headline.
    (node.is_some() || kind.is_some() || fields.len() > 1).then(|| compose(node, kind, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_of_fields_gives_node_type_and_message() {
        let odibi = "[20:45:15] ERROR    [ERROR] Exception: BinderException: Binder Error: column x (timestamp=2026-11-25T20:45:15+00:00, node_id=clean_orders, engine=PandasEngine, error_type=BinderException, error_message=Binder Error: column x, y, elapsed_ms=0.4)";
        assert_eq!(
            of(odibi).unwrap(),
            "clean_orders: BinderException: Binder Error: column x, y"
        );
        let no_message = "ERROR    [ERROR] Node execution failed (timestamp=t, node_id=load_stock, engine=E, error_type=FileNotFoundError, elapsed_ms=1.0)";
        assert_eq!(
            of(no_message).unwrap(),
            "load_stock: FileNotFoundError: Node execution failed"
        );
        assert_eq!(of("Failure in model stg (models/staging/stg.sql)"), None);
        assert_eq!(of("plain text, no fields"), None);
    }

    #[test]
    fn a_json_line_gives_its_fields_at_any_depth() {
        let dbt = r#"{"data": {"node_info": {"node_name": "stg_orders"}}, "info": {"level": "error", "msg": "\u001b[31mFailure in model stg_orders (models/staging/stg_orders.sql)\u001b[0m", "ts": "t"}}"#;
        assert_eq!(
            of(dbt).unwrap(),
            "Failure in model stg_orders (models/staging/stg_orders.sql)"
        );
        let odibi = r#"{"level": "ERROR", "message": "Node failed", "node_id": "load_stock", "error_type": "FileNotFoundError", "error_message": "No such file: stock_levels.csv"}"#;
        assert_eq!(
            of(odibi).unwrap(),
            "load_stock: FileNotFoundError: No such file: stock_levels.csv"
        );
        assert_eq!(of(r#"{"level": "error"}"#), None);
    }
}
