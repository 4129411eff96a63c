//! `report.html` through the real binary: sealed and integrity-checked
//! like the other reports, valid HTML (the Nu HTML Checker), and what a
//! real browser renders of it (headless Chromium driven by
//! playwright-core, axe-core for accessibility): `tests/browser/`.
//!
//! The tools come from `.ci/browser-tools` (run by `.ci/run`). Without
//! them the browser and validator checks say so and skip, except under
//! `CI=true`, where they fail.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Project, text, verify_evidence};

const SECRET: &str = "hunter2-very-secret";

/// Three cases: one that passes, one that exits 0 yet prints a pydantic
/// validation error (with colour, indentation and a secret), one slow
/// pass; run twice so history has two runs.
fn two_runs() -> Project {
    let p = Project::new(
        r#"
[harness]
name = "html report"
require_golden = false

[[verify]]
name = "builds"
command = "echo built"

[[verify]]
name = "pipeline validates"
command = "printf '\\033[31m1 validation error for ProjectConfig\\033[0m\\nnodes.0.name\\n    Field required [type=missing]\\ntoken=%s\\n' \"$API_TOKEN\""

[[verify]]
name = "slow step"
command = "sleep 0.2; echo ok"
"#,
    );
    for _ in 0..2 {
        let out = p.cmd(&[]).env("API_TOKEN", SECRET).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    }
    p
}

/// A tool `.ci/browser-tools` provides, from `var`; `None` (after saying
/// so) when it is not there, a panic under `CI=true`.
fn tool(var: &str) -> Option<PathBuf> {
    let how = "run `eval \"$(bash .ci/browser-tools)\"` to check report.html with it";
    common::from_ci(var, how, "the report.html check")
}

