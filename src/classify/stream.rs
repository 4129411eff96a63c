//! [`StreamClassifier`]: one output stream classified from the chunks read
//! from its pipe. Escape sequences are removed as the chunks arrive; every
//! line is read into a record (its shape, its level, the tool that wrote
//! it); blocks of complete lines go through the pre-checks, and a record
//! is matched only when one of its lines was flagged, or when its level or
//! its traceback says it must be. A line that reaches [`super::HOLD`]
//! bytes stops being held and is fed through the long-line DFA instead,
//! so memory stays bounded whatever the output.

use memchr::{memchr, memrchr};
use regex::bytes::Regex;

use super::dfa::Walk;
use super::records::{self, Level};
use super::{
    ABORT, ALLOW, AUTH, AUTH_QUICK, AUTH_RE, BUILTIN_NOTHING_RE, ERROR_LOGGED, EXCEPTION,
    FAILURE_CATS, MAX_FINDING_CHARS, Patterns, QUICK_MASK, RECOVERED, RETRY, RUN_SUCCEEDED,
    RUNTIME, RaisedException, SCHEMA, SCHEMA_QUICK, SCHEMA_RE, SPECIFIC, STEP, Shared,
    StreamFindings, VALIDATION, bit, exception, json_level, pydantic, snippet, strip_cr,
    tail_snippet,
};
use crate::ansi::Stripper;
use crate::redact::Redactor;

/// Bytes before a match kept for the finding of a long line.
const TAIL: usize = 4 * MAX_FINDING_CHARS;
/// Most bytes of a record kept with a finding, to look a retry's key up in.
const KEPT_RECORD: usize = 8 * 1024;

/// Classifies one output stream (stdout or stderr) from the chunks read
/// from its pipe; memory stays bounded whatever the output.
#[derive(Debug)]
pub struct StreamClassifier {
    patterns: Patterns,
    /// Lines at least this long are streamed through the DFA.
    hold: usize,
    strip: Stripper,
    /// Chunks without their escape sequences.
    stripped: Vec<u8>,
    /// The line being received while shorter than `hold`.
    pub(super) carry: Vec<u8>,
    /// The line being received, once it is `hold` bytes long.
    long: Option<LongLine>,
    /// One walk per long-line DFA, made with the first long line and kept
    /// from line to line.
    walks: Vec<Walk>,
    /// Categories still without a finding.
    open: u8,
    /// Block pre-checks of what is looked for.
    quick: Vec<Quick>,
    /// Some pattern cannot be pre-checked: every record is matched.
    every_line: bool,
    pydantic: pydantic::Extractor,
    findings: StreamFindings,
    /// Secrets masked in what a finding quotes: the stream is classified
    /// as the command wrote it, so masking cannot change a verdict, and
    /// only the quotes it keeps are masked.
    redactor: Option<Redactor>,
    /// The record being received.
    record: Record,
    /// `require` patterns matched so far, one bit each.
    found_required: u64,
    /// Each preset's runs of its tool, by preset.
    runs: Vec<ToolRuns>,
    /// The whole record behind each finding (by slot: the categories, then
    /// the ERROR record and the exception): what a retry's key is looked
    /// for in.
    finding_records: [Option<Vec<u8>>; 7],
    /// Findings of failures being retried: they stand if no record says
    /// the retry recovered.
    provisional: Vec<Provisional>,
    /// Complete lines of the stream before the one being matched.
    lines_done: u64,
    /// A record with a level has been read: the stream is a tool's log.
    leveled: bool,
    /// Records read without a level, while none had one.
    unleveled: u32,
    /// The exception of the last record matched, when a record at a quiet
    /// level logged it: it counts only if no record follows.
    logged_exception: Option<(Vec<u8>, (u64, u64), bool)>,
}

/// One preset's `require` over the runs of its tool.
#[derive(Debug, Default)]
struct ToolRuns {
    /// Lines found in the current run (or the whole stream, before any
    /// record opened a run), one bit each.
    found: u64,
    /// Runs opened so far by an invocation record.
    runs: u32,
    /// The record that opened the current run, quoted.
    opened_by: String,
}

/// What a line of a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The record's first line, or a line continuing it.
    Text,
    /// A traceback's header or one of its frames.
    Frame,
    /// The line naming the exception a traceback or stack raised.
    Raised,
}

/// Where a record's traceback is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Tb {
    #[default]
    None,
    /// Reading frames: the next line not indented names the exception.
    Frames,
    /// The exception was named; indented lines continue it.
    Raised,
    /// A blank line after the exception: a chained traceback may follow.
    Blank,
    /// `During handling of the above exception…`: its traceback follows.
    Chain,
}

/// A record being received: its physical lines as printed (escape
/// sequences and CR removed), what each is, and who wrote it.
#[derive(Debug, Default)]
struct Record {
    /// The lines, one after the other, each ended by `\n`.
    raw: Vec<u8>,
    /// For each line: where it ends in `raw` (before its `\n`), where its
    /// text starts (after a preset's prefix), what it is, and which
    /// pre-checks flagged it ([`Flags`]).
    lines: Vec<(usize, usize, Kind, Flags)>,
    /// The preset whose tool wrote it; None: no preset claims it.
    owner: Option<usize>,
    /// Its level, when its first line shows one (once `shaped`).
    level: Option<Level>,
    /// Where its message starts in the first line (once `shaped`).
    message: usize,
    /// Its level and message are known: a record of a preset's tool, or
    /// one whose first line was read by the record reader. A record no
    /// preset claims is read only when something asks: an unflagged
    /// record at no level of error needs no level.
    shaped: bool,
    /// A record of a preset's tool at one of that preset's quiet levels.
    tool_quiet: bool,
    /// The pre-checks that flagged one of its lines.
    flagged: Flags,
    tb: Tb,
    /// The physical line number of its first line.
    first: u64,
}

impl Record {
    fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether `line` fits beside the lines already held.
    fn has_room(&self, line: &[u8], hold: usize) -> bool {
        self.raw.is_empty() || self.raw.len() + line.len() < hold
    }

    fn push(&mut self, line: &[u8], text_start: usize, kind: Kind, flagged: Flags) {
        self.flagged |= flagged;
        let start = self.raw.len();
        self.raw.extend_from_slice(line);
        self.lines.push((
            self.raw.len(),
            start + text_start.min(line.len()),
            kind,
            flagged,
        ));
        self.raw.push(b'\n');
    }

    /// Its lines as printed.
    fn line(&self, k: usize) -> &[u8] {
        let start = if k == 0 { 0 } else { self.lines[k - 1].0 + 1 };
        &self.raw[start..self.lines[k].0]
    }

    /// Its lines' texts (after a preset's prefix), trimmed and joined by a
    /// space: the record as one line, as wrapped text reads.
    fn joined(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.raw.len());
        for &(end, text, _, _) in &self.lines {
            let t = self.raw[text..end].trim_ascii();
            if t.is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push(b' ');
            }
            out.extend_from_slice(t);
        }
        out
    }

    /// The line the traceback's exception is named on, if it has one:
    /// the last, so a chain names the exception that ended it.
    fn raised(&self) -> Option<usize> {
        self.lines.iter().rposition(|l| l.2 == Kind::Raised)
    }

    /// Read the first line's shape, if not yet.
    fn ensure_shape(&mut self) {
        if self.shaped || self.lines.is_empty() {
            return;
        }
        self.shaped = true;
        if let Some(s) = records::shape(self.line(0)) {
            self.level = s.level;
            self.message = s.message;
        }
    }

    /// Its level, its first line read if need be.
    fn level(&mut self) -> Option<Level> {
        self.ensure_shape();
        self.level
    }

    fn clear(&mut self) {
        self.raw.clear();
        self.lines.clear();
        self.owner = None;
        self.level = None;
        self.message = 0;
        self.shaped = false;
        self.tool_quiet = false;
        self.flagged = 0;
        self.tb = Tb::None;
    }
}

/// A line claimed by a preset's record format.
struct Claim {
    tool: usize,
    /// Where its text starts (after the preset's prefix).
    text_start: usize,
    /// It continues the record before (indented after the prefix).
    continues: bool,
    /// Its level, as the tool writes it.
    level: Option<Vec<u8>>,
}

/// A finding set aside while the step behind it is retried.
#[derive(Debug)]
struct Provisional {
    slot: usize,
    quote: String,
    headline: Option<String>,
    span: Option<(u64, u64)>,
    record: Vec<u8>,
    /// What the retry record named as retried, if it did.
    key: Option<Vec<u8>>,
    exception: Option<RaisedException>,
}

/// Most warnings kept per stream from a preset's `warn` patterns.
const MAX_WARNINGS: usize = 5;

