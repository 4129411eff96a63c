//! Golden projects and git: where a project lies in a git work tree, its
//! uncommitted changes (modified, staged, deleted and untracked files the
//! repository's `.gitignore` does not leave out) are read with `git
//! status` before its case runs, so a change a failed run left behind
//! fails the next run too, instead of becoming the new normal; and under
//! `check`, a change git ignores is no change.
//!
//! What git ignores is decided by the rules as they stood when the case
//! started, and only by rules the repository commits: a tracked
//! `.gitignore` the run did not write. A run can write rules as easily as
//! files (a `models/.gitignore` of `*` hides itself and all beside it; so
//! does a line in `.git/info/exclude` or in the file `core.excludesFile`
//! names), and neither `.git/info/exclude` nor the excludes file is part
//! of the repository, so a later run could not tell the rule a run added
//! there from one that was always there; a tracked `.gitignore` it can.
//! So those excuse nothing, in the check after a run and in the next
//! run's look for uncommitted changes alike; and a rule file the run
//! wrote outside the project ([`IgnoreRules`]) is itself a change.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::isolation::{Changes, Exclude, Fingerprint, shown};

/// Why a project's uncommitted changes could not be read: the case runs,
/// unchecked, and the run says so once.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unchecked {
    /// No `git` to run.
    #[error("git is not installed")]
    NoGit(#[source] io::Error),
    /// The project is not in a git work tree.
    #[error("{} is not in a git work tree", path.display())]
    NotInWorkTree {
        /// The project.
        path: PathBuf,
    },
    /// Nothing of the project is committed yet (a project just created):
    /// there is no committed version to differ from.
    #[error("{} has nothing committed yet", path.display())]
    NothingCommitted {
        /// The project.
        path: PathBuf,
    },
    /// git ran and failed (an unsafe repository owner, say).
    #[error("`git {command}` failed in {}: {message}", dir.display())]
    Failed {
        /// The git subcommand.
        command: &'static str,
        /// Where it ran.
        dir: PathBuf,
        /// Its first line of stderr.
        message: String,
    },
}

/// The entries of `project` (a directory or a file) with uncommitted
/// changes, relative to it and shown as isolation shows names, less what
/// `exclude` leaves out; empty when it is clean.
pub(crate) fn uncommitted(project: &Path, exclude: &Exclude) -> Result<Vec<String>, Unchecked> {
    let (dir, pathspec) = if project.is_dir() {
        (project.to_path_buf(), PathBuf::from("."))
    } else {
        let parent = project.parent().unwrap_or(Path::new("."));
        let name = project.file_name().map_or_else(PathBuf::new, PathBuf::from);
        (parent.to_path_buf(), name)
    };
    let top = work_tree_top(&dir, project)?;
    // Ignored files are listed too (`!!`, a wholly ignored directory as
    // one entry): only those a committed rule ignores are left out. So are
    // the `.gitignore` files above the project, whose rules reach into it.
    let above = gitignores_above(project, &top);
    let listing = status(&dir, &pathspec, &above)?;
    let mut entries = entries(&listing);
    // The listing covers every rule file that can ignore a path of the
    // project: one it does not name as untracked (or inside an untracked
    // directory) is tracked.
    let untracked: HashSet<PathBuf> = (entries.iter())
        .filter(|(_, state)| *state != State::Tracked)
        .map(|(p, _)| top.join(p))
        .collect();
    let hidden: Vec<PathBuf> = (entries.iter())
        .filter(|(_, state)| *state == State::Ignored)
        .map(|(p, _)| top.join(p))
        .collect();
    let hidden: Vec<&Path> = hidden.iter().map(PathBuf::as_path).collect();
    let rules = ignore_rules(&dir, &top, &hidden, Tracked::AllBut(&untracked));
    entries.retain(|(p, state)| *state != State::Ignored || !rules.excused(&top.join(p)));
    if !entries.is_empty() && entries.iter().all(|(_, state)| *state != State::Tracked) {
        let ls = [
            OsStr::new("ls-files"),
            OsStr::new("--"),
            pathspec.as_os_str(),
        ];
        if git(&dir, "ls-files", &ls)?.is_empty() {
            return Err(Unchecked::NothingCommitted {
                path: project.to_path_buf(),
            });
        }
    }
    Ok(shown_entries(project, &top, entries, &rules, exclude))
}

