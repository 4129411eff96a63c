//! A data diff: its differences, the counts that sum them up, and how
//! they are shown (docs/baselines.md, Data outputs).

/// At most this many differences are shown; the rest are counted.
pub(super) const MAX_DIFF_ITEMS: usize = 20;

/// The differences of a data output from its snapshot: every difference,
/// a line each, and the counts that sum them up (how many rows each
/// changed column differs in, how many rows were removed and added).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DataDiff {
    /// Every difference, one a line, in the order found.
    pub(crate) lines: Vec<String>,
    /// One line per changed column (`total: 3 of 1,000,000 rows differ`),
    /// then `rows removed: N of M` and `rows added: N of M`: only those
    /// that are not zero, none for a summary.
    pub(crate) counts: Vec<String>,
}

impl DataDiff {
    /// Whether output and snapshot agree.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

/// What comparing rows found: its lines, and the counts behind
/// [`DataDiff::counts`].
#[derive(Default)]
pub(super) struct Found {
    pub(super) lines: Vec<String>,
    /// For each common column, the rows compared with their snapshot row
    /// in which its cells differ.
    pub(super) changed: Vec<usize>,
    /// Rows compared with a snapshot row (by key).
    pub(super) compared: usize,
    pub(super) removed: usize,
    pub(super) added: usize,
}

impl Found {
    /// `lines` so far (the schema's changes), counting over `columns`
    /// common columns.
    pub(super) fn new(lines: Vec<String>, columns: usize) -> Found {
        Found {
            lines,
            changed: vec![0; columns],
            ..Found::default()
        }
    }

    /// A snapshot row the output does not have, by its key or its cells.
    pub(super) fn row_removed(&mut self, row: impl std::fmt::Display) {
        self.removed += 1;
        self.lines.push(format!("row removed: {row}"));
    }

    /// A row of the output the snapshot does not have.
    pub(super) fn row_added(&mut self, row: impl std::fmt::Display) {
        self.added += 1;
        self.lines.push(format!("row added: {row}"));
    }

    /// Adds what another part of the same comparison found.
    pub(super) fn absorb(&mut self, part: Found) {
        self.lines.extend(part.lines);
        for (n, m) in self.changed.iter_mut().zip(part.changed) {
            *n += m;
        }
        self.compared += part.compared;
        self.removed += part.removed;
        self.added += part.added;
    }

    /// The diff, its counts over the common columns (named `names`, in
    /// order) and the snapshot's `was` and the output's `now` rows.
    pub(super) fn into_diff<'n>(
        self,
        names: impl Iterator<Item = &'n str>,
        was: usize,
        now: usize,
    ) -> DataDiff {
        let mut counts: Vec<String> = (names.zip(&self.changed))
            .filter(|(_, n)| **n > 0)
            .map(|(name, &n)| {
                format!(
                    "{name}: {} of {} rows differ",
                    thousands(n),
                    thousands(self.compared)
                )
            })
            .collect();
        for (what, n, of) in [("removed", self.removed, was), ("added", self.added, now)] {
            if n > 0 {
                counts.push(format!(
                    "rows {what}: {} of {}",
                    thousands(n),
                    thousands(of)
                ));
            }
        }
        DataDiff {
            lines: self.lines,
            counts,
        }
    }
}

/// `n` with a comma between each three digits: `1,000,000`.
pub(super) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (k, d) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// What a line of a data diff is about, as a view of the diff colours it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataDiffLine {
    /// The schema: a column renamed, removed, added or retyped, a key
    /// column missing.
    Schema,
    /// The row count.
    RowCount,
    /// A row the snapshot has and the output does not.
    RowRemoved,
    /// A row the output has and the snapshot does not.
    RowAdded,
    /// A cell, or a summary's figure, that changed; anything else.
    Changed,
}

impl DataDiffLine {
    /// The kind of a line of [`super::differences`].
    pub(crate) fn of(line: &str) -> DataDiffLine {
        const SCHEMA: [&str; 5] = [
            "column renamed: ",
            "column removed: ",
            "column added: ",
            "column retyped: ",
            "key column missing: ",
        ];
        if SCHEMA.iter().any(|p| line.starts_with(p)) {
            DataDiffLine::Schema
        } else if line.starts_with("row count: ") {
            DataDiffLine::RowCount
        } else if line.starts_with("row removed: ") {
            DataDiffLine::RowRemoved
        } else if line.starts_with("row added: ") {
            DataDiffLine::RowAdded
        } else {
            DataDiffLine::Changed
        }
    }
}

/// The diff shown for `diff`: its counts, then the first
/// [`MAX_DIFF_ITEMS`] differences, and how many more there are.
pub(crate) fn diff_text(diff: &DataDiff) -> String {
    let lines = &diff.lines;
    let mut out: String = (diff.counts.iter())
        .chain(lines.iter().take(MAX_DIFF_ITEMS))
        .map(|l| format!("{l}\n"))
        .collect();
    if lines.len() > MAX_DIFF_ITEMS {
        out.push_str(&format!(
            "… and {} more difference(s)\n",
            lines.len() - MAX_DIFF_ITEMS
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_have_their_own_shape() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        for count in [
            "total: 3 of 1,000,000 rows differ",
            "a: b: 1 of 2 rows differ",
            "rows added: 12 of 1,000",
        ] {
            assert!(crate::model::is_data_count(count), "{count}");
        }
        for line in [
            "changed: id=1 note x -> a: 3 of 4 rows differ",
            "row removed: x: 3 of 4 rows differ",
            "row added: 1,2",
            "row count: 3 -> 4",
            ": 1 of 2 rows differ",
            "total: x of 2 rows differ",
            "rows added: 1 of",
        ] {
            assert!(!crate::model::is_data_count(line), "{line}");
        }
    }
}
