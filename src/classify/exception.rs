//! Exceptions read by their type (docs/judging.md, An exception is judged by
//! its type): the line a Python traceback ends with
//! (`pkg.mod.SomeError: message`, also after rich's traceback box) and a JVM
//! `Caused by: …Exception: …` name what was raised, and the type says whether
//! the project's configuration is at fault (a file that does not parse, a
//! value that does not validate, a usage error, a definition or a selection
//! the tool refuses) or its run.

use std::sync::LazyLock;

use regex::Regex;

/// An exception line's type and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Raised<'a> {
    /// The type as written, module path included (`yaml.scanner.ScannerError`).
    pub(crate) type_path: &'a str,
    /// What follows the type's `:`.
    pub(crate) message: &'a str,
    /// Raised in a file of the project the line names (`… in file …`).
    pub(crate) in_file: bool,
}

/// The exception `line` names, when it is an exception line: `Type`,
/// `pkg.Type: message`, `Caused by: pkg.Type: message`, `Exception in
/// thread "main" pkg.Type: message`. `traceback` says the line ends a
/// Python traceback, where any type name is one; elsewhere the name must
/// end like an exception's (`Error`, `Exception`, …).
pub(crate) fn raised(line: &str, traceback: bool) -> Option<Raised<'_>> {
    let mut rest = line.trim_end();
    for lead in ["Caused by: ", "Suppressed: "] {
        if let Some(r) = rest.strip_prefix(lead) {
            rest = r;
        }
    }
    if let Some(r) = rest.strip_prefix("Exception in thread ")
        && let Some(at) = r.find("\" ")
    {
        rest = &r[at + 2..];
    }
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$'))
        .count();
    if len == 0 || rest.as_bytes()[0].is_ascii_digit() || rest.as_bytes()[0] == b'.' {
        return None;
    }
    let type_path = &rest[..len];
    let mut after = &rest[len..];
    // Snakemake's form: `ValueError in file "…/Snakefile", line 45:`.
    let mut in_file = false;
    for lead in [" in file ", " in rule "] {
        if after.starts_with(lead)
            && let Some(colon) = after.rfind(':')
        {
            in_file = true;
            after = &after[colon..];
        }
    }
    let message = match after.strip_prefix(':') {
        Some(m) => m.trim(),
        None if after.is_empty() => "",
        None => return None,
    };
    if in_file && !EXCEPTION_NAME.is_match(type_path) {
        return None;
    }
    let last = type_path.rsplit(['.', '$']).next().unwrap_or(type_path);
    if !last.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    if !traceback && !EXCEPTION_NAME.is_match(last) {
        return None;
    }
    Some(Raised {
        type_path,
        message,
        in_file,
    })
}

/// Whether `line` names an exception on its own, outside a traceback:
/// `RuleException:`, `ValueError in file "…", line 45:` (Snakemake's).
pub(crate) fn stands_alone(line: &str) -> bool {
    raised(line, false)
        .is_some_and(|r| r.in_file || r.message.is_empty() && line.trim_end().ends_with(':'))
}

/// The last part of a type name that says it is an exception.
static EXCEPTION_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:Error|Exception|Exit|Interrupt|Failure|Fault|Throwable|Timeout|Cancelled)$")
        .expect("valid regex")
});

/// Whether an exception of this type says the project's configuration is
/// at fault: names with config, validation, schema, parse/parser,
/// YAML's scanner/parser/constructor/composer errors, TOML and JSON decode
/// errors, command-line usage errors (click's `UsageError`,
/// `BadParameter`, `NoSuchOption`, argparse's `ArgumentError`), a tool's
/// invalid definition or selection, a syntax error in a file it loads.
pub(crate) fn config_shaped(type_path: &str) -> bool {
    CONFIG_TYPE.is_match(type_path)
}

static CONFIG_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        config | validat | schema
        | pars(?:e|er|ing)\w*(?:error|exception)
        | (?:^|\.)yaml\. | scanner | constructor | composer
        | toml\w*(?:error|exception) | json\w*decode
        | usage(?:error|exception) | badparameter | badoption | nosuchoption | nosuchcommand
        | missingparameter | argument(?:type)?error | argumentexception
        | invalid\w*(?:definition|selection|spec|parameter|argument|option|project|dag|flow|model|pipeline|rule|target|workflow|name|input)
        | (?:definition|selection)(?:error|exception) | parameter\w*(?:error|exception)
        | (?:^|\.)(?:syntax|indentation|taberror)error$ | (?:^|\.)syntaxerror$
        | notfound\w*(?:dag|flow|task|rule|target) | (?:dag|flow|task|rule|target|model|pipeline)notfound
        | task(?:class)?notfound | nosuch(?:task|target|rule|dag|flow|model|pipeline)
        | missing(?:rule|target|task|dag|flow|model|pipeline) | setting
        | (?:^|\.)(?:import|modulenotfound)error$
    ",
    )
    .expect("valid regex")
});