/// The top of the work tree holding `dir`, where git runs for `project`.
fn work_tree_top(dir: &Path, project: &Path) -> Result<PathBuf, Unchecked> {
    let top = git(dir, "rev-parse", &["rev-parse", "--show-toplevel"]).map_err(|e| match e {
        Unchecked::Failed { message, .. } if message.contains("not a git repository") => {
            Unchecked::NotInWorkTree {
                path: project.to_path_buf(),
            }
        }
        other => other,
    })?;
    Ok(PathBuf::from(
        String::from_utf8_lossy(&top).trim_end_matches(['\n', '\r']),
    ))
}

/// `git status` of `pathspec` and the rule files `above`, ignored files
/// and every untracked one listed.
fn status(dir: &Path, pathspec: &Path, above: &[PathBuf]) -> Result<Vec<u8>, Unchecked> {
    let mut args: Vec<&OsStr> = [
        "status",
        "--porcelain",
        "-z",
        "--untracked-files=all",
        "--ignored=matching",
        "--",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    args.push(pathspec.as_os_str());
    args.extend(above.iter().map(|p| p.as_os_str()));
    git(dir, "status", &args)
}

/// The `entries` of `git status` (relative to the top of the work tree
/// `top`) as isolation shows names, relative to `project`, less what
/// `exclude` leaves out; an ignored one names the rule file that hides it.
fn shown_entries(
    project: &Path,
    top: &Path,
    entries: Vec<(PathBuf, State)>,
    rules: &Ignoring<'_>,
    exclude: &Exclude,
) -> Vec<String> {
    let root = project
        .canonicalize()
        .unwrap_or_else(|_| project.to_path_buf());
    let mut files = Vec::new();
    for (entry, state) in entries {
        let whole = top.join(&entry);
        let rel = whole.strip_prefix(&root).unwrap_or(&whole);
        // What hides an ignored entry is named: `git clean` leaves it.
        let hidden_by = |name: String| match rules.source(&whole) {
            Some(source) if state == State::Ignored => {
                let source = shown_from(&root, top, &top.join(source));
                format!("{name} (ignored by {source}, not a committed rule)")
            }
            _ => name,
        };
        if rel.as_os_str().is_empty() {
            // The project is a single file.
            files.push(shown(Path::new(project.file_name().unwrap_or_default())));
        } else if !whole.starts_with(&root) {
            // A `.gitignore` above the project.
            files.push(hidden_by(shown_from(&root, top, &whole)));
        } else if !exclude.leaves_out(rel) {
            files.push(hidden_by(shown(rel)));
        }
    }
    files
}

/// The `.gitignore` files of the directories from the top of the work tree
/// `top` down to the one holding `project` (a directory's own is inside
/// it): their rules reach into the project.
fn gitignores_above(project: &Path, top: &Path) -> Vec<PathBuf> {
    let project = project
        .canonicalize()
        .unwrap_or_else(|_| project.to_path_buf());
    (project.ancestors().skip(1))
        .take_while(|a| a.starts_with(top))
        .map(|a| a.join(".gitignore"))
        .collect()
}

/// The rule files outside a golden project that decide what git ignores
/// in it, each with the sha256 of its content (None where there is
/// none), as they were when its case started: the `.gitignore` files
/// above it, `$GIT_DIR/info/exclude`, and the file `core.excludesFile`
/// names (git's default, `$XDG_CONFIG_HOME/git/ignore`, when unset). The
/// project's own `.gitignore` files are in its fingerprint. A run that
/// writes one of them has changed what git ignores: that is a change of
/// its own, and the file excuses nothing.
#[derive(Debug)]
pub(crate) struct IgnoreRules {
    /// Where git runs: the project, or its file's directory.
    dir: PathBuf,
    /// The project, its links resolved.
    root: PathBuf,
    /// The top of the work tree.
    top: PathBuf,
    /// Each rule file and its digest; the excludes file last.
    files: Vec<(PathBuf, Option<String>)>,
}

impl IgnoreRules {
    /// The rule files of `project` now (before its case runs); None
    /// outside a git work tree or without git.
    pub(crate) fn look(project: &Path) -> Option<IgnoreRules> {
        let dir = if project.is_dir() {
            project.to_path_buf()
        } else {
            project.parent()?.to_path_buf()
        };
        let out = git(
            &dir,
            "rev-parse",
            &["rev-parse", "--show-toplevel", "--git-path", "info/exclude"],
        )
        .ok()?;
        let out = String::from_utf8_lossy(&out);
        let mut lines = out.lines();
        let top = PathBuf::from(lines.next()?);
        let info_exclude = resolved(&dir.join(lines.next()?));
        let mut files = gitignores_above(project, &top);
        files.push(info_exclude);
        files.push(excludes_file(&dir));
        let root = project
            .canonicalize()
            .unwrap_or_else(|_| project.to_path_buf());
        Some(IgnoreRules {
            files: (files.into_iter())
                .map(|f| {
                    let d = digest(&f);
                    (f, d)
                })
                .collect(),
            dir,
            root,
            top,
        })
    }

    /// The rule files the run wrote (added, changed or removed), or the
    /// excludes file `core.excludesFile` now names instead, named as the
    /// project sees them (`../.git/info/exclude`); and the paths of those
    /// it wrote.
    fn written(&self) -> (Changes, HashSet<PathBuf>) {
        let mut c = Changes::default();
        let mut paths = HashSet::new();
        for (file, before) in &self.files {
            let name = shown_from(&self.root, &self.top, file);
            match (before, digest(file)) {
                (None, Some(_)) => c.added.push(name),
                (Some(_), None) => c.removed.push(name),
                (Some(a), Some(b)) if *a != b => c.changed.push(format!("{name} (content)")),
                _ => continue,
            }
            paths.insert(file.clone());
        }
        let excludes = excludes_file(&self.dir);
        if self
            .files
            .last()
            .is_some_and(|(named, _)| *named != excludes)
        {
            let name = shown_from(&self.root, &self.top, &excludes);
            c.changed
                .push(format!("{name} (now named by core.excludesFile)"));
        }
        (c, paths)
    }
}

/// What a `check` run changed in `project` from `before` to `now`, less
/// what git ignores by the rules `rules` held when the case started: each
/// change whose ignoring rule (the one git's precedence picks) lies in a
/// tracked `.gitignore` the run did not write. Such a file says now what
/// it said then, and only a `.gitignore` can outrank it (`info/exclude`
/// and the excludes file rank below every `.gitignore`), so a rule the
/// run added anywhere excuses nothing. A rule file the run wrote outside
/// the project is itself a change.
pub(crate) fn unignored_changes(
    project: &Path,
    rules: Option<&IgnoreRules>,
    before: &Fingerprint,
    now: &Fingerprint,
) -> Changes {
    let mut c = before.diff(now);
    let Some(rules) = rules else {
        return c;
    };
    let (written, outside) = rules.written();
    if !c.is_empty() {
        let changed = before.changed_paths(now);
        let ignored = ignored(project, &rules.top, &changed, outside);
        let ignored: HashSet<PathBuf> = ignored.into_iter().map(Path::to_path_buf).collect();
        if !ignored.is_empty() {
            c = before.diff_except(now, &ignored);
        }
    }
    c.added.extend(written.added);
    c.changed.extend(written.changed);
    c.removed.extend(written.removed);
    c
}

/// `path` with its links resolved as far as it exists: its directory's,
/// when it does not.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (
        path.parent().and_then(|d| d.canonicalize().ok()),
        path.file_name(),
    ) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// The file `core.excludesFile` names for git in `dir`, or git's default
