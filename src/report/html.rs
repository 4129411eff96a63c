//! `report.html`: the report a person opens in a browser. One file, with
//! its style and charts inline (CSS and SVG, no script, nothing fetched:
//! its Content-Security-Policy allows only its own style sheet), rendered
//! from the same run record as the other reports and read back by the
//! integrity check like them.
//!
//! What the check reads back sits in attributes of elements this module
//! writes (`data-final-status`, `data-counts`, `data-result` on each case
//! row, `data-baseline-counts`). User text is always escaped, so no case
//! name or output can spell one of them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;
use sha2::{Digest as _, Sha256};

use super::format::Disagreement;
use super::format::{Format, ReadBack, RenderError, RunView};
use super::integrity::{all_clear, compare, result_cells};
use super::markdown::counts_text;
use super::{NO_ISSUES_PHRASE, output_ends, seconds, severity_str, stage_str};
use crate::baseline::{Comparison, DiffLine};
use crate::model::{CaseRecord, CaseResult, RunRecord};
use crate::wire::history::HistoryLine;

/// File name of the HTML report in the out dir.
pub(crate) const HTML_FILE: &str = "report.html";

/// Runs of history shown: the strip and the trend lines end with this
/// run, after at most this many earlier ones.
pub(crate) const HISTORY_RUNS: usize = 20;
/// Bars of the duration chart at most: the slowest cases, when there are
/// more.
const MAX_BARS: usize = 40;
/// Rows of the baseline table at most, as in report.md.
const MAX_BASELINE_ROWS: usize = super::baseline::MAX_ROWS;

const FINAL_STATUS_ATTR: &str = " data-final-status=\"";
const COUNTS_ATTR: &str = " data-counts=\"";
const CASE_ROW: &str = "<tr class=\"case\" data-result=\"";
const BASELINE_COUNTS_ATTR: &str = " data-baseline-counts=\"";

/// The style sheet, the only thing the page's policy lets it use.
const STYLE: &str = include_str!("html.css");

/// `text` escaped for HTML text or a quoted attribute: escape sequences
/// removed, other control characters shown ([`crate::ansi::visible`]),
/// so the page never holds a character an HTML parser rejects; and the
/// all-clear phrase never spelt by user text.
fn esc(text: &str) -> String {
    let shown = crate::ansi::visible(&text.replace("\r\n", "\n"));
    let mut out = String::with_capacity(shown.len() + 16);
    for ch in shown.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    super::markup::guard_phrase(&out, "&#32;")
}

/// A relative link target: each path segment percent-encoded.
fn href(path: &str) -> String {
    esc(&super::markup::link_target(path))
}

/// The mark and class of a result.
fn mark(case_result: CaseResult, flaky: bool) -> (&'static str, &'static str) {
    match case_result {
        CaseResult::Passed if flaky => ("⚠", "flaky"),
        CaseResult::Passed => ("✔", "pass"),
        CaseResult::Failed | CaseResult::Error => ("✘", "fail"),
        CaseResult::Skipped => ("–", "skip"),
    }
}

/// One case in one earlier (or this) run, as the history charts show it.
#[derive(Clone, Copy, Debug)]
struct Point {
    result: CaseResult,
    flaky: bool,
    seconds: f64,
}

/// What history says of each case and of each run, oldest first, this run
/// last.
struct Trends {
    /// Per case name, its points.
    cases: BTreeMap<String, Vec<Point>>,
    /// Per run: its id, the sum of its case durations, whether a case
    /// failed.
    runs: Vec<(String, f64, bool)>,
}

