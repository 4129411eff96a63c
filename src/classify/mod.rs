//! Classification of a case's output (SPEC section 4): failure patterns
//! matched per line over each output stream while it is read, pydantic
//! validation errors extracted on the way, and [`judge()`], the pure function
//! that turns what was observed into an execution status, a result and
//! issues.
//!
//! Output can be gigabytes, so lines are not matched one by one: a pre-check
//! runs over a whole block of complete lines (the regex engine's literal
//! prefilters make that several GB/s) and only the lines it flags are
//! matched per line. The pre-check is compiled in multi-line mode so that it
//! flags every line a per-line match would, and more; the per-line match
//! decides. Lines longer than a window are matched in overlapping windows so
//! memory stays bounded whatever the output.

use std::sync::{Arc, LazyLock, OnceLock};

use memchr::{memchr, memrchr};
use regex::bytes::{Regex, RegexBuilder};

use crate::config::{Expected, PatternConfig};
use crate::model::ValidationError;

mod judge;
mod pydantic;

pub use judge::{Observed, Verdict, judge};

/// Built-in validation patterns. SPEC lists `validation error for \w+`;
/// pydantic writes `3 validation errors for X` for several errors, so the
/// plural is accepted too.
pub const BUILTIN_VALIDATION: &[&str] = &[
    r"validation errors? for \w+",
    "Input should be a valid",
    "ValidationError",
    "Invalid config",
];
/// Built-in runtime patterns.
pub const BUILTIN_RUNTIME: &[&str] = &[
    "Pipeline failed",
    "SparkException",
    "Status: FAILURE",
    "Job aborted",
];
/// Built-in abort patterns.
pub const BUILTIN_ABORT: &[&str] = &["Timeout", "Interrupted", "SIGTERM"];

/// Lines at least this long are matched in windows of this size.
const WINDOW: usize = 64 * 1024;
/// Bytes shared by consecutive windows, so a match shorter than this that
/// straddles a window boundary is still seen whole.
const OVERLAP: usize = 4 * 1024;
/// Longest line kept in [`StreamFindings`], in characters.
const MAX_FINDING_CHARS: usize = 500;

const VALIDATION: usize = 0;
const RUNTIME: usize = 1;
const ABORT: usize = 2;
const AUTH: usize = 3;
const SCHEMA: usize = 4;
const SPECIFIC: usize = 5;
/// Categories whose pre-check shares one regex (see [`Shared::quick`]).
const QUICK_MASK: u8 = 0b1111;

static AUTH_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)unauthori[sz]ed|\bauth").expect("valid regex"));
static SCHEMA_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)schema").expect("valid regex"));
// Kept apart from the shared pre-check: 64 case variants of `schema` next to
// the other literals push the combined prefilter past what the regex crate
// accelerates, and the whole pre-check drops from ~8 GB/s to ~1 GB/s.
static SCHEMA_QUICK: LazyLock<Regex> = LazyLock::new(|| block_regex("(?i:schema)").expect("valid"));
// ASCII word boundary: the Unicode `\b` of AUTH_RE makes the lazy DFA give
// up on non-ASCII input, and the ASCII one flags a superset of lines.
const AUTH_QUICK: &str = r"(?i:unauthori[sz]ed)|(?i-u:\bauth)";

/// A custom pattern that is not valid.
#[derive(Debug, thiserror::Error)]
#[error("invalid {category} pattern `{pattern}`")]
pub struct PatternError {
    /// `validation`, `runtime` or `abort`.
    pub category: &'static str,
    /// The pattern as written.
    pub pattern: String,
    /// What the regex parser said.
    #[source]
    pub source: regex::Error,
}

#[derive(Debug)]
struct Shared {
    /// Per-line matchers of validation, runtime and abort; None when the
    /// category has no pattern.
    verify: [Option<Regex>; 3],
    /// Wrapped sources of the patterns that may go into a block pre-check.
    block_sources: [Vec<String>; 3],
    /// Categories with a pattern that must be matched on every line.
    every_line: u8,
    /// Pre-check per set of still-open categories among validation,
    /// runtime, abort and auth; None when it cannot be compiled, in which
    /// case every line is matched.
    quick: [OnceLock<Option<Regex>>; 16],
}

impl Shared {
    fn quick(&self, mask: u8) -> Option<&Regex> {
        let mask = mask & QUICK_MASK;
        self.quick[usize::from(mask)]
            .get_or_init(|| {
                let mut parts: Vec<&str> = vec![pydantic::HEADER_LITERAL];
                for cat in [VALIDATION, RUNTIME, ABORT] {
                    if mask & bit(cat) != 0 {
                        parts.extend(self.block_sources[cat].iter().map(String::as_str));
                    }
                }
                if mask & bit(AUTH) != 0 {
                    parts.push(AUTH_QUICK);
                }
                block_regex(&parts.join("|")).ok()
            })
            .as_ref()
    }
}

#[derive(Debug)]
struct Specific {
    re: Regex,
    /// None when the regex cannot be pre-checked over blocks.
    quick: Option<Regex>,
}

