//! Output capture: each stream goes, chunk by chunk, to the classifier as
//! the command wrote it (in memory only: masking must never change a
//! verdict, and the classifier masks the lines its findings quote), then,
//! masked (secret values replaced, docs/secrets.md, Secrets are masked), to
//! its log file (never truncated), a bounded excerpt (its first characters), a
//! bounded tail (its last bytes, where failures explain themselves) and, for
//! stdout, the running evidence hash. Nothing unmasked is written, hashed or
//! shown. Memory stays bounded whatever the output size.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use crate::hash::EvidenceHasher;

use crate::classify::{StreamClassifier, StreamFindings};
use crate::redact::{Masker, Redactor};
use crate::runner::process::Sink;

/// Appended to an excerpt that was cut.
pub(crate) const TRUNCATION_MARKER: &str = "\n\n[TRUNCATED - output exceeded limit]";

/// The first `limit` characters of a stream. A character starts at every
/// byte that is not a UTF-8 continuation byte, and at a continuation byte
/// that would make the current character longer than 4 bytes: the cut is
/// deterministic for any bytes, and the excerpt never exceeds 4 × `limit`
/// bytes, even for output made only of continuation bytes.
#[derive(Debug)]
pub(crate) struct Excerpt {
    limit: usize,
    chars: usize,
    /// Bytes of the current character so far.
    run: u8,
    bytes: Vec<u8>,
    truncated: bool,
}

impl Excerpt {
    /// An empty excerpt keeping at most `limit` characters.
    pub(crate) fn new(limit: usize) -> Self {
        Excerpt {
            limit,
            chars: 0,
            // The first byte always starts a character.
            run: 4,
            bytes: Vec::new(),
            truncated: false,
        }
    }

    /// Take the next chunk.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.truncated {
            return;
        }
        for (i, &b) in chunk.iter().enumerate() {
            if b & 0xC0 != 0x80 || self.run == 4 {
                if self.chars == self.limit {
                    self.bytes.extend_from_slice(&chunk[..i]);
                    self.truncated = true;
                    return;
                }
                self.chars += 1;
                self.run = 0;
            }
            self.run += 1;
        }
        self.bytes.extend_from_slice(chunk);
    }

    /// Whether every byte of the stream is in the excerpt.
    pub(crate) fn is_complete(&self) -> bool {
        !self.truncated
    }

    /// The kept bytes, with the marker when the stream was longer.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        if self.truncated {
            self.bytes.extend_from_slice(TRUNCATION_MARKER.as_bytes());
        }
        self.bytes
    }
}

/// Bytes of a stream's end kept: enough for [`crate::model::output_end`]
/// to quote the same text as it would from the whole stream (a character
/// is at most 4 bytes), and for the last error-looking line.
const TAIL_BYTES: usize = 4 * crate::model::END_CHARS;

/// The last [`TAIL_BYTES`] bytes of a stream.
#[derive(Debug, Default)]
struct Tail {
    bytes: Vec<u8>,
}

impl Tail {
    fn push(&mut self, chunk: &[u8]) {
        if chunk.len() >= TAIL_BYTES {
            self.bytes.clear();
            self.bytes
                .extend_from_slice(&chunk[chunk.len() - TAIL_BYTES..]);
            return;
        }
        self.bytes.extend_from_slice(chunk);
        // Dropped in bulk, so each byte is moved at most once.
        if self.bytes.len() > 2 * TAIL_BYTES {
            self.bytes.drain(..self.bytes.len() - TAIL_BYTES);
        }
    }

    /// The kept end as text, starting at a character boundary.
    fn text(&self) -> String {
        let start = self.bytes.len().saturating_sub(TAIL_BYTES);
        let mut kept = &self.bytes[start..];
        if start > 0 {
            let lead = kept.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80);
            kept = &kept[lead.count()..];
        }
        String::from_utf8_lossy(kept).into_owned()
    }
}

/// One stream's capture.
pub(crate) struct Capture {
    /// `None` when there is no secret to mask.
    masker: Option<Masker>,
    /// Fed the unmasked bytes.
    classifier: StreamClassifier,
    store: Store,
}

/// Where masked bytes go.
struct Store {
    file: File,
    excerpt: Excerpt,
    tail: Tail,
    evidence: Option<EvidenceHasher>,
    /// Also copy each chunk to the tool's stderr (`--no-capture`).
    live: bool,
}

impl Store {
    fn take(&mut self, chunk: &[u8]) -> io::Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        self.file.write_all(chunk)?;
        if let Some(h) = &mut self.evidence {
            h.update(chunk);
        }
        self.excerpt.push(chunk);
        self.tail.push(chunk);
        if self.live {
            // A closed terminal must not fail the case: the log has it all.
            let mut e = io::stderr().lock();
            let _ = e.write_all(chunk).and_then(|()| e.flush());
        }
        Ok(())
    }
}