/// (`$XDG_CONFIG_HOME/git/ignore`, else `~/.config/git/ignore`).
fn excludes_file(dir: &Path) -> PathBuf {
    let configured = git(
        dir,
        "config",
        &["config", "--path", "--get", "core.excludesFile"],
    )
    .ok()
    .map(|o| {
        String::from_utf8_lossy(&o)
            .trim_end_matches(['\n', '\r'])
            .to_string()
    })
    .filter(|p| !p.is_empty());
    if let Some(p) = configured {
        return resolved(&dir.join(p));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    config.map_or_else(PathBuf::new, |c| resolved(&c.join("git/ignore")))
}

/// The sha256 of the file at `path`; None where there is none (or it
/// cannot be read).
fn digest(path: &Path) -> Option<String> {
    crate::untrusted::read(path)
        .ok()
        .map(|b| crate::hash::sha256_hex(&b))
}

/// `file` as seen from the project `root` in the work tree `top`:
/// relative, through `..` from the directory both lie in, when both lie
/// in the work tree; else as it is.
fn shown_from(root: &Path, top: &Path, file: &Path) -> String {
    if let Ok(rel) = file.strip_prefix(root) {
        return shown(rel);
    }
    if !(root.starts_with(top) && file.starts_with(top)) {
        return file.display().to_string();
    }
    let common = (root.ancestors())
        .find(|a| file.starts_with(a))
        .unwrap_or(top);
    let up = root
        .strip_prefix(common)
        .map_or(0, |d| d.components().count());
    let rest = file.strip_prefix(common).unwrap_or(file);
    format!("{}{}", "../".repeat(up), shown(rest))
}

/// Of `paths` (relative to `project`, a directory, in the work tree
/// `top`), those a committed rule ignores (see [`ignore_rules`]), with
/// the directories whose every entry it ignores: empty outside git or
/// without it. Untracked files only: a committed file stays a change
/// whatever `.gitignore` says. A `.gitignore` among `paths`, or among
/// `outside` (rule files above the project the run wrote), excuses
/// nothing.
fn ignored<'p>(
    project: &Path,
    top: &Path,
    paths: &[&'p Path],
    outside: HashSet<PathBuf>,
) -> Vec<&'p Path> {
    if paths.is_empty() || !project.is_dir() {
        return Vec::new();
    }
    let root = project
        .canonicalize()
        .unwrap_or_else(|_| project.to_path_buf());
    let mut written = outside;
    written.extend(paths.iter().map(|p| root.join(p)));
    let rules = ignore_rules(project, top, paths, Tracked::Ask { but: &written });
    let is_named = |p: &Path| rules.excused(p);
    let mut found: Vec<&Path> = paths.iter().copied().filter(|p| is_named(p)).collect();
    // An entry inside an ignored directory is ignored with it.
    found.extend(paths.iter().copied().filter(|p| {
        !is_named(p)
            && p.ancestors()
                .skip(1)
                .any(|a| !a.as_os_str().is_empty() && is_named(a))
    }));
    found
}

