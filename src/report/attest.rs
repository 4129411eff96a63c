//! The test-result attestation of a run: `test-result.intoto.json` in the
//! run dir, an in-toto Statement v1 whose predicate is the in-toto
//! test-result predicate v0.1, and, with a signing key,
//! `test-result.intoto.dsse.json`, the statement in a DSSE envelope signed
//! with Ed25519.
//!
//! The statement's subject is `SHA256SUMS` (by sha256), so it covers every
//! file the checksums cover; it cannot itself be listed in `SHA256SUMS`
//! (that would make each file's digest depend on the other's), so the
//! envelope's signature is what seals it. The predicate is built from the
//! run record and the exit code ([`test_result`]), never typed by hand,
//! and is held to the record like the other reports, when the run writes
//! it and by `verify-evidence --attestation`.
//!
//! DSSE: the signature is over the pre-authentication encoding
//! ([`pae`]) of the exact payload bytes, which are the bytes of the
//! statement file.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::conclusion::Results;
use crate::model::{CaseKind, CaseRecord, CaseResult, Class, RunRecord};

/// The statement file in the run dir.
pub const STATEMENT_FILE: &str = "test-result.intoto.json";
/// The DSSE envelope of the statement, written when the run is signed.
pub const ENVELOPE_FILE: &str = "test-result.intoto.dsse.json";
/// `_type` of an in-toto Statement v1.
pub(crate) const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// `predicateType` of the in-toto test-result predicate.
pub(crate) const PREDICATE_TYPE: &str = "https://in-toto.io/attestation/test-result/v0.1";
/// The predicate's extension field holding what only cargo golden says:
/// in-toto extension fields are named by a TypeURI.
pub const EXTENSION_KEY: &str = "https://crates.io/crates/cargo-golden/attestation/v1";
/// `payloadType` of a DSSE envelope carrying an in-toto statement.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// An in-toto resource descriptor: a named artifact and its digests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ResourceDescriptor {
    /// The artifact's name (a path relative to the run dir or to the
    /// harness file's directory).
    pub(crate) name: String,
    /// Algorithm (`sha256`) to lowercase hex digest.
    pub(crate) digest: BTreeMap<String, String>,
}

impl ResourceDescriptor {
    fn sha256(name: impl Into<String>, hex: impl Into<String>) -> ResourceDescriptor {
        ResourceDescriptor {
            name: name.into(),
            digest: BTreeMap::from([("sha256".to_string(), hex.into())]),
        }
    }
}

/// An in-toto Statement v1 with a test-result predicate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Statement {
    /// [`STATEMENT_TYPE`].
    #[serde(rename = "_type")]
    pub(crate) type_: String,
    /// `SHA256SUMS`, then the golden project config files.
    pub(crate) subject: Vec<ResourceDescriptor>,
    /// [`PREDICATE_TYPE`].
    pub(crate) predicate_type: String,
    /// The test result.
    pub(crate) predicate: Predicate,
}

/// The in-toto test-result predicate v0.1, plus our own fields under one
/// key ([`Predicate::cargo_golden`], named [`EXTENSION_KEY`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Predicate {
    /// `PASSED`, `WARNED` or `FAILED`.
    pub(crate) result: Outcome,
    /// The harness file, the baseline and the snapshots the run used.
    pub(crate) configuration: Vec<ResourceDescriptor>,
    /// The CI run, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<String>,
    /// Tests that passed cleanly, `golden/<name>` or `verify/<name>`.
    pub(crate) passed_tests: Vec<String>,
    /// Tests that passed with a warning: flaky, slower than the baseline.
    pub(crate) warned_tests: Vec<String>,
    /// Tests that failed or could not run.
    pub(crate) failed_tests: Vec<String>,
    /// What only cargo golden says, under [`EXTENSION_KEY`].
    #[serde(rename = "https://crates.io/crates/cargo-golden/attestation/v1")]
    pub(crate) cargo_golden: Extension,
}

/// The fields of [`Predicate::cargo_golden`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Extension {
    /// The run id (the run dir's name).
    pub(crate) run_id: String,
    /// The exit code the run ended with.
    pub(crate) exit_code: i32,
    /// `SUCCESS`, `PARTIAL`, `FAILURE`, as `summary.json` says.
    pub(crate) final_status: String,
    /// The tool and its version.
    pub(crate) tool: String,
    /// Schema versions of the files the statement vouches for.
    pub(crate) schema_versions: SchemaVersions,
    /// Cases selected but not run, `golden/<name>` or `verify/<name>`.
    pub(crate) skipped_tests: Vec<String>,
}

