//! The two JUnit families on a real run: the strict one against the rules
//! of the Jenkins xUnit schema, both well-formed under hostile output and
//! carrying the same results and counts; `[harness] junit` and `--junit`.

use crate::common;

use std::collections::BTreeMap;

use common::{Project, text, xunit};
use roxmltree::{Document, Node};
use serde_json::Value;

/// Every result a run can give: passes, a failure with hostile output, an
/// error, a skip (`--skip "left out"`) and a flaky pass.
const MIXED: &str = r#"
[harness]
name = "mixed <&> suite"
# JUNIT

[[verify]]
name = "passes"
command = "echo fine"

[[verify]]
name = "hostile <&> \"q\" ]]> 'x'"
command = '''printf 'nul:\000 esc:\033[31mred\033[0m cdata:]]> nonchar:\357\277\276 bad:\377\376 <b>&amp;\n'; printf 'err \000 ]]> \377\n' >&2; exit 3'''

[[golden]]
name = "missing project"
path = "does/not/exist"
command = "true"

[[verify]]
name = "left out"
command = "true"

[[verify]]
name = "wobbly"
command = "n=$(cat wobbly.count 2>/dev/null || echo 0); n=$((n+1)); echo $n > wobbly.count; echo attempt $n; [ $n -ge 2 ]"
retries = 2

[[verify]]
name = "hostile pass"
command = '''printf 'ok \000 \033]0;title\007 ]]> \357\277\277 \300\n'; exit 0'''
"#;

const HOSTILE: &str = "hostile <&> \"q\" ]]> 'x'";

/// A project declaring [`MIXED`] with `junit_line` in `[harness]`.
fn project(junit_line: &str) -> Project {
    Project::new(&MIXED.replace("# JUNIT", junit_line))
}

/// Run with `--skip "left out"` and `extra` arguments; the junit.xml text.
fn run(p: &Project, extra: &[&str]) -> String {
    let _ = std::fs::remove_file(p.path().join("wobbly.count"));
    let mut args = vec!["--skip", "left out"];
    args.extend_from_slice(extra);
    let o = p.run(&args);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    std::fs::read_to_string(p.out().join("junit.xml")).unwrap()
}

fn parse(xml: &str) -> Document<'_> {
    Document::parse(xml).unwrap_or_else(|e| panic!("junit.xml is not well-formed: {e}\n{xml}"))
}

fn suite<'a>(doc: &'a Document) -> Node<'a, 'a> {
    let suites: Vec<_> = doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 1);
    suites[0]
}

fn testcases<'a>(doc: &'a Document) -> Vec<Node<'a, 'a>> {
    suite(doc)
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect()
}

/// Each testcase's name and the tags of its result elements, in order.
fn results(doc: &Document) -> Vec<(String, Vec<String>)> {
    testcases(doc)
        .iter()
        .map(|tc| {
            let tags = tc
                .children()
                .filter(|c| {
                    let tag = c.tag_name().name();
                    c.is_element() && !tag.starts_with("system-") && tag != "properties"
                })
                .map(|c| c.tag_name().name().to_string())
                .collect();
            (tc.attribute("name").unwrap().to_string(), tags)
        })
        .collect()
}

/// The suite's `<property>` values by name.
fn suite_properties(doc: &Document) -> BTreeMap<String, String> {
    suite(doc)
        .children()
        .filter(|n| n.has_tag_name("properties"))
        .flat_map(|p| p.children().filter(|n| n.has_tag_name("property")))
        .map(|p| {
            (
                p.attribute("name").unwrap().to_string(),
                p.attribute("value").unwrap().to_string(),
            )
        })
        .collect()
}

fn summary_case<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {summary}"))
}

#[test]
fn strict_junit_follows_the_jenkins_xunit_schema_rules() {
    let p = project("junit = \"strict\"");
    let xml = run(&p, &[]);
    let doc = parse(&xml);
    assert_eq!(xunit::violations(&doc), Vec::<String>::new(), "{xml}");

    // The suite really holds every kind of result the rules were run over.
    let results = results(&doc);
    let tags = |name: &str| &results.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(tags("passes"), &Vec::<String>::new());
    assert_eq!(tags(HOSTILE), &vec!["failure".to_string()]);
    assert_eq!(tags("missing project"), &vec!["error".to_string()]);
    assert_eq!(tags("left out"), &vec!["skipped".to_string()]);
    assert_eq!(tags("wobbly"), &vec!["flakyFailure".to_string()]);
    assert_eq!(tags("hostile pass"), &Vec::<String>::new());
    let hostile = testcases(&doc)
        .into_iter()
        .find(|tc| tc.attribute("name") == Some(HOSTILE))
        .unwrap();
    let out = hostile
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(
        out.contains("cdata:]]> nonchar:\u{FFFD} bad:\u{FFFD}"),
        "{out:?}"
    );
    assert!(!out.contains(['\0', '\x1b']), "{out:?}");
}

