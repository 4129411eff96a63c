//! Numbers of data snapshots: floats written as Rust's `Display` writes
//! them (the text a snapshot has always held), fast; float sums that are
//! exact, so a summary's sum does not depend on the order of the rows nor
//! on how its reading was split between threads; and numbers' texts read
//! as exact decimals ([`Exact`], [`DecimalSum`]), so that no digit a file
//! wrote is lost to a double.

use std::cmp::Ordering;
use std::fmt::Write as _;

/// A number's text read as an exact decimal, nothing rounded: its sign,
/// its significant digits (no leading or trailing zeros) and where the
/// decimal point stands among them. `1.50` = `1.5`, `1e3` = `1000`, `-0` =
/// `0`, and `1.000000000000000001` ≠ `1.000000000000000002`, as
/// `9007199254740993` ≠ `9007199254740992`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Exact<'a> {
    negative: bool,
    /// The significant digits: those written before the point, then
    /// those after it.
    head: &'a [u8],
    tail: &'a [u8],
    /// The value is `0.DIGITS` times `10^exp` (0 for zero).
    exp: i64,
}

impl<'a> Exact<'a> {
    /// The number `s` is (`-12`, `1.50`, `.5`, `1.`, `-1.5e-7`, `1E+3`):
    /// None for any other text (`NaN`, `inf`, `1_000`), and for an
    /// exponent of more than 18 digits.
    pub(super) fn parse(s: &'a str) -> Option<Exact<'a>> {
        let b = s.as_bytes();
        let (negative, b) = match b.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, b),
        };
        let digits = |b: &'a [u8]| b.split_at(b.iter().take_while(|c| c.is_ascii_digit()).count());
        let zeros = |b: &[u8]| b.iter().take_while(|&&c| c == b'0').count();
        let (int, rest) = digits(b);
        let (frac, rest) = match rest.split_first() {
            Some((b'.', after)) => digits(after),
            _ => (&[][..], rest),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let exp: i64 = match rest.split_first() {
            None => 0,
            Some((b'e' | b'E', e)) => {
                let (minus, e) = match e.split_first() {
                    Some((b'-', e)) => (true, e),
                    Some((b'+', e)) => (false, e),
                    _ => (false, e),
                };
                if e.is_empty() || !e.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let e = &e[zeros(e)..];
                if e.len() > 18 {
                    return None;
                }
                let e = e.iter().fold(0i64, |n, &c| n * 10 + i64::from(c - b'0'));
                if minus { -e } else { e }
            }
            Some(_) => return None,
        };
        let trailing =
            |b: &'a [u8]| &b[..b.len() - b.iter().rev().take_while(|&&c| c == b'0').count()];
        let int = &int[zeros(int)..];
        // Where the point stands before the first significant digit.
        let (head, tail, point) = if int.is_empty() {
            let lead = zeros(frac);
            (int, &frac[lead..], -(lead as i64))
        } else {
            (int, frac, int.len() as i64)
        };
        let tail = trailing(tail);
        let head = if tail.is_empty() {
            trailing(head)
        } else {
            head
        };
        if head.is_empty() && tail.is_empty() {
            return Some(Exact {
                negative: false,
                head,
                tail,
                exp: 0,
            });
        }
        Some(Exact {
            negative,
            head,
            tail,
            exp: point.checked_add(exp)?,
        })
    }

    fn is_zero(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty()
    }

