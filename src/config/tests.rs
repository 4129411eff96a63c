//! Every config error kind with its line and column; YAML in both forms;
//! interleaved declaration order.

use std::path::Path;

use super::*;

fn load_text(name: &str, text: &str) -> Result<HarnessConfig, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    HarnessConfig::load(&p, None)
}

/// (line, col, message) of each diagnostic.
fn errors(name: &str, text: &str) -> Vec<(usize, usize, String)> {
    match load_text(name, text) {
        Ok(_) => panic!("expected errors"),
        Err(e) => e
            .diagnostics()
            .iter()
            .map(|d| (d.pos.line, d.pos.col, d.to_string()))
            .collect(),
    }
}

fn one_error(text: &str) -> (usize, usize, String) {
    let mut e = errors("harness.toml", text);
    assert_eq!(e.len(), 1, "{e:?}");
    e.remove(0)
}

#[test]
fn malformed_toml_points_at_the_problem() {
    let (line, _, msg) = one_error("[harness]\nname = \"x\"\ntimeout = \n");
    assert_eq!(line, 3);
    assert!(msg.contains("malformed TOML"), "{msg}");
}

/// Without the `yaml` feature a YAML harness file is refused, at its
/// first line, with an error that names the feature.
#[cfg(not(feature = "yaml"))]
#[test]
fn a_yaml_harness_file_names_the_feature_it_needs() {
    let e = errors("h.yaml", "verify:\n  - name: a\n    command: 'true'\n");
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (1, 1), "{e:?}");
    assert!(e[0].2.contains("`yaml` feature"), "{}", e[0].2);
}

#[cfg(feature = "yaml")]
#[test]
fn malformed_yaml_points_at_the_problem() {
    let e = errors("h.yaml", "golden:\n  - name: a\n    path: [unclosed\n");
    assert_eq!(e.len(), 1);
    assert!(e[0].2.contains("malformed YAML"), "{}", e[0].2);
    assert!(e[0].0 >= 3, "{e:?}");
}

#[test]
fn unknown_key_suggests_the_close_one() {
    let (line, col, msg) =
        one_error("[[verify]]\nnmae = \"a\"\nname = \"b\"\ncommand = \"true\"\n");
    assert_eq!((line, col), (2, 1));
    assert!(
        msg.contains("unknown key `nmae`") && msg.contains("did you mean `name`?"),
        "{msg}"
    );
    let (_, _, msg) = one_error("[harness]\ntimout = \"1s\"\n");
    assert!(msg.contains("did you mean `timeout`?"), "{msg}");
    let (_, _, msg) = one_error("[zzz]\n");
    assert!(
        msg.contains("unknown key `zzz`") && msg.contains("known keys"),
        "{msg}"
    );
}

#[test]
fn duplicate_and_empty_names() {
    let e = errors(
        "harness.toml",
        "[[verify]]\nname = \"a\"\ncommand = \"true\"\n\n[[golden]]\nname = \"a\"\npath = \"p\"\ncommand = \"true\"\n\n[[verify]]\nname = \" \"\ncommand = \"true\"\n",
    );
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (6, 8));
    assert!(
        e[0].2
            .contains("duplicate case name `a` (first declared on line 1)"),
        "{}",
        e[0].2
    );
    assert_eq!((e[1].0, e[1].1), (11, 8));
    assert!(e[1].2.contains("empty name"), "{}", e[1].2);
}

#[test]
fn bad_duration() {
    let (line, col, msg) =
        one_error("[[verify]]\nname = \"a\"\ncommand = \"true\"\ntimeout = \"ten minutes\"\n");
    assert_eq!((line, col), (4, 11));
    assert!(msg.contains("bad duration `ten minutes`"), "{msg}");
    assert!(msg.contains("\"90s\""), "{msg}");
}