#[test]
fn the_schema_rules_catch_what_the_rich_flavour_and_broken_files_do() {
    // The rich flavour breaks exactly the rules strict consumers report.
    let p = project("");
    let xml = run(&p, &[]);
    let found = xunit::violations(&parse(&xml));
    assert!(
        found.contains(
            &"<testsuites name=\"mixed <&> suite\">: attribute `skipped` is not allowed"
                .to_string()
        ),
        "{found:#?}"
    );
    for what in [
        "<testcase name=\"passes\">: attribute `file` is not allowed",
        "<testcase name=\"passes\">: attribute `line` is not allowed",
        "<testcase name=\"passes\">: child <properties> is not allowed",
    ] {
        assert!(found.contains(&what.to_string()), "{what}: {found:#?}");
    }

    let broken = r#"<testsuites time="1.2345">
        <testsuite name="s" tests="1" failures="0" time="1,23">
            <testcase classname="c" status="run">
                stray text
                <flakyFailure message="m"><system-out/><stackTrace/></flakyFailure>
                <skipped/><skipped message="twice is fine"/>
            </testcase>
        </testsuite>
    </testsuites>"#;
    let found = xunit::violations(&parse(broken));
    let expected = [
        "<testsuites>: time \"1.2345\" does not match SUREFIRE_TIME",
        "<testsuite name=\"s\">: required attribute `errors` is missing",
        "<testsuite name=\"s\">: time \"1,23\" does not match SUREFIRE_TIME",
        "<testcase>: attribute `status` is not allowed",
        "<testcase>: required attribute `name` is missing",
        "<testcase>: text \"\\n                stray text\\n                \" is not allowed here",
        "<flakyFailure>: required attribute `type` is missing",
        "<flakyFailure>: <stackTrace> repeated or out of order",
    ];
    assert_eq!(found, expected, "{found:#?}");
}

