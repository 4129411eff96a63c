//! Scale features (docs/ci.md, CI: one job, or shards merged; docs/harness.md,
//! harness.toml reference, for `jobs` and `exclusive`) through the real
//! binary: parallel jobs keep declaration order in every report, `exclusive`
//! cases run alone, partitions split the cases, retries keep every attempt,
//! fail-fast skips the rest.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Project, text};
use serde_json::Value;

/// A TOML basic string holding `s`.
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// `s` single-quoted for sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Case names of a summary.json, in the order it lists them.
fn summary_names(summary: &Value) -> Vec<String> {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

fn summary_case<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {summary:#}"))
}

/// `name` attributes of the `<testcase>` elements of a junit.xml, in order.
fn junit_names(xml: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(xml).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| n.attribute("name").unwrap().to_string())
        .collect()
}

/// The value of `<property name=…>` directly under `<testsuite>`.
fn junit_suite_property(xml: &str, name: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(xml).unwrap();
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    suite
        .children()
        .filter(|n| n.has_tag_name("properties"))
        .flat_map(|p| p.children())
        .find(|p| p.has_tag_name("property") && p.attribute("name") == Some(name))
        .and_then(|p| p.attribute("value").map(str::to_string))
}

/// Cells of 0-based `column` in the body rows of the markdown table under
/// `heading` (cells here hold no escaped pipes).
fn markdown_table_column(md: &str, heading: &str, column: usize) -> Vec<String> {
    let section = md
        .split_once(heading)
        .unwrap_or_else(|| panic!("no {heading} in {md}"))
        .1;
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        // Header and delimiter rows.
        .skip(2)
        .map(|l| l.split('|').nth(column + 1).unwrap().trim().to_string())
        .collect()
}