/// Compiled failure patterns, plus the per-case `specific_error` regex.
///
/// Compile once per run with [`Patterns::new`]; [`Patterns::for_expected`]
/// then makes a cheap per-case copy that shares everything compiled.
#[derive(Clone, Debug)]
pub struct Patterns {
    shared: Arc<Shared>,
    specific: Option<Arc<Specific>>,
}

impl Patterns {
    /// Compile the built-in patterns (unless `config.builtin` is false) and
    /// the custom ones.
    pub fn new(config: &PatternConfig) -> Result<Patterns, PatternError> {
        let lists: [(&'static str, &[&str], &[String]); 3] = [
            ("validation", BUILTIN_VALIDATION, &config.validation),
            ("runtime", BUILTIN_RUNTIME, &config.runtime),
            ("abort", BUILTIN_ABORT, &config.abort),
        ];
        let mut verify: [Option<Regex>; 3] = Default::default();
        let mut block_sources: [Vec<String>; 3] = Default::default();
        let mut every_line = 0;
        for (cat, (category, builtin, custom)) in lists.into_iter().enumerate() {
            let builtin = if config.builtin { builtin } else { &[] };
            let sources = builtin
                .iter()
                .copied()
                .chain(custom.iter().map(String::as_str));
            let mut wrapped = Vec::new();
            for pattern in sources {
                let w = wrap(pattern).map_err(|source| PatternError {
                    category,
                    pattern: pattern.to_string(),
                    source,
                })?;
                if block_safe(pattern) {
                    block_sources[cat].push(w.clone());
                } else {
                    every_line |= bit(cat);
                }
                wrapped.push(w);
            }
            if !wrapped.is_empty() {
                let joined = wrapped.join("|");
                verify[cat] = Some(Regex::new(&joined).map_err(|source| PatternError {
                    category,
                    pattern: joined,
                    source,
                })?);
            }
        }
        Ok(Patterns {
            shared: Arc::new(Shared {
                verify,
                block_sources,
                every_line,
                quick: Default::default(),
            }),
            specific: None,
        })
    }

    /// A copy for one case that also looks for `specific_error`.
    pub fn with_specific_error(&self, specific_error: Option<&Regex>) -> Patterns {
        let specific = specific_error.map(|re| {
            // Recompiled from its source in multi-line mode: harness regexes
            // are built with `Regex::new`, so the source says everything.
            let quick = block_safe(re.as_str())
                .then(|| block_regex(re.as_str()).ok())
                .flatten();
            Arc::new(Specific {
                re: re.clone(),
                quick,
            })
        });
        Patterns {
            shared: Arc::clone(&self.shared),
            specific,
        }
    }

    /// A copy for a case expecting `expected`.
    pub fn for_expected(&self, expected: &Expected) -> Patterns {
        match expected {
            Expected::Success => self.with_specific_error(None),
            Expected::SpecificError(re) => self.with_specific_error(Some(re)),
        }
    }

    /// A classifier for one output stream.
    pub fn classifier(&self) -> StreamClassifier {
        StreamClassifier::with_window(self.clone(), WINDOW, OVERLAP)
    }
}

fn bit(cat: usize) -> u8 {
    1 << cat
}

fn block_regex(src: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(src).multi_line(true).crlf(true).build()
}

/// `(?:p)`, so alternatives and inline flags stay inside the pattern. A
/// trailing `#` comment in verbose mode would swallow the `)`: the newline
/// variant ends the comment, and is only tried when the plain one fails.
fn wrap(pattern: &str) -> Result<String, regex::Error> {
    Regex::new(pattern)?;
    let plain = format!("(?:{pattern})");
    if Regex::new(&plain).is_ok() {
        return Ok(plain);
    }
    let verbose = format!("(?:{pattern}\n)");
    Regex::new(&verbose).map(|_| verbose)
}

/// Whether a block pre-check flags every line the pattern matches alone.
/// Haystack anchors and flags switching multi-line or CRLF mode off would
/// make it miss lines; this errs on the side of matching every line.
fn block_safe(pattern: &str) -> bool {
    if pattern.contains(r"\A") || pattern.contains(r"\z") {
        return false;
    }
    let mut rest = pattern;
    while let Some(i) = rest.find("(?") {
        rest = &rest[i + 2..];
        let flags = rest.split([':', ')']).next().unwrap_or("");
        if flags.contains('-') {
            return false;
        }
    }
    true
}

/// What one output stream showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamFindings {
    /// First line matching a validation pattern.
    pub validation: Option<String>,
    /// First line matching a runtime pattern.
    pub runtime: Option<String>,
    /// First line matching an abort pattern.
    pub abort: Option<String>,
    /// First line mentioning auth or unauthorized.
    pub auth: Option<String>,
    /// First line mentioning a schema.
    pub schema: Option<String>,
    /// Whether the case's `specific_error` regex matched a line.
    pub specific_error: bool,
    /// First line with something other than whitespace.
    pub first_line: Option<String>,
    /// Pydantic validation errors, in output order.
    pub validation_errors: Vec<ValidationError>,
}

impl StreamFindings {
    fn slot(&mut self, cat: usize) -> &mut Option<String> {
        match cat {
            VALIDATION => &mut self.validation,
            RUNTIME => &mut self.runtime,
            ABORT => &mut self.abort,
            AUTH => &mut self.auth,
            _ => &mut self.schema,
        }
    }
}

