//! Reading an output as a stream: its rows pushed, as they are read, into
//! a sink that summarises them (`mode = "summary"`) or keeps them (rows
//! mode), so nothing but the sink holds the table. A CSV or JSON Lines
//! file is read line by line, a JSON array by a streaming parser (twice:
//! the first pass finds the columns and their types), a Parquet file or a
//! Delta table a batch of one row group at a time, its row groups shared
//! out between two threads that each fill a sink of their own, merged at
//! the end (a summary's counts, checksums and sums do not depend on the
//! order rows came in; kept rows are sorted afterwards). The sha256 of
//! the output is taken on the side, from the file itself.

use std::path::Path;
use std::sync::atomic::AtomicUsize;

use super::error::DataError;
use super::{ColType, Masked, Masking, Sink};
use crate::config::OutputSpec;
use crate::model::DataFormat;

/// A sink that takes in what another of its kind took, for the readers
/// that split an output between threads.
pub(super) trait Collect: Sink + Send {
    fn merge(&mut self, other: Self);

    /// [`Collect::merge`] each of `others`, in order.
    fn merge_all(&mut self, others: Vec<Self>)
    where
        Self: Sized,
    {
        for other in others {
            self.merge(other);
        }
    }

    /// Whether what it takes in does not depend on the order the rows
    /// come in (a summary): a thread then reads every unit it takes into
    /// one sink, so memory does not grow with the units.
    const ORDER_FREE: bool = false;
}

/// An output read into a sink.
pub(super) struct Read<S> {
    /// Its columns (ignored ones left out, secrets masked).
    pub(crate) names: Vec<String>,
    /// Their types, from the file (Parquet, Delta, JSON); None: to be
    /// inferred from the values (CSV).
    pub(crate) types: Option<Vec<ColType>>,
    pub(crate) sink: S,
    /// The sha256 of the file (of a Delta table: of its live files, each
    /// named).
    pub(crate) sha: String,
}

/// Makes a sink for an output's columns and their types.
pub(super) type MakeSink<'a, S> = &'a (dyn Fn(&[String], Option<&[ColType]>) -> S + Sync);

/// Read the output at `path` (of `spec`'s format) into sinks `make`
/// gives, each cell masked by `mask` first.
pub(super) fn read<S: Collect>(
    path: &Path,
    spec: &OutputSpec,
    mask: &mut Masking<'_>,
    make: MakeSink<'_, S>,
) -> Result<Read<S>, DataError> {
    // Why it could not be read may quote the file (a column's name).
    let (mut names, types, sink, sha) = read_parts(path, spec, mask, make).map_err(|e| {
        let text = e.to_string();
        match mask.mask(&text) {
            std::borrow::Cow::Borrowed(_) => e,
            std::borrow::Cow::Owned(masked) => DataError::Masked(masked),
        }
    })?;
    mask.names(&mut names);
    Ok(Read {
        names,
        types,
        sink,
        sha,
    })
}

/// [`read`], the columns' names not yet masked.
#[allow(clippy::type_complexity)]
fn read_parts<S: Collect>(
    path: &Path,
    spec: &OutputSpec,
    mask: &mut Masking<'_>,
    make: MakeSink<'_, S>,
) -> Result<(Vec<String>, Option<Vec<ColType>>, S, String), DataError> {
    let hash = || hash_file(path);
    Ok(match spec.format {
        DataFormat::Delta => parts(&delta_parts(path)?, spec, mask, make)?,
        #[cfg(feature = "parquet")]
        DataFormat::Parquet => {
            let file = super::parquet_file::open(path)?;
            let one = Parts::Parquet {
                path,
                groups: groups_of(&file),
                names: file.names,
                types: file.types,
            };
            parts(&one, spec, mask, make)?
        }
        #[cfg(not(feature = "parquet"))]
        DataFormat::Parquet => return Err(DataError::ParquetMissing),
        DataFormat::Csv | DataFormat::Json | DataFormat::Jsonl => {
            // The hash and the parse each take a core where there are two.
            std::thread::scope(|s| {
                let sha = s.spawn(hash);
                let (names, types, sink) = text(path, spec, mask, make)?;
                // The hashing thread cannot panic short of running out of memory.
                let sha = sha.join().unwrap_or(Err(DataError::HashFailed))?;
                Ok::<_, DataError>((names, types, sink, sha))
            })?
        }
    })
}

