//! Turning the process arguments into the clap model, the same for both
//! front doors: `cargo golden ARGS` (cargo runs `cargo-golden golden
//! ARGS`) and `golden ARGS` (the binary the Python wheel installs), whose
//! help and usage name `golden`.

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser};

use super::args::{CargoCli, GoldenCli};

/// Which command the user typed: what help and usage lines name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Front {
    /// `cargo golden` (cargo runs `cargo-golden golden ARGS`).
    Cargo,
    /// `golden`.
    Golden,
}

/// Parse `args` (the process's, program name first) as `front` reads
/// them.
pub(super) fn parse(front: Front, mut args: Vec<OsString>) -> Result<GoldenCli, clap::Error> {
    // cargo runs us as `cargo-golden golden …`; a direct call has no
    // `golden`, and neither has `golden …` (`golden golden …` is allowed
    // too, as `cargo-golden golden …` is).
    if args.get(1).is_none_or(|a| a != "golden") {
        args.insert(1.min(args.len()), OsString::from("golden"));
    }
    let args = hoist_subcommand(args);
    match front {
        Front::Cargo => CargoCli::try_parse_from(args).map(|CargoCli::Golden(cli)| cli),
        Front::Golden => parse_as_golden(args),
    }
}

/// `args` (`PROGRAM golden ARGS`) parsed by the `golden` subcommand's
/// own clap model, renamed `golden`: one model for both fronts, so their
/// flags cannot drift apart.
fn parse_as_golden(mut args: Vec<OsString>) -> Result<GoldenCli, clap::Error> {
    args.remove(1);
    let mut command = CargoCli::command()
        .find_subcommand("golden")
        .cloned()
        .unwrap_or_else(|| clap::Command::new("golden"))
        .name("golden")
        .bin_name("golden")
        .styles(clap_cargo::style::CLAP_STYLING);
    let matches = command.try_get_matches_from_mut(args)?;
    GoldenCli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
}

/// `cargo golden --config f.toml list` means the `list` subcommand, not a
/// run filtered by "list": clap would take a subcommand name that follows
/// run flags as a filter, so the first bare word, when it names a
/// subcommand, is moved to the front (`args[0]` is the program, `args[1]`
/// is `golden`). Which flags take a value is read from the clap model, so
/// it cannot drift from the flags themselves.
fn hoist_subcommand(mut args: Vec<OsString>) -> Vec<OsString> {
    let cargo = CargoCli::command();
    let Some(golden) = cargo.find_subcommand("golden") else {
        return args;
    };
    let takes_value = |word: &str| {
        golden.get_arguments().any(|a| {
            !a.is_positional()
                && a.get_action().takes_values()
                && (word
                    .strip_prefix("--")
                    .is_some_and(|l| a.get_long() == Some(l))
                    || (word.len() == 2
                        && word.starts_with('-')
                        && a.get_short().is_some_and(|c| word.ends_with(c))))
        })
    };
    let mut i = 2;
    while i < args.len() {
        let Some(word) = args[i].to_str() else {
            return args;
        };
        if word == "--" {
            return args;
        }
        if word.starts_with('-') && word.len() > 1 {
            // `--config=f.toml` carries its value; `--config f.toml` does not.
            i += if !word.contains('=') && takes_value(word) {
                2
            } else {
                1
            };
            continue;
        }
        if i > 2 && golden.find_subcommand(word).is_some() {
            let sub = args.remove(i);
            args.insert(2, sub);
        }
        return args;
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::Command;

    fn parsed(front: Front, args: &[&str]) -> Result<GoldenCli, clap::Error> {
        parse(front, args.iter().map(OsString::from).collect())
    }

    fn cargo(args: &[&str]) -> GoldenCli {
        let mut all = vec!["cargo-golden", "golden"];
        all.extend(args);
        parsed(Front::Cargo, &all).unwrap()
    }

    #[test]
    fn a_subcommand_after_run_flags_is_the_subcommand() {
        let cli = cargo(&["--config", "f.toml", "list"]);
        let Some(Command::List(list)) = cli.command else {
            panic!("not list: {:?}", cli.command);
        };
        assert_eq!(list.harness().config, Some("f.toml".into()));
    }

    #[test]
    fn a_flag_given_with_its_value_is_skipped_too() {
        let cli = cargo(&["--config=f.toml", "--exact", "list", "x"]);
        let Some(Command::List(list)) = cli.command else {
            panic!("not list: {:?}", cli.command);
        };
        assert_eq!(list.listing().filter.patterns, ["x"]);
        assert!(list.listing().filter.exact);
    }

    /// The filters of `args` parsed as a run (no subcommand).
    fn run_filters(args: &[&str]) -> Vec<String> {
        let cli = cargo(args);
        assert!(cli.command.is_none(), "{args:?}: {:?}", cli.command);
        cli.run.run().filter.patterns
    }

    #[test]
    fn a_flag_value_that_names_a_subcommand_stays_a_value() {
        let cli = cargo(&["-p", "list"]);
        assert!(cli.command.is_none());
        assert_eq!(cli.run.harness().package.as_deref(), Some("list"));
        assert_eq!(run_filters(&["--golden", "review", "x"]), ["x"]);
    }

    #[test]
    fn a_bare_word_that_names_no_subcommand_is_a_filter() {
        assert_eq!(
            run_filters(&["--exact", "sales", "list"]),
            ["sales", "list"]
        );
        assert_eq!(run_filters(&["--", "list"]), ["list"]);
    }

    #[test]
    fn no_subcommand_is_a_run_and_list_flag_lists() {
        let cli = cargo(&["--list", "-j", "3"]);
        assert!(cli.command.is_none());
        assert!(cli.run.list);
        assert_eq!(cli.run.run().jobs, Some(3));
    }

    #[test]
    fn cargo_golden_without_golden_is_the_same_command_line() {
        let direct = parsed(
            Front::Cargo,
            &["cargo-golden", "--config", "f.toml", "list"],
        )
        .unwrap();
        assert!(matches!(direct.command, Some(Command::List(_))));
    }

    #[test]
    fn the_golden_front_reads_the_same_flags() {
        for args in [
            &["golden", "--config", "f.toml", "list"][..],
            &["golden", "golden", "--config", "f.toml", "list"],
        ] {
            let cli = parsed(Front::Golden, args).unwrap();
            let Some(Command::List(list)) = cli.command else {
                panic!("not list: {args:?}");
            };
            assert_eq!(list.harness().config, Some("f.toml".into()));
        }
    }

    #[test]
    fn each_front_names_itself_in_usage() {
        let usage = |front, args: &[&str]| {
            let Err(e) = parsed(front, args) else {
                panic!("{args:?} parsed");
            };
            assert!(e.use_stderr());
            e.render().to_string()
        };
        let golden = usage(Front::Golden, &["golden", "list", "--nope"]);
        assert!(golden.contains("Usage: golden list"), "{golden}");
        let cargo = usage(Front::Cargo, &["cargo-golden", "golden", "list", "--nope"]);
        assert!(cargo.contains("Usage: cargo golden list"), "{cargo}");
    }

    #[test]
    fn run_and_its_flags_conflict_with_a_subcommand() {
        let e = parsed(
            Front::Cargo,
            &["cargo-golden", "golden", "--failed", "--failed-first"],
        );
        assert!(e.is_err());
        let e = parsed(
            Front::Cargo,
            &["cargo-golden", "golden", "list", "--fail-fast"],
        );
        assert!(e.is_err());
    }
}
