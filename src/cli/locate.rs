//! Locating the harness a subcommand works on: `--config`, else the
//! workspace root's harness.toml (cargo's view of the workspace, from
//! `cargo metadata`, honouring `--manifest-path`), else the current
//! directory's, else the one workspace member's (`-p NAME` picks one);
//! then reading it with what the command line adds (`Located::load`).

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use crate::commands::Loaded;
use crate::conclusion;
use crate::config::{self, ConfigError, HarnessConfig};
use crate::layout::display_relative;

/// What the command line says about the harness file and what it adds to
/// it; the flags a subcommand does not have stay `None`.
#[derive(Debug, Default)]
pub(crate) struct HarnessFlags {
    /// `--config`.
    pub(crate) config: Option<PathBuf>,
    /// `-p`: the workspace member whose harness.toml is used.
    pub(crate) package: Option<String>,
    /// `--manifest-path`: which workspace.
    pub(crate) manifest: clap_cargo::Manifest,
    /// `--golden`: ad-hoc golden projects; with them, no harness file is
    /// no error.
    pub(crate) golden: Option<String>,
    /// `--profile`.
    pub(crate) profile: Option<String>,
    /// `--sign-key`: its text is masked in everything the run writes.
    pub(crate) sign_key: Option<PathBuf>,
    /// `--out`.
    pub(crate) out: Option<PathBuf>,
}

impl HarnessFlags {
    /// The flags of a subcommand that names its harness file with
    /// `--config` and `--manifest-path` alone, and adds nothing to it.
    pub(crate) fn named(config: Option<&PathBuf>, manifest: &clap_cargo::Manifest) -> HarnessFlags {
        HarnessFlags {
            config: config.cloned(),
            manifest: manifest.clone(),
            ..HarnessFlags::default()
        }
    }
}

/// The harness file the flags name, found; what [`Located::load`] reads.
#[derive(Debug)]
pub(crate) struct Located {
    /// The harness file; `None`: there is none, and `--golden` declares
    /// the projects.
    file: Option<PathBuf>,
    /// The current directory, the base of a harness of `--golden` projects.
    cwd: PathBuf,
    flags: HarnessFlags,
    /// Asked of cargo at most once, and only when needed.
    workspace: OnceCell<Workspace>,
}

