//! `report.md`: the evidence report reviewers read (and GitHub shows as the
//! step summary).
//!
//! The counts line and the two tables have a fixed shape that
//! [`super::check_integrity`] reads back, so their format is part of the
//! contract of this module.

use std::fmt::Write as _;
use std::path::Path;

use super::format::Disagreement;
use super::format::{Format, ReadBack, RenderError, RunView};
use super::integrity::{all_clear, compare, result_cells};
use super::markup::{Align, Table, code_block, inline, link};
use super::{NO_ISSUES_PHRASE, output_ends, seconds, severity_str, stage_str};
use crate::model::{CaseRecord, CaseResult, Counts, EvidenceStatus, RunRecord};

/// Prefix of the line that states the final status.
/// File name of the markdown report in the out dir.
pub(crate) const MARKDOWN_FILE: &str = "report.md";

pub(super) const FINAL_STATUS_PREFIX: &str = "**Final status:** ";
/// Prefix of the counts line.
pub(super) const COUNTS_PREFIX: &str = "**Counts:** ";
/// Heading of the results table.
pub(super) const RESULTS_HEADING: &str = "## Results";
/// Heading of the issues section.
pub(super) const ISSUES_HEADING: &str = "## Issues";
/// Heading of the output ends of failed cases.
pub(super) const OUTPUT_HEADING: &str = "## Output of failed cases";
/// Heading of the evidence table.
pub(super) const EVIDENCE_HEADING: &str = "## Execution Evidence";
/// Marks an evidence Status that differs from the case's result.
const DISAGREE_MARK: &str = "†";
/// Under the evidence table: what Status means beside the case result.
const EVIDENCE_LEGEND: &str = "_Status is the process's own exit status: SUCCESS exit 0, \
FAILURE exit ≠ 0, NO\\_EVIDENCE not run. The case result (Results table) also judges the \
output; † marks a case whose result differs from its exit status._";
/// Under the evidence table when artifacts are shown as paths.
const PATHS_NOTE: &str = "_Artifact paths are relative to the output directory, inside the \
uploaded `target/golden` artifact._";

/// How the evidence table names artifact files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Artifacts {
    /// Relative links, for report.md beside its artifacts.
    Links,
    /// Plain paths, for the GitHub step summary, where links to files of
    /// the uploaded artifact would lead nowhere.
    Paths,
}

/// Start of every issue item in the issues section.
pub(super) const ISSUE_ITEM_PREFIX: &str = "- **";

/// The counts line, without its prefix: `total N · passed N · …`; with
/// quarantined failures, how many (`failed 2 (1 quarantined)`), so the
/// counts read together with the final status.
pub(super) fn counts_text(c: &Counts) -> String {
    format!(
        "total {} · passed {} · failed {}{} · errors {} · skipped {} · flaky {}",
        c.total,
        c.passed,
        c.failed,
        quarantined_note(c),
        c.errors,
        c.skipped,
        c.flaky
    )
}

/// ` (N quarantined)` when a quarantine holds N failures, else nothing.
pub(super) fn quarantined_note(c: &Counts) -> String {
    if c.quarantined > 0 {
        format!(" ({} quarantined)", c.quarantined)
    } else {
        String::new()
    }
}

/// The whole report.
pub(super) fn render(
    record: &RunRecord,
    results: &crate::conclusion::Results,
    harness_display: &str,
    artifacts: Artifacts,
) -> String {
    let counts = record.counts();
    let mut out = String::new();
    let _ = writeln!(out, "# Golden report: {}\n", inline(&record.suite_name));
    let _ = writeln!(out, "{FINAL_STATUS_PREFIX}{}\n", results.status);

    for w in &record.warnings {
        let _ = writeln!(out, "> [!WARNING]\n> **{}**\n", inline(w));
    }
    if record.interrupted {
        out.push_str(
            "> [!CAUTION]\n> **The run was interrupted.** Cases that had not finished are \
             reported as skipped or aborted.\n\n",
        );
    }

    let _ = writeln!(out, "{COUNTS_PREFIX}{}\n", counts_text(&counts));
    let _ = write!(
        out,
        "Run {} · harness {} · started {}",
        inline(&record.run_id),
        inline(harness_display),
        record.started_at
    );
    out.push_str(&super::partition_note(record, inline));
    out.push_str("\n\n");

    // The comparison leads: what changed since the approved baseline is
    // what a reviewer needs first; the raw results follow it.
    if let Some(c) = &record.baseline {
        super::baseline::section(&mut out, c);
    }

    let _ = writeln!(out, "{RESULTS_HEADING}\n");
    out.push_str(&results_table(record).render());
    out.push('\n');

    let _ = writeln!(out, "{ISSUES_HEADING}\n");
    issues(&mut out, record, &counts);
    out.push('\n');

    output_of_failures(&mut out, record);

    super::baseline::output_changes(&mut out, record);

    let _ = writeln!(out, "{EVIDENCE_HEADING}\n");
    out.push_str(&evidence_table(record, artifacts).render());
    let _ = writeln!(out, "\n{EVIDENCE_LEGEND}\n");
    if artifacts == Artifacts::Paths {
        let _ = writeln!(out, "{PATHS_NOTE}\n");
    }

    let _ = writeln!(
        out,
        "_Total duration: {:.2}s_",
        record.duration.as_secs_f64()
    );
    out
}

