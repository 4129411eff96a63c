//! Why a data output or a data snapshot could not be read: one error type
//! for the whole subsystem, each variant carrying what the message names
//! (the line, the row group, the Delta commit, the file of a table) and,
//! where there is one, what to do about it.
//!
//! A message is shown after the output it is about (`out.csv: line 3 has
//! …`), so none repeats the output's path; an error met inside a part of
//! an output (a line, a table's live file, a Delta commit) is wrapped in
//! [`DataError::Within`], which writes that part before it.

use std::fmt;
use std::io;

/// Why a data output or a data snapshot could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DataError {
    /// An error met within a part of the output.
    #[error("{within}: {source}")]
    Within {
        /// The part: a line, a file of a table, a Delta commit.
        within: Within,
        /// What went wrong there.
        source: Box<DataError>,
    },
    /// The error's text, the values of secrets it quoted masked.
    #[error("{0}")]
    Masked(String),

    // Finding the output.
    /// No file matched the output's path or glob.
    #[error("the case wrote no such file")]
    NoSuchFile,
    /// The file is as it was before the command ran.
    #[error(
        "not written by this run: it is unchanged since before the command ran \
         (left by an earlier run?)"
    )]
    NotWritten,
    /// A table output's database file is not there.
    #[error("the case wrote no database file {0}")]
    NoDatabase(String),
    /// A table output's database file is as it was before the command ran.
    #[error(
        "not written by this run: its database file {0} is unchanged since before the \
         command ran (left by an earlier run?)"
    )]
    TableNotWritten(String),
    /// A server table output whose statistics the run left as they were.
    #[error(
        "not written by this run: the server's statistics of {0} (its rows inserted, updated and \
         deleted) are unchanged since before the command ran"
    )]
    StatsUnchanged(String),
    /// A `model` output whose model this run did not build.
    #[error("not written by this run: dbt did not build the model `{model}`: {why}")]
    ModelNotBuilt { model: String, why: String },
    /// A `model` output whose relation or database dbt's files do not
    /// give.
    #[error("{0}")]
    Dbt(String),
    /// The database engine refused the statement or the file.
    #[cfg_attr(not(any(feature = "duckdb", feature = "sqlite")), allow(dead_code))]
    #[error("{engine}: {message}")]
    Engine {
        engine: &'static str,
        message: String,
    },
    /// Built without the feature of a table output's engine.
    #[cfg_attr(all(feature = "duckdb", feature = "sqlite"), allow(dead_code))]
    #[error(
        "reading a {0} database needs cargo-golden's `{0}` feature (on by default), which this \
         build leaves out"
    )]
    EngineMissing(&'static str),
    /// The guarded reader refused the file (a link out of the working
    /// dir, a FIFO, a device).
    #[error("{0}")]
    Refused(io::Error),
    /// The file could not be read.
    #[error("cannot read it: {0}")]
    Unreadable(io::Error),
    /// The thread hashing the file stopped.
    #[error("cannot hash it")]
    HashFailed,
    /// A thread reading a Parquet file or a Delta table stopped.
    #[error("a reading thread failed")]
    ReaderFailed,
    /// Built without the `parquet` feature.
    #[cfg(not(feature = "parquet"))]
    #[error(
        "reading Parquet needs cargo-golden's `parquet` feature (on by default), which this \
         build leaves out"
    )]
    ParquetMissing,

    // Any format.
    /// Columns that share a name (`shared` names them and their places).
    #[error(
        "{shared}: columns are compared by name, so each must be unique (rename one, or \
         `ignore` the name to leave them all out)"
    )]
    SharedNames {
        /// The names used twice, and by which columns.
        shared: String,
    },
    /// A row whose text is past what a rows snapshot holds.
    #[error(
        "a row of it holds more than 2 GiB of text, more than a rows snapshot keeps: declare \
         it with mode = \"summary\""
    )]
    RowTooLong,

    // CSV.
    /// The CSV reader's error.
    #[error("not CSV: {0}")]
    NotCsv(csv::Error),
    /// A record of a CSV file that is not UTF-8.
    #[error("not CSV: line {line} is not UTF-8")]
    CsvNotUtf8 {
        /// Its line, from 1.
        line: u64,
    },
    /// A record of another width than the header.
    #[error("line {line} has {fields} field(s) where the header has {width}")]
    CsvWidth {
        /// Its line, from 1.
        line: u64,
        /// Its fields.
        fields: usize,
        /// The header's.
        width: usize,
    },

    // JSON and JSON Lines.
    /// The JSON parser's error.
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    /// A line of a JSON Lines file that is not UTF-8.
    #[error("not JSON Lines: line {line} is not UTF-8")]
    JsonLinesNotUtf8 {
        /// The line, from 1.
        line: usize,
    },
    /// A line of a JSON Lines file that is not one object.
    #[error("line {line}: not a JSON object: {source}")]
    NotJsonObject {
        /// The line, from 1.
        line: usize,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// The second pass over a JSON file met a key the first did not.
    #[error("a key `{key}` appeared as it was read again")]
    KeyAppeared {
        /// The key.
        key: String,
    },

    // Parquet.
    /// Not a Parquet file.
    #[cfg(feature = "parquet")]
    #[error("not Parquet: {0}")]
    NotParquet(::parquet::errors::ParquetError),
    /// A column chunk could not be read.
    #[cfg(feature = "parquet")]
    #[error("cannot read a column: {0}")]
    Column(::parquet::errors::ParquetError),
    /// A column of a row group with fewer values than its rows.
    #[cfg(feature = "parquet")]
    #[error("cannot read a column: row group {group} holds {rows} rows, a column {got}")]
    ColumnShort {
        /// The row group, from 0.
        group: usize,
        /// Its rows.
        rows: usize,
        /// The values read.
        got: usize,
    },
    /// Part of a row group asked of one that is read whole.
    #[cfg(feature = "parquet")]
    #[error("row group {group} is read whole, not rows {part:?}")]
    GroupReadWhole {
        /// The row group, from 0.
        group: usize,
        /// The rows asked for.
        part: std::ops::Range<usize>,
    },
    /// The rows of a file read by the record API.
    #[cfg(feature = "parquet")]
    #[error("cannot read its rows: {0}")]
    Rows(::parquet::errors::ParquetError),
    /// A row of a file read by the record API.
    #[cfg(feature = "parquet")]
    #[error("cannot read a row: {0}")]
    Row(::parquet::errors::ParquetError),

    // A Delta table's log.
    /// The `_delta_log` directory.
    #[error("cannot read _delta_log: {0}")]
    NoLog(io::Error),
    /// A log with no commit and no checkpoint.
    #[error("its _delta_log has no commit")]
    NoCommit,
    /// A gap in the log's versions.
    #[error(
        "its _delta_log lacks commit {expected} (found {found}): an older log was cleaned up \
         without a checkpoint before it"
    )]
    CommitGap {
        /// The version wanted next.
        expected: u64,
        /// The version found there.
        found: u64,
    },
    /// A commit file that could not be read.
    #[error("cannot read _delta_log/{version:020}.json: {source}")]
    CommitUnreadable {
        /// Its version.
        version: u64,
        /// Why.
        source: io::Error,
    },
    /// A line of a commit that is not JSON.
    #[error("commit {version} line {line}: not JSON: {source}")]
    CommitNotJson {
        /// Its version.
        version: u64,
        /// The line, from 1.
        line: usize,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// A V2 checkpoint, which is not read.
    #[error(
        "its _delta_log has a V2 checkpoint ({name}), which is not read: write classic \
         checkpoints (delta.checkpointPolicy = classic)"
    )]
    V2Checkpoint {
        /// Its file name.
        name: String,
    },
    /// `_last_checkpoint` could not be read.
    #[error("cannot read _last_checkpoint: {0}")]
    LastCheckpointUnreadable(io::Error),
    /// `_last_checkpoint` without a version.
    #[error("its _last_checkpoint names no version")]
    LastCheckpointNoVersion,
    /// `_last_checkpoint` names a checkpoint with parts missing.
    #[error("its _last_checkpoint names version {version}, whose checkpoint is not all there")]
    CheckpointIncomplete {
        /// The version it names.
        version: u64,
    },
    /// A `metaData` action whose schema is not JSON.
    #[error("bad schemaString: {0}")]
    BadSchemaString(serde_json::Error),
    /// An `add` or `remove` action without a path.
    #[error("an add or remove action has no path")]
    ActionWithoutPath,
    /// A file of the table named by an absolute URI.
    #[error("{path} is an absolute URI, which is not read")]
    AbsoluteUri {
        /// The URI.
        path: String,
    },
    /// A live file that could not be hashed.
    #[error("cannot read live file {name}: {source}")]
    LiveFileUnreadable {
        /// As the log names it.
        name: String,
        /// Why.
        source: io::Error,
    },
    /// Columns of one data file of a table that share a name.
    #[error("{shared} of this data file: which holds the table's column is not known")]
    SharedInFile {
        /// The names used twice, and by which columns.
        shared: String,
    },

    // A deletion vector.
    /// A key of a `deletionVector` missing.
    #[error("its deletionVector has no {key}")]
    DvKeyMissing {
        /// The key.
        key: &'static str,
    },
    /// A key of a `deletionVector` that should be a count.
    #[error("its deletionVector's {key} is not a count: {value}")]
    DvNotCount {
        /// The key.
        key: &'static str,
        /// Its value.
        value: serde_json::Value,
    },
    /// A storage type other than `i`, `u` and `p`.
    #[error("its deletionVector has storage type {storage:?}, which is not read (known: i, u, p)")]
    DvStorage {
        /// The storage type.
        storage: String,
    },
    /// A `sizeInBytes` past what this machine addresses.
    #[error("its sizeInBytes is too large")]
    DvTooLarge,
    /// An inline vector that is not Z85.
    #[error("its inline deletion vector is not Z85: {0}")]
    DvInlineNotZ85(Box<DataError>),
    /// An inline vector shorter than its `sizeInBytes`.
    #[error("its inline deletion vector holds {held} bytes, where its sizeInBytes says {size}")]
    DvInlineShort {
        /// The bytes it holds.
        held: usize,
        /// Its `sizeInBytes`.
        size: usize,
    },
    /// An error reading a vector's file.
    #[error("its deletion vector file {file}: {source}")]
    DvFile {
        /// The file, relative to the table.
        file: String,
        /// What went wrong.
        source: Box<DataError>,
    },
    /// A UUID path too short to hold one.
    #[error("its deletion vector path {path:?} holds no UUID")]
    DvNoUuid {
        /// The path.
        path: String,
    },
    /// A UUID that is not Z85.
    #[error("its deletion vector UUID is not Z85: {0}")]
    DvUuidNotZ85(Box<DataError>),
    /// A path prefix that is not a plain directory name.
    #[error("its deletion vector path prefix {prefix:?} is not a plain directory name")]
    DvPrefix {
        /// The prefix.
        prefix: String,
    },
    /// A vector stored outside the table.
    #[error("its deletion vector is stored at {path}, outside the table: it is not read")]
    DvOutside {
        /// Where.
        path: String,
    },
    /// A vector deleting another number of rows than its cardinality.
    #[error(
        "its deletion vector deletes {dropped} of its {rows} rows{}, where its cardinality \
         says {cardinality}: the log and the vector disagree",
        beyond_text(.beyond)
    )]
    DvCardinality {
        /// The rows it deletes.
        dropped: u64,
        /// The file's rows.
        rows: usize,
        /// Its row indexes past the file's end.
        beyond: u64,
        /// What the log says it deletes.
        cardinality: u64,
    },
    /// A vector's file whose version byte could not be read.
    #[error("cannot read its version: {0}")]
    DvVersionUnreadable(io::Error),
    /// A vector's file of another format version.
    #[error("its format version is {found}, not {wanted}")]
    DvVersion {
        /// The version found.
        found: u8,
        /// The one read.
        wanted: u8,
    },
    /// A vector's file too short for the vector.
    #[error(
        "it is {len} bytes, too short for a deletion vector of {size} bytes at offset {offset}"
    )]
    DvFileShort {
        /// The file's bytes.
        len: u64,
        /// The vector's.
        size: usize,
        /// Where it starts.
        offset: u64,
    },
    /// The vector's bytes could not be read.
    #[error("cannot read {wanted} bytes at offset {offset}: {source}")]
    DvBytesUnreadable {
        /// The bytes wanted.
        wanted: usize,
        /// Where.
        offset: u64,
        /// Why.
        source: io::Error,
    },
    /// A vector whose stored size is not the log's.
    #[error("the deletion vector at offset {offset} is {said} bytes, where the log says {size}")]
    DvSize {
        /// Where it starts.
        offset: u64,
        /// The size stored with it.
        said: u32,
        /// The log's.
        size: usize,
    },
    /// A vector whose checksum fails.
    #[error(
        "the deletion vector at offset {offset} fails its checksum (CRC-32 {crc:08x}, stored \
         {stored:08x}): the file is damaged"
    )]
    DvChecksum {
        /// Where it starts.
        offset: u64,
        /// The checksum of its bytes.
        crc: u32,
        /// The one stored.
        stored: u32,
    },
    /// A vector's file read without the `parquet` feature.
    #[cfg(not(feature = "parquet"))]
    #[error("reading a deletion vector file needs cargo-golden's `parquet` feature")]
    DvNeedsParquet,
    /// Z85 text of a length that is not a multiple of 5.
    #[error("{0} characters, not a multiple of 5")]
    Z85Length(usize),
    /// A character outside the Z85 alphabet.
    #[error("{0:?} is not a Z85 character")]
    Z85Char(char),
    /// A group of five characters past 32 bits.
    #[error("a group of five is past 2^32")]
    Z85Overflow,
    /// A bitmap shorter than it says.
    #[error("the bitmap ends early ({len} bytes, {wanted} more wanted at byte {at})")]
    BitmapShort {
        /// Its bytes.
        len: usize,
        /// The bytes wanted.
        wanted: usize,
        /// Where.
        at: usize,
    },
    /// A bitmap in Delta's native format.
    #[error("its bitmap is in Delta's native format, which is not read")]
    BitmapNative,
    /// A bitmap of another magic number.
    #[error("its bitmap has magic number {found}, not {wanted}")]
    BitmapMagic {
        /// The number found.
        found: u32,
        /// The one wanted.
        wanted: u32,
    },
    /// Keys of a bitmap array out of order.
    #[error("its bitmap's keys are out of order ({key} after {last:?})")]
    BitmapKeyOrder {
        /// The key.
        key: u32,
        /// The one before it.
        last: Option<u32>,
    },
    /// A 32-bit bitmap that is not a Roaring one.
    #[error("a 32-bit bitmap has cookie {0}, not a Roaring one")]
    RoaringCookie(u32),
    /// A 32-bit bitmap of too many containers.
    #[error("a 32-bit bitmap says it has {0} containers")]
    RoaringContainers(usize),
    /// Containers of a 32-bit bitmap out of order.
    #[error("a 32-bit bitmap's containers are out of order ({key} after {last:?})")]
    RoaringOrder {
        /// The container's key.
        key: u16,
        /// The one before it.
        last: Option<u16>,
    },
    /// A run past its container.
    #[error("a run of {length} values from {start} passes its container")]
    RoaringRun {
        /// The run's values.
        length: u64,
        /// Its first.
        start: u64,
    },

    // The text of a data snapshot.
    /// A rows snapshot without its schema line.
    #[error("its first line is not `# columns: …`: bless it again")]
    NoSchemaLine,
    /// A schema line that is not CSV.
    #[error("bad schema line: {0}")]
    BadSchemaLine(csv::Error),
    /// A column of the schema line without a known type.
    #[error("bad column `{field}` in the schema line")]
    BadSchemaColumn {
        /// The field.
        field: String,
    },
    /// A quoted field that is not closed.
    #[error("line {line}: a quoted field is not closed")]
    UnclosedQuote {
        /// The line its row starts on.
        line: usize,
    },
    /// A row of another width than the schema.
    #[error("line {line} has {fields} field(s) where the schema has {width}: bless it again")]
    SnapshotWidth {
        /// The line its row starts on.
        line: usize,
        /// Its fields.
        fields: usize,
        /// The schema's.
        width: usize,
    },
    /// A row of a snapshot past what a row holds.
    #[error("a row of it holds more than 2 GiB of text: bless it again")]
    SnapshotRowTooLong,
    /// A summary snapshot without its first line.
    #[error("its first line is not `# summary: N rows`: bless it again")]
    NoSummaryLine,
    /// A summary snapshot without its header.
    #[error("its second line is not `{header}`: bless it again")]
    NoSummaryHeader {
        /// The header wanted.
        header: &'static str,
    },
    /// A column line of a summary that is not CSV.
    #[error("bad column line: {0}")]
    BadSummaryLine(csv::Error),
    /// A column line of a summary that does not read.
    #[error("bad column line `{line}`")]
    BadSummaryColumn {
        /// The line's fields.
        line: String,
    },
}

