//! The keys each table of the harness file accepts (`""` is the top
//! level), generated from the types in [`super::schema`] by the test
//! `the_loaders_keys_are_generated_from_the_types`, which rewrites this
//! file when a key is added (outside CI). Do not edit by hand.

#[rustfmt::skip]
pub(crate) const TABLE_KEYS: &[(&str, &[&str])] = &[
    ("", &["harness", "patterns", "redactions", "golden", "verify", "golden_projects", "profile"]),
    ("harness", &["name", "runner", "timeout", "truncate", "require_golden", "allow_dirty", "out_dir", "jobs", "retries", "kill_grace", "leak_wait", "junit", "slow", "working_dir", "isolation", "env", "keep_runs", "redact_env", "gate", "slowdown", "shell", "preset", "presets", "require", "columns", "flaky", "history"]),
    ("patterns", &["validation", "runtime", "abort", "allow", "builtin", "quiet"]),
    ("golden", &["name", "path", "root", "description", "command", "expected", "timeout", "env", "working_dir", "isolation", "ignore", "allow_dirty", "retries", "exclusive", "after", "slow", "ignored", "patterns", "require", "preset", "presets", "snapshot", "result", "quarantine", "outputs"]),
    ("verify", &["name", "command", "description", "working_dir", "timeout", "expected", "env", "retries", "exclusive", "after", "slow", "ignored", "patterns", "require", "preset", "presets", "snapshot", "result", "quarantine", "outputs"]),
    ("golden_projects", &["name", "path", "root", "description", "command", "expected", "timeout", "env", "working_dir", "isolation", "ignore", "allow_dirty", "retries", "exclusive", "after", "slow", "ignored", "patterns", "require", "preset", "presets", "snapshot", "result", "quarantine", "outputs", "expected_outcome"]),
    ("result", &["format", "path", "allow_empty"]),
    ("outputs", &["path", "table", "query", "model", "database", "key", "ignore", "tolerance", "format", "mode"]),
    ("tolerance", &["abs", "rel"]),
    ("history", &["keep"]),
    ("quarantine", &["reason", "until", "issue"]),
];
