//! `junit.xml`: one `<testsuite>` with a `<testcase>` per case, written by
//! quick-junit, in one of two families ([`JunitFlavour`]):
//!
//! - rich: `file` and `line` on each `<testcase>` and per-case
//!   `<properties>`, which GitHub-centred consumers and GitLab read;
//! - strict: only what the Jenkins xUnit plugin's schema (`junit-10.xsd`)
//!   allows. A testcase keeps `name`, `classname` and `time`; its file,
//!   line, evidence hash and statuses move into suite properties named
//!   `case.<name>.<fact>`, and the declaration also heads the failure text.
//!
//! Both carry the same cases, results and counts, and a `timestamp` and
//! `hostname` on `<testsuite>`.
//!
//! quick-junit strips ANSI escapes and the C0 controls XML forbids, and
//! escapes markup; it leaves U+FFFE and U+FFFF, which XML 1.0 forbids too,
//! so every string goes through [`text`] or [`attr`] first.

use std::collections::HashMap;
use std::path::Path;

use quick_junit::{
    NonSuccessKind, Property, Report, SerializeError, TestCase, TestCaseStatus, TestRerun,
    TestSuite, XmlString,
};
use quick_xml::events::{BytesStart, Event};

use super::format::Disagreement;
use super::format::{Format, ReadBack, RenderError, RunView};
use super::integrity::compare;
use super::{headline, lossy, output_excerpt, severity_str, stage_str};
use crate::ansi::strip_str;
use crate::model::{CaseRecord, CaseResult, Class, Counts, JunitFlavour, RunRecord};

/// File name of the JUnit report in the out dir.
pub(crate) const JUNIT_FILE: &str = "junit.xml";

/// Attributes the strict schema allows on `<testsuites>`; quick-junit also
/// writes `skipped` there, which the schema rejects (the `<testsuite>`
/// keeps it).
const STRICT_TESTSUITES_ATTRIBUTES: [&str; 5] = ["name", "time", "tests", "failures", "errors"];

/// The JUnit document of `record`, in `record.junit`'s family.
pub(super) fn render(
    record: &RunRecord,
    results: &crate::conclusion::Results,
    harness_display: &str,
) -> Result<String, SerializeError> {
    let flavour = record.junit;
    let (mut suite, classes) = new_suite(record, results, harness_display);
    let class_of = |name: &str| classes.as_ref().and_then(|m| m.get(name).copied());
    for case in &record.cases {
        let place = Place {
            file: harness_display,
            line: case.line,
        };
        let mut tc = test_case(case, place, flavour);
        add_attachments(&mut tc, &attachments(case, &record.out_dir));
        match flavour {
            JunitFlavour::Rich => {
                tc.extra
                    .insert("file".into(), XmlString::new(attr(place.file)));
                tc.extra
                    .insert("line".into(), XmlString::new(place.line.to_string()));
                tc.add_properties(
                    case_facts(case)
                        .into_iter()
                        .map(|(fact, value)| Property::new(fact, value)),
                );
                if let Some(class) = class_of(&case.name) {
                    tc.add_property(Property::new("baseline", class.as_str()));
                }
            }
            JunitFlavour::Strict => {
                suite.add_properties(strict_case_properties(case, place));
                if let Some(class) = class_of(&case.name) {
                    let key = format!("case.{}.baseline", attr(&case.name));
                    suite.add_property(Property::new(key, class.as_str()));
                }
            }
        }
        suite.add_test_case(tc);
    }

    let mut report = Report::new(attr(&record.suite_name));
    report.set_time(record.duration);
    report.add_test_suite(suite);
    let xml = report.to_string()?;
    match flavour {
        JunitFlavour::Rich => Ok(xml),
        JunitFlavour::Strict => strict_root(&xml),
    }
}

