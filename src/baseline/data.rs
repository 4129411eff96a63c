//! Data snapshots: a case's `outputs` (CSV, JSON, JSONL, Parquet files and
//! Delta tables it writes) compared with `snapshots/<stem>.<path>.data`
//! beside the harness file.
//!
//! A snapshot is a canonical text form git diffs well: a schema line
//! (`# columns: region:string, total:float`), then the rows as CSV,
//! ignored columns left out, sorted by the key (else by the whole row).
//! The comparison reads the schema (names and types: a renamed or retyped
//! column is a change), the row count, and the rows matched by key, numbers
//! within the tolerance `|now - snapshot| <= abs + rel * |snapshot|`. A
//! difference is a `DATA_CHANGED` issue whose diff lists the first
//! [`MAX_DIFF_ITEMS`] differences, one a line.
//!
//! The files are read as the case ends (under `copy`, from the copy before
//! it is removed, see [`read_outputs`]); the comparison (or bless) happens
//! with the stream snapshots ([`super::Snapshots::apply_data`]).

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::path::Path;

use crate::config::OutputSpec;
use crate::model::DataFormat;

mod delta;
mod parquet_file;

/// Differences listed in a diff; the rest are counted.
const MAX_DIFF_ITEMS: usize = 20;
/// The first line of a data snapshot, before the schema.
const SCHEMA_PREFIX: &str = "# columns: ";

/// One data file read after a case, not yet compared.
#[derive(Debug)]
pub(crate) struct OutputRead {
    /// Index of its entry in the case's `outputs`.
    pub spec: usize,
    /// The file relative to the working dir (the pattern when nothing
    /// matched it).
    pub rel: String,
    /// The table and the file's sha256, or why there is none.
    pub data: Result<(Table, String), String>,
}

/// The type of a column, inferred from its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColType {
    /// Every value is null (empty).
    Null,
    /// `true` / `false`.
    Bool,
    /// Whole numbers.
    Integer,
    /// Numbers.
    Float,
    /// Anything else.
    String,
}

impl ColType {
    fn as_str(self) -> &'static str {
        match self {
            ColType::Null => "null",
            ColType::Bool => "bool",
            ColType::Integer => "integer",
            ColType::Float => "float",
            ColType::String => "string",
        }
    }

    fn parse(s: &str) -> Option<ColType> {
        [
            ColType::Null,
            ColType::Bool,
            ColType::Integer,
            ColType::Float,
            ColType::String,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }

    fn numeric(self) -> bool {
        matches!(self, ColType::Integer | ColType::Float)
    }
}

/// A table: named, typed columns and rows of cells (None: null).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Table {
    pub columns: Vec<(String, ColType)>,
    pub rows: Vec<Vec<Option<String>>>,
}

/// Read the files of `specs` under `working_dir`: each file a glob
/// matches is one output; a pattern that matches nothing is one output
/// that failed to read.
pub(crate) fn read_outputs(specs: &[OutputSpec], working_dir: &Path) -> Vec<OutputRead> {
    let mut out = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let files = matching(&spec.path, spec.format, working_dir);
        if files.is_empty() {
            out.push(OutputRead {
                spec: i,
                rel: spec.path.clone(),
                data: Err("the case wrote no such file".into()),
            });
        }
        for rel in files {
            let data = read_table(&working_dir.join(&rel), spec);
            out.push(OutputRead { spec: i, rel, data });
        }
    }
    out
}

/// The files (relative, `/`-separated, sorted) `pattern` names; for a
/// Delta table, the directories with a `_delta_log`.
fn matching(pattern: &str, format: DataFormat, working_dir: &Path) -> Vec<String> {
    let is_glob = |s: &str| s.contains(['*', '?', '[', '{']);
    let wanted = |path: &Path, is_file: bool| match format {
        DataFormat::Delta => path.join(delta::LOG_DIR).is_dir(),
        _ => is_file,
    };
    if !is_glob(pattern) {
        let path = working_dir.join(pattern);
        return if wanted(&path, path.is_file()) {
            vec![pattern.to_string()]
        } else {
            Vec::new()
        };
    }
    let Ok(glob) = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    else {
        return Vec::new();
    };
    let matcher = glob.compile_matcher();
    // Walk from the literal directories before the first glob part only.
    let base: Vec<&str> = pattern
        .split('/')
        .take_while(|part| !is_glob(part))
        .collect();
    let base = base.join("/");
    let mut found: Vec<String> = walkdir::WalkDir::new(working_dir.join(&base))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| wanted(e.path(), e.file_type().is_file()))
        .filter_map(|e| {
            let rel = e.path().strip_prefix(working_dir).ok()?;
            let rel = rel.to_string_lossy().replace('\\', "/");
            matcher.is_match(&rel).then_some(rel)
        })
        .collect();
    found.sort();
    found
}

