//! Snapshot wildcards, as trycmd spells them: `[..]` in a line matches any
//! text within that line (none included), and a line that is exactly `...`
//! matches any number of lines (none included).
//!
//! [`matches()`] decides; [`normalize`] rewrites the actual output so that
//! every line a pattern line accepts reads as that pattern line, which
//! leaves a diff against the snapshot showing only what really differs.

/// Text within a line.
const ANY_TEXT: &str = "[..]";
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

/// Whether the output line `actual` is what the pattern line `pattern`
/// allows. Both end in `\n` or neither does.
fn line_matches(pattern: &str, actual: &str) -> bool {
    let (p, p_end) = split_end(pattern);
    let (a, a_end) = split_end(actual);
    if p_end != a_end {
        return false;
    }
    if !p.contains(ANY_TEXT) {
        return p == a;
    }
    let parts: Vec<&str> = p.split(ANY_TEXT).collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    let Some(mut rest) = a.strip_prefix(first) else {
        return false;
    };
    // Leftmost matches of the literal pieces in between are always safe:
    // taking one later could only leave less room for the rest.
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
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
    if pattern == actual {
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
