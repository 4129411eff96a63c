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
//! NaN changes the summary whatever the tolerance. A number that came as
//! text (CSV, JSON, a Parquet decimal) is taken at its exact value: min
//! and max as written, the sum exact while it fits 128 bits at the finest
//! scale of the numbers (else, as of numbers that came as doubles, the
//! sum of the doubles, rounded once). The checksum is the sum (mod 2^64)
//! of the 64-bit FNV-1a hash of each non-null value's text, so it does not
//! depend on row order. Every format is summarised as it is read, never
//! held in memory.

use std::cmp::Ordering;

use super::error::DataError;
use super::num::{DecimalSum, Exact, ExactSum};
use super::value::{self, Rule};
use super::{Batch, BatchColumn, Cell, ColType, Sink, value_of, widen};
use crate::config::OutputSpec;

/// The first line of a summary snapshot, before the row count.
pub(super) const PREFIX: &str = "# summary: ";
/// The line after the first of a summary an engine computed, before its
/// name and version.
const ENGINE: &str = "# engine: ";
/// The header of a summary snapshot's table.
const HEADER: &str = "column,type,nulls,nan,inf,-inf,min,max,sum,checksum";
/// The header summaries had before they counted NaN and infinities: read
/// as counts of 0.
const HEADER_BEFORE_NAN: &str = "column,type,nulls,min,max,sum,checksum";

/// The summary of a table.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Summary {
    pub(crate) rows: u64,
    pub(crate) columns: Vec<Column>,
    /// The engine that computed it (`duckdb v2.0.0`), for a summary a
    /// database engine computed; None: this crate computed it. Its
    /// checksums are that engine's own.
    pub(crate) engine: Option<String>,
}

/// The summary of one column.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Column {
    pub(crate) name: String,
    pub(crate) ty: ColType,
    pub(crate) nulls: u64,
    /// NaN, `inf` and `-inf` values.
    pub(crate) not_finite: [u64; 3],
    pub(crate) min: Option<String>,
    pub(crate) max: Option<String>,
    pub(crate) sum: Option<String>,
    pub(crate) checksum: u64,
}

/// Summarises cells pushed row by row.
pub(super) struct Summarizer {
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
    /// The [`prefix`] of `text_min` and of `text_max`.
    text_keys: (u64, u64),
    /// The smallest and largest integer past 128 bits, canonical
    /// ([`value::integer`]).
    big_min: Option<(bool, String)>,
    big_max: Option<(bool, String)>,
    /// The smallest and largest integer that fits 128 bits.
    small_min: Option<i128>,
    small_max: Option<i128>,
    /// None once the sum left 128 bits.
    int_sum: Option<i128>,
    /// The smallest and largest finite double that came as one
    /// (Parquet), or whose text is no plain number.
    float_min: Option<f64>,
    float_max: Option<f64>,
    /// The smallest and largest finite number that came as text (CSV,
    /// JSON, Parquet decimals), as written, by its exact value
    /// ([`Exact`]), with its double.
    written_min: Option<(f64, String)>,
    written_max: Option<(f64, String)>,
    /// The sum of every finite number as a double: exact, so it does not
    /// depend on the order values came in, and rounded once.
    float_sum: ExactSum,
    /// The exact sum of the numbers that came as text.
    decimal_sum: DecimalSum,
    /// NaN, `inf` and `-inf` values.
    not_finite: [u64; 3],
    /// The hashes of numbers' texts seen lately, once numbers come as
    /// numbers (Parquet).
    memo: Option<Memo>,
}

/// Slots of a [`Memo`] table: a power of two.
const MEMO_SLOTS: usize = 4096;

/// The [`fnv1a`] hashes of the texts of numbers seen lately, one slot
/// per number by a hash of its bits: a column of few distinct numbers
/// (codes, counts, prices) writes and hashes each text once, not once a
/// row. A number is only ever found beside its own hash.
struct Memo {
    ints: Vec<(i64, u64)>,
    floats: Vec<(u64, u64)>,
    /// Texts (None: an empty slot), their [`prefix`] and their hashes.
    texts: Vec<Option<(String, u64, u64)>>,
    /// Values looked up, and found: a column whose values hardly repeat
    /// (identifiers) stops looking after [`MEMO_TRIAL`] of them.
    tries: u32,
    hits: u32,
    /// The last number whose text began an integer's text, and the
    /// [`fnv1a`] state after it: ids and other counts in order share all
    /// but their last two digits with the row before.
    lead: (i64, u64),
}

/// Values a [`Memo`] is tried on before it is kept or given up.
const MEMO_TRIAL: u32 = 16 * 1024;

impl Memo {
    fn new() -> Memo {
        // Every slot starts holding a true pair.
        let int = (i64::MIN, fnv1a(itoa::Buffer::new().format(i64::MIN)));
        Memo {
            ints: vec![int; MEMO_SLOTS],
            floats: vec![(0f64.to_bits(), fnv1a("0")); MEMO_SLOTS],
            texts: vec![None; MEMO_SLOTS],
            tries: 0,
            hits: 0,
            lead: (1, fnv1a("1")),
        }
    }