/// Which pre-checks flagged a line, one bit each: what a record holding
/// it must be matched for.
type Flags = u8;
/// A failure pattern's (and the auth hint's).
const F_FAIL: Flags = 1;
/// The schema hint's.
const F_SCHEMA: Flags = 1 << 1;
/// The case's `specific_error`'s.
const F_SPECIFIC: Flags = 1 << 2;
/// A built-in line saying nothing ran.
const F_NOTHING: Flags = 1 << 3;
/// An error record's level word.
const F_LEVEL: Flags = 1 << 4;
/// The case's `require` lines.
const F_REQUIRED: Flags = 1 << 5;
/// What a preset or the team looks for beside failures.
const F_CUSTOM: Flags = 1 << 6;
/// A word a record of a step starting holds.
const F_STEP: Flags = 1 << 7;
/// Every pre-check at once: a line matched whatever it holds.
const F_ALL: Flags = Flags::MAX;

/// A block pre-check of [`StreamClassifier::quick`], by where its regex is
/// kept.
#[derive(Clone, Copy, Debug)]
enum Quick {
    /// The shared one for this set of open categories.
    Shared(u8),
    /// The auth hint's.
    Auth,
    /// The schema hint's.
    Schema,
    /// The case's `specific_error`'s.
    Specific,
    /// What the built-ins look for beside failures, in one pass; which of
    /// them a line holds is told line by line ([`StreamClassifier::flag_of`]).
    Signals,
    /// The words of a step starting, while none has.
    Steps,
    /// What the presets and the team look for beside failures.
    CustomExtras,
    /// The case's `require` lines'.
    Required,
}

impl Quick {
    /// The flag a hit of this pre-check sets.
    fn flag(self) -> Flags {
        match self {
            Quick::Shared(_) | Quick::Auth => F_FAIL,
            Quick::Schema => F_SCHEMA,
            Quick::Specific => F_SPECIFIC,
            Quick::Signals => F_NOTHING | F_LEVEL,
            Quick::Steps => F_STEP,
            Quick::CustomExtras => F_CUSTOM,
            Quick::Required => F_REQUIRED,
        }
    }
}

/// A long line being fed through the DFAs.
#[derive(Debug, Default)]
struct LongLine {
    /// Which walks follow this line.
    active: Vec<bool>,
    /// DFA patterns matched so far, per walk.
    matched: Vec<u64>,
    /// Categories matched so far, `ALLOW` included.
    cats: u8,
    /// What each category's finding would say.
    excerpts: [Option<String>; 5],
    /// The last bytes fed, for excerpts.
    tail: Vec<u8>,
    /// Bytes fed so far.
    fed: usize,
    /// A `\r` held back: it is not fed if the line ends right after it.
    pending_cr: bool,
    /// Why the line could not be matched, if it could not.
    unmatched: Option<String>,
}

/// A cached search result: searching from `from` found a match at `at`.
#[derive(Clone, Copy)]
struct Found {
    from: usize,
    at: Option<usize>,
}

impl Found {
    /// What searching from `pos` finds, if this says.
    fn lookup(found: Option<Found>, pos: usize) -> Option<Option<usize>> {
        found
            .filter(|f| f.from <= pos && f.at.is_none_or(|at| at >= pos))
            .map(|f| f.at)
    }
}

/// A pre-check's cached searches in a block: its regex's, and that of the
/// literals its matches start with ([`super::BlockCheck`]).
#[derive(Clone, Copy, Default)]
struct Cached {
    hit: Option<Found>,
    start: Option<Found>,
}

/// Most pre-checks listed at once: one of each [`Quick`].
const QUICKS: usize = 8;

/// Records read without a level before a stream is taken for one that
/// does not log.
const UNLEVELED_ENOUGH: u32 = 64;
/// Most lines looked back over for the first line of a record.
const HEAD_REACH: usize = 64;

/// Where, in `block[pos..stop]` (whole lines; `stop` starts a line), the
/// last record begins: after the last blank line, or at the last line not
/// indented, looked for back from `stop` over indented lines (a record's
/// continuation). `pos` when none is found within [`HEAD_REACH`] lines.
fn last_head(block: &[u8], pos: usize, stop: usize) -> usize {
    let mut end = stop;
    for _ in 0..HEAD_REACH {
        if end <= pos {
            return pos;
        }
        // The line ending at `end - 1` (its `\n`).
        let start = memrchr(b'\n', &block[pos..end - 1]).map_or(pos, |i| pos + i + 1);
        let line = strip_cr(&block[start..end - 1]);
        if line.trim_ascii().is_empty() {
            return end;
        }
        if !matches!(line.first(), Some(b' ' | b'\t')) {
            return start;
        }
        end = start;
    }
    pos
}

/// A failure found in a record: its category, the quote, the lines it
/// spans, and whether it was matched on the record whole.
type Hit = (usize, String, (u64, u64), bool);

/// Whether category `cat` is still `open` and not yet among `hits`.
#[inline]
fn wanted(open: u8, cat: usize, hits: &[Hit]) -> bool {
    open & bit(cat) != 0 && !hits.iter().any(|h| h.0 == cat)
}

/// Where the built-ins' and presets' patterns of category `cat` match
/// `line` (not for the abort words when `abort_quiet`).
#[inline]
fn generic_hit<'l>(
    shared: &Shared,
    cat: usize,
    line: &'l [u8],
    abort_quiet: bool,
) -> Option<regex::bytes::Match<'l>> {
    if cat == ABORT && abort_quiet {
        return None;
    }
    let re = shared.soft[cat].as_ref()?;
    if cat != ABORT {
        return re.find(line);
    }
    // A word that is a whole JSON string is a value (a list of outcomes),
    // not something that happened.
    re.find_iter(line)
        .find(|m| !(line.get(m.start()) == Some(&b'"') && line.get(m.end() - 1) == Some(&b'"')))
}

/// Whether `record` names `key` (any record does when there is none).
#[inline]
fn names(record: &[u8], key: &Option<Vec<u8>>) -> bool {
    key.as_ref()
        .is_none_or(|k| memchr::memmem::find(record, k).is_some())
}

/// At most [`KEPT_RECORD`] bytes of a record, kept with its finding.
fn kept(record: &[u8]) -> Vec<u8> {
    record[..record.len().min(KEPT_RECORD)].to_vec()
}

/// Whether `line` names an exception the JVM way (`java.io.X: msg`), as
/// the line after a log4j or logback record at a level does.
fn names_exception(line: &[u8]) -> bool {
    // The line's first word is a dotted class name ending like an
    // exception's: looked at before anything is converted.
    if !line.first().is_some_and(u8::is_ascii_lowercase) {
        return false;
    }
    let word = line
        .split(|&b| b == b':' || b == b' ')
        .next()
        .unwrap_or_default();
    memchr(b'.', word).is_some()
        && (word.ends_with(b"Exception") || word.ends_with(b"Error"))
        && exception::raised(&String::from_utf8_lossy(line), false).is_some()
}

/// The key a retry record names as retried: a quoted name, a
/// `task_id=`/`node_id=` value, or a `Task(…)`.
fn retry_key(record: &[u8]) -> Option<Vec<u8>> {
    static KEY: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
        Regex::new(r#"'(?P<q>[^'\s][^']{0,80})'|"(?P<d>[^"\s][^"]{0,80})"|\b(?:task_id|node_id|node|task|rule|step|job)[=:] ?(?P<k>[\w.\-\[\]]+)|\b(?P<t>[A-Z]\w*\([^()]{0,80}\))"#)
            .expect("valid regex")
    });
    let caps = KEY.captures(record)?;
    ["q", "d", "k", "t"]
        .iter()
        .find_map(|n| caps.name(n))
        .map(|m| m.as_bytes().to_vec())
}

impl StreamClassifier {
    pub(super) fn with_hold(patterns: Patterns, hold: usize) -> StreamClassifier {
        assert!(hold > 0, "lines hold at least one byte");
        let mut open = bit(AUTH) | bit(SCHEMA);
        for cat in [VALIDATION, RUNTIME, ABORT] {
            if patterns.shared.has(cat) {
                open |= bit(cat);
            }
        }
        if patterns.specific.is_some() {
            open |= bit(SPECIFIC);
        }
        let runs = patterns
            .shared
            .tools
            .iter()
            .map(|_| ToolRuns::default())
            .collect();
        let mut c = StreamClassifier {
            patterns,
            hold,
            strip: Stripper::new(),
            stripped: Vec::new(),
            carry: Vec::new(),
            long: None,
            walks: Vec::new(),
            open,
            quick: Vec::new(),
            every_line: false,
            pydantic: pydantic::Extractor::new(),
            findings: StreamFindings::default(),
            redactor: None,
            record: Record::default(),
            found_required: 0,
            runs,
            finding_records: Default::default(),
            provisional: Vec::new(),
            lines_done: 0,
            leveled: false,
            unleveled: 0,
            logged_exception: None,
        };
        c.refresh_quick();
        c
    }

