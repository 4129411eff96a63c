//! The baseline comparison and snapshot diffs (docs/baselines.md, The verdict
//! baseline and Output snapshots) in the reports: the "Compared with baseline"
//! section that leads report.md (and makes up `diff.md`), the "Output changes"
//! section, JUnit properties, the terminal summary lines, and their part of
//! the integrity check.
//!
//! The counts line and the table of the section have a fixed shape that
//! the integrity check reads back.

use std::fmt::Write as _;
use std::path::Path;

use super::format::Disagreement;
use super::integrity::compare;
use super::markup::{Align, Table, fence_for, inline};
use crate::baseline::{Class, Comparison, SnapshotCheck};
use crate::config::Gate;
use crate::model::RunRecord;

/// Heading of the comparison section.
pub(crate) const BASELINE_HEADING: &str = "## Compared with baseline";
/// Prefix of the line with the counts per class.
pub(crate) const BASELINE_COUNTS_PREFIX: &str = "**Baseline:** ";
/// Heading of the snapshot diffs section.
pub(crate) const OUTPUT_CHANGES_HEADING: &str = "## Output changes";
/// Rows of the comparison table at most: the cases that need attention
/// come first, and summary.json lists every case.
pub(crate) const MAX_ROWS: usize = 500;

/// The comparison section, heading included.
pub(crate) fn section(out: &mut String, c: &Comparison) {
    let _ = writeln!(out, "{BASELINE_HEADING}\n");
    let gate = gate_text(c.gate);
    let _ = writeln!(
        out,
        "Baseline {} · {gate} · slowdown {}× · {} case(s) compared\n",
        inline(&c.file),
        c.slowdown,
        c.cases.len()
    );
    if !c.found && c.blessed {
        let _ = writeln!(
            out,
            "> [!NOTE]\n> {} did not exist: this run recorded it (`--bless`), so every case is new.\n",
            inline(&c.file)
        );
    } else if !c.found {
        let _ = writeln!(
            out,
            "> [!NOTE]\n> No baseline yet: {} does not exist, so every case is new. `cargo golden --bless` records one.\n",
            inline(&c.file)
        );
    }
    if c.blessed && c.found {
        out.push_str(
            "> [!NOTE]\n> This run was blessed: the baseline now records it. The comparison shows what the bless changed.\n\n",
        );
    }
    if c.missing_not_checked {
        out.push_str("Missing cases were not looked for (a partial run).\n\n");
    }
    let _ = writeln!(out, "{BASELINE_COUNTS_PREFIX}{}\n", c.counts.text());
    let shown = attention(c);
    // Without a baseline every case is new: the results table says the
    // rest, unless the gate makes new failures matter.
    if shown.is_empty() || (!c.found && c.gate == Gate::Results) {
        return;
    }
    let mut t = Table::new(&[
        ("Case", Align::Left),
        ("Class", Align::Left),
        ("Baseline", Align::Left),
        ("This run", Align::Left),
        ("Detail", Align::Left),
    ]);
    for case in shown.iter().take(MAX_ROWS) {
        let class = match case.class {
            Class::Regressed | Class::ChangedFailure | Class::Missing | Class::NotRun => {
                format!("**{}**", case.class.as_str())
            }
            other => other.as_str().to_string(),
        };
        t.row(vec![
            inline(&case.name),
            class,
            verdict_text(&case.baseline),
            verdict_text(&case.now),
            inline(&case.detail),
        ]);
    }
    out.push_str(&t.render());
    if shown.len() > MAX_ROWS {
        let _ = writeln!(
            out,
            "\n{} more case(s) not listed; summary.json lists every case.",
            shown.len() - MAX_ROWS
        );
    }
    let unchanged = c.counts.unchanged;
    if unchanged > 0 {
        let _ = writeln!(out, "\n{unchanged} unchanged case(s) not listed.");
    }
    out.push('\n');
}

/// What the gate means, as the reports say it.
pub(super) fn gate_text(gate: Gate) -> &'static str {
    match gate {
        Gate::Baseline => "gate: baseline (the exit code follows this comparison)",
        Gate::Results => "gate: results (the exit code follows the raw results)",
    }
}

/// A case's result in the baseline or this run, `—` when it has none.
pub(super) fn verdict_text(v: &Option<crate::baseline::Verdict>) -> String {
    v.as_ref()
        .map_or_else(|| "—".to_string(), |v| v.result.as_str().to_string())
}

/// The cases worth a row, in [`Class::ALL`] order (regressed, changed and
/// missing first), declaration order within a class.
pub(super) fn attention(c: &Comparison) -> Vec<&crate::baseline::CaseComparison> {
    Class::ALL
        .iter()
        .filter(|class| **class != Class::Unchanged)
        .flat_map(|class| c.of_class(*class))
        .collect()
}

