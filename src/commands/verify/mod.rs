//! `cargo golden verify-evidence`: check a run's whole story
//! (docs/evidence.md, Evidence anyone can verify), not just its hashes.
//!
//! - `SHA256SUMS` of the run dir lists every file there, and every file
//!   still has its checksum; no symlink anywhere; with a public key, the
//!   minisign signature of `SHA256SUMS` holds.
//! - Every case of `summary.json` has its evidence: `evidence.json` and
//!   the files its hash covers, at plain paths inside the run dir; the hash
//!   recomputes; the recorded verdict follows from the recorded exit code,
//!   ending, findings and expected outcome (`evidence::rejudge`).
//! - The reports (`summary.json`, `junit.xml`, `report.md`,
//!   `observations.jsonl`) agree with the evidence: the run record is
//!   rebuilt from `summary.json` with every verdict taken from the evidence,
//!   and the integrity check of a run compares each report with it, case by
//!   case. An out dir's reports must be the run's own copies.
//!
//! Any finding names the case (when there is one) and the file.

pub(crate) mod evidence;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use crate::layout::{SIGNATURE_FILE, SUMS_FILE};
use crate::model::RunRecord;
use crate::report::attest::{ENVELOPE_FILE, STATEMENT_FILE, Statement};
use crate::report::{Disagreement, SUMMARY_FILE, report_files};
use evidence::Evidence;

/// One thing that does not hold up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    /// The case it concerns, when it concerns one.
    pub(crate) case: Option<String>,
    /// The file, relative to the run dir (or as given, outside it).
    pub(crate) file: String,
    /// What is wrong.
    pub(crate) message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.case {
            Some(case) => write!(f, "case {case:?}: {}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// How the signature of `SHA256SUMS` stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SignatureCheck {
    /// No public key given and no signature present.
    Unsigned,
    /// A signature is present but no public key was given.
    NotChecked,
    /// Checked with the public key and valid.
    Valid,
    /// Checked and not valid (a finding says why).
    Invalid,
}

/// What [`verify_run`] found.
#[derive(Clone, Debug)]
pub(crate) struct RunReport {
    /// The run id.
    pub(crate) run_id: String,
    /// The run dir checked.
    pub(crate) run_dir: PathBuf,
    /// Cases whose evidence was checked, with their result.
    pub(crate) verified: Vec<(String, String)>,
    /// Cases that never ran (no evidence hash to check).
    pub(crate) without_evidence: Vec<String>,
    /// Everything that does not hold up.
    pub(crate) findings: Vec<Finding>,
    /// The signature.
    pub(crate) signature: SignatureCheck,
    /// The test-result attestation's envelope, when `--attestation` asked
    /// for the attestation to be checked.
    pub(crate) attestation: Option<SignatureCheck>,
    /// The final status the evidence calls for.
    pub(crate) final_status: Option<String>,
    /// The run record rebuilt from `summary.json` with every verdict taken
    /// from the evidence (what `merge` combines); `None` when the summary
    /// cannot be read.
    pub(crate) record: Option<RunRecord>,
}

impl RunReport {
    /// Whether the run holds up: no finding.
    pub(crate) fn is_ok(&self) -> bool {
        self.findings.is_empty()
    }
}

impl fmt::Display for RunReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "run {} ({})", self.run_id, self.run_dir.display())?;
        for (case, result) in &self.verified {
            let found = self.findings.iter().any(|x| x.case.as_ref() == Some(case));
            let label = if found { "MISMATCH" } else { "verified" };
            writeln!(f, "{label:<12} {case} ({result} per its evidence)")?;
        }
        for case in &self.without_evidence {
            writeln!(f, "no evidence  {case} (the command did not run)")?;
        }
        for finding in &self.findings {
            writeln!(f, "FINDING      {finding}")?;
        }
        let signature = match self.signature {
            SignatureCheck::Unsigned => "unsigned: checksums show consistency, not authorship",
            SignatureCheck::NotChecked => "signed, not checked (pass --public-key KEY)",
            SignatureCheck::Valid => "valid (minisign)",
            SignatureCheck::Invalid => "INVALID",
        };
        writeln!(f, "signature    {signature}")?;
        if let Some(check) = &self.attestation {
            let attestation = match check {
                SignatureCheck::Unsigned => "statement checked; unsigned (no envelope)",
                SignatureCheck::NotChecked => {
                    "statement checked; envelope not checked (pass --public-key KEY)"
                }
                SignatureCheck::Valid => "valid (in-toto test-result, DSSE Ed25519)",
                SignatureCheck::Invalid => "INVALID",
            };
            writeln!(f, "attestation  {attestation}")?;
        }
        write!(
            f,
            "{} evidence record(s) verified, {} without evidence, {} finding(s) in run {}",
            self.verified.len(),
            self.without_evidence.len(),
            self.findings.len(),
            self.run_id
        )?;
        match &self.final_status {
            Some(status) if self.is_ok() => write!(f, "; final status {status}")?,
            _ => {}
        }
        Ok(())
    }
}

