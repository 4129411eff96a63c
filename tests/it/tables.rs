//! Tables and queries of a database as data outputs, through the real
//! binary and real engines: a script writes a table with Python's own
//! `sqlite3` (real SQLite) or with the `duckdb` package (real DuckDB); the
//! case's `outputs` name the table (or a query) and the database file.
//! Each engine goes through the same sequence: bless, a rerun passes, a
//! changed number, a dropped row and a renamed column each fail
//! DATA_CHANGED with a readable diff, and a run that leaves the database
//! file as it was fails as not written by this run. A pending change is
//! accepted by `review`, and a query and a summary are snapshots too (a
//! DuckDB table's summary computed by DuckDB).

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{Project, data_findings, data_python, text};

/// Writes `order_totals` from `src.json` (`rows`, the amount column's
/// name in `column`) into `warehouse.sqlite` or `warehouse.duckdb`, as
/// the engine named by its argument does (`postgres URL PSQL`: the table
/// `order_totals` on that server, through psql); with `"skip": true` it
/// writes nothing.
const BUILD: &str = r#"
import json, sys
engine = sys.argv[1]
spec = json.load(open("src.json"))
if spec.get("skip"):
    sys.exit(0)
col = spec.get("column", "total")
if engine == "postgres":
    # Through the server's own client: psql URL, the password in PGPASSWORD.
    import subprocess
    url, psql = sys.argv[2], sys.argv[3]
    lit = lambda v: "'" + v.replace("'", "''") + "'" if isinstance(v, str) else repr(v)
    values = ", ".join("(" + ", ".join(lit(v) for v in row) + ")" for row in spec["rows"])
    sql = (f"DROP TABLE IF EXISTS order_totals; CREATE TABLE order_totals (region VARCHAR, "
           f"{col} DECIMAL(12,2), orders BIGINT, ratio DOUBLE PRECISION); "
           f"INSERT INTO order_totals VALUES {values};")
    subprocess.run([psql, "-q", "-v", "ON_ERROR_STOP=1", url], input=sql, text=True, check=True)
    sys.exit(0)
if engine == "sqlite":
    import sqlite3
    con = sqlite3.connect("warehouse.sqlite")
else:
    import duckdb
    con = duckdb.connect("warehouse.duckdb")
con.execute("DROP TABLE IF EXISTS order_totals")
con.execute(f"CREATE TABLE order_totals (region VARCHAR, {col} DECIMAL(12,2), orders BIGINT, ratio DOUBLE)")
con.executemany("INSERT INTO order_totals VALUES (?, ?, ?, ?)", spec["rows"])
con.commit()
con.close()
"#;

const ROWS: &str =
    r#"[["east", "10.50", 3, 0.25], ["west", "7.25", 1, 0.5], ["north", "0.10", 12, 1e-9]]"#;

/// A case `build` that runs `build.py ENGINE` with `python`, its outputs
/// `outputs`, and `src.json` holding [`ROWS`].
fn project(python: &Path, engine: &str, outputs: &str) -> Project {
    let p = build_case(
        &format!("'{}' build.py {engine}", python.display()),
        outputs,
    );
    p.write("build.py", BUILD);
    rows(&p, ROWS, "total");
    p
}

/// A project whose one case, `build`, runs `command` with `outputs`.
fn build_case(command: &str, outputs: &str) -> Project {
    Project::new(&format!(
        r#"
[harness]
require_golden = false

[[verify]]
name = "build"
command = "{command}"
outputs = [{outputs}]
"#
    ))
}

