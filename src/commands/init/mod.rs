//! `cargo golden init`: set a cargo package up for golden testing (outside
//! one, [`init_standalone`] sets a directory up for the `golden` command).
//!
//! Writes `harness.toml` (a verify command that builds the package and one
//! example golden project), the example project under `golden/example/`
//! with the snapshot of its output (`snapshots/example.stdout`),
//! `tests/golden.rs` with the harness `main`, and a GitHub Actions
//! workflow; then registers the `golden` test target (`harness = false`)
//! and the `cargo-golden` dev-dependency in `Cargo.toml`, edited in place
//! so its formatting and comments survive.
//!
//! Everything is checked before anything is written: if a file init would
//! write already exists, nothing is written and every such file is listed,
//! unless [`InitOptions::force`] is set. `Cargo.toml` is never replaced,
//! only completed, so running init again adds nothing twice.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use toml_edit::{ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value};

pub(crate) mod command;
mod standalone;
pub(crate) use standalone::init_standalone;

/// The harness file, relative to the package directory.
pub(crate) const HARNESS_FILE: &str = "harness.toml";
/// The libtest-mimic test target, relative to the package directory.
pub(crate) const TEST_FILE: &str = "tests/golden.rs";
/// The GitHub Actions workflow, relative to the package directory.
pub(crate) const WORKFLOW_FILE: &str = ".github/workflows/golden.yml";
/// The JSON Schema of harness.toml, named by its `#:schema` line (taplo,
/// Even Better TOML).
pub(crate) const SCHEMA_FILE: &str = "harness.schema.json";
/// Name of the `[[test]]` target.
pub(crate) const TEST_TARGET: &str = "golden";

const EXAMPLE_SCRIPT: &str = "golden/example/run.sh";
const EXAMPLE_DATA: &str = "golden/example/orders.csv";
const EXAMPLE_SNAPSHOT: &str = "snapshots/example.stdout";
const CRATE_NAME: &str = "cargo-golden";
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where the package gets `cargo-golden` from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// A version requirement on crates.io, such as `"0.1.0"`.
    Version(String),
    /// A local checkout of cargo-golden, written relative to the package.
    Path(PathBuf),
    /// A git repository at a commit.
    Git {
        /// The repository URL.
        url: String,
        /// The commit.
        rev: String,
    },
}

impl fmt::Display for Dependency {
    /// The dependency as written in Cargo.toml, without the features.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dependency::Version(v) => write!(f, "version = {}", toml_string(v)),
            Dependency::Path(p) => write!(f, "path = {}", toml_string(&p.to_string_lossy())),
            Dependency::Git { url, rev } => {
                write!(f, "git = {}, rev = {}", toml_string(url), toml_string(rev))
            }
        }
    }
}

impl Default for Dependency {
    /// This build's own version.
    fn default() -> Self {
        Dependency::Version(VERSION.to_string())
    }
}

/// How [`init`] behaves.
#[derive(Clone, Debug, Default)]
pub struct InitOptions {
    /// Replace files that already exist (and repoint a conflicting
    /// `golden` test target) instead of refusing.
    pub force: bool,
    /// The `cargo-golden` dev-dependency to add when there is none.
    pub dependency: Dependency,
    /// When the package is already set up (every file init writes is
    /// there), change only the dev-dependency instead of refusing: for
    /// `init --path DIR` on a package whose dependency does not resolve.
    pub dependency_only: bool,
}

/// What [`init`] did, for the command line to print.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InitReport {
    /// Files created, relative to the package directory, in write order.
    pub created: Vec<PathBuf>,
    /// Files that existed and were replaced (only with `force`).
    pub overwritten: Vec<PathBuf>,
    /// Changes made to `Cargo.toml`; empty when it already had everything.
    pub manifest_changes: Vec<String>,
    /// Files that were there and were left as they were (a
    /// dependency-only change).
    pub kept: Vec<PathBuf>,
}

