//! A setting's value as a file wrote it, and the message that refuses a bad
//! one with what was found: `must be all or deferred, not "lazy"`,
//! `must be a positive integer, not 0`. Each function here reads one value
//! (`#[serde(deserialize_with = "...")]`); the config file names the
//! setting's key in front of the message (see [`is_refusal`]).

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A value as the file wrote it, for a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    Text(String),
    Integer(i128),
    Float(f64),
    Bool(bool),
    /// A value of another kind, said in words (`a table`, `an array`), or
    /// a date as written.
    Other(String),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Quoted, with control and invisible characters escaped.
            Found::Text(t) => write!(f, "{t:?}"),
            Found::Integer(n) => write!(f, "{n}"),
            Found::Float(x) => write!(f, "{x:?}"),
            Found::Bool(b) => write!(f, "{b}"),
            Found::Other(what) => f.write_str(what),
        }
    }
}

/// The key toml gives a date-time read as a map.
const DATETIME_KEY: &str = "$__toml_private_datetime";

struct FoundVisitor;

impl<'de> Visitor<'de> for FoundVisitor {
    type Value = Found;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Found, E> {
        Ok(Found::Text(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Found, E> {
        Ok(Found::Integer(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Found, E> {
        Ok(Found::Integer(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Found, E> {
        Ok(Found::Integer(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Found, E> {
        Ok(Found::Float(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Found, E> {
        Ok(Found::Bool(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Found, A::Error> {
        Ok(Found::Other("an array".into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Found, A::Error> {
        if map.next_key::<String>()?.as_deref() == Some(DATETIME_KEY) {
            return Ok(Found::Other(map.next_value::<String>()?));
        }
        Ok(Found::Other("a table".into()))
    }
}

impl<'de> Deserialize<'de> for Found {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Found, D::Error> {
        d.deserialize_any(FoundVisitor)
    }
}

/// The start of every message here: the file's reader puts the key before
/// it (`strategy must be …`).
const MUST: &str = "must be ";

/// Whether `message` refuses a value (and wants its key in front).
pub fn is_refusal(message: &str) -> bool {
    message.starts_with(MUST)
}

fn refused<E: de::Error>(what: &str, found: &Found) -> E {
    E::custom(format!("{MUST}{what}, not {found}"))
}

/// A setting whose value is one of a few names.
pub trait Named: FromStr + fmt::Display + Sized + 'static {
    /// Every name, in the order messages list them.
    const ALL: &'static [Self];
    /// What a message says is expected, when not the list of [`Named::ALL`].
    const EXPECTED: Option<&'static str> = None;
}

/// `a`, `a or b`, `a, b or c`.
fn or_list<T: fmt::Display>(all: &[T]) -> String {
    let names: Vec<String> = all.iter().map(ToString::to_string).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// One of `T`'s names.
pub fn one_of<'de, D: Deserializer<'de>, T: Named + PartialEq>(
    d: D,
) -> Result<Option<T>, D::Error> {
    match T::EXPECTED {
        None => one_among(d, T::ALL),
        Some(expected) => {
            let found = Found::deserialize(d)?;
            match &found {
                Found::Text(t) => t.parse().ok(),
                _ => None,
            }
            .map(Some)
            .ok_or_else(|| refused(expected, &found))
        }
    }
}

/// One of the names in `allowed` (a setting that takes only some of `T`'s).
pub fn one_among<'de, D: Deserializer<'de>, T: Named + PartialEq>(
    d: D,
    allowed: &[T],
) -> Result<Option<T>, D::Error> {
    let found = Found::deserialize(d)?;
    match &found {
        Found::Text(t) => t.parse().ok().filter(|v| allowed.contains(v)),
        _ => None,
    }
    .map(Some)
    .ok_or_else(|| refused(&or_list(allowed), &found))
}

/// A whole number, at least `min`, that `T` holds.
fn whole<'de, D: Deserializer<'de>, T: TryFrom<i128>>(d: D, min: i128) -> Result<T, D::Error> {
    let found = Found::deserialize(d)?;
    let what = if min > 0 {
        "a positive integer"
    } else {
        "a non-negative integer"
    };
    match found {
        Found::Integer(n) if n >= min => T::try_from(n).ok(),
        _ => None,
    }
    .ok_or_else(|| refused(what, &found))
}

/// A count: a whole number, 0 or more.
pub fn count<'de, D: Deserializer<'de>, T: TryFrom<i128>>(d: D) -> Result<Option<T>, D::Error> {
    whole(d, 0).map(Some)
}

/// A whole number, 1 or more.
pub fn positive<'de, D: Deserializer<'de>, T: TryFrom<i128>>(d: D) -> Result<Option<T>, D::Error> {
    whole(d, 1).map(Some)
}

/// `true` or `false`.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Found::deserialize(d)? {
        Found::Bool(b) => Ok(Some(b)),
        found => Err(refused("true or false", &found)),
    }
}

/// Text that `T` parses; `what` says what it must be.
pub fn parsed<'de, D: Deserializer<'de>, T: FromStr>(d: D, what: &str) -> Result<T, D::Error> {
    let found = Found::deserialize(d)?;
    match &found {
        Found::Text(t) => t.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| refused(what, &found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IntoDeserializer;
    use serde::de::value::Error;

    fn message<T: std::fmt::Debug>(r: Result<T, Error>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn a_refusal_says_what_was_found() {
        let d = |v: i64| v.into_deserializer();
        assert_eq!(count::<_, u64>(d(3)).unwrap(), Some(3));
        assert_eq!(
            message(count::<_, u64>(d(-1))),
            "must be a non-negative integer, not -1"
        );
        assert_eq!(
            message(positive::<_, i64>(d(0))),
            "must be a positive integer, not 0"
        );
        assert_eq!(
            message(count::<_, u64>("8".into_deserializer())),
            "must be a non-negative integer, not \"8\""
        );
        assert_eq!(
            message(count::<_, u64>(2.5f64.into_deserializer())),
            "must be a non-negative integer, not 2.5"
        );
        assert_eq!(
            message(flag("yes\u{1b}".into_deserializer())),
            "must be true or false, not \"yes\\u{1b}\""
        );
        assert!(is_refusal("must be true or false, not 3"));
        assert_eq!(or_list(&["a", "b", "c"]), "a, b or c");
        assert_eq!(or_list(&["a", "b"]), "a or b");
    }
}
