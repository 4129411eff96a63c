//! Ctrl-C / SIGTERM handling for a run.
//!
//! The first signal asks the engine to stop: the running cases' groups are
//! killed, the rest are skipped, every report is still written. A second
//! signal kills the running groups and exits at once.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::sys::{self, Signal};

/// Shared interrupt state between the signal thread and the engine.
#[derive(Debug, Default)]
pub struct Interrupt {
    count: AtomicUsize,
    groups: Mutex<HashSet<u32>>,
}

impl Interrupt {
    /// A fresh state with no signal received.
    pub fn new() -> Arc<Interrupt> {
        Arc::new(Interrupt::default())
    }

    /// Install SIGINT/SIGTERM handling on a background thread.
    pub fn install() -> std::io::Result<Arc<Interrupt>> {
        let state = Interrupt::new();
        let mut signals = signal_hook::iterator::Signals::new(sys::INTERRUPT_SIGNALS)?;
        let s = Arc::clone(&state);
        std::thread::spawn(move || {
            for _ in signals.forever() {
                if s.count.fetch_add(1, Ordering::SeqCst) >= 1 {
                    s.kill_all();
                    eprintln!("cargo-golden: interrupted twice, exiting now");
                    std::process::exit(crate::exit::INTERRUPTED);
                }
                eprintln!(
                    "cargo-golden: interrupted: stopping the running case (press Ctrl-C again to exit now)"
                );
            }
        });
        Ok(state)
    }

    /// Ask the run to stop (as a first signal does).
    pub fn request(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether a stop was requested.
    pub fn requested(&self) -> bool {
        self.count.load(Ordering::SeqCst) > 0
    }

    /// Track a running group.
    pub fn add_group(&self, pgid: u32) {
        self.groups
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(pgid);
    }

    /// Forget a finished group.
    pub fn remove_group(&self, pgid: u32) {
        self.groups
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&pgid);
    }

    fn kill_all(&self) {
        for &g in self.groups.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            sys::kill_group(g, Signal::Kill);
        }
    }
}
