//! Starting a case with glibc's `posix_spawn` directly, so that its two
//! internal signals can be reset without a `fork`.
//!
//! The standard library starts a process with `posix_spawn` when it can,
//! but its default-signal set holds SIGPIPE alone, and glibc then leaves
//! its internal signals (32 and 33) ignored in the child, for good: an
//! ignored signal stays ignored across `exec`. Resetting them the standard
//! library's way needs code between fork and exec, and a fork copies the
//! harness's page tables for every case. Here the default-signal set holds
//! them too (glibc copies the set as given and resets what it holds), and
//! the child is started by glibc's `vfork`-like clone.
//!
//! Whatever this path cannot start the same way (a program it cannot
//! resolve to an absolute path, a NUL in an argument, a glibc without
//! `posix_spawn_file_actions_addchdir_np`) is left to the standard
//! library, which starts it by `fork` or reports the error in its words.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ffi::{CStr, CString, OsStr, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::{Child, GLIBC_INTERNAL_SIGNALS};

type AddChdir =
    unsafe extern "C" fn(*mut libc::posix_spawn_file_actions_t, *const libc::c_char) -> libc::c_int;

/// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), looked
/// up at run time so the binary still starts on an older glibc.
fn addchdir() -> Option<AddChdir> {
    static F: OnceLock<Option<AddChdir>> = OnceLock::new();
    *F.get_or_init(|| {
        let name = c"posix_spawn_file_actions_addchdir_np";
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        // SAFETY: the symbol, when present, has exactly this signature.
        (!p.is_null()).then(|| unsafe { std::mem::transmute::<*mut libc::c_void, AddChdir>(p) })
    })
}

/// Start `cmd` (its program, arguments, environment changes and working
/// directory; stdin `/dev/null`, stdout and stderr piped) in a process
/// group of its own with every signal's disposition what a shell would
/// give it. `None` when this path cannot start it the same way.
pub(super) fn spawn(cmd: &Command) -> Option<io::Result<Child>> {
    let set = addchdir()?;
    let changes = changes(cmd);
    let program = resolve(cmd.get_program(), child_path(&changes))?;
    let program = cstring(program.as_os_str())?;
    let argv: Vec<CString> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(cstring)
        .collect::<Option<_>>()?;
    let envp = environment(&changes)?;
    let cwd = match cmd.get_current_dir() {
        Some(d) => Some(cstring(d.as_os_str())?),
        None => None,
    };
    Some(start(set, &program, &argv, &envp, cwd.as_deref()))
}

fn cstring(s: &OsStr) -> Option<CString> {
    CString::new(s.as_bytes()).ok()
}

/// `KEY=value` as a C string; None when either holds a NUL.
fn entry(key: &OsStr, value: &OsStr) -> Option<CString> {
    let mut kv = Vec::with_capacity(key.len() + 1 + value.len());
    kv.extend_from_slice(key.as_bytes());
    kv.push(b'=');
    kv.extend_from_slice(value.as_bytes());
    CString::new(kv).ok()
}

/// This process's environment as `KEY=value` strings in key order, built
/// once: the harness never changes it, and each case borrows what it
/// does not change instead of copying it all.
fn own_environment() -> &'static [(OsString, CString)] {
    static OWN: OnceLock<Vec<(OsString, CString)>> = OnceLock::new();
    OWN.get_or_init(|| {
        let sorted: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        sorted
            .into_iter()
            .filter_map(|(k, v)| entry(&k, &v).map(|e| (k, e)))
            .collect()
    })
}

/// `cmd`'s environment changes in key order: a value set, or None for a
/// variable removed.
fn changes(cmd: &Command) -> Vec<(&OsStr, Option<&OsStr>)> {
    let mut changes: Vec<_> = cmd.get_envs().collect();
    changes.sort_by(|a, b| a.0.cmp(b.0));
    changes
}

/// The `PATH` the child gets.
fn child_path<'a>(changes: &[(&'a OsStr, Option<&'a OsStr>)]) -> Option<&'a OsStr> {
    let path = OsStr::new("PATH");
    if let Some((_, value)) = changes.iter().find(|(k, _)| *k == path) {
        return *value;
    }
    let own = own_environment();
    let at = own
        .binary_search_by(|(k, _)| k.as_os_str().cmp(path))
        .ok()?;
    let value = &own[at].1.as_bytes()[path.len() + 1..];
    Some(OsStr::from_bytes(value))
}

