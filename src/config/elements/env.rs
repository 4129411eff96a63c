//! `env` (of `[harness]` and of a case) and `[harness] redact_env`: the
//! environment a case gets and the variables masked in what it writes.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::values::leaf;
use crate::config::check::Ctx;
use crate::config::tree::{Node, Value};
use crate::redact::{NamePattern, RedactRules, RuleEntry};

/// A variable name, a glob over names, or either after `!`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct EnvNamePattern(pub String);
leaf!(
    EnvNamePattern,
    schemars::json_schema!({ "type": "string", "minLength": 1, "pattern": "^!?[^=!][^=]*$" })
);

/// An environment value: the loader turns numbers and booleans into text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum EnvValue {
    /// Text, used as is.
    String(String),
    /// An integer, written in decimal.
    Integer(i64),
    /// A float.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
}
leaf!(
    EnvValue,
    schemars::json_schema!({ "type": ["string", "number", "boolean"] })
);

impl Ctx<'_> {
    /// A case's `env` table: names a process environment can hold (no
    /// `=`, no NUL, not empty) and string-like values without NUL.
    pub(crate) fn env(&mut self, node: &Node) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        let Value::Map(vars) = &node.value else {
            self.err(
                node.pos,
                format!("`env` must be a table, found {}", node.value.kind_name()),
                None,
            );
            return env;
        };
        for (k, val) in vars {
            if k.name.is_empty() || k.name.contains(['=', '\0']) {
                self.err(
                    k.pos,
                    format!("env name {:?} cannot be an environment variable", k.name),
                    Some("names must be non-empty and hold neither `=` nor NUL".into()),
                );
                continue;
            }
            let s = match &val.value {
                Value::Str(_) => match self.expanded(val, &format!("env.{}", k.name)) {
                    Some(s) => s,
                    None => continue,
                },
                Value::Int(i) => i.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Float(f) => f.to_string(),
                other => {
                    let msg = format!(
                        "env `{}` must be a string, found {}",
                        k.name,
                        other.kind_name()
                    );
                    self.err(val.pos, msg, None);
                    continue;
                }
            };
            if s.contains('\0') {
                self.err(
                    val.pos,
                    format!("env `{}` holds a NUL character", k.name),
                    None,
                );
                continue;
            }
            env.insert(k.name.clone(), s);
        }
        env
    }

    /// `redact_env`: names and globs to mask, `!` entries to leave alone.
    pub(crate) fn redact_env(&mut self, node: &Node, key: &str) -> RedactRules {
        let mut rules = RedactRules::default();
        let mut exact: HashMap<String, bool> = HashMap::new();
        for (text, pos) in self.strings(node, key) {
            match RedactRules::entry(&text) {
                Ok(entry) => {
                    if let RuleEntry::Include(NamePattern::Exact(n))
                    | RuleEntry::Exclude(NamePattern::Exact(n)) = &entry
                    {
                        let include = matches!(entry, RuleEntry::Include(_));
                        match exact.get(n) {
                            Some(was) if *was != include => self.err(
                                pos,
                                format!("`{n}` is both masked and excluded in `{key}`"),
                                Some(format!("keep `{n}` to mask it, or `!{n}` to leave it alone")),
                            ),
                            _ => {
                                exact.insert(n.clone(), include);
                            }
                        }
                    }
                    rules.push(entry);
                }
                Err(message) => self.err(
                    pos,
                    format!("invalid `{key}` entry: {message}"),
                    Some(
                        "write a variable name (`API_TOKEN`), a glob (`AWS_*`), or `!NAME` to leave a variable unmasked"
                            .into(),
                    ),
                ),
            }
        }
        rules
    }
}

#[cfg(test)]
mod tests {
    use crate::config::check::diagnose;

    #[test]
    fn env_values_become_text() {
        let (env, errors) = diagnose("{ A = 1, B = true, C = \"x\" }", |cx, n| cx.env(n));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(env["A"], "1");
        assert_eq!(env["B"], "true");
        let (_, errors) = diagnose("{ \"A=B\" = \"x\" }", |cx, n| cx.env(n));
        assert_eq!(
            errors,
            ["1:7: env name \"A=B\" cannot be an environment variable"]
        );
    }

    #[test]
    fn a_name_cannot_be_masked_and_excluded() {
        let (_, errors) = diagnose("[\"A\", \"!A\"]", |cx, n| cx.redact_env(n, "redact_env"));
        assert_eq!(
            errors,
            ["1:11: `A` is both masked and excluded in `redact_env`"]
        );
    }
}