#[test]
fn invalid_regexes_in_patterns_and_expected() {
    let e = errors(
        "harness.toml",
        "[patterns]\nvalidation = ['ok', '(open']\n\n[[verify]]\nname = \"a\"\ncommand = \"true\"\nexpected = \"specific_error:[z-a]\"\n",
    );
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (2, 21));
    assert!(
        e[0].2
            .contains("invalid regex `(open` in `patterns.validation`"),
        "{}",
        e[0].2
    );
    assert_eq!((e[1].0, e[1].1), (7, 12));
    assert!(e[1].2.contains("invalid regex `[z-a]`"), "{}", e[1].2);
    let (_, _, msg) =
        one_error("[[verify]]\nname = \"a\"\ncommand = \"true\"\nexpected = \"failure\"\n");
    assert!(
        msg.contains("\"success\", \"aborted\" (or \"timeout\") or \"specific_error:<regex>\""),
        "{msg}"
    );
}

#[test]
fn golden_without_command_or_runner() {
    let (line, col, msg) = one_error("\n[[golden]]\nname = \"g\"\npath = \"p\"\n");
    assert_eq!((line, col), (2, 1));
    assert!(
        msg.contains("no `command`") && msg.contains("runner"),
        "{msg}"
    );
}

#[test]
fn require_golden_with_none_declared() {
    let h = load_text(
        "harness.toml",
        "[harness]\nrequire_golden = true\nrunner = \"run {path}\"\n[[verify]]\nname = \"v\"\ncommand = \"true\"\n",
    )
    .unwrap();
    let err = h.check_required_golden().unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!((d.pos.line, d.pos.col), (2, 1));
    assert!(d.message.contains("require_golden"), "{err}");
    // Ad-hoc golden projects (a `cargo golden` option) satisfy it.
    #[cfg(feature = "cli")]
    {
        let mut h = h;
        h.add_adhoc(&adhoc::parse("extra:golden/x").unwrap())
            .unwrap();
        assert!(h.check_required_golden().is_ok());
    }
}

#[test]
fn require_golden_error_reads_like_the_others() {
    let h = load_text(
        "harness.toml",
        "[harness]\nrequire_golden = true\n[[verify]]\nname = \"v\"\ncommand = \"true\"\n",
    )
    .unwrap();
    let msg = h.check_required_golden().unwrap_err().to_string();
    assert!(
        msg.contains("harness.toml:2:1: error: `require_golden = true`"),
        "{msg}"
    );
    assert!(
        msg.contains("help: declare at least one [[golden]]"),
        "{msg}"
    );
}

#[test]
fn wrong_types_are_named() {
    let e = errors(
        "harness.toml",
        "[harness]\ntruncate = \"big\"\njobs = 0\nrequire_golden = \"yes\"\n",
    );
    assert_eq!(e.len(), 3, "{e:?}");
    assert!(e[0].2.contains("`truncate` must be an integer"));
    assert!(e[1].2.contains("`jobs` must be at least 1"));
    assert!(e[2].2.contains("`require_golden` must be true or false"));
}

#[test]
fn junit_flavour_is_read_and_a_bad_one_points_at_its_value() {
    assert_eq!(
        load_text("harness.toml", "").unwrap().junit,
        crate::model::JunitFlavour::Rich
    );
    let h = load_text("harness.toml", "[harness]\njunit = \"strict\"\n").unwrap();
    assert_eq!(h.junit, crate::model::JunitFlavour::Strict);
    #[cfg(feature = "yaml")]
    {
        let h = load_text("h.yaml", "harness:\n  junit: strict\n").unwrap();
        assert_eq!(h.junit, crate::model::JunitFlavour::Strict);
    }

    let (line, col, msg) = one_error("[harness]\nname = \"x\"\njunit = \"xunit2\"\n");
    assert_eq!((line, col), (3, 9));
    assert!(
        msg.contains("`junit` must be \"rich\" or \"strict\", found \"xunit2\""),
        "{msg}"
    );
    assert!(msg.contains("Jenkins xUnit"), "{msg}");
    let (_, _, msg) = one_error("[harness]\njunit = true\n");
    assert!(msg.contains("`junit` must be a string"), "{msg}");
    let (_, _, msg) = one_error("[harness]\njunti = \"rich\"\n");
    assert!(msg.contains("did you mean `junit`?"), "{msg}");
}