impl fmt::Display for InitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.created {
            writeln!(f, "created {}", p.display())?;
        }
        for p in &self.overwritten {
            writeln!(f, "overwrote {}", p.display())?;
        }
        if !self.kept.is_empty() {
            let kept: Vec<String> = self.kept.iter().map(|p| p.display().to_string()).collect();
            writeln!(f, "kept {} as they were", kept.join(", "))?;
        }
        if self.manifest_changes.is_empty() {
            writeln!(f, "Cargo.toml already set up")
        } else {
            writeln!(f, "edited Cargo.toml: {}", self.manifest_changes.join("; "))
        }
    }
}

/// Something init would replace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// A file that already exists, relative to the package directory.
    File(PathBuf),
    /// `Cargo.toml` already declares a `golden` test target that is not
    /// `tests/golden.rs` with `harness = false`.
    TestTarget,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Conflict::File(p) => write!(f, "{}", p.display()),
            Conflict::TestTarget => write!(
                f,
                "the `[[test]] name = \"{TEST_TARGET}\"` entry in Cargo.toml \
                 (not `path = \"{TEST_FILE}\"` with `harness = false`)"
            ),
        }
    }
}

/// What in `Cargo.toml` is in the way of the edit.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeProblem {
    /// No `[package]` table (and no `[workspace]` either).
    #[error("there is no [package] table")]
    NoPackage,
    /// `[package]` without a `name`.
    #[error("[package] has no `name`")]
    NoPackageName,
    /// `test` is there, but not as `[[test]]` entries.
    #[error("`test` is not an array of tables")]
    TestNotArray,
    /// A dependency table is something else.
    #[error("`{0}` is not a table")]
    NotATable(String),
}

/// Why init did nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The directory has no `Cargo.toml`.
    #[error("{} is not a cargo package: it has no Cargo.toml", .0.display())]
    NotACargoProject(PathBuf),
    /// `Cargo.toml` is a virtual workspace manifest.
    #[error(
        "{} is a virtual workspace manifest (no [package]); run `cargo golden init` in a member package",
        .0.display()
    )]
    VirtualManifest(PathBuf),
    /// Init would replace what is already there.
    #[error(
        "refusing to overwrite {}\n  help: pass --force to replace them",
        .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    WouldOverwrite(Vec<Conflict>),
    /// `Cargo.toml` is not valid TOML.
    #[error("cannot parse {}", path.display())]
    ManifestSyntax {
        /// The manifest.
        path: PathBuf,
        /// The parser's error.
        #[source]
        source: toml_edit::TomlError,
    },
    /// `Cargo.toml` has a shape init cannot complete.
    #[error("cannot edit {}", path.display())]
    ManifestShape {
        /// The manifest.
        path: PathBuf,
        /// What is in the way.
        #[source]
        problem: ShapeProblem,
    },
    /// A file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Set up the cargo package in `dir` for golden testing (see the module
