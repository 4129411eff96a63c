//! `mode = "summary"`: a data snapshot of an output too large to keep
//! whole. It holds the row count and, per column, its type, how many
//! values are null, the smallest and largest value, the sum (numbers) and
//! a checksum of the values:
//!
//! ```text
//! # summary: 1000000 rows
//! column,type,nulls,min,max,sum,checksum
//! id,integer,0,0,999999,499999500000,4f9a1c0e2b7d3a65
//! region,string,0,r0,r9,,0b1d2e3f4a5b6c7d
//! ```
//!
//! The checksum is the sum (mod 2^64) of the 64-bit FNV-1a hash of each
//! non-null value's text, so it does not depend on row order. A CSV output
//! is summarised as it is read, never held in memory.

use super::{ColType, Sink, Value, type_of, value_of, widen};
use crate::config::OutputSpec;

/// The first line of a summary snapshot, before the row count.
pub(crate) const PREFIX: &str = "# summary: ";
/// The header of a summary snapshot's table.
const HEADER: &str = "column,type,nulls,min,max,sum,checksum";

/// The summary of a table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Summary {
    pub rows: u64,
    pub columns: Vec<Column>,
}

/// The summary of one column.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Column {
    pub name: String,
    pub ty: ColType,
    pub nulls: u64,
    pub min: Option<String>,
    pub max: Option<String>,
    pub sum: Option<String>,
    pub checksum: u64,
}

/// Summarises cells pushed row by row.
pub(crate) struct Summarizer {
    names: Vec<String>,
    /// Types the reader knows (Parquet, Delta); None: inferred.
    types: Option<Vec<ColType>>,
    acc: Vec<Acc>,
    filled: usize,
    rows: u64,
}

/// What is known of a column so far.
#[derive(Default)]
struct Acc {
    ty: Option<ColType>,
    nulls: u64,
    checksum: u64,
    text_min: Option<String>,
    text_max: Option<String>,
    int_min: Option<i64>,
    int_max: Option<i64>,
    int_sum: i128,
    float_min: Option<f64>,
    float_max: Option<f64>,
    /// Neumaier's compensated sum: the sum and what rounding lost.
    float_sum: (f64, f64),
}

impl Summarizer {
    pub(crate) fn new(names: Vec<String>, types: Option<Vec<ColType>>) -> Summarizer {
        let acc = names.iter().map(|_| Acc::default()).collect();
        Summarizer {
            names,
            types,
            acc,
            filled: 0,
            rows: 0,
        }
    }

    pub(crate) fn finish(self) -> Summary {
        let columns = self
            .names
            .into_iter()
            .zip(self.acc)
            .enumerate()
            .map(|(c, (name, acc))| {
                let ty = match &self.types {
                    Some(types) => types[c],
                    None => acc.ty.unwrap_or(ColType::Null),
                };
                acc.finish(name, ty)
            })
            .collect();
        Summary {
            rows: self.rows,
            columns,
        }
    }
}

impl Sink for Summarizer {
    fn cell(&mut self, value: Option<&str>) {
        let Some(acc) = self.acc.get_mut(self.filled) else {
            return;
        };
        self.filled += 1;
        match value.filter(|v| !v.is_empty()) {
            Some(v) => acc.add(v),
            None => acc.nulls += 1,
        }
    }

    fn end_row(&mut self) {
        for acc in &mut self.acc[self.filled.min(self.names.len())..] {
            acc.nulls += 1;
        }
        self.filled = 0;
        self.rows += 1;
    }
}

