//! The record reader (docs/judging.md, Records, read by their shape): which
//! lines of an output are log records, read by their shape rather than from
//! a list of formats.
//! A record's first line has a time-like prefix (any date order, `T` or a
//! space between date and time, `,mmm`/`.mmm`, `Z`/`+0000`/`+00:00`,
//! bracketed or not, a day or month name, a relative time; or rich's
//! blanked repeat of the time, spaces), a level column (`INFO`, `[INFO]`,
//! `INFO:`, `| INFO |`, `- INFO -`, `level=info`, `[info     ]`), or both;
//! a JSON line's `level`/`levelname`/`severity`/`log.level` field. The
//! lines after it that are indented, or a traceback, continue it (the
//! stream classifier joins them).
//!
//! Every non-indented line of an output is read here, so the reader is a
//! hand-written scanner over bytes that gives up at the first byte that
//! fits no shape: a plain line costs a few comparisons.

/// A log record's level, in order of severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Level {
    Trace,
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    /// CRITICAL, FATAL, SEVERE, ALERT, EMERGENCY, PANIC.
    Critical,
}

impl Level {
    /// The level a level word names (any case); None when it names none.
    pub(crate) fn of_word(word: &[u8]) -> Option<Level> {
        if word.is_empty() || word.len() > 9 {
            return None;
        }
        let mut buf = [0u8; 9];
        for (b, w) in buf.iter_mut().zip(word) {
            *b = w.to_ascii_uppercase();
        }
        Some(match &buf[..word.len()] {
            b"TRACE" | b"TRC" | b"FINEST" | b"FINER" => Level::Trace,
            b"DEBUG" | b"DBG" | b"FINE" | b"VERBOSE" => Level::Debug,
            b"INFO" | b"INF" | b"SUCCESS" => Level::Info,
            b"NOTICE" => Level::Notice,
            b"WARN" | b"WARNING" | b"WRN" => Level::Warning,
            b"ERROR" | b"ERR" => Level::Error,
            b"CRITICAL" | b"CRIT" | b"CRT" | b"FATAL" | b"FTL" | b"SEVERE" | b"ALERT"
            | b"EMERG" | b"EMERGENCY" | b"PANIC" => Level::Critical,
            _ => return None,
        })
    }

    /// An error record: ERROR or worse.
    pub(crate) fn is_error(self) -> bool {
        self >= Level::Error
    }
}

/// What the first line of a record shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The record's level, when its line shows one.
    pub(crate) level: Option<Level>,
    /// Where its message begins (after the time and the level column).
    pub(crate) message: usize,
}

use std::sync::LazyLock;

use memchr::memmem::Finder;

