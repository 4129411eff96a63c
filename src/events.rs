//! The event stream between the engine and every reporter.
//!
//! Streaming reporters (terminal, JSON lines, GitHub annotations) act on
//! each event as it arrives; file reports are rendered from the final
//! [`RunRecord`] carried by [`Event::RunFinished`].

use std::io::Write as _;

use crate::conclusion::RunOutcome;
use crate::model::{CaseKind, CaseRecord, RunRecord};

/// One thing that happened during a run.
#[derive(Debug)]
pub(crate) enum Event<'a> {
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
    /// A case is still running after another `slow` period (its `slow`
    /// setting): a sign of life on every output, TTY or not.
    CaseSlow {
        /// Declaration index.
        index: usize,
        /// Case name.
        name: &'a str,
        /// Case kind.
        kind: CaseKind,
        /// How long it has run: a whole number of `slow` periods.
        elapsed: std::time::Duration,
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
    /// A run-level note for the person at the terminal: something the run
    /// did not do, said once (not a warning: no report or annotation
    /// carries it).
    Note {
        /// The message.
        message: &'a str,
    },
    /// The run is over: every case is in the record, the reports are
    /// written and checked.
    RunFinished {
        /// The whole run.
        record: &'a RunRecord,
        /// How it ended: final status, the exit code the process ends
        /// with (report failures and integrity violations included), and
        /// the reports it wrote. Reporters read it; none recomputes it.
        outcome: &'a RunOutcome,
    },
}

/// Consumes events. Reporters never fail the run for a broken terminal:
/// errors are returned so the [`Fanout`] can say which reporter failed.
pub(crate) trait Reporter {
    /// Handle one event.
    fn report(&mut self, event: &Event<'_>) -> std::io::Result<()>;

    /// How the reporter is named in a warning about it.
    fn name(&self) -> &'static str {
        "reporter"
    }
}

struct Slot {
    reporter: Box<dyn Reporter + Send>,
    /// Already warned about: one warning per reporter, however many events
    /// fail after the first.
    failed: bool,
}

/// Fans each event out to several reporters. A reporter that fails (a
/// closed pipe, a full disk) is named in one warning on the diagnostics
/// stream (stderr unless replaced) and still sees every later event, so a
/// transient failure loses as little as possible; the run goes on either
/// way.
pub(crate) struct Fanout {
    reporters: Vec<Slot>,
    diagnostics: Box<dyn std::io::Write + Send>,
}

impl Default for Fanout {
    fn default() -> Self {
        Fanout::with_diagnostics(Box::new(std::io::stderr()))
    }
}

impl Fanout {
    /// A fanout whose warnings about failed reporters go to `diagnostics`.
    pub(crate) fn with_diagnostics(diagnostics: Box<dyn std::io::Write + Send>) -> Self {
        Fanout {
            reporters: Vec::new(),
            diagnostics,
        }
    }

    /// Add a reporter.
    pub(crate) fn push(&mut self, r: Box<dyn Reporter + Send>) {
        self.reporters.push(Slot {
            reporter: r,
            failed: false,
        });
    }

    /// Send an event to every reporter; the first failure of each is
    /// reported as a warning.
    pub(crate) fn emit(&mut self, event: &Event<'_>) {
        for slot in &mut self.reporters {
            if let Err(e) = slot.reporter.report(event)
                && !slot.failed
            {
                slot.failed = true;
                // Nowhere left to report a failing diagnostics stream.
                let _ = writeln!(
                    self.diagnostics,
                    "warning: the {} reporter failed: {}; its output is incomplete",
                    slot.reporter.name(),
                    crate::conclusion::error_chain(&e)
                );
            }
        }
    }

    /// Names of the reporters that failed at least once.
    #[cfg(test)]
    pub(crate) fn failed(&self) -> Vec<&'static str> {
        self.reporters
            .iter()
            .filter(|s| s.failed)
            .map(|s| s.reporter.name())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use super::*;

    /// Fails every event after `ok` successful ones.
    struct Flaky {
        ok: usize,
        seen: Arc<Mutex<usize>>,
    }

    impl Reporter for Flaky {
        fn report(&mut self, _: &Event<'_>) -> io::Result<()> {
            let mut seen = self.seen.lock().unwrap();
            *seen += 1;
            if *seen > self.ok {
                Err(io::Error::new(io::ErrorKind::BrokenPipe, "pipe closed"))
            } else {
                Ok(())
            }
        }

        fn name(&self) -> &'static str {
            "flaky"
        }
    }

    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Sink {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_reporter_is_named_once_and_the_others_go_on() {
        let sink = Sink::default();
        let mut fanout = Fanout::with_diagnostics(Box::new(sink.clone()));
        let (broken, healthy) = (Arc::default(), Arc::default());
        fanout.push(Box::new(Flaky {
            ok: 1,
            seen: Arc::clone(&broken),
        }));
        fanout.push(Box::new(Flaky {
            ok: usize::MAX,
            seen: Arc::clone(&healthy),
        }));
        for _ in 0..4 {
            fanout.emit(&Event::Warning { message: "w" });
        }
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "warning: the flaky reporter failed: pipe closed; its output is incomplete\n"
        );
        assert_eq!(fanout.failed(), vec!["flaky"]);
        assert_eq!(*broken.lock().unwrap(), 4, "still sees every event");
        assert_eq!(*healthy.lock().unwrap(), 4);
    }
}
