//! Matching a line too long to hold: the line is fed through a lazy DFA
//! (`regex-automata`'s hybrid DFA) piece by piece, its state carried from
//! one piece to the next and restarted at each line, so a line of any
//! length is matched whole, anchors included, in bounded memory.
//!
//! One DFA holds several patterns and reports each pattern that matches
//! somewhere in the line (match kind "all"), so a long line costs at most
//! one transition per byte whatever the number of patterns. When the
//! patterns start with literals, a prefilter skips the stretches where no
//! match can start, as `regex-automata`'s own searches do.

use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::prefilter::Prefilter;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind, Span};
use regex_syntax::hir::{Hir, HirKind, Look};

/// Patterns compiled into one DFA, each reported by its index.
#[derive(Debug)]
pub(super) struct LineDfa {
    dfa: DFA,
    /// Finds where a match may start; None when the patterns do not start
    /// with literals a fast search can find.
    prefilter: Option<Prefilter>,
}

/// The DFA could not be built (a pattern too large for it).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct BuildError(String);

impl LineDfa {
    /// `patterns[i]` is reported as `i`; at most 64 patterns.
    ///
    /// Unicode word boundaries (`\b`, `\B`, `\<`, `\>`) are matched as ASCII
    /// ones: a DFA cannot look across a multi-byte character. Elsewhere the
    /// patterns mean what they mean to the `regex` crate.
    pub(super) fn new(patterns: &[&str]) -> Result<LineDfa, BuildError> {
        assert!(patterns.len() <= 64, "pattern sets fit in a u64");
        let mut parser = regex_syntax::ParserBuilder::new();
        // As `regex::bytes`: patterns may match bytes that are not UTF-8.
        parser.utf8(false);
        let hirs = patterns
            .iter()
            .map(|p| match parser.build().parse(p) {
                Ok(hir) => Ok(ascii_word_boundaries(hir)),
                Err(e) => Err(BuildError(e.to_string())),
            })
            .collect::<Result<Vec<Hir>, _>>()?;
        let prefilter =
            Prefilter::from_hirs_prefix(MatchKind::All, &hirs).filter(Prefilter::is_fast);
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .utf8(false)
                    .which_captures(WhichCaptures::None),
            )
            .build_many_from_hir(&hirs)
            .map_err(|e| BuildError(e.to_string()))?;
        let config = DFA::config()
            .match_kind(MatchKind::All)
            // Start states are tagged, so the walk knows when no match is
            // under way and the prefilter may skip ahead.
            .specialize_start_states(true)
            .skip_cache_capacity_check(true);
        let dfa = DFA::builder()
            .configure(config)
            .build_from_nfa(nfa)
            .map_err(|e| BuildError(e.to_string()))?;
        Ok(LineDfa { dfa, prefilter })
    }

    /// A walk over lines, with its own cache of DFA states.
    pub(super) fn walk(&self) -> Walk {
        let mut cache = self.dfa.create_cache();
        let sid = self.start(&mut cache, None);
        Walk {
            cache,
            sid,
            gave_up: sid.is_none(),
        }
    }

    /// The start state after `look_behind`; None at the start of a line,
    /// where `^` holds.
    fn start(&self, cache: &mut Cache, look_behind: Option<u8>) -> Option<LazyStateID> {
        let config = start::Config::new()
            .anchored(Anchored::No)
            .look_behind(look_behind);
        self.dfa.start_state(cache, &config).ok()
    }
}

/// Where one line stands in a [`LineDfa`].
#[derive(Debug)]
pub(super) struct Walk {
    cache: Cache,
    sid: Option<LazyStateID>,
    gave_up: bool,
}

impl Walk {
    /// Back to the start of a line.
    pub(super) fn restart(&mut self, dfa: &LineDfa) {
        self.sid = dfa.start(&mut self.cache, None);
        self.gave_up = self.sid.is_none();
    }

    /// Whether the DFA gave up on this line (it cannot with the default
    /// cache settings, which never give up; callers still decide what a
    /// line nobody could match means).
    pub(super) fn gave_up(&self) -> bool {
        self.gave_up
    }

