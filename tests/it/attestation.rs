//! The signed in-toto test-result attestation, through the real binary:
//! every run writes `test-result.intoto.json` from its record, a signed
//! run its DSSE envelope; `verify-evidence --attestation` and an
//! independent verifier (Python's securesystemslib, run by
//! `tests/attestation/verify_attestation.py`) accept the genuine one and
//! each catch every forgery.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine as _;
use cargo_golden::_support::{
    ENVELOPE_FILE, EXTENSION_KEY as EXT, PAYLOAD_TYPE, STATEMENT_FILE, pae,
};
use common::{Project, copy_dir, text};
use serde_json::Value;

/// One golden project declared by its config file, one verify command
/// that passes and one that fails: the run exits 1.
const HARNESS: &str = r#"
[harness]
name = "attest"

[[golden]]
name = "orders_daily"
path = "golden/orders/project.yaml"
command = "echo 'rows: 12'"

[[verify]]
name = "lint"
command = "echo clean"

[[verify]]
name = "smoke"
command = "echo 'smoke: boom' >&2; exit 1"
"#;

fn project(harness: &str) -> Project {
    let p = Project::new(harness);
    p.write("golden/orders/project.yaml", "table: orders\n");
    p
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// A passwordless minisign key pair written as minisign writes it:
/// (public key file, secret key file, Ed25519 seed).
fn keypair(dir: &Path, name: &str) -> (PathBuf, PathBuf, [u8; 32]) {
    let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    let public = dir.join(format!("{name}.pub"));
    let secret = dir.join(format!("{name}.key"));
    std::fs::write(&public, kp.pk.to_box().unwrap().into_string()).unwrap();
    std::fs::write(&secret, kp.sk.to_box(None).unwrap().into_string()).unwrap();
    let seed: [u8; 32] = kp.sk.to_bytes()[62..94].try_into().unwrap();
    (public, secret, seed)
}

fn key_id(public: &Path) -> String {
    let text = std::fs::read_to_string(public).unwrap();
    let line = text.lines().nth(1).unwrap();
    let raw = b64().decode(line.trim()).unwrap();
    let keynum: [u8; 8] = raw[2..10].try_into().unwrap();
    format!("{:016X}", u64::from_le_bytes(keynum))
}

fn verify(dir: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .arg("verify-evidence")
        .arg(dir)
        .arg("--attestation")
        .args(extra)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The virtualenv with securesystemslib (`.ci/dsse-venv`, exported by
/// `.ci/run` as `CARGO_GOLDEN_DSSE_VENV`). Without it the test says so and
/// skips, except under `CI=true`, where it fails.
fn dsse_python() -> Option<PathBuf> {
    let how = "make one with `bash .ci/dsse-venv`, then export its path; .ci/run does";
    let venv = common::from_ci("CARGO_GOLDEN_DSSE_VENV", how, "the DSSE check")?;
    Some(if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    })
}

fn python_verify(python: &Path, run: &Path, public: &Path) -> Output {
    Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/attestation/verify_attestation.py"))
        .arg(run)
        .arg(public)
        .output()
        .unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Replace `path` with new content (a new inode).
fn forge(path: &Path, content: &[u8]) {
    std::fs::remove_file(path).unwrap();
    std::fs::write(path, content).unwrap();
}

fn pretty(v: &Value) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(v).unwrap();
    s.push('\n');
    s.into_bytes()
}

/// Put `payload` in the envelope and the statement file, signed by
/// `seed` under `keyid`, or keeping the old signature when `seed` is None.
fn repack(run: &Path, payload: &[u8], signer: Option<(&[u8; 32], &str)>) {
    let env_path = run.join(ENVELOPE_FILE);
    let mut env = read_json(&env_path);
    env["payload"] = b64().encode(payload).into();
    if let Some((seed, keyid)) = signer {
        use ed25519_dalek::Signer as _;
        let key = ed25519_dalek::SigningKey::from_bytes(seed);
        let sig = key.sign(&pae(PAYLOAD_TYPE, payload));
        env["signatures"] = serde_json::json!([{
            "keyid": keyid,
            "sig": b64().encode(sig.to_bytes()),
        }]);
    }
    forge(&env_path, &pretty(&env));
    forge(&run.join(STATEMENT_FILE), payload);
}

/// Rewrite the failing case's stderr to look clean; returns its path.
fn change_log(run: &Path) -> PathBuf {
    let log = run.join("execution/003-smoke/stderr.log");
    forge(&log, b"all good\n");
    log
}

fn flipped_to_passed(run: &Path) -> Vec<u8> {
    let mut st = read_json(&run.join(STATEMENT_FILE));
    st["predicate"]["result"] = "PASSED".into();
    st["predicate"]["failedTests"] = serde_json::json!([]);
    st["predicate"][EXT]["exitCode"] = 0.into();
    pretty(&st)
}

#[test]
fn a_signed_attestation_verifies_with_both_verifiers_and_each_forgery_is_caught_by_both() {
    let python = dsse_python();
    let p = project(HARNESS);
    let keys = tempfile::tempdir().unwrap();
    let (public, secret, _) = keypair(keys.path(), "golden");
    let (other_public, _, other_seed) = keypair(keys.path(), "other");

    let o = p.run(&["--sign-key", secret.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let run = p.run_dir();

    // The statement says what the run did, in in-toto's words.
    let st = read_json(&run.join(STATEMENT_FILE));
    assert_eq!(st["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(
        st["predicateType"],
        "https://in-toto.io/attestation/test-result/v0.1"
    );
    let pred = &st["predicate"];
    assert_eq!(pred["result"], "FAILED");
    assert_eq!(pred["failedTests"], serde_json::json!(["verify/smoke"]));
    assert_eq!(
        pred["passedTests"],
        serde_json::json!(["golden/orders_daily", "verify/lint"])
    );
    assert_eq!(pred[EXT]["exitCode"], 1);
    let sums = std::fs::read(run.join("SHA256SUMS")).unwrap();
    assert_eq!(st["subject"][0]["name"], "SHA256SUMS");
    assert_eq!(
        st["subject"][0]["digest"]["sha256"],
        cargo_golden::_support::sha256_hex(&sums)
    );
    let config = std::fs::read(p.path().join("golden/orders/project.yaml")).unwrap();
    assert_eq!(st["subject"][1]["name"], "golden/orders/project.yaml");
    assert_eq!(
        st["subject"][1]["digest"]["sha256"],
        cargo_golden::_support::sha256_hex(&config)
    );
    let harness = std::fs::read(p.path().join("harness.toml")).unwrap();
    assert_eq!(pred["configuration"][0]["name"], "harness.toml");
    assert_eq!(
        pred["configuration"][0]["digest"]["sha256"],
        cargo_golden::_support::sha256_hex(&harness)
    );
    let env = read_json(&run.join(ENVELOPE_FILE));
    assert_eq!(env["payloadType"], "application/vnd.in-toto+json");
    assert_eq!(env["signatures"][0]["keyid"], key_id(&public));
    let payload = b64().decode(env["payload"].as_str().unwrap()).unwrap();
    assert_eq!(payload, std::fs::read(run.join(STATEMENT_FILE)).unwrap());

    let pk = public.to_str().unwrap();
    let o = verify(&run, &["--public-key", pk]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stdout(&o).contains("attestation  valid (in-toto test-result, DSSE Ed25519)"),
        "{}",
        text(&o)
    );
    let o = verify(&run, &["--public-key", other_public.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    if let Some(python) = &python {
        let o = python_verify(python, &run, &public);
        assert!(o.status.success(), "{}", text(&o));
        assert!(stdout(&o).starts_with("OK: FAILED"), "{}", text(&o));
        let o = python_verify(python, &run, &other_public);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    }

    // Each forgery on its own copy of the run dir: (what, how, what our
    // verifier says, what the Python verifier says).
    type Tamper = fn(&Path, &[u8; 32], &str);
    let forgeries: [(&str, Tamper, &str, &str); 5] = [
        (
            "a result flipped to PASSED in the predicate",
            |run, _, _| {
                let flipped = flipped_to_passed(run);
                repack(run, &flipped, None);
            },
            "FINDING      test-result.intoto.dsse.json: no signature of key",
            "INVALID: the envelope does not verify",
        ),
        (
            "a changed log",
            |run, _, _| {
                change_log(run);
            },
            "FINDING      case \"smoke\": execution/003-smoke/stderr.log: changed",
            "INVALID: execution/003-smoke/stderr.log does not match SHA256SUMS",
        ),
        (
            "a changed SHA256SUMS",
            |run, _, _| {
                let log = change_log(run);
                let hash = cargo_golden::_support::sha256_file(&log).unwrap();
                let sums = std::fs::read_to_string(run.join("SHA256SUMS")).unwrap();
                let sums: String = sums
                    .lines()
                    .map(|l| match l.split_once("  ") {
                        Some((_, f)) if f.ends_with("003-smoke/stderr.log") => {
                            format!("{hash}  {f}\n")
                        }
                        _ => format!("{l}\n"),
                    })
                    .collect();
                forge(&run.join("SHA256SUMS"), sums.as_bytes());
            },
            "FINDING      test-result.intoto.json: subject SHA256SUMS has sha256",
            "INVALID: subject SHA256SUMS does not match the file",
        ),
        (
            "a flipped statement in an envelope signed by another key",
            |run, seed, keyid| {
                let flipped = flipped_to_passed(run);
                repack(run, &flipped, Some((seed, keyid)));
            },
            "FINDING      test-result.intoto.dsse.json: no signature of key",
            "INVALID: the envelope does not verify",
        ),
        (
            "the payload re-serialised with other whitespace",
            |run, _, _| {
                let st = read_json(&run.join(STATEMENT_FILE));
                repack(run, serde_json::to_string(&st).unwrap().as_bytes(), None);
            },
            "FINDING      test-result.intoto.dsse.json: no signature of key",
            "INVALID: the envelope does not verify",
        ),
    ];
    let other_id = key_id(&other_public);
    for (what, tamper, ours, theirs) in forgeries {
        let copy = tempfile::tempdir().unwrap();
        let forged = copy.path().join(run.file_name().unwrap());
        copy_dir(&run, &forged);
        tamper(&forged, &other_seed, &other_id);
        let o = verify(&forged, &["--public-key", pk]);
        assert_eq!(o.status.code(), Some(1), "{what}: {}", text(&o));
        assert!(stdout(&o).contains(ours), "{what}: {ours}\n{}", text(&o));
        if let Some(python) = &python {
            let o = python_verify(python, &forged, &public);
            assert_eq!(o.status.code(), Some(1), "{what}: {}", text(&o));
            assert!(
                stdout(&o).contains(theirs),
                "{what}: {theirs}\n{}",
                text(&o)
            );
        }
    }
}

#[test]
fn an_unsigned_statement_is_held_to_the_evidence() {
    let p = project(HARNESS);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let run = p.run_dir();
    assert!(!run.join(ENVELOPE_FILE).exists());
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stdout(&o).contains("attestation  statement checked; unsigned (no envelope)"),
        "{}",
        text(&o)
    );

    // Without a key anyone can rewrite the statement: the evidence still
    // says the run failed.
    let flipped = flipped_to_passed(&run);
    forge(&run.join(STATEMENT_FILE), &flipped);
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    for want in [
        "FINDING      test-result.intoto.json: result is PASSED, the evidence says FAILED",
        "FINDING      test-result.intoto.json: exitCode is 0, the evidence says 1",
        "FINDING      test-result.intoto.json: failedTests is [], the evidence says [\"verify/smoke\"]",
    ] {
        assert!(stdout(&o).contains(want), "{want}\n{}", text(&o));
    }

    // A statement whose types are not in-toto's is refused as such.
    let mut st = read_json(&run.join(STATEMENT_FILE));
    st["predicateType"] = "https://example.com/other".into();
    forge(&run.join(STATEMENT_FILE), &pretty(&st));
    let o = verify(&p.out(), &[]);
    assert!(
        stdout(&o).contains("FINDING      test-result.intoto.json: predicateType is"),
        "{}",
        text(&o)
    );

    // Gone altogether: `--attestation` says so.
    std::fs::remove_file(run.join(STATEMENT_FILE)).unwrap();
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o).contains("FINDING      test-result.intoto.json:"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_run_that_selects_nothing_or_passes_says_so_in_the_statement() {
    let p = project(HARNESS);
    let o = p.run(&["no-such-case"]);
    assert_eq!(o.status.code(), Some(5), "{}", text(&o));
    let st = read_json(&p.run_dir().join(STATEMENT_FILE));
    assert_eq!(st["predicate"]["result"], "FAILED");
    assert_eq!(st["predicate"][EXT]["exitCode"], 5);

    let p = project(HARNESS);
    let o = p.run(&["--skip", "smoke"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let st = read_json(&p.run_dir().join(STATEMENT_FILE));
    assert_eq!(st["predicate"]["result"], "PASSED");
    assert_eq!(
        st["predicate"][EXT]["skippedTests"],
        serde_json::json!(["verify/smoke"])
    );
    assert_eq!(
        st["predicate"]["passedTests"],
        serde_json::json!(["golden/orders_daily", "verify/lint"])
    );
    let o = verify(&p.out(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}
