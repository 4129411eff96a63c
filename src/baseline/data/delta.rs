//! A Delta table at its current version: the JSON commits of `_delta_log/`
//! replayed in order (`add` makes a file live, `remove` retires it), then
//! every live Parquet file read and the rows concatenated.
//!
//! A partitioned table's partition columns come from each file's
//! `partitionValues`. Checkpoints are not read: a table whose log has a
//! `_last_checkpoint` (or whose JSON commits do not start at version 0) is
//! refused rather than read at a wrong version, and so are deletion
//! vectors.

use std::path::Path;

use super::{ColType, Typed};

/// The log directory of a Delta table.
pub(crate) const LOG_DIR: &str = "_delta_log";

/// The table at `dir` and a sha256 of its live files (each named).
pub(crate) fn read(dir: &Path) -> Result<(Typed, String), String> {
    let log = dir.join(LOG_DIR);
    let state = replay(&log)?;
    let mut table = Typed {
        names: state.schema.iter().map(|(n, _)| n.clone()).collect(),
        types: state.schema.iter().map(|(_, t)| *t).collect(),
        rows: Vec::new(),
    };
    let mut digest = String::new();
    for (file, partition) in &state.live {
        let path = dir.join(file);
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read live file {file}: {e}"))?;
        digest.push_str(&format!("{} {file}\n", crate::hash::sha256_hex(&bytes)));
        let part = super::parquet_file::read(bytes).map_err(|e| format!("{file}: {e}"))?;
        // Columns by name: the log's schema, then any only a file has.
        let at: Vec<usize> = part
            .names
            .iter()
            .zip(&part.types)
            .map(
                |(name, ty)| match table.names.iter().position(|n| n == name) {
                    Some(i) => i,
                    None => {
                        table.names.push(name.clone());
                        table.types.push(*ty);
                        table.names.len() - 1
                    }
                },
            )
            .collect();
        // Partition columns are in the log, not in the file.
        let fixed: Vec<(usize, Option<String>)> = partition
            .iter()
            .map(|(name, value)| {
                let i = match table.names.iter().position(|n| n == name) {
                    Some(i) => i,
                    None => {
                        table.names.push(name.clone());
                        table.types.push(ColType::String);
                        table.names.len() - 1
                    }
                };
                (i, value.clone())
            })
            .collect();
        for row in part.rows {
            let mut cells = vec![None; table.names.len()];
            for (j, value) in row.into_iter().enumerate() {
                cells[at[j]] = value;
            }
            for (i, value) in &fixed {
                cells[*i].clone_from(value);
            }
            table.rows.push(cells);
        }
    }
    let width = table.names.len();
    for row in &mut table.rows {
        row.resize(width, None);
    }
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
}

/// A file's partition columns and values (None: null).
pub(crate) type Partition = Vec<(String, Option<String>)>;

/// Replay the JSON commits of the log directory `log`.
pub(crate) fn replay(log: &Path) -> Result<State, String> {
    if log.join("_last_checkpoint").exists() {
        return Err(
            "its _delta_log has a checkpoint (_last_checkpoint), which is not read: \
             turn checkpoints off for this table (delta.checkpointInterval) or snapshot a Parquet export"
                .into(),
        );
    }
    let entries = std::fs::read_dir(log).map_err(|e| format!("cannot read _delta_log: {e}"))?;
    let mut commits: Vec<(u64, std::path::PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let version = name.strip_suffix(".json")?;
            (version.len() == 20 && version.bytes().all(|b| b.is_ascii_digit()))
                .then(|| (version.parse().ok(), e.path()))
                .and_then(|(v, p)| Some((v?, p)))
        })
        .collect();
    commits.sort();
    if commits.is_empty() {
        return Err("its _delta_log has no commit".into());
    }
    for (expected, (version, _)) in commits.iter().enumerate() {
        if *version != expected as u64 {
            return Err(format!(
                "its _delta_log lacks commit {expected} (found {version}): \
                 an older log was cleaned up, and checkpoints are not read"
            ));
        }
    }
    let mut state = State::default();
    for (version, path) in &commits {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read commit {version}: {e}"))?;
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
        state.schema = schema
            .get("fields")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|f| {
                let name = f.get("name")?.as_str()?.to_string();
                Some((name, delta_type(f.get("type")?)))
            })
            .collect();
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
        Some(t) if t.starts_with("decimal") => ColType::Float,
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

        // A gap in the versions, or a checkpoint, is refused.
        std::fs::remove_file(log.join(format!("{:020}.json", 1))).unwrap();
        assert!(replay(&log).unwrap_err().contains("lacks commit 1"));
        std::fs::write(log.join("_last_checkpoint"), "{}").unwrap();
        assert!(replay(&log).unwrap_err().contains("checkpoint"));
    }
}