    /// Mask the values of `redactor` in every line a finding quotes. Feed
    /// the stream unmasked: what is judged is what the command wrote.
    pub(crate) fn masking(mut self, redactor: &Redactor) -> StreamClassifier {
        self.redactor = (!redactor.is_empty()).then(|| redactor.clone());
        if let Some(r) = &self.redactor {
            self.pydantic.masking(r);
        }
        self
    }

    /// The finding for `line`, matched at byte `at`, masked.
    fn quote(&self, line: &[u8], at: usize) -> String {
        match &self.redactor {
            None => snippet(line, at),
            Some(r) => {
                let at = r.mask_bytes(&line[..at]).0.len();
                snippet(&r.mask_bytes(line).0, at)
            }
        }
    }

    /// Classify the next bytes of the stream.
    pub fn feed(&mut self, chunk: &[u8]) {
        if !self.strip.in_sequence() && memchr(0x1b, chunk).is_none() {
            self.feed_plain(chunk);
            return;
        }
        let mut buf = std::mem::take(&mut self.stripped);
        buf.clear();
        self.strip.strip_into(chunk, &mut buf);
        self.feed_plain(&buf);
        self.stripped = buf;
    }

    /// The stream ended: classify its last line and return the findings.
    pub fn finish(mut self) -> StreamFindings {
        if !self.carry.is_empty() || self.long.is_some() {
            self.end_line();
        }
        self.flush_record();
        if let Some((line, span, loading)) = self.logged_exception.take()
            && self.findings.exception.is_none()
            && let Some(e) = self.raised(&line, loading, true)
        {
            self.findings.headlines[EXCEPTION] = Some(e.line.clone());
            self.findings.spans[EXCEPTION] = Some(span);
            self.findings.exception = Some(e);
        }
        // A retry that never recovered: its failures stand.
        for p in std::mem::take(&mut self.provisional) {
            self.restore(p);
        }
        if let Some(required) = &self.patterns.required {
            self.findings.missing_required = (required.sources.iter().enumerate())
                .filter(|(i, _)| self.found_required & (1 << i) == 0)
                .map(|(_, s)| s.clone())
                .collect();
        }
        for tool in 0..self.runs.len() {
            self.close_run(tool, true);
        }
        let mut findings = self.findings;
        findings.validation_errors = self.pydantic.into_errors();
        findings
    }

    /// A provisional finding stands: it fills its slot, if still empty.
    fn restore(&mut self, p: Provisional) {
        if p.slot == EXCEPTION {
            if self.findings.exception.is_none() {
                self.findings.exception = p.exception;
                self.findings.headlines[EXCEPTION] = p.headline;
                self.findings.spans[EXCEPTION] = p.span;
            }
            return;
        }
        let slot = self.findings.slot(p.slot);
        if slot.is_none() {
            *slot = Some(p.quote);
            self.findings.headlines[p.slot] = p.headline;
            self.findings.spans[p.slot] = p.span;
        }
    }

