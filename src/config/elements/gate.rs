//! `[harness] gate` and `slowdown`: what the exit code follows, and when a
//! passing case counts as slower than its baseline.

use serde::{Deserialize, Serialize};

use super::values::leaf;
use crate::config::check::Ctx;
use crate::config::defaults;
use crate::config::tree::Node;
use crate::model::Gate;

/// Largest `slowdown` accepted: past it no duration could ever count as slower.
const MAX_SLOWDOWN: f64 = 1000.0;

/// `slowdown`: a factor between 1 and 1000.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Slowdown(pub f64);
leaf!(
    Slowdown,
    schemars::json_schema!({ "type": "number", "minimum": 1, "maximum": 1000 })
);

pub(crate) fn default_gate() -> Gate {
    Gate::Results
}
pub(crate) fn default_slowdown() -> Slowdown {
    Slowdown(defaults::SLOWDOWN)
}

// The schema of `[harness] gate` only: the value is a `model::Gate`, which
// `summary.json` documents for its readers; this is how the harness file
// documents it for its writers. Never built.
/// What the exit code follows.
#[cfg(feature = "schema")]
#[derive(schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "Gate")]
#[allow(dead_code)]
pub(crate) enum GateKey {
    /// Any FAILED or ERROR case fails the run.
    Results,
    /// The comparison with `golden-baseline.json`: a regressed, changed,
    /// missing or not-run case, or a failing new one, fails the run; known
    /// failures do not.
    Baseline,
}

impl Ctx<'_> {
    pub(crate) fn gate(&mut self, node: &Node, key: &str) -> Option<Gate> {
        self.spelled(
            node,
            key,
            Some(
                "\"results\" (default): any failed case fails the run; \"baseline\": only what regressed, changed or went missing against golden-baseline.json",
            ),
        )
    }

    pub(crate) fn slowdown(&mut self, node: &Node, key: &str) -> Option<f64> {
        let value = self.number(node, key)?;
        if value.is_finite() && (1.0..=MAX_SLOWDOWN).contains(&value) {
            Some(value)
        } else {
            self.err(
                node.pos,
                format!("`{key}` must be between 1 and {MAX_SLOWDOWN}, found {value}"),
                Some("a passing case counts as slower above `slowdown` times its baseline duration, e.g. 2.0".into()),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::{assert_spelled, diagnose};

    #[test]
    fn gates_are_spelled_as_serde_spells_them() {
        assert_spelled(
            |cx, n| cx.gate(n, "gate"),
            ("baseline", Gate::Baseline),
            "base",
            "`gate` must be \"results\" or \"baseline\", found \"base\"",
        );
    }

    #[test]
    fn slowdown_is_between_one_and_a_thousand() {
        let (_, errors) = diagnose("0.5", |cx, n| cx.slowdown(n, "slowdown"));
        assert_eq!(
            errors,
            ["1:5: `slowdown` must be between 1 and 1000, found 0.5"]
        );
        assert_eq!(
            diagnose("2", |cx, n| cx.slowdown(n, "slowdown")).0,
            Some(2.0)
        );
    }

    /// The schema's spellings of `gate` are those the loader accepts.
    #[cfg(feature = "schema")]
    #[test]
    fn the_schema_spells_gate_as_the_loader_does() {
        let schema = schemars::schema_for!(GateKey).to_value();
        let listed: Vec<&str> = schema["oneOf"]
            .as_array()
            .map(|values| values.iter().filter_map(|v| v["const"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(listed, crate::config::spelling::variants::<Gate>());
    }
}
