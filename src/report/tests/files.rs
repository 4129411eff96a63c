//! The four report files and evidence.json, written for a hostile run and
//! read back with real parsers.

use std::time::Duration;

use crate::commands::validate::{Format, validate_file};
use crate::model::{CaseResult, JunitFlavour, RunRecord};
use crate::report::{JUNIT_FILE, MARKDOWN_FILE, OBSERVATIONS_FILE, SUMMARY_FILE};
use crate::report::{Written, read_summary, write_all, write_evidence};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::support::{self, HOSTILE_NAME};

/// What an XML attribute holding `s` reads back as: ANSI escapes and
/// controls other than white space gone, line breaks and tabs folded to
/// spaces, noncharacters replaced.
fn as_attribute(s: &str) -> String {
    let stripped = crate::ansi::strip_str(s);
    stripped
        .chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' => Some(' '),
            '\u{FFFE}' | '\u{FFFF}' => Some('\u{FFFD}'),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

fn write_hostile() -> (tempfile::TempDir, RunRecord, Written) {
    let dir = tempfile::tempdir().unwrap();
    let record = support::hostile(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    (dir, record, written)
}

#[test]
fn junit_is_well_formed_and_complete_for_hostile_output() {
    let (_dir, record, written) = write_hostile();
    let xml = std::fs::read_to_string(written.path(JUNIT_FILE)).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("junit.xml must be well-formed");

    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 1);
    let suite = suites[0];
    assert_eq!(suite.attribute("name"), Some("demo"));
    assert_eq!(suite.attribute("tests"), Some("4"));
    assert_eq!(suite.attribute("failures"), Some("1"));
    assert_eq!(suite.attribute("errors"), Some("1"));
    assert_eq!(suite.attribute("skipped"), Some("1"));

    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), record.cases.len());
    for (tc, case) in cases.iter().zip(&record.cases) {
        assert_eq!(
            tc.attribute("name"),
            Some(as_attribute(&case.name).as_str())
        );
        assert_eq!(tc.attribute("classname"), Some(case.kind.as_str()));
        assert_eq!(tc.attribute("file"), Some("harness.toml"));
        assert_eq!(tc.attribute("line"), Some(case.line.to_string().as_str()));
        let time: f64 = tc.attribute("time").unwrap().parse().unwrap();
        assert!((time - case.duration.as_secs_f64()).abs() < 0.001);

        let props: Vec<(&str, &str)> = tc
            .descendants()
            .filter(|n| n.has_tag_name("property"))
            .map(|p| (p.attribute("name").unwrap(), p.attribute("value").unwrap()))
            .collect();
        let prop = |k: &str| props.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
        assert_eq!(
            prop("evidence_hash"),
            Some(case.evidence_hash.as_deref().unwrap_or(""))
        );
        assert_eq!(
            prop("execution_status"),
            Some(case.execution_status.as_str())
        );
        assert_eq!(prop("status"), Some(case.status.as_str()));
        let exit = case.exit_code.map(|c| c.to_string()).unwrap_or_default();
        assert_eq!(prop("exit_code"), Some(exit.as_str()));

        let child = |tag: &str| tc.children().find(|n| n.has_tag_name(tag));
        match case.result {
            CaseResult::Failed => {
                let f = child("failure").expect("failed case has <failure>");
                let msg = f.attribute("message").unwrap();
                assert!(!msg.contains('\n') && !msg.contains('\r'), "{msg:?}");
                assert!(
                    msg.starts_with("Pipeline failed: line two | `x` <script> bold"),
                    "{msg:?}"
                );
                assert_eq!(f.attribute("type"), Some("PIPELINE_EXECUTION_ERROR"));
                let text = f.text().unwrap();
                assert!(text.contains("PIPELINE_EXECUTION_ERROR"));
                assert!(text.contains("--- stderr (end) ---"));
                assert!(child("error").is_none() && child("skipped").is_none());
            }
            CaseResult::Error => {
                let e = child("error").expect("errored case has <error>");
                assert_eq!(e.attribute("type"), Some("EXECUTION_ERROR"));
                assert_eq!(
                    e.attribute("message"),
                    Some("cannot start: <denied> | retry")
                );
            }
            CaseResult::Skipped => {
                let s = child("skipped").expect("skipped case has <skipped>");
                assert_eq!(s.attribute("message"), Some("filtered | out"));
            }
            CaseResult::Passed => {
                assert!(child("failure").is_none() && child("error").is_none());
            }
        }
    }

    // The outputs survive, minus what XML cannot hold.
    let out = cases[0]
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .unwrap()
        .text()
        .unwrap();
    // Tabs are expanded (quick-junit would drop them); ANSI escapes are
    // gone and NUL is shown as its control picture.
    assert!(
        out.starts_with(
            "red\u{2400}nul ]]> <tag> & \u{FFFD} \u{FFFD}\u{FFFD} invalid        tab\n"
        ),
        "{:?}",
        &out[..60]
    );
    assert!(out.contains(std::str::from_utf8(&support::huge_line()).unwrap()));
    let err = cases[0]
        .children()
        .find(|n| n.has_tag_name("system-err"))
        .unwrap()
        .text()
        .unwrap();
    assert!(err.contains("Pipeline failed | `boom`"));
    assert!(!err.contains('\x1b') && !err.contains('\x07'));
}