impl Trends {
    fn of(record: &RunRecord, history: &[HistoryLine]) -> Trends {
        let mut order: Vec<&str> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for l in history.iter().filter(|l| l.run_id != record.run_id) {
            if seen.insert(l.run_id.as_str()) {
                order.push(&l.run_id);
            }
        }
        let earlier = &order[order.len().saturating_sub(HISTORY_RUNS)..];
        let mut cases: BTreeMap<String, Vec<Point>> = BTreeMap::new();
        let mut runs: Vec<(String, f64, bool)> = earlier
            .iter()
            .map(|r| (r.to_string(), 0.0, false))
            .collect();
        for l in history {
            let Some(i) = earlier.iter().position(|r| *r == l.run_id) else {
                continue;
            };
            runs[i].1 += l.duration_seconds;
            runs[i].2 |= l.result.is_failure();
            cases.entry(l.case.clone()).or_default().push(Point {
                result: l.result,
                flaky: l.flaky,
                seconds: l.duration_seconds,
            });
        }
        let mut total = 0.0;
        let mut failed = false;
        for c in record.cases.iter().filter(|c| !c.filtered_out()) {
            total += c.duration.as_secs_f64();
            failed |= c.result.is_failure();
            cases.entry(c.name.clone()).or_default().push(Point {
                result: c.result,
                flaky: c.flaky,
                seconds: c.duration.as_secs_f64(),
            });
        }
        runs.push((record.run_id.clone(), total, failed));
        Trends { cases, runs }
    }
}

/// The whole page.
fn render(run: &RunView<'_>, harness_display: &str) -> String {
    let record = run.record;
    let counts = record.counts();
    let trends = Trends::of(record, run.history);
    let status = run.results.status.to_string();
    let mut out = String::with_capacity(16 * 1024 + record.cases.len() * 1024);
    let style_hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'sha256-{style_hash}'\">\n\
         <title>{} golden report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        esc(&status),
        esc(&record.suite_name)
    );
    header(&mut out, run, &status, &counts, harness_display);
    out.push_str("<main>\n");
    if let Some(c) = &record.baseline {
        baseline(&mut out, c);
    }
    results(&mut out, record, &trends);
    failures(&mut out, record);
    durations(&mut out, record);
    run_trend(&mut out, &trends);
    out.push_str("</main>\n");
    let _ = writeln!(
        out,
        "<footer><p>Run <code>{}</code> · harness <code>{}</code> · every file of the run is listed \
         with its sha256 in <code>{}/SHA256SUMS</code>; <code>cargo golden verify-evidence</code> \
         checks them.</p></footer>\n</body>\n</html>",
        esc(&record.run_id),
        esc(harness_display),
        esc(&crate::layout::run_dir(&record.run_id)),
    );
    out
}

fn header(
    out: &mut String,
    run: &RunView<'_>,
    status: &str,
    counts: &crate::model::Counts,
    harness_display: &str,
) {
    let record = run.record;
    let class = if run.results.exit_code == crate::conclusion::SUCCESS {
        "ok"
    } else {
        "bad"
    };
    let _ = writeln!(
        out,
        "<header class=\"{class}\">\n<h1>Golden report: {}</h1>\n\
         <p class=\"status\"{FINAL_STATUS_ATTR}{}\">Final status: <strong>{}</strong> \
         (exit code {})</p>",
        esc(&record.suite_name),
        esc(status),
        esc(status),
        run.results.exit_code
    );
    let _ = write!(
        out,
        "<ul class=\"counts\"{COUNTS_ATTR}{}\">",
        esc(&counts_text(counts))
    );
    for (label, n, class) in [
        ("total", counts.total, "total"),
        ("passed", counts.passed, "pass"),
        ("failed", counts.failed, "fail"),
        ("errors", counts.errors, "fail"),
        ("skipped", counts.skipped, "skip"),
        ("flaky", counts.flaky, "flaky"),
    ] {
        let _ = write!(
            out,
            "<li class=\"{class}\"><span class=\"n\">{n}</span> {label}</li>"
        );
    }
    // Quarantined failures are counted as failed, yet do not fail the
    // run: say how many, so the counts and the status read together.
    let held = counts.quarantined;
    if held > 0 {
        let _ = write!(
            out,
            "<li class=\"quarantine\"><span class=\"n\">{held}</span> of them quarantined</li>"
        );
    }
    out.push_str("</ul>\n");
    let _ = write!(
        out,
        "<p class=\"meta\">Run <code>{}</code> · harness <code>{}</code> · started {} · {} · jobs {}",
        esc(&record.run_id),
        esc(harness_display),
        esc(&record.started_at.to_string()),
        seconds(record.duration),
        record.jobs
    );
    out.push_str(&super::partition_note(record, esc));
    out.push_str("</p>\n");
    if counts.passed == counts.total {
        let _ = writeln!(out, "<p>{NO_ISSUES_PHRASE}.</p>");
    }
    if record.interrupted {
        out.push_str(
            "<p class=\"note caution\"><strong>The run was interrupted.</strong> Cases that had \
             not finished are reported as skipped or aborted.</p>\n",
        );
    }
    for w in &record.warnings {
        let _ = writeln!(
            out,
            "<p class=\"note\"><strong>Warning:</strong> {}</p>",
            esc(w)
        );
    }
    out.push_str("</header>\n");
}