    /// Whether looking up is still worth it.
    fn worth_it(&self) -> bool {
        self.tries < MEMO_TRIAL || self.hits >= self.tries / 4
    }

    /// The hash of the text `t` and whether it was seen before (and so
    /// already taken into a column's smallest and largest text).
    fn text(&mut self, t: &str, key: u64) -> (u64, bool) {
        self.tries = self.tries.saturating_add(1);
        let slot = &mut self.texts[Memo::slot(key ^ t.len() as u64)];
        match slot {
            // A text of at most eight bytes is its length and prefix.
            Some((seen, k, hash))
                if *k == key && seen.len() == t.len() && (t.len() <= 8 || seen == t) =>
            {
                self.hits = self.hits.saturating_add(1);
                (*hash, true)
            }
            Some((seen, k, hash)) => {
                *hash = fnv1a(t);
                *k = key;
                seen.clear();
                seen.push_str(t);
                (*hash, false)
            }
            None => {
                let hash = fnv1a(t);
                *slot = Some((t.to_string(), key, hash));
                (hash, false)
            }
        }
    }

    fn slot(bits: u64) -> usize {
        (bits.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - MEMO_SLOTS.trailing_zeros())) as usize
    }

    /// The hash of the text of `i`.
    // Called for every value of a column: inlined in its loop.
    #[inline(always)]
    fn int(&mut self, i: i64) -> u64 {
        if !self.worth_it() || (-100 < i && i < 100) {
            return self.int_text(i);
        }
        self.tries = self.tries.saturating_add(1);
        let slot = Memo::slot(i as u64);
        if self.ints[slot].0 == i {
            self.hits = self.hits.saturating_add(1);
        } else {
            self.ints[slot] = (i, self.int_text(i));
        }
        self.ints[slot].1
    }

    /// The [`fnv1a`] hash of the text of `i`: the text of `i / 100` (the
    /// sign and leading digits), then the last two digits.
    // Called for every value of a column: inlined in its loop.
    #[inline(always)]
    fn int_text(&mut self, i: i64) -> u64 {
        if let Some(hash) = small_int(i) {
            return hash;
        }
        let lead = i / 100;
        if self.lead.0 != lead {
            let hash = small_int(lead).unwrap_or_else(|| fnv1a(itoa::Buffer::new().format(lead)));
            self.lead = (lead, hash);
        }
        let last = (i % 100).unsigned_abs() as u8;
        fnv1a_more(fnv1a_more(self.lead.1, b'0' + last / 10), b'0' + last % 10)
    }

    /// The hash of the text of `f` ([`super::num::push_f64`]), written
    /// into `scratch` when it is not known.
    // Called for every value of a column: inlined in its loop.
    #[inline(always)]
    fn float(&mut self, f: f64, scratch: &mut String) -> u64 {
        let bits = f.to_bits();
        if !self.worth_it() {
            return self.float_text(f, scratch);
        }
        self.tries = self.tries.saturating_add(1);
        let slot = Memo::slot(bits);
        if self.floats[slot].0 == bits {
            self.hits = self.hits.saturating_add(1);
        } else {
            self.floats[slot] = (bits, self.float_text(f, scratch));
        }
        self.floats[slot].1
    }

    /// The [`fnv1a`] hash of the text of `f`: of a whole number, a half,
    /// a quarter or an eighth under 10^11 (written exactly, the whole
    /// part as an integer is) from its whole part's; of any other written
    /// into `scratch`.
    fn float_text(&mut self, f: f64, scratch: &mut String) -> u64 {
        // Exact: a power of two.
        let eighths = f * 8.0;
        // Under 8 * 10^11 a cast to i64 is exact, and cheaper than trunc.
        if f.abs() < 1e11 && eighths as i64 as f64 == eighths && !(f == 0.0 && f.is_sign_negative())
        {
            let eighths = eighths as i64;
            let (whole, part) = (eighths / 8, (eighths % 8).unsigned_abs());
            // Above -1 the sign has no whole part to go with: `-0.5`.
            if part == 0 || whole != 0 || f > 0.0 {
                let hash = self.int_text(whole);
                let decimals: &[u8] = match part {
                    0 => return hash,
                    1 => b".125",
                    2 => b".25",
                    3 => b".375",
                    4 => b".5",
                    5 => b".625",
                    6 => b".75",
                    _ => b".875",
                };
                return decimals.iter().fold(hash, |h, &b| fnv1a_more(h, b));
            }
        }
        scratch.clear();
        super::num::push_f64(scratch, f);
        fnv1a(scratch)
    }
}

