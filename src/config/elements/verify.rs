//! Verify commands: `[[verify]]`, whose only own key is a required
//! `command`, run in its `working_dir` or beside the harness file.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::case::ExpectedOutcome;
use super::case::{
    Declared, KindFields, case_table, default_expected, explicit_working_dir, with_root,
};
use super::env::EnvValue;
use super::isolation::Isolation;
use super::values::HumanDuration;
use crate::config::HarnessConfig;
use crate::config::check::{Ctx, Table};

case_table! {
    /// A verify command: one test case.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
    #[serde(deny_unknown_fields)]
    pub struct Verify {
        /// Case name, unique across all `[[golden]]` and `[[verify]]` tables.
        #[cfg_attr(feature = "schema", schemars(length(min = 1)))]
        pub(crate) name: String,
        /// Command run in the `shell` (`sh -c` by default).
        #[cfg_attr(feature = "schema", schemars(example = &"cargo build --locked"))]
        pub(crate) command: String,
        /// What the command checks.
        pub(crate) description: Option<String>,
        /// Directory the command runs in, relative to this file. Default: this
        /// file's directory.
        pub(crate) working_dir: Option<String>,
        /// Timeout of this case. Default: `[harness] timeout`.
        pub(crate) timeout: Option<HumanDuration>,
        /// `"success"`; `"aborted"` (or `"timeout"`): the command must be ended
        /// by its timeout, to prove a watchdog fires; or
        /// `"specific_error:<regex>"`: the command must fail and its stdout or
        /// stderr match the regex.
        #[serde(default = "default_expected")]
        pub(crate) expected: ExpectedOutcome,
        /// Environment variables added to the inherited environment and to
        /// `[harness] env` (these win, name by name).
        #[serde(default)]
        #[cfg_attr(feature = "schema", schemars(extend("propertyNames" = { "pattern": "^[^=\\u0000]+$" })))]
        pub(crate) env: BTreeMap<String, EnvValue>,
    }
}

/// A verify command: a `command`, run in the working dir or beside the
/// harness file.
pub(crate) fn fields(
    cx: &mut Ctx<'_>,
    h: &HarnessConfig,
    d: &Declared<'_>,
    t: &Table<'_>,
    _name: Option<&str>,
) -> KindFields {
    let explicit_wd = explicit_working_dir(cx, h, t);
    let command = match t.get("command") {
        Some((_, v)) => cx
            .string(v, "command")
            .map(|c| with_root(&c, &h.base_dir, &h.shell)),
        None => {
            cx.err(
                d.node.pos,
                format!("verify command {} has no `command`", d.what),
                Some("add `command = \"…\"`".into()),
            );
            None
        }
    };
    KindFields {
        path: None,
        root: None,
        command,
        working_dir: Some(explicit_wd.unwrap_or_else(|| h.base_dir.clone())),
        isolation: Isolation::Check,
        ignore: Vec::new(),
        allow_dirty: false,
    }
}
