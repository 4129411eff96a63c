//! `cargo golden merge`: combine the out dirs of sharded runs
//! (`--partition count:K/N` or `hash:K/N`) into one set of reports, as if
//! one run had run every case (docs/ci.md, CI: one job, or shards merged).
//!
//! Each shard is verified first, as `verify-evidence` does, and a shard
//! whose evidence does not hold up is refused; the verdicts of the merged
//! run are then taken from the evidence, never from a shard's summary.
//! Everything that could make a merge wrong is checked from the shards'
//! `summary.json` files and artifact files before anything is written, so
//! a refused merge ([`Refusal`]) leaves `--out` untouched. The shards must
//! come from the same harness file (its sha256), form one complete set of
//! partitions without overlap, and together hold every declared case
//! exactly once.
//!
//! The merged run gets a new run id and its own copy of the evidence under
//! `<out>/artifacts/<run_id>/execution/`, laid out as a run lays it out.
//! The merged dir then stands on its own (shard dirs are often CI artifacts
//! that expire) and `verify-evidence` checks it like any run. Files are
//! copied byte for byte with the guarded reader's copy, never read into memory
//! (outputs can be gigabytes), so every recorded evidence hash still holds;
//! only `evidence.json` is written anew, to point at the copies.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::commands::verify::SignatureCheck;
use crate::layout::{Artifacts, SIGNATURE_FILE};
use crate::model::{CaseRecord, RunRecord};
use crate::report::{self, ReportError, SUMMARY_FILE};
use crate::runner::select::Partition;
use crate::wire::history::{HistoryLine, Revision};

/// How many missing partitions or cases a refusal names before it only
/// counts the rest.
const LIST_LIMIT: usize = 10;

/// One shard's out dir, read back from its `summary.json`.
#[derive(Clone, Debug)]
pub(crate) struct Shard {
    /// The out dir as given.
    pub(crate) dir: PathBuf,
    /// The run its `summary.json` records (`out_dir` made absolute).
    pub(crate) record: RunRecord,
    /// How that summary named the harness file.
    pub(crate) harness_display: String,
    /// The partition it ran; `None` for a run of every case.
    pub(crate) partition: Option<Partition>,
}

/// The merged run, its reports not yet written (see [`merge`]).
#[derive(Clone, Debug)]
pub(crate) struct Merged {
    /// One record holding every case, in declaration order.
    pub(crate) record: RunRecord,
    /// How the reports name the harness file (as the shards named it).
    pub(crate) harness_display: String,
    /// The partitions merged, in shard order; empty when one run of every
    /// case was copied.
    pub(crate) partitions: Vec<Partition>,
    /// Shards that carry a signature no key was given to check: the merged
    /// run cannot carry it forward (its `SHA256SUMS` is new).
    pub(crate) unchecked_signatures: Vec<PathBuf>,
    /// The shards' `history.jsonl` lines of earlier runs (the runs merged
    /// now are the merged run's own lines), oldest first.
    pub(crate) history: Vec<HistoryLine>,
    /// The commit the shards ran, as their own history lines record it.
    pub(crate) revision: Revision,
}

