//! Both front doors on scratch crates that depend on this crate by path:
//! `cargo golden init`, `cargo test --test golden`, `cargo nextest run`,
//! and `cargo golden` as a cargo subcommand.
//!
//! Every test has its own scratch space and target directory, so the
//! tests run in parallel: the reports under `<target>/golden` are each
//! test's own. The scratch crates share one build directory (cargo's
//! `build.build-dir`, where the intermediate files go) and this
//! repository's Cargo.lock, so the dependencies compile once per test run;
//! cargo's lock on the build directory serialises the builds themselves.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::text;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The build directory every scratch crate shares: the target directory
/// this test binary was built in, so the dependencies it compiled for the
/// suite serve the scratch crates too. `cargo test` holds no lock on it
/// while the tests run.
fn scratch_build() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap()
}

/// One test's scratch space: a temporary directory for its crates, with
/// their target directory inside it.
struct Scratch {
    tmp: tempfile::TempDir,
}

impl Scratch {
    /// The scratch space, with a cargo configuration that gives its crates
    /// this repository's dev profile overrides: the dependencies then
    /// compile as they did for this suite and are shared with it, rather
    /// than built again (a crate optimised here, such as memchr, would
    /// otherwise change every crate that depends on it).
    fn new() -> Scratch {
        let tmp = tempfile::tempdir().unwrap();
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
        let packages = manifest["profile"]["dev"]["package"].clone();
        let mut dev = toml::Table::new();
        dev.insert("package".into(), packages);
        let mut profile = toml::Table::new();
        profile.insert("dev".into(), dev.into());
        let mut config = toml::Table::new();
        config.insert("profile".into(), profile.into());
        std::fs::create_dir(tmp.path().join(".cargo")).unwrap();
        std::fs::write(
            tmp.path().join(".cargo/config.toml"),
            toml::to_string(&config).unwrap(),
        )
        .unwrap();
        Scratch { tmp }
    }

    fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// This test's target directory (`CARGO_TARGET_DIR`).
    fn target(&self) -> PathBuf {
        self.path().join("target")
    }

    /// Where the harness writes its reports under `cargo test`:
    /// `<target>/golden`.
    fn out_dir(&self) -> PathBuf {
        self.target().join("golden")
    }

    fn cargo(&self, dir: &Path, args: &[&str]) -> Output {
        self.cargo_cmd(dir, args).output().unwrap()
    }

    /// `cargo` as a GitHub Actions step runs it.
    fn cargo_in_actions(&self, dir: &Path, args: &[&str]) -> Output {
        self.cargo_cmd(dir, args)
            .env("GITHUB_ACTIONS", "true")
            .output()
            .unwrap()
    }

    /// `cargo <args>` in `dir` with this test's target directory and the
    /// shared build directory.
    fn cargo_cmd(&self, dir: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO"));
        c.current_dir(dir)
            .args(args)
            .env("CARGO_TARGET_DIR", self.target())
            .env("CARGO_BUILD_BUILD_DIR", scratch_build())
            // Run under `cargo nextest`, this suite must not make the
            // scratch crates' harness think it runs under nextest too.
            .env_remove("NEXTEST")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("RUSTFLAGS")
            .env_remove("GITHUB_ACTIONS")
            // No debug info: what this suite's own profile gives the
            // dependencies, so the scratch crates share them, and this
            // crate compiles and links faster in the scratch crates'
            // two feature sets.
            .env("CARGO_PROFILE_DEV_DEBUG", "false")
            .env("CARGO_TERM_COLOR", "never");
        c
    }
}

/// `cargo new` a library crate, with this repo's lock file for its deps.
///
/// Every scratch crate has a package name of its own: in the shared build
/// directory cargo names a crate's artifacts after its name and version,
/// not its path, so two tests building crates of one name at once would
/// overwrite each other's test binary.
fn new_crate(parent: &Path, name: &str) -> PathBuf {
    let o = Command::new(env!("CARGO"))
        .current_dir(parent)
        .args(["new", "--lib", "--vcs", "none", name])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let dir = parent.join(name);
    std::fs::copy(repo().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    dir
}

/// A virtual workspace at `root` with one library member in `etl`, the
/// package `package`, and this repo's lock file; returns the root and the
/// member.
fn new_workspace(root: &Path, package: &str) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"etl\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    std::fs::copy(repo().join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    let o = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["new", "--lib", "--vcs", "none", "--name", package, "etl"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    (root.to_path_buf(), root.join("etl"))
}

fn golden_bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-golden"));
    c.env_remove("GITHUB_ACTIONS").env("NO_COLOR", "1");
    c
}