/// docs). Either everything is written, or, on a conflict, nothing.
pub fn init(dir: &Path, options: &InitOptions) -> Result<InitReport, InitError> {
    let manifest_path = dir.join("Cargo.toml");
    if !manifest_path.is_file() {
        return Err(InitError::NotACargoProject(dir.to_path_buf()));
    }
    let mut doc = read_manifest(&manifest_path)?;
    let shape_error = |problem: ShapeProblem| InitError::ManifestShape {
        path: manifest_path.clone(),
        problem,
    };
    let package_name = package_name(&doc, &manifest_path)?;

    // GitHub reads workflows only at the repository root: from a
    // workspace member the workflow goes there and names this harness.
    let root = repository_root(dir).unwrap_or_else(|| dir.to_path_buf());
    let member = relative_path(&root, dir).unwrap_or_default();
    let workflow = relative_path(dir, &root)
        .unwrap_or_default()
        .join(WORKFLOW_FILE)
        .to_string_lossy()
        .into_owned();
    let schema =
        serde_json::to_string_pretty(&super::schema::harness_schema()).unwrap_or_default() + "\n";
    let files = [
        (HARNESS_FILE, harness_toml(&package_name)),
        (SCHEMA_FILE, schema),
        (EXAMPLE_SCRIPT, EXAMPLE_SCRIPT_TEXT.to_string()),
        (EXAMPLE_DATA, EXAMPLE_DATA_TEXT.to_string()),
        (EXAMPLE_SNAPSHOT, EXAMPLE_SNAPSHOT_TEXT.to_string()),
        (TEST_FILE, TEST_FILE_TEXT.to_string()),
        (
            workflow.as_str(),
            workflow_yaml(&member, &install_step(&options.dependency, &root)),
        ),
    ];
    let mut conflicts: Vec<Conflict> = files
        .iter()
        // `symlink_metadata`: a dangling symlink is in the way too.
        .filter(|(rel, _)| dir.join(rel).symlink_metadata().is_ok())
        .map(|(rel, _)| Conflict::File(PathBuf::from(rel)))
        .collect();

    // Already set up: with `dependency_only`, the dev-dependency is the
    // one thing to change.
    let set_up = conflicts.len() == files.len();
    let manifest_changes =
        complete_manifest(&mut doc, dir, options, &mut conflicts).map_err(&shape_error)?;
    if options.dependency_only
        && !options.force
        && set_up
        && !conflicts.contains(&Conflict::TestTarget)
    {
        return change_dependency(&mut doc, dir, options, &manifest_path, &files);
    }
    if !conflicts.is_empty() && !options.force {
        return Err(InitError::WouldOverwrite(conflicts));
    }

    let mut report = InitReport {
        manifest_changes,
        ..InitReport::default()
    };
    // The files come before Cargo.toml: a `[[test]]` entry whose file is
    // missing would break every cargo command in the package.
    write_files(dir, &files, &mut report)?;
    if !report.manifest_changes.is_empty() {
        write_file(&manifest_path, &doc.to_string())?;
    }
    Ok(report)
}

/// Point the existing `cargo-golden` dependency at `options.dependency`
/// and touch nothing else; every file init writes is already there.
fn change_dependency(
    doc: &mut DocumentMut,
    dir: &Path,
    options: &InitOptions,
    manifest_path: &Path,
    files: &[(&str, String)],
) -> Result<InitReport, InitError> {
    let dependency = written_dependency(dir, &options.dependency);
    let changed =
        add_dev_dependency(doc, &dependency, true).map_err(|problem| InitError::ManifestShape {
            path: manifest_path.to_path_buf(),
            problem,
        })?;
    let mut report = InitReport {
        kept: files.iter().map(|(rel, _)| PathBuf::from(rel)).collect(),
        ..InitReport::default()
    };
    if changed {
        write_file(manifest_path, &doc.to_string())?;
        report
            .manifest_changes
            .push(format!("set dev-dependency `{CRATE_NAME}` to {dependency}"));
    }
    Ok(report)
}

/// The dependency as Cargo.toml gets it: a path relative to the package,
/// so the checkout can move with it.
fn written_dependency(dir: &Path, dependency: &Dependency) -> Dependency {
    match dependency {
        Dependency::Path(p) => Dependency::Path(relative_path(dir, p).unwrap_or_else(|| p.clone())),
        d => d.clone(),
    }
}

/// Add the dev-dependency and the test target to the manifest (in memory);
/// returns the changes made, and adds a conflicting test target to
/// `conflicts`.
fn complete_manifest(
    doc: &mut DocumentMut,
    dir: &Path,
    options: &InitOptions,
    conflicts: &mut Vec<Conflict>,
) -> Result<Vec<String>, ShapeProblem> {
    let mut manifest_changes = Vec::new();
    let dependency = written_dependency(dir, &options.dependency);
    let before = existing_dependency(doc);
    if add_dev_dependency(doc, &dependency, options.force)? {
        manifest_changes.push(match before {
            // `--force` says what it replaced.
            Some(old) => {
                format!("replaced dev-dependency `{CRATE_NAME}` {old} with {{ {dependency} }}")
            }
            None => format!("added dev-dependency `{CRATE_NAME}` ({dependency})"),
        });
    }
    match add_test_target(doc, options.force)? {
        TargetEdit::Present => {}
        TargetEdit::Added => manifest_changes.push(format!(
            "added `[[test]] name = \"{TEST_TARGET}\"`, harness = false"
        )),
        TargetEdit::Conflict { repointed } => {
            conflicts.push(Conflict::TestTarget);
            if repointed {
                manifest_changes.push(format!(
                    "set `[[test]] name = \"{TEST_TARGET}\"` to path = \"{TEST_FILE}\", harness = false"
                ));
            }
        }
    }
    Ok(manifest_changes)
}