/// Read a CSV, JSON or JSON Lines output on this thread.
#[allow(clippy::type_complexity)]
fn text<S: Collect>(
    path: &Path,
    spec: &OutputSpec,
    mask: &mut Masking<'_>,
    make: MakeSink<'_, S>,
) -> Result<(Vec<String>, Option<Vec<ColType>>, S), DataError> {
    let open = || {
        crate::untrusted::open(path)
            .map(|(file, _)| std::io::BufReader::with_capacity(1 << 16, file))
            .map_err(DataError::Unreadable)
    };
    if spec.format == DataFormat::Csv {
        let (names, masked) = super::parse_csv(open()?, &spec.ignore, |names| Masked {
            inner: make(names, None),
            mask: &mut *mask,
        })?;
        return Ok((names, None, masked.inner));
    }
    let lines = spec.format == DataFormat::Jsonl;
    let columns = super::json::columns(open()?, lines)?;
    let (keep, names, types) = kept(&columns.names, &columns.types, spec)?;
    let mut masked = Masked {
        inner: make(&names, Some(&types)),
        mask,
    };
    super::json::rows(open()?, lines, &columns, &keep, &mut masked)?;
    Ok((names, Some(types), masked.inner))
}

/// What a Parquet file or a Delta table is read from.
enum Parts<'a> {
    Parquet {
        path: &'a Path,
        groups: Groups,
        names: Vec<String>,
        types: Vec<ColType>,
    },
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    Delta {
        plan: super::delta::Plan,
        /// The row groups of each live file.
        groups: Vec<Groups>,
    },
}

/// A Parquet file's row groups (their rows), and whether one may be read
/// in parts ([`super::parquet_file::ParquetFile::by_columns`]).
#[derive(Clone)]
struct Groups {
    rows: Vec<usize>,
    in_parts: bool,
}

#[cfg(feature = "parquet")]
fn groups_of<R: ::parquet::file::reader::ChunkReader + 'static>(
    file: &super::parquet_file::ParquetFile<R>,
) -> Groups {
    Groups {
        rows: (0..file.row_groups()).map(|g| file.rows_in(g)).collect(),
        in_parts: file.by_columns(),
    }
}

/// The plan to read the Delta table at `path`.
#[cfg(feature = "parquet")]
fn delta_parts(path: &Path) -> Result<Parts<'static>, DataError> {
    let mut groups = Vec::new();
    let plan = super::delta::plan(path, super::parquet_file::open, |file| {
        groups.push(groups_of(file));
        let columns = file.names.iter().cloned().zip(file.types.clone());
        (columns.collect(), file.rows())
    })?;
    Ok(Parts::Delta { plan, groups })
}

#[cfg(not(feature = "parquet"))]
fn delta_parts(_path: &Path) -> Result<Parts<'static>, DataError> {
    Err(DataError::ParquetMissing)
}

/// Threads that read a Parquet file's or a Delta table's row groups.
const READERS: usize = 2;
/// The fewest rows of a part of a row group read apart from the rest.
const MIN_PART: usize = 64 * 1024;

/// One piece of work: rows of one row group of one file.
struct Unit {
    file: usize,
    group: usize,
    /// The rows of the row group, and the first of them in the file.
    part: std::ops::Range<usize>,
    first: usize,
}

/// The units the row groups of `files` are read in: a row group each, or,
/// when there are too few to keep [`READERS`] threads busy, parts of them.
fn units(files: &[Groups]) -> Vec<Unit> {
    let total: usize = files.iter().map(|f| f.rows.len()).sum();
    let wanted = 2 * READERS;
    let mut out = Vec::new();
    for (file, groups) in files.iter().enumerate() {
        let mut first = 0;
        for (group, &rows) in groups.rows.iter().enumerate() {
            let parts = if groups.in_parts && total < wanted {
                (wanted / total.max(1)).min(rows / MIN_PART).max(1)
            } else {
                1
            };
            for k in 0..parts {
                let part = rows * k / parts..rows * (k + 1) / parts;
                out.push(Unit {
                    file,
                    group,
                    first: first + part.start,
                    part,
                });
            }
            first += rows;
        }
    }
    out
}