    fn digits(&self) -> impl Iterator<Item = &u8> + '_ {
        self.head.iter().chain(self.tail)
    }

    /// How two numbers order, as values.
    pub(super) fn cmp(&self, other: &Exact<'_>) -> Ordering {
        let sign = |x: &Exact<'_>| match (x.is_zero(), x.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        let by_sign = sign(self).cmp(&sign(other));
        if by_sign != Ordering::Equal || self.is_zero() {
            return by_sign;
        }
        let magnitude = (self.exp.cmp(&other.exp)).then_with(|| self.digits().cmp(other.digits()));
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    /// The number as a whole number of units of `10^-scale`, when its
    /// digits fit 128 bits: `1.25` is `(125, 2)`, `1e3` `(1000, 0)`.
    fn units(&self) -> Option<(i128, u32)> {
        let n = (self.head.len() + self.tail.len()) as i64;
        // 38 digits always fit 128 bits.
        if n > 38 {
            return None;
        }
        let digits = self
            .digits()
            .fold(0i128, |u, &c| u * 10 + i128::from(c - b'0'));
        let signed = if self.negative { -digits } else { digits };
        let scale = n.checked_sub(self.exp)?;
        if scale >= 0 {
            return Some((signed, u32::try_from(scale).ok()?));
        }
        let up = 10i128.checked_pow(u32::try_from(-scale).ok()?)?;
        Some((signed.checked_mul(up)?, 0))
    }
}

impl std::fmt::Display for Exact<'_> {
    /// The number written plainly, as `Display` writes a double: no
    /// exponent, no trailing zeros (`1.50` as `1.5`, `1e3` as `1000`, `-0`
    /// as `0`); one whose point stands more than 400 places away, beyond
    /// any double, as `1.5e-402`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        // ASCII digits only.
        fn text(b: &[u8]) -> &str {
            std::str::from_utf8(b).unwrap_or("")
        }
        let digits: Vec<u8> = self.digits().copied().collect();
        let n = digits.len() as i64;
        if self.negative {
            f.write_str("-")?;
        }
        if !(-400..=400).contains(&self.exp) {
            let (first, rest) = digits.split_at(1);
            f.write_str(text(first))?;
            if !rest.is_empty() {
                write!(f, ".{}", text(rest))?;
            }
            return write!(f, "e{}", self.exp - 1);
        }
        if self.exp <= 0 {
            f.write_str("0.")?;
            for _ in 0..-self.exp {
                f.write_str("0")?;
            }
            f.write_str(text(&digits))
        } else if self.exp < n {
            let (int, frac) = digits.split_at(self.exp as usize);
            write!(f, "{}.{}", text(int), text(frac))
        } else {
            f.write_str(text(&digits))?;
            for _ in 0..self.exp - n {
                f.write_str("0")?;
            }
            Ok(())
        }
    }
}

impl PartialEq for Exact<'_> {
    fn eq(&self, other: &Exact<'_>) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

/// Whether `a` and `b` are texts of one number, exactly.
pub(super) fn same_number(a: &str, b: &str) -> bool {
    matches!((Exact::parse(a), Exact::parse(b)), (Some(x), Some(y)) if x == y)
}

/// The exact sum of numbers' texts ([`Exact`]): a whole number of units
/// of `10^-scale`, the scale the finest of the numbers'. Lost once a
/// number or the sum leaves 128 bits at that scale (the sum of a column
/// is then the rounded one of [`ExactSum`]).
#[derive(Clone, Debug, Default)]
pub(super) struct DecimalSum {
    units: i128,
    scale: u32,
    lost: bool,
}

impl DecimalSum {
    pub(super) fn add(&mut self, x: &Exact<'_>) {
        if self.lost {
            return;
        }
        match x.units() {
            Some((units, scale)) => self.add_units(units, scale),
            None => self.lost = true,
        }
    }

    fn add_units(&mut self, units: i128, scale: u32) {
        let up = |u: i128, by: u32| 10i128.checked_pow(by).and_then(|p| u.checked_mul(p));
        let sum = if scale == self.scale {
            self.units.checked_add(units)
        } else if scale > self.scale {
            up(self.units, scale - self.scale).and_then(|a| a.checked_add(units))
        } else {
            up(units, self.scale - scale).and_then(|b| b.checked_add(self.units))
        };
        match sum {
            Some(sum) => {
                self.units = sum;
                self.scale = self.scale.max(scale);
            }
            None => self.lost = true,
        }
    }

    /// Add every number of `other`.
    pub(super) fn merge(&mut self, other: &DecimalSum) {
        if other.lost {
            self.lost = true;
        } else if !self.lost {
            self.add_units(other.units, other.scale);
        }
    }

    /// The sum written out (`12.5`, `-0.001`, `1000`), None once lost.
    pub(super) fn value(&self) -> Option<String> {
        if self.lost {
            return None;
        }
        let digits = self.units.unsigned_abs().to_string();
        let scale = self.scale as usize;
        let mut out = String::with_capacity(digits.len() + scale + 3);
        if self.units < 0 {
            out.push('-');
        }
        if digits.len() > scale {
            out.push_str(&digits[..digits.len() - scale]);
        } else {
            out.push('0');
        }
        let frac = &digits[digits.len().saturating_sub(scale)..];
        let frac = frac.trim_end_matches('0');
        if !frac.is_empty() {
            out.push('.');
            out.extend(std::iter::repeat_n('0', scale - (digits.len().min(scale))));
            out.push_str(frac);
        }
        Some(out)
    }
}

/// Append `v` as `format!("{v}")` writes it (shortest round-trip digits,
/// never an exponent: `1e21` is `1000000000000000000000`), through ryu's
/// shortest digits, several times faster than `Display`.
pub(super) fn push_f64(out: &mut String, v: f64) {
    let bits = v.to_bits();
    let (exp, frac) = (((bits >> 52) & 0x7ff) as i32, bits & ((1 << 52) - 1));
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp - 1075)
    };
    if v.is_finite() && exact(out, v.is_sign_negative(), m, e) {
        return;
    }
    let mut buf = ryu::Buffer::new();
    if !v.is_finite() || !expand(out, buf.format_finite(v), m, e) {
        let _ = write!(out, "{v}");
    }
}

