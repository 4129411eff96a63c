//! A case's `quarantine`: keep running a case known to fail, until a date.

use serde::{Deserialize, Serialize};

use crate::config::check::{Ctx, keys_of};
use crate::config::tree::Node;

/// A case's quarantine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(crate) struct QuarantineKey {
    /// Why the case is quarantined.
    pub(crate) reason: String,
    /// The last day the quarantine holds, `YYYY-MM-DD` (UTC).
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"), example = &"2027-01-31"))]
    pub(crate) until: String,
    /// Where the failure is tracked, e.g. an issue URL.
    pub(crate) issue: Option<String>,
}

impl Ctx<'_> {
    /// A case's `quarantine = { reason, until, issue }`.
    pub(crate) fn quarantine(&mut self, node: &Node) -> Option<crate::model::Quarantine> {
        let t = self.table(node, "`quarantine`", &keys_of("quarantine"))?;
        let field = |cx: &mut Self, key: &str| {
            let Some((_, v)) = t.get(key) else {
                if key != "issue" {
                    cx.err(
                        node.pos,
                        format!("`quarantine` has no `{key}`"),
                        Some("write `quarantine = { reason = \"…\", until = \"2027-01-31\", issue = \"URL\" }`".into()),
                    );
                }
                return None;
            };
            cx.string(v, &format!("quarantine.{key}"))
                .map(|s| (s, v.pos))
        };
        let reason = field(self, "reason");
        let until = field(self, "until");
        let issue = field(self, "issue").map(|(s, _)| s);
        let (until, pos) = until?;
        if until.len() != 10 || until.parse::<crate::time::Date>().is_err() {
            self.err(
                pos,
                format!("`quarantine.until` must be a date `YYYY-MM-DD`, found \"{until}\""),
                None,
            );
            return None;
        }
        Some(crate::model::Quarantine {
            reason: reason?.0,
            until,
            issue,
            expired: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::config::check::diagnose;

    #[test]
    fn a_quarantine_needs_a_reason_and_a_date() {
        let (q, errors) = diagnose("{ reason = \"r\", until = \"2027-01-31\" }", |cx, n| {
            cx.quarantine(n)
        });
        assert_eq!(q.map(|q| q.until), Some("2027-01-31".to_string()));
        assert!(errors.is_empty(), "{errors:?}");
        let (_, errors) = diagnose("{ until = \"2027-13-99\" }", |cx, n| cx.quarantine(n));
        assert_eq!(
            errors,
            [
                "1:5: `quarantine` has no `reason`",
                "1:15: `quarantine.until` must be a date `YYYY-MM-DD`, found \"2027-13-99\"",
            ]
        );
    }
}
