//! Secret masking (docs/secrets.md, Secrets are masked): which environment
//! values are secret, and replacing each of them with `[REDACTED:NAME]` in
//! text and in output streams.
//!
//! A value is secret when its variable (from the parent environment or a
//! case's `env`) is named in `[harness] redact_env`, or its name contains
//! one of `DEFAULT_WORDS` and the value is at least `MIN_DEFAULT_LEN`
//! bytes long. The harness's own secrets are secret whatever their names
//! and lengths: the signing key (its text, and its file's when a variable
//! or `--sign-key` names one) and its password (see `own_secrets`). The
//! runner masks each output stream with a [`Masker`] before a byte is
//! written, hashed or shown, so every artifact and report
//! built from the output is masked too; command text and messages go
//! through [`Redactor::mask_str`]. The classifier alone sees the output
//! unmasked (in memory), so masking never changes a verdict; the lines
//! its findings quote are masked.

use std::borrow::Cow;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind, packed};
use serde::{Deserialize, Serialize};

/// Parts of a variable name that make its value secret by default
/// (matched case-insensitively).
pub(crate) const DEFAULT_WORDS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
];

/// Shortest value masked because of its variable's name or a glob:
/// shorter values of such variables are flags and counts (`true`, `1`),
/// and masking them would blank out ordinary words everywhere.
pub(crate) const MIN_DEFAULT_LEN: usize = 6;

/// A variable name, or a glob over names (`*`, `?`, `[…]`).
#[derive(Clone, Debug)]
pub(crate) enum NamePattern {
    /// Exactly this name.
    Exact(String),
    /// Names the glob matches.
    Glob(globset::GlobMatcher),
}

impl NamePattern {
    fn matches(&self, name: &str) -> bool {
        match self {
            NamePattern::Exact(n) => n == name,
            NamePattern::Glob(g) => g.is_match(name),
        }
    }
}

/// The variable holding the run's signing key: a minisign secret key, or
/// the path of its file.
pub(crate) const SIGNING_KEY_ENV: &str = "CARGO_GOLDEN_SIGNING_KEY";
/// The variable holding the password of an encrypted signing key.
pub(crate) const SIGNING_PASSWORD_ENV: &str = "CARGO_GOLDEN_SIGNING_PASSWORD";

/// Which variables are secret: the defaults plus `redact_env`, and which
/// files hold a signing key.
#[derive(Clone, Debug, Default)]
pub(crate) struct RedactRules {
    /// Names and globs to mask.
    pub(crate) include: Vec<NamePattern>,
    /// `!` entries: names and globs the defaults and include globs leave
    /// alone.
    pub(crate) exclude: Vec<NamePattern>,
    /// Signing key files named other than by `CARGO_GOLDEN_SIGNING_KEY`
    /// (`--sign-key FILE`): their text is masked as the key's.
    pub(crate) key_files: Vec<std::path::PathBuf>,
}

/// One parsed `redact_env` entry.
#[derive(Clone, Debug)]
pub(crate) enum RuleEntry {
    /// `NAME` or `GLOB`: mask.
    Include(NamePattern),
    /// `!NAME` or `!GLOB`: do not mask.
    Exclude(NamePattern),
}

impl RedactRules {
    /// Parse one `redact_env` entry; the error says what is wrong with it.
    pub(crate) fn entry(text: &str) -> Result<RuleEntry, String> {
        let (exclude, name) = match text.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if name.is_empty() {
            return Err("an entry needs a variable name or a glob".to_string());
        }
        if let Some(bad) = name.chars().find(|c| *c == '=' || c.is_control()) {
            return Err(format!(
                "`{text}` is not a variable name: it contains {bad:?}"
            ));
        }
        let pattern = if name.contains(['*', '?', '[', '{']) {
            let glob =
                globset::Glob::new(name).map_err(|e| format!("bad glob `{name}`: {}", e.kind()))?;
            NamePattern::Glob(glob.compile_matcher())
        } else {
            NamePattern::Exact(name.to_string())
        };
        Ok(if exclude {
            RuleEntry::Exclude(pattern)
        } else {
            RuleEntry::Include(pattern)
        })
    }

    /// Add a parsed entry.
    pub(crate) fn push(&mut self, entry: RuleEntry) {
        match entry {
            RuleEntry::Include(p) => self.include.push(p),
            RuleEntry::Exclude(p) => self.exclude.push(p),
        }
    }

