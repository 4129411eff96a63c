//! Data snapshots: a case's `outputs` (CSV, JSON, JSONL, Parquet files and
//! Delta tables it writes) compared with `snapshots/<stem>.<path>.data`
//! beside the harness file.
//!
//! A snapshot is a canonical text form git diffs well: a schema line
//! (`# columns: region:string, total:float`), then the rows as CSV,
//! ignored columns left out, sorted by the key (else by the whole row).
//! The comparison reads the schema (names and types: a renamed or retyped
//! column is a change), the row count, and the rows matched by key, numbers
//! within the tolerance `|now - snapshot| <= abs + rel * |snapshot|`
//! (without one, exactly: every digit written, not a double's). A
//! difference is a `DATA_CHANGED` issue whose diff ([`DataDiff`]) counts
//! the rows each column differs in, then lists the first differences, one
//! a line. Columns are matched by
//! name: an output naming a column twice is refused ([`unique_names`]).
//!
//! The files are read as the case ends (under `copy`, from the copy before
//! it is removed, see [`read_outputs`]); the comparison (or bless) happens
//! with the stream snapshots, in `baseline` (`Snapshots::apply_data`).
//!
//! The rest of the crate uses this API alone (`.ci/layers` holds it to
//! the list): reading a case's outputs ([`read_outputs`], [`OutputsBefore`],
//! [`OutputRead`], [`Masking`]) into a [`Table`]; the snapshot text
//! ([`render`], [`parse_snapshot`], [`snapshot_output`]); the differences
//! ([`compare`], [`differences`], [`DataDiff`], [`diff_text`],
//! [`DataDiffLine`]); where
//! an output's snapshot lives ([`snapshot_file`], [`is_glob`], [`glob`]);
//! and why a file could not be read ([`DataError`]). Everything else
//! (the readers, the columnar table, summaries, the Delta log and its
//! deletion vectors) is private to `data`.

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::path::Path;

use crate::config::{DataOutputMode, OutputSpec, TableSource};

mod db;
mod dbt;
mod delta;
mod diff;
mod error;
mod json;
mod num;
mod outputs;
#[cfg(feature = "parquet")]
mod parquet_file;
mod stream;
mod summary;
mod text;
mod value;

use diff::Found;
pub(crate) use diff::{DataDiff, DataDiffLine, diff_text};
pub(crate) use error::DataError;
pub(crate) use outputs::{OutputRead, OutputsBefore, glob, is_glob, read_outputs};
use value::ColType;
use value::{Rule, value_of, widen};

/// Built without the `parquet` feature: a Parquet file or a Delta table is
/// an output that cannot be read, said so where the case's outputs are.
#[cfg(not(feature = "parquet"))]
mod parquet_file {
    use super::DataError;

    pub(super) fn json_rows(_bytes: Vec<u8>) -> Result<Vec<serde_json::Value>, DataError> {
        Err(DataError::ParquetMissing)
    }
}

/// The first line of a data snapshot, before the schema.
const SCHEMA_PREFIX: &str = "# columns: ";

/// What a data snapshot holds: every row, or a summary
/// (`mode = "summary"`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Table(Held);

/// What a [`Table`] holds.
#[derive(Clone, Debug, PartialEq)]
enum Held {
    Rows(RowTable),
    Summary(summary::Summary),
}

impl From<RowTable> for Table {
    fn from(rows: RowTable) -> Table {
        Table(Held::Rows(rows))
    }
}

impl From<summary::Summary> for Table {
    fn from(summary: summary::Summary) -> Table {
        Table(Held::Summary(summary))
    }
}

/// Where cells read from a file go, row by row.
trait Sink {
    /// The next cell of the row being read (None or empty: null).
    fn cell(&mut self, value: Option<&str>);
    /// The end of the row being read.
    fn end_row(&mut self);
    /// The rows of `batch`; a sink that takes a column at a time faster
    /// says so here.
    fn batch(&mut self, batch: &Batch<'_>) {
        batch.each_row(self);
    }
}

/// Rows read a column at a time (from Parquet), as a sink takes them.
struct Batch<'a> {
    /// Each column's cells.
    columns: Vec<BatchColumn<'a>>,
    /// The rows.
    rows: usize,
    /// Rows left out (a Delta table's deleted rows), by index in the batch.
    skip: Option<&'a [bool]>,
}

/// Where a column of a [`Batch`] comes from.
#[derive(Clone, Copy)]
enum BatchColumn<'a> {
    Cells(&'a Cells),
    /// One value (or null) for every row.
    Value(Option<&'a str>),
}

impl<'a> BatchColumn<'a> {
    fn cell(&self, r: usize) -> Cell<'a> {
        match self {
            BatchColumn::Cells(c) => c.cell(r),
            BatchColumn::Value(v) => v.map_or(Cell::Null, Cell::Text),
        }
    }
}

impl Batch<'_> {
    /// Push the rows into `sink` one by one.
    fn each_row(&self, sink: &mut (impl Sink + ?Sized)) {
        let mut scratch = String::new();
        for r in 0..self.rows {
            if self
                .skip
                .is_some_and(|s| s.get(r).copied().unwrap_or(false))
            {
                continue;
            }
            for c in &self.columns {
                sink.cell(c.cell(r).text(&mut scratch));
            }
            sink.end_row();
        }
    }
}

/// Marks a null cell in [`Cells`]' cell ends.
const NULL: u64 = 1 << 63;
/// Marks a null cell in [`RowTable`]'s cell ends.
const NULL_IN_ROW: u32 = 1 << 31;

/// A table: named, typed columns and rows of cells (None: null).
///
/// The cells' text is one buffer; each row is where its text starts there
/// and each cell where it ends within its row (four bytes a cell): a
/// million-row table is four allocations, not ten million strings. Rows
/// are shown in `order` (sorted once), never moved.
#[derive(Clone, Debug)]
struct RowTable {
    pub(crate) columns: Vec<(String, ColType)>,
    text: String,
    /// Where each stored row's text starts in `text`.
    starts: Vec<u64>,
    /// The end of each cell within its row's text, row-major;
    /// [`NULL_IN_ROW`] set for null.
    ends: Vec<u32>,
    /// The stored row shown at each position.
    order: Vec<usize>,
    /// The key columns the rows are in order of, once [`sort`] sorted
    /// them (empty: not known).
    sorted_by: Vec<usize>,
}

/// One row of a [`RowTable`].
#[derive(Clone, Copy)]
struct Row<'t> {
    /// The table's text and cell ends.
    text: &'t str,
    ends: &'t [u32],
    width: usize,
    /// Its first cell's place in the table's cell ends.
    base: usize,
    /// Where its text starts.
    start: usize,
}

/// Cell `k` of cells stored as `text` and their `ends` (None: null).
fn cell_at<'t>(text: &'t str, ends: &[u64], k: usize) -> Option<&'t str> {
    let end = ends[k];
    if end & NULL != 0 {
        return None;
    }
    let start = if k == 0 { 0 } else { ends[k - 1] & !NULL };
    // Offsets were taken from `text` itself, at char boundaries.
    Some(&text[start as usize..end as usize])
}

/// Push a cell (None: null; an empty string is a value) onto cells
/// stored as `text` and their `ends`.
fn push_cell(text: &mut String, ends: &mut Vec<u64>, value: Option<&str>) {
    match value {
        Some(v) => {
            text.push_str(v);
            ends.push(text.len() as u64);
        }
        None => ends.push(text.len() as u64 | NULL),
    }
}

