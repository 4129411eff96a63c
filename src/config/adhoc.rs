//! `--golden "a.yaml, sales:golden/sales, D:/x/p.yaml"` ad-hoc declarations.

use std::path::{Path, PathBuf};

/// One ad-hoc golden project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AdhocGolden {
    /// Case name: given, or the path's file stem.
    pub(crate) name: String,
    /// The path as written.
    pub(crate) path: PathBuf,
}

/// Why an ad-hoc entry was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("--golden entry `{entry}`: {reason}")]
pub(crate) struct AdhocError {
    /// The entry as written.
    pub(crate) entry: String,
    /// What is wrong with it.
    pub(crate) reason: String,
}

fn is_drive_path(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && (b.len() == 2 || b[2] == b'/' || b[2] == b'\\')
}

/// Parse a comma-separated list of `name:path` or bare paths.
pub(crate) fn parse(list: &str) -> Result<Vec<AdhocGolden>, AdhocError> {
    let mut out = Vec::new();
    for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let err = |reason: &str| AdhocError {
            entry: entry.to_string(),
            reason: reason.to_string(),
        };
        let (name, path) = match entry.split_once(':') {
            // `D:/x` is a Windows drive letter, not a name.
            Some(_) if is_drive_path(entry) => (None, entry),
            Some((name, path)) => {
                let (name, path) = (name.trim(), path.trim());
                if name.is_empty() {
                    return Err(err("the name before `:` is empty"));
                }
                if path.is_empty() {
                    return Err(err("the path after `:` is empty"));
                }
                (Some(name.to_string()), path)
            }
            None => (None, entry),
        };
        let name = match name {
            Some(n) => n,
            None => Path::new(&path.replace('\\', "/"))
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
                .ok_or_else(|| err("cannot derive a name from this path; write `name:path`"))?,
        };
        out.push(AdhocGolden {
            name,
            path: PathBuf::from(path),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(name: &str, path: &str) -> AdhocGolden {
        AdhocGolden {
            name: name.into(),
            path: path.into(),
        }
    }

    #[test]
    fn parses_named_bare_and_drive_letter_entries() {
        let got = parse("a.yaml, sales:golden/sales, D:/x/p.yaml").unwrap();
        assert_eq!(
            got,
            vec![
                g("a", "a.yaml"),
                g("sales", "golden/sales"),
                g("p", "D:/x/p.yaml")
            ]
        );
    }

    #[test]
    fn drive_letter_with_backslash_and_named_drive_path() {
        assert_eq!(
            parse(r"C:\proj\x.yml").unwrap(),
            vec![g("x", r"C:\proj\x.yml")]
        );
        assert_eq!(parse("n:D:/p.yaml").unwrap(), vec![g("n", "D:/p.yaml")]);
    }

    #[test]
    fn rejects_empty_parts() {
        assert!(parse(":x").is_err(), "{:?}", parse(":x"));
        assert!(parse("sales:").is_err());
        assert_eq!(parse(" , ,").unwrap(), vec![]);
    }
}
