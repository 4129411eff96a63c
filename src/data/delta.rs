//! A Delta table at its current version: the latest checkpoint of
//! `_delta_log/` (the one `_last_checkpoint` names, else the newest whole
//! one), then the JSON commits after it replayed in order, then every live
//! Parquet file read, the rows its deletion vector deletes dropped, and
//! the rows concatenated.
//!
//! A logical file of the table is a data file and its deletion vector, if
//! it has one (the protocol's key, `(path, deletionVector.uniqueId)`): an
//! `add` makes one live in place of any other of the same path (a later
//! `DELETE` adds the file again with a new vector), a `remove` retires the
//! one of the same path and vector. A deletion vector
//! ([`deletion_vector`]), as Spark and Databricks write them by default,
//! is inline in the log or in a `deletion_vector_<uuid>.bin` under the
//! table, read through the guarded reader and checked: its size, its
//! checksum, and that it deletes as many of the file's rows as its
//! `cardinality` says. One at an absolute path outside the table is not
//! read. The table's sha256 covers each live file's sha256 and, for a file
//! with a vector, the vector's id and the sha256 of its bytes: which rows
//! are deleted is part of the evidence.
//!
//! A partitioned table's partition columns come from each file's
//! `partitionValues`. A table with column mapping (`delta.columnMapping.mode`
//! `name` or `id`) names its columns in its data files and partition values
//! by their physical names (`col-<uuid>`): they are read back to the
//! logical names of the schema through each field's
//! `delta.columnMapping.physicalName`. A log with a gap in its versions or
//! a V2 checkpoint is refused rather than read at a wrong version.
//!
//! The reader is written here rather than built on `delta_kernel`, the
//! Delta project's Rust kernel, for what the kernel costs to build (cold
//! debug builds, two cores): `delta_kernel` 0.30.1 with its default
//! features off, 95 crates and 77 CPU s, and it reads nothing without an
//! engine; with its Arrow engine (`delta_kernel_default_engine`: Arrow,
//! `object_store`, tokio, reqwest), 241 crates and 323 CPU s; all of
//! cargo-golden with its default features, 200 crates and 162 CPU s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ColType;
use super::error::{DataError, Within};

mod deletion_vector;

use deletion_vector::Descriptor;

/// The log directory of a Delta table.
pub(super) const LOG_DIR: &str = "_delta_log";

/// How a Delta table is read: its columns, and its live files, each
/// read as a Parquet file whose columns are found by their logical names.
pub(super) struct Plan {
    /// The log's schema, then any column only a partition or a file has,
    /// in the order first met; a partition column is text.
    pub(crate) columns: Vec<(String, ColType)>,
    pub(crate) files: Vec<PlannedFile>,
    /// Under column mapping, each column's logical name by its physical
    /// one.
    logical: BTreeMap<String, String>,
}

/// One live file of a [`Plan`].
pub(super) struct PlannedFile {
    /// As the log names it (relative to the table).
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    partition: Partition,
    /// The rows its deletion vector deletes, by row index.
    pub(crate) deleted: Option<Vec<bool>>,
    /// The line its deletion vector adds to the table's digest.
    dv_digest: Option<String>,
}

/// Where a table's column comes from in one live file.
pub(super) enum Source {
    /// The file's column at this index.
    Column(usize),
    /// One value for every row: a partition value, or null for a column
    /// the file lacks.
    Value(Option<String>),
}

impl Plan {
    /// Where each of `columns` (names of the table's columns) comes from
    /// in the live file `file` whose own columns are `names`: a partition
    /// value wins over a file's own column.
    pub(super) fn sources(
        &self,
        file: &PlannedFile,
        names: &[String],
        columns: &[String],
    ) -> Vec<Source> {
        columns
            .iter()
            .map(|c| {
                if let Some((_, v)) = file.partition.iter().find(|(n, _)| self.logical(n) == c) {
                    return Source::Value(v.clone());
                }
                match names.iter().position(|n| self.logical(n) == c) {
                    Some(k) => Source::Column(k),
                    None => Source::Value(None),
                }
            })
            .collect()
    }

