//! The types of a data snapshot's columns and the one rule per type by
//! which two cells compare (docs/baselines.md has the same table):
//!
//! | type | a cell compares… |
//! |---|---|
//! | `string` | as text, exactly (`007` ≠ `7`, `1.10` ≠ `1.1`) |
//! | `integer` | as an integer, exactly, at any size (no rounding through a float) |
//! | `decimal` | as a number, exactly, every digit (`1.50` = `1.5`, `1e3` = `1000`); no tolerance |
//! | `float` | without a tolerance, exactly as a decimal, every digit (`1.000000000000000001` ≠ `1.000000000000000002`, `1.10` = `1.1`, `-0` = `0`); with one, as doubles within it; `NaN` equals `NaN` only, `inf` and `-inf` only themselves |
//! | `bool` | as a truth value (`True` = `true`) |
//! | `json` | as JSON text, exactly: a column whose JSON values are of several kinds (`42` ≠ `"42"`), or nested |
//! | `null` | a column with no value: every cell null |
//!
//! A null cell equals only a null cell, whatever the type; an empty string
//! is a value, not null (CSV has no way to tell them apart and reads an
//! empty field as null). Cells of a column whose type changed compare by
//! the pair: an integer column that became float compares as floats; any
//! other change is a retyped column, its cells compared as text.
//!
//! A CSV file says no types: each column's type is inferred from its
//! values ([`value_of`], [`widen`]). JSON carries its own, and Parquet and
//! Delta their schema's.

use std::cmp::Ordering;

use super::num::{Exact, same_number};

/// The type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ColType {
    /// Every value is null.
    Null,
    /// `true` / `false`.
    Bool,
    /// Whole numbers, of any size.
    Integer,
    /// Exact decimal numbers (Parquet and Delta decimals).
    Decimal,
    /// Floating-point numbers.
    Float,
    /// Text.
    String,
    /// JSON values of more than one kind, or nested ones, each cell its
    /// JSON text.
    Json,
}

impl ColType {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            ColType::Null => "null",
            ColType::Bool => "bool",
            ColType::Integer => "integer",
            ColType::Decimal => "decimal",
            ColType::Float => "float",
            ColType::String => "string",
            ColType::Json => "json",
        }
    }

    pub(super) fn parse(s: &str) -> Option<ColType> {
        [
            ColType::Null,
            ColType::Bool,
            ColType::Integer,
            ColType::Decimal,
            ColType::Float,
            ColType::String,
            ColType::Json,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }

    pub(super) fn numeric(self) -> bool {
        matches!(self, ColType::Integer | ColType::Decimal | ColType::Float)
    }

    /// Whether a column of type `self` in the snapshot and `now` in the
    /// output is the same column, not a retyped one: numbers stay numbers
    /// (a float column whose values happen to be whole reads as integer),
    /// and a column with no value has no type to change.
    pub(super) fn compatible(self, now: ColType) -> bool {
        self == now
            || (self.numeric() && now.numeric())
            || self == ColType::Null
            || now == ColType::Null
    }
}

/// How the cells of a column pair compare, from the types on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rule {
    Text,
    Integer,
    Decimal,
    Float,
    Bool,
}

impl Rule {
    /// The rule for cells of a `was` column (the snapshot) against a `now`
    /// column (the output).
    pub(super) fn of(was: ColType, now: ColType) -> Rule {
        use ColType::{Bool, Decimal, Float, Integer, Null};
        match (was, now) {
            (Integer, Integer) | (Integer, Null) | (Null, Integer) => Rule::Integer,
            (Decimal, Decimal | Integer | Null) | (Integer | Null, Decimal) => Rule::Decimal,
            (a, b) if a.numeric() && b.numeric() => Rule::Float,
            (Float, Null) | (Null, Float) => Rule::Float,
            (Bool, Bool) | (Bool, Null) | (Null, Bool) => Rule::Bool,
            _ => Rule::Text,
        }
    }

    /// The rule of one column, for sorting it.
    pub(super) fn of_column(ty: ColType) -> Rule {
        Rule::of(ty, ty)
    }

    /// Whether two cells are the same value under this rule; a float
    /// within `abs + rel * |was|` of the snapshot's is (without a
    /// tolerance: the same decimal, [`Exact`]).
    pub(super) fn same(self, was: Option<&str>, now: Option<&str>, (abs, rel): (f64, f64)) -> bool {
        let (a, b) = match (was, now) {
            (None, None) => return true,
            (Some(a), Some(b)) => (a, b),
            _ => return false,
        };
        if a == b {
            return true;
        }
        match self {
            Rule::Text => false,
            Rule::Integer => match (integer(a), integer(b)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            },
            Rule::Decimal => same_number(a, b),
            Rule::Float => match (float(a), float(b)) {
                (Some(x), Some(y)) if x.is_nan() || y.is_nan() => x.is_nan() && y.is_nan(),
                // Without a tolerance, exactly: no digit is lost to a double.
                (Some(x), Some(y)) if abs == 0.0 && rel == 0.0 => {
                    match (Exact::parse(a), Exact::parse(b)) {
                        (Some(p), Some(q)) => p == q,
                        // `inf` and `-inf` equal only themselves.
                        (None, None) => x == y,
                        _ => false,
                    }
                }
                (Some(x), Some(y)) if x.is_infinite() || y.is_infinite() => x == y,
                (Some(x), Some(y)) => (y - x).abs() <= abs + rel * x.abs(),
                _ => false,
            },
            Rule::Bool => match (boolean(a), boolean(b)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            },
        }
    }