impl Default for Acc {
    fn default() -> Acc {
        Acc {
            ty: None,
            nulls: 0,
            checksum: 0,
            text_min: None,
            text_max: None,
            text_keys: (0, 0),
            big_min: None,
            big_max: None,
            small_min: None,
            small_max: None,
            int_sum: Some(0),
            float_min: None,
            float_max: None,
            written_min: None,
            written_max: None,
            float_sum: ExactSum::default(),
            decimal_sum: DecimalSum::default(),
            not_finite: [0; 3],
            memo: None,
        }
    }
}

impl Summarizer {
    /// A summarizer of `width` columns, of `types` when they are known.
    pub(super) fn new(width: usize, types: Option<Vec<ColType>>) -> Summarizer {
        let acc = (0..width).map(|_| Acc::default()).collect();
        Summarizer {
            types,
            acc,
            filled: 0,
            rows: 0,
        }
    }

    /// The summary of the columns called `names`.
    pub(super) fn finish(self, names: Vec<String>) -> Summary {
        let columns = names
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
            engine: None,
        }
    }
}

impl super::stream::Collect for Summarizer {
    const ORDER_FREE: bool = true;

    /// Take in what `other`, a summarizer of the same columns fed other
    /// rows, has seen: as if this one had been fed its rows too, in any
    /// order (counts, checksums and sums are order-free and exact).
    fn merge(&mut self, other: Summarizer) {
        self.rows += other.rows;
        for (a, b) in self.acc.iter_mut().zip(other.acc) {
            a.merge(b);
        }
    }
}

impl Sink for Summarizer {
    fn cell(&mut self, value: Option<&str>) {
        let Some(acc) = self.acc.get_mut(self.filled) else {
            return;
        };
        acc.take(value, self.types.as_ref().map(|t| t[self.filled]));
        self.filled += 1;
    }

    /// A column at a time: each column's aggregates stay in the cache
    /// while its values go by.
    fn batch(&mut self, batch: &Batch<'_>) {
        if batch.skip.is_some() || self.filled != 0 || batch.columns.len() != self.acc.len() {
            return batch.each_row(self);
        }
        for (c, (acc, column)) in self.acc.iter_mut().zip(&batch.columns).enumerate() {
            let known = self.types.as_ref().map(|t| t[c]);
            let mut scratch = String::new();
            // Out of the column's aggregates while its values go by.
            let mut memo = acc.memo.take().unwrap_or_else(Memo::new);
            // A column of one kind of cell, taken in a loop of its own.
            if let BatchColumn::Cells(cells) = column {
                let done = match known {
                    Some(ColType::Integer) if !cells.ints.is_empty() => {
                        acc.add_ints(cells, &mut memo);
                        true
                    }
                    Some(ColType::Float) if !cells.floats.is_empty() => {
                        acc.add_floats(cells, &mut memo, &mut scratch);
                        true
                    }
                    Some(ty)
                        if !ty.numeric() && cells.ints.is_empty() && cells.floats.is_empty() =>
                    {
                        acc.add_texts(cells, &mut memo);
                        true
                    }
                    _ => false,
                };
                if done {
                    acc.memo = Some(memo);
                    continue;
                }
            }
            for r in 0..batch.rows {
                match (column.cell(r), known) {
                    (Cell::Text(t), Some(ty)) if !ty.numeric() => acc.add_known_text(t, &mut memo),
                    (cell, _) => acc.take(cell.text(&mut scratch), known),
                }
            }
            acc.memo = Some(memo);
        }
        self.rows += batch.rows as u64;
    }

    fn end_row(&mut self) {
        let width = self.acc.len();
        for acc in &mut self.acc[self.filled.min(width)..] {
            acc.nulls += 1;
        }
        self.filled = 0;
        self.rows += 1;
    }
}

/// `f` of both, when both are there; else the one that is.
fn either<T>(a: Option<T>, b: Option<T>, f: impl FnOnce(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(x), Some(y)) => Some(f(x, y)),
        (x, y) => x.or(y),
    }
}

/// The smaller of two finite floats, `-0` below `0` so the result does
/// not depend on which came first (`f64::min` may return either).
fn least(a: f64, b: f64) -> f64 {
    if b.total_cmp(&a).is_lt() { b } else { a }
}

/// The larger of two finite floats, `0` above `-0`.
fn most(a: f64, b: f64) -> f64 {
    if b.total_cmp(&a).is_gt() { b } else { a }
}

/// How the finite number `b` (its double and its text) orders against
/// `a`: by their doubles, then by their exact values, then, for one value
/// written two ways (`1.5`, `1.50`), by their text, so that which of them
/// is kept does not depend on which came first.
fn order(a: (f64, &str), b: (f64, &str)) -> Ordering {
    let exact = || match (Exact::parse(b.1), Exact::parse(a.1)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => Ordering::Equal,
    };
    (b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal))
        .then_with(exact)
        .then_with(|| b.1.cmp(a.1))
}