    /// The logical name of the column a data file or a partition value
    /// calls `physical`.
    fn logical<'a>(&'a self, physical: &'a str) -> &'a str {
        self.logical.get(physical).map_or(physical, String::as_str)
    }

    /// A sha256 of the table's live files, each named, and of the rows
    /// their deletion vectors delete.
    pub(super) fn digest(&self) -> Result<String, DataError> {
        let mut digest = String::new();
        for file in &self.files {
            let sha = crate::hash::sha256_file(&file.path).map_err(|source| {
                DataError::LiveFileUnreadable {
                    name: file.name.clone(),
                    source,
                }
            })?;
            digest.push_str(&format!("{sha} {}\n", file.name));
            if let Some(line) = &file.dv_digest {
                digest.push_str(line);
            }
        }
        Ok(crate::hash::sha256_hex(digest.as_bytes()))
    }
}

/// The plan to read the table at `dir`: its log replayed, each live
/// file's footer read for its columns (`open` opens a live file as
/// Parquet: its column names and types, and its row count), each deletion
/// vector read and checked.
pub(super) fn plan<F>(
    dir: &Path,
    open: impl Fn(&Path) -> Result<F, DataError>,
    mut schema: impl FnMut(&F) -> (Vec<(String, ColType)>, usize),
) -> Result<Plan, DataError> {
    let state = replay(&dir.join(LOG_DIR))?;
    let mut plan = Plan {
        columns: state.schema.clone(),
        files: Vec::new(),
        logical: state.logical.clone(),
    };
    for Live {
        path: name,
        partition,
        dv,
    } in state.live
    {
        let path = dir.join(&name);
        let in_file = DataError::in_file(&name);
        let file = open(&path).map_err(&in_file)?;
        let (own, rows) = schema(&file);
        // A table's column is found in a file by its name.
        let names: Vec<&str> = own.iter().map(|(n, _)| plan.logical(n)).collect();
        if let Some(shared) = super::shared_names(names.into_iter().enumerate()) {
            return Err(in_file(DataError::SharedInFile { shared }));
        }
        let new = partition
            .iter()
            .map(|(n, _)| (n.clone(), ColType::String))
            .chain(own);
        for (n, ty) in new {
            let n = plan.logical(&n).to_string();
            if !plan.columns.iter().any(|(c, _)| *c == n) {
                plan.columns.push((n, ty));
            }
        }
        let (deleted, dv_digest) = match dv {
            Some(dv) => {
                let bitmap = dv.bitmap(dir).map_err(&in_file)?;
                let deleted = deleted_rows(&dv, &bitmap, rows).map_err(&in_file)?;
                // The digest covers which rows are deleted, not only the file.
                let line = format!(
                    "{} {name} deletion vector {}\n",
                    crate::hash::sha256_hex(&bitmap),
                    dv.unique_id()
                );
                (Some(deleted), Some(line))
            }
            None => (None, None),
        };
        plan.files.push(PlannedFile {
            name,
            path,
            partition,
            deleted,
            dv_digest,
        });
    }
    Ok(plan)
}

/// The rows of a data file of `rows` rows that its deletion vector `dv`
/// (serialized as `bitmap`) deletes; it must delete as many rows of the
/// file as its cardinality says.
fn deleted_rows(dv: &Descriptor, bitmap: &[u8], rows: usize) -> Result<Vec<bool>, DataError> {
    let marks = deletion_vector::mark(bitmap, rows)?;
    if marks.dropped != dv.cardinality {
        return Err(DataError::DvCardinality {
            dropped: marks.dropped,
            rows,
            beyond: marks.beyond,
            cardinality: dv.cardinality,
        });
    }
    Ok(marks.deleted)
}

/// What the log says at its latest version.
#[derive(Debug, Default, PartialEq)]
struct State {
    /// The live data files in the order added.
    pub(crate) live: Vec<Live>,
    /// Columns of the latest `metaData` schema.
    pub(crate) schema: Vec<(String, ColType)>,
    /// Under column mapping, each column's logical name by its physical
    /// one.
    pub(crate) logical: BTreeMap<String, String>,
}

/// A file's partition columns and values (None: null).
type Partition = Vec<(String, Option<String>)>;

