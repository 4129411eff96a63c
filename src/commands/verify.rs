//! `cargo golden verify-evidence`: recompute every evidence hash from the
//! artifact files and compare it with the one recorded in `evidence.json`.
//!
//! The hash (SPEC section 5) is
//! `sha256(command.txt + "|" + stdout.log + "|" + stderr.log + "|" + exit_code)`
//! with the exit code in decimal, empty when there is none. Output files can
//! be gigabytes, so they are streamed through the hasher, never read whole.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::hash::hex;
use crate::layout::Artifacts;
use crate::wire::decode_output;
use crate::wire::evidence::Evidence;

/// The marker the engine appends to a truncated output copy.
use crate::runner::capture::TRUNCATION_MARKER;

/// What [`verify_evidence`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Cases whose hash was recomputed and matched.
    pub verified: Vec<Checked>,
    /// Cases whose evidence does not hold up, with what differs.
    pub mismatches: Vec<Mismatch>,
    /// Cases with no evidence to check (NO_EVIDENCE: the command never ran).
    pub not_checked: Vec<Checked>,
}

impl VerifyReport {
    /// Whether verification succeeded: at least one `evidence.json` was
    /// found and none mismatched. Finding nothing to verify is a failure,
    /// so a wrong directory cannot pass for a verified one.
    pub fn is_ok(&self) -> bool {
        self.mismatches.is_empty() && !(self.verified.is_empty() && self.not_checked.is_empty())
    }

    /// Number of `evidence.json` files looked at.
    pub fn total(&self) -> usize {
        self.verified.len() + self.mismatches.len() + self.not_checked.len()
    }
}

/// A case looked at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The case name from `evidence.json`.
    pub case: String,
    /// The `evidence.json` file.
    pub evidence: PathBuf,
}

/// A case whose artifacts do not match its recorded evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The case name (the evidence path when `evidence.json` is unreadable).
    pub case: String,
    /// The `evidence.json` file.
    pub evidence: PathBuf,
    /// Everything that differs, one entry each.
    pub problems: Vec<String>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.case,
            self.problems.join("; "),
            self.evidence.display()
        )
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.verified {
            writeln!(f, "verified     {}", c.case)?;
        }
        for c in &self.not_checked {
            writeln!(
                f,
                "not checked  {} (no evidence: the command did not run)",
                c.case
            )?;
        }
        for m in &self.mismatches {
            writeln!(f, "MISMATCH     {m}")?;
        }
        if self.total() == 0 {
            writeln!(f, "no evidence.json found")?;
        }
        write!(
            f,
            "{} verified, {} mismatched, {} without evidence",
            self.verified.len(),
            self.mismatches.len(),
            self.not_checked.len()
        )
    }
}

/// Verify every `evidence.json` under `dir`: an out dir (every run under
/// `artifacts/`), a run dir (`artifacts/<run_id>`), or one case's
/// execution dir. Errors only when `dir` cannot be walked; problems with
/// individual cases are reported as mismatches.
pub fn verify_evidence(dir: &Path) -> io::Result<VerifyReport> {
    if !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} is not a directory", dir.display()),
        ));
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(io::Error::other)?;
        if entry.file_type().is_file() && entry.file_name() == Artifacts::EVIDENCE {
            files.push(entry.into_path());
        }
    }

    let mut report = VerifyReport::default();
    for path in files {
        verify_one(&path, &mut report);
    }
    Ok(report)
}

fn verify_one(path: &Path, report: &mut VerifyReport) {
    let evidence: Evidence = match std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(e) => e,
        Err(e) => {
            report.mismatches.push(Mismatch {
                case: path.display().to_string(),
                evidence: path.to_path_buf(),
                problems: vec![format!("evidence.json cannot be read: {e}")],
            });
            return;
        }
    };
    let checked = Checked {
        case: evidence.case.clone(),
        evidence: path.to_path_buf(),
    };
    if !crate::wire::is_schema_version(&evidence.schema_version) {
        report.mismatches.push(Mismatch {
            case: checked.case,
            evidence: checked.evidence,
            problems: vec![format!(
                "evidence.json has schema_version {:?}; this cargo-golden reads 1.x.y",
                evidence.schema_version
            )],
        });
        return;
    }
    let Some(recorded) = &evidence.evidence_hash else {
        report.not_checked.push(checked);
        return;
    };

    let mut problems = Vec::new();
    let files = artifact_files(path, evidence.artifacts.as_ref());
    let missing: Vec<&str> = files
        .iter()
        .filter(|(_, p)| !p.is_file())
        .map(|(name, _)| *name)
        .collect();
    if !missing.is_empty() {
        for (name, p) in files.iter().filter(|(n, _)| missing.contains(n)) {
            problems.push(format!("{name} is missing ({})", p.display()));
        }
    } else {
        let [command, stdout, stderr] = [&files[0].1, &files[1].1, &files[2].1];
        match evidence_hash_of_files(command, stdout, stderr, evidence.exit_code) {
            Ok(actual) if actual == *recorded => {}
            Ok(actual) => {
                problems.push(format!(
                    "evidence hash differs: recorded {recorded}, recomputed {actual}"
                ));
                // The hash covers everything; say which part is off where
                // it can be told.
                if !file_equals(command, evidence.raw_command.as_bytes()) {
                    problems.push("command.txt differs from raw_command".to_string());
                }
                for (name, field, file, copy) in [
                    (Artifacts::STDOUT, "stdout", stdout, &evidence.stdout),
                    (Artifacts::STDERR, "stderr", stderr, &evidence.stderr),
                ] {
                    let differs = decode_output(copy, evidence.encoding)
                        .map_or(true, |copy| prefix_differs(file, &copy));
                    if differs {
                        problems.push(format!("{name} differs from the recorded {field}"));
                    }
                }
            }
            Err(e) => problems.push(format!("artifacts cannot be read: {e}")),
        }
    }

    if problems.is_empty() {
        report.verified.push(checked);
    } else {
        report.mismatches.push(Mismatch {
            case: checked.case,
            evidence: checked.evidence,
            problems,
        });
    }
}