/// The child's environment: this process's with `changes` applied, in the
/// order the standard library would pass it. None when a change holds a
/// NUL.
fn environment<'a>(changes: &[(&OsStr, Option<&OsStr>)]) -> Option<Vec<Cow<'a, CStr>>> {
    let own = own_environment();
    let mut env = Vec::with_capacity(own.len() + changes.len());
    let mut rest = own.iter().peekable();
    for &(key, value) in changes {
        while let Some((_, e)) = rest.next_if(|(k, _)| k.as_os_str() < key) {
            env.push(Cow::Borrowed(e.as_c_str()));
        }
        // Replaced or removed.
        rest.next_if(|(k, _)| k.as_os_str() == key);
        if let Some(value) = value {
            env.push(Cow::Owned(entry(key, value)?));
        }
    }
    env.extend(rest.map(|(_, e)| Cow::Borrowed(e.as_c_str())));
    Some(env)
}

/// `program` as an absolute path: as given when it names a path, else the
/// first executable file of that name on the child's `PATH`.
fn resolve(program: &OsStr, path: Option<&OsStr>) -> Option<PathBuf> {
    let p = Path::new(program);
    if program.as_bytes().contains(&b'/') {
        return p.is_absolute().then(|| p.to_path_buf());
    }
    let path = path?;
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(p))
        .find(|f| executable(f))
}

fn executable(f: &Path) -> bool {
    let Some(c) = cstring(f.as_os_str()) else {
        return false;
    };
    // SAFETY: access with a NUL-terminated path.
    f.is_file() && unsafe { libc::access(c.as_ptr(), libc::X_OK) } == 0
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(r))
    }
}

/// The signals a case starts with at their default disposition: SIGPIPE
/// (the harness ignores it, as every Rust program does) and glibc's own
/// two. Built bit by bit: glibc's `sigaddset` refuses its own signals.
fn default_signals() -> libc::sigset_t {
    let mut set = MaybeUninit::<libc::sigset_t>::zeroed();
    // SAFETY: a zeroed sigset_t is the empty set; glibc's is an array of
    // unsigned longs with signal N at bit N-1.
    unsafe {
        let words = set.as_mut_ptr().cast::<libc::c_ulong>();
        for sig in std::iter::once(libc::SIGPIPE).chain(GLIBC_INTERNAL_SIGNALS) {
            let bit = (sig - 1) as usize;
            let bits = libc::c_ulong::BITS as usize;
            *words.add(bit / bits) |= 1 << (bit % bits);
        }
        set.assume_init()
    }
}

/// File actions and attributes, destroyed when dropped.
struct Actions(MaybeUninit<libc::posix_spawn_file_actions_t>);
struct Attributes(MaybeUninit<libc::posix_spawnattr_t>);

impl Drop for Actions {
    fn drop(&mut self) {
        // SAFETY: initialised by posix_spawn_file_actions_init.
        unsafe { libc::posix_spawn_file_actions_destroy(self.0.as_mut_ptr()) };
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        // SAFETY: initialised by posix_spawnattr_init.
        unsafe { libc::posix_spawnattr_destroy(self.0.as_mut_ptr()) };
    }
}

/// The null device, opened once (close-on-exec, like every descriptor
/// the harness opens): each case's stdin is a copy of it.
fn null() -> io::Result<&'static std::fs::File> {
    static NULL: OnceLock<std::fs::File> = OnceLock::new();
    if let Some(f) = NULL.get() {
        return Ok(f);
    }
    let f = super::open_kernel_file("/dev/null")?;
    Ok(NULL.get_or_init(|| f))
}