/// Why a public key, or a run's signature with it, cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SignatureError {
    #[error("cannot read the public key {0}")]
    KeyFile(String, #[source] io::Error),
    #[error("{0} is not a minisign public key")]
    NotKeyFile(String, #[source] minisign::PError),
    #[error("{0:?} is neither a public key file nor a minisign public key")]
    NotKey(String, #[source] minisign::PError),
    #[error(transparent)]
    File(#[from] evidence::EvidenceError),
    #[error("is not a minisign signature")]
    NotSignature(#[source] minisign::PError),
    #[error("{SUMS_FILE} is unreadable")]
    SumsUnreadable,
    #[error("the signature does not match")]
    Mismatch(#[source] minisign::PError),
}

/// A minisign public key: the path of a `.pub` file, or the key itself
/// (the base64 line, as `minisign -P` takes it).
pub(crate) fn read_public_key(arg: &str) -> Result<minisign::PublicKey, SignatureError> {
    let path = Path::new(arg);
    if path.is_file() {
        let text = crate::untrusted::read_to_string(path)
            .map_err(|e| SignatureError::KeyFile(arg.to_string(), e))?;
        let line = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))
            .unwrap_or("");
        minisign::PublicKey::from_base64(line)
            .map_err(|e| SignatureError::NotKeyFile(arg.to_string(), e))
    } else {
        minisign::PublicKey::from_base64(arg.trim())
            .map_err(|e| SignatureError::NotKey(arg.to_string(), e))
    }
}

/// Where the run is: its dir, and the out dir whose reports are its own
/// (when `dir` is an out dir).
fn locate(dir: &Path) -> io::Result<(PathBuf, Option<PathBuf>)> {
    if !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} is not a directory", dir.display()),
        ));
    }
    let in_artifacts = dir
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "artifacts");
    if dir.join(SUMS_FILE).exists() || in_artifacts {
        return Ok((dir.to_path_buf(), None));
    }
    let summary = dir.join(SUMMARY_FILE);
    if !summary.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "{} is neither an out dir (no {SUMMARY_FILE}) nor a run dir (artifacts/<run_id>)",
                dir.display()
            ),
        ));
    }
    let bytes = crate::untrusted::read_limited(&summary, crate::report::REPORT_LIMIT)?;
    let value: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| io::Error::other(format!("{}: {e}", summary.display())))?;
    let run_id = value["run_id"].as_str().unwrap_or("");
    if !evidence::plain_relative(run_id) || run_id.contains('/') {
        return Err(io::Error::other(format!(
            "{}: run_id {run_id:?} does not name a run dir",
            summary.display()
        )));
    }
    Ok((
        dir.join(crate::layout::run_dir(run_id)),
        Some(dir.to_path_buf()),
    ))
}

