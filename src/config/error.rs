//! Config errors: every problem of a file, each with file:line:col.

use std::fmt;
use std::path::{Path, PathBuf};

use super::tree::Pos;

/// One problem in a declaration file.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// The file.
    pub(crate) file: PathBuf,
    /// Where in it.
    pub(crate) pos: Pos,
    /// What is wrong.
    pub(crate) message: String,
    /// What to do.
    pub(crate) help: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: error: {}",
            crate::layout::display_relative(&self.file),
            self.pos,
            self.message
        )?;
        if let Some(h) = &self.help {
            write!(f, "\n  help: {h}")?;
        }
        Ok(())
    }
}

/// Why declarations could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {}", crate::layout::display_relative(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// No harness file was found; the text says where it was looked for.
    #[error(
        "no harness file found: looked for {0}\n  help: run `cargo golden init`, pass `--config PATH`, or declare projects with `--golden`"
    )]
    NotFound(String),
    /// The file has one or more problems.
    #[error("{}", render(.0))]
    Invalid(Vec<Diagnostic>),
}

fn render(diags: &[Diagnostic]) -> String {
    let mut s = diags
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    if diags.len() > 1 {
        s.push_str(&format!("\n{} errors in the declarations", diags.len()));
    }
    s
}

impl ConfigError {
    /// An error with one diagnostic.
    pub(crate) fn single(file: &Path, pos: Pos, message: &str, help: Option<&str>) -> ConfigError {
        ConfigError::Invalid(vec![Diagnostic {
            file: file.to_path_buf(),
            pos,
            message: message.to_string(),
            help: help.map(str::to_string),
        }])
    }

    /// Whether `e` is a list of diagnostics, each line of which already
    /// says `file:line:col: error:`.
    pub(crate) fn is_diagnostics(e: &(dyn std::error::Error + 'static)) -> bool {
        matches!(
            e.downcast_ref::<ConfigError>(),
            Some(ConfigError::Invalid(_))
        )
    }

    /// The diagnostics (empty for read errors).
    #[cfg(test)]
    pub(crate) fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            ConfigError::Invalid(d) => d,
            _ => &[],
        }
    }
}
