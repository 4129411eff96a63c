//! `golden init` outside a cargo package: a directory of pipelines (a dbt
//! repository, an Odibi project, anything with no `Cargo.toml`) set up
//! for the `golden` command, installed with `pip install cargo-golden`.
//!
//! Writes `harness.toml` (with the runner of the tool it finds: a
//! `dbt_project.yml` makes the dbt project a golden project run by `dbt
//! build`, an `odibi.yaml` one run by `odibi run`; with neither, the shell
//! example under `golden/example/`), its JSON Schema, the `snapshots/`
//! directory, and a GitHub Actions workflow that installs the pinned
//! wheel and runs `golden`. No cargo file is written or needed.
//!
//! As in a cargo package, everything is checked before anything is
//! written: a file in the way stops init (listed) unless forced.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{
    Conflict, EXAMPLE_DATA, EXAMPLE_DATA_TEXT, EXAMPLE_SCRIPT, EXAMPLE_SCRIPT_TEXT,
    EXAMPLE_SNAPSHOT, EXAMPLE_SNAPSHOT_TEXT, HARNESS_EXAMPLE, HARNESS_FILE, HARNESS_HEAD,
    InitError, InitReport, SCHEMA_FILE, VERSION, WORKFLOW_FILE, relative_path, repository_root,
    shell_word, toml_string, write_files,
};

/// The directory of snapshot files, beside the harness file.
const SNAPSHOT_DIR: &str = crate::layout::SNAPSHOT_DIR;

/// How deep below the directory init looks for a tool's project file.
const SEARCH_DEPTH: usize = 3;

/// A pipeline tool init knows how to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tool {
    /// A dbt project: a directory with `dbt_project.yml`, built in place.
    Dbt,
    /// An Odibi pipeline: an `odibi.yaml` (or `.yml`) file.
    Odibi,
}

impl Tool {
    /// The `runner` of its golden projects (`{path}` is the project).
    pub(crate) fn runner(self) -> &'static str {
        match self {
            // dbt reads profiles.yml from the directory it runs in first.
            Tool::Dbt => "dbt build",
            Tool::Odibi => "odibi run {path}",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Tool::Dbt => "dbt",
            Tool::Odibi => "Odibi",
        }
    }
}

/// A project of a known tool found under the directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    /// Which tool runs it.
    pub(crate) tool: Tool,
    /// The file that said so, relative to the directory (`/`-separated).
    pub(crate) marker: String,
    /// The golden project's `path`: the dbt project's directory (`.` for
    /// the directory itself), the Odibi file.
    pub(crate) path: String,
    /// The case name: the project's directory name.
    pub(crate) name: String,
}

/// What a standalone init did, for the command line to print.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct StandaloneReport {
    /// The projects made golden projects, in path order; empty when the
    /// shell example was written instead.
    pub(crate) found: Vec<Found>,
    /// The files written.
    pub(crate) files: InitReport,
    /// The `snapshots/` directory was created (it was not there).
    pub(crate) created_snapshot_dir: bool,
}

impl fmt::Display for StandaloneReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.files.created {
            writeln!(f, "created {}", p.display())?;
        }
        for p in &self.files.overwritten {
            writeln!(f, "overwrote {}", p.display())?;
        }
        if self.created_snapshot_dir {
            writeln!(
                f,
                "created {SNAPSHOT_DIR}/ (`golden --bless` writes snapshots there)"
            )?;
        }
        if self.found.is_empty() {
            writeln!(
                f,
                "found no dbt_project.yml or odibi.yaml: the example golden project is golden/example; replace it with yours"
            )?;
        }
        for p in &self.found {
            writeln!(
                f,
                "found a {} project ({}): golden project {:?} at {}, run by `{}`",
                p.tool.name(),
                p.marker,
                p.name,
                p.path,
                p.tool.runner()
            )?;
        }
        Ok(())
    }
}