/// Schema versions of `summary.json` and `evidence.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SchemaVersions {
    /// `summary.json`.
    pub(crate) summary: String,
    /// `evidence.json`.
    pub(crate) evidence: String,
}

/// `PASSED`, `WARNED` or `FAILED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Outcome {
    /// Exit code 0, nothing to warn about.
    Passed,
    /// Exit code 0, but a case was flaky, slower than its baseline, a known
    /// failure the baseline gate lets pass, or no case ran.
    Warned,
    /// Any exit code but 0.
    Failed,
}

impl Outcome {
    /// `PASSED`, `WARNED` or `FAILED`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "PASSED",
            Outcome::Warned => "WARNED",
            Outcome::Failed => "FAILED",
        }
    }
}

/// What the predicate says of the run's tests: its result and its lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TestResult {
    /// `result`.
    pub(crate) result: Outcome,
    /// `passedTests`.
    pub(crate) passed: Vec<String>,
    /// `warnedTests`.
    pub(crate) warned: Vec<String>,
    /// `failedTests`.
    pub(crate) failed: Vec<String>,
    /// Our `skippedTests`.
    pub(crate) skipped: Vec<String>,
}

/// A case's test name: `golden/<name>` or `verify/<name>`.
pub(crate) fn test_name(case: &CaseRecord) -> String {
    let kind = match case.kind {
        CaseKind::Golden => "golden",
        CaseKind::Verify => "verify",
    };
    format!("{kind}/{}", case.name)
}

/// The test result of a run that ends with `exit_code`: `FAILED` whenever
/// the exit code is not 0 (failed cases, gate failures, interrupts, no
/// case selected, reports that disagree); else `WARNED` when a case passed
/// only on a retry, ran slower than its baseline, failed in a way the
/// baseline gate accepts, or no case ran at all; else `PASSED`.
pub(crate) fn test_result(record: &RunRecord, exit_code: i32) -> TestResult {
    let slower: Vec<&str> = record
        .baseline
        .iter()
        .flat_map(|c| c.of_class(Class::Slower))
        .map(|c| c.name.as_str())
        .collect();
    let mut t = TestResult {
        result: Outcome::Passed,
        passed: Vec::new(),
        warned: Vec::new(),
        failed: Vec::new(),
        skipped: Vec::new(),
    };
    for case in &record.cases {
        let list = match case.result {
            CaseResult::Skipped => &mut t.skipped,
            _ if case.quarantined() => &mut t.warned,
            CaseResult::Failed | CaseResult::Error => &mut t.failed,
            CaseResult::Passed if case.flaky || slower.contains(&case.name.as_str()) => {
                &mut t.warned
            }
            CaseResult::Passed => &mut t.passed,
        };
        list.push(test_name(case));
    }
    let nothing_ran = t.passed.is_empty() && t.warned.is_empty() && t.failed.is_empty();
    t.result = if exit_code != 0 {
        Outcome::Failed
    } else if !t.warned.is_empty() || !t.failed.is_empty() || nothing_ran {
        Outcome::Warned
    } else {
        Outcome::Passed
    };
    t
}

/// What the statement says beyond the record: where its files are and
/// which CI run made it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Context {
    /// The golden projects' config files (relative to the harness file's
    /// directory), each with its sha256: the statement's subjects after
    /// `SHA256SUMS`.
    pub(crate) projects: Vec<ResourceDescriptor>,
    /// The CI run's URL.
    pub(crate) url: Option<String>,
}

impl Context {
    /// The context of a run of `harness`: every golden project declared
    /// by a config file (rather than a directory), and the CI run from
    /// the environment.
    pub(crate) fn of(harness: &crate::config::HarnessConfig) -> Context {
        let projects = harness
            .cases
            .iter()
            .filter(|c| c.kind == CaseKind::Golden)
            .filter_map(|c| c.path.as_deref())
            .filter(|p| p.is_file())
            .filter_map(|p| {
                let hex = crate::hash::sha256_file(p).ok()?;
                let name = p.strip_prefix(&harness.base_dir).unwrap_or(p);
                Some(ResourceDescriptor::sha256(slashed(name), hex))
            })
            .collect();
        Context {
            projects,
            url: ci_url(),
        }
    }

