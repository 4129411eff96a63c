//! Removal of terminal escape sequences (CSI, OSC, DCS, SOS/PM/APC and
//! two-byte escapes) from output, one implementation for the classifier,
//! which matches each line without them, and the reports, which print text
//! without them; and the one-line form of a text both show, and the
//! bounded list of names a warning shows.
//!
//! Sequences are recognised by the VT500 parser table of `anstyle-parse`
//! (the parser behind `anstream`). Unlike `anstream`'s strip adapters,
//! nothing but the sequences is removed: other control characters and bytes
//! that are not UTF-8 stay, so a line without an escape is left exactly as
//! it is and a classifier can skip text without one at memchr speed.
//!
//! A sequence starts at ESC and never spans lines: an unterminated one
//! (an OSC without its BEL, say) ends at the next newline, so it can hide
//! at most the rest of its own line.

use std::borrow::Cow;

use anstyle_parse::state::{State, state_change};
use memchr::memchr;

const ESC: u8 = 0x1b;

/// Strips escape sequences from text that arrives in pieces; a sequence
/// split across pieces is removed whole.
#[derive(Clone, Debug, Default)]
pub(crate) struct Stripper {
    /// Parser state inside a sequence; None between sequences.
    state: Option<State>,
}

impl Stripper {
    /// A stripper at the start of a line.
    pub(crate) fn new() -> Stripper {
        Stripper::default()
    }

    /// Whether the next byte continues an escape sequence.
    pub(crate) fn in_sequence(&self) -> bool {
        self.state.is_some()
    }

    /// Append `input` without its escape sequences to `out`.
    pub(crate) fn strip_into(&mut self, mut input: &[u8], out: &mut Vec<u8>) {
        while !input.is_empty() {
            match self.state {
                None => match memchr(ESC, input) {
                    None => {
                        out.extend_from_slice(input);
                        return;
                    }
                    Some(at) => {
                        out.extend_from_slice(&input[..at]);
                        self.state = Some(State::Escape);
                        input = &input[at + 1..];
                    }
                },
                Some(state) => {
                    let used = self.skip_sequence(state, input);
                    input = &input[used..];
                }
            }
        }
    }

    /// Consume bytes of a sequence that is in `state`; returns how many
    /// bytes were consumed (the newline that ends a line is not).
    fn skip_sequence(&mut self, mut state: State, input: &[u8]) -> usize {
        for (i, &b) in input.iter().enumerate() {
            if b == b'\n' {
                self.state = None;
                return i;
            }
            // ESC DEL is no sequence: a VT parser ignores the DEL and would
            // take the next printable character as the final byte, eating
            // text that was never part of an escape.
            if state == State::Escape && b == 0x7f {
                self.state = None;
                return i + 1;
            }
            let (next, _) = state_change(state, b);
            // `Anywhere` means "no change" in the parser's table.
            if next != State::Anywhere {
                state = next;
            }
            if state == State::Ground {
                self.state = None;
                return i + 1;
            }
        }
        self.state = Some(state);
        input.len()
    }
}

/// `text` without escape sequences; borrowed when it holds none.
pub fn strip_str(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len());
    Stripper::new().strip_into(text.as_bytes(), &mut out);
    // A removed sequence starts at ESC and ends at an ASCII byte or before
    // a newline, so what is left is still UTF-8.
    match String::from_utf8(out) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// `bytes` without escape sequences; borrowed when they hold none. The
/// reference the classifier's streaming strip is tested against.
#[cfg(test)]
pub(crate) fn strip_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    if memchr(ESC, bytes).is_none() {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    Stripper::new().strip_into(bytes, &mut out);
    Cow::Owned(out)
}