#[test]
fn both_flavours_are_well_formed_and_carry_the_same_results_and_counts() {
    let p = project("junit = \"strict\"");
    let strict_xml = run(&p, &[]);
    let strict_summary = p.summary();
    let rich_xml = run(&p, &["--junit", "rich"]);
    let rich_summary = p.summary();
    assert_eq!(strict_summary["junit"], "strict");
    assert_eq!(rich_summary["junit"], "rich");
    let (strict, rich) = (parse(&strict_xml), parse(&rich_xml));

    assert_eq!(results(&strict), results(&rich));
    let counts = &rich_summary["counts"];
    assert_eq!(counts, &strict_summary["counts"]);
    for (doc, flavour) in [(&strict, "strict"), (&rich, "rich")] {
        let s = suite(doc);
        for (attr, count) in [
            ("tests", "total"),
            ("failures", "failed"),
            ("errors", "errors"),
            ("skipped", "skipped"),
        ] {
            assert_eq!(
                s.attribute(attr).map(str::to_string),
                Some(counts[count].to_string()),
                "{flavour} <testsuite {attr}>"
            );
            let root = doc.root_element().attribute(attr).map(str::to_string);
            if flavour == "strict" && attr == "skipped" {
                assert_eq!(root, None, "the strict schema has no testsuites@skipped");
            } else {
                assert_eq!(root, Some(counts[count].to_string()), "{flavour} {attr}");
            }
        }
    }
    assert_eq!(
        (counts["total"].as_u64(), counts["failed"].as_u64()),
        (Some(6), Some(1))
    );
    assert_eq!(
        (counts["errors"].as_u64(), counts["skipped"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(counts["flaky"], 1);
}

#[test]
fn strict_moves_per_case_facts_into_suite_properties_and_failure_text() {
    let p = project("junit = \"strict\"");
    let xml = run(&p, &[]);
    let doc = parse(&xml);
    let summary = p.summary();
    let props = suite_properties(&doc);
    for tc in testcases(&doc) {
        let name = tc.attribute("name").unwrap();
        let case = summary_case(&summary, name);
        let fact = |f: &str| props.get(&format!("case.{name}.{f}")).cloned();
        assert_eq!(fact("file"), Some("harness.toml".to_string()), "{name}");
        assert_eq!(fact("line"), Some(case["line"].to_string()), "{name}");
        let hash = case["evidence_hash"].as_str().unwrap_or("");
        assert_eq!(fact("evidence_hash"), Some(hash.to_string()), "{name}");
        assert_eq!(
            fact("execution_status").as_deref(),
            case["execution_status"].as_str()
        );
        assert_eq!(fact("status").as_deref(), case["status"].as_str());
        let exit = case["exit_code"].as_i64().map(|c| c.to_string());
        assert_eq!(fact("exit_code"), Some(exit.unwrap_or_default()));
        let flaky = case["flaky"] == true;
        assert_eq!(fact("flaky").is_some(), flaky, "{name}");
        assert_eq!(fact("attempt.1.time").is_some(), flaky, "{name}");

        let failure = tc
            .children()
            .find(|n| n.has_tag_name("failure") || n.has_tag_name("error"));
        if let Some(f) = failure {
            let declared = format!("Declared at harness.toml:{}\n", case["line"]);
            assert!(f.text().unwrap().starts_with(&declared), "{name}: {f:?}");
        }
    }
    let wobbly = summary_case(&summary, "wobbly");
    assert_eq!(props["case.wobbly.flaky"], "true");
    assert_eq!(wobbly["previous_attempts"].as_array().unwrap().len(), 1);
}

#[test]
fn both_flavours_stamp_the_suite_with_when_and_where_it_ran() {
    let p = project("");
    for flavour in ["rich", "strict"] {
        let xml = run(&p, &["--junit", flavour]);
        let doc = parse(&xml);
        let summary = p.summary();
        let s = suite(&doc);
        let stamp: cargo_golden::_support::Timestamp = s
            .attribute("timestamp")
            .unwrap_or_else(|| panic!("{flavour}: no timestamp"))
            .parse()
            .unwrap_or_else(|e| panic!("{flavour}: timestamp is not RFC 3339: {e}"));
        let started: cargo_golden::_support::Timestamp =
            summary["started_at"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            stamp.as_millisecond(),
            started.as_millisecond(),
            "{flavour}"
        );

        let host = s.attribute("hostname").unwrap_or("");
        assert!(!host.is_empty(), "{flavour}: no hostname");
        assert_eq!(summary["hostname"], host, "{flavour}");
        if let Ok(kernel) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
            assert_eq!(host, kernel.trim(), "{flavour}");
        }
    }
}

#[test]
fn a_bad_junit_value_is_a_config_error_at_its_place() {
    let p = project("junit = \"jenkins\"");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("harness.toml:4:9") && err.contains("`junit` must be \"rich\" or \"strict\""),
        "{err}"
    );
    assert!(!p.out().join("junit.xml").exists());

    let o = project("").run(&["--junit", "xunit2"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("possible values: rich, strict"),
        "{}",
        text(&o)
    );
}

/// `testcase@file` of every case in `out/junit.xml` under `dir`.
fn files_named(out: &std::path::Path) -> Vec<String> {
    let xml = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    let doc = parse(&xml);
    testcases(&doc)
        .iter()
        .map(|tc| tc.attribute("file").unwrap_or("(none)").to_string())
        .collect()
}

/// Issue 26, item 8: JUnit consumers resolve `testcase@file` against the
/// repository root, so it is written relative to the git top level (or
/// `$GITHUB_WORKSPACE`), whichever directory the run started in.
#[test]
fn junit_file_is_relative_to_the_repository_root() {
    let p = Project::new("");
    let harness = p.write(
        "etl/harness.toml",
        "[[verify]]\nname = \"a\"\ncommand = \"true\"\n",
    );
    let out = p.path().join("etl/out");
    let run_in = |dir: &std::path::Path, env: Option<&std::path::Path>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
        c.current_dir(dir)
            .arg("--config")
            .arg(&harness)
            .arg("--out")
            .arg(&out)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_WORKSPACE");
        if let Some(ws) = env {
            c.env("GITHUB_WORKSPACE", ws);
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        files_named(&out)
    };
    // No repository: relative to where the run started.
    assert_eq!(run_in(&p.path().join("etl"), None), ["harness.toml"]);
    // GITHUB_WORKSPACE names the root.
    assert_eq!(
        run_in(&p.path().join("etl"), Some(p.path())),
        ["etl/harness.toml"]
    );
    // A git work tree's top level, from the member and from the root.
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .arg(p.path())
        .status()
        .unwrap();
    assert!(git.success());
    assert_eq!(run_in(&p.path().join("etl"), None), ["etl/harness.toml"]);
    assert_eq!(run_in(p.path(), None), ["etl/harness.toml"]);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["harness"]["path"], "etl/harness.toml");
}
