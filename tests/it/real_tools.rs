//! Real data tools judged right out of the box, through the real binary
//! and the real tools (`.ci/run` makes their virtualenvs): the README's
//! six-line harness, byte for byte, passes a healthy real Odibi project
//! and a healthy real dbt project twice and leaves the git work tree
//! clean; `examples/dbt/` is judged as declared with no preset named.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{copy_dir, text};
use serde_json::Value;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `bin` of the virtualenv `var` names ([`common::from_ci`]).
fn venv_bin(var: &str, test: &str) -> Option<PathBuf> {
    common::from_ci(var, ".ci/run sets it", test).map(|v| v.join("bin"))
}

/// The `n`th ```toml block of the README's six-line example section.
fn readme_block(n: usize) -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("## A six-line example")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README has its six-line example");
    section
        .split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_string())
        .nth(n)
        .unwrap_or_else(|| panic!("no toml block {n} in the six-line example"))
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `cargo golden` in `dir` with the tools of `bin` first on PATH, its
/// reports in `out`.
fn golden_in(dir: &Path, bin: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .current_dir(dir)
        .args(["golden", "--config", "harness.toml", "--out"])
        .arg(out)
        .env("PATH", common::path_with(bin))
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// A git repository holding the README's `block` as its harness.toml and
/// the example project `example` at `golden/<name>`, committed.
fn readme_repo(block: &str, example: &Path, name: &str) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("harness.toml"), block).unwrap();
    copy_dir(example, &repo.path().join("golden").join(name));
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "golden project"]);
    repo
}

/// Run the README's harness twice: each run passes, with the preset of the
/// tool chosen by the command, and the work tree stays clean.
fn passes_twice_leaving_git_clean(repo: &Path, bin: &Path, preset: &str) {
    for run in 1..=2 {
        let out = tempfile::tempdir().unwrap();
        let o = golden_in(repo, bin, out.path());
        assert_eq!(o.status.code(), Some(0), "run {run}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("preset `{preset}`")), "{err}");
        assert!(!err.contains("processes left running"), "{err}");
        assert_eq!(
            git(repo, &["status", "--porcelain", "--untracked-files=all"]),
            ""
        );
    }
}

#[test]
fn the_readmes_six_lines_pass_a_real_odibi_project_twice_leaving_git_clean() {
    let Some(bin) = venv_bin("CARGO_GOLDEN_ODIBI_VENV", "README with real odibi") else {
        return;
    };
    let block = readme_block(0);
    assert!(block.contains("runner = \"odibi run {path}\""), "{block}");
    let repo = readme_repo(
        &block,
        &repo().join("examples/odibi/healthy_etl"),
        "sales_daily_etl",
    );
    passes_twice_leaving_git_clean(repo.path(), &bin, "odibi");
}

#[test]
fn the_readmes_six_lines_pass_a_real_dbt_project_twice_leaving_git_clean() {
    let Some(bin) = venv_bin("CARGO_GOLDEN_DBT_VENV", "README with real dbt") else {
        return;
    };
    let block = readme_block(1);
    assert!(block.contains("runner = \"dbt build\""), "{block}");
    let repo = readme_repo(&block, &repo().join("examples/dbt/shop"), "shop");
    passes_twice_leaving_git_clean(repo.path(), &bin, "dbt");
}

fn issue_types(case: &Value) -> Vec<&str> {
    case["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect()
}

/// `examples/dbt/` run by real dbt with no preset named and no isolation
/// key: every case judged as declared (the run that selected nothing
/// FAILED with NOTHING_RAN, the warn-severity test a warning), no false
/// "processes left running", the healthy build's data snapshots and dbt
/// result kept, the evidence verified, and no example project written to.
#[test]
fn the_dbt_examples_judge_right_with_the_real_tool() {
    let Some(bin) = venv_bin("CARGO_GOLDEN_DBT_VENV", "dbt examples") else {
        return;
    };
    let examples = repo().join("examples/dbt");
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .args(["golden", "--jobs", "2", "--config"])
        .arg(examples.join("harness.toml"))
        .arg("--out")
        .arg(out.path())
        .env("PATH", common::path_with(&bin))
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("summary.json")).unwrap()).unwrap();
    let cases = summary["cases"].as_array().unwrap();
    let mut wrong = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let want = match name {
            "nothing_selected" => ("FAILED", vec!["NOTHING_RAN"]),
            _ => ("PASSED", vec![]),
        };
        let got = (case["result"].as_str().unwrap(), issue_types(case));
        if got != want {
            wrong.push(format!("{name}: {got:?} {}", case["issues"]));
        }
        let warnings = case["warnings"].to_string();
        if warnings.contains("processes left running") {
            wrong.push(format!("{name}: {warnings}"));
        }
    }
    assert!(wrong.is_empty(), "misjudged:\n{}", wrong.join("\n"));
    let case = |n: &str| cases.iter().find(|c| c["name"] == n).unwrap();
    assert!(
        case("test_warn")["warnings"].to_string().contains("WARN=1"),
        "{}",
        case("test_warn")
    );
    let shop = case("shop");
    let evidence: Value = serde_json::from_slice(
        &std::fs::read(
            out.path()
                .join(shop["artifacts"]["evidence"].as_str().unwrap()),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(evidence["structured_result"]["format"], "dbt", "{evidence}");
    assert_eq!(evidence["structured_result"]["failed"], false, "{evidence}");
    let data: Vec<&str> = shop["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(data, ["matched", "matched"], "{shop}");
    let v = common::verify_evidence(out.path());
    assert!(v.status.success(), "{}", text(&v));
    for project in std::fs::read_dir(&examples).unwrap() {
        let project = project.unwrap().path();
        for written in ["target", "logs", "shop.duckdb", "out/order_totals.parquet"] {
            assert!(
                !project.join(written).exists(),
                "{} was written to",
                project.display()
            );
        }
    }
}
