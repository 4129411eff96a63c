//! `cargo golden snapshots [--prune]`: snapshot files under `snapshots/`
//! and `golden-baseline.json` entries that no declared case owns, found
//! from the harness file alone (no run), and removed with `--prune`.
//!
//! A case owns `snapshots/<stem>.stdout` and `.stderr` for the streams it
//! snapshots, and `snapshots/<stem>.<path>.data` for each of its
//! `outputs`; an output declared by a glob owns every
//! `snapshots/<stem>.*.data`, since which files it matches is known only
//! when it runs. What the last run in the out dir found of them is read
//! too: a glob's blessed output that run did not write (`output_missing`)
//! leaves its snapshot with nothing to compare, an orphan as well.

use std::collections::BTreeSet;
use std::io;
use std::path::PathBuf;

use crate::baseline::BaselineError;
use crate::baseline::file::BaselineFile;
use crate::config::{CaseDef, HarnessConfig};
use crate::layout::{BASELINE_FILE, SNAPSHOT_DIR, snapshot_stem};

/// What no declared case owns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Orphans {
    /// Snapshot files, relative to the harness file's directory.
    pub(crate) files: Vec<String>,
    /// Names of baseline entries.
    pub(crate) entries: Vec<String>,
    /// Data snapshot files of a glob's outputs that the last run did not
    /// write, each with that output.
    pub(crate) unwritten: Vec<(String, String)>,
}

impl Orphans {
    /// Whether there is nothing orphaned.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty() && self.entries.is_empty() && self.unwritten.is_empty()
    }

    /// One line per orphan.
    pub(crate) fn lines(&self) -> Vec<String> {
        let files = self.files.iter().map(|f| format!("snapshot file  {f}"));
        let unwritten = self.unwritten.iter().map(|(f, output)| {
            format!("snapshot file  {f} (its output {output} was not written by the last run)")
        });
        let entries =
            (self.entries.iter()).map(|e| format!("baseline entry {BASELINE_FILE}: {e:?}"));
        files.chain(unwritten).chain(entries).collect()
    }

    /// Every orphaned file, relative to the harness file's directory.
    pub(crate) fn all_files(&self) -> impl Iterator<Item = &String> {
        self.files
            .iter()
            .chain(self.unwritten.iter().map(|(f, _)| f))
    }
}

/// Why orphans could not be found or removed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OrphanError {
    /// The snapshot directory could not be read, or a file removed.
    #[error("cannot {what} {}", crate::layout::display_relative(path))]
    Io {
        /// Reading or removing.
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The baseline could not be read or written.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
}

/// Whether `file` (a name in `snapshots/`) belongs to `case`.
fn owns(case: &CaseDef, file: &str) -> bool {
    let stem = snapshot_stem(&case.name);
    let stream = |ext: &str| file == format!("{stem}.{ext}");
    if (case.snapshot.stdout && stream("stdout")) || (case.snapshot.stderr && stream("stderr")) {
        return true;
    }
    case.outputs.iter().any(|o| {
        if o.path.contains(['*', '?', '[', '{']) {
            file.starts_with(&format!("{stem}.")) && file.ends_with(".data")
        } else {
            let want = crate::data::snapshot_file(&stem, &o.path);
            want == format!("{SNAPSHOT_DIR}/{file}")
        }
    })
}

/// The snapshot files and baseline entries of `harness` that no declared
/// case owns; with `last_run` (an out dir), also the snapshots of glob
/// outputs its last run did not write.
pub(crate) fn find(
    harness: &HarnessConfig,
    last_run: Option<&std::path::Path>,
) -> Result<Orphans, OrphanError> {
    let dir = harness.base_dir.join(SNAPSHOT_DIR);
    let mut files = Vec::new();
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for entry in entries {
                let entry = entry.map_err(|source| OrphanError::Io {
                    what: "read",
                    path: dir.clone(),
                    source,
                })?;
                if !entry.file_type().is_ok_and(|t| t.is_file()) {
                    continue;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                if !harness.cases.iter().any(|c| owns(c, &name)) {
                    files.push(format!("{SNAPSHOT_DIR}/{name}"));
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(OrphanError::Io {
                what: "read",
                path: dir,
                source,
            });
        }
    }
    files.sort();
    let declared: BTreeSet<&str> = harness.cases.iter().map(|c| c.name.as_str()).collect();
    let entries = BaselineFile::load(&harness.base_dir.join(BASELINE_FILE))?
        .map(|b| b.cases)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| !declared.contains(e.name.as_str()))
        .map(|e| e.name)
        .collect();
    let unwritten = last_run.map_or_else(Vec::new, |out| unwritten(harness, out));
    Ok(Orphans {
        files,
        entries,
        unwritten,
    })
}

/// The data snapshots of declared cases that the last run in `out_dir`
/// found without their output (none when it has no readable summary).
fn unwritten(harness: &HarnessConfig, out_dir: &std::path::Path) -> Vec<(String, String)> {
    let summary = out_dir.join(crate::report::SUMMARY_FILE);
    let Ok(last) = crate::report::read_summary(&summary) else {
        return Vec::new();
    };
    let declared: BTreeSet<&str> = harness.cases.iter().map(|c| c.name.as_str()).collect();
    let mut found: Vec<(String, String)> = (last.cases.iter())
        .filter(|c| declared.contains(c.name.as_str()))
        .flat_map(|c| &c.snapshots)
        .filter(|s| s.outcome == crate::model::SnapshotOutcome::OutputMissing)
        .filter(|s| harness.base_dir.join(&s.file).is_file())
        .map(|s| (s.file.clone(), s.subject().to_string()))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// Remove `orphans` of `harness`: the files, and the entries from the
/// baseline (rewritten atomically).
pub(crate) fn prune(harness: &HarnessConfig, orphans: &Orphans) -> Result<(), OrphanError> {
    for f in orphans.all_files() {
        let path = harness.base_dir.join(f);
        std::fs::remove_file(&path).map_err(|source| OrphanError::Io {
            what: "remove",
            path: path.clone(),
            source,
        })?;
    }
    if orphans.entries.is_empty() {
        return Ok(());
    }
    let path = harness.base_dir.join(BASELINE_FILE);
    if let Some(mut baseline) = BaselineFile::load(&path)? {
        baseline
            .cases
            .retain(|e| !orphans.entries.contains(&e.name));
        baseline.save(&path)?;
    }
    Ok(())
}

/// `cargo golden snapshots [--prune]`: list the orphans of `loaded`'s
/// harness (exit 1 when there are some), or remove them with `prune`.
pub(crate) fn command(loaded: &crate::commands::Loaded, prune: bool) -> i32 {
    use crate::commands::output::{print_error, print_stdout};
    use crate::conclusion;
    let h = &loaded.harness;
    let orphans = match find(h, Some(&loaded.out_dir)) {
        Ok(o) => o,
        Err(e) => {
            print_error(&e);
            return conclusion::FAILED;
        }
    };
    for line in orphans.lines() {
        print_stdout(&line);
    }
    if orphans.is_empty() {
        eprintln!("no orphaned snapshot file or baseline entry");
        return conclusion::SUCCESS;
    }
    if !prune {
        eprintln!(
            "{} orphan(s): no declared case owns them; `cargo golden snapshots --prune` removes them",
            orphans.lines().len()
        );
        return conclusion::FAILED;
    }
    match self::prune(h, &orphans) {
        Ok(()) => {
            eprintln!("{:>12} {} orphan(s)", "Removed", orphans.lines().len());
            conclusion::SUCCESS
        }
        Err(e) => {
            print_error(&e);
            conclusion::FAILED
        }
    }
}