/// Case names of an observations.jsonl, in order.
fn observation_names(path: &Path) -> Vec<String> {
    read(path)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["metadata"]["case"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn parallel_cases_are_reported_in_declaration_order() {
    // Not alphabetical, so sorting by name cannot pass for declaration order.
    let names = [
        "delta", "alpha", "hotel", "bravo", "golf", "charlie", "foxtrot", "echo",
    ];
    let mut toml = String::new();
    for (i, name) in names.iter().enumerate() {
        // Later cases sleep less, so they finish first.
        let sleep = (names.len() - 1 - i) as f64 * 0.1;
        toml.push_str(&format!(
            "[[verify]]\nname = \"{name}\"\ncommand = \"sleep {sleep:.1}; echo {name}\"\n"
        ));
    }
    let p = Project::new(&toml);
    let o = p.run(&["--jobs", "4"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let declared: Vec<String> = names.iter().map(|n| n.to_string()).collect();

    let summary = p.summary();
    // The cases really overlapped and finished out of order; otherwise the
    // order checks below prove nothing.
    let finished = |name: &str| {
        summary_case(&summary, name)["finished_at"]
            .as_str()
            .unwrap()
            .parse::<cargo_golden::_support::Timestamp>()
            .unwrap()
    };
    assert!(
        finished("bravo") < finished("delta"),
        "the cases did not run in parallel: {summary:#}"
    );

    assert_eq!(summary_names(&summary), declared, "summary.json");
    let indexes: Vec<u64> = summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, (0..declared.len() as u64).collect::<Vec<_>>());
    assert_eq!(
        junit_names(&read(&p.out().join("junit.xml"))),
        declared,
        "junit.xml"
    );
    let md = read(&p.out().join("report.md"));
    assert_eq!(
        markdown_table_column(&md, "## Results", 1),
        declared,
        "report.md results"
    );
    assert_eq!(
        markdown_table_column(&md, "## Execution Evidence", 0),
        declared,
        "report.md evidence"
    );
    assert_eq!(
        observation_names(&p.out().join("observations.jsonl")),
        declared,
        "observations.jsonl"
    );
}

/// `start`/`end` lines of each case appended to one log, in time order.
fn log_command(log: &Path, name: &str) -> String {
    let log = sh_quote(&log.display().to_string());
    format!("echo 'start {name}' >> {log}; sleep 0.3; echo 'end {name}' >> {log}")
}

#[test]
fn an_exclusive_case_runs_alone() {
    let p = Project::new("");
    let log = p.path().join("events.log");
    let mut toml = String::new();
    for name in ["one", "two", "three", "solo", "four", "five", "six"] {
        toml.push_str(&format!(
            "[[verify]]\nname = \"{name}\"\ncommand = {}\n",
            toml_str(&log_command(&log, name))
        ));
        if name == "solo" {
            toml.push_str("exclusive = true\n");
        }
    }
    p.write("harness.toml", &toml);
    let o = p.run(&["--jobs", "3"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let events = read(&log);
    let lines: Vec<&str> = events.lines().collect();
    assert_eq!(lines.len(), 14, "{events}");
    let at = |line: &str| {
        lines
            .iter()
            .position(|l| *l == line)
            .unwrap_or_else(|| panic!("no `{line}` in\n{events}"))
    };
    let (start, end) = (at("start solo"), at("end solo"));
    assert_eq!(
        end,
        start + 1,
        "another case started or ended while `solo` ran:\n{events}"
    );
    // Nothing else was running when it started: every case started before
    // it had ended.
    for line in &lines[..start] {
        if let Some(name) = line.strip_prefix("start ") {
            assert!(
                at(&format!("end {name}")) < start,
                "{name} was still running when solo started:\n{events}"
            );
        }
    }
    // The other cases did overlap, so `--jobs 3` was in effect.
    assert!(
        at("start two") < at("end one"),
        "the cases ran one at a time anyway:\n{events}"
    );
}

/// `after` under `--jobs`: a verify command that reads what a golden
/// project writes never starts before the project has finished, although
/// it is declared first and the project takes a second.
#[test]
fn a_case_after_another_starts_once_it_has_finished() {
    let p = Project::new("");
    let shared = p.path().join("shared.txt");
    let shared = sh_quote(&shared.display().to_string());
    p.write(
        "harness.toml",
        &format!(
            "[[verify]]\nname = \"reads\"\ncommand = {}\nafter = [\"writes\"]\n\n\
             [[golden]]\nname = \"writes\"\npath = \"golden/w\"\ncommand = {}\n\n\
             [[verify]]\nname = \"other\"\ncommand = \"true\"\n",
            toml_str(&format!("grep -q written {shared}")),
            toml_str(&format!("sleep 1; echo written > {shared}")),
        ),
    );
    p.write("golden/w/README", "a project\n");
    let o = p.run(&["--jobs", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let summary = json(&p.out().join("summary.json"));
    // Reports keep declaration order.
    assert_eq!(summary_names(&summary), ["reads", "writes", "other"]);
    let at = |name: &str, key: &str| {
        let v = &summary_case(&summary, name)[key];
        v.as_str()
            .unwrap_or_else(|| panic!("{name}.{key} is {v}"))
            .parse::<cargo_golden::_support::Timestamp>()
            .unwrap()
    };
    assert!(
        at("reads", "started_at") >= at("writes", "finished_at"),
        "reads started before writes finished: {summary}"
    );
}

/// A case `after` one the filters leave out still runs: `after` orders
/// cases, it does not make one depend on another's success.
#[test]
fn a_case_after_one_filtered_out_still_runs() {
    let p = Project::new(
        "[[verify]]\nname = \"first\"\ncommand = \"false\"\n\n\
         [[verify]]\nname = \"second\"\ncommand = \"true\"\nafter = [\"first\"]\n",
    );
    let o = p.run(&["second", "--jobs", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let summary = json(&p.out().join("summary.json"));
    assert_eq!(summary_case(&summary, "first")["result"], "SKIPPED");
    assert_eq!(summary_case(&summary, "second")["result"], "PASSED");
    // Nor does a failure of the case it follows skip it.
    let o = p.run(&["--jobs", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = json(&p.out().join("summary.json"));
    assert_eq!(summary_case(&summary, "first")["result"], "FAILED");
    assert_eq!(summary_case(&summary, "second")["result"], "PASSED");
}

/// The binary on `p`'s harness file with its reports in `out`.
fn run_into(p: &Project, out: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(p.path())
        .args(args)
        .arg("--config")
        .arg(p.path().join("harness.toml"))
        .arg("--out")
        .arg(out)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn harness_of(names: &[&str]) -> String {
    let mut toml = String::new();
    for name in names {
        toml.push_str(&format!(
            "[[verify]]\nname = \"{name}\"\ncommand = \"echo {name}\"\n"
        ));
    }
    toml
}

const SHARDED: [&str; 10] = [
    "ingest",
    "clean",
    "join",
    "aggregate",
    "export",
    "audit",
    "notify",
    "archive",
    "reindex",
    "vacuum",
];

/// Run every shard `kind:K/3` of a harness declaring `declared` cases,
/// each into its own out dir; the case names each shard's summary.json lists.
fn run_shards(p: &Project, kind: &str, declared: usize) -> Vec<Vec<String>> {
    (1..=3)
        .map(|k| {
            let spec = format!("{kind}:{k}/3");
            let out = p.path().join(format!("out-{kind}-{k}"));
            let o = run_into(p, &out, &["--partition", &spec]);
            assert_eq!(o.status.code(), Some(0), "{spec}: {}", text(&o));
            let summary = json(&out.join("summary.json"));
            assert_eq!(
                summary["partition"],
                spec.as_str(),
                "summary.json of {spec}"
            );
            assert_eq!(summary["declared_cases"], declared);
            let names = summary_names(&summary);
            assert_eq!(
                summary["counts"]["total"],
                names.len(),
                "{spec} counts other shards' cases"
            );
            let xml = read(&out.join("junit.xml"));
            assert_eq!(junit_names(&xml), names, "junit.xml of {spec}");
            assert_eq!(
                junit_suite_property(&xml, "partition").as_deref(),
                Some(spec.as_str()),
                "junit.xml of {spec} does not record the partition"
            );
            let md = read(&out.join("report.md"));
            assert_eq!(markdown_table_column(&md, "## Results", 1), names);
            assert!(md.contains(&spec), "report.md of {spec} does not name it");
            // Only this shard's cases ran.
            let run_id = summary["run_id"].as_str().unwrap();
            let execution = out.join("artifacts").join(run_id).join("execution");
            let ran = std::fs::read_dir(execution).map_or(0, |d| d.count());
            assert_eq!(ran, names.len(), "{spec} ran other shards' cases");
            names
        })
        .collect()
}

/// Every declared case is in exactly one shard, in declaration order there.
fn assert_cover(shards: &[Vec<String>], declared: &[&str]) {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for shard in shards {
        for name in shard {
            *seen.entry(name.as_str()).or_default() += 1;
        }
        let order: Vec<&str> = declared
            .iter()
            .copied()
            .filter(|d| shard.iter().any(|n| n == d))
            .collect();
        assert_eq!(shard, &order, "a shard lost declaration order");
    }
    let want: BTreeMap<&str, usize> = declared.iter().map(|n| (*n, 1)).collect();
    assert_eq!(seen, want, "{shards:?}");
}

#[test]
fn count_partitions_split_by_declaration_index() {
    let p = Project::new(&harness_of(&SHARDED));
    let shards = run_shards(&p, "count", SHARDED.len());
    assert_cover(&shards, &SHARDED);
    for (k, shard) in shards.iter().enumerate() {
        let want: Vec<String> = SHARDED
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 3 == k)
            .map(|(_, n)| n.to_string())
            .collect();
        assert_eq!(shard, &want, "count:{}/3", k + 1);
    }
}

/// Shard of each case as `list --partition hash:K/3` prints it.
fn listed_hash_shards(p: &Project) -> BTreeMap<String, u32> {
    let mut owner = BTreeMap::new();
    for k in 1..=3u32 {
        let spec = format!("hash:{k}/3");
        let o = p.run(&["list", "--partition", &spec]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        for line in String::from_utf8(o.stdout).unwrap().lines() {
            let name = line.split_whitespace().nth(1).unwrap().to_string();
            assert!(
                owner.insert(name.clone(), k).is_none(),
                "{name} listed in two shards"
            );
        }
    }
    owner
}

#[test]
fn hash_partitions_cover_every_case_and_adding_one_moves_no_other() {
    let p = Project::new(&harness_of(&SHARDED));
    let shards = run_shards(&p, "hash", SHARDED.len());
    assert_cover(&shards, &SHARDED);

    // What `list` shows is what a run does.
    let listed = listed_hash_shards(&p);
    let ran: BTreeMap<String, u32> = shards
        .iter()
        .enumerate()
        .flat_map(|(k, names)| names.iter().map(move |n| (n.clone(), k as u32 + 1)))
        .collect();
    assert_eq!(listed, ran);

    // A new case declared first shifts every declaration index.
    let mut grown = vec!["bootstrap"];
    grown.extend(SHARDED);
    p.write("harness.toml", &harness_of(&grown));
    let after = listed_hash_shards(&p);
    assert_eq!(after.len(), grown.len());
    for (name, k) in &listed {
        assert_eq!(after.get(name), Some(k), "{name} changed shard");
    }
    let after_runs = run_shards(&p, "hash", grown.len());
    assert_cover(&after_runs, &grown);
    let shard_sets: Vec<BTreeSet<&str>> = after_runs
        .iter()
        .map(|s| s.iter().map(String::as_str).collect())
        .collect();
    for (name, k) in &listed {
        assert!(shard_sets[*k as usize - 1].contains(name.as_str()));
    }
}

/// Execution dirs of the case at 0-based `index` that hold an evidence.json.
fn attempt_dirs(p: &Project, index: usize) -> Vec<PathBuf> {
    let prefix = format!("{:03}-", index + 1);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(p.run_dir().join("execution"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| {
            d.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(&prefix)
                && d.join("evidence.json").is_file()
        })
        .collect();
    dirs.sort();
    dirs
}

/// A command that fails until its `n`th run, counting runs in `counter`.
fn pass_on_attempt(counter: &Path, n: u32) -> String {
    let c = sh_quote(&counter.display().to_string());
    format!(
        "n=$(cat {c} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {c}; echo attempt $n; [ $n -ge {n} ]"
    )
}

/// The `<testcase name=…>` element's children, by tag name.
fn junit_children(xml: &str, case: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(xml).unwrap();
    let tc = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(case))
        .unwrap_or_else(|| panic!("no testcase {case}"));
    tc.children()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name().to_string())
        .collect()
}

#[test]
fn a_case_passing_on_retry_is_flaky_and_keeps_both_attempts() {
    let p = Project::new("");
    let counter = p.path().join("counter");
    p.write(
        "harness.toml",
        &format!(
            "[[verify]]\nname = \"wobbly\"\ncommand = {}\nretries = 2\n",
            toml_str(&pass_on_attempt(&counter, 2))
        ),
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(read(&counter).trim(), "2", "ran a third time after passing");

    let summary = p.summary();
    let case = summary_case(&summary, "wobbly");
    assert_eq!(case["result"], "PASSED");
    assert_eq!(case["flaky"], true);
    assert_eq!(summary["counts"]["flaky"], 1);
    let earlier = case["previous_attempts"].as_array().unwrap();
    assert_eq!(earlier.len(), 1);
    assert_eq!(earlier[0]["result"], "FAILED");

    // Each attempt has its own evidence, and the summary points at both.
    let dirs = attempt_dirs(&p, 0);
    assert_eq!(dirs.len(), 2, "{dirs:?}");
    let mut stdouts = BTreeSet::new();
    for d in &dirs {
        let ev = json(&d.join("evidence.json"));
        stdouts.insert(ev["stdout"].as_str().unwrap().to_string());
    }
    assert_eq!(
        stdouts,
        BTreeSet::from(["attempt 1\n".to_string(), "attempt 2\n".to_string()])
    );
    for c in [case, &earlier[0]] {
        let rel = c["artifacts"]["evidence"].as_str().unwrap();
        let ev = json(&p.out().join(rel));
        assert_eq!(ev["result"], c["result"], "{rel}");
    }
    // The final attempt's evidence.json links the earlier attempt's.
    let last = json(
        &p.out()
            .join(case["artifacts"]["evidence"].as_str().unwrap()),
    );
    let linked = last["previous_attempts"].as_array().unwrap();
    assert_eq!(linked.len(), 1, "{last}");
    assert_eq!(linked[0]["evidence"], earlier[0]["artifacts"]["evidence"]);
    assert_eq!(linked[0]["result"], "FAILED");
    assert_ne!(
        case["artifacts"]["evidence"],
        earlier[0]["artifacts"]["evidence"]
    );

    let xml = read(&p.out().join("junit.xml"));
    let children = junit_children(&xml, "wobbly");
    assert!(children.contains(&"flakyFailure".to_string()), "{xml}");
    assert!(!children.contains(&"failure".to_string()), "{xml}");

    let md = read(&p.out().join("report.md"));
    let row = md
        .lines()
        .find(|l| l.starts_with('|') && l.contains("wobbly") && l.contains("PASSED"))
        .unwrap_or_else(|| panic!("no results row: {md}"));
    assert!(row.contains("flaky"), "{row}");
}

#[test]
fn retries_on_the_command_line_override_the_harness_file() {
    let p = Project::new("");
    let up = p.path().join("up");
    let down = p.path().join("down");
    p.write(
        "harness.toml",
        &format!(
            // `up` would fail without retries; `down` needs the two the file
            // grants, so one retry is not enough.
            "[[verify]]\nname = \"up\"\ncommand = {}\n\
             [[verify]]\nname = \"down\"\ncommand = {}\nretries = 2\n",
            toml_str(&pass_on_attempt(&up, 2)),
            toml_str(&pass_on_attempt(&down, 3))
        ),
    );
    let o = p.run(&["--retries", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    let up_case = summary_case(&summary, "up");
    assert_eq!(up_case["result"], "PASSED");
    assert_eq!(up_case["flaky"], true);
    let down_case = summary_case(&summary, "down");
    assert_eq!(down_case["result"], "FAILED");
    assert_eq!(read(&down).trim(), "2", "`down` ran more than 1 + 1 times");
    assert_eq!(attempt_dirs(&p, 1).len(), 2);
}

#[test]
fn a_case_failing_every_attempt_fails_after_all_of_them() {
    let p = Project::new("");
    let counter = p.path().join("counter");
    p.write(
        "harness.toml",
        &format!(
            "[[verify]]\nname = \"broken\"\ncommand = {}\nretries = 2\n",
            toml_str(&pass_on_attempt(&counter, 99))
        ),
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(read(&counter).trim(), "3");
    let summary = p.summary();
    let case = summary_case(&summary, "broken");
    assert_eq!(case["result"], "FAILED");
    assert_eq!(case["flaky"], false);
    assert_eq!(case["previous_attempts"].as_array().unwrap().len(), 2);
    assert_eq!(summary["counts"]["failed"], 1);
    assert_eq!(summary["counts"]["flaky"], 0);
    let dirs = attempt_dirs(&p, 0);
    assert_eq!(dirs.len(), 3, "{dirs:?}");
    for d in &dirs {
        assert_eq!(json(&d.join("evidence.json"))["result"], "FAILED", "{d:?}");
    }
    let xml = read(&p.out().join("junit.xml"));
    let children = junit_children(&xml, "broken");
    assert_eq!(
        children.iter().filter(|c| *c == "failure").count(),
        1,
        "{xml}"
    );
    assert!(!children.iter().any(|c| c.starts_with("flaky")), "{xml}");
}

fn fail_fast_harness(p: &Project, failing: &str) -> String {
    // Later cases leave a marker if they run at all.
    let marker = |name: &str| {
        toml_str(&format!(
            "touch {}",
            sh_quote(&p.path().join(format!("ran-{name}")).display().to_string())
        ))
    };
    format!(
        "[[verify]]\nname = \"first\"\ncommand = {}\n\
         [[verify]]\nname = \"breaks\"\n{failing}\n\
         [[verify]]\nname = \"third\"\ncommand = {}\n\
         [[verify]]\nname = \"fourth\"\ncommand = {}\n",
        marker("first"),
        marker("third"),
        marker("fourth")
    )
}

fn assert_rest_skipped(p: &Project, broken: &str) {
    let summary = p.summary();
    let results: Vec<&str> = summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["PASSED", broken, "SKIPPED", "SKIPPED"]);
    for name in ["third", "fourth"] {
        let c = summary_case(&summary, name);
        assert_eq!(c["execution_status"], "SKIPPED");
        let reason = c["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("fail-fast"), "{name}: reason {reason:?}");
        assert!(
            !p.path().join(format!("ran-{name}")).exists(),
            "{name} ran after the failure"
        );
    }
    assert!(p.path().join("ran-first").exists());
    assert_eq!(summary["counts"]["skipped"], 2);
}

#[test]
fn fail_fast_skips_the_rest_after_a_failure() {
    let p = Project::new("");
    p.write(
        "harness.toml",
        &fail_fast_harness(&p, "command = \"echo 'Pipeline failed'\""),
    );
    let o = p.run(&["--fail-fast"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_rest_skipped(&p, "FAILED");

    // Without the flag the rest run.
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(p.path().join("ran-fourth").exists());
}

#[test]
fn fail_fast_skips_the_rest_after_an_error() {
    let p = Project::new("");
    p.write(
        "harness.toml",
        &fail_fast_harness(&p, "command = \"true\"\nworking_dir = \"missing\""),
    );
    let o = p.run(&["--fail-fast"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_rest_skipped(&p, "ERROR");
}

#[test]
fn fail_fast_skips_an_exclusive_case_that_was_waiting_for_the_failure() {
    let p = Project::new("");
    let marker = p.path().join("ran-alone");
    p.write(
        "harness.toml",
        &format!(
            // With two jobs, `alone` is picked up when `quick` ends, while
            // `breaks` still runs: it waits for `breaks` to end, so it could
            // only start after the failure.
            "[[verify]]\nname = \"quick\"\ncommand = \"sleep 0.2\"\n\
             [[verify]]\nname = \"breaks\"\ncommand = \"sleep 0.8; exit 1\"\n\
             [[verify]]\nname = \"alone\"\ncommand = {}\nexclusive = true\n",
            toml_str(&format!(
                "touch {}",
                sh_quote(&marker.display().to_string())
            ))
        ),
    );
    let o = p.run(&["--fail-fast", "--jobs", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    assert_eq!(summary_case(&summary, "quick")["result"], "PASSED");
    assert_eq!(summary_case(&summary, "breaks")["result"], "FAILED");
    let alone = summary_case(&summary, "alone");
    assert_eq!(alone["result"], "SKIPPED", "{alone:#}");
    assert!(!marker.exists(), "`alone` ran after the failure");
}
