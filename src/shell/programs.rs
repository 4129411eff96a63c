//! The programs a POSIX shell command line runs, found by reading it as a
//! shell does: quotes and escapes, `|`, `&&`, `||`, `;`, `&`, `(…)`,
//! `{ …; }`, `if`/`while`/`for`/`case` compounds, `$(…)` and backquotes,
//! redirections, variable assignments, and the wrappers that run the next
//! word as the program (`env`, `nice`, `timeout`, `exec`, `time`, `xargs`,
//! `uv run`, `conda run -n ENV`, …). A word that is only an argument (what
//! `echo`, `grep` or `command -v` is given) is no program.
//!
//! Used to choose the presets of the tools a case's command runs: a command
//! is read, never run, so what cannot be known without running it (a
//! variable's value, an alias) is not guessed.

/// One program the command runs: its name as written (quotes removed) and
/// the words after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// The program as written: `dbt`, `.venv/bin/dbt`, `python3`.
    pub(crate) program: String,
    /// Its arguments, quotes removed.
    pub(crate) args: Vec<String>,
}

impl Invocation {
    /// The program's base name, without a directory or `.exe`.
    pub(crate) fn base(&self) -> &str {
        base_name(&self.program)
    }
}

fn base_name(word: &str) -> &str {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    base.strip_suffix(".exe").unwrap_or(base)
}

/// Every program `command` runs, in the order written.
pub(crate) fn programs(command: &str) -> Vec<Invocation> {
    let mut out = Vec::new();
    read_commands(command, &mut out, 0);
    out
}

/// Deepest nesting of `$(…)`, `sh -c '…'` and the like that is read.
const MAX_DEPTH: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// A word, quotes removed; `assignable` when it had no quoting before
    /// an `=` (so `A=1` may be an assignment).
    Word { text: String, plain: bool },
    /// `|`, `&&`, `||`, `;`, `&`, a line end, `(`, `|&`.
    Separator,
    /// `)`: the end of a subshell, or of a `case` pattern.
    Close,
    /// `;;`: the end of a `case` branch.
    CaseEnd,
    /// A redirection operator: the next word is its target.
    Redirect,
}

fn read_commands(command: &str, out: &mut Vec<Invocation>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let tokens = tokenize(command, out, depth);
    let mut simple: Vec<(String, bool)> = Vec::new();
    // Inside `case … esac`, the words before a `)` are a pattern: after
    // `case WORD in` and after each `;;`.
    let mut cases = 0usize;
    let mut pattern_next = false;
    let mut tokens = tokens.into_iter().peekable();
    while let Some(t) = tokens.next() {
        match t {
            Token::Word { text, plain } => {
                if plain && simple.is_empty() && text == "case" {
                    cases += 1;
                    pattern_next = true;
                }
                if plain && text == "esac" {
                    cases = cases.saturating_sub(1);
                    pattern_next = false;
                }
                simple.push((text, plain));
            }
            Token::Redirect => {
                // The target is a file name, not a word of the command.
                if let Some(Token::Word { .. }) = tokens.peek() {
                    tokens.next();
                }
            }
            Token::Close if cases > 0 && pattern_next => {
                simple.clear();
                pattern_next = false;
            }
            Token::CaseEnd => {
                simple_command(std::mem::take(&mut simple), out, depth);
                pattern_next = cases > 0;
            }
            Token::Separator | Token::Close => {
                simple_command(std::mem::take(&mut simple), out, depth);
            }
        }
    }
    simple_command(simple, out, depth);
}

/// Words that open or continue a compound command: what follows them is
/// a command.
const KEYWORDS: &[&str] = &[
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "{", "}", "!", "esac",
];

