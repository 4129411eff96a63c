//! Golden immutability: fingerprints of a project before and after a run
//! (`isolation = "check"`), and fresh copies (`isolation = "copy"`).
//!
//! A fingerprint records, per entry below the root, its kind (file,
//! directory, symlink, FIFO, socket, device), its permission bits, the
//! sha256 of a file's content and a symlink's target, so a `chmod`, an
//! empty `mkdir` or a file replaced by a FIFO is a change. Special files
//! are never opened: reading a FIFO would block, a device could do
//! anything. Ignored directories and the out dir are not entered at all.
//!
//! Both walks take a `budget` callback, asked between entries and between
//! chunks of a large file, so they count towards the case's timeout and
//! stop on an interrupt. Files are hashed and copied on one thread per
//! core (at most [`MAX_WORKERS`]) once there are enough of them.
//!
//! The fingerprint after a run reuses a file's digest from before it when
//! its device, inode, size and change time (ctime) are the same and that
//! ctime is over a second older than the first walk's start: every write
//! sets ctime, no unprivileged process can set it back, and a file changed
//! within the second before the walk (where a coarse clock could hide a
//! second change) is read again. Windows has no such time: there every
//! file is read again.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use globset::{Glob, GlobSet, GlobSetBuilder};
use sha2::{Digest, Sha256};

use super::sys;
pub(crate) use super::sys::{ChangeStamp, FileKind};

/// Why a walk stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The case's timeout was reached.
    TimedOut,
    /// The run was interrupted.
    Interrupted,
}

/// A fingerprint or a copy could not be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum IsolationError {
    /// Stopped by the budget.
    #[error("stopped: {0:?}")]
    Stopped(Stop),
    /// A symlink of the project leads to a directory outside it, which a
    /// copy can neither follow (it would write there) nor copy whole.
    #[error(
        "symlink {} points to the directory {} outside the project: use isolation = \"check\", or make the link point inside the project",
        shown(link),
        target.display()
    )]
    LinkOutside {
        /// The link, relative to the project.
        link: PathBuf,
        /// Its target, as written.
        target: PathBuf,
    },
    /// An entry could not be read or written.
    #[error("{}", path.display())]
    Io {
        /// The entry, as the error names it.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> IsolationError + '_ {
    move |source| IsolationError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Asked between entries: `Some` ends the walk.
pub(crate) type Budget<'a> = &'a dyn Fn() -> Option<Stop>;

/// What the walks leave out.
#[derive(Clone, Debug, Default)]
pub(crate) struct Exclude {
    /// Entries matching these (relative, `/`-separated) are left out;
    /// `dir/**` also leaves out `dir` itself.
    files: GlobSet,
    /// Directories matching these are not entered.
    dirs: GlobSet,
    /// The out dir, relative to the root, when it lies inside it.
    out_dir: Option<PathBuf>,
}

impl Exclude {
    /// Leave out `ignore` globs and the out dir `out_dir` (absolute) when it
    /// lies below `root`.
    pub(crate) fn new(root: &Path, ignore: &[String], out_dir: Option<&Path>) -> Exclude {
        let mut files = GlobSetBuilder::new();
        let mut dirs = GlobSetBuilder::new();
        for g in ignore {
            // Globs were validated when the declarations were loaded.
            if let Ok(glob) = Glob::new(g) {
                files.add(glob.clone());
                dirs.add(glob);
            }
            if let Some(dir) = g.strip_suffix("/**")
                && let Ok(glob) = Glob::new(dir)
            {
                dirs.add(glob);
            }
        }
        // Compared as the file system sees them: the root or the out dir
        // may be spelled through a symlink.
        let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let out_dir = out_dir.and_then(|o| {
            canon(o)
                .strip_prefix(canon(root))
                .ok()
                .map(Path::to_path_buf)
        });
        Exclude {
            files: files.build().unwrap_or_else(|_| GlobSet::empty()),
            dirs: dirs.build().unwrap_or_else(|_| GlobSet::empty()),
            out_dir,
        }
    }

    /// Whether the entry at `rel` is left out, as an entry or by a
    /// directory above it that is not entered.
    pub(crate) fn leaves_out(&self, rel: &Path) -> bool {
        self.skips(rel, false)
            || rel
                .ancestors()
                .filter(|a| !a.as_os_str().is_empty())
                .any(|a| self.skips(a, true))
    }

    /// Whether a fingerprint holds the entry at `rel` (neither it nor a
    /// directory above it is left out).
    fn fingerprints(&self, rel: &Path, is_dir: bool) -> bool {
        !(self.skips(rel, is_dir)
            || rel
                .ancestors()
                .skip(1)
                .filter(|a| !a.as_os_str().is_empty())
                .any(|a| self.skips(a, true)))
    }

    fn skips(&self, rel: &Path, is_dir: bool) -> bool {
        if is_dir {
            if self.out_dir.as_deref() == Some(rel) {
                return true;
            }
            return self.dirs.is_match(slashed(rel));
        }
        self.files.is_match(slashed(rel))
    }
}

fn slashed(rel: &Path) -> String {
    rel.to_string_lossy().replace('\\', "/")
}

/// How a change names an entry: `/`-separated, every byte that is not
/// UTF-8 shown as `\xNN` (two names never print alike, as a lossy
/// conversion would make `x\xfe` and `x\xff`). `\` itself is `\\`.
pub(crate) fn shown(rel: &Path) -> String {
    let mut out = String::new();
    for (i, part) in rel.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        escape_into(part, &mut out);
    }
    out
}