/// The file at `path` as a canonical table (ignored columns out, types
/// inferred or, for Parquet and Delta, from the schema, rows sorted), with
/// its sha256 (of a Delta table: of its live files, named).
fn read_table(path: &Path, spec: &OutputSpec) -> Result<(Table, String), String> {
    if spec.format == DataFormat::Delta {
        let (table, sha) = delta::read(path)?;
        return Ok((
            canonical(table.names, table.rows, Some(table.types), spec),
            sha,
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let sha = crate::hash::sha256_hex(&bytes);
    let (names, rows) = match spec.format {
        DataFormat::Csv => parse_csv(&bytes)?,
        DataFormat::Json => {
            let value: serde_json::Value =
                serde_json::from_slice(&bytes).map_err(|e| format!("not JSON: {e}"))?;
            let serde_json::Value::Array(items) = value else {
                return Err("not a JSON array of objects".into());
            };
            objects(items.into_iter().map(Ok))?
        }
        DataFormat::Jsonl => {
            let text = String::from_utf8_lossy(&bytes);
            objects(
                text.lines()
                    .enumerate()
                    .filter(|(_, l)| !l.trim().is_empty())
                    .map(|(n, l)| {
                        serde_json::from_str(l)
                            .map_err(|e| format!("line {}: not JSON: {e}", n + 1))
                    }),
            )?
        }
        DataFormat::Parquet | DataFormat::Delta => {
            let table = parquet_file::read(bytes)?;
            return Ok((
                canonical(table.names, table.rows, Some(table.types), spec),
                sha,
            ));
        }
    };
    Ok((canonical(names, rows, None, spec), sha))
}

pub(crate) type Rows = Vec<Vec<Option<String>>>;

/// A table read with its column types (Parquet, Delta), not yet canonical.
#[derive(Debug, Default)]
pub(crate) struct Typed {
    pub names: Vec<String>,
    pub types: Vec<ColType>,
    pub rows: Rows,
}

fn parse_csv(bytes: &[u8]) -> Result<(Vec<String>, Rows), String> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let names: Vec<String> = reader
        .headers()
        .map_err(|e| format!("not CSV: {e}"))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("not CSV: {e}"))?;
        let mut row: Vec<Option<String>> = record.iter().map(cell).collect();
        row.resize(names.len(), None);
        rows.push(row);
    }
    Ok((names, rows))
}

/// A text cell: empty is null.
fn cell(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// Rows from JSON objects; columns in the order keys first appear.
fn objects(
    items: impl Iterator<Item = Result<serde_json::Value, String>>,
) -> Result<(Vec<String>, Rows), String> {
    let mut names: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut rows: Vec<Vec<Option<String>>> = Vec::new();
    for item in items {
        let serde_json::Value::Object(map) = item? else {
            return Err("a row is not a JSON object".into());
        };
        let mut row = vec![None; names.len()];
        for (k, v) in map {
            let i = *index.entry(k.clone()).or_insert_with(|| {
                names.push(k);
                names.len() - 1
            });
            if row.len() <= i {
                row.resize(i + 1, None);
            }
            row[i] = match v {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => cell(&s),
                other => Some(other.to_string()),
            };
        }
        rows.push(row);
    }
    for row in &mut rows {
        row.resize(names.len(), None);
    }
    Ok((names, rows))
}

fn is_number(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit()) && s.parse::<f64>().is_ok_and(f64::is_finite)
}

fn infer<'a>(values: impl Iterator<Item = Option<&'a str>>) -> ColType {
    let mut ty = ColType::Null;
    for v in values.flatten() {
        // Once a column is text, nothing makes it anything else.
        if ty == ColType::String {
            break;
        }
        let this = if v.parse::<i64>().is_ok() {
            ColType::Integer
        } else if is_number(v) {
            ColType::Float
        } else if v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false") {
            ColType::Bool
        } else {
            ColType::String
        };
        ty = match (ty, this) {
            (ColType::Null, t) => t,
            (a, b) if a == b => a,
            (a, b) if a.numeric() && b.numeric() => ColType::Float,
            _ => ColType::String,
        };
    }
    ty
}