/// One column's cells, in the text-and-ends form of [`RowTable`]: how
/// readers that read a column at a time (Parquet) or row by row (JSON)
/// hand a table over.
#[derive(Clone, Debug, Default)]
struct Cells {
    text: String,
    ends: Vec<u64>,
    /// The values of an integer column kept as integers (Parquet), by
    /// row, their text written only when asked for; a null's is 0.
    ints: Vec<i64>,
    /// The values of a double column kept as doubles, likewise.
    floats: Vec<f64>,
}

/// A cell of [`Cells`].
#[derive(Clone, Copy)]
enum Cell<'a> {
    Null,
    Text(&'a str),
    Int(i64),
    Float(f64),
}

impl Cells {
    fn push(&mut self, value: Option<&str>) {
        push_cell(&mut self.text, &mut self.ends, value);
    }

    #[cfg(feature = "parquet")]
    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
        self.ints.clear();
        self.floats.clear();
    }

    /// Push an integer, kept as one.
    #[cfg(feature = "parquet")]
    fn push_int(&mut self, i: i64) {
        self.push_ints(&[i]);
    }

    /// Push integers, kept as such.
    #[cfg(feature = "parquet")]
    fn push_ints(&mut self, values: &[i64]) {
        if self.ints.len() != self.ends.len() {
            self.ints.resize(self.ends.len(), 0);
        }
        self.ints.extend_from_slice(values);
        self.push_values(values.len());
    }

    /// Push doubles, kept as such.
    #[cfg(feature = "parquet")]
    fn push_f64s(&mut self, values: &[f64]) {
        if self.floats.len() != self.ends.len() {
            self.floats.resize(self.ends.len(), 0.0);
        }
        self.floats.extend_from_slice(values);
        self.push_values(values.len());
    }

    /// Mark `n` values kept as numbers (no text of their own).
    #[cfg(feature = "parquet")]
    fn push_values(&mut self, n: usize) {
        let end = self.text.len() as u64;
        self.ends.extend(std::iter::repeat_n(end, n));
    }

    /// Push the text `write` writes, a value (never null).
    #[cfg(feature = "parquet")]
    fn push_with(&mut self, write: impl FnOnce(&mut String)) {
        write(&mut self.text);
        self.ends.push(self.text.len() as u64);
    }

    /// Cell `r`. A column holds numbers kept as numbers or text, never
    /// both.
    fn cell(&self, r: usize) -> Cell<'_> {
        match cell_at(&self.text, &self.ends, r) {
            None => Cell::Null,
            Some(_) if r < self.ints.len() => Cell::Int(self.ints[r]),
            Some(_) if r < self.floats.len() => Cell::Float(self.floats[r]),
            Some(text) => Cell::Text(text),
        }
    }

    /// The text of cell `r` (None: null), a number's written into
    /// `scratch`.
    #[cfg(test)]
    fn get<'a>(&'a self, r: usize, scratch: &'a mut String) -> Option<&'a str> {
        self.cell(r).text(scratch)
    }
}

impl<'a> Cell<'a> {
    /// Its text (None: null), a number's written into `scratch` as a
    /// data snapshot writes it.
    fn text(self, scratch: &'a mut String) -> Option<&'a str> {
        match self {
            Cell::Null => None,
            Cell::Text(t) => Some(t),
            Cell::Int(i) => {
                scratch.clear();
                scratch.push_str(itoa::Buffer::new().format(i));
                Some(scratch)
            }
            Cell::Float(f) => {
                scratch.clear();
                num::push_f64(scratch, f);
                Some(scratch)
            }
        }
    }
}

impl<'t> Row<'t> {
    /// The cell in column `c` (None: null).
    fn get(&self, c: usize) -> Option<&'t str> {
        let ends = self.ends;
        let end = ends[self.base + c];
        if end & NULL_IN_ROW != 0 {
            return None;
        }
        let start = if c == 0 {
            0
        } else {
            ends[self.base + c - 1] & !NULL_IN_ROW
        };
        // Offsets were taken from `text` itself, at char boundaries.
        Some(&self.text[self.start + start as usize..self.start + end as usize])
    }

    /// The row's text and cell ends (nulls marked): two rows equal in
    /// both hold the same cells.
    fn raw(&self) -> (&'t str, &'t [u32]) {
        let ends = &self.ends[self.base..self.base + self.width];
        let len = ends.last().map_or(0, |e| (e & !NULL_IN_ROW) as usize);
        (&self.text[self.start..self.start + len], ends)
    }

    /// The row's cells in column order.
    fn cells(self) -> impl Iterator<Item = Option<&'t str>> {
        (0..self.width).map(move |c| self.get(c))
    }
}

impl RowTable {
    /// The number of rows.
    fn len(&self) -> usize {
        self.order.len()
    }

    /// The row at position `r` (in the table's order).
    fn row(&self, r: usize) -> Row<'_> {
        self.stored(self.order[r])
    }

    /// The `i`th row stored.
    fn stored(&self, i: usize) -> Row<'_> {
        let width = self.columns.len();
        Row {
            text: &self.text,
            ends: &self.ends,
            width,
            base: i * width,
            start: self.starts[i] as usize,
        }
    }

    /// The rows in order.
    fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        (0..self.len()).map(|r| self.row(r))
    }
}

impl PartialEq for RowTable {
    fn eq(&self, other: &RowTable) -> bool {
        self.columns == other.columns
            && self.len() == other.len()
            && self
                .rows()
                .zip(other.rows())
                .all(|(a, b)| a.cells().eq(b.cells()))
    }
}

/// Collects a table's cells row by row into one buffer.
struct Builder {
    text: String,
    starts: Vec<u64>,
    ends: Vec<u32>,
    width: usize,
    /// Where the row being built starts in `text`.
    row_start: usize,
    /// Cells pushed to the row being built.
    filled: usize,
    /// Whether a row's text passed what [`RowTable`] holds (2 GiB).
    too_long: bool,
}

impl Builder {
    fn new(width: usize) -> Builder {
        Builder {
            text: String::new(),
            starts: Vec::new(),
            ends: Vec::new(),
            width,
            row_start: 0,
            filled: 0,
            too_long: false,
        }
    }

    /// The one row built since [`Builder::clear`].
    fn only_row(&self) -> Row<'_> {
        Row {
            text: &self.text,
            ends: &self.ends,
            width: self.width,
            base: 0,
            start: 0,
        }
    }

    /// Empty it, keeping its buffers.
    fn clear(&mut self) {
        self.text.clear();
        self.starts.clear();
        self.ends.clear();
        self.row_start = 0;
        self.filled = 0;
    }

    fn finish(self, columns: Vec<(String, ColType)>) -> Result<RowTable, DataError> {
        if self.too_long {
            return Err(DataError::RowTooLong);
        }
        Ok(RowTable {
            columns,
            text: self.text,
            order: (0..self.starts.len()).collect(),
            starts: self.starts,
            ends: self.ends,
            sorted_by: Vec::new(),
        })
    }
}

impl stream::Collect for Builder {
    /// Append `other`'s rows.
    fn merge(&mut self, other: Builder) {
        let base = self.text.len() as u64;
        self.text.push_str(&other.text);
        (self.starts).extend(other.starts.iter().map(|s| s + base));
        self.ends.extend(other.ends);
        self.row_start = self.text.len();
        self.too_long |= other.too_long;
    }

