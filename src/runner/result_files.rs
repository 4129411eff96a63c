//! Structured results (`result = { format, path }`): a machine-readable
//! file the command writes (JUnit XML, `odibi validate --format json`, an
//! Odibi story), found after the run, kept beside the logs and read into
//! failures with their own fields.
//!
//! Reading never fails the engine: a result that is missing or cannot be
//! parsed is itself the finding (the case fails naming the path).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::config::{ResultFormat, ResultSpec};
use crate::model::ValidationError;

/// The most of a result file read: results are reports, not data.
const MAX_RESULT_BYTES: u64 = 64 << 20;

/// Longest text of one failure quoted in an issue, in characters.
const MAX_FAILURE_CHARS: usize = 300;

/// One failure the result reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    /// One line: what failed and why.
    pub(crate) message: String,
    /// The fields of the failure, `Key: value | …`.
    pub(crate) detail: String,
}

/// What a result says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// The result reports a failure.
    pub(crate) failed: bool,
    /// Each failure it reports.
    pub(crate) failures: Vec<Failure>,
    /// Field errors (`odibi-validate`), for the validation error list.
    pub(crate) validation_errors: Vec<ValidationError>,
    /// How many test cases or nodes the result says ran (skipped ones
    /// left out); None for a result that does not tell (`odibi-validate`).
    pub(crate) ran: Option<u64>,
    /// What ran, in words (`test case(s)`, `node(s)`).
    pub(crate) unit: &'static str,
}

/// A result as read after the run.
#[derive(Debug)]
pub(crate) struct ResultRead {
    /// Where it was read: the path as found, relative to the working dir,
    /// or `stdout`.
    pub(crate) source: String,
    /// The name of the kept copy in the case's artifact dir, when a file
    /// was kept.
    pub(crate) kept: Option<&'static str>,
    /// What it says, or why it could not be read.
    pub(crate) outcome: Result<Parsed, String>,
}

/// The result files that were there before the command ran, each with
/// its modification time and size: one left from an earlier run (a
/// project under `check` keeps it) was not written by this one, and must
/// not speak for it.
#[derive(Debug, Default)]
pub(crate) struct Before(BTreeMap<PathBuf, crate::untrusted::Stamp>);

fn stamp(path: &Path) -> Option<crate::untrusted::Stamp> {
    path.is_file()
        .then(|| crate::untrusted::stamp(path))
        .flatten()
}

impl Before {
    /// Look before the run of a case in `working_dir`.
    pub(crate) fn look(spec: &ResultSpec, working_dir: &Path) -> Before {
        let Some(declared) = &spec.path else {
            return Before::default();
        };
        let at = working_dir.join(declared);
        let files = if spec.format == ResultFormat::OdibiStory && at.is_dir() {
            json_files(&at)
        } else {
            vec![at]
        };
        Before(
            files
                .into_iter()
                .filter_map(|f| Some((stamp(&f)?, f)))
                .map(|(s, f)| (f, s))
                .collect(),
        )
    }

    /// `file` is as it was before the run.
    fn unchanged(&self, file: &Path) -> bool {
        self.0
            .get(file)
            .is_some_and(|before| stamp(file).as_ref() == Some(before))
    }
}

