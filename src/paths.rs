//! Path helpers: absolute paths without touching the file system, display
//! relative to the current directory, and case slugs.

use std::path::{Component, Path, PathBuf};

/// `p` made absolute against the current directory, `.` and `..` folded.
pub fn absolute(p: &Path) -> PathBuf {
    absolute_from(
        &std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        p,
    )
}

/// `p` made absolute against `base`, `.` and `..` folded lexically.
pub fn absolute_from(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `p` relative to the current directory when it lies below it.
pub fn display_relative(p: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .filter(|r| !r.as_os_str().is_empty())
        .unwrap_or_else(|| p.to_path_buf())
        .display()
        .to_string()
}

/// A directory name for a case: portable characters only, never `.`/`..`,
/// unique through the declaration index prefix.
pub fn case_slug(index: usize, name: &str) -> String {
    let mut s = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
            s.push(ch.to_ascii_lowercase());
        } else if !s.ends_with('_') {
            s.push('_');
        }
        if s.len() >= 60 {
            break;
        }
    }
    let s = s.trim_matches('_');
    let s = if s.is_empty() { "case" } else { s };
    format!("{:03}-{s}", index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_stay_inside_and_are_unique() {
        let a = case_slug(0, "../../x | y 😀");
        assert_eq!(a, "001-x_y");
        assert!(!a.contains('/') && !a.contains(".."));
        assert_ne!(case_slug(1, "a b"), case_slug(2, "a_b"));
        assert_eq!(case_slug(4, "..."), "005-case");
    }

    #[test]
    fn folds_dots() {
        assert_eq!(
            absolute_from(Path::new("/a/b"), Path::new("../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }
}
