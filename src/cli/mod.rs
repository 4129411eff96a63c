//! The `cargo golden` command line: a raw clap layer mirroring the flags,
//! then the work of each subcommand.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::commands::validate::Format;
use crate::config::{self, ConfigError, HarnessConfig};
use crate::events::Fanout;
use crate::exit;
use crate::layout::display_relative;
use crate::model::{JunitFlavour, NoCases};
use crate::report::seal::Signer;
use crate::report::terminal::{OutputOptions, OutputWhen};
use crate::runner::select::{Filter, Partition};
use crate::runner::{self, RunOptions};
use crate::wire::message::{Message, MessageLine};

#[derive(Parser, Debug)]
#[command(name = "cargo", bin_name = "cargo", styles = clap_cargo::style::CLAP_STYLING)]
enum CargoCli {
    /// Run golden projects and verify commands as test cases.
    Golden(GoldenCli),
}

#[derive(Args, Debug)]
#[command(
    version,
    about = "Run golden projects and verify commands as test cases; never trust the exit code alone",
    args_conflicts_with_subcommands = true
)]
struct GoldenCli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the cases (the default).
    Run(RunArgs),
    /// List the cases in declaration order with kind and declaration line.
    List(ListArgs),
    /// Write a starter harness.toml, an example, snapshots/ and a CI workflow.
    ///
    /// In a cargo package (a Cargo.toml here, or at --manifest-path) also
    /// tests/golden.rs and the Cargo.toml entries, and the workflow installs
    /// the tool with cargo. Anywhere else (a dbt or Odibi repository) no cargo
    /// file is written: the harness runs the dbt project (dbt_project.yml) or
    /// Odibi pipeline (odibi.yaml) it finds, else a shell example, and the
    /// workflow installs the wheel (`pip install cargo-golden`) and runs
    /// `golden`.
    Init {
        /// Overwrite existing files.
        #[arg(long)]
        force: bool,
        /// Depend on the cargo-golden checkout at PATH (default: where the running
        /// binary was installed from). On a package already set up, changes
        /// only the dependency.
        #[arg(long, value_name = "PATH")]
        path: Option<PathBuf>,
        #[command(flatten)]
        manifest: clap_cargo::Manifest,
    },
    /// Check a file the tool writes against its schema (observations.jsonl by default).
    Validate {
        /// The file: observation lines, or a summary.json / evidence.json / history.jsonl (told by its name).
        file: PathBuf,
        #[command(flatten)]
        format: FormatArg,
    },
    /// Check a run's whole story: checksums, signature, every case's
    /// evidence and verdict, and the reports against the evidence.
    VerifyEvidence {
        /// An out dir (its latest run: the one its summary.json names) or a
        /// run dir (`artifacts/<run_id>`). Default: the default out dir.
        dir: Option<PathBuf>,
        /// Also check `SHA256SUMS.minisig` with this minisign public key
        /// (a `.pub` file, or the key itself); a missing or bad signature
        /// is then a finding.
        #[arg(long, value_name = "KEY")]
        public_key: Option<String>,
        /// Also check the run's test-result attestation
        /// (`test-result.intoto.json`, and with --public-key its signed
        /// envelope `test-result.intoto.dsse.json`) against the evidence.
        #[arg(long)]
        attestation: bool,
        /// The harness file whose out dir is the default (see `run`).
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
        #[command(flatten)]
        manifest: clap_cargo::Manifest,
    },
    /// Combine shard outputs into one set of reports.
    Merge {
        /// The shards' out dirs.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged reports go.
        #[arg(long, required = true)]
        out: PathBuf,
        /// JUnit family of the merged junit.xml (default: the shards').
        #[arg(long, value_enum, value_name = "FLAVOUR")]
        junit: Option<JunitFlavour>,
        /// Sign the merged run's SHA256SUMS with this minisign secret key
        /// (default: $CARGO_GOLDEN_SIGNING_KEY). Every shard must then be
        /// signed by it, unless --public-key names the shards' key.
        #[arg(long, value_name = "FILE")]
        sign_key: Option<PathBuf>,
        /// Merge only shards whose SHA256SUMS.minisig verifies with this
        /// minisign public key (a `.pub` file, or the key itself).
        #[arg(long, value_name = "KEY")]
        public_key: Option<String>,
    },
    /// Remove every run directory under <out dir>/artifacts, their review
    /// decisions and the last run's reports.
    Clean {
        #[command(flatten)]
        at: OutDirArgs,
    },
    /// Compare two out dirs' summary.json with the baseline rules; write diff.md and diff.json.
    Diff {
        /// The earlier run's out dir (e.g. main's last CI artifact).
        base: PathBuf,
        /// The later run's out dir (e.g. the pull request's run).
        new: PathBuf,
        /// Where diff.md and diff.json go (default: NEW).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Each case across the runs of the out dir's history.jsonl: its last
    /// results as a strip, pass rate, median and p90 duration, the commit
    /// it has failed since, and commits it both passed and failed on.
    History {
        /// Show only cases whose name contains one of these (all when empty).
        #[arg(value_name = "FILTER")]
        filters: Vec<String>,
        /// Results shown per case (the strip, pass rate and durations).
        #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
        last: u32,
        /// Output format: a line per case, or one JSON object per case.
        #[arg(long, value_enum, default_value_t = MessageFormat::Human, value_name = "FMT")]
        message_format: MessageFormat,
        #[command(flatten)]
        at: OutDirArgs,
    },
    /// List snapshot files and golden-baseline.json entries that no declared
    /// case owns (from the harness file, nothing is run).
    Snapshots {
        /// Remove them: the files, and the entries from the baseline.
        #[arg(long)]
        prune: bool,
        #[command(flatten)]
        at: OutDirArgs,
    },
    /// Bless snapshots and baseline entries from a run made elsewhere (a
    /// CI run's out dir, downloaded as an artifact) instead of running the
    /// cases here; only once `verify-evidence` passes on that out dir.
    Bless {
        /// The out dir of the run to bless from.
        #[arg(long, value_name = "OUT_DIR", required = true)]
        from: PathBuf,
        /// Also require `SHA256SUMS.minisig` to verify with this minisign
        /// public key (a `.pub` file, or the key itself).
        #[arg(long, value_name = "KEY")]
        public_key: Option<String>,
        /// The harness file whose snapshots and baseline are blessed
        /// (default: as for a run).
        #[arg(long, value_name = "PATH")]
        config: Option<PathBuf>,
        #[command(flatten)]
        manifest: clap_cargo::Manifest,
    },
    /// Look at each pending snapshot change of a run and accept, reject or
    /// skip it, as `cargo insta review` does: accepting writes what
    /// `--bless` writes, without running anything. The run is trusted only
    /// once `verify-evidence` passes on it. Off a terminal, without
    /// --accept or --reject, it lists the changes (--list).
    Review {
        /// The out dir of the run (its latest run), e.g. a CI run's,
        /// downloaded. Default: the harness file's out dir.
        #[arg(value_name = "OUT_DIR", conflicts_with = "out")]
        dir: Option<PathBuf>,
        /// Accept without asking the changes whose case name or snapshot
        /// file contains FILTER (repeatable; bare: every change).
        #[arg(long, value_name = "FILTER", num_args = 0..=1, default_missing_value = "")]
        accept: Vec<String>,
        /// Reject without asking the changes whose case name or snapshot
        /// file contains FILTER (repeatable; bare: every change).
        #[arg(long, value_name = "FILTER", num_args = 0..=1, default_missing_value = "")]
        reject: Vec<String>,
        /// --accept and --reject match a whole case name or snapshot file.
        #[arg(long)]
        exact: bool,
        /// List every change of the run and where it stands; decide nothing.
        #[arg(long, conflicts_with_all = ["accept", "reject"])]
        list: bool,
        /// Exit 1 while a change is left undecided (for CI).
        #[arg(long)]
        check: bool,
        /// Also require `SHA256SUMS.minisig` to verify with this minisign
        /// public key (a `.pub` file, or the key itself).
        #[arg(long, value_name = "KEY")]
        public_key: Option<String>,
        #[command(flatten)]
        at: OutDirArgs,
    },
    /// Print the JSON Schema of harness.toml, or of an output format.
    Schema {
        #[command(flatten)]
        format: FormatArg,
        /// Print the reference of every harness.toml key in Markdown instead.
        #[arg(long, conflicts_with_all = ["observation", "summary", "evidence", "message", "history"])]
        keys: bool,
    },
}