/// Read a Parquet file or a Delta table: its units ([`units`]) taken by
/// [`READERS`] threads as each finishes its last, each into a sink of its
/// own, the sinks merged in the file's order; while this thread hashes
/// the files.
#[allow(clippy::type_complexity)]
fn parts<S: Collect>(
    parts: &Parts<'_>,
    spec: &OutputSpec,
    mask: &mut Masking<'_>,
    make: MakeSink<'_, S>,
) -> Result<(Vec<String>, Option<Vec<ColType>>, S, String), DataError> {
    let (all, all_types): (Vec<String>, Vec<ColType>) = match parts {
        Parts::Parquet { names, types, .. } => (names.clone(), types.clone()),
        Parts::Delta { plan, .. } => plan.columns.iter().cloned().unzip(),
    };
    let (_, names, types) = kept(&all, &all_types, spec)?;
    let units = units(match parts {
        Parts::Parquet { groups, .. } => std::slice::from_ref(groups),
        Parts::Delta { groups, .. } => groups,
    });
    let next = AtomicUsize::new(0);
    let redactor = mask.redactor;
    let (results, sha) = std::thread::scope(|s| {
        let workers: Vec<_> = (0..READERS.min(units.len()).max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut masking = Masking::new(redactor);
                    let sinks = read_units(parts, &units, &next, &names, &mut |before, read| {
                        let mut sink = Masked {
                            inner: before.unwrap_or_else(|| make(&names, Some(&types))),
                            mask: &mut masking,
                        };
                        read(&mut sink)?;
                        Ok(sink.inner)
                    })?;
                    Ok::<_, DataError>((sinks, masking.take_found()))
                })
            })
            .collect();
        let sha = match parts {
            Parts::Parquet { path, .. } => hash_file(path),
            Parts::Delta { plan, .. } => plan.digest(),
        };
        let results: Vec<_> = workers
            .into_iter()
            .map(|w| w.join().unwrap_or(Err(DataError::ReaderFailed)))
            .collect();
        (results, sha)
    });
    let mut sinks = Vec::new();
    for result in results {
        let (read, found) = result?;
        mask.found.extend(found);
        sinks.extend(read);
    }
    // In the file's order: rows a pipeline wrote in key order stay so.
    sinks.sort_by_key(|(unit, _)| *unit);
    let mut sinks = sinks.into_iter().map(|(_, read)| read);
    // The first unit's sink takes the others' rows: none is copied twice.
    let mut sink = sinks.next().unwrap_or_else(|| make(&names, Some(&types)));
    sink.merge_all(sinks.collect());
    Ok((names, Some(types), sink, sha?))
}

/// The columns of `names` (of `types`) that `spec` does not ignore, in
/// file order: their places, names and types. Err when two of them share
/// a name.
#[allow(clippy::type_complexity)]
fn kept(
    names: &[String],
    types: &[ColType],
    spec: &OutputSpec,
) -> Result<(Vec<usize>, Vec<String>, Vec<ColType>), DataError> {
    let keep: Vec<usize> = (0..names.len())
        .filter(|&i| !spec.ignore.contains(&names[i]))
        .collect();
    super::unique_names(keep.iter().map(|&i| (i, names[i].as_str())))?;
    let kept_names = keep.iter().map(|&i| names[i].clone()).collect();
    let kept_types = keep.iter().map(|&i| types[i]).collect();
    Ok((keep, kept_names, kept_types))
}

/// The sha256 of an output file.
fn hash_file(path: &Path) -> Result<String, DataError> {
    crate::hash::sha256_file(path).map_err(DataError::Unreadable)
}

/// Reads one unit into a sink of its own, or into the one given (of
/// units read before, when order does not matter): given how to push the
/// unit's rows into a sink, the sink they went into.
type ReadUnit<'a, S> = dyn FnMut(Option<S>, &mut dyn FnMut(&mut dyn Sink) -> Result<(), DataError>) -> Result<S, DataError>
    + 'a;