/// Find and read the result of `spec` for a case that ran in
/// `working_dir`, keeping a copy (masked by `mask`) in the artifact dir
/// `dir`. `stdout_log` is the case's full stdout; `before`, what was there
/// before the command ran.
pub(crate) fn read(
    spec: &ResultSpec,
    working_dir: &Path,
    before: &Before,
    dir: &Path,
    stdout_log: &Path,
    mask: &dyn Fn(Vec<u8>) -> Vec<u8>,
) -> ResultRead {
    let Some(declared) = &spec.path else {
        let outcome = crate::untrusted::read_limited(stdout_log, MAX_RESULT_BYTES)
            .map_err(|e| format!("stdout cannot be read: {e}"))
            .and_then(|b| parse(spec.format, &b));
        return ResultRead {
            source: "stdout".to_string(),
            kept: None,
            outcome,
        };
    };
    let shown = declared.to_string_lossy().replace('\\', "/");
    let at = working_dir.join(declared);
    let found = match spec.format {
        ResultFormat::OdibiStory => {
            newest_story(&at, working_dir, before).map_err(|why| format!("{shown} {why}"))
        }
        _ if before.unchanged(&at) => Err(format!(
            "{shown} was not written by this run: it is unchanged since before the command ran (left by an earlier run?)"
        )),
        _ => Ok(at.clone()),
    };
    let mut read = ResultRead {
        source: shown.clone(),
        kept: None,
        outcome: Err(String::new()),
    };
    let file = match found {
        Ok(f) => f,
        Err(why) => {
            read.outcome = Err(why);
            return read;
        }
    };
    if let Some(rel) = file.strip_prefix(working_dir).ok().filter(|_| file != at) {
        read.source = rel.to_string_lossy().replace('\\', "/");
    }
    let bytes = match read_bounded(&file, working_dir) {
        Ok(b) => mask(b),
        Err(why) => {
            read.outcome = Err(format!("{} {why}", read.source));
            return read;
        }
    };
    let name = kept_name(spec.format);
    if let Err(e) = crate::atomic::atomic_write(&dir.join(name), &bytes) {
        read.outcome = Err(format!("{} cannot be kept as evidence: {e}", read.source));
        return read;
    }
    read.kept = Some(name);
    read.outcome = parse(spec.format, &bytes).map_err(|why| format!("{} {why}", read.source));
    read
}

/// The kept copy's name in the artifact dir.
fn kept_name(format: ResultFormat) -> &'static str {
    match format {
        ResultFormat::Junit => "result.xml",
        ResultFormat::OdibiValidate | ResultFormat::OdibiStory | ResultFormat::Dbt => "result.json",
    }
}

/// The result file `path`, once its links are resolved inside
/// `working_dir`: a result is the command's own file, and a link out of
/// its directory (to `/proc/self/environ`, say) would have the harness
/// read, and keep, a file of its own.
fn read_bounded(path: &Path, working_dir: &Path) -> Result<Vec<u8>, String> {
    crate::untrusted::confined(path, working_dir, "the case's working directory")
        .and_then(|inside| crate::untrusted::read_limited(&inside, MAX_RESULT_BYTES))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "is missing: the command did not write it".to_string(),
            _ if crate::untrusted::refused(&e) => e.to_string(),
            _ => format!("cannot be read: {e}"),
        })
}

/// The newest `*.json` run story at or below `at` (a story file, or a
/// directory of them): the lineage and other JSON files Odibi writes
/// beside the stories are passed over.
fn newest_story(at: &Path, working_dir: &Path, before: &Before) -> Result<PathBuf, String> {
    if at.is_file() {
        if before.unchanged(at) {
            return Err(
                "was not written by this run: it is unchanged since before the command ran"
                    .to_string(),
            );
        }
        return Ok(at.to_path_buf());
    }
    if !at.is_dir() {
        return Err("is missing: the command wrote no story there".to_string());
    }
    let mut stories: Vec<(Option<SystemTime>, PathBuf)> = json_files(at)
        .into_iter()
        .filter(|p| !before.unchanged(p))
        .map(|p| (std::fs::metadata(&p).and_then(|m| m.modified()).ok(), p))
        .collect();
    // Newest first; the name breaks a tie (stories are named by time).
    stories.sort_by(|a, b| b.cmp(a));
    stories
        .into_iter()
        .map(|(_, p)| p)
        .find(|p| read_bounded(p, working_dir).is_ok_and(|b| is_run_story(&b)))
        .ok_or_else(|| {
            "holds no run story this run wrote (*.json with `pipeline_name` and `nodes`)"
                .to_string()
        })
}