#[cfg(unix)]
fn escape_into(name: &OsStr, out: &mut String) {
    use std::os::unix::ffi::OsStrExt;
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
}

#[cfg(windows)]
fn escape_into(name: &OsStr, out: &mut String) {
    use std::os::windows::ffi::OsStrExt;
    for c in char::decode_utf16(name.encode_wide()) {
        match c {
            Ok('\\') => out.push_str("\\\\"),
            Ok(c) => out.push(c),
            Err(e) => out.push_str(&format!("\\u{{{:04x}}}", e.unpaired_surrogate())),
        }
    }
}

/// One entry of a fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    kind: FileKind,
    mode: u32,
    /// sha256 of a file's content or a symlink's target; None for other
    /// kinds and for a file that cannot be read.
    digest: Option<[u8; 32]>,
}

/// Every entry below a root, by relative path as the file system spells
/// it (bytes, not a lossy string: names that are not UTF-8 stay apart).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    entries: BTreeMap<PathBuf, Entry>,
    /// Files whose content could not be read (named in a warning).
    pub(crate) unreadable: Vec<String>,
    /// The change stamp of each file hashed, for a later walk's reuse.
    stamps: HashMap<PathBuf, ChangeStamp>,
    /// When the walk started.
    taken_at: SystemTime,
}

/// A stamp this much older than a walk's start proves its file unchanged.
const STAMP_MARGIN: Duration = Duration::from_secs(1);
/// Threads that hash or copy files at most.
const MAX_WORKERS: usize = 8;
/// Fewer files than this are hashed or copied on the walking thread.
const PARALLEL_FROM: usize = 32;

/// What changed between two fingerprints.
pub(crate) type Changes = crate::model::GoldenChanges;

/// Fingerprint `root` (a directory, or a single file); with `before`, an
/// earlier fingerprint of it, reuse the digests of files whose change
/// stamp proves them unchanged.
pub(crate) fn fingerprint(
    root: &Path,
    exclude: &Exclude,
    budget: Budget<'_>,
    before: Option<&Fingerprint>,
) -> Result<Fingerprint, IsolationError> {
    let mut fp = Fingerprint {
        entries: BTreeMap::new(),
        unreadable: Vec::new(),
        stamps: HashMap::new(),
        taken_at: before.map_or_else(SystemTime::now, |b| b.taken_at),
    };
    let mut files = Vec::new();
    let meta = std::fs::metadata(root).map_err(io_at(root))?;
    if !meta.is_dir() {
        record(&mut fp, root, PathBuf::new(), &meta, &mut files)?;
        return finish(fp, files, before, budget);
    }
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let rel = e.path().strip_prefix(root).unwrap_or(e.path());
            rel.as_os_str().is_empty() || !exclude.skips(rel, e.file_type().is_dir())
        });
    for entry in walk {
        if let Some(stop) = budget() {
            return Err(IsolationError::Stopped(stop));
        }
        let entry = entry.map_err(walk_error)?;
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        if rel.as_os_str().is_empty() {
            continue;
        }
        let meta = entry.metadata().map_err(walk_error)?;
        record(&mut fp, entry.path(), rel.to_path_buf(), &meta, &mut files)?;
    }
    finish(fp, files, before, budget)
}

/// A regular file of a walk, to hash.
struct FileToHash {
    path: PathBuf,
    rel: PathBuf,
    stamp: Option<ChangeStamp>,
}

/// Hash `files` (or reuse `before`'s digests) into `fp`.
fn finish(
    mut fp: Fingerprint,
    files: Vec<FileToHash>,
    before: Option<&Fingerprint>,
    budget: Budget<'_>,
) -> Result<Fingerprint, IsolationError> {
    let proven = |f: &FileToHash| {
        let (b, stamp) = (before?, f.stamp?);
        let unchanged =
            b.stamps.get(&f.rel) == Some(&stamp) && stamp.changed + STAMP_MARGIN < b.taken_at;
        unchanged.then(|| b.entries.get(&f.rel)?.digest).flatten()
    };
    let digests = in_parallel(&files, budget, |f, stop| match proven(f) {
        Some(d) => Ok(Some(d)),
        None => match hash_file(&f.path, stop) {
            Ok(d) => Ok(d),
            // A file the run cannot read: its mode is still compared.
            Err(IsolationError::Io { source, .. })
                if source.kind() == io::ErrorKind::PermissionDenied =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        },
    })?;
    for (f, digest) in files.into_iter().zip(digests) {
        if digest.is_none() {
            fp.unreadable.push(if f.rel.as_os_str().is_empty() {
                f.path.display().to_string()
            } else {
                shown(&f.rel)
            });
        }
        if let Some(entry) = fp.entries.get_mut(&f.rel) {
            entry.digest = digest;
        }
        if let Some(stamp) = f.stamp {
            fp.stamps.insert(f.rel, stamp);
        }
    }
    Ok(fp)
}

