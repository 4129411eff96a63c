//! [`StreamClassifier`]: one output stream classified from the chunks read
//! from its pipe. Escape sequences are removed as the chunks arrive; blocks
//! of complete lines go through the pre-check; a line that reaches
//! [`super::HOLD`] bytes stops being held and is fed through the long-line
//! DFA instead, so memory stays bounded whatever the output.

use memchr::{memchr, memrchr};
use regex::bytes::Regex;

use super::dfa::Walk;
use super::{
    ABORT, ALLOW, AUTH, AUTH_RE, FAILURE_CATS, MAX_FINDING_CHARS, Patterns, QUICK_MASK, RUNTIME,
    SCHEMA, SCHEMA_QUICK, SCHEMA_RE, SPECIFIC, StreamFindings, VALIDATION, bit, pydantic, snippet,
    strip_cr, tail_snippet,
};
use crate::ansi::Stripper;
use crate::redact::Redactor;

/// Bytes before a match kept for the finding of a long line.
const TAIL: usize = 4 * MAX_FINDING_CHARS;

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
    /// Block pre-checks of the open categories.
    quick: Vec<Quick>,
    /// Some open category must be matched on every line.
    every_line: bool,
    pydantic: pydantic::Extractor,
    findings: StreamFindings,
    /// Secrets masked in what a finding quotes: the stream is classified
    /// as the command wrote it, so masking cannot change a verdict, and
    /// only the quotes it keeps are masked.
    redactor: Option<Redactor>,
    /// With a record format: the record being received, its lines joined.
    record: Vec<u8>,
    /// The record is of a quiet level.
    record_quiet: bool,
    /// `require` patterns matched so far, one bit each.
    found_required: u64,
    /// The whole record behind each failure category's finding (by
    /// category): what a retry's key is looked for in.
    finding_records: [Option<Vec<u8>>; 5],
    /// Findings of failures being retried: they stand if no record says
    /// the retry recovered.
    provisional: Vec<Provisional>,
    /// Complete lines of the stream before the one being matched.
    lines_done: u64,
    /// In the block being scanned, the offset up to which its line ends
    /// are counted in `lines_done`.
    counted_to: usize,
    /// The physical lines (first, last) of the record being received.
    record_span: (u64, u64),
}

/// A finding set aside while the step behind it is retried.
#[derive(Debug)]
struct Provisional {
    cat: usize,
    quote: String,
    headline: Option<String>,
    span: Option<(u64, u64)>,
    record: Vec<u8>,
    /// What the retry record named as retried, if it did.
    key: Option<Vec<u8>>,
}

/// Most warnings kept per stream from a preset's `warn` patterns.
const MAX_WARNINGS: usize = 5;

/// A block pre-check of [`StreamClassifier::quick`], by where its regex is
/// kept.
#[derive(Clone, Copy, Debug)]
enum Quick {
    /// The shared one for this set of open categories.
    Shared(u8),
    /// The schema hint's.
    Schema,
    /// The case's `specific_error`'s.
    Specific,
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

/// A cached pre-check result: searching from `from` found a match at `at`.
#[derive(Clone, Copy)]
struct Found {
    from: usize,
    at: Option<usize>,
}

impl StreamClassifier {
    pub(super) fn with_hold(patterns: Patterns, hold: usize) -> StreamClassifier {
        assert!(hold > 0, "lines hold at least one byte");
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
            record: Vec::new(),
            record_quiet: false,
            found_required: 0,
            finding_records: Default::default(),
            provisional: Vec::new(),
            lines_done: 0,
            counted_to: 0,
            record_span: (0, 0),
        };
        c.refresh_quick();
        c
    }