/// Classifies one output stream (stdout or stderr) from the chunks read
/// from its pipe; memory stays bounded whatever the output.
#[derive(Debug)]
pub struct StreamClassifier {
    patterns: Patterns,
    window: usize,
    overlap: usize,
    /// The line being received; never longer than `window`.
    carry: Vec<u8>,
    /// The line being received is longer than a window.
    long_line: bool,
    /// Categories still without a finding.
    open: u8,
    /// Block pre-checks of the open categories.
    quick: Vec<Regex>,
    /// Some open category must be matched on every line.
    every_line: bool,
    pydantic: pydantic::Extractor,
    findings: StreamFindings,
}

/// A cached pre-check result: searching from `from` found a match at `at`.
#[derive(Clone, Copy)]
struct Found {
    from: usize,
    at: Option<usize>,
}

impl StreamClassifier {
    fn with_window(patterns: Patterns, window: usize, overlap: usize) -> StreamClassifier {
        assert!(overlap < window, "windows must advance");
        let mut open = bit(AUTH) | bit(SCHEMA);
        for cat in [VALIDATION, RUNTIME, ABORT] {
            if patterns.shared.verify[cat].is_some() {
                open |= bit(cat);
            }
        }
        if patterns.specific.is_some() {
            open |= bit(SPECIFIC);
        }
        let mut c = StreamClassifier {
            patterns,
            window,
            overlap,
            carry: Vec::new(),
            long_line: false,
            open,
            quick: Vec::new(),
            every_line: false,
            pydantic: pydantic::Extractor::new(),
            findings: StreamFindings::default(),
        };
        c.refresh_quick();
        c
    }

    /// Classify the next bytes of the stream.
    pub fn feed(&mut self, mut chunk: &[u8]) {
        if !self.carry.is_empty() || self.long_line {
            let Some(nl) = memchr(b'\n', chunk) else {
                self.append_partial(chunk);
                return;
            };
            self.append_partial(&chunk[..nl]);
            self.end_line();
            chunk = &chunk[nl + 1..];
        }
        match memrchr(b'\n', chunk) {
            Some(last) => {
                self.scan_block(&chunk[..=last]);
                self.append_partial(&chunk[last + 1..]);
            }
            None => self.append_partial(chunk),
        }
    }

    /// The stream ended: classify its last line and return the findings.
    pub fn finish(mut self) -> StreamFindings {
        if !self.carry.is_empty() || self.long_line {
            self.end_line();
        }
        let mut findings = self.findings;
        findings.validation_errors = self.pydantic.into_errors();
        findings
    }

    fn refresh_quick(&mut self) {
        let shared = &self.patterns.shared;
        self.quick.clear();
        let mut every_line = shared.every_line & self.open & QUICK_MASK != 0;
        match shared.quick(self.open) {
            Some(re) => self.quick.push(re.clone()),
            None => every_line = true,
        }
        if self.open & bit(SCHEMA) != 0 {
            self.quick.push(SCHEMA_QUICK.clone());
        }
        if self.open & bit(SPECIFIC) != 0 {
            match self
                .patterns
                .specific
                .as_ref()
                .and_then(|s| s.quick.as_ref())
            {
                Some(re) => self.quick.push(re.clone()),
                None => every_line = true,
            }
        }
        self.every_line = every_line;
    }

    fn close(&mut self, cat: usize) {
        self.open &= !bit(cat);
        self.refresh_quick();
    }