    /// A run with no harness at hand (a merged run): the CI run only.
    pub(crate) fn ci() -> Context {
        Context {
            projects: Vec::new(),
            url: ci_url(),
        }
    }
}

fn slashed(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// `GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID` under
/// GitHub Actions.
fn ci_url() -> Option<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    Some(format!(
        "{}/{}/actions/runs/{}",
        var("GITHUB_SERVER_URL")?,
        var("GITHUB_REPOSITORY")?,
        var("GITHUB_RUN_ID")?
    ))
}

/// The harness file, the baseline beside it and every snapshot file the
/// run's cases compared with, each that exists with its sha256; named
/// relative to the harness file's directory.
fn configuration(record: &RunRecord) -> Vec<ResourceDescriptor> {
    let mut out = Vec::new();
    let (Some(base), Some(file)) = (
        record.harness_path.parent(),
        record.harness_path.file_name(),
    ) else {
        return out;
    };
    if !record.harness_sha256.is_empty() {
        out.push(ResourceDescriptor::sha256(
            file.to_string_lossy(),
            &record.harness_sha256,
        ));
    }
    let mut files = vec![crate::layout::BASELINE_FILE.to_string()];
    let mut snapshots: Vec<String> = record
        .cases
        .iter()
        .flat_map(|c| c.snapshots.iter().map(|s| s.file.clone()))
        .filter(|f| f.starts_with(crate::layout::SNAPSHOT_DIR))
        .collect();
    snapshots.sort();
    snapshots.dedup();
    files.extend(snapshots);
    for rel in files {
        if let Ok(hex) = crate::hash::sha256_file(&base.join(&rel)) {
            out.push(ResourceDescriptor::sha256(rel, hex));
        }
    }
    out
}

/// The statement of `record`, which ends with `exit_code`, whose
/// `SHA256SUMS` has the digest `sums_sha256`.
pub(crate) fn statement(
    record: &RunRecord,
    exit_code: i32,
    sums_sha256: &str,
    context: &Context,
) -> Statement {
    let t = test_result(record, exit_code);
    let mut subject = vec![ResourceDescriptor::sha256(
        crate::layout::SUMS_FILE,
        sums_sha256,
    )];
    subject.extend(context.projects.iter().cloned());
    Statement {
        type_: STATEMENT_TYPE.into(),
        subject,
        predicate_type: PREDICATE_TYPE.into(),
        predicate: Predicate {
            result: t.result,
            configuration: configuration(record),
            url: context.url.clone(),
            passed_tests: t.passed,
            warned_tests: t.warned,
            failed_tests: t.failed,
            cargo_golden: Extension {
                run_id: record.run_id.clone(),
                exit_code,
                final_status: Results::of(record).status.to_string(),
                tool: format!("cargo-golden {}", env!("CARGO_PKG_VERSION")),
                schema_versions: SchemaVersions {
                    summary: crate::wire::summary::SCHEMA_VERSION.into(),
                    evidence: crate::wire::evidence::SCHEMA_VERSION.into(),
                },
                skipped_tests: t.skipped,
            },
        },
    }
}

/// The statement as written: pretty JSON ending with a newline. These are
/// the exact bytes the envelope carries and signs.
pub(crate) fn render(statement: &Statement) -> String {
    let mut s = serde_json::to_string_pretty(statement).expect("a statement always serializes");
    s.push('\n');
    s
}

/// DSSE's pre-authentication encoding of `payload` of `payload_type`:
/// `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, lengths in
/// ASCII decimal.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

/// A DSSE envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Envelope {
    /// The payload, standard base64.
    pub(crate) payload: String,
    /// [`PAYLOAD_TYPE`].
    pub(crate) payload_type: String,
    /// One signature per key.
    pub(crate) signatures: Vec<EnvelopeSignature>,
}

/// One signature of an [`Envelope`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct EnvelopeSignature {
    /// The signing key's id: the minisign key id, 16 uppercase hex digits.
    pub(crate) keyid: String,
    /// The Ed25519 signature of the PAE, standard base64.
    pub(crate) sig: String,
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// The envelope of `payload` (the statement's bytes), signed by `signer`.
pub(crate) fn envelope(payload: &[u8], signer: &super::signing::Signer) -> Envelope {
    use base64::Engine as _;
    let (keyid, sig) = signer.sign_dsse(&pae(PAYLOAD_TYPE, payload));
    Envelope {
        payload: b64().encode(payload),
        payload_type: PAYLOAD_TYPE.into(),
        signatures: vec![EnvelopeSignature {
            keyid,
            sig: b64().encode(sig),
        }],
    }
}

