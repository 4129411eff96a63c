//! Appending a finished run to the out dir's `history.jsonl`
//! ([`crate::wire::history`]): one line per case, bounded to the last
//! `[harness] history.keep` runs. The file is rewritten atomically, so a
//! crash leaves the previous history whole.

use std::io;
use std::path::Path;

use crate::layout::HISTORY_FILE;
use crate::model::RunRecord;
use crate::wire::history::{self, HistoryLine, Revision};

/// Append the lines of `record` (and `earlier`, lines of other runs a
/// merge joins in, placed before them) to its out dir's history, keeping
/// the last `keep` runs (0: all). Lines already there for a run and case
/// are not written twice. Returns how many unreadable lines were dropped.
pub(crate) fn append(
    record: &RunRecord,
    revision: &Revision,
    earlier: Vec<HistoryLine>,
    keep: usize,
) -> io::Result<usize> {
    let existing = history::read_text(&record.out_dir.join(HISTORY_FILE));
    append_to(record, revision, existing, earlier, keep)
}

/// [`append`] to the history file as `existing` read it: a run reads it
/// once, for what compares with the runs before it and for the append
/// (nothing else writes it while the run holds its out dir).
fn append_to(
    record: &RunRecord,
    revision: &Revision,
    existing: io::Result<history::HistoryText>,
    earlier: Vec<HistoryLine>,
    keep: usize,
) -> io::Result<usize> {
    let path = record.out_dir.join(HISTORY_FILE);
    let existing = existing?;
    let mut dropped = 0;
    // Each line with where its text is in the file, for the lines read
    // from it: those are written back as they were.
    let mut lines: Vec<(HistoryLine, Option<std::ops::Range<usize>>)> = Vec::new();
    for (_, at, line) in existing.lines {
        match line {
            Ok(l) => lines.push((l, Some(at))),
            Err(_) => dropped += 1,
        }
    }
    let mut seen: std::collections::HashSet<(String, String)> = lines
        .iter()
        .map(|(l, _)| (l.run_id.clone(), l.case.clone()))
        .collect();
    for l in earlier {
        if seen.insert((l.run_id.clone(), l.case.clone())) {
            lines.push((l, None));
        }
    }
    // Joined shard histories interleave: order runs by when they started
    // (a stable sort keeps each run's cases in declaration order).
    lines.sort_by_key(|(l, _)| l.started_at);
    lines.extend(
        record
            .cases
            .iter()
            .map(|c| (HistoryLine::of(record, c, revision), None)),
    );
    let lines = history::bounded(lines, keep, |(l, _)| &l.run_id);
    let mut text = String::with_capacity(existing.text.len() + 512 * record.cases.len());
    for (line, at) in &lines {
        match at {
            Some(at) => text.push_str(&existing.text[at.clone()]),
            None => text.push_str(&history::render_line(line)),
        }
        text.push('\n');
    }
    crate::atomic::atomic_write(&path, text.as_bytes())?;
    Ok(dropped)
}

/// [`append`] for a run at `revision`, to the history file as `existing`
/// read it, saying on stderr what went wrong:
/// history is a convenience, never a reason to fail a run whose reports
/// agree.
pub(crate) fn record_run(
    record: &RunRecord,
    revision: &Revision,
    existing: io::Result<history::HistoryText>,
    keep: usize,
) {
    tell(
        append_to(record, revision, existing, Vec::new(), keep),
        &record.out_dir,
    );
}

/// Say on stderr what became of an [`append`].
pub(crate) fn tell(appended: io::Result<usize>, out_dir: &Path) {
    let path = out_dir.join(HISTORY_FILE);
    match appended {
        Ok(0) => {}
        Ok(n) => eprintln!(
            "warning: {}: dropped {n} unreadable line(s)",
            crate::layout::display_relative(&path)
        ),
        Err(e) => eprintln!(
            "warning: cannot write {}: {e}",
            crate::layout::display_relative(&path)
        ),
    }
}
