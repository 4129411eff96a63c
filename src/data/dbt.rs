//! dbt models as outputs (`model = "NAME"`), resolved after the run from
//! what dbt itself wrote: this run's `target/run_results.json` says the
//! model was built (only a model it built is compared), `target/manifest.json`
//! names its relation (schema and alias), and the profile dbt ran with
//! (the run's `profiles_dir`, the project's `profile`, the target) says
//! where the database is, unless the output names its `database`.
//!
//! The project is the case's working dir, and dbt's `target-path` is
//! `target` (dbt's default). Of the profiles, DuckDB's (`type: duckdb`,
//! a `path` to a file) are read.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::DataError;
use crate::config::{Database, DbtModel, TableRows, TableSource};

/// This run's account of each node: the stamp taken before the command
/// ran tells an earlier run's from this one's.
pub(crate) const RUN_RESULTS: &str = "target/run_results.json";
const MANIFEST: &str = "target/manifest.json";

/// A dbt artifact is read whole; a manifest of a large project is tens
/// of MiB.
const MAX_ARTIFACT_BYTES: u64 = 512 << 20;

/// This run's `run_results.json` and `manifest.json`, read once for all
/// of a case's `model` outputs (a manifest is tens of MiB).
pub(super) struct Artifacts {
    results: Value,
    manifest: Value,
}

impl Artifacts {
    /// The artifacts dbt wrote in `working_dir`; every error is a
    /// [`DataError::Dbt`].
    pub(super) fn load(working_dir: &Path) -> Result<Artifacts, DataError> {
        Ok(Artifacts {
            results: artifact(working_dir, RUN_RESULTS)?,
            manifest: artifact(working_dir, MANIFEST)?,
        })
    }

    /// The table `model` is in this run, read after it: a model this run
    /// did not build successfully is [`DataError::ModelNotBuilt`].
    pub(super) fn resolve(
        &self,
        model: &DbtModel,
        working_dir: &Path,
    ) -> Result<TableSource, DataError> {
        resolve(&self.results, &self.manifest, model, working_dir)
    }
}

fn resolve(
    results: &Value,
    manifest: &Value,
    model: &DbtModel,
    working_dir: &Path,
) -> Result<TableSource, DataError> {
    let project = manifest["metadata"]["project_name"].as_str().unwrap_or("");
    let (id, status) =
        built(results, project, &model.name).ok_or_else(|| DataError::ModelNotBuilt {
            model: model.name.clone(),
            why: "it is not in this run's target/run_results.json".into(),
        })?;
    if status != "success" {
        return Err(DataError::ModelNotBuilt {
            model: model.name.clone(),
            why: format!("this run's target/run_results.json says `{status}`"),
        });
    }
    let node = &manifest["nodes"][id.as_str()];
    let text = |key: &str| node[key].as_str().filter(|s| !s.is_empty());
    let (Some(schema), Some(alias)) = (text("schema"), text("alias").or(text("name"))) else {
        return Err(DataError::Dbt(format!(
            "target/manifest.json has no schema and alias for {id}"
        )));
    };
    let database = match &model.database {
        Some(d) => d.clone(),
        None => profile_database(results, manifest, working_dir)?,
    };
    Ok(TableSource {
        database,
        rows: TableRows::Table(vec![schema.to_string(), alias.to_string()]),
    })
}

/// The unique id and status of the model `name` among `results`, the one
/// of the project `project` first.
fn built(results: &Value, project: &str, name: &str) -> Option<(String, String)> {
    let entries = results["results"].as_array()?;
    let ours = format!("model.{project}.{name}");
    let of = |e: &Value| {
        let id = e["unique_id"].as_str()?;
        let status = e["status"].as_str().unwrap_or("unknown");
        Some((id.to_string(), status.to_string()))
    };
    entries
        .iter()
        .filter_map(of)
        .find(|(id, _)| *id == ours)
        .or_else(|| {
            entries
                .iter()
                .filter_map(of)
                .find(|(id, _)| id.starts_with("model.") && id.rsplit('.').next() == Some(name))
        })
}

/// The JSON of the dbt artifact `rel` in the working dir.
fn artifact(working_dir: &Path, rel: &str) -> Result<Value, DataError> {
    let path = working_dir.join(rel);
    let bytes = read(&path, working_dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => DataError::Dbt(format!(
            "the case wrote no {rel}: a `model` output is of a case that runs dbt in its working dir"
        )),
        _ => DataError::Dbt(format!("{rel}: {e}")),
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|e| DataError::Dbt(format!("{rel} is not dbt's JSON: {e}")))
}