/// The minisign key id of a public key, as minisign prints it.
#[cfg(feature = "sign")]
pub(crate) fn key_id(public: &minisign::PublicKey) -> String {
    let mut le = [0u8; 8];
    le.copy_from_slice(public.keynum());
    format!("{:016X}", u64::from_le_bytes(le))
}

/// Verify the envelope `bytes` with `public` (a minisign public key, whose
/// Ed25519 half signs the envelope): the signature over the PAE of the
/// exact payload bytes, checked before the payload is parsed, and the
/// payload type. Returns the payload bytes.
#[cfg(feature = "sign")]
pub(crate) fn open_envelope(bytes: &[u8], public: &minisign::PublicKey) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    let env: Envelope =
        serde_json::from_slice(bytes).map_err(|e| format!("is not a DSSE envelope: {e}"))?;
    let payload = b64()
        .decode(&env.payload)
        .map_err(|e| format!("payload is not base64: {e}"))?;
    let raw = public.to_bytes();
    let key = raw
        .get(10..42)
        .and_then(|k| <[u8; 32]>::try_from(k).ok())
        .and_then(|k| ed25519_dalek::VerifyingKey::from_bytes(&k).ok())
        .ok_or("the public key is not an Ed25519 key")?;
    let keyid = key_id(public);
    let signed = pae(&env.payload_type, &payload);
    let valid = env.signatures.iter().any(|s| {
        let sig = b64()
            .decode(&s.sig)
            .ok()
            .and_then(|b| ed25519_dalek::Signature::from_slice(&b).ok());
        s.keyid == keyid && sig.is_some_and(|sig| key.verify_strict(&signed, &sig).is_ok())
    });
    if !valid {
        return Err(format!(
            "no signature of key {keyid} verifies the payload (DSSE PAE, Ed25519)"
        ));
    }
    if env.payload_type != PAYLOAD_TYPE {
        return Err(format!(
            "payloadType is {:?}, not {PAYLOAD_TYPE:?}",
            env.payload_type
        ));
    }
    Ok(payload)
}

/// Write the statement of the sealed run in `dir` (and, with `signer`, its
/// envelope), whose `SHA256SUMS` is `sums`.
pub(crate) fn write(
    dir: &Path,
    record: &RunRecord,
    sums: &[u8],
    claim: &Claim<'_>,
    signer: Option<&super::signing::Signer>,
) -> std::io::Result<()> {
    let statement = statement(
        record,
        claim.exit_code,
        &crate::hash::sha256_hex(sums),
        claim.context,
    );
    let text = render(&statement);
    super::atomic_write(&dir.join(STATEMENT_FILE), text.as_bytes())?;
    let env_path = dir.join(ENVELOPE_FILE);
    match signer {
        Some(signer) => {
            let env = envelope(text.as_bytes(), signer);
            let mut json = serde_json::to_string_pretty(&env).expect("an envelope serializes");
            json.push('\n');
            super::atomic_write(&env_path, json.as_bytes())
        }
        None => remove(&env_path),
    }
}

/// What a run's statement claims beyond its record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Claim<'a> {
    /// The exit code the run ends with, once its reports agree.
    pub(crate) exit_code: i32,
    /// Where the run ran.
    pub(crate) context: &'a Context,
}

fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Remove the statement and envelope of the run dir `dir`: a run whose
/// reports failed after the seal leaves no attestation behind.
pub(crate) fn remove_all(dir: &Path) {
    for name in [STATEMENT_FILE, ENVELOPE_FILE] {
        let _ = remove(&dir.join(name));
    }
}

/// Parse the statement `bytes` and check its types.
pub(crate) fn parse(bytes: &[u8]) -> Result<Statement, String> {
    let v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("is not JSON: {e}"))?;
    if v["_type"] != STATEMENT_TYPE {
        return Err(format!("_type is {}, not {STATEMENT_TYPE:?}", v["_type"]));
    }
    if v["predicateType"] != PREDICATE_TYPE {
        return Err(format!(
            "predicateType is {}, not {PREDICATE_TYPE:?}",
            v["predicateType"]
        ));
    }
    serde_json::from_value(v).map_err(|e| format!("is not a test-result statement: {e}"))
}

