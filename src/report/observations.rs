//! `observations.jsonl`: one [`Observation`] line per case that ran and
//! left evidence, for tools that collect observations across runs.

use std::path::Path;

use super::format::Disagreement;
use super::format::{Format, ReadBack, RenderError, RunView};
use super::integrity::{case_field, compare, json_of};
use crate::model::{CaseRecord, CaseResult, RunRecord};
use crate::wire::observation::Observation;

/// File name of the observation records in the out dir.
pub(crate) const OBSERVATIONS_FILE: &str = "observations.jsonl";

/// The `observations.jsonl` format.
pub(super) struct Observations;

impl Format for Observations {
    fn file_name(&self) -> &'static str {
        OBSERVATIONS_FILE
    }

    fn render(&self, run: &RunView<'_>, _: &str) -> Result<String, RenderError> {
        let mut jsonl = String::new();
        for case in run.record.cases.iter().filter(|c| observed(c)) {
            jsonl.push_str(&serde_json::to_string(&Observation::from_case(case))?);
            jsonl.push('\n');
        }
        Ok(jsonl)
    }

    fn check(&self, file: &ReadBack<'_>, found: &mut Vec<Disagreement>) {
        check(file.path, file.text, file.run.record, found);
    }
}

/// Whether a case gets an observation record: it ran and left evidence.
fn observed(case: &CaseRecord) -> bool {
    case.ran() && case.result != CaseResult::Skipped
}

/// Check an observations.jsonl read back against `record`: a line per
/// observed case, in order, each naming its case, result and exit code.
fn check(path: &Path, text: &str, record: &RunRecord, found: &mut Vec<Disagreement>) {
    let want = record.cases.iter().filter(|c| observed(c)).count();
    compare(found, path, "observation lines", want, text.lines().count());
    for (line, case) in text
        .lines()
        .zip(record.cases.iter().filter(|c| observed(c)))
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        let meta = &v["metadata"];
        let text = |v: &serde_json::Value| v.as_str().unwrap_or("(missing)").to_string();
        case_field(
            found,
            path,
            case,
            "metadata.case",
            &case.name,
            text(&meta["case"]),
        );
        case_field(
            found,
            path,
            case,
            "metadata.result",
            case.result.as_str(),
            text(&meta["result"]),
        );
        case_field(
            found,
            path,
            case,
            "exit_code",
            json_of(case.exit_code),
            &v["exit_code"],
        );
    }
}