/// The out dir a subcommand works on: `--out`, else the harness file's.
#[derive(Args, Debug)]
struct OutDirArgs {
    /// The harness file (default: as for a run).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Output directory (default: as for a run).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    manifest: clap_cargo::Manifest,
}

impl OutDirArgs {
    /// The run arguments that name the same out dir, with `filters`.
    fn run_args(self, filters: Vec<String>) -> RunArgs {
        RunArgs {
            filters,
            config: self.config,
            out: self.out,
            manifest: self.manifest,
            ..RunArgs::default()
        }
    }
}

/// Which output format `schema` prints or `validate` checks.
#[derive(Args, Debug, Default)]
#[group(multiple = false)]
struct FormatArg {
    /// The observation record (a line of observations.jsonl).
    #[arg(long)]
    observation: bool,
    /// summary.json.
    #[arg(long)]
    summary: bool,
    /// evidence.json.
    #[arg(long)]
    evidence: bool,
    /// A line of `--message-format json` output (`run` and `list`).
    #[arg(long)]
    message: bool,
    /// A line of history.jsonl.
    #[arg(long)]
    history: bool,
}

impl FormatArg {
    fn format(&self) -> Option<Format> {
        [
            (self.observation, Format::Observation),
            (self.summary, Format::Summary),
            (self.evidence, Format::Evidence),
            (self.message, Format::Message),
            (self.history, Format::History),
        ]
        .into_iter()
        .find_map(|(on, f)| on.then_some(f))
    }
}

/// Output format of the streaming messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum MessageFormat {
    /// Lines for people.
    #[default]
    Human,
    /// One JSON object per event on stdout.
    Json,
}

#[derive(Args, Debug, Default)]
struct RunArgs {
    /// Run only cases whose name contains one of these (all when empty).
    #[arg(value_name = "FILTER")]
    filters: Vec<String>,
    /// The harness file (default: harness.toml at the workspace root, else in the current directory, else the one workspace member's). `.yaml`/`.yml` is read as YAML.
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Use the harness.toml of this workspace member.
    #[arg(long, short = 'p', value_name = "NAME", conflicts_with = "config")]
    package: Option<String>,
    #[command(flatten)]
    manifest: clap_cargo::Manifest,
    /// Output directory (default: [harness].out_dir, else <target dir>/golden).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Ad-hoc golden projects: "a.yaml, sales:golden/sales" (`name:path` or a bare path).
    #[arg(long, value_name = "LIST")]
    golden: Option<String>,
    /// Filters match whole names.
    #[arg(long)]
    exact: bool,
    /// Leave out cases whose name contains PATTERN (repeatable).
    #[arg(long, value_name = "PATTERN")]
    skip: Vec<String>,
    /// After the first failed or errored case, skip the rest.
    #[arg(long)]
    fail_fast: bool,
    /// Cases run at once (default: [harness].jobs, else 1; at most 1024).
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=crate::config::MAX_JOBS as i64))]
    jobs: Option<u32>,
    /// Run one shard: `count:K/N` or `hash:K/N`.
    #[arg(long, value_name = "SPEC")]
    partition: Option<Partition>,
    /// Extra attempts for a failed case (overrides the harness file; at most 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=crate::config::MAX_RETRIES as i64))]
    retries: Option<u32>,
    /// JUnit family of junit.xml (default: [harness].junit, else rich).
    #[arg(long, value_enum, value_name = "FLAVOUR")]
    junit: Option<JunitFlavour>,
    /// Streaming output format.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human, value_name = "FMT")]
    message_format: MessageFormat,
    /// List the cases instead of running them.
    #[arg(long)]
    list: bool,
    /// What a run whose filters or partition select no case does: `fail`
    /// (exit 5), `warn` or `pass` (exit 0).
    #[arg(long, value_enum, default_value_t = NoCases::Fail, value_name = "WHAT")]
    no_cases: NoCases,
    /// Sign the run's SHA256SUMS with this minisign secret key (default:
    /// $CARGO_GOLDEN_SIGNING_KEY, the key or its path; an encrypted key's
    /// password in $CARGO_GOLDEN_SIGNING_PASSWORD).
    #[arg(long, value_name = "FILE")]
    sign_key: Option<PathBuf>,
    /// When to show a failed case's last output lines and log paths.
    #[arg(long, value_enum, default_value_t = OutputWhen::ImmediateFinal, value_name = "WHEN")]
    failure_output: OutputWhen,
    /// When to show a passed case's last output lines and log paths.
    #[arg(long, value_enum, default_value_t = OutputWhen::Never, value_name = "WHEN")]
    success_output: OutputWhen,
    /// Stream each case's output live to stderr as it runs; implies --jobs 1.
    #[arg(long)]
    no_capture: bool,
    /// Run only the cases marked `ignored`.
    #[arg(long, conflicts_with = "include_ignored")]
    ignored: bool,
    /// Run the cases marked `ignored` too.
    #[arg(long)]
    include_ignored: bool,
    /// Apply `[profile.NAME]` over `[harness]` (default: $CARGO_GOLDEN_PROFILE).
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// Rewrite the selected cases' snapshots and golden-baseline.json entries from this run.
    #[arg(long)]
    bless: bool,
    /// Run only the cases that failed or errored in the last run of the
    /// out dir (its summary.json, once its evidence verifies).
    #[arg(long, conflicts_with = "failed_first")]
    failed: bool,
    /// Run the cases that failed or errored in the last run of the out dir
    /// first, then the rest.
    #[arg(long)]
    failed_first: bool,
}