/// Every `*.json` file at or below the directory `at`.
fn json_files(at: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(at)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json"))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

fn is_run_story(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .is_ok_and(|v| v.get("pipeline_name").is_some() && v["nodes"].is_array())
}

/// Parse a result of `format`; `Err` says why it is not one.
pub(crate) fn parse(format: ResultFormat, bytes: &[u8]) -> Result<Parsed, String> {
    match format {
        ResultFormat::Junit => junit(bytes),
        ResultFormat::OdibiValidate => odibi_validate(bytes),
        ResultFormat::OdibiStory => odibi_story(bytes),
        ResultFormat::Dbt => dbt(bytes),
    }
}

/// dbt's `run_results.json`: every node a result, by `status`. A node
/// passes only with a status dbt documents as a success: `success`,
/// `pass`, `warn` (a warn-severity test that found rows), and `skipped`
/// and `no-op` (it did not run). Any other status (`fail`, `error`,
/// `runtime error`, `partial success`, which dbt 1.9 exits 0 on, one
/// spelt in another case, a missing one) is a failure with its node,
/// failures and message; what ran is every result neither skipped nor a
/// no-op.
fn dbt(bytes: &[u8]) -> Result<Parsed, String> {
    let v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("is not JSON: {e}"))?;
    let results = v["results"]
        .as_array()
        .ok_or("is not dbt's run_results.json: it has no `results` list")?;
    let mut parsed = Parsed {
        unit: "node(s)",
        ..Parsed::default()
    };
    let mut ran = 0;
    for r in results {
        let id = field(r, "unique_id");
        let status = r.get("status").and_then(serde_json::Value::as_str);
        match status {
            Some("success" | "pass" | "warn") => {
                ran += 1;
                continue;
            }
            Some("skipped" | "no-op") => continue,
            _ => ran += 1,
        }
        let shown = status.map_or_else(|| "(no status)".to_string(), str::to_string);
        let failures = r["failures"]
            .as_u64()
            .map_or_else(String::new, |n| n.to_string());
        let message = one_line(&crate::ansi::visible(field(r, "message")));
        parsed.failures.push(Failure {
            message: format!("dbt: {id} {shown}: {message}"),
            detail: format!(
                "Node: {id} | Status: {shown} | Failures: {failures} | Message: {message}"
            ),
        });
    }
    parsed.ran = Some(ran);
    parsed.failed = !parsed.failures.is_empty();
    Ok(parsed)
}

/// A JUnit testcase's own `status` (or `result`) attribute, which some
/// writers add (googletest: `status="run"`, `result="completed"`): one of
/// these passes, one of [`JUNIT_NOT_RUN`] did not run, any other fails.
const JUNIT_PASSED: &[&str] = &[
    "run",
    "passed",
    "pass",
    "success",
    "successful",
    "completed",
    "ok",
];
/// Testcase `status` values of a case that did not run.
const JUNIT_NOT_RUN: &[&str] = &["skipped", "notrun", "disabled", "suppressed"];

/// `text` on one line and at most [`MAX_FAILURE_CHARS`] characters.
fn one_line(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    crate::ansi::no_controls(&joined)
        .chars()
        .take(MAX_FAILURE_CHARS)
        .collect()
}

