//! Presets: `preset` and `presets` (of `[harness]` and of a case), loaded
//! by name or file, the ones a case's command picks when it names none,
//! and how a case is judged by them.

use serde::{Deserialize, Serialize};

use crate::config::check::{Ctx, Table, suggest};
use crate::config::tree::Pos;
use crate::config::{CasePatterns, HarnessConfig};
use crate::model::CaseKind;

/// The name of a preset shipped with cargo-golden, or the path of a
/// preset file (relative to the harness file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct PresetName(pub String);

#[cfg(feature = "schema")]
impl schemars::JsonSchema for PresetName {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PresetName".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "anyOf": [
            { "type": "string", "enum": crate::config::preset::names() },
            { "type": "string", "pattern": r"[/\\]|\.toml$" }
        ] })
    }
}

impl Ctx<'_> {
    /// `preset` / `presets`: shipped presets by name, or preset files by
    /// path (relative to the harness file), applied in order; each is
    /// loaded into `h.loaded_presets`. The names that load, without
    /// repeats.
    pub(crate) fn preset_names(
        &mut self,
        names: Vec<(String, Pos)>,
        h: &mut HarnessConfig,
    ) -> Vec<String> {
        let known = crate::config::preset::names();
        let mut out: Vec<String> = Vec::new();
        for (name, pos) in names {
            if out.contains(&name) {
                continue;
            }
            if h.loaded_presets.contains_key(&name) {
                out.push(name);
                continue;
            }
            if crate::config::preset::is_file(&name) {
                match crate::config::preset::from_file(&h.base_dir.join(&name)) {
                    Ok(p) => {
                        h.loaded_presets.insert(name.clone(), p);
                        out.push(name);
                    }
                    Err(why) => self.err(
                        pos,
                        why,
                        Some("a preset file has the form of the shipped ones (presets/*.toml in cargo-golden): [patterns], [record], [require], [env]".into()),
                    ),
                }
                continue;
            }
            if let Some(p) = crate::config::preset::preset(&name) {
                h.loaded_presets.insert(name.clone(), p);
                out.push(name);
                continue;
            }
            let hint = match suggest(&name, &known) {
                Some(near) => format!(
                    "did you mean `{near}`? The presets are: {}; a preset file is named by its path (`./ci/tool.toml`)",
                    known.join(", ")
                ),
                None => format!(
                    "the presets are: {}; a preset file is named by its path (`./ci/tool.toml`)",
                    known.join(", ")
                ),
            };
            self.err(pos, format!("unknown preset `{name}`"), Some(hint));
        }
        out
    }

    /// A table's `preset` and `presets` keys, loaded; None when it has
    /// neither.
    pub(crate) fn preset_keys(
        &mut self,
        t: &Table<'_>,
        h: &mut HarnessConfig,
    ) -> Option<Vec<String>> {
        if !t.contains_key("preset") && !t.contains_key("presets") {
            return None;
        }
        let mut names = Vec::new();
        if let Some((_, v)) = t.get("preset")
            && let Some(name) = self.string(v, "preset")
        {
            names.push((name, v.pos));
        }
        if let Some((_, v)) = t.get("presets") {
            names.extend(self.strings(v, "presets"));
        }
        Some(self.preset_names(names, h))
    }
}

/// The presets of a case whose command is `command`: its own (`own`), else
/// the harness's, else those of the tools its command runs (loaded into
/// `h.loaded_presets`), each with its tool.
pub(crate) fn case_presets(
    h: &mut HarnessConfig,
    own: Option<Vec<String>>,
    command: &str,
) -> (Vec<String>, Vec<String>) {
    if let Some(p) = own.or_else(|| h.presets.clone()) {
        return (p, Vec::new());
    }
    let mut presets = Vec::new();
    let mut tools = Vec::new();
    for (preset, tool) in crate::config::preset::detect(command) {
        let name = preset.to_string();
        // Parsed once, not once a case.
        if !h.loaded_presets.contains_key(&name)
            && let Some(p) = crate::config::preset::preset(preset)
        {
            h.loaded_presets.insert(name.clone(), p);
        }
        presets.push(name);
        tools.push(tool);
    }
    (presets, tools)
}

/// How a case of `kind` with `presets` (loaded into `h.loaded_presets`)
/// is judged: each preset's patterns, record format, `nothing` lines and
/// `require` lines for the kind (none when the case has its own
/// `require`) judge what its tool writes; `[patterns]`' own and the
/// case's (`case_patterns`) judge every line; `[harness] require` (or the
/// case's own) must be met by the whole output.
pub(crate) fn judging(
    h: &HarnessConfig,
    presets: &[String],
    case_patterns: Option<&CasePatterns>,
    case_require: Option<&[String]>,
    kind: CaseKind,
) -> crate::config::CaseJudging {
    let own = &h.own_patterns;
    let mut allow = Vec::new();
    let mut warn = Vec::new();
    let mut tools = Vec::new();
    let mut env = std::collections::BTreeMap::new();
    for (name, p) in presets
        .iter()
        .filter_map(|n| h.loaded_presets.get(n).map(|p| (n, p)))
    {
        allow.extend(p.patterns.allow.iter().cloned());
        warn.extend(p.patterns.warn.iter().cloned());
        let require = match (case_require, kind) {
            (Some(_), _) => Vec::new(),
            (None, CaseKind::Golden) => p.require.golden.clone(),
            (None, CaseKind::Verify) => p.require.verify.clone(),
        };
        tools.push(crate::config::ToolPatterns {
            name: name.clone(),
            validation: p.patterns.validation.clone(),
            runtime: p.patterns.runtime.clone(),
            abort: p.patterns.abort.clone(),
            nothing: p.patterns.nothing.clone(),
            builtin: p.patterns.builtin != Some(false),
            records: p.record.clone(),
            require,
        });
        for (k, v) in &p.env {
            env.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let harness = crate::config::PatternConfig {
        validation: own.validation.clone(),
        runtime: own.runtime.clone(),
        abort: own.abort.clone(),
        allow: [allow, own.allow.clone()].concat(),
        warn,
        builtin: own.builtin.unwrap_or(true),
        tools,
        quiet: own.quiet.clone(),
    };
    crate::config::CaseJudging {
        patterns: match case_patterns {
            Some(c) => harness.with_case(c),
            None => harness,
        },
        require: case_require.map_or_else(|| h.harness_require.clone(), <[String]>::to_vec),
        env,
    }
}