/// The flags of `list`: which cases, from which file.
#[derive(Args, Debug, Default)]
struct ListArgs {
    /// List only cases whose name contains one of these (all when empty).
    #[arg(value_name = "FILTER")]
    filters: Vec<String>,
    /// The harness file (default: harness.toml at the workspace root, else in the current directory, else the one workspace member's).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Use the harness.toml of this workspace member.
    #[arg(long, short = 'p', value_name = "NAME", conflicts_with = "config")]
    package: Option<String>,
    #[command(flatten)]
    manifest: clap_cargo::Manifest,
    /// Accepted so a run's command line lists too; a listing writes nothing.
    #[arg(long, value_name = "DIR", hide = true)]
    out: Option<PathBuf>,
    /// Ad-hoc golden projects: "a.yaml, sales:golden/sales".
    #[arg(long, value_name = "LIST")]
    golden: Option<String>,
    /// Filters match whole names.
    #[arg(long)]
    exact: bool,
    /// Leave out cases whose name contains PATTERN (repeatable).
    #[arg(long, value_name = "PATTERN")]
    skip: Vec<String>,
    /// List one shard: `count:K/N` or `hash:K/N`.
    #[arg(long, value_name = "SPEC")]
    partition: Option<Partition>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human, value_name = "FMT")]
    message_format: MessageFormat,
    /// Apply `[profile.NAME]` over `[harness]` (default: $CARGO_GOLDEN_PROFILE).
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
}

impl From<ListArgs> for RunArgs {
    fn from(a: ListArgs) -> RunArgs {
        RunArgs {
            filters: a.filters,
            config: a.config,
            package: a.package,
            manifest: a.manifest,
            out: a.out,
            golden: a.golden,
            exact: a.exact,
            skip: a.skip,
            partition: a.partition,
            message_format: a.message_format,
            profile: a.profile,
            ..RunArgs::default()
        }
    }
}

/// Parse the process arguments as `cargo golden ARGS` (the binary
/// `cargo-golden`) and run; returns the exit code.
pub fn main() -> i32 {
    main_as(Front::Cargo)
}

/// Parse the process arguments as `golden ARGS` (the binary `golden`, as
/// the Python wheel installs it) and run: the same flags and subcommands
/// as `cargo golden ARGS`, with help and usage that name `golden`.
pub fn golden_main() -> i32 {
    main_as(Front::Golden)
}

/// Which command the user typed: what help and usage lines name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Front {
    /// `cargo golden` (cargo runs `cargo-golden golden ARGS`).
    Cargo,
    /// `golden`.
    Golden,
}

fn main_as(front: Front) -> i32 {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    // cargo runs us as `cargo-golden golden …`; a direct call has no
    // `golden`, and neither has `golden …` (`golden golden …` is allowed
    // too, as `cargo-golden golden …` is).
    if args.get(1).is_none_or(|a| a != "golden") {
        args.insert(1.min(args.len()), OsString::from("golden"));
    }
    let args = hoist_subcommand(args);
    let parsed = match front {
        Front::Cargo => CargoCli::try_parse_from(args).map(|CargoCli::Golden(cli)| cli),
        Front::Golden => parse_as_golden(args),
    };
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            };
        }
    };
    match cli.command {
        None => run(cli.run),
        Some(Command::Run(a)) => run(a),
        Some(Command::List(a)) => list(a.into()),
        Some(Command::Init {
            force,
            path,
            manifest,
        }) => init(force, path, &manifest),
        Some(Command::Validate { file, format }) => validate(&file, format.format()),
        Some(Command::VerifyEvidence {
            dir,
            public_key,
            attestation,
            config,
            manifest,
        }) => verify_evidence(dir, (public_key.as_deref(), attestation), config, manifest),
        Some(Command::Merge {
            dirs,
            out,
            junit,
            sign_key,
            public_key,
        }) => merge(
            &dirs,
            &out,
            junit,
            sign_key.as_deref(),
            public_key.as_deref(),
        ),
        Some(Command::Diff { base, new, out }) => diff(&base, &new, out.as_deref()),
        Some(Command::History {
            filters,
            last,
            message_format,
            at,
        }) => history(
            RunArgs {
                message_format,
                ..at.run_args(filters)
            },
            last as usize,
        ),
        Some(Command::Schema { keys: true, .. }) => {
            print_stdout(&crate::commands::schema::keys_reference());
            exit::SUCCESS
        }
        Some(Command::Schema { format, .. }) => schema(format.format()),
        Some(Command::Clean { at }) => clean(at.run_args(Vec::new())),
        Some(Command::Snapshots { prune, at }) => snapshots(&at.run_args(Vec::new()), prune),
        Some(Command::Review {
            dir,
            accept,
            reject,
            exact,
            list,
            check,
            public_key,
            at,
        }) => {
            let mode = if list {
                crate::commands::review::Mode::List
            } else if !accept.is_empty() || !reject.is_empty() {
                crate::commands::review::Mode::Decide(crate::commands::review::Filters {
                    accept,
                    reject,
                    exact,
                })
            } else if crate::commands::review::can_ask() {
                crate::commands::review::Mode::Ask
            } else {
                crate::commands::review::Mode::List
            };
            review(
                at.run_args(Vec::new()),
                dir,
                mode,
                check,
                public_key.as_deref(),
            )
        }
        Some(Command::Bless {
            from,
            public_key,
            config,
            manifest,
        }) => bless_from(
            &RunArgs {
                config,
                manifest,
                ..RunArgs::default()
            },
            &from,
            public_key.as_deref(),
        ),
    }
}

