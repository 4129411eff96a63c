//! The event stream between the engine and every reporter.
//!
//! Streaming reporters (terminal, JSON lines, GitHub annotations) act on
//! each event as it arrives; file reports are rendered from the final
//! [`RunRecord`] carried by [`Event::RunFinished`].

use crate::model::{CaseKind, CaseRecord, RunRecord};

/// One thing that happened during a run.
#[derive(Debug)]
pub enum Event<'a> {
    /// The run is about to start.
    RunStarted {
        /// Run id.
        run_id: &'a str,
        /// Suite name.
        suite_name: &'a str,
        /// Cases that will run or be skipped in this run.
        case_count: usize,
    },
    /// A case started running.
    CaseStarted {
        /// Declaration index.
        index: usize,
        /// Case name.
        name: &'a str,
        /// Case kind.
        kind: CaseKind,
    },
    /// A case finished (passed, failed, errored or was skipped).
    CaseFinished {
        /// The final record of the case.
        case: &'a CaseRecord,
    },
    /// A run-level warning.
    Warning {
        /// The message.
        message: &'a str,
    },
    /// The run is over; every case is in the record.
    RunFinished {
        /// The whole run.
        record: &'a RunRecord,
    },
}

/// Consumes events. Reporters never fail the run for a broken terminal:
/// errors are returned so the caller can say which reporter failed.
pub trait Reporter {
    /// Handle one event.
    fn report(&mut self, event: &Event<'_>) -> std::io::Result<()>;
}

/// Fans each event out to several reporters.
#[derive(Default)]
pub struct Fanout {
    reporters: Vec<Box<dyn Reporter + Send>>,
}

impl Fanout {
    /// Add a reporter.
    pub fn push(&mut self, r: Box<dyn Reporter + Send>) {
        self.reporters.push(r);
    }

    /// Send an event to every reporter; the first error is returned after all
    /// reporters saw the event.
    pub fn emit(&mut self, event: &Event<'_>) -> std::io::Result<()> {
        let mut first = Ok(());
        for r in &mut self.reporters {
            if let Err(e) = r.report(event)
                && first.is_ok()
            {
                first = Err(e);
            }
        }
        first
    }
}
