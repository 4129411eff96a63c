//! `mode = "summary"`: a data snapshot of an output too large to keep
//! whole. It holds the row count and, per column, its type, how many
//! values are null, how many are NaN, `inf` and `-inf`, the smallest and
//! largest value, the sum (numbers) and a checksum of the values:
//!
//! ```text
//! # summary: 1000000 rows
//! column,type,nulls,nan,inf,-inf,min,max,sum,checksum
//! id,integer,0,0,0,0,0,999999,499999500000,4f9a1c0e2b7d3a65
//! region,string,0,0,0,0,r0,r9,,0b1d2e3f4a5b6c7d
//! ```
//!
//! Integers are summed and compared exactly (the sum is left out once it
//! passes 128 bits); a float's min, max and sum are of its finite values,
//! and its NaN and infinities are counted apart, so a value that becomes
//! NaN changes the summary whatever the tolerance. The checksum is the sum
//! (mod 2^64) of the 64-bit FNV-1a hash of each non-null value's text, so
//! it does not depend on row order. A CSV output is summarised as it is
//! read, never held in memory.

use super::value::{self, Rule};
use super::{ColType, Sink, value_of, widen};
use crate::config::OutputSpec;

/// The first line of a summary snapshot, before the row count.
pub(crate) const PREFIX: &str = "# summary: ";
/// The header of a summary snapshot's table.
const HEADER: &str = "column,type,nulls,nan,inf,-inf,min,max,sum,checksum";
/// The header summaries had before they counted NaN and infinities: read
/// as counts of 0.
const HEADER_BEFORE_NAN: &str = "column,type,nulls,min,max,sum,checksum";

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
    /// NaN, `inf` and `-inf` values.
    pub not_finite: [u64; 3],
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
struct Acc {
    ty: Option<ColType>,
    nulls: u64,
    checksum: u64,
    text_min: Option<String>,
    text_max: Option<String>,
    /// The smallest and largest integer, canonical ([`value::integer`]).
    int_min: Option<(bool, String)>,
    int_max: Option<(bool, String)>,
    /// None once the sum left 128 bits.
    int_sum: Option<i128>,
    float_min: Option<f64>,
    float_max: Option<f64>,
    /// Neumaier's compensated sum: the sum and what rounding lost.
    float_sum: (f64, f64),
    /// NaN, `inf` and `-inf` values.
    not_finite: [u64; 3],
}

impl Default for Acc {
    fn default() -> Acc {
        Acc {
            ty: None,
            nulls: 0,
            checksum: 0,
            text_min: None,
            text_max: None,
            int_min: None,
            int_max: None,
            int_sum: Some(0),
            float_min: None,
            float_max: None,
            float_sum: (0.0, 0.0),
            not_finite: [0; 3],
        }
    }
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
        match value {
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
        self.ty = Some(widen(self.ty.unwrap_or(ColType::Null), value_of(v)));
        if let Some((negative, digits)) = value::integer(v) {
            let order = |m: &(bool, String)| value::cmp_integer((negative, digits), (m.0, &m.1));
            if self.int_min.as_ref().is_none_or(|m| order(m).is_lt()) {
                self.int_min = Some((negative, digits.to_string()));
            }
            if self.int_max.as_ref().is_none_or(|m| order(m).is_gt()) {
                self.int_max = Some((negative, digits.to_string()));
            }
            self.int_sum = self
                .int_sum
                .and_then(|s| s.checked_add(v.parse::<i128>().ok()?));
        }
        let Some(f) = value::float(v) else {
            return;
        };
        if !f.is_finite() {
            let at = if f.is_nan() {
                0
            } else if f > 0.0 {
                1
            } else {
                2
            };
            self.not_finite[at] += 1;
            return;
        }
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
        let int = |i: Option<(bool, String)>| {
            i.map(|(negative, digits)| {
                if negative {
                    format!("-{digits}")
                } else {
                    digits
                }
            })
        };
        let (min, max, sum) = match ty {
            ColType::Integer if self.int_min.is_some() => (
                int(self.int_min),
                int(self.int_max),
                self.int_sum.map(|s| s.to_string()),
            ),
            ColType::Integer | ColType::Float | ColType::Decimal => (
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
            not_finite: self.not_finite,
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
        let [nan, inf, neg_inf] = c.not_finite.map(|n| n.to_string());
        let checksum = format!("{:016x}", c.checksum);
        // A write to memory cannot fail.
        let _ = writer.write_record([
            c.name.as_str(),
            c.ty.as_str(),
            &nulls,
            &nan,
            &inf,
            &neg_inf,
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
    // The three counts of values that are not finite, after the nulls.
    let counts = match lines.next().map(|l| l.trim_end_matches('\r')) {
        Some(HEADER) => 3,
        Some(HEADER_BEFORE_NAN) => 0,
        _ => return Err(format!("its second line is not `{HEADER}`: bless it again")),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(lines.next().unwrap_or("").as_bytes());
    let mut columns = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| format!("bad column line: {e}"))?;
        if record.len() != 4 + counts + 3 {
            return Err(format!(
                "bad column line `{}`",
                record.iter().collect::<Vec<_>>().join(",")
            ));
        }
        // Fields after the counts, by their place in the older layout.
        let at = |i: usize| if i >= 3 { i + counts } else { i };
        let field = |i: usize| {
            (record.get(at(i)))
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let count = |i: usize| -> Option<u64> {
            if i < counts {
                record.get(3 + i)?.parse().ok()
            } else {
                Some(0)
            }
        };
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
            not_finite: [
                count(0).ok_or_else(bad)?,
                count(1).ok_or_else(bad)?,
                count(2).ok_or_else(bad)?,
            ],
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
        // Min, max and sum by the column's rule: text exactly, integers
        // exactly, floats within the tolerance.
        let rule = Rule::of(a.ty, b.ty);
        if a.nulls != b.nulls {
            out.push(format!("column {name}: nulls {} -> {}", a.nulls, b.nulls));
        }
        for (k, what) in ["NaN", "inf", "-inf"].into_iter().enumerate() {
            if a.not_finite[k] != b.not_finite[k] {
                out.push(format!(
                    "column {name}: {what} values {} -> {}",
                    a.not_finite[k], b.not_finite[k]
                ));
            }
        }
        let per_value = (spec.abs, spec.rel);
        let per_sum = (spec.abs * actual.rows.max(expected.rows) as f64, spec.rel);
        for (what, x, y, tolerance) in [
            ("min", &a.min, &b.min, per_value),
            ("max", &a.max, &b.max, per_value),
            ("sum", &a.sum, &b.sum, per_sum),
        ] {
            if !rule.same(x.as_deref(), y.as_deref(), tolerance) {
                let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".into());
                out.push(format!("column {name}: {what} {} -> {}", show(x), show(y)));
            }
        }
        if a.checksum != b.checksum && !(rule == Rule::Float && tolerant) {
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
                "# summary: 3 rows\ncolumn,type,nulls,nan,inf,-inf,min,max,sum,checksum\n\
                 id,integer,0,0,0,0,1,3,6,"
            ),
            "{text}"
        );
        assert!(
            text.contains("\ntotal,float,1,0,0,0,2.5,10,12.5,"),
            "{text}"
        );
        assert!(
            text.contains("\nregion,string,1,0,0,0,\"East, North\",West,,"),
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