/// The comparison with the approved baseline: what a reviewer needs first.
fn baseline(out: &mut String, c: &Comparison) {
    let gate = super::baseline::gate_text(c.gate);
    let _ = writeln!(
        out,
        "<section aria-labelledby=\"baseline-h\">\n<h2 id=\"baseline-h\">Compared with baseline</h2>\n\
         <p>Baseline <code>{}</code> · {gate} · slowdown {}× · {} case(s) compared</p>",
        esc(&c.file),
        c.slowdown,
        c.cases.len()
    );
    if !c.found {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} did not exist{}, so every case is new.</p>",
            esc(&c.file),
            if c.blessed {
                ": this run recorded it (--bless)"
            } else {
                "; <code>cargo golden --bless</code> records one"
            }
        );
    } else if c.blessed {
        out.push_str(
            "<p class=\"note\">This run was blessed: the baseline now records it. The comparison \
             shows what the bless changed.</p>\n",
        );
    }
    if c.missing_not_checked {
        out.push_str("<p>Missing cases were not looked for (a partial run).</p>\n");
    }
    let _ = writeln!(
        out,
        "<p{BASELINE_COUNTS_ATTR}{}\"><strong>Baseline:</strong> {}</p>",
        esc(&c.counts.text()),
        esc(&c.counts.text())
    );
    let shown = super::baseline::attention(c);
    if shown.is_empty() || !c.found {
        out.push_str("</section>\n");
        return;
    }
    out.push_str(
        "<div class=\"scroll\"><table class=\"cards\">\n<caption>Cases that changed against the \
         baseline</caption>\n<thead><tr><th scope=\"col\">Case</th><th scope=\"col\">Class</th>\
         <th scope=\"col\">Baseline</th><th scope=\"col\">This run</th><th scope=\"col\">Detail</th>\
         </tr></thead>\n<tbody>\n",
    );
    for case in shown.iter().take(MAX_BASELINE_ROWS) {
        let class = if case.fails_gate() { "fail" } else { "" };
        let _ = writeln!(
            out,
            "<tr><td data-label=\"Case\">{}</td><td data-label=\"Class\" class=\"{class}\">{}</td>\
             <td data-label=\"Baseline\">{}</td><td data-label=\"This run\">{}</td>\
             <td data-label=\"Detail\">{}</td></tr>",
            esc(&case.name),
            case.class.as_str(),
            super::baseline::verdict_text(&case.baseline),
            super::baseline::verdict_text(&case.now),
            esc(&case.detail)
        );
    }
    out.push_str("</tbody></table></div>\n");
    if shown.len() > MAX_BASELINE_ROWS {
        let _ = writeln!(
            out,
            "<p>{} more case(s) not listed; summary.json lists every case.</p>",
            shown.len() - MAX_BASELINE_ROWS
        );
    }
    if c.counts.unchanged > 0 {
        let _ = writeln!(
            out,
            "<p>{} unchanged case(s) not listed.</p>",
            c.counts.unchanged
        );
    }
    out.push_str("</section>\n");
}