/// Problems of the statement against the `SHA256SUMS` bytes it names as
/// its subject.
pub(crate) fn check_subject(statement: &Statement, sums: &[u8]) -> Vec<String> {
    let want = crate::hash::sha256_hex(sums);
    let got = statement
        .subject
        .iter()
        .find(|s| s.name == crate::layout::SUMS_FILE)
        .and_then(|s| s.digest.get("sha256"));
    match got {
        Some(got) if *got == want => Vec::new(),
        Some(got) => vec![format!(
            "subject {} has sha256 {got}, the file has {want}",
            crate::layout::SUMS_FILE
        )],
        None => vec![format!(
            "has no subject {} with a sha256 digest",
            crate::layout::SUMS_FILE
        )],
    }
}

/// Problems of the predicate against the record it must have been built
/// from: run id, exit code (the results' own, or 1 where a failed bless
/// turned a success into a failure), final status, result and every test
/// list.
pub(crate) fn check_predicate(statement: &Statement, record: &RunRecord) -> Vec<String> {
    let mut problems = Vec::new();
    let p = &statement.predicate;
    let ext = &p.cargo_golden;
    let results = Results::of(record);
    let mut differ = |what: &str, want: String, got: String| {
        if want != got {
            problems.push(format!("{what} is {got}, the evidence says {want}"));
        }
    };
    differ("runId", record.run_id.clone(), ext.run_id.clone());
    differ(
        "finalStatus",
        results.status.to_string(),
        ext.final_status.clone(),
    );
    // Only a bless that could not write the baseline turns a success into
    // 1 without the evidence saying so.
    let bless_failed = results.exit_code == crate::conclusion::SUCCESS && ext.exit_code == 1;
    let exit_code = if bless_failed {
        ext.exit_code
    } else {
        results.exit_code
    };
    differ("exitCode", exit_code.to_string(), ext.exit_code.to_string());
    let t = test_result(record, exit_code);
    differ("result", t.result.as_str().into(), p.result.as_str().into());
    for (what, want, got) in [
        ("passedTests", &t.passed, &p.passed_tests),
        ("warnedTests", &t.warned, &p.warned_tests),
        ("failedTests", &t.failed, &p.failed_tests),
        ("skippedTests", &t.skipped, &ext.skipped_tests),
    ] {
        differ(what, format!("{want:?}"), format!("{got:?}"));
    }
    problems
}

