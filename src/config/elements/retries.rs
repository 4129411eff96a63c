//! Retries and flakiness: `retries` (of `[harness]` and of a case) and
//! `[harness] flaky`, what a case that passed only on a retry does.

use serde::{Deserialize, Serialize};

use super::values::leaf;
use crate::config::check::Ctx;
use crate::config::tree::Node;
use crate::model::FlakyPolicy;

/// Extra attempts: 0 to [`MAX_RETRIES`].
///
/// [`MAX_RETRIES`]: crate::config::MAX_RETRIES
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Retries(pub u64);
leaf!(
    Retries,
    schemars::json_schema!({ "type": "integer", "minimum": 0, "maximum": crate::config::MAX_RETRIES })
);

pub(crate) fn default_retries() -> Retries {
    Retries(0)
}

impl Ctx<'_> {
    pub(crate) fn flaky_policy(&mut self, node: &Node, key: &str) -> Option<FlakyPolicy> {
        self.spelled(
            node,
            key,
            Some(
                "what a case that passed only after a failed attempt does: \"warn\" (default) passes it with a warning, \"fail\" fails the run",
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::assert_spelled;

    #[test]
    fn flaky_policies_are_spelled_as_serde_spells_them() {
        assert_spelled(
            |cx, n| cx.flaky_policy(n, "flaky"),
            ("fail", FlakyPolicy::Fail),
            "maybe",
            "`flaky` must be \"pass\", \"warn\" or \"fail\", found \"maybe\"",
        );
    }
}