/// What `git check-ignore -v` says of some paths: for each one git
/// ignores, the rule file that ignores it, and whether that file is a
/// tracked `.gitignore` the run did not write (a committed rule, which
/// excuses it).
struct Ignoring<'p> {
    /// By path as asked: the rule's file, as git names it, and whether it
    /// excuses.
    by: std::collections::HashMap<&'p [u8], (String, bool)>,
}

impl Ignoring<'_> {
    /// `path` is ignored by a committed rule.
    fn excused(&self, path: &Path) -> bool {
        self.by
            .get(path.as_os_str().as_encoded_bytes())
            .is_some_and(|(_, committed)| *committed)
    }

    /// The rule file that ignores `path`, if one does.
    fn source(&self, path: &Path) -> Option<&str> {
        (self.by.get(path.as_os_str().as_encoded_bytes())).map(|(source, _)| source.as_str())
    }
}

/// How [`ignore_rules`] tells which `.gitignore` files are tracked.
enum Tracked<'a> {
    /// Ask `git ls-files`; those in `but` (absolute: rule files the run
    /// wrote) count as untracked whatever git says.
    Ask {
        /// Written by the run.
        but: &'a HashSet<PathBuf>,
    },
    /// Every one but those in the set, or inside one of its directories
    /// (absolute: the untracked and ignored entries of a `git status`
    /// listing that covers them).
    AllBut(&'a HashSet<PathBuf>),
}