    /// Whether the value of `name` is secret. A name listed exactly is
    /// always masked (whatever its length: it was named on purpose); a
    /// glob or a default word masks values of at least
    /// [`MIN_DEFAULT_LEN`] bytes unless a `!` entry matches the name.
    pub(crate) fn is_secret(&self, name: &str, value: &[u8]) -> bool {
        if value.is_empty() {
            return false;
        }
        let exact = |p: &NamePattern| matches!(p, NamePattern::Exact(n) if n == name);
        if self.include.iter().any(exact) {
            return true;
        }
        if value.len() < MIN_DEFAULT_LEN || self.exclude.iter().any(|p| p.matches(name)) {
            return false;
        }
        let upper = name.to_ascii_uppercase();
        DEFAULT_WORDS.iter().any(|w| upper.contains(w))
            || self.include.iter().any(|p| p.matches(name))
    }
}

/// The harness's own secrets, whatever their variables are called and
/// however short: the password of [`SIGNING_PASSWORD_ENV`], and the
/// signing key of [`SIGNING_KEY_ENV`] (the key itself, or the file it
/// names) and of each of `key_files`. A case never sees these variables,
/// but it can read them where the harness's environment and command line
/// can be read (`/proc/$PPID/environ`, and its parent's), and then the
/// file they name. A key is masked by its whole text and by each line of
/// it (see [`key_values`]), so a key printed line by line is masked too.
pub(crate) fn own_secrets(key_files: &[std::path::PathBuf]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Some(password) = std::env::var_os(SIGNING_PASSWORD_ENV) {
        out.push((
            SIGNING_PASSWORD_ENV.to_string(),
            password.as_encoded_bytes().to_vec(),
        ));
    }
    let key = |bytes: Vec<u8>| key_values(bytes).map(|v| (SIGNING_KEY_ENV.to_string(), v));
    if let Some(value) = std::env::var_os(SIGNING_KEY_ENV) {
        // A path names a file whose text is the key (the path itself is no
        // secret); a value that names no file may be a key itself.
        let file = (!value.is_empty())
            .then(|| crate::untrusted::read(std::path::Path::new(&value)).ok())
            .flatten();
        out.extend(key(
            file.unwrap_or_else(|| value.as_encoded_bytes().to_vec())
        ));
    }
    for file in key_files {
        if let Ok(text) = crate::untrusted::read(file) {
            out.extend(key(text));
        }
    }
    out
}

/// What a signing key's text is masked by: the text (trimmed), and each
/// of its lines (trimmed, with and without its base64 padding) at least
/// [`MIN_DEFAULT_LEN`] bytes long, but the `untrusted comment:` line that
/// minisign writes for anyone to read.
fn key_values(text: Vec<u8>) -> impl Iterator<Item = Vec<u8>> {
    let mut values: Vec<Vec<u8>> = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.len() < MIN_DEFAULT_LEN || line.starts_with(b"untrusted comment:") {
            continue;
        }
        let bare = line
            .strip_suffix(b"==")
            .or_else(|| line.strip_suffix(b"="))
            .unwrap_or(line);
        values.extend([line.to_vec(), bare.to_vec()]);
    }
    // Trimmed, so that a key printed whole keeps the line break after it.
    values.push(text.trim_ascii().to_vec());
    values.into_iter().filter(|v| v.len() >= MIN_DEFAULT_LEN)
}

/// How many values were masked in each part of a case's evidence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub(crate) struct Redactions {
    /// In `stdout.log`.
    pub(crate) stdout: u64,
    /// In `stderr.log`.
    pub(crate) stderr: u64,
    /// In `command.txt`.
    pub(crate) command: u64,
}

struct Inner {
    /// `(name, value)`, one entry per distinct value, sorted by name.
    secrets: Vec<(String, Vec<u8>)>,
    /// Finds the values; `None` when there are none.
    finder: Option<Finder>,
    /// `[REDACTED:NAME]` for each value, in `secrets` order.
    replacements: Vec<Vec<u8>>,
    /// Length of the longest value.
    max_len: usize,
}

/// Finds secret values, leftmost-longest. Teddy (SIMD, in
/// `aho_corasick::packed`) where it can be built: the full automaton's
/// prefilter gives up past 16 values or on values sharing a first byte
/// (`ghp_…`), and then runs at about a twentieth of the speed.
enum Finder {
    Packed(packed::Searcher),
    Automaton(AhoCorasick),
}

impl Finder {
    fn new(secrets: &[(String, Vec<u8>)]) -> Finder {
        Finder::packed(secrets).unwrap_or_else(|| Finder::automaton(secrets))
    }

    /// `None` where Teddy is unavailable (no SIMD) or there are too many
    /// values for it.
    fn packed(secrets: &[(String, Vec<u8>)]) -> Option<Finder> {
        packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(secrets.iter().map(|(_, v)| v))
            .build()
            .map(Finder::Packed)
    }

