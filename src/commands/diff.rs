//! `cargo golden diff BASE_OUT NEW_OUT`: compare two runs (e.g. main's
//! last CI artifact and a pull request's run) with the baseline rules
//! (docs/baselines.md, Between two runs), the earlier run standing in for
//! the baseline.
//!
//! Reads each out dir's `summary.json` and writes, into `--out` (default:
//! `NEW_OUT`), `diff.md` (short enough for a pull-request comment or a
//! step summary) and `diff.json` (the comparison, for scripts). The exit
//! code follows the gate rule: 1 when a case regressed, changed its
//! failure, went missing or did not run, or a new case failed.
//!
//! Failure signatures come from each run's own comparison in
//! `summary.json` (redacted with that harness's `[redactions]`); a run
//! without one gets signatures redacted with the built-in redactions only.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::baseline::compare::{self, Observed, Settings};
use crate::baseline::{BaselineEntry, BaselineFile, Comparison, SnapshotRedactor, Verdict};
use crate::config::{Gate, defaults};
use crate::model::{CaseRecord, CaseResult, RunRecord};
use crate::report::{ReportError, SUMMARY_FILE, SummaryFile, headline, markup::inline};

/// File name of the markdown comparison.
pub(crate) const DIFF_MARKDOWN: &str = "diff.md";
/// File name of the JSON comparison.
pub(crate) const DIFF_JSON: &str = "diff.json";
/// Longest `diff.md`, in bytes: under GitHub's 65,536-character limit on a
/// pull-request comment, with room for a heading a workflow adds.
pub(crate) const MAX_MARKDOWN: usize = 60_000;
/// Failures of the new run listed in `diff.md`.
const MAX_FAILURES: usize = 50;

/// What [`diff`] found and wrote.
#[derive(Clone, Debug)]
pub(crate) struct Diff {
    /// The comparison.
    pub(crate) comparison: Comparison,
    /// `diff.md`'s text.
    pub(crate) markdown: String,
    /// Where `diff.md` was written.
    pub(crate) markdown_path: PathBuf,
    /// Where `diff.json` was written.
    pub(crate) json_path: PathBuf,
}

/// Why there is no diff.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DiffError {
    /// A summary could not be read.
    #[error("cannot compare")]
    Read(#[from] ReportError),
    /// An output could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

#[derive(Serialize)]
struct DiffJson<'a> {
    schema_version: &'static str,
    base: Side<'a>,
    new: Side<'a>,
    comparison: &'a Comparison,
}

#[derive(Serialize)]
struct Side<'a> {
    out_dir: String,
    run_id: &'a str,
    final_status: String,
}

/// Compare the runs in `base` and `new` (out dirs, or their summary.json
/// files) and write `diff.md` and `diff.json` into `out`.
pub(crate) fn diff(base: &Path, new: &Path, out: &Path) -> Result<Diff, DiffError> {
    let base_s = crate::report::read_summary_file(&summary_path(base))?;
    let new_s = crate::report::read_summary_file(&summary_path(new))?;
    let comparison = compare_runs(&base_s.record, &new_s.record, &summary_path(base));
    let markdown = render(&base_s, &new_s, &comparison);
    std::fs::create_dir_all(out).map_err(|source| DiffError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let markdown_path = out.join(DIFF_MARKDOWN);
    let json_path = out.join(DIFF_JSON);
    let json = DiffJson {
        schema_version: "1.0.0",
        base: side(&base_s, base),
        new: side(&new_s, new),
        comparison: &comparison,
    };
    let mut json_text = serde_json::to_string_pretty(&json).expect("a diff always serializes");
    json_text.push('\n');
    for (path, text) in [(&markdown_path, &markdown), (&json_path, &json_text)] {
        crate::report::atomic_write(path, text.as_bytes()).map_err(|source| DiffError::Write {
            path: path.clone(),
            source,
        })?;
    }
    Ok(Diff {
        comparison,
        markdown,
        markdown_path,
        json_path,
    })
}

fn side<'a>(s: &'a SummaryFile, dir: &Path) -> Side<'a> {
    Side {
        out_dir: crate::layout::display_relative(dir),
        run_id: &s.record.run_id,
        final_status: s.record.final_status().to_string(),
    }
}

fn summary_path(p: &Path) -> PathBuf {
    if p.is_dir() {
        p.join(SUMMARY_FILE)
    } else {
        p.to_path_buf()
    }
}