/// Verify the run of `dir`: an out dir (its latest run, the one its
/// `summary.json` names) or a run dir (`artifacts/<run_id>`). With
/// `public_key`, the signature of `SHA256SUMS` must be present and valid.
/// Errors only when `dir` is not a run at all.
pub(crate) fn verify_run(
    dir: &Path,
    public_key: Option<&minisign::PublicKey>,
) -> io::Result<RunReport> {
    verify_run_with(dir, public_key, false)
}

/// The record of the run of `dir` and its run dir, once [`verify_run`]
/// finds nothing; else what it found, one line each. For what trusts an
/// earlier run (`--failed`, `bless --from`).
pub(crate) fn verified_record(
    dir: &Path,
    public_key: Option<&minisign::PublicKey>,
) -> io::Result<Result<(RunRecord, PathBuf), Vec<String>>> {
    let report = verify_run(dir, public_key)?;
    if !report.is_ok() {
        return Ok(Err(report.findings.iter().map(|f| f.to_string()).collect()));
    }
    Ok(match report.record {
        Some(record) => Ok((record, report.run_dir)),
        None => Err(vec!["it holds no run record".into()]),
    })
}

/// [`verify_run`], and with `attestation` the run's test-result
/// attestation as well: first its envelope's signature over the exact
/// payload (with `public_key`, before the payload is parsed), the payload
/// type, the statement's `_type` and `predicateType`, and its subject
/// digest of `SHA256SUMS`; then every check of [`verify_run`]; then that
/// the predicate's result and test lists are what the evidence makes of
/// them.
pub(crate) fn verify_run_with(
    dir: &Path,
    public_key: Option<&minisign::PublicKey>,
    attestation: bool,
) -> io::Result<RunReport> {
    let (run_dir, out_dir) = locate(dir)?;
    let run_id = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut report = RunReport {
        run_id: run_id.clone(),
        run_dir: run_dir.clone(),
        verified: Vec::new(),
        without_evidence: Vec::new(),
        findings: Vec::new(),
        signature: SignatureCheck::Unsigned,
        attestation: None,
        final_status: None,
        record: None,
    };
    if !run_dir.is_dir() {
        report.findings.push(Finding {
            case: None,
            file: run_dir.display().to_string(),
            message: "the run dir of this run is missing".into(),
        });
        return Ok(report);
    }
    let statement = attestation.then(|| check_statement(&run_dir, public_key, &mut report));
    let record = run_record(&run_dir, &run_id, &mut report);
    let owners = owners(record.as_ref(), &run_id);
    let files = walk(&run_dir, &owners, &mut report.findings);
    let sums = check_sums(&run_dir, &files, &owners, &mut report.findings);
    report.signature = check_signature(&run_dir, sums.as_deref(), public_key, &mut report);
    if let Some(record) = &record {
        check_reports(record, &mut report.findings);
        report.final_status = Some(record.final_status().to_string());
        let referenced: BTreeSet<&str> = owners.keys().map(String::as_str).collect();
        for f in files.iter().filter(|f| f.ends_with("/evidence.json")) {
            if !referenced.contains(f.as_str()) {
                report.findings.push(Finding {
                    case: None,
                    file: f.clone(),
                    message: format!("belongs to no case of {SUMMARY_FILE}"),
                });
            }
        }
        // A pending snapshot no evidence records would be accepted from
        // nothing the run vouches for.
        let pending_dir = format!("/{}/", crate::layout::PENDING_DIR);
        for f in files.iter().filter(|f| f.contains(&pending_dir)) {
            if !referenced.contains(f.as_str()) {
                report.findings.push(Finding {
                    case: None,
                    file: f.clone(),
                    message: "is a pending snapshot no case's evidence records".into(),
                });
            }
        }
    }
    if let Some(out) = out_dir {
        check_out_dir_copies(&out, &run_dir, record.as_ref(), &mut report.findings);
        check_history(&out, &run_id, record.as_ref(), &mut report.findings);
    }
    if let (Some(Some(statement)), Some(record)) = (&statement, &record) {
        for message in crate::report::attest::check_predicate(statement, record) {
            report.findings.push(Finding {
                case: None,
                file: STATEMENT_FILE.into(),
                message,
            });
        }
    }
    report.record = record;
    Ok(report)
}