#[test]
fn every_error_of_a_file_is_reported_together() {
    let e = errors(
        "harness.toml",
        "[harness]\ntimeout = \"x\"\n[[golden]]\nname = \"g\"\npath = \"p\"\ncomand = \"true\"\n[[verify]]\nname = \"g\"\n",
    );
    let lines: Vec<usize> = e.iter().map(|x| x.0).collect();
    assert!(
        lines.contains(&2) && lines.contains(&6) && lines.contains(&7) && lines.contains(&8),
        "{e:?}"
    );
    let err = load_text("harness.toml", "[harness]\ntimeout = \"x\"\n[zzz]\n").unwrap_err();
    assert!(
        err.to_string().contains("2 errors in the declarations"),
        "{err}"
    );
}

#[test]
fn interleaved_tables_keep_declaration_order() {
    let h = load_text(
        "harness.toml",
        "[harness]\nrunner = \"run {path}\"\n[[golden]]\nname = \"g1\"\npath = \"a\"\n[[verify]]\nname = \"v1\"\ncommand = \"true\"\n[[golden]]\nname = \"g2\"\npath = \"b\"\n[[verify]]\nname = \"v2\"\ncommand = \"true\"\n",
    )
    .unwrap();
    let order: Vec<(&str, usize, usize)> = h
        .cases
        .iter()
        .map(|c| (c.name.as_str(), c.line, c.index))
        .collect();
    assert_eq!(
        order,
        vec![("g1", 3, 0), ("v1", 6, 1), ("g2", 9, 2), ("v2", 12, 3)]
    );
}

#[test]
fn defaults_placeholders_and_working_dirs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("golden/with space")).unwrap();
    std::fs::write(dir.path().join("golden/p.yaml"), "x: 1\n").unwrap();
    let p = dir.path().join("harness.toml");
    std::fs::write(
        &p,
        "[harness]\nrunner = \"tool run {path} --in {dir} --name {name}\"\ntimeout = \"90s\"\n[[golden]]\nname = \"d\"\npath = \"golden/with space\"\n[[golden]]\nname = \"f\"\npath = \"golden/p.yaml\"\ntimeout = \"2m\"\n[[verify]]\nname = \"v\"\ncommand = \"true\"\n",
    )
    .unwrap();
    let h = HarnessConfig::load(&p, None).unwrap();
    let root = crate::layout::absolute(dir.path());
    let d = &h.cases[0];
    assert_eq!(d.working_dir, root.join("golden/with space"));
    let q = h
        .shell
        .quote(&root.join("golden").join("with space").to_string_lossy());
    assert_eq!(d.command, format!("tool run {q} --in {q} --name d"));
    assert_eq!(d.timeout, std::time::Duration::from_secs(90));
    let f = &h.cases[1];
    assert_eq!(f.working_dir, root.join("golden"));
    assert_eq!(f.timeout, std::time::Duration::from_secs(120));
    assert_eq!(h.cases[2].working_dir, root);
    assert_eq!(h.truncate, defaults::TRUNCATE);
    assert_eq!(h.name, root.file_name().unwrap().to_string_lossy());
}

#[cfg(feature = "yaml")]
#[test]
fn yaml_with_the_same_structure() {
    let h = load_text(
        "h.yaml",
        "harness:\n  name: y\n  runner: run {path}\ngolden:\n  - name: a\n    path: a.yaml\n    expected: \"specific_error:boom\"\nverify:\n  - name: v\n    command: \"true\"\n    env:\n      RUST_LOG: info\n      N: 3\n",
    )
    .unwrap();
    assert_eq!(h.name, "y");
    assert_eq!(h.cases.len(), 2);
    assert_eq!((h.cases[0].name.as_str(), h.cases[0].line), ("a", 5));
    assert!(matches!(h.cases[0].expected, Expected::SpecificError(_)));
    assert_eq!(h.cases[1].env.get("N").map(String::as_str), Some("3"));
}