    /// Room for all of `others` taken once, then each appended.
    fn merge_all(&mut self, others: Vec<Builder>) {
        self.text.reserve(others.iter().map(|o| o.text.len()).sum());
        self.starts
            .reserve(others.iter().map(|o| o.starts.len()).sum());
        self.ends.reserve(others.iter().map(|o| o.ends.len()).sum());
        for other in others {
            stream::Collect::merge(self, other);
        }
    }
}

impl Sink for Builder {
    /// The next cell of the row being built; cells past the width are
    /// dropped (the readers refuse a row of another width first).
    fn cell(&mut self, value: Option<&str>) {
        if self.filled >= self.width {
            return;
        }
        self.filled += 1;
        if let Some(v) = value {
            self.text.push_str(v);
        }
        let end = self.text.len() - self.row_start;
        if end >= NULL_IN_ROW as usize {
            self.too_long = true;
        }
        let null = if value.is_none() { NULL_IN_ROW } else { 0 };
        self.ends.push(end as u32 & !NULL_IN_ROW | null);
    }

    /// End the row being built, null-filling the cells it lacks.
    fn end_row(&mut self) {
        while self.filled < self.width {
            self.cell(None);
        }
        self.filled = 0;
        self.starts.push(self.row_start as u64);
        self.row_start = self.text.len();
    }
}

/// The file at `path` as a canonical table (ignored columns out, types
/// inferred or, for Parquet, Delta and JSON, from the file, rows sorted,
/// the values of `mask`'s secrets masked, their names added to `found`),
/// with its sha256 (of a Delta table: of its live files, named). Read as
/// a stream ([`stream`]): a summary holds only its aggregates.
fn read_table(
    path: &Path,
    spec: &OutputSpec,
    mask: &mut Masking<'_>,
) -> Result<(Table, String), DataError> {
    if spec.mode == DataOutputMode::Summary {
        let read = stream::read(path, spec, mask, &|names, types| {
            summary::Summarizer::new(names.len(), types.map(<[ColType]>::to_vec))
        })?;
        return Ok((Table::from(read.sink.finish(read.names)), read.sha));
    }
    let read = stream::read(path, spec, mask, &|names, _| Builder::new(names.len()))?;
    let table = rows_table(read.names, read.types, read.sink, &spec.key)?;
    Ok((table, read.sha))
}

/// The rows `builder` holds as a canonical table: its columns named
/// `names`, of `types` (None: inferred from the values), sorted by `key`.
fn rows_table(
    names: Vec<String>,
    types: Option<Vec<ColType>>,
    builder: Builder,
    key: &[String],
) -> Result<Table, DataError> {
    let known = types.is_some();
    let columns = match types {
        Some(types) => names.into_iter().zip(types).collect(),
        None => names.into_iter().map(|n| (n, ColType::Null)).collect(),
    };
    let mut table = builder.finish(columns)?;
    if !known {
        infer_types(&mut table);
    }
    sort(&mut table, key);
    Ok(Table::from(table))
}

/// The table output `source` (a table or query of a database under
/// `working_dir`) as a canonical table, as [`read_table`] reads a file,
/// with the sha256 of its snapshot text: a database file holds more than
/// this output, so its own hash would say nothing of it.
fn read_db_table(
    source: &TableSource,
    working_dir: &Path,
    spec: &OutputSpec,
    mask: &mut Masking<'_>,
) -> Result<(Table, String), DataError> {
    let table = if spec.mode == DataOutputMode::Summary {
        match db::engine_summary(source, working_dir, &spec.ignore, mask)? {
            Some(summary) => Table::from(summary),
            None => {
                let read = db::rows(source, working_dir, &spec.ignore, mask, |names, types| {
                    summary::Summarizer::new(names.len(), types.map(<[ColType]>::to_vec))
                })?;
                Table::from(read.sink.finish(read.names))
            }
        }
    } else {
        let read = db::rows(source, working_dir, &spec.ignore, mask, |names, _| {
            Builder::new(names.len())
        })?;
        rows_table(read.names, read.types, read.sink, &spec.key)?
    };
    let sha = crate::hash::sha256_hex(render(&table, &spec.path).as_bytes());
    Ok((table, sha))
}

/// The secret values masked in the cells of a data output as it is read
/// (a masked cell is stored, shown and compared as its mask), and the
/// names of those found.
pub(crate) struct Masking<'r> {
    redactor: &'r crate::redact::Redactor,
    found: std::collections::BTreeSet<String>,
}

impl<'r> Masking<'r> {
    pub(crate) fn new(redactor: &'r crate::redact::Redactor) -> Masking<'r> {
        Masking {
            redactor,
            found: std::collections::BTreeSet::new(),
        }
    }

    /// The names of the secrets found so far.
    pub(crate) fn take_found(&mut self) -> Vec<String> {
        std::mem::take(&mut self.found).into_iter().collect()
    }

    /// `v` masked (borrowed when it holds no secret).
    fn mask<'v>(&mut self, v: &'v str) -> std::borrow::Cow<'v, str> {
        if self.redactor.is_empty() {
            return std::borrow::Cow::Borrowed(v);
        }
        let (masked, n) = self.redactor.mask_str(v);
        if n > 0 {
            (self.found).extend(
                self.redactor
                    .names_in(v.as_bytes())
                    .into_iter()
                    .map(String::from),
            );
        }
        masked
    }

    /// Mask each column name of `names`.
    fn names(&mut self, names: &mut [String]) {
        for n in names {
            if let std::borrow::Cow::Owned(m) = self.mask(n) {
                *n = m;
            }
        }
    }
}

/// A sink that masks each cell before `inner` takes it.
struct Masked<'m, 'r, S> {
    inner: S,
    mask: &'m mut Masking<'r>,
}

impl<S: Sink> Sink for Masked<'_, '_, S> {
    fn cell(&mut self, value: Option<&str>) {
        match value {
            Some(v) => {
                let masked = self.mask.mask(v);
                self.inner.cell(Some(&masked));
            }
            None => self.inner.cell(None),
        }
    }

    fn end_row(&mut self) {
        self.inner.end_row();
    }

    fn batch(&mut self, batch: &Batch<'_>) {
        // Nothing to mask: the inner sink may take the batch whole.
        if self.mask.redactor.is_empty() {
            self.inner.batch(batch);
        } else {
            batch.each_row(self);
        }
    }
}

/// The most of one Delta log or checkpoint file read whole (outputs and
/// live files are read as streams).
const DATA_FILE_LIMIT: u64 = 4 << 30;

/// The bytes of a data file a case wrote, through the guarded reader: a
/// FIFO or a device (`/dev/zero`) in its place is refused, never read.
fn read_data_file(path: &Path) -> std::io::Result<Vec<u8>> {
    crate::untrusted::read_limited(path, DATA_FILE_LIMIT)
}

/// A table read a column at a time, whole: how the tests read a file
/// the way it was read before outputs were read as streams.
#[cfg(test)]
#[derive(Debug, Default)]
struct Typed {
    pub(crate) names: Vec<String>,
    pub(crate) types: Option<Vec<ColType>>,
    pub(crate) columns: Vec<Cells>,
    pub(crate) rows: usize,
}

