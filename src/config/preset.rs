//! Presets (docs/judging.md, Presets): what `cargo golden` knows of a real
//! tool's output, shipped as data files in the crate (`presets/*.toml`):
//! failure and allow patterns, the tool's log record format, the lines a
//! passing case must show, and environment. `[harness] preset = "odibi"` (or
//! `presets = [...]`, or a case's own) applies them under the harness file's
//! own settings; a team's own preset is a file of the same form
//! (`presets = ["./ci/ourtool.toml"]`).
//!
//! Without either, a case gets the preset of the tool its command runs
//! (`detect`): `dbt build` is judged by the `dbt` preset, `odibi run` by
//! `odibi`, `python -m pytest` by `pytest`.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::RecordFormat;

/// The presets shipped, by name: the data file of each.
const PRESETS: &[(&str, &str)] = &[
    ("dbt", include_str!("../../presets/dbt.toml")),
    ("odibi", include_str!("../../presets/odibi.toml")),
    ("pydantic", include_str!("../../presets/pydantic.toml")),
    ("pytest", include_str!("../../presets/pytest.toml")),
    ("spark", include_str!("../../presets/spark.toml")),
];

/// The names of the presets shipped.
pub(crate) fn names() -> Vec<&'static str> {
    PRESETS.iter().map(|(name, _)| *name).collect()
}

/// One preset, as its data file writes it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Preset {
    /// One line on what the preset is for.
    #[allow(dead_code)]
    #[serde(default)]
    pub(crate) about: String,
    #[serde(default)]
    pub(crate) patterns: PresetPatterns,
    /// The tool's log record format.
    pub(crate) record: Option<RecordFormat>,
    /// Lines a passing case must show, by kind of case.
    #[serde(default)]
    pub(crate) require: PresetRequire,
    /// Environment of every case (under the case's and harness's own).
    #[serde(default)]
    pub(crate) env: BTreeMap<String, String>,
}

/// A preset's failure and allow patterns.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PresetPatterns {
    #[serde(default)]
    pub(crate) validation: Vec<String>,
    #[serde(default)]
    pub(crate) runtime: Vec<String>,
    #[serde(default)]
    pub(crate) abort: Vec<String>,
    #[serde(default)]
    pub(crate) allow: Vec<String>,
    /// Lines that fail nothing but are shown as a warning of a case that
    /// passed (dbt's `WARN=1`).
    #[serde(default)]
    pub(crate) warn: Vec<String>,
    /// Lines that say the tool ran nothing (dbt's `Nothing to do`): a
    /// case that shows one ran nothing, whatever else its output shows.
    #[serde(default)]
    pub(crate) nothing: Vec<String>,
    /// `false`: on its tool's own records, the preset's patterns replace
    /// the built-in ones (every other line is still judged by them).
    pub(crate) builtin: Option<bool>,
}

/// A preset's `require`: for golden projects and for verify commands.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PresetRequire {
    #[serde(default)]
    pub(crate) golden: Vec<String>,
    #[serde(default)]
    pub(crate) verify: Vec<String>,
}

/// The preset called `name`; None when there is none.
pub(crate) fn preset(name: &str) -> Option<Preset> {
    let (_, text) = PRESETS.iter().find(|(n, _)| *n == name)?;
    // The data files are part of the crate; a test reads each.
    Some(toml::from_str(text).expect("a shipped preset is valid"))
}

impl Preset {
    /// Every regex of the preset compiles: its patterns, its `require`
    /// lines and its record format's; Err names the first that does not.
    pub(crate) fn check_regexes(&self) -> Result<(), String> {
        let lists = [
            &self.patterns.validation,
            &self.patterns.runtime,
            &self.patterns.abort,
            &self.patterns.allow,
            &self.patterns.warn,
            &self.patterns.nothing,
            &self.require.golden,
            &self.require.verify,
        ];
        for re in lists.into_iter().flatten() {
            regex::Regex::new(re).map_err(|e| format!("invalid regex `{re}`: {e}"))?;
        }
        if let Some(r) = &self.record {
            let fields = [
                ("start", Some(&r.start)),
                ("prefix", r.prefix.as_ref()),
                ("retry", r.retry.as_ref()),
                ("recovered", r.recovered.as_ref()),
                ("invocation", r.invocation.as_ref()),
            ];
            for (key, re) in fields {
                if let Some(re) = re {
                    regex::Regex::new(re).map_err(|e| format!("invalid `record.{key}`: {e}"))?;
                }
            }
        }
        Ok(())
    }
}

/// Whether `spec` (as a harness file writes it) names a preset file
/// rather than a shipped preset: a path (`./ci/tool.toml`, `presets/x.toml`).
pub(crate) fn is_file(spec: &str) -> bool {
    spec.contains(['/', '\\']) || spec.ends_with(".toml")
}

