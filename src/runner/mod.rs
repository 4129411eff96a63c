//! The process side of a run: the scheduler (`run`), one case's life
//! (`case`), process spawning and reaping (`process`), streaming
//! capture (`capture`), golden-project isolation (`isolation`) and the
//! check for uncommitted changes before a case runs (`git`),
//! interrupts (`interrupt`), case selection (`select`) and the platform
//! code behind one small interface (`sys`: `unix.rs`, `windows.rs`): put a spawned
//! command in a container of its own (`prepare`, `confine`), kill a
//! container (`kill_case`), watch both pipes and the exit with a timeout
//! (`Watch`), exit codes, interrupt handling (`on_interrupt`), the sweep of
//! inherited processes and the guardian (Linux; no-ops on Windows, whose Job
//! Objects hold every descendant) and the file kinds isolation needs.
//!
//! The runner emits [`crate::events::Event`]s; it never writes a report or
//! prints.

pub(crate) mod capture;
pub(crate) mod case;
pub(crate) mod git;
pub(crate) mod interrupt;
pub(crate) mod isolation;
pub(crate) mod process;
pub(crate) mod result_files;
pub(crate) mod run;
pub(crate) mod select;

mod sys;

use std::path::PathBuf;
use std::sync::Arc;

pub(crate) use interrupt::Interrupt;

impl Interrupt {
    /// Install the platform's interrupt handling (see the `interrupt` module): a
    /// first signal asks the run to stop, a second kills every case
    /// process and exits. Here, not in `interrupt`, so the signal layer
    /// and the process layer need nothing of each other.
    pub(crate) fn install() -> std::io::Result<Arc<Interrupt>> {
        Interrupt::install_with(process::kill_all)
    }
}
pub(crate) use process::{contain, release};
pub(crate) use run::Run;
#[cfg(feature = "cli")]
pub(crate) use run::{included, run};
pub(crate) use select::{Filter, Partition};

use crate::classify;

/// How a run is shaped.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunOptions {
    /// Absolute output directory.
    pub(crate) out_dir: PathBuf,
    /// Use this run id instead of a fresh one (shared nextest runs).
    pub(crate) run_id: Option<String>,
    /// Name filters; cases filtered out are SKIPPED.
    pub(crate) filter: Filter,
    /// Skip the rest after the first FAILED or ERROR case.
    pub(crate) fail_fast: bool,
    /// Cases at once (0 = the harness file's `jobs`).
    pub(crate) jobs: usize,
    /// Override every case's retries.
    pub(crate) retries: Option<u32>,
    /// Run only this shard; other cases are left out of the record.
    pub(crate) partition: Option<Partition>,
    /// Interrupt state (signals), if the caller installed it.
    pub(crate) interrupt: Option<Arc<Interrupt>>,
    /// JUnit family of the reports (None = the harness file's `junit`).
    pub(crate) junit: Option<crate::model::JunitFlavour>,
    /// What a run that selects no case makes of it.
    pub(crate) no_cases: crate::model::NoCases,
    /// Stream each case's output live to stderr (`--no-capture`); the
    /// caller also runs one case at a time so outputs do not interleave.
    pub(crate) no_capture: bool,
    /// Which of the `ignored` cases run.
    pub(crate) ignored: Ignored,
    /// Write snapshots from the output instead of comparing (`--bless`).
    pub(crate) bless: bool,
    /// Variables removed from every case's environment (secrets of the
    /// harness itself, such as the signing key).
    pub(crate) hidden_env: &'static [&'static str],
    /// Cases taken before the others (`--failed-first`), `after` still
    /// holding; reports keep declaration order.
    pub(crate) first: Vec<String>,
}

/// Which cases run with respect to their `ignored` setting (libtest's
/// `--ignored` and `--include-ignored`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Ignored {
    /// Ignored cases are SKIPPED with their reason.
    #[default]
    Skip,
    /// Only the ignored cases run.
    Only,
    /// Every case runs.
    Include,
}

impl Ignored {
    /// Whether a case runs whose `ignored` is set (`marked`) or not.
    pub(crate) fn runs(self, marked: bool) -> bool {
        match self {
            Ignored::Skip => !marked,
            Ignored::Only => marked,
            Ignored::Include => true,
        }
    }
}

/// The name of the machine the run is on, as JUnit's `hostname` shows it;
/// empty when the OS does not say.
pub(crate) fn hostname() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EngineError {
    /// A pattern did not compile.
    #[error(transparent)]
    Pattern(#[from] classify::PatternError),
    /// The output directory could not be created.
    #[error("cannot create the output directory {}", path.display())]
    OutDir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}