#[test]
fn strict_junit_keeps_to_the_schema_and_the_same_results_for_hostile_output() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::hostile(dir.path());
    let rich = write_all(&record, "harness.toml").unwrap();
    let rich_xml = std::fs::read_to_string(rich.path(JUNIT_FILE)).unwrap();
    record.junit = JunitFlavour::Strict;
    let strict = write_all(&record, "harness.toml").unwrap();
    let strict_xml = std::fs::read_to_string(strict.path(JUNIT_FILE)).unwrap();
    let rich = roxmltree::Document::parse(&rich_xml).expect("rich junit.xml is well-formed");
    let strict = roxmltree::Document::parse(&strict_xml).expect("strict junit.xml is well-formed");
    assert_eq!(super::xunit::violations(&strict), Vec::<String>::new());

    // Same cases, same result elements, same output text.
    let shape = |doc: &roxmltree::Document| -> Vec<(String, Vec<(String, String)>)> {
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .map(|tc| {
                let children = tc
                    .children()
                    .filter(|c| c.is_element() && !c.has_tag_name("properties"))
                    .map(|c| {
                        let body = c.text().unwrap_or("");
                        // Strict heads the failure text with the declaration.
                        let body = body
                            .split_once("\n")
                            .filter(|(first, _)| first.starts_with("Declared at "))
                            .map_or(body, |(_, rest)| rest);
                        (c.tag_name().name().to_string(), body.to_string())
                    })
                    .collect();
                (tc.attribute("name").unwrap().to_string(), children)
            })
            .collect()
    };
    assert_eq!(shape(&strict), shape(&rich));

    let name = as_attribute(HOSTILE_NAME);
    let props: Vec<(&str, &str)> = strict
        .descendants()
        .filter(|n| n.has_tag_name("property"))
        .map(|p| (p.attribute("name").unwrap(), p.attribute("value").unwrap()))
        .collect();
    let line = record.cases[0].line.to_string();
    assert!(
        props.contains(&(format!("case.{name}.line").as_str(), line.as_str())),
        "{props:?}"
    );
    let hash = record.cases[0].evidence_hash.as_deref().unwrap();
    assert!(
        props.contains(&(format!("case.{name}.evidence_hash").as_str(), hash)),
        "{props:?}"
    );
}

#[test]
fn junit_marks_flaky_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    let xml = std::fs::read_to_string(written.path(JUNIT_FILE)).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let flaky = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("flaky api"))
        .unwrap();
    let attempts: Vec<_> = flaky
        .children()
        .filter(|n| n.has_tag_name("flakyFailure"))
        .collect();
    assert_eq!(attempts.len(), 1);
    assert_eq!(
        attempts[0].attribute("message"),
        Some("Command exited with code 1")
    );
    assert!(flaky.children().all(|n| !n.has_tag_name("failure")));
}

/// Every table row of the rendered markdown, as cell counts.
fn table_shapes(md: &str) -> Vec<(usize, Vec<usize>)> {
    let mut tables = Vec::new();
    let mut header = 0;
    let mut rows = Vec::new();
    let mut cells = 0;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(_)) => rows = Vec::new(),
            Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableHead) => header = cells,
            Event::End(TagEnd::TableRow) => rows.push(cells),
            Event::End(TagEnd::Table) => tables.push((header, std::mem::take(&mut rows))),
            _ => {}
        }
    }
    tables
}