/// Write `files` under `dir`, noting each as created or overwritten; the
/// example script, when among them, is made executable.
fn write_files(
    dir: &Path,
    files: &[(&str, String)],
    report: &mut InitReport,
) -> Result<(), InitError> {
    for (rel, contents) in files {
        let path = dir.join(rel);
        let existed = path.symlink_metadata().is_ok();
        write_file(&path, contents)?;
        if existed {
            report.overwritten.push(PathBuf::from(rel));
        } else {
            report.created.push(PathBuf::from(rel));
        }
        if *rel == EXAMPLE_SCRIPT {
            make_executable(&path)?;
        }
    }
    Ok(())
}

fn read_manifest(path: &Path) -> Result<DocumentMut, InitError> {
    let text = crate::untrusted::read_to_string(path).map_err(|source| InitError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    text.parse().map_err(|source| InitError::ManifestSyntax {
        path: path.to_path_buf(),
        source,
    })
}

/// `[package] name`; a virtual workspace manifest has none.
fn package_name(doc: &DocumentMut, manifest_path: &Path) -> Result<String, InitError> {
    let shape_error = |problem| InitError::ManifestShape {
        path: manifest_path.to_path_buf(),
        problem,
    };
    match doc.get("package") {
        Some(package) => Ok(package
            .get("name")
            .and_then(Item::as_str)
            .ok_or_else(|| shape_error(ShapeProblem::NoPackageName))?
            .to_string()),
        None if doc.contains_key("workspace") => {
            Err(InitError::VirtualManifest(manifest_path.to_path_buf()))
        }
        None => Err(shape_error(ShapeProblem::NoPackage)),
    }
}

fn write_file(path: &Path, contents: &str) -> Result<(), InitError> {
    let write_error = |source| InitError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(write_error)?;
    }
    std::fs::write(path, contents).map_err(write_error)
}

/// The script is run as `sh run.sh`, but users will also run it directly.
fn make_executable(path: &Path) -> Result<(), InitError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(
            |source| InitError::Write {
                path: path.to_path_buf(),
                source,
            },
        )?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

enum TargetEdit {
    /// An identical entry is already there.
    Present,
    /// A new entry was added.
    Added,
    /// A different `golden` entry exists; with `force` it was repointed.
    Conflict { repointed: bool },
}

/// Make sure `[[test]] name = "golden"` runs `tests/golden.rs` without
/// libtest. Both TOML spellings of the array are kept as they are.
fn add_test_target(doc: &mut DocumentMut, force: bool) -> Result<TargetEdit, ShapeProblem> {
    if !doc.contains_key("test") {
        let mut list = ArrayOfTables::new();
        list.push(new_test_target());
        doc.insert("test", Item::ArrayOfTables(list));
        return Ok(TargetEdit::Added);
    }
    let mut entries: Vec<&mut dyn TableLike> = match &mut doc["test"] {
        Item::ArrayOfTables(list) => {
            if !list.iter().any(|t| is_golden_target(t)) {
                list.push(new_test_target());
                return Ok(TargetEdit::Added);
            }
            list.iter_mut().map(|t| t as &mut dyn TableLike).collect()
        }
        Item::Value(Value::Array(list)) => {
            if !list
                .iter()
                .filter_map(Value::as_inline_table)
                .any(|t| is_golden_target(t))
            {
                list.push(new_test_target().into_inline_table());
                return Ok(TargetEdit::Added);
            }
            list.iter_mut()
                .filter_map(Value::as_inline_table_mut)
                .map(|t| t as &mut dyn TableLike)
                .collect()
        }
        _ => return Err(ShapeProblem::TestNotArray),
    };
    entries.retain(|t| is_golden_target(&**t));
    if entries.iter().all(|t| is_ours(&**t)) {
        return Ok(TargetEdit::Present);
    }
    if force {
        for t in entries {
            t.insert("path", toml_edit::value(TEST_FILE));
            t.insert("harness", toml_edit::value(false));
        }
    }
    Ok(TargetEdit::Conflict { repointed: force })
}