#[cfg(feature = "yaml")]
#[test]
fn yaml_older_list_form() {
    let h = load_text(
        "h.yml",
        "harness:\n  runner: odibi run {path}\ngolden_projects:\n  - name: sales\n    path: golden/sales.yaml\n    description: daily\n    expected_outcome: success\n  - name: bad\n    path: golden/bad.yaml\n    expected_outcome: \"specific_error:validation error\"\n",
    )
    .unwrap();
    let names: Vec<&str> = h.cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["sales", "bad"]);
    assert_eq!(h.cases[0].description.as_deref(), Some("daily"));
    assert!(h.cases[0].command.starts_with("odibi run "));
    assert!(matches!(h.cases[1].expected, Expected::SpecificError(_)));
    // Errors in YAML carry lines too.
    let e = errors(
        "h.yml",
        "golden_projects:\n  - name: a\n    path: p\n    comand: x\n",
    );
    assert!(
        e.iter()
            .any(|(l, c, m)| *l == 4 && *c == 5 && m.contains("did you mean `command`?")),
        "{e:?}"
    );
}

#[cfg(feature = "cli")]
#[test]
fn adhoc_projects_join_the_harness() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = HarnessConfig::empty(dir.path());
    h.runner = Some("run {path}".into());
    let entries = adhoc::parse("a.yaml, sales:golden/sales").unwrap();
    h.add_adhoc(&entries).unwrap();
    assert_eq!(h.cases.len(), 2);
    assert_eq!(h.cases[1].name, "sales");
    assert!(
        h.add_adhoc(&entries).is_err(),
        "duplicate names are refused"
    );
    let mut bare = HarnessConfig::empty(Path::new("/"));
    assert!(
        bare.add_adhoc(&entries)
            .unwrap_err()
            .to_string()
            .contains("no command and no runner")
    );
}

#[test]
fn redact_env_entries_are_checked_with_their_position() {
    let e = errors(
        "harness.toml",
        "[harness]\nredact_env = [\"API_TOKEN\", \"\", \"A=B\", \"AWS_[\", \"!API_TOKEN\", 3]\n",
    );
    let at = |col: usize| e.iter().find(|d| d.1 == col).map(|d| d.2.as_str());
    assert_eq!(e.len(), 5, "{e:?}");
    assert!(e.iter().all(|d| d.0 == 2), "{e:?}");
    assert!(at(28).unwrap().contains("needs a variable name"), "{e:?}");
    assert!(at(32).unwrap().contains("contains '='"), "{e:?}");
    assert!(
        at(39)
            .unwrap()
            .contains("bad glob `AWS_[`: unclosed character class"),
        "{e:?}"
    );
    assert!(
        at(48)
            .unwrap()
            .contains("`API_TOKEN` is both masked and excluded"),
        "{e:?}"
    );
    assert!(at(62).unwrap().contains("must be a string"), "{e:?}");
}

#[test]
fn redact_env_is_read_into_rules() {
    let h = load_text(
        "harness.toml",
        "[harness]\nredact_env = [\"DEPLOY_PIN\", \"!MY_TOKEN_COUNT\"]\n",
    )
    .unwrap();
    assert!(h.redact_env.is_secret("DEPLOY_PIN", b"42"));
    assert!(!h.redact_env.is_secret("MY_TOKEN_COUNT", b"1234567"));
    assert!(h.redact_env.is_secret("API_TOKEN", b"1234567"));
}

