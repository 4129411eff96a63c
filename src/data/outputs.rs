//! Finding and reading a case's data outputs in its working dir: each
//! file a declared path or glob names, and each table or query of a
//! database file, read only when this run wrote it.
//!
//! What each output was before the command ran is looked at first
//! ([`OutputsBefore::look`]): an output the run left as it was (a file
//! from an earlier run that a `check` project keeps, or that the case no
//! longer writes) is not this run's output, and fails as one that was not
//! written, never compared.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::DataError;
use super::{Masking, Table, db, dbt, delta, read_db_table, read_table};
use crate::config::OutputSpec;
use crate::model::DataFormat;
use crate::untrusted::Stamp;

/// One data file read after a case, not yet compared.
#[derive(Debug)]
pub(crate) struct OutputRead {
    /// Index of its entry in the case's `outputs`.
    pub(crate) spec: usize,
    /// The file relative to the working dir (the pattern when nothing
    /// matched it).
    pub(crate) rel: String,
    /// The table and the file's sha256, or why there is none.
    pub(crate) data: Result<(Table, String), DataError>,
    /// The names of the secrets whose values it held (masked in `data`).
    pub(crate) secrets: Vec<String>,
}

impl OutputRead {
    /// A table, query or model output (the `spec`th, `spec`) read as
    /// `data`, with the secrets `mask` found in it.
    fn of_database(
        i: usize,
        spec: &OutputSpec,
        data: Result<(Table, String), DataError>,
        mask: &mut Masking<'_>,
    ) -> OutputRead {
        OutputRead {
            spec: i,
            rel: spec.path.clone(),
            data,
            secrets: mask.take_found(),
        }
    }
}

/// What an output is before the command runs: a file's stamp, or a Delta
/// table's log, every file of it stamped (a write adds a commit).
#[derive(Debug, PartialEq, Eq)]
enum Before {
    File(Stamp),
    Table(BTreeMap<String, Stamp>),
}

/// The outputs of a case as they were before its command ran, by path
/// relative to the working dir: the files, and the database files of
/// its table outputs.
#[derive(Debug, Default)]
pub(crate) struct OutputsBefore {
    files: BTreeMap<String, Before>,
    databases: BTreeMap<String, Vec<Option<Stamp>>>,
    /// What a server's statistics said of each server table output, by
    /// its name.
    servers: BTreeMap<String, String>,
    /// dbt's `target/run_results.json`, when a `model` output is declared
    /// and the file was there.
    run_results: Option<Stamp>,
}

impl OutputsBefore {
    /// Look at every output `specs` name under `working_dir`, before the
    /// command runs.
    pub(crate) fn look(specs: &[OutputSpec], working_dir: &Path) -> OutputsBefore {
        let mut seen = OutputsBefore::default();
        for spec in specs {
            if spec.model.is_some() {
                seen.run_results = crate::untrusted::stamp(&working_dir.join(dbt::RUN_RESULTS));
                continue;
            }
            if let Some(source) = &spec.table {
                match source.database.file() {
                    Some(file) => {
                        let state = database_state(&working_dir.join(file));
                        if state.iter().any(Option::is_some) {
                            seen.databases.insert(file.to_string(), state);
                        }
                    }
                    None => {
                        if let Some(state) = db::server_state(source) {
                            seen.servers.insert(spec.path.clone(), state);
                        }
                    }
                }
                continue;
            }
            for rel in matching(&spec.path, spec.format, working_dir) {
                if let Some(state) = state(&working_dir.join(&rel), spec.format) {
                    seen.files.insert(rel, state);
                }
            }
        }
        seen
    }

    /// Whether the output `rel` is just as it was before the command ran.
    fn unchanged(&self, rel: &str, path: &Path, format: DataFormat) -> bool {
        self.files
            .get(rel)
            .is_some_and(|before| state(path, format).as_ref() == Some(before))
    }

    /// Whether the server's statistics of the output `name` (of `source`)
    /// are as they were before the command ran. A writer's statistics
    /// reach the server as its session ends, which may be just after the
    /// command ended: they are asked again for up to two seconds before
    /// the output is taken as unwritten.
    fn server_unchanged(&self, name: &str, source: &crate::config::TableSource) -> bool {
        let Some(before) = self.servers.get(name) else {
            return false;
        };
        for _ in 0..20 {
            if db::server_state(source).as_ref() != Some(before) {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        true
    }

    /// Whether the database file `file` (relative to `working_dir`) and
    /// its write-ahead log are just as they were before the command ran.
    fn database_unchanged(&self, file: &str, working_dir: &Path) -> bool {
        self.databases
            .get(file)
            .is_some_and(|before| database_state(&working_dir.join(file)) == *before)
    }
}

/// What a database file is now: its stamp and its write-ahead log's
/// (DuckDB's `.wal`, SQLite's `-wal`), a write that has not reached the
/// file yet being in the log.
fn database_state(path: &Path) -> Vec<Option<Stamp>> {
    let wal = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        crate::untrusted::stamp(Path::new(&name))
    };
    vec![crate::untrusted::stamp(path), wal(".wal"), wal("-wal")]
}

/// What the output at `path` is now; None when there is none.
fn state(path: &Path, format: DataFormat) -> Option<Before> {
    if format != DataFormat::Delta {
        return crate::untrusted::stamp(path).map(Before::File);
    }
    let log = path.join(delta::LOG_DIR);
    let files = std::fs::read_dir(&log).ok()?;
    let stamps = files
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            Some((name, crate::untrusted::stamp(&e.path())?))
        })
        .collect();
    Some(Before::Table(stamps))
}

