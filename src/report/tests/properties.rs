//! Whatever names, commands, messages and output hold, the reports stay
//! well-formed, keep their table shapes and pass the integrity check.

use crate::model::{CaseKind, CaseResult, ExecutionStatus, IssueType};
use crate::report::{JUNIT_FILE, MARKDOWN_FILE};
use crate::report::{check_integrity, write_all};
use proptest::prelude::*;

use super::support;

fn hostile_char() -> impl Strategy<Value = char> {
    prop_oneof![
        any::<char>(),
        prop::sample::select(vec![
            '|', '`', '\n', '\r', '\t', '<', '>', '&', ']', '\\', '*', '_', '#', '%', ':', ',',
            '\u{FFFE}', '\u{FFFF}', '\x1b', '\0', '\x07', ' ',
        ]),
    ]
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(hostile_char(), 1..40).prop_map(|v| v.into_iter().collect()),
        prop::sample::select(vec![
            "]]>".to_string(),
            "No issues observed".to_string(),
            "## Issues".to_string(),
            "| a | b |\n| --- | --- |".to_string(),
            "<script>x</script>".to_string(),
        ]),
    ]
}

fn check(name: String, command: String, message: String, stdout: Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let mut failed = support::ran(
        0,
        &name,
        CaseKind::Golden,
        &command,
        2,
        &stdout,
        message.as_bytes(),
        ExecutionStatus::RuntimeFailed,
        CaseResult::Failed,
    );
    failed.issues.push(support::issue(
        &name,
        CaseKind::Golden,
        IssueType::ExecutionFailure,
        &message,
        &message,
    ));
    let passed = support::ran(
        1,
        &format!("{name} 2"),
        CaseKind::Verify,
        &command,
        0,
        &stdout,
        b"",
        ExecutionStatus::Success,
        CaseResult::Passed,
    );
    let mut record = support::record(dir.path(), vec![failed, passed]);
    record.suite_name = name.clone();
    record.warnings.push(message.clone());
    let written = write_all(&record, &command).unwrap();

    let xml = std::fs::read_to_string(written.path(JUNIT_FILE)).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    let msg = failure.attribute("message").unwrap();
    assert!(!msg.contains(['\n', '\r']));

    let md = std::fs::read_to_string(written.path(MARKDOWN_FILE)).unwrap();
    let parser = pulldown_cmark::Parser::new_ext(&md, pulldown_cmark::Options::ENABLE_TABLES);
    let (mut tables, mut header, mut cells) = (0, 0, 0);
    for event in parser {
        use pulldown_cmark::{Event, Tag, TagEnd};
        match event {
            Event::Start(Tag::Table(_)) => tables += 1,
            Event::Start(Tag::TableHead | Tag::TableRow) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableHead) => header = cells,
            Event::End(TagEnd::TableRow) => assert_eq!(cells, header, "{md}"),
            _ => {}
        }
    }
    assert_eq!(tables, 2, "{md}");

    check_integrity(&record, 1).unwrap_or_else(|e| panic!("{e}\n{md}"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn reports_survive_any_text(
        name in hostile_text(),
        command in hostile_text(),
        message in hostile_text(),
        stdout in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        check(name, command, message, stdout);
    }
}
