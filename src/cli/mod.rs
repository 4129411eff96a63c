//! The `cargo golden` command line, thin as ripgrep's: a raw clap layer
//! mirroring the flags (`args`), parsed the same for both front doors
//! (`parse`), the harness the flags name located and loaded into one
//! value (`locate`), and a dispatch to the subcommands, whose work lives
//! in [`crate::commands`].

use std::ffi::OsString;

use crate::commands::{
    self, bless_from, clean, diff, history, list, merge, review, schema, snapshots, validate,
    verify,
};
use crate::conclusion;

mod args;
mod locate;
mod parse;

use args::Command;
use locate::{HarnessFlags, LocateError};
use parse::Front;

/// Parse the process arguments as `cargo golden ARGS` (the binary
/// `cargo-golden`) and run; returns the exit code.
pub fn main() -> i32 {
    main_as(Front::Cargo, std::env::args_os().collect())
}

/// Parse the process arguments as `golden ARGS` (the binary `golden`, as
/// the Python wheel installs it) and run: the same flags and subcommands
/// as `cargo golden ARGS`, with help and usage that name `golden`.
pub fn golden_main() -> i32 {
    main_as(Front::Golden, std::env::args_os().collect())
}

fn main_as(front: Front, args: Vec<OsString>) -> i32 {
    match parse::parse(front, args) {
        Ok(cli) => dispatch(cli.command.unwrap_or(Command::Run(cli.run))),
        Err(e) => {
            let _ = e.print();
            if e.use_stderr() {
                conclusion::USAGE
            } else {
                conclusion::SUCCESS
            }
        }
    }
}

/// Run the subcommand; returns its exit code.
fn dispatch(command: Command) -> i32 {
    match command {
        Command::Run(a) if a.list => with(a.harness(), false, |l| list::command(l, &a.listing())),
        Command::Run(a) => commands::run::contained(|| {
            with(a.harness(), true, |l| commands::run::command(l, &a.run()))
        }),
        Command::List(a) => with(a.harness(), false, |l| list::command(l, &a.listing())),
        Command::Init(a) => commands::init::command::command(&a.setup()),
        Command::Validate(a) => validate::command(&a.file, a.format.format()),
        Command::VerifyEvidence(a) => verify_evidence(a),
        Command::Merge(a) => merge::command(&a.request()),
        Command::Clean(at) => with(at.harness(), true, clean::command),
        Command::Diff(a) => diff::command(&a.base, &a.new, a.out.as_deref()),
        Command::History(a) => match &a.at.out {
            Some(out) => history::command(out, &a.query()),
            None => with(a.at.harness(), true, |l| {
                history::command(&l.out_dir, &a.query())
            }),
        },
        Command::Snapshots(a) => with(a.at.harness(), false, |l| snapshots::command(l, a.prune)),
        Command::Bless(a) => with(a.harness(), false, |l| {
            bless_from::command(l, &a.from, a.key.public_key.as_deref())
        }),
        Command::Review(a) => with(a.at.harness(), a.needs_out_dir(), |l| {
            review::command(l, a.request())
        }),
        Command::Schema(a) => schema::command(a.print()),
    }
}

/// Run `command` on the harness `flags` name, once located and loaded
/// (with an out dir when `need_out_dir`).
fn with(
    flags: HarnessFlags,
    need_out_dir: bool,
    command: impl FnOnce(&commands::Loaded) -> i32,
) -> i32 {
    match locate::load(flags, need_out_dir) {
        Ok(loaded) => command(&loaded),
        Err(e) => e.usage(),
    }
}

/// `verify-evidence`: of DIR, else of the default out dir.
fn verify_evidence(a: args::VerifyArgs) -> i32 {
    let dir = match a.dir.clone() {
        Some(dir) => dir,
        None => match locate::load(a.harness(), true) {
            Ok(loaded) => loaded.out_dir,
            Err(e) => return LocateError::NoDefaultOutDir(Box::new(e)).usage(),
        },
    };
    verify::command(&verify::Check {
        dir,
        public_key: a.public_key,
        attestation: a.attestation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(args: &[&str]) -> i32 {
        let mut all = vec!["cargo-golden", "golden"];
        all.extend(args);
        main_as(Front::Cargo, all.into_iter().map(OsString::from).collect())
    }

    fn harness(dir: &std::path::Path) -> String {
        let file = dir.join("harness.toml");
        std::fs::write(
            &file,
            "[harness]\nname = \"t\"\n\n[[verify]]\nname = \"ok\"\ncommand = \"true\"\n",
        )
        .unwrap();
        file.display().to_string()
    }

    #[test]
    fn list_and_run_list_read_the_harness_given() {
        let dir = tempfile::tempdir().unwrap();
        let file = harness(dir.path());
        assert_eq!(code(&["--config", &file, "list"]), conclusion::SUCCESS);
        assert_eq!(code(&["--list", "--config", &file]), conclusion::SUCCESS);
        let missing = dir.path().join("missing.toml").display().to_string();
        assert_eq!(code(&["list", "--config", &missing]), conclusion::USAGE);
    }

    #[test]
    fn clean_removes_the_last_reports() {
        let dir = tempfile::tempdir().unwrap();
        let file = harness(dir.path());
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        let summary = out.join(crate::report::SUMMARY_FILE);
        std::fs::write(&summary, "{}").unwrap();
        let out_arg = out.display().to_string();
        assert_eq!(
            code(&["clean", "--config", &file, "--out", &out_arg]),
            conclusion::SUCCESS
        );
        assert!(!summary.exists());
    }

    #[test]
    fn subcommands_without_a_harness_run_on_their_arguments() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nothing").display().to_string();
        let empty = dir.path().join("observations.jsonl");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(
            code(&["validate", &empty.display().to_string()]),
            conclusion::SUCCESS
        );
        assert_eq!(code(&["validate", &missing]), conclusion::USAGE);
        assert_eq!(code(&["diff", &missing, &missing]), conclusion::USAGE);
        assert_eq!(code(&["history", "--out", &missing]), conclusion::SUCCESS);
    }

    #[test]
    fn verify_evidence_without_dir_needs_a_harness() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.toml").display().to_string();
        assert_eq!(
            code(&["verify-evidence", "--config", &missing]),
            conclusion::USAGE
        );
    }
}
