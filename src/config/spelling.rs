//! The spellings of the harness file's enum values, read off their serde
//! derives: a value is spelled once, by its `rename`/`rename_all`, and the
//! loader's checks and messages follow it.

use std::fmt;

use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};

/// The spellings serde accepts for the unit variants of `T`, in
/// declaration order.
pub(crate) fn variants<T: DeserializeOwned>() -> &'static [&'static str] {
    match T::deserialize(VariantNames) {
        Err(Found(variants)) => variants,
        Ok(_) => &[],
    }
}

/// The value of `T` that `s` spells, if any.
pub(crate) fn parse<T: DeserializeOwned>(s: &str) -> Option<T> {
    let text: de::value::StrDeserializer<'_, de::value::Error> = s.into_deserializer();
    T::deserialize(text).ok()
}

/// How the harness file spells `value`.
pub(crate) fn name_of<T: DeserializeOwned + PartialEq>(value: &T) -> &'static str {
    variants::<T>()
        .iter()
        .find(|s| parse::<T>(s).as_ref() == Some(value))
        .copied()
        .unwrap_or_default()
}

/// The spellings of `T` quoted as a message lists them: `"a", "b" or
/// "c"`, with `last` the word before the last one.
pub(crate) fn listed<T: DeserializeOwned>(last: &str) -> String {
    let quoted: Vec<String> = variants::<T>().iter().map(|v| format!("\"{v}\"")).collect();
    match quoted.split_last() {
        Some((only, [])) => only.clone(),
        Some((tail, head)) => format!("{} {last} {tail}", head.join(", ")),
        None => String::new(),
    }
}

/// A deserializer that answers nothing: it only hears the variant names a
/// derived enum asks for.
struct VariantNames;

/// Not an error: the variant names an enum's `Deserialize` offered.
#[derive(Debug)]
struct Found(&'static [&'static str]);

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variants {:?}", self.0)
    }
}

impl std::error::Error for Found {}

impl de::Error for Found {
    fn custom<M: fmt::Display>(_: M) -> Found {
        Found(&[])
    }
}

impl<'de> de::Deserializer<'de> for VariantNames {
    type Error = Found;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
        Err(Found(&[]))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Found> {
        Err(Found(variants))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Isolation, ResultFormat};

    #[test]
    fn spellings_are_serdes() {
        assert_eq!(variants::<Isolation>(), ["check", "copy"]);
        assert_eq!(
            parse::<ResultFormat>("odibi-story"),
            Some(ResultFormat::OdibiStory)
        );
        assert_eq!(parse::<ResultFormat>("OdibiStory"), None);
        assert_eq!(name_of(&ResultFormat::OdibiValidate), "odibi-validate");
        assert_eq!(variants::<String>(), [] as [&str; 0]);
    }

    #[test]
    fn lists_read_as_messages_do() {
        assert_eq!(listed::<Isolation>("or"), "\"check\" or \"copy\"");
        assert_eq!(
            listed::<ResultFormat>("or"),
            "\"junit\", \"odibi-validate\", \"odibi-story\" or \"dbt\""
        );
        assert_eq!(
            listed::<crate::model::FlakyPolicy>("or"),
            "\"pass\", \"warn\" or \"fail\""
        );
    }
}