#[test]
fn allow_lists_and_case_patterns() {
    let h = load_text(
        "harness.toml",
        "[patterns]\nallow = ['Timeout=\\d+']\nruntime = ['E1']\n\
         [[verify]]\nname = \"a\"\ncommand = \"true\"\n\
         [[verify]]\nname = \"b\"\ncommand = \"true\"\n\
         patterns = { runtime = ['E2'], allow = ['SIGTERM handler'], builtin = false }\n",
    )
    .unwrap();
    assert_eq!(h.patterns.allow, ["Timeout=\\d+"]);
    assert_eq!(h.cases[0].patterns, None);
    let b = h.patterns_for(&h.cases[1]);
    assert_eq!(
        (b.runtime, b.allow, b.builtin),
        (
            vec!["E1".to_string(), "E2".to_string()],
            vec!["Timeout=\\d+".to_string(), "SIGTERM handler".to_string()],
            false
        )
    );
    // A case's `builtin = true` keeps the built-ins the harness dropped.
    #[cfg(feature = "yaml")]
    {
        let h = load_text(
            "harness.yaml",
            "patterns:\n  builtin: false\nverify:\n  - name: a\n    command: 'true'\n    patterns:\n      builtin: true\n",
        )
        .unwrap();
        assert!(!h.patterns.builtin && h.patterns_for(&h.cases[0]).builtin);
    }
}

#[test]
fn bad_case_patterns_point_at_the_key() {
    let text = "[[golden]]\nname = \"g\"\npath = \"p\"\ncommand = \"x\"\n\
                patterns = { alow = ['x'], runtime = ['(unclosed'] }\n";
    let e = errors("harness.toml", text);
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!((e[0].0, e[0].1), (5, 14));
    assert!(
        e[0].2
            .contains("unknown key `alow` in `patterns` of [[golden]] #1")
            && e[0].2.contains("did you mean `allow`?"),
        "{}",
        e[0].2
    );
    assert_eq!((e[1].0, e[1].1), (5, 39));
    assert!(
        e[1].2
            .contains("invalid regex `(unclosed` in `patterns.runtime`"),
        "{}",
        e[1].2
    );
    let (line, col, msg) = one_error("[patterns]\nallow = 'x'\n");
    assert_eq!((line, col), (2, 9));
    assert!(msg.contains("`allow` must be an array of strings"), "{msg}");
}

#[test]
fn a_configured_shell_quotes_placeholders_its_way() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("it's here")).unwrap();
    let p = dir.path().join("harness.toml");
    std::fs::write(
        &p,
        "[harness]\nrunner = \"tool {path} {root}\"\nshell = [\"pwsh\", \"-Command\"]\n[[golden]]\nname = \"g\"\npath = \"it's here\"\n",
    )
    .unwrap();
    let h = HarnessConfig::load(&p, None).unwrap();
    assert_eq!(h.shell.flavor, crate::shell::Flavor::PowerShell);
    assert_eq!(h.shell.args, ["-Command"]);
    let root = crate::layout::absolute(dir.path());
    let q = |p: &Path| crate::shell::powershell_quote(&p.to_string_lossy());
    // `runner` comes before `shell` in the table, and is still quoted for it.
    assert_eq!(
        h.cases[0].command,
        format!("tool {} {}", q(&root.join("it's here")), q(&root))
    );
    assert!(
        h.cases[0].command.contains("it''s here"),
        "{}",
        h.cases[0].command
    );
}

#[test]
fn an_empty_shell_is_an_error_at_its_line() {
    let errs = errors("h.toml", "[harness]\nshell = []\n");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!((errs[0].0, errs[0].1), (2, 9));
    assert!(errs[0].2.contains("`shell` needs a program"), "{errs:?}");
}