/// The `<testsuite>` of `record`, with its properties and attributes but
/// no case yet, and the baseline class of each case compared.
fn new_suite<'r>(
    record: &'r RunRecord,
    results: &crate::conclusion::Results,
    harness_display: &str,
) -> (TestSuite, Option<HashMap<&'r str, Class>>) {
    let mut suite = TestSuite::new(attr(&record.suite_name));
    suite.set_time(record.duration);
    if let Some(t) = chrono::DateTime::from_timestamp_millis(record.started_at.as_millisecond()) {
        suite.set_timestamp(t.fixed_offset());
    }
    suite.add_property(Property::new("run_id", attr(&record.run_id)));
    suite.add_property(Property::new("final_status", results.status.to_string()));
    suite.add_property(Property::new(
        "harness_sha256",
        attr(&record.harness_sha256),
    ));
    if let Some(p) = &record.partition {
        suite.add_property(Property::new("partition", attr(p)));
    }
    let classes = record.baseline.as_ref().map(|c| {
        suite.add_properties(
            super::baseline::suite_properties(c)
                .into_iter()
                .map(|(k, v)| Property::new(k, attr(&v))),
        );
        c.classes()
    });
    suite
        .extra
        .insert("file".into(), XmlString::new(attr(harness_display)));
    if !record.hostname.is_empty() {
        suite
            .extra
            .insert("hostname".into(), XmlString::new(attr(&record.hostname)));
    }
    (suite, classes)
}

/// Appends a case's `attachments` lines (if any) to its system-out.
fn add_attachments(tc: &mut TestCase, attachments: &str) {
    if attachments.is_empty() {
        return;
    }
    let mut out = tc
        .system_out
        .as_ref()
        .map(|o| o.as_str().to_string())
        .unwrap_or_default();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out += attachments;
    tc.set_system_out(out);
}

/// The `[[ATTACHMENT|path]]` lines of a failed or errored case (GitLab,
/// Jenkins' JUnit Attachments plugin and Azure DevOps link them to the
/// files): its full stdout and stderr logs, its evidence (every check,
/// data diffs included) and each pending snapshot, relative to the
/// repository root as `file` is. Empty for any other case.
fn attachments(case: &CaseRecord, out_dir: &std::path::Path) -> String {
    if !matches!(case.result, CaseResult::Failed | CaseResult::Error) {
        return String::new();
    }
    let files = case
        .artifacts
        .iter()
        .flat_map(|a| [&a.stdout, &a.stderr, &a.evidence])
        .chain(
            case.snapshots
                .iter()
                .filter_map(|c| c.pending.as_ref().map(|p| &p.path)),
        )
        .filter(|p| !p.is_empty());
    let mut out = String::new();
    for rel in files {
        let path = crate::layout::repo_relative(&out_dir.join(rel));
        // `]]` would end the line's link early; the reader has no escape.
        if !path.contains("]]") && !path.contains('\n') {
            out += &format!("[[ATTACHMENT|{}]]\n", attr(&path));
        }
    }
    out
}

/// Where a case is declared.
#[derive(Clone, Copy)]
struct Place<'a> {
    file: &'a str,
    line: usize,
}

/// Per-case facts beside the result: the rich flavour's testcase
/// properties, the strict flavour's `case.<name>.<fact>` suite properties.
fn case_facts(case: &CaseRecord) -> Vec<(&'static str, String)> {
    let mut facts = vec![
        (
            "evidence_hash",
            case.evidence_hash.clone().unwrap_or_default(),
        ),
        ("execution_status", case.execution_status.as_str().into()),
        ("status", case.status.as_str().into()),
        (
            "exit_code",
            case.exit_code.map(|c| c.to_string()).unwrap_or_default(),
        ),
    ];
    if case.flaky {
        facts.push(("flaky", "true".into()));
    }
    if let Some(q) = &case.quarantine {
        let mark = if q.expired {
            "expired"
        } else if case.result.is_failure() && !case.quarantined() {
            // A modified project, lost evidence or a containment finding.
            "not-held"
        } else {
            "true"
        };
        facts.push(("quarantined", mark.into()));
        facts.push(("quarantine", q.describe()));
    }
    facts
}

/// The suite properties that carry, in the strict flavour, what the schema
/// does not let a `<testcase>` hold: its declaration, its
/// [`case_facts`], and the duration of each earlier attempt (the schema
/// allows no `time` on `<flakyFailure>` and friends).
fn strict_case_properties(case: &CaseRecord, place: Place<'_>) -> Vec<Property> {
    let key = |fact: &str| format!("case.{}.{fact}", attr(&case.name));
    let mut props = vec![
        Property::new(key("file"), attr(place.file)),
        Property::new(key("line"), place.line.to_string()),
    ];
    props.extend(
        case_facts(case)
            .into_iter()
            .map(|(fact, value)| Property::new(key(fact), value)),
    );
    for (n, attempt) in case.previous_attempts.iter().enumerate() {
        props.push(Property::new(
            key(&format!("attempt.{}.time", n + 1)),
            format!("{:.3}", attempt.duration.as_secs_f64()),
        ));
    }
    props
}