fn junit(bytes: &[u8]) -> Result<Parsed, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "is not UTF-8 XML".to_string())?;
    let doc =
        crate::xml::Document::parse(text).map_err(|e| format!("is not a JUnit XML report: {e}"))?;
    let root = doc.root_element().name();
    if root != "testsuites" && root != "testsuite" {
        return Err(format!(
            "is not a JUnit XML report: its root element is <{root}>, not <testsuites> or <testsuite>"
        ));
    }
    let mut parsed = Parsed {
        ran: Some(0),
        unit: "test case(s)",
        ..Parsed::default()
    };
    for tc in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let name = tc.attribute("name").unwrap_or("?");
        let class = tc.attribute("classname").unwrap_or("");
        let full = if class.is_empty() {
            name.to_string()
        } else {
            format!("{class}::{name}")
        };
        let own = ["status", "result"]
            .iter()
            .filter_map(|a| tc.attribute(a).map(|v| (*a, v)))
            .find(|(_, v)| !JUNIT_PASSED.contains(v));
        let not_run = own.is_some_and(|(_, v)| JUNIT_NOT_RUN.contains(&v));
        if !not_run && !tc.children().any(|c| c.has_tag_name("skipped")) {
            parsed.ran = parsed.ran.map(|n| n + 1);
        }
        // An unknown status is never a pass.
        if let Some((attr, value)) = own.filter(|_| !not_run) {
            parsed.failures.push(Failure {
                message: format!("testcase {full} has {attr} `{value}`, which is not a pass"),
                detail: format!("Testcase: {name} | Classname: {class} | {attr}: {value}"),
            });
        }
        for f in tc
            .children()
            .filter(|c| c.has_tag_name("failure") || c.has_tag_name("error"))
        {
            let kind = f.name();
            let message = f
                .attribute("message")
                .filter(|m| !m.trim().is_empty())
                .or_else(|| f.text())
                .unwrap_or("");
            parsed.failures.push(Failure {
                message: format!("testcase {full} {kind}: {}", one_line(message)),
                detail: format!(
                    "Testcase: {name} | Classname: {class} | {}: {}",
                    if kind == "error" { "Error" } else { "Failure" },
                    one_line(message)
                ),
            });
        }
    }
    parsed.failed = !parsed.failures.is_empty();
    Ok(parsed)
}

/// The first JSON value in `bytes`: the whole text, or from the first line
/// that opens an object (a tool may log before it prints its JSON).
fn first_json(bytes: &[u8]) -> Option<serde_json::Value> {
    if let Ok(v) = serde_json::from_slice(bytes) {
        return Some(v);
    }
    let mut start = 0;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if line.first() == Some(&b'{') {
            let mut it = serde_json::Deserializer::from_slice(&bytes[start..])
                .into_iter::<serde_json::Value>();
            if let Some(Ok(v)) = it.next() {
                return Some(v);
            }
        }
        start += line.len();
    }
    None
}

fn field<'v>(v: &'v serde_json::Value, key: &str) -> &'v str {
    v.get(key).and_then(serde_json::Value::as_str).unwrap_or("")
}

