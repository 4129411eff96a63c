//! `cargo golden merge` through the real binary: shards of one harness run
//! with `--partition`, merged, must report exactly what one unsharded run
//! reports, with evidence that `verify-evidence` still checks; and shards
//! that do not form one run are refused without writing anything.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Project, text};
use serde_json::Value;

/// Seven interleaved cases: five pass (one of them by failing the way it is
/// expected to), one fails on its exit code, one prints a validation error
/// and exits 0.
const HARNESS: &str = r#"
[harness]
name = "sharded"
# In place: the merged case records the working dir the shard ran in.
isolation = "check"

[[golden]]
name = "sales_daily"
path = "golden/sales"
command = "cat data.csv"

[[verify]]
name = "workspace builds"
command = "echo built"

[[verify]]
name = "smoke fails"
command = "echo 'smoke: boom' >&2; exit 1"

[[golden]]
name = "inventory"
path = "golden/inventory"
command = "echo '1 validation error for ProjectConfig'; echo pipelines.0.name; echo '  Input should be a valid string [type=string_type, input_value=5, input_type=int]'"

[[verify]]
name = "lint"
command = "echo 'lint: 0 warnings'; echo checked >&2"

[[golden]]
name = "rejects bad input"
path = "golden/sales"
command = "echo 'Status: FAILURE' >&2; exit 3"
expected = "specific_error:Status: FAILURE"

[[verify]]
name = "docs"
command = "echo docs"
"#;

const NAMES: [&str; 7] = [
    "sales_daily",
    "workspace builds",
    "smoke fails",
    "inventory",
    "lint",
    "rejects bad input",
    "docs",
];

fn project(harness: &str) -> Project {
    let p = Project::new(harness);
    p.write("golden/sales/data.csv", "day,total\nmon,3\n");
    p.write("golden/inventory/stock.csv", "item,count\n");
    p
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
    c.env_remove("GITHUB_ACTIONS").env("NO_COLOR", "1");
    c
}

/// Run the harness file `config` of `p` into `<p>/<out>`, plus `args`.
fn run_into(p: &Project, config: &str, out: &str, args: &[&str]) -> Output {
    bin()
        .current_dir(p.path())
        .args(args)
        .arg("--config")
        .arg(p.path().join(config))
        .arg("--out")
        .arg(p.path().join(out))
        .output()
        .unwrap()
}

/// Run one shard of `harness.toml` into `<p>/<out>`; it must finish.
fn shard(p: &Project, out: &str, partition: &str) {
    let o = run_into(p, "harness.toml", out, &["--partition", partition]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "shard {partition}: {}",
        text(&o)
    );
}

/// `cargo-golden merge <dirs> --out <out>` in the project dir, with the
/// dirs given relative to it, as a CI job would.
fn merge(p: &Project, dirs: &[&str], out: &str) -> Output {
    merge_with(p, dirs, out, &[])
}