/// Drop the ignored columns, infer the types (unless `types` gives them),
/// sort the rows.
fn canonical(
    names: Vec<String>,
    rows: Rows,
    types: Option<Vec<ColType>>,
    spec: &OutputSpec,
) -> Table {
    let keep: Vec<usize> = (0..names.len())
        .filter(|&i| !spec.ignore.contains(&names[i]))
        .collect();
    let rows: Rows = rows
        .into_iter()
        .map(|mut r| keep.iter().map(|&i| r[i].take()).collect())
        .collect();
    let columns = keep
        .iter()
        .enumerate()
        .map(|(j, &i)| {
            let ty = match &types {
                Some(types) => types[i],
                None => infer(rows.iter().map(|r| r[j].as_deref())),
            };
            (names[i].clone(), ty)
        })
        .collect();
    let mut table = Table { columns, rows };
    sort(&mut table, &spec.key);
    table
}

/// Sort rows by the key columns (numbers as numbers), then whole.
fn sort(table: &mut Table, key: &[String]) {
    let key: Vec<usize> = key
        .iter()
        .filter_map(|k| table.columns.iter().position(|(n, _)| n == k))
        .collect();
    let numeric: Vec<bool> = table.columns.iter().map(|(_, t)| t.numeric()).collect();
    let cmp_cell = |i: usize, a: &Option<String>, b: &Option<String>| cmp_cells(numeric[i], a, b);
    let cmp_rows = |a: &Vec<Option<String>>, b: &Vec<Option<String>>| {
        key.iter()
            .map(|&i| cmp_cell(i, &a[i], &b[i]))
            .chain((0..a.len()).map(|i| cmp_cell(i, &a[i], &b[i])))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    };
    // Pipelines mostly write their rows in key order already: one pass
    // says so, where a sort compares (and parses) n log n times.
    if !table
        .rows
        .is_sorted_by(|a, b| cmp_rows(a, b) != Ordering::Greater)
    {
        table.rows.sort_by(cmp_rows);
    }
}

/// How two cells of a column sort: numbers as numbers (then as text, so
/// only equal text is equal), anything else as text, null first.
fn cmp_cells(numeric: bool, a: &Option<String>, b: &Option<String>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) if numeric => match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(fx), Ok(fy)) => fx.total_cmp(&fy).then_with(|| x.cmp(y)),
            _ => x.cmp(y),
        },
        _ => a.cmp(b),
    }
}

/// The snapshot text of `table`.
pub(crate) fn render(table: &Table) -> String {
    let schema: Vec<String> = table
        .columns
        .iter()
        .map(|(n, t)| csv_field(&format!("{n}:{}", t.as_str())))
        .collect();
    let mut out = format!("{SCHEMA_PREFIX}{}\n", schema.join(", "));
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for row in &table.rows {
        // A write to memory cannot fail.
        let _ = writer.write_record(row.iter().map(|c| c.as_deref().unwrap_or("")));
    }
    let bytes = writer.into_inner().unwrap_or_default();
    out.push_str(&String::from_utf8_lossy(&bytes));
    out
}

/// `s` quoted as a CSV field when it needs to be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A snapshot file's text as a table.
pub(crate) fn parse_snapshot(text: &str) -> Result<Table, String> {
    let (first, body) = text.split_once('\n').unwrap_or((text, ""));
    let schema = first
        .trim_end_matches('\r')
        .strip_prefix(SCHEMA_PREFIX)
        .ok_or("its first line is not `# columns: …`: bless it again")?;
    let mut columns = Vec::new();
    let mut header = csv::ReaderBuilder::new()
        .has_headers(false)
        .trim(csv::Trim::All)
        .from_reader(schema.as_bytes());
    if let Some(record) = header.records().next() {
        for field in record.map_err(|e| format!("bad schema line: {e}"))?.iter() {
            let (name, ty) = field
                .rsplit_once(':')
                .and_then(|(n, t)| Some((n, ColType::parse(t)?)))
                .ok_or_else(|| format!("bad column `{field}` in the schema line"))?;
            columns.push((name.to_string(), ty));
        }
    }
    let mut rows = Vec::new();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body.as_bytes());
    for record in reader.records() {
        let record = record.map_err(|e| format!("bad row: {e}"))?;
        let mut row: Vec<Option<String>> = record.iter().map(cell).collect();
        row.resize(columns.len(), None);
        rows.push(row);
    }
    Ok(Table { columns, rows })
}