fn new_test_target() -> Table {
    let mut t = Table::new();
    t.insert("name", toml_edit::value(TEST_TARGET));
    t.insert("path", toml_edit::value(TEST_FILE));
    t.insert("harness", toml_edit::value(false));
    t
}

fn is_golden_target(t: &dyn TableLike) -> bool {
    t.get("name").and_then(Item::as_str) == Some(TEST_TARGET)
}

/// A `golden` entry that already does what init would write: `path`
/// absent (cargo's default is `tests/golden.rs`) or equal to it.
fn is_ours(t: &dyn TableLike) -> bool {
    let harness_off = t.get("harness").and_then(Item::as_bool) == Some(false);
    let path_ok = match t.get("path") {
        None => true,
        Some(p) => p.as_str().is_some_and(|p| same_relative_path(p, TEST_FILE)),
    };
    harness_off && path_ok
}

fn same_relative_path(a: &str, b: &str) -> bool {
    let parts = |s: &str| -> Vec<String> {
        Path::new(&s.replace('\\', "/"))
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    };
    parts(a) == parts(b)
}

/// Add `cargo-golden` to `[dev-dependencies]` unless the package already
/// depends on it (a normal dependency is visible to tests too). Returns
/// whether the manifest changed.
fn add_dev_dependency(
    doc: &mut DocumentMut,
    dep: &Dependency,
    force: bool,
) -> Result<bool, ShapeProblem> {
    const TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "dev_dependencies"];
    for name in TABLES {
        match doc.get_mut(name) {
            None => {}
            Some(item) => match item.as_table_like_mut() {
                // `--force` rewrites the entry (say, one that does not
                // resolve) in place.
                Some(t) if t.contains_key(CRATE_NAME) && force => {
                    let new = dependency_value(dep);
                    let same = t
                        .get(CRATE_NAME)
                        .and_then(|i| i.as_value())
                        .is_some_and(|v| v.to_string().trim() == new.to_string().trim());
                    if !same {
                        t.insert(CRATE_NAME, Item::Value(new));
                    }
                    return Ok(!same);
                }
                Some(t) if t.contains_key(CRATE_NAME) => return Ok(false),
                Some(_) => {}
                None => return Err(ShapeProblem::NotATable(name.to_string())),
            },
        }
    }
    // Cargo still reads the old underscore spelling; adding the other one
    // next to it would be an error.
    let key = if doc.contains_key("dev-dependencies") || !doc.contains_key("dev_dependencies") {
        "dev-dependencies"
    } else {
        "dev_dependencies"
    };
    if !doc.contains_key(key) {
        // Beside [dependencies] rather than at the end of the file.
        let mut table = Table::new();
        table.set_position(
            doc.get("dependencies")
                .and_then(|d| d.as_table()?.position()),
        );
        doc.insert(key, Item::Table(table));
    }
    let table = doc[key]
        .as_table_like_mut()
        .expect("checked above to be a table");
    table.insert(CRATE_NAME, Item::Value(dependency_value(dep)));
    Ok(true)
}

/// The `cargo-golden` entry of any dependency table, as written.
fn existing_dependency(doc: &DocumentMut) -> Option<String> {
    ["dependencies", "dev-dependencies", "dev_dependencies"]
        .iter()
        .filter_map(|t| doc.get(t)?.as_table_like()?.get(CRATE_NAME))
        .find_map(|i| i.as_value().map(|v| v.to_string().trim().to_string()))
}

