//! Which cases a run includes: name filters (libtest semantics) and
//! partitions of the declared cases across shards.

use std::fmt;
use std::str::FromStr;

/// libtest-style name filters.
#[derive(Clone, Debug, Default)]
pub(crate) struct Filter {
    /// Run cases whose name contains (or, with `exact`, equals) one of these;
    /// all cases when empty.
    pub(crate) patterns: Vec<String>,
    /// Match whole names.
    pub(crate) exact: bool,
    /// Leave out cases whose name contains (or equals) one of these.
    pub(crate) skip: Vec<String>,
}

impl Filter {
    /// Whether `name` runs.
    pub(crate) fn matches(&self, name: &str) -> bool {
        let hit = |p: &String| {
            if self.exact {
                name == p
            } else {
                name.contains(p.as_str())
            }
        };
        (self.patterns.is_empty() || self.patterns.iter().any(hit)) && !self.skip.iter().any(hit)
    }
}

/// Why a run selected no case, naming the filter, `--skip` or partition
/// that left everything out. `declared` is the harness's case count;
/// `names` are the names of the cases `partition` includes.
pub(crate) fn why_nothing(
    declared: usize,
    partition: Option<&Partition>,
    names: &[&str],
    filter: &Filter,
) -> String {
    let listed = |items: &[String]| {
        items
            .iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if declared == 0 {
        return "no case ran: the harness declares no case".to_string();
    }
    let scope = match partition {
        Some(p) if names.is_empty() => {
            return format!(
                "no case ran: partition {p} holds none of the {declared} declared case(s) (more shards than cases?)"
            );
        }
        Some(p) => format!("the {} case(s) of partition {p}", names.len()),
        None => format!("the {declared} declared case(s)"),
    };
    let only = Filter {
        skip: Vec::new(),
        ..filter.clone()
    };
    if !names.iter().any(|n| only.matches(n)) {
        let how = if filter.exact { "is" } else { "contains" };
        let mut text = format!(
            "no case ran: none of {scope} {how} the filter {}",
            listed(&filter.patterns)
        );
        if let Some(near) = filter.patterns.first().and_then(|p| closest(p, names)) {
            text.push_str(&format!(" (did you mean `{near}`?)"));
        }
        return text;
    }
    if filter.patterns.is_empty() {
        format!(
            "no case ran: --skip {} leaves out every one of {scope}",
            listed(&filter.skip)
        )
    } else {
        format!(
            "no case ran: --skip {} leaves out every case of {scope} that the filter {} selects",
            listed(&filter.skip),
            listed(&filter.patterns)
        )
    }
}

/// Why a run whose filters selected `selected` (name, `ignored` reason)
/// runs none of them: every one is ignored (`Ignored::Skip`), or, under
/// `--ignored` (`Ignored::Only`), none is.
pub(crate) fn why_all_ignored(
    ignored: super::Ignored,
    selected: &[(&str, Option<&str>)],
) -> String {
    let n = selected.len();
    if ignored == super::Ignored::Only {
        return format!(
            "no case ran: --ignored runs only the cases marked `ignored`, and none of the {n} selected case(s) is; drop --ignored, or use --include-ignored to run both"
        );
    }
    // A few names are enough to recognise the cases; the reports list all.
    const SHOWN: usize = 3;
    let mut listed: Vec<String> = selected
        .iter()
        .take(SHOWN)
        .map(|(name, why)| format!("`{name}`: {}", why.unwrap_or_default()))
        .collect();
    if n > SHOWN {
        listed.push(format!("{} more", n - SHOWN));
    }
    format!(
        "no case ran: the {n} selected case(s) are all ignored ({}); run them with --ignored, or with --include-ignored beside the others",
        listed.join("; ")
    )
}

/// The name most like `pattern`, when one is close enough to be a typo.
fn closest<'a>(pattern: &str, names: &[&'a str]) -> Option<&'a str> {
    names
        .iter()
        .map(|n| (strsim::normalized_damerau_levenshtein(pattern, n), *n))
        .filter(|(score, _)| *score >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// A shard of the declared cases: `count:K/N` or `hash:K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Partition {
    /// Cases whose 0-based declaration index i has `i % N == K-1`.
    Count {
        /// 1-based shard.
        k: u32,
        /// Shards.
        n: u32,
    },
    /// Cases whose stable name hash h has `h % N == K-1`: adding a case
    /// moves no other.
    Hash {
        /// 1-based shard.
        k: u32,
        /// Shards.
        n: u32,
    },
}

impl Partition {
    /// Whether the case at `index` named `name` belongs to this shard.
    pub(crate) fn includes(&self, index: usize, name: &str) -> bool {
        match *self {
            Partition::Count { k, n } => index as u64 % u64::from(n) == u64::from(k - 1),
            Partition::Hash { k, n } => name_hash(name) % u64::from(n) == u64::from(k - 1),
        }
    }

