//! `[explorer]`: the explorer's settings ([`PartialSettings`], each key
//! optional) and where it starts from (a service, a request file, a context
//! budget). The settings' keys are read by the settings record's own
//! deserializer, one key at a time, so a bad value keeps its line and column.

use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::layer::Layer;
use crate::settings::{HandleSettings, PartialSettings, Setting, Settings};

/// `[explorer]` as one file writes it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExplorerConfig {
    /// The settings this file gives.
    pub settings: PartialSettings,
    /// A compatible tool-search service to search through (checked as the
    /// file is read: a bad URL is an error at its line).
    pub service: Option<String>,
    /// Requests with known answers for the Tune screen (JSONL in the eval
    /// format, or `@demo`).
    pub queries: Option<String>,
    /// Tokens the model's context can spend on tool definitions: when a
    /// search fails, the explorer offers to send the full catalog instead
    /// only if it fits. None: never offered.
    pub context_budget: Option<u64>,
}

/// The keys of `[explorer]` besides the settings'.
const START_KEYS: [&str; 3] = ["service", "queries", "context_budget"];

impl Layer for ExplorerConfig {
    fn over(self, below: ExplorerConfig) -> ExplorerConfig {
        ExplorerConfig {
            settings: self.settings.over(below.settings),
            service: self.service.or(below.service),
            queries: self.queries.or(below.queries),
            context_budget: self.context_budget.or(below.context_budget),
        }
    }
}

/// `service = "URL"`: an absolute http(s) URL, as the client takes it.
struct ServiceUrl;

impl<'de> DeserializeSeed<'de> for ServiceUrl {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        let url = String::deserialize(d)?;
        crate::wire::normalize_base_url(&url).map_err(de::Error::custom)?;
        Ok(url)
    }
}

/// `context_budget`: tokens, 0 or more.
#[derive(Deserialize)]
struct Budget(#[serde(deserialize_with = "crate::file_value::count")] Option<u64>);

/// A key of `[explorer]`; any other is an error at the key.
enum Key {
    Setting(String),
    Service,
    Queries,
    ContextBudget,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        let key = String::deserialize(d)?;
        Ok(match key.as_str() {
            k if Settings::KEYS.contains(&k) => Key::Setting(key),
            "service" => Key::Service,
            "queries" => Key::Queries,
            "context_budget" => Key::ContextBudget,
            _ => {
                let expected: Vec<String> = Settings::KEYS
                    .iter()
                    .chain(&START_KEYS)
                    .map(|k| format!("`{k}`"))
                    .collect();
                return Err(de::Error::custom(format!(
                    "unknown field `{key}`, expected one of {}",
                    expected.join(", ")
                )));
            }
        })
    }
}

/// One entry of the table being read (its key, and its value still in
/// `map`) as a table of its own, for [`HandleSettings`] or
/// [`PartialSettings`] to read.
struct OneEntry<'a, A> {
    key: Option<String>,
    map: &'a mut A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for OneEntry<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.key.take() {
            Some(key) => seed.deserialize(key.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

struct ExplorerVisitor;

impl<'de> Visitor<'de> for ExplorerVisitor {
    type Value = ExplorerConfig;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the [explorer] table")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ExplorerConfig, A::Error> {
        let mut out = ExplorerConfig::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Setting(key) => {
                    let of_handle = Setting::named(&key).is_some_and(Setting::of_handle);
                    let one = MapAccessDeserializer::new(OneEntry {
                        key: Some(key),
                        map: &mut map,
                    });
                    if of_handle {
                        let handle = HandleSettings::deserialize(one)?;
                        out.settings.handle = handle.over(out.settings.handle);
                    } else {
                        let setting = PartialSettings::deserialize(one)?;
                        out.settings = setting.over(out.settings);
                    }
                }
                Key::Service => out.service = Some(map.next_value_seed(ServiceUrl)?),
                Key::Queries => out.queries = Some(map.next_value()?),
                Key::ContextBudget => out.context_budget = map.next_value::<Budget>()?.0,
            }
        }
        Ok(out)
    }
}

impl<'de> Deserialize<'de> for ExplorerConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ExplorerConfig, D::Error> {
        d.deserialize_map(ExplorerVisitor)
    }
}