/// One simple command's words: the program after keywords, assignments
/// and wrappers.
fn simple_command(words: Vec<(String, bool)>, out: &mut Vec<Invocation>, depth: usize) {
    let mut words = words.into_iter().peekable();
    // Keywords, `for NAME in …` and `case WORD in` lead to no program of
    // their own.
    while let Some((w, plain)) = words.peek() {
        if *plain && KEYWORDS.contains(&w.as_str()) {
            words.next();
        } else if *plain && (w == "for" || w == "select" || w == "case") {
            // Everything up to the separator is the loop's list or the
            // case's word.
            return;
        } else if *plain && w == "function" {
            return;
        } else {
            break;
        }
    }
    let words: Vec<String> = words
        .skip_while(|(w, plain)| *plain && is_assignment(w))
        .map(|(w, _)| w)
        .collect();
    program_of(&words, out, depth);
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Options of a wrapper that take a value (the next word, when not
/// written `--opt=value` or `-xVALUE`).
struct Wrapper {
    name: &'static str,
    /// Options followed by a value.
    with_value: &'static [&'static str],
    /// Positional words before the program (`timeout`'s duration).
    positional: usize,
    /// The word after the program's name that must follow for it to run
    /// another (`uv run`).
    verb: Option<&'static str>,
}

const WRAPPERS: &[Wrapper] = &[
    w(
        "env",
        &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
        0,
    ),
    w("nice", &["-n", "--adjustment"], 0),
    w("timeout", &["-s", "--signal", "-k", "--kill-after"], 1),
    w("exec", &["-a"], 0),
    w("time", &["-f", "--format", "-o", "--output"], 0),
    w("nohup", &[], 0),
    w("setsid", &[], 0),
    w(
        "stdbuf",
        &["-i", "-o", "-e", "--input", "--output", "--error"],
        0,
    ),
    w("ionice", &["-c", "-n", "-p", "--class", "--classdata"], 0),
    w(
        "sudo",
        &["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"],
        0,
    ),
    w("doas", &["-u", "-C"], 0),
    w(
        "xargs",
        &[
            "-a",
            "-d",
            "-E",
            "-I",
            "-i",
            "-L",
            "-l",
            "-n",
            "-P",
            "-s",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-lines",
            "--replace",
        ],
        0,
    ),
    w("builtin", &[], 0),
    w("command", &[], 0),
    w("caffeinate", &[], 0),
    w("uvx", &["--from", "--with", "--python", "-p"], 0),
    v(
        "uv",
        "run",
        &[
            "--with",
            "--with-requirements",
            "--python",
            "-p",
            "--project",
            "--directory",
            "--package",
            "--extra",
            "--group",
            "--env-file",
            "--index",
            "--index-url",
        ],
    ),
    v("poetry", "run", &["-C", "--directory", "-P", "--project"]),
    v("pipenv", "run", &[]),
    v("pdm", "run", &["-p", "--project"]),
    v("hatch", "run", &["-e", "--env"]),
    v("rye", "run", &[]),
    v("pixi", "run", &["-e", "--environment", "--manifest-path"]),
    v("pipx", "run", &["--spec", "--python"]),
    v("conda", "run", &["-n", "--name", "-p", "--prefix", "--cwd"]),
    v("mamba", "run", &["-n", "--name", "-p", "--prefix", "--cwd"]),
    v(
        "micromamba",
        "run",
        &["-n", "--name", "-p", "--prefix", "--cwd"],
    ),
];

const fn w(name: &'static str, with_value: &'static [&'static str], positional: usize) -> Wrapper {
    Wrapper {
        name,
        with_value,
        positional,
        verb: None,
    }
}

const fn v(name: &'static str, verb: &'static str, with_value: &'static [&'static str]) -> Wrapper {
    Wrapper {
        name,
        with_value,
        positional: 0,
        verb: Some(verb),
    }
}

/// Shells whose `-c STRING` is a command line read as this one is.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "ash"];

/// The program of `words` (assignments already left out), through its
/// wrappers.
fn program_of(words: &[String], out: &mut Vec<Invocation>, depth: usize) {
    let Some(first) = words.first() else {
        return;
    };
    let base = base_name(first);
    // `command -v NAME` / `type NAME` / `which NAME` only look a name up.
    if base == "command" && words.get(1).is_some_and(|a| a == "-v" || a == "-V") {
        return;
    }
    if base == "eval" {
        read_commands(&words[1..].join(" "), out, depth + 1);
        return;
    }
    if SHELLS.contains(&base) {
        // `sh -c 'dbt build'`: the string is a command line of its own.
        if let Some(at) = words.iter().position(|w| {
            w == "-c" || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))
        }) && let Some(script) = words.get(at + 1)
        {
            read_commands(script, out, depth + 1);
            return;
        }
    }
    if let Some(wrapper) = WRAPPERS.iter().find(|w| w.name == base) {
        through_wrapper(wrapper, base, words, out, depth);
        return;
    }
    out.push(invocation(words));
}