/// The columns not in `ignore` of the CSV file `input`, in file order,
/// their cells pushed row by row into the sink `make` gives for their
/// names.
fn parse_csv<S: Sink>(
    input: impl std::io::Read,
    ignore: &[String],
    make: impl FnOnce(&[String]) -> S,
) -> Result<(Vec<String>, S), DataError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .buffer_capacity(1 << 16)
        .from_reader(input);
    let names: Vec<String> = reader
        .headers()
        .map_err(DataError::NotCsv)?
        .iter()
        .map(str::to_string)
        .collect();
    let keep: Vec<bool> = names.iter().map(|n| !ignore.contains(n)).collect();
    let kept = (names.iter().enumerate()).filter(|&(i, _)| keep[i]);
    unique_names(kept.map(|(i, n)| (i, n.as_str())))?;
    let names: Vec<String> = names
        .into_iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(n, _)| n)
        .collect();
    let width = keep.len();
    let mut sink = make(&names);
    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .map_err(DataError::NotCsv)?
    {
        let line = record.position().map_or(0, csv::Position::line);
        // A row of another width than the header is a change, never
        // trimmed or padded (pandas refuses such a file too).
        if record.len() != width {
            return Err(DataError::CsvWidth {
                line,
                fields: record.len(),
                width,
            });
        }
        for (field, _) in record.iter().zip(&keep).filter(|(_, k)| **k) {
            let text = std::str::from_utf8(field).map_err(|_| DataError::CsvNotUtf8 { line })?;
            // CSV cannot tell an empty string from a missing value: an
            // empty field is null, as pandas reads it.
            sink.cell((!text.is_empty()).then_some(text));
        }
        sink.end_row();
    }
    Ok((names, sink))
}

/// Refuse columns that share a name: cells are compared by their
/// column's name, so a name two columns answer to compares one column's
/// cells with the other's. `columns` are the columns compared (ignored
/// ones left out), each with its place in the file (from 0).
fn unique_names<'n>(columns: impl Iterator<Item = (usize, &'n str)>) -> Result<(), DataError> {
    match shared_names(columns) {
        None => Ok(()),
        Some(shared) => Err(DataError::SharedNames { shared }),
    }
}

/// The names of `columns` (each with its place, from 0) that more than
/// one of them has, and the places (from 1) of those; None when there
/// are none.
fn shared_names<'n>(columns: impl Iterator<Item = (usize, &'n str)>) -> Option<String> {
    let mut places: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, name) in columns {
        match seen.get(name) {
            Some(&k) => places[k].1.push(i + 1),
            None => {
                seen.insert(name, places.len());
                places.push((name, vec![i + 1]));
            }
        }
    }
    let twice: Vec<String> = (places.iter())
        .filter(|(_, at)| at.len() > 1)
        .map(|(name, at)| {
            let (last, rest) = at.split_last().unwrap_or((&0, &[]));
            let rest: Vec<String> = rest.iter().map(usize::to_string).collect();
            format!(
                "the column name `{name}` is used by columns {} and {last}",
                rest.join(", ")
            )
        })
        .collect();
    (!twice.is_empty()).then(|| twice.join("; "))
}

/// Infer each column's type from its values, in one pass over the rows.
fn infer_types(table: &mut RowTable) {
    let width = table.columns.len();
    let mut types = vec![ColType::Null; width];
    // Columns not yet text: once a column is text, nothing changes it.
    let mut open: Vec<usize> = (0..width).collect();
    for row in table.rows() {
        if open.is_empty() {
            break;
        }
        open.retain(|&c| {
            if let Some(v) = row.get(c) {
                types[c] = widen(types[c], value_of(v));
            }
            types[c] != ColType::String
        });
    }
    for ((_, ty), t) in table.columns.iter_mut().zip(types) {
        *ty = t;
    }
}

/// Sort rows by the key columns (each by its type's rule), then whole.
fn sort(table: &mut RowTable, key: &[String]) {
    let key: Vec<usize> = key
        .iter()
        .filter_map(|k| table.columns.iter().position(|(n, _)| n == k))
        .collect();
    let rules: Vec<Rule> = (table.columns.iter())
        .map(|(_, t)| Rule::of_column(*t))
        .collect();
    let width = table.columns.len();
    let cmp_rows = |a: Row<'_>, b: Row<'_>| {
        key.iter()
            .copied()
            .chain(0..width)
            .map(|c| rules[c].cmp(a.get(c), b.get(c)))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    };
    // Pipelines mostly write their rows in key order already: one pass
    // says so, where a sort compares (and parses) n log n times.
    let sorted =
        (1..table.len()).all(|r| cmp_rows(table.row(r - 1), table.row(r)) != Ordering::Greater);
    if !sorted {
        let mut order = std::mem::take(&mut table.order);
        order.sort_by(|&a, &b| cmp_rows(table.stored(a), table.stored(b)));
        table.order = order;
    }
    table.sorted_by = key;
}

/// The first line of a data snapshot (since this version of cargo-golden),
/// before the output it was taken of (relative to the case's working
/// dir): what tells which outputs a glob matched when it was blessed.
const OUTPUT_PREFIX: &str = "# output: ";

/// The snapshot text of `table`, the data output `rel`.
pub(crate) fn render(table: &Table, rel: &str) -> String {
    let body = match &table.0 {
        Held::Rows(rows) => text::render_rows(rows),
        Held::Summary(s) => summary::render(s),
    };
    format!("{OUTPUT_PREFIX}{}\n{body}", rel.replace(['\n', '\r'], " "))
}

/// The output a snapshot's text says it was taken of (None for one
/// blessed before snapshots said so), and the rest of the text.
fn output_line(text: &str) -> (Option<&str>, &str) {
    match text.strip_prefix(OUTPUT_PREFIX) {
        Some(rest) => {
            let (line, body) = rest.split_once('\n').unwrap_or((rest, ""));
            (Some(line.trim_end_matches('\r')), body)
        }
        None => (None, text),
    }
}

/// The output the data snapshot at `path` says it was taken of, read from
/// its first line alone.
pub(crate) fn snapshot_output(path: &Path) -> Option<String> {
    let head = crate::untrusted::read_head(path, 64 * 1024).ok()?;
    let text = String::from_utf8_lossy(&head);
    // Only a whole first line names the output.
    let (line, _) = text.strip_prefix(OUTPUT_PREFIX)?.split_once('\n')?;
    Some(line.trim_end_matches('\r').to_string())
}

/// The differences from the data snapshot `text` to `actual`, one a
/// line, all of them; Err when the snapshot cannot be read. A rows
/// snapshot in key order is walked as it is read, never held whole.
pub(crate) fn compare(
    text: &str,
    actual: &Table,
    spec: &OutputSpec,
) -> Result<DataDiff, DataError> {
    if let Held::Rows(now) = &actual.0 {
        let (_, body) = output_line(text);
        if !body.starts_with(summary::PREFIX)
            && let Some(lines) = walked_differences(body, now, spec)
        {
            return lines;
        }
    }
    Ok(differences(&parse_snapshot(text)?, actual, spec))
}

/// A snapshot file's text as a table.
pub(crate) fn parse_snapshot(text: &str) -> Result<Table, DataError> {
    let (_, text) = output_line(text);
    if text.starts_with(summary::PREFIX) {
        return summary::parse(text).map(Table::from);
    }
    text::parse_rows(text).map(Table::from)
}