/// The preset file at `path`, read and parsed; Err says why not.
pub(crate) fn from_file(path: &std::path::Path) -> Result<Preset, String> {
    let text = crate::untrusted::read_to_string(path)
        .map_err(|e| format!("cannot read preset file {}: {e}", path.display()))?;
    let preset: Preset =
        toml::from_str(&text).map_err(|e| format!("preset file {}: {e}", path.display()))?;
    preset
        .check_regexes()
        .map_err(|e| format!("preset file {}: {e}", path.display()))?;
    Ok(preset)
}

/// The programs whose runs a shipped preset judges, by the name a command
/// calls them (or the module `python -m` runs), with that preset.
const TOOLS: &[(&str, &str)] = &[
    ("dbt", "dbt"),
    ("odibi", "odibi"),
    ("pytest", "pytest"),
    ("py.test", "pytest"),
    ("spark-submit", "spark"),
    ("pyspark", "spark"),
];

/// The shipped presets of the tools `command` runs, each once, in the
/// order their tools first run, with the tool as the command names it.
/// The command is read as a shell reads it ([`crate::shell::programs`]):
/// every program of it counts (`odibi run a.yaml && dbt build` gets both),
/// through wrappers (`env`, `timeout`, `uv run`, …); a tool only mentioned
/// (`command -v dbt`, a `grep` pattern, an `echo`) gets none. A program is
/// known by its base name (`.venv/bin/dbt` is dbt), or as `python -m TOOL`.
pub(crate) fn detect(command: &str) -> Vec<(&'static str, String)> {
    let mut found: Vec<(&'static str, String)> = Vec::new();
    for run in crate::shell::programs(command) {
        let Some(hit) = tool_of(&run) else {
            continue;
        };
        if !found.iter().any(|(p, _)| *p == hit.0) {
            found.push(hit);
        }
    }
    found
}

/// The preset of the program `run` runs, and the tool as named.
fn tool_of(run: &crate::shell::Invocation) -> Option<(&'static str, String)> {
    let base = run.base();
    if base == "python" || base == "py" || base.starts_with("python3") {
        // `python -m TOOL` (or `-mTOOL`), the module's first part; options
        // before it (`-u`, `-X dev`) are skipped.
        let mut args = run.args.iter();
        let module = loop {
            let a = args.next()?;
            if a == "-m" {
                break args.next()?.as_str();
            }
            if let Some(m) = a.strip_prefix("-m") {
                break m;
            }
            if matches!(a.as_str(), "-X" | "-W" | "-c") {
                if a == "-c" {
                    return None;
                }
                args.next();
                continue;
            }
            if !a.starts_with('-') {
                return None;
            }
        };
        let first = module.split('.').next().unwrap_or(module);
        return known(first).map(|p| (p, format!("python -m {module}")));
    }
    known(base).map(|p| (p, base.to_string()))
}

fn known(program: &str) -> Option<&'static str> {
    TOOLS.iter().find(|(t, _)| *t == program).map(|(_, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_names_the_tool_it_runs() {
        for (command, preset, tool) in [
            ("dbt build --select tag:nightly", "dbt", "dbt"),
            ("cd shop && dbt build", "dbt", "dbt"),
            (".venv/bin/dbt run", "dbt", "dbt"),
            ("DBT_PROFILES_DIR=. dbt build", "dbt", "dbt"),
            ("env FOO=1 odibi run odibi.yaml", "odibi", "odibi"),
            ("odibi run '/x/sales daily/odibi.yaml'", "odibi", "odibi"),
            ("uv run pytest -q", "pytest", "pytest"),
            ("python3 -m pytest tests", "pytest", "python -m pytest"),
            (
                "python -u -m odibi.cli run x.yaml",
                "odibi",
                "python -m odibi.cli",
            ),
            (
                "spark-submit --master local[1] job.py",
                "spark",
                "spark-submit",
            ),
            ("exec time dbt test", "dbt", "dbt"),
        ] {
            assert_eq!(detect(command), [(preset, tool.to_string())], "{command}");
        }
        for command in [
            "sh run.sh",
            "python run.py",
            "echo dbt",
            "cargo build",
            "mydbt run",
            "command -v dbt >/dev/null && python3 cfg.py",
            "python3 cfg.py | grep -vE 'noise|dbt'",
            "which odibi",
        ] {
            assert_eq!(detect(command), [], "{command}");
        }
        // Every program of a command counts, each preset once.
        assert_eq!(
            detect("odibi run a.yaml && dbt seed && dbt build && python3 post.py"),
            [("odibi", "odibi".to_string()), ("dbt", "dbt".to_string())]
        );
        for command in [
            "timeout 600 dbt build --select tag:typo",
            "if dbt build --select tag:typo; then echo ok; fi",
        ] {
            assert_eq!(detect(command), [("dbt", "dbt".to_string())], "{command}");
        }
    }

    #[test]
    fn every_shipped_preset_reads_and_compiles() {
        for name in names() {
            let p = preset(name).unwrap();
            p.check_regexes().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