/// Why shards cannot be merged. Found before anything is written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    /// No directory was given.
    #[error("no shard dir given")]
    NoShards,
    /// A directory has no `summary.json`.
    #[error(
        "{}: no summary.json here; pass the --out dir of each shard's run",
        dir.display()
    )]
    NoSummary {
        /// The directory.
        dir: PathBuf,
    },
    /// A `summary.json` cannot be read back.
    #[error("{}: cannot read its summary.json", dir.display())]
    Unreadable {
        /// The shard dir.
        dir: PathBuf,
        /// Why.
        #[source]
        source: ReportError,
    },
    /// A `summary.json` records a partition that does not parse.
    #[error("{}: summary.json records the partition `{value}`: {message}", dir.display())]
    BadPartition {
        /// The shard dir.
        dir: PathBuf,
        /// The recorded value.
        value: String,
        /// What is wrong with it.
        message: String,
    },
    /// Two shards ran different harness files (or different versions of
    /// one).
    #[error("the shards come from different harness files: {first}, {other}")]
    DifferentHarness {
        /// The first shard's.
        first: Box<ShardHarness>,
        /// The one that differs.
        other: Box<ShardHarness>,
    },
    /// Same harness file, but a different number of declared cases (ad-hoc
    /// `--golden` projects differ).
    #[error(
        "{} declares {first} case(s) but {} declares {declared}, although the harness file is the same (do their --golden lists differ?)",
        first_dir.display(), dir.display()
    )]
    DifferentDeclared {
        /// The first shard.
        first_dir: PathBuf,
        /// The cases it declares.
        first: usize,
        /// The shard that differs.
        dir: PathBuf,
        /// The cases it declares.
        declared: usize,
    },
    /// A run of every case given together with shards.
    #[error(
        "{} is a run of every case (no --partition) but {} is shard {other}: merge either one unpartitioned run or one run of each shard",
        dir.display(), other_dir.display()
    )]
    Unpartitioned {
        /// The unpartitioned run.
        dir: PathBuf,
        /// A partitioned one.
        other_dir: PathBuf,
        /// Its partition.
        other: Partition,
    },
    /// Two runs of every case: each holds all cases.
    #[error(
        "{} and {} were both run without --partition: each holds every case, so merging them would count every case twice",
        first.display(), second.display()
    )]
    SeveralUnpartitioned {
        /// One run.
        first: PathBuf,
        /// Another.
        second: PathBuf,
    },
    /// Partitions of different kinds or shard counts.
    #[error(
        "the shards are partitioned differently: {} ran {first}, {} ran {partition}; every shard must use the same kind (count or hash) and the same N",
        first_dir.display(), dir.display()
    )]
    MixedPartitions {
        /// The first shard.
        first_dir: PathBuf,
        /// Its partition.
        first: Partition,
        /// The shard that differs.
        dir: PathBuf,
        /// Its partition.
        partition: Partition,
    },
    /// The same partition given twice.
    #[error(
        "partition {partition} appears twice ({} and {}): its cases would be counted twice",
        first_dir.display(), dir.display()
    )]
    Overlap {
        /// The partition.
        partition: Partition,
        /// One shard that ran it.
        first_dir: PathBuf,
        /// Another.
        dir: PathBuf,
    },
    /// Some partitions of the set have no shard.
    #[error(
        "no shard ran {}: pass the out dir of every one of the {n} shards",
        listed(missing, *more)
    )]
    MissingPartitions {
        /// The first missing partitions.
        missing: Vec<Partition>,
        /// How many more are missing.
        more: usize,
        /// Shards in the set.
        n: u32,
    },
    /// A case appears in two shards.
    #[error(
        "case {name:?} (declaration index {index}) appears in both {} and {}",
        first_dir.display(), dir.display()
    )]
    DuplicateCase {
        /// The case.
        name: String,
        /// Its 0-based declaration index.
        index: usize,
        /// One shard holding it.
        first_dir: PathBuf,
        /// Another.
        dir: PathBuf,
    },
    /// A shard holds a case its partition does not include.
    #[error(
        "{}: case {name:?} (declaration index {index}) does not belong to partition {partition}",
        dir.display()
    )]
    WrongShard {
        /// The shard.
        dir: PathBuf,
        /// The case.
        name: String,
        /// Its 0-based declaration index.
        index: usize,
        /// The shard's partition.
        partition: Partition,
    },
    /// A case's index lies beyond the declared cases.
    #[error(
        "{}: case {name:?} has declaration index {index}, but the harness declares {declared} case(s)",
        dir.display()
    )]
    CaseOutOfRange {
        /// The shard.
        dir: PathBuf,
        /// The case.
        name: String,
        /// Its 0-based declaration index.
        index: usize,
        /// Cases the harness declares.
        declared: usize,
    },
    /// Declared cases that no shard holds.
    #[error(
        "the harness declares {declared} case(s) but no shard holds the one(s) at declaration index {} (0-based)",
        listed(missing, *more)
    )]
    MissingCases {
        /// The first missing 0-based indices.
        missing: Vec<usize>,
        /// How many more are missing.
        more: usize,
        /// Cases the harness declares.
        declared: usize,
    },
    /// An artifact path that is absolute or climbs out of the out dir.
    #[error(
        "{}: case {case:?} records the artifact path {path:?}, which is not inside the out dir",
        dir.display()
    )]
    UnsafeArtifact {
        /// The shard.
        dir: PathBuf,
        /// The case.
        case: String,
        /// The recorded path.
        path: String,
    },
    /// Evidence whose files are gone: the merged copy could not be verified.
    #[error(
        "{}: case {case:?} has evidence but its artifact {} is missing (was the shard's artifacts/ dir kept?)",
        dir.display(), path.display()
    )]
    MissingArtifact {
        /// The shard.
        dir: PathBuf,
        /// The case.
        case: String,
        /// The missing file.
        path: PathBuf,
    },
    /// A shard's evidence does not hold up (`verify-evidence` findings).
    #[error(
        "{}: its evidence does not verify, so its verdicts cannot be trusted:\n  {}",
        dir.display(),
        findings.join("\n  ")
    )]
    Unverified {
        /// The shard.
        dir: PathBuf,
        /// What `verify-evidence` found (the first few, then a count).
        findings: Vec<String>,
    },
    /// A key was given and a shard's signature does not verify with it
    /// (or it has none): its evidence may be forged, and the merged run
    /// would be signed over it.
    #[error(
        "{}: its {SIGNATURE_FILE} {why}; with a key (--public-key, or --sign-key's public half) only shards signed by that key are merged",
        dir.display()
    )]
    Signature {
        /// The shard.
        dir: PathBuf,
        /// What the check found.
        why: String,
    },
    /// `--out` is one of the shards: its summary would be overwritten.
    #[error("--out {} is one of the shard dirs; merge into another directory", out.display())]
    OutIsShard {
        /// The out dir.
        out: PathBuf,
    },
}

/// Which harness file a shard ran, as its `summary.json` records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ShardHarness {
    /// The shard dir.
    pub(crate) dir: PathBuf,
    /// The harness file (absolute, on the machine that ran the shard).
    pub(crate) path: PathBuf,
    /// sha256 of the file's bytes; empty for ad-hoc declarations.
    pub(crate) sha256: String,
}