/// Keep `b` in `slot` when `slot` holds nothing or `b` orders `wanted`
/// ([`Ordering::Less`]: the smallest) against what it holds.
fn keep(slot: &mut Option<(f64, String)>, b: (f64, &str), wanted: Ordering) {
    match slot {
        Some((f, t)) if order((*f, t), b) == wanted => {
            *f = b.0;
            t.clear();
            t.push_str(b.1);
        }
        Some(_) => {}
        None => *slot = Some((b.0, b.1.to_string())),
    }
}

/// The smallest ([`Ordering::Less`]) or largest number of a column, of
/// those that came as doubles and those that came as text, written
/// plainly as a double is (`120.50` as `120.5`, [`Exact`]'s `Display`).
fn extreme(
    double: Option<f64>,
    written: Option<(f64, String)>,
    wanted: Ordering,
) -> Option<String> {
    let mut slot = double.map(|f| (f, f.to_string()));
    if let Some((f, t)) = &written {
        keep(&mut slot, (*f, t), wanted);
    }
    slot.map(|(_, t)| match Exact::parse(&t) {
        Some(exact) if written.as_ref().is_some_and(|(_, w)| *w == t) => exact.to_string(),
        _ => t,
    })
}

/// The first eight bytes of `s` as a number (zeros past its end): two
/// texts whose prefixes differ order as their prefixes do.
fn prefix(s: &str) -> u64 {
    let bytes = s.as_bytes();
    if let Some(first) = bytes.first_chunk::<8>() {
        return u64::from_be_bytes(*first);
    }
    (bytes.iter().enumerate()).fold(0, |k, (i, &b)| k | u64::from(b) << (56 - 8 * i))
}

/// The 64-bit FNV-1a hash of `s`.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, fnv1a_more)
}

/// The [`fnv1a`] hashes of the texts of -99 to 99.
const SMALL_INTS: [u64; 199] = {
    let mut table = [0; 199];
    let mut k = 0;
    while k < 199 {
        let i = k as i64 - 99;
        let mut h = 0xcbf2_9ce4_8422_2325;
        if i < 0 {
            h = fnv1a_more(h, b'-');
        }
        let n = i.unsigned_abs() as u8;
        if n >= 10 {
            h = fnv1a_more(h, b'0' + n / 10);
        }
        table[k] = fnv1a_more(h, b'0' + n % 10);
        k += 1;
    }
    table
};

/// The [`fnv1a`] hash of the text of `i`, from [`SMALL_INTS`], when
/// `i` is above -100 and below 100.
fn small_int(i: i64) -> Option<u64> {
    (-100 < i && i < 100).then(|| SMALL_INTS[(i + 99) as usize])
}

/// The FNV-1a state `h` after one more byte `b`.
const fn fnv1a_more(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
}

impl Acc {
    /// Take a cell (None: null) of a column of type `known`, if known.
    fn take(&mut self, value: Option<&str>, known: Option<ColType>) {
        match (value, known) {
            (Some(v), Some(ty)) => self.add_typed(v, ty),
            (Some(v), None) => self.add(v),
            (None, _) => self.nulls += 1,
        }
    }

    /// Take the value `v` of a column of unknown type: every aggregate,
    /// since the type is known only at the end.
    fn add(&mut self, v: &str) {
        self.checksum = self.checksum.wrapping_add(fnv1a(v));
        self.add_text(v);
        self.ty = Some(widen(self.ty.unwrap_or(ColType::Null), value_of(v)));
        self.add_integer(v);
        self.add_float(v);
    }

    /// Take the value `v` of a column of type `ty` (Parquet, Delta,
    /// JSON): only the aggregates [`Acc::finish`] shows for that type.
    fn add_typed(&mut self, v: &str, ty: ColType) {
        self.checksum = self.checksum.wrapping_add(fnv1a(v));
        match ty {
            // A value that is not an integer leaves the integer aggregates
            // as they are; the float ones are shown only when no value was.
            ColType::Integer => {
                if !self.add_integer(v) {
                    self.add_float(v);
                }
            }
            ColType::Float | ColType::Decimal => self.add_float(v),
            _ => self.add_text(v),
        }
    }

    fn add_text(&mut self, v: &str) {
        // Most values are decided by their first eight bytes.
        let k = prefix(v);
        let (lo, hi) = self.text_keys;
        let below = |m: &str| k < lo || (k == lo && v < m);
        if self.text_min.as_deref().is_none_or(below) {
            self.text_min = Some(v.to_string());
            self.text_keys.0 = k;
        }
        let above = |m: &str| k > hi || (k == hi && v > m);
        if self.text_max.as_deref().is_none_or(above) {
            self.text_max = Some(v.to_string());
            self.text_keys.1 = k;
        }
    }

    /// Whether `v` was an integer (and taken as one).
    fn add_integer(&mut self, v: &str) -> bool {
        if let Ok(i) = v.parse::<i128>() {
            self.add_small(i);
            return true;
        }
        let Some((negative, digits)) = value::integer(v) else {
            return false;
        };
        let order = |m: &(bool, String)| value::cmp_integer((negative, digits), (m.0, &m.1));
        if self.big_min.as_ref().is_none_or(|m| order(m).is_lt()) {
            self.big_min = Some((negative, digits.to_string()));
        }
        if self.big_max.as_ref().is_none_or(|m| order(m).is_gt()) {
            self.big_max = Some((negative, digits.to_string()));
        }
        self.int_sum = None;
        true
    }