/// Ask git in `dir` (of the work tree `top`) which rule ignores each of
/// `paths` (relative to `dir`, or absolute), and which of those rules
/// are committed: in a `.gitignore` that is tracked (as `tracked` tells).
/// Knows nothing outside git or without it.
fn ignore_rules<'p>(
    dir: &Path,
    top: &Path,
    paths: &[&'p Path],
    tracked: Tracked<'_>,
) -> Ignoring<'p> {
    let mut out = Ignoring {
        by: std::collections::HashMap::new(),
    };
    if paths.is_empty() {
        return out;
    }
    let Some(listed) = check_ignore(dir, paths) else {
        return out;
    };
    let found = ignoring(&listed);
    let tracked = tracked_gitignores(dir, top, &found, tracked);
    let asked: std::collections::HashMap<&[u8], &'p Path> = (paths.iter())
        .map(|p| (p.as_os_str().as_encoded_bytes(), *p))
        .collect();
    for (path, source) in found {
        if let Some(path) = asked.get(path) {
            let committed = tracked.contains(&source);
            out.by
                .insert(path.as_os_str().as_encoded_bytes(), (source, committed));
        }
    }
    out
}

/// What `git check-ignore` in `dir` says of `paths`: records of four
/// fields; None when none is ignored, or no answer.
fn check_ignore(dir: &Path, paths: &[&Path]) -> Option<Vec<u8>> {
    let mut input = Vec::new();
    for p in paths {
        input.extend_from_slice(p.as_os_str().as_encoded_bytes());
        input.push(0);
    }
    let listed = Command::new("git")
        .current_dir(dir)
        .args(["check-ignore", "-v", "-z", "--stdin"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut child| {
            // The list is written from a thread of its own: git answers
            // as it reads, and a long list would fill both pipes.
            let mut stdin = child.stdin.take();
            let writer = std::thread::spawn(move || {
                use std::io::Write as _;
                stdin.as_mut().map_or(Ok(()), |s| s.write_all(&input))
            });
            let out = child.wait_with_output();
            let _ = writer.join();
            out
        });
    // Exit 1: none is ignored; anything but 0 or 1 is no answer.
    let listed = listed.ok().filter(|o| o.status.code() == Some(0))?;
    Some(listed.stdout)
}

/// The paths `git check-ignore -v -z` lists as ignored, each with the
/// rule file that ignores it.
fn ignoring(listed: &[u8]) -> Vec<(&[u8], String)> {
    // Records of four fields: the rule's file, its line, the pattern, the
    // path as asked. A `!` pattern that matches un-ignores the path.
    let fields: Vec<&[u8]> = listed.split(|b| *b == 0).collect();
    let mut found: Vec<(&[u8], String)> = Vec::new();
    for record in fields.chunks_exact(4) {
        let [source, _, pattern, path] = record else {
            continue;
        };
        if pattern.starts_with(b"!") || path.is_empty() {
            continue;
        }
        found.push((path, String::from_utf8_lossy(source).into_owned()));
    }
    found
}

/// Which of the `.gitignore` files named in `found` are tracked (git
/// names them from the top of the work tree `top`), as `tracked` tells.
fn tracked_gitignores(
    dir: &Path,
    top: &Path,
    found: &[(&[u8], String)],
    tracked: Tracked<'_>,
) -> HashSet<String> {
    let candidates: HashSet<&str> = (found.iter().map(|(_, s)| s.as_str()))
        .filter(|s| {
            Path::new(s).file_name() == Some(OsStr::new(".gitignore"))
                && !Path::new(s).is_absolute()
        })
        .collect();
    match tracked {
        Tracked::AllBut(untracked) => (candidates.into_iter())
            .filter(|s| !top.join(s).ancestors().any(|a| untracked.contains(a)))
            .map(str::to_string)
            .collect(),
        Tracked::Ask { but } => {
            let asked: Vec<&str> = (candidates.into_iter())
                .filter(|s| !but.contains(&top.join(s)))
                .collect();
            let mut args = vec![
                "ls-files".to_string(),
                "-z".into(),
                "--full-name".into(),
                "--".into(),
            ];
            args.extend(asked.iter().map(|s| format!(":(top,literal){s}")));
            let listed = match asked.is_empty() {
                true => Vec::new(),
                false => git(dir, "ls-files", &args).unwrap_or_default(),
            };
            (listed.split(|b| *b == 0))
                .filter(|n| !n.is_empty())
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .collect()
        }
    }
}

/// The commit checked out in the git work tree holding `dir`, and whether
/// tracked files differ from it; both `None` outside git (or without it).
/// Untracked files do not count: an out dir inside the tree is one.
pub(crate) fn revision(dir: &Path) -> crate::wire::history::Revision {
    let Ok(head) = git(dir, "rev-parse", &["rev-parse", "--verify", "HEAD"]) else {
        return crate::wire::history::Revision::default();
    };
    let commit = String::from_utf8_lossy(&head).trim().to_string();
    let dirty = git(
        dir,
        "status",
        &["status", "--porcelain", "--untracked-files=no"],
    )
    .ok()
    .map(|out| !out.is_empty());
    crate::wire::history::Revision {
        commit: Some(commit).filter(|c| !c.is_empty()),
        dirty,
    }
}

/// What `git status` says of an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Tracked, and modified, staged or deleted.
    Tracked,
    /// Untracked (`??`).
    Untracked,
    /// Untracked and ignored (`!!`).
    Ignored,
}