/// A live logical file of the table: a data file and the deletion vector
/// that deletes some of its rows, if it has one.
#[derive(Debug, PartialEq)]
struct Live {
    /// Relative to the table.
    pub(crate) path: String,
    pub(crate) partition: Partition,
    pub(crate) dv: Option<Descriptor>,
}

/// Replay the log directory `log`: its latest checkpoint when it has one,
/// then the JSON commits after it.
fn replay(log: &Path) -> Result<State, DataError> {
    let entries = std::fs::read_dir(log).map_err(DataError::NoLog)?;
    let mut commits: Vec<(u64, std::path::PathBuf)> = Vec::new();
    // Checkpoint parts by version: (part number, parts in all, path).
    let mut checkpoints: BTreeMap<u64, Vec<(u64, u64, std::path::PathBuf)>> = BTreeMap::new();
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        match log_file(&name)? {
            Some(LogFile::Commit(v)) => commits.push((v, entry.path())),
            Some(LogFile::Checkpoint {
                version,
                part,
                parts,
            }) => checkpoints
                .entry(version)
                .or_default()
                .push((part, parts, entry.path())),
            None => {}
        }
    }
    commits.sort();
    // A checkpoint counts once all its parts are there.
    checkpoints.retain(|_, parts| {
        parts.sort();
        let n = parts[0].1;
        parts.len() as u64 == n && parts.iter().enumerate().all(|(i, p)| p.0 == i as u64 + 1)
    });
    let checkpoint = match last_checkpoint(log)? {
        Some(v) if checkpoints.contains_key(&v) => Some(v),
        Some(version) => return Err(DataError::CheckpointIncomplete { version }),
        None => checkpoints.keys().next_back().copied(),
    };
    let first = checkpoint.map_or(0, |v| v + 1);
    let commits: Vec<_> = commits.into_iter().filter(|(v, _)| *v >= first).collect();
    if commits.is_empty() && checkpoint.is_none() {
        return Err(DataError::NoCommit);
    }
    for (expected, (version, _)) in (first..).zip(&commits) {
        if *version != expected {
            return Err(DataError::CommitGap {
                expected,
                found: *version,
            });
        }
    }
    let mut state = State::default();
    if let Some(version) = checkpoint {
        for (_, _, path) in &checkpoints[&version] {
            read_checkpoint(&mut state, path).map_err(|e| e.within(Within::Checkpoint(version)))?;
        }
    }
    for (version, path) in &commits {
        let text = super::read_data_file(path)
            .and_then(|b| {
                String::from_utf8(b)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            })
            .map_err(|source| DataError::CommitUnreadable {
                version: *version,
                source,
            })?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let action: serde_json::Value =
                serde_json::from_str(line).map_err(|source| DataError::CommitNotJson {
                    version: *version,
                    line: n + 1,
                    source,
                })?;
            apply(&mut state, &action).map_err(|e| e.within(Within::Commit(*version)))?;
        }
    }
    Ok(state)
}

/// A file of the log.
enum LogFile {
    /// `<version>.json`.
    Commit(u64),
    /// `<version>.checkpoint.parquet`, or part `part` of `parts` of a
    /// multi-part one (`<version>.checkpoint.<part>.<parts>.parquet`).
    Checkpoint { version: u64, part: u64, parts: u64 },
}