/// Encodes a [`Stop`] (or none, or a worker's error) in an atomic.
const GOING: u8 = 0;
const FAILED: u8 = 3;

fn stop_code(stop: Stop) -> u8 {
    match stop {
        Stop::TimedOut => 1,
        Stop::Interrupted => 2,
    }
}

/// `job` of each item, in order, on up to one thread per core while this
/// thread asks `budget`; a job is given what to ask between chunks of its
/// work. The first error (or the budget's stop) ends the others early.
///
/// The items are cut into one run per worker and taken from each run in
/// turn, so the files being copied at one time lie apart in the walk's
/// order, in different directories: creating files in one directory from
/// two threads makes them wait on its lock. Each worker keeps its results
/// until it ends (no hand-over per item).
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    budget: Budget<'_>,
    job: impl Fn(&T, Budget<'_>) -> Result<R, IsolationError> + Sync,
) -> Result<Vec<R>, IsolationError> {
    let workers = crate::parallel::cores().min(MAX_WORKERS);
    if workers < 2 || items.len() < PARALLEL_FROM {
        return items.iter().map(|item| job(item, budget)).collect();
    }
    if let Some(stop) = budget() {
        return Err(IsolationError::Stopped(stop));
    }
    let state = AtomicU8::new(GOING);
    let next = AtomicUsize::new(0);
    let run = items.len().div_ceil(workers);
    let asked = || match state.load(Ordering::Relaxed) {
        1 => Some(Stop::TimedOut),
        // A worker's error: the others stop; its error is what is returned.
        2 | FAILED => Some(Stop::Interrupted),
        _ => None,
    };
    let (job, asked, state, next) = (&job, &asked, &state, &next);
    let asking = std::thread::current();
    let running = AtomicUsize::new(workers);
    let running = &running;
    let work = move || {
        // Counted down however the worker ends, a panic too (which the
        // join below passes on): the asking thread waits for the count.
        let _ends = Ends(running, asking.clone());
        let mut done = Vec::new();
        let mut error = None;
        while asked().is_none() {
            let claim = next.fetch_add(1, Ordering::Relaxed);
            if claim >= run * workers {
                break;
            }
            let i = (claim % workers) * run + claim / workers;
            let Some(item) = items.get(i) else { continue };
            match job(item, asked) {
                Ok(r) => done.push((i, r)),
                Err(e) => {
                    let _ =
                        state.compare_exchange(GOING, FAILED, Ordering::Relaxed, Ordering::Relaxed);
                    error = Some(e);
                    break;
                }
            }
        }
        (done, error)
    };
    std::thread::scope(|s| {
        let helpers: Vec<_> = (0..workers).map(|_| s.spawn(work.clone())).collect();
        while running.load(Ordering::Acquire) > 0 {
            std::thread::park_timeout(Duration::from_millis(10));
            if let Some(stop) = budget() {
                let _ = state.compare_exchange(
                    GOING,
                    stop_code(stop),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
        }
        joined(helpers, state, items.len())
    })
}

/// What a worker of [`in_parallel`] ends with: its results, by item, and
/// the error that ended it.
type WorkerEnd<R> = (Vec<(usize, R)>, Option<IsolationError>);

/// The results of the workers of [`in_parallel`] (of `n` items), once
/// they have all ended: the first error that is not a stop, else the stop
/// `state` holds, else every result in item order. A worker's panic is
/// passed on.
fn joined<R>(
    helpers: Vec<std::thread::ScopedJoinHandle<'_, WorkerEnd<R>>>,
    state: &AtomicU8,
    n: usize,
) -> Result<Vec<R>, IsolationError> {
    let mut all = Vec::with_capacity(n);
    let mut error = None;
    for h in helpers {
        let (done, e) = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        all.extend(done);
        if let Some(e) = e
            && error.is_none()
            && !matches!(e, IsolationError::Stopped(_))
        {
            error = Some(e);
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    match state.load(Ordering::Relaxed) {
        1 => return Err(IsolationError::Stopped(Stop::TimedOut)),
        2 => return Err(IsolationError::Stopped(Stop::Interrupted)),
        _ => {}
    }
    Ok(crate::parallel::in_order(all))
}

/// A worker of [`in_parallel`] ending: the last one wakes the asking
/// thread.
struct Ends<'a>(&'a AtomicUsize, std::thread::Thread);

impl Drop for Ends<'_> {
    fn drop(&mut self) {
        if self.0.fetch_sub(1, Ordering::Release) == 1 {
            self.1.unpark();
        }
    }
}

fn walk_error(e: walkdir::Error) -> IsolationError {
    let path = e.path().map(Path::to_path_buf).unwrap_or_default();
    // The OS error alone: walkdir's own text repeats the path the error
    // already names.
    let shown = e.to_string();
    let source = e.into_io_error().unwrap_or_else(|| io::Error::other(shown));
    IsolationError::Io { path, source }
}

/// Record the entry at `path`; a regular file's digest is left to
/// [`finish`], which hashes `files`.
fn record(
    fp: &mut Fingerprint,
    path: &Path,
    rel: PathBuf,
    meta: &std::fs::Metadata,
    files: &mut Vec<FileToHash>,
) -> Result<(), IsolationError> {
    let kind = sys::file_kind(meta.file_type());
    let digest = match kind {
        FileKind::File => {
            files.push(FileToHash {
                path: path.to_path_buf(),
                rel: rel.clone(),
                stamp: sys::change_stamp(meta),
            });
            None
        }
        FileKind::Symlink => {
            let target = std::fs::read_link(path).map_err(io_at(path))?;
            Some(Sha256::digest(target.as_os_str().as_encoded_bytes()).into())
        }
        _ => None,
    };
    fp.entries.insert(
        rel,
        Entry {
            kind,
            mode: sys::mode(meta),
            digest,
        },
    );
    Ok(())
}

/// Read buffer of the walks, and how much a file is read between two
/// looks at the budget.
const CHUNK: usize = 1 << 20;

/// sha256 of a regular file's content; None when what is there now is not
/// a regular file any more (it is then recorded by kind and mode only).
fn hash_file(path: &Path, budget: Budget<'_>) -> Result<Option<[u8; 32]>, IsolationError> {
    let mut f = crate::untrusted::open_nonblocking(path).map_err(io_at(path))?;
    let meta = f.metadata().map_err(io_at(path))?;
    if !meta.is_file() {
        return Ok(None);
    }
    let mut h = Sha256::new();
    let mut buf = crate::hash::read_buffer(meta.len(), CHUNK);
    loop {
        if let Some(stop) = budget() {
            return Err(IsolationError::Stopped(stop));
        }
        let n = f.read(&mut buf).map_err(io_at(path))?;
        if n == 0 {
            return Ok(Some(h.finalize().into()));
        }
        h.update(&buf[..n]);
    }
}

impl Fingerprint {
    /// The entries (relative paths) that differ between `self` and
    /// `after`: added, changed or removed.
    pub(crate) fn changed_paths<'a>(&'a self, after: &'a Fingerprint) -> Vec<&'a Path> {
        let added_or_changed = (after.entries.iter())
            .filter(|(k, new)| self.entries.get(*k) != Some(new))
            .map(|(k, _)| k.as_path());
        let removed = (self.entries.keys())
            .filter(|k| !after.entries.contains_key(*k))
            .map(PathBuf::as_path);
        added_or_changed.chain(removed).collect()
    }

    /// What changed from `self` to `after`, but for the entries `left_out`
    /// names.
    pub(crate) fn diff_except(
        &self,
        after: &Fingerprint,
        left_out: &std::collections::HashSet<PathBuf>,
    ) -> Changes {
        self.diff_where(after, |k| !left_out.contains(k))
    }

    /// What changed from `self` to `after`.
    pub(crate) fn diff(&self, after: &Fingerprint) -> Changes {
        self.diff_where(after, |_| true)
    }

    /// What changed from `self` to `after` among the entries `kept` keeps.
    fn diff_where(&self, after: &Fingerprint, kept: impl Fn(&Path) -> bool) -> Changes {
        let name = |k: &Path, e: &Entry| {
            if k.as_os_str().is_empty() {
                "(the project file)".to_string()
            } else if e.kind == FileKind::Dir {
                format!("{}/", shown(k))
            } else {
                shown(k)
            }
        };
        let mut c = Changes::default();
        for (k, new) in after.entries.iter().filter(|(k, _)| kept(k)) {
            match self.entries.get(k) {
                None => c.added.push(name(k, new)),
                Some(old) if old != new => {
                    c.changed
                        .push(format!("{} ({})", name(k, new), what_changed(old, new)));
                }
                Some(_) => {}
            }
        }
        for (k, old) in self.entries.iter().filter(|(k, _)| kept(k)) {
            if !after.entries.contains_key(k) {
                c.removed.push(name(k, old));
            }
        }
        c
    }
}

fn what_changed(old: &Entry, new: &Entry) -> String {
    if old.kind != new.kind {
        return format!("{} → {}", old.kind.name(), new.kind.name());
    }
    let mut what = Vec::new();
    if old.digest != new.digest {
        what.push(if new.kind == FileKind::Symlink {
            "target".to_string()
        } else {
            "content".to_string()
        });
    }
    if old.mode != new.mode {
        what.push(format!("mode {:o} → {:o}", old.mode, new.mode));
    }
    what.join(", ")
}

/// A copy, and what it could not reproduce.
#[derive(Debug)]
pub(crate) struct Copied {
    /// The copy of the project.
    pub(crate) path: PathBuf,
    /// Special files recreated or left out, links to files outside the
    /// project copied as files: one note each.
    pub(crate) notes: Vec<String>,
}

/// Copy `src` (file or directory) into the fresh directory `dest_parent`,
/// keeping its name. FIFOs are recreated empty, sockets and devices left
/// out (each with a note); no special file is ever opened.
///
/// Symlinks never lead back into the original: one that resolves inside
/// the project is pointed (relatively) at the same place in the copy; one
/// that resolves outside it to a file is copied as a file (with a note),
/// to a directory is refused ([`IsolationError::LinkOutside`]), and a
/// dangling one is kept as it is. A relative link of plain names only is
/// kept: it resolves in the copy as in the original, through entries that
/// are themselves handled here.
pub(crate) fn copy_into(
    src: &Path,
    dest_parent: &Path,
    exclude: &Exclude,
    budget: Budget<'_>,
) -> Result<Copied, IsolationError> {
    copy_walk(src, dest_parent, exclude, budget, None)
}

/// [`copy_into`], and the fingerprint of the original (as [`fingerprint`]
/// takes it) in the same walk: a file the fingerprint holds is hashed as
/// it is copied, so it is read once.
pub(crate) fn copy_and_fingerprint(
    src: &Path,
    dest_parent: &Path,
    exclude: &Exclude,
    budget: Budget<'_>,
) -> Result<(Copied, Fingerprint), IsolationError> {
    let mut fp = Fingerprint {
        entries: BTreeMap::new(),
        unreadable: Vec::new(),
        stamps: HashMap::new(),
        taken_at: SystemTime::now(),
    };
    let copied = copy_walk(src, dest_parent, exclude, budget, Some(&mut fp))?;
    Ok((copied, fp))
}

fn copy_walk(
    src: &Path,
    dest_parent: &Path,
    exclude: &Exclude,
    budget: Budget<'_>,
    fp: Option<&mut Fingerprint>,
) -> Result<Copied, IsolationError> {
    let name = src
        .file_name()
        .map_or_else(|| "project".into(), |n| n.to_os_string());
    let dest = dest_parent.join(name);
    let mut copier = Copier {
        root: Root::new(src),
        notes: Vec::new(),
        files: Vec::new(),
        fp,
        budget,
    };
    let meta = std::fs::metadata(src).map_err(io_at(src))?;
    if !meta.is_dir() {
        let shown = Path::new(dest.file_name().unwrap_or_default());
        let hash = copier.record(src, PathBuf::new(), &meta)?;
        copier.entry(src, &dest, shown, &meta, hash)?;
        return copier.finish(dest);
    }
    let walk = walkdir::WalkDir::new(src)
        .follow_links(false)
        .into_iter()
        // Only the out dir is left out: `ignore` is about what may change.
        .filter_entry(|e| {
            let rel = e.path().strip_prefix(src).unwrap_or(e.path());
            !(e.file_type().is_dir() && exclude.out_dir.as_deref() == Some(rel))
        });
    for entry in walk {
        if let Some(stop) = budget() {
            return Err(IsolationError::Stopped(stop));
        }
        let entry = entry.map_err(walk_error)?;
        let rel = entry.path().strip_prefix(src).unwrap_or(entry.path());
        let meta = entry.metadata().map_err(walk_error)?;
        let hash = if !rel.as_os_str().is_empty() && exclude.fingerprints(rel, meta.is_dir()) {
            copier.record(entry.path(), rel.to_path_buf(), &meta)?
        } else {
            None
        };
        copier.entry(entry.path(), &dest.join(rel), rel, &meta, hash)?;
    }
    copier.finish(dest)
}

/// The project's root, as given (made absolute) and as the file system
/// resolves it: a link target is inside when it lies below either.
struct Root {
    lexical: PathBuf,
    canonical: PathBuf,
}

impl Root {
    fn new(src: &Path) -> Root {
        let lexical =
            std::path::absolute(src).map_or_else(|_| src.to_path_buf(), |p| normalize(&p));
        let canonical = src.canonicalize().unwrap_or_else(|_| lexical.clone());
        Root { lexical, canonical }
    }

    /// `target` relative to the root, when it lies inside.
    fn relative<'t>(&self, target: &'t Path) -> Option<&'t Path> {
        target
            .strip_prefix(&self.canonical)
            .or_else(|_| target.strip_prefix(&self.lexical))
            .ok()
    }
}

