//! Failure patterns and required lines: `[patterns]`, a case's own
//! `patterns`, and `require` (of `[harness]` and of a case).

use serde::{Deserialize, Serialize};

use super::values::RustRegex;
use crate::config::check::{Ctx, keys_of};
use crate::config::tree::Node;

/// Failure patterns, added to the built-in ones, and lines that never
/// count as failures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct Patterns {
    /// A match makes the case VALIDATION_FAILED.
    #[serde(default)]
    pub(crate) validation: Vec<RustRegex>,
    /// A match makes the case RUNTIME_FAILED.
    #[serde(default)]
    pub(crate) runtime: Vec<RustRegex>,
    /// A match makes the case ABORTED.
    #[serde(default)]
    pub(crate) abort: Vec<RustRegex>,
    /// A line matching one of these never counts as a failure, e.g.
    /// `'Timeout=\d+'` for a line that prints a setting.
    #[serde(default)]
    pub(crate) allow: Vec<RustRegex>,
    /// `false` drops the built-in patterns.
    #[serde(default = "default_true")]
    pub(crate) builtin: bool,
    /// Log levels whose lines fail no case by a failure pattern: a line of
    /// a known log format (rich, Python logging, a timestamp then the
    /// level, log4j and Spark, JSON lines with `level`), or a record of a
    /// preset's format, at one of these levels counts like an allowed
    /// line. Default: a preset's, else TRACE, DEBUG, INFO, NOTICE, WARN and
    /// WARNING. `[]` reads no level.
    #[cfg_attr(feature = "schema", schemars(example = &["DEBUG", "INFO"]))]
    pub(crate) quiet: Option<Vec<String>>,
}

/// A case's own patterns, added to those of `[patterns]`; the keys are
/// those of `[patterns]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct CasePatterns {
    /// A match makes the case VALIDATION_FAILED.
    #[serde(default)]
    pub(crate) validation: Vec<RustRegex>,
    /// A match makes the case RUNTIME_FAILED.
    #[serde(default)]
    pub(crate) runtime: Vec<RustRegex>,
    /// A match makes the case ABORTED.
    #[serde(default)]
    pub(crate) abort: Vec<RustRegex>,
    /// A line matching one of these never counts as a failure of this
    /// case.
    #[serde(default)]
    pub(crate) allow: Vec<RustRegex>,
    /// `false` drops the built-in patterns for this case, `true` keeps
    /// them. Default: `[patterns] builtin`.
    pub(crate) builtin: Option<bool>,
    /// Log levels whose lines fail nothing, for this case. Default:
    /// `[patterns] quiet`.
    pub(crate) quiet: Option<Vec<String>>,
}

pub(crate) fn default_true() -> bool {
    true
}

impl Ctx<'_> {
    /// A case's `require`: regexes, at most [`crate::config::MAX_REQUIRE`].
    pub(crate) fn require(&mut self, node: &Node) -> Vec<String> {
        let lines = self.strings(node, "require");
        if lines.len() > crate::config::MAX_REQUIRE {
            self.err(
                node.pos,
                format!(
                    "`require` has {} patterns; at most {} are read",
                    lines.len(),
                    crate::config::MAX_REQUIRE
                ),
                Some("join patterns with `|`".into()),
            );
        }
        lines
            .into_iter()
            .filter(|(p, pos)| self.regex(p, *pos, "require").is_some())
            .map(|(p, _)| p)
            .collect()
    }

    /// A `patterns` table (`[patterns]` or a case's own): lists of regexes
    /// and `builtin`. The table accepts the keys of `[patterns]`.
    pub(crate) fn patterns(
        &mut self,
        node: &Node,
        what: &str,
        prefix: &str,
    ) -> Option<crate::config::CasePatterns> {
        let t = self.table(node, what, &keys_of("patterns"))?;
        let mut p = crate::config::CasePatterns::default();
        for (key, (_, v)) in &t {
            if *key == "builtin" {
                p.builtin = self.boolean(v, key);
                continue;
            }
            if *key == "quiet" {
                p.quiet = Some(self.strings(v, key).into_iter().map(|(l, _)| l).collect());
                continue;
            }
            let list: Vec<String> = self
                .strings(v, key)
                .into_iter()
                .filter(|(re, pos)| self.regex(re, *pos, &format!("{prefix}{key}")).is_some())
                .map(|(re, _)| re)
                .collect();
            match *key {
                "validation" => p.validation = list,
                "runtime" => p.runtime = list,
                "abort" => p.abort = list,
                "allow" => p.allow = list,
                _ => unreachable!("table() filters unknown keys"),
            }
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::check::diagnose;

    #[test]
    fn pattern_lists_hold_regexes() {
        let (p, errors) = diagnose(
            "{ validation = [\"(\", \"ok\"], builtin = false }",
            |cx, n| cx.patterns(n, "[patterns]", "patterns."),
        );
        let p = p.expect("a table");
        assert_eq!(
            (p.validation, p.builtin),
            (vec!["ok".to_string()], Some(false))
        );
        assert_eq!(
            errors,
            ["1:21: invalid regex `(` in `patterns.validation`: error: unclosed group"]
        );
    }

    #[test]
    fn require_reads_at_most_its_limit() {
        let many = format!(
            "[{}]",
            vec!["\"x\""; crate::config::MAX_REQUIRE + 1].join(", ")
        );
        let (_, errors) = diagnose(&many, |cx, n| cx.require(n));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("1:5: `require` has 65 patterns"),
            "{errors:?}"
        );
    }
}
