//! GitHub Actions output (docs/ci.md, The GitHub Action) through the real
//! binary, run with the environment a workflow step has: error annotations at
//! the declaration lines, capped at GitHub's 10 per step; workflow-command
//! escaping; output in groups; the report in the step summary.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{Project, text};

/// A name with every character that needs escaping in a property.
const ODD_NAME: &str = "load 100%, stage: sales";

/// A TOML basic string holding `s`.
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// 12 failing verify cases and one passing, no golden project. Returns the
/// harness text and each case's name with its declaration line.
fn many_failures() -> (String, Vec<(String, usize, bool)>) {
    let mut toml = String::from("[harness]\nname = \"gh\"\n");
    let mut cases = Vec::new();
    for i in 1..=13 {
        let (name, command, fails) = match i {
            // Two issues, so the annotation message spans lines; `%` in
            // the output reaches the message too.
            2 => (
                ODD_NAME.to_string(),
                "printf 'first line\\nsecond line\\n'; echo 'HTTP 401 Unauthorized at 100%' >&2; exit 1"
                    .to_string(),
                true,
            ),
            5 => ("fine".to_string(), "echo all good".to_string(), false),
            _ => (format!("broken-{i:02}"), format!("echo out-{i}; exit 1"), true),
        };
        toml.push('\n');
        let line = toml.lines().count() + 1;
        toml.push_str(&format!(
            "[[verify]]\nname = {}\ncommand = {}\n",
            toml_str(&name),
            toml_str(&command)
        ));
        cases.push((name, line, fails));
    }
    (toml, cases)
}

/// Run in `p` as a GitHub Actions step whose workspace is the project dir.
fn run_in_actions(p: &Project, step_summary: &Path) -> Output {
    p.cmd(&[])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", p.path())
        .env("GITHUB_STEP_SUMMARY", step_summary)
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_REPOSITORY", "acme/etl")
        .env("GITHUB_RUN_ID", "4242")
        .output()
        .unwrap()
}

/// A workflow command line split into (command, properties, data).
fn parse(line: &str) -> (&str, Vec<(&str, &str)>, &str) {
    let rest = line.strip_prefix("::").expect("a workflow command");
    let (head, data) = rest.split_once("::").expect("`::` before the data");
    let (command, props) = head.split_once(' ').unwrap_or((head, ""));
    let props = props
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').expect("key=value"))
        .collect();
    (command, props, data)
}

fn prop<'a>(props: &[(&str, &'a str)], key: &str) -> Option<&'a str> {
    props.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// Undo workflow-command escaping: `%25` last, so `%253A` stays `%3A`.
