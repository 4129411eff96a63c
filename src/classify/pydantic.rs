//! Extraction of pydantic validation errors from output lines:
//!
//! ```text
//! 2 validation errors for Job
//! stages.0.name
//!   Input should be a valid string [type=string_type, input_value=5, input_type=int]
//!     For further information visit https://errors.pydantic.dev/2.13/v/string_type
//!   Value error, bad model [type=value_error, input_value={}, input_type=dict]
//! ```
//!
//! gives `stages.0.name` / `Input should be a valid string` and, for the
//! model-level error, an empty field. Anything that does not follow the
//! format ends the block, so other output never yields fields.

use std::sync::LazyLock;

use regex::bytes::Regex;

use super::{MAX_FINDING_CHARS, clip};
use crate::ansi::no_controls;
use crate::model::ValidationError;

/// Validation errors kept per stream; a runaway loop printing the same
/// error must not grow memory without bound.
const MAX_ERRORS: usize = 1000;
/// Lines of a multi-line message followed before giving up on the block.
const MAX_CONTINUATION: usize = 32;

// Anchored at the end of the line: a traceback or a logger may prefix the
// header, but prose that merely mentions a validation error goes on after.
static HEADER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([0-9]+) validation errors? for \S+\s*$").expect("valid regex"));

/// A literal every header contains, for block pre-checks.
pub(super) const HEADER_LITERAL: &str = "validation errors? for";

#[derive(Debug)]
enum State {
    Idle,
    Block { remaining: usize, expect: Expect },
}

#[derive(Debug)]
enum Expect {
    /// A field path, or the indented message of a model-level error.
    FieldOrRoot,
    /// The indented message of this field.
    Message(String),
    /// The rest of a message that spans lines (`Value error, …` messages
    /// keep their newlines); an unindented line may be either more of it or
    /// the next field. Only the message's first line is kept: messages are
    /// reported on one line.
    Continuation { field: Option<String>, lines: usize },
}

/// Follows one stream line by line and collects its validation errors.
#[derive(Debug)]
pub(super) struct Extractor {
    state: State,
    errors: Vec<ValidationError>,
    /// Masks a message before it is clipped, so a clip cannot leave part
    /// of a secret value that masking afterwards would miss.
    redactor: Option<crate::redact::Redactor>,
}

impl Extractor {
    pub(super) fn new() -> Extractor {
        Extractor {
            state: State::Idle,
            errors: Vec::new(),
            redactor: None,
        }
    }

    /// Mask the values of `redactor` in the messages kept.
    pub(super) fn masking(&mut self, redactor: &crate::redact::Redactor) {
        self.redactor = Some(redactor.clone());
    }

    /// Inside a block, every line matters, not only those a pre-check flags.
    pub(super) fn in_block(&self) -> bool {
        matches!(self.state, State::Block { .. })
    }

    /// A line too long to be part of a block.
    pub(super) fn interrupt(&mut self) {
        self.state = State::Idle;
    }

    pub(super) fn into_errors(self) -> Vec<ValidationError> {
        self.errors
    }

    /// One line, without its line terminator. `allowed` says whether the
    /// line is one the user allowed; asked only of header lines, as an
    /// allowed header opens no block.
    pub(super) fn line(&mut self, line: &[u8], allowed: impl FnOnce() -> bool) {
        if let Some(caps) = HEADER_RE.captures(line) {
            if allowed() {
                self.state = State::Idle;
                return;
            }
            let count = std::str::from_utf8(&caps[1])
                .ok()
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(MAX_ERRORS)
                .min(MAX_ERRORS);
            self.state = if count == 0 {
                State::Idle
            } else {
                State::Block {
                    remaining: count,
                    expect: Expect::FieldOrRoot,
                }
            };
            return;
        }
        let State::Block { remaining, expect } = &mut self.state else {
            return;
        };
        let text = String::from_utf8_lossy(line);
        let trimmed = text.trim();
        let indented = line.first().is_some_and(|b| matches!(b, b' ' | b'\t'));
        let info = indented && trimmed.starts_with("For further information");
        let mut field_of_message = None;
        let mut idle = trimmed.is_empty();
        if !idle {
            match expect {
                _ if info => *expect = Expect::FieldOrRoot,
                Expect::FieldOrRoot if indented => field_of_message = Some(String::new()),
                Expect::FieldOrRoot if trimmed.chars().count() > MAX_FINDING_CHARS => idle = true,
                Expect::FieldOrRoot => *expect = Expect::Message(no_controls(trimmed)),
                // A field line not followed by its message: not pydantic.
                Expect::Message(_) if !indented => idle = true,
                Expect::Message(field) => field_of_message = Some(std::mem::take(field)),
                Expect::Continuation { .. } if !indented && trimmed.contains("[type=") => {
                    *expect = Expect::FieldOrRoot;
                }
                Expect::Continuation { field, lines } if !indented => {
                    *lines += 1;
                    idle = *lines > MAX_CONTINUATION;
                    *field = Some(no_controls(trimmed));
                }
                Expect::Continuation { field, .. } => match field.take() {
                    Some(f) => field_of_message = Some(f),
                    None => idle = true,
                },
            }
        }
        if let Some(field) = field_of_message {
            let (message, complete) = strip_error_suffix(trimmed);
            if self.errors.len() < MAX_ERRORS {
                let mut message = no_controls(message);
                if let Some(r) = &self.redactor {
                    r.mask_in_place(&mut message);
                }
                self.errors.push(ValidationError {
                    field,
                    message: clip(&message, MAX_FINDING_CHARS),
                });
            }
            *remaining -= 1;
            idle = *remaining == 0;
            *expect = if complete {
                Expect::FieldOrRoot
            } else {
                Expect::Continuation {
                    field: None,
                    lines: 0,
                }
            };
        }
        if idle {
            self.state = State::Idle;
        }
    }
}

