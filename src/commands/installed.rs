//! Where the running `cargo-golden` came from, so `init` writes a
//! dev-dependency (and a CI install step) from the same source: cargo
//! records each binary it installs, with the source of its package, in
//! `.crates2.json` beside the `bin/` directory it installed into
//! (`$CARGO_HOME`, or the `--root` given to `cargo install`).
//!
//! A record's key reads `NAME VERSION (SOURCE)`, where SOURCE is
//! `registry+URL` (or `sparse+URL`), `git+URL[?branch=…]#REV` or
//! `path+file://DIR`.

use std::path::{Path, PathBuf};

/// The package `init` depends on and the binary it looks for.
const CRATE_NAME: &str = "cargo-golden";
/// Cargo's record of installed binaries, beside `bin/`.
const RECORD: &str = ".crates2.json";

/// Where a package came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A registry (crates.io), at this version.
    Registry(String),
    /// A git repository at a commit.
    Git {
        /// The repository URL, without query or fragment.
        url: String,
        /// The commit installed.
        rev: String,
    },
    /// A local checkout.
    Path(PathBuf),
}

/// How the running binary was installed, if cargo recorded it: its
/// source and the record that said so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Installed {
    /// Where the package came from.
    pub(crate) source: Source,
    /// The `.crates2.json` read.
    pub(crate) record: PathBuf,
}

/// The install record of the running binary: `.crates2.json` one level
/// above the directory of the executable, when it lists `cargo-golden`.
pub(crate) fn running() -> Option<Installed> {
    let exe = std::env::current_exe().ok()?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let root = exe.parent()?.parent()?;
    let record = root.join(RECORD);
    let text = crate::untrusted::read_to_string(&record).ok()?;
    let source = from_record(&text)?;
    Some(Installed { source, record })
}

/// The source of `cargo-golden` in the text of a `.crates2.json`.
fn from_record(text: &str) -> Option<Source> {
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    json.get("installs")?
        .as_object()?
        .iter()
        .filter(|(_, v)| {
            v.get("bins")
                .and_then(|b| b.as_array())
                .is_some_and(|b| b.iter().any(|n| n.as_str() == Some(CRATE_NAME)))
        })
        .find_map(|(key, _)| parse_key(key))
}

/// The source of a record key `NAME VERSION (SOURCE)` for `cargo-golden`.
fn parse_key(key: &str) -> Option<Source> {
    let mut parts = key.splitn(3, ' ');
    let (name, version, source) = (parts.next()?, parts.next()?, parts.next()?);
    if name != CRATE_NAME {
        return None;
    }
    let source = source.strip_prefix('(')?.strip_suffix(')')?;
    let (kind, rest) = source.split_once('+')?;
    match kind {
        "registry" | "sparse" => Some(Source::Registry(version.to_string())),
        "git" => {
            let (url, rev) = rest.split_once('#')?;
            let url = url.split('?').next().unwrap_or(url);
            Some(Source::Git {
                url: url.to_string(),
                rev: rev.to_string(),
            })
        }
        "path" => Some(Source::Path(file_url_path(rest)?)),
        _ => None,
    }
}

/// The path of a `file://` URL, percent-decoded.
fn file_url_path(url: &str) -> Option<PathBuf> {
    let raw = url.strip_prefix("file://")?;
    // Windows: `file:///C:/x` names `C:/x`.
    let raw = match raw.as_bytes() {
        [b'/', _, b':', ..] => &raw[1..],
        _ => raw,
    };
    let mut bytes = Vec::with_capacity(raw.len());
    let mut it = raw.bytes();
    while let Some(b) = it.next() {
        if b == b'%' {
            let hex = [it.next()?, it.next()?];
            let hex = std::str::from_utf8(&hex).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
        } else {
            bytes.push(b);
        }
    }
    Some(PathBuf::from(String::from_utf8(bytes).ok()?))
}

/// Whether `dir` is a checkout of this package (its Cargo.toml names it).
pub(crate) fn is_checkout(dir: &Path) -> bool {
    crate::untrusted::read_to_string(&dir.join("Cargo.toml")).is_ok_and(|t| {
        t.parse::<toml_edit::DocumentMut>()
            .ok()
            .and_then(|d| d.get("package")?.get("name")?.as_str().map(str::to_string))
            .as_deref()
            == Some(CRATE_NAME)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_keys_of_each_source() {
        assert_eq!(
            parse_key("cargo-golden 0.1.0 (registry+https://github.com/rust-lang/crates.io-index)"),
            Some(Source::Registry("0.1.0".into()))
        );
        assert_eq!(
            parse_key(
                "cargo-golden 0.1.0 (git+https://example.com/o/cargo-golden?branch=main#0123abcd)"
            ),
            Some(Source::Git {
                url: "https://example.com/o/cargo-golden".into(),
                rev: "0123abcd".into()
            })
        );
        assert_eq!(
            parse_key("cargo-golden 0.1.0 (path+file:///src/my%20checkout)"),
            Some(Source::Path(PathBuf::from("/src/my checkout")))
        );
        assert_eq!(parse_key("cargo-nextest 0.9.1 (path+file:///src/x)"), None);
    }

    #[test]
    fn the_record_entry_is_the_one_that_installed_the_binary() {
        let text = r#"{"installs":{
            "ripgrep 14.0.0 (registry+https://github.com/rust-lang/crates.io-index)":{"bins":["rg"]},
            "cargo-golden 0.1.0 (path+file:///w/cargo-golden)":{"bins":["cargo-golden"]}}}"#;
        assert_eq!(
            from_record(text),
            Some(Source::Path(PathBuf::from("/w/cargo-golden")))
        );
        assert_eq!(from_record("{}"), None);
    }
}