/// What the log file called `name` is; an error for a checkpoint of a
/// kind that is not read (V2, named by a UUID).
fn log_file(name: &str) -> Result<Option<LogFile>, DataError> {
    let number = |s: &str, len: usize| {
        (s.len() == len && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    if let Some(v) = name.strip_suffix(".json").and_then(|v| number(v, 20)) {
        return Ok(Some(LogFile::Commit(v)));
    }
    let Some((version, rest)) = name.split_once(".checkpoint.") else {
        return Ok(None);
    };
    let Some(version) = number(version, 20) else {
        return Ok(None);
    };
    let parts: Vec<&str> = rest.split('.').collect();
    match parts.as_slice() {
        ["parquet"] => Ok(Some(LogFile::Checkpoint {
            version,
            part: 1,
            parts: 1,
        })),
        [part, parts, "parquet"] => match (number(part, 10), number(parts, 10)) {
            (Some(part), Some(parts)) if part >= 1 && part <= parts => {
                Ok(Some(LogFile::Checkpoint {
                    version,
                    part,
                    parts,
                }))
            }
            _ => Ok(None),
        },
        _ => Err(DataError::V2Checkpoint {
            name: name.to_string(),
        }),
    }
}

/// The version `_last_checkpoint` names, if the log has that file.
fn last_checkpoint(log: &Path) -> Result<Option<u64>, DataError> {
    let text = match crate::untrusted::read_to_string(&log.join("_last_checkpoint")) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(DataError::LastCheckpointUnreadable(e)),
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("version")?.as_u64())
        .map(Some)
        .ok_or(DataError::LastCheckpointNoVersion)
}

/// Apply the live files and the schema of a checkpoint (a Parquet file
/// of one action a row; its `remove` rows are tombstones of files no
/// longer live).
fn read_checkpoint(state: &mut State, path: &Path) -> Result<(), DataError> {
    let bytes = super::read_data_file(path).map_err(DataError::Unreadable)?;
    for row in super::parquet_file::json_rows(bytes)? {
        let serde_json::Value::Object(mut action) = row else {
            continue;
        };
        action.retain(|k, v| !v.is_null() && (k == "add" || k == "metaData"));
        apply(state, &serde_json::Value::Object(action))?;
    }
    Ok(())
}

/// Apply one action. A logical file is its path and the unique id of its
/// deletion vector (none: no rows deleted): an `add` replaces any file of
/// the same path (a later delete adds the file again with a new vector),
/// a `remove` retires the file of the same path and vector only, so the
/// `remove` of a file's old vector and the `add` of its new one in one
/// commit leave the new one live, in whichever order they come.
fn apply(state: &mut State, action: &serde_json::Value) -> Result<(), DataError> {
    if let Some(add) = action.get("add") {
        let path = file_path(add)?;
        let dv = Descriptor::of(add).map_err(DataError::in_file(&path))?;
        let partition = add
            .get("partitionValues")
            .and_then(serde_json::Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().filter(|s| !s.is_empty()).map(str::to_string),
                )
            })
            .collect();
        state.live.retain(|f| f.path != path);
        state.live.push(Live {
            path,
            partition,
            dv,
        });
    } else if let Some(remove) = action.get("remove") {
        let path = file_path(remove)?;
        let id = Descriptor::of(remove)
            .map_err(DataError::in_file(&path))?
            .map(|d| d.unique_id());
        state
            .live
            .retain(|f| f.path != path || f.dv.as_ref().map(Descriptor::unique_id) != id);
    } else if let Some(meta) = action.get("metaData") {
        let schema: serde_json::Value = meta
            .get("schemaString")
            .and_then(serde_json::Value::as_str)
            .map(serde_json::from_str)
            .transpose()
            .map_err(DataError::BadSchemaString)?
            .unwrap_or_default();
        let fields = schema
            .get("fields")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten();
        state.schema.clear();
        state.logical.clear();
        for f in fields {
            let Some(name) = f.get("name").and_then(serde_json::Value::as_str) else {
                continue;
            };
            let Some(ty) = f.get("type") else { continue };
            state.schema.push((name.to_string(), delta_type(ty)));
            let physical = f
                .pointer("/metadata/delta.columnMapping.physicalName")
                .and_then(serde_json::Value::as_str);
            if let Some(physical) = physical {
                state.logical.insert(physical.to_string(), name.to_string());
            }
        }
    }
    Ok(())
}