/// The program `words` run through `wrapper` (whose name is `base`).
fn through_wrapper(
    wrapper: &Wrapper,
    base: &str,
    words: &[String],
    out: &mut Vec<Invocation>,
    depth: usize,
) {
    let mut rest = &words[1..];
    if let Some(verb) = wrapper.verb {
        if rest.first().map(String::as_str) != Some(verb) {
            out.push(invocation(words));
            return;
        }
        rest = &rest[1..];
    }
    // `env -S 'dbt build'` splits its string into the command.
    if base == "env"
        && let Some(at) = rest.iter().position(|a| a == "-S" || a == "--split-string")
        && let Some(s) = rest.get(at + 1)
    {
        read_commands(s, out, depth + 1);
        return;
    }
    let rest = rest.get(wrapped_at(wrapper, base, rest)..).unwrap_or(&[]);
    // `hatch run ENV:COMMAND`
    if base == "hatch"
        && let Some((_, cmd)) = rest.first().and_then(|w| w.split_once(':'))
    {
        let mut words = vec![cmd.to_string()];
        words.extend(rest[1..].iter().cloned());
        program_of(&words, out, depth + 1);
        return;
    }
    if !rest.is_empty() {
        program_of(rest, out, depth + 1);
    } else if base != "command" && base != "builtin" {
        out.push(invocation(words));
    }
}

/// Where, in the wrapper's arguments `rest`, the wrapped command starts:
/// past its options, their values, its positionals, and (for `env`) the
/// assignments.
fn wrapped_at(wrapper: &Wrapper, base: &str, rest: &[String]) -> usize {
    let mut positional = wrapper.positional;
    let mut i = 0;
    while let Some(a) = rest.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if a.starts_with('-') && a.len() > 1 {
            let takes = wrapper.with_value.contains(&a.as_str());
            i += if takes { 2 } else { 1 };
            continue;
        }
        // `env A=1 dbt`: assignments before the program.
        if base == "env" && is_assignment(a) {
            i += 1;
            continue;
        }
        if positional > 0 {
            positional -= 1;
            i += 1;
            continue;
        }
        break;
    }
    i
}

fn invocation(words: &[String]) -> Invocation {
    Invocation {
        program: words[0].clone(),
        args: words[1..].to_vec(),
    }
}

/// The tokens of `command`. The commands inside `$(…)` and backquotes are
/// read on the way (into `out`): they run too.
fn tokenize(command: &str, out: &mut Vec<Invocation>, depth: usize) -> Vec<Token> {
    let mut lexer = Lexer {
        chars: command.chars().collect(),
        i: 0,
        tokens: Vec::new(),
        word: String::new(),
        in_word: false,
        plain: true,
        out,
        depth,
    };
    while lexer.i < lexer.chars.len() {
        lexer.step();
    }
    lexer.end_word();
    lexer.tokens
}

/// Reading a command line into tokens: where it is, and the word being read.
struct Lexer<'a> {
    chars: Vec<char>,
    i: usize,
    tokens: Vec<Token>,
    word: String,
    /// Whether a word is being read.
    in_word: bool,
    /// Whether the word being read has had no quoting so far.
    plain: bool,
    /// Where the commands of substitutions go, and how deep they are.
    out: &'a mut Vec<Invocation>,
    depth: usize,
}

