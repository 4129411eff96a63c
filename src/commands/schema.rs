//! `cargo golden schema`: the JSON Schemas of the files users write and
//! tools read, generated from the wire types ([`crate::wire`]) so they
//! cannot drift from what is written and read: `harness.toml` (for
//! editors), and with a flag the observation record, `summary.json`,
//! `evidence.json` or the `--message-format json` lines.

use serde_json::Value;

use super::validate::Format;

/// The JSON Schema of `harness.toml` (and of its YAML form).
pub fn harness_schema() -> Value {
    crate::config::schema::harness_schema()
}

/// The reference of every `harness.toml` key in Markdown, from the same
/// types as [`harness_schema`].
pub(crate) fn keys_reference() -> String {
    crate::config::schema::keys_reference()
}

/// The JSON Schema of one line of `observations.jsonl`.
///
/// Fields a later `1.x` version may add are allowed; every field of `1.0.0`
/// is required.
pub fn observation_schema() -> Value {
    Format::Observation.schema()
}

/// The schema `cargo golden schema` prints: the harness file's, or that of
/// the output format `format`.
pub(crate) fn schema(format: Option<Format>) -> Value {
    format.map_or_else(harness_schema, Format::schema)
}

/// What `cargo golden schema` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Print {
    /// `--keys`: the reference of every harness.toml key, in Markdown.
    Keys,
    /// The JSON Schema of harness.toml, or of an output format.
    Schema(Option<Format>),
}

/// `cargo golden schema`: print what `print` names to stdout.
pub(crate) fn command(print: Print) -> i32 {
    use crate::commands::output::{CommandError, print_stdout, usage_error};
    let format = match print {
        Print::Keys => {
            print_stdout(&keys_reference());
            return crate::conclusion::SUCCESS;
        }
        Print::Schema(format) => format,
    };
    match serde_json::to_string_pretty(&schema(format)) {
        Ok(text) => {
            print_stdout(&text);
            crate::conclusion::SUCCESS
        }
        Err(e) => usage_error(&CommandError::Schema(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all() -> Vec<(&'static str, Value)> {
        vec![
            ("harness", harness_schema()),
            ("observation", schema(Some(Format::Observation))),
            ("message", schema(Some(Format::Message))),
            ("summary", schema(Some(Format::Summary))),
            ("evidence", schema(Some(Format::Evidence))),
            ("history", schema(Some(Format::History))),
        ]
    }

    #[test]
    fn schemas_are_valid_draft07() {
        for (what, schema) in all() {
            assert_eq!(
                schema["$schema"], "http://json-schema.org/draft-07/schema#",
                "{what}"
            );
            if let Err(e) = jsonschema::meta::validate(&schema) {
                panic!("{what} schema is not a valid draft-07 schema: {e}");
            }
            // Meta-validation does not compile the patterns; building a
            // validator does.
            if let Err(e) = jsonschema::validator_for(&schema) {
                panic!("{what} schema does not compile: {e}");
            }
        }
    }

    #[test]
    fn meta_validation_can_fail() {
        let broken = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "objekt",
        });
        assert!(jsonschema::meta::validate(&broken).is_err());
    }

    #[test]
    fn no_null_and_no_line_breaks_inside_paragraphs() {
        let text = harness_schema().to_string();
        assert!(!text.contains("\"null\""), "{text}");
        fn walk(v: &Value) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::String(d)) = m.get("description") {
                        assert!(
                            !d.replace("\n\n", "").contains('\n'),
                            "hard line break in {d:?}"
                        );
                    }
                    m.values().for_each(walk);
                }
                Value::Array(a) => a.iter().for_each(walk),
                _ => {}
            }
        }
        for (_, schema) in all() {
            walk(&schema);
        }
    }
}
