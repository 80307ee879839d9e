//! The explorer's settings, as one record: strategy, initial set, caps,
//! ranker and token basis. One record with each of them optional
//! ([`PartialSettings`]) is both the config file's `[explorer]` and the
//! command's flags (each read as its setting's type, [`flags`]); the flags
//! go over the file; the explorer edits them and saves them back. The
//! tools handle's part of it ([`HandleSettings`]) is also the flags of
//! `check`, `search` and `tune`.

pub mod flags;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::engine::Ranker;
use crate::file_value;
use crate::tokens::TokenBasis;
use crate::tools_handle::{
    DEFAULT_INITIAL_TOOL_COUNT, HandleOptions, InitialToolCount, MaxTools, SelectError, Strategy,
    ToolsHandle,
};

/// The settings a person tunes, each count its own type (checked where it
/// was read). The field names are the config file's keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    pub strategy: Strategy,
    pub initial_tool_count: InitialToolCount,
    /// The cap of the deferred initial set and the default search cap
    /// (none: no cap).
    pub max_loaded_tools: Option<MaxTools>,
    /// The cap a search sends (none: `max_loaded_tools`, else the
    /// service's default).
    pub max_tools: Option<MaxTools>,
    pub ranker: Ranker,
    /// The token basis the user chose (a flag, the config file, the
    /// explorer's settings). None: the default counter counts, and a search
    /// names no basis (the service's default), as the SDKs' searches do.
    pub token_basis: Option<TokenBasis>,
    /// The relevance gate: a request no tool fits loads no searched tool.
    pub gate: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            strategy: Strategy::Deferred,
            initial_tool_count: DEFAULT_INITIAL_TOOL_COUNT,
            max_loaded_tools: None,
            max_tools: None,
            ranker: Ranker::Bm25,
            token_basis: None,
            gate: crate::engine::gate::ON_IN_PROCESS,
        }
    }
}

/// One setting of [`Settings`], by name: the editor's rows and the
/// config file's keys are listed from [`Setting::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Strategy,
    InitialToolCount,
    MaxLoadedTools,
    MaxTools,
    Ranker,
    TokenBasis,
    Gate,
}

impl Setting {
    /// Every setting, in the order the editor and the file list them.
    pub const ALL: [Setting; 7] = [
        Setting::Strategy,
        Setting::InitialToolCount,
        Setting::MaxLoadedTools,
        Setting::MaxTools,
        Setting::Ranker,
        Setting::TokenBasis,
        Setting::Gate,
    ];

    /// The setting named `name` (as the config file spells it).
    pub fn named(name: &str) -> Option<Setting> {
        Setting::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether it is one of the tools handle's ([`HandleSettings`]).
    pub const fn of_handle(self) -> bool {
        match self {
            Setting::Strategy
            | Setting::InitialToolCount
            | Setting::MaxLoadedTools
            | Setting::TokenBasis => true,
            Setting::MaxTools | Setting::Ranker | Setting::Gate => false,
        }
    }

    /// Its name, as the config file spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Setting::Strategy => "strategy",
            Setting::InitialToolCount => "initial_tool_count",
            Setting::MaxLoadedTools => "max_loaded_tools",
            Setting::MaxTools => "max_tools",
            Setting::Ranker => "ranker",
            Setting::TokenBasis => "token_basis",
            Setting::Gate => "gate",
        }
    }
}

impl Settings {
    /// Every setting's name, in order, as the config file spells it.
    pub const KEYS: [&'static str; 7] = {
        let mut keys = [""; 7];
        let mut i = 0;
        while i < Setting::ALL.len() {
            keys[i] = Setting::ALL[i].name();
            i += 1;
        }
        keys
    };

    /// The basis tokens are counted with: the one chosen, else the
    /// default.
    pub fn basis(&self) -> TokenBasis {
        self.token_basis.unwrap_or_default()
    }

    /// The SDK's handle options of these settings.
    pub fn handle_options(&self) -> HandleOptions {
        HandleOptions {
            strategy: self.strategy,
            initial_tool_count: self.initial_tool_count,
            max_loaded_tools: self.max_loaded_tools,
        }
    }