/// The harness needs only the library: without the `cli` feature the test
/// build leaves out what only the `cargo golden` command line uses.
fn dependency_value(dep: &Dependency) -> Value {
    let mut inline = InlineTable::new();
    match dep {
        Dependency::Version(v) => inline.insert("version", v.as_str().into()),
        Dependency::Path(p) => inline.insert("path", p.to_string_lossy().as_ref().into()),
        Dependency::Git { url, rev } => {
            inline.insert("git", url.as_str().into());
            inline.insert("rev", rev.as_str().into())
        }
    };
    inline.insert("default-features", false.into());
    inline.into()
}

/// The root of the git repository holding `dir`, if it is in one.
fn repository_root(dir: &Path) -> Option<PathBuf> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(dir)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| PathBuf::from(text.trim()))
}

/// `to` relative to the directory `from` (both resolved first), such as
/// `../cargo-golden`; None when they share no root.
fn relative_path(from: &Path, to: &Path) -> Option<PathBuf> {
    let from = std::fs::canonicalize(from).ok()?;
    let to = std::fs::canonicalize(to).ok()?;
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let mut rel = PathBuf::new();
    for _ in common..f.len() {
        rel.push("..");
    }
    for c in &t[common..] {
        rel.push(c);
    }
    Some(rel)
}

/// A TOML basic string, quoted and escaped.
fn toml_string(s: &str) -> String {
    Value::from(s).to_string().trim().to_string()
}

fn harness_toml(package_name: &str) -> String {
    format!("#:schema ./{SCHEMA_FILE}\n")
        + "# Test cases for `cargo golden` and `cargo test --test golden`.\n"
        + &HARNESS_HEAD.replace("{{name}}", &toml_string(package_name))
        + HARNESS_VERIFY
        + HARNESS_EXAMPLE
}

/// The workflow step that installs the tool from where the
/// dev-dependency comes from, so both are the same code: a git commit, a
/// checkout in the repository, or a registry version. Swatinem/rust-cache
/// keeps `~/.cargo/bin`, and `cargo install` skips a binary already
/// installed from the same source.
fn install_step(dependency: &Dependency, root: &Path) -> String {
    match dependency {
        Dependency::Git { url, rev } => format!(
            "cargo install --locked --git {} --rev {} {CRATE_NAME}",
            shell_word(url),
            shell_word(rev)
        ),
        Dependency::Path(p) => {
            let in_repo = relative_path(root, p).filter(|r| !r.starts_with(".."));
            match in_repo {
                Some(r) if r.as_os_str().is_empty() => "cargo install --locked --path .".into(),
                Some(r) => format!(
                    "cargo install --locked --path {}",
                    shell_word(&r.to_string_lossy().replace('\\', "/"))
                ),
                // A checkout outside the repository is not on the runner.
                None => format!(
                    "cargo install --locked --git https://REPLACE-WITH-THE-CARGO-GOLDEN-REPOSITORY-URL {CRATE_NAME}  # the dev-dependency is a checkout outside this repository ({})",
                    p.display()
                ),
            }
        }
        Dependency::Version(v) => {
            format!(
                "cargo install --locked {CRATE_NAME} --version {}",
                shell_word(v)
            )
        }
    }
}

/// `s` as one POSIX shell word.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+%,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The workflow for the package at `member` (relative to the repository
/// root; empty when it is the root), installing the tool with `install`.
fn workflow_yaml(member: &Path, install: &str) -> String {
    let run = if member.as_os_str().is_empty() {
        "cargo golden".to_string()
    } else {
        let m = member.to_string_lossy();
        format!("cargo golden --config {m}/{HARNESS_FILE} --manifest-path {m}/Cargo.toml")
    };
    WORKFLOW_TEMPLATE
        .replace("{{install}}", install)
        .replace("{{run}}", &run)
}