/// Write the value `m * 2^e` (negative when `negative`) exactly when its
/// exact decimal digits are at most 15: no other text of 15 digits or
/// fewer reads back as the same double, so it is the shortest, the one
/// `Display` writes. Whole numbers and halves, quarters, eighths are
/// written so without ryu. False, with nothing written, for the others.
fn exact(out: &mut String, negative: bool, m: u64, e: i32) -> bool {
    const LIMIT: u128 = 1_000_000_000_000_000;
    let sign = if negative { "-" } else { "" };
    if m == 0 {
        out.push_str(sign);
        out.push('0');
        return true;
    }
    let (m, e) = (m >> m.trailing_zeros(), e + m.trailing_zeros() as i32);
    if e >= 0 {
        if e > 50 || (u128::from(m) << e) >= LIMIT {
            return false;
        }
        out.push_str(sign);
        // Under 10^15: it fits 64 bits.
        out.push_str(itoa::Buffer::new().format(m << e));
        return true;
    }
    // m * 2^e = m * 5^-e / 10^-e: the digits m * 5^-e, -e of them after
    // the point.
    if -e > 22 {
        return false;
    }
    let digits = u128::from(m) * 5u128.pow((-e) as u32);
    if digits >= LIMIT {
        return false;
    }
    let mut buf = itoa::Buffer::new();
    let digits = buf.format(digits as u64);
    let after = (-e) as usize;
    out.push_str(sign);
    if digits.len() > after {
        let (a, b) = digits.split_at(digits.len() - after);
        out.push_str(a);
        out.push('.');
        out.push_str(b);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', after - digits.len()));
        out.push_str(digits);
    }
    true
}

/// [`push_f64`] of an `f32`, as `format!("{v}")` writes it.
pub(super) fn push_f32(out: &mut String, v: f32) {
    let bits = v.to_bits();
    let (exp, frac) = (
        ((bits >> 23) & 0xff) as i32,
        u64::from(bits & ((1 << 23) - 1)),
    );
    let (m, e) = if exp == 0 {
        (frac, -149)
    } else {
        (frac | (1 << 23), exp - 150)
    };
    let mut buf = ryu::Buffer::new();
    if !v.is_finite() || !expand(out, buf.format_finite(v), m, e) {
        let _ = write!(out, "{v}");
    }
}