/// The snapshot diffs of every case, each in a fenced `diff` block.
pub(super) fn output_changes(out: &mut String, record: &RunRecord) {
    let changed: Vec<(&str, &SnapshotCheck)> = record
        .cases
        .iter()
        .flat_map(|c| c.snapshots.iter().map(move |s| (c.name.as_str(), s)))
        .filter(|(_, s)| s.diff.is_some())
        .collect();
    if changed.is_empty() {
        return;
    }
    let _ = writeln!(out, "{OUTPUT_CHANGES_HEADING}\n");
    for (name, s) in changed {
        let diff = s.diff.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "`{}` “{}” ({} vs {}):\n",
            s.changed_type(),
            inline(name),
            inline(s.subject()),
            inline(&s.file)
        );
        let fence = fence_for(diff);
        let _ = writeln!(
            out,
            "{fence}diff\n{}{}{fence}\n",
            diff,
            if diff.ends_with('\n') { "" } else { "\n" }
        );
    }
}

/// Suite properties: the gate and the count of each class.
pub(super) fn suite_properties(c: &Comparison) -> Vec<(String, String)> {
    let mut props = vec![
        ("baseline.file".to_string(), c.file.clone()),
        ("baseline.gate".to_string(), c.gate.as_str().to_string()),
    ];
    for class in Class::ALL {
        props.push((
            format!("baseline.{}", class.as_str()),
            c.counts.get(class).to_string(),
        ));
    }
    props
}

/// Lines for the terminal summary: the counts, then each case that fails
/// the gate or was fixed, at most `limit` of them.
#[cfg(feature = "cli")]
pub(crate) fn terminal_lines(c: &Comparison, limit: usize) -> Vec<String> {
    let mut lines = Vec::new();
    if !c.found && c.blessed {
        lines.push(format!(
            "{} recorded by this run (it did not exist before): {} case(s), all new",
            c.file,
            c.cases.len()
        ));
        return lines;
    }
    if !c.found && c.gate == Gate::Results {
        lines.push(format!(
            "none yet ({} does not exist; `cargo golden --bless` records one)",
            c.file
        ));
        return lines;
    }
    let nonzero: Vec<String> = Class::ALL
        .iter()
        .filter(|k| c.counts.get(**k) > 0)
        .map(|k| format!("{} {}", c.counts.get(*k), k.as_str()))
        .collect();
    let summary = if nonzero.is_empty() {
        "no case compared".to_string()
    } else {
        nonzero.join(", ")
    };
    let verdict = match c.gate {
        Gate::Baseline if c.passes_gate() => " (gate: baseline, passes)",
        Gate::Baseline => " (gate: baseline, FAILS)",
        Gate::Results => "",
    };
    lines.push(format!("{}: {summary}{verdict}", c.file));
    // What fails the gate, and what got fixed; known failures and slower
    // cases are already on the lines above (raw results, warnings).
    let shown: Vec<_> = attention(c)
        .into_iter()
        .filter(|k| k.fails_gate() || k.class == Class::Fixed)
        .collect();
    for case in shown.iter().take(limit) {
        lines.push(format!(
            "{} {}: {}",
            case.class.as_str(),
            case.name,
            case.detail
        ));
    }
    let listed = shown.len();
    if listed > limit {
        lines.push(format!("… and {} more (see report.md)", listed - limit));
    }
    lines
}

/// The integrity of the comparison in report.md (`text`, read back from
/// `path`): its counts line agrees with the record.
pub(super) fn check_markdown(
    path: &Path,
    text: &str,
    record: &RunRecord,
    found: &mut Vec<Disagreement>,
) {
    let Some(c) = &record.baseline else {
        return;
    };
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(BASELINE_COUNTS_PREFIX))
        .unwrap_or("(missing)");
    compare(found, path, "baseline counts", c.counts.text(), line);
}

/// The integrity of the comparison summary.json holds (`written`, read
/// back from `path`): it agrees with the record, and, under the baseline
/// gate, the exit code follows what it says.
pub(super) fn check_summary(
    path: &Path,
    written: Option<&Comparison>,
    record: &RunRecord,
    (results, exit_code): (&crate::conclusion::Results, i32),
    found: &mut Vec<Disagreement>,
) {
    let Some(c) = &record.baseline else {
        return;
    };
    let got = written.map_or_else(|| "(missing)".to_string(), |b| b.counts.text());
    compare(found, path, "baseline.counts", c.counts.text(), got);
    if c.gate == Gate::Baseline && crate::conclusion::gate_applies(results.status) {
        // The gate rule applied to the file's cases, not the record's.
        let gate_failures = written.map_or(0, |b| b.gate_failures().count());
        let passes = c.blessed || gate_failures == 0;
        let want = if passes {
            crate::conclusion::SUCCESS
        } else {
            crate::conclusion::FAILED
        };
        if exit_code != want {
            found.push(Disagreement::ExitCode {
                expected: want,
                found: exit_code,
            });
        }
    }
}