/// The test-only dependencies turn on no feature of a crate this one
/// depends on (what Cargo.toml's unused `getrandom` and `once_cell` are
/// for): where they did, that crate and every crate between it and this
/// one compiled twice in a cold run of this suite, once for the suite and
/// once for the scratch crates that depend on this one.
#[test]
fn test_only_dependencies_change_no_feature_of_a_shared_crate() {
    let tree = |edges: &str| -> std::collections::BTreeMap<String, String> {
        let o = Command::new(env!("CARGO"))
            .current_dir(repo())
            .args([
                "tree",
                "--locked",
                "--offline",
                "--prefix",
                "none",
                "-e",
                edges,
            ])
            .args(["-f", "{p}|{f}"])
            .output()
            .unwrap();
        assert!(o.status.success(), "cargo tree: {}", text(&o));
        String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| {
                let (package, features) = l.trim_end_matches(" (*)").split_once('|')?;
                // `name vX.Y.Z`, without a path source's `(path)`.
                let package = package.split(" (").next()?;
                Some((package.to_string(), features.to_string()))
            })
            .collect()
    };
    let without = tree("normal,build");
    let with = tree("normal,build,dev");
    let changed: Vec<String> = with
        .iter()
        .filter_map(|(package, features)| {
            let before = without.get(package)?;
            (before != features).then(|| format!("{package}: [{before}] -> [{features}]"))
        })
        .collect();
    assert!(without.len() > 100, "{without:?}");
    assert!(
        changed.is_empty(),
        "the test-only dependencies change these crates' features; turn the \
         same features on in Cargo.toml's [dependencies]:\n{}",
        changed.join("\n")
    );
}

#[test]
fn init_scaffold_passes_under_cargo_test_and_as_a_cargo_subcommand() {
    let tmp = Scratch::new();
    let dir = new_crate(tmp.path(), "scaffold");
    let manifest = dir.join("Cargo.toml");
    let original = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("# keep this comment\n{original}")).unwrap();

    let o = golden_bin()
        .current_dir(&dir)
        .args(["golden", "init", "--path"])
        .arg(repo())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let edited = std::fs::read_to_string(&manifest).unwrap();
    assert!(edited.starts_with("# keep this comment\n"), "{edited}");
    assert!(
        edited.contains("[[test]]") && edited.contains("harness = false"),
        "{edited}"
    );

    let again = golden_bin()
        .current_dir(&dir)
        .args(["golden", "init"])
        .output()
        .unwrap();
    assert_eq!(
        again.status.code(),
        Some(2),
        "second init: {}",
        text(&again)
    );
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("harness.toml"),
        "{}",
        text(&again)
    );

    let o = tmp.cargo(&dir, &["test", "--test", "golden"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("test result: ok. 2 passed; 0 failed"),
        "{}",
        text(&o)
    );

    // `cargo golden` finds `cargo-golden` on PATH, as an installed plugin.
    let path = plugin_path();
    // The reports `cargo test` left are not taken for the plugin's.
    std::fs::remove_file(tmp.out_dir().join("junit.xml")).unwrap();
    let o = Command::new(env!("CARGO"))
        .current_dir(&dir)
        .args(["golden"])
        .env("PATH", path)
        .env("CARGO_TARGET_DIR", tmp.target())
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(tmp.out_dir().join("junit.xml").is_file());
}

/// `cargo golden` as an installed plugin: `cargo-golden` first on PATH.
fn cargo_golden_plugin(tmp: &Scratch, dir: &Path, args: &[&str]) -> Output {
    tmp.cargo_cmd(dir, args)
        .env("PATH", plugin_path())
        .output()
        .unwrap()
}

/// This process's PATH with the built `cargo-golden`'s directory first,
/// where cargo finds it as an installed plugin.
fn plugin_path() -> std::ffi::OsString {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .parent()
        .unwrap();
    common::path_with(bin_dir)
}