    /// How two cells sort under this rule: integers and decimals exactly,
    /// floats as numbers (then as text, so only equal text is equal),
    /// anything else as text; null first.
    pub(super) fn cmp(self, a: Option<&str>, b: Option<&str>) -> Ordering {
        let (x, y) = match (a, b) {
            (Some(x), Some(y)) if x != y => (x, y),
            _ => return a.cmp(&b),
        };
        let by_value = match self {
            Rule::Integer => match (integer(x), integer(y)) {
                (Some(i), Some(j)) => Some(cmp_integer(i, j)),
                _ => None,
            },
            Rule::Decimal => match (Exact::parse(x), Exact::parse(y)) {
                (Some(i), Some(j)) => Some(i.cmp(&j)),
                _ => None,
            },
            Rule::Float => match (float(x), float(y)) {
                (Some(i), Some(j)) => Some(i.total_cmp(&j)),
                _ => None,
            },
            Rule::Text | Rule::Bool => None,
        };
        by_value.unwrap_or(Ordering::Equal).then_with(|| x.cmp(y))
    }
}

/// An integer's text made canonical: its sign (true: negative) and its
/// digits without leading zeros; None when `s` is not an integer.
pub(super) fn integer(s: &str) -> Option<(bool, &str)> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    Some(if digits.is_empty() {
        (false, "0")
    } else {
        (negative, digits)
    })
}

/// How two canonical integers ([`integer`]) order.
pub(super) fn cmp_integer((an, a): (bool, &str), (bn, b): (bool, &str)) -> Ordering {
    let magnitude = a.len().cmp(&b.len()).then_with(|| a.cmp(b));
    match (an, bn) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    }
}

/// The words a float column may hold for its values that are not finite
/// (as pandas, Spark and Rust write them).
const NOT_FINITE: &[&str] = &[
    "NaN",
    "nan",
    "NAN",
    "inf",
    "+inf",
    "-inf",
    "Inf",
    "+Inf",
    "-Inf",
    "INF",
    "-INF",
    "Infinity",
    "+Infinity",
    "-Infinity",
];

/// A float's value: a number with at least one digit, or one of the
/// words of [`NOT_FINITE`].
pub(super) fn float(s: &str) -> Option<f64> {
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    if !digit && !NOT_FINITE.contains(&s) {
        return None;
    }
    s.parse::<f64>().ok()
}