    /// Take a column of integers kept as integers (numbers are not read
    /// again from their text, which is written for the checksum only):
    /// the smallest, the largest and the sum taken once for them all.
    fn add_ints(&mut self, cells: &super::Cells, memo: &mut Memo) {
        let (mut least, mut most, mut sum, mut any) = (i64::MAX, i64::MIN, 0i128, false);
        // Nulls after the last value have no number kept.
        self.nulls += (cells.ends.len() - cells.ints.len()) as u64;
        for (&end, &i) in cells.ends.iter().zip(&cells.ints) {
            if end & super::NULL != 0 {
                self.nulls += 1;
                continue;
            }
            self.checksum = self.checksum.wrapping_add(memo.int(i));
            least = least.min(i);
            most = most.max(i);
            // At most 2^64 values of under 2^63 each: no overflow.
            sum += i128::from(i);
            any = true;
        }
        if any {
            self.add_smalls(least.into(), most.into(), sum);
        }
    }

    /// Take a column of doubles kept as doubles.
    fn add_floats(&mut self, cells: &super::Cells, memo: &mut Memo, scratch: &mut String) {
        // Nulls after the last value have no number kept.
        self.nulls += (cells.ends.len() - cells.floats.len()) as u64;
        for (&end, &f) in cells.ends.iter().zip(&cells.floats) {
            if end & super::NULL != 0 {
                self.nulls += 1;
                continue;
            }
            self.checksum = self.checksum.wrapping_add(memo.float(f, scratch));
            self.add_finite(f);
        }
    }

    /// Take a column of text (or truth values, or JSON).
    fn add_texts(&mut self, cells: &super::Cells, memo: &mut Memo) {
        // A null holds no text: the next value starts where it ends.
        let mut start = 0;
        for &end in &cells.ends {
            if end & super::NULL != 0 {
                self.nulls += 1;
                continue;
            }
            let end = end as usize;
            self.add_known_text(&cells.text[start..end], memo);
            start = end;
        }
    }

    fn add_small(&mut self, i: i128) {
        self.add_smalls(i, i, i);
    }

    /// Take integers that fit 128 bits: the smallest, the largest and
    /// their sum.
    fn add_smalls(&mut self, least: i128, most: i128, sum: i128) {
        self.small_min = either(self.small_min, Some(least), i128::min);
        self.small_max = either(self.small_max, Some(most), i128::max);
        self.int_sum = self.int_sum.and_then(|s| s.checked_add(sum));
    }

    /// Take the value `t` of a column of text (or truth values, or JSON).
    fn add_known_text(&mut self, t: &str, memo: &mut Memo) {
        let key = prefix(t);
        if memo.worth_it() {
            let (hash, seen) = memo.text(t, key);
            self.checksum = self.checksum.wrapping_add(hash);
            if !seen {
                self.add_text(t);
            }
        } else {
            self.checksum = self.checksum.wrapping_add(fnv1a(t));
            self.add_text(t);
        }
    }

    /// Take the text of a float (or of a decimal): a number's exact
    /// value, not the double nearest it, is its smallest, largest and sum.
    fn add_float(&mut self, v: &str) {
        let Some(f) = value::float(v) else {
            return;
        };
        let Some(exact) = Exact::parse(v).filter(|_| f.is_finite()) else {
            return self.add_finite(f);
        };
        keep(&mut self.written_min, (f, v), Ordering::Less);
        keep(&mut self.written_max, (f, v), Ordering::Greater);
        self.decimal_sum.add(&exact);
        self.float_sum.add(f);
    }

    /// Take a float: NaN and infinities counted, finite ones aggregated.
    fn add_finite(&mut self, f: f64) {
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
        self.float_min = Some(self.float_min.map_or(f, |m| least(m, f)));
        self.float_max = Some(self.float_max.map_or(f, |m| most(m, f)));
        self.float_sum.add(f);
    }

