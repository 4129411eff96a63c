//! The leaf values of the harness file: durations, bounded integers,
//! regexes and globs, each with a fixed, inlined schema, and the check of
//! a duration over the spanned tree.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::check::Ctx;
use crate::config::tree::Node;

/// Durations as the loader parses them (`humantime`): numbers with units,
/// optionally fractional, optionally separated by spaces.
pub(crate) const DURATION_PATTERN: &str = r"^\s*(\d+(\.\d+)?\s*(nanos|nsec|ns|usec|us|µs|millis|msec|ms|seconds|second|secs|sec|s|minutes|minute|mins|min|m|hours|hour|hrs|hr|h|days|day|d|weeks|week|wks|wk|w|months|month|M|years|year|yrs|yr|y)\s*)+$";

/// Implements `schemars::JsonSchema` for a leaf type with a fixed, inlined schema.
macro_rules! leaf {
    ($ty:ident, $schema:expr) => {
        #[cfg(feature = "schema")]
        impl ::schemars::JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                $schema
            }
        }
    };
}
pub(crate) use leaf;

/// A humantime duration such as `"90s"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct HumanDuration(pub String);
leaf!(
    HumanDuration,
    schemars::json_schema!({
        "type": "string",
        "pattern": DURATION_PATTERN,
        "examples": ["500ms", "90s", "2m", "1h 30m"],
    })
);

impl HumanDuration {
    pub(crate) fn of(d: std::time::Duration) -> HumanDuration {
        HumanDuration(humantime::format_duration(d).to_string())
    }
}

/// Characters of output kept in reports: 1 to [`MAX_TRUNCATE`].
///
/// [`MAX_TRUNCATE`]: crate::config::MAX_TRUNCATE
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Truncate(pub u64);
leaf!(
    Truncate,
    schemars::json_schema!({ "type": "integer", "minimum": 1, "maximum": crate::config::MAX_TRUNCATE })
);

/// Cases at once: 1 to [`MAX_JOBS`].
///
/// [`MAX_JOBS`]: crate::config::MAX_JOBS
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Jobs(pub u64);
leaf!(
    Jobs,
    schemars::json_schema!({ "type": "integer", "minimum": 1, "maximum": crate::config::MAX_JOBS })
);

/// An integer of at least 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct AtLeastZero(pub u64);
leaf!(
    AtLeastZero,
    schemars::json_schema!({ "type": "integer", "minimum": 0 })
);

/// A Rust `regex` pattern (not checked by the schema: the JSON Schema
/// dialect of regexes differs from Rust's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct RustRegex(pub String);
leaf!(RustRegex, schemars::json_schema!({ "type": "string" }));

/// A glob relative to the golden project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Glob(pub String);
leaf!(Glob, schemars::json_schema!({ "type": "string" }));

impl Ctx<'_> {
    pub(crate) fn duration(&mut self, node: &Node, key: &str) -> Option<Duration> {
        let s = self.string(node, key)?;
        match humantime::parse_duration(s.trim()) {
            Ok(d) if d.is_zero() => {
                self.err(node.pos, format!("`{key}` must be longer than zero"), None);
                None
            }
            Ok(d) if d > crate::config::MAX_DURATION => {
                self.err(
                    node.pos,
                    format!("`{key}` = \"{s}\" is too long: at most 1 year"),
                    None,
                );
                None
            }
            Ok(d) => Some(d),
            Err(e) => {
                self.err(
                    node.pos,
                    format!("bad duration `{s}` for `{key}`: {e}"),
                    Some(
                        "write a duration such as \"500ms\", \"90s\", \"2m\" or \"1h 30m\"".into(),
                    ),
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::diagnose;

    #[test]
    fn durations_are_positive_and_at_most_a_year() {
        let (d, errors) = diagnose("\"90s\"", |cx, n| cx.duration(n, "timeout"));
        assert_eq!((d, errors.len()), (Some(Duration::from_secs(90)), 0));
        let (_, errors) = diagnose("\"0s\"", |cx, n| cx.duration(n, "timeout"));
        assert_eq!(errors, ["1:5: `timeout` must be longer than zero"]);
        let (_, errors) = diagnose("\"2y\"", |cx, n| cx.duration(n, "slow"));
        assert_eq!(errors, ["1:5: `slow` = \"2y\" is too long: at most 1 year"]);
    }

    #[test]
    fn duration_pattern_agrees_with_humantime() {
        let re = regex::Regex::new(DURATION_PATTERN).unwrap();
        let samples = [
            "500ms",
            "90s",
            "2m",
            "10m",
            "1h 30m",
            "1h30m",
            "1.5h",
            " 2 min ",
            "3 days",
            "1week",
            "250us",
            "250µs",
            "7ns",
            "1M",
            "2y",
            "",
            "10",
            "ms",
            "1 fortnight",
            "1.h",
            "-1s",
            "1s,2s",
            "10m later",
        ];
        for s in samples {
            let loader = humantime::parse_duration(s.trim()).is_ok();
            assert_eq!(
                re.is_match(s),
                loader,
                "pattern and humantime disagree on {s:?}"
            );
        }
    }
}