/// Whether an exception of this type is about the machine or the data
/// it reads (a missing file, a refused connection, a timeout): a runtime
/// failure whenever it is raised, loading included.
pub(crate) fn io_shaped(type_path: &str) -> bool {
    IO_TYPE.is_match(type_path.rsplit(['.', '$']).next().unwrap_or(type_path))
}

static IO_TYPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:NoAvailable\w*|\w*(?:Input|Data|File)NotFound\w*|Missing(?:Input|Data|File)\w*|(?:FileNotFound|FileExists|NotADirectory|IsADirectory|Permission|OS|IO|Environment|Connection\w*|Timeout|BrokenPipe|Blocking|ChildProcess|ProcessLookup|Interrupted)Error|\w*(?:IOException|FileNotFoundException|NoSuchFileException|ConnectException|TimeoutException)|ReadTimeout|ConnectTimeout)$",
    )
    .expect("valid regex")
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_lines_name_their_type() {
        for (line, tb, want) in [
            (
                "yaml.scanner.ScannerError: while scanning a simple key",
                true,
                Some("yaml.scanner.ScannerError"),
            ),
            ("KeyboardInterrupt", true, Some("KeyboardInterrupt")),
            ("ValueError: bad value", false, Some("ValueError")),
            (
                "Caused by: java.io.FileNotFoundException: /x (No such file)",
                false,
                Some("java.io.FileNotFoundException"),
            ),
            (
                "Exception in thread \"main\" java.lang.IllegalStateException: boom",
                false,
                Some("java.lang.IllegalStateException"),
            ),
            (
                "prefect.exceptions.ParameterTypeError: Flow run received invalid parameters:",
                true,
                Some("prefect.exceptions.ParameterTypeError"),
            ),
            ("Traceback (most recent call last):", true, None),
            ("Done. PASS=3", false, None),
            ("Status: ok", false, None),
            ("12:00:01 x", true, None),
            ("hello world", true, None),
        ] {
            assert_eq!(raised(line, tb).map(|r| r.type_path), want, "{line}");
        }
        assert_eq!(
            raised("ValueError: bad value", false).unwrap().message,
            "bad value"
        );
    }

    #[test]
    fn configuration_shaped_types() {
        for t in [
            "yaml.scanner.ScannerError",
            "yaml.parser.ParserError",
            "yaml.constructor.ConstructorError",
            "tomllib.TOMLDecodeError",
            "json.decoder.JSONDecodeError",
            "pydantic_core._pydantic_core.ValidationError",
            "click.exceptions.UsageError",
            "click.exceptions.BadParameter",
            "argparse.ArgumentError",
            "prefect.exceptions.ParameterTypeError",
            "prefect.exceptions.ParameterBindError",
            "sqlmesh.utils.errors.ConfigError",
            "great_expectations.exceptions.InvalidDataContextConfigError",
            "luigi.task_register.TaskClassNotFoundException",
            "dbt.exceptions.ParsingError",
            "SyntaxError",
            "jsonschema.exceptions.SchemaError",
            "airflow.exceptions.AirflowConfigException",
            "snakemake.exceptions.MissingRuleException",
            "pydantic_settings.exceptions.SettingsError",
            "ModuleNotFoundError",
        ] {
            assert!(config_shaped(t), "{t}");
        }
        for t in [
            "ValueError",
            "KeyError",
            "FileNotFoundError",
            "TimeoutError",
            "ZeroDivisionError",
            "RuntimeError",
            "requests.exceptions.ReadTimeout",
            "org.apache.spark.SparkException",
            "duckdb.duckdb.BinderException",
        ] {
            assert!(!config_shaped(t), "{t}");
        }
        for t in [
            "FileNotFoundError",
            "java.io.IOException",
            "requests.exceptions.ReadTimeout",
            "ConnectionRefusedError",
        ] {
            assert!(io_shaped(t), "{t}");
        }
        assert!(!io_shaped("KeyError"));
    }
}