/// `command.txt`, `stdout.log`, `stderr.log` of a case. The artifact paths
/// are relative to the out dir, which is found by taking the recorded path
/// of `evidence.json` off its actual path; when that does not fit (the
/// directory was moved or copied), the files are looked for beside
/// `evidence.json`.
fn artifact_files(
    evidence_path: &Path,
    artifacts: Option<&Artifacts>,
) -> [(&'static str, PathBuf); 3] {
    let dir = evidence_path.parent().unwrap_or(Path::new("."));
    let beside = |name: &str| dir.join(name);
    let base = artifacts.and_then(|a| strip_suffix(evidence_path, Path::new(&a.evidence)));
    match (base, artifacts) {
        (Some(base), Some(a)) => [
            (Artifacts::COMMAND, base.join(&a.command)),
            (Artifacts::STDOUT, base.join(&a.stdout)),
            (Artifacts::STDERR, base.join(&a.stderr)),
        ],
        _ => [Artifacts::COMMAND, Artifacts::STDOUT, Artifacts::STDERR].map(|n| (n, beside(n))),
    }
}

/// `path` without the trailing components `suffix`, if it ends with them.
fn strip_suffix(path: &Path, suffix: &Path) -> Option<PathBuf> {
    let p: Vec<_> = path.components().collect();
    let s: Vec<_> = suffix.components().collect();
    if s.is_empty() || s.len() > p.len() || p[p.len() - s.len()..] != s[..] {
        return None;
    }
    Some(p[..p.len() - s.len()].iter().collect())
}

/// The evidence hash of SPEC section 5 over artifact files, streamed.
pub fn evidence_hash_of_files(
    command: &Path,
    stdout: &Path,
    stderr: &Path,
    exit_code: Option<i32>,
) -> io::Result<String> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    for (i, path) in [command, stdout, stderr].into_iter().enumerate() {
        if i > 0 {
            h.update(b"|");
        }
        let mut f = File::open(path)?;
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            h.update(&buf[..n]);
        }
    }
    h.update(b"|");
    if let Some(c) = exit_code {
        h.update(c.to_string().as_bytes());
    }
    Ok(hex(&h.finalize()))
}

/// Whether the file holds exactly `expected` (read no further than needed).
fn file_equals(path: &Path, expected: &[u8]) -> bool {
    match std::fs::metadata(path) {
        Ok(m) if m.len() == expected.len() as u64 => {}
        _ => return false,
    }
    read_prefix(path, expected.len()).is_some_and(|b| b == expected)
}

/// Whether the file disagrees with the truncated copy recorded in
/// `evidence.json` (decoded, so exact): the copy, without its truncation
/// marker, must be the start of the file.
fn prefix_differs(path: &Path, copy: &[u8]) -> bool {
    let (expected, truncated) = match copy.strip_suffix(TRUNCATION_MARKER.as_bytes()) {
        Some(head) => (head, true),
        None => (copy, false),
    };
    let Some(head) = read_prefix(path, expected.len() + 1) else {
        return true;
    };
    if truncated {
        !head.starts_with(expected)
    } else {
        head != expected
    }
}

fn read_prefix(path: &Path, n: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(n);
    File::open(path)
        .ok()?
        .take(n as u64)
        .read_to_end(&mut out)
        .ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_stripping() {
        assert_eq!(
            strip_suffix(
                Path::new("/o/artifacts/r/e.json"),
                Path::new("artifacts/r/e.json")
            ),
            Some(PathBuf::from("/o"))
        );
        assert_eq!(
            strip_suffix(Path::new("/o/x/e.json"), Path::new("artifacts/r/e.json")),
            None
        );
    }
}