/// The differences from `expected` (the snapshot) to `actual`, one a
/// line, all of them.
pub(crate) fn differences(expected: &Table, actual: &Table, spec: &OutputSpec) -> Vec<String> {
    let mut out = Vec::new();
    let exp: Vec<&str> = expected.columns.iter().map(|(n, _)| n.as_str()).collect();
    let act: Vec<&str> = actual.columns.iter().map(|(n, _)| n.as_str()).collect();
    // (name in the snapshot, index there, index now)
    let mut common: Vec<(&str, usize, usize)> = Vec::new();
    let mut renamed: Vec<usize> = Vec::new();
    for (i, name) in exp.iter().enumerate() {
        if let Some(j) = act.iter().position(|a| a == name) {
            common.push((name, i, j));
        } else if let Some(new) = act.get(i).filter(|a| !exp.contains(a)) {
            // The column in its place is new: the same column, renamed.
            out.push(format!("column renamed: {name} -> {new}"));
            common.push((name, i, i));
            renamed.push(i);
        } else {
            out.push(format!("column removed: {name}"));
        }
    }
    for (j, name) in act.iter().enumerate() {
        if !exp.contains(name) && !renamed.contains(&j) {
            out.push(format!("column added: {name}"));
        }
    }
    for &(name, i, j) in &common {
        let (was, now) = (expected.columns[i].1, actual.columns[j].1);
        // Integer and float are one kind: a float column whose values are
        // whole numbers reads as integer; the values are compared anyway.
        let compatible = was == now
            || (was.numeric() && now.numeric())
            || was == ColType::Null
            || now == ColType::Null;
        if !compatible {
            out.push(format!(
                "column retyped: {name} {} -> {}",
                was.as_str(),
                now.as_str()
            ));
        }
    }
    if expected.rows.len() != actual.rows.len() {
        out.push(format!(
            "row count: {} -> {}",
            expected.rows.len(),
            actual.rows.len()
        ));
    }
    let key: Option<Vec<(&str, usize, usize)>> = (!spec.key.is_empty())
        .then(|| {
            spec.key
                .iter()
                .map(|k| common.iter().find(|(n, _, _)| n == k).copied())
                .collect()
        })
        .flatten();
    match key {
        Some(key) => keyed(expected, actual, &key, &common, spec, &mut out),
        None => {
            for k in &spec.key {
                if !common.iter().any(|(n, _, _)| n == k) {
                    out.push(format!("key column missing: {k} (rows matched whole)"));
                }
            }
            whole(expected, actual, &common, &mut out);
        }
    }
    out
}

type Cols<'a> = [(&'a str, usize, usize)];

fn show(c: &Option<String>) -> &str {
    c.as_deref().unwrap_or("null")
}