/// The differences from `expected` (the snapshot) to `actual`, one a
/// line, all of them.
pub(crate) fn differences(expected: &Table, actual: &Table, spec: &OutputSpec) -> DataDiff {
    let lines = match (&expected.0, &actual.0) {
        (Held::Rows(was), Held::Rows(now)) => return row_differences(was, now, spec),
        (Held::Summary(was), Held::Summary(now)) => summary::differences(was, now, spec),
        (Held::Rows(_), Held::Summary(_)) => {
            vec![
                "the snapshot holds rows and `mode = \"summary\"` wants a summary: bless it again"
                    .into(),
            ]
        }
        (Held::Summary(_), Held::Rows(_)) => {
            vec!["the snapshot holds a summary and the output wants rows: bless it again".into()]
        }
    };
    // A summary holds no rows to count.
    DataDiff {
        lines,
        counts: Vec::new(),
    }
}

/// Column changes from `exp` (the snapshot's columns) to `act`, pushed
/// to `out`: renamed, removed, added, retyped. Returns the columns both
/// have, as (name in the snapshot, index there, index now).
fn column_changes<'a>(
    exp: &'a [(String, ColType)],
    act: &'a [(String, ColType)],
    out: &mut Vec<String>,
) -> Vec<(&'a str, usize, usize)> {
    let types = (exp, act);
    let exp: Vec<&str> = exp.iter().map(|(n, _)| n.as_str()).collect();
    let act: Vec<&str> = act.iter().map(|(n, _)| n.as_str()).collect();
    // (name in the snapshot, index there, index now)
    let mut common: Vec<(&str, usize, usize)> = Vec::new();
    let mut renamed: Vec<usize> = Vec::new();
    for (i, name) in exp.iter().enumerate() {
        if let Some(j) = act.iter().position(|a| a == name) {
            common.push((name, i, j));
        } else if let Some(new) = act.get(i).filter(|a| !exp.contains(a)) {
            // The column in its place is new: the same column, renamed.
            out.push(format!("column renamed: {name} -> {new}"));
            common.push((name, i, i));
            renamed.push(i);
        } else {
            out.push(format!("column removed: {name}"));
        }
    }
    for (j, name) in act.iter().enumerate() {
        if !exp.contains(name) && !renamed.contains(&j) {
            out.push(format!("column added: {name}"));
        }
    }
    for &(name, i, j) in &common {
        let (was, now) = (types.0[i].1, types.1[j].1);
        if !was.compatible(now) {
            out.push(format!(
                "column retyped: {name} {} -> {}",
                was.as_str(),
                now.as_str()
            ));
        }
    }
    common
}

/// [`differences`] of two row tables.
fn row_differences(expected: &RowTable, actual: &RowTable, spec: &OutputSpec) -> DataDiff {
    let mut lines = Vec::new();
    let common = column_changes(&expected.columns, &actual.columns, &mut lines);
    if expected.len() != actual.len() {
        lines.push(format!("row count: {} -> {}", expected.len(), actual.len()));
    }
    let mut out = Found::new(lines, common.len());
    match key_columns(&common, spec) {
        Some(key) => {
            let by = ByKey::new(&expected.columns, &actual.columns, &key, &common, spec);
            keyed(expected, actual, &by, &mut out);
        }
        None => {
            for k in &spec.key {
                if !common.iter().any(|(n, _, _)| n == k) {
                    out.lines
                        .push(format!("key column missing: {k} (rows matched whole)"));
                }
            }
            whole(expected, actual, &common, &mut out);
        }
    }
    out.into_diff(common.iter().map(|c| c.0), expected.len(), actual.len())
}

type Cols<'a> = [(&'a str, usize, usize)];

/// Column `i` of a snapshot row or `j` of an actual one.
fn side((_, i, j): (&str, usize, usize), now: bool) -> usize {
    if now { j } else { i }
}

/// A cell as a diff shows it: `null`, `""` for an empty string.
fn show(c: Option<&str>) -> &str {
    match c {
        None => "null",
        Some("") => "\"\"",
        Some(s) => s,
    }
}

/// How rows are compared by their key: the key columns and the rules
/// they sort by (the same on both sides), every common column's rule and
/// the tolerance.
struct ByKey<'c> {
    key: &'c Cols<'c>,
    common: &'c Cols<'c>,
    key_rules: Option<Vec<Rule>>,
    rules: Vec<Rule>,
    tolerance: (f64, f64),
    /// Whether both sides hold the common columns alone, in one order:
    /// then rows of equal text are equal, whatever the rules.
    same_shape: bool,
}