impl Lexer<'_> {
    /// Reads what starts at the current character.
    fn step(&mut self) {
        let c = self.chars[self.i];
        match c {
            ' ' | '\t' | '\r' => {
                self.end_word();
                self.i += 1;
            }
            '\n' | ';' | '(' | ')' => self.separator(c),
            '&' | '|' => self.and_or(c),
            '<' | '>' => self.redirect(),
            '#' if !self.in_word => {
                while self.i < self.chars.len() && self.chars[self.i] != '\n' {
                    self.i += 1;
                }
            }
            '\'' => self.single_quoted(),
            '"' => self.double_quoted(),
            '\\' => {
                self.in_word = true;
                self.plain = false;
                match self.chars.get(self.i + 1) {
                    Some('\n') => {}
                    Some(&ch) => self.word.push(ch),
                    None => {}
                }
                self.i += 2;
            }
            '$' if self.chars.get(self.i + 1) == Some(&'(') => {
                self.in_word = true;
                self.i = substitution(&self.chars, self.i, self.out, self.depth, &mut self.word);
            }
            '$' if self.chars.get(self.i + 1) == Some(&'{') => {
                self.in_word = true;
                let close = matching(&self.chars, self.i + 1, '{', '}');
                self.word
                    .extend(&self.chars[self.i..close.min(self.chars.len())]);
                self.i = close + 1;
            }
            '`' => {
                self.in_word = true;
                self.i = backquoted(&self.chars, self.i, self.out, self.depth, &mut self.word);
            }
            ch => {
                self.in_word = true;
                self.word.push(ch);
                self.i += 1;
            }
        }
    }

    /// Ends the word being read, if any.
    fn end_word(&mut self) {
        if self.in_word {
            self.tokens.push(Token::Word {
                text: std::mem::take(&mut self.word),
                plain: self.plain,
            });
        }
        self.in_word = false;
        self.plain = true;
    }

    /// A line end, `;`, `;;`, `(` or `)`.
    fn separator(&mut self, c: char) {
        self.end_word();
        if c == ';' && self.chars.get(self.i + 1) == Some(&';') {
            self.tokens.push(Token::CaseEnd);
            self.i += 2;
            return;
        }
        self.tokens.push(if c == ')' {
            Token::Close
        } else {
            Token::Separator
        });
        self.i += 1;
    }

    /// `&`, `&&`, `|`, `||`, `|&`, or the redirections `&>` and `&>>`.
    fn and_or(&mut self, c: char) {
        self.end_word();
        // `&>` and `|&`-free `&>>` are redirections.
        if c == '&' && self.chars.get(self.i + 1) == Some(&'>') {
            self.tokens.push(Token::Redirect);
            self.i += 2;
            if self.chars.get(self.i) == Some(&'>') {
                self.i += 1;
            }
            return;
        }
        self.tokens.push(Token::Separator);
        self.i += 1;
        if self.chars.get(self.i) == Some(&c) || (c == '|' && self.chars.get(self.i) == Some(&'&'))
        {
            self.i += 1;
        }
    }

    /// A redirection operator starting with `<` or `>`.
    fn redirect(&mut self) {
        // A file descriptor number written just before belongs to
        // the redirection (`2>err.log`).
        if self.in_word && self.plain && self.word.chars().all(|d| d.is_ascii_digit()) {
            self.word.clear();
            self.in_word = false;
        }
        self.end_word();
        self.i += 1;
        // `>>`, `<<`, `<<-`, `>&`, `<&`, `>|`, `<>`, `<<<`
        while matches!(self.chars.get(self.i), Some('<' | '>' | '&' | '|' | '-')) {
            self.i += 1;
        }
        // `>&2` names a descriptor, not a file.
        if self.chars[self.i - 1] == '&' {
            while self
                .chars
                .get(self.i)
                .is_some_and(|d| d.is_ascii_digit() || *d == '-')
            {
                self.i += 1;
            }
            return;
        }
        self.tokens.push(Token::Redirect);
    }

    /// `'…'`: every character as written.
    fn single_quoted(&mut self) {
        self.in_word = true;
        self.plain = false;
        self.i += 1;
        while self.i < self.chars.len() && self.chars[self.i] != '\'' {
            self.word.push(self.chars[self.i]);
            self.i += 1;
        }
        self.i += 1;
    }

    /// `"…"`: backslash escapes and command substitutions inside.
    fn double_quoted(&mut self) {
        self.in_word = true;
        self.plain = false;
        self.i += 1;
        let chars = &self.chars;
        let mut i = self.i;
        while i < chars.len() && chars[i] != '"' {
            match chars[i] {
                '\\' if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`' | '\n')) => {
                    if chars[i + 1] != '\n' {
                        self.word.push(chars[i + 1]);
                    }
                    i += 2;
                }
                '$' if chars.get(i + 1) == Some(&'(') => {
                    i = substitution(chars, i, self.out, self.depth, &mut self.word);
                }
                '`' => i = backquoted(chars, i, self.out, self.depth, &mut self.word),
                ch => {
                    self.word.push(ch);
                    i += 1;
                }
            }
        }
        self.i = i + 1;
    }
}