/// A key declared in the schema types is accepted by the loader (which
/// takes its known keys from them); this holds the loader to reading it, so
/// a key is never accepted and then ignored.
#[cfg(feature = "schema")]
#[test]
fn the_loader_reads_every_key_the_schema_declares() {
    // The loader is the walk, the config's own module and each key's element.
    let loader = concat!(
        include_str!("validate.rs"),
        include_str!("mod.rs"),
        include_str!("elements/case.rs"),
        include_str!("elements/env.rs"),
        include_str!("elements/gate.rs"),
        include_str!("elements/golden.rs"),
        include_str!("elements/harness.rs"),
        include_str!("elements/isolation.rs"),
        include_str!("elements/outputs.rs"),
        include_str!("elements/patterns.rs"),
        include_str!("elements/presets.rs"),
        include_str!("elements/quarantine.rs"),
        include_str!("elements/result.rs"),
        include_str!("elements/retries.rs"),
        include_str!("elements/snapshots.rs"),
        include_str!("elements/values.rs"),
        include_str!("elements/verify.rs"),
    );
    for (table, keys) in super::schema::table_keys() {
        for key in keys {
            assert!(
                loader.contains(&format!("\"{key}\"")),
                "`{key}` of [{table}] is declared in config/schema.rs but the loader never reads it"
            );
        }
    }
}

#[test]
fn a_result_needs_a_known_format_and_a_path_unless_read_from_stdout() {
    let case = |result: &str| format!("[[verify]]\nname = \"a\"\ncommand = \"true\"\n{result}\n");
    let (line, _, msg) = one_error(&case("result = { format = \"tap\", path = \"x\" }"));
    assert_eq!(line, 4);
    assert!(msg.contains("`result.format` must be"), "{msg}");
    let (_, _, msg) = one_error(&case("result = { format = \"junit\" }"));
    assert!(msg.contains("has no `path`"), "{msg}");
    let (_, _, msg) = one_error(&case("result = { path = \"x\" }"));
    assert!(msg.contains("has no `format`"), "{msg}");
    let e = errors(
        "harness.toml",
        &case("result = { format = \"junit\", paht = \"x\" }"),
    );
    assert!(
        e.iter().any(|(_, _, m)| m.contains("did you mean `path`?")),
        "{e:?}"
    );
    let h = load_text(
        "harness.toml",
        &case("result = { format = \"odibi-validate\" }"),
    )
    .unwrap();
    assert_eq!(
        h.cases[0].result,
        Some(ResultSpec {
            format: ResultFormat::OdibiValidate,
            path: None,
            allow_empty: false,
        })
    );
}

#[test]
fn outputs_need_a_known_extension_and_a_key_that_is_not_ignored() {
    let case = |outputs: &str| format!("[[verify]]\nname = \"a\"\ncommand = \"true\"\n{outputs}\n");
    let (line, _, msg) = one_error(&case("outputs = [{ path = \"out/sales\" }]"));
    assert_eq!(line, 4);
    assert!(
        msg.contains("must end in .csv, .json, .jsonl or .parquet"),
        "{msg}"
    );
    let (_, _, msg) = one_error(&case(
        "outputs = [{ path = \"out/sales\", format = \"iceberg\" }]",
    ));
    assert!(msg.contains("`outputs.format` must be \"delta\""), "{msg}");
    let h = load_text(
        "harness.toml",
        &case("outputs = [{ path = \"out/sales\", format = \"delta\" }, { path = \"a.parquet\" }]"),
    )
    .unwrap();
    let formats: Vec<_> = h.cases[0].outputs.iter().map(|o| o.format).collect();
    assert_eq!(
        formats,
        [
            crate::model::DataFormat::Delta,
            crate::model::DataFormat::Parquet
        ]
    );
    let (_, _, msg) = one_error(&case(
        "outputs = [{ path = \"x.csv\", key = [\"id\"], ignore = [\"id\"] }]",
    ));
    assert!(msg.contains("both a `key` and ignored"), "{msg}");
    let (_, _, msg) = one_error(&case(
        "outputs = [{ path = \"x.csv\", tolerance = { abs = -1 } }]",
    ));
    assert!(msg.contains("outputs.tolerance.abs"), "{msg}");
    let h = load_text(
        "harness.toml",
        &case("outputs = [{ path = \"out/*.csv\", key = [\"id\"], tolerance = { rel = 1e-9 } }]"),
    )
    .unwrap();
    assert_eq!(
        h.cases[0].outputs,
        [super::OutputSpec {
            path: "out/*.csv".into(),
            table: None,
            model: None,
            key: vec!["id".into()],
            ignore: vec![],
            abs: 0.0,
            rel: 1e-9,
            format: crate::model::DataFormat::Csv,
            mode: super::schema::DataOutputMode::Rows,
        }]
    );
}