/// A truth value, in any case.
pub(super) fn boolean(s: &str) -> Option<bool> {
    if s.eq_ignore_ascii_case("true") {
        Some(true)
    } else if s.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// The type a text cell of a CSV file reads as: an integer (`-12`, of any
/// size), a float (`1.5`, `1e3`, `NaN`, `-inf`), a truth value, else text.
/// A number written with a leading zero (`007`, `02134`) is text: numbers
/// do not keep their leading zeros, codes and identifiers do.
pub(super) fn value_of(v: &str) -> ColType {
    let unsigned = v.strip_prefix('-').unwrap_or(v);
    let leading_zero =
        unsigned.len() > 1 && unsigned.starts_with('0') && unsigned.as_bytes()[1].is_ascii_digit();
    if leading_zero || v.starts_with('+') {
        ColType::String
    } else if integer(v).is_some() {
        ColType::Integer
    } else if float(v).is_some() {
        ColType::Float
    } else if boolean(v).is_some() {
        ColType::Bool
    } else {
        ColType::String
    }
}

/// The type of a column holding values of type `a` and a value of type
/// `b`: integers and floats make floats; any other mix is text.
pub(super) fn widen(a: ColType, b: ColType) -> ColType {
    match (a, b) {
        (ColType::Null, t) | (t, ColType::Null) => t,
        (a, b) if a == b => a,
        (a, b) if a.numeric() && b.numeric() => ColType::Float,
        _ => ColType::String,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXACT: (f64, f64) = (0.0, 0.0);

    #[test]
    fn each_type_compares_by_its_own_rule() {
        // Text: exactly.
        let text = Rule::of(ColType::String, ColType::String);
        assert!(!text.same(Some("02134"), Some("2134"), (1.0, 0.0)));
        assert!(!text.same(Some("1.10"), Some("1.1"), (1.0, 0.0)));
        assert!(!text.same(Some(""), None, EXACT));
        // Integers: exactly, at any size, whatever the tolerance.
        let int = Rule::of(ColType::Integer, ColType::Integer);
        assert!(!int.same(
            Some("1234567890123456789"),
            Some("1234567890123456788"),
            (10.0, 0.1)
        ));
        assert!(int.same(Some("-0"), Some("0"), EXACT));
        assert!(!int.same(
            Some("99999999999999999999999"),
            Some("99999999999999999999998"),
            EXACT
        ));
        // Decimals: exactly, as numbers.
        let dec = Rule::of(ColType::Decimal, ColType::Decimal);
        assert!(dec.same(Some("1.50"), Some("1.5"), EXACT));
        assert!(!dec.same(Some("1.50"), Some("1.51"), (1.0, 0.0)));
        // Floats: within the tolerance; NaN and the infinities as values.
        let float = Rule::of(ColType::Float, ColType::Float);
        assert!(float.same(Some("1.10"), Some("1.1"), EXACT));
        assert!(float.same(Some("2.5"), Some("2.505"), (0.01, 0.0)));
        assert!(!float.same(Some("2.5"), Some("2.52"), (0.01, 0.0)));
        assert!(float.same(Some("NaN"), Some("nan"), EXACT));
        assert!(!float.same(Some("0"), Some("NaN"), (1e9, 1e9)));
        assert!(!float.same(Some("inf"), Some("-inf"), (1e9, 1e9)));
        assert!(!float.same(Some("1e308"), Some("inf"), (1e9, 1e9)));
        // Without a tolerance, floats compare exactly, as decimals; with
        // one, as doubles.
        assert!(!float.same(
            Some("1.000000000000000001"),
            Some("1.000000000000000002"),
            EXACT
        ));
        assert!(!float.same(Some("9007199254740993"), Some("9007199254740992"), EXACT));
        assert!(float.same(
            Some("9007199254740993"),
            Some("9007199254740992"),
            (1.0, 0.0)
        ));
        assert!(float.same(Some("1e3"), Some("1000.0"), EXACT));
        assert!(float.same(Some("-0"), Some("0.0"), EXACT));
        assert!(float.same(Some("inf"), Some("Infinity"), EXACT));
        assert!(!float.same(Some("1e400"), Some("inf"), EXACT));
        assert!(!float.same(Some("-inf"), Some("inf"), EXACT));
        assert!(dec.same(Some("1e3"), Some("1000.00"), EXACT));
        assert!(!dec.same(
            Some("12345678901234567890.123456789012345678"),
            Some("12345678901234567890.123456789012345679"),
            EXACT
        ));
        // An integer column that became float compares as floats.
        assert_eq!(Rule::of(ColType::Integer, ColType::Float), Rule::Float);
        // Bools: as truth values.
        assert!(Rule::Bool.same(Some("True"), Some("true"), EXACT));
        // A retyped column compares as text.
        assert_eq!(Rule::of(ColType::Integer, ColType::String), Rule::Text);
        assert!(!Rule::of(ColType::Integer, ColType::Json).same(Some("42"), Some("\"42\""), EXACT));
    }

    #[test]
    fn csv_text_reads_as_the_value_it_writes() {
        assert_eq!(value_of("02134"), ColType::String);
        assert_eq!(value_of("007"), ColType::String);
        assert_eq!(value_of("0"), ColType::Integer);
        assert_eq!(value_of("-0.5"), ColType::Float);
        assert_eq!(value_of("0.5"), ColType::Float);
        assert_eq!(value_of("1234567890123456789012345"), ColType::Integer);
        assert_eq!(value_of("1.10"), ColType::Float);
        assert_eq!(value_of("NaN"), ColType::Float);
        assert_eq!(value_of("-inf"), ColType::Float);
        assert_eq!(value_of("Nan"), ColType::String);
        assert_eq!(value_of("+5"), ColType::String);
        assert_eq!(value_of("True"), ColType::Bool);
        assert_eq!(widen(ColType::Integer, ColType::Float), ColType::Float);
        assert_eq!(widen(ColType::Integer, ColType::String), ColType::String);
    }

    #[test]
    fn integers_and_decimals_sort_exactly() {
        let int = Rule::Integer;
        assert_eq!(
            int.cmp(Some("1234567890123456788"), Some("1234567890123456789")),
            Ordering::Less
        );
        assert_eq!(int.cmp(Some("-10"), Some("-9")), Ordering::Less);
        assert_eq!(int.cmp(Some("9"), Some("10")), Ordering::Less);
        assert_eq!(int.cmp(None, Some("0")), Ordering::Less);
        assert_eq!(
            Rule::Decimal.cmp(Some("-1.5"), Some("-1.25")),
            Ordering::Less
        );
        assert_eq!(Rule::Decimal.cmp(Some("0.05"), Some("0.5")), Ordering::Less);
        assert_eq!(
            Rule::Decimal.cmp(Some("1.000000000000000002"), Some("1.000000000000000001")),
            Ordering::Greater
        );
        assert_eq!(Rule::Text.cmp(Some("10"), Some("9")), Ordering::Less);
    }
}