/// Read the files of `specs` under `working_dir`, the values of `mask`'s
/// secrets masked: each file a glob matches is one output; a pattern that
/// matches nothing is one output that failed to read, and so is a file
/// this run did not write (unchanged since `before`).
pub(crate) fn read_outputs(
    specs: &[OutputSpec],
    working_dir: &Path,
    before: &OutputsBefore,
    mask: &mut Masking<'_>,
) -> Vec<OutputRead> {
    let mut out = Vec::new();
    // dbt's artifacts, read at the first `model` output.
    let mut artifacts: Option<Result<dbt::Artifacts, String>> = None;
    for (i, spec) in specs.iter().enumerate() {
        if let Some(model) = &spec.model {
            let results = crate::untrusted::stamp(&working_dir.join(dbt::RUN_RESULTS));
            let data = if before.run_results.is_some() && results == before.run_results {
                Err(DataError::ModelNotBuilt {
                    model: model.name.clone(),
                    why: format!(
                        "{} is unchanged since before the command ran",
                        dbt::RUN_RESULTS
                    ),
                })
            } else {
                let loaded = artifacts.get_or_insert_with(|| {
                    dbt::Artifacts::load(working_dir).map_err(|e| e.to_string())
                });
                match loaded {
                    Ok(a) => a
                        .resolve(model, working_dir)
                        .and_then(|source| read_db_table(&source, working_dir, spec, mask)),
                    Err(why) => Err(DataError::Dbt(why.clone())),
                }
            };
            out.push(OutputRead::of_database(i, spec, data, mask));
            continue;
        }
        if let Some(source) = &spec.table {
            let data = match source.database.file() {
                Some(file) if before.database_unchanged(file, working_dir) => {
                    Err(DataError::TableNotWritten(file.to_string()))
                }
                None if before.server_unchanged(&spec.path, source) => {
                    Err(DataError::StatsUnchanged(spec.path.clone()))
                }
                _ => read_db_table(source, working_dir, spec, mask),
            };
            out.push(OutputRead::of_database(i, spec, data, mask));
            continue;
        }
        let files = matching(&spec.path, spec.format, working_dir);
        if files.is_empty() {
            out.push(OutputRead {
                spec: i,
                rel: spec.path.clone(),
                data: Err(DataError::NoSuchFile),
                secrets: Vec::new(),
            });
        }
        for rel in files {
            let path = working_dir.join(&rel);
            let data = if before.unchanged(&rel, &path, spec.format) {
                Err(DataError::NotWritten)
            } else if let Err(e) =
                crate::untrusted::confined(&path, working_dir, "the case's working directory")
            {
                // A link out of the working dir (to `/proc/self/environ`,
                // say) would have the harness read a file of its own.
                Err(DataError::Refused(e))
            } else {
                read_table(&path, spec, mask)
            };
            out.push(OutputRead {
                spec: i,
                rel,
                data,
                secrets: mask.take_found(),
            });
        }
    }
    out
}

/// Whether `pattern` is a glob rather than one path.
pub(crate) fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

/// The files (relative, `/`-separated, sorted) `pattern` names; for a
/// Delta table, the directories with a `_delta_log`.
fn matching(pattern: &str, format: DataFormat, working_dir: &Path) -> Vec<String> {
    let wanted = |path: &Path, is_file: bool| match format {
        DataFormat::Delta => path.join(delta::LOG_DIR).is_dir(),
        _ => is_file,
    };
    // Anything but a directory is an output file to the match, a FIFO or
    // a link to a device included: the guarded read refuses it, naming it.
    let file_like = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_dir());
    if !is_glob(pattern) {
        let path = working_dir.join(pattern);
        return if wanted(&path, file_like(&path)) {
            vec![pattern.to_string()]
        } else {
            Vec::new()
        };
    }
    let Some(matcher) = glob(pattern) else {
        return Vec::new();
    };
    // Walk from the literal directories before the first glob part only.
    let base: Vec<&str> = pattern
        .split('/')
        .take_while(|part| !is_glob(part))
        .collect();
    let base = base.join("/");
    let mut found: Vec<String> = walkdir::WalkDir::new(working_dir.join(&base))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| wanted(e.path(), !e.file_type().is_dir()))
        .filter_map(|e| {
            let rel = e.path().strip_prefix(working_dir).ok()?;
            let rel = rel.to_string_lossy().replace('\\', "/");
            matcher.is_match(&rel).then_some(rel)
        })
        .collect();
    found.sort();
    found
}

/// The matcher of an output glob (`*` stays within a directory).
pub(crate) fn glob(pattern: &str) -> Option<globset::GlobMatcher> {
    let glob = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()?;
    Some(glob.compile_matcher())
}