fn results_table(record: &RunRecord) -> Table {
    let mut t = Table::new(&[
        ("#", Align::Right),
        ("Case", Align::Left),
        ("Kind", Align::Left),
        ("Verdict", Align::Left),
        ("Why", Align::Left),
        ("Exit Code", Align::Right),
        ("Duration", Align::Right),
    ]);
    for case in &record.cases {
        t.row(vec![
            (case.index + 1).to_string(),
            inline(&case.name),
            case.kind.as_str().to_string(),
            verdict(case),
            why(case),
            exit_code(case),
            seconds(case.duration),
        ]);
    }
    t
}

/// The verdict cell: a mark a reader sees at a glance, then the result
/// (the word the integrity check reads back).
fn verdict(case: &CaseRecord) -> String {
    let mark = match case.result {
        CaseResult::Passed if case.flaky => "⚠️",
        CaseResult::Passed => "✅",
        CaseResult::Failed | CaseResult::Error => "❌",
        CaseResult::Skipped => "⚠️",
    };
    format!("{mark} {}", case.result.as_str())
}

/// The result word of a verdict cell read back.
fn verdict_word(cell: &str) -> &str {
    cell.rsplit(' ').next().unwrap_or(cell)
}

/// The reason in words: why a case failed (its headline and the type of
/// its first issue), why it was skipped, what to know about a pass.
fn why(case: &CaseRecord) -> String {
    let mut parts = Vec::new();
    if case.result.is_failure() {
        let label = super::status_label(case);
        parts.push(format!(
            "{} ({})",
            inline(&super::headline(case)),
            inline(label)
        ));
    } else if let Some(reason) = &case.reason {
        parts.push(inline(reason));
    }
    parts.extend(notes(case));
    parts.join("<br>")
}

fn notes(case: &CaseRecord) -> Vec<String> {
    super::case_notes(case, inline, |label| format!("**{label}**"))
}

fn exit_code(case: &CaseRecord) -> String {
    case.exit_code
        .map(|c| c.to_string())
        .unwrap_or_else(|| "—".to_string())
}

fn issues(out: &mut String, record: &RunRecord, counts: &Counts) {
    let mut any = false;
    for case in &record.cases {
        for issue in &case.issues {
            any = true;
            let _ = writeln!(
                out,
                "{ISSUE_ITEM_PREFIX}{}** ({}, {}) in {} “{}”: {}",
                issue.issue_type.as_str(),
                severity_str(issue.severity),
                stage_str(issue.stage),
                case.kind.as_str(),
                inline(&case.name),
                inline(&issue.message)
            );
            if !issue.evidence.is_empty() {
                let _ = writeln!(out, "  - Evidence: {}", inline(&issue.evidence));
            }
        }
    }
    if any {
        return;
    }
    if counts.passed == counts.total {
        let _ = writeln!(out, "{NO_ISSUES_PHRASE}.");
    } else {
        let _ = writeln!(
            out,
            "No issue was recorded, yet {} of {} case(s) did not pass.",
            counts.total - counts.passed,
            counts.total
        );
    }
}

/// The end of each stream of every failed or errored case, where the
/// cause usually is: the real end of the output, not of the copy kept.
fn output_of_failures(out: &mut String, record: &RunRecord) {
    let failed: Vec<_> = record
        .cases
        .iter()
        .filter(|c| c.result.is_failure())
        .flat_map(|c| output_ends(c).into_iter().map(move |(s, end)| (c, s, end)))
        .collect();
    if failed.is_empty() {
        return;
    }
    let _ = writeln!(out, "{OUTPUT_HEADING}\n");
    for (case, stream, end) in failed {
        let _ = writeln!(
            out,
            "- {} “{}”, {stream} (end):\n\n{}",
            case.kind.as_str(),
            inline(&case.name),
            code_block(&end, "  ")
        );
    }
}

fn evidence_table(record: &RunRecord, mode: Artifacts) -> Table {
    let mut t = Table::new(&[
        ("Step", Align::Left),
        ("Command", Align::Left),
        ("Exit Code", Align::Right),
        ("Status", Align::Left),
        ("Hash", Align::Left),
        ("Artifacts", Align::Left),
    ]);
    for case in &record.cases {
        let mut artifacts = artifact_links(case, mode);
        for (n, attempt) in case.previous_attempts.iter().enumerate() {
            let links = artifact_links(attempt, mode);
            if !links.is_empty() {
                let _ = write!(artifacts, "<br>attempt {}: {links}", n + 1);
            }
        }
        if artifacts.is_empty() {
            artifacts = "—".to_string();
        }
        t.row(vec![
            inline(&case.name),
            inline(&case.raw_command),
            exit_code(case),
            evidence_status(case),
            case.evidence_hash
                .as_deref()
                .map(short_hash)
                .unwrap_or_else(|| "—".to_string()),
            artifacts,
        ]);
    }
    t
}