/// Take units of `parts` off `next` until none are left, reading each
/// (its rows, the columns `names`) through `read`: the sinks, by unit.
#[cfg(feature = "parquet")]
fn read_units<S: Collect>(
    parts: &Parts<'_>,
    units: &[Unit],
    next: &AtomicUsize,
    names: &[String],
    read: &mut ReadUnit<'_, S>,
) -> Result<Vec<(usize, S)>, DataError> {
    use super::delta::Source;
    use super::parquet_file::ParquetFile;
    use super::{Batch, BatchColumn};
    use std::sync::atomic::Ordering;
    // The file open now: its index, the file, and where each column
    // comes from.
    let mut current: Option<(usize, ParquetFile<std::fs::File>, Vec<Source>)> = None;
    let mut batch = Vec::new();
    let mut sinks = Vec::new();
    loop {
        let at = next.fetch_add(1, Ordering::Relaxed);
        let Some(unit) = units.get(at) else {
            return Ok(sinks);
        };
        let f = unit.file;
        if current.as_ref().is_none_or(|(open_f, _, _)| *open_f != f) {
            let (file, sources) = open_part(parts, f, names)?;
            batch.clear();
            batch.resize_with(file.names.len(), super::Cells::default);
            current = Some((f, file, sources));
        }
        let Some((_, file, sources)) = &current else {
            continue;
        };
        let deleted = match parts {
            Parts::Delta { plan, .. } => plan.files[f].deleted.as_deref(),
            Parts::Parquet { .. } => None,
        };
        let label = |e: DataError| match parts {
            Parts::Delta { plan, .. } => DataError::in_file(&plan.files[f].name)(e),
            Parts::Parquet { .. } => e,
        };
        let (at, before) = match S::ORDER_FREE.then(|| sinks.pop()).flatten() {
            Some((first, sink)) => (first, Some(sink)),
            None => (at, None),
        };
        let sink = read(before, &mut |sink| {
            let mut row = unit.first;
            file.read_group(
                unit.group,
                unit.part.clone(),
                &mut batch,
                &mut |cells, n| {
                    let skip = deleted.map(|d| &d[row.min(d.len())..]);
                    row += n;
                    sink.batch(&Batch {
                        columns: (sources.iter())
                            .map(|s| match s {
                                Source::Column(k) => BatchColumn::Cells(&cells[*k]),
                                Source::Value(v) => BatchColumn::Value(v.as_deref()),
                            })
                            .collect(),
                        rows: n,
                        skip,
                    });
                    Ok(())
                },
            )
        })
        .map_err(label)?;
        sinks.push((at, sink));
    }
}

/// A file of the parts open: the file, and where each column comes from.
#[cfg(feature = "parquet")]
type OpenPart = (
    super::parquet_file::ParquetFile<std::fs::File>,
    Vec<super::delta::Source>,
);

/// Opens file `f` of `parts`, and finds where each column of `names`
/// comes from (a column of the file, or a value).
#[cfg(feature = "parquet")]
fn open_part(parts: &Parts<'_>, f: usize, names: &[String]) -> Result<OpenPart, DataError> {
    use super::delta::Source;
    use super::parquet_file::open;
    Ok(match parts {
        Parts::Parquet { path, .. } => {
            let file = open(path)?;
            let sources = names
                .iter()
                .map(|n| match file.names.iter().position(|m| m == n) {
                    Some(k) => Source::Column(k),
                    None => Source::Value(None),
                })
                .collect();
            (file, sources)
        }
        Parts::Delta { plan, .. } => {
            let planned = &plan.files[f];
            let file = open(&planned.path).map_err(DataError::in_file(&planned.name))?;
            let sources = plan.sources(planned, &file.names, names);
            (file, sources)
        }
    })
}

#[cfg(not(feature = "parquet"))]
fn read_units<S: Collect>(
    _parts: &Parts<'_>,
    _units: &[Unit],
    _next: &AtomicUsize,
    _names: &[String],
    _read: &mut ReadUnit<'_, S>,
) -> Result<Vec<(usize, S)>, DataError> {
    Err(DataError::ParquetMissing)
}

#[cfg(all(test, feature = "parquet"))]
mod tests {
    use std::sync::Arc;

    use ::parquet::data_type::{
        BoolType, ByteArray, ByteArrayType, DoubleType, FloatType, Int32Type, Int64Type, Int96,
        Int96Type,
    };
    use ::parquet::file::properties::WriterProperties;
    use ::parquet::file::writer::SerializedFileWriter;
    use ::parquet::schema::parser::parse_message_type;

    use super::super::{Builder, Cells, Table, Typed, parquet_file, read_table, render, sort};
    use super::*;
    use crate::config::DataOutputMode;

