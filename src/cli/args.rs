//! The raw layer of the command line: clap's model of every flag and
//! subcommand, mirroring what the user types, and its conversion into the
//! values the subcommands take ([`crate::commands`]) and the flags that
//! locate the harness (`HarnessFlags`). The doc comments are the help
//! text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::locate::HarnessFlags;
use crate::commands::validate::Format;
use crate::commands::{self, MessageFormat};
use crate::model::{JunitFlavour, NoCases};
use crate::report::terminal::OutputWhen;
use crate::runner::{
    self,
    select::{Filter, Partition},
};

#[derive(Parser, Debug)]
#[command(name = "cargo", bin_name = "cargo", styles = clap_cargo::style::CLAP_STYLING)]
pub(super) enum CargoCli {
    /// Run golden projects and verify commands as test cases.
    Golden(GoldenCli),
}

#[derive(Args, Debug)]
#[command(
    version,
    about = "Run golden projects and verify commands as test cases; never trust the exit code alone",
    args_conflicts_with_subcommands = true
)]
pub(super) struct GoldenCli {
    #[command(subcommand)]
    pub(super) command: Option<Command>,
    #[command(flatten)]
    pub(super) run: RunArgs,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
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
    Init(InitArgs),
    /// Check a file the tool writes against its schema (observations.jsonl by default).
    Validate(ValidateArgs),
    /// Check a run's whole story: checksums, signature, every case's
    /// evidence and verdict, and the reports against the evidence.
    VerifyEvidence(VerifyArgs),
    /// Combine shard outputs into one set of reports.
    Merge(MergeArgs),
    /// Remove every run directory under <out dir>/artifacts, their review
    /// decisions and the last run's reports.
    Clean(OutDirArgs),
    /// Compare two out dirs' summary.json with the baseline rules; write diff.md and diff.json.
    Diff(DiffArgs),
    /// Each case across the runs of the out dir's history.jsonl: its last
    /// results as a strip, pass rate, median and p90 duration, the commit
    /// it has failed since, and commits it both passed and failed on.
    History(HistoryArgs),
    /// List snapshot files and golden-baseline.json entries that no declared
    /// case owns (from the harness file, nothing is run).
    Snapshots(SnapshotsArgs),
    /// Bless snapshots and baseline entries from a run made elsewhere (a
    /// CI run's out dir, downloaded as an artifact) instead of running the
    /// cases here; only once `verify-evidence` passes on that out dir.
    Bless(BlessArgs),
    /// Look at each pending snapshot change of a run and accept, reject or
    /// skip it, as `cargo insta review` does: accepting writes what
    /// `--bless` writes, without running anything. The run is trusted only
    /// once `verify-evidence` passes on it. Off a terminal, without
    /// --accept or --reject, it lists the changes (--list).
    Review(ReviewArgs),
    /// Print the JSON Schema of harness.toml, or of an output format.
    Schema(SchemaArgs),
}

/// The flags `run` and `list` share: which cases, from which harness
/// file (`list` words some of their help its own way).
#[derive(Args, Debug, Default)]
pub(super) struct CaseArgs {
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
}

impl CaseArgs {
    fn filter(&self) -> Filter {
        Filter {
            patterns: self.filters.clone(),
            exact: self.exact,
            skip: self.skip.clone(),
        }
    }

    fn harness(&self, profile: Option<&String>, sign_key: Option<&PathBuf>) -> HarnessFlags {
        HarnessFlags {
            config: self.config.clone(),
            package: self.package.clone(),
            manifest: self.manifest.clone(),
            golden: self.golden.clone(),
            profile: profile.cloned(),
            sign_key: sign_key.cloned(),
            out: self.out.clone(),
        }
    }
}

#[derive(Args, Debug, Default)]
pub(super) struct RunArgs {
    #[command(flatten)]
    cases: CaseArgs,
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
    pub(super) list: bool,
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

impl RunArgs {
    /// Where the run's harness is, and what the run adds to it.
    pub(super) fn harness(&self) -> HarnessFlags {
        self.cases
            .harness(self.profile.as_ref(), self.sign_key.as_ref())
    }

    /// The listing `--list` asks for instead of a run.
    pub(super) fn listing(&self) -> commands::list::Listing {
        commands::list::Listing {
            filter: self.cases.filter(),
            partition: self.partition,
            format: self.message_format,
        }
    }

