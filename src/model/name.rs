//! The names of the status enums, taken from their serde derive: a name is
//! written once, in `#[serde(rename_all = …)]`, and the reports print what
//! the wire formats carry.

use serde::Serialize;
use serde::ser::{self, Impossible};

/// The serde name of a unit variant (what `#[serde(rename_all = …)]`
/// makes of it), without serializing anything: the derived `serialize`
/// hands the variant's name to [`NameOnly`], which returns it. Cheap: no
/// allocation, one match.
pub(crate) fn serde_name<T: Serialize>(value: &T) -> &'static str {
    value
        .serialize(NameOnly)
        .expect("a status enum serializes as a unit variant")
}

/// A serializer that accepts a unit variant and nothing else.
struct NameOnly;

/// Anything but a unit variant.
#[derive(Debug)]
pub(crate) struct NotAUnitVariant;

impl std::fmt::Display for NotAUnitVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a unit variant")
    }
}

impl std::error::Error for NotAUnitVariant {}

impl ser::Error for NotAUnitVariant {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        NotAUnitVariant
    }
}

/// The methods of [`NameOnly`] that refuse their value.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, NotAUnitVariant> {
            Err(NotAUnitVariant)
        })*
    };
}

impl ser::Serializer for NameOnly {
    type Ok = &'static str;
    type Error = NotAUnitVariant;
    type SerializeSeq = Impossible<&'static str, NotAUnitVariant>;
    type SerializeTuple = Impossible<&'static str, NotAUnitVariant>;
    type SerializeTupleStruct = Impossible<&'static str, NotAUnitVariant>;
    type SerializeTupleVariant = Impossible<&'static str, NotAUnitVariant>;
    type SerializeMap = Impossible<&'static str, NotAUnitVariant>;
    type SerializeStruct = Impossible<&'static str, NotAUnitVariant>;
    type SerializeStructVariant = Impossible<&'static str, NotAUnitVariant>;

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<&'static str, NotAUnitVariant> {
        Ok(variant)
    }

    refuse! {
        serialize_bool(bool) -> &'static str;
        serialize_i8(i8) -> &'static str;
        serialize_i16(i16) -> &'static str;
        serialize_i32(i32) -> &'static str;
        serialize_i64(i64) -> &'static str;
        serialize_u8(u8) -> &'static str;
        serialize_u16(u16) -> &'static str;
        serialize_u32(u32) -> &'static str;
        serialize_u64(u64) -> &'static str;
        serialize_f32(f32) -> &'static str;
        serialize_f64(f64) -> &'static str;
        serialize_char(char) -> &'static str;
        serialize_str(&str) -> &'static str;
        serialize_bytes(&[u8]) -> &'static str;
        serialize_none() -> &'static str;
        serialize_unit() -> &'static str;
        serialize_unit_struct(&'static str) -> &'static str;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<&'static str, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<&'static str, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<&'static str, NotAUnitVariant> {
        Err(NotAUnitVariant)
    }
}

/// `as_str` (and `Display`) of status enums, from their serde names;
/// each type is named with the visibility its `as_str` gets.
macro_rules! serde_names {
    ($($vis:vis $ty:ty),* $(,)?) => {
        $(impl $ty {
            /// The name written in reports: the serde name of the variant.
            $vis fn as_str(self) -> &'static str {
                $crate::model::name::serde_name(&self)
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        })*
    };
}

pub(crate) use serde_names;

#[cfg(test)]
mod tests {
    use crate::model::{CaseResult, Class, IssueType, SnapshotOutcome};

    #[test]
    fn as_str_is_the_serde_name() {
        for class in Class::ALL {
            assert_eq!(
                serde_json::to_value(class).unwrap(),
                serde_json::Value::from(class.as_str())
            );
        }
        assert_eq!(CaseResult::Passed.as_str(), "PASSED");
        assert_eq!(IssueType::OutputChanged.to_string(), "OUTPUT_CHANGED");
        assert_eq!(SnapshotOutcome::NotWritten.as_str(), "not_written");
    }
}