/// `xml` with its `<testsuites>` start tag reduced to the attributes the
/// strict schema allows. quick-junit's `Report` always writes `skipped`
/// there, so the document is streamed through quick-xml event by event and
/// only that one tag is rebuilt; everything else is copied as read.
fn strict_root(xml: &str) -> Result<String, SerializeError> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut writer = quick_xml::Writer::new(Vec::with_capacity(xml.len()));
    loop {
        match reader.read_event()? {
            Event::Eof => break,
            Event::Start(tag) if tag.name().as_ref() == b"testsuites" => {
                let mut kept = BytesStart::new("testsuites");
                for a in tag.attributes() {
                    let a = a.map_err(quick_xml::Error::from)?;
                    if STRICT_TESTSUITES_ATTRIBUTES
                        .iter()
                        .any(|name| a.key.as_ref() == name.as_bytes())
                    {
                        kept.push_attribute(a);
                    }
                }
                writer.write_event(Event::Start(kept))?;
            }
            event => writer.write_event(event)?,
        }
    }
    // Copied events are the UTF-8 input's own bytes.
    Ok(String::from_utf8(writer.into_inner()).expect("events of a str are UTF-8"))
}

/// The `<testcase>` of `case` with what both flavours give it: name,
/// classname, time, result element, earlier attempts and output.
fn test_case(case: &CaseRecord, place: Place<'_>, flavour: JunitFlavour) -> TestCase {
    let rerun = |attempt| rerun(attempt, flavour);
    let status = match case.result {
        CaseResult::Passed => {
            let mut status = TestCaseStatus::success();
            // Only a flaky pass shows its failed attempts: a case that
            // passed first time has none.
            status.add_reruns(case.previous_attempts.iter().map(rerun));
            status
        }
        CaseResult::Failed | CaseResult::Error => {
            let kind = if case.result == CaseResult::Failed {
                NonSuccessKind::Failure
            } else {
                NonSuccessKind::Error
            };
            let mut body = failure_text(case);
            if flavour == JunitFlavour::Strict {
                // Jenkins shows this text as the stack trace: the place to
                // find where the case is declared.
                body.insert_str(0, &format!("Declared at {}:{}\n", place.file, place.line));
            }
            let mut status = TestCaseStatus::non_success(kind);
            status.set_message(attr(&headline(case)));
            status.set_type(failure_type(case));
            status.set_description(text(&body));
            status.add_reruns(case.previous_attempts.iter().map(rerun));
            status
        }
        CaseResult::Skipped => {
            let mut status = TestCaseStatus::skipped();
            if let Some(reason) = &case.reason {
                status.set_message(attr(reason));
            }
            status
        }
    };

    let mut tc = TestCase::new(attr(&case.name), status);
    tc.set_classname(case.kind.as_str());
    tc.set_time(case.duration);
    if !case.stdout.is_empty() {
        tc.set_system_out(text(&lossy(&case.stdout)));
    }
    if !case.stderr.is_empty() {
        tc.set_system_err(text(&lossy(&case.stderr)));
    }
    tc
}

/// `type` of `<failure>`/`<error>`: the type of the case's first issue,
/// which says why it failed (`OUTPUT_CHANGED`, `TIMEOUT`, …) where the
/// execution status may read `SUCCESS`; the execution status only for a
/// case without an issue.
fn failure_type(case: &CaseRecord) -> String {
    match case.issues.first() {
        Some(i) => i.issue_type.as_str().to_string(),
        None if case.ran() => case.execution_status.as_str().to_string(),
        None => "EXECUTION_ERROR".to_string(),
    }
}