#[test]
fn init_in_a_workspace_member_passes_from_the_member_and_from_the_workflow() {
    let tmp = Scratch::new();
    let (root, member) = new_workspace(&tmp.path().join("repo"), "member-init");
    let git = Command::new("git")
        .args(["init", "-q"])
        .arg(&root)
        .status()
        .unwrap();
    assert!(git.success());

    let o = golden_bin()
        .current_dir(&member)
        .args(["golden", "init", "--path"])
        .arg(repo())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!member.join(".github").exists());
    let workflow = std::fs::read_to_string(root.join(".github/workflows/golden.yml")).unwrap();
    let step = "cargo golden --config etl/harness.toml --manifest-path etl/Cargo.toml";
    assert!(workflow.contains(step), "{workflow}");

    // The workflow's own step, as GitHub runs it: from the repository root.
    let args: Vec<&str> = step.split(' ').skip(1).collect();
    let o = cargo_golden_plugin(&tmp, &root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = cargo_golden_plugin(&tmp, &member, &["golden"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let o = tmp.cargo(&member, &["test", "--test", "golden"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("test result: ok. 2 passed; 0 failed"),
        "{}",
        text(&o)
    );
    // JUnit consumers resolve testcase@file against the repository root:
    // the same name under `cargo test` (run in the member) as from the root.
    let junit = std::fs::read_to_string(tmp.out_dir().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let files: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter_map(|n| n.attribute("file"))
        .collect();
    assert!(!files.is_empty(), "{junit}");
    assert!(files.iter().all(|f| *f == "etl/harness.toml"), "{junit}");
}

const MIXED: &str = r#"
[harness]
name = "mixed"

[[verify]]
name = "passes"
command = "echo fine"

[[verify]]
name = "validation at exit 0"
command = "echo \"1 validation error for ProjectConfig token=$API_TOKEN\"; exit 0"
env = { API_TOKEN = "ghp_frontdoor_secret1" }

[[verify]]
name = "expected failure"
command = "echo 'Job aborted'"
expected = "specific_error:Job aborted"
"#;

fn mixed_crate(parent: &Path, name: &str) -> PathBuf {
    harness_crate(parent, name, MIXED)
}

/// The default features but `duckdb` and `postgres`: the scratch crates build in a
/// directory of their own, where DuckDB's C++ would compile again for
/// minutes (the Postgres client's crates for seconds), and no case of
/// theirs reads a database table.
const FULL: &str =
    r#"default-features = false, features = ["cli", "parquet", "sign", "sqlite", "yaml"]"#;

/// A crate with `harness_toml` and the one-line libtest harness.
fn harness_crate(parent: &Path, name: &str, harness_toml: &str) -> PathBuf {
    let dir = new_crate(parent, name);
    std::fs::write(dir.join("harness.toml"), harness_toml).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(
        dir.join("tests/golden.rs"),
        "fn main() {\n    cargo_golden::harness::main()\n}\n",
    )
    .unwrap();
    let mut m = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    m.push_str(&format!(
        "\n[dev-dependencies]\ncargo-golden = {{ path = {:?}, {FULL} }}\n\n[[test]]\nname = \"golden\"\nharness = false\n",
        repo().display().to_string()
    ));
    std::fs::write(dir.join("Cargo.toml"), m).unwrap();
    dir
}

#[test]
fn cargo_test_counts_passes_and_failures_and_writes_reports() {
    let tmp = Scratch::new();
    let dir = mixed_crate(tmp.path(), "mixed-counts");
    let out_dir = tmp.out_dir();
    let _ = std::fs::remove_file(out_dir.join("summary.json"));

    let o = tmp.cargo_in_actions(&dir, &["test", "--test", "golden"]);
    assert_eq!(o.status.code(), Some(101), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The secret is registered with GitHub before the test output, and
    // shown nowhere else.
    let (masks, rest) = stdout
        .split_once("\nrunning 3 tests")
        .unwrap_or_else(|| panic!("{}", text(&o)));
    assert!(
        masks
            .lines()
            .any(|l| l == "::add-mask::ghp_frontdoor_secret1"),
        "{}",
        text(&o)
    );
    assert!(!rest.contains("ghp_frontdoor_secret1"), "{}", text(&o));
    assert!(rest.contains("token=[REDACTED:API_TOKEN]"), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("ghp_frontdoor_secret1"));
    for f in walkdir::WalkDir::new(&out_dir).into_iter().flatten() {
        if f.file_type().is_file() {
            let bytes = std::fs::read(f.path()).unwrap();
            assert!(
                memchr::memmem::find(&bytes, b"ghp_frontdoor_secret1").is_none(),
                "secret in {}",
                f.path().display()
            );
        }
    }
    assert!(
        stdout.contains("test result: FAILED. 2 passed; 1 failed"),
        "{}",
        text(&o)
    );
    assert!(
        stdout.contains("VALIDATION_FAILED"),
        "failure details missing: {}",
        text(&o)
    );

    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["counts"]["passed"], 2, "{summary}");
    assert_eq!(summary["counts"]["failed"], 1, "{summary}");
    let names: Vec<&str> = summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["passes", "validation at exit 0", "expected failure"]
    );

    // Listing prints nothing but the list, even in GitHub Actions.
    let o = tmp.cargo_in_actions(
        &dir,
        &[
            "test", "--test", "golden", "--", "--list", "--format", "terse",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let listed: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        listed,
        vec![
            "passes: test",
            "validation at exit 0: test",
            "expected failure: test"
        ]
    );

    let o = tmp.cargo(
        &dir,
        &["test", "--test", "golden", "--", "--exact", "passes"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("1 passed; 0 failed; 0 ignored; 0 measured; 2 filtered out")
    );

    // The harness file's JUnit family holds under cargo test too.
    std::fs::write(
        dir.join("harness.toml"),
        MIXED.replace("name = \"mixed\"", "name = \"mixed\"\njunit = \"strict\""),
    )
    .unwrap();
    let o = tmp.cargo(
        &dir,
        &["test", "--test", "golden", "--", "--exact", "passes"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let xml = std::fs::read_to_string(out_dir.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(
        common::xunit::violations(&doc),
        Vec::<String>::new(),
        "{xml}"
    );
    assert!(
        doc.descendants().any(|n| n.has_tag_name("property")
            && n.attribute("name") == Some("case.passes.line")
            && n.attribute("value") == Some("6")),
        "{xml}"
    );
    let summary = std::fs::read(out_dir.join("summary.json")).unwrap();
    let run_id = serde_json::from_slice::<serde_json::Value>(&summary).unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        out_dir
            .join("artifacts")
            .join(&run_id)
            .join("SHA256SUMS")
            .is_file(),
        "a cargo test run is sealed like any other"
    );

    // libtest semantics: a filter that selects nothing passes (exit 0), and
    // the reports of the last run that ran something stay as they were.
    let o = tmp.cargo(&dir, &["test", "--test", "golden", "--", "no_such_case"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out"),
        "{}",
        text(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no case selected by the filters"),
        "{}",
        text(&o)
    );
    assert_eq!(
        std::fs::read(out_dir.join("summary.json")).unwrap(),
        summary
    );
}

/// `harness_crate` with this crate as a dev-dependency without its
/// default features: what a crate that only runs `cargo test` builds.
fn lean_crate(parent: &Path, name: &str, harness_toml: &str) -> PathBuf {
    let dir = harness_crate(parent, name, harness_toml);
    let manifest = dir.join("Cargo.toml");
    let m = std::fs::read_to_string(&manifest).unwrap();
    let lean = m.replacen(FULL, "default-features = false", 1);
    assert_ne!(lean, m, "no dev-dependency line in {m}");
    std::fs::write(&manifest, lean).unwrap();
    dir
}

/// The lean feature set (no `cli`, `parquet`, `sign` or `yaml`) runs the
/// same cases to the same results as `cargo golden` with every feature,
/// and a feature it leaves out is named, not skipped, when it is wanted.
#[test]
fn without_default_features_cargo_test_runs_the_same_cases_to_the_same_results() {
    let tmp = Scratch::new();
    let dir = lean_crate(tmp.path(), "lean", MIXED);

    let full_out = tmp.path().join("out");
    let o = golden_bin()
        .current_dir(&dir)
        .args(["golden", "--out"])
        .arg(&full_out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    let out_dir = tmp.out_dir();
    let _ = std::fs::remove_file(out_dir.join("summary.json"));
    let o = tmp.cargo(&dir, &["test", "--test", "golden"]);
    assert_eq!(o.status.code(), Some(101), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("test result: FAILED. 2 passed; 1 failed"),
        "{}",
        text(&o)
    );
    let (full, lean) = (summary_at(&full_out), summary_at(&out_dir));
    assert_eq!(results(&lean), results(&full));
    assert_eq!(lean["counts"], full["counts"]);
    let testcases = |out: &Path| {
        let xml = std::fs::read_to_string(out.join("junit.xml")).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap();
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .map(|n| {
                let failed = n.children().any(|c| c.has_tag_name("failure"));
                (n.attribute("name").unwrap_or_default().to_string(), failed)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(testcases(&out_dir), testcases(&full_out));

    // A signing key offered to a build that cannot sign is refused.
    let o = tmp
        .cargo_cmd(&dir, &["test", "--test", "golden"])
        .env(
            "CARGO_GOLDEN_SIGNING_KEY",
            "untrusted comment: k\nRWQAAAAA\n",
        )
        .output()
        .unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("`sign` feature"), "{}", text(&o));

    // So is a Parquet output: the case says what is missing.
    std::fs::write(
        dir.join("harness.toml"),
        "[[verify]]\nname = \"table\"\ncommand = \"printf PAR1 > t.parquet\"\noutputs = [{ path = \"t.parquet\" }]\n",
    )
    .unwrap();
    let o = tmp.cargo(&dir, &["test", "--test", "golden"]);
    assert_eq!(o.status.code(), Some(101), "{}", text(&o));
    assert!(text(&o).contains("`parquet` feature"), "{}", text(&o));
}

const BLESSED: &str = r#"
[harness]
name = "blessed"
gate = "baseline"

[[verify]]
name = "greets"
command = "echo hello"
snapshot = ["stdout"]

[[verify]]
name = "known bug"
command = "echo 'Job aborted'"
"#;

#[test]
fn cargo_golden_bless_under_cargo_test_writes_snapshots_and_baseline() {
    let tmp = Scratch::new();
    let dir = harness_crate(tmp.path(), "blessed", BLESSED);
    let test = ["test", "--test", "golden"];

    // No snapshot, no baseline: the snapshot is missing, failures are new.
    let o = tmp.cargo(&dir, &test);
    assert_eq!(o.status.code(), Some(101), "{}", text(&o));
    assert!(text(&o).contains("SNAPSHOT_MISSING"), "{}", text(&o));

    let o = tmp
        .cargo_cmd(&dir, &test)
        .env("CARGO_GOLDEN", "bless")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("snapshots/greets.stdout")).unwrap(),
        "hello\n"
    );
    let baseline: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("golden-baseline.json")).unwrap()).unwrap();
    let results: Vec<(&str, &str)> = baseline["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["result"].as_str().unwrap()))
        .collect();
    assert_eq!(results, [("greets", "PASSED"), ("known bug", "FAILED")]);

    // Only a known failure is left: libtest still reports it, and the
    // exit code follows the baseline gate.
    let o = tmp.cargo(&dir, &test);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("1 passed; 1 failed"),
        "{}",
        text(&o)
    );

    // A misspelt mode never runs as an ordinary test.
    let o = tmp
        .cargo_cmd(&dir, &test)
        .env("CARGO_GOLDEN", "blss")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(101), "{}", text(&o));
    assert!(text(&o).contains("is not a mode"), "{}", text(&o));

    // A filtered bless names what it selected before rewriting anything;
    // libtest's `--exact` narrows it, as `cargo golden --bless --exact`.
    let o = tmp
        .cargo_cmd(&dir, &["test", "--test", "golden", "--", "gree"])
        .env("CARGO_GOLDEN", "bless")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("Blessing 1 case(s) the filters select: greets")
            && text(&o).contains("`--exact` blesses only the cases named"),
        "{}",
        text(&o)
    );
    let o = tmp
        .cargo_cmd(
            &dir,
            &["test", "--test", "golden", "--", "--exact", "greets"],
        )
        .env("CARGO_GOLDEN", "bless")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("Blessing 1 case(s) the filters select: greets\n"),
        "{}",
        text(&o)
    );
}

#[test]
fn nextest_runs_each_case_in_its_own_process() {
    let has_nextest = Command::new(env!("CARGO"))
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_nextest {
        eprintln!(
            "SKIPPED: cargo-nextest is not installed (`cargo install --locked cargo-nextest`)"
        );
        return;
    }
    let tmp = Scratch::new();
    let dir = mixed_crate(tmp.path(), "mixed-nextest");
    let o = tmp.cargo(
        &dir,
        &["nextest", "run", "--test", "golden", "--no-fail-fast"],
    );
    let all = text(&o);
    assert_eq!(o.status.code(), Some(100), "{all}");
    assert!(all.contains("3 tests run: 2 passed, 1 failed"), "{all}");
    assert!(all.contains("validation at exit 0"), "{all}");
    // Every case left its evidence in one shared run directory.
    let runs: Vec<PathBuf> = std::fs::read_dir(tmp.out_dir().join("artifacts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("nextest-")
        })
        .collect();
    let newest = runs
        .iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .unwrap();
    let cases = std::fs::read_dir(newest.join("execution")).unwrap().count();
    assert_eq!(cases, 3, "{}", newest.display());
}

/// Environment variable naming the log the scheduling cases append to.
const SCHED_LOG: &str = "GOLDEN_SCHED_LOG";

/// `start <name>`, then `wait`, then `end <name>`, appended to the log.
fn marked(name: &str, wait: &str) -> String {
    format!(
        "echo 'start {name}' >> \"${SCHED_LOG}\"; {wait}; echo 'end {name}' >> \"${SCHED_LOG}\""
    )
}

/// Wait (at most 10 s) until `other` has started: proves two cases run at
/// once without timing them.
fn until_started(other: &str) -> String {
    format!(
        "i=0; until grep -qx 'start {other}' \"${SCHED_LOG}\" || [ $i -ge 200 ]; do sleep 0.05; i=$((i+1)); done"
    )
}

/// Seven cases; `solo`, fourth, is exclusive. `one` and `two` wait for each
/// other, so they can only both end early when they overlap.
fn scheduling_harness() -> String {
    let mut toml = String::from("[harness]\nname = \"sched\"\n");
    let cases = [
        ("one", until_started("two")),
        ("two", until_started("one")),
        ("three", "sleep 0.3".to_string()),
        ("solo", "sleep 0.5".to_string()),
        ("four", "sleep 0.3".to_string()),
        ("five", "sleep 0.3".to_string()),
        ("six", "sleep 0.3".to_string()),
    ];
    for (name, wait) in cases {
        // A TOML literal string: the shell text goes in as written.
        toml.push_str(&format!(
            "\n[[verify]]\nname = \"{name}\"\ncommand = '''{}'''\n",
            marked(name, &wait)
        ));
        if name == "solo" {
            toml.push_str("exclusive = true\n");
        }
    }
    toml
}

/// Check from the marks in `log` that `solo` overlapped no other case, and
/// that `one` and `two` did overlap (the run really was parallel).
fn assert_exclusive_ran_alone(log: &Path, front_door: &str) {
    let events = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{front_door}: {e}"));
    let lines: Vec<&str> = events.lines().collect();
    assert_eq!(lines.len(), 14, "{front_door}:\n{events}");
    let at = |mark: &str| {
        lines
            .iter()
            .position(|l| *l == mark)
            .unwrap_or_else(|| panic!("{front_door}: no `{mark}` in\n{events}"))
    };
    let (start, end) = (at("start solo"), at("end solo"));
    assert_eq!(
        end,
        start + 1,
        "{front_door}: another case started or ended while `solo` ran:\n{events}"
    );
    for line in &lines[..start] {
        if let Some(name) = line.strip_prefix("start ") {
            assert!(
                at(&format!("end {name}")) < start,
                "{front_door}: `{name}` was still running when `solo` started:\n{events}"
            );
        }
    }
    assert!(
        at("start two") < at("end one") && at("start one") < at("end two"),
        "{front_door}: `one` and `two` did not overlap, the run was not parallel:\n{events}"
    );
}

#[test]
fn both_front_doors_run_an_exclusive_case_alone() {
    let tmp = Scratch::new();
    let dir = harness_crate(tmp.path(), "sched", &scheduling_harness());

    let log = tmp.path().join("cargo-golden.log");
    let o = golden_bin()
        .current_dir(&dir)
        .args(["golden", "--jobs", "4", "--out"])
        .arg(tmp.path().join("out"))
        .env(SCHED_LOG, &log)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_exclusive_ran_alone(&log, "cargo golden --jobs 4");

    let log = tmp.path().join("cargo-test.log");
    let o = tmp
        .cargo_cmd(
            &dir,
            &["test", "--test", "golden", "--", "--test-threads", "4"],
        )
        .env(SCHED_LOG, &log)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("test result: ok. 7 passed"),
        "{}",
        text(&o)
    );
    assert_exclusive_ran_alone(&log, "cargo test -- --test-threads 4");
}

/// Under `cargo test` a case waits for the cases it is `after` too, even
/// one declared after it, with one test thread (libtest takes the trials
/// in the run's order) or several.
#[test]
fn cargo_test_runs_a_case_after_one_declared_later() {
    let tmp = Scratch::new();
    let toml = format!(
        "[[verify]]\nname = \"reads\"\ncommand = '''grep -q written \"${SCHED_LOG}\"'''\nafter = [\"writes\"]\n\n\
         [[verify]]\nname = \"writes\"\ncommand = '''sleep 0.5; echo written > \"${SCHED_LOG}\"'''\n"
    );
    let dir = harness_crate(tmp.path(), "after", &toml);
    for threads in ["1", "2"] {
        let log = tmp.path().join(format!("shared-{threads}.txt"));
        let o = tmp
            .cargo_cmd(
                &dir,
                &["test", "--test", "golden", "--", "--test-threads", threads],
            )
            .env(SCHED_LOG, &log)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("test result: ok. 2 passed"),
            "{}",
            text(&o)
        );
    }
}

#[test]
fn cargo_test_is_refused_while_cargo_golden_holds_the_out_dir() {
    let tmp = Scratch::new();
    let dir = mixed_crate(tmp.path(), "mixed-held");
    // Compile first, so the refusal below is the only thing that happens.
    let o = tmp.cargo(&dir, &["test", "--test", "golden", "--no-run"]);
    assert!(o.status.success(), "{}", text(&o));
    let out_dir = tmp.out_dir();
    std::fs::write(
        dir.join("hold.toml"),
        "[[verify]]\nname = \"holds\"\ncommand = \"while ! test -e release; do sleep 0.05; done\"\n",
    )
    .unwrap();
    let mut holder = golden_bin()
        .current_dir(&dir)
        .args(["golden", "--config", "hold.toml", "--out"])
        .arg(&out_dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let held = format!("pid {}", holder.id());
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(out_dir.join(".lock.holder")).is_ok_and(|t| t.contains(&held)) {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            // Let the holder go: it waits for `release` forever.
            std::fs::write(dir.join("release"), "").unwrap();
            let _ = holder.wait();
            panic!("the holder never took the lock");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }

    let o = tmp.cargo(&dir, &["test", "--test", "golden"]);
    std::fs::write(dir.join("release"), "").unwrap();
    let holder_status = holder.wait().unwrap();
    let all = text(&o);
    assert_ne!(o.status.code(), Some(0), "{all}");
    assert!(all.contains("in use by another run"), "{all}");
    assert!(all.contains(&held), "{all}");
    assert_eq!(holder_status.code(), Some(0));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap();
    let names: Vec<&str> = summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["holds"], "the refused run's cases got in");
}

const IGNORING: &str = r#"
[harness]
name = "ignoring"

[[verify]]
name = "needs db"
command = "echo ran-db"
ignored = "needs a database"

[[verify]]
name = "fast"
command = "echo ran-fast"
"#;

fn summary_at(out_dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out_dir.join("summary.json")).unwrap()).unwrap()
}

/// `(result, reason)` of each case of a summary, by name.
fn results(summary: &serde_json::Value) -> Vec<(String, String, String)> {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("name"), s("result"), s("reason"))
        })
        .collect()
}