    /// Feed the next bytes of the line. `on_match(i, end)` is called for
    /// each pattern `i` not yet in `matched` whose match ends at
    /// `bytes[..end]`; the walk stops early once `matched` covers `wanted`.
    pub(super) fn feed(
        &mut self,
        dfa: &LineDfa,
        bytes: &[u8],
        matched: &mut u64,
        wanted: u64,
        mut on_match: impl FnMut(usize, usize),
    ) {
        let Some(mut sid) = self.sid else {
            return;
        };
        let mut at = 0;
        while at < bytes.len() && *matched & wanted != wanted {
            if sid.is_start()
                && let Some(pre) = &dfa.prefilter
            {
                let skip_to = skip(pre, bytes, at);
                if skip_to > at {
                    at = skip_to;
                    match dfa.start(&mut self.cache, Some(bytes[at - 1])) {
                        Some(start) => sid = start,
                        None => return self.give_up(),
                    }
                    continue;
                }
            }
            sid = match dfa.dfa.next_state(&mut self.cache, sid, bytes[at]) {
                Ok(next) => next,
                Err(_) => return self.give_up(),
            };
            // Matches are reported one byte late: the state entered on
            // byte `at` says a match ended just before it.
            if sid.is_match() {
                note_matches(dfa, &self.cache, sid, matched, |p| on_match(p, at));
            }
            at += 1;
        }
        self.sid = Some(sid);
    }

    /// The line ended: resolve `$` and word boundaries at its end.
    pub(super) fn finish(&mut self, dfa: &LineDfa, matched: &mut u64, on_match: impl FnMut(usize)) {
        let Some(sid) = self.sid else {
            return;
        };
        match dfa.dfa.next_eoi_state(&mut self.cache, sid) {
            Ok(eoi) if eoi.is_match() => note_matches(dfa, &self.cache, eoi, matched, on_match),
            Ok(_) => {}
            Err(_) => self.give_up(),
        }
    }

    fn give_up(&mut self) {
        self.sid = None;
        self.gave_up = true;
    }
}

/// Where the walk may jump from `at` while no match is under way: to the
/// next place a match may start, or, when there is none, to the last bytes
/// a match starting here could begin in (the rest of its literal may come
/// with the next piece).
fn skip(pre: &Prefilter, bytes: &[u8], at: usize) -> usize {
    match pre.find(bytes, Span::from(at..bytes.len())) {
        Some(span) => span.start,
        None => {
            let tail = pre.max_needle_len().saturating_sub(1);
            bytes.len().saturating_sub(tail).max(at)
        }
    }
}

fn note_matches(
    dfa: &LineDfa,
    cache: &Cache,
    sid: LazyStateID,
    matched: &mut u64,
    mut on_match: impl FnMut(usize),
) {
    for k in 0..dfa.dfa.match_len(cache, sid) {
        let p = dfa.dfa.match_pattern(cache, sid, k).as_usize();
        if *matched & (1 << p) == 0 {
            *matched |= 1 << p;
            on_match(p);
        }
    }
}