/// Element text of `<failure>`/`<error>`: every issue, then the output
/// excerpt. Consumers such as Azure show it as the stack trace.
fn failure_text(case: &CaseRecord) -> String {
    let mut out = String::new();
    for issue in &case.issues {
        out.push_str(&format!(
            "[{}] {} ({}, {})\n{}\n",
            issue.issue_type.as_str(),
            issue.message,
            severity_str(issue.severity),
            stage_str(issue.stage),
            issue.evidence
        ));
    }
    if let Some(reason) = &case.reason {
        out.push_str(&format!("Reason: {reason}\n"));
    }
    for w in &case.warnings {
        out.push_str(&format!("Warning: {w}\n"));
    }
    for s in case.snapshots.iter().filter(|s| s.diff.is_some()) {
        out.push_str(&format!(
            "\n{}: {} differs from {}:\n{}",
            s.changed_type(),
            s.subject(),
            s.file,
            s.diff.as_deref().unwrap_or("")
        ));
    }
    let excerpt = output_excerpt(case);
    if !excerpt.is_empty() {
        out.push('\n');
        out.push_str(&excerpt);
    }
    out
}

/// A `<flakyFailure>` (or rerun) element for an earlier attempt. The strict
/// schema allows no `time` on it: strict keeps it in a suite property.
fn rerun(attempt: &CaseRecord, flavour: JunitFlavour) -> TestRerun {
    let kind = if attempt.result == CaseResult::Error {
        NonSuccessKind::Error
    } else {
        NonSuccessKind::Failure
    };
    let mut r = TestRerun::new(kind);
    if flavour == JunitFlavour::Rich {
        r.set_time(attempt.duration);
    }
    r.set_message(attr(&headline(attempt)));
    r.set_type(failure_type(attempt));
    r.set_stack_trace(text(&failure_text(attempt)));
    if !attempt.stdout.is_empty() {
        r.set_system_out(text(&lossy(&attempt.stdout)));
    }
    if !attempt.stderr.is_empty() {
        r.set_system_err(text(&lossy(&attempt.stderr)));
    }
    r
}

/// Element text: characters XML 1.0 cannot hold and quick-junit keeps are
/// replaced by U+FFFD, other controls shown as their control pictures
/// (`␀`, `␇`: visible, as in every excerpt), and tabs are expanded to spaces (to 8-column tab
/// stops) because quick-junit's escape stripping drops tabs, which would
/// glue columns of tabular output together. A lone CR becomes a line break
/// (quick-junit would drop it and join the lines), and every escape and
/// control goes here, so quick-junit's own stripping finds none to
/// misread (it took `ESC DEL` as the start of a sequence and ate the next
/// character).
fn text(s: &str) -> String {
    if !s.contains(|c: char| c.is_control() && c != '\n' || c == '\u{FFFE}' || c == '\u{FFFF}') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut column = 0usize;
    // Escapes and controls go first, as quick-junit would drop them, so
    // the columns counted are the ones a reader sees.
    let stripped = strip_str(s);
    let mut chars = stripped.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\t' => {
                let n = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', n));
                column += n;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                out.push('\n');
                column = 0;
            }
            c => {
                out.push(crate::ansi::shown_char(c));
                column += 1;
            }
        }
    }
    out
}