    /// What the run is asked for beyond the harness file.
    pub(super) fn run(&self) -> commands::run::Run {
        use commands::run::Again;
        commands::run::Run {
            filter: self.cases.filter(),
            partition: self.partition,
            fail_fast: self.fail_fast,
            jobs: self.jobs,
            retries: self.retries,
            junit: self.junit,
            message_format: self.message_format,
            no_cases: self.no_cases,
            sign_key: self.sign_key.clone(),
            failure_output: self.failure_output,
            success_output: self.success_output,
            no_capture: self.no_capture,
            ignored: match (self.ignored, self.include_ignored) {
                (true, _) => runner::Ignored::Only,
                (_, true) => runner::Ignored::Include,
                _ => runner::Ignored::Skip,
            },
            bless: self.bless,
            again: match (self.failed, self.failed_first) {
                (true, _) => Some(Again::Failed),
                (_, true) => Some(Again::FailedFirst),
                _ => None,
            },
        }
    }
}

/// The flags of `list`: which cases, from which file.
#[derive(Args, Debug, Default)]
#[command(
    mut_arg("filters", |a| a.help("List only cases whose name contains one of these (all when empty)")),
    mut_arg("config", |a| a.help("The harness file (default: harness.toml at the workspace root, else in the current directory, else the one workspace member's)")),
    mut_arg("out", |a| a.hide(true).help("Accepted so a run's command line lists too; a listing writes nothing")),
    mut_arg("golden", |a| a.help("Ad-hoc golden projects: \"a.yaml, sales:golden/sales\"")),
)]
pub(super) struct ListArgs {
    #[command(flatten)]
    cases: CaseArgs,
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

impl ListArgs {
    /// Where the listed harness is.
    pub(super) fn harness(&self) -> HarnessFlags {
        self.cases.harness(self.profile.as_ref(), None)
    }

