//! `--message-format json`: one JSON object per event on stdout, one per
//! line, each with a `reason` naming the event, as `cargo build
//! --message-format json` does.
//!
//! The format is `crate::wire::message`.

use std::io::{self, Write};

use super::{JUNIT_FILE, MARKDOWN_FILE, OBSERVATIONS_FILE, SUMMARY_FILE};
use crate::events::{Event, Reporter};
use crate::wire::message::{
    BaselineOutcome, CaseFinished, Message, MessageLine, ReportPaths, RunFinished,
};

/// Writes each event as a JSON line.
pub(crate) struct JsonMessageReporter<W: Write> {
    out: W,
}

impl JsonMessageReporter<io::Stdout> {
    /// A reporter on stdout.
    pub(crate) fn stdout() -> Self {
        JsonMessageReporter::new(io::stdout())
    }
}

impl<W: Write> JsonMessageReporter<W> {
    /// A reporter on `out`.
    pub(crate) fn new(out: W) -> Self {
        JsonMessageReporter { out }
    }

    /// The underlying writer.
    #[cfg(test)]
    pub(crate) fn into_inner(self) -> W {
        self.out
    }
}

/// The JSON message of one event; None for a terminal-only note.
pub(crate) fn message(event: &Event<'_>) -> Option<MessageLine> {
    let message = match event {
        Event::RunStarted {
            run_id,
            suite_name,
            case_count,
        } => Message::RunStarted {
            run_id: run_id.to_string(),
            suite_name: suite_name.to_string(),
            case_count: *case_count,
        },
        Event::CaseStarted { index, name, kind } => Message::CaseStarted {
            index: *index,
            name: name.to_string(),
            kind: *kind,
        },
        Event::CaseSlow {
            index,
            name,
            kind,
            elapsed,
        } => Message::CaseSlow {
            index: *index,
            name: name.to_string(),
            kind: *kind,
            elapsed_seconds: elapsed.as_secs_f64(),
        },
        Event::CaseFinished { case } => Message::CaseFinished(Box::new(CaseFinished {
            index: case.index,
            name: case.name.clone(),
            kind: case.kind,
            line: case.line,
            result: case.result,
            execution_status: case.execution_status,
            status: case.status,
            exit_code: case.exit_code,
            duration_seconds: case.duration.as_secs_f64(),
            evidence_hash: case.evidence_hash.clone(),
            flaky: case.flaky,
            attempts: case.previous_attempts.len() + 1,
            issues: case.issues.clone(),
            warnings: case.warnings.clone(),
            not_run_reason: case.reason.clone(),
            evidence: case.artifacts.as_ref().map(|a| a.evidence.clone()),
        })),
        Event::Warning { message } => Message::Warning {
            message: message.to_string(),
        },
        Event::Note { .. } => return None,
        Event::RunFinished { record, outcome } => {
            let path = |name| record.out_dir.join(name).to_string_lossy().into_owned();
            Message::RunFinished(Box::new(RunFinished {
                run_id: record.run_id.clone(),
                final_status: outcome.results.status.to_string(),
                counts: record.counts(),
                duration_seconds: record.duration.as_secs_f64(),
                interrupted: record.interrupted,
                exit_code: outcome.exit_code,
                reports: ReportPaths {
                    junit: path(JUNIT_FILE),
                    markdown: path(MARKDOWN_FILE),
                    summary: path(SUMMARY_FILE),
                    observations: path(OBSERVATIONS_FILE),
                },
                baseline: record.baseline.as_ref().map(|c| BaselineOutcome {
                    gate: c.gate,
                    counts: c.counts,
                    passes_gate: c.passes_gate(),
                }),
            }))
        }
    };
    Some(message.into())
}

impl<W: Write> Reporter for JsonMessageReporter<W> {
    fn name(&self) -> &'static str {
        "JSON messages"
    }

    fn report(&mut self, event: &Event<'_>) -> io::Result<()> {
        let Some(message) = message(event) else {
            return Ok(());
        };
        let mut line = serde_json::to_vec(&message).map_err(io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        // A consumer reads line by line as the run goes.
        self.out.flush()
    }
}