impl ShardHarness {
    fn of(shard: &Shard) -> Box<ShardHarness> {
        Box::new(ShardHarness {
            dir: shard.dir.clone(),
            path: shard.record.harness_path.clone(),
            sha256: shard.record.harness_sha256.clone(),
        })
    }
}

impl fmt::Display for ShardHarness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sha = if self.sha256.is_empty() {
            "none: ad-hoc --golden declarations"
        } else {
            &self.sha256
        };
        write!(
            f,
            "{} ran {} (sha256 {sha})",
            self.dir.display(),
            self.path.display()
        )
    }
}

/// A merge failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MergeError {
    /// The shards cannot be merged; nothing was written.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// A directory of the merged run could not be created.
    #[error("cannot create {}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An artifact file could not be copied.
    #[error("cannot copy {} to {}", from.display(), to.display())]
    Copy {
        /// The shard's file.
        from: PathBuf,
        /// The merged copy.
        to: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An `evidence.json` of the merged run could not be written.
    #[error("cannot write the evidence of case {case:?}")]
    Evidence {
        /// The case.
        case: String,
        /// Why.
        #[source]
        source: io::Error,
    },
}

impl MergeError {
    /// Whether the merge was refused before anything was written (a usage
    /// error), rather than failing while writing.
    pub(crate) fn is_refusal(&self) -> bool {
        matches!(self, MergeError::Refused(_))
    }
}

/// `a, b, c` and, when some were left out, `and N more`.
fn listed<T: fmt::Display>(items: &[T], more: usize) -> String {
    let mut s = items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if more > 0 {
        s.push_str(&format!(" and {more} more"));
    }
    s
}

/// Verify the shard in the out dir `dir` as `verify-evidence` does (with
/// `key`, its signature too), and return its run record with every
/// verdict taken from the evidence (a shard's summary is never trusted)
/// and whether it carries a signature that was not checked.
fn verified_record(
    dir: &Path,
    key: Option<&minisign::PublicKey>,
) -> Result<(RunRecord, bool), Refusal> {
    let unverified = |findings: Vec<String>| Refusal::Unverified {
        dir: dir.to_path_buf(),
        findings,
    };
    let report = crate::commands::verify::verify_run(dir, key)
        .map_err(|e| unverified(vec![e.to_string()]))?;
    if key.is_some() && report.signature != SignatureCheck::Valid {
        let why = report
            .findings
            .iter()
            .find(|f| f.file == SIGNATURE_FILE)
            .map_or_else(|| "does not verify".to_string(), |f| f.message.clone());
        return Err(Refusal::Signature {
            dir: dir.to_path_buf(),
            why,
        });
    }
    if !report.is_ok() {
        let mut findings: Vec<String> = report
            .findings
            .iter()
            .take(LIST_LIMIT)
            .map(ToString::to_string)
            .collect();
        if report.findings.len() > LIST_LIMIT {
            findings.push(format!("and {} more", report.findings.len() - LIST_LIMIT));
        }
        return Err(unverified(findings));
    }
    let unchecked = report.signature == SignatureCheck::NotChecked;
    report
        .record
        .map(|r| (r, unchecked))
        .ok_or_else(|| unverified(vec!["its summary.json cannot be read".into()]))
}

/// Read the `summary.json` of the out dir `dir`.
pub(crate) fn read_shard(dir: &Path) -> Result<Shard, Refusal> {
    let path = dir.join(SUMMARY_FILE);
    if !path.is_file() {
        return Err(Refusal::NoSummary {
            dir: dir.to_path_buf(),
        });
    }
    let summary = report::read_summary_file(&path).map_err(|source| Refusal::Unreadable {
        dir: dir.to_path_buf(),
        source,
    })?;
    let partition = summary
        .record
        .partition
        .as_deref()
        .map(|value| {
            value
                .parse::<Partition>()
                .map_err(|e| Refusal::BadPartition {
                    dir: dir.to_path_buf(),
                    value: value.to_string(),
                    message: e.to_string(),
                })
        })
        .transpose()?;
    Ok(Shard {
        dir: dir.to_path_buf(),
        record: summary.record,
        harness_display: summary.harness_display,
        partition,
    })
}

/// Check that `shards` can be merged: same harness file, one complete set
/// of partitions (or a single run of every case), every declared case held
/// exactly once, and the evidence files of every case that ran present.
pub(crate) fn check_shards(shards: &[Shard]) -> Result<(), Refusal> {
    let Some(first) = shards.first() else {
        return Err(Refusal::NoShards);
    };
    for shard in &shards[1..] {
        if shard.record.harness_sha256 != first.record.harness_sha256 {
            return Err(Refusal::DifferentHarness {
                first: ShardHarness::of(first),
                other: ShardHarness::of(shard),
            });
        }
        if shard.record.declared_cases != first.record.declared_cases {
            return Err(Refusal::DifferentDeclared {
                first_dir: first.dir.clone(),
                first: first.record.declared_cases,
                dir: shard.dir.clone(),
                declared: shard.record.declared_cases,
            });
        }
    }
    let partitions: Vec<(&Path, Option<Partition>)> = shards
        .iter()
        .map(|s| (s.dir.as_path(), s.partition))
        .collect();
    check_partitions(&partitions)?;
    check_cases(
        first.record.declared_cases,
        shards.iter().flat_map(|s| {
            s.record
                .cases
                .iter()
                .map(|c| (s.dir.as_path(), s.partition, c.index, c.name.as_str()))
        }),
    )?;
    for shard in shards {
        for case in &shard.record.cases {
            for attempt in case.previous_attempts.iter().chain([case]) {
                check_artifacts(shard, attempt)?;
            }
        }
    }
    Ok(())
}