/// Write ryu's text (`-1.25`, `1e21`, `1.5e-7`, `2.0`) of the value
/// `m * 2^e` as `Display` does: the same digits, the decimal point where
/// the exponent puts it, no trailing `.0`. False, with nothing written,
/// where the two may part ([`may_tie`]).
fn expand(out: &mut String, ryu: &str, m: u64, e: i32) -> bool {
    let bytes = ryu.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    // The digits (ryu writes at most 17), where the point stands among
    // them, and the exponent.
    let mut digits = [0u8; 24];
    let (mut n, mut point, mut exp) = (0usize, None, 0i32);
    let mut rest = bytes.iter().skip(usize::from(negative));
    for &b in rest.by_ref() {
        match b {
            b'0'..=b'9' if n < digits.len() => {
                digits[n] = b;
                n += 1;
            }
            b'.' => point = Some(n),
            b'e' => break,
            _ => return false,
        }
    }
    let mut exp_negative = false;
    for &b in rest {
        match b {
            b'-' => exp_negative = true,
            b'0'..=b'9' => exp = exp * 10 + i32::from(b - b'0'),
            _ => return false,
        }
    }
    if exp_negative {
        exp = -exp;
    }
    let all = &digits[..n];
    let lead = all.iter().position(|&b| b != b'0').unwrap_or(n);
    let end = all.iter().rposition(|&b| b != b'0').map_or(lead, |i| i + 1);
    let significant = &all[lead..end];
    if may_tie(m, e, significant.len()) {
        return false;
    }
    // Digits before the point, counted from the first significant one.
    let point = point.unwrap_or(n) as i32 + exp - lead as i32;
    // ASCII digits only.
    let digits = std::str::from_utf8(significant).unwrap_or("0");
    if negative {
        out.push('-');
    }
    if digits.is_empty() {
        out.push('0');
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    } else if point as usize >= digits.len() {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        let (a, b) = digits.split_at(point as usize);
        out.push_str(a);
        out.push('.');
        out.push_str(b);
    }
    true
}

/// Whether the value `m * 2^e` may lie exactly halfway between two
/// shortest texts of `n` digits: where ryu (ties to even) and `Display`
/// (ties away) part. That needs its exact decimal digits to be `n + 1`
/// of them ending in 5; those values go through `Display`.
fn may_tie(m: u64, e: i32, n: usize) -> bool {
    if m == 0 {
        return false;
    }
    let (m, e) = (m >> m.trailing_zeros(), e + m.trailing_zeros() as i32);
    // The exact value's significant digits as an integer, trailing
    // zeros dropped: m * 5^-e for a fraction, m * 2^e for a whole number.
    let exact: u128 = if e < 0 {
        // m * 5^26 has more than 18 digits: no tie with 17 or fewer.
        if -e > 25 {
            return false;
        }
        u128::from(m) * 5u128.pow((-e) as u32)
    } else {
        if e + 64 - m.leading_zeros() as i32 > 127 {
            return true;
        }
        let mut x = u128::from(m) << e;
        while x % 10 == 0 {
            x /= 10;
        }
        x
    };
    exact % 10 == 5 && exact.ilog10() as usize == n
}

/// Bits of one limb of [`ExactSum`]; a limb holds this many bits of the
/// sum, the bits above them are carries not yet moved.
const LIMB_BITS: u32 = 32;
/// Limbs to hold any finite double (2^-1074 to 2^1024) as a multiple of
/// 2^-1074, with room for 2^64 of them added: 2,162 bits.
const LIMBS: usize = 70;
/// Adds between two moves of the carries: each adds under 2^32 to a limb.
const CARRY_EVERY: u32 = 1 << 30;

/// The exact sum of doubles: a fixed-point integer in units of 2^-1074
/// (every double is a whole number of them), kept in limbs whose carries
/// are moved now and then. Adding is a few integer operations; the sum is
/// rounded once, when asked for, to the nearest double.
#[derive(Clone, Debug)]
pub(super) struct ExactSum {
    limbs: [i64; LIMBS],
    adds: u32,
}

impl Default for ExactSum {
    fn default() -> ExactSum {
        ExactSum {
            limbs: [0; LIMBS],
            adds: 0,
        }
    }
}