/// `message [type=…]` (pydantic 2) or `message (type=…)` (pydantic 1):
/// the message, and whether the suffix was there.
fn strip_error_suffix(text: &str) -> (&str, bool) {
    if let Some(i) = text.find(" [type=") {
        return (text[..i].trim_end(), true);
    }
    if text.ends_with(')')
        && let Some(i) = text.rfind(" (type=")
    {
        return (text[..i].trim_end(), true);
    }
    (text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_ERROR: &[u8] = include_bytes!("../../tests/fixtures/pydantic-1-error.txt");
    const THREE_ERRORS: &[u8] = include_bytes!("../../tests/fixtures/pydantic-3-errors.txt");

    fn extract(out: &[u8]) -> Vec<ValidationError> {
        let mut x = Extractor::new();
        for line in out.split(|&b| b == b'\n') {
            x.line(line, || false);
        }
        x.into_errors()
    }

    fn err(field: &str, message: &str) -> ValidationError {
        ValidationError {
            field: field.into(),
            message: message.into(),
        }
    }

    #[test]
    fn fixtures() {
        assert_eq!(
            extract(ONE_ERROR),
            [err("stages.0.columns.1", "Input should be a valid string")]
        );
        assert_eq!(
            extract(THREE_ERRORS),
            [
                err("stages.0.name", "Input should be a valid string"),
                err(
                    "stages.0.source.partitions",
                    "Input should be greater than or equal to 1"
                ),
                err("stages.0.columns", "Input should be a valid list"),
            ]
        );
    }

    #[test]
    fn fixtures_match_the_shared_originals() {
        let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/");
        for (name, copy) in [
            ("pydantic-1-error.txt", ONE_ERROR),
            ("pydantic-3-errors.txt", THREE_ERRORS),
        ] {
            // The originals sit beside the repository when `shared/` is
            // checked out next to it; without them the copies stand alone.
            if let Ok(original) = std::fs::read(format!("{shared}{name}")) {
                assert_eq!(original, copy, "{name}");
            }
        }
    }

    #[test]
    fn model_level_and_multi_line_messages_inside_a_traceback() {
        let out = b"Traceback (most recent call last):\n\
            pydantic_core._pydantic_core.ValidationError: 2 validation errors for M\n  \
            Value error, bad model\nsecond line [type=value_error, input_value={}, input_type=dict]\n    \
            For further information visit https://errors.pydantic.dev/2.13/v/value_error\n\
            u.list[int]\n  Input should be a valid list [type=list_type, input_value='x', input_type=str]\n";
        assert_eq!(
            extract(out),
            [
                err("", "Value error, bad model"),
                err("u.list[int]", "Input should be a valid list")
            ]
        );
    }

    #[test]
    fn multi_line_message_followed_by_a_field() {
        let out = b"2 validation errors for M\na\n  Value error, x\ny\nz\n  Field required [type=missing]\n";
        assert_eq!(
            extract(out),
            [err("a", "Value error, x"), err("z", "Field required")]
        );
    }

    #[test]
    fn pydantic_1() {
        let out =
            b"1 validation error for Config\nname\n  field required (type=value_error.missing)\n";
        assert_eq!(extract(out), [err("name", "field required")]);
    }

    #[test]
    fn the_count_ends_the_block() {
        let out = b"1 validation error for X\na\n  bad [type=t]\nb\n  worse [type=t]\n";
        assert_eq!(extract(out), [err("a", "bad")]);
    }

    #[test]
    fn other_output_yields_nothing() {
        let outs: [&[u8]; 5] = [
            b"there was 1 validation error for Job in the log\nx\n  y [type=z]\n",
            b"1 validation error for Job\nINFO next step\nINFO done\n  indented\n",
            b"3 validation errors for\nx\n  y [type=z]\n",
            b"0 validation errors for X\nx\n  y [type=z]\n",
            b"1 validation error for X\n\nx\n  y [type=z]\n",
        ];
        for out in outs {
            assert_eq!(extract(out), [], "{}", String::from_utf8_lossy(out));
        }
    }

    #[test]
    fn an_allowed_header_opens_no_block() {
        let mut x = Extractor::new();
        for line in ONE_ERROR.split(|&b| b == b'\n') {
            x.line(line, || true);
        }
        assert_eq!(x.into_errors(), []);
    }

    #[test]
    fn errors_are_capped() {
        let mut out = Vec::new();
        for _ in 0..3 {
            out.extend_from_slice(b"99999999999999999999999 validation errors for X\n");
            for i in 0..MAX_ERRORS / 2 {
                out.extend_from_slice(format!("f{i}\n  m [type=t]\n").as_bytes());
            }
        }
        assert_eq!(extract(&out).len(), MAX_ERRORS);
    }
}