/// `hir` with every Unicode word-boundary assertion made an ASCII one.
fn ascii_word_boundaries(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Look(look) => Hir::look(match look {
            Look::WordUnicode => Look::WordAscii,
            Look::WordUnicodeNegate => Look::WordAsciiNegate,
            Look::WordStartUnicode => Look::WordStartAscii,
            Look::WordEndUnicode => Look::WordEndAscii,
            Look::WordStartHalfUnicode => Look::WordStartHalfAscii,
            Look::WordEndHalfUnicode => Look::WordEndHalfAscii,
            other => other,
        }),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(ascii_word_boundaries(*rep.sub));
            Hir::repetition(rep)
        }
        HirKind::Capture(mut cap) => {
            cap.sub = Box::new(ascii_word_boundaries(*cap.sub));
            Hir::capture(cap)
        }
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(ascii_word_boundaries).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(ascii_word_boundaries).collect())
        }
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => Hir::literal(lit.0),
        HirKind::Class(class) => Hir::class(class),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which patterns match `line`, fed in pieces of `piece` bytes.
    fn matches(dfa: &LineDfa, line: &[u8], piece: usize) -> u64 {
        let mut walk = dfa.walk();
        let mut matched = 0;
        for chunk in line.chunks(piece.max(1)) {
            walk.feed(dfa, chunk, &mut matched, u64::MAX, |_, _| {});
        }
        walk.finish(dfa, &mut matched, |_| {});
        assert!(!walk.gave_up());
        matched
    }

    #[test]
    fn anchors_mean_the_line_and_matches_span_pieces() {
        let dfa = LineDfa::new(&["^BOOM", "START.*END", r"done$", r"\bid\b"]).unwrap();
        let mut line = vec![b'x'; 100_000];
        line.extend_from_slice(b"BOOM START");
        line.extend(std::iter::repeat_n(b'y', 10_000));
        line.extend_from_slice(b"END done");
        for piece in [1, 7, 4096, line.len()] {
            assert_eq!(matches(&dfa, &line, piece), 0b0110, "pieces of {piece}");
        }
        assert_eq!(matches(&dfa, b"BOOM", 1), 0b0001);
        assert_eq!(matches(&dfa, b"done ", 2), 0);
        assert_eq!(matches(&dfa, b"the id", 3), 0b1000);
        assert_eq!(matches(&dfa, b"the idx", 3), 0);
    }

    #[test]
    fn a_walk_restarts_at_each_line() {
        let dfa = LineDfa::new(&["^b", "a.*b"]).unwrap();
        let mut walk = dfa.walk();
        let mut matched = 0;
        walk.feed(&dfa, b"a", &mut matched, u64::MAX, |_, _| {});
        walk.finish(&dfa, &mut matched, |_| {});
        walk.restart(&dfa);
        walk.feed(&dfa, b"b", &mut matched, u64::MAX, |_, _| {});
        walk.finish(&dfa, &mut matched, |_| {});
        assert_eq!(matched, 0b01);
    }

    #[test]
    fn match_ends_are_reported_where_the_match_ends() {
        let dfa = LineDfa::new(&["abc"]).unwrap();
        let mut walk = dfa.walk();
        let mut matched = 0;
        let mut ends = Vec::new();
        walk.feed(&dfa, b"xxabcyy", &mut matched, u64::MAX, |p, end| {
            ends.push((p, end))
        });
        assert_eq!(ends, [(0, 5)]);
    }

    #[test]
    fn the_prefilter_never_skips_a_match() {
        let dfa = LineDfa::new(&["Timeout", "Job aborted", r"(?m)^ERR\d+$"]).unwrap();
        assert!(dfa.prefilter.is_some(), "literal prefixes make a prefilter");
        let line = [&[b'x'; 1000][..], b"Job aborted", &[b'y'; 1000]].concat();
        // The literal split between two pieces at every place.
        for cut in 990..1015 {
            let mut walk = dfa.walk();
            let mut matched = 0;
            for piece in [&line[..cut], &line[cut..]] {
                walk.feed(&dfa, piece, &mut matched, u64::MAX, |_, _| {});
            }
            walk.finish(&dfa, &mut matched, |_| {});
            assert_eq!(matched, 0b010, "cut at {cut}");
        }
        // After a skip, the start state knows what came before.
        assert_eq!(matches(&dfa, b"xxxxxxxxERR42", 4), 0);
        assert_eq!(matches(&dfa, b"ERR42", 2), 0b100);
    }

    #[test]
    fn unicode_word_boundaries_become_ascii_ones() {
        let dfa = LineDfa::new(&[r"\bauth\b", r"(?i)\w+ été"]).unwrap();
        assert_eq!(matches(&dfa, b"auth failed", 4), 0b01);
        assert_eq!(matches(&dfa, "Déjà été".as_bytes(), 4), 0b10);
    }
}