/// The path of an `add` or `remove` action, percent-decoded.
fn file_path(action: &serde_json::Value) -> Result<String, DataError> {
    let path = action
        .get("path")
        .and_then(serde_json::Value::as_str)
        .ok_or(DataError::ActionWithoutPath)?;
    if path.contains("://") {
        return Err(DataError::AbsoluteUri {
            path: path.to_string(),
        });
    }
    Ok(percent_decode(path))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The column type of a Delta schema type.
fn delta_type(ty: &serde_json::Value) -> ColType {
    match ty.as_str() {
        Some("byte" | "short" | "integer" | "long") => ColType::Integer,
        Some("float" | "double") => ColType::Float,
        Some(t) if t.starts_with("decimal") => ColType::Decimal,
        Some("boolean") => ColType::Bool,
        _ => ColType::String,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(log: &Path, version: u64, lines: &[&str]) {
        std::fs::write(log.join(format!("{version:020}.json")), lines.join("\n")).unwrap();
    }

    #[test]
    fn the_log_replays_adds_and_removes_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(LOG_DIR);
        std::fs::create_dir(&log).unwrap();
        let schema = r#"{\"type\":\"struct\",\"fields\":[{\"name\":\"region\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}},{\"name\":\"total\",\"type\":\"double\",\"nullable\":true,\"metadata\":{}},{\"name\":\"n\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}"#;
        let meta = format!(
            r#"{{"metaData":{{"id":"x","format":{{"provider":"parquet","options":{{}}}},"schemaString":"{schema}","partitionColumns":[],"configuration":{{}}}}}}"#
        );
        commit(
            &log,
            0,
            &[
                r#"{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}"#,
                &meta,
                r#"{"add":{"path":"part-0.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true}}"#,
            ],
        );
        commit(
            &log,
            1,
            &[
                r#"{"add":{"path":"region=North/part%20one.parquet","partitionValues":{"region":"North"},"size":1,"modificationTime":0,"dataChange":true}}"#,
            ],
        );
        commit(
            &log,
            2,
            &[
                r#"{"commitInfo":{"operation":"DELETE"}}"#,
                r#"{"remove":{"path":"part-0.parquet","dataChange":true}}"#,
            ],
        );
        let state = replay(&log).unwrap();
        assert_eq!(
            state.live,
            [Live {
                path: "region=North/part one.parquet".to_string(),
                partition: vec![("region".to_string(), Some("North".to_string()))],
                dv: None,
            }]
        );
        assert_eq!(
            state.schema,
            [
                ("region".to_string(), ColType::String),
                ("total".to_string(), ColType::Float),
                ("n".to_string(), ColType::Integer),
            ]
        );

        // A gap in the versions, a checkpoint named but not there, or a
        // V2 checkpoint is refused.
        std::fs::remove_file(log.join(format!("{:020}.json", 1))).unwrap();
        assert!(
            replay(&log)
                .unwrap_err()
                .to_string()
                .contains("lacks commit 1")
        );
        std::fs::write(log.join("_last_checkpoint"), r#"{"version":1}"#).unwrap();
        assert!(
            replay(&log)
                .unwrap_err()
                .to_string()
                .contains("names version 1")
        );
        std::fs::write(log.join("_last_checkpoint"), "{}").unwrap();
        assert!(
            replay(&log)
                .unwrap_err()
                .to_string()
                .contains("names no version")
        );
        std::fs::remove_file(log.join("_last_checkpoint")).unwrap();
        let v2 = format!(
            "{:020}.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
            2
        );
        std::fs::write(log.join(v2), "").unwrap();
        assert!(
            replay(&log)
                .unwrap_err()
                .to_string()
                .contains("V2 checkpoint")
        );
    }

    /// A table's column is found in a data file by its name: a file that
    /// names one twice is refused, naming the file and the column.
    #[test]
    fn a_data_file_naming_a_column_twice_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(LOG_DIR);
        std::fs::create_dir(&log).unwrap();
        commit(
            &log,
            0,
            &[
                r#"{"add":{"path":"part-0.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true}}"#,
            ],
        );
        let planned = |names: &[&str]| {
            let columns: Vec<(String, ColType)> = (names.iter())
                .map(|n| (n.to_string(), ColType::Integer))
                .collect();
            plan(dir.path(), |_| Ok(()), |_| (columns.clone(), 0)).map(|p| p.columns)
        };
        assert_eq!(planned(&["id", "n"]).unwrap().len(), 2);
        match planned(&["id", "n", "n"]) {
            Err(e) => assert!(
                e.to_string().starts_with("part-0.parquet: the column name `n` is used by columns 2 and 3 of this data file"),
                "{e}"
            ),
            Ok(columns) => panic!("read as {columns:?}"),
        }
    }

    #[test]
    fn a_logical_file_is_its_path_and_its_deletion_vector() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(LOG_DIR);
        std::fs::create_dir(&log).unwrap();
        let dv = |id: &str, n: u64| {
            format!(
                r#""deletionVector":{{"storageType":"u","pathOrInlineDv":"{id}","offset":1,"sizeInBytes":34,"cardinality":{n}}}"#
            )
        };
        let (one, two) = ("vBn[lx{q8@P<9BNH/isA", "ab^-aqEH.-t@S}K{vb[*k^");
        commit(
            &log,
            0,
            &[
                r#"{"add":{"path":"a.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true}}"#,
                r#"{"add":{"path":"b.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true}}"#,
            ],
        );
        // A delete: the file added again with a vector, then the file
        // without one removed (the order of a commit's actions is not
        // theirs to keep).
        commit(
            &log,
            1,
            &[
                &format!(
                    r#"{{"add":{{"path":"a.parquet","partitionValues":{{}},"size":1,"modificationTime":0,"dataChange":true,{}}}}}"#,
                    dv(one, 1)
                ),
                r#"{"remove":{"path":"a.parquet","dataChange":true}}"#,
            ],
        );
        let state = replay(&log).unwrap();
        let dvs: Vec<(&str, Option<String>)> = state
            .live
            .iter()
            .map(|f| (f.path.as_str(), f.dv.as_ref().map(Descriptor::unique_id)))
            .collect();
        assert_eq!(
            dvs,
            [
                ("b.parquet", None),
                ("a.parquet", Some(format!("u{one}@1")))
            ]
        );
        // A later delete replaces the vector; removing the old one, or the
        // file without a vector, leaves the new one live.
        commit(
            &log,
            2,
            &[
                &format!(
                    r#"{{"remove":{{"path":"a.parquet","dataChange":true,{}}}}}"#,
                    dv(one, 1)
                ),
                &format!(
                    r#"{{"add":{{"path":"a.parquet","partitionValues":{{}},"size":1,"modificationTime":0,"dataChange":true,{}}}}}"#,
                    dv(two, 2)
                ),
                r#"{"remove":{"path":"a.parquet","dataChange":true}}"#,
            ],
        );
        let state = replay(&log).unwrap();
        assert_eq!(state.live.len(), 2);
        assert_eq!(
            state.live[1].dv.as_ref().unwrap().unique_id(),
            format!("u{two}@1")
        );
        assert_eq!(state.live[1].dv.as_ref().unwrap().cardinality, 2);
        // Removing the live vector retires the file.
        commit(
            &log,
            3,
            &[&format!(
                r#"{{"remove":{{"path":"a.parquet","dataChange":true,{}}}}}"#,
                dv(two, 2)
            )],
        );
        let state = replay(&log).unwrap();
        assert_eq!(state.live.len(), 1);
        // A vector of an unknown storage type is refused, naming the file.
        commit(
            &log,
            4,
            &[
                r#"{"add":{"path":"c.parquet","partitionValues":{},"size":1,"modificationTime":0,"dataChange":true,"deletionVector":{"storageType":"x","pathOrInlineDv":"","sizeInBytes":1,"cardinality":1}}}"#,
            ],
        );
        let e = replay(&log).unwrap_err().to_string();
        assert!(e.contains("c.parquet") && e.contains("storage type"), "{e}");
    }

    #[test]
    fn log_files_are_told_apart_by_name() {
        let kind = |name: &str| match log_file(name) {
            Ok(Some(LogFile::Commit(v))) => format!("commit {v}"),
            Ok(Some(LogFile::Checkpoint {
                version,
                part,
                parts,
            })) => format!("checkpoint {version} {part}/{parts}"),
            Ok(None) => "other".into(),
            Err(_) => "refused".into(),
        };
        assert_eq!(kind("00000000000000000007.json"), "commit 7");
        assert_eq!(
            kind("00000000000000000010.checkpoint.parquet"),
            "checkpoint 10 1/1"
        );
        assert_eq!(
            kind("00000000000000000010.checkpoint.0000000002.0000000003.parquet"),
            "checkpoint 10 2/3"
        );
        assert_eq!(kind("00000000000000000010.crc"), "other");
        assert_eq!(kind("_last_checkpoint"), "other");
        assert_eq!(kind("7.json"), "other");
        assert_eq!(
            kind("00000000000000000010.checkpoint.abc.parquet"),
            "refused"
        );
    }
}
