//! Data snapshots compare by type, through the real binary: text as text,
//! integers exactly at any size, a JSON value's own kind, NaN and the
//! infinities as values; an output must be written by this run, a glob's
//! blessed output that goes missing fails, a ragged CSV row is a change,
//! Spark's INT96 timestamps are read at nanoseconds, a Delta table with
//! column mapping by its logical names and one with deletion vectors
//! without its deleted rows (a damaged vector fails it), and a secret in a
//! data output is masked in its snapshot.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{Project, data_findings, data_python, text};
use serde_json::Value;

fn read(p: impl AsRef<Path>) -> String {
    std::fs::read_to_string(p.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", p.as_ref().display()))
}

fn case<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {summary}"))
}

fn issue_types(summary: &Value, name: &str) -> Vec<String> {
    case(summary, name)["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap().to_string())
        .collect()
}

/// The data diff and detail the case's evidence holds of `output`.
fn output_findings(p: &Project, slug: &str, output: &str) -> String {
    let evidence = p.evidence(slug);
    let snapshots = evidence["snapshots"].as_array().unwrap();
    let s = snapshots
        .iter()
        .find(|s| s["output"] == output)
        .unwrap_or_else(|| panic!("no output {output} in {evidence}"));
    format!(
        "{} | {}",
        s["detail"].as_str().unwrap_or(""),
        s["diff"].as_str().unwrap_or("")
    )
}

fn bless(p: &Project) {
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Run `p`, which must fail with DATA_CHANGED on case `name`; the
/// findings of its first case.
fn changed(p: &Project, name: &str) -> String {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        issue_types(&p.summary(), name).contains(&"DATA_CHANGED".to_string()),
        "{}",
        p.summary()
    );
    data_findings(p, &format!("001-{name}"))
}

fn passes(p: &Project) -> Output {
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    o
}

/// A case that copies `src.<ext>` to `out.<ext>`, snapshotted with `extra`
/// keys.
fn copying(ext: &str, extra: &str) -> Project {
    Project::new(&format!(
        r#"
[[verify]]
name = "copy"
command = "cp src.{ext} out.{ext}"
outputs = [{{ path = "out.{ext}"{extra} }}]
"#
    ))
}

#[test]
fn a_text_column_compares_as_text_and_an_integer_exactly_whatever_the_tolerance() {
    let p = copying("csv", r#", key = ["id"], tolerance = { abs = 0.5 }"#);
    p.write(
        "src.csv",
        "id,zip,version,account\n1,02134,1.10,1234567890123456789\n2,10001,2.0,5\n",
    );
    bless(&p);
    let snapshot = read(p.path().join("snapshots/copy.out.csv.data"));
    assert!(
        snapshot.contains("# columns: id:integer, zip:string, version:float, account:integer\n"),
        "{snapshot}"
    );
    // A leading zero dropped from a code is a change.
    p.write(
        "src.csv",
        "id,zip,version,account\n1,2134,1.10,1234567890123456789\n2,10001,2.0,5\n",
    );
    let found = changed(&p, "copy");
    assert!(found.contains("zip"), "{found}");
    // An id that differs in its last digit, far beyond what a float holds.
    p.write(
        "src.csv",
        "id,zip,version,account\n1,02134,1.10,1234567890123456788\n2,10001,2.0,5\n",
    );
    let found = changed(&p, "copy");
    assert!(
        found.contains("changed: id=1 account 1234567890123456789 -> 1234567890123456788"),
        "{found}"
    );
    // A float written another way is the same number.
    p.write(
        "src.csv",
        "id,zip,version,account\n1,02134,1.1,1234567890123456789\n2,10001,2,5\n",
    );
    passes(&p);
}

#[test]
fn json_carries_its_own_types_and_null_is_not_an_empty_string() {
    let p = copying("json", r#", key = ["id"], tolerance = { abs = 1 }"#);
    p.write(
        "src.json",
        r#"[{"id": 1, "amount": 42, "note": null, "big": 1234567890123456789},
            {"id": 2, "amount": 7, "note": "x", "big": 2}]"#,
    );
    bless(&p);
    p.write(
        "src.json",
        r#"[{"id": 1, "amount": "42", "note": "", "big": 1234567890123456789},
            {"id": 2, "amount": 7, "note": "x", "big": 2}]"#,
    );
    let found = changed(&p, "copy");
    assert!(
        found.contains("column retyped: amount integer -> json"),
        "{found}"
    );
    assert!(found.contains("changed: id=1 note null -> \"\""), "{found}");
    p.write(
        "src.json",
        r#"[{"id": 1, "amount": 42, "note": null, "big": 1234567890123456788},
            {"id": 2, "amount": 7, "note": "x", "big": 2}]"#,
    );
    let found = changed(&p, "copy");
    assert!(
        found.contains("changed: id=1 big 1234567890123456789 -> 1234567890123456788"),
        "{found}"
    );
    // The same values, written with other spacing and key order.
    p.write(
        "src.json",
        r#"[{"id":2,"amount":7,"note":"x","big":2},{"note":null,"id":1,"big":1234567890123456789,"amount":42}]"#,
    );
    passes(&p);
}

