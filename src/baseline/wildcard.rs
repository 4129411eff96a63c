//! Snapshot wildcards, as trycmd spells them: `[..]` in a line matches any
//! text within that line (none included), and a line that is exactly `...`
//! matches any number of lines (none included).
//!
//! Escapes, so that output holding that text can be recorded literally:
//! `[[..]]` stands for the text `[..]` (read before `[..]` at each
//! position, left to right), and a line that is exactly `...` wrapped in
//! n >= 1 pairs of `[[` / `]]` (`[[...]]`, `[[[[...]]]]`) stands for that
//! line wrapped in n - 1 pairs. [`escape`] writes any text so that it
//! matches only itself; bless records output through it, so only
//! wildcards a person wrote match anything.
//!
//! [`matches()`] decides; [`normalize`] rewrites the actual output so that
//! every line a pattern line accepts reads as that pattern line, which
//! leaves a diff against the snapshot showing only what really differs.

/// Text within a line.
const ANY_TEXT: &str = "[..]";
/// The text `[..]`, escaped.
const LITERAL_ANY_TEXT: &str = "[[..]]";
/// A line standing for any number of lines.
const ANY_LINES: &str = "...";
/// Line comparisons [`normalize`] may spend looking for where a pattern and
/// an output that differ agree again; past it the rest of the output is
/// left as it is (the diff is still correct, only less tidy).
const RESYNC_BUDGET: usize = 200_000;
/// How far ahead (in lines, on each side) a resynchronisation looks.
const RESYNC_WINDOW: usize = 100;

/// Lines with their terminators, so a missing final newline is a difference.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn is_any_lines(line: &str) -> bool {
    split_end(line).0 == ANY_LINES
}

/// How many pairs of `[[` / `]]` wrap `...` to make `line` (a line without
/// its terminator); `None` when it is not such a line.
fn any_lines_depth(line: &str) -> Option<usize> {
    let mut inner = line;
    let mut n = 0;
    while inner != ANY_LINES {
        inner = inner.strip_prefix("[[")?.strip_suffix("]]")?;
        n += 1;
    }
    Some(n)
}

/// `text` with `depth` pairs of `[[` / `]]` around it.
fn wrapped(text: &str, depth: usize) -> String {
    format!("{}{text}{}", "[[".repeat(depth), "]]".repeat(depth))
}

/// The literal pieces of the pattern line `p` (without its terminator),
/// which its `[..]` wildcards separate: one piece when there is none.
fn literal_pieces(p: &str) -> Vec<std::borrow::Cow<'_, str>> {
    if let Some(n) = any_lines_depth(p).filter(|&n| n > 0) {
        return vec![wrapped(ANY_LINES, n - 1).into()];
    }
    if !p.contains(ANY_TEXT) {
        return vec![p.into()];
    }
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut rest = p;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(LITERAL_ANY_TEXT) {
            piece.push_str(ANY_TEXT);
            rest = after;
        } else if let Some(after) = rest.strip_prefix(ANY_TEXT) {
            pieces.push(std::mem::take(&mut piece).into());
            rest = after;
        } else {
            let ch = rest.chars().next().expect("not empty");
            piece.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    pieces.push(piece.into());
    pieces
}

/// Whether the output line `actual` is what the pattern line `pattern`
/// allows. Both end in `\n` or neither does.
fn line_matches(pattern: &str, actual: &str) -> bool {
    let (p, p_end) = split_end(pattern);
    let (a, a_end) = split_end(actual);
    if p_end != a_end {
        return false;
    }
    let parts = literal_pieces(p);
    if parts.len() == 1 {
        return parts[0] == a;
    }
    let (first, last) = (&parts[0], &parts[parts.len() - 1]);
    let Some(mut rest) = a.strip_prefix(first.as_ref()) else {
        return false;
    };
    // Leftmost matches of the literal pieces in between are always safe:
    // taking one later could only leave less room for the rest.
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid.as_ref()) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    rest.ends_with(last.as_ref())
}

/// `text` written as a snapshot that matches exactly `text`: every `[..]`
/// becomes `[[..]]`, and a line that is `...` (in any number of `[[` /
/// `]]` pairs) gets one pair more.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in lines(text) {
        let (body, end) = line
            .strip_suffix("\r\n")
            .map(|b| (b, "\r\n"))
            .or_else(|| line.strip_suffix('\n').map(|b| (b, "\n")))
            .unwrap_or((line, ""));
        match any_lines_depth(body) {
            Some(n) => out.push_str(&wrapped(ANY_LINES, n + 1)),
            None => out.push_str(&body.replace(ANY_TEXT, LITERAL_ANY_TEXT)),
        }
        out.push_str(end);
    }
    out
}