/// What a finished capture yields.
pub(crate) struct Captured {
    /// Truncated copy.
    pub(crate) excerpt: Vec<u8>,
    /// When the copy was truncated: the end of the stream as reports quote
    /// it.
    pub(crate) end: Option<String>,
    /// Classifier findings.
    pub(crate) findings: StreamFindings,
    /// Evidence hasher state, when this stream fed it.
    pub(crate) evidence: Option<EvidenceHasher>,
    /// The excerpt holds the whole stream (it was not truncated).
    pub(crate) complete: bool,
    /// Secret values masked.
    pub(crate) redactions: u64,
}

impl Capture {
    /// Capture into `file` (the stream's log, already created), masking
    /// the values of `redactor`.
    pub(crate) fn new(
        file: File,
        truncate: usize,
        classifier: StreamClassifier,
        evidence: Option<EvidenceHasher>,
        redactor: &Redactor,
    ) -> Capture {
        Capture {
            masker: (!redactor.is_empty()).then(|| redactor.masker()),
            classifier: classifier.masking(redactor),
            store: Store {
                file,
                excerpt: Excerpt::new(truncate),
                tail: Tail::default(),
                evidence,
                live: false,
            },
        }
    }

    /// Also stream the output, masked, as it comes, to the tool's stderr
    /// (stdout stays free for `--message-format json`).
    pub(crate) fn live(mut self, live: bool) -> Capture {
        self.store.live = live;
        self
    }

    /// Store what the masker held back, flush the log and hand back what
    /// was gathered.
    pub(crate) fn finish(mut self) -> io::Result<Captured> {
        let mut redactions = 0;
        if let Some(m) = &mut self.masker {
            self.store.take(m.finish())?;
            redactions = m.count();
        }
        let mut store = self.store;
        store.file.flush()?;
        let complete = store.excerpt.is_complete();
        let tail = store.tail.text();
        let mut findings = self.classifier.finish();
        findings.last_error = crate::classify::last_error_line(&tail);
        Ok(Captured {
            complete,
            excerpt: store.excerpt.finish(),
            end: (!complete).then(|| crate::model::output_end(&tail).to_string()),
            findings,
            evidence: store.evidence,
            redactions,
        })
    }
}

impl Sink for Capture {
    fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.classifier.feed(chunk);
        match &mut self.masker {
            Some(m) => self.store.take(m.push(chunk)),
            None => self.store.take(chunk),
        }
    }
}

/// Finish an evidence hash after stdout: stderr, then the exit code.
/// stderr comes from its excerpt when that holds all of it, else it is read
/// back from its log, streaming, so it is hashed in order.
pub(crate) fn evidence_finish(
    mut h: EvidenceHasher,
    stderr: &Captured,
    stderr_log: &Path,
    exit_code: Option<i32>,
) -> io::Result<String> {
    h.next_part();
    if stderr.complete {
        h.update(&stderr.excerpt);
    } else {
        h.update_from_file(stderr_log)?;
    }
    Ok(h.finish(exit_code))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Truncate an in-memory output the way the streaming excerpt does.
    fn truncate(data: &[u8], limit: usize) -> Vec<u8> {
        let mut e = Excerpt::new(limit);
        e.push(data);
        e.finish()
    }

    #[test]
    fn excerpt_is_deterministic_across_chunkings() {
        let data = "héllo wörld ".repeat(50).into_bytes();
        let whole = truncate(&data, 100);
        for split in [1, 7, 64, 333] {
            let mut e = Excerpt::new(100);
            for c in data.chunks(split) {
                e.push(c);
            }
            assert_eq!(e.finish(), whole);
        }
        assert!(whole.ends_with(TRUNCATION_MARKER.as_bytes()));
        let kept = &whole[..whole.len() - TRUNCATION_MARKER.len()];
        assert_eq!(
            String::from_utf8(kept.to_vec()).unwrap().chars().count(),
            100
        );
    }

    #[test]
    fn continuation_bytes_alone_cannot_grow_the_excerpt() {
        let mut e = Excerpt::new(100);
        for _ in 0..100 {
            e.push(&[0x80; 1 << 16]);
        }
        let kept = e.finish();
        assert!(kept.ends_with(TRUNCATION_MARKER.as_bytes()));
        assert_eq!(kept.len() - TRUNCATION_MARKER.len(), 400);
    }

    #[test]
    fn the_tail_keeps_the_last_bytes_whatever_the_chunking() {
        let data = "ligne é\n".repeat(5000).into_bytes();
        let want = {
            let mut t = Tail::default();
            t.push(&data);
            t.text()
        };
        assert!(want.len() <= TAIL_BYTES && want.len() > TAIL_BYTES - 4);
        assert!(std::str::from_utf8(&data).unwrap().ends_with(&want));
        assert!(!want.starts_with('\u{FFFD}'));
        for split in [1, 7, 4096, TAIL_BYTES + 1] {
            let mut t = Tail::default();
            for c in data.chunks(split) {
                t.push(c);
            }
            assert_eq!(t.text(), want);
            assert!(t.bytes.len() <= 2 * TAIL_BYTES);
        }
    }

    #[test]
    fn short_output_is_kept_whole() {
        assert_eq!(truncate(b"abc", 3), b"abc");
        assert_eq!(truncate(b"\xff\xfe", 10), b"\xff\xfe");
    }
}
