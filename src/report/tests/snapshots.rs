//! Snapshots of every file format for the small fixed run. Nothing in them
//! depends on the machine: timestamps, durations and hashes are fixed by
//! the fixture and the one random field (tool_call_id) is redacted.

use crate::model::JunitFlavour;
use crate::report::write_all;
use crate::report::{JUNIT_FILE, MARKDOWN_FILE, OBSERVATIONS_FILE, SUMMARY_FILE};
use crate::wire::evidence::Evidence;

use super::support;

fn written() -> (tempfile::TempDir, crate::report::Written) {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    let written = write_all(&record, "harness.toml").unwrap();
    (dir, written)
}

/// `junit.xml` with the out dir (a temp dir, outside any repository, so
/// the attachments name it in full) written `[OUT]`.
fn junit_text(dir: &std::path::Path, w: &crate::report::Written) -> String {
    std::fs::read_to_string(w.path(JUNIT_FILE))
        .unwrap()
        .replace(&dir.display().to_string(), "[OUT]")
}

#[test]
fn junit_xml() {
    let (dir, w) = written();
    insta::assert_snapshot!(junit_text(dir.path(), &w));
}

#[test]
fn junit_xml_strict() {
    let dir = tempfile::tempdir().unwrap();
    let mut record = support::fixed(dir.path());
    record.junit = JunitFlavour::Strict;
    let w = write_all(&record, "harness.toml").unwrap();
    insta::assert_snapshot!(junit_text(dir.path(), &w));
}

#[test]
fn report_md() {
    let (_dir, w) = written();
    insta::assert_snapshot!(std::fs::read_to_string(w.path(MARKDOWN_FILE)).unwrap());
}

#[test]
fn summary_json() {
    let (_dir, w) = written();
    insta::assert_snapshot!(std::fs::read_to_string(w.path(SUMMARY_FILE)).unwrap());
}

#[test]
fn observations_jsonl() {
    let (_dir, w) = written();
    let text = std::fs::read_to_string(w.path(OBSERVATIONS_FILE)).unwrap();
    let redacted: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let id = v["tool_call_id"].as_str().unwrap();
            assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 4);
            v["tool_call_id"] = "[uuid]".into();
            serde_json::to_string(&v).unwrap()
        })
        .collect();
    insta::assert_snapshot!(redacted.join("\n"));
}

#[test]
fn evidence_json_of_a_failed_case() {
    let dir = tempfile::tempdir().unwrap();
    let record = support::fixed(dir.path());
    insta::assert_snapshot!(
        serde_json::to_string_pretty(&Evidence::from_case(&record.cases[1])).unwrap()
    );
}
