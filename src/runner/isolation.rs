//! Golden immutability: fingerprints of a project's files before and after
//! a run (`isolation = "check"`), and fresh copies (`isolation = "copy"`).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use sha2::{Digest, Sha256};

/// sha256 of every file below a root, by sorted relative path.
#[derive(Debug, PartialEq, Eq)]
pub struct Fingerprint(BTreeMap<String, [u8; 32]>);

/// What changed between two fingerprints.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files that appeared.
    pub added: Vec<String>,
    /// Files whose content changed.
    pub changed: Vec<String>,
    /// Files that disappeared.
    pub removed: Vec<String>,
}

impl Changes {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }

    /// `added: a, b; changed: c; removed: d`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (label, list) in [
            ("added", &self.added),
            ("changed", &self.changed),
            ("removed", &self.removed),
        ] {
            if !list.is_empty() {
                parts.push(format!("{label}: {}", list.join(", ")));
            }
        }
        parts.join("; ")
    }
}

fn globs(ignore: &[String]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in ignore {
        // Validated when the declarations were loaded.
        if let Ok(glob) = Glob::new(g) {
            b.add(glob);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Fingerprint `root` (a directory, or a single file), skipping paths that
/// match `ignore` (relative, `/`-separated).
pub fn fingerprint(root: &Path, ignore: &[String]) -> io::Result<Fingerprint> {
    let set = globs(ignore);
    let mut map = BTreeMap::new();
    if root.is_file() {
        map.insert(String::new(), hash_file(root)?);
        return Ok(Fingerprint(map));
    }
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        let entry = entry.map_err(io::Error::other)?;
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .replace('\\', "/");
        if rel.is_empty() || set.is_match(&rel) {
            continue;
        }
        let ft = entry.file_type();
        if ft.is_file() {
            map.insert(rel, hash_file(entry.path())?);
        } else if ft.is_symlink() {
            let target = std::fs::read_link(entry.path())?;
            map.insert(
                rel,
                Sha256::digest(target.to_string_lossy().as_bytes()).into(),
            );
        }
    }
    Ok(Fingerprint(map))
}

fn hash_file(p: &Path) -> io::Result<[u8; 32]> {
    let mut h = Sha256::new();
    crate::hash::hash_file_into(&mut h, p)?;
    Ok(h.finalize().into())
}

impl Fingerprint {
    /// What changed from `self` to `after`.
    pub fn diff(&self, after: &Fingerprint) -> Changes {
        let name = |k: &String| {
            if k.is_empty() {
                "(the project file)".to_string()
            } else {
                k.clone()
            }
        };
        let mut c = Changes::default();
        for (k, v) in &after.0 {
            match self.0.get(k) {
                None => c.added.push(name(k)),
                Some(old) if old != v => c.changed.push(name(k)),
                Some(_) => {}
            }
        }
        for k in self.0.keys() {
            if !after.0.contains_key(k) {
                c.removed.push(name(k));
            }
        }
        c
    }
}

/// Copy `src` (file or directory) into the fresh directory `dest_parent`,
/// keeping its name; returns the copy's path.
pub fn copy_into(src: &Path, dest_parent: &Path) -> io::Result<PathBuf> {
    let name = src
        .file_name()
        .map_or_else(|| "project".into(), |n| n.to_os_string());
    let dest = dest_parent.join(name);
    if src.is_file() {
        std::fs::copy(src, &dest)?;
        return Ok(dest);
    }
    for entry in walkdir::WalkDir::new(src).follow_links(false) {
        let entry = entry.map_err(io::Error::other)?;
        let rel = entry.path().strip_prefix(src).unwrap_or(entry.path());
        let to = dest.join(rel);
        let ft = entry.file_type();
        if ft.is_dir() {
            std::fs::create_dir_all(&to)?;
        } else if ft.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &to)?;
        } else {
            std::fs::copy(entry.path(), &to)?;
        }
    }
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_added_changed_removed_and_ignores_globs() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a"), "1").unwrap();
        std::fs::write(d.path().join("b"), "1").unwrap();
        std::fs::create_dir(d.path().join("target")).unwrap();
        let ignore = vec!["target/**".to_string()];
        let before = fingerprint(d.path(), &ignore).unwrap();
        std::fs::write(d.path().join("a"), "2").unwrap();
        std::fs::remove_file(d.path().join("b")).unwrap();
        std::fs::write(d.path().join("c"), "1").unwrap();
        std::fs::write(d.path().join("target/out"), "x").unwrap();
        let c = before.diff(&fingerprint(d.path(), &ignore).unwrap());
        assert_eq!(c.added, vec!["c"]);
        assert_eq!(c.changed, vec!["a"]);
        assert_eq!(c.removed, vec!["b"]);
        assert_eq!(c.describe(), "added: c; changed: a; removed: b");
    }
}