impl<'c> ByKey<'c> {
    fn new(
        was: &[(String, ColType)],
        now: &[(String, ColType)],
        key: &'c Cols<'c>,
        common: &'c Cols<'c>,
        spec: &OutputSpec,
    ) -> ByKey<'c> {
        // Each column's cells by the rule of its types on both sides; the
        // tolerance is for floats alone.
        let rules = (common.iter())
            .map(|&(_, i, j)| Rule::of(was[i].1, now[j].1))
            .collect();
        let key_rules = key
            .iter()
            .map(|&(_, i, j)| {
                let (a, b) = (Rule::of_column(was[i].1), Rule::of_column(now[j].1));
                (a == b).then_some(a)
            })
            .collect();
        let same_shape = was.len() == common.len()
            && now.len() == common.len()
            && common
                .iter()
                .enumerate()
                .all(|(k, &(_, i, j))| i == k && j == k);
        ByKey {
            key,
            common,
            key_rules,
            rules,
            tolerance: (spec.abs, spec.rel),
            same_shape,
        }
    }

    /// How two rows order by their keys (each of the snapshot, or now);
    /// None when the key columns sort by other rules on the two sides.
    fn cmp(&self, a: Row<'_>, a_now: bool, b: Row<'_>, b_now: bool) -> Option<Ordering> {
        let rules = self.key_rules.as_ref()?;
        Some(
            (self.key.iter().zip(rules))
                .map(|(&c, r)| r.cmp(a.get(side(c, a_now)), b.get(side(c, b_now))))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal),
        )
    }

    /// Whether `t`'s rows are in key order.
    fn sorted(&self, t: &RowTable, now: bool) -> bool {
        let key: Vec<usize> = self.key.iter().map(|&c| side(c, now)).collect();
        // Sorted by these columns by their own rules, which are the
        // key's (or there would be no key rules).
        if self.key_rules.is_some() && !key.is_empty() && t.sorted_by == key {
            return true;
        }
        (1..t.len()).all(|r| self.cmp(t.row(r - 1), now, t.row(r), now) != Some(Ordering::Greater))
    }

    fn label(&self, row: Row<'_>, now: bool) -> String {
        (self.key.iter())
            .map(|&c| format!("{}={}", c.0, show(row.get(side(c, now)))))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The lines for a snapshot row and the row now with its key (None:
    /// it was removed).
    fn pair(&self, row: Row<'_>, other: Option<Row<'_>>, out: &mut Found) {
        let Some(other) = other else {
            out.row_removed(self.label(row, false));
            return;
        };
        out.compared += 1;
        // Equal text is the same value under every rule: most rows are
        // passed in one comparison.
        if self.same_shape && row.raw() == other.raw() {
            return;
        }
        let columns = self.common.iter().zip(&self.rules).zip(&mut out.changed);
        for ((&(name, i, j), rule), changed) in columns {
            if !rule.same(row.get(i), other.get(j), self.tolerance) {
                *changed += 1;
                out.lines.push(format!(
                    "changed: {} {name} {} -> {}",
                    self.label(row, false),
                    show(row.get(i)),
                    show(other.get(j))
                ));
            }
        }
    }

    /// The lines for the rows now that no snapshot row took.
    fn added(&self, actual: &RowTable, matched: &[bool], out: &mut Found) {
        for (r, row) in actual.rows().enumerate() {
            if !matched[r] {
                out.row_added(self.label(row, true));
            }
        }
    }
}

fn keyed(expected: &RowTable, actual: &RowTable, by: &ByKey<'_>, out: &mut Found) {
    let pairs =
        merge_join(expected, actual, by).unwrap_or_else(|| hash_join(expected, actual, by.key));
    let mut matched = vec![false; actual.len()];
    for (row, pair) in expected.rows().zip(pairs) {
        if let Some(r) = pair {
            matched[r] = true;
        }
        by.pair(row, pair.map(|r| actual.row(r)), out);
    }
    by.added(actual, &matched, out);
}

/// For each row of `expected`, the row of `actual` with the same key (the
/// first one not taken yet), found by walking both in key order: both are
/// sorted by their key with the same comparison when the key columns are
/// of one kind on both sides and neither table was reordered by hand. None
/// when they are not so sorted.
fn merge_join(
    expected: &RowTable,
    actual: &RowTable,
    by: &ByKey<'_>,
) -> Option<Vec<Option<usize>>> {
    if by.key_rules.is_none() || !by.sorted(expected, false) || !by.sorted(actual, true) {
        return None;
    }
    let mut pairs = Vec::with_capacity(expected.len());
    let mut walk = Walk::default();
    for row in expected.rows() {
        pairs.push(walk.next(actual, row, by));
    }
    Some(pairs)
}

/// Where a merge join stands in the rows now.
#[derive(Default)]
struct Walk {
    r: usize,
}

impl Walk {
    /// The row now (its position) with the key of the snapshot row `row`,
    /// the snapshot's rows coming in key order.
    fn next(&mut self, actual: &RowTable, row: Row<'_>, by: &ByKey<'_>) -> Option<usize> {
        let order = |r: usize| by.cmp(actual.row(r), true, row, false);
        while self.r < actual.len() && order(self.r) == Some(Ordering::Less) {
            self.r += 1;
        }
        if self.r < actual.len() && order(self.r) == Some(Ordering::Equal) {
            self.r += 1;
            Some(self.r - 1)
        } else {
            None
        }
    }
}

/// The differences from a rows snapshot's `text` to `actual`, found as
/// the snapshot's rows are read, one at a time, against the rows now in
/// key order: what [`row_differences`] finds, without the snapshot's
/// table in memory. None where that walk does not apply (no key, key
/// columns of other kinds on the two sides, rows out of key order): the
/// snapshot is read whole then.
fn walked_differences(
    text: &str,
    actual: &RowTable,
    spec: &OutputSpec,
) -> Option<Result<DataDiff, DataError>> {
    let (columns, rows) = match text::read_schema(text) {
        Ok(read) => read,
        Err(e) => return Some(Err(e)),
    };
    let mut lines = Vec::new();
    let common = column_changes(&columns, &actual.columns, &mut lines);
    let key = key_columns(&common, spec)?;
    let by = ByKey::new(&columns, &actual.columns, &key, &common, spec);
    if by.key_rules.is_none() || !by.sorted(actual, true) {
        return None;
    }
    let halves = split_rows(rows, actual, &by);
    // Each part of the snapshot walked on a core of its own.
    let by_ref = &by;
    let walked: Vec<_> = std::thread::scope(|s| {
        let walks: Vec<_> = (halves.into_iter())
            .map(|(rows, from)| s.spawn(move || walk(rows, from, actual, by_ref)))
            .collect();
        walks.into_iter().map(|w| w.join().ok().flatten()).collect()
    });
    let head = lines.len();
    let mut out = Found::new(lines, common.len());
    let mut matched = vec![false; actual.len()];
    let mut count = 0;
    // A part out of key order sends the whole snapshot to be read whole;
    // else the first part's error is the one said.
    let walked: Vec<Result<Walked, DataError>> = walked.into_iter().collect::<Option<_>>()?;
    for part in walked {
        let (found, taken, n) = match part {
            Ok(part) => part,
            Err(e) => return Some(Err(e)),
        };
        out.absorb(found);
        taken.into_iter().for_each(|r| matched[r] = true);
        count += n;
    }
    if count != actual.len() {
        out.lines
            .insert(head, format!("row count: {count} -> {}", actual.len()));
    }
    by.added(actual, &matched, &mut out);
    let names = common.iter().map(|c| c.0);
    Some(Ok(out.into_diff(names, count, actual.len())))
}

/// Snapshot text under this is walked on one core.
const SPLIT_WALK_AT: usize = 1 << 20;

/// The rows of a snapshot in two parts to walk apart, each with the row
/// now its walk starts at: split near the middle where the key changes,
/// so that no key's rows are in both. The rows whole when they are small
/// or no such place is found (or the rows there are out of key order).
fn split_rows<'s>(
    rows: text::Rows<'s>,
    actual: &RowTable,
    by: &ByKey<'_>,
) -> Vec<(text::Rows<'s>, usize)> {
    if rows.left() < SPLIT_WALK_AT {
        return vec![(rows, 0)];
    }
    let Some(middle) = rows.row_start_after(rows.left() / 2) else {
        return vec![(rows, 0)];
    };
    let (_, mut tail) = rows.split(middle);
    let (mut first, mut next) = (Builder::new(rows.width()), Builder::new(rows.width()));
    // A row too long to hold is not compared, nor split at: the walk says so.
    if !matches!(tail.next_row(&mut first), Ok(true)) || first.too_long {
        return vec![(rows, 0)];
    }
    // The first row past the middle whose key is not the first's.
    let split = loop {
        let start = rows.left() - tail.left();
        next.clear();
        if !matches!(tail.next_row(&mut next), Ok(true)) || next.too_long {
            break None;
        }
        match by.cmp(first.only_row(), false, next.only_row(), false) {
            Some(Ordering::Equal) => {}
            Some(Ordering::Less) => break Some(start),
            _ => break None,
        }
    };
    let Some(split) = split else {
        return vec![(rows, 0)];
    };
    // The second part's walk starts at the first row now not below its
    // first key: where the first part's walk leaves off.
    let from = actual.order.partition_point(|&i| {
        by.cmp(actual.stored(i), true, next.only_row(), false) == Some(Ordering::Less)
    });
    let (before, after) = rows.split(split);
    vec![(before, 0), (after, from)]
}

/// What walking part of a snapshot found, the rows now it took, and its
/// row count.
type Walked = (Found, Vec<usize>, usize);