/// The anchor of a case's failure details.
fn details_id(case: &CaseRecord) -> String {
    format!("case-{}", case.index + 1)
}

/// One row per case: result, name, the reason in words, exit code,
/// duration, history and links to the logs.
fn results(out: &mut String, record: &RunRecord, trends: &Trends) {
    out.push_str(
        "<section aria-labelledby=\"results-h\">\n<h2 id=\"results-h\">Results</h2>\n\
         <div class=\"scroll\"><table class=\"cards results\">\n<caption>One row per case, in \
         declaration order</caption>\n<thead><tr><th scope=\"col\">#</th><th scope=\"col\">Result</th>\
         <th scope=\"col\">Case</th><th scope=\"col\">Why</th><th scope=\"col\">Exit code</th>\
         <th scope=\"col\">Duration</th><th scope=\"col\">Last runs</th><th scope=\"col\">Logs</th>\
         </tr></thead>\n<tbody>\n",
    );
    for case in &record.cases {
        let (m, class) = mark(case.result, case.flaky);
        let _ = write!(
            out,
            "{CASE_ROW}{}\"><td data-label=\"#\">{}</td>\
             <td data-label=\"Result\" class=\"{class}\"><span aria-hidden=\"true\">{m}</span> {}</td>\
             <td data-label=\"Case\"><span class=\"name\">{}</span> <span class=\"kind\">{}</span></td>\
             <td data-label=\"Why\">{}</td><td data-label=\"Exit code\">{}</td>\
             <td data-label=\"Duration\">{}</td><td data-label=\"Last runs\">",
            case.result.as_str(),
            case.index + 1,
            case.result.as_str(),
            esc(&case.name),
            case.kind.as_str(),
            why(case),
            case.exit_code
                .map_or_else(|| "—".to_string(), |c| c.to_string()),
            seconds(case.duration),
        );
        if let Some(points) = trends.cases.get(&case.name) {
            strip(out, points);
            sparkline(out, points);
        }
        out.push_str("</td><td data-label=\"Logs\">");
        logs(out, case);
        out.push_str("</td></tr>\n");
    }
    out.push_str("</tbody></table></div>\n</section>\n");
}

/// The reason in words, linked to the details of a failure.
fn why(case: &CaseRecord) -> String {
    let mut parts = Vec::new();
    if case.result.is_failure() {
        parts.push(format!(
            "<a href=\"#{}\">{}</a> <span class=\"kind\">({})</span>",
            details_id(case),
            esc(&super::headline(case)),
            esc(super::status_label(case))
        ));
    } else if let Some(reason) = &case.reason {
        parts.push(esc(reason));
    }
    parts.extend(super::case_notes(case, esc, |label| {
        format!("<strong class=\"quarantine\">{label}</strong>")
    }));
    parts.join("<br>")
}

/// Links to the case's artifact files, relative to the out dir.
fn logs(out: &mut String, case: &CaseRecord) {
    let attempts = case.previous_attempts.iter().chain(std::iter::once(case));
    let many = !case.previous_attempts.is_empty();
    let mut first = true;
    for (n, attempt) in attempts.enumerate() {
        let Some(a) = &attempt.artifacts else {
            continue;
        };
        if !first {
            out.push_str("<br>");
        }
        first = false;
        if many {
            let _ = write!(out, "attempt {}: ", n + 1);
        }
        let links: Vec<String> = a
            .labelled()
            .map(|(label, p)| format!("<a href=\"{}\">{label}</a>", href(p)))
            .collect();
        out.push_str(&links.join(" · "));
    }
    if first {
        out.push('—');
    }
}

/// The last results of a case as a strip of marks, oldest first.
fn strip(out: &mut String, points: &[Point]) {
    let words: Vec<&str> = points.iter().map(|p| p.result.as_str()).collect();
    let _ = write!(
        out,
        "<span class=\"strip\" role=\"img\" aria-label=\"last {} run(s), oldest first: {}\">",
        points.len(),
        words.join(", ")
    );
    for p in points {
        let (_, class) = mark(p.result, p.flaky);
        let m = crate::wire::history::strip_mark(p.result);
        let _ = write!(out, "<span class=\"{class}\">{m}</span>");
    }
    out.push_str("</span>");
}

