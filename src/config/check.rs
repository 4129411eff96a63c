//! The diagnostics of one harness file, and the checks of plain values
//! that every key's element builds on: tables with did-you-mean, strings
//! (with `${VAR}` expanded), booleans, integers in a range, numbers,
//! arrays of strings, regexes, and enum values spelled as serde spells
//! them. Each check reports at the value's `file:line:col` and returns
//! `None`, so the walk goes on and a file's errors come together.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::Diagnostic;
use super::spelling;
use super::tree::{Key, Node, Pos, Value};

/// Keys each table accepts (`""` is the top level), for the checks below
/// and suggestions: generated from the typed definition of the file
/// ([`super::schema`]), which the printed schema comes from too.
pub static KNOWN_KEYS: &[(&str, &[&str])] = super::keys::TABLE_KEYS;

pub(crate) fn keys_of(table: &str) -> Vec<&'static str> {
    KNOWN_KEYS
        .iter()
        .find(|(t, _)| *t == table)
        .map(|(_, keys)| keys.to_vec())
        .unwrap_or_default()
}

/// Collects diagnostics while checking one file.
pub(crate) struct Ctx<'f> {
    pub(crate) file: &'f Path,
    pub(crate) diags: Vec<Diagnostic>,
}

impl Ctx<'_> {
    pub(crate) fn err(&mut self, pos: Pos, message: String, help: Option<String>) {
        self.diags.push(Diagnostic {
            file: self.file.to_path_buf(),
            pos,
            message,
            help,
        });
    }

    /// The entries of a table, with unknown keys reported.
    pub(crate) fn table<'n>(
        &mut self,
        node: &'n Node,
        what: &str,
        allowed: &[&str],
    ) -> Option<BTreeMap<&'n str, (&'n Key, &'n Node)>> {
        let Value::Map(entries) = &node.value else {
            self.err(
                node.pos,
                format!("{what} must be a table, found {}", node.value.kind_name()),
                None,
            );
            return None;
        };
        let mut out = BTreeMap::new();
        for (k, v) in entries {
            if allowed.contains(&k.name.as_str()) {
                out.insert(k.name.as_str(), (k, v));
            } else {
                let help = suggest(&k.name, allowed).map_or_else(
                    || format!("known keys: {}", allowed.join(", ")),
                    |s| format!("did you mean `{s}`?"),
                );
                self.err(
                    k.pos,
                    format!("unknown key `{}` in {what}", k.name),
                    Some(help),
                );
            }
        }
        Some(out)
    }

    pub(crate) fn string(&mut self, node: &Node, key: &str) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be a string, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    /// A string with `${VAR}` expanded; an unset variable is an error at
    /// the value.
    pub(crate) fn expanded(&mut self, node: &Node, key: &str) -> Option<String> {
        let s = self.string(node, key)?;
        match expand_vars(&s, |n| std::env::var(n).ok()) {
            Ok(v) => Some(v),
            Err(var) => {
                self.err(
                    node.pos,
                    format!("`{key}` uses `${{{var}}}`, which is not set"),
                    Some(format!(
                        "set {var}, give a default with `${{{var}:-default}}`, or write `$$` for a literal `$`"
                    )),
                );
                None
            }
        }
    }

    pub(crate) fn boolean(&mut self, node: &Node, key: &str) -> Option<bool> {
        match &node.value {
            Value::Bool(b) => Some(*b),
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be true or false, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    pub(crate) fn integer(&mut self, node: &Node, key: &str, min: i64, max: i64) -> Option<i64> {
        match &node.value {
            Value::Int(i) if (min..=max).contains(i) => Some(*i),
            Value::Int(i) if *i < min => {
                self.err(
                    node.pos,
                    format!("`{key}` must be at least {min}, found {i}"),
                    None,
                );
                None
            }
            Value::Int(i) => {
                self.err(
                    node.pos,
                    format!("`{key}` must be at most {max}, found {i}"),
                    None,
                );
                None
            }
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be an integer, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    pub(crate) fn strings(&mut self, node: &Node, key: &str) -> Vec<(String, Pos)> {
        match &node.value {
            Value::Seq(items) => items
                .iter()
                .filter_map(|n| self.string(n, key).map(|s| (s, n.pos)))
                .collect(),
            other => {
                self.err(
                    node.pos,
                    format!(
                        "`{key}` must be an array of strings, found {}",
                        other.kind_name()
                    ),
                    None,
                );
                Vec::new()
            }
        }
    }

    pub(crate) fn regex(
        &mut self,
        pattern: &str,
        pos: Pos,
        key: &str,
    ) -> Option<regex::bytes::Regex> {
        match regex::bytes::Regex::new(pattern) {
            Ok(r) => Some(r),
            Err(e) => {
                let detail = e.to_string();
                let last = detail.lines().last().unwrap_or("").trim().to_string();
                self.err(
                    pos,
                    format!("invalid regex `{pattern}` in `{key}`: {last}"),
                    Some(
                        "patterns use Rust `regex` syntax; escape special characters with `\\`"
                            .into(),
                    ),
                );
                None
            }
        }
    }

    /// A number (an integer or a float).
    pub(crate) fn number(&mut self, node: &Node, key: &str) -> Option<f64> {
        match &node.value {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            other => {
                self.err(
                    node.pos,
                    format!("`{key}` must be a number, found {}", other.kind_name()),
                    None,
                );
                None
            }
        }
    }

    /// A finite number ≥ 0.
    pub(crate) fn non_negative(&mut self, node: &Node, key: &str) -> Option<f64> {
        let value = self.number(node, key)?;
        if value.is_finite() && value >= 0.0 {
            Some(value)
        } else {
            self.err(
                node.pos,
                format!("`{key}` must be a number ≥ 0, found {value}"),
                None,
            );
            None
        }
    }

    /// A string naming a value of `T` as serde spells it; any other
    /// string is an error listing the spellings.
    pub(crate) fn spelled<T: DeserializeOwned>(
        &mut self,
        node: &Node,
        key: &str,
        help: Option<&str>,
    ) -> Option<T> {
        let s = self.string(node, key)?;
        let value = spelling::parse::<T>(&s);
        if value.is_none() {
            self.err(
                node.pos,
                format!(
                    "`{key}` must be {}, found \"{s}\"",
                    spelling::listed::<T>("or")
                ),
                help.map(str::to_string),
            );
        }
        value
    }
}

/// The closest known key, if close enough to be a typo.
pub(crate) fn suggest<'a>(got: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|k| (strsim::damerau_levenshtein(got, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4) && *d < k.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

pub(crate) type Table<'n> = BTreeMap<&'n str, (&'n Key, &'n Node)>;

/// `${VAR}` and `${VAR:-default}` replaced from the environment, `$$` as
/// a literal `$`; any other `$` is kept. The name of an unset variable
/// without a default is the error.
pub(crate) fn expand_vars(s: &str, get: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(body) = after.strip_prefix('{')
            && let Some(end) = body.find('}')
        {
            let inner = &body[..end];
            let (name, default) = match inner.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            match (
                get(name).filter(|v| !v.is_empty() || default.is_none()),
                default,
            ) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => return Err(name.to_string()),
            }
            rest = &body[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Runs `check` on the value of `v = <value>` (TOML) and returns its
/// result with each diagnostic as `line:col: message`.
#[cfg(test)]
pub(crate) fn diagnose<T>(
    value: &str,
    check: impl FnOnce(&mut Ctx<'_>, &Node) -> T,
) -> (T, Vec<String>) {
    let root = super::tree::parse_toml(&format!("v = {value}\n")).expect("valid TOML");
    let Value::Map(entries) = &root.value else {
        panic!("a TOML document is a table");
    };
    let mut cx = Ctx {
        file: Path::new("harness.toml"),
        diags: Vec::new(),
    };
    let out = check(&mut cx, &entries[0].1);
    let messages = cx
        .diags
        .iter()
        .map(|d| format!("{}:{}: {}", d.pos.line, d.pos.col, d.message))
        .collect();
    (out, messages)
}

/// Holds a check of an enum key to serde's spellings: `good` reads as
/// `want` with no error, `bad` is the one error `message` at `1:5`.
#[cfg(test)]
pub(crate) fn assert_spelled<T: PartialEq + std::fmt::Debug>(
    check: impl Fn(&mut Ctx<'_>, &Node) -> Option<T>,
    (good, want): (&str, T),
    bad: &str,
    message: &str,
) {
    let (value, errors) = diagnose(&format!("\"{good}\""), &check);
    assert_eq!((value, errors.len()), (Some(want), 0), "{errors:?}");
    let (value, errors) = diagnose(&format!("\"{bad}\""), &check);
    assert_eq!((value, errors), (None, vec![format!("1:5: {message}")]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        assert_eq!(suggest("nmae", &keys_of("golden")), Some("name"));
        assert_eq!(suggest("comand", &keys_of("golden")), Some("command"));
        assert_eq!(suggest("zzzzzz", &keys_of("golden")), None);
    }
}