fn odibi_validate(bytes: &[u8]) -> Result<Parsed, String> {
    let v = first_json(bytes).ok_or("holds no JSON object (`odibi validate --format json`)")?;
    let valid = v
        .get("valid")
        .and_then(serde_json::Value::as_bool)
        .ok_or("is not `odibi validate --format json` output: it has no boolean `valid`")?;
    let mut parsed = Parsed {
        failed: !valid,
        ..Parsed::default()
    };
    let errors = v["errors"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for e in errors {
        let (path, message, fix, code) = (
            field(e, "field_path"),
            field(e, "message"),
            field(e, "fix"),
            field(e, "code"),
        );
        let mut line = format!("odibi validate: {}", one_line(message));
        if !path.is_empty() {
            line = format!("odibi validate: {path}: {}", one_line(message));
        }
        if !fix.is_empty() {
            line.push_str(&format!(" (fix: {})", one_line(fix)));
        }
        parsed.failures.push(Failure {
            message: line,
            detail: format!(
                "Code: {code} | Field: {path} | Message: {} | Fix: {}",
                one_line(message),
                one_line(fix)
            ),
        });
        parsed.validation_errors.push(ValidationError {
            field: path.to_string(),
            message: one_line(message),
        });
    }
    if !valid && parsed.failures.is_empty() {
        parsed.failures.push(Failure {
            message: "odibi validate: the config is not valid (`valid: false`, no errors listed)"
                .to_string(),
            detail: format!("Summary: {}", one_line(field(&v, "summary"))),
        });
    }
    // Errors listed under `valid: true` fail too: the tool found them.
    parsed.failed |= !errors.is_empty();
    Ok(parsed)
}

fn odibi_story(bytes: &[u8]) -> Result<Parsed, String> {
    let v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("is not a JSON story: {e}"))?;
    let nodes = v["nodes"]
        .as_array()
        .ok_or("is not an Odibi run story: it has no `nodes` list")?;
    let pipeline = field(&v, "pipeline_name");
    let ran = nodes
        .iter()
        .filter(|n| field(n, "status") != "skipped")
        .count();
    let mut parsed = Parsed {
        ran: Some(ran as u64),
        unit: "node(s)",
        ..Parsed::default()
    };
    // A node passes only with status `success`; `skipped` did not run;
    // any other (or none) fails, `failed` with its error.
    for n in nodes.iter() {
        let status = n.get("status").and_then(serde_json::Value::as_str);
        if matches!(status, Some("success" | "skipped")) {
            continue;
        }
        let (name, kind) = (field(n, "node_name"), field(n, "error_type"));
        if status != Some("failed") {
            let shown = status.map_or_else(|| "(no status)".to_string(), |s| format!("`{s}`"));
            parsed.failures.push(Failure {
                message: format!(
                    "odibi story: node {name} has status {shown}, which is not a success"
                ),
                detail: format!("Pipeline: {pipeline} | Node: {name} | Status: {shown}"),
            });
            continue;
        }
        let error = story_error(field(n, "error_message"));
        let kind = if kind.is_empty() {
            String::new()
        } else {
            format!("{kind}: ")
        };
        parsed.failures.push(Failure {
            message: format!("odibi story: node {name} failed: {kind}{error}"),
            detail: format!("Pipeline: {pipeline} | Node: {name} | Error: {kind}{error}"),
        });
    }
    let counted = v["failed_nodes"].as_u64().unwrap_or(0);
    if parsed.failures.is_empty() && counted > 0 {
        parsed.failures.push(Failure {
            message: format!("odibi story: {counted} node(s) failed in pipeline {pipeline}"),
            detail: format!("Pipeline: {pipeline} | Failed nodes: {counted}"),
        });
    }
    parsed.failed = !parsed.failures.is_empty();
    Ok(parsed)
}