impl ExactSum {
    /// Add a finite `x` (NaN and infinities are counted elsewhere).
    pub(super) fn add(&mut self, x: f64) {
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as u32;
        let frac = bits & ((1 << 52) - 1);
        // x = m * 2^(e - 1074).
        let (m, e) = if exp == 0 {
            (frac, 0)
        } else {
            (frac | (1 << 52), exp - 1)
        };
        if m == 0 {
            return;
        }
        let (i, off) = ((e / LIMB_BITS) as usize, e % LIMB_BITS);
        let v = u128::from(m) << off;
        let mask = (1u128 << LIMB_BITS) - 1;
        let parts = [v & mask, (v >> LIMB_BITS) & mask, v >> (2 * LIMB_BITS)];
        let negative = bits >> 63 == 1;
        for (k, part) in parts.into_iter().enumerate() {
            let part = part as i64;
            self.limbs[i + k] += if negative { -part } else { part };
        }
        self.adds += 1;
        if self.adds == CARRY_EVERY {
            self.carry();
        }
    }

    /// Add every term of `other`.
    pub(super) fn merge(&mut self, other: &ExactSum) {
        self.carry();
        let mut other = other.clone();
        other.carry();
        for (a, b) in self.limbs.iter_mut().zip(other.limbs) {
            *a += b;
        }
        self.carry();
    }

    /// Move each limb's bits above [`LIMB_BITS`] into the next one: every
    /// limb but the last in 0..2^32, the last holding the sign.
    fn carry(&mut self) {
        for k in 0..LIMBS - 1 {
            let c = self.limbs[k] >> LIMB_BITS;
            self.limbs[k] -= c << LIMB_BITS;
            self.limbs[k + 1] += c;
        }
        self.adds = 0;
    }