    /// A Parquet file of `groups` row groups of these sizes, a column of
    /// every flat kind (and, with `decimal`, a decimal column, which the
    /// record API reads), values spread by a fixed generator, nulls,
    /// NaN, infinities and both zeros among them.
    fn file(groups: &[usize], decimal: bool) -> Vec<u8> {
        let mut schema = String::from(
            "message m {
                required int64 id;
                optional binary name (UTF8);
                optional binary raw;
                optional double x;
                optional float f;
                optional int32 day (DATE);
                optional int64 at (TIMESTAMP_MICROS);
                optional int32 small (INT_8);
                optional int64 big (UINT_64);
                optional boolean ok;
                optional int96 spark;",
        );
        if decimal {
            schema.push_str("optional int64 price (DECIMAL(18,2));");
        }
        schema.push('}');
        let schema = Arc::new(parse_message_type(&schema).unwrap());
        let mut out = Vec::new();
        let props = Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(&mut out, schema, props).unwrap();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut id = 0i64;
        for &rows in groups {
            let ids: Vec<i64> = (0..rows)
                .map(|_| {
                    id += 1;
                    id
                })
                .collect();
            let r: Vec<u64> = (0..rows).map(|_| next()).collect();
            // Every seventh value null.
            let defs: Vec<i16> = r.iter().map(|v| i16::from(v % 7 != 0)).collect();
            let present: Vec<u64> = r.iter().copied().filter(|v| v % 7 != 0).collect();
            let mut g = writer.next_row_group().unwrap();
            macro_rules! column {
                ($ty:ty, $values:expr, $defs:expr) => {{
                    let mut col = g.next_column().unwrap().unwrap();
                    col.typed::<$ty>()
                        .write_batch(&$values, $defs, None)
                        .unwrap();
                    col.close().unwrap();
                }};
            }
            column!(Int64Type, ids, None);
            let names: Vec<ByteArray> = (present.iter())
                .map(|v| ByteArray::from(format!("Wést, {}", v % 1000).as_str()))
                .collect();
            column!(ByteArrayType, names, Some(&defs));
            let raw: Vec<ByteArray> = (present.iter())
                .map(|v| ByteArray::from(v.to_le_bytes()[..3].to_vec()))
                .collect();
            column!(ByteArrayType, raw, Some(&defs));
            let special = [
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
                -0.0,
                0.0,
                1e21,
                5e-324,
            ];
            let x: Vec<f64> = (present.iter())
                .map(|v| match v % 50 {
                    k @ 0..=6 => special[k as usize],
                    _ => (*v as i64 >> 11) as f64 / 1e3,
                })
                .collect();
            column!(DoubleType, x, Some(&defs));
            let f: Vec<f32> = present.iter().map(|v| (v % 100_000) as f32 / 7.0).collect();
            column!(FloatType, f, Some(&defs));
            let day: Vec<i32> = present
                .iter()
                .map(|v| (v % 40_000) as i32 - 5_000)
                .collect();
            column!(Int32Type, day, Some(&defs));
            let at: Vec<i64> = present.iter().map(|v| (v >> 14) as i64).collect();
            column!(Int64Type, at, Some(&defs));
            let small: Vec<i32> = present.iter().map(|v| (v % 256) as i32 - 128).collect();
            column!(Int32Type, small, Some(&defs));
            let big: Vec<i64> = present.iter().map(|v| *v as i64).collect();
            column!(Int64Type, big, Some(&defs));
            let ok: Vec<bool> = present.iter().map(|v| v % 3 == 0).collect();
            column!(BoolType, ok, Some(&defs));
            let spark: Vec<Int96> = (present.iter())
                .map(|v| {
                    let mut t = Int96::new();
                    t.set_data((v % 86_400_000) as u32, 0, 2_460_000 + (v % 1000) as u32);
                    t
                })
                .collect();
            column!(Int96Type, spark, Some(&defs));
            if decimal {
                let price: Vec<i64> = present
                    .iter()
                    .map(|v| (v % 1_000_000) as i64 - 500_000)
                    .collect();
                column!(Int64Type, price, Some(&defs));
            }
            g.close().unwrap();
        }
        writer.close().unwrap();
        out
    }

    /// `spec` for the output `x.parquet`.
    fn spec(mode: DataOutputMode) -> OutputSpec {
        OutputSpec {
            path: "x.parquet".into(),
            table: None,
            model: None,
            key: vec!["id".into()],
            ignore: vec!["raw".into()],
            abs: 0.0,
            rel: 0.0,
            format: DataFormat::Parquet,
            mode,
        }
    }