/// The partitions must be one complete set `kind:1/N` … `kind:N/N`, each
/// once; or there is a single run without a partition.
fn check_partitions(shards: &[(&Path, Option<Partition>)]) -> Result<(), Refusal> {
    let unpartitioned = shards.iter().find(|(_, p)| p.is_none());
    let partitioned = shards
        .iter()
        .find_map(|(d, p)| p.map(|p| (d.to_path_buf(), p)));
    let (first_dir, first) = match (unpartitioned, partitioned) {
        (None, None) => return Err(Refusal::NoShards),
        (Some((dir, _)), Some((other_dir, other))) => {
            return Err(Refusal::Unpartitioned {
                dir: dir.to_path_buf(),
                other_dir,
                other,
            });
        }
        (Some((dir, _)), None) => {
            return match shards.get(1) {
                Some((second, _)) => Err(Refusal::SeveralUnpartitioned {
                    first: dir.to_path_buf(),
                    second: second.to_path_buf(),
                }),
                None => Ok(()),
            };
        }
        (None, Some(p)) => p,
    };

    let n = first.shard().1;
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for (dir, partition) in shards {
        let partition = partition.expect("no unpartitioned shard is left");
        let (k, this_n) = partition.shard();
        if this_n != n || std::mem::discriminant(&partition) != std::mem::discriminant(&first) {
            return Err(Refusal::MixedPartitions {
                first_dir,
                first,
                dir: dir.to_path_buf(),
                partition,
            });
        }
        if let Some(earlier) = seen.insert(k, dir) {
            return Err(Refusal::Overlap {
                partition,
                first_dir: earlier.to_path_buf(),
                dir: dir.to_path_buf(),
            });
        }
    }
    let missing_count = n as usize - seen.len();
    if missing_count > 0 {
        // Lazily, so a huge N only costs the shards given plus the listed.
        let missing: Vec<Partition> = (1..=n)
            .filter(|k| !seen.contains_key(k))
            .take(LIST_LIMIT)
            .map(|k| with_shard(first, k))
            .collect();
        return Err(Refusal::MissingPartitions {
            more: missing_count - missing.len(),
            missing,
            n,
        });
    }
    Ok(())
}

/// `partition` with its shard number replaced by `k`.
fn with_shard(partition: Partition, k: u32) -> Partition {
    match partition {
        Partition::Count { n, .. } => Partition::Count { k, n },
        Partition::Hash { n, .. } => Partition::Hash { k, n },
    }
}

/// Every case index in `0..declared` held exactly once, each by a shard
/// whose partition includes it. `cases` yields (shard dir, its partition,
/// declaration index, name).
fn check_cases<'a>(
    declared: usize,
    cases: impl IntoIterator<Item = (&'a Path, Option<Partition>, usize, &'a str)>,
) -> Result<(), Refusal> {
    let mut owner: HashMap<usize, &Path> = HashMap::new();
    for (dir, partition, index, name) in cases {
        if index >= declared {
            return Err(Refusal::CaseOutOfRange {
                dir: dir.to_path_buf(),
                name: name.to_string(),
                index,
                declared,
            });
        }
        if let Some(partition) = partition
            && !partition.includes(index, name)
        {
            return Err(Refusal::WrongShard {
                dir: dir.to_path_buf(),
                name: name.to_string(),
                index,
                partition,
            });
        }
        if let Some(first_dir) = owner.insert(index, dir) {
            return Err(Refusal::DuplicateCase {
                name: name.to_string(),
                index,
                first_dir: first_dir.to_path_buf(),
                dir: dir.to_path_buf(),
            });
        }
    }
    let missing_count = declared - owner.len();
    if missing_count > 0 {
        let missing: Vec<usize> = (0..declared)
            .filter(|i| !owner.contains_key(i))
            .take(LIST_LIMIT)
            .collect();
        return Err(Refusal::MissingCases {
            more: missing_count - missing.len(),
            missing,
            declared,
        });
    }
    Ok(())
}