fn unescape(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

/// Every `%` in `s` starts one of `escapes`.
fn assert_escaped(s: &str, escapes: &[&str]) {
    for (i, _) in s.match_indices('%') {
        assert!(
            escapes.iter().any(|e| s[i..].starts_with(e)),
            "unescaped `%` at {i} in {s:?}"
        );
    }
}

#[test]
fn failures_are_annotated_at_their_lines_capped_at_ten() {
    let (toml, cases) = many_failures();
    let p = Project::new(&toml);
    let step_summary = p.path().join("step-summary.md");
    std::fs::write(&step_summary, "earlier step\n").unwrap();
    let o = run_in_actions(&p, &step_summary);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();

    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 10, "{stdout}");

    let failing: Vec<&(String, usize, bool)> = cases.iter().filter(|c| c.2).collect();
    assert_eq!(failing.len(), 12);
    for (line, (name, decl, _)) in errors[..9].iter().zip(&failing) {
        let (command, props, data) = parse(line);
        assert_eq!(command, "error");
        assert_eq!(prop(&props, "file"), Some("harness.toml"), "{line}");
        assert_eq!(
            prop(&props, "line"),
            Some(decl.to_string().as_str()),
            "{line}"
        );
        let title = unescape(prop(&props, "title").expect("a title"));
        assert!(
            title.contains(name.as_str()),
            "{title:?} does not name {name:?}"
        );
        assert_escaped(data, &["%25", "%0D", "%0A"]);
        assert!(!unescape(data).is_empty());
    }

    // The odd name survives property escaping; its two issues are on two
    // lines of the message.
    let odd = errors
        .iter()
        .find(|l| unescape(l).contains(ODD_NAME))
        .unwrap_or_else(|| panic!("no annotation for {ODD_NAME:?}:\n{stdout}"));
    let (_, props, data) = parse(odd);
    let raw_title = prop(&props, "title").unwrap();
    assert!(
        raw_title.contains("load 100%25%2C stage%3A sales"),
        "{raw_title}"
    );
    for (_, v) in &props {
        assert_escaped(v, &["%25", "%0D", "%0A", "%3A", "%2C"]);
    }
    let message = unescape(data);
    assert!(message.contains('\n'), "{message:?}");
    assert!(data.contains("%0A"), "{data}");
    assert!(message.contains("AUTH_ERROR"), "{message:?}");
    assert!(message.contains("100%"), "{message:?}");
    assert!(data.contains("100%25"), "{data}");

    // The 10th stands for the three failures it has no room for.
    let (_, props, data) = parse(errors[9]);
    assert_eq!(prop(&props, "file"), Some("harness.toml"));
    let message = unescape(data);
    assert!(message.contains("3 more"), "{message}");
    for (name, _, _) in &failing[9..] {
        assert!(message.contains(name.as_str()), "{name} not in {message}");
    }
    for (name, _, _) in &failing[..9] {
        assert!(!message.contains(name.as_str()), "{name} in {message}");
    }
    assert!(message.contains("report.md"), "{message}");

    // No golden project: a warning.
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("::warning") && l.contains("no golden project is declared")),
        "{stdout}"
    );

    // Each case's output sits in its own group.
    let mut open: Option<Vec<&str>> = None;
    let mut groups: Vec<Vec<&str>> = Vec::new();
    for line in stdout.lines() {
        if line.starts_with("::group::") {
            assert!(open.is_none(), "nested group:\n{stdout}");
            open = Some(vec![line]);
        } else if line == "::endgroup::" {
            groups.push(open.take().expect("::endgroup:: without ::group::"));
        } else if let Some(g) = open.as_mut() {
            g.push(line);
        }
    }
    assert!(open.is_none(), "unclosed group:\n{stdout}");
    assert_eq!(groups.len(), cases.len(), "{stdout}");
    for ((name, _, _), group) in cases.iter().zip(&groups) {
        assert!(
            group[0].contains(name.as_str()) || unescape(group[0]).contains(name.as_str()),
            "group {:?} is not {name}'s",
            group[0]
        );
    }
    let odd_group = &groups[1];
    for want in ["first line", "second line", "HTTP 401 Unauthorized at 100%"] {
        assert!(odd_group.contains(&want), "{want:?} not in {odd_group:?}");
    }
    assert!(groups[4].contains(&"all good"), "{:?}", groups[4]);

    // The markdown report is appended to what earlier steps wrote.
    let summary = std::fs::read_to_string(&step_summary).unwrap();
    let report = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(summary.starts_with("earlier step\n"), "{summary}");
    // Under its title, a note points at report.html in the run's
    // artifacts, which a step summary cannot show.
    let (title, rest) = summary["earlier step\n".len()..]
        .split_once("\n\n")
        .unwrap();
    let (note, rest) = rest.split_once("\n\n").unwrap();
    assert!(note.starts_with("> [!TIP]"), "{note}");
    assert!(
        note.contains("`report.html`")
            && note.contains("(https://github.com/acme/etl/actions/runs/4242#artifacts)"),
        "{note}"
    );
    // Then up to the evidence table, where the summary names paths, not
    // links, the report itself.
    let head = |t: &str| t.split("## Execution Evidence").next().unwrap().to_string();
    assert_eq!(head(&format!("{title}\n\n{rest}")), head(&report));
    assert!(summary.contains("## Execution Evidence"), "{summary}");
}

#[test]
fn no_golden_warning_only_when_none_is_declared() {
    let p = Project::new(
        r#"
[[golden]]
name = "kept"
path = "golden/p"
command = "true"
"#,
    );
    p.write("golden/p/config.yaml", "x: 1\n");
    let step_summary = p.path().join("step-summary.md");
    let o = run_in_actions(&p, &step_summary);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(!stdout.contains("::warning"), "{stdout}");
    assert!(!stdout.contains("::error"), "{stdout}");
    let summary = std::fs::read_to_string(&step_summary).unwrap();
    assert!(summary.contains("No issues observed"), "{summary}");
}

