//! Secrets never reach evidence, reports or logs (docs/secrets.md, Secrets are
//! masked), through the real binary: cases print secret values from their
//! `env`, from the parent environment and from their command, whole and split
//! across writes and read boundaries, on stdout and stderr, and inside a
//! pydantic validation message; then every file of the out dir, the terminal
//! output and the GitHub Actions output are searched for each value, raw and
//! escaped the ways the reports escape text.

use crate::common;

use std::path::{Path, PathBuf};

use common::{Project, text, verify_evidence};

/// Secret through a case's `env`; also written into a command.
const API_TOKEN: &str = "ghp_supersecret123";
/// Secret through the parent environment (a default name).
const PARENT_PASSWORD: &str = "hunter2_parent_pw";
/// Secret through `redact_env = ["AWS_*"]` (a name no default covers).
const AWS_SESSION: &str = "sess_abc_987654";
/// Not secret: `!MY_TOKEN_COUNT` switches the default off.
const TOKEN_COUNT: &str = "7654321";

const SECRETS: [(&str, &str); 3] = [
    ("API_TOKEN", API_TOKEN),
    ("DEPLOY_PASSWORD", PARENT_PASSWORD),
    ("AWS_ROLE_SESSION", AWS_SESSION),
];

/// A TOML basic string holding `s`.
fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Cases by name; each prints at least one secret. `boundary-64k` and
/// `boundary-256k` put the token across a 64 KiB and the 256 KiB read
/// size boundary.
fn harness() -> String {
    let env = format!("env = {{ API_TOKEN = {} }}\n", toml_str(API_TOKEN));
    let cases: Vec<(&str, String)> = vec![
        ("env-whole", "echo \"token=$API_TOKEN\"".into()),
        (
            "split-stdout",
            "printf 'ghp_super'; sleep 0.1; printf 'secret123\\n'".into(),
        ),
        (
            "split-stderr",
            "printf 'ghp_super' >&2; sleep 0.1; printf 'secret123\\n' >&2".into(),
        ),
        ("parent-env", "echo \"pw=$DEPLOY_PASSWORD\" >&2".into()),
        (
            "glob-and-opt-out",
            "echo \"session=$AWS_ROLE_SESSION count=$MY_TOKEN_COUNT\"".into(),
        ),
        ("in-command", format!("echo deploying with {API_TOKEN}")),
        (
            "pydantic",
            "printf '1 validation error for ConnectionConfig\\nauth.token\\n  Value error, token %s is revoked [type=value_error, input_value=%s, input_type=str]\\n' \"$API_TOKEN\" \"$API_TOKEN\"".into(),
        ),
        (
            "boundary-64k",
            "head -c 65530 /dev/zero | tr '\\0' x; printf '%s' \"$API_TOKEN\"".into(),
        ),
        (
            "boundary-256k",
            "head -c 262140 /dev/zero | tr '\\0' y; printf '%s' \"$API_TOKEN\" >&2; printf '%s' \"$API_TOKEN\"".into(),
        ),
        ("skipped", format!("echo never runs {API_TOKEN}")),
    ];
    let mut toml = String::from(
        "[harness]\nname = \"secrets\"\nredact_env = [\"AWS_*\", \"!MY_TOKEN_COUNT\"]\n",
    );
    for (name, command) in cases {
        toml.push_str(&format!(
            "\n[[verify]]\nname = \"{name}\"\ndescription = \"uses {API_TOKEN}\"\ncommand = {}\n{env}",
            toml_str(&command)
        ));
    }
    toml
}

/// `s` as each report may spell it: raw, markdown-escaped, HTML/XML
/// escaped, JSON-escaped and workflow-command-escaped.
fn spellings(s: &str) -> Vec<String> {
    let mut md = String::new();
    for ch in s.chars() {
        if "\\`*_[]~#!$".contains(ch) {
            md.push('\\');
        }
        md.push(ch);
    }
    let json = serde_json::to_string(s).unwrap();
    let mut all = vec![
        s.to_string(),
        md,
        s.replace('&', "&amp;").replace('<', "&lt;"),
        json[1..json.len() - 1].to_string(),
        s.replace('%', "%25")
            .replace(':', "%3A")
            .replace(',', "%2C"),
    ];
    all.sort();
    all.dedup();
    all
}