/// Artifact paths stay inside the shard's out dir, and a case that ran
/// still has the files its evidence hash covers.
fn check_artifacts(shard: &Shard, case: &CaseRecord) -> Result<(), Refusal> {
    let Some(a) = &case.artifacts else {
        return Ok(());
    };
    let kept = case
        .structured_result
        .as_ref()
        .and_then(|r| r.artifact.as_ref());
    let pending = (case.snapshots.iter()).filter_map(|s| s.pending.as_ref().map(|p| &p.path));
    for path in [&a.command, &a.stdout, &a.stderr, &a.evidence]
        .into_iter()
        .chain(kept)
        .chain(pending)
    {
        if !is_inside(path) {
            return Err(Refusal::UnsafeArtifact {
                dir: shard.dir.clone(),
                case: case.name.clone(),
                path: path.clone(),
            });
        }
    }
    if case.evidence_hash.is_some() {
        for path in [&a.command, &a.stdout, &a.stderr] {
            let file = shard.record.out_dir.join(path);
            if !file.is_file() {
                return Err(Refusal::MissingArtifact {
                    dir: shard.dir.clone(),
                    case: case.name.clone(),
                    path: file,
                });
            }
        }
    }
    Ok(())
}

/// A relative path of plain names only: joined to a dir, it stays inside.
fn is_inside(path: &str) -> bool {
    let path = Path::new(path);
    path.components().next().is_some()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// Whether `a` and `b` name the same directory.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => crate::layout::absolute(a) == crate::layout::absolute(b),
    }
}

/// Merge the shard out dirs `dirs` into `out`: check them
/// ([`check_shards`]), then copy every case's evidence into a new run under
/// `out` and return the merged record. The reports themselves are left to
/// the caller (`report::write_all`, then `report::check_integrity`), as
/// after a run.
///
/// With `key`, every shard must carry a signature that verifies with it.
///
/// A refusal writes nothing. When copying fails, the partly copied run dir
/// is removed again.
pub(crate) fn merge(
    dirs: &[PathBuf],
    out: &Path,
    key: Option<&minisign::PublicKey>,
) -> Result<Merged, MergeError> {
    let mut shards = dirs
        .iter()
        .map(|d| read_shard(d))
        .collect::<Result<Vec<_>, _>>()?;
    check_shards(&shards)?;
    let mut unchecked_signatures = Vec::new();
    for shard in &mut shards {
        // Verdicts, counts and the final status come from the evidence.
        let (record, unchecked) = verified_record(&shard.dir, key)?;
        shard.record.cases = record.cases;
        if unchecked {
            unchecked_signatures.push(shard.dir.clone());
        }
    }
    let out = crate::layout::absolute(out);
    if shards.iter().any(|s| same_dir(&out, &s.record.out_dir)) {
        return Err(Refusal::OutIsShard { out }.into());
    }
    // Shard order decides only which shard's suite name and harness path
    // the merged run shows; make it independent of argument order.
    shards.sort_by_key(|s| s.partition.map(|p| p.shard().0));

    let run_id = crate::layout::new_run_id();
    let cases = copy_cases(&shards, &out, &run_id)?;
    let first = &shards[0];
    let mut record = merged_record(&shards, run_id, out, cases);
    record.baseline = crate::baseline::compare::merge(
        shards.iter().map(|s| s.record.baseline.as_ref()),
        &record.cases,
    );
    let (history, revision) = shard_histories(&shards);
    Ok(Merged {
        record,
        harness_display: first.harness_display.clone(),
        partitions: shards.iter().filter_map(|s| s.partition).collect(),
        unchecked_signatures,
        history,
        revision,
    })
}

/// The readable lines of the shards' histories: those of earlier runs,
/// and the revision the lines of the runs merged now record. A shard's
/// history is a convenience: one that cannot be read is left out.
fn shard_histories(shards: &[Shard]) -> (Vec<HistoryLine>, Revision) {
    let mut earlier = Vec::new();
    let mut revision = Revision::default();
    for shard in shards {
        let lines = crate::wire::history::read(&shard.dir.join(crate::layout::HISTORY_FILE))
            .unwrap_or_default();
        for line in lines.into_iter().filter_map(|(_, l)| l.ok()) {
            if line.run_id != shard.record.run_id {
                earlier.push(line);
            } else if revision.commit.is_none() {
                revision = Revision {
                    commit: line.commit,
                    dirty: line.dirty,
                };
            }
        }
    }
    (earlier, revision)
}

/// Every shard's cases in declaration order, their evidence copied into
/// run `run_id` under `out`; on failure the partly copied run is removed.
fn copy_cases(shards: &[Shard], out: &Path, run_id: &str) -> Result<Vec<CaseRecord>, MergeError> {
    let mut cases: Vec<(&Path, CaseRecord)> = shards
        .iter()
        .flat_map(|s| {
            s.record
                .cases
                .iter()
                .map(|c| (s.record.out_dir.as_path(), c.clone()))
        })
        .collect();
    cases.sort_by_key(|(_, c)| c.index);
    let copied = cases
        .iter_mut()
        .try_for_each(|(from, case)| copy_case(case, from, out, run_id));
    if let Err(e) = copied {
        // Half a run's evidence would fail every later verify-evidence of
        // the out dir.
        let _ = std::fs::remove_dir_all(out.join("artifacts").join(run_id));
        return Err(e);
    }
    Ok(cases.into_iter().map(|(_, c)| c).collect())
}

