//! A Delta table at its current version: the latest checkpoint of
//! `_delta_log/` (the one `_last_checkpoint` names, else the newest whole
//! one), then the JSON commits after it replayed in order (`add` makes a
//! file live, `remove` retires it), then every live Parquet file read and
//! the rows concatenated.
//!
//! A partitioned table's partition columns come from each file's
//! `partitionValues`. A table with column mapping (`delta.columnMapping.mode`
//! `name` or `id`) names its columns in its data files and partition values
//! by their physical names (`col-<uuid>`): they are read back to the
//! logical names of the schema through each field's
//! `delta.columnMapping.physicalName`. A log with a gap in its versions, a
//! V2 checkpoint or a deletion vector is refused rather than read at a
//! wrong version.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Cells, ColType, Typed};

/// The log directory of a Delta table.
pub(crate) const LOG_DIR: &str = "_delta_log";

/// The table at `dir` and a sha256 of its live files (each named).
pub(crate) fn read(dir: &Path) -> Result<(Typed, String), String> {
    let log = dir.join(LOG_DIR);
    let state = replay(&log)?;
    let mut table = Typed {
        names: state.schema.iter().map(|(n, _)| n.clone()).collect(),
        types: None,
        columns: state.schema.iter().map(|_| Cells::default()).collect(),
        rows: 0,
    };
    let mut types: Vec<ColType> = state.schema.iter().map(|(_, t)| *t).collect();
    // The column called `name`, made (null so far) if the table lacks it.
    let mut column = |table: &mut Typed, name: &str, ty: ColType| match table
        .names
        .iter()
        .position(|n| n == name)
    {
        Some(i) => i,
        None => {
            table.names.push(name.to_string());
            table.columns.push(Cells::nulls(table.rows));
            types.push(ty);
            table.names.len() - 1
        }
    };
    let mut digest = String::new();
    for (file, partition) in &state.live {
        let path = dir.join(file);
        let bytes = super::read_data_file(&path)
            .map_err(|e| format!("cannot read live file {file}: {e}"))?;
        digest.push_str(&format!("{} {file}\n", crate::hash::sha256_hex(&bytes)));
        let part = super::parquet_file::read(bytes).map_err(|e| format!("{file}: {e}"))?;
        // Columns by name: the log's schema, then any only a file has;
        // partition columns are in the log (and win over a file's own).
        let mut filled = vec![false; table.names.len()];
        for (name, value) in partition {
            let i = column(&mut table, state.logical(name), ColType::String);
            filled.resize(table.names.len(), false);
            if !filled[i] {
                for _ in 0..part.rows {
                    table.columns[i].push(value.as_deref());
                }
                filled[i] = true;
            }
        }
        for ((name, ty), cells) in part
            .names
            .iter()
            .zip(part.types.iter().flatten())
            .zip(&part.columns)
        {
            let i = column(&mut table, state.logical(name), *ty);
            filled.resize(table.names.len(), false);
            if !filled[i] {
                table.columns[i].append(cells);
                filled[i] = true;
            }
        }
        for (i, done) in filled.iter().enumerate() {
            if !done {
                table.columns[i].append(&Cells::nulls(part.rows));
            }
        }
        table.rows += part.rows;
    }
    table.types = Some(types);
    Ok((table, crate::hash::sha256_hex(digest.as_bytes())))
}

/// What the log says at its latest version.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct State {
    /// The live data files, relative to the table, in the order added,
    /// with their partition values.
    pub live: Vec<(String, Partition)>,
    /// Columns of the latest `metaData` schema.
    pub schema: Vec<(String, ColType)>,
    /// Under column mapping, each column's logical name by its physical
    /// one.
    pub logical: BTreeMap<String, String>,
}

impl State {
    /// The logical name of the column a data file or a partition value
    /// calls `physical`.
    fn logical<'a>(&'a self, physical: &'a str) -> &'a str {
        self.logical.get(physical).map_or(physical, String::as_str)
    }
}

/// A file's partition columns and values (None: null).
pub(crate) type Partition = Vec<(String, Option<String>)>;