/// The durations of a case across its last runs, as a small line.
fn sparkline(out: &mut String, points: &[Point]) {
    if points.len() < 2 {
        return;
    }
    let (w, h) = (96.0, 20.0);
    let max = points.iter().map(|p| p.seconds).fold(0.0_f64, f64::max);
    let step = w / (points.len() - 1) as f64;
    let coords: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let y = if max > 0.0 {
                h - 2.0 - (p.seconds / max) * (h - 4.0)
            } else {
                h - 2.0
            };
            format!("{:.1},{:.1}", i as f64 * step, y)
        })
        .collect();
    let last = points.last().map_or(0.0, |p| p.seconds);
    let _ = write!(
        out,
        " <svg class=\"spark\" width=\"{w}\" height=\"{h}\" viewBox=\"-2 0 {} {h}\" role=\"img\" \
         aria-label=\"duration over the last {} run(s): {:.2}s now, {:.2}s at most\">\
         <polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\" points=\"{}\"/></svg>",
        w + 4.0,
        points.len(),
        last,
        max,
        coords.join(" ")
    );
}

/// For each failed or errored case, its issues, diffs and the end of its
/// output, each case in a collapsible block (the first one open).
fn failures(out: &mut String, record: &RunRecord) {
    let failed: Vec<&CaseRecord> = record
        .cases
        .iter()
        .filter(|c| c.result.is_failure())
        .collect();
    if failed.is_empty() {
        return;
    }
    out.push_str("<section aria-labelledby=\"failures-h\">\n<h2 id=\"failures-h\">Failures</h2>\n");
    for (n, case) in failed.into_iter().enumerate() {
        let _ = writeln!(
            out,
            "<details id=\"{}\"{}>\n<summary><span class=\"fail\" aria-hidden=\"true\">✘</span> \
             <span class=\"name\">{}</span> ({} {}): {}</summary>",
            details_id(case),
            if n == 0 { " open" } else { "" },
            esc(&case.name),
            case.kind.as_str(),
            case.result.as_str(),
            esc(&super::headline(case))
        );
        let _ = writeln!(
            out,
            "<p>Command: <code>{}</code></p>",
            esc(&case.raw_command)
        );
        if !case.issues.is_empty() {
            out.push_str("<h3>Issues</h3>\n<ul>\n");
            for issue in &case.issues {
                let _ = write!(
                    out,
                    "<li><strong>{}</strong> ({}, {}): {}",
                    issue.issue_type.as_str(),
                    severity_str(issue.severity),
                    stage_str(issue.stage),
                    esc(&issue.message)
                );
                if !issue.evidence.is_empty() {
                    let _ = write!(out, "<br>Evidence: {}", esc(&issue.evidence));
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
        for s in case.snapshots.iter().filter(|s| s.diff.is_some()) {
            let _ = writeln!(
                out,
                "<h3>{} of {} (against <code>{}</code>)</h3>",
                s.changed_type().as_str(),
                esc(s.subject()),
                esc(&s.file)
            );
            diff(out, s.diff.as_deref().unwrap_or(""));
        }
        for (stream, end) in output_ends(case) {
            let _ = writeln!(
                out,
                "<h3>{stream} (end)</h3>\n<pre tabindex=\"0\">{}</pre>",
                esc(&end)
            );
        }
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n");
}

/// A unified diff, each added or removed line marked.
fn diff(out: &mut String, text: &str) {
    out.push_str("<pre class=\"diff\" tabindex=\"0\">");
    for line in text.lines() {
        let class = match DiffLine::of(line) {
            DiffLine::Added => "add",
            DiffLine::Removed => "del",
            DiffLine::Hunk => "hunk",
            DiffLine::Other => "",
        };
        if class.is_empty() {
            let _ = writeln!(out, "{}", esc(line));
        } else {
            let _ = writeln!(out, "<span class=\"{class}\">{}</span>", esc(line));
        }
    }
    out.push_str("</pre>\n");
}

/// A label cut to `max` characters, with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max - 1).collect();
    s.push('…');
    s
}

/// A bar per case (the slowest ones when there are many), in declaration
/// order, coloured by result.
fn durations(out: &mut String, record: &RunRecord) {
    let mut ran: Vec<&CaseRecord> = record.cases.iter().filter(|c| c.ran()).collect();
    if ran.is_empty() {
        return;
    }
    let note = if ran.len() > MAX_BARS {
        ran.sort_by_key(|c| std::cmp::Reverse(c.duration));
        ran.truncate(MAX_BARS);
        ran.sort_by_key(|c| c.index);
        format!(" (the {MAX_BARS} slowest)")
    } else {
        String::new()
    };
    let max = ran
        .iter()
        .map(|c| c.duration.as_secs_f64())
        .fold(0.0_f64, f64::max);
    let (label_w, bar_w, row_h) = (220.0, 380.0, 22.0);
    let height = row_h * ran.len() as f64 + 4.0;
    let _ = writeln!(
        out,
        "<section aria-labelledby=\"durations-h\">\n<h2 id=\"durations-h\">Durations{note}</h2>\n\
         <div class=\"scroll\" tabindex=\"0\" role=\"group\" aria-label=\"durations chart\"><svg class=\"chart\" viewBox=\"0 0 720 {height}\" role=\"img\" aria-labelledby=\"durations-t\">\
         <title id=\"durations-t\">Duration of each case{note}, longest {:.2}s</title>",
        max
    );
    for (i, case) in ran.iter().enumerate() {
        let y = i as f64 * row_h + 2.0;
        let secs = case.duration.as_secs_f64();
        let w = if max > 0.0 {
            (secs / max * bar_w).max(1.0)
        } else {
            1.0
        };
        let (_, class) = mark(case.result, case.flaky);
        let fill = match class {
            "pass" => "#1a7f37",
            "fail" => "#cf222e",
            "flaky" => "#9a6700",
            _ => "#6e7781",
        };
        let _ = writeln!(
            out,
            "<g><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"12\" fill=\"#1f2328\">{}</text>\
             <rect x=\"{label_w}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{fill}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" fill=\"#1f2328\">{:.2}s {}</text></g>",
            label_w - 6.0,
            y + 14.0,
            esc(&cut(&case.name, 32)),
            row_h - 6.0,
            label_w + w + 6.0,
            y + 14.0,
            secs,
            case.result.as_str()
        );
    }
    out.push_str("</svg></div>\n</section>\n");
}

/// The sum of case durations of each run, this one last, as a line; a
/// run with a failure is a red point.
fn run_trend(out: &mut String, trends: &Trends) {
    let runs = &trends.runs;
    let _ = writeln!(
        out,
        "<section aria-labelledby=\"trend-h\">\n<h2 id=\"trend-h\">Trend</h2>"
    );
    if runs.len() < 2 {
        out.push_str(
            "<p>No earlier run in this out dir's history.jsonl yet: the trend starts with the \
             next run.</p>\n</section>\n",
        );
        return;
    }
    let (w, h, left, top) = (720.0, 180.0, 56.0, 12.0);
    let (plot_w, plot_h) = (w - left - 12.0, h - top - 28.0);
    let max = runs.iter().map(|r| r.1).fold(0.0_f64, f64::max).max(0.01);
    let step = plot_w / (runs.len() - 1) as f64;
    let at = |i: usize, v: f64| (left + i as f64 * step, top + plot_h - v / max * plot_h);
    let _ = writeln!(
        out,
        "<div class=\"scroll\" tabindex=\"0\" role=\"group\" aria-label=\"trend chart\"><svg class=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"trend-t\">\
         <title id=\"trend-t\">Sum of case durations over the last {} run(s), oldest first: {}</title>\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{:.1}\" stroke=\"#57606a\"/>\
         <line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#57606a\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"12\" fill=\"#1f2328\">{:.2}s</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"12\" fill=\"#1f2328\">0s</text>\
         <text x=\"{left}\" y=\"{:.1}\" font-size=\"12\" fill=\"#1f2328\">oldest</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"12\" fill=\"#1f2328\">this run</text>",
        runs.len(),
        runs.iter()
            .map(|r| format!("{:.2}s{}", r.1, if r.2 { " (failed)" } else { "" }))
            .collect::<Vec<_>>()
            .join(", "),
        top + plot_h,
        top + plot_h,
        left + plot_w,
        top + plot_h,
        left - 6.0,
        top + 10.0,
        max,
        left - 6.0,
        top + plot_h,
        h - 8.0,
        left + plot_w,
        h - 8.0,
    );
    let points: Vec<String> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (x, y) = at(i, r.1);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let _ = writeln!(
        out,
        "<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\" points=\"{}\"/>",
        points.join(" ")
    );
    for (i, r) in runs.iter().enumerate() {
        let (x, y) = at(i, r.1);
        let fill = if r.2 { "#cf222e" } else { "#1a7f37" };
        let _ = writeln!(
            out,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{fill}\"/>"
        );
    }
    out.push_str("</svg></div>\n</section>\n");
}

/// The value of the first `attr` (` name="`) in `text`, unescaped.
fn attr_value<'a>(text: &'a str, attr: &str) -> Option<&'a str> {
    let start = text.find(attr)? + attr.len();
    let len = text[start..].find('"')?;
    Some(&text[start..start + len])
}

/// The `report.html` format.
pub(super) struct Html;

impl Format for Html {
    fn file_name(&self) -> &'static str {
        HTML_FILE
    }

    fn render(&self, run: &RunView<'_>, harness_display: &str) -> Result<String, RenderError> {
        Ok(render(run, harness_display))
    }

    fn check(&self, file: &ReadBack<'_>, found: &mut Vec<Disagreement>) {
        check(file.path, file.text, &file.run, found);
    }

    fn added_later(&self) -> bool {
        true
    }
}