/// The harness file's header after its first line: what a case is, and
/// the `[harness]` table.
const HARNESS_HEAD: &str = r#"#
# Every [[golden]] and [[verify]] table below is one test case; they run in
# the order written. A case passes only if its command exits 0 AND prints no
# failure pattern (`cargo golden schema` prints the full list of keys).
# Full output and evidence of each run are kept under target/golden/.

[harness]
name = {{name}}  # suite name in the reports
timeout = "10m"  # default per-case timeout: "500ms", "90s", "2m", "1h 30m"
# runner = "my-tool run {path}"  # default command of golden projects without one

"#;

/// The verify command of a cargo package: it builds.
const HARNESS_VERIFY: &str = r#"# A verify command: a shell command (`sh -c`) whose success is a
# post-condition of the workspace.
[[verify]]
name = "workspace builds"
# Plain `cargo build`: a new crate may not have a Cargo.lock yet. Once yours
# is committed, `cargo build --locked` also catches a stale lock file.
command = "cargo build"
working_dir = "."     # relative to this file
timeout = "15m"

"#;

/// The example golden project.
const HARNESS_EXAMPLE: &str = r#"# A golden project: a directory (or one file) that must always keep working.
# A run never modifies it: it runs in a temporary copy (isolation = "copy",
# the default); with isolation = "check" it runs in place and any changed
# file git does not ignore fails the case. Replace this example with a
# project of yours.
[[golden]]
name = "example"
path = "golden/example"      # relative to this file
description = "Example golden project: sums a small CSV file"
command = "sh run.sh"        # runs inside `path`
expected = "success"         # or "specific_error:<regex>" for a project that must fail that way
isolation = "copy"           # or "check": run in place, and fail on any change
# Its stdout must also stay what snapshots/example.stdout says (`[..]` in
# that file matches any text within a line, a `...` line any lines). After
# an intended change, `cargo golden --bless example` rewrites it: review the
# git diff and commit it.
snapshot = ["stdout"]
# env = { RUST_LOG = "info" }
"#;

const EXAMPLE_SCRIPT_TEXT: &str = r#"#!/bin/sh
# Example golden project, run by `cargo golden` as `sh run.sh` in this
# directory. It passes when it exits 0 and prints no failure pattern.
# Replace it with a real project: a pipeline config, a sample input, a CLI
# invocation that must keep working.
set -eu
cd "$(dirname "$0")"

awk -F, 'NR > 1 { orders += 1; items += $2 }
         END { printf "orders: %d, items: %d\n", orders, items }' orders.csv
"#;

const EXAMPLE_DATA_TEXT: &str = "item,quantity\napples,3\npears,5\nplums,2\n";

/// What `run.sh` prints for `orders.csv`.
const EXAMPLE_SNAPSHOT_TEXT: &str = "orders: 3, items: 10\n";

const TEST_FILE_TEXT: &str = r#"//! The cases of `harness.toml` as tests: `cargo test --test golden`
//! (or `cargo nextest run --test golden`).

fn main() {
    cargo_golden::harness::main()
}
"#;

const WORKFLOW_TEMPLATE: &str = r#"# Runs the golden projects and verify commands of harness.toml, and keeps
# the reports and evidence of every run as an artifact.
name: golden

on:
  push:
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