    /// Whether a case named `name` that is no longer declared (it has no
    /// index) belongs to this shard: by its name hash, or, for `count`,
    /// to the first shard, so that exactly one shard claims it.
    pub(crate) fn includes_undeclared(&self, name: &str) -> bool {
        match *self {
            Partition::Count { k, .. } => k == 1,
            Partition::Hash { .. } => self.includes(0, name),
        }
    }

    /// (K, N).
    pub(crate) fn shard(&self) -> (u32, u32) {
        match *self {
            Partition::Count { k, n } | Partition::Hash { k, n } => (k, n),
        }
    }
}

/// First 8 bytes of the name's sha256: stable across platforms and versions.
fn name_hash(name: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(name.as_bytes());
    u64::from_be_bytes(d[..8].try_into().expect("sha256 has 32 bytes"))
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Partition::Count { k, n } => write!(f, "count:{k}/{n}"),
            Partition::Hash { k, n } => write!(f, "hash:{k}/{n}"),
        }
    }
}

/// A `--partition` value that is not `count:K/N` or `hash:K/N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid partition `{value}`: expected `count:K/N` or `hash:K/N` with 1 <= K <= N")]
pub(crate) struct PartitionError {
    /// The value as given.
    pub(crate) value: String,
}

impl FromStr for Partition {
    type Err = PartitionError;
    fn from_str(s: &str) -> Result<Self, PartitionError> {
        let bad = || PartitionError {
            value: s.to_string(),
        };
        let (kind, rest) = s.split_once(':').ok_or_else(bad)?;
        let (k, n) = rest.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        match kind.trim() {
            "count" => Ok(Partition::Count { k, n }),
            "hash" => Ok(Partition::Hash { k, n }),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_follow_libtest() {
        let f = Filter {
            patterns: vec!["sales".into()],
            exact: false,
            skip: vec!["weekly".into()],
        };
        assert!(f.matches("sales_daily"));
        assert!(!f.matches("sales_weekly"));
        assert!(!f.matches("inventory"));
        let e = Filter {
            patterns: vec!["sales".into()],
            exact: true,
            skip: vec![],
        };
        assert!(!e.matches("sales_daily") && e.matches("sales"));
    }

    #[test]
    fn an_empty_selection_names_what_selected_nothing() {
        let names = ["orders_daily", "sales_weekly"];
        let typo = Filter {
            patterns: vec!["ordrs_daily".into()],
            ..Filter::default()
        };
        let why = why_nothing(2, None, &names, &typo);
        assert!(why.contains("the filter `ordrs_daily`"), "{why}");
        assert!(why.contains("did you mean `orders_daily`?"), "{why}");
        let skip = Filter {
            skip: vec!["_".into()],
            ..Filter::default()
        };
        assert!(why_nothing(2, None, &names, &skip).contains("--skip `_`"));
        let p = Partition::Count { k: 3, n: 3 };
        assert!(why_nothing(2, Some(&p), &[], &Filter::default()).contains("partition count:3/3"));
        assert!(why_nothing(0, None, &[], &Filter::default()).contains("declares no case"));
    }

    #[test]
    fn an_all_ignored_selection_says_how_to_run_it() {
        use crate::runner::Ignored;
        let four: Vec<(&str, Option<&str>)> = ["a", "b", "c", "d"]
            .iter()
            .map(|n| (*n, Some("slow")))
            .collect();
        let why = why_all_ignored(Ignored::Skip, &four);
        assert!(
            why.contains("the 4 selected case(s) are all ignored"),
            "{why}"
        );
        assert!(
            why.contains("`a`: slow; `b`: slow; `c`: slow; 1 more"),
            "{why}"
        );
        assert!(why.contains("--ignored") && why.contains("--include-ignored"));
        let why = why_all_ignored(Ignored::Only, &[("e", None)]);
        assert!(why.contains("none of the 1 selected case(s) is"), "{why}");
    }

    #[test]
    fn partitions_parse_and_cover_each_case_once() {
        assert_eq!(
            "count:2/3".parse::<Partition>(),
            Ok(Partition::Count { k: 2, n: 3 })
        );
        for bad in ["count:0/3", "count:4/3", "hash:1", "mod:1/2", "count:a/2"] {
            assert!(bad.parse::<Partition>().is_err(), "{bad}");
        }
        for kind in ["count", "hash"] {
            for i in 0..50 {
                let name = format!("case-{i}");
                let owners = (1..=3)
                    .filter(|k| {
                        format!("{kind}:{k}/3")
                            .parse::<Partition>()
                            .unwrap()
                            .includes(i, &name)
                    })
                    .count();
                assert_eq!(owners, 1);
            }
        }
    }
}