/// The run record of the merged run (its baseline comparison aside).
fn merged_record(
    shards: &[Shard],
    run_id: String,
    out: PathBuf,
    cases: Vec<CaseRecord>,
) -> RunRecord {
    let first = &shards[0];
    let mut warnings: Vec<String> = Vec::new();
    for w in shards.iter().flat_map(|s| &s.record.warnings) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    // Each shard ran on its own machine (a CI matrix): name them all.
    let mut hosts: Vec<&str> = Vec::new();
    for h in shards.iter().map(|s| s.record.hostname.as_str()) {
        if !h.is_empty() && !hosts.contains(&h) {
            hosts.push(h);
        }
    }
    RunRecord {
        run_id,
        hostname: hosts.join(", "),
        junit: first.record.junit,
        jobs: 0,
        suite_name: first.record.suite_name.clone(),
        harness_path: first.record.harness_path.clone(),
        harness_sha256: first.record.harness_sha256.clone(),
        out_dir: out,
        started_at: shards
            .iter()
            .map(|s| s.record.started_at)
            .min()
            .expect("at least one shard"),
        // Shards usually run side by side (a CI matrix): the sum of their
        // durations is machine time nobody waited for, while the longest
        // shard is how long the suite took. Not last end minus first start
        // either: a shard re-run a day later would make that a day.
        duration: shards
            .iter()
            .map(|s| s.record.duration)
            .max()
            .unwrap_or(Duration::ZERO),
        cases,
        // The merged record holds every declared case, like an unsharded
        // run, so it records no partition; and can itself be merged again
        // (one unpartitioned dir) or compared with an unsharded run.
        partition: None,
        declared_cases: first.record.declared_cases,
        interrupted: shards.iter().any(|s| s.record.interrupted),
        warnings,
        empty_selection: None,
        baseline: None,
    }
}

/// Copy the evidence of every attempt of `case` from the out dir `from`
/// into run `run_id` under `out`, rewriting the artifact paths.
fn copy_case(
    case: &mut CaseRecord,
    from: &Path,
    out: &Path,
    run_id: &str,
) -> Result<(), MergeError> {
    // Earlier attempts are attempts 1, 2, …; the case itself is the last.
    let last = case.previous_attempts.len() as u32 + 1;
    for (n, attempt) in (1..).zip(case.previous_attempts.iter_mut()) {
        copy_attempt(attempt, from, out, run_id, n)?;
    }
    copy_attempt(case, from, out, run_id, last)
}

fn copy_attempt(
    case: &mut CaseRecord,
    from: &Path,
    out: &Path,
    run_id: &str,
    attempt: u32,
) -> Result<(), MergeError> {
    let Some(src) = case.artifacts.take() else {
        return Ok(());
    };
    // Laid out as the engine lays out a run, so the merged dir reads like
    // one; the slug carries the declaration index, so no two cases clash.
    let rel = crate::layout::execution_dir(run_id, case.index, &case.name, attempt);
    let dir = out.join(&rel);
    create_dir(&dir)?;
    let result = move_result(case, &rel);
    let files = [
        (src.command.clone(), Artifacts::COMMAND.to_string()),
        (src.stdout.clone(), Artifacts::STDOUT.to_string()),
        (src.stderr.clone(), Artifacts::STDERR.to_string()),
    ];
    let pending = move_pending(case, &rel);
    if !pending.is_empty() {
        create_dir(&dir.join(crate::layout::PENDING_DIR))?;
    }
    for (from_rel, name) in files.iter().chain(&result).chain(&pending) {
        // A case that never ran may have no files (its directory could
        // not be created); there is nothing to keep then. Cases that
        // ran were checked to have theirs.
        let may_be_missing = case.evidence_hash.is_none();
        copy_file(&from.join(from_rel), &dir.join(name), may_be_missing)?;
    }
    case.artifacts = Some(Artifacts::in_dir(&rel));
    // Written at this version, the evidence hash covers the data checks;
    // a shard's evidence from before 1.6 hashed without them. From the
    // copies of the verified files, with the verified checks, it is what
    // `verify-evidence` recomputes either way.
    if case.evidence_hash.is_some() {
        rehash(case, &dir, result.as_ref().map(|(_, name)| name.as_str()));
    }
    report::write_evidence(case, out).map_err(|source| MergeError::Evidence {
        case: case.name.clone(),
        source,
    })
}

fn create_dir(dir: &Path) -> Result<(), MergeError> {
    std::fs::create_dir_all(dir).map_err(|source| MergeError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })
}

/// A kept structured result is under the evidence hash: it moves too,
/// into `rel`. Where it is, and its file name there.
fn move_result(case: &mut CaseRecord, rel: &str) -> Option<(String, String)> {
    let artifact = (case.structured_result.as_mut()).and_then(|r| r.artifact.as_mut())?;
    let name = artifact
        .rsplit_once('/')
        .map_or(artifact.as_str(), |(_, n)| n)
        .to_string();
    let result = Some((std::mem::take(artifact), name.clone()));
    *artifact = format!("{rel}/{name}");
    result
}

/// So are the pending snapshots: they move into the merged run's dir
/// `rel`. Where each is, and its path in `rel`.
fn move_pending(case: &mut CaseRecord, rel: &str) -> Vec<(String, String)> {
    let mut pending = Vec::new();
    for p in case.snapshots.iter_mut().filter_map(|s| s.pending.as_mut()) {
        let name = p.path.rsplit_once('/').map_or(p.path.as_str(), |(_, n)| n);
        let to = format!("{}/{name}", crate::layout::PENDING_DIR);
        pending.push((std::mem::replace(&mut p.path, format!("{rel}/{to}")), to));
    }
    pending
}