/// Why the harness could not be located or read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LocateError {
    #[error("cannot read the current directory")]
    CurrentDir(#[source] std::io::Error),
    #[error("no workspace member is named `{0}` (members: {1})")]
    NoSuchPackage(String, String),
    #[error(
        "the workspace root has no harness.toml, and several workspace members have one:{0}\n  help: choose one with `-p {1}` or `--config {2}`"
    )]
    SeveralHarnessFiles(String, String, String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Adhoc(#[from] config::adhoc::AdhocError),
    #[error("verify-evidence without DIR checks the latest run of the default out dir; pass DIR")]
    NoDefaultOutDir(#[source] Box<LocateError>),
}

impl LocateError {
    /// Print the error and return the exit code of a command line that
    /// names no usable harness. Config diagnostics are shown as they are:
    /// each line already says `file:line:col: error:`.
    pub(crate) fn usage(&self) -> i32 {
        let diagnostics = matches!(self, LocateError::Config(ConfigError::Invalid(_)));
        conclusion::print_error(self, diagnostics);
        conclusion::USAGE
    }
}

impl Located {
    /// Find the harness file `flags` name (see the module docs).
    pub(crate) fn find(flags: HarnessFlags) -> Result<Located, LocateError> {
        let cwd = std::env::current_dir().map_err(LocateError::CurrentDir)?;
        let workspace = OnceCell::new();
        let file = match &flags.config {
            Some(p) => Some(p.clone()),
            None => {
                let w = workspace.get_or_init(|| Workspace::of(&flags.manifest));
                match find_harness(&cwd, w, flags.package.as_deref()) {
                    Ok(found) => Some(found),
                    Err(LocateError::Config(ConfigError::NotFound(_)))
                        if flags.golden.is_some() =>
                    {
                        None
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        Ok(Located {
            file,
            cwd,
            flags,
            workspace,
        })
    }

    /// Read the harness file with the `--golden` projects, `--profile` and
    /// `--sign-key` added, and settle the out dir: `--out`, else the
    /// harness file's, else (when `need_out_dir`) `<target dir>/golden`.
    pub(crate) fn load(&self, need_out_dir: bool) -> Result<Loaded, LocateError> {
        let a = &self.flags;
        let mut harness = match &self.file {
            Some(p) => {
                let suite = p
                    .parent()
                    .map(crate::layout::absolute)
                    .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
                let profile = a.profile.clone().or_else(|| {
                    std::env::var(config::PROFILE_ENV)
                        .ok()
                        .filter(|p| !p.is_empty())
                });
                HarnessConfig::load_profile(p, suite.as_deref(), profile.as_deref())?
            }
            None => HarnessConfig::empty(&self.cwd),
        };
        if let Some(list) = &a.golden {
            let entries = config::adhoc::parse(list)?;
            harness.add_adhoc(&entries)?;
        }
        harness.check_required_golden()?;
        // The key file's text is masked in everything the run writes, as the
        // key's is when it comes from its variable.
        harness
            .redact_env
            .key_files
            .extend(a.sign_key.iter().cloned());
        let out_dir = match (&a.out, &harness.out_dir) {
            (Some(o), _) => crate::layout::absolute(o),
            (None, Some(o)) => o.clone(),
            (None, None) if need_out_dir => self
                .workspace
                .get_or_init(|| Workspace::of(&a.manifest))
                .target_dir
                .clone()
                .unwrap_or_else(|| harness.base_dir.join("target"))
                .join("golden"),
            (None, None) => PathBuf::new(),
        };
        Ok(Loaded { harness, out_dir })
    }
}

/// The harness `flags` name, located and loaded.
pub(crate) fn load(flags: HarnessFlags, need_out_dir: bool) -> Result<Loaded, LocateError> {
    Located::find(flags)?.load(need_out_dir)
}

/// What cargo knows about the workspace (one `cargo metadata --no-deps`).
#[derive(Clone, Debug, Default)]
struct Workspace {
    root: Option<PathBuf>,
    target_dir: Option<PathBuf>,
    /// Each member package: its name and directory.
    members: Vec<(String, PathBuf)>,
}

impl Workspace {
    /// The workspace of `manifest` (or of the current directory); empty
    /// outside one, or when cargo cannot say.
    fn of(manifest: &clap_cargo::Manifest) -> Workspace {
        let mut cmd = cargo_metadata::MetadataCommand::new();
        cmd.no_deps();
        if let Some(p) = &manifest.manifest_path {
            cmd.manifest_path(p);
        }
        match cmd.exec() {
            Ok(m) => Workspace {
                members: m
                    .workspace_packages()
                    .iter()
                    .filter_map(|p| {
                        let dir = p.manifest_path.parent()?.as_std_path().to_path_buf();
                        Some((p.name.to_string(), dir))
                    })
                    .collect(),
                root: Some(m.workspace_root.into_std_path_buf()),
                target_dir: Some(m.target_directory.into_std_path_buf()),
            },
            Err(_) => Workspace::default(),
        }
    }

    fn member_names(&self) -> Vec<String> {
        self.members.iter().map(|(n, _)| n.clone()).collect()
    }
}

/// The harness file of a subcommand given no `--config`: the workspace
/// root's, else the current directory's, else the one workspace member
/// that has one (said on stderr). `-p NAME` picks that member's. Several
/// members with one and none at the root: each is listed with how to
/// choose.
fn find_harness(cwd: &Path, w: &Workspace, package: Option<&str>) -> Result<PathBuf, LocateError> {
    let file = |dir: &Path| dir.join("harness.toml");
    if let Some(name) = package {
        let Some((_, dir)) = w.members.iter().find(|(n, _)| n == name) else {
            return Err(LocateError::NoSuchPackage(
                name.to_string(),
                crate::ansi::name_list(&w.member_names()),
            ));
        };
        return match file(dir) {
            p if p.is_file() => Ok(p),
            p => Err(ConfigError::NotFound(display_relative(&p)).into()),
        };
    }
    let candidates: Vec<PathBuf> = w
        .root
        .iter()
        .map(|r| file(r))
        .chain(std::iter::once(file(cwd)))
        .collect();
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    let in_members: Vec<(&str, PathBuf)> = w
        .members
        .iter()
        .map(|(n, d)| (n.as_str(), file(d)))
        .filter(|(_, p)| p.is_file())
        .collect();
    match in_members.as_slice() {
        [] => {
            let mut looked: Vec<String> = candidates.iter().map(|p| display_relative(p)).collect();
            looked.dedup();
            let mut text = looked.join(" and ");
            if !w.members.is_empty() {
                text.push_str(&format!(
                    ", and in the directory of each workspace member ({})",
                    crate::ansi::name_list(&w.member_names())
                ));
            }
            Err(ConfigError::NotFound(text).into())
        }
        [(name, path)] => {
            eprintln!(
                "{:>12} {} (the harness file of workspace member `{name}`)",
                "Using",
                display_relative(path)
            );
            Ok(path.clone())
        }
        several => Err(LocateError::SeveralHarnessFiles(
            several
                .iter()
                .map(|(n, p)| format!("\n  {n}: {}", display_relative(p)))
                .collect(),
            several[0].0.to_string(),
            display_relative(&several[0].1),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workspace at `root` whose members are `root/<name>`, each given
    /// a harness.toml when its flag is set.
    fn workspace(root: &Path, members: &[(&str, bool)]) -> Workspace {
        let members = members
            .iter()
            .map(|(name, with_harness)| {
                let dir = root.join(name);
                std::fs::create_dir_all(&dir).unwrap();
                if *with_harness {
                    std::fs::write(dir.join("harness.toml"), "").unwrap();
                }
                (name.to_string(), dir)
            })
            .collect();
        Workspace {
            root: Some(root.to_path_buf()),
            target_dir: Some(root.join("target")),
            members,
        }
    }

    /// `dir/name`, written with `text`.
    fn file_in(dir: &Path, name: &str, text: &str) -> PathBuf {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        file
    }

    #[test]
    fn the_workspace_root_comes_first_then_the_current_directory() {
        let dir = tempfile::tempdir().unwrap();
        let w = workspace(dir.path(), &[("a", true), ("cwd", true)]);
        let cwd = dir.path().join("cwd");
        assert_eq!(
            find_harness(&cwd, &w, None).unwrap(),
            cwd.join("harness.toml")
        );
        std::fs::write(dir.path().join("harness.toml"), "").unwrap();
        assert_eq!(
            find_harness(&cwd, &w, None).unwrap(),
            dir.path().join("harness.toml")
        );
    }

    #[test]
    fn the_one_member_with_a_harness_file_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let w = workspace(dir.path(), &[("a", false), ("b", true)]);
        assert_eq!(
            find_harness(dir.path(), &w, None).unwrap(),
            dir.path().join("b/harness.toml")
        );
    }

    #[test]
    fn several_members_with_one_ask_to_choose() {
        let dir = tempfile::tempdir().unwrap();
        let w = workspace(dir.path(), &[("a", true), ("b", true)]);
        let e = find_harness(dir.path(), &w, None).unwrap_err();
        let LocateError::SeveralHarnessFiles(list, name, _) = &e else {
            panic!("{e:?}");
        };
        assert_eq!(name, "a");
        assert!(
            list.contains("\n  a: ") && list.contains("\n  b: "),
            "{list}"
        );
        assert!(e.to_string().contains("choose one with `-p a`"), "{e}");
    }

    #[test]
    fn a_member_is_picked_by_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("harness.toml"), "").unwrap();
        let w = workspace(dir.path(), &[("a", true), ("b", false)]);
        assert_eq!(
            find_harness(dir.path(), &w, Some("a")).unwrap(),
            dir.path().join("a/harness.toml")
        );
        let e = find_harness(dir.path(), &w, Some("b")).unwrap_err();
        assert!(
            matches!(e, LocateError::Config(ConfigError::NotFound(_))),
            "{e:?}"
        );
        let e = find_harness(dir.path(), &w, Some("c")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no workspace member is named `c` (members: a, b)"
        );
    }

    #[test]
    fn nothing_found_says_where_it_looked() {
        let dir = tempfile::tempdir().unwrap();
        let w = workspace(dir.path(), &[("a", false)]);
        let e = find_harness(dir.path(), &w, None).unwrap_err();
        let LocateError::Config(ConfigError::NotFound(looked)) = &e else {
            panic!("{e:?}");
        };
        assert!(looked.contains("each workspace member (a)"), "{looked}");
        let e = find_harness(dir.path(), &Workspace::default(), None).unwrap_err();
        assert!(matches!(e, LocateError::Config(ConfigError::NotFound(_))));
    }

    #[test]
    fn a_config_flag_asks_cargo_nothing_until_an_out_dir_is_needed() {
        let dir = tempfile::tempdir().unwrap();
        let file = file_in(dir.path(), "h.toml", "");
        let flags = HarnessFlags {
            config: Some(file.clone()),
            out: Some(dir.path().join("out")),
            ..HarnessFlags::default()
        };
        let located = Located::find(flags).unwrap();
        assert_eq!(located.file, Some(file));
        let loaded = located.load(true).unwrap();
        assert_eq!(loaded.out_dir, dir.path().join("out"));
        assert!(located.workspace.get().is_none());
    }

    #[test]
    fn an_out_dir_is_settled_only_when_needed() {
        let dir = tempfile::tempdir().unwrap();
        let file = file_in(dir.path(), "harness.toml", "");
        let located = Located {
            file: Some(file),
            cwd: dir.path().to_path_buf(),
            flags: HarnessFlags::default(),
            workspace: OnceCell::from(Workspace {
                target_dir: Some(dir.path().join("target")),
                ..Workspace::default()
            }),
        };
        assert_eq!(located.load(false).unwrap().out_dir, PathBuf::new());
        assert_eq!(
            located.load(true).unwrap().out_dir,
            dir.path().join("target/golden")
        );
    }

    #[test]
    fn config_diagnostics_are_printed_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let file = file_in(dir.path(), "harness.toml", "[harness]\nnope = 1\n");
        let flags = HarnessFlags::named(Some(&file), &clap_cargo::Manifest::default());
        let Err(e) = load(flags, false) else {
            panic!("an unknown key loaded");
        };
        assert!(
            matches!(e, LocateError::Config(ConfigError::Invalid(_))),
            "{e:?}"
        );
        assert_eq!(e.usage(), conclusion::USAGE);
    }
}