/// Attribute value: as [`text`], and on one line, because XML parsers fold
/// line breaks and tabs in attributes into spaces anyway; doing it here
/// makes the file say what readers will see.
pub(super) fn attr(s: &str) -> String {
    // Most names and values hold nothing to change: they are copied as
    // they are, without the escape parser.
    if !s.contains(|c: char| c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}') {
        return s.to_string();
    }
    strip_str(s)
        .chars()
        .filter_map(|c| match c {
            '\u{FFFE}' | '\u{FFFF}' => Some('\u{FFFD}'),
            '\t' | '\n' | '\r' => Some(' '),
            // The other controls are dropped, as quick-junit drops them
            // from element text.
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// The `junit.xml` format.
pub(super) struct Junit;

impl Format for Junit {
    fn file_name(&self) -> &'static str {
        JUNIT_FILE
    }

    fn render(&self, run: &RunView<'_>, harness_display: &str) -> Result<String, RenderError> {
        Ok(render(run.record, run.results, harness_display)?)
    }

    fn check(&self, file: &ReadBack<'_>, found: &mut Vec<Disagreement>) {
        check(file.path, file.text, file.run.record, found);
    }
}

/// Check a junit.xml read back against `record`: counts, names and
/// order, each testcase's result and evidence hash, the totals.
fn check(path: &Path, text: &str, record: &RunRecord, found: &mut Vec<Disagreement>) {
    let counts = &record.counts();
    let doc = match crate::xml::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: format!("not well-formed XML: {e}"),
            });
            return;
        }
    };
    let testcases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    // Only direct children count: <flakyFailure> and friends inside a
    // testcase are earlier attempts, not results.
    let with_child = |tag: &str| {
        testcases
            .iter()
            .filter(|tc| tc.children().any(|c| c.has_tag_name(tag)))
            .count()
    };
    compare(
        found,
        path,
        "testcase elements",
        counts.total,
        testcases.len(),
    );
    let names: Vec<&str> = testcases
        .iter()
        .map(|tc| tc.attribute("name").unwrap_or(""))
        .collect();
    let want: Vec<String> = record.cases.iter().map(|c| attr(&c.name)).collect();
    if names != want {
        compare(
            found,
            path,
            "testcase names in order",
            format!("{want:?}"),
            format!("{names:?}"),
        );
    }
    let suite_properties = suite_properties(&doc, record.junit);
    for (tc, case) in testcases.iter().zip(&record.cases) {
        junit_case(path, (tc, &suite_properties), record.junit, case, found);
    }
    for (what, want, tag) in [
        ("testcases with <failure>", counts.failed, "failure"),
        ("testcases with <error>", counts.errors, "error"),
        ("testcases with <skipped>", counts.skipped, "skipped"),
    ] {
        compare(found, path, what, want, with_child(tag));
    }
    junit_totals(path, &doc, record.junit, counts, found);
}

/// The strict flavour keeps each case's facts in suite properties:
/// looked up by name, each found once (the first, as in document order),
/// not by a walk of the whole document per case. None in the rich one.
fn suite_properties(doc: &crate::xml::Document, flavour: JunitFlavour) -> HashMap<&str, &str> {
    match flavour {
        JunitFlavour::Rich => HashMap::new(),
        JunitFlavour::Strict => {
            let mut by_name = HashMap::new();
            for n in doc.descendants().filter(|n| n.has_tag_name("property")) {
                if let Some(name) = n.attribute("name") {
                    by_name
                        .entry(name)
                        .or_insert(n.attribute("value").unwrap_or(""));
                }
            }
            by_name
        }
    }
}

/// The totals on `<testsuites>` and the first `<testsuite>`.
fn junit_totals(
    path: &Path,
    doc: &crate::xml::Document,
    flavour: JunitFlavour,
    counts: &Counts,
    found: &mut Vec<Disagreement>,
) {
    for tag in ["testsuites", "testsuite"] {
        let Some(node) = doc.descendants().find(|n| n.has_tag_name(tag)) else {
            found.push(Disagreement::Unreadable {
                path: path.to_path_buf(),
                message: format!("no <{tag}> element"),
            });
            continue;
        };
        for (attr, want) in [
            ("tests", counts.total),
            ("failures", counts.failed),
            ("errors", counts.errors),
            ("skipped", counts.skipped),
        ] {
            // The strict schema has no `skipped` on <testsuites>; the
            // <testsuite> still carries it.
            if tag == "testsuites" && attr == "skipped" && flavour == JunitFlavour::Strict {
                continue;
            }
            compare(
                found,
                path,
                &format!("<{tag}> {attr}"),
                want,
                node.attribute(attr).unwrap_or("(missing)"),
            );
        }
    }
}