/// `args` (`PROGRAM golden ARGS`) parsed by the `golden` subcommand's
/// own clap model, renamed `golden`: one model for both fronts, so their
/// flags cannot drift apart.
fn parse_as_golden(mut args: Vec<OsString>) -> Result<GoldenCli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
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
    use clap::CommandFactory;
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

/// What cargo knows about the workspace (one `cargo metadata --no-deps`).
#[derive(Clone, Default)]
struct Workspace {
    root: Option<PathBuf>,
    target_dir: Option<PathBuf>,
    /// Each member package: its name and directory.
    members: Vec<(String, PathBuf)>,
}

fn workspace(manifest: &clap_cargo::Manifest) -> Workspace {
    let mut cmd = cargo_metadata::MetadataCommand::new();
    cmd.no_deps();
    if let Some(p) = &manifest.manifest_path {
        cmd.manifest_path(p);
    }
    match cmd.exec() {
        Ok(m) => Workspace {
            members: m
                .workspace_packages()
                .iter()
                .filter_map(|p| {
                    let dir = p.manifest_path.parent()?.as_std_path().to_path_buf();
                    Some((p.name.to_string(), dir))
                })
                .collect(),
            root: Some(m.workspace_root.into_std_path_buf()),
            target_dir: Some(m.target_directory.into_std_path_buf()),
        },
        Err(_) => Workspace::default(),
    }
}

/// The harness file of a run given no `--config`: the workspace root's,
/// else the current directory's, else the one workspace member that has
/// one (said on stderr). `-p NAME` picks that member's. Several members
/// with one and none at the root: each is listed with how to choose.
fn find_harness(
    cwd: &Path,
    w: &Workspace,
    package: Option<&str>,
) -> Result<Option<PathBuf>, CliError> {
    let file = |dir: &Path| dir.join("harness.toml");
    if let Some(name) = package {
        let Some((_, dir)) = w.members.iter().find(|(n, _)| n == name) else {
            let names: Vec<String> = w.members.iter().map(|(n, _)| n.clone()).collect();
            return Err(CliError::NoSuchPackage(
                name.to_string(),
                crate::ansi::name_list(&names),
            ));
        };
        return match file(dir) {
            p if p.is_file() => Ok(Some(p)),
            p => Err(ConfigError::NotFound(display_relative(&p)).into()),
        };
    }
    let candidates: Vec<PathBuf> = w
        .root
        .iter()
        .map(|r| file(r))
        .chain(std::iter::once(file(cwd)))
        .collect();
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(Some(found.clone()));
    }
    let in_members: Vec<(&str, PathBuf)> = w
        .members
        .iter()
        .map(|(n, d)| (n.as_str(), file(d)))
        .filter(|(_, p)| p.is_file())
        .collect();
    match in_members.as_slice() {
        [] => {
            let mut looked: Vec<String> = candidates.iter().map(|p| display_relative(p)).collect();
            looked.dedup();
            let mut text = looked.join(" and ");
            if !w.members.is_empty() {
                text.push_str(&format!(
                    ", and in the directory of each workspace member ({})",
                    crate::ansi::name_list(
                        &w.members.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>()
                    )
                ));
            }
            Err(ConfigError::NotFound(text).into())
        }
        [(name, path)] => {
            eprintln!(
                "{:>12} {} (the harness file of workspace member `{name}`)",
                "Using",
                display_relative(path)
            );
            Ok(Some(path.clone()))
        }
        several => Err(CliError::SeveralHarnessFiles(
            several
                .iter()
                .map(|(n, p)| format!("\n  {n}: {}", display_relative(p)))
                .collect(),
            several[0].0.to_string(),
            display_relative(&several[0].1),
        )),
    }
}

/// Declarations and where outputs go, as a run or a listing needs them.
struct Loaded {
    harness: HarnessConfig,
    out_dir: PathBuf,
}

fn load(a: &RunArgs, need_out_dir: bool) -> Result<Loaded, CliError> {
    let cwd = std::env::current_dir().map_err(CliError::CurrentDir)?;
    let mut ws: Option<Workspace> = None;
    let mut ws =
        |m: &clap_cargo::Manifest| -> Workspace { ws.get_or_insert_with(|| workspace(m)).clone() };
    let explicit = a.config.clone();
    let harness_path = match explicit {
        Some(p) => Some(p),
        None => match find_harness(&cwd, &ws(&a.manifest), a.package.as_deref()) {
            Ok(found) => found,
            Err(CliError::Config(ConfigError::NotFound(_))) if a.golden.is_some() => None,
            Err(e) => return Err(e),
        },
    };
    let mut harness = match &harness_path {
        Some(p) => {
            let suite = p
                .parent()
                .map(crate::layout::absolute)
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()));
            let profile = a.profile.clone().or_else(|| {
                std::env::var(config::PROFILE_ENV)
                    .ok()
                    .filter(|p| !p.is_empty())
            });
            HarnessConfig::load_profile(p, suite.as_deref(), profile.as_deref())?
        }
        None => HarnessConfig::empty(&cwd),
    };
    if let Some(list) = &a.golden {
        let entries = config::adhoc::parse(list)?;
        harness.add_adhoc(&entries)?;
    }
    harness.check_required_golden()?;
    // The key file's text is masked in everything the run writes, as the
    // key's is when it comes from its variable.
    harness
        .redact_env
        .key_files
        .extend(a.sign_key.iter().cloned());
    let out_dir = match (&a.out, &harness.out_dir) {
        (Some(o), _) => crate::layout::absolute(o),
        (None, Some(o)) => o.clone(),
        (None, None) if need_out_dir => ws(&a.manifest)
            .target_dir
            .unwrap_or_else(|| harness.base_dir.join("target"))
            .join("golden"),
        (None, None) => PathBuf::new(),
    };
    Ok(Loaded { harness, out_dir })
}