/// Check the statement a run just wrote in its run dir `dir` against the
/// record, the exit code it claims and its `SHA256SUMS`, and its envelope
/// against the signer's public key: the integrity check of the
/// attestation.
pub(crate) fn check_written(
    dir: &Path,
    record: &RunRecord,
    exit_code: i32,
    signer: Option<&super::signing::Signer>,
) -> Vec<super::Disagreement> {
    let path = dir.join(STATEMENT_FILE);
    let mut problems = Vec::new();
    let read = |name: &str| {
        crate::untrusted::read_limited(&dir.join(name), super::REPORT_LIMIT)
            .map_err(|e| e.to_string())
    };
    match (read(STATEMENT_FILE), read(crate::layout::SUMS_FILE)) {
        (Ok(bytes), Ok(sums)) => match parse(&bytes) {
            Ok(s) => {
                problems.extend(check_subject(&s, &sums));
                problems.extend(check_predicate(&s, record));
                if s.predicate.cargo_golden.exit_code != exit_code {
                    problems.push(format!(
                        "exitCode is {}, the run exits {exit_code}",
                        s.predicate.cargo_golden.exit_code
                    ));
                }
                if let Some(signer) = signer {
                    match read(ENVELOPE_FILE).and_then(|env| signer.open_envelope(&env)) {
                        Ok(payload) if payload == bytes => {}
                        Ok(_) => problems.push(format!(
                            "{ENVELOPE_FILE} carries another payload than {STATEMENT_FILE}"
                        )),
                        Err(e) => problems.push(format!("{ENVELOPE_FILE}: {e}")),
                    }
                }
            }
            Err(e) => problems.push(e),
        },
        (Err(e), _) | (_, Err(e)) => problems.push(format!("cannot be read: {e}")),
    }
    problems
        .into_iter()
        .map(|message| super::Disagreement::Attestation {
            path: path.clone(),
            message,
        })
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    #[cfg(feature = "sign")]
    use crate::report::signing::Signer;

    #[cfg(feature = "sign")]
    fn signer() -> Signer {
        let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
        let text = kp.sk.to_box(None).unwrap().into_string();
        Signer::parse(&text, None).unwrap()
    }

    /// A run of one passing and one failing case (exit 1); the failing
    /// one has no issue, which the integrity check refuses.
    pub(in crate::report) fn record(dir: &Path) -> RunRecord {
        let case = |index, name: &str, result| {
            let mut c =
                CaseRecord::skipped(index, name, CaseKind::Verify, 1, "true", dir.into(), "");
            c.result = result;
            c
        };
        let failed = case(1, "smoke", CaseResult::Failed);
        RunRecord {
            run_id: "run-1".into(),
            suite_name: "s".into(),
            harness_path: dir.join("harness.toml"),
            harness_sha256: String::new(),
            out_dir: dir.into(),
            started_at: crate::time::Timestamp::UNIX_EPOCH,
            hostname: String::new(),
            junit: crate::model::JunitFlavour::Rich,
            jobs: 1,
            duration: std::time::Duration::ZERO,
            cases: vec![case(0, "lint", CaseResult::Passed), failed],
            partition: None,
            declared_cases: 2,
            interrupted: false,
            warnings: Vec::new(),
            empty_selection: None,
            baseline: None,
        }
    }

    #[cfg(feature = "sign")]
    fn messages(found: &[crate::report::Disagreement]) -> String {
        found.iter().map(|d| format!("{d}\n")).collect()
    }

    #[cfg(feature = "sign")]
    #[test]
    fn a_written_attestation_agrees_and_each_forgery_is_a_disagreement() {
        let dir = tempfile::tempdir().unwrap();
        let (dir, record, key) = (dir.path(), record(dir.path()), signer());
        let sums = b"0000  a\n";
        std::fs::write(dir.join(crate::layout::SUMS_FILE), sums).unwrap();
        let context = Context::default();
        let claim = Claim {
            exit_code: 1,
            context: &context,
        };
        write(dir, &record, sums, &claim, Some(&key)).unwrap();
        assert_eq!(messages(&check_written(dir, &record, 1, Some(&key))), "");

        // The run about to exit otherwise than the statement claims.
        let found = messages(&check_written(dir, &record, 4, Some(&key)));
        assert!(found.contains("exitCode is 1, the run exits 4"), "{found}");
        // Checked with another key.
        let found = messages(&check_written(dir, &record, 1, Some(&signer())));
        assert!(found.contains("no signature of key"), "{found}");

        // The statement flipped to PASSED: the record says FAILED, and the
        // envelope no longer carries it.
        let path = dir.join(STATEMENT_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"FAILED\"", "\"PASSED\"")).unwrap();
        let found = messages(&check_written(dir, &record, 1, Some(&key)));
        assert!(
            found.contains("result is PASSED, the evidence says FAILED"),
            "{found}"
        );
        assert!(found.contains("carries another payload"), "{found}");

        // SHA256SUMS changed after the statement named its digest.
        write(dir, &record, sums, &claim, Some(&key)).unwrap();
        std::fs::write(dir.join(crate::layout::SUMS_FILE), b"1111  a\n").unwrap();
        let found = messages(&check_written(dir, &record, 1, Some(&key)));
        assert!(found.contains("subject SHA256SUMS has sha256"), "{found}");
    }

    #[cfg(feature = "sign")]
    #[test]
    fn an_envelope_opens_only_with_its_key_and_its_exact_payload() {
        use base64::Engine as _;
        let key = signer();
        let env = envelope(b"{\"a\": 1}\n", &key);
        let bytes = serde_json::to_vec(&env).unwrap();
        assert_eq!(
            open_envelope(&bytes, key.public_key()).unwrap(),
            b"{\"a\": 1}\n"
        );
        assert!(open_envelope(&bytes, signer().public_key()).is_err());
        let mut other = env.clone();
        other.payload = b64().encode(b"{\"a\":1}\n");
        let bytes = serde_json::to_vec(&other).unwrap();
        assert!(open_envelope(&bytes, key.public_key()).is_err());
        let mut other = env;
        other.payload_type = "application/json".into();
        let bytes = serde_json::to_vec(&other).unwrap();
        assert!(open_envelope(&bytes, key.public_key()).is_err());
    }

    /// The test vector of DSSE's protocol.md.
    #[test]
    fn pae_matches_the_dsse_test_vector() {
        let got = pae("http://example.com/HelloWorld", b"hello world");
        assert_eq!(
            got,
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
        );
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ");
    }
}