    /// Which cases are listed, and how.
    pub(super) fn listing(&self) -> commands::list::Listing {
        commands::list::Listing {
            filter: self.cases.filter(),
            partition: self.partition,
            format: self.message_format,
        }
    }
}

#[derive(Args, Debug)]
pub(super) struct InitArgs {
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
}

impl InitArgs {
    pub(super) fn setup(self) -> commands::init::command::Setup {
        commands::init::command::Setup {
            force: self.force,
            path: self.path,
            manifest_path: self.manifest.manifest_path,
        }
    }
}

#[derive(Args, Debug)]
pub(super) struct ValidateArgs {
    /// The file: observation lines, or a summary.json / evidence.json / history.jsonl (told by its name).
    pub(super) file: PathBuf,
    #[command(flatten)]
    pub(super) format: FormatArg,
}

#[derive(Args, Debug)]
pub(super) struct VerifyArgs {
    /// An out dir (its latest run: the one its summary.json names) or a
    /// run dir (`artifacts/<run_id>`). Default: the default out dir.
    pub(super) dir: Option<PathBuf>,
    /// Also check `SHA256SUMS.minisig` with this minisign public key
    /// (a `.pub` file, or the key itself); a missing or bad signature
    /// is then a finding.
    #[arg(long, value_name = "KEY")]
    pub(super) public_key: Option<String>,
    /// Also check the run's test-result attestation
    /// (`test-result.intoto.json`, and with --public-key its signed
    /// envelope `test-result.intoto.dsse.json`) against the evidence.
    #[arg(long)]
    pub(super) attestation: bool,
    /// The harness file whose out dir is the default (see `run`).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    #[command(flatten)]
    manifest: clap_cargo::Manifest,
}

impl VerifyArgs {
    /// The harness whose out dir is the default.
    pub(super) fn harness(&self) -> HarnessFlags {
        HarnessFlags::named(self.config.as_ref(), &self.manifest)
    }
}

#[derive(Args, Debug)]
pub(super) struct MergeArgs {
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
}

impl MergeArgs {
    pub(super) fn request(self) -> commands::merge::Request {
        commands::merge::Request {
            dirs: self.dirs,
            out: self.out,
            junit: self.junit,
            sign_key: self.sign_key,
            public_key: self.public_key,
        }
    }
}

/// The out dir a subcommand works on: `--out`, else the harness file's.
#[derive(Args, Debug)]
pub(super) struct OutDirArgs {
    /// The harness file (default: as for a run).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Output directory (default: as for a run).
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    #[command(flatten)]
    manifest: clap_cargo::Manifest,
}

impl OutDirArgs {
    /// The harness whose out dir it is (`--out` overrides its out dir).
    pub(super) fn harness(&self) -> HarnessFlags {
        HarnessFlags {
            out: self.out.clone(),
            ..HarnessFlags::named(self.config.as_ref(), &self.manifest)
        }
    }
}

#[derive(Args, Debug)]
pub(super) struct DiffArgs {
    /// The earlier run's out dir (e.g. main's last CI artifact).
    pub(super) base: PathBuf,
    /// The later run's out dir (e.g. the pull request's run).
    pub(super) new: PathBuf,
    /// Where diff.md and diff.json go (default: NEW).
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(super) struct HistoryArgs {
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
    pub(super) at: OutDirArgs,
}

impl HistoryArgs {
    pub(super) fn query(&self) -> commands::history::Query {
        commands::history::Query {
            filter: Filter {
                patterns: self.filters.clone(),
                exact: false,
                skip: Vec::new(),
            },
            last: self.last as usize,
            format: self.message_format,
        }
    }
}

#[derive(Args, Debug)]
pub(super) struct SnapshotsArgs {
    /// Remove them: the files, and the entries from the baseline.
    #[arg(long)]
    pub(super) prune: bool,
    #[command(flatten)]
    pub(super) at: OutDirArgs,
}

/// `--public-key` of the subcommands that bless from a run made elsewhere.
#[derive(Args, Debug)]
pub(super) struct RequireKey {
    /// Also require `SHA256SUMS.minisig` to verify with this minisign
    /// public key (a `.pub` file, or the key itself).
    #[arg(long, value_name = "KEY")]
    pub(super) public_key: Option<String>,
}

#[derive(Args, Debug)]
pub(super) struct BlessArgs {
    /// The out dir of the run to bless from.
    #[arg(long, value_name = "OUT_DIR", required = true)]
    pub(super) from: PathBuf,
    #[command(flatten)]
    pub(super) key: RequireKey,
    /// The harness file whose snapshots and baseline are blessed
    /// (default: as for a run).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    #[command(flatten)]
    manifest: clap_cargo::Manifest,
}

impl BlessArgs {
    /// The harness whose snapshots and baseline are blessed.
    pub(super) fn harness(&self) -> HarnessFlags {
        HarnessFlags::named(self.config.as_ref(), &self.manifest)
    }
}

#[derive(Args, Debug)]
pub(super) struct ReviewArgs {
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
    #[command(flatten)]
    key: RequireKey,
    #[command(flatten)]
    pub(super) at: OutDirArgs,
}

impl ReviewArgs {
    /// Whether the review needs the harness file's out dir (no OUT_DIR).
    pub(super) fn needs_out_dir(&self) -> bool {
        self.dir.is_none()
    }

    /// What the review is asked for: off a terminal, without --accept or
    /// --reject, a listing.
    pub(super) fn request(self) -> commands::review::Request {
        use commands::review::{Filters, Mode, can_ask};
        let mode = if self.list {
            Mode::List
        } else if !self.accept.is_empty() || !self.reject.is_empty() {
            Mode::Decide(Filters {
                accept: self.accept,
                reject: self.reject,
                exact: self.exact,
            })
        } else if can_ask() {
            Mode::Ask
        } else {
            Mode::List
        };
        commands::review::Request {
            dir: self.dir,
            mode,
            check: self.check,
            public_key: self.key.public_key,
        }
    }
}

#[derive(Args, Debug)]
pub(super) struct SchemaArgs {
    #[command(flatten)]
    format: FormatArg,
    /// Print the reference of every harness.toml key in Markdown instead.
    #[arg(long, conflicts_with_all = ["observation", "summary", "evidence", "message", "history"])]
    keys: bool,
}

impl SchemaArgs {
    pub(super) fn print(&self) -> commands::schema::Print {
        if self.keys {
            commands::schema::Print::Keys
        } else {
            commands::schema::Print::Schema(self.format.format())
        }
    }
}

/// Which output format `schema` prints or `validate` checks.
#[derive(Args, Debug, Default)]
#[group(multiple = false)]
pub(super) struct FormatArg {
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
    pub(super) fn format(&self) -> Option<Format> {
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