    /// The snapshot text of `bytes` read whole, as outputs were read
    /// before they were streamed: every column, then every row in order
    /// into one sink.
    fn whole(bytes: &[u8], spec: &OutputSpec) -> String {
        let typed: Typed = parquet_file::read(bytes.to_vec()).unwrap();
        let keep: Vec<usize> = (0..typed.names.len())
            .filter(|&i| !spec.ignore.contains(&typed.names[i]))
            .collect();
        let names: Vec<String> = keep.iter().map(|&i| typed.names[i].clone()).collect();
        let types: Vec<ColType> = (keep.iter())
            .map(|&i| typed.types.as_ref().unwrap()[i])
            .collect();
        fn each_row(typed: &Typed, keep: &[usize], sink: &mut impl Sink) {
            for r in 0..typed.rows {
                for &i in keep {
                    sink.cell(typed.columns[i].get(r, &mut String::new()));
                }
                sink.end_row();
            }
        }
        let table = match spec.mode {
            DataOutputMode::Summary => {
                let mut s = super::super::summary::Summarizer::new(names.len(), Some(types));
                each_row(&typed, &keep, &mut s);
                Table::from(s.finish(names))
            }
            DataOutputMode::Rows => {
                let mut b = Builder::new(names.len());
                each_row(&typed, &keep, &mut b);
                let mut t = b.finish(names.into_iter().zip(types).collect()).unwrap();
                sort(&mut t, &spec.key);
                Table::from(t)
            }
        };
        render(&table, "x.parquet")
    }

    fn streamed(bytes: &[u8], spec: &OutputSpec) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.parquet");
        std::fs::write(&path, bytes).unwrap();
        let none = crate::redact::Redactor::none();
        let (table, sha) = read_table(&path, spec, &mut Masking::new(&none)).unwrap();
        assert_eq!(sha, crate::hash::sha256_hex(bytes));
        render(&table, "x.parquet")
    }

    /// A summary read as a stream, its row groups split between threads,
    /// is the summary of the file read whole, byte for byte; so are the
    /// rows; and neither depends on how the rows fall into row groups.
    #[test]
    fn a_streamed_read_is_the_whole_file_read() {
        let cells = |c: &Cells| c.get(0, &mut String::new()).map(str::to_string);
        for decimal in [false, true] {
            let split = file(&[20_000, 1, 9_000, 0, 3], decimal);
            let one = file(&[29_004], decimal);
            for mode in [DataOutputMode::Summary, DataOutputMode::Rows] {
                let spec = spec(mode);
                let text = whole(&split, &spec);
                assert_eq!(streamed(&split, &spec), text, "{mode:?} decimal {decimal}");
                assert_eq!(streamed(&one, &spec), text, "{mode:?} decimal {decimal}");
                if mode == DataOutputMode::Summary {
                    assert!(
                        text.starts_with("# output: x.parquet\n# summary: 29004 rows\n"),
                        "{text}"
                    );
                    // Every column kind is there, with its NaN and infinities.
                    for line in [
                        "\nname,string,",
                        "\nx,float,",
                        "\nf,float,",
                        "\nday,string,",
                        "\nat,string,",
                        "\nsmall,integer,",
                        "\nbig,integer,",
                        "\nok,bool,",
                        "\nspark,string,",
                    ] {
                        assert!(text.contains(line), "{line} in {text}");
                    }
                    let x = text.lines().find(|l| l.starts_with("x,")).unwrap();
                    assert!(!x.starts_with("x,float,0,0,0,0,"), "{x}");
                    if decimal {
                        assert!(text.contains("\nprice,decimal,"), "{text}");
                    }
                }
            }
            // One large row group is read in parts by both threads.
            let large = file(&[140_000], decimal);
            let groups = file(&[70_000, 50_000, 20_000], decimal);
            for mode in [DataOutputMode::Summary, DataOutputMode::Rows] {
                let spec = spec(mode);
                assert_eq!(streamed(&large, &spec), whole(&groups, &spec), "{mode:?}");
            }
            let in_parts = units(&[Groups {
                rows: vec![140_000],
                in_parts: !decimal,
            }]);
            assert_eq!(in_parts.len(), if decimal { 1 } else { 2 });
            assert_eq!(in_parts.last().unwrap().part.end, 140_000);
            let typed = parquet_file::read(split.clone()).unwrap();
            assert_eq!(typed.rows, 29_004);
            assert_eq!(cells(&typed.columns[0]).as_deref(), Some("1"));
        }
    }
}