fn rows(p: &Project, rows: &str, column: &str) {
    p.write(
        "src.json",
        &format!(r#"{{"rows": {rows}, "column": "{column}"}}"#),
    );
}

fn bless(p: &Project) {
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

fn passes(p: &Project) {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Run `p`, which must fail with DATA_CHANGED; its terminal and every
/// data finding its evidence holds, one text.
fn changed(p: &Project) -> String {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let summary = p.summary();
    let issues: Vec<&str> = summary["cases"][0]["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert!(issues.contains(&"DATA_CHANGED"), "{summary}");
    let findings = data_findings(p, "001-build");
    format!("{findings}\n{}", text(&o))
}

/// `order_totals` of the database `url`, keyed by region.
fn table_output(url: &str) -> String {
    format!(r#"{{ table = "order_totals", database = "{url}", key = ["region"] }}"#)
}

/// The whole sequence on `p`, whose case writes [`table_output`]; `ten`
/// is how the engine gives back 10.50 (SQLite keeps a DECIMAL as a REAL),
/// `stale` how a run that writes nothing is said to be stale.
fn sequence(p: &Project, ten: &str, stale: &str) {
    bless(p);
    let snapshot = std::fs::read_to_string(p.path().join("snapshots/build.order_totals.data"))
        .expect("the table's snapshot");
    assert!(
        snapshot.contains(&format!("east,{ten},3,0.25\n")),
        "{snapshot}"
    );
    assert!(snapshot.contains("north,"), "{snapshot}");
    passes(p);

    // A changed number.
    rows(p, &ROWS.replace("10.50", "10.75"), "total");
    let found = changed(p);
    assert!(
        found.contains(&format!("changed: region=east total {ten} -> 10.75")),
        "{found}"
    );
    assert!(found.contains("total: 1 of 3 rows differ"), "{found}");

    // A dropped row.
    rows(
        p,
        r#"[["east", "10.50", 3, 0.25], ["west", "7.25", 1, 0.5]]"#,
        "total",
    );
    let found = changed(p);
    assert!(found.contains("row removed: region=north"), "{found}");

    // A renamed column.
    rows(p, ROWS, "amount");
    let found = changed(p);
    assert!(found.contains("column renamed: total -> amount"), "{found}");

    // Back as blessed: green again, then a run that writes nothing.
    rows(p, ROWS, "total");
    passes(p);
    p.write("src.json", r#"{"skip": true, "rows": []}"#);
    let found = changed(p);
    assert!(found.contains(stale), "{found}");
}

/// How a database file's table is said to be stale.
const FILE_STALE: &str = "not written by this run: its database file";

#[test]
fn a_sqlite_table_is_blessed_passes_and_fails_on_a_changed_number_row_or_column() {
    let p = project(
        Path::new("python3"),
        "sqlite",
        &table_output("sqlite:warehouse.sqlite"),
    );
    sequence(&p, "10.5", FILE_STALE);
}

#[test]
fn a_duckdb_table_is_blessed_passes_and_fails_on_a_changed_number_row_or_column() {
    let Some(python) = data_python("duckdb tables") else {
        return;
    };
    let p = project(&python, "duckdb", &table_output("duckdb:warehouse.duckdb"));
    sequence(&p, "10.50", FILE_STALE);
}

/// The server `.ci/postgres` started: its URL, the role's password and
/// its psql.
struct Server {
    url: String,
    password: String,
    psql: String,
}

impl Server {
    /// The server, or None (said: SKIPPED, and why) where none could be
    /// started.
    fn get(test: &str) -> Option<Server> {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.is_empty());
        let found = (
            var("CARGO_GOLDEN_POSTGRES_URL"),
            var("CARGO_GOLDEN_POSTGRES_PASSFILE")
                .and_then(|f| std::fs::read_to_string(f).ok())
                .map(|p| p.trim().to_string()),
            var("CARGO_GOLDEN_PSQL"),
        );
        let (Some(url), Some(password), Some(psql)) = found else {
            let why = var("CARGO_GOLDEN_POSTGRES_SKIPPED").unwrap_or_else(|| {
                "CARGO_GOLDEN_POSTGRES_URL is unset (`eval \"$(bash .ci/postgres start)\"` \
                 starts a server; .ci/run does)"
                    .into()
            });
            eprintln!("SKIPPED {test}: no PostgreSQL server: {why}");
            return None;
        };
        Some(Server {
            url,
            password,
            psql,
        })
    }

    /// Run `sql` on the database `db` (or the server's own), with psql.
    fn psql(&self, db: Option<&str>, sql: &str) {
        let url = match db {
            Some(db) => format!("{}/{db}", self.url.rsplit_once('/').unwrap().0),
            None => self.url.clone(),
        };
        let o = std::process::Command::new(&self.psql)
            .args(["-q", "-v", "ON_ERROR_STOP=1", &url, "-c", sql])
            .env("PGPASSWORD", &self.password)
            .output()
            .unwrap();
        assert!(o.status.success(), "{sql}: {}", text(&o));
    }

    /// A fresh database `name` of its own (tests run at once; a query's
    /// stale rule looks at every table of its database), its URL.
    fn database(&self, name: &str) -> String {
        self.psql(
            None,
            &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        );
        self.psql(None, &format!("CREATE DATABASE {name}"));
        format!("{}/{name}", self.url.rsplit_once('/').unwrap().0)
    }

    /// A project whose case writes `order_totals` into the database `url`
    /// with [`BUILD`] through psql, its outputs `outputs`, the harness
    /// given the password as `PGPASSWORD` (and so its cases).
    fn project(&self, url: &str, outputs: &str) -> Project {
        let mut p = project(
            Path::new("python3"),
            &format!("postgres {url} '{}'", self.psql),
            outputs,
        );
        p.env.push(("PGPASSWORD".into(), self.password.clone()));
        p
    }
}

/// Every file under `dir` that holds `secret`.
fn files_holding(dir: &Path, secret: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if std::fs::read(&path)
                .is_ok_and(|b| b.windows(secret.len()).any(|w| w == secret.as_bytes()))
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_postgres_table_is_blessed_passes_and_fails_on_a_changed_number_row_or_column() {
    let Some(server) = Server::get("postgres tables") else {
        return;
    };
    let url = server.database("golden_sequence");
    let p = server.project(&url, &table_output(&url));
    sequence(
        &p,
        "10.50",
        "not written by this run: the server's statistics of order_totals",
    );
    // The password the harness and its case were given is in no file the
    // runs left (outputs, reports, evidence, snapshots).
    assert_eq!(
        files_holding(p.path(), &server.password),
        Vec::<std::path::PathBuf>::new()
    );
}

/// A server that refuses the harness (no password given) fails the
/// output with the server's words: never a pass, never a stale verdict.
#[test]
fn a_postgres_server_that_refuses_the_harness_fails_the_output_saying_why() {
    let Some(server) = Server::get("postgres refusal") else {
        return;
    };
    let url = server.database("golden_refused");
    let p = project(Path::new("python3"), "sqlite", &table_output(&url));
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let all = text(&o);
    assert!(all.contains("order_totals: postgres: "), "{all}");
    assert!(all.contains("password missing"), "{all}");
    assert!(all.contains("PGPASSWORD"), "{all}");
}

/// A Postgres table's summary, computed by the server in one statement
/// planned in parallel: the same figures on every run, NaN and the
/// infinities counted, one changed value caught; a query's rows typed by
/// the server; both reviewed like any snapshot.
#[test]
fn a_postgres_summary_is_computed_by_the_server_the_same_on_every_run() {
    let Some(server) = Server::get("postgres summary") else {
        return;
    };
    let url = server.database("golden_summary");
    // Plan every scan in parallel, so the sums are added in whatever
    // order the workers finish.
    server.psql(
        Some("golden_summary"),
        "ALTER DATABASE golden_summary SET parallel_setup_cost = 0; \
         ALTER DATABASE golden_summary SET parallel_tuple_cost = 0; \
         ALTER DATABASE golden_summary SET min_parallel_table_scan_size = 0",
    );
    let p = build_case(
        &format!("'{}' -q -v ON_ERROR_STOP=1 {url} -f build.sql", server.psql),
        &format!(
            r#"{{ table = "public.numbers", database = "{url}", mode = "summary" }},
               {{ query = "SELECT id, x, at FROM numbers WHERE id <= 2 OR x = 'NaN'::float8", database = "{url}", key = ["id"] }}"#
        ),
    );
    let mut p = p;
    p.env.push(("PGPASSWORD".into(), server.password.clone()));
    let build = "DROP TABLE IF EXISTS numbers; SELECT setseed(0.5); \
         CREATE TABLE numbers AS SELECT g AS id, random() * 1e12 - 5e11 AS x, \
         'v' || (g % 977) AS s, (g % 1000)::numeric(12,2) / 7 AS d, g % 2 = 0 AS even, \
         TIMESTAMPTZ '2026-01-01 10:00:00+02' + g * INTERVAL '1 second' AS at \
         FROM generate_series(1, 300000) AS g; \
         INSERT INTO numbers VALUES (300001, 'NaN', NULL, NULL, NULL, NULL), \
         (300002, 'Infinity', 'x', 1, true, NULL), (300003, '-Infinity', 'y', 2, false, NULL);\n";
    p.write("build.sql", build);
    bless(&p);
    let s = std::fs::read_to_string(p.path().join("snapshots/build.public.numbers.data")).unwrap();
    assert!(
        s.contains("# summary: 300003 rows\n# engine: postgres "),
        "{s}"
    );
    assert!(
        s.contains("\nid,integer,0,0,0,0,1,300003,45001050006,"),
        "{s}"
    );
    assert!(s.contains("\nx,float,0,1,1,1,"), "{s}");
    assert!(s.contains("\neven,bool,1,0,0,0,false,true,,"), "{s}");
    assert!(
        s.contains("\nat,string,3,0,0,0,2026-01-01T08:00:01Z,2026-01-04T19:20:00Z,,"),
        "{s}"
    );
    let query = std::fs::read_dir(p.path().join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| f.to_string_lossy().contains("build.query-"))
        .expect("the query's snapshot");
    let q = std::fs::read_to_string(query).unwrap();
    assert!(q.contains("\n1,"), "{q}");
    assert!(q.contains(",2026-01-01T08:00:01Z\n"), "{q}");
    assert!(q.contains("\n300001,NaN,\n"), "{q}");
    // Rerun twice on the same data: the same figures.
    passes(&p);
    passes(&p);

    p.write(
        "build.sql",
        &format!("{build}UPDATE numbers SET x = x + 0.5 WHERE id = 123456;\n"),
    );
    let found = changed(&p);
    assert!(found.contains("column x"), "{found}");
    let o = review(&p, &["--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    passes(&p);
}

/// A query's rows and a table's summary are snapshots as a table's rows
/// are; a pending change of either is accepted by `review`.
#[test]
fn a_query_and_a_summary_of_a_duckdb_table_are_snapshots_review_accepts() {
    let Some(python) = data_python("duckdb query and summary") else {
        return;
    };
    let query = "SELECT region, orders, [orders, 1] AS pair, TIMESTAMPTZ '2026-01-01 10:00:00+02' AS at FROM order_totals WHERE orders > 1 -- the busy regions";
    let p = project(
        &python,
        "duckdb",
        &format!(
            r#"{{ query = "{query}", database = "duckdb:warehouse.duckdb", key = ["region"] }},
               {{ table = "main.order_totals", database = "duckdb:warehouse.duckdb", mode = "summary" }}"#
        ),
    );
    bless(&p);
    let snapshots = std::fs::read_dir(p.path().join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<Vec<_>>();
    let query_file = snapshots
        .iter()
        .find(|f| f.starts_with("build.query-"))
        .unwrap_or_else(|| panic!("no query snapshot in {snapshots:?}"));
    let q = std::fs::read_to_string(p.path().join("snapshots").join(query_file)).unwrap();
    // DuckDB's own text for a list; a TIMESTAMPTZ as ISO UTC.
    assert!(
        q.contains("east,3,\"[3, 1]\",2026-01-01T08:00:00Z\n"),
        "{q}"
    );
    let s =
        std::fs::read_to_string(p.path().join("snapshots/build.main.order_totals.data")).unwrap();
    // Computed by DuckDB in one statement, and named so.
    assert!(s.contains("# summary: 3 rows\n# engine: duckdb v"), "{s}");
    assert!(s.contains("total,decimal,0,0,0,0,0.10,10.50,17.85,"), "{s}");
    assert!(
        s.contains("ratio,float,0,0,0,0,0.000000001,0.5,0.750000001,"),
        "{s}"
    );
    passes(&p);

    rows(&p, &ROWS.replace("\"0.10\", 12", "\"0.20\", 13"), "total");
    let found = changed(&p);
    assert!(
        found.contains("changed: region=north orders 12 -> 13"),
        "{found}"
    );
    assert!(found.contains("sum"), "{found}");
    let o = review(&p, &["--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    passes(&p);
    let s =
        std::fs::read_to_string(p.path().join("snapshots/build.main.order_totals.data")).unwrap();
    assert!(s.contains("total,decimal,0,0,0,0,0.20,10.50,17.95,"), "{s}");
}

/// `cargo-golden review <args>` of `p`'s last run, off a terminal.
fn review(p: &Project, args: &[&str]) -> Output {
    let mut c = p.cmd(&[&["review"], args].concat());
    c.stdin(std::process::Stdio::null()).output().unwrap()
}

/// A table output of a file that is not there, or a query the engine
/// refuses, is DATA_CHANGED saying why, never a pass; a DuckDB view that
/// reads a file outside the database is refused by the engine.
#[test]
fn a_missing_database_or_a_refused_query_fails_saying_why() {
    let Some(python) = data_python("duckdb refusals") else {
        return;
    };
    let p = project(
        &python,
        "duckdb",
        r#"{ table = "order_totals", database = "duckdb:elsewhere.duckdb" },
           { query = "SELECT * FROM read_csv('src.json')", database = "duckdb:warehouse.duckdb" },
           { query = "SELECT * FROM no_such_table", database = "duckdb:warehouse.duckdb" }"#,
    );
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let all = text(&o);
    assert!(all.contains("no_such_table"), "{all}");
    assert!(
        all.contains("the case wrote no database file elsewhere.duckdb"),
        "{all}"
    );
    assert!(all.contains("file system operations are disabled"), "{all}");
}

/// `examples/dbt/shop` copied into a scratch project whose case runs
/// real dbt (`dbt build`) and snapshots `order_totals` by model
/// name; None (said) without the dbt virtualenv.
fn dbt_shop(select: &str) -> Option<Project> {
    let venv = common::from_ci("CARGO_GOLDEN_DBT_VENV", ".ci/run sets it", "dbt models")?;
    let p = build_case(
        &format!(
            "'{}' build --profiles-dir . {select}",
            venv.join("bin/dbt").display()
        ),
        r#"{ model = "order_totals", key = ["order_id"] }"#,
    );
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dbt/shop"),
        p.path(),
    );
    Some(p)
}

/// Edit `models/marts/order_totals.sql` of `p`: replace `from` with `to`.
fn edit_model(p: &Project, from: &str, to: &str) {
    let sql = p.path().join("models/marts/order_totals.sql");
    let text = std::fs::read_to_string(&sql).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(&sql, text.replace(from, to)).unwrap();
}

/// A dbt model by name, with nothing configured but the `outputs` line:
/// blessed, green on a rerun, red with a readable diff when its SQL
/// changes a number, drops a row or renames a column, and a run that
/// does not build it fails it as not written by this run.
#[test]
fn a_dbt_model_by_name_is_blessed_and_fails_when_its_sql_changes_the_data() {
    let Some(p) = dbt_shop("") else {
        return;
    };
    let original = std::fs::read_to_string(p.path().join("models/marts/order_totals.sql")).unwrap();
    bless(&p);
    let snapshot = std::fs::read_to_string(p.path().join("snapshots/build.order_totals.data"))
        .expect("the model's snapshot");
    assert!(
        snapshot.contains("1001,1,2024-05-01,shipped,2,21\n"),
        "{snapshot}"
    );
    passes(&p);

    edit_model(
        &p,
        "sum(l.line_amount) as order_total",
        "sum(l.line_amount + case when o.order_id = 1002 then 1 else 0 end) as order_total",
    );
    let found = changed(&p);
    assert!(
        found.contains("changed: order_id=1002 order_total 22.5 -> 23.5"),
        "{found}"
    );
    std::fs::write(p.path().join("models/marts/order_totals.sql"), &original).unwrap();

    edit_model(&p, "group by all", "where o.order_id <> 1003\ngroup by all");
    let found = changed(&p);
    assert!(found.contains("row removed: order_id=1003"), "{found}");
    std::fs::write(p.path().join("models/marts/order_totals.sql"), &original).unwrap();

    edit_model(&p, "as order_total", "as order_amount");
    let found = changed(&p);
    assert!(
        found.contains("column renamed: order_total -> order_amount"),
        "{found}"
    );
    std::fs::write(p.path().join("models/marts/order_totals.sql"), &original).unwrap();
    passes(&p);
}

/// A run that builds other models, not this one, leaves the model's table
/// as an earlier run left it: not this run's output.
#[test]
fn a_dbt_model_this_run_did_not_build_fails_as_not_written_by_this_run() {
    let Some(p) = dbt_shop("") else {
        return;
    };
    bless(&p);
    let harness = std::fs::read_to_string(p.path().join("harness.toml")).unwrap();
    std::fs::write(
        p.path().join("harness.toml"),
        harness.replace("--profiles-dir . ", "--profiles-dir . --select stg_orders"),
    )
    .unwrap();
    let found = changed(&p);
    assert!(
        found.contains(
            "not written by this run: dbt did not build the model `order_totals`: it is not in \
             this run's target/run_results.json"
        ),
        "{found}"
    );
}