/// The attestation's checks that come before the evidence's: the
/// envelope (with `public_key`), then the statement's types and its
/// subject digest of `SHA256SUMS`. Records how the envelope stands in
/// `report.attestation`; returns the statement when it could be parsed.
fn check_statement(
    run_dir: &Path,
    public_key: Option<&minisign::PublicKey>,
    report: &mut RunReport,
) -> Option<Statement> {
    let mut finding = |file: &str, message: String| {
        report.findings.push(Finding {
            case: None,
            file: file.to_string(),
            message,
        })
    };
    let read = |name: &str| evidence::read_plain(&run_dir.join(name)).map_err(|e| e.message());
    let envelope_present = run_dir.join(ENVELOPE_FILE).exists();
    let bytes = read(STATEMENT_FILE);
    let mut check = match (public_key, envelope_present) {
        (None, false) => SignatureCheck::Unsigned,
        (None, true) => SignatureCheck::NotChecked,
        (Some(_), _) => SignatureCheck::Valid,
    };
    if let Some(pk) = public_key {
        let opened = read(ENVELOPE_FILE)
            .and_then(|env| crate::report::attest::open_envelope(&env, pk))
            .and_then(|payload| match &bytes {
                Ok(b) if *b == payload => Ok(()),
                Ok(_) => Err(format!("carries another payload than {STATEMENT_FILE}")),
                Err(_) => Ok(()),
            });
        if let Err(e) = opened {
            finding(ENVELOPE_FILE, e);
            check = SignatureCheck::Invalid;
        }
    }
    let statement = bytes
        .and_then(|b| crate::report::attest::parse(&b))
        .map_err(|e| finding(STATEMENT_FILE, e))
        .ok();
    if let (Some(s), Ok(sums)) = (&statement, read(SUMS_FILE)) {
        for problem in crate::report::attest::check_subject(s, &sums) {
            finding(STATEMENT_FILE, problem);
        }
    }
    report.attestation = Some(check);
    statement
}

/// The run record from the run's `summary.json`, every attempt's verdict
/// replaced by what its evidence says, after checking that evidence.
fn run_record(run_dir: &Path, run_id: &str, report: &mut RunReport) -> Option<RunRecord> {
    let path = run_dir.join(SUMMARY_FILE);
    if let Err(e) = evidence::plain_file(&path) {
        report.findings.push(Finding {
            case: None,
            file: SUMMARY_FILE.into(),
            message: e.message(),
        });
        return None;
    }
    let mut record = match crate::report::read_summary(&path) {
        Ok(r) => r,
        Err(e) => {
            report.findings.push(Finding {
                case: None,
                file: SUMMARY_FILE.into(),
                message: crate::conclusion::error_chain(&e),
            });
            return None;
        }
    };
    if record.run_id != run_id {
        report.findings.push(Finding {
            case: None,
            file: SUMMARY_FILE.into(),
            message: format!(
                "names run {:?}, but lies in run dir {run_id:?}",
                record.run_id
            ),
        });
    }
    for case in &mut record.cases {
        let name = case.name.clone();
        for attempt in &mut case.previous_attempts {
            check_attempt(run_dir, run_id, &name, attempt, report);
        }
        check_attempt(run_dir, run_id, &name, case, report);
    }
    Some(record)
}