    fn automaton(secrets: &[(String, Vec<u8>)]) -> Finder {
        Finder::Automaton(
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(secrets.iter().map(|(_, v)| v))
                .expect("non-empty literal values always build"),
        )
    }

    /// Call `f(start, end, value index)` for each match in `hay` that
    /// starts before `before`, in order.
    fn each(&self, hay: &[u8], before: usize, mut f: impl FnMut(usize, usize, usize)) {
        match self {
            Finder::Packed(s) => s
                .find_iter(hay)
                .take_while(|m| m.start() < before)
                .for_each(|m| f(m.start(), m.end(), m.pattern().as_usize())),
            Finder::Automaton(a) => a
                .find_iter(hay)
                .take_while(|m| m.start() < before)
                .for_each(|m| f(m.start(), m.end(), m.pattern().as_usize())),
        }
    }
}

/// The secret values of a run and how to mask them. Cheap to clone.
#[derive(Clone)]
pub struct Redactor {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the values.
        let names: Vec<&str> = self.inner.secrets.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Redactor").field("names", &names).finish()
    }
}

impl Redactor {
    /// A redactor for `(name, value)` pairs already known to be secret.
    /// A value held by several names is shown as the first name in
    /// alphabetical order; empty values are ignored.
    pub fn new<I, N, V>(pairs: I) -> Redactor
    where
        I: IntoIterator<Item = (N, V)>,
        N: Into<String>,
        V: Into<Vec<u8>>,
    {
        let mut all: Vec<(String, Vec<u8>)> = pairs
            .into_iter()
            .map(|(n, v)| (n.into(), v.into()))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        all.sort();
        let mut secrets: Vec<(String, Vec<u8>)> = Vec::with_capacity(all.len());
        for (name, value) in all {
            if !secrets.iter().any(|(_, v)| *v == value) {
                secrets.push((name, value));
            }
        }
        let finder = (!secrets.is_empty()).then(|| Finder::new(&secrets));
        let replacements = secrets
            .iter()
            .map(|(n, _)| format!("[REDACTED:{n}]").into_bytes())
            .collect();
        let max_len = secrets.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
        Redactor {
            inner: Arc::new(Inner {
                secrets,
                finder,
                replacements,
                max_len,
            }),
        }
    }

    /// A redactor that masks nothing.
    pub(crate) fn none() -> Redactor {
        Redactor::new(Vec::<(String, Vec<u8>)>::new())
    }

