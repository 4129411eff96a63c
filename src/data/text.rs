//! The text of a rows data snapshot: a schema line, then one CSV record
//! a row. A null cell is an empty field; an empty string is `""`, so the
//! two stay apart (a JSON `null` that became `""` is a change). A field
//! is quoted when it is empty or holds a comma, a quote or a line break.
//!
//! The rows are written and read here rather than by the `csv` crate,
//! which reads `""` and an empty field alike.

use super::error::DataError;
use super::{Builder, ColType, RowTable, SCHEMA_PREFIX, Sink};

/// Append `cell` to `out` as a CSV field.
pub(super) fn write_field(out: &mut String, cell: Option<&str>) {
    let Some(s) = cell else {
        return;
    };
    if s.is_empty() || s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        for ch in s.chars() {
            if ch == '"' {
                out.push('"');
            }
            out.push(ch);
        }
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// `s` quoted as a CSV field when it needs to be (the schema line, whose
/// fields the reader trims).
pub(super) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The snapshot text of every row of `table`.
pub(super) fn render_rows(table: &RowTable) -> String {
    let schema: Vec<String> = table
        .columns
        .iter()
        .map(|(n, t)| csv_field(&format!("{n}:{}", t.as_str())))
        .collect();
    let mut out = format!("{SCHEMA_PREFIX}{}\n", schema.join(", "));
    out.reserve(table.text.len() + 2 * table.ends.len());
    for row in table.rows() {
        for (c, cell) in row.cells().enumerate() {
            if c > 0 {
                out.push(',');
            }
            write_field(&mut out, cell);
        }
        out.push('\n');
    }
    out
}

/// A rows snapshot's text as a table.
pub(super) fn parse_rows(text: &str) -> Result<RowTable, DataError> {
    let (columns, mut rows) = read_schema(text)?;
    let mut table = Builder::new(columns.len());
    table.text.reserve(rows.rest.len());
    while rows.next_row(&mut table)? {}
    table.finish(columns)
}

/// The rows of a rows snapshot, read one at a time.
pub(super) struct Rows<'s> {
    rest: &'s str,
    width: usize,
    /// The line the next row starts on.
    line: usize,
    field: String,
}

/// A rows snapshot's columns, from its schema line, and its rows.
pub(super) fn read_schema(text: &str) -> Result<(Vec<(String, ColType)>, Rows<'_>), DataError> {
    let (first, body) = text.split_once('\n').unwrap_or((text, ""));
    let schema = first
        .trim_end_matches('\r')
        .strip_prefix(SCHEMA_PREFIX)
        .ok_or(DataError::NoSchemaLine)?;
    let mut columns = Vec::new();
    let mut header = csv::ReaderBuilder::new()
        .has_headers(false)
        .trim(csv::Trim::All)
        .from_reader(schema.as_bytes());
    if let Some(record) = header.records().next() {
        for field in record.map_err(DataError::BadSchemaLine)?.iter() {
            let (name, ty) = field
                .rsplit_once(':')
                .and_then(|(n, t)| Some((n, ColType::parse(t)?)))
                .ok_or_else(|| DataError::BadSchemaColumn {
                    field: field.to_string(),
                })?;
            columns.push((name.to_string(), ty));
        }
    }
    let rows = Rows {
        rest: body,
        width: columns.len(),
        // The schema is line 1.
        line: 2,
        field: String::new(),
    };
    Ok((columns, rows))
}

impl<'s> Rows<'s> {
    /// The columns of each row.
    pub(super) fn width(&self) -> usize {
        self.width
    }

    /// The bytes of rows left.
    pub(super) fn left(&self) -> usize {
        self.rest.len()
    }

    /// Where (in the bytes left) the first row starting at or after byte
    /// `at` starts: a line break outside any quoted field ends a row (a
    /// quote inside a field is doubled, so the quotes before a place
    /// say whether it is inside one).
    pub(super) fn row_start_after(&self, at: usize) -> Option<usize> {
        let bytes = self.rest.as_bytes();
        let at = at.min(bytes.len());
        let mut quoted = memchr::memchr_iter(b'"', &bytes[..at]).count() % 2 == 1;
        for (i, &b) in bytes.iter().enumerate().skip(at) {
            match b {
                b'"' => quoted = !quoted,
                b'\n' if !quoted => return Some(i + 1).filter(|&s| s < bytes.len()),
                _ => {}
            }
        }
        None
    }

    /// The rows left split at byte `at`, a row's start: those before it,
    /// and those from it on (their line numbers as in the whole text).
    pub(super) fn split(&self, at: usize) -> (Rows<'s>, Rows<'s>) {
        let (head, tail) = self.rest.split_at(at);
        let lines = memchr::memchr_iter(b'\n', head.as_bytes()).count();
        let before = Rows {
            rest: head,
            width: self.width,
            line: self.line,
            field: String::new(),
        };
        let after = Rows {
            rest: tail,
            width: self.width,
            line: self.line + lines,
            field: String::new(),
        };
        (before, after)
    }