/// Check one attempt's evidence and take its verdict into `attempt`.
fn check_attempt(
    run_dir: &Path,
    run_id: &str,
    name: &str,
    attempt: &mut crate::model::CaseRecord,
    report: &mut RunReport,
) {
    let mut finding = |file: &str, message: String| {
        report.findings.push(Finding {
            case: Some(name.to_string()),
            file: file.to_string(),
            message,
        })
    };
    let Some(a) = attempt.artifacts.clone() else {
        if attempt.result != crate::model::CaseResult::Skipped {
            finding(
                SUMMARY_FILE,
                format!("result {} without any evidence", attempt.result.as_str()),
            );
        }
        return;
    };
    let path = match evidence::inside_run(run_dir, run_id, &a.evidence) {
        Ok(p) => p,
        Err(e) => return finding(SUMMARY_FILE, e.message()),
    };
    let rel = relative(run_dir, &path);
    let ev = match evidence::read(&path) {
        Ok(ev) => ev,
        Err(e) => return finding(&rel, format!("evidence.json {}", e.message())),
    };
    for problem in evidence::check(run_dir, run_id, &ev) {
        finding(&rel, problem);
    }
    if ev.case != name {
        finding(&rel, format!("names case {:?}", ev.case));
    }
    if ev.run.artifacts.as_ref() != Some(&a) {
        finding(SUMMARY_FILE, format!("artifact paths differ from {rel}"));
    }
    // A case that ran but could not be finished is no "did not run", even
    // without an exit code.
    if evidence::ran(&ev) {
        report
            .verified
            .push((name.to_string(), ev.run.result.as_str().to_string()));
    } else {
        report.without_evidence.push(name.to_string());
    }
    take_verdict(attempt, ev);
}

/// Replace the verdict of `case` by what its evidence says: the evidence,
/// not a summary, decides (`merge` does the same).
pub(crate) fn take_verdict(case: &mut crate::model::CaseRecord, ev: Evidence) {
    case.exit_code = ev.run.exit_code;
    case.signal = ev.run.exit_code.and_then(crate::model::shell_signal);
    case.status = ev.run.status;
    case.execution_status = ev.run.execution_status;
    case.result = ev.run.result;
    case.evidence_hash = ev.run.evidence_hash;
    case.run_issues = crate::model::verdict::run_issues(&ev.run.issues);
    case.issues = ev.run.issues;
    case.validation_errors = ev.run.validation_errors;
    case.flaky = ev.flaky;
    case.timed_out = ev.timed_out;
    case.interrupted = ev.interrupted;
    case.golden_changes = ev.golden_changes;
    case.structured_result = ev.structured_result;
    // The snapshot checks too: what review and `bless --from` accept is
    // what the hash covers, not what a summary says.
    case.snapshots = ev.snapshots;
    if ev.run.status != crate::model::EvidenceStatus::NoEvidence || ev.run.quarantine.is_some() {
        case.quarantine = ev.run.quarantine;
    }
    if let Some(expected) = ev.expected {
        case.expected = expected;
    }
}

/// Which case each artifact file (relative to the run dir) belongs to.
fn owners(record: Option<&RunRecord>, run_id: &str) -> BTreeMap<String, String> {
    let prefix = format!("{}/", crate::layout::run_dir(run_id));
    let mut map = BTreeMap::new();
    for case in record.iter().flat_map(|r| &r.cases) {
        for attempt in case.previous_attempts.iter().chain([case]) {
            if let Some(a) = &attempt.artifacts {
                let dir = a
                    .evidence
                    .strip_prefix(&prefix)
                    .and_then(|e| e.rsplit_once('/'))
                    .map(|(d, _)| d.to_string());
                if let Some(dir) = dir {
                    for f in [
                        crate::layout::Artifacts::COMMAND,
                        crate::layout::Artifacts::STDOUT,
                        crate::layout::Artifacts::STDERR,
                        crate::layout::Artifacts::EVIDENCE,
                    ] {
                        map.insert(format!("{dir}/{f}"), case.name.clone());
                    }
                }
            }
            let kept = attempt
                .structured_result
                .as_ref()
                .and_then(|r| r.artifact.as_deref())
                .and_then(|k| k.strip_prefix(&prefix));
            let pending = (attempt.snapshots.iter())
                .filter_map(|s| s.pending.as_ref()?.path.strip_prefix(&prefix));
            for file in kept.into_iter().chain(pending) {
                map.insert(file.to_string(), case.name.clone());
            }
        }
    }
    map
}