#[test]
fn outside_github_actions_no_workflow_commands_are_written() {
    let (toml, _) = many_failures();
    let p = Project::new(&toml);
    let step_summary = p.path().join("step-summary.md");
    let o = p
        .cmd(&[])
        .env("GITHUB_ACTIONS", "false")
        .env("GITHUB_STEP_SUMMARY", &step_summary)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(!stdout.contains("::"), "{stdout}");
    assert!(!step_summary.exists());
}

#[test]
fn an_exit_code_the_results_do_not_explain_is_annotated() {
    let p = Project::new("[[verify]]\nname = \"fine\"\ncommand = \"true\"\n");
    // junit.xml cannot be written: the step fails although every case passed.
    std::fs::create_dir_all(p.out().join("junit.xml").join("in-the-way")).unwrap();
    let o = run_in_actions(&p, &p.path().join("summary.md"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let annotation = stdout
        .lines()
        .find(|l| l.starts_with("::error ") && l.contains("title=cargo-golden exit code 1::"))
        .unwrap_or_else(|| panic!("no exit code annotation:\n{stdout}"));
    assert!(
        annotation.contains("call for exit code 0, but cargo-golden exits 1"),
        "{annotation}"
    );
}

/// The step summary cannot link to files of the uploaded artifact: it
/// names them as plain paths and says where they are; report.md links.
#[test]
fn step_summary_names_artifacts_as_paths_not_links() {
    let p = Project::new("[[verify]]\nname = \"ok\"\ncommand = \"true\"\n");
    let step_summary = p.path().join("step-summary.md");
    let o = run_in_actions(&p, &step_summary);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let summary = std::fs::read_to_string(&step_summary).unwrap();
    let row = summary
        .lines()
        .find(|l| l.starts_with("| ok |"))
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(!row.contains("]("), "no links: {row}");
    assert!(
        row.contains("stdout `artifacts/") && row.contains("/execution/001-ok/stdout.log`"),
        "{row}"
    );
    assert!(
        summary.contains("inside the uploaded `target/golden` artifact"),
        "{summary}"
    );
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(md.contains("[stdout](artifacts/"), "{md}");
    assert!(!md.contains("uploaded `target/golden`"), "{md}");
}

/// A long log whose cause is its last line: every report quotes the real
/// end of the output, not the end of the first `truncate` characters kept,
/// and the issue names the cause rather than the exit code.
#[test]
fn the_cause_at_the_end_of_a_long_log_is_in_every_report() {
    // 50 KB of filler on both streams, well past the 10,000 characters
    // kept, then the cause on stderr.
    let p = Project::new(
        "[harness]\nname = \"long\"\n\n[[verify]]\nname = \"long-log\"\ncommand = \"yes 'filler line of a long healthy log, nothing to see' | head -n 1000; yes 'filler line of a long healthy log, nothing to see' | head -n 1000 >&2; echo 'fatal: the real cause' >&2; exit 1\"\n",
    );
    let step_summary = p.path().join("step-summary.md");
    let o = run_in_actions(&p, &step_summary);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    const CAUSE: &str = "the real cause";

    let summary = p.summary();
    let case = &summary["cases"][0];
    assert!(
        case["stderr"].as_str().unwrap().len() < 20_000,
        "the stored copy stays truncated"
    );
    let issue = &case["issues"][0];
    let message = issue["message"].as_str().unwrap();
    assert!(message.contains(CAUSE), "{message}");
    assert!(
        issue["evidence"].as_str().unwrap().contains("Exit code: 1"),
        "{issue}"
    );

    let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap_or_else(|| panic!("no failure:\n{xml}"));
    assert!(
        failure.attribute("message").unwrap().contains(CAUSE),
        "{xml}"
    );
    let body = failure.text().unwrap();
    let end = body.split("--- stderr (end) ---").nth(1).unwrap_or(body);
    assert!(end.contains(CAUSE), "{body}");
    assert!(!end.contains("[TRUNCATED"), "{body}");

    let stdout = String::from_utf8(o.stdout).unwrap();
    let annotation = stdout
        .lines()
        .find(|l| l.starts_with("::error ") && l.contains("long-log"))
        .unwrap_or_else(|| panic!("no annotation:\n{stdout}"));
    assert!(unescape(annotation).contains(CAUSE), "{annotation}");
    let group_end = stdout
        .split("--- stderr (end) ---")
        .nth(1)
        .unwrap_or_else(|| panic!("no stderr end:\n{stdout}"));
    let group_end = group_end.split("::endgroup::").next().unwrap();
    assert!(group_end.contains(CAUSE), "{group_end}");

    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    let tail = md
        .split("## Output of failed cases")
        .nth(1)
        .unwrap_or_else(|| panic!("no output section:\n{md}"));
    assert!(tail.contains(&format!("fatal: {CAUSE}")), "{md}");
    let summary_md = std::fs::read_to_string(&step_summary).unwrap();
    assert!(
        summary_md.contains(&format!("fatal: {CAUSE}")),
        "{summary_md}"
    );
}

/// A data output of 31 rows: `id`, a number `v`, a `note` and a long
/// `text`, one value of each per row.
fn table_csv(v_plus: i64, note: &str, text: &str) -> String {
    let mut csv = String::from("id,v,note,text\n");
    csv.push_str(&format!("0,0,{note},{text}\n"));
    for i in 1..=30 {
        csv.push_str(&format!("{i},{},n,t\n", i + v_plus));
    }
    csv
}

#[test]
fn a_data_change_is_annotated_with_its_diff_bounded_and_masked() {
    const SECRET: &str = "ghp_datasecret4242";
    let p = Project::new(&format!(
        "[[verify]]\nname = \"load\"\ncommand = \"mkdir -p out && cp src.csv out/t.csv\"\n\
         env = {{ API_TOKEN = {} }}\n\
         outputs = [{{ path = \"out/t.csv\", key = [\"id\"] }}]\n",
        toml_str(SECRET)
    ));
    p.write("src.csv", &table_csv(0, "old", &"a".repeat(300)));
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Every row changes; row 0's note becomes the secret value and its
    // text a 300-character value.
    p.write("src.csv", &table_csv(1, SECRET, &"b".repeat(300)));
    let step_summary = p.path().join("step-summary.md");
    let o = run_in_actions(&p, &step_summary);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stdout = String::from_utf8(o.stdout).unwrap();
    // The job log holds the value only where it registers it as a mask.
    for l in stdout.lines().filter(|l| l.contains(SECRET)) {
        assert_eq!(l, format!("::add-mask::{SECRET}"), "{stdout}");
    }

    // The case's own annotation (the bless recorded a baseline: a second
    // one says it regressed).
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error") && l.contains("title=verify load FAILED"))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    let (_, props, data) = parse(errors[0]);
    assert_eq!(prop(&props, "line"), Some("1"));
    assert_escaped(data, &["%25", "%0D", "%0A"]);
    let message = unescape(data);
    let lines: Vec<&str> = message.lines().collect();
    assert!(
        lines[0].starts_with("[DATA_CHANGED] out/t.csv differs from snapshots/load.out.t.csv.data"),
        "{message}"
    );
    assert_eq!(lines[1], "out/t.csv:", "{message}");
    // The diff (32 differences: the first 20 in the evidence, then a
    // count) is cut to 10 lines and a count of the rest.
    let quoted: Vec<&str> = lines[2..]
        .iter()
        .copied()
        .filter(|l| l.starts_with("  "))
        .collect();
    assert_eq!(quoted.len(), 10, "{message}");
    let evidence = p.evidence("001-load");
    let diff = evidence["snapshots"][0]["diff"].as_str().unwrap();
    assert_eq!(
        lines.last().unwrap(),
        &format!(
            "… {} more line(s) of data diff in report.md and evidence.json",
            diff.lines().count() - 10
        ),
        "{message}"
    );
    // The long value's line is cut, with a mark; the secret is masked as
    // it is in the evidence.
    let long = quoted
        .iter()
        .find(|l| l.contains("aaaa"))
        .unwrap_or_else(|| panic!("{message}"));
    assert_eq!(long.chars().count(), 2 + 200 + 1, "{long}");
    assert!(long.ends_with('…'), "{long}");
    assert!(!message.contains(SECRET), "{message}");
    let note = quoted
        .iter()
        .find(|l| l.contains(" note "))
        .unwrap_or_else(|| panic!("{message}"));
    assert!(
        diff.contains(note.trim()),
        "{note} is not the evidence's line: {diff}"
    );
    assert!(note.ends_with("old -> [REDACTED:API_TOKEN]"), "{note}");
    assert!(
        quoted.iter().any(|l| l.trim() == "changed: id=1 v 1 -> 2"),
        "{message}"
    );
}
