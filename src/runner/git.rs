//! Golden projects left dirty: where a project lies in a git work tree,
//! its uncommitted changes (modified, staged, deleted and untracked files
//! that `.gitignore` does not leave out) are read with `git status` before
//! its case runs. A change a failed run left behind then fails the next
//! run too, instead of becoming the new normal.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::isolation::{Exclude, shown};

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
    let top = git(&dir, "rev-parse", &["rev-parse", "--show-toplevel"]).map_err(|e| match e {
        Unchecked::Failed { message, .. } if message.contains("not a git repository") => {
            Unchecked::NotInWorkTree {
                path: project.to_path_buf(),
            }
        }
        other => other,
    })?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim_end_matches(['\n', '\r']));
    let mut args: Vec<&OsStr> = ["status", "--porcelain", "-z", "--untracked-files=all", "--"]
        .iter()
        .map(OsStr::new)
        .collect();
    args.push(pathspec.as_os_str());
    let listing = git(&dir, "status", &args)?;
    let entries = entries(&listing);
    if !entries.is_empty() && entries.iter().all(|(_, untracked)| *untracked) {
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
    let root = project
        .canonicalize()
        .unwrap_or_else(|_| project.to_path_buf());
    let mut files = Vec::new();
    for (entry, _) in entries {
        let whole = top.join(entry);
        let rel = whole.strip_prefix(&root).unwrap_or(&whole);
        if rel.as_os_str().is_empty() {
            // The project is a single file.
            files.push(shown(Path::new(project.file_name().unwrap_or_default())));
        } else if !exclude.leaves_out(rel) {
            files.push(shown(rel));
        }
    }
    Ok(files)
}

/// Of `paths` (relative to `project`, a directory), those git ignores
/// (`.gitignore`, `.git/info/exclude`, the global excludes), with the
/// directories whose every entry it ignores: empty outside git or
/// without it. Untracked files only: a committed file stays a change
/// whatever `.gitignore` says.
pub(crate) fn ignored<'p>(project: &Path, paths: &[&'p Path]) -> Vec<&'p Path> {
    if paths.is_empty() || !project.is_dir() {
        return Vec::new();
    }
    let mut input = Vec::new();
    for p in paths {
        input.extend_from_slice(p.as_os_str().as_encoded_bytes());
        input.push(0);
    }
    let listed = Command::new("git")
        .current_dir(project)
        .args(["check-ignore", "-z", "--stdin"])
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
    let Some(out) = listed.ok().filter(|o| o.status.code() == Some(0)) else {
        return Vec::new();
    };
    let names: std::collections::HashSet<&[u8]> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty())
        .collect();
    let is_named = |p: &Path| names.contains(p.as_os_str().as_encoded_bytes());
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

/// The paths of `git status --porcelain -z` output, relative to the top
/// of the work tree, each with whether it is untracked: each record is
/// `XY path`, a rename or copy followed by its source path, which is not
/// listed (its removal is its own record when it lies in the project).
fn entries(listing: &[u8]) -> Vec<(PathBuf, bool)> {
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
        out.push((path_of(path), record.starts_with(b"??")));
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
    fn porcelain_records_are_read_with_renames_and_spaces() {
        let listing = b"?? a b.txt\0R  new.txt\0old.txt\0 M dir/c\0?? sub/\0";
        let read: Vec<_> = entries(listing)
            .into_iter()
            .map(|(p, untracked)| (p.to_string_lossy().into_owned(), untracked))
            .collect();
        assert_eq!(
            read,
            [
                ("a b.txt", true),
                ("new.txt", false),
                ("dir/c", false),
                ("sub", true)
            ]
            .map(|(p, u)| (p.to_string(), u))
        );
    }
}