/// The part of an output an error was met in, as its message names it.
#[derive(Debug)]
pub(crate) enum Within {
    /// A line of the file, from 1.
    Line(usize),
    /// A file of a Delta table, as its log names it.
    File(String),
    /// A Delta commit.
    Commit(u64),
    /// A Delta checkpoint.
    Checkpoint(u64),
}

impl fmt::Display for Within {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Within::Line(n) => write!(f, "line {n}"),
            Within::File(name) => f.write_str(name),
            Within::Commit(v) => write!(f, "commit {v}"),
            Within::Checkpoint(v) => write!(f, "checkpoint {v}"),
        }
    }
}

impl DataError {
    /// This error, met within `within`.
    pub(super) fn within(self, within: Within) -> DataError {
        DataError::Within {
            within,
            source: Box::new(self),
        }
    }

    /// A closure wrapping an error met in the file of a table `name`.
    pub(super) fn in_file(name: &str) -> impl Fn(DataError) -> DataError + use<> {
        let name = name.to_string();
        move |e| e.within(Within::File(name.clone()))
    }
}

/// A [`DataError::DvCardinality`]'s note of the row indexes past the
/// file's end, when there are any.
fn beyond_text(beyond: &u64) -> String {
    match beyond {
        0 => String::new(),
        n => format!(" (and {n} row indexes past its end)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_written_before_the_error() {
        let e = DataError::NoCommit.within(Within::Commit(3));
        assert_eq!(e.to_string(), "commit 3: its _delta_log has no commit");
        let e = DataError::KeyAppeared { key: "k".into() }.within(Within::Line(2));
        assert_eq!(
            e.to_string(),
            "line 2: a key `k` appeared as it was read again"
        );
    }
}