/// Walk the snapshot rows `rows` against the rows now from position
/// `from` on; None when they are out of key order.
fn walk(
    mut rows: text::Rows<'_>,
    from: usize,
    actual: &RowTable,
    by: &ByKey<'_>,
) -> Option<Result<Walked, DataError>> {
    let mut out = Found::new(Vec::new(), by.common.len());
    let mut taken = Vec::new();
    let mut walk = Walk { r: from };
    let (mut row, mut before) = (Builder::new(rows.width()), Builder::new(rows.width()));
    let mut count = 0;
    loop {
        row.clear();
        match rows.next_row(&mut row) {
            // Its cell ends no longer say where its cells are.
            Ok(true) if row.too_long => {
                return Some(Err(DataError::SnapshotRowTooLong));
            }
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Some(Err(e)),
        }
        let now = row.only_row();
        if count > 0 && by.cmp(before.only_row(), false, now, false) == Some(Ordering::Greater) {
            return None;
        }
        let pair = walk.next(actual, now, by);
        taken.extend(pair);
        by.pair(now, pair.map(|r| actual.row(r)), &mut out);
        count += 1;
        std::mem::swap(&mut row, &mut before);
    }
    Some(Ok((out, taken, count)))
}

/// The key columns among `common`, when the key names any and all are
/// there.
fn key_columns<'a>(common: &Cols<'a>, spec: &OutputSpec) -> Option<Vec<(&'a str, usize, usize)>> {
    (!spec.key.is_empty())
        .then(|| {
            (spec.key.iter())
                .map(|k| common.iter().find(|(n, _, _)| n == k).copied())
                .collect()
        })
        .flatten()
}

/// [`merge_join`]'s pairs by a hash of the key, for tables not in key
/// order.
fn hash_join(expected: &RowTable, actual: &RowTable, key: &Cols<'_>) -> Vec<Option<usize>> {
    fn id<'t>(row: Row<'t>, key: &Cols<'_>, now: bool) -> Vec<Option<&'t str>> {
        key.iter().map(|&c| row.get(side(c, now))).collect()
    }
    let mut now: HashMap<Vec<Option<&str>>, VecDeque<usize>> = HashMap::new();
    for (r, row) in actual.rows().enumerate() {
        now.entry(id(row, key, true)).or_default().push_back(r);
    }
    expected
        .rows()
        .map(|row| {
            now.get_mut(&id(row, key, false))
                .and_then(VecDeque::pop_front)
        })
        .collect()
}

fn whole(expected: &RowTable, actual: &RowTable, common: &Cols<'_>, out: &mut Found) {
    // As the snapshot writes it: a null and an empty string stay apart.
    let text = |row: Row<'_>, now: bool| {
        let mut line = String::new();
        for (k, &c) in common.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            text::write_field(&mut line, row.get(side(c, now)));
        }
        line
    };
    let was: Vec<String> = expected.rows().map(|r| text(r, false)).collect();
    let now: Vec<String> = actual.rows().map(|r| text(r, true)).collect();
    for t in unmatched(&was, &now) {
        out.row_removed(t);
    }
    for t in unmatched(&now, &was) {
        out.row_added(t);
    }
}

