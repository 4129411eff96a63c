//! Interrupt handling for a run: Ctrl-C, SIGTERM, SIGHUP (a closed
//! terminal) and the other signals that would otherwise end the harness
//! and free its cases; on Windows Ctrl-C, Ctrl-Break and a closed console.
//!
//! The first signal asks the engine to stop: the running cases are killed,
//! the rest are skipped, every report is still written. A second signal
//! kills every case process, removes the temporary copies of golden
//! projects and exits at once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::sys;

/// Shared interrupt state between the signal thread and the engine.
#[derive(Debug, Default)]
pub(crate) struct Interrupt {
    count: AtomicUsize,
    temp_dirs: Mutex<HashSet<PathBuf>>,
    /// What a second signal runs before the harness exits: kill every
    /// case process. Given by whoever installs the handling, so this
    /// module needs nothing of the process layer.
    kill_cases: Option<fn()>,
}

impl Interrupt {
    /// A fresh state with no signal received.
    #[cfg(test)]
    pub(crate) fn new() -> Arc<Interrupt> {
        Arc::new(Interrupt::default())
    }

    /// Install the platform's interrupt handling (the signals above;
    /// Ctrl-C, Ctrl-Break and a closed console on Windows); a second signal
    /// runs `kill_cases` before exiting.
    pub(crate) fn install_with(kill_cases: fn()) -> std::io::Result<Arc<Interrupt>> {
        let state = Arc::new(Interrupt {
            kill_cases: Some(kill_cases),
            ..Interrupt::default()
        });
        let s = Arc::clone(&state);
        sys::on_interrupt(move || s.on_signal())?;
        Ok(state)
    }

    fn on_signal(&self) {
        // The terminal may be gone (SIGHUP), or another thread's write to
        // it blocked: nothing here waits on stderr, so the next signal is
        // always heard.
        if self.count.fetch_add(1, Ordering::SeqCst) >= 1 {
            self.exit_now();
        }
        sys::say(
            "cargo-golden: interrupted: stopping the running case (press Ctrl-C again to exit now)\n",
        );
    }

    /// Kill every case process, remove the temporary copies, exit.
    fn exit_now(&self) -> ! {
        // Before the cases die: the run must not go on to write reports
        // of the cases it is abandoning while the harness exits.
        let _closed = crate::atomic::close_writes();
        if let Some(kill) = self.kill_cases {
            kill();
        }
        let dirs = self.temp_dirs.lock().unwrap_or_else(|e| e.into_inner());
        for d in dirs.iter() {
            let _ = std::fs::remove_dir_all(d);
        }
        sys::say("cargo-golden: interrupted twice, exiting now\n");
        std::process::exit(crate::conclusion::INTERRUPTED);
    }

    /// Ask the run to stop (as a first signal does).
    #[cfg(test)]
    pub(crate) fn request(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
    }

    /// Whether a stop was requested.
    pub(crate) fn requested(&self) -> bool {
        self.count.load(Ordering::SeqCst) > 0
    }

    /// Track a temporary directory to remove even on a second interrupt.
    pub(crate) fn add_temp_dir(&self, dir: &Path) {
        self.temp_dirs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(dir.to_path_buf());
    }

    /// Forget a temporary directory (its owner removes it).
    pub(crate) fn remove_temp_dir(&self, dir: &Path) {
        self.temp_dirs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(dir);
    }
}