/// Replay the log directory `log`: its latest checkpoint when it has one,
/// then the JSON commits after it.
pub(crate) fn replay(log: &Path) -> Result<State, String> {
    let entries = std::fs::read_dir(log).map_err(|e| format!("cannot read _delta_log: {e}"))?;
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
        Some(v) => {
            return Err(format!(
                "its _last_checkpoint names version {v}, whose checkpoint is not all there"
            ));
        }
        None => checkpoints.keys().next_back().copied(),
    };
    let first = checkpoint.map_or(0, |v| v + 1);
    let commits: Vec<_> = commits.into_iter().filter(|(v, _)| *v >= first).collect();
    if commits.is_empty() && checkpoint.is_none() {
        return Err("its _delta_log has no commit".into());
    }
    for (expected, (version, _)) in (first..).zip(&commits) {
        if *version != expected {
            return Err(format!(
                "its _delta_log lacks commit {expected} (found {version}): \
                 an older log was cleaned up without a checkpoint before it"
            ));
        }
    }
    let mut state = State::default();
    if let Some(version) = checkpoint {
        for (_, _, path) in &checkpoints[&version] {
            read_checkpoint(&mut state, path).map_err(|e| format!("checkpoint {version}: {e}"))?;
        }
    }
    for (version, path) in &commits {
        let text = super::read_data_file(path)
            .and_then(|b| String::from_utf8(b).map_err(|e| e.to_string()))
            .map_err(|e| format!("cannot read {LOG_DIR}/{version:020}.json: {e}"))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let action: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| format!("commit {version} line {}: not JSON: {e}", n + 1))?;
            apply(&mut state, &action).map_err(|e| format!("commit {version}: {e}"))?;
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
fn log_file(name: &str) -> Result<Option<LogFile>, String> {
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
        _ => Err(format!(
            "its _delta_log has a V2 checkpoint ({name}), which is not read: \
             write classic checkpoints (delta.checkpointPolicy = classic)"
        )),
    }
}

/// The version `_last_checkpoint` names, if the log has that file.
fn last_checkpoint(log: &Path) -> Result<Option<u64>, String> {
    let text = match crate::userfile::read_to_string(&log.join("_last_checkpoint")) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read _last_checkpoint: {e}")),
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("version")?.as_u64())
        .map(Some)
        .ok_or_else(|| "its _last_checkpoint names no version".into())
}

/// Apply the live files and the schema of a checkpoint (a Parquet file
/// of one action a row; its `remove` rows are tombstones of files no
/// longer live).
fn read_checkpoint(state: &mut State, path: &Path) -> Result<(), String> {
    let bytes = super::read_data_file(path).map_err(|e| format!("cannot read it: {e}"))?;
    for row in super::parquet_file::json_rows(bytes)? {
        let serde_json::Value::Object(mut action) = row else {
            continue;
        };
        action.retain(|k, v| !v.is_null() && (k == "add" || k == "metaData"));
        apply(state, &serde_json::Value::Object(action))?;
    }
    Ok(())
}

fn apply(state: &mut State, action: &serde_json::Value) -> Result<(), String> {
    if let Some(add) = action.get("add") {
        let path = file_path(add)?;
        if add.get("deletionVector").is_some_and(|d| !d.is_null()) {
            return Err(format!("{path} has a deletion vector, which is not read"));
        }
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
        state.live.retain(|(p, _)| *p != path);
        state.live.push((path, partition));
    } else if let Some(remove) = action.get("remove") {
        let path = file_path(remove)?;
        state.live.retain(|(p, _)| *p != path);
    } else if let Some(meta) = action.get("metaData") {
        let schema: serde_json::Value = meta
            .get("schemaString")
            .and_then(serde_json::Value::as_str)
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| format!("bad schemaString: {e}"))?
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
fn file_path(action: &serde_json::Value) -> Result<String, String> {
    let path = action
        .get("path")
        .and_then(serde_json::Value::as_str)
        .ok_or("an add or remove action has no path")?;
    if path.contains("://") {
        return Err(format!("{path} is an absolute URI, which is not read"));
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
            [(
                "region=North/part one.parquet".to_string(),
                vec![("region".to_string(), Some("North".to_string()))]
            )]
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
        assert!(replay(&log).unwrap_err().contains("lacks commit 1"));
        std::fs::write(log.join("_last_checkpoint"), r#"{"version":1}"#).unwrap();
        assert!(replay(&log).unwrap_err().contains("names version 1"));
        std::fs::write(log.join("_last_checkpoint"), "{}").unwrap();
        assert!(replay(&log).unwrap_err().contains("names no version"));
        std::fs::remove_file(log.join("_last_checkpoint")).unwrap();
        let v2 = format!(
            "{:020}.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
            2
        );
        std::fs::write(log.join(v2), "").unwrap();
        assert!(replay(&log).unwrap_err().contains("V2 checkpoint"));
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