/// [`merge`] with more arguments.
fn merge_with(p: &Project, dirs: &[&str], out: &str, args: &[&str]) -> Output {
    bin()
        .current_dir(p.path())
        .arg("merge")
        .args(dirs)
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

fn verify_evidence(dir: &Path) -> Output {
    bin().arg("verify-evidence").arg(dir).output().unwrap()
}

fn summary(dir: &Path) -> Value {
    let path = dir.join("summary.json");
    serde_json::from_slice(&std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}")))
        .unwrap()
}

fn cases(summary: &Value) -> &Vec<Value> {
    summary["cases"].as_array().unwrap()
}

/// What must not depend on how the cases were sharded: everything but
/// timings and where the evidence lives.
const SAME_FIELDS: [&str; 17] = [
    "index",
    "name",
    "kind",
    "line",
    "raw_command",
    "working_dir",
    "exit_code",
    "stdout",
    "stderr",
    "status",
    "execution_status",
    "result",
    "evidence_hash",
    "issues",
    "validation_errors",
    "flaky",
    "reason",
];

/// Shards of `kind:K/3`, merged (dirs given in `order`), report what one
/// unsharded run of the same harness reports.
fn shards_merge_into_one_run(kind: &str, order: [usize; 3]) {
    let p = project(HARNESS);
    let full = run_into(&p, "harness.toml", "full", &[]);
    assert_eq!(full.status.code(), Some(1), "{}", text(&full));
    for k in 1..=3 {
        shard(&p, &format!("shard-{k}"), &format!("{kind}:{k}/3"));
    }
    let held: usize = (1..=3)
        .map(|k| cases(&summary(&p.path().join(format!("shard-{k}")))).len())
        .sum();
    assert_eq!(held, 7, "the shards together run every case once");

    let dirs = order.map(|k| format!("shard-{k}"));
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let o = merge(&p, &dirs, "merged");
    assert_eq!(o.status.code(), Some(1), "a case failed: {}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("PARTIAL (2 case(s) failed)"),
        "{}",
        text(&o)
    );

    let merged_dir = p.path().join("merged");
    let want = summary(&p.path().join("full"));
    let got = summary(&merged_dir);
    let names: Vec<&str> = cases(&got)
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, NAMES, "declaration order");
    for (w, g) in cases(&want).iter().zip(cases(&got)) {
        for field in SAME_FIELDS {
            assert_eq!(w[field], g[field], "case {}: {field}", w["name"]);
        }
    }
    for field in ["counts", "final_status", "declared_cases", "suite_name"] {
        assert_eq!(want[field], got[field], "{field}");
    }
    assert_eq!(got["counts"]["failed"], 2);
    assert_eq!(got["counts"]["passed"], 5);
    assert_eq!(got["partition"], Value::Null);
    assert_eq!(got["harness"]["sha256"], want["harness"]["sha256"]);

    // A new run of its own, with its own copy of every case's evidence.
    let run_id = got["run_id"].as_str().unwrap();
    for k in 1..=3 {
        assert_ne!(
            summary(&p.path().join(format!("shard-{k}")))["run_id"],
            run_id
        );
    }
    for c in cases(&got) {
        for file in ["command", "stdout", "stderr", "evidence"] {
            let rel = c["artifacts"][file].as_str().unwrap();
            assert!(
                rel.starts_with(&format!("artifacts/{run_id}/execution/")),
                "{rel}"
            );
            assert!(merged_dir.join(rel).is_file(), "{rel} was not copied");
        }
        let evidence: Value = serde_json::from_slice(
            &std::fs::read(merged_dir.join(c["artifacts"]["evidence"].as_str().unwrap())).unwrap(),
        )
        .unwrap();
        assert_eq!(
            evidence["artifacts"], c["artifacts"],
            "evidence.json points at the copies"
        );
        assert_eq!(evidence["evidence_hash"], c["evidence_hash"]);
    }

    let junit = std::fs::read_to_string(merged_dir.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let testcases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let junit_names: Vec<&str> = testcases
        .iter()
        .map(|t| t.attribute("name").unwrap())
        .collect();
    assert_eq!(junit_names, NAMES);
    let failed: Vec<&str> = testcases
        .iter()
        .filter(|t| t.children().any(|c| c.has_tag_name("failure")))
        .map(|t| t.attribute("name").unwrap())
        .collect();
    assert_eq!(failed, ["smoke fails", "inventory"]);
    let observations = std::fs::read_to_string(merged_dir.join("observations.jsonl")).unwrap();
    assert_eq!(observations.lines().count(), 7);

    let v = verify_evidence(&merged_dir);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    assert!(
        String::from_utf8_lossy(&v.stdout)
            .contains("7 evidence record(s) verified, 0 without evidence, 0 finding(s)"),
        "{}",
        text(&v)
    );

    // The copies are what gets checked: change one and verification fails,
    // while the shard it came from still verifies.
    let lint = &cases(&got)[4];
    let copied = merged_dir.join(lint["artifacts"]["stdout"].as_str().unwrap());
    let mut bytes = std::fs::read(&copied).unwrap();
    bytes.extend_from_slice(b"lint: 1 warning\n");
    std::fs::write(&copied, bytes).unwrap();
    let v = verify_evidence(&merged_dir);
    assert_eq!(v.status.code(), Some(1), "{}", text(&v));
    let out = String::from_utf8_lossy(&v.stdout);
    assert!(out.contains("MISMATCH     lint"), "{}", text(&v));
    assert!(
        out.contains("FINDING      case \"lint\": execution/005-lint/stdout.log: changed"),
        "{}",
        text(&v)
    );
    for k in 1..=3 {
        let v = verify_evidence(&p.path().join(format!("shard-{k}")));
        assert_eq!(v.status.code(), Some(0), "shard-{k}: {}", text(&v));
    }
}

#[test]
fn count_shards_merge_into_one_run() {
    shards_merge_into_one_run("count", [1, 2, 3]);
}

#[test]
fn hash_shards_merge_into_one_run_in_any_order() {
    shards_merge_into_one_run("hash", [3, 1, 2]);
}

#[test]
fn a_shard_with_only_passing_cases_merges_to_success() {
    let p = project(
        r#"
[[verify]]
name = "a"
command = "echo a"
[[verify]]
name = "b"
command = "echo b"
[[golden]]
name = "c"
path = "golden/sales"
command = "cat data.csv"
"#,
    );
    shard(&p, "s1", "count:1/2");
    shard(&p, "s2", "count:2/2");
    let o = merge(&p, &["s2", "s1"], "merged");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let got = summary(&p.path().join("merged"));
    assert_eq!(got["final_status"], "SUCCESS");
    assert_eq!(got["counts"]["total"], 3);
    // One unpartitioned dir is merged as a copy, and so is a merged one.
    let o = merge(&p, &["merged"], "again");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let again = summary(&p.path().join("again"));
    assert_eq!(again["counts"], got["counts"]);
    let v = verify_evidence(&p.path().join("again"));
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
}

#[test]
fn a_kept_structured_result_moves_with_its_case_and_still_verifies() {
    let p = project(
        r#"
[[verify]]
name = "suite"
command = "printf '<testsuite><testcase classname=\"t\" name=\"sum\"><failure message=\"off by one\"/></testcase></testsuite>' > j.xml"
result = { format = "junit", path = "j.xml" }
[[verify]]
name = "b"
command = "echo b"
"#,
    );
    shard(&p, "s1", "count:1/2");
    shard(&p, "s2", "count:2/2");
    let o = merge(&p, &["s1", "s2"], "merged");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let merged = p.path().join("merged");
    let v = verify_evidence(&merged);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    let got = summary(&merged);
    let suite = &cases(&got)[0];
    assert_eq!(suite["result"], "FAILED");
    let evidence = merged.join(suite["artifacts"]["evidence"].as_str().unwrap());
    let ev: Value = serde_json::from_slice(&std::fs::read(&evidence).unwrap()).unwrap();
    let kept = merged.join(ev["structured_result"]["artifact"].as_str().unwrap());
    assert!(kept.starts_with(evidence.parent().unwrap()), "{kept:?}");
    assert!(
        std::fs::read_to_string(&kept)
            .unwrap()
            .contains("off by one")
    );
    std::fs::write(&kept, "<testsuite/>").unwrap();
    let v = verify_evidence(&merged);
    assert_eq!(v.status.code(), Some(1), "{}", text(&v));
}

#[test]
fn every_attempt_of_a_retried_case_keeps_its_evidence() {
    // Fails on the first attempt, passes on the second: flaky.
    let p = project(
        r#"
[[verify]]
name = "flaky"
command = "if [ -e tried ]; then echo second; else touch tried; echo first >&2; exit 1; fi"
retries = 1
[[verify]]
name = "steady"
command = "echo steady"
"#,
    );
    shard(&p, "s1", "count:1/2");
    shard(&p, "s2", "count:2/2");
    let o = merge(&p, &["s1", "s2"], "merged");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let merged_dir = p.path().join("merged");
    let got = summary(&merged_dir);
    let run_id = got["run_id"].as_str().unwrap();
    let flaky = &cases(&got)[0];
    assert_eq!(flaky["flaky"], true);
    let attempts = flaky["previous_attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1);
    let first = &attempts[0]["artifacts"];
    assert_eq!(
        first["stderr"],
        format!("artifacts/{run_id}/execution/001-flaky/stderr.log")
    );
    assert_eq!(
        std::fs::read_to_string(merged_dir.join(first["stderr"].as_str().unwrap())).unwrap(),
        "first\n"
    );
    let last = &flaky["artifacts"];
    assert_eq!(
        last["stdout"],
        format!("artifacts/{run_id}/execution/001-flaky-attempt-2/stdout.log")
    );
    assert_eq!(
        std::fs::read_to_string(merged_dir.join(last["stdout"].as_str().unwrap())).unwrap(),
        "second\n"
    );

    let junit = std::fs::read_to_string(merged_dir.join("junit.xml")).unwrap();
    assert!(junit.contains("<flakyFailure"), "{junit}");
    let v = verify_evidence(&merged_dir);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    assert!(
        String::from_utf8_lossy(&v.stdout)
            .contains("3 evidence record(s) verified, 0 without evidence, 0 finding(s)"),
        "both attempts and the steady case: {}",
        text(&v)
    );
}

/// The merge is refused with exit 2, names the problem (every `needle`),
/// and creates no out dir.
#[test]
fn the_merged_junit_keeps_the_shards_flavour_unless_told_otherwise() {
    let p = project(
        r#"
[harness]
junit = "strict"
[[verify]]
name = "a"
command = "echo a"
[[verify]]
name = "b"
command = "exit 1"
"#,
    );
    shard(&p, "s1", "count:1/2");
    shard(&p, "s2", "count:2/2");
    let shard_host = summary(&p.path().join("s1"))["hostname"].clone();
    assert!(
        shard_host.as_str().is_some_and(|h| !h.is_empty()),
        "{shard_host}"
    );

    let o = merge(&p, &["s1", "s2"], "merged");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let merged = summary(&p.path().join("merged"));
    assert_eq!(merged["junit"], "strict");
    // Both shards ran here: one host, named once.
    assert_eq!(merged["hostname"], shard_host);
    let xml = std::fs::read_to_string(p.path().join("merged/junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(
        common::xunit::violations(&doc),
        Vec::<String>::new(),
        "{xml}"
    );

    let o = bin()
        .current_dir(p.path())
        .args(["merge", "s1", "s2", "--out", "rich", "--junit", "rich"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(summary(&p.path().join("rich"))["junit"], "rich");
    let xml = std::fs::read_to_string(p.path().join("rich/junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let a = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("a"))
        .unwrap();
    assert_eq!(a.attribute("line"), Some("4"), "{xml}");
}

fn assert_refused(p: &Project, dirs: &[&str], needles: &[&str]) {
    assert_refused_with(p, dirs, &[], needles);
}

fn assert_refused_with(p: &Project, dirs: &[&str], args: &[&str], needles: &[&str]) {
    let o = merge_with(p, dirs, "merged", args);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    for needle in needles {
        assert!(stderr.contains(needle), "missing {needle:?}: {}", text(&o));
    }
    let out: PathBuf = p.path().join("merged");
    assert!(!out.exists(), "a refused merge wrote {}", out.display());
}

#[test]
fn shards_of_different_harness_files_are_refused() {
    let p = project(HARNESS);
    p.write("other.toml", &format!("{HARNESS}\n# one more line\n"));
    shard(&p, "shard-1", "count:1/2");
    let o = run_into(&p, "other.toml", "shard-2", &["--partition", "count:2/2"]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let sha = |dir: &str| {
        summary(&p.path().join(dir))["harness"]["sha256"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (a, b) = (sha("shard-1"), sha("shard-2"));
    assert_ne!(a, b);
    assert_refused(
        &p,
        &["shard-1", "shard-2"],
        &[
            "different harness files",
            "harness.toml",
            "other.toml",
            &a,
            &b,
        ],
    );
}

#[test]
fn the_same_partition_twice_is_refused() {
    let p = project(HARNESS);
    shard(&p, "shard-1", "count:1/3");
    shard(&p, "shard-1-again", "count:1/3");
    shard(&p, "shard-2", "count:2/3");
    shard(&p, "shard-3", "count:3/3");
    assert_refused(
        &p,
        &["shard-1", "shard-2", "shard-3", "shard-1-again"],
        &["count:1/3 appears twice", "shard-1-again"],
    );
}

#[test]
fn a_missing_partition_is_named() {
    let p = project(HARNESS);
    shard(&p, "shard-1", "count:1/3");
    shard(&p, "shard-3", "count:3/3");
    assert_refused(&p, &["shard-1", "shard-3"], &["no shard ran count:2/3"]);
}

#[test]
fn count_and_hash_shards_do_not_mix() {
    let p = project(HARNESS);
    shard(&p, "by-count", "count:1/2");
    shard(&p, "by-hash", "hash:2/2");
    assert_refused(
        &p,
        &["by-count", "by-hash"],
        &["partitioned differently", "count:1/2", "hash:2/2"],
    );
}

#[test]
fn a_run_of_every_case_does_not_mix_with_shards() {
    let p = project(HARNESS);
    let o = run_into(&p, "harness.toml", "full", &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    shard(&p, "shard-1", "count:1/2");
    assert_refused(&p, &["full", "shard-1"], &["full", "no --partition"]);
}

#[test]
fn a_dir_without_a_summary_is_refused() {
    let p = project(HARNESS);
    shard(&p, "shard-1", "count:1/1");
    std::fs::create_dir(p.path().join("empty")).unwrap();
    assert_refused(&p, &["shard-1", "empty"], &["empty", "no summary.json"]);
}

#[test]
fn a_shard_whose_evidence_files_are_gone_is_refused() {
    let p = project(HARNESS);
    shard(&p, "shard-1", "count:1/2");
    shard(&p, "shard-2", "count:2/2");
    // As when a CI job uploads summary.json but not artifacts/.
    std::fs::remove_dir_all(p.path().join("shard-2").join("artifacts")).unwrap();
    assert_refused(
        &p,
        &["shard-1", "shard-2"],
        &["shard-2", "workspace builds", "is missing"],
    );
}

/// A passwordless minisign key pair made by the crate (the `minisign`
/// tool may be absent): the public key's base64 line and the secret key's
/// file.
fn crate_keypair(p: &Project, name: &str) -> (String, String) {
    let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let secret = p.write(
        &format!("keys/{name}.key"),
        &kp.sk.to_box(None).unwrap().into_string(),
    );
    (kp.pk.to_base64(), secret.to_str().unwrap().to_string())
}

/// Run shard `partition` into `<p>/<out>`, signed with `secret` when given.
fn signed_shard(p: &Project, out: &str, partition: &str, secret: Option<&str>) {
    let mut args = vec!["--partition", partition];
    args.extend(secret.iter().flat_map(|k| ["--sign-key", *k]));
    let o = run_into(p, "harness.toml", out, &args);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
}

#[test]
fn a_merge_with_a_key_takes_only_shards_signed_by_it() {
    let p = project(HARNESS);
    let (public, secret) = crate_keypair(&p, "ci");
    let (_, other) = crate_keypair(&p, "other");
    signed_shard(&p, "signed-1", "count:1/2", Some(&secret));
    signed_shard(&p, "signed-2", "count:2/2", Some(&secret));
    signed_shard(&p, "unsigned-2", "count:2/2", None);
    signed_shard(&p, "other-2", "count:2/2", Some(&other));
    signed_shard(&p, "forged-2", "count:2/2", Some(&secret));
    // Consistent checksums in another order: every file still matches, the
    // signature does not.
    let run = p.path().join("forged-2/artifacts");
    let run = std::fs::read_dir(run)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let sums = std::fs::read_to_string(run.join("SHA256SUMS")).unwrap();
    let mut lines: Vec<&str> = sums.lines().collect();
    lines.reverse();
    std::fs::write(run.join("SHA256SUMS"), lines.join("\n") + "\n").unwrap();

    for key in [
        ["--sign-key", secret.as_str()],
        ["--public-key", public.as_str()],
    ] {
        assert_refused_with(
            &p,
            &["signed-1", "unsigned-2"],
            &key,
            &["unsigned-2: its SHA256SUMS.minisig", "is missing"],
        );
        assert_refused_with(
            &p,
            &["signed-1", "other-2"],
            &key,
            &["other-2: its SHA256SUMS.minisig", "does not verify"],
        );
        assert_refused_with(
            &p,
            &["signed-1", "forged-2"],
            &key,
            &["forged-2: its SHA256SUMS.minisig", "does not match"],
        );
    }

    let o = merge_with(
        &p,
        &["signed-1", "signed-2"],
        "merged",
        &["--sign-key", &secret],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let o = bin()
        .arg("verify-evidence")
        .arg(p.path().join("merged"))
        .args(["--public-key", &public])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("signature    valid"), "{}", text(&o));

    // One attestation for the merged run, of every shard's cases, signed
    // like its SHA256SUMS and held to the merged evidence.
    let o = bin()
        .arg("verify-evidence")
        .arg(p.path().join("merged"))
        .args(["--attestation", "--public-key", &public])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("attestation  valid"), "{}", text(&o));
    let merged = summary(&p.path().join("merged"));
    let run_id = merged["run_id"].as_str().unwrap();
    let statement: Value = serde_json::from_slice(
        &std::fs::read(
            p.path()
                .join("merged/artifacts")
                .join(run_id)
                .join("test-result.intoto.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let predicate = &statement["predicate"];
    const EXT: &str = cargo_golden::_support::EXTENSION_KEY;
    assert_eq!(predicate["result"], "FAILED");
    assert_eq!(predicate[EXT]["runId"], run_id);
    let mut attested: Vec<String> = ["passedTests", "warnedTests", "failedTests"]
        .iter()
        .flat_map(|k| predicate[k].as_array().unwrap())
        .chain(predicate[EXT]["skippedTests"].as_array().unwrap())
        .map(|t| t.as_str().unwrap().split_once('/').unwrap().1.to_string())
        .collect();
    attested.sort();
    let mut names: Vec<String> = cases(&merged)
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(attested, names);

    // Without a key the shards' signatures cannot come along: said, not
    // dropped silently.
    let o = merge(&p, &["signed-1", "unsigned-2"], "merged-unsigned");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("warning: signed-1: its SHA256SUMS.minisig was not checked"),
        "{}",
        text(&o)
    );
    assert!(!stderr.contains("unsigned-2: its"), "{}", text(&o));
}

/// Observation lines of `dir` by case name.
fn observations_by_case(dir: &Path) -> std::collections::BTreeMap<String, Value> {
    std::fs::read_to_string(dir.join("observations.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["metadata"]["case"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

/// Output that is not UTF-8 survives the trip through the shards'
/// summary.json: merged observations hold the same bytes, the same way
/// encoded, as one unsharded run's.
#[test]
fn merged_observations_keep_output_that_is_not_utf8() {
    let p = project(
        r#"
[[verify]]
name = "binary output"
command = '''printf 'caf\351 \377\376 raw\000nul\n'; printf 'err \300\n' >&2'''

[[verify]]
name = "text output"
command = "echo 'plain é'; echo warn >&2"

[[verify]]
name = "fails with bytes"
command = '''printf 'Pipeline failed \377\n' >&2; exit 2'''
"#,
    );
    let full = run_into(&p, "harness.toml", "full", &[]);
    assert_eq!(full.status.code(), Some(1), "{}", text(&full));
    for k in 1..=2 {
        shard(&p, &format!("shard-{k}"), &format!("count:{k}/2"));
    }
    let o = merge(&p, &["shard-1", "shard-2"], "merged");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    let want = observations_by_case(&p.path().join("full"));
    let got = observations_by_case(&p.path().join("merged"));
    assert_eq!(want.len(), 3);
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (case, w) in &want {
        for field in ["stdout", "stderr", "encoding", "exit_code"] {
            assert_eq!(w[field], got[case][field], "{case}: {field}");
        }
    }
    let binary = &got["binary output"];
    assert_eq!(binary["encoding"], "base64");
    assert_eq!(want["text output"]["encoding"], "utf8");
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(binary["stdout"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, b"caf\xe9 \xff\xfe raw\0nul\n");

    // The shards' summaries carry the bytes too, and the merged run's
    // evidence still verifies.
    let v = verify_evidence(&p.path().join("merged"));
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
}

// ---- shards written before evidence 1.6 --------------------------------

/// Two cases with data outputs, one a shard.
const DATA_HARNESS: &str = r#"
[[verify]]
name = "east"
command = "printf 'k,v\n1,e\n' > east.csv"
outputs = [{ path = "east.csv", key = ["k"] }]

[[verify]]
name = "west"
command = "printf 'k,v\n1,w\n' > west.csv"
outputs = [{ path = "west.csv", key = ["k"] }]
"#;

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Make the shard in `out` what cargo-golden wrote before evidence 1.6:
/// each evidence.json at 1.5.0, its hash the plain one of docs/reports.md
/// (What a run leaves: not covering the data checks), that hash in every
/// report that quotes it, and the run dir sealed again.
fn as_written_before_1_6(out: &Path) {
    let mut renamed: Vec<(String, String)> = Vec::new();
    for path in files_under(out) {
        if path.file_name().is_none_or(|n| n != "evidence.json") {
            continue;
        }
        let dir = path.parent().unwrap();
        let mut ev: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let mut bytes = Vec::new();
        for (i, f) in ["command.txt", "stdout.log", "stderr.log"]
            .iter()
            .enumerate()
        {
            if i > 0 {
                bytes.push(b'|');
            }
            bytes.extend(std::fs::read(dir.join(f)).unwrap());
        }
        bytes.push(b'|');
        bytes.extend(ev["exit_code"].as_i64().unwrap().to_string().as_bytes());
        let old = sha256_hex(&bytes);
        let now = ev["evidence_hash"].as_str().unwrap().to_string();
        assert_ne!(old, now, "a data check is under the 1.7 hash");
        renamed.push((now, old.clone()));
        ev["schema_version"] = "1.5.0".into();
        ev["evidence_hash"] = old.into();
        std::fs::write(&path, serde_json::to_vec_pretty(&ev).unwrap()).unwrap();
    }
    let replace = |path: &Path, pairs: &[(String, String)]| {
        let mut text = std::fs::read_to_string(path).unwrap();
        for (from, to) in pairs {
            text = text
                .replace(from.as_str(), to)
                .replace(&from[..12], &to[..12]);
        }
        std::fs::write(path, text).unwrap();
    };
    let quoted = |p: &Path| {
        p.extension()
            .is_some_and(|x| ["json", "jsonl", "xml", "md", "html"].contains(&x.to_str().unwrap()))
            && p.file_name().is_none_or(|n| n != "evidence.json")
    };
    for path in files_under(out).into_iter().filter(|p| quoted(p)) {
        replace(&path, &renamed);
    }
    // Seal the run dir again, as the older version sealed it.
    let run = std::fs::read_dir(out.join("artifacts"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let sums_path = run.join("SHA256SUMS");
    let sums = std::fs::read_to_string(&sums_path).unwrap();
    let resealed: String = sums
        .lines()
        .map(|l| {
            let (_, file) = l.split_once("  ").unwrap();
            format!(
                "{}  {file}\n",
                sha256_hex(&std::fs::read(run.join(file)).unwrap())
            )
        })
        .collect();
    std::fs::write(&sums_path, &resealed).unwrap();
    replace(
        &run.join("test-result.intoto.json"),
        &[(sha256_hex(sums.as_bytes()), sha256_hex(resealed.as_bytes()))],
    );
}

#[test]
fn shards_written_before_evidence_1_6_with_data_checks_merge_and_verify() {
    let p = project(DATA_HARNESS);
    let o = run_into(&p, "harness.toml", "blessed", &["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    shard(&p, "shard-1", "count:1/2");
    shard(&p, "shard-2", "count:2/2");
    for s in ["shard-1", "shard-2"] {
        as_written_before_1_6(&p.path().join(s));
        let o = verify_evidence(&p.path().join(s));
        assert_eq!(o.status.code(), Some(0), "{s} as 1.5: {}", text(&o));
    }
    let o = merge(&p, &["shard-1", "shard-2"], "merged");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = verify_evidence(&p.path().join("merged"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}
