//! The shell that runs case commands, and how values substituted into a
//! command (`{path}`, `{dir}`, `{name}`) are quoted for it.
//!
//! Default: `sh -c`. On Windows: `sh -c` when an `sh` is on `PATH` (Git for
//! Windows), else `cmd /C`. `[harness] shell = ["pwsh", "-Command"]` names
//! another one; the command is always its last argument.

use std::path::{Path, PathBuf};
use std::process::Command;

mod programs;
pub(crate) use programs::{Invocation, programs};

/// How a shell parses a command line, which decides the quoting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `sh`, `bash`, `dash`, `zsh`, …: single quotes.
    Posix,
    /// `cmd.exe`: double quotes.
    Cmd,
    /// `pwsh` / `powershell`: single quotes, quotes inside doubled.
    PowerShell,
}

/// A shell: program, the arguments before the command, and its flavor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shell {
    /// The program (a bare name is looked up on `PATH` at spawn).
    pub(crate) program: PathBuf,
    /// Arguments that come before the command (`-c`, `/C`, `-Command`).
    pub(crate) args: Vec<String>,
    /// How the shell parses its command.
    pub(crate) flavor: Flavor,
}

impl Shell {
    /// The platform's default, looked up once: a bare `sh` made every spawn
    /// try each `PATH` entry in turn (bench/run.py measured the cost).
    pub(crate) fn platform_default() -> Shell {
        static DEFAULT: std::sync::OnceLock<Shell> = std::sync::OnceLock::new();
        DEFAULT
            .get_or_init(|| match find_sh() {
                Some(sh) => Shell::posix(sh),
                None if cfg!(windows) => Shell::cmd(),
                None => Shell::posix(PathBuf::from("/bin/sh")),
            })
            .clone()
    }

    /// `sh -c` with this `sh`.
    pub(crate) fn posix(sh: PathBuf) -> Shell {
        Shell {
            program: sh,
            args: vec!["-c".into()],
            flavor: Flavor::Posix,
        }
    }

    /// `cmd /D /S /C`: no AutoRun commands from the registry, and the
    /// quoted command line taken verbatim.
    pub(crate) fn cmd() -> Shell {
        let program = std::env::var_os("ComSpec")
            .filter(|c| !c.is_empty())
            .map_or_else(|| PathBuf::from("cmd.exe"), PathBuf::from);
        Shell {
            program,
            args: vec!["/D".into(), "/S".into(), "/C".into()],
            flavor: Flavor::Cmd,
        }
    }

    /// A configured shell: `argv[0]` and the arguments before the command.
    /// The flavor comes from the program's name; unknown shells are
    /// treated as POSIX shells. `None` for an empty argv.
    pub(crate) fn from_argv(argv: &[String]) -> Option<Shell> {
        let (program, args) = argv.split_first()?;
        if program.trim().is_empty() {
            return None;
        }
        Some(Shell {
            program: PathBuf::from(program),
            args: args.to_vec(),
            flavor: flavor_of(Path::new(program)),
        })
    }

    /// The command line shown to users: `sh -c`, `cmd /D /S /C`, ….
    pub(crate) fn display(&self) -> String {
        let name = program_name(&self.program);
        std::iter::once(name)
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A `Command` that runs `command` in this shell.
    pub(crate) fn command(&self, command: &str) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args);
        #[cfg(windows)]
        if self.flavor == Flavor::Cmd {
            // cmd does not parse its command line the way the C runtime
            // does, so the usual argument quoting would corrupt it: pass the
            // command verbatim inside the quotes that `/S /C` strips.
            use std::os::windows::process::CommandExt;
            c.raw_arg(format!("\"{command}\""));
            return c;
        }
        c.arg(command);
        c
    }

    /// `s` quoted for this shell when it holds more than plain path
    /// characters.
    pub(crate) fn quote(&self, s: &str) -> String {
        match self.flavor {
            Flavor::Posix => posix_quote(s),
            Flavor::Cmd => cmd_quote(s),
            Flavor::PowerShell => powershell_quote(s),
        }
    }
}

fn flavor_of(program: &Path) -> Flavor {
    match program_name(program).to_ascii_lowercase().as_str() {
        "cmd" => Flavor::Cmd,
        "pwsh" | "powershell" => Flavor::PowerShell,
        _ => Flavor::Posix,
    }
}