    fn merge(&mut self, b: Acc) {
        self.ty = either(self.ty, b.ty, widen);
        self.nulls += b.nulls;
        self.checksum = self.checksum.wrapping_add(b.checksum);
        if let Some(m) = b.text_min
            && self.text_min.as_ref().is_none_or(|x| m < *x)
        {
            self.text_min = Some(m);
            self.text_keys.0 = b.text_keys.0;
        }
        if let Some(m) = b.text_max
            && self.text_max.as_ref().is_none_or(|x| m > *x)
        {
            self.text_max = Some(m);
            self.text_keys.1 = b.text_keys.1;
        }
        self.small_min = either(self.small_min, b.small_min, i128::min);
        self.small_max = either(self.small_max, b.small_max, i128::max);
        let order =
            |a: &(bool, String), b: &(bool, String)| value::cmp_integer((a.0, &a.1), (b.0, &b.1));
        if let Some(m) = b.big_min
            && self.big_min.as_ref().is_none_or(|x| order(&m, x).is_lt())
        {
            self.big_min = Some(m);
        }
        if let Some(m) = b.big_max
            && self.big_max.as_ref().is_none_or(|x| order(&m, x).is_gt())
        {
            self.big_max = Some(m);
        }
        self.int_sum = match (self.int_sum, b.int_sum) {
            (Some(x), Some(y)) => x.checked_add(y),
            _ => None,
        };
        self.float_min = either(self.float_min, b.float_min, least);
        self.float_max = either(self.float_max, b.float_max, most);
        if let Some((f, v)) = &b.written_min {
            keep(&mut self.written_min, (*f, v), Ordering::Less);
        }
        if let Some((f, v)) = &b.written_max {
            keep(&mut self.written_max, (*f, v), Ordering::Greater);
        }
        self.float_sum.merge(&b.float_sum);
        self.decimal_sum.merge(&b.decimal_sum);
        for (x, y) in self.not_finite.iter_mut().zip(b.not_finite) {
            *x += y;
        }
    }

