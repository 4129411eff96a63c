//! Instants and days as the run record writes them: RFC 3339 in UTC with
//! fractional seconds only as far as they are not zero
//! (`2025-11-21T23:07:00.25Z`), and UTC days as `YYYY-MM-DD`.
//!
//! One time crate serves the library: chrono, which the JUnit writer
//! (quick-junit) needs anyway, so the libtest harness compiles no second.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An instant, to the nanosecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// 1970-01-01T00:00:00Z.
    #[cfg(test)]
    pub(crate) const UNIX_EPOCH: Timestamp = Timestamp(DateTime::UNIX_EPOCH);

    /// The current time.
    pub fn now() -> Timestamp {
        Timestamp(std::time::SystemTime::now().into())
    }

    /// The instant `ns` nanoseconds after the Unix epoch (negative:
    /// before); `None` outside the years 1677 to 2262.
    #[cfg(test)]
    pub(crate) fn from_nanosecond(ns: i128) -> Option<Timestamp> {
        i64::try_from(ns)
            .ok()
            .map(|ns| Timestamp(DateTime::from_timestamp_nanos(ns)))
    }

    /// Whole seconds since the Unix epoch.
    pub(crate) fn as_second(self) -> i64 {
        self.0.timestamp()
    }

    /// Nanoseconds since the Unix epoch.
    pub(crate) fn as_nanosecond(self) -> i128 {
        // Seconds times 10^9 fit an i128 for every instant chrono holds.
        i128::from(self.0.timestamp()) * 1_000_000_000 + i128::from(self.0.timestamp_subsec_nanos())
    }

    /// Milliseconds since the Unix epoch.
    pub fn as_millisecond(self) -> i64 {
        self.0.timestamp_millis()
    }

    /// The day (UTC) the instant falls on.
    pub(crate) fn date(self) -> Date {
        Date(self.0.date_naive())
    }

    /// The instant as `format` (chrono's `strftime` syntax) prints it.
    pub(crate) fn strftime(self, format: &str) -> String {
        self.0.format(format).to_string()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nanos = self.0.timestamp_subsec_nanos();
        let (day, time) = (self.0.date_naive(), self.0.time());
        // Written field by field: every case's evidence holds several, and
        // a strftime string is parsed anew each time it is used. Years of
        // more than four digits and leap seconds take chrono's way.
        if (0..=9999).contains(&day.year()) && nanos < 1_000_000_000 {
            write!(
                f,
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                day.year(),
                day.month(),
                day.day(),
                time.hour(),
                time.minute(),
                time.second()
            )?;
        } else {
            write!(f, "{}", self.0.format("%Y-%m-%dT%H:%M:%S"))?;
        }
        // A leap second's nanoseconds count past 10^9.
        let (mut digits, mut width) = (nanos % 1_000_000_000, 9);
        if digits != 0 {
            while digits % 10 == 0 {
                digits /= 10;
                width -= 1;
            }
            write!(f, ".{digits:0width$}")?;
        }
        f.write_str("Z")
    }
}

/// The text of an instant that is not RFC 3339.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not an RFC 3339 date-time such as 2025-11-21T23:07:00Z")]
pub struct ParseError(String);

impl FromStr for Timestamp {
    type Err = ParseError;

    /// An RFC 3339 date-time with any offset, taken to UTC.
    fn from_str(s: &str) -> Result<Timestamp, ParseError> {
        DateTime::parse_from_rfc3339(s)
            .map(|t| Timestamp(t.with_timezone(&Utc)))
            .map_err(|_| ParseError(s.to_string()))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Timestamp {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date-time" })
    }
}

/// A day of the calendar, `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Date(NaiveDate);

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.format("%Y-%m-%d"))
    }
}

impl FromStr for Date {
    type Err = ParseError;

    /// Exactly `YYYY-MM-DD`, a day that exists.
    fn from_str(s: &str) -> Result<Date, ParseError> {
        let b = s.as_bytes();
        let shape = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        shape
            .then(|| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
            .flatten()
            .map(Date)
            .ok_or_else(|| ParseError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_print_as_rfc_3339_utc_without_trailing_zeros() {
        let t0 = 1_763_766_420_000_000_000_i128;
        let at = |ms: i128| Timestamp::from_nanosecond(t0 + ms * 1_000_000).unwrap();
        assert_eq!(at(0).to_string(), "2025-11-21T23:07:00Z");
        assert_eq!(at(250).to_string(), "2025-11-21T23:07:00.25Z");
        let ns = Timestamp::from_nanosecond(t0 + 1).unwrap();
        assert_eq!(ns.to_string(), "2025-11-21T23:07:00.000000001Z");
        assert_eq!(Timestamp::UNIX_EPOCH.to_string(), "1970-01-01T00:00:00Z");
        assert_eq!(ns.as_nanosecond(), t0 + 1);
        assert_eq!(at(250).as_millisecond(), 1_763_766_420_250);
    }

    #[test]
    fn instants_print_as_chronos_rfc_3339_does() {
        // chrono's own RFC 3339 text, to the nanosecond, without trailing
        // zeros: the same instants as the field-by-field writer.
        let reference = |t: Timestamp| {
            let text = t.0.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true);
            let (whole, frac) = text.trim_end_matches('Z').split_once('.').unwrap();
            match frac.trim_end_matches('0') {
                "" => format!("{whole}Z"),
                frac => format!("{whole}.{frac}Z"),
            }
        };
        let mut ns: i128 = -9_000_000_000_000_000_000;
        while ns < 9_200_000_000_000_000_000 {
            let t = Timestamp::from_nanosecond(ns).unwrap();
            assert_eq!(t.to_string(), reference(t), "{ns}");
            ns += 7_777_777_777_777_777 + ns.rem_euclid(1_000_003);
        }
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .and_then(|d| d.and_hms_nano_opt(23, 59, 59, 1_250_000_000))
            .unwrap()
            .and_utc();
        assert_eq!(Timestamp(leap).to_string(), "2016-12-31T23:59:60.25Z");
    }

    #[test]
    fn instants_read_back_from_any_offset_and_round_trip_through_json() {
        let t: Timestamp = "2025-11-22T00:07:00.25+01:00".parse().unwrap();
        assert_eq!(t.to_string(), "2025-11-21T23:07:00.25Z");
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, "\"2025-11-21T23:07:00.25Z\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), t);
        assert!("2025-11-21 23:07".parse::<Timestamp>().is_err());
        assert!(serde_json::from_str::<Timestamp>("\"yesterday\"").is_err());
        assert_eq!(t.date().to_string(), "2025-11-21");
    }

    #[test]
    fn days_are_exactly_yyyy_mm_dd_and_real() {
        let d: Date = "2027-01-31".parse().unwrap();
        assert_eq!(d.to_string(), "2027-01-31");
        assert!(d > "2027-01-30".parse().unwrap());
        for bad in [
            "2027-02-30",
            "2027-1-31",
            "27-01-31",
            "2027/01/31",
            "2027-01-31x",
            "",
        ] {
            assert!(bad.parse::<Date>().is_err(), "{bad:?}");
        }
    }
}
