//! Snapshots and their redactions: a case's `snapshot` list, the
//! `[redactions]` table, and the snapshot files each case claims.

use std::collections::HashMap;

use serde::Deserialize;

use crate::config::check::Ctx;
use crate::config::spelling;
use crate::config::tree::{Node, Pos, Value};
use crate::config::{Redaction, SnapshotStreams};

/// Placeholders the engine fills itself; `[redactions]` cannot redefine them.
pub(crate) const BUILTIN_REDACTIONS: [&str; 6] = [
    "[ROOT]",
    "[CWD]",
    "[TMP]",
    "[RUN_ID]",
    "[TIMESTAMP]",
    "[DURATION]",
];

// The spellings of a `snapshot` entry: the value kept is a
// `model::Stream`, whose third variant, `data`, no `snapshot` lists.
/// An output stream compared with its snapshot file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub(crate) enum SnapshotStream {
    /// Compared with `snapshots/<name>.stdout`.
    Stdout,
    /// Compared with `snapshots/<name>.stderr`.
    Stderr,
}

#[cfg(feature = "schema")]
/// `[redactions]`: placeholder names, other than the built-in ones, to
/// Rust regexes.
pub(crate) fn redactions_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "propertyNames": {
            "pattern": "^\\[[A-Z0-9_]+\\]$",
            "not": { "enum": BUILTIN_REDACTIONS },
        },
        "additionalProperties": { "type": "string" },
        "examples": [{ "[PORT]": ":\\d{4,5}\\b" }],
    })
}

impl Ctx<'_> {
    /// The `[redactions]` table: `"[NAME]" = "<regex>"` entries.
    pub(crate) fn redactions(&mut self, node: &Node) -> Vec<Redaction> {
        let Value::Map(entries) = &node.value else {
            self.err(
                node.pos,
                format!(
                    "[redactions] must be a table, found {}",
                    node.value.kind_name()
                ),
                Some("write entries as `\"[NAME]\" = \"<regex>\"`".into()),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            let name = &key.name;
            if !is_placeholder(name) {
                self.err(
                    key.pos,
                    format!("redaction name `{name}` must look like `[NAME]`"),
                    Some(
                        "capital letters, digits and `_` inside square brackets, e.g. `\"[PORT]\" = ':\\d+'`"
                            .into(),
                    ),
                );
                continue;
            }
            if BUILTIN_REDACTIONS.contains(&name.as_str()) {
                self.err(
                    key.pos,
                    format!("`{name}` is a built-in redaction and cannot be redefined"),
                    Some(format!(
                        "built-ins: {}; pick another name",
                        BUILTIN_REDACTIONS.join(", ")
                    )),
                );
                continue;
            }
            let Some(pattern) = self.string(value, &format!("redactions.{name}")) else {
                continue;
            };
            match regex::Regex::new(&pattern) {
                Ok(regex) if regex.is_match("") => self.err(
                    value.pos,
                    format!("redaction `{name}` = `{pattern}` matches the empty string"),
                    Some(
                        "it would insert the placeholder everywhere; make the pattern match at least one character"
                            .into(),
                    ),
                ),
                Ok(regex) => out.push(Redaction {
                    name: name.clone(),
                    regex,
                }),
                Err(e) => {
                    let detail = e.to_string();
                    let last = detail.lines().last().unwrap_or("").trim().to_string();
                    self.err(
                        value.pos,
                        format!("invalid regex `{pattern}` in `redactions.{name}`: {last}"),
                        Some("redactions use Rust `regex` syntax".into()),
                    );
                }
            }
        }
        out
    }

    /// A case's `snapshot = ["stdout", "stderr"]`.
    pub(crate) fn snapshot_streams(&mut self, node: &Node) -> SnapshotStreams {
        let mut streams = SnapshotStreams::default();
        for (s, pos) in self.strings(node, "snapshot") {
            let slot = match spelling::parse::<SnapshotStream>(&s) {
                Some(SnapshotStream::Stdout) => &mut streams.stdout,
                Some(SnapshotStream::Stderr) => &mut streams.stderr,
                None => {
                    self.err(
                        pos,
                        format!(
                            "`snapshot` lists {}, found \"{s}\"",
                            spelling::listed::<SnapshotStream>("and")
                        ),
                        None,
                    );
                    continue;
                }
            };
            if *slot {
                self.err(pos, format!("\"{s}\" is listed twice in `snapshot`"), None);
            }
            *slot = true;
        }
        streams
    }
}

/// `[` capital letters, digits and `_` `]`.
fn is_placeholder(name: &str) -> bool {
    name.strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .is_some_and(|inner| {
            !inner.is_empty()
                && inner
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        })
}

/// Snapshot file stems claimed so far, folded to lower case: on
/// case-insensitive file systems (macOS, Windows) `Sales` and `sales`
/// would share one file.
#[derive(Default)]
pub(crate) struct SnapshotFiles {
    claimed: HashMap<String, (String, usize)>,
}

impl SnapshotFiles {
    /// Claim the snapshot files of case `name`; a clash is an error at `pos`.
    pub(crate) fn claim(
        &mut self,
        cx: &mut Ctx<'_>,
        name: &str,
        streams: SnapshotStreams,
        pos: Pos,
    ) {
        if streams.is_empty() {
            return;
        }
        let stem = crate::layout::snapshot_stem(name);
        let folded = stem.to_lowercase();
        match self.claimed.get(&folded) {
            Some((other, line)) if other != name => cx.err(
                pos,
                format!(
                    "the snapshot files of `{name}` ({}/{stem}.*) would be those of `{other}` (line {line}) on a case-insensitive file system",
                    crate::layout::SNAPSHOT_DIR
                ),
                Some("rename one of the two cases".into()),
            ),
            Some(_) => {}
            None => {
                self.claimed.insert(folded, (name.to_string(), pos.line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::check::diagnose;

    #[test]
    fn placeholders_are_bracketed_capitals() {
        assert!(is_placeholder("[PORT]"));
        assert!(is_placeholder("[HASH_2]"));
        for bad in ["PORT", "[port]", "[]", "[A B]", "[A]x"] {
            assert!(!is_placeholder(bad), "{bad}");
        }
    }

    #[test]
    fn snapshot_lists_each_stream_once() {
        let (streams, errors) = diagnose("[\"stdout\", \"stdout\", \"log\"]", |cx, n| {
            cx.snapshot_streams(n)
        });
        assert!(streams.stdout && !streams.stderr);
        assert_eq!(
            errors,
            [
                "1:16: \"stdout\" is listed twice in `snapshot`",
                "1:26: `snapshot` lists \"stdout\" and \"stderr\", found \"log\"",
            ]
        );
    }
}