    /// The sum, rounded once to the nearest double (ties to even).
    pub(super) fn value(&self) -> f64 {
        let mut s = self.clone();
        s.carry();
        let negative = s.limbs[LIMBS - 1] < 0;
        if negative {
            // The magnitude: negate the two's complement limbs.
            let mut borrow = 0i64;
            for l in s.limbs.iter_mut() {
                let v = -*l - borrow;
                borrow = i64::from(v < 0);
                *l = v + (borrow << LIMB_BITS);
            }
        }
        let Some(top) = s.limbs.iter().rposition(|&l| l != 0) else {
            return 0.0;
        };
        // The top three limbs, and whether any bit below them is set (it
        // decides a rounding that would otherwise be a tie).
        let low = top.saturating_sub(2);
        let mut head: u128 = 0;
        for k in (low..=top).rev() {
            head = (head << LIMB_BITS) | s.limbs[k] as u128;
        }
        if s.limbs[..low].iter().any(|&l| l != 0) {
            head |= 1;
        }
        let scale = (low as i32) * LIMB_BITS as i32 - 1074;
        let v = head as f64 * 2f64.powi(scale.max(-1022)) * 2f64.powi((scale + 1022).min(0));
        if negative { -v } else { v }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_written_as_display_writes_them() {
        let values = [
            0.0,
            -0.0,
            1.0,
            2.0,
            -2.5,
            0.5,
            1.25,
            84.97,
            120.5,
            1e21,
            1e22,
            1.5e-7,
            123456789.0,
            0.1 + 0.2,
            1e-300,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            1e15,
            1e16,
            1e17,
            3.0e-5,
            -1234.5678,
            100.0,
            1000000.0,
            0.001,
            // Halfway between two shortest texts: ryu and Display part here.
            f64::from_bits(14057960512768232225),
        ];
        for v in values {
            let mut s = String::new();
            push_f64(&mut s, v);
            assert_eq!(s, format!("{v}"), "{v:e}");
        }
        for v in [0.5f32, 1.1f32, 3.4e38f32, 1e-45f32, -7.25f32, 16777216.0f32] {
            let mut s = String::new();
            push_f32(&mut s, v);
            assert_eq!(s, format!("{v}"), "{v:e}");
        }
    }

    #[test]
    fn a_numbers_text_reads_as_its_exact_value() {
        let same = [
            ("1.50", "1.5"),
            ("1e3", "1000"),
            ("1E+3", "1000.000"),
            ("-0", "0"),
            ("-0.0e5", "+0"),
            (".5", "0.50"),
            ("1.", "1"),
            ("00.00100", "1e-3"),
            ("10.5", "1.05e1"),
            ("9.007199254740993e15", "9007199254740993"),
            ("1.000000000000000001", "1000000000000000001e-18"),
        ];
        for (a, b) in same {
            assert!(same_number(a, b), "{a} = {b}");
        }
        let other = [
            ("1.000000000000000001", "1.000000000000000002"),
            ("9007199254740993", "9007199254740992"),
            ("1.5", "-1.5"),
            ("1e3", "1e-3"),
            ("10", "1"),
            ("0.1", "0.10000000000000002"),
        ];
        for (a, b) in other {
            assert!(!same_number(a, b), "{a} != {b}");
        }
        for text in [
            "",
            "-",
            ".",
            "e5",
            "1e",
            "1e+",
            "1.5.2",
            "NaN",
            "inf",
            "1_000",
            "0x10",
            "1e1234567890123456789",
        ] {
            assert!(Exact::parse(text).is_none(), "{text}");
        }
        let plain = |a: &str| Exact::parse(a).unwrap().to_string();
        for (text, written) in [
            ("120.50", "120.5"),
            ("1e16", "10000000000000000"),
            ("-1.5E-3", "-0.0015"),
            ("-0.0", "0"),
            ("00.00100", "0.001"),
            ("9.007199254740993e15", "9007199254740993"),
            ("1.000000000000000001", "1.000000000000000001"),
            ("1.25e-402", "1.25e-402"),
            ("-7e500", "-7e500"),
        ] {
            assert_eq!(plain(text), written, "{text}");
        }
        let order = |a: &str, b: &str| Exact::parse(a).unwrap().cmp(&Exact::parse(b).unwrap());
        assert_eq!(order("-2", "-1.5"), Ordering::Less);
        assert_eq!(order("-0.001", "0"), Ordering::Less);
        assert_eq!(order("0.05", "0.5"), Ordering::Less);
        assert_eq!(order("99", "100"), Ordering::Less);
        assert_eq!(
            order("1.000000000000000002", "1.000000000000000001"),
            Ordering::Greater
        );
        assert_eq!(order("1.10", "1.1"), Ordering::Equal);
    }

    #[test]
    fn a_decimal_sum_is_exact_and_lost_only_past_128_bits() {
        let sum = |xs: &[&str]| {
            let mut s = DecimalSum::default();
            for x in xs {
                s.add(&Exact::parse(x).unwrap());
            }
            s.value()
        };
        assert_eq!(sum(&[]).as_deref(), Some("0"));
        assert_eq!(sum(&["0.1", "0.2", "0.3"]).as_deref(), Some("0.6"));
        assert_eq!(
            sum(&["1.000000000000000001", "0.5"]).as_deref(),
            Some("1.500000000000000001")
        );
        assert_eq!(sum(&["1e3", "-0.005", "2"]).as_deref(), Some("1001.995"));
        assert_eq!(sum(&["-1.25", "0.25"]).as_deref(), Some("-1"));
        assert_eq!(sum(&["0.001", "-0.002"]).as_deref(), Some("-0.001"));
        assert_eq!(sum(&["1e20", "1.5e-20"]), None);
        assert_eq!(sum(&["1234567890123456789012345678901234567890"]), None);
        // Merged in any split, the same sum.
        let (mut a, mut b) = (DecimalSum::default(), DecimalSum::default());
        a.add(&Exact::parse("12345678901234567890.123456789012345678").unwrap());
        b.add(&Exact::parse("0.5").unwrap());
        b.merge(&a);
        assert_eq!(
            b.value().as_deref(),
            Some("12345678901234567890.623456789012345678")
        );
    }

    #[test]
    fn the_exact_sum_is_the_rounded_exact_value_in_any_order() {
        let mut a = ExactSum::default();
        for x in [1e100, 1.0, -1e100, 0.5, 1e-300] {
            a.add(x);
        }
        assert_eq!(a.value(), 1.5);
        let xs: Vec<f64> = (0..10_000).map(|i| (i as f64) * 0.1 - 300.0).collect();
        let mut forward = ExactSum::default();
        xs.iter().for_each(|&x| forward.add(x));
        let mut backward = ExactSum::default();
        xs.iter().rev().for_each(|&x| backward.add(x));
        let (mut half1, mut half2) = (ExactSum::default(), ExactSum::default());
        xs[..5000].iter().for_each(|&x| half1.add(x));
        xs[5000..].iter().for_each(|&x| half2.add(x));
        half1.merge(&half2);
        assert_eq!(forward.value().to_bits(), backward.value().to_bits());
        assert_eq!(forward.value().to_bits(), half1.value().to_bits());
        let mut neg = ExactSum::default();
        neg.add(-2.5);
        neg.add(-0.25);
        assert_eq!(neg.value(), -2.75);
        assert_eq!(ExactSum::default().value(), 0.0);
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_double_is_written_as_display_writes_it(bits in any::<u64>()) {
            let v = f64::from_bits(bits);
            let mut s = String::new();
            push_f64(&mut s, v);
            prop_assert_eq!(s, format!("{}", v));
        }

        #[test]
        fn any_float_is_written_as_display_writes_it(bits in any::<u32>()) {
            let v = f32::from_bits(bits);
            let mut s = String::new();
            push_f32(&mut s, v);
            prop_assert_eq!(s, format!("{}", v));
        }

        /// Doubles of few significant bits, where ties between two
        /// shortest texts are.
        #[test]
        fn a_short_double_is_written_as_display_writes_it(m in 1u64..(1 << 20), e in -40i32..70) {
            let v = m as f64 * 2f64.powi(e);
            let mut s = String::new();
            push_f64(&mut s, v);
            prop_assert_eq!(s, format!("{}", v));
        }

        /// Two doubles order as the exact values of their texts, written
        /// either way, and equal only when they are one value.
        #[test]
        fn doubles_order_as_the_exact_values_of_their_texts(a in any::<u64>(), b in any::<u64>()) {
            let (a, b) = (f64::from_bits(a), f64::from_bits(b));
            prop_assume!(a.is_finite() && b.is_finite());
            let (x, y) = (a.to_string(), b.to_string());
            let (p, q) = (Exact::parse(&x).unwrap(), Exact::parse(&y).unwrap());
            prop_assert_eq!(p.cmp(&q), a.partial_cmp(&b).unwrap());
            // Written plainly, as `Display` writes a double.
            let plain = if a == 0.0 { "0".to_string() } else { x.clone() };
            prop_assert_eq!(p.to_string(), plain);
            let (e, big_e) = (format!("{:e}", a), format!("{:E}", b));
            prop_assert!(p == Exact::parse(&e).unwrap());
            prop_assert!(q == Exact::parse(&big_e).unwrap());
        }

        /// A decimal sum of whole numbers is their sum.
        #[test]
        fn a_decimal_sum_of_integers_is_their_sum(xs in proptest::collection::vec(any::<i64>(), 0..20)) {
            let mut s = DecimalSum::default();
            for x in &xs {
                s.add(&Exact::parse(&x.to_string()).unwrap());
            }
            let total: i128 = xs.iter().map(|&x| i128::from(x)).sum();
            prop_assert_eq!(s.value(), Some(total.to_string()));
        }

        #[test]
        fn a_sum_of_few_terms_is_the_correctly_rounded_one(a in -1e6f64..1e6, b in -1e6f64..1e6) {
            let mut s = ExactSum::default();
            s.add(a);
            s.add(b);
            // Two doubles add exactly into a double and an error term: the
            // correctly rounded sum is `a + b`.
            prop_assert_eq!(s.value(), a + b);
        }
    }
}