    fn finish(self, name: String, ty: ColType) -> Column {
        let text = |(negative, digits): (bool, String)| {
            if negative {
                format!("-{digits}")
            } else {
                digits
            }
        };
        // An integer past 128 bits is below every other (negative) or
        // above (positive).
        let int_min = match self.big_min {
            Some((true, d)) => Some(text((true, d))),
            big => self.small_min.map(|i| i.to_string()).or(big.map(text)),
        };
        let int_max = match self.big_max {
            Some((false, d)) => Some(text((false, d))),
            big => self.small_max.map(|i| i.to_string()).or(big.map(text)),
        };
        let (min, max, sum) = match ty {
            ColType::Integer if int_min.is_some() => {
                (int_min, int_max, self.int_sum.map(|s| s.to_string()))
            }
            ColType::Integer | ColType::Float | ColType::Decimal => {
                // Exact while every number came as text and the sum fits.
                let sum = match (self.float_min, self.decimal_sum.value()) {
                    (None, Some(exact)) => exact,
                    _ => self.float_sum.value().to_string(),
                };
                let any = self.float_min.is_some() || self.written_min.is_some();
                (
                    extreme(self.float_min, self.written_min, Ordering::Less),
                    extreme(self.float_max, self.written_max, Ordering::Greater),
                    any.then_some(sum),
                )
            }
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
pub(super) fn render(summary: &Summary) -> String {
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
    let engine = match &summary.engine {
        Some(e) => format!("{ENGINE}{e}\n"),
        None => String::new(),
    };
    format!(
        "{PREFIX}{} rows\n{engine}{HEADER}\n{}",
        summary.rows,
        String::from_utf8_lossy(&body)
    )
}

/// A summary snapshot's text (its first line starts with [`PREFIX`]).
pub(super) fn parse(text: &str) -> Result<Summary, DataError> {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let rows = first
        .trim_end_matches('\r')
        .strip_prefix(PREFIX)
        .and_then(|l| l.strip_suffix(" rows"))
        .and_then(|n| n.parse().ok())
        .ok_or(DataError::NoSummaryLine)?;
    let (engine, rest) = match rest.strip_prefix(ENGINE) {
        Some(r) => {
            let (e, r) = r.split_once('\n').unwrap_or((r, ""));
            (Some(e.trim_end_matches('\r').to_string()), r)
        }
        None => (None, rest),
    };
    let mut lines = rest.splitn(2, '\n');
    // The three counts of values that are not finite, after the nulls.
    let counts = match lines.next().map(|l| l.trim_end_matches('\r')) {
        Some(HEADER) => 3,
        Some(HEADER_BEFORE_NAN) => 0,
        _ => return Err(DataError::NoSummaryHeader { header: HEADER }),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(lines.next().unwrap_or("").as_bytes());
    let mut columns = Vec::new();
    for record in reader.records() {
        let record = record.map_err(DataError::BadSummaryLine)?;
        let bad = || DataError::BadSummaryColumn {
            line: record.iter().collect::<Vec<_>>().join(","),
        };
        if record.len() != 4 + counts + 3 {
            return Err(bad());
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
    Ok(Summary {
        rows,
        columns,
        engine,
    })
}

/// The differences from `expected` (the snapshot) to `actual`: columns
/// as for rows, the row count, then per column its null count, min, max
/// and sum (numbers within the tolerance, exactly without one; a sum
/// within `abs` per row) and checksum (not for floats with a tolerance,
/// which may move).
pub(super) fn differences(expected: &Summary, actual: &Summary, spec: &OutputSpec) -> Vec<String> {
    let mut out = Vec::new();
    let types = |s: &Summary| -> Vec<(String, ColType)> {
        s.columns.iter().map(|c| (c.name.clone(), c.ty)).collect()
    };
    let (was, now) = (types(expected), types(actual));
    let common = super::column_changes(&was, &now, &mut out);
    if expected.rows != actual.rows {
        out.push(format!("row count: {} -> {}", expected.rows, actual.rows));
    }
    // Checksums of another engine (or version) are of other hashes: the
    // figures still compare, and the change of engine is a difference.
    let same_engine = expected.engine == actual.engine;
    if !same_engine {
        let by = |e: &Option<String>| e.clone().unwrap_or_else(|| "cargo-golden".into());
        out.push(format!(
            "summary computed by {}, now by {}: its checksums are that engine's own (bless it again)",
            by(&expected.engine),
            by(&actual.engine)
        ));
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
        // The same values (by their text) have the same smallest, largest
        // and sum, written as a summary blessed before they were exact
        // wrote them (`9007199254740992` for the text `9007199254740993`):
        // the checksum tells.
        let written_before = same_engine
            && matches!(rule, Rule::Float | Rule::Decimal)
            && a.checksum == b.checksum
            && a.ty == b.ty;
        for (what, x, y, tolerance) in [
            ("min", &a.min, &b.min, per_value),
            ("max", &a.max, &b.max, per_value),
            ("sum", &a.sum, &b.sum, per_sum),
        ] {
            if written_before {
                break;
            }
            if !rule.same(x.as_deref(), y.as_deref(), tolerance) {
                let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "null".into());
                out.push(format!("column {name}: {what} {} -> {}", show(x), show(y)));
            }
        }
        if same_engine && a.checksum != b.checksum && !(rule == Rule::Float && tolerant) {
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
        let mut s = Summarizer::new(3, None);
        for row in rows {
            for cell in *row {
                s.cell(*cell);
            }
            s.end_row();
        }
        s.finish(vec!["id".into(), "total".into(), "region".into()])
    }

    fn spec(abs: f64) -> OutputSpec {
        OutputSpec {
            path: "x.csv".into(),
            table: None,
            model: None,
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

    /// A float's smallest, largest and sum are its numbers' exact values,
    /// written plainly: a change of a number's last digit shows in them
    /// without a tolerance, and one within the tolerance passes.
    #[test]
    fn numbers_are_summarised_exactly_as_written() {
        let exact = |x: &str, big: &str| {
            summary(&[
                &[Some("1"), Some(x), Some(big)],
                &[Some("2"), Some("0.5"), Some("1.5")],
            ])
        };
        let was = exact("1.000000000000000001", "9007199254740993");
        let [_, x, big] = &was.columns[..] else {
            panic!("{was:?}")
        };
        assert_eq!(
            (x.min.as_deref(), x.max.as_deref(), x.sum.as_deref()),
            (
                Some("0.5"),
                Some("1.000000000000000001"),
                Some("1.500000000000000001")
            )
        );
        assert_eq!(
            (big.max.as_deref(), big.sum.as_deref()),
            (Some("9007199254740993"), Some("9007199254740994.5"))
        );
        let now = exact("1.000000000000000002", "9007199254740992");
        let d = differences(&was, &now, &spec(0.0));
        for line in [
            "column total: max 1.000000000000000001 -> 1.000000000000000002",
            "column total: sum 1.500000000000000001 -> 1.500000000000000002",
            "column region: max 9007199254740993 -> 9007199254740992",
            "column region: sum 9007199254740994.5 -> 9007199254740993.5",
        ] {
            assert!(d.iter().any(|l| l == line), "{line} in {d:?}");
        }
        assert!(differences(&was, &now, &spec(1.0)).is_empty());
        // One number written two ways is summarised the same whichever
        // came first, written plainly; a sum past 128 bits is the double.
        let a = summary(&[&[Some("1"), Some("1.50")], &[Some("2"), Some("15e-1")]]);
        let b = summary(&[&[Some("2"), Some("15e-1")], &[Some("1"), Some("1.50")]]);
        assert_eq!(a.columns[1], b.columns[1]);
        let plain = (a.columns[1].min.as_deref(), a.columns[1].max.as_deref());
        assert_eq!(plain, (Some("1.5"), Some("1.5")));
        let far = summary(&[&[Some("1"), Some("1e20")], &[Some("2"), Some("1.5e-20")]]);
        assert_eq!(far.columns[1].sum.as_deref(), Some("100000000000000000000"));
        // A summary blessed when its numbers were doubles: its values (by
        // the checksum) are the same, so its figures written as doubles
        // are no change.
        let mut before = was.clone();
        before.columns[2].max = Some("9007199254740992".into());
        before.columns[2].sum = Some("9007199254740994".into());
        before.columns[1].max = Some("1".into());
        assert!(differences(&before, &was, &spec(0.0)).is_empty());
        assert!(!differences(&before, &now, &spec(0.0)).is_empty());
    }

    /// A column whose type the reader knows takes only the aggregates its
    /// type shows, and shows what a column of inferred type shows.
    #[test]
    fn a_known_type_summarises_as_an_inferred_one() {
        let columns: [(ColType, &[Option<&str>]); 4] = [
            (
                ColType::Integer,
                &[
                    Some("3"),
                    None,
                    Some("-12"),
                    Some("170141183460469231731687303715884105727"),
                    Some("7"),
                ],
            ),
            (
                ColType::Float,
                &[
                    Some("1.5"),
                    Some("NaN"),
                    Some("-inf"),
                    Some("2"),
                    None,
                    Some("-0"),
                ],
            ),
            (
                ColType::String,
                &[Some("West"), Some("10"), None, Some("East, North")],
            ),
            (ColType::Bool, &[Some("true"), Some("false"), None]),
        ];
        for (ty, values) in columns {
            let summarize = |types: Option<Vec<ColType>>| {
                let mut s = Summarizer::new(1, types);
                for v in values {
                    s.cell(*v);
                    s.end_row();
                }
                s.finish(vec!["c".into()])
            };
            let inferred = summarize(None);
            let known = summarize(Some(vec![ty]));
            if ty != ColType::String {
                assert_eq!(inferred.columns[0].ty, ty);
            }
            let mut inferred = inferred;
            inferred.columns[0].ty = ty;
            if ty == ColType::String {
                // Text compares as text whatever its values look like.
                inferred.columns[0].min = Some("10".into());
                inferred.columns[0].max = Some("West".into());
            }
            assert_eq!(known, inferred, "{ty:?}");
        }
    }

    /// Summaries of parts of a table merge into the summary of the whole,
    /// float sums exactly, whatever the split.
    #[test]
    fn an_integer_hashes_as_its_text_whatever_came_before() {
        let mut memo = Memo::new();
        let edges = [
            i64::MIN,
            i64::MIN + 1,
            i64::MAX,
            -1000,
            -101,
            -100,
            -99,
            -1,
            0,
        ];
        let more = [1, 9, 10, 99, 100, 101, 199, 200, 1000, 1001, 123_456_789];
        let again = (-300..300).chain((0..50).map(|k| k * 7_919 - 1_000_000));
        for i in edges.into_iter().chain(more).chain(again).chain(edges) {
            let text = fnv1a(itoa::Buffer::new().format(i));
            assert_eq!(memo.int_text(i), text, "{i}");
            assert_eq!(memo.int(i), text, "{i}");
        }
    }

    #[test]
    fn a_float_hashes_as_its_text_whatever_came_before() {
        let mut memo = Memo::new();
        let mut scratch = String::new();
        let edges = [
            0.0, -0.0, 0.5, -0.5, -0.125, 0.875, 1.0, -1.0, -1.5, 99.75, -100.25,
        ];
        let far = [
            1e11 - 0.5,
            1e11,
            -1e11,
            1e11 + 0.5,
            1e15,
            0.1,
            -0.3,
            1e-300,
            f64::MAX,
        ];
        let more = (-2000..2000).map(|k| f64::from(k) * 0.125 + 1234.0);
        let odd = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        for f in edges
            .into_iter()
            .chain(far)
            .chain(more)
            .chain(odd)
            .chain(edges)
        {
            let mut text = String::new();
            crate::data::num::push_f64(&mut text, f);
            assert_eq!(memo.float_text(f, &mut scratch), fnv1a(&text), "{f}");
            assert_eq!(memo.float(f, &mut scratch), fnv1a(&text), "{f}");
        }
    }

    #[test]
    fn merged_parts_summarise_as_the_whole() {
        use crate::data::stream::Collect as _;
        let values = ["0.1", "0.2", "0.3", "1e16", "-1e16", "-0", "0", "5", "x"];
        let feed = |s: &mut Summarizer, vs: &[&str]| {
            for v in vs {
                s.cell(Some(*v).filter(|v| *v != "x"));
                s.cell(Some(*v).filter(|v| !v.contains('e')));
                s.end_row();
            }
        };
        let mut whole = Summarizer::new(2, None);
        feed(&mut whole, &values);
        let whole = render(&whole.finish(vec!["a".into(), "b".into()]));
        for cut in 0..=values.len() {
            let (mut first, mut second) = (Summarizer::new(2, None), Summarizer::new(2, None));
            feed(&mut first, &values[cut..]);
            feed(&mut second, &values[..cut]);
            first.merge(second);
            assert_eq!(
                render(&first.finish(vec!["a".into(), "b".into()])),
                whole,
                "cut {cut}"
            );
        }
        // The exact sum: 0.1 + 0.2 + 0.3 + 5, the large terms cancelled.
        assert!(
            whole.contains("\na,float,1,0,0,0,-10000000000000000,10000000000000000,5.6,"),
            "{whole}"
        );
        assert!(whole.contains("\nb,string,2,0,0,0,-0,x,,"), "{whole}");
    }
}