/// The 64-bit FNV-1a hash of `s`.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Acc {
    fn add(&mut self, v: &str) {
        self.checksum = self.checksum.wrapping_add(fnv1a(v));
        if self.text_min.as_deref().is_none_or(|m| v < m) {
            self.text_min = Some(v.to_string());
        }
        if self.text_max.as_deref().is_none_or(|m| v > m) {
            self.text_max = Some(v.to_string());
        }
        let value = value_of(v);
        self.ty = Some(widen(self.ty.unwrap_or(ColType::Null), type_of(&value)));
        let f = match value {
            Value::Integer(i) => {
                self.int_min = Some(self.int_min.map_or(i, |m| m.min(i)));
                self.int_max = Some(self.int_max.map_or(i, |m| m.max(i)));
                self.int_sum += i128::from(i);
                i as f64
            }
            Value::Float(f) => f,
            Value::Bool | Value::Text => return,
        };
        self.float_min = Some(self.float_min.map_or(f, |m| m.min(f)));
        self.float_max = Some(self.float_max.map_or(f, |m| m.max(f)));
        let (sum, lost) = &mut self.float_sum;
        let t = *sum + f;
        *lost += if sum.abs() >= f.abs() {
            (*sum - t) + f
        } else {
            (f - t) + *sum
        };
        *sum = t;
    }

    fn finish(self, name: String, ty: ColType) -> Column {
        let number = |f: Option<f64>| f.map(|f| f.to_string());
        let (min, max, sum) = match ty {
            ColType::Integer if self.int_min.is_some() => (
                self.int_min.map(|i| i.to_string()),
                self.int_max.map(|i| i.to_string()),
                Some(self.int_sum.to_string()),
            ),
            ColType::Integer | ColType::Float => (
                number(self.float_min),
                number(self.float_max),
                self.float_min
                    .map(|_| (self.float_sum.0 + self.float_sum.1).to_string()),
            ),
            _ => (self.text_min, self.text_max, None),
        };
        Column {
            name,
            ty,
            nulls: self.nulls,
            min,
            max,
            sum,
            checksum: self.checksum,
        }
    }
}

/// The snapshot text of `summary`.
pub(crate) fn render(summary: &Summary) -> String {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for c in &summary.columns {
        let nulls = c.nulls.to_string();
        let checksum = format!("{:016x}", c.checksum);
        // A write to memory cannot fail.
        let _ = writer.write_record([
            c.name.as_str(),
            c.ty.as_str(),
            &nulls,
            c.min.as_deref().unwrap_or(""),
            c.max.as_deref().unwrap_or(""),
            c.sum.as_deref().unwrap_or(""),
            &checksum,
        ]);
    }
    let body = writer.into_inner().unwrap_or_default();
    format!(
        "{PREFIX}{} rows\n{HEADER}\n{}",
        summary.rows,
        String::from_utf8_lossy(&body)
    )
}

/// A summary snapshot's text (its first line starts with [`PREFIX`]).
pub(crate) fn parse(text: &str) -> Result<Summary, String> {
    let mut lines = text.splitn(3, '\n');
    let rows = lines
        .next()
        .and_then(|l| l.trim_end_matches('\r').strip_prefix(PREFIX))
        .and_then(|l| l.strip_suffix(" rows"))
        .and_then(|n| n.parse().ok())
        .ok_or("its first line is not `# summary: N rows`: bless it again")?;
    if lines.next().map(|l| l.trim_end_matches('\r')) != Some(HEADER) {
        return Err(format!("its second line is not `{HEADER}`: bless it again"));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(lines.next().unwrap_or("").as_bytes());
    let mut columns = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("bad column line: {e}"))?;
        let field = |i: usize| record.get(i).filter(|s| !s.is_empty()).map(str::to_string);
        let bad = || {
            format!(
                "bad column line `{}`",
                record.iter().collect::<Vec<_>>().join(",")
            )
        };
        columns.push(Column {
            name: field(0).ok_or_else(bad)?,
            ty: field(1).and_then(|t| ColType::parse(&t)).ok_or_else(bad)?,
            nulls: field(2).and_then(|n| n.parse().ok()).ok_or_else(bad)?,
            min: field(3),
            max: field(4),
            sum: field(5),
            checksum: field(6)
                .and_then(|c| u64::from_str_radix(&c, 16).ok())
                .ok_or_else(bad)?,
        });
    }
    Ok(Summary { rows, columns })
}

