//! `--message-format json`: one JSON object per event on stdout, one per
//! line, each with a `reason` naming the event, as `cargo build
//! --message-format json` does.
//!
//! | reason | fields |
//! |---|---|
//! | `run-started` | `run_id`, `suite_name`, `case_count` |
//! | `case-started` | `index`, `name`, `kind` |
//! | `case-finished` | `index`, `name`, `kind`, `line`, `result`, `execution_status`, `status`, `exit_code`, `duration_seconds`, `evidence_hash`, `flaky`, `attempts`, `issues`, `warnings`, `not_run_reason`, `evidence` |
//! | `warning` | `message` |
//! | `run-finished` | `run_id`, `final_status`, `counts`, `duration_seconds`, `interrupted`, `exit_code` (the process's real exit code), `reports` |
//!
//! Output text is not included (it is in the evidence files and reports);
//! a consumer that wants it follows `evidence`.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::Written;
use crate::events::{Event, Reporter};

/// Writes each event as a JSON line.
pub struct JsonMessageReporter<W: Write> {
    out: W,
}

impl JsonMessageReporter<io::Stdout> {
    /// A reporter on stdout.
    pub fn stdout() -> Self {
        JsonMessageReporter::new(io::stdout())
    }
}

impl<W: Write> JsonMessageReporter<W> {
    /// A reporter on `out`.
    pub fn new(out: W) -> Self {
        JsonMessageReporter { out }
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// The JSON message of one event.
pub fn message(event: &Event<'_>) -> Value {
    match event {
        Event::RunStarted {
            run_id,
            suite_name,
            case_count,
        } => json!({
            "reason": "run-started",
            "run_id": run_id,
            "suite_name": suite_name,
            "case_count": case_count,
        }),
        Event::CaseStarted { index, name, kind } => json!({
            "reason": "case-started",
            "index": index,
            "name": name,
            "kind": kind,
        }),
        Event::CaseFinished { case } => json!({
            "reason": "case-finished",
            "index": case.index,
            "name": case.name,
            "kind": case.kind,
            "line": case.line,
            "result": case.result,
            "execution_status": case.execution_status,
            "status": case.status,
            "exit_code": case.exit_code,
            "duration_seconds": case.duration.as_secs_f64(),
            "evidence_hash": case.evidence_hash,
            "flaky": case.flaky,
            "attempts": case.previous_attempts.len() + 1,
            "issues": case.issues,
            "warnings": case.warnings,
            "not_run_reason": case.reason,
            "evidence": case.artifacts.as_ref().map(|a| &a.evidence),
        }),
        Event::Warning { message } => json!({
            "reason": "warning",
            "message": message,
        }),
        Event::RunFinished { record, exit_code } => {
            let written = Written::in_dir(&record.out_dir);
            json!({
                "reason": "run-finished",
                "run_id": record.run_id,
                "final_status": record.final_status(),
                "counts": record.counts(),
                "duration_seconds": record.duration.as_secs_f64(),
                "interrupted": record.interrupted,
                "exit_code": exit_code,
                "reports": {
                    "junit": written.junit.to_string_lossy(),
                    "markdown": written.markdown.to_string_lossy(),
                    "summary": written.summary.to_string_lossy(),
                    "observations": written.observations.to_string_lossy(),
                },
            })
        }
    }
}

impl<W: Write> Reporter for JsonMessageReporter<W> {
    fn name(&self) -> &'static str {
        "JSON messages"
    }

    fn report(&mut self, event: &Event<'_>) -> io::Result<()> {
        let mut line = serde_json::to_vec(&message(event)).map_err(io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        // A consumer reads line by line as the run goes.
        self.out.flush()
    }
}