fn split_end(line: &str) -> (&str, bool) {
    match line.strip_suffix('\n') {
        Some(l) => (l.strip_suffix('\r').unwrap_or(l), true),
        None => (line, false),
    }
}

/// Whether `actual` is what the snapshot `pattern` allows.
///
/// Glob matching over lines (a `...` line is the star): on a dead end the
/// last `...` takes one more line and matching resumes, which is complete
/// because every other pattern line matches exactly one output line.
pub(crate) fn matches(pattern: &str, actual: &str) -> bool {
    if pattern == actual && !pattern.contains("[[") {
        return true;
    }
    let p = lines(pattern);
    let a = lines(actual);
    let (mut pi, mut ai) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ai < a.len() {
        if pi < p.len() && is_any_lines(p[pi]) {
            star = Some((pi, ai));
            pi += 1;
        } else if pi < p.len() && line_matches(p[pi], a[ai]) {
            pi += 1;
            ai += 1;
        } else if let Some((sp, sa)) = star {
            pi = sp + 1;
            ai = sa + 1;
            star = Some((sp, sa + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|l| is_any_lines(l))
}

/// `actual` rewritten towards `pattern` for a readable diff: lines a
/// pattern line accepts become that pattern line, lines a `...` absorbs
/// become that `...` line, everything else is kept. Equal to `pattern`
/// exactly when [`matches()`] holds for the common greedy reading.
pub(crate) fn normalize(pattern: &str, actual: &str) -> String {
    let p = lines(pattern);
    let a = lines(actual);
    let mut out = String::with_capacity(actual.len());
    let (mut pi, mut ai) = (0, 0);
    let mut budget = RESYNC_BUDGET;
    while pi < p.len() && ai < a.len() {
        if is_any_lines(p[pi]) {
            let Some(next) = p.get(pi + 1) else {
                // A final `...` absorbs the rest.
                out.push_str(p[pi]);
                return out;
            };
            let found = (ai..a.len())
                .find(|&j| line_matches(next, a[j]))
                .or_else(|| absorbed_until(&p, &a, pi, ai, &mut budget));
            match found {
                Some(j) => {
                    out.push_str(p[pi]);
                    pi += 1;
                    ai = j;
                }
                None => break,
            }
        } else if line_matches(p[pi], a[ai]) {
            out.push_str(p[pi]);
            pi += 1;
            ai += 1;
        } else {
            match resync(&p, &a, pi, ai, &mut budget) {
                Some((j, k)) => {
                    a[ai..j].iter().for_each(|l| out.push_str(l));
                    ai = j;
                    pi = k;
                }
                None => break,
            }
        }
    }
    a[ai..].iter().for_each(|l| out.push_str(l));
    out
}

/// Where the `...` at pattern line `pi` stops absorbing output when the
/// pattern line after it appears nowhere: at the first later pattern line
/// (before the next `...`) found in the output, less the pattern lines in
/// between, which are then taken to have changed. None when no later line
/// is found either.
fn absorbed_until(
    p: &[&str],
    a: &[&str],
    pi: usize,
    ai: usize,
    budget: &mut usize,
) -> Option<usize> {
    for (k, line) in p.iter().enumerate().skip(pi + 2) {
        if is_any_lines(line) {
            return None;
        }
        for (j, out) in a.iter().enumerate().skip(ai) {
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            if line_matches(line, out) {
                return Some(j.saturating_sub(k - (pi + 1)).max(ai));
            }
        }
    }
    None
}

/// The nearest point `(output line, pattern line)` at or after
/// `(ai, pi)`, other than that point itself, where the two agree again
/// without skipping a `...` line of the pattern.
fn resync(
    p: &[&str],
    a: &[&str],
    pi: usize,
    ai: usize,
    budget: &mut usize,
) -> Option<(usize, usize)> {
    let p_end = p[pi..]
        .iter()
        .position(|l| is_any_lines(l))
        .map_or(p.len(), |n| pi + n);
    for distance in 1..=2 * RESYNC_WINDOW {
        for dj in 0..=distance.min(RESYNC_WINDOW) {
            let dk = distance - dj;
            if dk > RESYNC_WINDOW {
                continue;
            }
            let (j, k) = (ai + dj, pi + dk);
            if j >= a.len() || k >= p_end {
                continue;
            }
            if *budget == 0 {
                return None;
            }
            *budget -= 1;
            if line_matches(p[k], a[j]) {
                return Some((j, k));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_wildcard_within_a_line() {
        assert!(matches("took [..] ms\n", "took 12 ms\n"));
        assert!(matches("took [..] ms\n", "took  ms\n"));
        assert!(matches("[..]\n", "anything at all\n"));
        assert!(matches("a[..]b[..]c\n", "a1b2b3c\n"));
        assert!(!matches("took [..] ms\n", "took 12 s\n"));
        assert!(!matches("took [..] ms\n", "took 12\nms\n"));
        assert!(!matches("x[..]\n", "x"));
    }

    #[test]
    fn line_wildcard_spans_any_number_of_lines() {
        assert!(matches("a\n...\nz\n", "a\nz\n"));
        assert!(matches("a\n...\nz\n", "a\nb\nc\nz\n"));
        assert!(matches("...\n", ""));
        assert!(matches("a\n...\n", "a\nb\nc"));
        // The `...` must take the later `x`: needs the backtracking.
        assert!(matches("...\nx\ny\n", "x\nq\nx\ny\n"));
        assert!(!matches("a\n...\nz\n", "a\nb\n"));
        assert!(!matches("a\n...\nz\n", "a\nz\nextra\n"));
    }

    #[test]
    fn exact_text_and_missing_newline() {
        assert!(matches("a\nb\n", "a\nb\n"));
        assert!(!matches("a\nb\n", "a\nb"));
        assert!(!matches("a\n", "a\nb\n"));
        assert!(matches("a\r\n", "a\n"));
    }

    #[test]
    fn normalizing_leaves_only_real_differences() {
        let pattern = "start [..]\n...\nrows: 3\nend\n";
        let actual = "start 12:00\nnoise\nnoise\nrows: 3\nadded\nend\n";
        assert_eq!(
            normalize(pattern, actual),
            "start [..]\n...\nrows: 3\nadded\nend\n"
        );
        let ok = "start 1\nrows: 3\nend\n";
        assert_eq!(normalize(pattern, ok), pattern);
        // The line after a `...` changed: the `...` still takes the noise.
        assert_eq!(
            normalize(pattern, "start 1\nnoise\nrows: 4\nend\n"),
            "start [..]\n...\nrows: 4\nend\n"
        );
        // A changed line in the middle; the lines after it line up again.
        assert_eq!(normalize("a\nb\nc\n", "a\nB\nc\n"), "a\nB\nc\n");
        assert_eq!(normalize("a\nb\nc\n", "a\nc\n"), "a\nc\n");
    }
}

#[cfg(test)]
mod escapes {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escaped_wildcards_read_as_text() {
        assert!(matches("a [[..]] b\n", "a [..] b\n"));
        assert!(!matches("a [[..]] b\n", "a x b\n"));
        assert!(!matches("a [[..]] b\n", "a [[..]] b\n"));
        // `[[..]]` is read first, left to right.
        assert!(matches("[[[..]]]\n", "[[..]]\n"));
        assert!(!matches("[[[..]]]\n", "[x]\n"));
        assert!(matches("[[...]]\n", "...\n"));
        assert!(!matches("a\n[[...]]\nz\n", "a\nb\nz\n"));
        assert!(matches("[[[[...]]]]\n", "[[...]]\n"));
        // Hand-written wildcards still work beside escapes.
        assert!(matches(
            "[[..]] took [..] ms\n...\n",
            "[..] took 5 ms\nmore\n"
        ));
    }

    #[test]
    fn escape_wraps_each_wildcard_once_more() {
        assert_eq!(
            escape("[..]\n...\n[[...]]\n"),
            "[[..]]\n[[...]]\n[[[[...]]]]\n"
        );
        assert_eq!(escape("[[..]]"), "[[[..]]]");
        assert_eq!(escape(" ...\nplain\r\n"), " ...\nplain\r\n");
    }

    /// Text made mostly of the characters the wildcards are made of.
    fn tricky() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("[".to_string()),
                Just("]".to_string()),
                Just(".".to_string()),
                Just("\n".to_string()),
                Just("[..]".to_string()),
                Just("[[..]]".to_string()),
                Just("...\n".to_string()),
                Just("[[...]]\n".to_string()),
                "[a-c ]{0,3}",
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn escaped_text_matches_itself(x in tricky()) {
            prop_assert!(matches(&escape(&x), &x), "escape: {:?}", escape(&x));
        }

        #[test]
        fn escaped_text_matches_nothing_else(x in tricky(), y in tricky()) {
            prop_assert_eq!(matches(&escape(&x), &y), x == y, "escape: {:?}", escape(&x));
        }

        #[test]
        fn escaped_text_rejects_its_wildcards_filled_in(x in tricky(), fill in "[a-c]{0,2}") {
            // What the unescaped text would have let through.
            let y = x.replace("[..]", &fill).replace("...\n", "");
            prop_assert_eq!(matches(&escape(&x), &y), x == y);
        }
    }
}