/// Check a report.html read back against the run: the final status, the
/// counts, a row per case with its result, the all-clear phrase, the
/// baseline counts.
fn check(path: &Path, text: &str, run: &RunView<'_>, found: &mut Vec<Disagreement>) {
    let (record, counts) = (run.record, run.record.counts());
    let unescape = |s: &str| s.replace("&amp;", "&");
    let status = attr_value(text, FINAL_STATUS_ATTR).unwrap_or("(missing)");
    compare(
        found,
        path,
        "final status",
        run.results.status.to_string(),
        unescape(status),
    );
    let line = attr_value(text, COUNTS_ATTR).unwrap_or("(missing)");
    compare(
        found,
        path,
        "counts line",
        counts_text(&counts),
        unescape(line),
    );
    let rows: Vec<&str> = text
        .match_indices(CASE_ROW)
        .filter_map(|(i, _)| {
            let rest = &text[i + CASE_ROW.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect();
    compare(found, path, "results table rows", counts.total, rows.len());
    result_cells(found, path, record, rows);
    all_clear(found, path, record, text);
    if let Some(c) = &record.baseline {
        let got = attr_value(text, BASELINE_COUNTS_ATTR).unwrap_or("(missing)");
        compare(
            found,
            path,
            "baseline counts",
            c.counts.text(),
            unescape(got),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_cannot_spell_a_checked_attribute_or_the_all_clear() {
        let hostile = "\" data-final-status=\"SUCCESS\"><tr class=\"case\" data-result=\"PASSED\"> No issues observed \u{1b}[31m\u{7}";
        let shown = esc(hostile);
        assert!(!shown.contains('"') && !shown.contains('<'), "{shown}");
        assert!(!shown.contains(NO_ISSUES_PHRASE), "{shown}");
        assert!(
            !shown.contains('\u{1b}') && shown.contains('\u{2407}'),
            "{shown}"
        );
    }
}