    /// The checks that need the catalog: the SDK's (the always-load tools
    /// against `max_loaded_tools`), then the service's (a cap below the
    /// always-load count would fail every search). The counts themselves
    /// were checked where they were read.
    pub fn validate(&self, catalog: &Arc<Catalog>) -> Result<ToolsHandle, SelectError> {
        let handle = ToolsHandle::new(catalog.clone(), &self.handle_options())?;
        handle.checked_sent_cap(self.max_tools)?;
        Ok(handle)
    }
}

/// The tools handle's settings (strategy, initial set, its cap, token
/// basis), each maybe left out, as one record: the config file's
/// `[explorer]` keys for them and the flags of `explore`, `check`,
/// `search` and `tune` alike. Who reads it gives the defaults: the
/// explorer its own ([`PartialSettings::resolve`]), the CLI the SDK's.
/// Read from a file, a bad value is refused with the SDK's rule and what
/// was found ([`crate::file_value`]); from a flag, with the SDK's message
/// ([`flags`]).
#[derive(Debug, Clone, PartialEq, Default, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct HandleSettings {
    #[serde(default, deserialize_with = "file_value::one_of")]
    #[arg(long, value_name = "STRATEGY", value_parser = flags::strategy, help = flags::from_config(&flags::choices(&Strategy::ALL), Settings::default().strategy))]
    pub strategy: Option<Strategy>,
    #[serde(default, deserialize_with = "file_value::count")]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = flags::initial_tool_count, help = flags::from_config("Non-mandatory tools in the deferred initial set", Settings::default().initial_tool_count))]
    pub initial_tool_count: Option<InitialToolCount>,
    /// Cap for the deferred initial set and default search cap (default: none).
    #[serde(default, deserialize_with = "file_value::positive")]
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = flags::max_loaded_tools)]
    pub max_loaded_tools: Option<MaxTools>,
    #[serde(default, deserialize_with = "file_value::one_of")]
    #[arg(long, value_name = "BASIS", value_parser = flags::token_basis, help = flags::from_config(&flags::basis_choices(), TokenBasis::default()))]
    pub token_basis: Option<TokenBasis>,
}

crate::layer::layer_of_options!(HandleSettings {
    strategy,
    initial_tool_count,
    max_loaded_tools,
    token_basis,
});

/// The explorer's settings, each maybe left out: what one layer (the
/// built-in file, the user's file, the flags) says. One record is the
/// config file's `[explorer]` keys and the explorer's flags: the tools
/// handle's ([`HandleSettings`], read from a file by its own record) and
/// the search's.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
#[command(mut_arg("max_tools", |a| a.help(format!("Cap on tools a search returns (default: the service's {})", crate::tools_handle::DEFAULT_MAX_TOOLS))))]
pub struct PartialSettings {
    #[serde(skip)]
    #[command(flatten)]
    pub handle: HandleSettings,
    /// The file's `max_tools` key and the `--max-tools` flag.
    #[serde(
        default,
        rename = "max_tools",
        deserialize_with = "flags::max_tools_key"
    )]
    #[command(flatten)]
    pub cap: flags::MaxToolsFlag,
    /// One of [`Ranker::WORDS`]: regex is the query box's mode, not a
    /// setting.
    #[serde(default, deserialize_with = "word_ranker")]
    #[arg(long, value_name = "RANKER", value_parser = flags::word_ranker, help = flags::from_config(&flags::choices(&Ranker::WORDS), Settings::default().ranker))]
    pub ranker: Option<Ranker>,
    #[serde(default, deserialize_with = "file_value::flag")]
    #[arg(long, value_name = "on|off", value_parser = flags::on_off, help = flags::from_config("The relevance gate: on, a request no tool fits loads no searched tool", "on"))]
    pub gate: Option<bool>,
}

/// A ranker of words (the explorer's setting).
fn word_ranker<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Ranker>, D::Error> {
    file_value::one_among(d, &Ranker::WORDS)
}

impl crate::layer::Layer for PartialSettings {
    fn over(self, below: Self) -> Self {
        PartialSettings {
            handle: self.handle.over(below.handle),
            cap: self.cap.or(below.cap),
            ranker: self.ranker.or(below.ranker),
            gate: self.gate.or(below.gate),
        }
    }
}