fn relative(run_dir: &Path, path: &Path) -> String {
    path.strip_prefix(run_dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// Every regular file of the run dir (relative, `/`-separated); a symlink
/// or a special file anywhere is a finding.
fn walk(
    run_dir: &Path,
    owners: &BTreeMap<String, String>,
    findings: &mut Vec<Finding>,
) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    for entry in walkdir::WalkDir::new(run_dir)
        .follow_links(false)
        .min_depth(1)
    {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                findings.push(Finding {
                    case: None,
                    file: run_dir.display().to_string(),
                    message: format!("cannot be read: {e}"),
                });
                continue;
            }
        };
        let rel = relative(run_dir, entry.path()).replace('\\', "/");
        let kind = entry.file_type();
        if kind.is_file() {
            files.insert(rel);
        } else if !kind.is_dir() {
            let what = if kind.is_symlink() {
                "is a symlink: evidence must be plain files"
            } else {
                "is not a regular file"
            };
            findings.push(Finding {
                case: owners.get(&rel).cloned(),
                file: rel,
                message: what.into(),
            });
        }
    }
    files
}

/// `SHA256SUMS` lists exactly the run dir's files, each with its current
/// checksum. Returns its bytes for the signature check.
fn check_sums(
    run_dir: &Path,
    files: &BTreeSet<String>,
    owners: &BTreeMap<String, String>,
    findings: &mut Vec<Finding>,
) -> Option<Vec<u8>> {
    let mut finding = |file: &str, message: String| {
        findings.push(Finding {
            case: owners.get(file).cloned(),
            file: file.to_string(),
            message,
        })
    };
    let path = run_dir.join(SUMS_FILE);
    let bytes = match evidence::read_plain(&path) {
        Ok(b) => b,
        Err(e) => {
            finding(SUMS_FILE, e.message());
            return None;
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut listed = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let parsed = line
            .split_once("  ")
            .or_else(|| line.split_once(" *"))
            .filter(|(h, p)| h.len() == 64 && evidence::plain_relative(p));
        let Some((hex, rel)) = parsed else {
            finding(
                SUMS_FILE,
                format!("line {} is not `<sha256>  <relative path>`", n + 1),
            );
            continue;
        };
        listed.insert(rel.to_string());
        if !files.contains(rel) {
            finding(
                rel,
                format!("is listed in {SUMS_FILE} but missing (or not a plain file)"),
            );
            continue;
        }
        match crate::hash::sha256_file(&run_dir.join(rel)) {
            Ok(actual) if actual == hex => {}
            Ok(actual) => finding(
                rel,
                format!("changed: {SUMS_FILE} records sha256 {hex}, the file has {actual}"),
            ),
            Err(e) => finding(rel, format!("cannot be read: {e}")),
        }
    }
    let unlisted = [SUMS_FILE, SIGNATURE_FILE, STATEMENT_FILE, ENVELOPE_FILE];
    for f in files {
        if !unlisted.contains(&f.as_str()) && !listed.contains(f) {
            finding(f, format!("is not listed in {SUMS_FILE}"));
        }
    }
    Some(bytes)
}

fn check_signature(
    run_dir: &Path,
    sums: Option<&[u8]>,
    public_key: Option<&minisign::PublicKey>,
    report: &mut RunReport,
) -> SignatureCheck {
    let path = run_dir.join(SIGNATURE_FILE);
    let present = path.exists();
    let Some(pk) = public_key else {
        return if present {
            SignatureCheck::NotChecked
        } else {
            SignatureCheck::Unsigned
        };
    };
    let result = evidence::plain_file(&path)
        .and_then(|()| {
            crate::untrusted::read_to_string(&path).map_err(evidence::EvidenceError::Unreadable)
        })
        .map_err(SignatureError::from)
        .and_then(|text| {
            minisign::SignatureBox::from_string(&text).map_err(SignatureError::NotSignature)
        })
        .and_then(|sig| {
            let data = sums.ok_or(SignatureError::SumsUnreadable)?;
            minisign::verify(pk, &sig, io::Cursor::new(data), true, false, false)
                .map_err(SignatureError::Mismatch)
        });
    match result {
        Ok(()) => SignatureCheck::Valid,
        Err(e) => {
            report.findings.push(Finding {
                case: None,
                file: SIGNATURE_FILE.into(),
                message: format!(
                    "does not verify {SUMS_FILE} with the given public key: {}",
                    crate::conclusion::error_chain(&e)
                ),
            });
            SignatureCheck::Invalid
        }
    }
}

/// The run's report copies against the record rebuilt from the evidence,
/// with the integrity check a run applies to itself.
fn check_reports(record: &RunRecord, findings: &mut Vec<Finding>) {
    let code = crate::conclusion::Results::of(record).exit_code;
    let Err(e) = crate::report::check_integrity(record, code) else {
        return;
    };
    let in_run_dir = record.out_dir.clone();
    for d in e.disagreements {
        let file = |p: &Path| {
            p.strip_prefix(&in_run_dir)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        };
        let (case, file, message) = match &d {
            Disagreement::Case {
                path,
                case,
                message,
            } => (Some(case.clone()), file(path), message.clone()),
            Disagreement::Unreadable { path, .. }
            | Disagreement::Attestation { path, .. }
            | Disagreement::Count { path, .. }
            | Disagreement::FalseAllClear { path } => {
                let text = d.to_string();
                let prefix = format!("{}: ", path.display());
                let message = text.strip_prefix(&prefix).unwrap_or(&text).to_string();
                (None, file(path), message)
            }
            Disagreement::MissingIssue { case, .. } => {
                (Some(case.clone()), SUMMARY_FILE.to_string(), d.to_string())
            }
            Disagreement::ExitCode { .. } => (None, SUMMARY_FILE.to_string(), d.to_string()),
        };
        findings.push(Finding {
            case,
            file,
            message: format!("{message} (per the evidence)"),
        });
    }
}

/// An out dir's reports must be byte for byte the run's own copies; one
/// that differs is also checked against the evidence, case by case.
fn check_out_dir_copies(
    out: &Path,
    run_dir: &Path,
    record: Option<&RunRecord>,
    findings: &mut Vec<Finding>,
) {
    let mut differing = Vec::new();
    for name in report_files() {
        let outside = out.join(name);
        // A report a later cargo-golden added is not there for a run an
        // earlier one sealed: absent from both places is no difference.
        if crate::report::added_later(name)
            && std::fs::symlink_metadata(&outside).is_err()
            && std::fs::symlink_metadata(run_dir.join(name)).is_err()
        {
            continue;
        }
        let read = |p: &Path| crate::untrusted::read_limited(p, crate::report::REPORT_LIMIT);
        let same = match (read(&outside), read(&run_dir.join(name))) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same || evidence::plain_file(&outside).is_err() {
            differing.push(outside.display().to_string());
            findings.push(Finding {
                case: None,
                file: outside.display().to_string(),
                message: format!(
                    "differs from the run's copy {}/{name} (or is missing or a symlink)",
                    crate::layout::run_dir(&relative(&out.join("artifacts"), run_dir))
                ),
            });
        }
    }
    if let (Some(record), false) = (record, differing.is_empty()) {
        let mut in_out_dir = record.clone();
        in_out_dir.out_dir = out.to_path_buf();
        let mut found = Vec::new();
        check_reports(&in_out_dir, &mut found);
        findings.extend(found.into_iter().filter_map(|mut f| {
            let path = out.join(&f.file).display().to_string();
            differing.contains(&path).then(|| {
                f.file = path;
                f
            })
        }));
    }
}

/// The out dir's `history.jsonl`, when there is one: every line must
/// read, and the run checked must have exactly one line per case, saying
/// what its evidence says. Lines of other runs are not checked against
/// evidence (theirs may be gone with `keep_runs`).
fn check_history(
    out: &Path,
    run_id: &str,
    record: Option<&RunRecord>,
    findings: &mut Vec<Finding>,
) {
    use crate::wire::history::{self, HistoryLine, Revision};
    let path = out.join(crate::layout::HISTORY_FILE);
    let file = path.display().to_string();
    let mut finding = |case: Option<&str>, message: String| {
        findings.push(Finding {
            case: case.map(str::to_string),
            file: file.clone(),
            message,
        });
    };
    let lines = match history::read(&path) {
        Ok(lines) => lines,
        Err(e) => return finding(None, format!("cannot be read: {e}")),
    };
    if lines.is_empty() {
        return;
    }
    let mut of_run: BTreeMap<String, Vec<(usize, HistoryLine)>> = BTreeMap::new();
    for (n, line) in lines {
        match line {
            Err(e) => finding(None, format!("line {n} is not a history line: {e}")),
            Ok(l) if l.run_id == run_id => of_run.entry(l.case.clone()).or_default().push((n, l)),
            Ok(_) => {}
        }
    }
    let Some(record) = record else { return };
    if of_run.is_empty() {
        return finding(None, format!("holds no line of run {run_id}"));
    }
    for case in &record.cases {
        let expected = HistoryLine::of(record, case, &Revision::default());
        match of_run.remove(&case.name).as_deref() {
            None => finding(Some(&case.name), format!("no line of run {run_id}")),
            Some([(n, line)]) => {
                for d in line.differences(&expected) {
                    finding(Some(&case.name), format!("line {n}: {d}"));
                }
            }
            Some(more) => finding(
                Some(&case.name),
                format!("{} lines of run {run_id} (one expected)", more.len()),
            ),
        }
    }
    for (case, lines) in of_run {
        for (n, _) in lines {
            finding(
                Some(&case),
                format!("line {n}: run {run_id} has no such case"),
            );
        }
    }
}

/// What `cargo golden verify-evidence` checks.
pub(crate) struct Check {
    /// The out dir or run dir.
    pub(crate) dir: PathBuf,
    /// `--public-key`: also check the signature with this key.
    pub(crate) public_key: Option<String>,
    /// `--attestation`: also check the test-result attestation.
    pub(crate) attestation: bool,
}

/// `--public-key KEY`, read (a `.pub` file or the key itself); `None`
/// without the flag.
pub(crate) fn public_key(arg: Option<&str>) -> Result<Option<minisign::PublicKey>, SignatureError> {
    arg.map(read_public_key).transpose()
}

/// `cargo golden verify-evidence`: print what `check` found; exit 1 on a
/// finding.
pub(crate) fn command(check: &Check) -> i32 {
    use crate::commands::output::{CommandError, print_stdout, usage_error};
    let key = match public_key(check.public_key.as_deref()) {
        Ok(k) => k,
        Err(e) => return usage_error(&e),
    };
    match verify_run_with(&check.dir, key.as_ref(), check.attestation) {
        Ok(report) => {
            print_stdout(&report.to_string());
            if report.is_ok() {
                crate::conclusion::SUCCESS
            } else {
                crate::conclusion::FAILED
            }
        }
        Err(e) => usage_error(&CommandError::Verify(check.dir.clone(), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_public_key_names_the_argument_and_the_cause_once() {
        let e = read_public_key("not-a-key").unwrap_err();
        let chain = crate::conclusion::error_chain(&e);
        let prefix = "\"not-a-key\" is neither a public key file nor a minisign public key: ";
        assert!(chain.starts_with(prefix), "{chain}");
        let cause = &chain[prefix.len()..];
        assert!(!cause.is_empty() && !cause.contains("neither"), "{chain}");
    }
}