/// `path` with `.` and `..` folded, as written (no link followed).
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Where the link at `link` with target `target` leads: the file system's
/// answer when the target exists, else its nearest existing ancestor
/// resolved and the rest taken as written.
fn resolve(link: &Path, target: &Path) -> PathBuf {
    let joined = link.parent().unwrap_or(Path::new("")).join(target);
    if let Ok(c) = joined.canonicalize() {
        return c;
    }
    let lexical = normalize(&std::path::absolute(&joined).unwrap_or(joined));
    let mut base = lexical.clone();
    let mut rest = Vec::new();
    while let Some(name) = base.file_name().map(OsStr::to_os_string) {
        base.pop();
        rest.push(name);
        if let Ok(mut c) = base.canonicalize() {
            c.extend(rest.iter().rev());
            return c;
        }
    }
    lexical
}

/// A relative target of plain names only (`a/b`, `./a`).
fn descends(target: &Path) -> bool {
    use std::path::Component;
    target
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// A regular file to copy once the walk has made every directory; with
/// `hash`, the key of its fingerprint entry, whose digest the copy takes.
struct FileToCopy {
    from: PathBuf,
    to: PathBuf,
    meta: std::fs::Metadata,
    hash: Option<PathBuf>,
}

/// One copy's state: where the original lies, what to tell, the regular
/// files to copy, the fingerprint taken on the way, when to stop.
struct Copier<'b, 'f> {
    root: Root,
    notes: Vec<String>,
    files: Vec<FileToCopy>,
    fp: Option<&'f mut Fingerprint>,
    budget: Budget<'b>,
}

impl Copier<'_, '_> {
    /// Record the original's entry `rel` in the fingerprint being taken,
    /// if one is. A regular file's digest comes from its copy: its key is
    /// returned for [`Copier::entry`].
    fn record(
        &mut self,
        path: &Path,
        rel: PathBuf,
        meta: &std::fs::Metadata,
    ) -> Result<Option<PathBuf>, IsolationError> {
        let Some(fp) = self.fp.as_deref_mut() else {
            return Ok(None);
        };
        let mut files = Vec::new();
        record(fp, path, rel, meta, &mut files)?;
        // At most the entry itself, when it is a regular file.
        Ok(files.pop().map(|f| {
            if let Some(stamp) = f.stamp {
                fp.stamps.insert(f.rel.clone(), stamp);
            }
            f.rel
        }))
    }

    /// Copy the files the walk found (hashing those the fingerprint holds),
    /// and say what was copied to `dest`.
    fn finish(self, dest: PathBuf) -> Result<Copied, IsolationError> {
        let digests = in_parallel(&self.files, self.budget, |f, stop| match &f.hash {
            Some(_) => copy_hashing(&f.from, &f.to, &f.meta, stop),
            None => copy_file(&f.from, &f.to, &f.meta, stop).map(|()| None),
        })?;
        if let Some(fp) = self.fp {
            for (f, digest) in self.files.iter().zip(digests) {
                if let Some(rel) = &f.hash
                    && let Some(entry) = fp.entries.get_mut(rel)
                {
                    entry.digest = digest;
                }
            }
        }
        Ok(Copied {
            path: dest,
            notes: self.notes,
        })
    }

    /// Copy the entry `from` to `to`; a regular file is queued for
    /// [`Copier::finish`], its copy hashed into the fingerprint entry
    /// `hash` names.
    fn entry(
        &mut self,
        from: &Path,
        to: &Path,
        shown: &Path,
        meta: &std::fs::Metadata,
        hash: Option<PathBuf>,
    ) -> Result<(), IsolationError> {
        match sys::file_kind(meta.file_type()) {
            // Parents come first in the walk; never recreate a removed parent.
            FileKind::Dir => std::fs::create_dir(to).map_err(io_at(to)),
            FileKind::Symlink => self.link(from, to, shown),
            FileKind::File => {
                self.files.push(FileToCopy {
                    from: from.to_path_buf(),
                    to: to.to_path_buf(),
                    meta: meta.clone(),
                    hash,
                });
                Ok(())
            }
            FileKind::Fifo => {
                sys::make_fifo(to, sys::mode(meta)).map_err(io_at(to))?;
                self.notes
                    .push(format!("FIFO {} recreated empty", self::shown(shown)));
                Ok(())
            }
            other => {
                self.notes
                    .push(format!("{} {} left out", other.name(), self::shown(shown)));
                Ok(())
            }
        }
    }

    /// Recreate the symlink `from` at `to` so that it never leads into the
    /// original (see [`copy_into`]).
    fn link(&mut self, from: &Path, to: &Path, rel: &Path) -> Result<(), IsolationError> {
        let target = std::fs::read_link(from).map_err(io_at(from))?;
        if target.is_relative() && descends(&target) {
            return sys::symlink(&target, to).map_err(io_at(to));
        }
        let resolved = resolve(from, &target);
        if let Some(inside) = self.root.relative(&resolved) {
            // As many `..` as the link lies deep, then down to the target.
            let depth = rel.parent().map_or(0, |p| p.components().count());
            let mut relative: PathBuf = std::iter::repeat_n("..", depth).collect();
            relative.push(inside);
            if relative.as_os_str().is_empty() {
                relative.push(".");
            }
            return sys::symlink(&relative, to).map_err(io_at(to));
        }
        match std::fs::metadata(&resolved) {
            Ok(m) if m.is_dir() => Err(IsolationError::LinkOutside {
                link: rel.to_path_buf(),
                target,
            }),
            Ok(m) if m.is_file() => {
                copy_file(&resolved, to, &m, self.budget)?;
                self.notes.push(format!(
                    "symlink {} points outside the project ({}): copied as a file",
                    shown(rel),
                    target.display()
                ));
                Ok(())
            }
            // Dangling, or a special file: nothing of the original is
            // reached through it.
            _ => sys::symlink(&target, to).map_err(io_at(to)),
        }
    }
}

/// Copy a regular file through a buffer, hashing what it copies: the
/// sha256 of the content as copied; None (as [`hash_file`]) when what is
/// there now is not a regular file.
fn copy_hashing(
    from: &Path,
    to: &Path,
    meta: &std::fs::Metadata,
    budget: Budget<'_>,
) -> Result<Option<[u8; 32]>, IsolationError> {
    let mut src = crate::untrusted::open_nonblocking(from).map_err(io_at(from))?;
    let mut dst = std::fs::File::create(to).map_err(io_at(to))?;
    let mut h = Sha256::new();
    let is_file = src.metadata().map_err(io_at(from))?.is_file();
    if is_file {
        let mut buf = crate::hash::read_buffer(meta.len(), CHUNK);
        loop {
            if let Some(stop) = budget() {
                return Err(IsolationError::Stopped(stop));
            }
            let n = src.read(&mut buf).map_err(io_at(from))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            dst.write_all(&buf[..n]).map_err(io_at(to))?;
        }
    }
    dst.flush().map_err(io_at(to))?;
    std::fs::set_permissions(to, meta.permissions()).map_err(io_at(to))?;
    Ok(is_file.then(|| h.finalize().into()))
}

fn copy_file(
    from: &Path,
    to: &Path,
    meta: &std::fs::Metadata,
    budget: Budget<'_>,
) -> Result<(), IsolationError> {
    let mut src = crate::untrusted::open_nonblocking(from).map_err(io_at(from))?;
    let mut dst = std::fs::File::create(to).map_err(io_at(to))?;
    if src.metadata().map_err(io_at(from))?.is_file() {
        loop {
            if let Some(stop) = budget() {
                return Err(IsolationError::Stopped(stop));
            }
            // io::copy of a bounded chunk: the kernel copies file to file.
            let n =
                io::copy(&mut (&mut src).take(64 * CHUNK as u64), &mut dst).map_err(io_at(from))?;
            if n == 0 {
                break;
            }
        }
    }
    dst.flush().map_err(io_at(to))?;
    std::fs::set_permissions(to, meta.permissions()).map_err(io_at(to))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unlimited() -> Option<Stop> {
        None
    }

    #[test]
    fn detects_added_changed_removed_and_ignores_globs() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a"), "1").unwrap();
        std::fs::write(d.path().join("b"), "1").unwrap();
        std::fs::create_dir(d.path().join("target")).unwrap();
        let ex = Exclude::new(d.path(), &["target/**".to_string()], None);
        let before = fingerprint(d.path(), &ex, &unlimited, None).unwrap();
        std::fs::write(d.path().join("a"), "2").unwrap();
        std::fs::remove_file(d.path().join("b")).unwrap();
        std::fs::write(d.path().join("c"), "1").unwrap();
        std::fs::write(d.path().join("target/out"), "x").unwrap();
        let c = before.diff(&fingerprint(d.path(), &ex, &unlimited, Some(&before)).unwrap());
        assert_eq!(c.added, vec!["c"]);
        assert_eq!(c.changed, vec!["a (content)"]);
        assert_eq!(c.removed, vec!["b"]);
        assert_eq!(c.describe(), "added: c; changed: a (content); removed: b");
    }

    #[test]
    fn ignored_directories_and_the_out_dir_are_pruned() {
        let d = tempfile::tempdir().unwrap();
        let ex = Exclude::new(
            d.path(),
            &["sub/**".to_string(), "**/cache".to_string()],
            Some(&d.path().join("target/golden")),
        );
        assert!(ex.skips(Path::new("sub"), true));
        assert!(ex.skips(Path::new("a/b/cache"), true));
        assert!(ex.skips(Path::new("target/golden"), true));
        assert!(!ex.skips(Path::new("target"), true));
        assert!(!ex.skips(Path::new("subway"), true));
        assert!(ex.skips(Path::new("sub/file"), false));
        assert!(!ex.skips(Path::new("file"), false));
    }

    #[test]
    fn errors_name_the_entry() {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("gone");
        let e = fingerprint(&missing, &Exclude::default(), &unlimited, None).unwrap_err();
        assert!(e.to_string().contains("gone"), "{e}");
    }

    /// More items than workers, not a multiple of them: every result in
    /// the items' order; a job's error is the one returned; a budget
    /// spent during the work stops it.
    #[test]
    fn parallel_jobs_keep_order_and_stop_on_an_error_or_the_budget() {
        let items: Vec<usize> = (0..(PARALLEL_FROM * 3 + 5)).collect();
        let doubled = in_parallel(&items, &unlimited, |i, _| Ok(i * 2)).unwrap();
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());

        let e = in_parallel(&items, &unlimited, |&i, _| match i {
            40 => Err(io_at(Path::new("forty"))(io::ErrorKind::Other.into())),
            _ => Ok(i),
        })
        .unwrap_err();
        assert!(
            matches!(&e, IsolationError::Io { path, .. } if path == Path::new("forty")),
            "{e}"
        );

        let calls = AtomicUsize::new(0);
        let later = || (calls.fetch_add(1, Ordering::Relaxed) > 0).then_some(Stop::TimedOut);
        let done = AtomicUsize::new(0);
        let r = in_parallel(&items, &later, |&i, stop| {
            if let Some(stop) = stop() {
                return Err(IsolationError::Stopped(stop));
            }
            std::thread::sleep(Duration::from_millis(2));
            done.fetch_add(1, Ordering::Relaxed);
            Ok(i)
        });
        assert!(
            matches!(r, Err(IsolationError::Stopped(Stop::TimedOut))),
            "{r:?}"
        );
        assert!(done.load(Ordering::Relaxed) < items.len());
    }

    /// A job that panics makes the whole call panic; it never leaves the
    /// asking thread waiting for a worker that is gone.
    #[test]
    fn a_panicking_job_is_passed_on_not_waited_for() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let items: Vec<usize> = (0..(PARALLEL_FROM * 2)).collect();
            let r = std::panic::catch_unwind(|| {
                in_parallel(&items, &unlimited, |&i, _| {
                    assert_ne!(i, 7, "job 7 fails");
                    Ok(i)
                })
            });
            let _ = tx.send(r.is_err());
        });
        let panicked = rx.recv_timeout(Duration::from_secs(30));
        assert_eq!(panicked, Ok(true));
    }

    #[test]
    fn a_spent_budget_stops_the_walk() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a"), "1").unwrap();
        let ex = Exclude::default();
        let r = fingerprint(d.path(), &ex, &|| Some(Stop::TimedOut), None);
        assert!(matches!(r, Err(IsolationError::Stopped(Stop::TimedOut))));
    }

    /// Many files (hashed on worker threads): a same-size rewrite of one
    /// is seen, and an unchanged file's digest is reused only when its
    /// stamp is older than the first walk by the margin.
    #[test]
    fn the_walk_after_reuses_only_digests_its_stamps_prove() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..(PARALLEL_FROM * 3) {
            std::fs::write(d.path().join(format!("f{i}")), format!("{i:04}")).unwrap();
        }
        let ex = Exclude::default();
        let mut before = fingerprint(d.path(), &ex, &unlimited, None).unwrap();
        assert_eq!(before.entries.len(), PARALLEL_FROM * 3);
        assert!(before.entries.values().all(|e| e.digest.is_some()));
        // Files written just now are read again: nothing is reused.
        let forged = Some([0u8; 32]);
        before.entries.get_mut(Path::new("f1")).unwrap().digest = forged;
        let after = fingerprint(d.path(), &ex, &unlimited, Some(&before)).unwrap();
        assert_eq!(before.diff(&after).changed, ["f1 (content)"]);
        if cfg!(unix) {
            // Had the first walk started well after the files' last change,
            // f1's (forged) digest would be reused, f2's rewrite still seen.
            before.taken_at += 10 * STAMP_MARGIN;
            std::fs::write(d.path().join("f2"), "XXXX").unwrap();
            let after = fingerprint(d.path(), &ex, &unlimited, Some(&before)).unwrap();
            assert_eq!(after.entries[Path::new("f1")].digest, forged);
            assert_eq!(before.diff(&after).changed, ["f2 (content)"]);
        }
    }

    #[test]
    fn many_files_are_copied_whole() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("p");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        for i in 0..(PARALLEL_FROM * 3) {
            std::fs::write(
                src.join("sub").join(format!("f{i}")),
                i.to_string().repeat(i),
            )
            .unwrap();
        }
        let dest = d.path().join("copy");
        std::fs::create_dir(&dest).unwrap();
        let copied = copy_into(&src, &dest, &Exclude::default(), &unlimited).unwrap();
        let ex = Exclude::default();
        let a = fingerprint(&src, &ex, &unlimited, None).unwrap();
        let b = fingerprint(&copied.path, &ex, &unlimited, None).unwrap();
        assert_eq!(a.entries, b.entries);
    }

    /// The fingerprint a copy takes on its way is the one a walk of the
    /// original takes: ignored entries and the out dir left out, links by
    /// target, files by content.
    #[test]
    fn a_copy_fingerprints_the_original_as_a_walk_does() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("p");
        for dir in ["sub", "cache/deep", "target/golden"] {
            std::fs::create_dir_all(src.join(dir)).unwrap();
        }
        for i in 0..(PARALLEL_FROM * 2) {
            std::fs::write(src.join("sub").join(format!("f{i}")), i.to_string()).unwrap();
        }
        std::fs::write(src.join("cache/deep/x"), "ignored").unwrap();
        std::fs::write(src.join("target/golden/r"), "out dir").unwrap();
        std::fs::write(src.join("top.log"), "ignored too").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("sub/f1", src.join("link")).unwrap();
        let ex = Exclude::new(
            &src,
            &["cache/**".to_string(), "*.log".to_string()],
            Some(&src.join("target/golden")),
        );
        let dest = d.path().join("copy");
        std::fs::create_dir(&dest).unwrap();
        let (copied, taken) = copy_and_fingerprint(&src, &dest, &ex, &unlimited).unwrap();
        let walked = fingerprint(&src, &ex, &unlimited, None).unwrap();
        assert_eq!(taken.entries, walked.entries);
        assert_eq!(taken.stamps, walked.stamps);
        assert!(!taken.entries.contains_key(Path::new("cache/deep/x")));
        assert!(
            copied.path.join("cache/deep/x").exists(),
            "ignored entries are still copied"
        );
        assert!(
            !copied.path.join("target/golden").exists(),
            "the out dir is not"
        );
    }
}
