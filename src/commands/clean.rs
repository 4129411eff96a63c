//! `cargo golden clean`: remove every run directory under
//! `<out dir>/artifacts`, their review decisions and the last run's
//! reports, under the out dir's lock so no run is using them.

use std::path::{Path, PathBuf};

use crate::commands::Loaded;
use crate::commands::output::{print_error, usage_error};
use crate::conclusion;

/// Why the out dir could not be cleaned.
#[derive(Debug, thiserror::Error)]
#[error("cannot clean {}", .0.display())]
struct CleanError(PathBuf, #[source] std::io::Error);

/// Clean `loaded`'s out dir.
pub(crate) fn command(loaded: &Loaded) -> i32 {
    let out = &loaded.out_dir;
    // Never under a run that is using the out dir.
    let _lock = match out
        .is_dir()
        .then(|| crate::outdir::lock(out, crate::outdir::Access::Exclusive))
        .transpose()
    {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    match remove_runs(out) {
        Ok(n) => {
            eprintln!(
                "{:>12} {n} run(s) and the reports in {}",
                "Removed",
                crate::layout::display_relative(out)
            );
            conclusion::SUCCESS
        }
        Err(e) => {
            print_error(&CleanError(out.clone(), e));
            conclusion::FAILED
        }
    }
}

/// Remove the run dirs, the review decisions and the reports of `out`;
/// how many runs were removed.
fn remove_runs(out: &Path) -> std::io::Result<usize> {
    let written = crate::report::Written::in_dir(out);
    let runs = crate::layout::run_dirs(out, true)?;
    for dir in &runs {
        std::fs::remove_dir_all(dir)?;
    }
    // The review decisions of the runs just removed decide nothing.
    match std::fs::remove_dir_all(out.join(crate::layout::REVIEW_DIR)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    for report in written.paths() {
        match std::fs::remove_file(report) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(runs.len())
}
