//! The `init` subcommand as the user sees it: which setup a directory
//! gets (a cargo package's, or the `golden` command's when there is no
//! Cargo.toml), where the dev-dependency comes from, and what is said
//! about it.

use std::path::{Path, PathBuf};

use crate::commands::init::{Dependency, InitOptions};
use crate::commands::output::{print_stdout, usage_error};
use crate::conclusion;
use crate::layout::display_relative;

/// What `init` was asked for.
pub(crate) struct Setup {
    /// `--force`: overwrite existing files.
    pub(crate) force: bool,
    /// `--path`: the cargo-golden checkout to depend on.
    pub(crate) path: Option<PathBuf>,
    /// `--manifest-path`: the package to set up (default: the current
    /// directory).
    pub(crate) manifest_path: Option<PathBuf>,
}

/// Why `init` refused its flags.
#[derive(Debug, thiserror::Error)]
enum SetupError {
    #[error(
        "--path sets the cargo-golden dev-dependency of a cargo package, and {} has no Cargo.toml\n  help: leave --path out to set this directory up for `golden` (pip install cargo-golden)",
        shown_dir(.0)
    )]
    PathWithoutPackage(PathBuf),
}

/// Set the package (or, without a Cargo.toml, the directory) up.
pub(crate) fn command(setup: &Setup) -> i32 {
    let dir = match &setup.manifest_path {
        Some(p) => crate::layout::absolute(p)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    // No Cargo.toml and none named: a directory of pipelines, set up for
    // the `golden` command with no cargo files.
    if setup.manifest_path.is_none() && !dir.join("Cargo.toml").is_file() {
        return standalone(&dir, setup.force, setup.path.is_some());
    }
    print_stdout(&format!(
        "{} has a Cargo.toml: setting it up for `cargo golden` and `cargo test --test golden`",
        shown_dir(&dir)
    ));
    let (dependency, why) = match &setup.path {
        Some(p) => (
            Dependency::Path(crate::layout::absolute(p)),
            "the checkout given with --path".to_string(),
        ),
        None => installed_dependency(),
    };
    let options = InitOptions {
        force: setup.force,
        dependency,
        dependency_only: setup.path.is_some(),
    };
    match crate::commands::init::init(&dir, &options) {
        Ok(report) => {
            print_stdout(&format!("{report}"));
            if report
                .manifest_changes
                .iter()
                .any(|c| c.contains("dev-dependency"))
            {
                print_stdout(&format!("dependency: from {why}"));
                match dependency_resolves(&dir) {
                    Ok(()) => print_stdout(
                        "checked: the dev-dependency resolves (`cargo tree --offline`)",
                    ),
                    Err(e) => eprintln!(
                        "warning: the cargo-golden dev-dependency does not resolve offline: {e}\n  help: point it at a checkout with `cargo golden init --path DIR`"
                    ),
                }
            }
            print_stdout(
                "next: `cargo golden` runs the cases; `cargo test --test golden` runs them under cargo test",
            );
            conclusion::SUCCESS
        }
        Err(e) => usage_error(&e),
    }
}

/// A directory as init names it: `.` for the current one.
fn shown_dir(dir: &Path) -> String {
    if std::env::current_dir().is_ok_and(|cwd| cwd == dir) {
        ".".to_string()
    } else {
        display_relative(dir)
    }
}

/// `init` in a directory with no Cargo.toml (see
/// [`crate::commands::init::init_standalone`]).
fn standalone(dir: &Path, force: bool, path_given: bool) -> i32 {
    if path_given {
        return usage_error(&SetupError::PathWithoutPackage(dir.to_path_buf()));
    }
    print_stdout(&format!(
        "{} has no Cargo.toml: setting it up for the `golden` command (pip install cargo-golden), with no cargo files",
        shown_dir(dir)
    ));
    match crate::commands::init::init_standalone(dir, force) {
        Ok(report) => {
            print_stdout(report.to_string().trim_end());
            print_stdout("next: `golden` runs the cases; `golden --bless` records their snapshots");
            conclusion::SUCCESS
        }
        Err(e) => usage_error(&e),
    }
}

/// The dev-dependency `init` writes without `--path`: the source the
/// running binary was installed from (cargo's install record), else the
/// checkout it was built from, else the crates.io version; with why.
fn installed_dependency() -> (Dependency, String) {
    use crate::commands::installed::{self, Source};
    if let Some(i) = installed::running() {
        let record = display_relative(&i.record);
        return match i.source {
            Source::Git { url, rev } => (
                Dependency::Git {
                    url: url.clone(),
                    rev: rev.clone(),
                },
                format!(
                    "git {url} at {rev}, where the running cargo-golden was installed from ({record})"
                ),
            ),
            Source::Path(p) => {
                let why = format!(
                    "the checkout {} the running cargo-golden was installed from ({record})",
                    p.display()
                );
                (Dependency::Path(p), why)
            }
            Source::Registry(v) => {
                let why = format!(
                    "crates.io, where the running cargo-golden {v} was installed from ({record})"
                );
                (Dependency::Version(v), why)
            }
        };
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR"));
    if installed::is_checkout(built_from) {
        let why = format!(
            "the checkout {} the running cargo-golden was built from (no install record)",
            built_from.display()
        );
        return (Dependency::Path(built_from.to_path_buf()), why);
    }
    (
        Dependency::default(),
        "crates.io (no install record of the running cargo-golden, and not a checkout)".to_string(),
    )
}

/// Whether the package in `dir` resolves its dependencies without the
/// network (`cargo tree --offline`); the first line of cargo's error when
/// not.
fn dependency_resolves(dir: &Path) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--depth",
            "1",
            "-e",
            "normal,dev",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(err
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or_else(|| err.lines().next().unwrap_or("cargo tree failed"))
        .to_string())
}