/// Every secret spelling found in `bytes`, described with `what`.
fn leaks(what: &str, bytes: &[u8]) -> Vec<String> {
    leaks_of(&SECRETS, what, bytes)
}

/// Every spelling of a value of `secrets` found in `bytes`.
fn leaks_of(secrets: &[(&str, &str)], what: &str, bytes: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for &(name, value) in secrets {
        for spelling in spellings(value) {
            if memchr::memmem::find(bytes, spelling.as_bytes()).is_some() {
                found.push(format!("{name} as {spelling:?} in {what}"));
            }
        }
    }
    found
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

/// A run of `p` as GitHub Actions runs it, its step summary in `step_summary`.
fn in_github_actions(p: &Project, args: &[&str], step_summary: &Path) -> std::process::Command {
    let mut c = p.cmd(args);
    c.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_WORKSPACE", p.path())
        .env("GITHUB_STEP_SUMMARY", step_summary);
    c
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn no_secret_reaches_an_artifact_a_report_or_a_log() {
    let p = Project::new(&harness());
    let step_summary = p.path().join("step-summary.md");
    let o = in_github_actions(&p, &["--skip", "skipped"], &step_summary)
        .env("DEPLOY_PASSWORD", PARENT_PASSWORD)
        .env("AWS_ROLE_SESSION", AWS_SESSION)
        .env("MY_TOKEN_COUNT", TOKEN_COUNT)
        .output()
        .unwrap();
    // Only the pydantic case fails.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    let mut found = Vec::new();
    let files = files_under(&p.out());
    assert!(files.len() > 30, "{files:?}");
    for f in &files {
        found.extend(leaks(&f.display().to_string(), &std::fs::read(f).unwrap()));
    }
    found.extend(leaks(
        "the step summary",
        &std::fs::read(&step_summary).unwrap(),
    ));
    found.extend(leaks("the terminal (stderr)", &o.stderr));

    // On stdout, each value appears once: in the `::add-mask::` lines that
    // come before anything else.
    let stdout = String::from_utf8(o.stdout.clone()).unwrap();
    let masks = stdout
        .lines()
        .take_while(|l| l.starts_with("::add-mask::"))
        .count();
    for (name, value) in SECRETS {
        let line = format!("::add-mask::{value}");
        assert!(
            stdout.lines().take(masks).any(|l| l == line),
            "{name} is not registered first:\n{stdout}"
        );
    }
    assert!(
        !stdout.contains(&format!("::add-mask::{TOKEN_COUNT}")),
        "{stdout}"
    );
    let rest: Vec<&str> = stdout.lines().skip(masks).collect();
    found.extend(leaks(
        "GitHub output after the masks",
        rest.join("\n").as_bytes(),
    ));
    assert!(found.is_empty(), "secrets leaked:\n{}", found.join("\n"));

    // The marker is where each value was.
    let log = |slug: &str, file: &str| read(&p.case_dir(slug).join(file));
    assert_eq!(
        log("001-env-whole", "stdout.log"),
        "token=[REDACTED:API_TOKEN]\n"
    );
    assert_eq!(
        log("002-split-stdout", "stdout.log"),
        "[REDACTED:API_TOKEN]\n"
    );
    assert_eq!(
        log("003-split-stderr", "stderr.log"),
        "[REDACTED:API_TOKEN]\n"
    );
    assert_eq!(
        log("004-parent-env", "stderr.log"),
        "pw=[REDACTED:DEPLOY_PASSWORD]\n"
    );
    assert_eq!(
        log("005-glob-and-opt-out", "stdout.log"),
        format!("session=[REDACTED:AWS_ROLE_SESSION] count={TOKEN_COUNT}\n")
    );
    assert_eq!(
        log("006-in-command", "command.txt"),
        "echo deploying with [REDACTED:API_TOKEN]"
    );
    assert_eq!(
        log("006-in-command", "stdout.log"),
        "deploying with [REDACTED:API_TOKEN]\n"
    );
    assert_eq!(
        log("008-boundary-64k", "stdout.log"),
        format!("{}[REDACTED:API_TOKEN]", "x".repeat(65530))
    );
    assert_eq!(
        log("009-boundary-256k", "stdout.log"),
        format!("{}[REDACTED:API_TOKEN]", "y".repeat(262140))
    );
    assert_eq!(
        log("009-boundary-256k", "stderr.log"),
        "[REDACTED:API_TOKEN]"
    );

    // evidence.json counts the masked values per stream, never which.
    let counts = |slug: &str| p.evidence(slug)["redactions"].clone();
    assert_eq!(
        counts("006-in-command"),
        serde_json::json!({"stdout": 1, "stderr": 0, "command": 1})
    );
    assert_eq!(
        counts("003-split-stderr"),
        serde_json::json!({"stdout": 0, "stderr": 1, "command": 0})
    );
    assert_eq!(
        counts("007-pydantic"),
        serde_json::json!({"stdout": 2, "stderr": 0, "command": 0})
    );
    assert_eq!(
        p.evidence("006-in-command")["raw_command"],
        "echo deploying with [REDACTED:API_TOKEN]"
    );

    // The failing case's issue, validation error and annotation show the
    // marker where the message held the token.
    let pydantic = p.evidence("007-pydantic");
    assert_eq!(
        pydantic["validation_errors"][0]["message"],
        "Value error, token [REDACTED:API_TOKEN] is revoked"
    );
    let issue = pydantic["issues"][0]["message"].as_str().unwrap();
    assert!(
        issue.contains("token [REDACTED:API_TOKEN] is revoked"),
        "{issue}"
    );
    let annotation = rest
        .iter()
        .find(|l| l.starts_with("::error") && l.contains("pydantic"))
        .unwrap_or_else(|| panic!("no annotation for the failing case:\n{stdout}"));
    assert!(annotation.contains("[REDACTED:API_TOKEN]"), "{annotation}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("[REDACTED:API_TOKEN]"), "{stderr}");
    let md = read(&p.out().join("report.md"));
    assert!(md.contains("\\[REDACTED:API\\_TOKEN\\]"), "{md}");
    assert!(read(&step_summary).contains("\\[REDACTED:API\\_TOKEN\\]"));
    for report in ["junit.xml", "summary.json", "observations.jsonl"] {
        assert!(
            read(&p.out().join(report)).contains("[REDACTED:API_TOKEN]"),
            "{report}"
        );
    }
    // The skipped case's command is masked too.
    let summary = p.summary();
    let skipped = &summary["cases"][9];
    assert_eq!(skipped["result"], "SKIPPED");
    assert_eq!(
        skipped["raw_command"],
        "echo never runs [REDACTED:API_TOKEN]"
    );

    // The evidence hashes are over the stored (masked) bytes.
    let v = verify_evidence(&p.out());
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    assert!(
        String::from_utf8_lossy(&v.stdout)
            .contains("9 evidence record(s) verified, 0 without evidence, 0 finding(s)"),
        "{}",
        text(&v)
    );

    // A merged run keeps the counts, verifies, and leaks nothing either.
    let merged = p.path().join("merged");
    let m = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .arg("merge")
        .arg(p.out())
        .arg("--out")
        .arg(&merged)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(m.status.code(), Some(1), "{}", text(&m));
    let mut found = leaks("merge output", &[m.stdout, m.stderr].concat());
    for f in files_under(&merged) {
        found.extend(leaks(&f.display().to_string(), &std::fs::read(&f).unwrap()));
    }
    assert!(found.is_empty(), "secrets leaked:\n{}", found.join("\n"));
    let evidence: Vec<PathBuf> = files_under(&merged)
        .into_iter()
        .filter(|f| f.ends_with("006-in-command/evidence.json"))
        .collect();
    let [evidence] = evidence.as_slice() else {
        panic!("one merged evidence.json of the in-command case: {evidence:?}");
    };
    let evidence: serde_json::Value = serde_json::from_str(&read(evidence)).unwrap();
    assert_eq!(
        evidence["redactions"],
        serde_json::json!({"stdout": 1, "stderr": 0, "command": 1})
    );
    let v = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
        .arg("verify-evidence")
        .arg(&merged)
        .output()
        .unwrap();
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
}

#[test]
fn listing_as_json_masks_commands() {
    let p = Project::new(&format!(
        "[[verify]]\nname = \"a\"\ncommand = \"curl -H 'token {API_TOKEN}'\"\nenv = {{ API_TOKEN = {} }}\n",
        toml_str(API_TOKEN)
    ));
    let o = p.run(&["list", "--message-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("curl -H 'token [REDACTED:API_TOKEN]'"),
        "{out}"
    );
    assert!(leaks("list output", out.as_bytes()).is_empty(), "{out}");
}

#[test]
fn outside_github_actions_no_mask_is_printed() {
    let p = Project::new(&format!(
        "[[verify]]\nname = \"a\"\ncommand = \"true\"\nenv = {{ API_TOKEN = {} }}\n",
        toml_str(API_TOKEN)
    ));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let all = [o.stdout.as_slice(), o.stderr.as_slice()].concat();
    assert!(leaks("output", &all).is_empty(), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&all).contains("add-mask"));
}

#[test]
fn live_output_and_log_tails_are_masked() {
    let p = Project::new(&format!(
        "[[verify]]\nname = \"a\"\ncommand = \"printf 'ghp_super'; sleep 0.1; printf 'secret123\\\\n' >&1; echo \\\"$API_TOKEN\\\" >&2\"\nenv = {{ API_TOKEN = {} }}\n",
        toml_str(API_TOKEN)
    ));
    for args in [
        &["--no-capture"][..],
        &["--success-output", "immediate-final"],
    ] {
        let o = p.run(args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.matches("[REDACTED:API_TOKEN]").count() >= 2,
            "{args:?}: {}",
            text(&o)
        );
        let all = [o.stdout.as_slice(), o.stderr.as_slice()].concat();
        assert!(leaks("output", &all).is_empty(), "{args:?}: {}", text(&o));
    }
}

/// A line matching each built-in pattern, with the execution status it
/// brings about.
const PATTERN_LINES: [(&str, &str); 31] = [
    ("1 validation error for ProjectConfig", "VALIDATION_FAILED"),
    (
        "airflow command error: unrecognized arguments: --conff",
        "VALIDATION_FAILED",
    ),
    ("Aborted!", "VALIDATION_FAILED"),
    (
        "Configuration validation failed for odibi.yaml",
        "VALIDATION_FAILED",
    ),
    (
        "Invalid project config: default_gatway",
        "VALIDATION_FAILED",
    ),
    ("Config file is not valid JSON or YAML", "VALIDATION_FAILED"),
    (
        "Failed validating 'required' in schema",
        "VALIDATION_FAILED",
    ),
    ("Compilation Error in model orders", "VALIDATION_FAILED"),
    ("the DAG failed to parse", "VALIDATION_FAILED"),
    (
        "Failed to load model from file orders.sql",
        "VALIDATION_FAILED",
    ),
    ("Missing gateway with name warehouse", "VALIDATION_FAILED"),
    ("Selector did not return any models", "VALIDATION_FAILED"),
    (
        "Checkpoint with name nightly was not found",
        "VALIDATION_FAILED",
    ),
    ("cores have to be specified", "VALIDATION_FAILED"),
    ("odibi.yaml has errors:", "VALIDATION_FAILED"),
    ("{\"valid\": false}", "VALIDATION_FAILED"),
    ("{\"success\": false}", "RUNTIME_FAILED"),
    ("* 1 failed:", "RUNTIME_FAILED"),
    ("Error: No such option: --colour", "VALIDATION_FAILED"),
    ("│ No such option: --colour", "VALIDATION_FAILED"),
    (
        "etl: error: unrecognized arguments: --colour",
        "VALIDATION_FAILED",
    ),
    ("Input should be a valid string", "VALIDATION_FAILED"),
    ("pydantic.ValidationError: bad", "VALIDATION_FAILED"),
    ("Invalid config: no sink", "VALIDATION_FAILED"),
    ("Pipeline failed at step 2", "RUNTIME_FAILED"),
    ("org.apache.SparkException: lost", "RUNTIME_FAILED"),
    ("Status: FAILURE", "RUNTIME_FAILED"),
    ("Job aborted due to stage failure", "RUNTIME_FAILED"),
    ("Timeout waiting for executor", "ABORTED"),
    ("Interrupted by user", "ABORTED"),
    ("worker got SIGTERM", "ABORTED"),
];

#[test]
fn masking_never_changes_a_verdict() {
    use cargo_golden::_support::{BUILTIN_ABORT, BUILTIN_RUNTIME, BUILTIN_VALIDATION};
    // Every built-in pattern has its line, and each case's secret is one
    // character inside the text its pattern matches: masked before
    // classification, no pattern would match.
    let mut toml = String::from("[harness]\nredact_env = [\"PIN\"]\n");
    let mut pins = Vec::new();
    for pattern in BUILTIN_VALIDATION
        .iter()
        .chain(BUILTIN_RUNTIME)
        .chain(BUILTIN_ABORT)
    {
        let re = regex::Regex::new(pattern).unwrap();
        let (i, m) = PATTERN_LINES
            .iter()
            .enumerate()
            .find_map(|(i, (line, _))| re.find(line).map(|m| (i, m)))
            .unwrap_or_else(|| panic!("no line for the built-in pattern {pattern:?}"));
        let pin = m.as_str()[m.len() / 2..]
            .chars()
            .find(|c| c.is_alphanumeric())
            .unwrap();
        let line = PATTERN_LINES[i].0;
        let k = pins.len();
        pins.push((i, pin));
        toml.push_str(&format!(
            "\n[[verify]]\nname = \"p{k}\"\ncommand = {}\nenv = {{ PIN = \"{pin}\" }}\n",
            toml::Value::String(format!("echo '{}'", line.replace('\'', r"'\''")))
        ));
    }
    toml.push_str(
        "\n[[verify]]\nname = \"expected\"\ncommand = \"echo 'Status: FAILURE' >&2; exit 3\"\nexpected = \"specific_error:Status: FAILURE\"\nenv = { PIN = \"U\" }\n",
    );
    let p = Project::new(&toml);
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));

    let summary = p.summary();
    let cases = summary["cases"].as_array().unwrap();
    for (n, &(i, pin)) in pins.iter().enumerate() {
        let (line, status) = PATTERN_LINES[i];
        let case = &cases[n];
        assert_eq!(case["name"], format!("p{n}").as_str());
        assert_eq!(case["result"], "FAILED", "{line:?} with PIN={pin}: {case}");
        assert_eq!(case["execution_status"], status, "{line:?}: {case}");
        let log = read(&p.case_dir(&format!("{:03}-p{n}", n + 1)).join("stdout.log"));
        let shown = log.replace("[REDACTED:PIN]", "");
        assert!(!shown.contains(pin), "{line:?}: {log:?} keeps {pin:?}");
        assert!(log.contains("[REDACTED:PIN]"), "{log:?}");
    }
    let expected = cases.iter().find(|c| c["name"] == "expected").unwrap();
    assert_eq!(expected["result"], "PASSED", "{expected}");
    let log = read(
        &p.case_dir(&format!("{:03}-expected", pins.len() + 1))
            .join("stderr.log"),
    );
    assert!(!log.replace("[REDACTED:PIN]", "").contains('U'), "{log:?}");
    let o = verify_evidence(&p.out());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn a_secret_in_a_snapshot_never_leaks_through_its_diff() {
    const PIN: &str = "pin-4711-zebra";
    let case = |redact: &str, extra: &str| {
        format!(
            "[harness]\nredact_env = [{redact}]\n\n[[verify]]\nname = \"pin\"\ncommand = \"echo start; echo pin=$DEPLOY_PIN; echo end{extra}\"\nsnapshot = [\"stdout\"]\nenv = {{ DEPLOY_PIN = \"{PIN}\" }}\n"
        )
    };
    // Blessed before DEPLOY_PIN was a secret: the snapshot holds its value.
    let p = Project::new(&case("", ""));
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshot = p.path().join("snapshots/pin.stdout");
    assert!(read(&snapshot).contains(PIN));
    // That run's own artifacts hold the value too: not what is checked.
    std::fs::remove_dir_all(p.out()).unwrap();

    // Now it is one, and the output changed next to the line holding it.
    std::fs::write(
        p.path().join("harness.toml"),
        case("\"DEPLOY_PIN\"", "; echo more"),
    )
    .unwrap();
    let step_summary = p.path().join("step-summary.md");
    let o = in_github_actions(&p, &[], &step_summary).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("OUTPUT_CHANGED"), "{}", text(&o));
    assert!(stderr.contains("+more"), "{}", text(&o));

    let secrets = [("DEPLOY_PIN", PIN)];
    let mut found = Vec::new();
    for f in files_under(&p.out()) {
        found.extend(leaks_of(
            &secrets,
            &f.display().to_string(),
            &std::fs::read(&f).unwrap(),
        ));
    }
    found.extend(leaks_of(
        &secrets,
        "the step summary",
        &std::fs::read(&step_summary).unwrap(),
    ));
    found.extend(leaks_of(&secrets, "the terminal (stderr)", &o.stderr));
    // Past the `::add-mask::` line that registers it with GitHub.
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.starts_with(&format!("::add-mask::{PIN}\n")),
        "{stdout}"
    );
    let rest: Vec<&str> = stdout.lines().skip(1).collect();
    found.extend(leaks_of(
        &secrets,
        "GitHub output after the masks",
        rest.join("\n").as_bytes(),
    ));
    assert!(found.is_empty(), "leaked: {found:#?}");

    // The diff is of the masked texts: the line holding the value is
    // unchanged, and the case says the snapshot needs blessing again.
    let case = &p.summary()["cases"][0];
    let diff = case["snapshots"][0]["diff"].as_str().unwrap();
    assert!(diff.contains(" pin=[REDACTED:DEPLOY_PIN]"), "{diff}");
    assert!(!diff.contains("-pin="), "{diff}");
    let warning = "snapshots/pin.stdout contains the value of DEPLOY_PIN: re-bless";
    assert!(
        case["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains(warning)),
        "{case}"
    );
    assert!(stderr.contains(warning), "{}", text(&o));

    // Blessing again stores the masked output.
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!read(&snapshot).contains(PIN), "{}", read(&snapshot));
}