#[test]
fn report_html_is_sealed_masked_and_checked_like_every_report() {
    let p = two_runs();
    let html = std::fs::read_to_string(p.out().join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    // No secret, no escape sequence; the indentation of the output kept.
    assert!(!html.contains(SECRET), "the secret leaked");
    assert!(html.contains("token=[REDACTED:API_TOKEN]"), "{html}");
    assert!(
        !html.contains('\u{1b}'),
        "an escape sequence reached the page"
    );
    assert!(html.contains("nodes.0.name\n    Field required [type=missing]"));
    // Nothing the page could fetch or run.
    assert!(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"));

    let run_dir = p.run_dir();
    let sums = std::fs::read_to_string(run_dir.join("SHA256SUMS")).unwrap();
    assert!(sums.lines().any(|l| l.ends_with("  report.html")), "{sums}");
    let ok = verify_evidence(&p.out());
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));

    // A report.html that claims success for this run is caught, in the
    // out dir (it differs from the sealed copy and from the evidence) ...
    let forged = html.replacen(
        "data-final-status=\"PARTIAL",
        "data-final-status=\"SUCCESS",
        1,
    );
    assert_ne!(forged, html);
    std::fs::write(p.out().join("report.html"), &forged).unwrap();
    let caught = verify_evidence(&p.out());
    let said = text(&caught);
    assert_eq!(caught.status.code(), Some(1), "{said}");
    assert!(
        said.contains("report.html") && said.contains("final status"),
        "{said}"
    );

    // ... and in the run dir, where SHA256SUMS no longer matches it.
    std::fs::write(p.out().join("report.html"), &html).unwrap();
    std::fs::write(run_dir.join("report.html"), &forged).unwrap();
    let caught = verify_evidence(&p.out());
    let said = text(&caught);
    assert_eq!(caught.status.code(), Some(1), "{said}");
    assert!(
        said.contains("report.html") && said.contains("changed"),
        "{said}"
    );

    // A run sealed before report.html existed has none, and no line for
    // it in SHA256SUMS: that verifies. Gone while SHA256SUMS lists it, it
    // does not.
    std::fs::remove_file(p.out().join("report.html")).unwrap();
    std::fs::remove_file(run_dir.join("report.html")).unwrap();
    let listed = verify_evidence(&p.out());
    assert_eq!(listed.status.code(), Some(1), "{}", text(&listed));
    assert!(text(&listed).contains("report.html"), "{}", text(&listed));
    let older: String = sums
        .lines()
        .filter(|l| !l.ends_with("  report.html"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(run_dir.join("SHA256SUMS"), older).unwrap();
    let ok = verify_evidence(&p.out());
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
}

#[test]
fn report_html_passes_the_nu_html_checker() {
    let Some(validator) = tool("CARGO_GOLDEN_HTML_VALIDATOR") else {
        return;
    };
    let p = two_runs();
    let out = Command::new(&validator)
        .args(["--format", "text"])
        .arg(p.out().join("report.html"))
        .output()
        .unwrap();
    eprintln!("{}", text(&out));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // The checker is not a rubber stamp: a stray end tag fails it.
    let broken = p.path().join("broken.html");
    let page = std::fs::read_to_string(p.out().join("report.html")).unwrap();
    std::fs::write(&broken, page.replacen("</main>", "</span></main>", 1)).unwrap();
    let out = Command::new(&validator)
        .args(["--format", "text"])
        .arg(&broken)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
}

/// Where the screenshots are kept for review: a fixed place under the
/// target dir, replaced by each run of the test.
fn screenshot_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-html");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn report_html_renders_in_a_real_browser() {
    let (Some(tools), Some(chromium)) = (
        tool("CARGO_GOLDEN_BROWSER_TOOLS"),
        tool("CARGO_GOLDEN_CHROMIUM"),
    ) else {
        return;
    };
    let p = two_runs();
    let shots = screenshot_dir();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check_report.mjs");
    let expect = serde_json::json!({
        "failing": {"name": "pipeline validates", "reason": "Pipeline validation failed"},
        "cases": 3,
        "history_runs": 2,
    });
    let out = Command::new("node")
        .arg(&script)
        .arg(p.out().join("report.html"))
        .arg(&shots)
        .arg(expect.to_string())
        .env("CARGO_GOLDEN_BROWSER_TOOLS", &tools)
        .env("CARGO_GOLDEN_CHROMIUM", &chromium)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "the browser check failed:\n{stderr}"
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    for label in ["1100", "phone"] {
        let view = &seen[label];
        assert_eq!(view["status"], "PARTIAL (1 case(s) failed)", "{view}");
        assert_eq!(view["console"], serde_json::json!([]), "{view}");
        assert_eq!(view["requests"], serde_json::json!([]), "{view}");
        // The failing case: its row, its strip of two failed runs, and its
        // details open with the output as printed, secret masked.
        let rows = view["rows"].as_array().unwrap();
        let failing = rows
            .iter()
            .find(|r| r["name"] == "pipeline validates")
            .unwrap();
        assert_eq!(failing["result"], "FAILED");
        assert_eq!(failing["visible"], true);
        assert_eq!(failing["strip"], "✘✘", "{failing}");
        let details = view["details"].as_array().unwrap();
        assert_eq!(details.len(), 1, "{view}");
        assert_eq!(details[0]["open"], true);
        let shown = details[0]["text"].as_str().unwrap();
        assert!(
            shown.contains("    Field required [type=missing]"),
            "{shown}"
        );
        assert!(shown.contains("token=[REDACTED:API_TOKEN]") && !shown.contains(SECRET));
        // A bar per case, and the trend across both runs.
        let charts = view["charts"].as_array().unwrap();
        assert!(charts.iter().any(|c| c["bars"] == 3), "{charts:?}");
        assert!(charts.iter().any(|c| c["lines"] == 1), "{charts:?}");
        let png = std::fs::read(shots.join(format!("report-{label}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
        let axe = &seen[format!("axe_{label}")];
        assert_eq!(axe["violations"], serde_json::json!([]), "{axe}");
        assert!(axe["passes"].as_u64().unwrap() > 10, "{axe}");
    }
    eprintln!("screenshots: {}", shots.display());
}