/// `text` without escape sequences and with every other control character
/// (line breaks included) turned into a space, so it reads the same
/// everywhere it is shown.
pub(crate) fn no_controls(text: &str) -> String {
    strip_str(text)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// [`no_controls`], with runs of spaces collapsed and none at either end:
/// for attribute values and titles that consumers show on a single line.
/// Inside backquotes (a pattern quoted in a message) spaces are kept as
/// written: `^\d\d  Done` must read as the team wrote it.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quoted = false;
    for ch in no_controls(text).chars() {
        if ch == '`' {
            quoted = !quoted;
        }
        if ch == ' ' && !quoted && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(ch);
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// `text` as printed, for an output excerpt: escape sequences removed,
/// spaces and tabs kept (indentation and column alignment are part of
/// what an excerpt shows: a traceback's `^^^^` points at a column), every
/// other control character shown as its Unicode control picture (`␀`,
/// `␍`, `␇`) or U+FFFD, so it is visible and harmless.
pub(crate) fn visible(text: &str) -> String {
    strip_str(text)
        .chars()
        .map(|c| match c {
            '\t' | '\n' => c,
            c => shown_char(c),
        })
        .collect()
}

/// How an excerpt shows `c`: a C0 control or DEL as its Unicode control
/// picture, another control or a noncharacter as U+FFFD, anything else
/// as itself.
pub(crate) fn shown_char(c: char) -> char {
    match c {
        '\u{7f}' => '\u{2421}',
        c if u32::from(c) < 0x20 => char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{FFFD}'),
        '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
        c if c.is_control() => '\u{FFFD}',
        c => c,
    }
}

/// Entries named in one list of [`name_list`]; the rest are counted.
const NAMED: usize = 10;

/// `a, b, c` naming at most ten entries, then how many more: for warnings
/// and errors that name files or processes.
pub(crate) fn name_list(items: &[String]) -> String {
    let mut s = items
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NAMED {
        s.push_str(&format!(" and {} more", items.len() - NAMED));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_folds_breaks() {
        assert_eq!(one_line("a\r\n b\t\x1b[1mc  \n"), "a b c");
        assert_eq!(one_line("\n\n"), "");
        assert_eq!(no_controls("a\r\n\x1b[1mb "), "a  b ");
        // A quoted pattern keeps its spaces.
        assert_eq!(
            one_line("matched   `^\\d\\d  Done`  ,  which"),
            "matched `^\\d\\d  Done` , which"
        );
    }

    #[test]
    fn visible_keeps_spacing_and_shows_controls() {
        assert_eq!(
            visible("north     7 units\n    ^^^^\tx\x1b[31m!\x1b[0m\0\r\x07"),
            "north     7 units\n    ^^^^\tx!\u{2400}\u{240D}\u{2407}"
        );
    }

    fn strip(s: &str) -> String {
        strip_str(s).into_owned()
    }

    #[test]
    fn sequences_go_and_everything_else_stays() {
        assert_eq!(strip("\x1b[1;31merror\x1b[0m: x"), "error: x");
        // OSC 8 hyperlink, ended by ST and by BEL.
        assert_eq!(
            strip("see \x1b]8;;https://e.x/a\x1b\\docs\x1b]8;;\x07 now"),
            "see docs now"
        );
        // Charset selection (ESC with an intermediate), keypad mode, DCS.
        assert_eq!(
            strip("\x1b(Bplain\x1b=\x1bPq#0;2;0\x1b\\ text"),
            "plain text"
        );
        // Controls that are not escapes, and non-UTF-8 bytes, stay.
        assert_eq!(strip("a\tb\x07c\r"), "a\tb\x07c\r");
        assert_eq!(
            strip_bytes(b"\xff\x1b[2K\x9b1m\xc3"),
            Cow::<[u8]>::Owned(b"\xff\x9b1m\xc3".to_vec())
        );
        assert!(matches!(strip_str("no escapes"), Cow::Borrowed(_)));
        // UTF-8 inside an OSC title is removed with it.
        assert_eq!(strip("\x1b]0;t\u{e9}te\x07\u{e9}t\u{e9}"), "\u{e9}t\u{e9}");
    }

    #[test]
    fn esc_del_keeps_the_next_character() {
        assert_eq!(strip("a\x1b\x7fxy"), "axy");
        assert_eq!(strip("\x1b[1m\x1b\x7fok"), "ok");
    }

    #[test]
    fn an_unterminated_sequence_ends_at_the_newline() {
        assert_eq!(
            strip("\x1b]0;never closed\nInvalid config\n"),
            "\nInvalid config\n"
        );
        assert_eq!(strip("a\x1b[3\nb"), "a\nb");
        assert_eq!(strip("end\x1b"), "end");
    }

    #[test]
    fn pieces_strip_like_the_whole() {
        let text = b"x\x1b[38;5;208mwarm\x1b[0m y\x1b]8;;u\x1b\\l\x1b]8;;\x1b\\\n\x1b]2;t\nz";
        let whole = strip_bytes(text).into_owned();
        for i in 0..=text.len() {
            for j in i..=text.len() {
                let mut s = Stripper::new();
                let mut out = Vec::new();
                for piece in [&text[..i], &text[i..j], &text[j..]] {
                    s.strip_into(piece, &mut out);
                }
                assert_eq!(out, whole, "split at {i} and {j}");
            }
        }
    }
}