fn start(
    addchdir: AddChdir,
    program: &CString,
    argv: &[CString],
    envp: &[Cow<'_, CStr>],
    cwd: Option<&CStr>,
) -> io::Result<Child> {
    // The standard library's pipes are close-on-exec at both ends.
    let (out_r, out_w) = io::pipe()?;
    let (err_r, err_w) = io::pipe()?;
    let null = null()?;

    let mut actions = MaybeUninit::uninit();
    // SAFETY: initialises the file actions; Actions destroys them.
    check(unsafe { libc::posix_spawn_file_actions_init(actions.as_mut_ptr()) })?;
    let mut actions = Actions(actions);
    let fa = actions.0.as_mut_ptr();
    let mut attrs = MaybeUninit::uninit();
    // SAFETY: initialises the attributes; Attributes destroys them.
    check(unsafe { libc::posix_spawnattr_init(attrs.as_mut_ptr()) })?;
    let mut attrs = Attributes(attrs);
    let at = attrs.0.as_mut_ptr();

    // SAFETY: every pointer is valid for the call; the descriptors and
    // strings outlive posix_spawn below.
    unsafe {
        check(libc::posix_spawn_file_actions_adddup2(
            fa,
            null.as_raw_fd(),
            0,
        ))?;
        check(libc::posix_spawn_file_actions_adddup2(
            fa,
            out_w.as_raw_fd(),
            1,
        ))?;
        check(libc::posix_spawn_file_actions_adddup2(
            fa,
            err_w.as_raw_fd(),
            2,
        ))?;
        if let Some(dir) = cwd {
            check(addchdir(fa, dir.as_ptr()))?;
        }
        // A process group of its own (pgid = its pid), an empty signal
        // mask, and the default-signal set above.
        check(libc::posix_spawnattr_setpgroup(at, 0))?;
        let mut empty = MaybeUninit::<libc::sigset_t>::uninit();
        libc::sigemptyset(empty.as_mut_ptr());
        check(libc::posix_spawnattr_setsigmask(at, empty.as_ptr()))?;
        check(libc::posix_spawnattr_setsigdefault(at, &default_signals()))?;
        let flags = libc::POSIX_SPAWN_SETPGROUP
            | libc::POSIX_SPAWN_SETSIGMASK
            | libc::POSIX_SPAWN_SETSIGDEF;
        check(libc::posix_spawnattr_setflags(at, flags as libc::c_short))?;
    }

    let mut argp: Vec<*mut libc::c_char> = argv.iter().map(|a| a.as_ptr().cast_mut()).collect();
    argp.push(std::ptr::null_mut());
    let mut envpp: Vec<*mut libc::c_char> = envp.iter().map(|e| e.as_ptr().cast_mut()).collect();
    envpp.push(std::ptr::null_mut());
    let mut pid: libc::pid_t = 0;
    // SAFETY: NULL-terminated arrays of NUL-terminated strings, all alive
    // for the call; glibc reports a failed exec through the return value.
    check(unsafe {
        libc::posix_spawn(
            &mut pid,
            program.as_ptr(),
            fa,
            at,
            argp.as_ptr(),
            envpp.as_ptr(),
        )
    })?;
    Ok(Child::new(pid as u32, out_r.into(), err_r.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_set_holds_sigpipe_and_glibcs_signals_only() {
        let set = default_signals();
        let words = (&set as *const libc::sigset_t).cast::<libc::c_ulong>();
        let bits = libc::c_ulong::BITS as usize;
        let member = |sig: usize| {
            // SAFETY: the set is at least 64 bits long.
            let word = unsafe { *words.add((sig - 1) / bits) };
            word >> ((sig - 1) % bits) & 1 == 1
        };
        for sig in 1..=64 {
            let expected = [libc::SIGPIPE as usize, 32, 33].contains(&sig);
            assert_eq!(member(sig), expected, "signal {sig}");
        }
        // glibc's own reading agrees where it is willing to answer.
        // SAFETY: a valid set.
        assert_eq!(unsafe { libc::sigismember(&set, libc::SIGPIPE) }, 1);
        // SAFETY: the same valid set.
        assert_eq!(unsafe { libc::sigismember(&set, libc::SIGTERM) }, 0);
    }

    #[test]
    fn the_childs_environment_is_this_processs_with_the_changes_in_key_order() {
        let own: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
        let (kept, replaced) = {
            let mut keys = own.keys();
            (keys.next().cloned(), keys.next_back().cloned())
        };
        let mut cmd = Command::new("true");
        cmd.env("ZZZ_GOLDEN_ADDED", "added")
            .env("AAA_GOLDEN_ADDED", "first")
            .env("PATH", "/nowhere");
        if let Some(k) = &replaced {
            cmd.env(k, "replaced");
        }
        if let Some(k) = &kept {
            cmd.env_remove(k);
        }
        let mut expected = own.clone();
        for (k, v) in cmd.get_envs() {
            match v {
                Some(v) => expected.insert(k.to_owned(), v.to_owned()),
                None => expected.remove(k),
            };
        }
        let expected: Vec<CString> = expected.iter().filter_map(|(k, v)| entry(k, v)).collect();
        let changes = changes(&cmd);
        let got = environment(&changes).expect("no NUL");
        let got: Vec<CString> = got.iter().map(|e| e.as_ref().to_owned()).collect();
        assert_eq!(got, expected);
        assert_eq!(child_path(&changes), Some(OsStr::new("/nowhere")));
        // A NUL in a value is left to the standard library.
        let mut bad = Command::new("true");
        bad.env("GOLDEN_NUL", OsStr::from_bytes(b"a\0b"));
        assert!(environment(&self::changes(&bad)).is_none());
    }

    #[test]
    fn a_bare_program_name_is_resolved_on_the_childs_path_only() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("only-here");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(resolve(OsStr::new("only-here"), None), None);
        let path = OsString::from(format!("relative:{}", dir.path().display()));
        let path = Some(path.as_os_str());
        assert_eq!(resolve(OsStr::new("only-here"), path), Some(tool.clone()));
        assert_eq!(resolve(tool.as_os_str(), path), Some(tool));
        // A relative path is left to the standard library.
        assert_eq!(resolve(OsStr::new("./only-here"), path), None);
    }
}