/// The differences from `expected` (the snapshot) to `actual`: columns
/// as for rows, the row count, then per column its null count, min, max
/// and sum (numbers within the tolerance; a sum within `abs` per row) and
/// checksum (not for numbers with a tolerance, which may move).
pub(crate) fn differences(expected: &Summary, actual: &Summary, spec: &OutputSpec) -> Vec<String> {
    let mut out = Vec::new();
    let types = |s: &Summary| -> Vec<(String, ColType)> {
        s.columns.iter().map(|c| (c.name.clone(), c.ty)).collect()
    };
    let (was, now) = (types(expected), types(actual));
    let common = super::column_changes(&was, &now, &mut out);
    if expected.rows != actual.rows {
        out.push(format!("row count: {} -> {}", expected.rows, actual.rows));
    }
    let tolerant = spec.abs > 0.0 || spec.rel > 0.0;
    for (name, i, j) in common {
        let (a, b) = (&expected.columns[i], &actual.columns[j]);
        let numeric = a.ty.numeric() && b.ty.numeric();
        if a.nulls != b.nulls {
            out.push(format!("column {name}: nulls {} -> {}", a.nulls, b.nulls));
        }
        let per_value = (spec.abs, spec.rel);
        let per_sum = (spec.abs * actual.rows.max(expected.rows) as f64, spec.rel);
        for (what, x, y, (abs, rel)) in [
            ("min", &a.min, &b.min, per_value),
            ("max", &a.max, &b.max, per_value),
            ("sum", &a.sum, &b.sum, per_sum),
        ] {
            let same = match (x, y) {
                (Some(x), Some(y)) if numeric => match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(x), Ok(y)) => (y - x).abs() <= abs + rel * x.abs(),
                    _ => x == y,
                },
                _ => x == y,
            };
            if !same {
                let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".into());
                out.push(format!("column {name}: {what} {} -> {}", show(x), show(y)));
            }
        }
        if a.checksum != b.checksum && !(numeric && tolerant) {
            out.push(format!(
                "column {name}: values changed (checksum {:016x} -> {:016x})",
                a.checksum, b.checksum
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(rows: &[&[Option<&str>]]) -> Summary {
        let mut s = Summarizer::new(vec!["id".into(), "total".into(), "region".into()], None);
        for row in rows {
            for cell in *row {
                s.cell(*cell);
            }
            s.end_row();
        }
        s.finish()
    }

    fn spec(abs: f64) -> OutputSpec {
        OutputSpec {
            path: "x.csv".into(),
            key: Vec::new(),
            ignore: Vec::new(),
            abs,
            rel: 0.0,
            format: crate::model::DataFormat::Csv,
            mode: crate::config::DataOutputMode::Summary,
        }
    }

    #[test]
    fn a_summary_reads_back_as_it_renders_and_ignores_row_order() {
        let a = summary(&[
            &[Some("1"), Some("2.5"), Some("West")],
            &[Some("2"), None, Some("East, North")],
            &[Some("3"), Some("10")],
        ]);
        let text = render(&a);
        assert!(
            text.starts_with(
                "# summary: 3 rows\ncolumn,type,nulls,min,max,sum,checksum\n\
                 id,integer,0,1,3,6,"
            ),
            "{text}"
        );
        assert!(text.contains("\ntotal,float,1,2.5,10,12.5,"), "{text}");
        assert!(
            text.contains("\nregion,string,1,\"East, North\",West,,"),
            "{text}"
        );
        assert_eq!(parse(&text).unwrap(), a);
        let shuffled = summary(&[
            &[Some("3"), Some("10")],
            &[Some("1"), Some("2.5"), Some("West")],
            &[Some("2"), None, Some("East, North")],
        ]);
        assert_eq!(shuffled, a);
    }

    #[test]
    fn differences_name_the_column_and_the_aggregate() {
        let was = summary(&[
            &[Some("1"), Some("2.5"), Some("West")],
            &[Some("2"), Some("4"), Some("East")],
        ]);
        let moved = summary(&[
            &[Some("1"), Some("2.505"), Some("West")],
            &[Some("2"), Some("4"), Some("East")],
        ]);
        assert!(differences(&was, &moved, &spec(0.01)).is_empty());
        let d = differences(&was, &moved, &spec(0.0));
        assert_eq!(d.len(), 3, "{d:?}");
        assert_eq!(d[0], "column total: min 2.5 -> 2.505");
        assert_eq!(d[1], "column total: sum 6.5 -> 6.505");
        assert!(
            d[2].starts_with("column total: values changed (checksum "),
            "{d:?}"
        );
        let renamed = summary(&[
            &[Some("1"), Some("2.5"), Some("Wests")],
            &[Some("2"), Some("4"), Some("East")],
        ]);
        assert_eq!(
            differences(&was, &renamed, &spec(0.01)),
            [
                "column region: max West -> Wests",
                &format!(
                    "column region: values changed (checksum {:016x} -> {:016x})",
                    was.columns[2].checksum, renamed.columns[2].checksum
                )
            ]
        );
        let fewer = summary(&[&[Some("1"), Some("2.5"), Some("West")]]);
        assert_eq!(
            differences(&was, &fewer, &spec(0.01))[0],
            "row count: 2 -> 1"
        );
    }
}