jobs:
  golden:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - uses: Swatinem/rust-cache@v2
      # From the same source as the cargo-golden dev-dependency in
      # Cargo.toml: change both together. The cache above keeps the binary.
      - name: Install cargo-golden
        run: {{install}}
      - name: Run golden cases
        run: {{run}}
      - name: Upload reports and evidence
        if: always()
        uses: actions/upload-artifact@v6
        with:
          name: golden-reports
          # The default [harness] out_dir; change both together.
          path: target/golden
          if-no-files-found: warn
      # Optional: a GitHub artifact attestation of the run, carrying the
      # in-toto test-result predicate cargo golden writes into the run dir
      # (test-result.intoto.json), over every file its SHA256SUMS lists. To
      # turn it on, uncomment the two steps below and add to `permissions:`
      #   id-token: write
      #   attestations: write
      # Then check a file of the run dir (from the uploaded artifact) with
      #   gh attestation verify summary.json --repo OWNER/REPO \
      #     --predicate-type https://in-toto.io/attestation/test-result/v0.1
      # - name: Find the run dir
      #   if: always()
      #   id: golden-run
      #   run: |
      #     dir="target/golden/artifacts/$(jq -r .run_id target/golden/summary.json)"
      #     jq .predicate "$dir/test-result.intoto.json" > "$RUNNER_TEMP/test-result.json"
      #     echo "dir=$dir" >> "$GITHUB_OUTPUT"
      # - name: Attest the test result
      #   if: always()
      #   uses: actions/attest@v2
      #   with:
      #     subject-checksums: ${{ steps.golden-run.outputs.dir }}/SHA256SUMS
      #     predicate-type: https://in-toto.io/attestation/test-result/v0.1
      #     predicate-path: ${{ runner.temp }}/test-result.json
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> DocumentMut {
        text.parse().unwrap()
    }

    #[test]
    fn matching_target_entries_are_recognised() {
        for entry in [
            "[[test]]\nname = \"golden\"\nharness = false\n",
            "[[test]]\nname = \"golden\"\npath = \"./tests/golden.rs\"\nharness = false\n",
            "test = [{ name = \"golden\", harness = false }]\n",
        ] {
            let mut d = doc(entry);
            assert!(
                matches!(add_test_target(&mut d, false), Ok(TargetEdit::Present)),
                "{entry}"
            );
            assert_eq!(d.to_string(), entry);
        }
    }

    #[test]
    fn other_targets_are_kept_and_golden_is_added_beside_them() {
        let mut d = doc("test = [{ name = \"unit\" }]\n");
        assert!(matches!(
            add_test_target(&mut d, false),
            Ok(TargetEdit::Added)
        ));
        let list = d["test"].as_array().unwrap();
        assert_eq!(list.len(), 2);
        assert!(is_ours(list.get(1).unwrap().as_inline_table().unwrap()));
    }

    #[test]
    fn a_different_golden_target_conflicts_and_force_repoints_it() {
        let text =
            "[[test]]\nname = \"golden\"\npath = \"tests/it.rs\"\nrequired-features = [\"x\"]\n";
        let mut d = doc(text);
        assert!(matches!(
            add_test_target(&mut d, false),
            Ok(TargetEdit::Conflict { repointed: false })
        ));
        assert_eq!(d.to_string(), text);

        assert!(matches!(
            add_test_target(&mut d, true),
            Ok(TargetEdit::Conflict { repointed: true })
        ));
        let t = d["test"].as_array_of_tables().unwrap().get(0).unwrap();
        assert!(is_ours(t));
        assert!(t.contains_key("required-features"));
    }

    #[test]
    fn existing_dependency_is_left_alone_and_old_spelling_reused() {
        let mut d = doc("[dependencies]\ncargo-golden = \"9\"\n");
        assert_eq!(
            add_dev_dependency(&mut d, &Dependency::default(), false),
            Ok(false)
        );
        assert!(!d.contains_key("dev-dependencies"));

        let mut d = doc("[dev_dependencies]\nx = \"1\"\n");
        assert_eq!(
            add_dev_dependency(&mut d, &Dependency::default(), false),
            Ok(true)
        );
        assert!(!d.contains_key("dev-dependencies"));
        let dep = &d["dev_dependencies"][CRATE_NAME];
        assert_eq!(dep["version"].as_str(), Some(VERSION));
        assert_eq!(dep["default-features"].as_bool(), Some(false));

        let mut d = doc("dev-dependencies = 3\n");
        assert!(add_dev_dependency(&mut d, &Dependency::default(), false).is_err());
    }

    #[test]
    fn names_are_quoted_for_toml() {
        assert_eq!(toml_string("my-crate"), "\"my-crate\"");
        let quoted = toml_string("a\"b\\c");
        let parsed: DocumentMut = format!("k = {quoted}").parse().unwrap();
        assert_eq!(parsed["k"].as_str(), Some("a\"b\\c"));
    }
}