#[test]
fn a_ragged_csv_row_is_a_change_naming_its_line() {
    let p = copying("csv", r#", key = ["id"]"#);
    p.write("src.csv", "id,name,total\n1,Smith,10\n2,Jones,20\n");
    bless(&p);
    for (csv, line) in [
        (
            "id,name,total\n1,Smith,10,EXTRA\n2,Jones,20\n",
            "line 2 has 4 field(s)",
        ),
        (
            "id,name,total\n1,Smith,10\n2,Jones,20,,,\n",
            "line 3 has 6 field(s)",
        ),
        (
            "id,name,total\n1,Smith\n2,Jones,20\n",
            "line 2 has 2 field(s)",
        ),
    ] {
        p.write("src.csv", csv);
        let found = changed(&p, "copy");
        assert!(
            found.contains(line) && found.contains("where the header has 3"),
            "{found}"
        );
    }
}

#[test]
fn a_summary_counts_nan_and_infinities_whatever_the_tolerance() {
    let p = copying("csv", r#", mode = "summary", tolerance = { abs = 0.001 }"#);
    p.write("src.csv", "id,x\n1,1\n2,0\n3,0\n4,10\n");
    bless(&p);
    p.write("src.csv", "id,x\n1,1\n2,0\n3,NaN\n4,10\n");
    let found = changed(&p, "copy");
    assert!(found.contains("column x: NaN values 0 -> 1"), "{found}");
    p.write("src.csv", "id,x\n1,1\n2,0\n3,-inf\n4,10\n");
    let found = changed(&p, "copy");
    assert!(found.contains("column x: -inf values 0 -> 1"), "{found}");
    // Within the tolerance, a moved number still passes.
    p.write("src.csv", "id,x\n1,1\n2,0.0001\n3,0\n4,10\n");
    passes(&p);
    // A summary blessed before NaN was counted reads as counting none.
    p.write(
        "snapshots/copy.out.csv.data",
        &read(p.path().join("snapshots/copy.out.csv.data"))
            .replace("column,type,nulls,nan,inf,-inf,", "column,type,nulls,")
            .replace(",0,0,0,", ","),
    );
    p.write("src.csv", "id,x\n1,1\n2,0\n3,0\n4,10\n");
    passes(&p);
}

#[test]
fn an_output_this_run_did_not_write_is_not_compared() {
    // The case writes its export unless told not to: the file of the
    // blessed run stays, and is not this run's output.
    let p = Project::new(
        r#"
[[verify]]
name = "export"
command = "test -f skip || cp src.csv export.csv"
outputs = [{ path = "export.csv", key = ["id"] }]
"#,
    );
    p.write("src.csv", "id,v\n1,a\n");
    bless(&p);
    passes(&p);
    p.write("skip", "");
    let found = changed(&p, "export");
    assert!(
        found.contains("export.csv") && found.contains("not written by this run"),
        "{found}"
    );

    // A golden project under `check` whose ignored output stays.
    let p = Project::new(
        r#"
[[golden]]
name = "etl"
path = "project"
isolation = "check"
command = "test -f skip || cp in.csv out/sales.csv"
ignore = ["out/**"]
outputs = [{ path = "out/sales.csv", key = ["region"] }]
"#,
    );
    p.write("project/in.csv", "region,total\nWest,1.5\n");
    p.write("project/out/.keep", "");
    bless(&p);
    p.write("project/skip", "");
    let found = changed(&p, "etl");
    assert!(found.contains("not written by this run"), "{found}");
}

#[test]
fn a_globs_blessed_output_that_is_no_longer_written_fails_and_is_an_orphan() {
    let p = Project::new(
        r#"
[[verify]]
name = "regions"
command = "mkdir -p out && cp east.csv out/east.csv && (test -f no_west || cp west.csv out/west.csv)"
outputs = [{ path = "out/*.csv", key = ["k"] }]
"#,
    );
    p.write("east.csv", "k,v\n1,e\n");
    p.write("west.csv", "k,v\n1,w\n");
    bless(&p);
    let west = p.path().join("snapshots/regions.out.west.csv.data");
    std::fs::remove_dir_all(p.path().join("out")).unwrap();
    p.write("no_west", "");
    let found = changed(&p, "regions");
    assert!(
        found.contains(
            "output missing: out/west.csv (blessed in snapshots/regions.out.west.csv.data)"
        ),
        "{found}"
    );
    let summary = p.summary();
    let message = &case(&summary, "regions")["issues"][0]["message"];
    assert!(
        message
            .as_str()
            .unwrap()
            .contains("data output out/west.csv is missing"),
        "{message}"
    );
    assert!(read(&west).starts_with("# output: out/west.csv\n"));
    // The snapshots command names it.
    let o = p.run(&["snapshots"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(
            "snapshots/regions.out.west.csv.data (its output out/west.csv was not written by the last run)"
        ),
        "{}",
        text(&o)
    );
    // A snapshot blessed before snapshots named their output is matched
    // by its file name.
    let east = p.path().join("snapshots/regions.out.east.csv.data");
    p.write(
        "snapshots/regions.out.west.csv.data",
        &read(&east).replacen("# output: out/east.csv\n", "", 1),
    );
    changed(&p, "regions");
    // Blessing accepts the loss: the snapshot is removed.
    bless(&p);
    assert!(!west.exists());
    passes(&p);
}

#[test]
fn a_secret_in_a_data_output_is_masked_in_its_snapshot_and_diff() {
    let secret = "tok-9f8e7d6c5b4a";
    let p = Project::new(&format!(
        r#"
[harness]
redact_env = ["SHOP_KEY"]

[[verify]]
name = "keys"
command = "printf 'id,key,n\n1,%s,1\n' \"$SHOP_KEY\" > out.csv"
env = {{ SHOP_KEY = "{secret}" }}
outputs = [{{ path = "out.csv", key = ["id"] }}]
"#
    ));
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let snapshot = read(p.path().join("snapshots/keys.out.csv.data"));
    assert!(!snapshot.contains(secret), "{snapshot}");
    assert!(snapshot.contains("1,[REDACTED:SHOP_KEY],1"), "{snapshot}");
    let warnings = case(&p.summary(), "keys")["warnings"].to_string();
    assert!(
        warnings.contains("out.csv holds the value of SHOP_KEY"),
        "{warnings}"
    );
    passes(&p);
    // A snapshot blessed with the value in it compares masked, and says
    // to bless it again; no report shows the value.
    p.write(
        "snapshots/keys.out.csv.data",
        &snapshot
            .replace("[REDACTED:SHOP_KEY]", secret)
            .replace(",1\n", ",2\n"),
    );
    let found = changed(&p, "keys");
    assert!(found.contains("changed: id=1 n 2 -> 1"), "{found}");
    let warnings = case(&p.summary(), "keys")["warnings"].to_string();
    assert!(warnings.contains("re-bless it"), "{warnings}");
    for report in ["summary.json", "report.md", "junit.xml"] {
        assert!(!read(p.out().join(report)).contains(secret), "{report}");
    }
}

/// A case that runs `script` with the data tools' Python, its outputs
/// `outputs`.
fn python_case(python: &Path, script: &str, outputs: &str) -> Project {
    let p = Project::new(&format!(
        r#"
[[verify]]
name = "tables"
command = "'{}' write.py"
outputs = [{outputs}]
"#,
        python.display()
    ));
    p.write("write.py", script);
    p
}

/// Writes `value` (from `value.txt`) as a string column of a Parquet file
/// and Spark's INT96 timestamps from `at.txt`, as pyarrow writes them.
const WRITE_PARQUET: &str = r#"
import pyarrow as pa, pyarrow.parquet as pq, pandas as pd
code = open("value.txt").read().strip()
at = pd.Timestamp(open("at.txt").read().strip(), tz="UTC")
t = pa.table({"id": [1, 2], "code": [code, "x"], "at": pa.array([at, at], pa.timestamp("ns", tz="UTC"))})
pq.write_table(t, "out.parquet", use_deprecated_int96_timestamps=True)
"#;

#[test]
fn parquet_strings_compare_as_text_and_int96_timestamps_at_nanoseconds() {
    let Some(python) = data_python("parquet types") else {
        return;
    };
    let p = python_case(
        &python,
        WRITE_PARQUET,
        r#"{ path = "out.parquet", key = ["id"] }"#,
    );
    p.write("value.txt", "007");
    p.write("at.txt", "2026-01-01T10:00:00");
    bless(&p);
    let snapshot = read(p.path().join("snapshots/tables.out.parquet.data"));
    assert!(
        snapshot.contains(
            "# columns: id:integer, code:string, at:string\n1,007,2026-01-01T10:00:00Z\n"
        ),
        "{snapshot}"
    );
    p.write("value.txt", "7");
    let found = changed(&p, "tables");
    assert!(found.contains("changed: id=1 code 007 -> 7"), "{found}");
    p.write("value.txt", "007");
    p.write("at.txt", "2026-01-01T10:00:00.000400");
    let found = changed(&p, "tables");
    assert!(
        found.contains("changed: id=1 at 2026-01-01T10:00:00Z -> 2026-01-01T10:00:00.000400Z"),
        "{found}"
    );
}

/// Writes the floats of `x.txt` (one a line, `nan` for NaN) as a Parquet
/// double column.
const WRITE_FLOATS: &str = r#"
import pyarrow as pa, pyarrow.parquet as pq
xs = [float(l) for l in open("x.txt").read().split()]
pq.write_table(pa.table({"x": pa.array(xs, pa.float64())}), "out.parquet")
"#;

#[test]
fn a_parquet_summary_under_a_tolerance_still_sees_a_value_become_nan() {
    let Some(python) = data_python("parquet summary NaN") else {
        return;
    };
    let p = python_case(
        &python,
        WRITE_FLOATS,
        r#"{ path = "out.parquet", mode = "summary", tolerance = { abs = 0.001 } }"#,
    );
    p.write("x.txt", "1\n0\n0\n10\n");
    bless(&p);
    p.write("x.txt", "1\n0\nnan\n10\n");
    let found = changed(&p, "tables");
    assert!(found.contains("column x: NaN values 0 -> 1"), "{found}");
}

/// Writes `src.csv` as a Delta table with column mapping by name, as
/// Spark and Databricks do, partitioned by region: a new table each run.
const WRITE_MAPPED_DELTA: &str = r#"
import shutil
import pandas as pd
from deltalake import write_deltalake
shutil.rmtree("mapped", ignore_errors=True)
df = pd.read_csv("src.csv")
write_deltalake("mapped", df, partition_by=["region"],
                configuration={"delta.columnMapping.mode": "name"})
"#;

#[test]
fn a_delta_table_with_column_mapping_reads_by_its_logical_names() {
    let Some(python) = data_python("delta column mapping") else {
        return;
    };
    let p = python_case(
        &python,
        WRITE_MAPPED_DELTA,
        r#"{ path = "mapped", format = "delta", key = ["id"] }"#,
    );
    p.write("src.csv", "id,region,total\n1,East,1.5\n2,West,2.5\n");
    bless(&p);
    let log = read(p.path().join("mapped/_delta_log/00000000000000000000.json"));
    assert!(log.contains("delta.columnMapping.physicalName"), "{log}");
    let snapshot = read(p.path().join("snapshots/tables.mapped.data"));
    assert!(
        snapshot.contains("# columns: ") && !snapshot.contains("col-"),
        "{snapshot}"
    );
    assert!(
        snapshot.contains("1,East,1.5\n") || snapshot.contains("1,1.5,East\n"),
        "{snapshot}"
    );
    // The same data written again (new physical names) is the same table.
    passes(&p);
    p.write("src.csv", "id,region,total\n1,East,1.5\n2,West,3.5\n");
    let found = changed(&p, "tables");
    assert!(found.contains("changed: id=2 total 2.5 -> 3.5"), "{found}");
}

#[test]
fn two_changed_outputs_are_labelled_each_in_the_terminal() {
    let p = Project::new(
        r#"
[[verify]]
name = "two"
command = "cp a.src a.csv && cp b.src b.csv"
outputs = [{ path = "a.csv", key = ["k"] }, { path = "b.csv", key = ["k"] }]
"#,
    );
    p.write("a.src", "k,v\n1,x\n2,y\n");
    p.write("b.src", "k,total\n1,5\n");
    bless(&p);
    p.write("a.src", "k,v\n1,x\n");
    p.write("b.src", "k,sum\n1,5\n");
    let o = p.run(&[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let a = err
        .find("data: a.csv (snapshots/two.a.csv.data)")
        .expect(&err);
    let b = err
        .find("data: b.csv (snapshots/two.b.csv.data)")
        .expect(&err);
    let removed = err.find("row removed: k=2").expect(&err);
    let renamed = err.find("column renamed: total -> sum").expect(&err);
    assert!(a < removed && removed < b && b < renamed, "{err}");
}

/// Writes the Delta table `t` that `dv.json` describes, with deletion
/// vectors as Spark and Databricks write them; deltalake writes the
/// table (deletion vectors enabled: reader 3, writer 7, the
/// `deletionVectors` feature) but not the vectors, so its later commits
/// are written here, per the Delta protocol. `rows` rows in each of
/// `files` data files (row `r` of file `k` has id `k * rows + r`), in row
/// groups of `row_group`; each entry of `deletes` a DELETE commit: for
/// each file, every row its vector deletes (none: the file is left
/// alone). Each commit adds the file again with its new vector and
/// removes it with its old one (`(path, vector)` is the logical file),
/// the vectors `storage` `i` (inline, Z85) or `u` (all of a commit in one
/// `<prefix>/deletion_vector_<uuid>.bin`: a version byte, then each
/// vector's size, bytes and CRC-32). `checkpoint`: deltalake writes one
/// at the end. `keep`: the data files of the last run are kept and only
/// the deletes written again. `damage`: `checksum`, `cardinality`, `fifo`
/// or `missing` spoils the last vector. Then deltalake reads the table
/// back: it must read the rows left (it refuses a bad checksum too).
const WRITE_DV_DELTA: &str = r#"
import glob, json, os, shutil, struct, time, uuid, zlib
import pyarrow as pa
from deltalake import DeltaTable, WriterProperties, write_deltalake
from pyroaring import BitMap64

Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
MAGIC = struct.pack("<I", 1681511377)

def z85(data):
    data += bytes(-len(data) % 4)
    out = ""
    for i in range(0, len(data), 4):
        n = int.from_bytes(data[i:i + 4], "big")
        out += "".join(Z85[n // 85 ** k % 85] for k in range(4, -1, -1))
    return out

spec = json.load(open("dv.json"))
rows, files, damage = spec["rows"], spec.get("files", 1), spec.get("damage")
log = "t/_delta_log"
if spec.get("keep"):
    for name in os.listdir(log):
        if not any(name.startswith(f"{v:020}.json") for v in range(files)):
            os.remove(os.path.join(log, name))
    for name in glob.glob("t/**/deletion_vector_*.bin", recursive=True):
        os.remove(name)
else:
    shutil.rmtree("t", ignore_errors=True)
    props = WriterProperties(max_row_group_size=spec.get("row_group", rows))
    for k in range(files):
        ids = list(range(k * rows, (k + 1) * rows))
        data = pa.table({"id": pa.array(ids, pa.int64()), "v": [f"r{i}" for i in ids]})
        config = {"delta.enableDeletionVectors": "true"} if k == 0 else None
        write_deltalake("t", data, mode="append", configuration=config, writer_properties=props)
adds = [json.loads(line)["add"] for v in range(files)
        for line in open(f"{log}/{v:020}.json") if line.startswith('{"add"')]
assert len(adds) == files, adds
live = [None] * files
deleted = [[] for _ in range(files)]
for version, deletes in enumerate(spec["deletes"], start=files):
    now = int(time.time() * 1000)
    actions = [{"commitInfo": {"timestamp": now, "operation": "DELETE"}}]
    blob, name = b"\x01", None
    for k, rows_deleted in enumerate(deletes):
        if not rows_deleted:
            continue
        bitmap = BitMap64(rows_deleted)
        bitmap.run_optimize()
        data = MAGIC + bitmap.serialize()
        cardinality = len(bitmap) + (damage == "cardinality")
        if spec["storage"] == "i":
            dv = {"storageType": "i", "pathOrInlineDv": z85(data),
                  "sizeInBytes": len(data), "cardinality": cardinality}
        else:
            if name is None:
                u = uuid.uuid4()
                prefix = spec.get("prefix", "")
                name = os.path.join("t", prefix, f"deletion_vector_{u}.bin")
            dv = {"storageType": "u", "pathOrInlineDv": prefix + z85(u.bytes),
                  "offset": len(blob), "sizeInBytes": len(data), "cardinality": cardinality}
            crc = zlib.crc32(data) ^ (damage == "checksum")
            blob += struct.pack(">I", len(data)) + data + struct.pack(">I", crc)
        add = adds[k]
        remove = {"path": add["path"], "deletionTimestamp": now, "dataChange": True,
                  "extendedFileMetadata": True, "partitionValues": add["partitionValues"],
                  "size": add["size"]}
        if live[k]:
            remove["deletionVector"] = live[k]
        actions += [{"add": dict(add, modificationTime=now, deletionVector=dv)}, {"remove": remove}]
        live[k], deleted[k] = dv, rows_deleted
    if name:
        os.makedirs(os.path.dirname(name), exist_ok=True)
        with open(name, "wb") as f:
            f.write(blob)
    with open(f"{log}/{version:020}.json", "w") as f:
        f.write("".join(json.dumps(a) + "\n" for a in actions))
if spec.get("checkpoint"):
    DeltaTable("t").create_checkpoint()
if damage in ("fifo", "missing"):
    os.remove(name)
    if damage == "fifo":
        os.mkfifo(name)
elif damage == "checksum":
    try:
        DeltaTable("t").scan().read_all()
    except Exception as e:
        assert "checksum" in str(e), e
    else:
        raise AssertionError("deltalake read a vector whose checksum is wrong")
else:
    got = sorted(pa.table(DeltaTable("t").scan(columns=["id"]).read_all()).column("id").to_pylist())
    gone = {k * rows + r for k, d in enumerate(deleted) for r in d}
    assert got == [i for i in range(files * rows) if i not in gone], "deltalake reads other rows"
print(json.dumps(live))
"#;

/// A case whose command writes the Delta table `t` of [`WRITE_DV_DELTA`]
/// from `dv.json`.
fn dv_case(python: &Path) -> Project {
    python_case(
        python,
        WRITE_DV_DELTA,
        r#"{ path = "t", format = "delta", key = ["id"] }"#,
    )
}

/// The sha256 the evidence records of the case's first output.
fn output_sha(p: &Project) -> String {
    p.evidence("001-tables")["snapshots"][0]["sha256"]
        .as_str()
        .unwrap_or_else(|| panic!("no sha256 in {}", p.evidence("001-tables")))
        .to_string()
}

#[test]
fn a_delta_table_with_an_inline_deletion_vector_reads_without_its_deleted_rows() {
    let Some(python) = data_python("delta inline deletion vector") else {
        return;
    };
    let p = dv_case(&python);
    p.write(
        "dv.json",
        r#"{"rows": 3, "storage": "i", "deletes": [[[1]]]}"#,
    );
    bless(&p);
    let log = read(p.path().join("t/_delta_log/00000000000000000001.json"));
    assert!(log.contains(r#""storageType": "i""#), "{log}");
    let snapshot = read(p.path().join("snapshots/tables.t.data"));
    assert!(
        snapshot.ends_with("# columns: id:integer, v:string\n0,r0\n2,r2\n"),
        "{snapshot}"
    );
    // Written again, the same table passes; so does the same vector
    // written again over the same data file, with the same evidence.
    passes(&p);
    p.write(
        "dv.json",
        r#"{"rows": 3, "storage": "i", "deletes": [[[1]]], "keep": true}"#,
    );
    passes(&p);
    let kept = output_sha(&p);
    passes(&p);
    assert_eq!(output_sha(&p), kept);
    // Another row deleted from the same file is a change, and changes
    // the evidence of the table though its data file is the same.
    p.write(
        "dv.json",
        r#"{"rows": 3, "storage": "i", "deletes": [[[2]]], "keep": true}"#,
    );
    let found = changed(&p, "tables");
    assert!(
        found.contains("row removed: id=2") && found.contains("row added: id=1"),
        "{found}"
    );
    assert_ne!(output_sha(&p), kept);
}

#[test]
fn deletion_vector_files_replace_each_other_and_are_read_from_a_checkpoint() {
    let Some(python) = data_python("delta deletion vector files") else {
        return;
    };
    let p = dv_case(&python);
    // Two files of 10,000 rows in row groups of 1,000. A first DELETE
    // marks row 1 of the first; a second replaces its vector (rows 1-3
    // and a run of 1,000 rows across row groups) and gives the second
    // file one of every other row (a Roaring bitmap container), both
    // vectors in one file under a random prefix. Then a checkpoint.
    let first: Vec<u64> = [1, 2, 3].into_iter().chain(5500..6500).collect();
    let evens: Vec<u64> = (0..10_000).step_by(2).collect();
    let spec = serde_json::json!({
        "rows": 10_000, "files": 2, "row_group": 1000, "storage": "u", "prefix": "xy",
        "deletes": [[[1], []], [first, evens]], "checkpoint": true,
    });
    p.write("dv.json", &spec.to_string());
    bless(&p);
    let log = p.path().join("t/_delta_log");
    assert!(
        log.join("00000000000000000003.checkpoint.parquet")
            .is_file()
    );
    let vectors: Vec<_> = std::fs::read_dir(p.path().join("t/xy"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(vectors.len(), 2, "{vectors:?}");
    let snapshot = read(p.path().join("snapshots/tables.t.data"));
    let rows: Vec<&str> = snapshot.lines().skip(2).collect();
    assert_eq!(rows.len(), 20_000 - 1003 - 5000, "{}", &snapshot[..200]);
    for gone in [
        "1,r1",
        "2,r2",
        "3,r3",
        "5500,r5500",
        "6499,r6499",
        "10000,r10000",
    ] {
        assert!(!rows.contains(&gone), "{gone}");
    }
    for kept in [
        "0,r0",
        "4,r4",
        "5499,r5499",
        "6500,r6500",
        "10001,r10001",
        "19999,r19999",
    ] {
        assert!(rows.contains(&kept), "{kept}");
    }
    // The same table written again (new files, new vectors) passes.
    passes(&p);
}

#[test]
fn a_deletion_vector_that_is_damaged_or_disagrees_with_the_log_fails_the_output() {
    let Some(python) = data_python("delta damaged deletion vectors") else {
        return;
    };
    let p = dv_case(&python);
    let spec = |damage: &str| {
        format!(r#"{{"rows": 3, "storage": "u", "deletes": [[[1]]], "damage": {damage}}}"#)
    };
    p.write("dv.json", &spec("null"));
    bless(&p);
    for (damage, reason) in [
        ("checksum", "fails its checksum"),
        (
            "cardinality",
            "deletes 1 of its 3 rows, where its cardinality says 2",
        ),
        ("missing", "No such file"),
        ("fifo", "not a regular file"),
    ] {
        p.write("dv.json", &spec(&format!("\"{damage}\"")));
        let found = changed(&p, "tables");
        assert!(
            found.contains("output not read: t: part-"),
            "{damage}: {found}"
        );
        assert!(found.contains(reason), "{damage}: {found}");
        if damage != "cardinality" {
            assert!(found.contains("deletion_vector_"), "{damage}: {found}");
        }
    }
}

/// Run `--bless` on `p`, which must refuse its output: exit 1, no
/// snapshot `snapshot` written; the run's text.
fn bless_refused(p: &Project, snapshot: &str) -> String {
    let o = p.run(&["--bless"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        !p.path().join(snapshot).exists(),
        "{}",
        read(p.path().join(snapshot))
    );
    text(&o)
}

#[test]
fn duplicate_column_names_are_refused_naming_them_in_bless_and_in_a_run() {
    let p = copying("csv", r#", key = ["id"]"#);
    p.write("src.csv", "id,amount,amount\n1,10,20\n2,30,40\n");
    let said = bless_refused(&p, "snapshots/copy.out.csv.data");
    assert!(
        said.contains("out.csv: the column name `amount` is used by columns 2 and 3"),
        "{said}"
    );
    // A snapshot blessed before names were checked: the run fails naming
    // them, never with phantom cell changes.
    p.write(
        "snapshots/copy.out.csv.data",
        "# output: out.csv\n# columns: id:integer, amount:integer, amount:integer\n1,10,20\n2,30,40\n",
    );
    let found = changed(&p, "copy");
    assert!(
        found.contains(
            "output not read: out.csv: the column name `amount` is used by columns 2 and 3"
        ),
        "{found}"
    );
    assert!(!found.contains("changed:"), "{found}");
    // An ignored column named twice is left out, both times.
    let p = copying("csv", r#", key = ["id"], ignore = ["amount"]"#);
    p.write("src.csv", "id,amount,amount\n1,10,20\n2,30,40\n");
    bless(&p);
    passes(&p);
}

/// Writes a Parquet file whose schema names `amount` twice, as pyarrow
/// writes one.
const WRITE_DUPLICATE_PARQUET: &str = r#"
import pyarrow as pa, pyarrow.parquet as pq
t = pa.table([pa.array([1, 2]), pa.array([10, 30]), pa.array([20, 40])], names=["id", "amount", "amount"])
pq.write_table(t, "out.parquet")
"#;

#[test]
fn a_parquet_schema_naming_a_column_twice_is_refused_naming_it() {
    let Some(python) = data_python("parquet duplicate columns") else {
        return;
    };
    for mode in ["rows", "summary"] {
        let key = if mode == "rows" {
            r#", key = ["id"]"#
        } else {
            ""
        };
        let p = python_case(
            &python,
            WRITE_DUPLICATE_PARQUET,
            &format!(r#"{{ path = "out.parquet", mode = "{mode}"{key} }}"#),
        );
        let said = bless_refused(&p, "snapshots/tables.out.parquet.data");
        assert!(
            said.contains("out.parquet: the column name `amount` is used by columns 2 and 3"),
            "{mode}: {said}"
        );
        let found = changed(&p, "tables");
        assert!(
            found.contains("output not read: out.parquet: the column name `amount`"),
            "{mode}: {found}"
        );
    }
}

/// Rows of `id,x,big` (`x` and `big` float columns: `big` holds 1.5 too)
/// with row 1's values.
fn exact_csv(x: &str, big: &str) -> String {
    format!("id,x,big\n1,{x},{big}\n2,0.5,1.5\n")
}

#[test]
fn without_a_tolerance_csv_numbers_compare_exactly_as_decimals() {
    for (mode, extra) in [
        ("rows", r#", key = ["id"]"#),
        ("summary", r#", mode = "summary""#),
    ] {
        let p = copying("csv", extra);
        p.write(
            "src.csv",
            &exact_csv("1.000000000000000001", "9007199254740993"),
        );
        bless(&p);
        if mode == "rows" {
            // The same numbers written another way are the same numbers (a
            // summary's checksum is of the text).
            p.write(
                "src.csv",
                &exact_csv("1.0000000000000000010", "9.007199254740993e15"),
            );
            passes(&p);
        }
        p.write(
            "src.csv",
            &exact_csv("1.000000000000000002", "9007199254740992"),
        );
        let found = changed(&p, "copy");
        let expected: &[&str] = if mode == "rows" {
            &[
                "changed: id=1 x 1.000000000000000001 -> 1.000000000000000002",
                "changed: id=1 big 9007199254740993 -> 9007199254740992",
            ]
        } else {
            &[
                "column x: max 1.000000000000000001 -> 1.000000000000000002",
                "column x: sum 1.500000000000000001 -> 1.500000000000000002",
                "column big: max 9007199254740993 -> 9007199254740992",
                "column big: sum 9007199254740994.5 -> 9007199254740993.5",
            ]
        };
        for line in expected {
            assert!(found.contains(line), "{mode}: {line} in {found}");
        }
        // A tolerance that covers the difference passes it.
        let p = copying("csv", &format!("{extra}, tolerance = {{ abs = 1 }}"));
        p.write(
            "src.csv",
            &exact_csv("1.000000000000000001", "9007199254740993"),
        );
        bless(&p);
        p.write(
            "src.csv",
            &exact_csv("1.000000000000000002", "9007199254740992"),
        );
        passes(&p);
    }
}

/// A JSON array of two rows, row 1's float `x`, `big` (a float column:
/// row 2 holds 1.5) and a nested value holding the numbers `n`.
fn exact_json(x: &str, big: &str, n: &str) -> String {
    format!(
        r#"[{{"id": 1, "x": {x}, "big": {big}, "nested": {{"n": [{n}]}}}},
            {{"id": 2, "x": 0.5, "big": 1.5, "nested": {{"x": 1.50, "n": [1E2]}}}}]"#
    )
}

#[test]
fn without_a_tolerance_json_numbers_compare_exactly_as_decimals() {
    const X: &str = "1.000000000000000001";
    const BIG: &str = "9007199254740993";
    const N: &str = "1.000000000000000001, 123456789012345678901234567890";
    for (mode, extra) in [
        ("rows", r#", key = ["id"]"#),
        ("summary", r#", mode = "summary""#),
    ] {
        let p = copying("json", extra);
        p.write("src.json", &exact_json(X, BIG, N));
        bless(&p);
        if mode == "rows" {
            // A nested value keeps its numbers as written, exactly; one
            // a double holds is written as before.
            let snapshot = read(p.path().join("snapshots/copy.out.json.data"));
            assert!(
                snapshot
                    .contains(r#""{""n"":[1.000000000000000001,123456789012345678901234567890]}""#)
                    && snapshot.contains(r#""{""x"":1.5,""n"":[100.0]}""#),
                "{snapshot}"
            );
        }
        p.write(
            "src.json",
            &exact_json("1.000000000000000002", "9007199254740992", N),
        );
        let found = changed(&p, "copy");
        let expected: &[&str] = if mode == "rows" {
            &[
                "changed: id=1 x 1.000000000000000001 -> 1.000000000000000002",
                "changed: id=1 big 9007199254740993 -> 9007199254740992",
            ]
        } else {
            &[
                "column x: max 1.000000000000000001 -> 1.000000000000000002",
                "column big: max 9007199254740993 -> 9007199254740992",
            ]
        };
        for line in expected {
            assert!(found.contains(line), "{mode}: {line} in {found}");
        }
        // Numbers a double does not hold, in a nested value.
        for n in [
            "1.000000000000000002, 123456789012345678901234567890",
            "1.000000000000000001, 123456789012345678901234567891",
        ] {
            p.write("src.json", &exact_json(X, BIG, n));
            let found = changed(&p, "copy");
            let line = if mode == "rows" {
                format!(
                    r#"changed: id=1 nested {{"n":[{}]}} -> {{"n":[{}]}}"#,
                    N.replace(' ', ""),
                    n.replace(' ', "")
                )
            } else {
                "column nested: values changed".to_string()
            };
            assert!(found.contains(&line), "{mode}: {line} in {found}");
        }
        p.write("src.json", &exact_json(X, BIG, N));
        passes(&p);
        // A tolerance covers the numbers of float columns.
        let p = copying("json", &format!("{extra}, tolerance = {{ abs = 1 }}"));
        p.write("src.json", &exact_json(X, BIG, N));
        bless(&p);
        p.write(
            "src.json",
            &exact_json("1.000000000000000002", "9007199254740992", N),
        );
        passes(&p);
    }
}

/// Writes `v.json`'s row 1 (an int64 `n`, a decimal128(38, 18) `d` and a
/// float64 `x` given as hex) as a Parquet file and a Delta table.
const WRITE_EXACT: &str = r#"
import decimal, json, shutil
import pyarrow as pa, pyarrow.parquet as pq
from deltalake import write_deltalake
v = json.load(open("v.json"))
t = pa.table({
    "id": pa.array([1, 2], pa.int64()),
    "n": pa.array([v["n"], 5], pa.int64()),
    "d": pa.array([decimal.Decimal(v["d"]), decimal.Decimal("0.5")], pa.decimal128(38, 18)),
    "x": pa.array([float.fromhex(v["x"]), 0.5], pa.float64()),
})
pq.write_table(t, "out.parquet")
shutil.rmtree("t", ignore_errors=True)
write_deltalake("t", t)
"#;

#[test]
fn without_a_tolerance_parquet_and_delta_numbers_compare_exactly() {
    let Some(python) = data_python("parquet exact numbers") else {
        return;
    };
    let v = |n: u64, d: &str, x: &str| format!(r#"{{"n": {n}, "d": "{d}", "x": "{x}"}}"#);
    let blessed = v(
        9007199254740993,
        "12345678901234567890.123456789012345678",
        // 0.1 and the double after it.
        "0x1.999999999999ap-4",
    );
    let moved = v(
        9007199254740992,
        "12345678901234567890.123456789012345679",
        "0x1.999999999999bp-4",
    );
    for (mode, extra) in [
        ("rows", r#", key = ["id"]"#),
        ("summary", r#", mode = "summary""#),
    ] {
        let outputs = format!(
            r#"{{ path = "out.parquet"{extra} }}, {{ path = "t", format = "delta"{extra} }}"#
        );
        let p = python_case(&python, WRITE_EXACT, &outputs);
        p.write("v.json", &blessed);
        bless(&p);
        passes(&p);
        p.write("v.json", &moved);
        let found = changed(&p, "tables");
        let expected: &[&str] = if mode == "rows" {
            &[
                "changed: id=1 n 9007199254740993 -> 9007199254740992",
                "changed: id=1 d 12345678901234567890.123456789012345678 -> 12345678901234567890.123456789012345679",
                "changed: id=1 x 0.1 -> 0.10000000000000002",
            ]
        } else {
            &[
                "column n: max 9007199254740993 -> 9007199254740992",
                "column d: max 12345678901234567890.123456789012345678 -> 12345678901234567890.123456789012345679",
                "column d: sum 12345678901234567890.623456789012345678 -> 12345678901234567890.623456789012345679",
                "column x: min 0.1 -> 0.10000000000000002",
            ]
        };
        for output in ["out.parquet", "t"] {
            let of_output = output_findings(&p, "001-tables", output);
            for line in expected {
                assert!(
                    of_output.contains(line),
                    "{mode} {output}: {line} in {found}"
                );
            }
        }
        // A tolerance covers the float; integers and decimals are exact
        // whatever the tolerance.
        let tolerant = format!("{extra}, tolerance = {{ abs = 1 }}");
        let p = python_case(
            &python,
            WRITE_EXACT,
            &format!(r#"{{ path = "out.parquet"{tolerant} }}"#),
        );
        p.write("v.json", &blessed);
        bless(&p);
        p.write(
            "v.json",
            &v(
                9007199254740993,
                "12345678901234567890.123456789012345678",
                "0x1.999999999999bp-4",
            ),
        );
        passes(&p);
        p.write("v.json", &moved);
        let found = changed(&p, "tables");
        assert!(
            found.contains(" n ") || found.contains("column n:"),
            "{mode}: {found}"
        );
        assert!(
            found.contains(" d ") || found.contains("column d:"),
            "{mode}: {found}"
        );
    }
}