// ---- The harness's own secrets: the signing key and its password ----------

/// The password of the signing key, given as its variable's value: five
/// bytes, shorter than a default-masked value may be, masked all the same.
const SIGNING_PASSWORD: &str = "pw-5x";

/// A passwordless minisign secret key, as minisign writes it.
fn signing_key() -> String {
    let kp = minisign::KeyPair::generate_unencrypted_keypair().unwrap();
    kp.sk.to_box(None).unwrap().into_string()
}

/// What must never be found: the key's text, each of its lines but the
/// public comment (trimmed), and the password.
fn signing_secrets(key: &str) -> Vec<(&'static str, String)> {
    let mut all = vec![
        ("the signing key", key.to_string()),
        ("the password", SIGNING_PASSWORD.to_string()),
    ];
    for line in key.lines().map(str::trim) {
        if !line.is_empty() && !line.starts_with("untrusted comment:") {
            all.push(("a line of the signing key", line.to_string()));
        }
    }
    all
}

/// Every secret of `secrets` found raw anywhere in the out dir of `p`
/// (every file, read whole), in `o`'s terminal output past the
/// `::add-mask::` lines, and in `extra` files.
fn signing_leaks(
    secrets: &[(&str, String)],
    out: &Path,
    o: &std::process::Output,
    extra: &[&Path],
) -> Vec<String> {
    let secrets: Vec<(&str, &str)> = secrets.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let mut found = Vec::new();
    let mut files = files_under(out);
    files.extend(extra.iter().map(|p| p.to_path_buf()));
    for f in &files {
        found.extend(leaks_of(
            &secrets,
            &f.display().to_string(),
            &std::fs::read(f).unwrap(),
        ));
    }
    found.extend(leaks_of(&secrets, "the terminal (stderr)", &o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let rest: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with("::add-mask::"))
        .collect();
    found.extend(leaks_of(
        &secrets,
        "stdout past the masks",
        rest.join("\n").as_bytes(),
    ));
    found
}

/// A case that prints what a hostile case can reach of the harness's
/// secrets without its environment: the environments of its parent (the
/// harness), grandparent and great-grandparent from /proc, whole, on
/// stdout and stderr; the key's line alone; and the key file the
/// variable or `--sign-key` names, whole and line by line.
const PEEK: &str = r#"up() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f2; }
p1=$PPID; p2=$(up $p1); p3=$(up $p2)
for p in $p1 $p2 $p3; do
  echo "== environ of $p"; tr '\0' '\n' < /proc/$p/environ
  tr '\0' '\n' < /proc/$p/environ >&2
  echo "== the key's second line"; tr '\0' '\n' < /proc/$p/environ | grep -A1 '^CARGO_GOLDEN_SIGNING_KEY=' | sed -n 2p
done
key=$(tr '\0' '\n' < /proc/$p1/environ | sed -n 's/^CARGO_GOLDEN_SIGNING_KEY=//p')
flag=$(tr '\0' '\n' < /proc/$p1/cmdline | sed -n '/^--sign-key$/{n;p;}')
for f in "$key" "$flag"; do
  if [ -f "$f" ]; then
    echo "== $f"; cat "$f"; cat "$f" >&2
    while IFS= read -r line; do echo "line: $line"; done < "$f"
  fi
done
"#;

/// `cargo-golden ARGS` started by a shell that stays its parent and holds
/// `env` too, as `cargo golden` is started by cargo: the case's
/// grandparent then carries the key in its environment as well.
fn through_a_shell(p: &Project, args: &[&str], env: &[(&str, &str)]) -> std::process::Command {
    let inner = p.cmd(args);
    let mut c = std::process::Command::new("sh");
    c.arg("-c")
        .arg("\"$@\"; exit $?")
        .arg("sh")
        .arg(inner.get_program())
        .args(inner.get_args())
        .current_dir(p.path())
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env_remove("CARGO_GOLDEN_SIGNING_KEY")
        .env_remove("CARGO_GOLDEN_SIGNING_PASSWORD");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

#[test]
fn the_signing_key_and_its_password_are_masked_even_read_from_proc() {
    let key = signing_key();
    let secrets = signing_secrets(&key);
    let keys = tempfile::tempdir().unwrap();
    let key_file = keys.path().join("golden.key");
    std::fs::write(&key_file, &key).unwrap();
    let key_path = key_file.to_str().unwrap();
    // The key itself in the variable, its path there, and `--sign-key`:
    // (how, arguments, the key's variable).
    let ways = [
        ("in the variable", &[][..], Some(key.as_str())),
        ("its path in the variable", &[], Some(key_path)),
        ("--sign-key FILE", &["--sign-key", key_path], None),
    ];
    for (how, args, in_variable) in ways {
        let p = Project::new("[[verify]]\nname = \"peek\"\ncommand = \"exec sh peek.sh\"\n");
        p.write("peek.sh", PEEK);
        let step_summary = p.path().join("step-summary.md");
        let summary = step_summary.to_str().unwrap();
        let workspace = p.path().to_str().unwrap();
        let mut env = vec![
            ("CARGO_GOLDEN_SIGNING_PASSWORD", SIGNING_PASSWORD),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_WORKSPACE", workspace),
            ("GITHUB_STEP_SUMMARY", summary),
        ];
        env.extend(in_variable.map(|v| ("CARGO_GOLDEN_SIGNING_KEY", v)));
        let o = through_a_shell(&p, args, &env).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{how}: {}", text(&o));
        let run = p.run_dir();
        assert!(
            run.join("SHA256SUMS.minisig").is_file(),
            "{how}: not signed"
        );
        // The case did reach the key: it is masked where it printed it.
        let log = read(&p.case_dir("001-peek").join("stdout.log"));
        assert!(
            log.contains("[REDACTED:CARGO_GOLDEN_SIGNING_KEY]"),
            "{how}: {log}"
        );
        assert!(
            log.contains("[REDACTED:CARGO_GOLDEN_SIGNING_PASSWORD]"),
            "{how}: {log}"
        );
        let found = signing_leaks(&secrets, &p.out(), &o, &[&step_summary]);
        assert!(found.is_empty(), "{how}: leaked:\n{}", found.join("\n"));
        let v = verify_evidence(&p.out());
        assert_eq!(v.status.code(), Some(0), "{how}: {}", text(&v));
    }
}

#[test]
fn a_result_or_an_output_that_leads_into_proc_or_out_of_the_working_dir_is_refused_unread() {
    let key = signing_key();
    let secrets = signing_secrets(&key);
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("junit.xml");
    std::fs::write(
        &outside,
        "<testsuite name=\"s\" tests=\"1\" failures=\"0\"><testcase name=\"t\"/></testsuite>\n",
    )
    .unwrap();
    let p = Project::new(&format!(
        r#"
[[verify]]
name = "result into proc"
command = "ln -sf /proc/self/environ r.xml; echo done"
result = {{ format = "junit", path = "r.xml" }}

[[verify]]
name = "output into proc"
command = "ln -sf /proc/self/environ o.csv; echo done"
outputs = [{{ path = "o.csv" }}]

[[verify]]
name = "result outside"
command = "ln -sf {} j.xml; echo done"
result = {{ format = "junit", path = "j.xml" }}
"#,
        outside.display()
    ));
    let o = p
        .cmd(&[])
        .env("CARGO_GOLDEN_SIGNING_KEY", &key)
        .env("CARGO_GOLDEN_SIGNING_PASSWORD", SIGNING_PASSWORD)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let found = signing_leaks(&secrets, &p.out(), &o, &[]);
    assert!(found.is_empty(), "leaked:\n{}", found.join("\n"));
    let messages = |slug: &str| {
        let ev = p.evidence(slug);
        assert_eq!(ev["result"], "FAILED", "{slug}: {ev}");
        ev["issues"].to_string()
    };
    let result = messages("001-result_into_proc");
    assert!(
        result.contains("r.xml resolves to /proc/") && result.contains("never read"),
        "{result}"
    );
    assert!(
        !p.case_dir("001-result_into_proc")
            .join("result.xml")
            .exists()
    );
    let output = p.summary()["cases"][1].to_string();
    assert!(
        output.contains("o.csv: resolves to /proc/") && output.contains("never read"),
        "{output}"
    );
    let result = messages("003-result_outside");
    assert!(
        result.contains(&format!(
            "j.xml resolves to {}",
            outside.canonicalize().unwrap().display()
        )) && result.contains("outside the case's working directory"),
        "{result}"
    );
}