/// Finders of the keys a logfmt or JSON line's level and message go by,
/// built once: building one costs more than a short line's search.
struct Keys {
    logfmt_level: [Finder<'static>; 4],
    logfmt_msg: Finder<'static>,
    json_level: [Finder<'static>; 7],
    json_message: [Finder<'static>; 4],
}

static KEYS: LazyLock<Keys> = LazyLock::new(|| Keys {
    logfmt_level: [&b"level="[..], b"lvl=", b"severity=", b"log.level="].map(Finder::new),
    logfmt_msg: Finder::new(b"msg="),
    json_level: [
        &b"\"level\""[..],
        b"\"levelname\"",
        b"\"severity\"",
        b"\"log.level\"",
        b"\"lvl\"",
        b"\"loglevel\"",
        b"\"@level\"",
    ]
    .map(Finder::new),
    json_message: [
        &b"\"msg\""[..],
        b"\"message\"",
        b"\"event\"",
        b"\"@message\"",
    ]
    .map(Finder::new),
});

/// Longest time-like prefix looked at, in bytes.
const MAX_PREFIX: usize = 48;
/// How far past the time prefix the level column is looked for.
const LEVEL_REACH: usize = 96;

/// The shape of `line` as the first line of a log record, or None for a
/// line of no known shape (which is then a record of its own, without a
/// level). `line` has no escape sequences and no line end.
pub(crate) fn shape(line: &[u8]) -> Option<Shape> {
    let first = *line.first()?;
    match first {
        b'{' => json_shape(line),
        b' ' | b'\t' => blanked_time(line),
        b'0'..=b'9' | b'[' | b'(' | b'+' | b'A'..=b'Z' => {
            if let Some(end) = time_prefix(line) {
                let (level, message) = level_after(line, end);
                return Some(Shape { level, message });
            }
            if first == b'[' || first == b'(' || first.is_ascii_uppercase() {
                return level_first(line).or_else(|| step_label(line));
            }
            None
        }
        b'<' => level_first(line),
        b'a'..=b'z' => logfmt(line),
        _ => None,
    }
}

/// rich's record whose time repeats the one above, blanked to spaces
/// (`           WARNING  message`): spaces as wide as a time column, then
/// an upper-case level padded with spaces.
fn blanked_time(line: &[u8]) -> Option<Shape> {
    let n = line.iter().take_while(|&&b| b == b' ').count();
    if !(8..=26).contains(&n) {
        return None;
    }
    let (level, end) = bare_level(line, n, true)?;
    // rich pads the level column: at least one space after it.
    if line.get(end) != Some(&b' ') {
        return None;
    }
    Some(Shape {
        level: Some(level),
        message: skip_spaces(line, end),
    })
}

/// A line whose level comes first: `INFO:name:msg`, `ERROR - msg`,
/// `[WARNING] msg`, `<info> msg`, rich without a time (`INFO     msg`).
fn level_first(line: &[u8]) -> Option<Shape> {
    let (level, end) = level_token(line, 0, false)?;
    Some(Shape {
        level: Some(level),
        message: after_level(line, end),
    })
}

/// A tool's progress message about one of its steps, `Job 3: message`
/// (Snakemake's `message:`), `Task 2/5: message`: a record at INFO.
fn step_label(line: &[u8]) -> Option<Shape> {
    let word = [&b"Job "[..], b"Task ", b"Step ", b"Stage "]
        .into_iter()
        .find(|w| line.starts_with(w))?;
    let mut i = word.len();
    let d = digits(line, i);
    if d == 0 {
        return None;
    }
    i += d;
    if line.get(i) == Some(&b'/') && digits(line, i + 1) > 0 {
        i += 1 + digits(line, i + 1);
    }
    (line.get(i) == Some(&b':') && line.get(i + 1) == Some(&b' ')).then(|| Shape {
        level: Some(Level::Info),
        message: i + 2,
    })
}

/// `key=value` pairs (logfmt: logrus, slog, structlog's key-value form)
/// with a level key among the first ones.
fn logfmt(line: &[u8]) -> Option<Shape> {
    // The line must open with `key=`.
    let key_end = line.iter().take(24).position(|&b| b == b'=')?;
    if !line[..key_end]
        .iter()
        .all(|&b| b.is_ascii_lowercase() || b == b'_' || b == b'.' || b == b'@')
    {
        return None;
    }
    let reach = &line[..line.len().min(240)];
    for key in &KEYS.logfmt_level {
        let mut from = 0;
        while let Some(at) = key.find(&reach[from..]).map(|i| i + from) {
            if at == 0 || reach[at - 1] == b' ' {
                let (word, _) = value_word(line, at + key.needle().len());
                if let Some(level) = Level::of_word(word) {
                    // The message is the `msg=` value when there is one.
                    let message = (KEYS.logfmt_msg.find(line))
                        .map_or(0, |m| m + 4 + usize::from(line.get(m + 4) == Some(&b'"')));
                    return Some(Shape {
                        level: Some(level),
                        message,
                    });
                }
            }
            from = at + 1;
        }
    }
    None
}

/// A word value of `key=value`, quoted or not: the word and where it ends.
fn value_word(line: &[u8], at: usize) -> (&[u8], usize) {
    let quoted = line.get(at) == Some(&b'"');
    let start = at + usize::from(quoted);
    let len = line
        .get(start..)
        .unwrap_or(&[])
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    (&line[start..start + len], start + len)
}

/// A JSON log line: its level from `level`, `levelname`, `severity`,
/// `log.level`, `lvl` or `loglevel` (at any depth: dbt nests it under
/// `info`), its message from `msg`, `message` or `event`.
fn json_shape(line: &[u8]) -> Option<Shape> {
    if line.trim_ascii_end().last() != Some(&b'}') {
        return None;
    }
    let mut level = None;
    'keys: for key in &KEYS.json_level {
        let mut from = 0;
        while let Some(at) = key.find(&line[from..]).map(|i| i + from) {
            if let Some(word) = json_string_after(line, at + key.needle().len())
                && let Some(l) = Level::of_word(word)
            {
                level = Some(l);
                break 'keys;
            }
            from = at + 1;
        }
    }
    let level = level?;
    let message = (KEYS.json_message.iter())
        .find_map(|key| {
            let at = key.find(line)? + key.needle().len();
            let colon = at
                + line[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count();
            (line.get(colon) == Some(&b':')).then_some(())?;
            let quote = colon
                + 1
                + line[colon + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count();
            (line.get(quote) == Some(&b'"')).then_some(quote + 1)
        })
        .unwrap_or(0);
    Some(Shape {
        level: Some(level),
        message,
    })
}

/// The string value after a JSON key ending at `at` (`: "value"`), if it
/// is a short word.
fn json_string_after(line: &[u8], at: usize) -> Option<&[u8]> {
    let mut i = at;
    while line.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if line.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    while line.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    if line.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let len = line
        .get(start..)?
        .iter()
        .take(10)
        .take_while(|&&b| b != b'"')
        .count();
    (line.get(start + len) == Some(&b'"')).then(|| &line[start..start + len])
}

/// Where the time-like prefix at the start of `line` ends (after its
/// closing bracket, if bracketed), or None when the line does not start
/// with one. A prefix holds a clock (`H:MM`, `HH:MM:SS`, with a fraction)
/// or is a relative time (`12.5s`, `[  3.141592]`), with dates, day and
/// month names, `T`, zones and AM/PM around it.
fn time_prefix(line: &[u8]) -> Option<usize> {
    let reach = &line[..line.len().min(MAX_PREFIX + 2)];
    let (open, close) = match reach.first()? {
        b'[' => (1, Some(b']')),
        b'(' => (1, Some(b')')),
        _ => (0, None),
    };
    let mut i = skip_spaces(reach, open);
    let mut clock = false;
    let mut tokens = 0;
    while let Some(end) = stamp_token(reach, i, &mut clock) {
        tokens += 1;
        i = end;
        // Between tokens: `T`, `,`, `_`, or one or two spaces; a zone
        // follows a clock directly (`12:00:00Z`, `12:00:00+0000`).
        let next = match reach.get(i) {
            Some(b'T' | b'_') if reach.get(i + 1).is_some_and(u8::is_ascii_digit) => i + 1,
            Some(b',') if reach.get(i + 1) == Some(&b' ') => i + 2,
            Some(b' ') => {
                let n = reach[i..]
                    .iter()
                    .take(3)
                    .take_while(|&&b| b == b' ')
                    .count();
                if n == 3 {
                    break;
                }
                i + n
            }
            _ => break,
        };
        // Only go on when another stamp token follows.
        let mut probe = clock;
        if stamp_token(reach, next, &mut probe).is_none() {
            break;
        }
        i = next;
        if tokens > 8 {
            break;
        }
    }
    if tokens == 0 {
        return None;
    }
    let relative = !clock && relative_time(reach, skip_spaces(reach, open));
    if !clock && !relative {
        return None;
    }
    if relative {
        i = skip_relative(reach, skip_spaces(reach, open));
    }
    match close {
        Some(c) => {
            let j = skip_spaces(reach, i);
            (reach.get(j) == Some(&c)).then_some(j + 1)
        }
        // A bare prefix ends where the line goes on with a separator.
        None => match line.get(i) {
            None => Some(i),
            Some(b' ' | b'\t' | b'|' | b']' | b':' | b'-') => Some(i),
            _ => None,
        },
    }
}

/// One token of a time stamp at `i`: a date, a clock (sets `clock`), a
/// number (a day or a year), a day or month name, a zone or AM/PM; where
/// it ends.
fn stamp_token(s: &[u8], i: usize, clock: &mut bool) -> Option<usize> {
    let b = *s.get(i)?;
    if b.is_ascii_digit() {
        let d = digits(s, i);
        let after = i + d;
        match (d, s.get(after)) {
            // A clock: H:MM or HH:MM[:SS][.frac], then a zone.
            (1 | 2, Some(b':')) if digits(s, after + 1) == 2 => {
                let mut j = after + 3;
                if s.get(j) == Some(&b':') && digits(s, j + 1) == 2 {
                    j += 3;
                }
                if matches!(s.get(j), Some(b'.' | b',')) && digits(s, j + 1) > 0 {
                    j += 1 + digits(s, j + 1);
                }
                *clock = true;
                Some(zone(s, j))
            }
            // A date: YYYY-MM-DD, YYYY/MM/DD, DD/MM/YY(YY), MM-DD-YYYY, DD.MM.YYYY.
            (2 | 4, Some(&sep @ (b'-' | b'/' | b'.'))) if digits(s, after + 1) == 2 => {
                let j = after + 3;
                if s.get(j) == Some(&sep) {
                    let y = digits(s, j + 1);
                    if y == 2 || y == 4 {
                        return Some(j + 1 + y);
                    }
                }
                None
            }
            // A compact date-time (`20261201T200958`) or a day or a year.
            (8, Some(b'T')) => Some(after),
            (1 | 2 | 4, _) => Some(after),
            _ => None,
        }
    } else if b == b'+' || b == b'-' {
        // A zone after a space: `+0000`, `-05:00`.
        let end = zone(s, i);
        (end > i && *clock).then_some(end)
    } else if b.is_ascii_alphabetic() {
        let len = s[i..]
            .iter()
            .take(4)
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        let word = &s[i..i + len];
        let known = len == 3 && (DAYS.contains(&word) || MONTHS.contains(&word))
            || matches!(word, b"AM" | b"PM" | b"am" | b"pm" | b"UTC" | b"GMT" | b"Z");
        if !known || s.get(i + len).is_some_and(u8::is_ascii_alphabetic) {
            return None;
        }
        let mut end = i + len;
        if s.get(end) == Some(&b',') {
            end += 1;
        }
        Some(end)
    } else {
        None
    }
}

const DAYS: &[&[u8]] = &[b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
const MONTHS: &[&[u8]] = &[
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// After a clock: `Z`, `+0000`, `-05:00`, `+00`.
fn zone(s: &[u8], i: usize) -> usize {
    match s.get(i) {
        Some(b'Z') if !s.get(i + 1).is_some_and(u8::is_ascii_alphanumeric) => i + 1,
        Some(b'+' | b'-') => {
            let d = digits(s, i + 1);
            if d == 4 || d == 2 && s.get(i + 3) != Some(&b':') {
                i + 1 + d
            } else if d == 2 && digits(s, i + 4) == 2 {
                i + 6
            } else {
                i
            }
        }
        _ => i,
    }
}

/// Whether a relative time starts at `i`: `12.5s`, `340ms`, `+0.123s`,
/// or a bracketed `3.141592` (kernel and test-runner style).
fn relative_time(s: &[u8], i: usize) -> bool {
    let end = skip_relative(s, i);
    end > i && (s[i..end].ends_with(b"s") || s.first() == Some(&b'[') && s[i..end].contains(&b'.'))
}

fn skip_relative(s: &[u8], i: usize) -> usize {
    let mut j = i + usize::from(s.get(i) == Some(&b'+'));
    let int = digits(s, j);
    if int == 0 {
        return i;
    }
    j += int;
    if s.get(j) == Some(&b'.') && digits(s, j + 1) > 0 {
        j += 1 + digits(s, j + 1);
    }
    if s[j..].starts_with(b"ms") {
        j += 2;
    } else if s.get(j) == Some(&b's') {
        j += 1;
    }
    if s.get(j).is_some_and(u8::is_ascii_alphanumeric) {
        return i;
    }
    j
}

fn digits(s: &[u8], i: usize) -> usize {
    s.get(i..)
        .unwrap_or(&[])
        .iter()
        .take(9)
        .take_while(|b| b.is_ascii_digit())
        .count()
}

fn skip_spaces(s: &[u8], mut i: usize) -> usize {
    while matches!(s.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    i
}

/// Separators between columns: spaces, `|`, `-`, `:`.
fn skip_separators(s: &[u8], mut i: usize) -> usize {
    while let Some(&b) = s.get(i) {
        match b {
            b' ' | b'\t' | b'|' => i += 1,
            // `-` and `:` separate only when a space follows (`- etl -`),
            // not inside a word (`2024-05-01`, `module:12`).
            b'-' | b':' if matches!(s.get(i + 1), Some(b' ' | b'\t') | None) => i += 1,
            _ => break,
        }
    }
    i
}

/// The level column after a time prefix ending at `at`, and where the
/// message starts. Up to two name columns may come first: a logger name
/// (`- etl -`), a thread (`[main]`), a source (`{taskinstance.py:123}`).
fn level_after(line: &[u8], at: usize) -> (Option<Level>, usize) {
    let reach = &line[..line.len().min(at + LEVEL_REACH)];
    let mut i = skip_separators(reach, at);
    let start = i;
    for _ in 0..3 {
        if let Some((level, end)) = level_token(reach, i, true) {
            return (Some(level), after_level(line, end));
        }
        // Skip one name column, if this is one.
        let Some(end) = name_column(reach, i) else {
            break;
        };
        let next = skip_separators(reach, end);
        if next == end {
            break;
        }
        i = next;
    }
    (None, start)
}

/// A name column at `i`: a bracketed or braced group, or a word followed
/// by ` - `, ` | ` or `: `. Where it ends.
fn name_column(s: &[u8], i: usize) -> Option<usize> {
    let b = *s.get(i)?;
    if let Some(close) = match b {
        b'[' => Some(b']'),
        b'{' => Some(b'}'),
        b'(' => Some(b')'),
        b'<' => Some(b'>'),
        _ => None,
    } {
        let len = s[i + 1..].iter().take(64).position(|&c| c == close)?;
        return Some(i + 1 + len + 1);
    }
    let len = s[i..]
        .iter()
        .take(64)
        .take_while(|&&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'@' | b'/' | b'-')
        })
        .count();
    if len == 0 {
        return None;
    }
    let end = i + len;
    let after = &s[end..];
    let separated =
        after.starts_with(b" - ") || after.starts_with(b" | ") || after.starts_with(b": ");
    separated.then_some(end)
}

/// A level column at `i`: `[LEVEL]`, `<LEVEL>`, `(LEVEL)` (any case,
/// padding inside allowed), `level=LEVEL`, or a bare level word (upper
/// case; any case when `timed` and followed by `:`). Its level and where
/// it ends.
fn level_token(s: &[u8], i: usize, timed: bool) -> Option<(Level, usize)> {
    let b = *s.get(i)?;
    if let Some(close) = match b {
        b'[' => Some(b']'),
        b'<' => Some(b'>'),
        b'(' => Some(b')'),
        _ => None,
    } {
        let start = skip_spaces(s, i + 1);
        let len = s[start..]
            .iter()
            .take(10)
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        let level = Level::of_word(&s[start..start + len])?;
        let end = skip_spaces(s, start + len);
        return (s.get(end) == Some(&close)).then_some((level, end + 1));
    }
    if s[i..].starts_with(b"level=") || s[i..].starts_with(b"lvl=") {
        let (word, end) = value_word(s, i + if s[i..].starts_with(b"lvl=") { 4 } else { 6 });
        let level = Level::of_word(word)?;
        return Some((level, end + usize::from(s.get(end) == Some(&b'"'))));
    }
    bare_level(s, i, !timed)
}

/// A bare level word at `i`, ending at a column boundary. Upper case, or
/// (unless `upper_only`) any case when a `:` follows it.
fn bare_level(s: &[u8], i: usize, upper_only: bool) -> Option<(Level, usize)> {
    let len = s[i..]
        .iter()
        .take(10)
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let word = &s[i..i + len];
    let level = Level::of_word(word)?;
    let end = i + len;
    let upper = word.iter().all(u8::is_ascii_uppercase);
    let boundary = match s.get(end) {
        None => true,
        Some(b' ' | b'\t' | b']' | b'|' | b',') => upper,
        Some(b':') => upper || !upper_only,
        _ => false,
    };
    boundary.then_some((level, end))
}

/// Where the message starts after a level column ending at `end`.
fn after_level(line: &[u8], end: usize) -> usize {
    // Python's default format: `WARNING:root:message`.
    if line.get(end) == Some(&b':') && !matches!(line.get(end + 1), Some(b' ' | b'\t') | None) {
        let i = end + 1;
        if let Some(name) = line[i..].iter().take(64).position(|&b| b == b':')
            && line[i..i + name]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
        {
            return i + name + 1;
        }
        return i;
    }
    skip_separators(line, end)
}

/// Whether `line` opens a Python traceback (`Traceback (most recent call
/// last):`, rich's boxed `╭─ Traceback (most recent call last) ─╮`) or a
/// chained one.
pub(crate) fn opens_traceback(line: &[u8]) -> bool {
    line.starts_with(b"Traceback (most recent call last)")
        || line.starts_with("╭".as_bytes()) && memchr::memmem::find(line, b"Traceback").is_some()
}

/// Whether `line` says a traceback continues with another exception.
pub(crate) fn chains_tracebacks(line: &[u8]) -> bool {
    line.starts_with(b"During handling of the above exception")
        || line.starts_with(b"The above exception was the direct cause")
}

/// Whether `line` continues a traceback's frames without being indented:
/// rich's box (`│ …`, `╰───╯`).
pub(crate) fn in_traceback_box(line: &[u8]) -> bool {
    line.starts_with("│".as_bytes()) || line.starts_with("╰".as_bytes())
}

/// A JVM stack line that continues a record without being indented:
/// `Caused by: …`, `Suppressed: …`.
pub(crate) fn continues_stack(line: &[u8]) -> bool {
    line.starts_with(b"Caused by: ") || line.starts_with(b"Suppressed: ")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn level(line: &str) -> Option<Level> {
        shape(line.as_bytes()).and_then(|s| s.level)
    }

    fn message(line: &str) -> &str {
        let s = shape(line.as_bytes()).unwrap_or_else(|| panic!("no shape: {line}"));
        &line[s.message..]
    }

    #[test]
    fn common_formats_read_with_their_level_and_message() {
        use Level::*;
        for (line, want, msg) in [
            // Python logging: default, then common formats.
            ("WARNING:root:disk is slow", Warning, "disk is slow"),
            ("INFO:etl.load:loaded 3 rows", Info, "loaded 3 rows"),
            (
                "2026-11-28 22:56:51,123 - etl - DEBUG - start",
                Debug,
                "start",
            ),
            (
                "2026-11-28 22:56:51 +0000 - etl - DEBUG - start",
                Debug,
                "start",
            ),
            (
                "2026-11-28 22:56:51,123 INFO etl: start",
                Info,
                "etl: start",
            ),
            ("2024-05-01 12:00:04,901 - name - WARNING - x", Warning, "x"),
            ("2026-11-28T22:56:51.123Z ERROR boom", Error, "boom"),
            ("2026-11-28T22:56:51+00:00 [ERROR] boom", Error, "boom"),
            // rich, with and without a date, and a blanked repeat.
            (
                "[12/01/26 20:09:58] INFO     message   file.py:12",
                Info,
                "message   file.py:12",
            ),
            ("[20:09:58] WARNING  careful", Warning, "careful"),
            ("           ERROR    broke", Error, "broke"),
            ("                    INFO     again", Info, "again"),
            ("INFO     no time column", Info, "no time column"),
            // loguru, structlog (console and key-value), Prefect, Airflow.
            (
                "2026-12-01 20:09:58.123 | INFO     | __main__:<module>:3 - hi",
                Info,
                "__main__:<module>:3 - hi",
            ),
            (
                "2026-12-01 20:09:58 [info     ] started   key=1",
                Info,
                "started   key=1",
            ),
            (
                "2026-12-01T20:09:58.123456Z [error    ] failed",
                Error,
                "failed",
            ),
            (
                "20:09:58.123 | INFO    | prefect.engine - Created",
                Info,
                "prefect.engine - Created",
            ),
            (
                "[2026-12-01T20:09:58.123+0000] {taskinstance.py:123} INFO - ran",
                Info,
                "ran",
            ),
            // log4j / Spark / logback.
            (
                "24/05/01 12:03:11 WARN Utils: Set SPARK_LOCAL_IP",
                Warning,
                "Utils: Set SPARK_LOCAL_IP",
            ),
            (
                "2026-12-01 20:09:58,123 ERROR [main] com.x.Y - boom",
                Error,
                "[main] com.x.Y - boom",
            ),
            (
                "20:09:58.123 [main] INFO  com.x.Y - started",
                Info,
                "com.x.Y - started",
            ),
            // logrus / slog text, and a bare time then a level.
            (
                "time=\"2026-12-01T20:09:58Z\" level=info msg=\"started\"",
                Info,
                "started\"",
            ),
            (
                "time=2026-12-01T20:09:58.123Z level=ERROR msg=boom",
                Error,
                "boom",
            ),
            ("level=warn msg=slow", Warning, "slow"),
            ("20:09:58 INF message", Info, "message"),
            // Snakemake, relative times.
            ("[Tue Dec  1 21:29:12 2026]", Info, ""),
            ("[  12.345s] INFO started", Info, "started"),
            // JSON lines.
            (
                "{\"level\": \"error\", \"msg\": \"boom\"}",
                Error,
                "boom\"}",
            ),
            (
                "{\"levelname\":\"WARNING\",\"message\":\"w\"}",
                Warning,
                "w\"}",
            ),
            ("{\"severity\":\"INFO\",\"event\":\"e\"}", Info, "e\"}"),
            (
                "{\"info\": {\"level\": \"warn\", \"msg\": \"x\"}}",
                Warning,
                "x\"}}",
            ),
            // A level in brackets or angle brackets first.
            ("[ERROR] the thing", Error, "the thing"),
            ("<warning> careful", Warning, "careful"),
            ("ERROR - boom", Error, "boom"),
            ("CRITICAL: disk", Critical, "disk"),
            ("FATAL: no", Critical, "no"),
            // A tool's progress message of one of its steps.
            (
                "Job 0: call ended in Timeout, using cached value",
                Info,
                "call ended in Timeout, using cached value",
            ),
        ] {
            if line.starts_with("[Tue") {
                // A time with nothing after it: a record of no level.
                assert_eq!(level(line), None, "{line}");
                continue;
            }
            assert_eq!(level(line), Some(want), "{line}");
            assert_eq!(message(line), msg, "{line}");
        }
    }

    #[test]
    fn a_time_without_a_level_is_a_record_of_no_level() {
        for line in [
            "00:36:37  Failure in model stg_orders",
            "12:00:01 the job started",
            "2026-12-01 20:09:58 message",
            "[12:00:00] plain",
        ] {
            let s = shape(line.as_bytes()).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(s.level, None, "{line}");
        }
        assert_eq!(
            message("00:36:37  Failure in model x"),
            "Failure in model x"
        );
    }

    #[test]
    fn lines_of_no_known_shape_stay_plain() {
        for line in [
            "",
            "hello world",
            "Traceback (most recent call last):",
            "  File \"x.py\", line 3, in <module>",
            "ValueError: bad",
            "error: could not compile `x`",
            "warning: unused variable",
            "Compilation Error",
            "1 validation error for ProjectConfig",
            "3 of 10 START model",
            "Done. PASS=3",
            "12345 rows",
            "2026 was a year",
            "Information about the run",
            "ERRORS: none",
            "Errors were found",
            "  indented text",
            "{\"data\": 1}",
            "{not json",
            "key=value without level",
            "/usr/bin/x: error",
            "100% done",
            "2026-12-01",
            "[x] checked",
            "(note) INFO",
            "Monday: plan",
            "- INFO - x",
        ] {
            assert_eq!(shape(line.as_bytes()), None, "{line:?}");
        }
    }

    fn levels() -> impl Strategy<Value = (&'static str, Level)> {
        prop::sample::select(vec![
            ("TRACE", Level::Trace),
            ("DEBUG", Level::Debug),
            ("INFO", Level::Info),
            ("NOTICE", Level::Notice),
            ("WARN", Level::Warning),
            ("WARNING", Level::Warning),
            ("ERROR", Level::Error),
            ("CRITICAL", Level::Critical),
            ("FATAL", Level::Critical),
        ])
    }

    fn times() -> impl Strategy<Value = String> {
        (0u32..24, 0u32..60, 0u32..60, 0u32..1000, 1u32..13, 1u32..29).prop_flat_map(
            |(h, m, s, ms, mo, d)| {
                prop::sample::select(vec![
                    format!("2026-{mo:02}-{d:02} {h:02}:{m:02}:{s:02},{ms:03}"),
                    format!("2026-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z"),
                    format!("2026-{mo:02}-{d:02} {h:02}:{m:02}:{s:02} +0000"),
                    format!("2026-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}+00:00"),
                    format!("[{mo:02}/{d:02}/26 {h:02}:{m:02}:{s:02}]"),
                    format!("[{h:02}:{m:02}:{s:02}]"),
                    format!("{h:02}:{m:02}:{s:02}.{ms:03}"),
                    format!("26/{mo:02}/{d:02} {h:02}:{m:02}:{s:02}"),
                    format!("[2026-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{ms:03}+0000]"),
                    format!("{d:02}.{mo:02}.2026 {h:02}:{m:02}"),
                ])
            },
        )
    }

    fn messages() -> impl Strategy<Value = String> {
        "[a-z][a-z0-9 ,.=_]{0,40}".prop_filter("no trailing space", |m| !m.ends_with(' '))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Every shape the reader knows, whatever its time and level,
        /// reads back to that level and message.
        #[test]
        fn record_shapes_round_trip((word, want) in levels(), time in times(), msg in messages(), form in 0usize..10) {
            let line = match form {
                0 => format!("{time} {word} {msg}"),
                1 => format!("{time} - etl.stage - {word} - {msg}"),
                2 => format!("{time} [{word}] {msg}"),
                3 => format!("{time} | {word:<8} | {msg}"),
                4 => format!("{time} {{file.py:12}} {word} - {msg}"),
                5 => format!("{word}:etl:{msg}"),
                6 => format!("{time} [{:<9}] {msg}", word.to_lowercase()),
                7 => format!("time={time:?} level={} msg={msg}", word.to_lowercase()),
                8 => format!("{{\"level\": \"{}\", \"msg\": \"{msg}\"}}", word.to_lowercase()),
                _ => format!("{time} [main] {word} {msg}"),
            };
            let s = shape(line.as_bytes());
            prop_assert!(s.is_some(), "{}", line);
            let s = s.unwrap();
            prop_assert_eq!(s.level, Some(want), "{}", line);
            let rest = &line[s.message..];
            prop_assert!(rest.starts_with(msg.as_str()), "{:?} in {:?}", rest, line);
        }

        /// Prose and other text that starts like no record stays a line.
        #[test]
        fn prose_is_no_record(line in "[a-z][a-zA-Z ,.!?'-]{0,60}") {
            prop_assert_eq!(shape(line.as_bytes()), None);
        }

        /// The reader never panics and never points past the line.
        #[test]
        fn any_bytes_are_safe(line in proptest::collection::vec(any::<u8>(), 0..120)) {
            if let Some(s) = shape(&line) {
                prop_assert!(s.message <= line.len());
            }
        }
    }
}