/// The program's file name without extension, for `/` and `\` paths on
/// every platform (a harness file may name `C:\…\cmd.exe` anywhere).
fn program_name(program: &Path) -> String {
    let s = program.to_string_lossy();
    let file = s.rsplit(['/', '\\']).next().unwrap_or(&s);
    match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => file.to_string(),
    }
}

/// The first `sh` on `PATH` that can be run.
fn find_sh() -> Option<PathBuf> {
    let name = if cfg!(windows) { "sh.exe" } else { "sh" };
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// Quote `s` for `sh` when it holds anything but plain path characters.
pub(crate) fn posix_quote(s: &str) -> String {
    if is_plain(s, b"_-./=:,+@%") {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Quote `s` for `cmd /C`: double quotes, inside which cmd takes `&`, `|`,
/// `<`, `>`, `^` and spaces literally. `/` counts as special, since cmd's
/// built-ins read it as a switch. A `"` (never in a Windows file name) is
/// doubled, which C-runtime argument parsing reads back as one quote. cmd
/// has no escape for `%` on its command line: a lone `%` stays as it is,
/// but `%NAME%` of a defined variable inside a value would expand.
pub(crate) fn cmd_quote(s: &str) -> String {
    if is_plain(s, b"_-.\\:+@") {
        return s.to_string();
    }
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// Quote `s` for PowerShell: single quotes, in which PowerShell also
/// counts the typographic single quotes, so each is doubled.
pub(crate) fn powershell_quote(s: &str) -> String {
    if is_plain(s, b"_-./\\:") && !s.starts_with('-') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for ch in s.chars() {
        if matches!(ch, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(ch);
        }
        out.push(ch);
    }
    out.push('\'');
    out
}

fn is_plain(s: &str, extra: &[u8]) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || extra.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_quotes_only_when_needed() {
        assert_eq!(posix_quote("golden/a.yaml"), "golden/a.yaml");
        assert_eq!(posix_quote("it's here"), r"'it'\''s here'");
        assert_eq!(posix_quote(""), "''");
        assert_eq!(posix_quote(r"D:\projects\x"), r"'D:\projects\x'");
    }

    #[test]
    fn cmd_quotes_spaces_metacharacters_and_slashes() {
        assert_eq!(
            cmd_quote(r"D:\projects\etl\a.yaml"),
            r"D:\projects\etl\a.yaml"
        );
        assert_eq!(cmd_quote("D:/projects/etl"), r#""D:/projects/etl""#);
        assert_eq!(cmd_quote(r"C:\My Projects\a&b"), r#""C:\My Projects\a&b""#);
        assert_eq!(cmd_quote("50% & done"), r#""50% & done""#);
        assert_eq!(cmd_quote(r#"say "hi""#), r#""say ""hi""""#);
        assert_eq!(cmd_quote(""), r#""""#);
    }

    #[test]
    fn powershell_doubles_every_single_quote() {
        assert_eq!(powershell_quote(r"D:\etl\a.yaml"), r"D:\etl\a.yaml");
        assert_eq!(powershell_quote("it's $HOME"), "'it''s $HOME'");
        assert_eq!(powershell_quote("a\u{2019}b"), "'a\u{2019}\u{2019}b'");
        assert_eq!(powershell_quote("-x"), "'-x'");
    }

    #[test]
    fn flavor_follows_the_program_name() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let pwsh = Shell::from_argv(&argv(&["pwsh", "-Command"])).unwrap();
        assert_eq!(pwsh.flavor, Flavor::PowerShell);
        assert_eq!(pwsh.display(), "pwsh -Command");
        let cmd = Shell::from_argv(&argv(&[r"C:\Windows\System32\CMD.EXE", "/C"])).unwrap();
        assert_eq!(cmd.flavor, Flavor::Cmd);
        assert_eq!(
            Shell::from_argv(&argv(&["/usr/bin/bash", "-c"]))
                .unwrap()
                .flavor,
            Flavor::Posix
        );
        assert_eq!(Shell::from_argv(&[]), None);
        assert_eq!(Shell::from_argv(&argv(&[" "])), None);
    }

    #[test]
    fn default_is_sh_where_there_is_one() {
        let d = Shell::platform_default();
        if cfg!(unix) {
            assert_eq!(d.flavor, Flavor::Posix);
            assert_eq!(d.args, ["-c"]);
        } else if d.flavor == Flavor::Cmd {
            assert!(find_sh().is_none());
        }
    }
}