/// Copies one evidence file, never through a symlink (it could point
/// anywhere on the machine); a missing one is no error when
/// `may_be_missing`.
fn copy_file(from_path: &Path, to: &Path, may_be_missing: bool) -> Result<(), MergeError> {
    let copied = match std::fs::symlink_metadata(from_path) {
        Ok(m) if m.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "is a symlink; evidence must be plain files",
        )),
        _ => crate::untrusted::copy(from_path, to),
    };
    match copied {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound && may_be_missing => Ok(()),
        Err(source) => Err(MergeError::Copy {
            from: from_path.to_path_buf(),
            to: to.to_path_buf(),
            source,
        }),
    }
}

/// The case's evidence hash, from its files copied to `dir` (and its
/// kept result, `result` there); left as it was when they cannot be read.
fn rehash(case: &mut CaseRecord, dir: &Path, result: Option<&str>) {
    let kept = result.map(|name| dir.join(name));
    let hash = crate::wire::evidence::case_hash(
        [
            &dir.join(Artifacts::COMMAND),
            &dir.join(Artifacts::STDOUT),
            &dir.join(Artifacts::STDERR),
        ],
        case.exit_code,
        kept.as_deref(),
        &case.snapshots,
        crate::wire::evidence::SCHEMA_VERSION,
    );
    if let Ok(h) = hash {
        case.evidence_hash = Some(h);
    }
}

/// What `cargo golden merge` was asked for.
pub(crate) struct Request {
    /// The shards' out dirs.
    pub(crate) dirs: Vec<PathBuf>,
    /// Where the merged reports go.
    pub(crate) out: PathBuf,
    /// `--junit`; `None`: the shards'.
    pub(crate) junit: Option<crate::model::JunitFlavour>,
    /// `--sign-key`; `None`: the key of the environment, if any.
    pub(crate) sign_key: Option<PathBuf>,
    /// `--public-key`: the key the shards are signed with.
    pub(crate) public_key: Option<String>,
}