fn keyed(
    expected: &Table,
    actual: &Table,
    key: &Cols<'_>,
    common: &Cols<'_>,
    spec: &OutputSpec,
    out: &mut Vec<String>,
) {
    let label = |row: &[Option<String>], now: bool| {
        key.iter()
            .map(|&(n, i, j)| format!("{n}={}", show(&row[if now { j } else { i }])))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pairs =
        merge_join(expected, actual, key).unwrap_or_else(|| hash_join(expected, actual, key));
    let mut matched = vec![false; actual.rows.len()];
    for (row, pair) in expected.rows.iter().zip(pairs) {
        let Some(r) = pair else {
            out.push(format!("row removed: {}", label(row, false)));
            continue;
        };
        matched[r] = true;
        let other = &actual.rows[r];
        for &(name, i, j) in common {
            if !same(&row[i], &other[j], spec) {
                out.push(format!(
                    "changed: {} {name} {} -> {}",
                    label(row, false),
                    show(&row[i]),
                    show(&other[j])
                ));
            }
        }
    }
    for (r, row) in actual.rows.iter().enumerate() {
        if !matched[r] {
            out.push(format!("row added: {}", label(row, true)));
        }
    }
}

/// For each row of `expected`, the row of `actual` with the same key (the
/// first one not taken yet), found by walking both in key order: both are
/// sorted by their key with the same comparison when the key columns are
/// of one kind on both sides and neither table was reordered by hand. None
/// when they are not so sorted.
fn merge_join(expected: &Table, actual: &Table, key: &Cols<'_>) -> Option<Vec<Option<usize>>> {
    let numeric: Vec<bool> = key
        .iter()
        .map(|&(_, i, j)| {
            let (was, now) = (
                expected.columns[i].1.numeric(),
                actual.columns[j].1.numeric(),
            );
            (was == now).then_some(was)
        })
        .collect::<Option<_>>()?;
    let cmp = |a: &[Option<String>], a_now: bool, b: &[Option<String>], b_now: bool| {
        key.iter()
            .zip(&numeric)
            .map(|(&(_, i, j), &n)| {
                cmp_cells(
                    n,
                    &a[if a_now { j } else { i }],
                    &b[if b_now { j } else { i }],
                )
            })
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    };
    let sorted = |rows: &[Vec<Option<String>>], now: bool| {
        rows.is_sorted_by(|a, b| cmp(a, now, b, now) != Ordering::Greater)
    };
    if !sorted(&expected.rows, false) || !sorted(&actual.rows, true) {
        return None;
    }
    let mut pairs = Vec::with_capacity(expected.rows.len());
    let mut r = 0;
    for row in &expected.rows {
        while r < actual.rows.len() && cmp(&actual.rows[r], true, row, false) == Ordering::Less {
            r += 1;
        }
        if r < actual.rows.len() && cmp(&actual.rows[r], true, row, false) == Ordering::Equal {
            pairs.push(Some(r));
            r += 1;
        } else {
            pairs.push(None);
        }
    }
    Some(pairs)
}

/// [`merge_join`]'s pairs by a hash of the key, for tables not in key
/// order.
fn hash_join(expected: &Table, actual: &Table, key: &Cols<'_>) -> Vec<Option<usize>> {
    let id = |row: &[Option<String>], now: bool| -> Vec<Option<String>> {
        key.iter()
            .map(|&(_, i, j)| row[if now { j } else { i }].clone())
            .collect()
    };
    let mut now: HashMap<Vec<Option<String>>, VecDeque<usize>> = HashMap::new();
    for (r, row) in actual.rows.iter().enumerate() {
        now.entry(id(row, true)).or_default().push_back(r);
    }
    expected
        .rows
        .iter()
        .map(|row| now.get_mut(&id(row, false)).and_then(VecDeque::pop_front))
        .collect()
}

fn whole(expected: &Table, actual: &Table, common: &Cols<'_>, out: &mut Vec<String>) {
    let text = |row: &[Option<String>], now: bool| {
        common
            .iter()
            .map(|&(_, i, j)| csv_field(row[if now { j } else { i }].as_deref().unwrap_or("")))
            .collect::<Vec<_>>()
            .join(",")
    };
    let was: Vec<String> = expected.rows.iter().map(|r| text(r, false)).collect();
    let now: Vec<String> = actual.rows.iter().map(|r| text(r, true)).collect();
    for t in unmatched(&was, &now) {
        out.push(format!("row removed: {t}"));
    }
    for t in unmatched(&now, &was) {
        out.push(format!("row added: {t}"));
    }
}

/// The rows of `rows` that `other` has no (further) copy of, in order.
fn unmatched<'r>(rows: &'r [String], other: &[String]) -> Vec<&'r str> {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for t in other {
        *left.entry(t).or_default() += 1;
    }
    rows.iter()
        .filter(|t| match left.get_mut(t.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .map(String::as_str)
        .collect()
}

/// Whether a cell is unchanged: equal text, or numbers within the tolerance.
fn same(was: &Option<String>, now: &Option<String>, spec: &OutputSpec) -> bool {
    match (was, now) {
        (None, None) => true,
        (Some(a), Some(b)) if a == b => true,
        (Some(a), Some(b)) if is_number(a) && is_number(b) => {
            let (a, b) = (
                a.parse::<f64>().unwrap_or(0.0),
                b.parse::<f64>().unwrap_or(0.0),
            );
            (b - a).abs() <= spec.abs + spec.rel * a.abs()
        }
        _ => false,
    }
}

/// The diff shown for `lines`: the first [`MAX_DIFF_ITEMS`], and how many
/// more there are.
pub(crate) fn diff_text(lines: &[String]) -> String {
    let mut out: String = lines
        .iter()
        .take(MAX_DIFF_ITEMS)
        .map(|l| format!("{l}\n"))
        .collect();
    if lines.len() > MAX_DIFF_ITEMS {
        out.push_str(&format!(
            "… and {} more difference(s)\n",
            lines.len() - MAX_DIFF_ITEMS
        ));
    }
    out
}

/// The snapshot file of output `rel` of the case whose stem is `stem`:
/// the path's separators become dots, so outputs of one case that share a
/// file name in different directories keep apart.
pub(crate) fn snapshot_file(stem: &str, rel: &str) -> String {
    let flat = crate::layout::snapshot_stem(&rel.replace(['/', '\\'], "."));
    format!("{}/{stem}.{flat}.data", crate::layout::SNAPSHOT_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(key: &[&str]) -> OutputSpec {
        OutputSpec {
            path: "x.csv".into(),
            key: key.iter().map(|s| s.to_string()).collect(),
            ignore: vec!["at".into()],
            abs: 0.01,
            rel: 0.0,
            format: DataFormat::Csv,
        }
    }

    fn table(csv: &str, spec: &OutputSpec) -> Table {
        let (names, rows) = parse_csv(csv.as_bytes()).unwrap();
        canonical(names, rows, None, spec)
    }

    #[test]
    fn a_snapshot_reads_back_as_the_table_it_renders() {
        let s = spec(&["region"]);
        let t = table(
            "region,total,at,n,ok\nWest,1.5,x,2,true\n\"A, B\",,y,3,false\n",
            &s,
        );
        let text = render(&t);
        assert!(
            text.starts_with("# columns: region:string, total:float, n:integer, ok:bool\n"),
            "{text}"
        );
        assert!(text.contains("\"A, B\",,3,false\n"), "{text}");
        assert_eq!(parse_snapshot(&text).unwrap(), t);
    }

    #[test]
    fn differences_name_rows_columns_and_values() {
        let s = spec(&["region"]);
        let was = table("region,total\nEast,1\nWest,2.5\nSilver,84.97\n", &s);
        let now = table("region,total_usd\nEast,1.001\nSilver,90.12\nNorth,3\n", &s);
        let d = differences(&was, &now, &s);
        assert_eq!(
            d,
            [
                "column renamed: total -> total_usd",
                "changed: region=Silver total 84.97 -> 90.12",
                "row removed: region=West",
                "row added: region=North",
            ]
        );
        assert!(differences(&was, &was, &s).is_empty());
    }

    /// Walking both tables in key order pairs the rows a hash of the key
    /// pairs, duplicate, missing and added keys included; a snapshot put
    /// out of key order by hand falls back to the hash.
    #[test]
    fn the_key_order_walk_pairs_rows_as_the_hash_does() {
        let s = spec(&["k"]);
        let was = table("k,v\n1,a\n2,b\n2,c\n5,d\n10,e\n10,f\n", &s);
        let now = table("k,v\n0,z\n2,b\n2,x\n2,y\n10,e\n11,g\n", &s);
        let key = [("k", 0, 0)];
        let walked = merge_join(&was, &now, &key).expect("both in key order");
        assert_eq!(walked, hash_join(&was, &now, &key));
        assert_eq!(walked, [None, Some(1), Some(2), None, Some(4), None]);
        let mut by_hand = was.clone();
        by_hand.rows.swap(0, 3);
        assert_eq!(merge_join(&by_hand, &now, &key), None);
        let sorted = |mut d: Vec<String>| {
            d.sort();
            d
        };
        assert_eq!(
            sorted(differences(&by_hand, &now, &s)),
            sorted(differences(&was, &now, &s))
        );
    }

    #[test]
    fn without_a_key_rows_are_matched_whole() {
        let s = spec(&[]);
        let was = table("a,b\n1,x\n2,y\n2,y\n", &s);
        let now = table("a,b\n2,y\n3,z\n2,y\n", &s);
        assert_eq!(
            differences(&was, &now, &s),
            ["row removed: 1,x", "row added: 3,z"]
        );
    }
}