/// What one `<testcase>` says of its case: the result element and the
/// evidence hash property (on the testcase in the rich flavour, the suite's
/// `case.<name>.evidence_hash` in the strict one).
fn junit_case(
    path: &Path,
    (tc, suite_properties): (&crate::xml::Node<'_>, &HashMap<&str, &str>),
    flavour: JunitFlavour,
    case: &CaseRecord,
    found: &mut Vec<Disagreement>,
) {
    let has = |tag: &str| tc.children().any(|c| c.has_tag_name(tag));
    let shown = match (has("failure"), has("error"), has("skipped")) {
        (false, false, false) => "PASSED",
        (true, false, false) => "FAILED",
        (false, true, false) => "ERROR",
        (false, false, true) => "SKIPPED",
        _ => "several results",
    };
    let mut differs = |message: String| {
        found.push(Disagreement::Case {
            path: path.to_path_buf(),
            case: case.name.clone(),
            message,
        })
    };
    if shown != case.result.as_str() {
        differs(format!(
            "the testcase says {shown}, the result is {}",
            case.result.as_str()
        ));
    }
    let hash = match flavour {
        JunitFlavour::Rich => tc
            .descendants()
            .find(|n| n.has_tag_name("property") && n.attribute("name") == Some("evidence_hash"))
            .and_then(|n| n.attribute("value")),
        JunitFlavour::Strict => suite_properties
            .get(format!("case.{}.evidence_hash", attr(&case.name)).as_str())
            .copied(),
    }
    .unwrap_or("");
    if hash != case.evidence_hash.as_deref().unwrap_or("") {
        differs(format!(
            "the evidence_hash property is {hash:?}, the evidence says {:?}",
            case.evidence_hash.as_deref().unwrap_or("")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_root_rebuilds_only_the_testsuites_tag() {
        let mut tc = TestCase::new("a <&> \"b\" ]]>", TestCaseStatus::success());
        tc.set_system_out(text("x ]]> <y> &amp; \r\n\u{FFFE} é\n"));
        tc.set_system_err("err\r\n");
        let mut suite = TestSuite::new("s");
        suite.add_property(Property::new("k", "v & \"w\""));
        suite.add_test_case(tc);
        let mut report = Report::new("s & t");
        report.add_test_suite(suite);
        let rich = report.to_string().unwrap();

        let strict = strict_root(&rich).unwrap();
        let (rich_head, rich_rest) = rich.split_once("\n    <testsuite ").unwrap();
        let (strict_head, strict_rest) = strict.split_once("\n    <testsuite ").unwrap();
        assert_eq!(strict_rest, rich_rest);
        assert_eq!(
            strict_head,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"s &amp; t\" tests=\"1\" failures=\"0\" errors=\"0\">"
        );
        assert!(rich_head.contains(" skipped=\"0\""), "{rich_head}");
    }

    #[test]
    fn the_strict_check_finds_each_cases_evidence_hash_among_the_suite_properties() {
        let dir = tempfile::tempdir().unwrap();
        let mut record = crate::report::attest::tests::record(dir.path());
        record.junit = JunitFlavour::Strict;
        for (case, hash) in record.cases.iter_mut().zip(["aa11", "bb22"]) {
            case.evidence_hash = Some(hash.to_string());
        }
        let results = crate::conclusion::Results::of(&record);
        let xml = render(&record, &results, "harness.toml").unwrap();
        let path = dir.path().join(JUNIT_FILE);
        let hashes = |found: &[Disagreement]| {
            found
                .iter()
                .map(ToString::to_string)
                .filter(|m| m.contains("evidence_hash"))
                .collect::<Vec<_>>()
        };
        let mut found = Vec::new();
        check(&path, &xml, &record, &mut found);
        assert_eq!(hashes(&found), Vec::<String>::new(), "{found:?}");

        // The second case's hash changed in the file: that case, and only
        // it, is named.
        let changed = xml.replace("\"bb22\"", "\"cc33\"");
        assert_ne!(changed, xml);
        let mut found = Vec::new();
        check(&path, &changed, &record, &mut found);
        let named = hashes(&found);
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(
            named[0].contains("smoke") && named[0].contains("cc33"),
            "{named:?}"
        );
    }

    #[test]
    fn attribute_values_change_only_where_they_hold_a_control() {
        // Copied as they are: nothing for the escape parser to do.
        for plain in [
            "",
            "case 1",
            "é ü ß 日本 🦀",
            "a <&> \"b\"",
            "[1m without its escape",
        ] {
            assert_eq!(attr(plain), plain);
        }
        // Escapes go, line breaks and tabs become spaces, other controls
        // (C0, DEL, C1) are dropped, and the noncharacters XML cannot hold
        // become U+FFFD.
        assert_eq!(attr("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(attr("a\tb\nc\rd"), "a b c d");
        assert_eq!(attr("a\u{7}b\u{7f}c\u{85}d"), "abcd");
        assert_eq!(attr("x\u{FFFE}y\u{FFFF}"), "x\u{FFFD}y\u{FFFD}");
    }
}