#[test]
fn markdown_tables_keep_their_shape_for_hostile_text() {
    let (_dir, record, written) = write_hostile();
    let md = std::fs::read_to_string(written.path(MARKDOWN_FILE)).unwrap();

    let tables = table_shapes(&md);
    assert_eq!(tables.len(), 2, "results and evidence tables");
    for (header, rows) in &tables {
        assert_eq!(rows.len(), record.cases.len());
        for cells in rows {
            assert_eq!(cells, header, "row shape in\n{md}");
        }
    }
    assert!(md.contains("| Step | Command | Exit Code | Status | Hash | Artifacts |"));
    assert!(md.contains("_Total duration: 5.43s_"));

    // User text is never live HTML or a code span.
    let html = {
        let mut s = String::new();
        pulldown_cmark::html::push_html(&mut s, Parser::new_ext(&md, Options::ENABLE_TABLES));
        s
    };
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("<code>"), "{html}");
    assert!(
        html.contains("a | b `code` &lt;script&gt;alert(1)&lt;/script&gt;<br>line2 &amp; ]]&gt;")
    );

    // The run warning and the partition are shown near the top.
    let warning_at = md.find("No golden project declared").unwrap();
    assert!(warning_at < md.find("## Results").unwrap());
    assert!(md.contains("partition count:1/2 (4 of 8 declared cases)"));

    // A passing case whose output says the phrase cannot make the report say it.
    assert!(!md.contains("No issues observed"));
}

#[test]
fn markdown_says_no_issues_only_when_all_passed() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record.cases.retain(|c| c.result == CaseResult::Passed);
    let written = write_all(&record, "harness.toml").unwrap();
    let md = std::fs::read_to_string(written.path(MARKDOWN_FILE)).unwrap();
    assert!(md.contains("No issues observed."));
    assert!(md.contains("**Final status:** SUCCESS"));

    record.cases[0] = crate::model::CaseRecord::skipped(
        0,
        "x",
        crate::model::CaseKind::Verify,
        1,
        "true",
        "/".into(),
        "interrupted",
    );
    write_all(&record, "harness.toml").unwrap();
    let md = std::fs::read_to_string(written.path(MARKDOWN_FILE)).unwrap();
    assert!(!md.contains("No issues observed"), "{md}");
    assert!(md.contains("No issue was recorded, yet 1 of 2 case(s) did not pass."));
}

#[test]
fn summary_counts_and_round_trip() {
    let (_dir, record, written) = write_hostile();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(written.path(SUMMARY_FILE)).unwrap())
            .unwrap();
    assert_eq!(v["final_status"], "PARTIAL (2 case(s) failed)");
    assert_eq!(v["counts"]["total"], 4);
    assert_eq!(v["counts"]["failed"], 1);
    assert_eq!(v["counts"]["errors"], 1);
    assert_eq!(v["counts"]["skipped"], 1);
    assert_eq!(v["counts"]["passed"], 1);
    assert_eq!(v["harness"]["path"], "harness.toml");
    assert_eq!(v["harness"]["sha256"], "ab".repeat(32));
    assert_eq!(v["partition"], "count:1/2");
    assert_eq!(v["cases"][0]["name"], HOSTILE_NAME);
    assert_eq!(
        v["cases"][0]["issues"][0]["type"],
        "PIPELINE_EXECUTION_ERROR"
    );

    let back = read_summary(written.path(SUMMARY_FILE)).unwrap();
    assert_eq!(back.out_dir, record.out_dir);
    assert_eq!(back.counts(), record.counts());
    assert_eq!(back.final_status(), record.final_status());
    assert_eq!(back.run_id, record.run_id);
    assert_eq!(back.harness_path, record.harness_path);
    assert_eq!(back.partition, record.partition);
    assert_eq!(back.declared_cases, record.declared_cases);
    assert_eq!(back.warnings, record.warnings);
    assert_eq!(back.started_at, record.started_at);
    for (a, b) in back.cases.iter().zip(&record.cases) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.index, b.index);
        assert_eq!(a.line, b.line);
        assert_eq!(a.kind, b.kind);
        assert_eq!(a.raw_command, b.raw_command);
        assert_eq!(a.working_dir, b.working_dir);
        assert_eq!(a.exit_code, b.exit_code);
        // Lossless: invalid UTF-8 and NUL come back byte for byte.
        assert_eq!(a.stdout, b.stdout);
        assert_eq!(a.stderr, b.stderr);
        assert_eq!(a.started_at, b.started_at);
        assert_eq!(a.finished_at, b.finished_at);
        assert!(a.duration.abs_diff(b.duration) < Duration::from_micros(1));
        assert_eq!(a.status, b.status);
        assert_eq!(a.execution_status, b.execution_status);
        assert_eq!(a.result, b.result);
        assert_eq!(a.evidence_hash, b.evidence_hash);
        assert_eq!(a.issues, b.issues);
        assert_eq!(a.validation_errors, b.validation_errors);
        assert_eq!(a.artifacts, b.artifacts);
        assert_eq!(a.warnings, b.warnings);
        assert_eq!(a.reason, b.reason);
        assert_eq!(a.flaky, b.flaky);
        assert_eq!(a.previous_attempts.len(), b.previous_attempts.len());
    }

    // Rendering the record read back gives the same summary.
    let again = tempfile::tempdir().unwrap();
    let mut back = back;
    back.out_dir = again.path().to_path_buf();
    let rewritten = write_all(&back, "harness.toml").unwrap();
    let a = std::fs::read_to_string(written.path(SUMMARY_FILE)).unwrap();
    let b = std::fs::read_to_string(rewritten.path(SUMMARY_FILE)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn flaky_attempts_round_trip_through_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    let back = read_summary(written.path(SUMMARY_FILE)).unwrap();
    let (a, b) = (&back.cases[4], &record.cases[4]);
    assert!(a.flaky);
    assert_eq!(a.previous_attempts.len(), 1);
    assert_eq!(a.previous_attempts[0].issues, b.previous_attempts[0].issues);
    assert_eq!(
        a.previous_attempts[0].artifacts,
        b.previous_attempts[0].artifacts
    );
    assert_eq!(a.previous_attempts[0].stderr, b.previous_attempts[0].stderr);
}