fn read(path: &Path, working_dir: &Path) -> std::io::Result<Vec<u8>> {
    let inside = crate::untrusted::confined(path, working_dir, "the case's working directory")?;
    crate::untrusted::read_limited(&inside, MAX_ARTIFACT_BYTES)
}

/// The database of the profile and target the run used (its
/// `run_results.json` args, the project's `profile`, the profile's
/// `target`).
fn profile_database(
    results: &Value,
    manifest: &Value,
    working_dir: &Path,
) -> Result<Database, DataError> {
    let adapter = manifest["metadata"]["adapter_type"].as_str().unwrap_or("");
    if adapter != "duckdb" {
        return Err(DataError::Dbt(format!(
            "dbt ran with the `{adapter}` adapter, whose profile this version does not read; \
             DuckDB's it does (or give the output a `database`: `postgres://USER@HOST:PORT/DB` \
             for a server)"
        )));
    }
    let args = &results["args"];
    let dir = match args["profiles_dir"].as_str() {
        Some(d) => working_dir.join(d),
        None => working_dir.to_path_buf(),
    };
    let profiles = yaml(&dir.join("profiles.yml"), working_dir)?;
    let name = match args["profile"].as_str() {
        Some(p) => p.to_string(),
        None => yaml(&working_dir.join("dbt_project.yml"), working_dir)?["profile"]
            .as_str()
            .ok_or_else(|| DataError::Dbt("dbt_project.yml names no `profile`".into()))?
            .to_string(),
    };
    let profile = &profiles[name.as_str()];
    let target = args["target"]
        .as_str()
        .or(profile["target"].as_str())
        .ok_or_else(|| DataError::Dbt(format!("the profile `{name}` names no `target`")))?;
    let output = &profile["outputs"][target];
    let path = output["path"].as_str().unwrap_or(":memory:");
    let readable = !path.is_empty()
        && !path.contains("{{")
        && !path.contains(':')
        && Path::new(path).is_relative();
    if !readable {
        return Err(DataError::Dbt(format!(
            "the profile `{name}` (target `{target}`) keeps its DuckDB database at `{path}`, not a \
             file relative to the project: give the output `database = \"duckdb:PATH\"`"
        )));
    }
    Ok(Database::Duckdb(path.to_string()))
}

/// The YAML file `path` as JSON values.
fn yaml(path: &Path, working_dir: &Path) -> Result<Value, DataError> {
    let shown = path
        .strip_prefix(working_dir)
        .map_or_else(|_| path.to_path_buf(), PathBuf::from);
    let bytes = crate::untrusted::read(path)
        .map_err(|e| DataError::Dbt(format!("{}: {e}", shown.display())))?;
    let text = String::from_utf8_lossy(&bytes);
    parse_yaml(&text).map_err(|e| DataError::Dbt(format!("{}: {e}", shown.display())))
}

#[cfg(feature = "yaml")]
fn parse_yaml(text: &str) -> Result<Value, String> {
    serde_saphyr::from_str(text).map_err(|e| e.to_string())
}

/// Built without the `yaml` feature: dbt's profile cannot be read.
#[cfg(not(feature = "yaml"))]
fn parse_yaml(_text: &str) -> Result<Value, String> {
    Err(
        "reading dbt's profile needs cargo-golden's `yaml` feature; or give the output a \
         `database`"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(entries: &[(&str, &str)]) -> Value {
        let results: Vec<Value> = entries
            .iter()
            .map(|(id, status)| serde_json::json!({ "unique_id": id, "status": status }))
            .collect();
        serde_json::json!({ "results": results })
    }

    #[test]
    fn a_model_is_found_by_name_its_own_projects_first() {
        let r = results(&[
            ("model.dep.order_totals", "success"),
            ("model.shop.order_totals", "error"),
            ("test.shop.order_totals", "pass"),
        ]);
        assert_eq!(
            built(&r, "shop", "order_totals"),
            Some(("model.shop.order_totals".into(), "error".into()))
        );
        assert_eq!(
            built(&r, "other", "order_totals"),
            Some(("model.dep.order_totals".into(), "success".into()))
        );
        assert_eq!(built(&r, "shop", "totals"), None);
    }
}
