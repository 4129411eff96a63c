//! Markdown building blocks shared by every markdown output (the report
//! file, the GitHub step summary): escaping of user text and tables.
//!
//! User text (case names, commands, output, messages) never goes into a
//! code span or raw HTML: a backtick or `</code>` in it would end the span
//! and let the rest be read as markup. Instead every character that means
//! something to markdown, HTML or the table syntax is written as an HTML
//! character reference, which GFM decodes only after the table has been
//! split into cells, so a cell stays a cell whatever it holds. Other
//! punctuation that starts markup (emphasis, links, math) is
//! backslash-escaped, which keeps the source readable.

use std::fmt::Write as _;

/// `text` made safe for a table cell or an inline run of markdown:
/// markup characters are escaped, line breaks become `<br>`,
/// other control characters are dropped (ANSI escapes with them).
pub(crate) fn inline(text: &str) -> String {
    let text = crate::ansi::strip_str(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push_str("<br>");
                }
            }
            '\n' => out.push_str("<br>"),
            '\t' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // A pipe must never reach the table splitter, even escaped:
            // GFM and pulldown-cmark disagree on `\\|`.
            '|' => out.push_str("&#124;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '~' | '#' | '!' | '$' => {
                out.push('\\');
                out.push(ch);
            }
            // Noncharacters are not valid in HTML; a visible replacement
            // tells the reader something was there.
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    guard_phrase(&out, "&#32;")
}

/// Keep user text from ever spelling the all-clear phrase literally: the
/// integrity check treats the phrase as a claim that every case passed.
/// The space after "no issues" becomes `space`, which reads the same.
pub(super) fn guard_phrase(s: &str, space: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let needle = super::NO_ISSUES_PHRASE.to_ascii_lowercase();
    if !lower.contains(&needle) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = 0;
    for (i, _) in lower.match_indices(&needle) {
        // "no issues" is 9 bytes (ASCII), then the space.
        out.push_str(&s[rest..i + 9]);
        out.push_str(space);
        rest = i + 10;
    }
    out.push_str(&s[rest..]);
    out
}

/// A backtick fence longer than any run of backticks in `text`.
pub(crate) fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for ch in text.chars() {
        if ch == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat(longest.max(2) + 1)
}

/// `text` (output) as a fenced code block whose every line, fences
/// included, starts with `indent`: with an indent, no line of the output
/// can pass for a heading, list item or table row of the report, which
/// the integrity check reads back. The text keeps its spacing; escape
/// sequences are removed and other control characters shown
/// ([`crate::ansi::visible`]).
pub(crate) fn code_block(text: &str, indent: &str) -> String {
    // A lone CR would end the line for some renderers: shown, like every
    // other control, by `visible`; CRLF is a line break.
    let clean = crate::ansi::visible(&text.replace("\r\n", "\n"));
    // A code block shows character references as typed: a no-break space.
    let clean = guard_phrase(&clean, "\u{A0}");
    let fence = fence_for(&clean);
    let mut out = format!("{indent}{fence}text\n");
    for line in clean.lines() {
        // A blank line needs no indent: it would be trailing padding.
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{indent}{line}");
        }
    }
    let _ = writeln!(out, "{indent}{fence}");
    out
}

/// A link destination: characters outside a conservative set are
/// percent-encoded so spaces, parentheses or `|` cannot end the link or
/// the cell.
pub(crate) fn link_target(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A markdown link whose text is user text.
pub(crate) fn link(text: &str, target: &str) -> String {
    format!("[{}]({})", inline(text), link_target(target))
}

/// An absolute URL as a markdown link destination: characters that could
/// end the link or the cell (parentheses, spaces, `|`, `<`, `>`,
/// backticks, controls) percent-encoded, the URL's own syntax kept.
pub(crate) fn link_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for b in url.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~:/?#@!$&*+,;=%".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Column alignment in a [`Table`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Align {
    /// Left-aligned (text).
    Left,
    /// Right-aligned (numbers).
    Right,
}

/// A GFM table. Cells are given already rendered (see [`inline`]); the
/// table only guarantees the row shape.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headings and alignments.
    pub(crate) fn new(columns: &[(&str, Align)]) -> Table {
        Table {
            header: columns.iter().map(|(h, _)| (*h).to_string()).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    /// Add a row of rendered cells.
    ///
    /// # Panics
    /// When the row does not have one cell per column: a programming
    /// error that would break the table for every reader.
    pub(crate) fn row(&mut self, cells: Vec<String>) -> &mut Table {
        assert_eq!(cells.len(), self.header.len(), "table row shape");
        self.rows.push(cells);
        self
    }

    /// The table as markdown, ending with a newline.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        push_row(&mut out, &self.header);
        let seps: Vec<String> = self
            .align
            .iter()
            .map(|a| match a {
                Align::Left => "---".to_string(),
                Align::Right => "---:".to_string(),
            })
            .collect();
        push_row(&mut out, &seps);
        for row in &self.rows {
            push_row(&mut out, row);
        }
        out
    }
}

fn push_row(out: &mut String, cells: &[String]) {
    out.push('|');
    for cell in cells {
        out.push(' ');
        // An empty cell is still a cell; a lone space keeps it visible to
        // the eye in the source too.
        out.push_str(cell.trim());
        out.push_str(" |");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_escapes_markup() {
        assert_eq!(inline("a|b"), "a&#124;b");
        assert_eq!(inline("`x` *y* \\"), "\\`x\\` \\*y\\* \\\\");
        assert_eq!(inline("<script>&"), "&lt;script&gt;&amp;");
        assert_eq!(inline("l1\nl2\r\nl3"), "l1<br>l2<br>l3");
        assert_eq!(inline("\x1b[31mred\x1b[0m\0"), "red");
    }

    #[test]
    fn inline_guards_the_all_clear_phrase() {
        let s = inline("ok: no issues observed. No Issues Observed");
        assert!(!s.to_ascii_lowercase().contains("no issues observed"));
        assert!(s.contains("no issues&#32;observed"));
        assert!(s.contains("No Issues&#32;Observed"));
    }

    #[test]
    fn code_blocks_are_indented_fenced_and_guarded() {
        let block = code_block(
            "## Results\n``` x\n\x1b[31mNo issues observed\x1b[0m\0\n",
            "  ",
        );
        assert_eq!(
            block,
            "  ````text\n  ## Results\n  ``` x\n  No issues\u{A0}observed\u{2400}\n  ````\n"
        );
    }

    #[test]
    fn link_targets_are_percent_encoded() {
        assert_eq!(link_target("a b/(c)|d"), "a%20b/%28c%29%7Cd");
    }

    #[test]
    fn table_rows_have_header_shape() {
        let mut t = Table::new(&[("A", Align::Left), ("B", Align::Right)]);
        t.row(vec!["1".into(), String::new()]);
        assert_eq!(t.render(), "| A | B |\n| --- | ---: |\n| 1 |  |\n");
    }
}
