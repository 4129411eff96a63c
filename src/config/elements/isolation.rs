//! `isolation` (of `[harness]` and of a golden project): how a golden
//! project is kept from being modified by a run.

use serde::{Deserialize, Serialize};

use crate::config::check::Ctx;
use crate::config::tree::Node;

/// How a golden project is protected from modification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum Isolation {
    /// Run in place: hash the project's files before and after the run;
    /// any change (but to what git ignores) fails the case with
    /// GOLDEN_MODIFIED. For projects that must not write at all.
    Check,
    /// Run in a fresh temporary copy of the project (the default); the
    /// original is still checked.
    Copy,
}

pub(crate) fn default_isolation() -> Isolation {
    Isolation::Copy
}

impl Ctx<'_> {
    pub(crate) fn isolation(&mut self, node: &Node) -> Option<Isolation> {
        self.spelled(node, "isolation", None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::assert_spelled;

    #[test]
    fn isolations_are_spelled_as_serde_spells_them() {
        assert_spelled(
            |cx, n| cx.isolation(n),
            ("check", Isolation::Check),
            "cpy",
            "`isolation` must be \"check\" or \"copy\", found \"cpy\"",
        );
    }
}