#[test]
fn observations_cover_cases_that_ran_and_validate() {
    let (dir, record, written) = write_hostile();
    let text = std::fs::read_to_string(written.path(OBSERVATIONS_FILE)).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ran: Vec<_> = record.cases.iter().filter(|c| c.ran()).collect();
    assert_eq!(lines.len(), ran.len());
    for (obs, case) in lines.iter().zip(ran) {
        assert_eq!(obs["metadata"]["case"], case.name.as_str());
        assert_eq!(obs["metadata"]["result"], case.result.as_str());
    }
    // Invalid UTF-8 and NUL in the first case: both streams in base64.
    assert_eq!(lines[0]["encoding"], "base64");
    assert_eq!(lines[1]["encoding"], "utf8");
    assert_eq!(lines[1]["stdout"], "No issues observed\n");
    assert_eq!(lines[0]["timestamp_ns"], support::T0_NS.to_string());

    let violations = validate_file(written.path(OBSERVATIONS_FILE), Format::Observation).unwrap();
    assert!(violations.is_empty(), "{violations:?}");
    drop(dir);
}

#[test]
fn evidence_json_has_the_contract_fields_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::hostile(dir.path());
    let case = &record.cases[0];
    write_evidence(case, dir.path()).unwrap();
    let path = dir.path().join(&case.artifacts.as_ref().unwrap().evidence);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "schema_version",
            "case",
            "kind",
            "raw_command",
            "working_dir",
            "exit_code",
            "stdout",
            "stderr",
            "encoding",
            "started_at",
            "finished_at",
            "duration_seconds",
            "status",
            "execution_status",
            "result",
            "evidence_hash",
            "issues",
            "validation_errors",
            "artifacts",
            "redactions",
            "warnings",
            "quarantine",
            "flaky",
            "reason",
            "previous_attempts",
            "expected",
            "timed_out",
            "interrupted",
            "snapshots",
            "golden_changes",
            "structured_result",
        ]
    );
    assert_eq!(v["case"], HOSTILE_NAME);
    assert_eq!(v["exit_code"], 3);
    assert_eq!(v["started_at"], "2025-11-21T23:07:00Z");
    assert_eq!(v["finished_at"], "2025-11-21T23:07:00.25Z");
    assert_eq!(v["duration_seconds"], 0.25);
    assert_eq!(v["status"], "FAILURE");
    assert_eq!(v["result"], "FAILED");
    assert_eq!(v["evidence_hash"], case.evidence_hash.as_deref().unwrap());
    // Invalid UTF-8 and NUL in this case's output: both copies in Base64,
    // the exact bytes.
    assert_eq!(v["encoding"], "base64");
    let stdout = BASE64.decode(v["stdout"].as_str().unwrap()).unwrap();
    assert_eq!(stdout, case.stdout);
    assert!(stdout.starts_with(b"\x1b[31mred"));

    let skipped = &record.cases[3];
    assert_eq!(
        write_evidence(skipped, dir.path()).unwrap_err().kind(),
        std::io::ErrorKind::InvalidInput
    );
}

#[test]
fn write_failure_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    // A directory where the markdown report should go cannot be replaced.
    std::fs::create_dir_all(dir.path().join("report.md/x")).unwrap();
    let err = write_all(&record, "harness.toml").unwrap_err();
    assert!(err.to_string().contains("report.md"), "{err}");
}