/// Print to stdout; a closed pipe (`| head`) is not an error.
fn print_stdout(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Show `e` with its causes; every error the command line prints goes
/// through here.
fn print_error(e: &(dyn std::error::Error + 'static)) {
    exit::print_error(e, is_diagnostics(e));
}

/// Config diagnostics: each line already says `file:line:col: error:`.
fn is_diagnostics(e: &(dyn std::error::Error + 'static)) -> bool {
    matches!(
        e.downcast_ref::<CliError>(),
        Some(CliError::Config(ConfigError::Invalid(_)))
    ) || ConfigError::is_diagnostics(e)
}

fn usage_error(e: &(dyn std::error::Error + 'static)) -> i32 {
    print_error(e);
    exit::USAGE
}

/// Why a subcommand could not do its work.
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("cannot read the current directory")]
    CurrentDir(#[source] std::io::Error),
    #[error("no workspace member is named `{0}` (members: {1})")]
    NoSuchPackage(String, String),
    #[error(
        "the workspace root has no harness.toml, and several workspace members have one:{0}\n  help: choose one with `-p {1}` or `--config {2}`"
    )]
    SeveralHarnessFiles(String, String, String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Adhoc(#[from] config::adhoc::AdhocError),
    #[error(transparent)]
    Engine(#[from] runner::EngineError),
    #[error(transparent)]
    Init(#[from] crate::commands::init::InitError),
    #[error(
        "--path sets the cargo-golden dev-dependency of a cargo package, and {} has no Cargo.toml\n  help: leave --path out to set this directory up for `golden` (pip install cargo-golden)",
        shown_dir(.0)
    )]
    PathWithoutPackage(PathBuf),
    #[error("cannot read {}", .0.display())]
    Validate(PathBuf, #[source] std::io::Error),
    #[error("cannot verify {}", .0.display())]
    Verify(PathBuf, #[source] std::io::Error),
    #[error("cannot merge (nothing was written)")]
    MergeRefused(#[source] crate::commands::merge::MergeError),
    #[error("cannot clean {}", .0.display())]
    Clean(PathBuf, #[source] std::io::Error),
    #[error("cannot render the schema")]
    Schema(#[source] serde_json::Error),
    #[error(transparent)]
    SigningKey(#[from] crate::report::seal::KeyError),
    #[error(transparent)]
    PublicKey(crate::commands::verify::SignatureError),
    #[error("verify-evidence without DIR checks the latest run of the default out dir; pass DIR")]
    NoDefaultOutDir(#[source] Box<CliError>),
    #[error(transparent)]
    OutDir(#[from] crate::outdir::OutDirError),
    #[error("--failed and --failed-first read the last run's {}, and there is none", .0.display())]
    NoLastRun(PathBuf),
    #[error(
        "--failed and --failed-first trust only a last run whose evidence verifies; `cargo golden verify-evidence` found:\n  - {0}"
    )]
    LastRunUnverified(String),
}

fn list(a: RunArgs) -> i32 {
    let loaded = match load(&a, false) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let h = &loaded.harness;
    let file = h.display_file();
    let filter = filter_of(&a);
    let redactor = h.redactor();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for c in runner::included(h, a.partition.as_ref()) {
        if !filter.matches(&c.name) {
            continue;
        }
        let r = match a.message_format {
            MessageFormat::Json => {
                let line = MessageLine::from(Message::Case {
                    index: c.index,
                    name: c.name.clone(),
                    kind: c.kind,
                    file: file.clone(),
                    line: c.line,
                    command: redactor.mask_str(&c.command).0.into_owned(),
                });
                serde_json::to_writer(&mut out, &line)
                    .map_err(std::io::Error::other)
                    .and_then(|()| writeln!(out))
            }
            MessageFormat::Human => writeln!(
                out,
                "{:<6}  {}  ({}:{})",
                c.kind.as_str(),
                c.name,
                file,
                c.line
            ),
        };
        if r.is_err() {
            break;
        }
    }
    let _ = out.flush();
    exit::SUCCESS
}

fn filter_of(a: &RunArgs) -> Filter {
    Filter {
        patterns: a.filters.clone(),
        exact: a.exact,
        skip: a.skip.clone(),
    }
}

fn run(a: RunArgs) -> i32 {
    if a.list {
        return list(a);
    }
    // Started first: the guardian checks its tools while the harness file
    // is read (see `runner::contain`).
    runner::contain();
    let code = load_and_run(a);
    runner::release();
    code
}

/// [`run`] once the run is contained.
fn load_and_run(a: RunArgs) -> i32 {
    let loaded = match load(&a, true) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let h = &loaded.harness;
    match crate::commands::snapshots::find(h, None) {
        Ok(o) if !o.is_empty() => eprintln!(
            "warning: {} orphaned snapshot file(s) or baseline entr(y/ies) no declared case owns ({}); `cargo golden snapshots --prune` removes them",
            o.lines().len(),
            crate::ansi::name_list(
                &o.files
                    .iter()
                    .chain(&o.entries)
                    .cloned()
                    .collect::<Vec<_>>()
            )
        ),
        _ => {}
    }
    let (filter, first) = match last_failures(&a, &loaded.out_dir) {
        Ok(Some(failed)) if a.failed => {
            if failed.is_empty() {
                eprintln!(
                    "no case failed in the last run of {}: nothing to run again",
                    crate::layout::display_relative(&loaded.out_dir)
                );
                return exit::for_no_cases(a.no_cases);
            }
            let filter = filter_of(&a);
            let names: Vec<String> = failed.into_iter().filter(|n| filter.matches(n)).collect();
            if names.is_empty() {
                eprintln!("no case that failed in the last run matches the filters");
                return exit::for_no_cases(a.no_cases);
            }
            let only = Filter {
                patterns: names,
                exact: true,
                skip: Vec::new(),
            };
            (only, Vec::new())
        }
        Ok(Some(failed)) => (filter_of(&a), failed),
        Ok(None) => (filter_of(&a), Vec::new()),
        Err(e) => return usage_error(&e),
    };
    let signer = match Signer::load(a.sign_key.as_deref()) {
        Ok(s) => s,
        Err(e) => return usage_error(&CliError::from(e)),
    };
    // Read before anything runs: a broken baseline stops the run here.
    let baseline = match crate::baseline::load(h) {
        Ok(b) => b,
        Err(e) => return usage_error(&e),
    };
    if let Some(note) = bless_selection(h, &a) {
        eprintln!("{note}");
    }
    // Held until the reports are written; the OS releases it if we die.
    let _lock = match crate::outdir::begin(&loaded.out_dir, crate::report::report_files()) {
        Ok(l) => l,
        Err(e) => return usage_error(&CliError::from(e)),
    };
    let interrupt = match crate::runner::interrupt::Interrupt::install() {
        Ok(i) => Some(i),
        Err(e) => {
            eprintln!("warning: cannot handle Ctrl-C: {}", exit::error_chain(&e));
            None
        }
    };
    let opts = RunOptions {
        out_dir: loaded.out_dir.clone(),
        run_id: None,
        filter,
        first,
        fail_fast: a.fail_fast,
        jobs: a.jobs.map_or(0, |j| j as usize),
        retries: a.retries,
        partition: a.partition,
        interrupt,
        junit: a.junit,
        no_capture: a.no_capture,
        ignored: match (a.ignored, a.include_ignored) {
            (true, _) => runner::Ignored::Only,
            (_, true) => runner::Ignored::Include,
            _ => runner::Ignored::Skip,
        },
        no_cases: a.no_cases,
        bless: a.bless,
        hidden_env: crate::report::seal::HIDDEN_FROM_CASES,
    };
    let output = OutputOptions {
        failure: a.failure_output,
        success: a.success_output,
        out_dir: loaded.out_dir.clone(),
        ..OutputOptions::default()
    };
    match runner::run(h, opts, reporters(a.message_format, h, output)) {
        Ok((mut record, mut fanout)) => conclude_run(
            h,
            &a,
            &mut record,
            &mut fanout,
            baseline.as_ref(),
            signer.as_ref(),
        ),
        Err(e) => usage_error(&CliError::from(e)),
    }
}

/// What a filtered `--bless` is about to rewrite, said before anything
/// runs: the cases its filters select, and when a filter selects more
/// than the case it names (filters match parts of names), how to match
/// whole names.
fn bless_selection(h: &HarnessConfig, a: &RunArgs) -> Option<String> {
    if !a.bless || (a.filters.is_empty() && a.skip.is_empty()) {
        return None;
    }
    let filter = filter_of(a);
    let names: Vec<String> = runner::included(h, a.partition.as_ref())
        .into_iter()
        .filter(|c| filter.matches(&c.name))
        .map(|c| c.name.clone())
        .collect();
    Some(crate::baseline::selection_note(&names, &a.filters, a.exact))
}

/// With `--failed` or `--failed-first`: the cases that failed or errored
/// in the last run of `out_dir`, in declaration order, taken from its
/// evidence once `verify-evidence`'s checks pass; `None` without either
/// flag.
fn last_failures(a: &RunArgs, out_dir: &Path) -> Result<Option<Vec<String>>, CliError> {
    if !(a.failed || a.failed_first) {
        return Ok(None);
    }
    let summary = out_dir.join(crate::report::SUMMARY_FILE);
    if !summary.is_file() {
        return Err(CliError::NoLastRun(summary));
    }
    let (record, _) = crate::commands::verify::verified_record(out_dir, None)
        .map_err(|e| CliError::Verify(out_dir.to_path_buf(), e))?
        .map_err(|findings| CliError::LastRunUnverified(findings.join("\n  - ")))?;
    Ok(Some(
        record
            .cases
            .iter()
            .filter(|c| c.result.is_failure())
            .map(|c| c.name.clone())
            .collect(),
    ))
}

/// Compare the finished run with its baseline (and bless it when asked),
/// then write the reports and apply `keep_runs`.
fn conclude_run(
    h: &HarnessConfig,
    a: &RunArgs,
    record: &mut crate::model::RunRecord,
    fanout: &mut Fanout,
    baseline: Option<&crate::baseline::BaselineFile>,
    signer: Option<&Signer>,
) -> i32 {
    let filter = filter_of(a);
    let selects = |name: &str| {
        filter.matches(name) && a.partition.is_none_or(|p| p.includes_undeclared(name))
    };
    let selection = crate::baseline::Selection {
        selects: &selects,
        look_for_missing: true,
    };
    crate::report::conclude(h, record, fanout, baseline, (&selection, a.bless), signer).exit_code
}

/// The streaming reporters of a run: terminal lines or JSON messages, plus
/// GitHub Actions workflow commands when running there, which register the
/// run's secrets with the log masker before any other line is printed.
fn reporters(format: MessageFormat, h: &HarnessConfig, output: OutputOptions) -> Fanout {
    let mut fanout = Fanout::default();
    let github = crate::report::github::GithubReporter::from_env(
        h.file.as_deref().unwrap_or(&h.base_dir),
        format == MessageFormat::Json,
    )
    .map(|mut gh| {
        if let Err(e) = gh.add_masks(&h.redactor()) {
            eprintln!("warning: cannot register secrets with GitHub Actions: {e}");
        }
        gh
    });
    match format {
        MessageFormat::Human => fanout.push(Box::new(
            crate::report::terminal::TerminalReporter::stderr().with_output(output),
        )),
        MessageFormat::Json => fanout.push(Box::new(
            crate::report::json_messages::JsonMessageReporter::stdout(),
        )),
    }
    if let Some(gh) = github {
        fanout.push(Box::new(gh));
    }
    fanout
}

fn init(force: bool, path: Option<PathBuf>, manifest: &clap_cargo::Manifest) -> i32 {
    let dir = match &manifest.manifest_path {
        Some(p) => crate::layout::absolute(p)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    // No Cargo.toml and none named: a directory of pipelines, set up for
    // the `golden` command with no cargo files.
    if manifest.manifest_path.is_none() && !dir.join("Cargo.toml").is_file() {
        return init_standalone(&dir, force, path.is_some());
    }
    print_stdout(&format!(
        "{} has a Cargo.toml: setting it up for `cargo golden` and `cargo test --test golden`",
        shown_dir(&dir)
    ));
    use crate::commands::init::{Dependency, InitOptions};
    let given = path.is_some();
    let (dependency, why) = match path {
        Some(p) => (
            Dependency::Path(crate::layout::absolute(&p)),
            "the checkout given with --path".to_string(),
        ),
        None => installed_dependency(),
    };
    let options = InitOptions {
        force,
        dependency,
        dependency_only: given,
    };
    match crate::commands::init::init(&dir, &options) {
        Ok(report) => {
            print_stdout(&format!("{report}"));
            if report
                .manifest_changes
                .iter()
                .any(|c| c.contains("dev-dependency"))
            {
                print_stdout(&format!("dependency: from {why}"));
                match dependency_resolves(&dir) {
                    Ok(()) => print_stdout(
                        "checked: the dev-dependency resolves (`cargo tree --offline`)",
                    ),
                    Err(e) => eprintln!(
                        "warning: the cargo-golden dev-dependency does not resolve offline: {e}\n  help: point it at a checkout with `cargo golden init --path DIR`"
                    ),
                }
            }
            print_stdout(
                "next: `cargo golden` runs the cases; `cargo test --test golden` runs them under cargo test",
            );
            exit::SUCCESS
        }
        Err(e) => usage_error(&CliError::from(e)),
    }
}

/// A directory as init names it: `.` for the current one.
fn shown_dir(dir: &Path) -> String {
    if std::env::current_dir().is_ok_and(|cwd| cwd == dir) {
        ".".to_string()
    } else {
        display_relative(dir)
    }
}

/// `init` in a directory with no Cargo.toml (see
/// [`crate::commands::init::init_standalone`]).
fn init_standalone(dir: &Path, force: bool, path_given: bool) -> i32 {
    if path_given {
        return usage_error(&CliError::PathWithoutPackage(dir.to_path_buf()));
    }
    print_stdout(&format!(
        "{} has no Cargo.toml: setting it up for the `golden` command (pip install cargo-golden), with no cargo files",
        shown_dir(dir)
    ));
    match crate::commands::init::init_standalone(dir, force) {
        Ok(report) => {
            print_stdout(report.to_string().trim_end());
            print_stdout("next: `golden` runs the cases; `golden --bless` records their snapshots");
            exit::SUCCESS
        }
        Err(e) => usage_error(&CliError::from(e)),
    }
}

/// The dev-dependency `init` writes without `--path`: the source the
/// running binary was installed from (cargo's install record), else the
/// checkout it was built from, else the crates.io version; with why.
fn installed_dependency() -> (crate::commands::init::Dependency, String) {
    use crate::commands::init::Dependency;
    use crate::commands::installed::{self, Source};
    if let Some(i) = installed::running() {
        let record = display_relative(&i.record);
        return match i.source {
            Source::Git { url, rev } => (
                Dependency::Git {
                    url: url.clone(),
                    rev: rev.clone(),
                },
                format!(
                    "git {url} at {rev}, where the running cargo-golden was installed from ({record})"
                ),
            ),
            Source::Path(p) => {
                let why = format!(
                    "the checkout {} the running cargo-golden was installed from ({record})",
                    p.display()
                );
                (Dependency::Path(p), why)
            }
            Source::Registry(v) => {
                let why = format!(
                    "crates.io, where the running cargo-golden {v} was installed from ({record})"
                );
                (Dependency::Version(v), why)
            }
        };
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR"));
    if installed::is_checkout(built_from) {
        let why = format!(
            "the checkout {} the running cargo-golden was built from (no install record)",
            built_from.display()
        );
        return (Dependency::Path(built_from.to_path_buf()), why);
    }
    (
        Dependency::default(),
        "crates.io (no install record of the running cargo-golden, and not a checkout)".to_string(),
    )
}

/// Whether the package in `dir` resolves its dependencies without the
/// network (`cargo tree --offline`); the first line of cargo's error when
/// not.
fn dependency_resolves(dir: &Path) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--depth",
            "1",
            "-e",
            "normal,dev",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(err
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or_else(|| err.lines().next().unwrap_or("cargo tree failed"))
        .to_string())
}

fn validate(file: &Path, format: Option<Format>) -> i32 {
    let format = format.unwrap_or_else(|| Format::of_file(file));
    match crate::commands::validate::validate_file(file, format) {
        Ok(violations) if violations.is_empty() => {
            print_stdout(&format!("{}: valid", crate::layout::display_relative(file)));
            exit::SUCCESS
        }
        Ok(violations) => {
            for v in &violations {
                print_stdout(&v.to_string());
            }
            eprintln!("{} violation(s)", violations.len());
            exit::FAILED
        }
        Err(e) => usage_error(&CliError::Validate(file.to_path_buf(), e)),
    }
}

fn verify_evidence(
    dir: Option<PathBuf>,
    (public_key, attestation): (Option<&str>, bool),
    config: Option<PathBuf>,
    manifest: clap_cargo::Manifest,
) -> i32 {
    let dir = match dir {
        Some(d) => d,
        None => {
            let args = RunArgs {
                config,
                manifest,
                ..RunArgs::default()
            };
            match load(&args, true) {
                Ok(l) => l.out_dir,
                Err(e) => return usage_error(&CliError::NoDefaultOutDir(Box::new(e))),
            }
        }
    };
    let key = match public_key.map(crate::commands::verify::read_public_key) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => return usage_error(&CliError::PublicKey(e)),
    };
    match crate::commands::verify::verify_run_with(&dir, key.as_ref(), attestation) {
        Ok(report) => {
            print_stdout(&report.to_string());
            if report.is_ok() {
                exit::SUCCESS
            } else {
                exit::FAILED
            }
        }
        Err(e) => usage_error(&CliError::Verify(dir.to_path_buf(), e)),
    }
}

fn merge(
    dirs: &[PathBuf],
    out: &Path,
    junit: Option<JunitFlavour>,
    sign_key: Option<&Path>,
    public_key: Option<&str>,
) -> i32 {
    let signer = match Signer::load(sign_key) {
        Ok(s) => s,
        Err(e) => return usage_error(&CliError::from(e)),
    };
    // The merged run is signed only over shards whose signature checked
    // out: with a signing key and no --public-key, its own public half.
    let shard_key = match public_key.map(crate::commands::verify::read_public_key) {
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => return usage_error(&CliError::PublicKey(e)),
        None => signer.as_ref().map(|s| s.public_key().clone()),
    };
    // An existing out dir is locked before anything is read; a new one
    // once the merge has created it.
    let take = || crate::outdir::lock(out, crate::outdir::Access::Exclusive);
    let mut lock = None;
    if out.is_dir() {
        match take() {
            Ok(l) => lock = Some(l),
            Err(e) => return usage_error(&CliError::from(e)),
        }
    }
    let mut merged = match crate::commands::merge::merge(dirs, out, shard_key.as_ref()) {
        Ok(m) => m,
        Err(e) if e.is_refusal() => return usage_error(&CliError::MergeRefused(e)),
        Err(e) => {
            print_error(&e);
            return exit::FAILED;
        }
    };
    let _lock = match lock.map_or_else(take, Ok) {
        Ok(l) => l,
        Err(e) => return usage_error(&CliError::from(e)),
    };
    // The merged run has begun: no earlier verdict may stay beside it.
    if let Err(e) = crate::outdir::clear_reports(out, crate::report::report_files()) {
        print_error(&e);
        return exit::FAILED;
    }
    for dir in &merged.unchecked_signatures {
        eprintln!(
            "warning: {}: its {} was not checked and is not carried into the merged run (pass --public-key to check it, --sign-key to sign the merged run)",
            dir.display(),
            crate::layout::SIGNATURE_FILE
        );
    }
    if let Some(flavour) = junit {
        merged.record.junit = flavour;
    }
    let record = &merged.record;
    let from = if merged.partitions.is_empty() {
        "an unpartitioned run".to_string()
    } else {
        let list: Vec<String> = merged.partitions.iter().map(|p| p.to_string()).collect();
        format!("{} shard(s) ({})", list.len(), list.join(", "))
    };
    eprintln!(
        "{:>12} {from} of {} into run {}",
        "Merged", record.suite_name, record.run_id
    );
    let mut fanout = Fanout::default();
    fanout.push(Box::new(crate::report::terminal::TerminalReporter::stderr()));
    let finished = crate::report::finish(
        record,
        &merged.harness_display,
        &mut fanout,
        signer.as_ref(),
    );
    finished.tell();
    if finished.problem.is_none() {
        let appended = crate::report::history::append(
            record,
            &merged.revision,
            std::mem::take(&mut merged.history),
            crate::config::defaults::HISTORY_KEEP,
        );
        crate::report::history::tell(appended, out);
    }
    finished.outcome.exit_code
}

fn clean(a: RunArgs) -> i32 {
    let loaded = match load(&a, true) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let out = &loaded.out_dir;
    // Never under a run that is using the out dir.
    let _lock = match out
        .is_dir()
        .then(|| crate::outdir::lock(out, crate::outdir::Access::Exclusive))
        .transpose()
    {
        Ok(l) => l,
        Err(e) => return usage_error(&CliError::from(e)),
    };
    let written = crate::report::Written::in_dir(out);
    let result = crate::layout::run_dirs(out, true).and_then(|runs| {
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
    });
    match result {
        Ok(n) => {
            eprintln!(
                "{:>12} {n} run(s) and the reports in {}",
                "Removed",
                crate::layout::display_relative(out)
            );
            exit::SUCCESS
        }
        Err(e) => {
            print_error(&CliError::Clean(out.clone(), e));
            exit::FAILED
        }
    }
}

fn diff(base: &Path, new: &Path, out: Option<&Path>) -> i32 {
    let out = out.unwrap_or(new);
    match crate::commands::diff::diff(base, new, out) {
        Ok(d) => {
            print_stdout(d.markdown.trim_end());
            eprintln!(
                "{:>12} {} and {}",
                "Wrote",
                crate::layout::display_relative(&d.markdown_path),
                crate::layout::display_relative(&d.json_path)
            );
            if d.comparison.gate_failures().next().is_some() {
                exit::FAILED
            } else {
                exit::SUCCESS
            }
        }
        Err(e) => usage_error(&e),
    }
}

fn snapshots(a: &RunArgs, prune: bool) -> i32 {
    use crate::commands::snapshots;
    let loaded = match load(a, false) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let h = &loaded.harness;
    let orphans = match snapshots::find(h, Some(&loaded.out_dir)) {
        Ok(o) => o,
        Err(e) => {
            print_error(&e);
            return exit::FAILED;
        }
    };
    for line in orphans.lines() {
        print_stdout(&line);
    }
    if orphans.is_empty() {
        eprintln!("no orphaned snapshot file or baseline entry");
        return exit::SUCCESS;
    }
    if !prune {
        eprintln!(
            "{} orphan(s): no declared case owns them; `cargo golden snapshots --prune` removes them",
            orphans.lines().len()
        );
        return exit::FAILED;
    }
    match snapshots::prune(h, &orphans) {
        Ok(()) => {
            eprintln!("{:>12} {} orphan(s)", "Removed", orphans.lines().len());
            exit::SUCCESS
        }
        Err(e) => {
            print_error(&e);
            exit::FAILED
        }
    }
}

fn bless_from(a: &RunArgs, from: &Path, public_key: Option<&str>) -> i32 {
    let loaded = match load(a, false) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let key = match public_key.map(crate::commands::verify::read_public_key) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => return usage_error(&CliError::PublicKey(e)),
    };
    match crate::commands::bless_from::bless_from(&loaded.harness, from, key.as_ref()) {
        Ok(report) => {
            eprint!("{report}");
            if report.written {
                exit::SUCCESS
            } else {
                exit::FAILED
            }
        }
        Err(e) => usage_error(&e),
    }
}

fn review(
    a: RunArgs,
    dir: Option<PathBuf>,
    mode: crate::commands::review::Mode,
    check: bool,
    public_key: Option<&str>,
) -> i32 {
    let loaded = match load(&a, dir.is_none()) {
        Ok(l) => l,
        Err(e) => return usage_error(&e),
    };
    let key = match public_key.map(crate::commands::verify::read_public_key) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => return usage_error(&CliError::PublicKey(e)),
    };
    let dir = dir.unwrap_or(loaded.out_dir);
    let color = crate::report::terminal::color_enabled(
        std::env::var("CARGO_TERM_COLOR").ok().as_deref(),
        std::env::var("NO_COLOR").ok().as_deref(),
        || std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    let opts = crate::commands::review::Options {
        public_key: key.as_ref(),
        mode,
        check,
        color,
    };
    match crate::commands::review::review(&loaded.harness, &dir, &opts) {
        Ok(code) => code,
        Err(e) => {
            print_error(&e);
            e.exit_code()
        }
    }
}

fn history(a: RunArgs, last: usize) -> i32 {
    let out_dir = match &a.out {
        Some(out) => out.clone(),
        None => match load(&a, true) {
            Ok(l) => l.out_dir,
            Err(e) => return usage_error(&e),
        },
    };
    let file = out_dir.join(crate::layout::HISTORY_FILE);
    let lines = match crate::wire::history::read(&file) {
        Ok(lines) => lines,
        Err(e) => return usage_error(&CliError::Validate(file, e)),
    };
    let mut readable = Vec::new();
    for (n, line) in lines {
        match line {
            Ok(l) => readable.push(l),
            Err(e) => eprintln!(
                "warning: {}:{n}: not a history line: {e}",
                crate::layout::display_relative(&file)
            ),
        }
    }
    let filter = filter_of(&a);
    let cases = crate::commands::history::summarize(&readable, |n| filter.matches(n), last);
    match a.message_format {
        MessageFormat::Human => {
            print_stdout(crate::commands::history::human(&cases, &file).trim_end());
        }
        MessageFormat::Json => {
            for c in &cases {
                match serde_json::to_string(c) {
                    Ok(line) => print_stdout(&line),
                    Err(e) => return usage_error(&CliError::Schema(e)),
                }
            }
        }
    }
    exit::SUCCESS
}

fn schema(format: Option<Format>) -> i32 {
    let schema = crate::commands::schema::schema(format);
    match serde_json::to_string_pretty(&schema) {
        Ok(text) => {
            print_stdout(&text);
            exit::SUCCESS
        }
        Err(e) => usage_error(&CliError::Schema(e)),
    }
}