/// The comparison of `new` with `base` as its baseline.
pub(crate) fn compare_runs(base: &RunRecord, new: &RunRecord, base_file: &Path) -> Comparison {
    let base_verdicts = verdicts(base);
    let baseline = BaselineFile {
        schema_version: crate::baseline::file::BASELINE_SCHEMA_VERSION.to_string(),
        suite: base.suite_name.clone(),
        cases: base
            .cases
            .iter()
            .zip(&base_verdicts)
            .filter_map(|(c, v)| {
                v.as_ref().map(|v| BaselineEntry {
                    name: c.name.clone(),
                    kind: Some(c.kind),
                    result: v.result,
                    signature: v.signature.clone(),
                    duration_seconds: v.duration_seconds,
                })
            })
            .collect(),
    };
    let new_verdicts = verdicts(new);
    let observed: Vec<Observed<'_>> = new
        .cases
        .iter()
        .zip(new_verdicts)
        .filter(|(c, _)| crate::baseline::selected(c))
        .map(|(c, verdict)| Observed::of(c, verdict))
        .collect();
    let declared: HashSet<&str> = new.cases.iter().map(|c| c.name.as_str()).collect();
    let is_missing = |name: &str| !declared.contains(name);
    // A partition holds only its share of the cases: the others are not
    // missing, just elsewhere.
    let missing: Option<&dyn Fn(&str) -> bool> =
        new.partition.is_none().then_some(&is_missing as _);
    let settings = Settings {
        file: crate::layout::display_relative(base_file),
        gate: Gate::Baseline,
        slowdown: new
            .baseline
            .as_ref()
            .map_or(defaults::SLOWDOWN, |c| c.slowdown),
        typical: HashMap::new(),
    };
    compare::compare(Some(&baseline), &observed, missing, &settings)
}

/// Each case's verdict: its signature as the run's own comparison recorded
/// it, else redacted with the built-in redactions. None when skipped.
fn verdicts(run: &RunRecord) -> Vec<Option<Verdict>> {
    let recorded: HashMap<&str, Option<&String>> = run
        .baseline
        .iter()
        .flat_map(|c| &c.cases)
        .filter_map(|c| {
            c.now
                .as_ref()
                .map(|v| (c.name.as_str(), v.signature.as_ref()))
        })
        .collect();
    let root = run.harness_path.parent().unwrap_or(Path::new("/"));
    run.cases
        .iter()
        .map(|c| {
            let mut v = crate::baseline::verdict(
                c,
                &SnapshotRedactor::new(root, &c.working_dir, &run.run_id, &[]),
            )?;
            if let Some(sig) = recorded.get(c.name.as_str()) {
                v.signature = sig.cloned();
            }
            Some(v)
        })
        .collect()
}

/// `diff.md`: a headline, the comparison section, and the new run's
/// failures; shortened to [`MAX_MARKDOWN`] bytes.
fn render(base: &SummaryFile, new: &SummaryFile, c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Golden diff: {}\n", inline(&new.record.suite_name));
    let failing = c.gate_failures().count();
    let verdict = if failing == 0 {
        "**Nothing regressed.**".to_string()
    } else {
        format!("**{failing} case(s) regressed, changed, went missing or newly fail.**")
    };
    let _ = writeln!(
        out,
        "{verdict}\n\nBase run {} ({}) · new run {} ({})\n",
        inline(&base.record.run_id),
        base.record.final_status(),
        inline(&new.record.run_id),
        new.record.final_status()
    );
    crate::report::baseline::section(&mut out, c);
    failures(&mut out, &new.record.cases);
    crate::report::github::shorten(&out, MAX_MARKDOWN, DIFF_JSON)
}

/// The new run's FAILED and ERROR cases with their headlines: raw results
/// beside the comparison.
fn failures(out: &mut String, cases: &[CaseRecord]) {
    let failed: Vec<&CaseRecord> = cases.iter().filter(|c| c.result.is_failure()).collect();
    if failed.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Failures in the new run\n");
    for c in failed.iter().take(MAX_FAILURES) {
        let result = if c.result == CaseResult::Error {
            "ERROR"
        } else {
            "FAILED"
        };
        let _ = writeln!(
            out,
            "- **{result}** {} “{}”: {}",
            c.kind.as_str(),
            inline(&c.name),
            inline(&headline(c))
        );
    }
    if failed.len() > MAX_FAILURES {
        let _ = writeln!(out, "- … and {} more", failed.len() - MAX_FAILURES);
    }
    out.push('\n');
}

/// `cargo golden diff BASE NEW [--out DIR]`: write the comparison into
/// `out` (default: `new`) and print its Markdown; exit 1 when the gate
/// fails.
pub(crate) fn command(base: &Path, new: &Path, out: Option<&Path>) -> i32 {
    use crate::commands::output::{print_stdout, usage_error};
    let out = out.unwrap_or(new);
    match diff(base, new, out) {
        Ok(d) => {
            print_stdout(d.markdown.trim_end());
            eprintln!(
                "{:>12} {} and {}",
                "Wrote",
                crate::layout::display_relative(&d.markdown_path),
                crate::layout::display_relative(&d.json_path)
            );
            if d.comparison.gate_failures().next().is_some() {
                crate::conclusion::FAILED
            } else {
                crate::conclusion::SUCCESS
            }
        }
        Err(e) => usage_error(&e),
    }
}