    /// Mask the values of `redactor` in every line a finding quotes. Feed
    /// the stream unmasked: what is judged is what the command wrote.
    pub fn masking(mut self, redactor: &Redactor) -> StreamClassifier {
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
        // A retry that never recovered: its failures stand.
        for p in std::mem::take(&mut self.provisional) {
            let slot = self.findings.slot(p.cat);
            if slot.is_none() {
                *slot = Some(p.quote);
                self.findings.headlines[p.cat] = p.headline;
                self.findings.spans[p.cat] = p.span;
            }
        }
        if let Some(required) = &self.patterns.required {
            self.findings.missing_required = (required.sources.iter().enumerate())
                .filter(|(i, _)| self.found_required & (1 << i) == 0)
                .map(|(_, s)| s.clone())
                .collect();
        }
        let mut findings = self.findings;
        findings.validation_errors = self.pydantic.into_errors();
        findings
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
        // Records are joined line by line, and a missing `require` is
        // looked for on every line.
        let required_open =
            (self.patterns.required.as_ref()).is_some_and(|r| self.found_required != r.all());
        self.every_line = every_line
            || required_open
            || self.patterns.shared.records.is_some()
            || self.patterns.shared.warn.is_some();
    }

    /// The pre-check `q` names. The regexes are borrowed, not cloned: a
    /// clone starts with no search cache of its own, and every case would
    /// build its caches anew.
    fn quick_regex(&self, q: Quick) -> &Regex {
        let compiled = match q {
            Quick::Shared(open) => self.patterns.shared.quick(open),
            Quick::Schema => Some(&*SCHEMA_QUICK),
            Quick::Specific => (self.patterns.specific.as_ref()).and_then(|s| s.quick.as_ref()),
        };
        compiled.expect("a pre-check is listed only once compiled")
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
        self.line(&buf);
        self.lines_done += 1;
        self.carry = buf;
        self.carry.clear();
    }

    /// The 1-based number of the line of `block` that starts at `start`,
    /// counting the line ends before it (lines skipped unmatched
    /// included); the line is then counted as done.
    fn block_line(&mut self, block: &[u8], start: usize) -> u64 {
        if start > self.counted_to {
            self.lines_done +=
                memchr::memchr_iter(b'\n', &block[self.counted_to..start]).count() as u64;
        }
        self.counted_to = start;
        self.lines_done + 1
    }

    /// Match the line of `block` from `start` to `end` (its `\n`).
    fn block_line_at(&mut self, block: &[u8], start: usize, end: usize) {
        self.block_line(block, start);
        self.line(&block[start..end]);
        self.lines_done += 1;
        self.counted_to = end + 1;
    }