/// Set up `dir`, which has no `Cargo.toml`, for the `golden` command (see
/// the module docs). Either everything is written, or, on a conflict,
/// nothing.
pub(crate) fn init_standalone(dir: &Path, force: bool) -> Result<StandaloneReport, InitError> {
    let found = find_projects(dir);
    let root = repository_root(dir).unwrap_or_else(|| dir.to_path_buf());
    let member = relative_path(&root, dir).unwrap_or_default();
    let workflow = relative_path(dir, &root)
        .unwrap_or_default()
        .join(WORKFLOW_FILE)
        .to_string_lossy()
        .into_owned();
    let schema = serde_json::to_string_pretty(&crate::commands::schema::harness_schema())
        .unwrap_or_default()
        + "\n";
    let mut files = vec![
        (HARNESS_FILE, harness_toml(&suite_name(dir), &found)),
        (SCHEMA_FILE, schema),
    ];
    if found.is_empty() {
        files.extend([
            (EXAMPLE_SCRIPT, EXAMPLE_SCRIPT_TEXT.to_string()),
            (EXAMPLE_DATA, EXAMPLE_DATA_TEXT.to_string()),
            (EXAMPLE_SNAPSHOT, EXAMPLE_SNAPSHOT_TEXT.to_string()),
        ]);
    }
    files.push((
        workflow.as_str(),
        workflow_yaml(&member, &tools_step(dir, &found)),
    ));
    let conflicts: Vec<Conflict> = files
        .iter()
        .filter(|(rel, _)| dir.join(rel).symlink_metadata().is_ok())
        .map(|(rel, _)| Conflict::File(PathBuf::from(rel)))
        .collect();
    if !conflicts.is_empty() && !force {
        return Err(InitError::WouldOverwrite(conflicts));
    }
    let mut report = StandaloneReport {
        found,
        ..StandaloneReport::default()
    };
    write_files(dir, &files, &mut report.files)?;
    let snapshots = dir.join(SNAPSHOT_DIR);
    if !snapshots.is_dir() {
        std::fs::create_dir_all(&snapshots).map_err(|source| InitError::Write {
            path: snapshots,
            source,
        })?;
        report.created_snapshot_dir = true;
    }
    Ok(report)
}

/// The suite name: the directory's name.
fn suite_name(dir: &Path) -> String {
    std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "golden".to_string())
}