impl PartialSettings {
    /// The settings, with [`Settings::default`]'s for those left out.
    pub fn resolve(self) -> Settings {
        let d = Settings::default();
        let h = self.handle;
        Settings {
            strategy: h.strategy.unwrap_or(d.strategy),
            initial_tool_count: h.initial_tool_count.unwrap_or(d.initial_tool_count),
            max_loaded_tools: h.max_loaded_tools.or(d.max_loaded_tools),
            max_tools: self.cap.max_tools.or(d.max_tools),
            ranker: self.ranker.unwrap_or(d.ranker),
            token_basis: h.token_basis.or(d.token_basis),
            gate: self.gate.unwrap_or(d.gate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layer::Layer;

    #[test]
    fn the_keys_are_the_fields() {
        let every = Settings {
            max_loaded_tools: MaxTools::new(4),
            max_tools: MaxTools::new(2),
            token_basis: Some(TokenBasis::Cl100kBase),
            ..Settings::default()
        };
        let value = serde_json::to_value(&every).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut expected = Settings::KEYS.to_vec();
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }

    #[test]
    fn each_setting_is_read_by_the_record_it_says() {
        for setting in Setting::ALL {
            let value = match setting {
                Setting::Strategy => "\"all\"",
                Setting::InitialToolCount => "3",
                Setting::MaxLoadedTools => "4",
                Setting::MaxTools => "2",
                Setting::Ranker => "\"bm25\"",
                Setting::TokenBasis => "\"o200k_base\"",
                Setting::Gate => "true",
            };
            let text = format!("{} = {value}", setting.name());
            let handle = toml::from_str::<HandleSettings>(&text);
            let rest = toml::from_str::<PartialSettings>(&text);
            assert_eq!(handle.is_ok(), setting.of_handle(), "{text}: {handle:?}");
            assert_eq!(rest.is_ok(), !setting.of_handle(), "{text}: {rest:?}");
            assert_eq!(Setting::named(setting.name()), Some(setting));
        }
        assert_eq!(Setting::named("stratgy"), None);
    }

    #[test]
    fn a_layer_wins_over_the_one_below_and_defaults_fill_the_rest() {
        let file = PartialSettings {
            handle: HandleSettings {
                strategy: Some(Strategy::All),
                initial_tool_count: Some(InitialToolCount::new(3)),
                ..Default::default()
            },
            cap: flags::MaxToolsFlag {
                max_tools: MaxTools::new(5),
            },
            ..Default::default()
        };
        let flags = PartialSettings {
            handle: HandleSettings {
                initial_tool_count: Some(InitialToolCount::new(4)),
                ..Default::default()
            },
            ..Default::default()
        };
        let s = flags.over(file).resolve();
        assert_eq!(s.strategy, Strategy::All);
        assert_eq!(s.initial_tool_count.get(), 4);
        assert_eq!(s.max_tools, MaxTools::new(5));
        assert_eq!(s.max_loaded_tools, None);
        assert_eq!(s.ranker, Settings::default().ranker);
        assert_eq!(PartialSettings::default().resolve(), Settings::default());
    }

    #[test]
    fn a_count_out_of_range_is_refused_where_it_is_read() {
        #[derive(clap::Parser)]
        struct Explore {
            #[command(flatten)]
            settings: PartialSettings,
        }
        use clap::Parser;
        for (flag, value, message) in [
            ("--max-tools", "0", "max_tools must be a positive integer"),
            ("--max-tools", "-2", "max_tools must be a positive integer"),
            (
                "--max-loaded-tools",
                "0",
                "max_loaded_tools must be a positive integer",
            ),
            (
                "--initial-tool-count",
                "-1",
                "initial_tool_count must be a non-negative integer",
            ),
        ] {
            let refused = Explore::try_parse_from(["explore", flag, value]).err();
            let said = refused.map(|e| e.to_string()).unwrap_or_default();
            assert!(said.contains(message), "{flag} {value}: {said:?}");
        }
        let read = Explore::try_parse_from(["explore", "--max-tools", "3"]).unwrap();
        assert_eq!(read.settings.resolve().max_tools, MaxTools::new(3));
        let file = toml::from_str::<PartialSettings>("max_tools = 0").unwrap_err();
        assert!(file.to_string().contains("positive integer"), "{file}");
    }
}