/// Why a merge did not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot merge (nothing was written)")]
struct Refused(#[source] MergeError);

/// `cargo golden merge`: merge the shards of `request` into its out dir,
/// under the out dir's lock, and write the merged run's reports.
pub(crate) fn command(request: &Request) -> i32 {
    use crate::commands::output::{print_error, usage_error};
    use crate::conclusion;
    let out = request.out.as_path();
    let signer = match crate::report::seal::Signer::load(request.sign_key.as_deref()) {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    // The merged run is signed only over shards whose signature checked
    // out: with a signing key and no --public-key, its own public half.
    let shard_key = match crate::commands::verify::public_key(request.public_key.as_deref()) {
        Ok(k) => k.or_else(|| signer.as_ref().map(|s| s.public_key().clone())),
        Err(e) => return usage_error(&e),
    };
    // An existing out dir is locked before anything is read; a new one
    // once the merge has created it.
    let take = || crate::outdir::lock(out, crate::outdir::Access::Exclusive);
    let mut lock = None;
    if out.is_dir() {
        match take() {
            Ok(l) => lock = Some(l),
            Err(e) => return usage_error(&e),
        }
    }
    let mut merged = match merge(&request.dirs, out, shard_key.as_ref()) {
        Ok(m) => m,
        Err(e) if e.is_refusal() => return usage_error(&Refused(e)),
        Err(e) => {
            print_error(&e);
            return conclusion::FAILED;
        }
    };
    let _lock = match lock.map_or_else(take, Ok) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    // The merged run has begun: no earlier verdict may stay beside it.
    if let Err(e) = crate::outdir::clear_reports(out, crate::report::report_files()) {
        print_error(&e);
        return conclusion::FAILED;
    }
    if let Some(flavour) = request.junit {
        merged.record.junit = flavour;
    }
    write_merged(&mut merged, out, signer.as_ref())
}

/// Tell what was merged and write the merged run's reports and history
/// line; the exit code is the merged run's conclusion.
fn write_merged(
    merged: &mut Merged,
    out: &Path,
    signer: Option<&crate::report::seal::Signer>,
) -> i32 {
    for dir in &merged.unchecked_signatures {
        eprintln!(
            "warning: {}: its {} was not checked and is not carried into the merged run (pass --public-key to check it, --sign-key to sign the merged run)",
            dir.display(),
            SIGNATURE_FILE
        );
    }
    let record = &merged.record;
    let from = if merged.partitions.is_empty() {
        "an unpartitioned run".to_string()
    } else {
        let list: Vec<String> = merged.partitions.iter().map(|p| p.to_string()).collect();
        format!("{} shard(s) ({})", list.len(), list.join(", "))
    };
    eprintln!(
        "{:>12} {from} of {} into run {}",
        "Merged", record.suite_name, record.run_id
    );
    let mut fanout = crate::events::Fanout::default();
    fanout.push(Box::new(crate::report::terminal::TerminalReporter::stderr()));
    let finished = report::finish(record, &merged.harness_display, &mut fanout, signer);
    finished.tell();
    if finished.problem.is_none() {
        let appended = report::history::append(
            record,
            &merged.revision,
            std::mem::take(&mut merged.history),
            crate::config::defaults::HISTORY_KEEP,
        );
        report::history::tell(appended, out);
    }
    finished.outcome.exit_code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Partition {
        s.parse().unwrap()
    }

    fn shards<'a>(list: &[(&'a str, Option<&str>)]) -> Vec<(&'a Path, Option<Partition>)> {
        list.iter()
            .map(|(d, part)| (Path::new(*d), part.map(p)))
            .collect()
    }

    #[test]
    fn a_complete_set_of_partitions_merges_in_any_order() {
        let set = shards(&[
            ("c", Some("count:3/3")),
            ("a", Some("count:1/3")),
            ("b", Some("count:2/3")),
        ]);
        check_partitions(&set).unwrap();
        check_partitions(&shards(&[("a", Some("hash:1/1"))])).unwrap();
        check_partitions(&shards(&[("all", None)])).unwrap();
    }

    #[test]
    fn missing_partitions_are_named() {
        let err = check_partitions(&shards(&[
            ("a", Some("count:1/3")),
            ("c", Some("count:3/3")),
        ]))
        .unwrap_err();
        assert!(
            matches!(&err, Refusal::MissingPartitions { missing, more: 0, n: 3 } if *missing == [p("count:2/3")]),
            "{err:?}"
        );
        assert!(err.to_string().contains("count:2/3"), "{err}");

        // Only the first few are listed; the rest are counted, and a huge
        // N does not make the check slow.
        let err = check_partitions(&shards(&[("a", Some("hash:2/4000000000"))])).unwrap_err();
        let Refusal::MissingPartitions { missing, more, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(missing.len(), LIST_LIMIT);
        assert_eq!(missing[0], p("hash:1/4000000000"));
        assert_eq!(missing[1], p("hash:3/4000000000"));
        assert_eq!(*more, 4_000_000_000 - 1 - LIST_LIMIT);
    }

    #[test]
    fn overlapping_and_mixed_partitions_are_refused() {
        let err = check_partitions(&shards(&[
            ("a", Some("count:1/2")),
            ("b", Some("count:1/2")),
            ("c", Some("count:2/2")),
        ]))
        .unwrap_err();
        assert!(
            matches!(&err, Refusal::Overlap { partition, first_dir, dir }
                if *partition == p("count:1/2") && first_dir == Path::new("a") && dir == Path::new("b")),
            "{err:?}"
        );
        for other in ["hash:2/2", "count:2/3"] {
            let err = check_partitions(&shards(&[("a", Some("count:1/2")), ("b", Some(other))]))
                .unwrap_err();
            assert!(
                matches!(&err, Refusal::MixedPartitions { partition, .. } if *partition == p(other)),
                "{err:?}"
            );
        }
    }

    #[test]
    fn unpartitioned_runs_merge_only_alone() {
        let err =
            check_partitions(&shards(&[("s", Some("count:1/1")), ("all", None)])).unwrap_err();
        assert!(
            matches!(&err, Refusal::Unpartitioned { dir, .. } if dir == Path::new("all")),
            "{err:?}"
        );
        let err = check_partitions(&shards(&[("x", None), ("y", None)])).unwrap_err();
        assert!(
            matches!(err, Refusal::SeveralUnpartitioned { .. }),
            "{err:?}"
        );
        assert!(matches!(
            check_partitions(&[]).unwrap_err(),
            Refusal::NoShards
        ));
    }

    #[test]
    fn every_declared_case_is_held_exactly_once_by_its_shard() {
        let (a, b) = (Path::new("a"), Path::new("b"));
        let (p1, p2) = (Some(p("count:1/2")), Some(p("count:2/2")));
        check_cases(3, [(a, p1, 0, "x"), (b, p2, 1, "y"), (a, p1, 2, "z")]).unwrap();

        let err = check_cases(3, [(a, p1, 0, "x"), (b, p2, 1, "y")]).unwrap_err();
        assert!(
            matches!(&err, Refusal::MissingCases { missing, more: 0, declared: 3 } if *missing == [2]),
            "{err:?}"
        );

        let err =
            check_cases(2, [(a, None, 0, "x"), (b, None, 0, "x"), (b, None, 1, "y")]).unwrap_err();
        assert!(
            matches!(&err, Refusal::DuplicateCase { index: 0, first_dir, dir, .. } if first_dir == a && dir == b),
            "{err:?}"
        );

        let err = check_cases(2, [(a, p1, 1, "y")]).unwrap_err();
        assert!(
            matches!(err, Refusal::WrongShard { index: 1, .. }),
            "{err:?}"
        );

        let err = check_cases(1, [(a, None, 1, "y")]).unwrap_err();
        assert!(
            matches!(err, Refusal::CaseOutOfRange { index: 1, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn artifact_paths_must_stay_inside() {
        assert!(is_inside("artifacts/r/execution/001-x/stdout.log"));
        assert!(!is_inside("/etc/passwd"));
        assert!(!is_inside("artifacts/../../x"));
        assert!(!is_inside(""));
    }
}