/// Characters of an evidence hash shown in the table; the full value is
/// in the case's evidence.json, linked on the same row.
const SHORT_HASH: usize = 12;

/// The start of an evidence hash, enough to tell runs apart at a glance.
fn short_hash(hash: &str) -> String {
    inline(&hash.chars().take(SHORT_HASH).collect::<String>())
}

/// The process's exit status, marked when the case result says otherwise
/// (exit 0 yet failed on its output, or an expected failure that passed).
fn evidence_status(case: &CaseRecord) -> String {
    let label = case.status.as_str();
    let ran_clean = case.status == EvidenceStatus::Success;
    let disagrees = case.status != EvidenceStatus::NoEvidence
        && ran_clean != (case.result == CaseResult::Passed);
    if disagrees {
        format!("{label} {DISAGREE_MARK}")
    } else {
        label.to_string()
    }
}

/// Links to a case's artifact files; report.md sits in the out dir, which
/// the artifact paths are relative to.
fn artifact_links(case: &CaseRecord, mode: Artifacts) -> String {
    let Some(a) = &case.artifacts else {
        return String::new();
    };
    a.labelled()
        .map(|(label, p)| match mode {
            Artifacts::Links => link(label, p),
            // Layout paths are slugs: never a backtick, so a plain code span.
            Artifacts::Paths => format!("{label} `{p}`"),
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The `report.md` format.
pub(super) struct Markdown;

impl Format for Markdown {
    fn file_name(&self) -> &'static str {
        MARKDOWN_FILE
    }

    fn render(&self, run: &RunView<'_>, harness_display: &str) -> Result<String, RenderError> {
        Ok(render(
            run.record,
            run.results,
            harness_display,
            Artifacts::Links,
        ))
    }

    fn check(&self, file: &ReadBack<'_>, found: &mut Vec<Disagreement>) {
        check(file.path, file.text, &file.run, found);
    }
}

/// Check a report.md read back against the run: final status, counts,
/// the tables and issue list, the all-clear phrase, the baseline line.
fn check(path: &Path, text: &str, run: &RunView<'_>, found: &mut Vec<Disagreement>) {
    let (record, results, counts) = (run.record, run.results, &run.record.counts());
    let lines: Vec<&str> = text.lines().collect();

    let status = lines
        .iter()
        .find_map(|l| l.strip_prefix(FINAL_STATUS_PREFIX))
        .unwrap_or("(missing)");
    compare(found, path, "final status", results.status, status);

    let counts_line = lines
        .iter()
        .find_map(|l| l.strip_prefix(COUNTS_PREFIX))
        .unwrap_or("(missing)");
    compare(found, path, "counts line", counts_text(counts), counts_line);

    check_results_table(path, record, counts, &lines, found);

    let evidence = table_rows(&lines, EVIDENCE_HEADING);
    compare(
        found,
        path,
        "execution evidence rows",
        counts.total,
        evidence.len(),
    );

    let issue_items = section(&lines, ISSUES_HEADING)
        .iter()
        .filter(|l| l.starts_with(ISSUE_ITEM_PREFIX))
        .count();
    compare(
        found,
        path,
        "issue items",
        record.issues().count(),
        issue_items,
    );

    all_clear(found, path, record, text);
    super::baseline::check_markdown(path, text, record, found);
}

/// The results table of report.md: a row per case, each with its result.
fn check_results_table(
    path: &Path,
    record: &RunRecord,
    counts: &Counts,
    lines: &[&str],
    found: &mut Vec<Disagreement>,
) {
    let results = table_rows(lines, RESULTS_HEADING);
    compare(
        found,
        path,
        "results table rows",
        counts.total,
        results.len(),
    );
    for (label, result) in [
        ("PASSED", CaseResult::Passed),
        ("FAILED", CaseResult::Failed),
        ("ERROR", CaseResult::Error),
        ("SKIPPED", CaseResult::Skipped),
    ] {
        let want = record.cases.iter().filter(|c| c.result == result).count();
        let got = results
            .iter()
            .filter(|r| r.get(3).map(|c| verdict_word(c)) == Some(label))
            .count();
        compare(found, path, &format!("results rows {label}"), want, got);
    }

    result_cells(
        found,
        path,
        record,
        results
            .iter()
            .map(|row| row.get(3).map_or("(missing)", |c| verdict_word(c))),
    );
}

/// The lines after `heading` up to the next heading of the same level.
fn section<'a>(lines: &[&'a str], heading: &str) -> Vec<&'a str> {
    lines
        .iter()
        .skip_while(|l| **l != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .copied()
        .collect()
}

/// Data rows of the first table under `heading`, split into trimmed cells.
/// Cells never hold a literal `|` (user text has it as a character
/// reference), so splitting on it is exact.
fn table_rows(lines: &[&str], heading: &str) -> Vec<Vec<String>> {
    section(lines, heading)
        .into_iter()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            let inner = l.trim().trim_start_matches('|').trim_end_matches('|');
            inner.split('|').map(|c| c.trim().to_string()).collect()
        })
        .collect()
}