    /// The secrets of `vars` (e.g. the parent environment and every case's
    /// `env`) under `rules`.
    #[cfg(test)]
    pub(crate) fn from_vars<'a>(
        rules: &RedactRules,
        vars: impl IntoIterator<Item = (Cow<'a, str>, Cow<'a, [u8]>)>,
    ) -> Redactor {
        Redactor::new(
            vars.into_iter()
                .filter(|(n, v)| rules.is_secret(n, v))
                .map(|(n, v)| (n.into_owned(), v.into_owned())),
        )
    }

    /// The secrets of a run: `rules` over this process's environment and
    /// the given case environments, and the harness's own secrets (the
    /// signing key and its password, whatever their names).
    pub(crate) fn for_run<'a>(
        rules: &RedactRules,
        case_envs: impl IntoIterator<Item = &'a std::collections::BTreeMap<String, String>>,
    ) -> Redactor {
        let parent: Vec<(String, Vec<u8>)> = std::env::vars_os()
            .map(|(n, v)| {
                (
                    n.to_string_lossy().into_owned(),
                    v.as_encoded_bytes().to_vec(),
                )
            })
            .collect();
        let parent = parent
            .iter()
            .map(|(n, v)| (Cow::Borrowed(n.as_str()), Cow::Borrowed(v.as_slice())));
        let cases = case_envs.into_iter().flat_map(|env| {
            env.iter()
                .map(|(n, v)| (Cow::Borrowed(n.as_str()), Cow::Borrowed(v.as_bytes())))
        });
        let named = (parent.chain(cases))
            .filter(|(n, v)| rules.is_secret(n, v))
            .map(|(n, v)| (n.into_owned(), v.into_owned()));
        Redactor::new(named.chain(own_secrets(&rules.key_files)))
    }

    /// Whether there is nothing to mask.
    pub(crate) fn is_empty(&self) -> bool {
        self.inner.finder.is_none()
    }

    /// The length of the longest value, in bytes (0 without any).
    pub(crate) fn longest(&self) -> usize {
        self.inner.max_len
    }

    /// The secret values (for registering them with a log masker).
    pub(crate) fn values(&self) -> impl Iterator<Item = &[u8]> {
        self.inner.secrets.iter().map(|(_, v)| v.as_slice())
    }

    /// `bytes` with every secret value replaced, and how many were.
    pub(crate) fn mask_bytes<'b>(&self, bytes: &'b [u8]) -> (Cow<'b, [u8]>, u64) {
        let Some(finder) = &self.inner.finder else {
            return (Cow::Borrowed(bytes), 0);
        };
        let mut out = Vec::new();
        let mut pos = 0;
        let mut count = 0;
        finder.each(bytes, usize::MAX, |start, end, pattern| {
            out.extend_from_slice(&bytes[pos..start]);
            out.extend_from_slice(&self.inner.replacements[pattern]);
            pos = end;
            count += 1;
        });
        if count == 0 {
            return (Cow::Borrowed(bytes), 0);
        }
        out.extend_from_slice(&bytes[pos..]);
        (Cow::Owned(out), count)
    }

    /// The names of the secret values in `bytes`, each once, in name order.
    pub(crate) fn names_in(&self, bytes: &[u8]) -> Vec<&str> {
        let Some(finder) = &self.inner.finder else {
            return Vec::new();
        };
        let mut found = vec![false; self.inner.secrets.len()];
        finder.each(bytes, usize::MAX, |_, _, pattern| found[pattern] = true);
        self.inner
            .secrets
            .iter()
            .zip(found)
            .filter(|(_, f)| *f)
            .map(|((name, _), _)| name.as_str())
            .collect()
    }

    /// `text` with every secret value replaced, and how many were.
    pub(crate) fn mask_str<'t>(&self, text: &'t str) -> (Cow<'t, str>, u64) {
        match self.mask_bytes(text.as_bytes()) {
            (Cow::Borrowed(_), n) => (Cow::Borrowed(text), n),
            // A value that is not whole UTF-8 characters can cut one.
            (Cow::Owned(b), n) => (
                Cow::Owned(
                    String::from_utf8(b)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                ),
                n,
            ),
        }
    }

    /// `text` masked, in place.
    pub(crate) fn mask_in_place(&self, text: &mut String) {
        if let (Cow::Owned(masked), _) = self.mask_str(text) {
            *text = masked;
        }
    }

    /// A streaming masker for one output stream.
    pub fn masker(&self) -> Masker {
        Masker {
            redactor: self.clone(),
            buf: Vec::new(),
            handed_out: 0,
            out: Vec::new(),
            count: 0,
        }
    }
}

/// Masks one byte stream chunk by chunk, with the same result as masking
/// the whole stream at once, however it is cut. The last
/// `longest value - 1` bytes of each chunk are held back until the next
/// chunk (or [`Masker::finish`]) decides whether a value starts there, so
/// memory stays bounded by the chunk size plus the longest value.
pub struct Masker {
    redactor: Redactor,
    /// Held-back bytes followed by the current chunk.
    buf: Vec<u8>,
    /// Bytes at the start of `buf` already handed out.
    handed_out: usize,
    /// Masked output of the current chunk, when a value was found.
    out: Vec<u8>,
    count: u64,
}

impl Masker {
    /// Take the next chunk; returns the masked bytes that are final.
    pub fn push(&mut self, chunk: &[u8]) -> &[u8] {
        self.buf.drain(..self.handed_out);
        self.buf.extend_from_slice(chunk);
        let hold = self.redactor.inner.max_len.saturating_sub(1);
        let settled = self.buf.len().saturating_sub(hold);
        self.scan(settled)
    }

    /// The end of the stream: the masked bytes still held back.
    pub(crate) fn finish(&mut self) -> &[u8] {
        self.buf.drain(..self.handed_out);
        self.scan(self.buf.len())
    }

    /// Values masked so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Mask `buf` up to `settled`: every match starting before it is final,
    /// since even the longest value starting there fits in `buf` (at the
    /// end of the stream, `settled` is the whole buffer). A match may run
    /// past `settled`; what follows the output stays held back.
    fn scan(&mut self, settled: usize) -> &[u8] {
        let inner = &*self.redactor.inner;
        let Some(finder) = &inner.finder else {
            self.handed_out = self.buf.len();
            return &self.buf;
        };
        self.out.clear();
        let mut pos = 0;
        let mut found = 0;
        let (buf, out) = (&self.buf, &mut self.out);
        finder.each(buf, settled, |start, end, pattern| {
            out.extend_from_slice(&buf[pos..start]);
            out.extend_from_slice(&inner.replacements[pattern]);
            pos = end;
            found += 1;
        });
        self.count += found;
        let end = settled.max(pos);
        self.handed_out = end;
        if found == 0 {
            return &self.buf[..end];
        }
        self.out.extend_from_slice(&self.buf[pos..end]);
        &self.out
    }
}

#[cfg(test)]
mod tests;