    /// Append bytes of a line whose end has not arrived yet.
    fn append_partial(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.carry.capacity() == 0 {
                self.carry.reserve_exact(self.window);
            }
            let take = (self.window - self.carry.len()).min(bytes.len());
            self.carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.carry.len() == self.window {
                let buf = std::mem::take(&mut self.carry);
                self.fragment(&buf);
                self.carry = buf;
                self.carry.drain(..self.window - self.overlap);
                self.long_line = true;
            }
        }
    }

    fn end_line(&mut self) {
        let mut buf = std::mem::take(&mut self.carry);
        if self.long_line {
            self.fragment(strip_cr(&buf));
        } else {
            self.line(&buf);
        }
        buf.clear();
        self.carry = buf;
        self.long_line = false;
    }

    /// Complete lines, each ending with `\n`.
    fn scan_block(&mut self, block: &[u8]) {
        let mut pos = 0;
        let mut long: Option<Found> = None;
        while pos < block.len() {
            if self.every_line || self.findings.first_line.is_none() || self.pydantic.in_block() {
                let end = memchr(b'\n', &block[pos..]).map_or(block.len(), |i| pos + i);
                self.line(&block[pos..end]);
                pos = end + 1;
                continue;
            }
            let stretch_end = match long {
                Some(f) if f.from <= pos && f.at.is_none_or(|at| at >= pos) => f.at,
                _ => {
                    let at = find_long_line(block, pos, self.window);
                    long = Some(Found { from: pos, at });
                    at
                }
            };
            let stretch = &block[..stretch_end.unwrap_or(block.len())];
            pos = self.scan_stretch(stretch, pos);
            if pos == stretch.len()
                && let Some(start) = stretch_end
            {
                let end = memchr(b'\n', &block[start..]).map_or(block.len(), |i| start + i);
                self.line(&block[start..end]);
                pos = end + 1;
            }
        }
    }

    /// Match the flagged lines of `stretch[pos..]` (complete lines, none
    /// long). Returns where it stopped: the end, or the line after one that
    /// changed what is looked for.
    fn scan_stretch(&mut self, stretch: &[u8], mut pos: usize) -> usize {
        // One slot per pre-check: shared, schema and specific at most.
        let mut found: [Option<Found>; 3] = [None; 3];
        while pos < stretch.len() {
            let mut next: Option<usize> = None;
            for (re, cached) in self.quick.iter().zip(found.iter_mut()) {
                let at = match *cached {
                    Some(f) if f.from <= pos && f.at.is_none_or(|at| at >= pos) => f.at,
                    _ => {
                        let at = re.find_at(stretch, pos).map(|m| m.start());
                        *cached = Some(Found { from: pos, at });
                        at
                    }
                };
                next = match (next, at) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            let Some(at) = next else {
                return stretch.len();
            };
            let start = memrchr(b'\n', &stretch[pos..at]).map_or(pos, |i| pos + i + 1);
            let end = memchr(b'\n', &stretch[at..]).map_or(stretch.len(), |i| at + i);
            let open = self.open;
            self.line(&stretch[start..end]);
            pos = end + 1;
            if open != self.open || self.pydantic.in_block() {
                break;
            }
        }
        pos.min(stretch.len())
    }

    /// One complete line without its `\n`.
    fn line(&mut self, raw: &[u8]) {
        if raw.len() >= self.window {
            self.long_line_in_windows(raw);
            return;
        }
        let line = strip_cr(raw);
        self.note_first_line(line);
        self.pydantic.line(line);
        self.match_line(line);
    }

    /// A whole long line, cut exactly as [`Self::append_partial`] cuts one
    /// that arrives in pieces, so chunking never changes the findings.
    fn long_line_in_windows(&mut self, raw: &[u8]) {
        let step = self.window - self.overlap;
        let mut start = 0;
        while start + self.window <= raw.len() {
            self.fragment(&raw[start..start + self.window]);
            start += step;
        }
        self.fragment(strip_cr(&raw[start..]));
    }

    /// A window of a long line.
    fn fragment(&mut self, bytes: &[u8]) {
        // Pydantic blocks are short lines; a long one ends any block.
        self.pydantic.interrupt();
        self.note_first_line(bytes);
        self.match_line(bytes);
    }

    fn note_first_line(&mut self, line: &[u8]) {
        // Checked on the bytes first: the first line is almost always found
        // at once, and empty lines should not cost a conversion.
        if self.findings.first_line.is_none() && !line.trim_ascii().is_empty() {
            let text = snippet(line, line.len() - line.trim_ascii_start().len());
            if !text.is_empty() {
                self.findings.first_line = Some(text);
            }
        }
    }

    fn match_line(&mut self, line: &[u8]) {
        if !self.every_line && !self.quick.iter().any(|re| re.is_match(line)) {
            return;
        }
        for cat in [VALIDATION, RUNTIME, ABORT, AUTH, SCHEMA] {
            if self.open & bit(cat) == 0 {
                continue;
            }
            let re = match cat {
                AUTH => Some(&*AUTH_RE),
                SCHEMA => Some(&*SCHEMA_RE),
                _ => self.patterns.shared.verify[cat].as_ref(),
            };
            if let Some(m) = re.and_then(|re| re.find(line)) {
                *self.findings.slot(cat) = Some(snippet(line, m.start()));
                self.close(cat);
            }
        }
        if self.open & bit(SPECIFIC) != 0
            && self
                .patterns
                .specific
                .as_ref()
                .is_some_and(|s| s.re.is_match(line))
        {
            self.findings.specific_error = true;
            self.close(SPECIFIC);
        }
    }
}

/// Start of the first line at or after `pos` that is at least `window`
/// bytes long (without its `\n`). Such a line covers a whole aligned half
/// window, so one `memchr` per half window finds it.
fn find_long_line(block: &[u8], pos: usize, window: usize) -> Option<usize> {
    let half = (window / 2).max(1);
    let mut seg = pos.div_ceil(half) * half;
    while seg + half <= block.len() {
        if memchr(b'\n', &block[seg..seg + half]).is_some() {
            seg += half;
            continue;
        }
        let start = memrchr(b'\n', &block[pos..seg]).map_or(pos, |i| pos + i + 1);
        let end = memchr(b'\n', &block[seg..]).map_or(block.len(), |i| seg + i);
        if end - start >= window {
            return Some(start);
        }
        seg = (end + 1).div_ceil(half) * half;
    }
    None
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Up to [`MAX_FINDING_CHARS`] of `line` around byte `at`, as one clean
/// line of text.
fn snippet(line: &[u8], at: usize) -> String {
    const BEFORE: usize = 100;
    let mut start = if at <= 4 * BEFORE { 0 } else { at - BEFORE };
    while start > 0 && start < line.len() && line[start] & 0xC0 == 0x80 {
        start -= 1;
    }
    let end = line.len().min(start + 4 * MAX_FINDING_CHARS);
    let text = one_line(&String::from_utf8_lossy(&line[start..end]));
    let text = clip(text.trim(), MAX_FINDING_CHARS);
    if start > 0 {
        format!("…{text}")
    } else {
        text
    }
}

/// At most `max` characters; a cut is marked with `…`.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some(_) => {
            let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
            s.push('…');
            s
        }
    }
}