/// The rows of `rows` that `other` has no (further) copy of, in order.
fn unmatched<'r>(rows: &'r [String], other: &[String]) -> Vec<&'r str> {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for t in other {
        *left.entry(t).or_default() += 1;
    }
    rows.iter()
        .filter(|t| match left.get_mut(t.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .map(String::as_str)
        .collect()
}

/// The snapshot file of output `rel` of the case whose stem is `stem`:
/// the path's separators become dots, so outputs of one case that share a
/// file name in different directories keep apart.
pub(crate) fn snapshot_file(stem: &str, rel: &str) -> String {
    let flat = crate::layout::snapshot_stem(&rel.replace(['/', '\\'], "."));
    format!("{}/{stem}.{flat}.data", crate::layout::SNAPSHOT_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DataFormat;

    fn spec(key: &[&str]) -> OutputSpec {
        OutputSpec {
            path: "x.csv".into(),
            table: None,
            model: None,
            key: key.iter().map(|s| s.to_string()).collect(),
            ignore: vec!["at".into()],
            abs: 0.01,
            rel: 0.0,
            format: DataFormat::Csv,
            mode: DataOutputMode::Rows,
        }
    }

    fn table(csv: &str, spec: &OutputSpec) -> RowTable {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        std::fs::write(&path, csv).unwrap();
        let none = crate::redact::Redactor::none();
        match read_table(&path, spec, &mut Masking::new(&none))
            .unwrap()
            .0
            .0
        {
            Held::Rows(t) => t,
            Held::Summary(_) => panic!("a summary"),
        }
    }

    #[test]
    fn a_snapshot_reads_back_as_the_table_it_renders() {
        let s = spec(&["region"]);
        let t = table(
            "region,total,at,n,ok\nWest,1.5,x,2,true\n\"A, B\",,y,3,false\n",
            &s,
        );
        let text = text::render_rows(&t);
        assert!(
            text.starts_with("# columns: region:string, total:float, n:integer, ok:bool\n"),
            "{text}"
        );
        assert!(text.contains("\"A, B\",,3,false\n"), "{text}");
        assert_eq!(text::parse_rows(&text).unwrap(), t);
    }

    #[test]
    fn differences_name_rows_columns_and_values() {
        let s = spec(&["region"]);
        let was = table("region,total\nEast,1\nWest,2.5\nSilver,84.97\n", &s);
        let now = table("region,total_usd\nEast,1.001\nSilver,90.12\nNorth,3\n", &s);
        let d = row_differences(&was, &now, &s);
        assert_eq!(
            d.lines,
            [
                "column renamed: total -> total_usd",
                "changed: region=Silver total 84.97 -> 90.12",
                "row removed: region=West",
                "row added: region=North",
            ]
        );
        // East and Silver compared by key, East's total within the
        // tolerance.
        assert_eq!(
            d.counts,
            [
                "total: 1 of 2 rows differ",
                "rows removed: 1 of 3",
                "rows added: 1 of 3"
            ]
        );
        assert_eq!(row_differences(&was, &was, &s), DataDiff::default());
    }

    /// The counts say how much of each column changed, apart from how
    /// many rows were removed or added, before the first differences.
    #[test]
    fn a_diff_counts_the_rows_each_column_differs_in() {
        let s = spec(&["id"]);
        let mut was = String::from("id,total,region,note\n");
        let mut now = String::from("id,total,region,note\n");
        for id in 0..1500 {
            was.push_str(&format!("{id},{id},West,n\n"));
            // Every total drifted, three regions changed, one row removed
            // and two added.
            if id != 7 {
                let region = if id % 500 == 1 { "East" } else { "West" };
                now.push_str(&format!("{id},{},{region},n\n", id + 1));
            }
        }
        now.push_str("2000,1,West,n\n2001,1,West,n\n");
        let d = row_differences(&table(&was, &s), &table(&now, &s), &s);
        assert_eq!(
            d.counts,
            [
                "total: 1,499 of 1,499 rows differ",
                "region: 3 of 1,499 rows differ",
                "rows removed: 1 of 1,500",
                "rows added: 2 of 1,501",
            ]
        );
        assert_eq!(
            d.lines.len(),
            1499 + 3 + 1 + 1 + 2,
            "row count, then each change"
        );
        let text = diff_text(&d);
        let shown: Vec<&str> = text.lines().collect();
        assert_eq!(shown[..4], d.counts[..]);
        assert_eq!(shown[4], "row count: 1500 -> 1501");
        assert_eq!(shown[5], "changed: id=0 total 0 -> 1");
        assert_eq!(shown.len(), 4 + diff::MAX_DIFF_ITEMS + 1);
        assert_eq!(shown[24], "… and 1486 more difference(s)");
        for line in &d.counts {
            assert!(crate::model::is_data_count(line), "{line}");
        }
        for line in &d.lines {
            assert!(!crate::model::is_data_count(line), "{line}");
        }
        // Rows matched whole are counted as removed and added alone.
        let s = spec(&[]);
        let d = row_differences(&table("a\n1\n2\n", &s), &table("a\n2\n3\n4\n", &s), &s);
        assert_eq!(d.counts, ["rows removed: 1 of 2", "rows added: 2 of 3"]);
    }

    /// Walking both tables in key order pairs the rows a hash of the key
    /// pairs, duplicate, missing and added keys included; a snapshot put
    /// out of key order by hand falls back to the hash.
    #[test]
    fn the_key_order_walk_pairs_rows_as_the_hash_does() {
        let s = spec(&["k"]);
        let was = table("k,v\n1,a\n2,b\n2,c\n5,d\n10,e\n10,f\n", &s);
        let now = table("k,v\n0,z\n2,b\n2,x\n2,y\n10,e\n11,g\n", &s);
        let key = [("k", 0, 0)];
        let common = [("k", 0, 0), ("v", 1, 1)];
        let by = ByKey::new(&was.columns, &now.columns, &key, &common, &s);
        let walked = merge_join(&was, &now, &by).expect("both in key order");
        assert_eq!(walked, hash_join(&was, &now, &key));
        assert_eq!(walked, [None, Some(1), Some(2), None, Some(4), None]);
        let mut by_hand = was.clone();
        by_hand.order.swap(0, 3);
        by_hand.sorted_by.clear();
        assert_eq!(merge_join(&by_hand, &now, &by), None);
        let sorted = |mut d: DataDiff| {
            d.lines.sort();
            d
        };
        assert_eq!(
            sorted(row_differences(&by_hand, &now, &s)),
            sorted(row_differences(&was, &now, &s))
        );
    }

    /// A snapshot compared as its rows are read says what comparing it
    /// read whole says, line for line; one out of key order (edited by
    /// hand) is read whole.
    #[test]
    fn a_snapshot_walked_as_it_is_read_differs_as_one_read_whole() {
        let s = spec(&["k"]);
        let cases = [
            (
                "k,v\n1,a\n2,b\n2,c\n5,d\n10,e\n10,f\n",
                "k,v\n0,z\n2,b\n2,x\n2,y\n10,e\n11,g\n",
            ),
            (
                "k,v,w\n1,a,\n2,\"b, c\",x\n",
                "k,v,u\n1,a,\n2,\"b, c\",y\n3,,\n",
            ),
            ("k,v\n1,1.5\n2,2\n", "k,total\n1,1.505\n2,2.5\n"),
            ("k,v\n1,a\n", "k,v\n1,a\n"),
            ("v,k\nx,1\n", "k\n1\n2\n"),
        ];
        for (was, now) in cases {
            let (was, now) = (table(was, &s), table(now, &s));
            let text = render(&Table::from(was.clone()), "x.csv");
            let now = Table::from(now);
            let whole = differences(&parse_snapshot(&text).unwrap(), &now, &s);
            let Held::Rows(actual) = &now.0 else {
                unreachable!()
            };
            let (_, body) = output_line(&text);
            let walked = walked_differences(body, actual, &s)
                .expect("walked")
                .unwrap();
            assert_eq!(walked, whole, "{text}");
            assert_eq!(compare(&text, &now, &s).unwrap(), whole);
        }
        // Large enough to be walked in two parts: the same lines, in order.
        let mut was = String::from("k,v,note\n");
        let mut now = String::from("k,v,note\n");
        for k in 0..40_000 {
            for copy in 0..3 {
                let note = "padding padding padding padding";
                was.push_str(&format!("{k},{copy},{note}\n"));
                match (k % 997, copy) {
                    (5, 1) => {}
                    (7, _) => now.push_str(&format!("{k},{},\"{note}, more\"\n", copy + 1)),
                    _ => now.push_str(&format!("{k},{copy},{note}\n")),
                }
            }
            if k % 1999 == 3 {
                now.push_str(&format!("{k},9,added\n"));
            }
        }
        let (was, now) = (table(&was, &s), Table::from(table(&now, &s)));
        let text = render(&Table::from(was), "x.csv");
        assert!(text.len() > 2 * SPLIT_WALK_AT);
        let whole = differences(&parse_snapshot(&text).unwrap(), &now, &s);
        assert!(whole.lines.len() > 100, "{}", whole.lines.len());
        assert_eq!(whole.counts.len(), 4, "{:?}", whole.counts);
        assert_eq!(compare(&text, &now, &s).unwrap(), whole);
        let Held::Rows(actual) = &now.0 else {
            unreachable!()
        };
        let (columns, rows) = text::read_schema(output_line(&text).1).unwrap();
        let mut lines = Vec::new();
        let common = column_changes(&columns, &actual.columns, &mut lines);
        let key = key_columns(&common, &s).unwrap();
        let by = ByKey::new(&columns, &actual.columns, &key, &common, &s);
        let parts = split_rows(rows, actual, &by);
        assert_eq!(parts.len(), 2, "walked in two parts");
        assert!(parts[1].1 > actual.len() / 3, "{}", parts[1].1);
        // Rows out of key order: the walk gives way to the whole read.
        let now = table("k,v\n1,a\n2,b\n", &s);
        let text = "# columns: k:integer, v:string\n2,b\n1,c\n";
        assert!(walked_differences(text, &now, &s).is_none());
        assert_eq!(
            compare(text, &Table::from(now), &s).unwrap().lines,
            ["changed: k=1 v c -> a"]
        );
        let e = compare(
            "# columns: k:integer\n\"1\n",
            &Table::from(table("k\n1\n", &s)),
            &s,
        );
        assert!(
            e.unwrap_err()
                .to_string()
                .contains("a quoted field is not closed")
        );
    }

    /// Two columns of one name are refused, whatever the format, naming
    /// the name and the columns; an ignored name is left out, every time.
    #[test]
    fn columns_that_share_a_name_are_refused_naming_them() {
        let read = |csv: &str, ignore: &[&str]| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("x.csv");
            std::fs::write(&path, csv).unwrap();
            let mut s = spec(&["id"]);
            s.ignore = ignore.iter().map(|i| i.to_string()).collect();
            let none = crate::redact::Redactor::none();
            read_table(&path, &s, &mut Masking::new(&none)).map(|_| ())
        };
        let e = read("id,amount,amount\n1,10,20\n", &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "the column name `amount` is used by columns 2 and 3: columns are compared by name"
            ),
            "{e}"
        );
        let e = read("a,b,a,c,b,a\n1,2,3,4,5,6\n", &["c"])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "the column name `a` is used by columns 1, 3 and 6; \
                 the column name `b` is used by columns 2 and 5: "
            ),
            "{e}"
        );
        read("id,amount,amount\n1,10,20\n", &["amount"]).unwrap();
        assert_eq!(shared_names([(0, "a"), (1, "A")].into_iter()), None);
    }

    #[test]
    fn without_a_key_rows_are_matched_whole() {
        let s = spec(&[]);
        let was = table("a,b\n1,x\n2,y\n2,y\n", &s);
        let now = table("a,b\n2,y\n3,z\n2,y\n", &s);
        assert_eq!(
            row_differences(&was, &now, &s).lines,
            ["row removed: 1,x", "row added: 3,z"]
        );
    }
}