/// The `<skipped>` message of the JUnit testcase `name`, if it has one.
fn junit_skipped(out_dir: &Path, name: &str) -> Option<String> {
    let xml = std::fs::read_to_string(out_dir.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
        .unwrap_or_else(|| panic!("no testcase {name}: {xml}"));
    case.children()
        .find(|n| n.has_tag_name("skipped"))
        .map(|n| n.attribute("message").unwrap_or_default().to_string())
}

#[test]
fn cargo_test_reports_an_ignored_case_with_its_reason_and_runs_it_on_request() {
    let tmp = Scratch::new();
    let dir = harness_crate(tmp.path(), "ignoring", IGNORING);
    let out_dir = tmp.out_dir();
    let row = |name: &str, result: &str, reason: &str| {
        (name.to_string(), result.to_string(), reason.to_string())
    };

    let o = tmp.cargo(&dir, &["test", "--test", "golden"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("test needs db ... ignored (needs a database)"),
        "{}",
        text(&o)
    );
    assert!(
        stdout.contains("1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out"),
        "{}",
        text(&o)
    );
    // The reports agree with libtest: skipped, with the reason.
    let summary = summary_at(&out_dir);
    assert_eq!(
        results(&summary),
        vec![
            row("needs db", "SKIPPED", "ignored: needs a database"),
            row("fast", "PASSED", ""),
        ]
    );
    assert_eq!(summary["counts"]["skipped"], 1, "{summary}");
    let skipped = junit_skipped(&out_dir, "needs db").expect("a <skipped> element");
    assert!(skipped.contains("needs a database"), "{skipped}");
    assert_eq!(junit_skipped(&out_dir, "fast"), None);

    let o = tmp.cargo(&dir, &["test", "--test", "golden", "--", "--ignored"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("test needs db ... ok"), "{}", text(&o));
    assert!(
        stdout.contains("1 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out"),
        "{}",
        text(&o)
    );
    let summary = summary_at(&out_dir);
    assert_eq!(results(&summary)[0], row("needs db", "PASSED", ""));
    assert_eq!(results(&summary)[1].1, "SKIPPED", "{summary}");
    assert_eq!(junit_skipped(&out_dir, "needs db"), None);
    let run_dir = out_dir
        .join("artifacts")
        .join(summary["run_id"].as_str().unwrap());
    let log = std::fs::read_to_string(run_dir.join("execution/001-needs_db/stdout.log")).unwrap();
    assert_eq!(log, "ran-db\n");

    let o = tmp.cargo(
        &dir,
        &["test", "--test", "golden", "--", "--include-ignored"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"),
        "{}",
        text(&o)
    );
    let summary = summary_at(&out_dir);
    assert_eq!(
        results(&summary),
        vec![row("needs db", "PASSED", ""), row("fast", "PASSED", "")]
    );

    // libtest semantics: selecting only ignored cases passes (exit 0) and
    // says so; nothing ran, so the last reports stay as they were.
    let before = std::fs::read(out_dir.join("summary.json")).unwrap();
    let o = tmp.cargo(&dir, &["test", "--test", "golden", "--", "needs"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("0 passed; 0 failed; 1 ignored; 0 measured; 1 filtered out"),
        "{}",
        text(&o)
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("the 1 selected case(s) are all ignored") && stderr.contains("--ignored"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read(out_dir.join("summary.json")).unwrap(), before);
}

/// `cargo install --path` this repository into `root`, as a new user does
/// from a checkout: offline, a debug build in the shared build directory
/// so the dependencies compile once.
fn install_into(tmp: &Scratch, root: &Path) -> PathBuf {
    let mut install = tmp.cargo_cmd(repo(), &["install", "--path"]);
    // The profile this suite was built with (this repository's own, as CI
    // may adjust it): the binary and library it built serve the install.
    match std::env::var_os("CARGO_PROFILE_DEV_DEBUG") {
        Some(debug) => install.env("CARGO_PROFILE_DEV_DEBUG", debug),
        None => install.env_remove("CARGO_PROFILE_DEV_DEBUG"),
    };
    let o = install
        .arg(repo())
        .args(["--debug", "--offline", "--locked", "--root"])
        .arg(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "cargo install: {}", text(&o));
    root.join("bin")
}

/// `cargo <args>` in `dir` with the installed binary first on PATH.
fn with_installed(tmp: &Scratch, bin: &Path, dir: &Path, args: &[&str]) -> Output {
    let path = common::path_with(bin);
    let o = tmp.cargo_cmd(dir, args).env("PATH", path).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "`cargo {}` in {}: {}",
        args.join(" "),
        dir.display(),
        text(&o)
    );
    o
}

/// `cargo nextest run` passes, or says why it was not run; under
/// `CI=true` (where .ci/run installs it) it must be there.
fn nextest_passes(tmp: &Scratch, bin: &Path, dir: &Path) {
    let has_nextest = Command::new(env!("CARGO"))
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_nextest {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "cargo-nextest is missing under CI"
        );
        eprintln!("SKIPPED `cargo nextest run`: cargo-nextest is not installed");
        return;
    }
    with_installed(tmp, bin, dir, &["nextest", "run"]);
}

/// Issue 26, items 1 and 2: the first hour as written. A binary installed
/// with `cargo install --path`, `init` with no `--path` (it reads how the
/// binary was installed and writes that dependency), then `cargo golden`,
/// `cargo test --test golden` and `cargo nextest run` all pass, in a
/// fresh crate, from a workspace member and from the workspace root.
#[test]
fn the_first_hour_passes_with_an_installed_binary_and_a_default_init() {
    let tmp = Scratch::new();
    let bin = install_into(&tmp, &tmp.path().join("installed"));

    // A fresh crate.
    let dir = new_crate(tmp.path(), "fresh");
    let o = with_installed(&tmp, &bin, &dir, &["golden", "init"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        out.contains("dependency: from the checkout") && out.contains("installed from"),
        "init says which source it chose and why: {out}"
    );
    assert!(
        out.contains("checked: the dev-dependency resolves"),
        "{}",
        text(&o)
    );
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()).unwrap();
    let dep = &manifest["dev-dependencies"]["cargo-golden"];
    let path = dep["path"].as_str().expect("a path dependency");
    assert_eq!(
        std::fs::canonicalize(dir.join(path)).unwrap(),
        std::fs::canonicalize(repo()).unwrap()
    );
    with_installed(&tmp, &bin, &dir, &["golden"]);
    with_installed(&tmp, &bin, &dir, &["test", "--test", "golden"]);
    nextest_passes(&tmp, &bin, &dir);

    // A workspace member, then the workspace root.
    let (root, member) = new_workspace(&tmp.path().join("ws"), "member-first-hour");
    with_installed(&tmp, &bin, &member, &["golden", "init"]);
    for dir in [&member, &root] {
        with_installed(&tmp, &bin, dir, &["golden"]);
        with_installed(&tmp, &bin, dir, &["test", "--test", "golden"]);
        nextest_passes(&tmp, &bin, dir);
    }
    let o = with_installed(&tmp, &bin, &root, &["golden"]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("Using etl/harness.toml"),
        "{}",
        text(&o)
    );
}