    /// Push the next row's cells into `sink` and end it; false when there
    /// are no more rows.
    pub(super) fn next_row(&mut self, sink: &mut impl Sink) -> Result<bool, DataError> {
        if self.rest.is_empty() {
            return Ok(false);
        }
        let (start, width) = (self.line, self.width);
        let mut cells = 0;
        loop {
            let (cell, after, lines, end) = next_field(self.rest, &mut self.field)
                .ok_or(DataError::UnclosedQuote { line: start })?;
            self.line += lines;
            self.rest = after;
            cells += 1;
            if cells <= width {
                sink.cell(cell);
            }
            if end {
                break;
            }
        }
        // A one-column table's null row is an empty line.
        if cells != width && !(width == 0 && cells == 1) {
            return Err(DataError::SnapshotWidth {
                line: start,
                fields: cells,
                width,
            });
        }
        sink.end_row();
        Ok(true)
    }
}

/// The field at the start of `s`: its value (None: null; a quoted one
/// unquoted into `field`, a plain one as it stands in `s`), the text
/// after it, the line breaks it held or ended with, and whether it ended
/// its record. None for an unclosed quote.
fn next_field<'a, 's: 'a>(
    s: &'s str,
    field: &'a mut String,
) -> Option<(Option<&'a str>, &'s str, usize, bool)> {
    let Some(quoted) = s.strip_prefix('"') else {
        // Most fields: borrowed, not copied.
        let end = memchr::memchr2(b',', b'\n', s.as_bytes()).unwrap_or(s.len());
        let raw = &s[..end];
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let value = (!raw.is_empty()).then_some(raw);
        return Some(match s.as_bytes().get(end) {
            Some(b',') => (value, &s[end + 1..], 0, false),
            Some(_) => (value, &s[end + 1..], 1, true),
            None => (value, "", 0, true),
        });
    };
    field.clear();
    let mut lines = 0;
    let mut rest = quoted;
    loop {
        let q = rest.find('"')?;
        lines += rest[..q].matches('\n').count();
        field.push_str(&rest[..q]);
        rest = &rest[q + 1..];
        if let Some(after) = rest.strip_prefix('"') {
            field.push('"');
            rest = after;
            continue;
        }
        let rest = rest.strip_prefix('\r').unwrap_or(rest);
        let (after, lines, end) = match rest.as_bytes().first() {
            Some(b',') => (&rest[1..], lines, false),
            Some(b'\n') => (&rest[1..], lines + 1, true),
            None => ("", lines, true),
            // Text after a closing quote: kept, as the csv crate keeps it.
            Some(_) => {
                let end = memchr::memchr2(b',', b'\n', rest.as_bytes()).unwrap_or(rest.len());
                field.push_str(&rest[..end]);
                match rest.as_bytes().get(end) {
                    Some(b',') => (&rest[end + 1..], lines, false),
                    Some(_) => (&rest[end + 1..], lines + 1, true),
                    None => ("", lines, true),
                }
            }
        };
        return Some((Some(field.as_str()), after, lines, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: &[(&str, ColType)], rows: &[&[Option<&str>]]) -> RowTable {
        let mut b = Builder::new(columns.len());
        for row in rows {
            for cell in *row {
                b.cell(*cell);
            }
            b.end_row();
        }
        b.finish(columns.iter().map(|(n, t)| (n.to_string(), *t)).collect())
            .unwrap()
    }

    #[test]
    fn null_and_empty_text_and_quoted_fields_read_back_as_written() {
        let t = table(
            &[("id", ColType::Integer), ("name", ColType::String)],
            &[
                &[Some("1"), None],
                &[Some("2"), Some("")],
                &[Some("3"), Some("a, \"b\"\nc")],
                &[Some("4"), Some(" x\r")],
            ],
        );
        let text = render_rows(&t);
        assert_eq!(
            text,
            "# columns: id:integer, name:string\n1,\n2,\"\"\n3,\"a, \"\"b\"\"\nc\"\n4,\" x\r\"\n"
        );
        assert_eq!(parse_rows(&text).unwrap(), t);
        let one = table(
            &[("x", ColType::String)],
            &[&[None], &[Some("")], &[Some("y")]],
        );
        assert_eq!(parse_rows(&render_rows(&one)).unwrap(), one);
    }

    #[test]
    fn a_row_of_another_width_or_an_open_quote_is_refused_with_its_line() {
        let e = parse_rows("# columns: a:integer, b:integer\n1,2\n3,4,5\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("line 3 has 3 field(s)"), "{e}");
        let e = parse_rows("# columns: a:string\n\"open\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("line 2: a quoted field"), "{e}");
        // Windows line ends read as the same rows.
        let crlf = parse_rows("# columns: a:integer, b:string\r\n1,x\r\n2,\"y\"\r\n").unwrap();
        assert_eq!(
            crlf,
            parse_rows("# columns: a:integer, b:string\n1,x\n2,y\n").unwrap()
        );
    }
}