#[test]
fn table_and_query_outputs_need_one_source_and_a_database_inside_the_working_dir() {
    let case = |outputs: &str| format!("[[verify]]\nname = \"a\"\ncommand = \"true\"\n{outputs}\n");
    let h = load_text(
        "harness.toml",
        &case(
            "outputs = [{ table = \"main.order_totals\", database = \"duckdb:wh.duckdb\", key = [\"region\"] }, \
             { query = \"SELECT 1\", database = \"sqlite:db/wh.sqlite\" }]",
        ),
    )
    .unwrap();
    let outputs = &h.cases[0].outputs;
    assert_eq!(outputs[0].path, "main.order_totals");
    assert_eq!(
        outputs[0].table,
        Some(super::TableSource {
            database: super::Database::Duckdb("wh.duckdb".into()),
            rows: super::TableRows::Table(vec!["main".into(), "order_totals".into()]),
        })
    );
    // A query is named by its text's sha256, so editing it is a new output.
    let sha = crate::hash::sha256_hex(b"SELECT 1");
    assert_eq!(outputs[1].path, format!("query-{}", &sha[..8]));
    assert_eq!(
        outputs[1].table.as_ref().map(|t| &t.database),
        Some(&super::Database::Sqlite("db/wh.sqlite".into()))
    );

    let wrong = [
        (
            "outputs = [{ table = \"t\" }]",
            "with a `table` has no `database`",
        ),
        (
            "outputs = [{ path = \"a.csv\", table = \"t\", database = \"duckdb:x\" }]",
            "names both `path` and `table`",
        ),
        (
            "outputs = [{ path = \"a.csv\", database = \"duckdb:x\" }]",
            "not a `path`",
        ),
        (
            "outputs = [{ table = \"t\", database = \"duckdb:x\", format = \"delta\" }]",
            "`format` is the format of a file `path`",
        ),
        (
            "outputs = [{ table = \"t\", database = \"duckdb:../x.duckdb\" }]",
            "must name a file inside the case's working dir",
        ),
        (
            "outputs = [{ table = \"t\", database = \"duckdb:/abs.duckdb\" }]",
            "must name a file inside the case's working dir",
        ),
        (
            "outputs = [{ table = \"t\", database = \"mysql://h/db\" }]",
            "is not a `duckdb:`, `sqlite:` or `postgres://` URL",
        ),
        (
            "outputs = [{ table = \"t\", database = \"postgres://u:hunter22@h:5432/db\" }]",
            "`outputs.database` holds a password",
        ),
        (
            "outputs = [{ table = \"t\", database = \"postgres://u@h/db?password=hunter22\" }]",
            "`outputs.database` holds a password",
        ),
        (
            "outputs = [{ table = \"t\", database = \"postgres://h\" }]",
            "names no server and database",
        ),
        (
            "outputs = [{ table = \"a; DROP TABLE b\", database = \"sqlite:x\" }]",
            "outputs.table",
        ),
        (
            "outputs = [{ query = \" \", database = \"sqlite:x\" }]",
            "`outputs.query` is empty",
        ),
    ];
    for (outputs, want) in wrong {
        let (line, _, msg) = one_error(&case(outputs));
        assert_eq!(line, 4, "{outputs}: {msg}");
        assert!(msg.contains(want), "{outputs}: {msg}");
    }
    let url = "postgres://golden@127.0.0.1:5432/golden";
    let h = load_text(
        "harness.toml",
        &case(&format!(
            "outputs = [{{ table = \"public.t\", database = \"{url}\" }}]"
        )),
    )
    .unwrap();
    assert_eq!(
        h.cases[0].outputs[0].table.as_ref().map(|t| &t.database),
        Some(&super::Database::Postgres(url.into()))
    );
}