    /// The next bytes, escape sequences already removed.
    fn feed_plain(&mut self, mut chunk: &[u8]) {
        if !self.carry.is_empty() || self.long.is_some() {
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

    fn refresh_quick(&mut self) {
        let shared = &self.patterns.shared;
        self.quick.clear();
        let mut every_line = shared.every_line & self.open & QUICK_MASK != 0;
        match shared.quick(self.open) {
            Some(_) => self.quick.push(Quick::Shared(self.open)),
            None => every_line = true,
        }
        if self.open & bit(AUTH) != 0 {
            self.quick.push(Quick::Auth);
        }
        if self.open & bit(SCHEMA) != 0 {
            self.quick.push(Quick::Schema);
        }
        if self.open & bit(SPECIFIC) != 0 {
            match self
                .patterns
                .specific
                .as_ref()
                .and_then(|s| s.quick.as_ref())
            {
                Some(_) => self.quick.push(Quick::Specific),
                None => every_line = true,
            }
        }
        self.quick.push(Quick::Signals);
        if !self.findings.step_seen {
            self.quick.push(Quick::Steps);
        }
        match &shared.custom_extras {
            Ok(Some(_)) => self.quick.push(Quick::CustomExtras),
            Ok(None) => {}
            Err(()) => every_line = true,
        }
        let required_open =
            (self.patterns.required.as_ref()).is_some_and(|r| self.found_required != r.all());
        if required_open {
            match &self.patterns.required_quick {
                Some(_) => self.quick.push(Quick::Required),
                None => every_line = true,
            }
        }
        self.every_line = every_line;
        debug_assert!(
            self.quick.len() <= QUICKS,
            "a search is cached per pre-check"
        );
    }

    /// The pre-check `q` names. The regexes are borrowed, not cloned: a
    /// clone starts with no search cache of its own, and every case would
    /// build its caches anew.
    fn quick_regex(&self, q: Quick) -> &Regex {
        let shared = &self.patterns.shared;
        let compiled = match q {
            Quick::Shared(open) => shared.quick(open).map(|c| &c.re),
            Quick::Auth => Some(&*AUTH_QUICK),
            Quick::Schema => Some(&*SCHEMA_QUICK),
            Quick::Specific => (self.patterns.specific.as_ref()).and_then(|s| s.quick.as_ref()),
            Quick::Signals => Some(&shared.signals),
            Quick::Steps => Some(&shared.steps),
            Quick::CustomExtras => shared.custom_extras.as_ref().ok().and_then(Option::as_ref),
            Quick::Required => self.patterns.required_quick.as_deref(),
        };
        compiled.expect("a pre-check is listed only once compiled")
    }

    /// The literals every match of pre-check `q` starts with, if known.
    fn quick_starts(&self, q: Quick) -> Option<&aho_corasick::AhoCorasick> {
        match q {
            Quick::Shared(open) => self.patterns.shared.quick(open)?.starts.as_ref(),
            _ => None,
        }
    }

    fn close(&mut self, cat: usize) {
        self.open &= !bit(cat);
        self.refresh_quick();
    }

    /// Append bytes of a line whose end has not arrived yet.
    fn append_partial(&mut self, bytes: &[u8]) {
        if self.long.is_some() {
            self.feed_long(bytes);
            return;
        }
        let room = self.hold - self.carry.len();
        if bytes.len() < room {
            if self.carry.capacity() == 0 && !bytes.is_empty() {
                self.carry.reserve_exact(self.hold);
            }
            self.carry.extend_from_slice(bytes);
            return;
        }
        // The line is `hold` bytes long: from here on it is streamed.
        self.carry.extend_from_slice(&bytes[..room]);
        let prefix = std::mem::take(&mut self.carry);
        self.start_long(&prefix);
        self.feed_long(&prefix);
        self.carry = prefix;
        self.carry.clear();
        self.feed_long(&bytes[room..]);
    }

    fn end_line(&mut self) {
        if self.long.is_some() {
            self.finish_long();
            self.lines_done += 1;
            return;
        }
        let buf = std::mem::take(&mut self.carry);
        // A line that arrived in pieces is checked against the pre-checks
        // on its own.
        let flagged = self.flags_line(&buf);
        self.line(&buf, flagged);
        self.lines_done += 1;
        self.carry = buf;
        self.carry.clear();
    }

    /// Whether a pre-check flags `line` (a whole line).
    fn flags_line(&self, line: &[u8]) -> Flags {
        if self.every_line {
            return F_ALL;
        }
        (self.quick.iter())
            .filter(|&&q| self.quick_regex(q).is_match(line))
            .fold(0, |f, &q| f | self.flag_of(q, line))
    }

    /// The flags a hit of pre-check `q` on `line` sets: for the built-ins'
    /// signals, those of the signals the line holds.
    fn flag_of(&self, q: Quick, line: &[u8]) -> Flags {
        if !matches!(q, Quick::Signals) {
            return q.flag();
        }
        let shared = &self.patterns.shared;
        let mut flags = 0;
        if shared.extras.is_match(line) {
            flags |= F_NOTHING;
        }
        if shared.levels.is_match(line) {
            flags |= F_LEVEL;
        }
        flags
    }

    /// Complete lines, each ending with `\n`: every line is read into its
    /// record; the pre-checks say which records are matched. Whole records
    /// no pre-check flags change nothing but the line count, so where
    /// nothing else depends on each line (see [`Self::can_skip`]) they are
    /// stepped over up to the record holding the next flagged line.
    fn scan_block(&mut self, block: &[u8]) {
        let mut found = [Cached::default(); QUICKS];
        let mut quick_version = self.quick_version();
        let mut pos = 0;
        while pos < block.len() {
            let v = self.quick_version();
            if v != quick_version {
                found = [Cached::default(); QUICKS];
                quick_version = v;
            }
            // The record being received ends where a line not indented
            // begins: only then may whole records be stepped over.
            let ends_record =
                self.record.is_empty() || !matches!(block.get(pos), Some(b' ' | b'\t'));
            if ends_record && self.can_skip() {
                let next = self.next_flag(block, pos, &mut found);
                // The start of the line holding the next hit.
                let stop = next.map_or(block.len(), |at| {
                    memrchr(b'\n', &block[pos..at]).map_or(pos, |i| pos + i + 1)
                });
                let head = last_head(block, pos, stop);
                if head > pos {
                    self.flush_record();
                    self.skip(&block[pos..head]);
                    pos = head;
                    continue;
                }
            }
            let end = memchr(b'\n', &block[pos..]).map_or(block.len(), |i| pos + i);
            let flagged = if self.every_line {
                F_ALL
            } else {
                let mut flags = 0;
                for (&q, cached) in self.quick.iter().zip(found.iter_mut()) {
                    let at = self.next_hit(q, block, pos, cached);
                    if at.is_some_and(|at| at <= end) {
                        flags |= self.flag_of(q, &block[pos..end]);
                    }
                }
                flags
            };
            self.line(&block[pos..end], flagged);
            self.lines_done += 1;
            pos = end + 1;
        }
    }

    /// Where the next pre-check hit at or after `pos` is, if any.
    fn next_flag(&self, block: &[u8], pos: usize, found: &mut [Cached; QUICKS]) -> Option<usize> {
        let mut next: Option<usize> = None;
        for (&q, cached) in self.quick.iter().zip(found.iter_mut()) {
            let at = self.next_hit(q, block, pos, cached);
            next = match (next, at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        next
    }

    /// Where the first match of pre-check `q` at or after `pos` starts, if
    /// any. Where the literals its matches start with are known, no match
    /// starts before the first of them: the regex is run from there.
    fn next_hit(&self, q: Quick, block: &[u8], pos: usize, cached: &mut Cached) -> Option<usize> {
        if let Some(at) = Found::lookup(cached.hit, pos) {
            return at;
        }
        let from = match self.quick_starts(q) {
            Some(starts) => Found::lookup(cached.start, pos).unwrap_or_else(|| {
                let at = starts.find(&block[pos..]).map(|m| pos + m.start());
                cached.start = Some(Found { from: pos, at });
                at
            }),
            None => Some(pos),
        };
        let at = from.and_then(|from| self.quick_regex(q).find_at(block, from));
        let at = at.map(|m| m.start());
        cached.hit = Some(Found { from: pos, at });
        at
    }

    /// Whether lines no pre-check flags may be stepped over, whole records
    /// at a time: nothing but their count depends on them. Not while a
    /// traceback is read, a pydantic
    /// block is extracted, a preset's tool's records are told apart, a
    /// failure stands (a retry or a recovery may follow), the first line
    /// or whether the stream logs is still to be found, or every line is
    /// matched.
    fn can_skip(&self) -> bool {
        !self.every_line
            && self.record.tb == Tb::None
            && !self.pydantic.in_block()
            && self.findings.first_line.is_some()
            && self.leveled_known()
            && self
                .patterns
                .shared
                .tools
                .iter()
                .all(|t| t.records.is_none())
            && !self.failure_stands()
    }

    /// A failure was found, or one waits on a retry: a later record may
    /// be the retry or the recovery that changes it.
    fn failure_stands(&self) -> bool {
        !self.provisional.is_empty()
            || [VALIDATION, RUNTIME, ABORT, ERROR_LOGGED, EXCEPTION]
                .iter()
                .any(|&slot| self.finding_records[slot].is_some())
    }

    /// Whether it is known if the stream is a tool's log: a record with a
    /// level was read, or enough records without one.
    fn leveled_known(&self) -> bool {
        self.leveled || self.unleveled >= UNLEVELED_ENOUGH
    }

    /// Step over `lines`, whole records no pre-check flagged (each ended by
    /// `\n`): what reading them would have done.
    fn skip(&mut self, lines: &[u8]) {
        self.lines_done += memchr::memchr_iter(b'\n', lines).count() as u64;
        // A record follows a logged exception: it was not the crash.
        if !lines.trim_ascii().is_empty() {
            self.logged_exception = None;
        }
    }

    /// What identifies the current set of pre-checks: cached searches of
    /// another set are stale.
    fn quick_version(&self) -> (u8, bool, usize) {
        (self.open, self.every_line, self.quick.len())
    }

    /// One complete line without its `\n`; `flagged` when a pre-check
    /// flagged it.
    fn line(&mut self, raw: &[u8], flagged: Flags) {
        if raw.len() >= self.hold {
            self.flush_record();
            self.start_long(&raw[..self.hold]);
            self.feed_long(raw);
            self.finish_long();
            return;
        }
        let line = strip_cr(raw);
        self.note_first_line(line);
        if flagged & F_FAIL != 0 || self.pydantic.in_block() {
            let allow = self.patterns.shared.allow.as_ref();
            self.pydantic
                .line(line, || allow.is_some_and(|re| re.is_match(line)));
        }
        self.take_line(line, flagged);
    }

    /// Read `line` into the record it belongs to: it continues the record
    /// being received (indented, a traceback's frames and exception, a
    /// JVM `Caused by:`), or ends it and starts the next.
    fn take_line(&mut self, line: &[u8], flagged: Flags) {
        let this = self.lines_done + 1;
        let blank = line.trim_ascii().is_empty();
        let indented = matches!(line.first(), Some(b' ' | b'\t'));
        if self.take_traceback_line(line, blank, indented, flagged) {
            return;
        }
        if blank {
            self.flush_record();
            return;
        }
        // A traceback opens: a record with a level just before it logged
        // it (`logger.exception`); otherwise it is a record of its own.
        if !indented && records::opens_traceback(line) {
            let joins = !self.record.is_empty()
                && self.record.tb == Tb::None
                && self.record.raised().is_none()
                && self.record.level().is_some();
            if !joins {
                self.flush_record();
                self.record.first = this;
            }
            self.record.tb = Tb::Frames;
            self.push_line(line, 0, Kind::Frame, flagged);
            return;
        }
        // A JVM stack's `Caused by:`, and the exception a log record at a
        // level names on the line after it (log4j, logback).
        if !indented
            && !self.record.is_empty()
            && (records::continues_stack(line)
                || self.record.lines.len() == 1
                    && names_exception(line)
                    && self.record.level().is_some())
        {
            self.push_line(line, 0, Kind::Raised, flagged);
            return;
        }
        // An exception a tool names on a line of its own (Snakemake's
        // `RuleException:`, `ValueError in file "…", line 45:`): a record
        // that raised it.
        if !indented
            && flagged & F_LEVEL != 0
            && strip_cr(line).last() == Some(&b':')
            && exception::stands_alone(&String::from_utf8_lossy(line))
        {
            self.flush_record();
            self.record.first = this;
            self.record.shaped = true;
            self.push_line(line, 0, Kind::Raised, flagged);
            return;
        }
        if let Some(claim) = self.claim(line) {
            self.take_claimed(line, claim, this);
            return;
        }
        // An indented line continues the record, unless it is one of
        // rich's records whose time repeats (blanked to spaces).
        if indented && !self.record.is_empty() && records::shape(line).is_none() {
            self.push_line(line, 0, Kind::Text, flagged);
            return;
        }
        self.flush_record();
        let known = self.leveled_known();
        let r = &mut self.record;
        r.first = this;
        r.push(line, 0, Kind::Text, flagged);
        // Until a record shows the stream is a tool's log, each is read
        // (a few dozen without a level say it is not one).
        if !known {
            self.leveled = r.level().is_some();
            self.unleveled += u32::from(!self.leveled);
        }
        self.note_step(line, flagged);
    }

    /// Reads `line` into the traceback being read, if there is one and the
    /// line belongs to it (true then); ends the traceback's record when
    /// the traceback ended with the line before.
    #[inline]
    fn take_traceback_line(
        &mut self,
        line: &[u8],
        blank: bool,
        indented: bool,
        flagged: Flags,
    ) -> bool {
        match self.record.tb {
            Tb::Frames if !blank => {
                let kind = if indented
                    || records::in_traceback_box(line)
                    || records::opens_traceback(line)
                {
                    Kind::Frame
                } else {
                    self.record.tb = Tb::Raised;
                    Kind::Raised
                };
                self.push_line(line, 0, kind, flagged);
                return true;
            }
            Tb::Raised if !blank && indented => {
                self.push_line(line, 0, Kind::Text, flagged);
                return true;
            }
            Tb::Raised | Tb::Blank if blank => {
                self.record.tb = Tb::Blank;
                return true;
            }
            Tb::Raised | Tb::Blank if records::chains_tracebacks(line) => {
                self.record.tb = Tb::Chain;
                self.push_line(line, 0, Kind::Text, flagged);
                return true;
            }
            Tb::Chain if blank => return true,
            Tb::Chain if records::opens_traceback(line) => {
                self.record.tb = Tb::Frames;
                self.push_line(line, 0, Kind::Frame, flagged);
                return true;
            }
            // The traceback's record ended with the line before.
            Tb::Raised | Tb::Blank | Tb::Chain => self.flush_record(),
            Tb::None | Tb::Frames => {}
        }
        false
    }

    /// Reads `line` (line `this`), which a tool's record format claims:
    /// it continues the record before, or starts one of the tool's.
    #[inline]
    fn take_claimed(&mut self, line: &[u8], claim: Claim, this: u64) {
        // A tool's record is matched whole, wrapped lines joined, so a
        // pre-check of its lines one by one says nothing of it.
        if claim.continues {
            self.push_line(line, claim.text_start, Kind::Text, F_ALL);
            return;
        }
        self.flush_record();
        let tool = &self.patterns.shared.tools[claim.tool];
        let records = tool
            .records
            .as_ref()
            .expect("a claim is by a record format");
        let r = &mut self.record;
        r.first = this;
        r.owner = Some(claim.tool);
        r.tool_quiet = claim.level.as_deref().is_some_and(|l| records.quiet.has(l));
        r.level = claim.level.as_deref().and_then(Level::of_word);
        r.shaped = true;
        self.leveled |= r.level.is_some();
        r.message = claim.text_start;
        r.push(line, claim.text_start, Kind::Text, F_ALL);
        self.note_step(&line[claim.text_start..], F_ALL);
    }

    /// Until a record says a step of the run started, each record's first
    /// line is looked at: the words first, the pattern when they are there.
    fn note_step(&mut self, line: &[u8], flagged: Flags) {
        if !self.findings.step_seen && flagged & F_STEP != 0 && STEP.is_match(line) {
            self.findings.step_seen = true;
            self.refresh_quick();
        }
    }

    /// Add `line` to the record being received. A record that outgrew the
    /// hold is matched as it stands and goes on in a part of its own, with
    /// its tool, level and traceback, so memory stays bounded and no line
    /// goes unmatched.
    fn push_line(&mut self, line: &[u8], text_start: usize, kind: Kind, flagged: Flags) {
        if !self.record.has_room(line, self.hold) {
            self.record.ensure_shape();
            let (owner, level, quiet, tb) = (
                self.record.owner,
                self.record.level,
                self.record.tool_quiet,
                self.record.tb,
            );
            self.flush_record();
            let r = &mut self.record;
            (r.owner, r.level, r.tool_quiet, r.tb, r.shaped) = (owner, level, quiet, tb, true);
            r.first = self.lines_done + 1;
        }
        self.record.push(line, text_start, kind, flagged);
    }

    /// The preset whose tool's record format claims `line`: its prefix
    /// starts the line, or its `start` matches after it, or it is a JSON
    /// line with the tool's level field.
    fn claim(&self, line: &[u8]) -> Option<Claim> {
        for (i, tool) in self.patterns.shared.tools.iter().enumerate() {
            let Some(records) = &tool.records else {
                continue;
            };
            let (rest, text_start) = match records.prefix.as_ref().and_then(|re| re.find(line)) {
                Some(m) if m.start() == 0 => (&line[m.end()..], m.end()),
                _ => (line, 0),
            };
            let start = records.start.captures(rest);
            let json = if start.is_none() && rest.first() == Some(&b'{') {
                records
                    .json_level
                    .as_deref()
                    .and_then(|k| json_level(rest, k))
            } else {
                None
            };
            if text_start == 0 && start.is_none() && json.is_none() {
                continue;
            }
            let indented = matches!(rest.first(), Some(b' ' | b'\t'));
            let continues = indented
                && start.is_none()
                && self.record.owner == Some(i)
                && !self.record.is_empty();
            let level = records.level(rest, start.as_ref()).or(json);
            return Some(Claim {
                tool: i,
                text_start,
                continues,
                level,
            });
        }
        None
    }

    /// The record received so far is complete: match it, if anything in
    /// it can count.
    fn flush_record(&mut self) {
        if self.record.is_empty() {
            self.record.clear();
            return;
        }
        let mut record = std::mem::take(&mut self.record);
        self.judge_record(&mut record);
        self.record = record;
        self.record.clear();
    }

    /// Everything a complete record can show: `require` lines, a run of a
    /// tool starting, a tool that ran nothing, warnings, a step starting,
    /// retries and recoveries, failure patterns, an ERROR record, an
    /// exception.
    fn judge_record(&mut self, r: &mut Record) {
        let raised = r.raised();
        // While a failure stands, every record may be the retry or the
        // recovery that changes it.
        let watching = self.failure_stands();
        // An error record's level word is in the pre-checks: a record no
        // line of which was flagged is at no level of error.
        if r.flagged & !F_STEP == 0 && raised.is_none() {
            // A record after a logged exception: it was not the crash.
            self.logged_exception = None;
            if watching {
                let owner = r.owner;
                self.match_retry(owner, &r.joined());
            }
            return;
        }
        r.ensure_shape();
        let r: &Record = r;
        let joined = r.joined();
        let owner = r
            .owner
            .filter(|&i| self.patterns.shared.tools[i].records.is_some());
        // Borrowed through the shared patterns: a clone of a regex starts
        // with no search cache of its own.
        let shared = std::sync::Arc::clone(&self.patterns.shared);
        let allowed = |text: &[u8]| shared.allow.as_ref().is_some_and(|re| re.is_match(text));
        // A preset's tool's record is allowed whole, as it is matched; any
        // other record line by line.
        let record_allowed = owner.is_some() && allowed(&joined);
        let lines: Vec<&[u8]> = (0..r.lines.len()).map(|k| r.line(k)).collect();
        let flags = r.flagged;
        if flags & F_REQUIRED != 0 {
            self.match_required(&lines, &joined);
        }
        if flags & F_CUSTOM != 0 {
            self.match_runs(owner, &lines, &joined);
            self.match_warn(&joined);
        }
        if flags & (F_NOTHING | F_CUSTOM) != 0 && !record_allowed {
            self.match_nothing(&lines, &joined);
        }
        if flags & (F_FAIL | F_SCHEMA) != 0 && !record_allowed {
            self.match_failures(r, owner, &lines, &joined, &allowed);
        }
        if flags & F_SPECIFIC != 0 {
            self.match_specific(&lines, owner.map(|_| &joined[..]));
        }
        if !record_allowed {
            self.match_logged(r, &lines, &joined, &allowed);
        }
        // Last: a record that fails and says it is retried (`Retry 1/3
        // will start`) sets its own failures aside.
        if watching || self.failure_stands() {
            self.match_retry(owner, &joined);
        }
    }

    /// An ERROR (or worse) record, and the exception an uncaught
    /// traceback or an error record raised.
    fn match_logged(
        &mut self,
        r: &Record,
        lines: &[&[u8]],
        joined: &[u8],
        allowed: &dyn Fn(&[u8]) -> bool,
    ) {
        let error = r.level.is_some_and(Level::is_error);
        let raised = r.raised();
        // An `allow` naming a line of the record allows the record.
        let named = allowed(joined) || lines.iter().any(|l| allowed(l));
        if error && !named && self.findings.error_logged.is_none() {
            let message = r.line(0).get(r.message..).unwrap_or(&[]);
            // Its first line: what follows (a traceback) has its own finding.
            let quote = self.quote(r.line(0), 0);
            self.findings.headlines[ERROR_LOGGED] = Some(self.masked_headline(message));
            self.findings.spans[ERROR_LOGGED] = Some((r.first, r.first));
            self.finding_records[ERROR_LOGGED] = Some(kept(joined));
            self.findings.error_logged = Some(quote);
        }
        // A traceback in a record at a quiet level (`logger.warning(…,
        // exc_info=True)`) was caught and logged, unless it is the last
        // record of a run that failed: the crash that ended it.
        self.logged_exception = None;
        if let Some(k) = raised
            && self.findings.exception.is_none()
            && !allowed(lines[k])
        {
            let n = r.first + k as u64;
            let loading = self.leveled && !self.findings.step_seen;
            if r.level.is_some() && !error {
                // Read only if no record follows it.
                self.logged_exception = Some((lines[k].to_vec(), (n, n), loading));
            } else if let Some(e) = self.raised(lines[k], loading, false) {
                self.findings.headlines[EXCEPTION] = Some(e.line.clone());
                self.findings.spans[EXCEPTION] = Some((n, n));
                self.finding_records[EXCEPTION] = Some(kept(joined));
                self.findings.exception = Some(e);
            }
        }
    }

    /// The exception `line` (a traceback's last) names, read by its type;
    /// `loading`: no step had started in a stream that logs.
    fn raised(&self, line: &[u8], loading: bool, logged: bool) -> Option<RaisedException> {
        let text = String::from_utf8_lossy(line);
        let e = exception::raised(text.trim(), true)?;
        // Raised in a file of the project before any step: loading it,
        // whether or not the tool logs records.
        let loading = loading || e.in_file && !self.findings.step_seen;
        Some(RaisedException {
            type_path: e.type_path.to_string(),
            config: exception::config_shaped(e.type_path),
            while_loading: loading && !exception::io_shaped(e.type_path),
            logged,
            line: self.quote(text.trim().as_bytes(), 0),
        })
    }

    /// The message of a record as a headline: one clean line, masked.
    fn masked_headline(&self, message: &[u8]) -> String {
        let text = crate::ansi::one_line(&crate::ansi::visible(&String::from_utf8_lossy(message)));
        let text = super::clip(&text, 300);
        match &self.redactor {
            Some(r) => r.mask_str(&text).0.into_owned(),
            None => text,
        }
    }

    /// The failure patterns a record matches, by who wrote it: the team's
    /// on every line at every level, a preset's on its tool's records
    /// (quieted by its levels), the built-ins and presets' on the rest
    /// (whose level quiets their abort words only). A traceback's frames
    /// fail nothing by the built-ins: they quote code.
    fn match_failures(
        &mut self,
        r: &Record,
        owner: Option<usize>,
        lines: &[&[u8]],
        joined: &[u8],
        allowed: &dyn Fn(&[u8]) -> bool,
    ) {
        let shared = std::sync::Arc::clone(&self.patterns.shared);
        let generic_quiet = r.level.is_some_and(|l| shared.quiet.has_level(l));
        let traceback = r.raised().is_some();
        let mut hits: Vec<Hit> = Vec::new();
        let open = self.open;
        for (k, &line) in lines.iter().enumerate() {
            // A line no pre-check flagged matches no failure pattern.
            let (_, _, kind, flagged) = r.lines[k];
            if flagged & (F_FAIL | F_SCHEMA) == 0 {
                continue;
            }
            // One search says whether any failure pattern can match.
            let gate = shared.gates[usize::from(!generic_quiet)].as_ref();
            if owner.is_none() && flagged & F_SCHEMA == 0 && gate.is_some_and(|g| !g.is_match(line))
            {
                continue;
            }
            if allowed(line) {
                continue;
            }
            let n = r.first + k as u64;
            for cat in [VALIDATION, RUNTIME, ABORT] {
                if !wanted(open, cat, &hits) {
                    continue;
                }
                let loud = shared.loud[cat].as_ref().and_then(|re| re.find(line));
                let soft = || {
                    if owner.is_some() || kind == Kind::Frame {
                        return None;
                    }
                    // An abort word counts in a record at ERROR or above, a
                    // line of no known shape, and a traceback's exception.
                    let abort_quiet =
                        generic_quiet || traceback && r.level.is_none() && kind != Kind::Raised;
                    generic_hit(&shared, cat, line, abort_quiet)
                };
                if let Some(m) = loud.or_else(soft) {
                    hits.push((cat, self.quote(line, m.start()), (n, n), false));
                }
            }
            for (cat, re) in [(AUTH, &*AUTH_RE), (SCHEMA, &*SCHEMA_RE)] {
                if wanted(open, cat, &hits)
                    && let Some(m) = re.find(line)
                {
                    hits.push((cat, self.quote(line, m.start()), (n, n), false));
                }
            }
        }
        if let Some(i) = owner {
            self.tool_hits(r, i, lines.len(), joined, &mut hits);
        }
        if hits.is_empty() {
            return;
        }
        self.note_hits(hits, joined);
    }

    /// The failure patterns a record of tool `tool` matches as a whole
    /// (its `len` lines joined): the team's, and the tool's unless its
    /// level quiets them.
    fn tool_hits(&self, r: &Record, tool: usize, len: usize, joined: &[u8], hits: &mut Vec<Hit>) {
        let shared = &self.patterns.shared;
        let span = (r.first, r.first + len as u64 - 1);
        for cat in [VALIDATION, RUNTIME, ABORT] {
            if !wanted(self.open, cat, hits) {
                continue;
            }
            let loud = shared.loud[cat].as_ref().and_then(|re| re.find(joined));
            let soft = || {
                (!r.tool_quiet)
                    .then(|| shared.tools[tool].soft[cat].as_ref()?.find(joined))
                    .flatten()
            };
            if let Some(m) = loud.or_else(soft) {
                hits.push((cat, self.quote(joined, m.start()), span, true));
            }
        }
    }

    /// Records the findings `hits` of the record `joined`, and closes
    /// their categories.
    fn note_hits(&mut self, hits: Vec<Hit>, joined: &[u8]) {
        for (cat, quote, span, whole) in hits {
            let headline = whole
                .then(|| super::headline::of(&String::from_utf8_lossy(joined)))
                .flatten()
                .map(|h| match &self.redactor {
                    Some(r) => r.mask_str(&h).0.into_owned(),
                    None => h,
                });
            *self.findings.slot(cat) = Some(quote);
            self.findings.headlines[cat] = headline;
            self.findings.spans[cat] = Some(span);
            self.finding_records[cat] = Some(kept(joined));
            self.close(cat);
        }
    }

    /// Note the `require` patterns a record matches, on a line as printed
    /// or the record's text.
    fn match_required(&mut self, lines: &[&[u8]], joined: &[u8]) {
        let Some(required) = &self.patterns.required else {
            return;
        };
        let all = required.all();
        if self.found_required == all {
            return;
        }
        for (i, re) in required.res.iter().enumerate() {
            if self.found_required & (1 << i) == 0
                && (re.is_match(joined) || lines.iter().any(|l| re.is_match(l)))
            {
                self.found_required |= 1 << i;
            }
        }
        if self.found_required == all {
            self.refresh_quick();
        }
    }

    /// A record of a preset's tool that opens a run of it ends the run
    /// before; each preset's `require` lines are looked for in the run.
    fn match_runs(&mut self, owner: Option<usize>, lines: &[&[u8]], joined: &[u8]) {
        if let Some(i) = owner
            && let Some(re) =
                (self.patterns.shared.tools[i].records.as_ref()).and_then(|r| r.invocation.as_ref())
            && re.is_match(joined)
        {
            self.close_run(i, false);
            let quote = self.quote(joined, 0);
            let run = &mut self.runs[i];
            run.runs += 1;
            run.found = 0;
            run.opened_by = quote;
        }
        let shared = std::sync::Arc::clone(&self.patterns.shared);
        for (tool, run) in shared.tools.iter().zip(&mut self.runs) {
            let Some(required) = &tool.require else {
                continue;
            };
            for (i, re) in required.res.iter().enumerate() {
                if run.found & (1 << i) == 0
                    && (re.is_match(joined) || lines.iter().any(|l| re.is_match(l)))
                {
                    run.found |= 1 << i;
                }
            }
        }
    }

    /// The current run of preset `i`'s tool ended (`at_end`: with the
    /// stream): its missing `require` lines are findings. Before any
    /// record opened a run, the whole stream is one, judged with the other
    /// stream.
    fn close_run(&mut self, i: usize, at_end: bool) {
        let shared = std::sync::Arc::clone(&self.patterns.shared);
        let tool = &shared.tools[i];
        let Some(required) = &tool.require else {
            return;
        };
        let run = &self.runs[i];
        let missing: Vec<&String> = (required.sources.iter().enumerate())
            .filter(|(k, _)| run.found & (1 << k) == 0)
            .map(|(_, s)| s)
            .collect();
        if run.runs == 0 {
            if at_end {
                self.findings
                    .missing_required
                    .extend(missing.into_iter().cloned());
            }
            return;
        }
        for s in missing {
            let described = format!(
                "`{s}` (run {} of the `{}` preset's tool, opened by `{}`)",
                run.runs, tool.name, run.opened_by
            );
            if !self.findings.missing_in_run.contains(&described) {
                self.findings.missing_in_run.push(described);
            }
        }
    }

    /// A line saying a tool ran nothing: a preset's (counts for every
    /// case) outweighs a built-in's (golden projects only).
    fn match_nothing(&mut self, lines: &[&[u8]], joined: &[u8]) {
        if self
            .findings
            .nothing_ran
            .as_ref()
            .is_some_and(|(_, builtin)| !builtin)
        {
            return;
        }
        let find = |re: &Regex| {
            re.find(joined).map(|m| (joined, m.start())).or_else(|| {
                lines
                    .iter()
                    .find_map(|l| re.find(l).map(|m| (*l, m.start())))
            })
        };
        let shared = std::sync::Arc::clone(&self.patterns.shared);
        let hit = match shared.nothing.as_ref().and_then(find) {
            Some(h) => Some((h, false)),
            None if self.findings.nothing_ran.is_none() => {
                find(&BUILTIN_NOTHING_RE).map(|h| (h, true))
            }
            None => None,
        };
        if let Some(((text, at), builtin)) = hit {
            self.findings.nothing_ran = Some((self.quote(text, at), builtin));
        }
    }

    fn match_warn(&mut self, joined: &[u8]) {
        if self.findings.warnings.len() >= MAX_WARNINGS {
            return;
        }
        if let Some(m) = (self.patterns.shared.warn.as_ref()).and_then(|re| re.find(joined)) {
            let quote = self.quote(joined, m.start());
            if !self.findings.warnings.contains(&quote) {
                self.findings.warnings.push(quote);
            }
        }
    }

    /// `specific_error` on a line as printed, or on the record's text for
    /// a preset's tool's record (`joined`), as its patterns are matched.
    fn match_specific(&mut self, lines: &[&[u8]], joined: Option<&[u8]>) {
        if self.open & bit(SPECIFIC) == 0 {
            return;
        }
        let Some(s) = &self.patterns.specific else {
            return;
        };
        if lines.iter().any(|l| s.re.is_match(l)) || joined.is_some_and(|j| s.re.is_match(j)) {
            self.findings.specific_error = true;
            self.close(SPECIFIC);
        }
    }

    /// The record's retry and recovery regexes: its tool's, or, for a
    /// record no preset claims, the words tools use, keyed by the name
    /// the retry record gives.
    fn retry_res(&self, owner: Option<usize>) -> (Option<&Regex>, Option<&Regex>, bool) {
        match owner.and_then(|i| self.patterns.shared.tools[i].records.as_ref()) {
            Some(r) => (r.retry.as_ref(), r.recovered.as_ref(), false),
            None => (Some(&*RETRY), Some(&*RECOVERED), true),
        }
    }

    /// A record saying a step is retried sets aside the findings of the
    /// records it names (by its `key` group, or for the words tools use
    /// the name it quotes; with neither, every finding): their slots are
    /// open again. One saying a retried step succeeded turns those it
    /// names into warnings.
    fn match_retry(&mut self, owner: Option<usize>, line: &[u8]) {
        // No failure found and none waiting on a retry: neither a retry nor
        // a recovery record changes anything, so neither is looked for.
        if self.provisional.is_empty() && self.finding_records.iter().all(Option::is_none) {
            return;
        }
        let (retry, recovered, generic) = self.retry_res(owner);
        let key_of = |caps: &regex::bytes::Captures<'_>| {
            caps.name("key")
                .map(|m| m.as_bytes().to_vec())
                .or_else(|| generic.then(|| retry_key(line)).flatten())
        };
        if let Some(caps) = retry.and_then(|re| re.captures(line)) {
            // The words tools use, naming nothing retried, set every
            // failure aside: only the whole run succeeding recovers them.
            self.set_aside(key_of(&caps));
            return;
        }
        if self.provisional.is_empty() {
            return;
        }
        if let Some(caps) = recovered.and_then(|re| re.captures(line)) {
            let key = caps.name("key").map(|m| m.as_bytes().to_vec());
            self.recover(line, &key, generic);
        }
    }

    /// Sets aside the findings whose records name `key` (all with none):
    /// provisional, their slots open again.
    fn set_aside(&mut self, key: Option<Vec<u8>>) {
        for slot in [
            VALIDATION,
            RUNTIME,
            ABORT,
            AUTH,
            SCHEMA,
            ERROR_LOGGED,
            EXCEPTION,
        ] {
            let taken = match &self.finding_records[slot] {
                Some(record) => names(record, &key),
                None => false,
            };
            if !taken {
                continue;
            }
            let record = self.finding_records[slot].take().unwrap_or_default();
            let headline = self.findings.headlines[slot].take();
            let span = self.findings.spans[slot].take();
            let (quote, exception) = if slot == EXCEPTION {
                let e = self.findings.exception.take();
                (e.as_ref().map(|e| e.line.clone()), e)
            } else {
                (self.findings.slot(slot).take(), None)
            };
            if let Some(quote) = quote {
                self.provisional.push(Provisional {
                    slot,
                    quote,
                    headline,
                    span,
                    record,
                    key: key.clone(),
                    exception,
                });
            }
            if slot < 5 {
                self.open |= bit(slot);
            }
        }
        self.refresh_quick();
    }

    /// The record `line` says a retried step succeeded (the one `key`
    /// names, or for the words tools use, `generic`, the one it quotes):
    /// the findings set aside for it become a warning.
    fn recover(&mut self, line: &[u8], key: &Option<Vec<u8>>, generic: bool) {
        // The words tools use: the record names what it recovered.
        let run_succeeded = generic && RUN_SUCCEEDED.is_match(line);
        let recovers = |p: &Provisional| match (key, generic) {
            (None, true) => match &p.key {
                Some(k) => memchr::memmem::find(line, k).is_some(),
                None => run_succeeded,
            },
            (None, false) => true,
            (Some(_), _) => p.key == *key || names(&p.record, key),
        };
        let (recovered, waiting): (Vec<Provisional>, Vec<Provisional>) =
            std::mem::take(&mut self.provisional)
                .into_iter()
                .partition(recovers);
        self.provisional = waiting;
        if let Some(first) = recovered.first() {
            let then = self.quote(line, 0);
            self.findings.warnings.push(format!(
                "recovered on a retry: {} (then: {then})",
                first.quote
            ));
        }
    }

    fn note_first_line(&mut self, line: &[u8]) {
        // Checked on the bytes first: the first line is almost always found
        // at once, and empty lines should not cost a conversion.
        if self.findings.first_line.is_none() && !line.trim_ascii().is_empty() {
            let text = self.quote(line, line.len() - line.trim_ascii_start().len());
            if !text.is_empty() {
                self.findings.first_line = Some(text);
            }
        }
    }

    /// A line reached `hold` bytes; `prefix` is its first `hold` bytes.
    fn start_long(&mut self, prefix: &[u8]) {
        self.flush_record();
        // Pydantic blocks are short lines; a long one ends any block.
        self.pydantic.interrupt();
        self.note_first_line(prefix);
        let mut long = LongLine::default();
        match self.patterns.long_dfas() {
            Ok(dfas) => {
                if self.walks.is_empty() {
                    self.walks = dfas.iter().map(|d| d.dfa.walk()).collect();
                }
                // Categories only close between lines, so the walks chosen
                // here serve the whole line.
                for (walk, d) in self.walks.iter_mut().zip(&dfas) {
                    let active = self.open & d.needed_by != 0;
                    if active {
                        walk.restart(&d.dfa);
                    }
                    long.active.push(active);
                }
                long.matched = vec![0; dfas.len()];
            }
            Err(why) => long.unmatched = Some(why.to_string()),
        }
        self.long = Some(long);
    }

    /// Feed more of the long line; a trailing `\r` waits for the next byte.
    fn feed_long(&mut self, bytes: &[u8]) {
        let Some(long) = self.long.as_mut() else {
            return;
        };
        if bytes.is_empty() {
            return;
        }
        let cr_before = std::mem::take(&mut long.pending_cr);
        let (body, cr_after) = match bytes.split_last() {
            Some((b'\r', body)) => (body, true),
            _ => (bytes, false),
        };
        if cr_before {
            self.feed_walks(b"\r");
        }
        self.feed_walks(body);
        if let Some(long) = self.long.as_mut() {
            long.pending_cr = cr_after;
        }
    }

    fn feed_walks(&mut self, bytes: &[u8]) {
        let Some(long) = self.long.as_mut() else {
            return;
        };
        if let (None, Ok(dfas)) = (&long.unmatched, self.patterns.long_dfas()) {
            for (g, (walk, d)) in self.walks.iter_mut().zip(dfas).enumerate() {
                if !long.active[g] {
                    continue;
                }
                let wanted = wanted_patterns(&d.cats, self.open);
                let (tail, fed, cats) = (&long.tail, long.fed, &mut long.cats);
                let excerpts = &mut long.excerpts;
                let redactor = self.redactor.as_ref();
                walk.feed(&d.dfa, bytes, &mut long.matched[g], wanted, |p, end| {
                    let cat = d.cats[p];
                    *cats |= bit(cat);
                    if FAILURE_CATS.contains(&cat) {
                        excerpts[cat] = Some(excerpt(redactor, tail, &bytes[..end], fed));
                    }
                });
            }
        }
        for (cat, re) in [(AUTH, &*AUTH_RE), (SCHEMA, &*SCHEMA_RE)] {
            if self.open & bit(cat) != 0
                && long.cats & bit(cat) == 0
                && let Some(end) = find_hint(re, &long.tail, bytes, long.fed)
            {
                long.cats |= bit(cat);
                long.excerpts[cat] = Some(excerpt(
                    self.redactor.as_ref(),
                    &long.tail,
                    &bytes[..end],
                    long.fed,
                ));
            }
        }
        long.fed += bytes.len();
        keep_tail(&mut long.tail, bytes);
    }

    /// The long line ended: resolve its end and record what it matched.
    fn finish_long(&mut self) {
        let Some(mut long) = self.long.take() else {
            return;
        };
        self.finish_walks(&mut long);
        if let Some(why) = &long.unmatched
            && self.open & bit(RUNTIME) != 0
        {
            // Nothing could say whether the line is a failure; counting it
            // as one is the answer that cannot give a false green.
            long.cats |= bit(RUNTIME);
            long.excerpts[RUNTIME] = Some(format!(
                "(a line of {} bytes could not be matched: {why})",
                long.fed
            ));
        }
        if long.cats & bit(ALLOW) == 0 {
            for cat in FAILURE_CATS {
                if long.cats & bit(cat) != 0 && self.open & bit(cat) != 0 {
                    *self.findings.slot(cat) = long.excerpts[cat].take();
                    let this = self.lines_done + 1;
                    self.findings.spans[cat] = Some((this, this));
                    self.close(cat);
                }
            }
        }
        if long.cats & bit(SPECIFIC) != 0 && self.open & bit(SPECIFIC) != 0 {
            self.findings.specific_error = true;
            self.close(SPECIFIC);
        }
    }

    fn finish_walks(&mut self, long: &mut LongLine) {
        let (None, Ok(dfas)) = (&long.unmatched, self.patterns.long_dfas()) else {
            return;
        };
        let cut = long.fed > long.tail.len();
        let redactor = self.redactor.as_ref();
        for (g, (walk, d)) in self.walks.iter_mut().zip(dfas).enumerate() {
            if !long.active[g] {
                continue;
            }
            let (tail, cats, excerpts) = (&long.tail, &mut long.cats, &mut long.excerpts);
            walk.finish(&d.dfa, &mut long.matched[g], |p| {
                let cat = d.cats[p];
                *cats |= bit(cat);
                if FAILURE_CATS.contains(&cat) {
                    excerpts[cat] = Some(masked_tail(redactor, tail, cut));
                }
            });
            if walk.gave_up() {
                long.unmatched = Some("the pattern automaton gave up".into());
            }
        }
    }
}

/// Longest match of a hint regex, and the look-behind its `\b` needs, in
/// bytes, with room to spare.
const HINT_REACH: usize = 32;
/// Bytes at the start of a piece that lack the context a match starting
/// there needs (the character before it may begin earlier).
const HINT_CONTEXT: usize = 8;

/// Where, in the next piece `bytes` of a long line, the first match of a
/// hint regex that ends in it ends; `tail` holds the bytes fed before,
/// `fed` of them in all. Hint matches are short, so one across pieces lies
/// within [`HINT_REACH`] bytes of the joint: the joint is searched with its
/// context, then the rest of the piece.
fn find_hint(re: &Regex, tail: &[u8], bytes: &[u8], fed: usize) -> Option<usize> {
    if fed == 0 {
        return re.find(bytes).map(|m| m.end());
    }
    let before = &tail[tail.len().saturating_sub(HINT_REACH)..];
    let after = &bytes[..bytes.len().min(HINT_REACH)];
    let joint = [before, after].concat();
    // At the start of the line every position has its context.
    let mut at = if fed <= before.len() { 0 } else { HINT_CONTEXT };
    while let Some(m) = re.find_at(&joint, at) {
        // A match that ends before the piece was found with the pieces
        // before.
        if m.end() > before.len() {
            return Some(m.end() - before.len());
        }
        at = m.end().max(m.start() + 1);
    }
    re.find_at(bytes, HINT_CONTEXT.min(bytes.len()))
        .map(|m| m.end())
}

/// The DFA patterns worth following: those of open categories, and allow.
fn wanted_patterns(cats: &[usize], open: u8) -> u64 {
    cats.iter()
        .enumerate()
        .filter(|&(_, &cat)| cat == ALLOW || open & bit(cat) != 0)
        .fold(0, |w, (i, _)| w | 1 << i)
}

/// The text of a long line's finding: the bytes up to the end of the
/// match, `head` being the last of them and `tail` those fed before; `fed`
/// bytes of the line came before `head`.
fn excerpt(redactor: Option<&Redactor>, tail: &[u8], head: &[u8], fed: usize) -> String {
    let from_head = &head[head.len().saturating_sub(TAIL)..];
    let from_tail = &tail[tail.len().saturating_sub(TAIL - from_head.len())..];
    let text = [from_tail, from_head].concat();
    masked_tail(redactor, &text, fed + head.len() > text.len())
}

/// [`tail_snippet`] of `text` with the values of `redactor` masked. When
/// the line was `cut` before `text`, a value may begin before it: the
/// bytes such a value could still cover are left out, so no part of one
/// is quoted.
fn masked_tail(redactor: Option<&Redactor>, text: &[u8], cut: bool) -> String {
    let Some(r) = redactor else {
        return tail_snippet(text, cut);
    };
    let text = if cut {
        &text[text.len().min(r.longest().saturating_sub(1))..]
    } else {
        text
    };
    tail_snippet(&r.mask_bytes(text).0, cut)
}

/// Keep the last [`TAIL`] bytes of the line in `tail`.
fn keep_tail(tail: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.len() >= TAIL {
        tail.clear();
        tail.extend_from_slice(&bytes[bytes.len() - TAIL..]);
        return;
    }
    let drop = (tail.len() + bytes.len()).saturating_sub(TAIL);
    tail.drain(..drop);
    tail.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PatternConfig;

    /// The findings of the built-in patterns in `out`, masking `r`.
    fn classify_masked(r: &Redactor, out: &[u8]) -> StreamFindings {
        let builtin = PatternConfig {
            builtin: true,
            ..PatternConfig::default()
        };
        let mut c = Patterns::new(&builtin).unwrap().classifier().masking(r);
        c.feed(out);
        c.finish()
    }

    #[test]
    fn a_masked_value_inside_a_pattern_still_matches_and_its_quote_is_masked() {
        let r = Redactor::new([("PIN", "o")]);
        let f = classify_masked(&r, b"1 validation error for ProjectConfig\n");
        let quote = f.validation.expect("the unmasked line matches");
        assert_eq!(
            quote,
            "1 validati[REDACTED:PIN]n err[REDACTED:PIN]r f[REDACTED:PIN]r Pr[REDACTED:PIN]jectC[REDACTED:PIN]nfig"
        );
    }

    #[test]
    fn a_clipped_validation_message_keeps_no_part_of_a_value() {
        let secret = "topsecretvalue1234";
        let r = Redactor::new([("KEY", secret)]);
        // Clipped at 500 characters, the value would be cut after `topsecret`.
        let out = format!(
            "1 validation error for Model\nfield\n  {}{secret} tail [type=value_error]\n",
            "x".repeat(490)
        );
        let f = classify_masked(&r, out.as_bytes());
        let message = &f.validation_errors[0].message;
        assert!(!message.contains("topsecret"), "{message}");
        assert!(message.contains("x[REDACTED"), "{message}");
    }

    #[test]
    fn a_cut_tail_quotes_no_part_of_a_value() {
        let r = Redactor::new([("KEY", "secretvalue")]);
        // The line was cut inside the value: only its end is in the tail,
        // and as much as a value could cover is left out.
        let quote = masked_tail(Some(&r), b"value, then Job aborted", true);
        assert_eq!(quote, "…n Job aborted");
        let whole = masked_tail(Some(&r), b"secretvalue, then Job aborted", false);
        assert_eq!(whole, "[REDACTED:KEY], then Job aborted");
    }
}