/// The cause in an Odibi node error: its `Error:` and `Failures:` lines,
/// without the location, the columns and the suggestions around them.
fn story_error(message: &str) -> String {
    let mut keep = Vec::new();
    let mut in_failures = false;
    for line in message.lines().map(str::trim) {
        if let Some(e) = line.strip_prefix("Error:") {
            keep.push(e.trim().trim_start_matches("[X]").trim().to_string());
            in_failures = false;
        } else if line == "Failures:" {
            in_failures = true;
        } else if in_failures && line.starts_with('*') {
            keep.push(line.trim_start_matches('*').trim().to_string());
        } else if in_failures {
            in_failures = false;
        }
    }
    if keep.is_empty() {
        return one_line(message);
    }
    one_line(&keep.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_failures_and_errors_name_the_testcase() {
        let xml = r#"<testsuites><testsuite name="s" tests="3" failures="1" errors="1">
            <testcase classname="tests.test_a" name="test_ok"/>
            <testcase classname="tests.test_a" name="test_sum"><failure message="assert 2 == 3">long text</failure></testcase>
            <testcase classname="tests.test_b" name="test_io"><error>OSError: boom
            second line</error></testcase>
            <testcase classname="tests.test_b" name="test_skip"><skipped/></testcase>
        </testsuite></testsuites>"#;
        let p = parse(ResultFormat::Junit, xml.as_bytes()).unwrap();
        assert!(p.failed);
        assert_eq!(p.failures.len(), 2);
        assert_eq!(
            p.failures[0].message,
            "testcase tests.test_a::test_sum failure: assert 2 == 3"
        );
        assert_eq!(
            p.failures[1].message,
            "testcase tests.test_b::test_io error: OSError: boom second line"
        );
        let ok = parse(
            ResultFormat::Junit,
            b"<testsuite><testcase name=\"a\"/></testsuite>",
        )
        .unwrap();
        assert!(!ok.failed);
        assert!(parse(ResultFormat::Junit, b"<html/>").is_err());
        assert!(parse(ResultFormat::Junit, b"not xml").is_err());
    }

    #[test]
    fn odibi_validate_errors_carry_field_path_and_fix() {
        let json = br#"{"valid": false, "errors": [{"field_path": "pipelines.0.nodes.0.write.mode", "source_path": "odibi.yaml", "fix": "Check required fields and field types.", "code": "MODEL_VALIDATION_FAILED", "message": "Configuration does not match the project model."}], "warnings": [], "summary": "1 error(s), 0 warning(s)"}"#;
        let p = parse(ResultFormat::OdibiValidate, json).unwrap();
        assert!(p.failed);
        assert_eq!(
            p.failures[0].message,
            "odibi validate: pipelines.0.nodes.0.write.mode: Configuration does not match the project model. (fix: Check required fields and field types.)"
        );
        assert_eq!(
            p.validation_errors[0].field,
            "pipelines.0.nodes.0.write.mode"
        );
        let logged = b"[20:27:29] INFO starting\n{\"valid\": true, \"errors\": []}\n";
        assert!(!parse(ResultFormat::OdibiValidate, logged).unwrap().failed);
        assert!(parse(ResultFormat::OdibiValidate, b"{\"ok\": 1}").is_err());
    }

    #[test]
    fn odibi_story_failed_nodes_name_the_node_and_the_cause() {
        // Trimmed from a real odibi 3.15.1 story of a blocking range check.
        let story = serde_json::json!({
            "pipeline_name": "orders", "failed_nodes": 1,
            "nodes": [
                {"node_name": "load", "status": "success", "error_message": null},
                {"node_name": "clean_orders", "status": "failed", "error_type": "NodeExecutionError",
                 "error_message": "[X] Node execution failed: clean_orders\n  Location: /p/odibi.yaml\n\n  Error: [X] Validation failed for node: clean_orders\n\n  Failures:\n    * Column 'amount' contains 1 values out of range\n  Type: ValidationError\n\n  Suggestions:\n    1. Verify column name spelling"}
            ]
        });
        let p = parse(ResultFormat::OdibiStory, story.to_string().as_bytes()).unwrap();
        assert!(p.failed);
        assert_eq!(
            p.failures[0].message,
            "odibi story: node clean_orders failed: NodeExecutionError: Validation failed for node: clean_orders; Column 'amount' contains 1 values out of range"
        );
        let ok = serde_json::json!({"pipeline_name": "o", "failed_nodes": 0, "nodes": [{"node_name": "a", "status": "success"}]});
        assert!(
            !parse(ResultFormat::OdibiStory, ok.to_string().as_bytes())
                .unwrap()
                .failed
        );
    }

    /// dbt's own run_results.json, as recorded (tests/corpus/dbt).
    fn recorded_results(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/corpus/dbt")
            .join(format!("{name}.run_results.json"));
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn dbt_run_results_name_each_failed_node_and_count_what_ran() {
        let healthy = parse(ResultFormat::Dbt, &recorded_results("shop-build-80")).unwrap();
        assert!(!healthy.failed);
        assert_eq!(healthy.ran, Some(26));
        let failed = parse(
            ResultFormat::Dbt,
            &recorded_results("test_failure-build-80"),
        )
        .unwrap();
        assert!(failed.failed);
        assert_eq!(failed.failures.len(), 1, "{:?}", failed.failures);
        assert_eq!(
            failed.failures[0].message,
            "dbt: test.shop.unique_stg_orders_order_id.e3b841c71a fail: Got 1 result, configured to fail if != 0"
        );
        assert!(failed.failures[0].detail.contains("Failures: 1"));
        let warned = parse(ResultFormat::Dbt, &recorded_results("test_warn-build-80")).unwrap();
        assert!(!warned.failed);
        let nothing = parse(
            ResultFormat::Dbt,
            &recorded_results("shop-build-select-tag-nonexistent-80"),
        )
        .unwrap();
        assert_eq!((nothing.failed, nothing.ran), (false, Some(0)));
        let hook = parse(
            ResultFormat::Dbt,
            &recorded_results("hook_failure-build-80"),
        )
        .unwrap();
        assert!(
            hook.failures[0]
                .message
                .starts_with("dbt: operation.shop.shop-on-run-end-0 error")
        );
    }

    /// Statuses are an allow-list: only what dbt, JUnit writers and
    /// Odibi document as a success passes.
    #[test]
    fn an_unknown_or_missing_status_is_never_a_pass() {
        let results = |statuses: &[Option<&str>]| {
            let rows: Vec<serde_json::Value> = (statuses.iter().enumerate())
                .map(|(i, s)| match s {
                    Some(s) => {
                        serde_json::json!({"unique_id": format!("model.p.m{i}"), "status": s})
                    }
                    None => serde_json::json!({"unique_id": format!("model.p.m{i}")}),
                })
                .collect();
            serde_json::to_vec(&serde_json::json!({"results": rows})).unwrap()
        };
        let ok = parse(
            ResultFormat::Dbt,
            &results(&[
                Some("success"),
                Some("pass"),
                Some("warn"),
                Some("skipped"),
                Some("no-op"),
            ]),
        )
        .unwrap();
        assert_eq!((ok.failed, ok.ran), (false, Some(3)));
        for bad in [
            Some("partial success"),
            Some("Error"),
            Some("Success"),
            None,
            Some(""),
        ] {
            let p = parse(ResultFormat::Dbt, &results(&[Some("success"), bad])).unwrap();
            assert!(p.failed, "{bad:?}");
            assert_eq!(p.failures.len(), 1);
            let shown = bad.filter(|b| !b.is_empty()).unwrap_or("(no status)");
            assert!(
                p.failures[0]
                    .message
                    .starts_with(&format!("dbt: model.p.m1 {shown}"))
                    || bad == Some(""),
                "{}",
                p.failures[0].message
            );
        }
        let junit = br#"<testsuite name="s"><testcase name="a" status="run"/><testcase name="b" status="flaked"/><testcase name="c" status="notrun"/></testsuite>"#;
        let p = parse(ResultFormat::Junit, junit).unwrap();
        assert!(p.failed);
        assert_eq!(p.ran, Some(2));
        assert_eq!(p.failures.len(), 1);
        assert!(
            p.failures[0]
                .message
                .contains("testcase b has status `flaked`"),
            "{:?}",
            p.failures
        );
        let story = |status: serde_json::Value| {
            serde_json::to_vec(&serde_json::json!({"pipeline_name": "o", "nodes": [
                {"node_name": "a", "status": "success"},
                {"node_name": "b", "status": status},
            ]}))
            .unwrap()
        };
        for bad in [
            serde_json::json!("Success"),
            serde_json::json!("partial"),
            serde_json::Value::Null,
        ] {
            let p = parse(ResultFormat::OdibiStory, &story(bad.clone())).unwrap();
            assert!(p.failed, "{bad}");
            assert!(
                p.failures[0].message.contains("node b has status"),
                "{:?}",
                p.failures
            );
        }
        assert!(
            !parse(
                ResultFormat::OdibiStory,
                &story(serde_json::json!("skipped"))
            )
            .unwrap()
            .failed
        );
    }
}