/// `$(…)` (a command substitution, read as commands) or `$((…))`
/// (arithmetic) starting at `at`; its text stands in the word. Returns
/// where the word goes on.
fn substitution(
    chars: &[char],
    at: usize,
    out: &mut Vec<Invocation>,
    depth: usize,
    word: &mut String,
) -> usize {
    let close = matching(chars, at + 1, '(', ')');
    let inner: String = chars[(at + 2).min(chars.len())..close.min(chars.len())]
        .iter()
        .collect();
    if !inner.starts_with('(') {
        read_commands(&inner, out, depth + 1);
    }
    word.push_str("$(…)");
    close + 1
}

/// A backquoted command substitution starting at `at`.
fn backquoted(
    chars: &[char],
    at: usize,
    out: &mut Vec<Invocation>,
    depth: usize,
    word: &mut String,
) -> usize {
    let mut i = at + 1;
    let mut inner = String::new();
    while i < chars.len() && chars[i] != '`' {
        if chars[i] == '\\' && i + 1 < chars.len() {
            inner.push(chars[i + 1]);
            i += 2;
            continue;
        }
        inner.push(chars[i]);
        i += 1;
    }
    read_commands(&inner, out, depth + 1);
    word.push_str("`…`");
    i + 1
}

/// Where the bracket opened at `open_at` closes (quotes and nesting
/// counted); the end of the text when it never does.
fn matching(chars: &[char], open_at: usize, open: char, close: char) -> usize {
    let mut level = 0usize;
    let mut i = open_at;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '\'' => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            c if c == open => level += 1,
            c if c == close => {
                level = level.saturating_sub(1);
                if level == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(command: &str) -> Vec<String> {
        programs(command)
            .into_iter()
            .map(|i| {
                let mut words = vec![i.program];
                words.extend(i.args);
                words.join(" ")
            })
            .collect()
    }

    #[test]
    fn simple_commands_and_lists() {
        assert_eq!(names("dbt build"), ["dbt build"]);
        assert_eq!(
            names("cd shop && dbt seed; dbt build || echo failed"),
            ["cd shop", "dbt seed", "dbt build", "echo failed"]
        );
        assert_eq!(
            names("odibi run a.yaml && dbt build\npython3 post.py"),
            ["odibi run a.yaml", "dbt build", "python3 post.py"]
        );
        assert_eq!(names("sleep 1 & dbt run"), ["sleep 1", "dbt run"]);
    }

    #[test]
    fn quoted_operators_are_words() {
        assert_eq!(
            names("python3 cfg.py | grep -vE 'noise|dbt'"),
            ["python3 cfg.py", "grep -vE noise|dbt"]
        );
        assert_eq!(names(r#"echo "a && dbt build""#), ["echo a && dbt build"]);
        assert_eq!(names(r"echo a\;dbt"), ["echo a;dbt"]);
        assert_eq!(
            names("odibi run '/x/sales daily/odibi.yaml'"),
            ["odibi run /x/sales daily/odibi.yaml"]
        );
    }

    #[test]
    fn mentions_are_not_programs() {
        assert_eq!(
            names("command -v dbt >/dev/null && python3 cfg.py"),
            ["python3 cfg.py"]
        );
        assert_eq!(names("echo dbt"), ["echo dbt"]);
        assert_eq!(names("dbt build # then odibi run"), ["dbt build"]);
    }

    #[test]
    fn compound_commands_run_their_bodies() {
        assert_eq!(
            names("if dbt build --select tag:typo; then echo ok; else exit 1; fi"),
            ["dbt build --select tag:typo", "echo ok", "exit 1"]
        );
        assert_eq!(
            names("(cd p && dbt build) | tee log"),
            ["cd p", "dbt build", "tee log"]
        );
        assert_eq!(
            names("for t in a b; do dbt run -s $t; done"),
            ["dbt run -s $t"]
        );
        assert_eq!(names("{ dbt seed; dbt run; }"), ["dbt seed", "dbt run"]);
        assert_eq!(
            names("while ! odibi run x.yaml; do sleep 1; done"),
            ["odibi run x.yaml", "sleep 1"]
        );
        assert_eq!(
            names("case $X in a) dbt run;; *) odibi run y;; esac"),
            ["dbt run", "odibi run y"]
        );
    }

    #[test]
    fn wrappers_run_the_next_word() {
        for (command, program) in [
            ("timeout 600 dbt build --select tag:typo", "dbt"),
            ("timeout -k 5 -s KILL 10m dbt build", "dbt"),
            ("env FOO=1 -u BAR odibi run x", "odibi"),
            ("env -i PATH=/bin dbt run", "dbt"),
            ("nice -n 5 dbt run", "dbt"),
            ("exec time dbt test", "dbt"),
            ("time -p dbt test", "dbt"),
            ("nohup dbt run", "dbt"),
            ("xargs -n 1 dbt run -s", "dbt"),
            ("uv run dbt build", "dbt"),
            ("uv run --with dbt-duckdb dbt build", "dbt"),
            ("poetry run pytest -q", "pytest"),
            ("pipenv run dbt run", "dbt"),
            ("pdm run odibi run x", "odibi"),
            ("hatch run dbt build", "dbt"),
            ("hatch run dev:dbt build", "dbt"),
            ("conda run -n etl dbt build", "dbt"),
            ("conda run --no-capture-output -n etl odibi run x", "odibi"),
            ("DBT_PROFILES_DIR=. dbt build", "dbt"),
            ("sh -c 'dbt build'", "dbt"),
            ("bash -ec \"cd p && dbt build\"", "dbt"),
            ("env -S 'dbt build'", "dbt"),
            ("command dbt build", "dbt"),
            ("sudo -u etl dbt build", "dbt"),
            ("x=$(dbt ls) && echo $x", "dbt"),
        ] {
            let got: Vec<String> = programs(command)
                .iter()
                .map(|i| i.base().to_string())
                .collect();
            assert!(got.iter().any(|p| p == program), "{command}: {got:?}");
        }
    }

    #[test]
    fn redirections_are_not_words() {
        assert_eq!(names("dbt build > out.log 2>&1"), ["dbt build"]);
        assert_eq!(names("2>err dbt build"), ["dbt build"]);
        assert_eq!(names("dbt build &>all.log"), ["dbt build"]);
        assert_eq!(names("< in.txt odibi run x"), ["odibi run x"]);
    }

    #[test]
    fn odd_input_never_panics() {
        for command in [
            "", "'", "\"", "$(", "`", "\\", "((", "))", ">", "a |", "${", "a=b", "env", "uv run",
            "timeout", "sh -c",
        ] {
            let _ = programs(command);
        }
    }
}