    /// Complete lines, each ending with `\n`.
    fn scan_block(&mut self, block: &[u8]) {
        let mut pos = 0;
        let mut long: Option<Found> = None;
        self.counted_to = 0;
        while pos < block.len() {
            if self.every_line || self.findings.first_line.is_none() || self.pydantic.in_block() {
                let end = memchr(b'\n', &block[pos..]).map_or(block.len(), |i| pos + i);
                self.block_line_at(block, pos, end);
                pos = end + 1;
                continue;
            }
            let stretch_end = match long {
                Some(f) if f.from <= pos && f.at.is_none_or(|at| at >= pos) => f.at,
                _ => {
                    let at = find_long_line(block, pos, self.hold);
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
                self.block_line_at(block, start, end);
                pos = end + 1;
            }
        }
        // The line ends of the lines left unmatched at the end.
        self.block_line(block, block.len());
        self.counted_to = 0;
    }

    /// Match the flagged lines of `stretch[pos..]` (complete lines, none
    /// long). Returns where it stopped: the end, or the line after one that
    /// changed what is looked for.
    fn scan_stretch(&mut self, stretch: &[u8], mut pos: usize) -> usize {
        // One slot per pre-check: shared, schema and specific at most.
        let mut found: [Option<Found>; 3] = [None; 3];
        while pos < stretch.len() {
            let mut next: Option<usize> = None;
            for (&q, cached) in self.quick.iter().zip(found.iter_mut()) {
                let at = match *cached {
                    Some(f) if f.from <= pos && f.at.is_none_or(|at| at >= pos) => f.at,
                    _ => {
                        let at = self.quick_regex(q).find_at(stretch, pos).map(|m| m.start());
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
            self.block_line_at(stretch, start, end);
            pos = end + 1;
            if open != self.open || self.pydantic.in_block() {
                break;
            }
        }
        pos.min(stretch.len())
    }

    /// One complete line without its `\n`.
    fn line(&mut self, raw: &[u8]) {
        if raw.len() >= self.hold {
            self.flush_record();
            self.start_long(&raw[..self.hold]);
            self.feed_long(raw);
            self.finish_long();
            return;
        }
        let line = strip_cr(raw);
        self.note_first_line(line);
        let allow = self.patterns.shared.allow.as_ref();
        self.pydantic
            .line(line, || allow.is_some_and(|re| re.is_match(line)));
        if self.patterns.shared.records.is_some() {
            self.record_line(line);
        } else {
            let this = self.lines_done + 1;
            self.record_span = (this, this);
            self.match_line(line, false);
        }
    }

    /// One line of a stream whose tool's record format is known: an
    /// indented line continues the record (joined by one space, so wrapped
    /// text reads as written); any other line ends it and starts the next.
    fn record_line(&mut self, line: &[u8]) {
        let Some(records) = &self.patterns.shared.records else {
            return;
        };
        let line = match records.prefix.as_ref().and_then(|re| re.find(line)) {
            Some(m) if m.start() == 0 => &line[m.end()..],
            _ => line,
        };
        // The start pattern runs once a line: it says whether an indented
        // line is a record of its own and, for a record, its level.
        let start = records.start.captures(line);
        let indented = matches!(line.first(), Some(b' ' | b'\t'));
        let continues = indented
            && start.is_none()
            && !self.record.is_empty()
            && self.record.len() + line.len() < self.hold;
        let quiet = !continues && records.quiet(line, start.as_ref());
        let text = line.trim_ascii();
        let this = self.lines_done + 1;
        if continues {
            if !text.is_empty() {
                self.record.push(b' ');
                self.record.extend_from_slice(text);
                self.record_span.1 = this;
            }
            return;
        }
        self.flush_record();
        if text.is_empty() {
            return;
        }
        self.record_quiet = quiet;
        self.record_span = (this, this);
        self.record.extend_from_slice(line.trim_ascii_end());
    }

    /// Match the record received so far, if any.
    fn flush_record(&mut self) {
        if self.record.is_empty() {
            return;
        }
        let record = std::mem::take(&mut self.record);
        self.match_line(&record, self.record_quiet);
        self.record = record;
        self.record.clear();
    }

    /// Note the `require` patterns `line` matches.
    fn match_required(&mut self, line: &[u8]) {
        let Some(required) = &self.patterns.required else {
            return;
        };
        let all = required.all();
        if self.found_required == all {
            return;
        }
        for (i, re) in required.res.iter().enumerate() {
            if self.found_required & (1 << i) == 0 && re.is_match(line) {
                self.found_required |= 1 << i;
            }
        }
        if self.found_required == all {
            self.refresh_quick();
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

    /// A record saying a step is retried sets aside the findings of the
    /// records it names (by its `key` group; without one, every finding):
    /// their categories are open again. One saying a retried step
    /// succeeded turns those it names into warnings.
    fn match_retry(&mut self, line: &[u8]) {
        let Some(records) = &self.patterns.shared.records else {
            return;
        };
        // No failure found and none waiting on a retry: neither a retry nor
        // a recovery record changes anything, so neither is looked for.
        if self.provisional.is_empty() && self.finding_records.iter().all(Option::is_none) {
            return;
        }
        let key_of =
            |caps: &regex::bytes::Captures<'_>| caps.name("key").map(|m| m.as_bytes().to_vec());
        let names = |record: &[u8], key: &Option<Vec<u8>>| {
            key.as_ref()
                .is_none_or(|k| memchr::memmem::find(record, k).is_some())
        };
        if let Some(caps) = records.retry.as_ref().and_then(|re| re.captures(line)) {
            let key = key_of(&caps);
            for cat in FAILURE_CATS {
                let taken = match &self.finding_records[cat] {
                    Some(record) => names(record, &key),
                    None => false,
                };
                if !taken {
                    continue;
                }
                let record = self.finding_records[cat].take().unwrap_or_default();
                let headline = self.findings.headlines[cat].take();
                let span = self.findings.spans[cat].take();
                if let Some(quote) = self.findings.slot(cat).take() {
                    self.provisional.push(Provisional {
                        cat,
                        quote,
                        headline,
                        span,
                        record,
                        key: key.clone(),
                    });
                }
                self.open |= bit(cat);
            }
            self.refresh_quick();
            return;
        }
        if let Some(caps) = records.recovered.as_ref().and_then(|re| re.captures(line)) {
            let key = key_of(&caps);
            let (recovered, waiting): (Vec<Provisional>, Vec<Provisional>) =
                std::mem::take(&mut self.provisional)
                    .into_iter()
                    .partition(|p| key.is_none() || p.key == key || names(&p.record, &key));
            self.provisional = waiting;
            if let Some(first) = recovered.first() {
                let then = self.quote(line, 0);
                self.findings.warnings.push(format!(
                    "recovered on a retry: {} (then: {then})",
                    first.quote
                ));
            }
        }
    }

    /// Match one line (or record). A `quiet` one (a record of a level
    /// that does not fail) counts for no failure, like an allowed line.
    fn match_line(&mut self, line: &[u8], quiet: bool) {
        self.match_required(line);
        self.match_retry(line);
        if self.findings.warnings.len() < MAX_WARNINGS
            && let Some(m) = self
                .patterns
                .shared
                .warn
                .as_ref()
                .and_then(|re| re.find(line))
        {
            let quote = self.quote(line, m.start());
            if !self.findings.warnings.contains(&quote) {
                self.findings.warnings.push(quote);
            }
        }
        if !self.every_line
            && !self
                .quick
                .iter()
                .any(|&q| self.quick_regex(q).is_match(line))
        {
            return;
        }
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for cat in FAILURE_CATS {
            if self.open & bit(cat) == 0 {
                continue;
            }
            let re = match cat {
                AUTH => Some(&*AUTH_RE),
                SCHEMA => Some(&*SCHEMA_RE),
                _ => self.patterns.shared.verify[cat].as_ref(),
            };
            if let Some(m) = re.and_then(|re| re.find(line)) {
                hits.push((cat, m.start()));
            }
        }
        let allowed = || {
            let allow = self.patterns.shared.allow.as_ref();
            allow.is_some_and(|re| re.is_match(line))
        };
        // Without a preset's record format, a quiet level silences the
        // abort words only: tools log real failures at INFO too (Spark's
        // `Job aborted due to stage failure`), while `Timeout` in a
        // warning is a value or a retried attempt.
        let quiet_abort = self.patterns.shared.records.is_none()
            && hits.iter().any(|(cat, _)| *cat == ABORT)
            && (self.patterns.shared.levels.as_ref()).is_some_and(|l| l.quiet(line));
        hits.retain(|(cat, _)| !(quiet_abort && *cat == ABORT));
        if !hits.is_empty() && !quiet && !allowed() {
            let keep_record =
                (self.patterns.shared.records.as_ref()).is_some_and(|r| r.retry.is_some());
            let headline = (self.patterns.shared.records.is_some())
                .then(|| super::headline::of(&String::from_utf8_lossy(line)))
                .flatten()
                .map(|h| match &self.redactor {
                    Some(r) => r.mask_str(&h).0.into_owned(),
                    None => h,
                });
            for (cat, at) in hits {
                let quote = self.quote(line, at);
                *self.findings.slot(cat) = Some(quote);
                self.findings.headlines[cat].clone_from(&headline);
                self.findings.spans[cat] = Some(self.record_span);
                if keep_record {
                    self.finding_records[cat] = Some(line.to_vec());
                }
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

/// Start of the first line at or after `pos` that is at least `hold`
/// bytes long (without its `\n`). Such a line covers a whole aligned half
/// of `hold`, so one `memchr` per half finds it.
fn find_long_line(block: &[u8], pos: usize, hold: usize) -> Option<usize> {
    let half = (hold / 2).max(1);
    let mut seg = pos.div_ceil(half) * half;
    while seg + half <= block.len() {
        if memchr(b'\n', &block[seg..seg + half]).is_some() {
            seg += half;
            continue;
        }
        let start = memrchr(b'\n', &block[pos..seg]).map_or(pos, |i| pos + i + 1);
        let end = memchr(b'\n', &block[seg..]).map_or(block.len(), |i| seg + i);
        if end - start >= hold {
            return Some(start);
        }
        seg = (end + 1).div_ceil(half) * half;
    }
    None
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
