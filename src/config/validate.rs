//! Second pass: the walk of the spanned tree into [`HarnessConfig`] and
//! [`crate::config::CaseDef`]s. It visits the tables in file order and
//! hands each key to its element ([`crate::config::elements`]), which
//! checks it; every error of the file is gathered, then sorted by
//! position, and reported together.

use std::path::Path;

use super::check::{Ctx, Table, keys_of};
use super::elements::case::{Cases, Declared, KindCheck};
use super::elements::harness::{harness_settings, profile};
use super::elements::presets::judging;
use super::elements::{golden, verify};
use super::tree::{Node, Value};
use super::{ConfigError, HarnessConfig};
use crate::model::CaseKind;

/// Check `root` into `h`, reporting every problem.
pub(super) fn check(root: &Node, file: &Path, h: &mut HarnessConfig) -> Result<(), ConfigError> {
    let mut cx = Ctx {
        file,
        diags: Vec::new(),
    };
    let Some(top) = cx.table(root, "the harness file", &keys_of("")) else {
        return Err(ConfigError::Invalid(cx.diags));
    };
    settings(&mut cx, &top, h);
    let mut cases = Cases::default();
    for (ordinal, (kind, list_key, node)) in case_tables(&mut cx, &top).into_iter().enumerate() {
        let what = format!("[[{list_key}]] #{}", ordinal + 1);
        if let Some(t) = cx.table(node, &what, &keys_of(list_key)) {
            let kind_check: KindCheck = match kind {
                CaseKind::Golden => golden::fields,
                CaseKind::Verify => verify::fields,
            };
            cases.check(&mut cx, h, Declared { kind, what, node }, &t, kind_check);
        }
    }
    cases.resolve_after(&mut cx, h);
    if cx.diags.is_empty() {
        Ok(())
    } else {
        cx.diags.sort_by_key(|d| d.pos);
        Err(ConfigError::Invalid(cx.diags))
    }
}

/// The tables that are not cases: `[harness]`, the selected `[profile]`,
/// `[patterns]` and `[redactions]`.
fn settings(cx: &mut Ctx<'_>, top: &Table<'_>, h: &mut HarnessConfig) {
    let mut require_golden_pos = None;
    if let Some((_, node)) = top.get("harness")
        && let Some(t) = cx.table(node, "[harness]", &keys_of("harness"))
    {
        harness_settings(cx, &t, h, &mut require_golden_pos);
    }
    if let Some(name) = h.profile.clone() {
        profile(
            cx,
            top.get("profile").map(|(_, n)| *n),
            &name,
            h,
            &mut require_golden_pos,
        );
    }
    h.require_golden_at = require_golden_pos;

    h.own_patterns = top
        .get("patterns")
        .and_then(|(_, node)| cx.patterns(node, "[patterns]", "patterns."))
        .unwrap_or_default();
    let presets = h.presets.clone().unwrap_or_default();
    h.patterns = judging(h, &presets, None, None, CaseKind::Golden).patterns;

    if let Some((_, node)) = top.get("redactions") {
        h.redactions = cx.redactions(node);
    }
}

/// Every case table with its kind and list, in the order they were
/// written: `[[golden]]` and `[[verify]]` may interleave.
fn case_tables<'n>(cx: &mut Ctx<'_>, top: &Table<'n>) -> Vec<(CaseKind, &'static str, &'n Node)> {
    let mut raw: Vec<(CaseKind, &'static str, &Node)> = Vec::new();
    for (list_key, kind) in [
        ("golden", CaseKind::Golden),
        ("verify", CaseKind::Verify),
        ("golden_projects", CaseKind::Golden),
    ] {
        let Some((_, node)) = top.get(list_key) else {
            continue;
        };
        match &node.value {
            Value::Seq(items) => raw.extend(items.iter().map(|n| (kind, list_key, n))),
            other => cx.err(
                node.pos,
                format!(
                    "`{list_key}` must be an array of tables (`[[{list_key}]]`), found {}",
                    other.kind_name()
                ),
                None,
            ),
        }
    }
    raw.sort_by_key(|(_, _, n)| n.offset);
    raw
}