/// The paths of `git status --porcelain -z` output, relative to the top
/// of the work tree, each with its state: each record is `XY path`, a
/// rename or copy followed by its source path, which is not listed (its
/// removal is its own record when it lies in the project).
fn entries(listing: &[u8]) -> Vec<(PathBuf, State)> {
    let mut out = Vec::new();
    let mut records = listing.split(|&b| b == 0).filter(|r| !r.is_empty());
    while let Some(record) = records.next() {
        let Some(path) = record.get(3..) else {
            continue;
        };
        if matches!(record[0], b'R' | b'C') {
            records.next();
        }
        let path = path.strip_suffix(b"/").unwrap_or(path);
        let state = if record.starts_with(b"??") {
            State::Untracked
        } else if record.starts_with(b"!!") {
            State::Ignored
        } else {
            State::Tracked
        };
        out.push((path_of(path), state));
    }
    out
}

#[cfg(unix)]
fn path_of(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// `git <args>` in `dir`, its stdout when it succeeds. Optional locks are
/// off: reading the status never rewrites the index.
fn git<S: AsRef<OsStr>>(
    dir: &Path,
    command: &'static str,
    args: &[S],
) -> Result<Vec<u8>, Unchecked> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                Unchecked::NoGit(e)
            } else {
                Unchecked::Failed {
                    command,
                    dir: dir.to_path_buf(),
                    message: e.to_string(),
                }
            }
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(Unchecked::Failed {
            command,
            dir: dir.to_path_buf(),
            message: stderr.lines().next().unwrap_or("").to_string(),
        });
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_file_outside_the_project_is_named_as_the_project_sees_it() {
        let (root, top) = (Path::new("/r/golden/shop"), Path::new("/r"));
        let shown = |f: &str| shown_from(root, top, Path::new(f));
        assert_eq!(
            shown("/r/golden/shop/models/.gitignore"),
            "models/.gitignore"
        );
        assert_eq!(shown("/r/.git/info/exclude"), "../../.git/info/exclude");
        assert_eq!(shown("/r/golden/.gitignore"), "../.gitignore");
        assert_eq!(
            shown("/home/u/.config/git/ignore"),
            "/home/u/.config/git/ignore"
        );
    }

    #[test]
    fn porcelain_records_are_read_with_renames_and_spaces() {
        let listing = b"?? a b.txt\0R  new.txt\0old.txt\0 M dir/c\0?? sub/\0!! target/\0";
        let read: Vec<_> = entries(listing)
            .into_iter()
            .map(|(p, state)| (p.to_string_lossy().into_owned(), state))
            .collect();
        assert_eq!(
            read,
            [
                ("a b.txt", State::Untracked),
                ("new.txt", State::Tracked),
                ("dir/c", State::Tracked),
                ("sub", State::Untracked),
                ("target", State::Ignored),
            ]
            .map(|(p, u)| (p.to_string(), u))
        );
    }
}
