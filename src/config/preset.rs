//! Presets (SPEC section 17): what `cargo golden` knows of a real tool's
//! output, shipped as data files in the crate (`presets/*.toml`): failure
//! and allow patterns, the tool's log record format, the lines a passing
//! case must show, and environment. `[harness] preset = "odibi"` (or
//! `presets = [...]`) applies them under the harness file's own settings.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::RecordFormat;

/// The presets shipped, by name: the data file of each.
const PRESETS: &[(&str, &str)] = &[
    ("odibi", include_str!("../../presets/odibi.toml")),
    ("pydantic", include_str!("../../presets/pydantic.toml")),
    ("pytest", include_str!("../../presets/pytest.toml")),
    ("spark", include_str!("../../presets/spark.toml")),
];

/// The names of the presets shipped.
pub fn names() -> Vec<&'static str> {
    PRESETS.iter().map(|(name, _)| *name).collect()
}

/// One preset, as its data file writes it.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Preset {
    /// One line on what the preset is for.
    #[allow(dead_code)]
    pub about: String,
    #[serde(default)]
    pub patterns: PresetPatterns,
    /// The tool's log record format.
    pub record: Option<RecordFormat>,
    /// Lines a passing case must show, by kind of case.
    #[serde(default)]
    pub require: PresetRequire,
    /// Environment of every case (under the case's and harness's own).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// A preset's failure and allow patterns.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PresetPatterns {
    #[serde(default)]
    pub validation: Vec<String>,
    #[serde(default)]
    pub runtime: Vec<String>,
    #[serde(default)]
    pub abort: Vec<String>,
    #[serde(default)]
    pub allow: Vec<String>,
    /// `false`: the preset replaces the built-in patterns.
    pub builtin: Option<bool>,
}

/// A preset's `require`: for golden projects and for verify commands.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PresetRequire {
    #[serde(default)]
    pub golden: Vec<String>,
    #[serde(default)]
    pub verify: Vec<String>,
}

/// The preset called `name`; None when there is none.
pub(crate) fn preset(name: &str) -> Option<Preset> {
    let (_, text) = PRESETS.iter().find(|(n, _)| *n == name)?;
    // The data files are part of the crate; a test reads each.
    Some(toml::from_str(text).expect("a shipped preset is valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_preset_reads_and_compiles() {
        for name in names() {
            let p = preset(name).unwrap();
            let all = [
                &p.patterns.validation,
                &p.patterns.runtime,
                &p.patterns.abort,
                &p.patterns.allow,
                &p.require.golden,
                &p.require.verify,
            ];
            for re in all.into_iter().flatten() {
                regex::Regex::new(re).unwrap_or_else(|e| panic!("{name}: {re}: {e}"));
            }
            if let Some(r) = &p.record {
                regex::Regex::new(&r.start).unwrap();
            }
        }
    }
}