/// The dbt and Odibi projects at most three directories below
/// `dir`, in path order. Hidden directories, build output (`target`,
/// `logs`, `dbt_packages`, `node_modules`) and virtualenvs are not
/// searched, nor is a dbt project's inside once found.
pub(crate) fn find_projects(dir: &Path) -> Vec<Found> {
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(dir)
        .max_depth(SEARCH_DEPTH + 1)
        .sort_by_file_name()
        .into_iter();
    while let Some(Ok(entry)) = walk.next() {
        let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_dir() {
            let skip = entry.depth() > 0
                && (name.starts_with('.')
                    || [
                        "target",
                        "logs",
                        "dbt_packages",
                        "node_modules",
                        "__pycache__",
                    ]
                    .contains(&name.as_ref())
                    || entry.path().join("pyvenv.cfg").is_file());
            if skip {
                walk.skip_current_dir();
            }
            continue;
        }
        let parent = rel.parent().unwrap_or(Path::new(""));
        let slashed = |p: &Path| {
            let parts: Vec<String> = p
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.is_empty() {
                ".".to_string()
            } else {
                parts.join("/")
            }
        };
        let tool = match name.as_ref() {
            "dbt_project.yml" => Tool::Dbt,
            "odibi.yaml" | "odibi.yml" => Tool::Odibi,
            _ => continue,
        };
        let path = match tool {
            Tool::Dbt => slashed(parent),
            Tool::Odibi => slashed(rel),
        };
        let dir_name = if parent.as_os_str().is_empty() {
            suite_name(dir)
        } else {
            parent
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        found.push(Found {
            tool,
            marker: slashed(rel),
            path,
            name: dir_name,
        });
        if tool == Tool::Dbt {
            // Its packages and models hold no other project.
            walk.skip_current_dir();
        }
    }
    // Case names are unique: a second `shop` is `shop-2`.
    let mut seen = std::collections::HashMap::<String, usize>::new();
    for f in &mut found {
        let n = seen.entry(f.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            f.name = format!("{}-{n}", f.name);
        }
    }
    found
}

/// The harness file: the shell example when nothing was found, else one
/// golden project per project found, run by its tool (the first tool's
/// runner is `[harness] runner`; a project of another gets a `command`).
fn harness_toml(suite: &str, found: &[Found]) -> String {
    let head = HARNESS_HEAD
        .replace("{{name}}", &toml_string(suite))
        .replace("cargo golden", "golden");
    let mut out = format!(
        "#:schema ./{SCHEMA_FILE}\n# Test cases for `golden` (pip install cargo-golden).\n"
    );
    let Some(first) = found.first() else {
        return out + &head + &HARNESS_EXAMPLE.replace("cargo golden", "golden");
    };
    let runner_line = format!(
        "runner = {}  # how a golden project is run ({{path}} is its path)",
        toml_string(first.tool.runner())
    );
    out += &head
        .lines()
        .map(|l| {
            if l.starts_with("# runner = ") {
                runner_line.as_str()
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    for f in found {
        out += &format!(
            "\n# The {} project found at {}.\n\
             # It runs in a temporary copy of itself, so what a run writes (target/,\n\
             # logs/, a database file) leaves it as committed.\n\
             [[golden]]\nname = {}\npath = {}\n",
            f.tool.name(),
            f.marker,
            toml_string(&f.name),
            toml_string(&f.path)
        );
        if f.tool != first.tool {
            out += &format!("command = {}\n", toml_string(f.tool.runner()));
        }
        if f.tool == Tool::Dbt {
            out += "# dbt's own account of each node (target/run_results.json), kept with the\n\
                    # evidence and judged too.\n\
                    result = { format = \"dbt\" }\n\
                    # The data a build writes is its golden result: list the files it writes,\n\
                    # then `golden --bless` records them in snapshots/ (review and commit them).\n\
                    # outputs = [{ path = \"out/orders.parquet\", key = [\"order_id\"] }]\n";
        }
    }
    out
}

/// The workflow step that installs what the pipelines need:
/// `requirements.txt` when there is one, else the tools found (dbt with
/// the adapters its profiles name).
fn tools_step(dir: &Path, found: &[Found]) -> String {
    if dir.join("requirements.txt").is_file() {
        return "pip install -r requirements.txt".to_string();
    }
    let mut packages: Vec<String> = Vec::new();
    for f in found {
        match f.tool {
            Tool::Dbt => {
                packages.push("dbt-core".into());
                let profiles = dir.join(&f.path).join("profiles.yml");
                for adapter in adapters(&profiles) {
                    packages.push(format!("dbt-{adapter}"));
                }
            }
            Tool::Odibi => packages.push("odibi".into()),
        }
    }
    packages.sort();
    packages.dedup();
    if packages.is_empty() {
        "echo 'install the tools your golden projects run here (pip install -r requirements.txt)'"
            .to_string()
    } else {
        let words: Vec<String> = packages.iter().map(|p| shell_word(p)).collect();
        format!(
            "pip install {}  # pin the versions your team uses",
            words.join(" ")
        )
    }
}

/// The adapter types (`type: duckdb`) a dbt profiles file names.
fn adapters(profiles: &Path) -> Vec<String> {
    let Ok(text) = crate::untrusted::read_to_string(profiles) else {
        return Vec::new();
    };
    let mut found: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("type:"))
        .map(|t| t.trim().trim_matches(['"', '\'']).to_string())
        .filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    found.sort();
    found.dedup();
    found
}

/// The workflow for the harness at `member` (relative to the repository
/// root; empty when it is the root).
fn workflow_yaml(member: &Path, tools: &str) -> String {
    let m = member.to_string_lossy().replace('\\', "/");
    let (run, out) = if m.is_empty() {
        ("golden".to_string(), "target/golden".to_string())
    } else {
        (
            format!(
                "golden --config {}",
                shell_word(&format!("{m}/{HARNESS_FILE}"))
            ),
            format!("{m}/target/golden"),
        )
    };
    WORKFLOW_TEMPLATE
        .replace("{{tools}}", tools)
        .replace("{{version}}", VERSION)
        .replace("{{run}}", &run)
        .replace("{{out}}", &out)
}

const WORKFLOW_TEMPLATE: &str = r#"# Runs the golden projects and verify commands of harness.toml with the
# `golden` command (pip install cargo-golden: no Rust toolchain needed), and
# keeps the reports and evidence of every run as an artifact. On GitHub a
# run also writes annotations and the job's step summary.
name: golden

on:
  push:
  pull_request:
  workflow_dispatch:

permissions:
  contents: read

jobs:
  golden:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: "3.12"
      - name: Install the pipelines' tools
        run: {{tools}}
      # The version this harness was written for: change it on purpose.
      # (Or use cargo-golden's own GitHub Action for the three steps below:
      #   - uses: OWNER/cargo-golden@v{{version}}
      #     with:
      #       version: {{version}}
      # which installs the same wheel, runs golden and uploads the reports.)
      - name: Install cargo-golden
        run: pip install cargo-golden=={{version}}
      - name: Run golden cases
        run: {{run}}
      - name: Upload reports and evidence
        if: always()
        uses: actions/upload-artifact@v6
        with:
          name: golden-reports
          # The default [harness] out_dir; change both together.
          path: {{out}}
          if-no-files-found: warn
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_are_found_by_their_files_and_named_uniquely() {
        let d = tempfile::tempdir().unwrap();
        let w = |rel: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "name: x\n").unwrap();
        };
        w("golden/shop/dbt_project.yml");
        w("golden/shop/dbt_packages/util/dbt_project.yml");
        w("other/shop/dbt_project.yml");
        w("etl/sales/odibi.yaml");
        w(".venv/lib/dbt_project.yml");
        w("deep/a/b/c/dbt_project.yml");
        let found = find_projects(d.path());
        let got: Vec<(Tool, &str, &str)> = found
            .iter()
            .map(|f| (f.tool, f.path.as_str(), f.name.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (Tool::Odibi, "etl/sales/odibi.yaml", "sales"),
                (Tool::Dbt, "golden/shop", "shop"),
                (Tool::Dbt, "other/shop", "shop-2"),
            ]
        );
    }

    #[test]
    fn a_dbt_project_at_the_root_is_the_directory_itself() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("dbt_project.yml"), "name: x\n").unwrap();
        std::fs::create_dir(d.path().join("models")).unwrap();
        let found = find_projects(d.path());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, ".");
        assert_eq!(found[0].name, suite_name(d.path()));
    }

    #[test]
    fn adapters_come_from_the_profiles_types() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("profiles.yml");
        std::fs::write(
            &p,
            "shop:\n  outputs:\n    dev:\n      type: duckdb\n    prod:\n      type: \"postgres\"\n",
        )
        .unwrap();
        assert_eq!(adapters(&p), ["duckdb", "postgres"]);
    }

    #[test]
    fn the_harness_of_a_found_project_is_toml_with_its_runner() {
        let found = [Found {
            tool: Tool::Dbt,
            marker: "golden/shop/dbt_project.yml".into(),
            path: "golden/shop".into(),
            name: "shop".into(),
        }];
        let text = harness_toml("analytics", &found);
        let doc: toml::Table = text.parse().unwrap();
        assert_eq!(doc["harness"]["runner"].as_str(), Some("dbt build"));
        assert_eq!(doc["golden"][0]["path"].as_str(), Some("golden/shop"));
        assert_eq!(doc["golden"][0]["name"].as_str(), Some("shop"));
        assert!(!text.contains("cargo golden"), "{text}");
    }
}