/// Without ANSI escape sequences and with other control characters turned
/// into spaces, so messages stay on one line and read the same everywhere.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // CSI: parameters and intermediates, then one final byte.
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
        } else if c.is_control() {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::model::{
        CaseKind, CaseResult, EvidenceStatus, ExecutionStatus, IssueType, Severity, Stage,
    };

    const ONE_ERROR: &[u8] = include_bytes!("../../tests/fixtures/pydantic-1-error.txt");
    const THREE_ERRORS: &[u8] = include_bytes!("../../tests/fixtures/pydantic-3-errors.txt");

    fn patterns() -> Patterns {
        Patterns::new(&PatternConfig {
            builtin: true,
            ..PatternConfig::default()
        })
        .unwrap()
    }

    fn classify_chunks(p: &Patterns, chunks: &[&[u8]]) -> StreamFindings {
        let mut c = p.classifier();
        for chunk in chunks {
            c.feed(chunk);
        }
        c.finish()
    }

    fn classify(p: &Patterns, out: &[u8]) -> StreamFindings {
        classify_chunks(p, &[out])
    }

    fn ran(exit: i32, stdout: &StreamFindings, stderr: &StreamFindings) -> Verdict {
        ran_expecting(&Expected::Success, exit, stdout, stderr)
    }

    fn ran_expecting(
        expected: &Expected,
        exit: i32,
        stdout: &StreamFindings,
        stderr: &StreamFindings,
    ) -> Verdict {
        let obs = Observed {
            exit_code: Some(exit),
            signal: None,
            timed_out: false,
            interrupted: false,
            stdout,
            stderr,
            golden_modified: None,
            not_run_reason: None,
        };
        judge("case", CaseKind::Verify, expected, &obs)
    }

    fn types(v: &Verdict) -> Vec<IssueType> {
        v.issues.iter().map(|i| i.issue_type).collect()
    }

    fn err(field: &str, message: &str) -> ValidationError {
        ValidationError {
            field: field.into(),
            message: message.into(),
        }
    }

    #[test]
    fn validation_message_at_exit_zero_fails_with_both_errors() {
        let p = patterns();
        let out = b"loading\n2 validation errors for ProjectConfig\npipelines.0.name\n  \
            Input should be a valid string [type=string_type, input_value=5, input_type=int]\n    \
            For further information visit https://errors.pydantic.dev/2.13/v/string_type\n\
            pipelines.1\n  Field required [type=missing, input_value={}, input_type=dict]\ndone\n";
        let stdout = classify(&p, out);
        let v = ran(0, &stdout, &StreamFindings::default());
        assert_eq!(v.execution_status, ExecutionStatus::ValidationFailed);
        assert_eq!(v.result, CaseResult::Failed);
        assert_eq!(v.status, EvidenceStatus::Success);
        assert_eq!(
            v.validation_errors,
            [
                err("pipelines.0.name", "Input should be a valid string"),
                err("pipelines.1", "Field required"),
            ]
        );
        assert_eq!(types(&v), [IssueType::ConfigurationError]);
        let issue = &v.issues[0];
        assert_eq!(
            issue.message,
            "Pipeline validation failed: pipelines.0.name - Input should be a valid string"
        );
        assert_eq!(issue.stage, Stage::ConfigValidation);
        assert_eq!(issue.severity, Severity::High);
        assert_eq!(
            issue.evidence,
            "Status: VALIDATION_FAILED | Exit code: 0 | Output: 2 validation errors for ProjectConfig"
        );
    }

    #[test]
    fn runtime_patterns_at_exit_zero_fail() {
        let p = patterns();
        for line in [
            "org.apache.spark.SparkException: boom",
            "Job aborted due to stage failure",
        ] {
            let stderr = classify(&p, format!("starting\n{line}\n").as_bytes());
            let v = ran(0, &StreamFindings::default(), &stderr);
            assert_eq!(v.execution_status, ExecutionStatus::RuntimeFailed, "{line}");
            assert_eq!(v.result, CaseResult::Failed);
            assert_eq!(types(&v), [IssueType::PipelineExecutionError]);
            assert_eq!(
                v.issues[0].message,
                format!("Pipeline execution failed: {line}")
            );
            assert_eq!(v.issues[0].stage, Stage::Execution);
            assert_eq!(v.issues[0].severity, Severity::Medium);
        }
    }

    #[test]
    fn specific_error_seen_not_seen_and_success() {
        let expected = Expected::SpecificError(Regex::new("missing column `id`").unwrap());
        let p = patterns().for_expected(&expected);
        let seen = classify(&p, b"error: missing column `id`\n");
        let v = ran_expecting(&expected, 2, &StreamFindings::default(), &seen);
        assert_eq!(v.result, CaseResult::Passed);
        assert!(v.issues.is_empty());

        let other = classify(&p, b"error: disk full\n");
        let v = ran_expecting(&expected, 2, &StreamFindings::default(), &other);
        assert_eq!(v.result, CaseResult::Failed);
        assert_eq!(types(&v), [IssueType::UnexpectedError]);
        assert!(
            v.issues[0].message.contains("got RUNTIME_FAILED"),
            "{}",
            v.issues[0].message
        );

        // Seen, but the case succeeded: an expected error must make it fail.
        let v = ran_expecting(&expected, 0, &seen, &StreamFindings::default());
        assert_eq!(v.result, CaseResult::Failed);
        assert_eq!(types(&v), [IssueType::UnexpectedSuccess]);
    }

    #[test]
    fn auth_and_schema_lines_are_found() {
        let p = patterns();
        let f = classify(&p, b"ok\nHTTP 401 Unauthorized\nbad Schema for t\n");
        assert_eq!(f.auth.as_deref(), Some("HTTP 401 Unauthorized"));
        assert_eq!(f.schema.as_deref(), Some("bad Schema for t"));
        assert!(classify(&p, b"auth: token expired\n").auth.is_some());
        // Inside a word it is not about authentication.
        assert_eq!(
            classify(&p, b"oauth token refreshed\n\xc3\xa9auth\n").auth,
            None
        );
    }

    #[test]
    fn classifiers_can_run_on_the_threads_reading_the_pipes() {
        fn send<T: Send + 'static>(_: &T) {}
        let p = patterns();
        send(&p);
        send(&p.classifier());
    }

    #[test]
    fn custom_patterns_are_added_and_builtin_false_drops_the_rest() {
        let config = PatternConfig {
            validation: vec!["(?i)bad manifest".into()],
            runtime: vec![r"^E\d+ ".into()],
            abort: vec![],
            builtin: true,
        };
        let p = Patterns::new(&config).unwrap();
        assert!(classify(&p, b"x\nBAD Manifest here\n").validation.is_some());
        assert!(classify(&p, b"ok\nE42 broke\n").runtime.is_some());
        // Anchors mean the start of a line, not of the output or a block.
        assert_eq!(classify(&p, b"ok\nsee E42 broke\n").runtime, None);
        assert!(classify(&p, b"SparkException\n").runtime.is_some());

        let p = Patterns::new(&PatternConfig {
            builtin: false,
            ..config
        })
        .unwrap();
        let out = classify(&p, b"SparkException\nTimeout\nInvalid config\n");
        let v = ran(0, &out, &StreamFindings::default());
        assert_eq!(v.execution_status, ExecutionStatus::Success);
        assert!(classify(&p, b"E7 x\n").runtime.is_some());
    }

    #[test]
    fn invalid_custom_pattern_is_an_error() {
        let e = Patterns::new(&PatternConfig {
            runtime: vec!["(unclosed".into()],
            builtin: true,
            ..PatternConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.category, "runtime");
        assert_eq!(e.pattern, "(unclosed");
    }

    #[test]
    fn patterns_a_block_cannot_precheck_are_matched_on_every_line() {
        let p = Patterns::new(&PatternConfig {
            runtime: vec![
                r"\Afatal".into(),
                "(?-m:^oops$)".into(),
                "(?x) broken # comment".into(),
            ],
            builtin: false,
            ..PatternConfig::default()
        })
        .unwrap();
        assert!(classify(&p, b"a\nb\nfatal: no\n").runtime.is_some());
        assert!(classify(&p, b"a\noops\r\nb\n").runtime.is_some());
        assert!(classify(&p, b"a\nthis is broken\n").runtime.is_some());
        assert_eq!(classify(&p, b"a\nnot fatal\n").runtime, None);
    }

    #[test]
    fn a_block_match_across_lines_is_not_a_line_match() {
        let p = Patterns::new(&PatternConfig {
            runtime: vec![r"disk\sfull".into()],
            builtin: false,
            ..PatternConfig::default()
        })
        .unwrap();
        assert_eq!(classify(&p, b"disk\nfull\n").runtime, None);
        assert_eq!(
            classify(&p, b"disk\nfull\ndisk full\n").runtime.as_deref(),
            Some("disk full")
        );
    }

    #[test]
    fn pattern_split_at_every_chunk_boundary_is_found() {
        let expected = Expected::SpecificError(Regex::new("code=E42").unwrap());
        let p = patterns().for_expected(&expected);
        let out: &[u8] = b"line one\nstage 3: Pipeline failed (code=E42)\r\nlast";
        let whole = classify(&p, out);
        assert_eq!(
            whole.runtime.as_deref(),
            Some("stage 3: Pipeline failed (code=E42)")
        );
        assert!(whole.specific_error);
        for i in 0..=out.len() {
            for j in i..=out.len() {
                let split = classify_chunks(&p, &[&out[..i], &out[i..j], &out[j..]]);
                assert_eq!(split, whole, "split at {i} and {j}");
            }
        }
    }

    #[test]
    fn crlf_line_endings_are_stripped() {
        let p = Patterns::new(&PatternConfig {
            runtime: vec!["failed$".into()],
            builtin: false,
            ..PatternConfig::default()
        })
        .unwrap();
        let f = classify(&p, b"first\r\nthe step failed\r\n");
        assert_eq!(f.runtime.as_deref(), Some("the step failed"));
        assert_eq!(f.first_line.as_deref(), Some("first"));
        let f = classify_chunks(&p, &[b"the step fail", b"ed\r", b"\nok\r\n"]);
        assert_eq!(f.runtime.as_deref(), Some("the step failed"));
    }

    #[test]
    fn huge_line_without_newline_stays_bounded() {
        let p = patterns();
        let mut c = p.classifier();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..100 {
            c.feed(&chunk);
            assert!(c.carry.capacity() <= 2 * WINDOW, "{}", c.carry.capacity());
        }
        c.feed(b"Job aborted");
        assert!(c.carry.capacity() <= 2 * WINDOW);
        let f = c.finish();
        let runtime = f.runtime.expect("pattern at the end of the line");
        assert!(runtime.ends_with("Job aborted"), "{runtime}");
        assert!(runtime.chars().count() <= MAX_FINDING_CHARS + 1);
        assert_eq!(
            f.first_line.map(|l| l.chars().count()),
            Some(MAX_FINDING_CHARS)
        );
    }

    #[test]
    fn long_lines_in_one_chunk_match_like_long_lines_in_pieces() {
        let p = patterns();
        let mut out = vec![b'a'; 3 * WINDOW];
        out.extend_from_slice(b" Status: FAILURE\nnext\n");
        out.extend(std::iter::repeat_n(b'b', WINDOW / 3));
        out.extend_from_slice(b"Invalid config\n");
        let whole = classify(&p, &out);
        assert!(whole.runtime.is_some() && whole.validation.is_some());
        let pieces: Vec<&[u8]> = out.chunks(1000).collect();
        assert_eq!(classify_chunks(&p, &pieces), whole);
    }

    #[test]
    fn fixtures_are_extracted() {
        let p = patterns();
        let one = classify(&p, ONE_ERROR);
        assert_eq!(
            one.validation_errors,
            [err("stages.0.columns.1", "Input should be a valid string")]
        );
        assert!(one.validation.is_some());
        let three = classify(&p, THREE_ERRORS);
        assert_eq!(
            three.validation_errors,
            [
                err("stages.0.name", "Input should be a valid string"),
                err(
                    "stages.0.source.partitions",
                    "Input should be greater than or equal to 1"
                ),
                err("stages.0.columns", "Input should be a valid list"),
            ]
        );
        // Both blocks in one stream, in pieces of every size.
        let both = [ONE_ERROR, b"\n", THREE_ERRORS].concat();
        for size in 1..both.len() {
            let pieces: Vec<&[u8]> = both.chunks(size).collect();
            let f = classify_chunks(&p, &pieces);
            assert_eq!(f.validation_errors.len(), 4, "pieces of {size}");
            assert_eq!(f.validation_errors[1], three.validation_errors[0]);
        }
    }

    #[test]
    fn findings_are_clean_single_lines() {
        let p = patterns();
        let f = classify(&p, b"\x1b[31mPipeline failed\x1b[0m\tat \xff step\n");
        assert_eq!(
            f.runtime.as_deref(),
            Some("Pipeline failed at \u{fffd} step")
        );
        let long = [vec![b'y'; 5000], b" SparkException".to_vec()].concat();
        let f = classify(&p, &long);
        let line = f.runtime.unwrap();
        assert!(
            line.starts_with('…') && line.ends_with("SparkException"),
            "{line}"
        );
    }

    /// The plain meaning of the rules: every line matched on its own.
    fn reference(p: &Patterns, out: &[u8]) -> StreamFindings {
        let mut f = StreamFindings::default();
        let lines: Vec<&[u8]> = match out.strip_suffix(b"\n") {
            Some(rest) => rest.split(|&b| b == b'\n').collect(),
            None if out.is_empty() => Vec::new(),
            None => out.split(|&b| b == b'\n').collect(),
        };
        for raw in lines {
            let line = strip_cr(raw);
            let text = snippet(line, line.len() - line.trim_ascii_start().len());
            if f.first_line.is_none() && !text.is_empty() {
                f.first_line = Some(text);
            }
            for cat in [VALIDATION, RUNTIME, ABORT, AUTH, SCHEMA] {
                let re = match cat {
                    AUTH => Some(&*AUTH_RE),
                    SCHEMA => Some(&*SCHEMA_RE),
                    _ => p.shared.verify[cat].as_ref(),
                };
                if f.slot(cat).is_none()
                    && let Some(m) = re.and_then(|re| re.find(line))
                {
                    *f.slot(cat) = Some(snippet(line, m.start()));
                }
            }
            f.specific_error |= p.specific.as_ref().is_some_and(|s| s.re.is_match(line));
        }
        f
    }

    fn output() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            3 => proptest::collection::vec(any::<u8>(), 0..12),
            2 => Just(b"\n".to_vec()),
            1 => Just(b"\r\n".to_vec()),
            1 => Just(b"  ".to_vec()),
            1 => prop::sample::select(vec![
                "Pipeline failed", "SparkException", "Timeout", "SIGTERM", "Invalid config",
                "ValidationError", "2 validation errors for Job", "1 validation error for X",
                "stages.0.name", "  Input should be a valid string [type=string_type]",
                "    For further information visit x", "  Value error, x", "Unauthorized",
                "oauth", "auth", "SCHEMA", "E42", "Job ab", "orted", "\u{e9}auth",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    fn config() -> impl Strategy<Value = (PatternConfig, Option<&'static str>)> {
        let custom =
            prop::sample::subsequence(vec!["^E4", r"\d$", r"(?i)job\s+ab", r"\Aauth"], 0..3);
        let specific = prop::option::of(prop::sample::select(vec!["E42", "^SIG", r"for \w+$"]));
        (custom, any::<bool>(), specific).prop_map(|(custom, builtin, specific)| {
            let config = PatternConfig {
                runtime: custom.into_iter().map(String::from).collect(),
                builtin,
                ..PatternConfig::default()
            };
            (config, specific)
        })
    }

    fn chunked(p: &Patterns, window: (usize, usize), out: &[u8], cuts: &[usize]) -> StreamFindings {
        let mut c = StreamClassifier::with_window(p.clone(), window.0, window.1);
        let mut cuts: Vec<usize> = cuts.iter().map(|&i| i % (out.len() + 1)).collect();
        cuts.sort_unstable();
        let mut last = 0;
        for cut in cuts.into_iter().chain([out.len()]) {
            c.feed(&out[last..cut]);
            last = cut;
        }
        c.finish()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn chunking_never_changes_the_findings(
            out in output(),
            (config, specific) in config(),
            cuts in proptest::collection::vec(any::<usize>(), 0..8),
            window in prop::sample::select(vec![(WINDOW, OVERLAP), (16, 5), (7, 3), (2, 1)]),
        ) {
            let specific = specific.map(|s| Regex::new(s).unwrap());
            let p = Patterns::new(&config).unwrap().with_specific_error(specific.as_ref());
            let whole = chunked(&p, window, &out, &[]);
            prop_assert_eq!(&chunked(&p, window, &out, &cuts), &whole);
            let bytewise: Vec<usize> = (0..out.len()).collect();
            prop_assert_eq!(&chunked(&p, window, &out, &bytewise), &whole);
            if window.0 == WINDOW {
                let expected = reference(&p, &out);
                prop_assert_eq!(&whole.validation, &expected.validation);
                prop_assert_eq!(&whole.runtime, &expected.runtime);
                prop_assert_eq!(&whole.abort, &expected.abort);
                prop_assert_eq!(&whole.auth, &expected.auth);
                prop_assert_eq!(&whole.schema, &expected.schema);
                prop_assert_eq!(whole.specific_error, expected.specific_error);
                prop_assert_eq!(&whole.first_line, &expected.first_line);
            }
        }

        #[test]
        fn failures_always_carry_issues_and_passes_never(
            stdout in output(),
            stderr in output(),
            exit_code in prop::option::of(prop_oneof![Just(0), -2..300i32]),
            signal in prop::option::of(1..32i32),
            timed_out in any::<bool>(),
            interrupted in any::<bool>(),
            specific in prop::option::of(prop::sample::select(vec!["Timeout", "E42", "nothing"])),
            golden in any::<bool>(),
            modified in prop::option::of(Just("a.txt")),
            not_run in prop::option::of(Just("missing dir")),
        ) {
            let expected = match specific {
                Some(s) => Expected::SpecificError(Regex::new(s).unwrap()),
                None => Expected::Success,
            };
            let p = patterns().for_expected(&expected);
            let (out, err) = (classify(&p, &stdout), classify(&p, &stderr));
            let obs = Observed {
                exit_code,
                signal,
                timed_out,
                interrupted,
                stdout: &out,
                stderr: &err,
                golden_modified: modified,
                not_run_reason: not_run,
            };
            let kind = if golden { CaseKind::Golden } else { CaseKind::Verify };
            let v = judge("c", kind, &expected, &obs);
            prop_assert_eq!(v.result == CaseResult::Passed, v.issues.is_empty());
            prop_assert_ne!(v.result, CaseResult::Skipped);
            let prefix = format!("Status: {} | Exit code: ", v.execution_status.as_str());
            for issue in &v.issues {
                prop_assert!(!issue.message.contains(['\n', '\r']));
                prop_assert!(!issue.evidence.contains(['\n', '\r']));
                prop_assert!(issue.evidence.starts_with(&prefix));
            }
            // An expected error never passes a case that was cut short.
            if matches!(expected, Expected::SpecificError(_))
                && (timed_out || interrupted || signal.is_some())
            {
                prop_assert_ne!(v.result, CaseResult::Passed);
            }
            if not_run.is_none() && modified.is_none() && matches!(expected, Expected::Success) {
                prop_assert_eq!(
                    v.result == CaseResult::Passed,
                    v.execution_status == ExecutionStatus::Success
                );
            }
        }
    }
}
