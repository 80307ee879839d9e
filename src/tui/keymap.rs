//! Keys to actions: the defaults (the panes' and text boxes' in
//! `assets/config.toml`, each screen's declared in its folder), with the
//! user's `[keys]` table over them (an action the user sets loses its
//! default keys).
//! Each key is looked up in the context of the screen that has the keyboard
//! (see [`Context`]), then in the global context.

use std::collections::BTreeMap;
use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, Context};

/// A key as the keymap writes it: a code and the Ctrl/Alt modifiers (Shift is
/// part of the character: `G` is shift-g).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    code: KeyCodeOrd,
    ctrl: bool,
    alt: bool,
}

/// `KeyCode` with an order (for a stable help screen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum KeyCodeOrd {
    Char(char),
    F(u8),
    Named(u8),
}

const NAMED: &[(&str, KeyCode)] = &[
    ("enter", KeyCode::Enter),
    ("esc", KeyCode::Esc),
    ("tab", KeyCode::Tab),
    ("shift-tab", KeyCode::BackTab),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("insert", KeyCode::Insert),
];

/// A key the keymap cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error(
        "unknown key {0:?} (keys look like \"q\", \"G\", \"ctrl-c\", \"shift-tab\", \"enter\", \"f1\", \"space\")"
    )]
    Unknown(String),
    #[error("unknown key {0:?} (function keys are f1 to f24)")]
    NoSuchFunctionKey(String),
}

/// Why a keymap could not be built. `origin` is the config file (its path)
/// or `built-in config`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    #[error(
        "{origin}: [keys]: unknown action {name:?} (actions: {})",
        known_actions()
    )]
    UnknownAction { origin: String, name: String },
    #[error("{origin}: [keys] {action}: {source}")]
    BadKey {
        origin: String,
        action: String,
        #[source]
        source: KeyError,
    },
    #[error(
        "{origin}: [keys]: {key} is bound to both {first} and {second}, which share the {context:?} screen"
    )]
    Conflict {
        origin: String,
        key: String,
        first: String,
        second: String,
        context: Context,
    },
}

fn known_actions() -> String {
    Action::ALL
        .iter()
        .map(|a| a.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Key {
    /// Parses `q`, `G`, `?`, `ctrl-c`, `alt-x`, `shift-tab`, `f1`, `space`, `enter`, ...
    pub fn parse(text: &str) -> Result<Key, KeyError> {
        let mut rest = text.trim();
        let (mut ctrl, mut alt) = (false, false);
        loop {
            if rest.chars().count() <= 1 {
                break;
            }
            if let Some(r) = strip_prefix_ignore_case(rest, "ctrl-") {
                ctrl = true;
                rest = r;
            } else if let Some(r) = strip_prefix_ignore_case(rest, "alt-") {
                alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let lower = rest.to_lowercase();
        let mut chars = rest.chars();
        let code = if let (Some(c), None) = (chars.next(), chars.next()) {
            KeyCodeOrd::Char(if ctrl { c.to_ascii_lowercase() } else { c })
        } else if lower == "space" {
            KeyCodeOrd::Char(' ')
        } else if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
            if !(1..=24).contains(&n) {
                return Err(KeyError::NoSuchFunctionKey(text.to_string()));
            }
            KeyCodeOrd::F(n)
        } else if let Some(i) = NAMED.iter().position(|(n, _)| *n == lower) {
            KeyCodeOrd::Named(i as u8)
        } else {
            return Err(KeyError::Unknown(text.to_string()));
        };
        Ok(Key { code, ctrl, alt })
    }

    /// The key of a terminal event, if it is one the keymap can name.
    pub fn from_event(ev: &KeyEvent) -> Option<Key> {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let alt = ev.modifiers.contains(KeyModifiers::ALT);
        let code = match ev.code {
            KeyCode::Char(c) => KeyCodeOrd::Char(if ctrl { c.to_ascii_lowercase() } else { c }),
            KeyCode::F(n) => KeyCodeOrd::F(n),
            other => KeyCodeOrd::Named(NAMED.iter().position(|(_, c)| *c == other)? as u8),
        };
        Some(Key { code, ctrl, alt })
    }

    /// The character this key types in a text box, if any (no Ctrl, no Alt).
    pub fn text(&self) -> Option<char> {
        match self.code {
            KeyCodeOrd::Char(c) if !self.ctrl && !self.alt => Some(c),
            _ => None,
        }
    }
}

/// `text` without `prefix`, compared ASCII-case-insensitively, on char
/// boundaries only.
fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        match self.code {
            KeyCodeOrd::Char(' ') => f.write_str("Space"),
            KeyCodeOrd::Char(c) if self.ctrl || self.alt => write!(f, "{}", c.to_ascii_uppercase()),
            KeyCodeOrd::Char(c) => write!(f, "{c}"),
            KeyCodeOrd::F(n) => write!(f, "F{n}"),
            KeyCodeOrd::Named(i) => {
                let name = NAMED.get(i as usize).map_or("?", |(n, _)| n);
                let pretty = match name {
                    "esc" => "Esc",
                    "enter" => "Enter",
                    "tab" => "Tab",
                    "shift-tab" => "Shift-Tab",
                    "backspace" => "Backspace",
                    "delete" => "Del",
                    "insert" => "Ins",
                    "up" => "↑",
                    "down" => "↓",
                    "left" => "←",
                    "right" => "→",
                    "home" => "Home",
                    "end" => "End",
                    "pageup" => "PgUp",
                    "pagedown" => "PgDn",
                    other => other,
                };
                f.write_str(pretty)
            }
        }
    }
}

/// Key lists per action name, as a config file writes them.
pub type KeyTable = BTreeMap<String, Vec<String>>;

/// The live keymap.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: BTreeMap<(Context, Key), Action>,
    /// Each action's keys in the order the config writes them (a key taken
    /// by another action since is skipped when shown).
    written: BTreeMap<Action, Vec<Key>>,
    /// The built-in keys a user binding took from another action, said
    /// as the explorer starts.
    taken: Vec<String>,
}

type Parsed = Vec<(Action, Vec<Key>)>;

fn parse_table(table: &KeyTable, origin: &str) -> Result<Parsed, KeymapError> {
    table
        .iter()
        .map(|(name, keys)| {
            let action = Action::from_name(name).ok_or_else(|| KeymapError::UnknownAction {
                origin: origin.to_string(),
                name: name.clone(),
            })?;
            let keys = keys
                .iter()
                .map(|k| {
                    Key::parse(k).map_err(|source| KeymapError::BadKey {
                        origin: origin.to_string(),
                        action: name.clone(),
                        source,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok((action, keys))
        })
        .collect()
}

/// Binds `keys` to `action`; a key already bound in the same context (by
/// the same table) is a conflict.
fn bind(
    bindings: &mut BTreeMap<(Context, Key), Action>,
    table: &Parsed,
    origin: &str,
) -> Result<(), KeymapError> {
    let mut mine: BTreeMap<(Context, Key), Action> = BTreeMap::new();
    for (action, keys) in table {
        for &k in keys {
            let slot = (action.context(), k);
            if let Some(&first) = mine.get(&slot)
                && first != *action
            {
                return Err(KeymapError::Conflict {
                    origin: origin.to_string(),
                    key: k.to_string(),
                    first: first.name().to_string(),
                    second: action.name().to_string(),
                    context: action.context(),
                });
            }
            mine.insert(slot, *action);
        }
    }
    bindings.extend(mine);
    Ok(())
}

/// The origin of the embedded defaults in messages.
pub const BUILT_IN: &str = "built-in config";

impl Keymap {
    /// Builds the keymap from the default bindings and the user's, per action
    /// name. `origin` names the user's file in errors. A user binding wins
    /// over another action's default key in the same context.
    pub fn build(
        defaults: &KeyTable,
        user: &KeyTable,
        origin: &str,
    ) -> Result<Keymap, KeymapError> {
        let user = parse_table(user, origin)?;
        let defaults: Parsed = parse_table(defaults, BUILT_IN)?
            .into_iter()
            .filter(|(a, _)| !user.iter().any(|(u, _)| u == a))
            .collect();
        let mut bindings = BTreeMap::new();
        bind(&mut bindings, &defaults, BUILT_IN)?;
        // A user's key that another action has by default: the user's
        // wins, and it is said, naming both.
        let mut taken = Vec::new();
        for (action, keys) in &user {
            for &k in keys {
                if let Some(&other) = bindings.get(&(action.context(), k))
                    && other != *action
                {
                    taken.push(format!(
                        "{origin}: [keys] {} = \"{k}\" takes {k} from {} (bind {} to another key, or choose another for {})",
                        action.name(),
                        other.name(),
                        other.name(),
                        action.name()
                    ));
                }
            }
        }
        bind(&mut bindings, &user, origin)?;
        let written = defaults.into_iter().chain(user).collect();
        Ok(Keymap {
            bindings,
            written,
            taken,
        })
    }

    /// The built-in defaults as a key table: the embedded config's, and
    /// each screen's own.
    pub fn default_table() -> KeyTable {
        let config = crate::config::parse(crate::config::DEFAULT_CONFIG, BUILT_IN)
            .map(|c| Keymap::table_of(&c))
            .unwrap_or_default();
        Keymap::with_declared(&config)
    }

    /// `table` (the embedded config's `[keys]`) with the keys each screen
    /// declares for its actions, for those `table` leaves out.
    pub fn with_declared(table: &KeyTable) -> KeyTable {
        let mut all = table.clone();
        for &action in Action::ALL {
            let declared = action.declared_keys();
            if !declared.is_empty() {
                all.entry(action.name().to_string())
                    .or_insert_with(|| declared.iter().map(|k| k.to_string()).collect());
            }
        }
        all
    }

    /// The built-in keymap.
    pub fn defaults() -> Keymap {
        Keymap::build(&Keymap::default_table(), &KeyTable::new(), BUILT_IN).unwrap_or(Keymap {
            bindings: BTreeMap::new(),
            written: BTreeMap::new(),
            taken: Vec::new(),
        })
    }

    /// The key table of one config file (its `[keys]`).
    pub fn table_of(file: &crate::config::ConfigFile) -> KeyTable {
        file.keys
            .iter()
            .map(|(a, k)| (a.clone(), k.to_vec()))
            .collect()
    }

    /// Each built-in key a user binding took from another action, said
    /// naming both.
    pub fn taken(&self) -> &[String] {
        &self.taken
    }

    /// The action of `ev` in `context` (not falling back anywhere).
    pub fn action_in(&self, context: Context, ev: &KeyEvent) -> Option<Action> {
        let key = Key::from_event(ev)?;
        self.bindings.get(&(context, key)).copied()
    }

    /// The action of `ev` on the main screen, else a global one.
    pub fn action(&self, ev: &KeyEvent) -> Option<Action> {
        self.action_in(Context::Main, ev)
            .or_else(|| self.action_in(Context::Global, ev))
    }

    /// The keys bound to `action`, in the order the config writes them.
    pub fn keys_for(&self, action: Action) -> Vec<Key> {
        let context = action.context();
        let mut keys: Vec<Key> = Vec::new();
        for k in self.written.get(&action).into_iter().flatten() {
            if self.bindings.get(&(context, *k)) == Some(&action) && !keys.contains(k) {
                keys.push(*k);
            }
        }
        keys
    }

    /// `"/"`, `"? F1"`: the keys of an action as the screen shows them.
    pub fn label(&self, action: Action) -> String {
        let keys = self.keys_for(action);
        if keys.is_empty() {
            "(unbound)".to_string()
        } else {
            keys.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    /// The first key of `action`, as shown in a key line.
    pub fn first(&self, action: Action) -> Option<Key> {
        self.keys_for(action).first().copied()
    }

    /// The first key of `action` that does not type text (for key lines
    /// shown while a text box has the keyboard).
    pub fn first_non_text(&self, action: Action) -> Option<Key> {
        self.keys_for(action)
            .into_iter()
            .find(|k| k.text().is_none())
    }
}

#[cfg(test)]
mod docs_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEventKind;

    fn ev(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: crossterm::event::KeyEventState::NONE,
        }
    }

    fn table(entries: &[(&str, &[&str])]) -> KeyTable {
        entries
            .iter()
            .map(|(a, ks)| (a.to_string(), ks.iter().map(|k| k.to_string()).collect()))
            .collect()
    }

    #[test]
    fn defaults_map_the_documented_keys() {
        let k = Keymap::defaults();
        let none = KeyModifiers::NONE;
        assert_eq!(k.action(&ev(KeyCode::Char('q'), none)), Some(Action::Quit));
        assert_eq!(
            k.action(&ev(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::QuitNow)
        );
        assert_eq!(
            k.action(&ev(KeyCode::Char('/'), none)),
            Some(Action::FocusQuery)
        );
        assert_eq!(k.action(&ev(KeyCode::Char('?'), none)), Some(Action::Help));
        assert_eq!(k.action(&ev(KeyCode::F(1), none)), Some(Action::Help));
        assert_eq!(k.action(&ev(KeyCode::Tab, none)), Some(Action::NextPane));
        assert_eq!(
            k.action(&ev(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Action::PrevPane)
        );
        // G arrives as shift-g from most terminals.
        assert_eq!(
            k.action(&ev(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Action::Bottom)
        );
        assert_eq!(k.action(&ev(KeyCode::Char('j'), none)), Some(Action::Down));
        assert_eq!(k.action(&ev(KeyCode::Down, none)), Some(Action::Down));
        assert_eq!(
            k.action(&ev(KeyCode::Char('d'), KeyModifiers::CONTROL)),
            Some(Action::HalfPageDown)
        );
        assert_eq!(k.action(&ev(KeyCode::Char('Z'), none)), None);
        assert_eq!(k.label(Action::Help), "? F1");
        // The same key means different things on different screens.
        let ctrl_u = ev(KeyCode::Char('u'), KeyModifiers::CONTROL);
        assert_eq!(k.action(&ctrl_u), Some(Action::HalfPageUp));
        assert_eq!(
            k.action_in(Context::Input, &ctrl_u),
            Some(Action::InputClear)
        );
        assert_eq!(
            k.action_in(Context::Breaker, &ev(KeyCode::Enter, none)),
            Some(Action::BreakerCall)
        );
        // Every action has a key.
        for &a in Action::ALL {
            assert!(!k.keys_for(a).is_empty(), "{a:?} unbound");
        }
    }

    #[test]
    fn user_keys_replace_an_actions_defaults() {
        let defaults = table(&[
            ("quit", &["q"]),
            ("help", &["?"]),
            ("quit_now", &["ctrl-c"]),
        ]);
        let user = table(&[("quit", &["x", "?"])]);
        let k = Keymap::build(&defaults, &user, "u.toml").unwrap();
        let none = KeyModifiers::NONE;
        assert_eq!(k.action(&ev(KeyCode::Char('x'), none)), Some(Action::Quit));
        assert_eq!(k.action(&ev(KeyCode::Char('q'), none)), None);
        // The user's binding wins over another action's default.
        assert_eq!(k.action(&ev(KeyCode::Char('?'), none)), Some(Action::Quit));
    }

    #[test]
    fn a_user_key_that_takes_another_actions_built_in_key_is_said_naming_both() {
        let defaults = Keymap::default_table();
        let k = Keymap::build(
            &defaults,
            &table(&[("quit", &["x"]), ("toggle_always_load", &["a", "space"])]),
            "c.toml",
        )
        .unwrap();
        let said = k.taken().join("\n");
        assert!(said.contains("quit = \"x\" takes x from export"), "{said}");
        assert!(
            said.contains("toggle_always_load = \"Space\" takes Space from toggle_pick"),
            "{said}"
        );
        assert!(Keymap::defaults().taken().is_empty());
    }

    #[test]
    fn bad_names_keys_and_conflicts_are_typed_errors_naming_the_file() {
        let empty = KeyTable::new();
        let err =
            Keymap::build(&empty, &table(&[("quitt", &["x"])]), "/home/u/c.toml").unwrap_err();
        assert!(
            matches!(&err, KeymapError::UnknownAction { name, .. } if name == "quitt"),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("/home/u/c.toml: [keys]: unknown action \"quitt\""),
            "{err}"
        );
        let err = Keymap::build(
            &empty,
            &table(&[("breaker_call", &["ctrl-", "hyper-x"])]),
            "/home/u/c.toml",
        )
        .unwrap_err();
        assert_eq!(
            err,
            KeymapError::BadKey {
                origin: "/home/u/c.toml".into(),
                action: "breaker_call".into(),
                source: KeyError::Unknown("ctrl-".into()),
            }
        );
        assert!(
            err.to_string()
                .starts_with("/home/u/c.toml: [keys] breaker_call: unknown key \"ctrl-\""),
            "{err}"
        );
        let err = Keymap::build(
            &empty,
            &table(&[("breaker_call", &["x"]), ("breaker_reset", &["x"])]),
            "c.toml",
        )
        .unwrap_err();
        assert!(matches!(err, KeymapError::Conflict { .. }), "{err:?}");
        // The same key on two screens is fine.
        Keymap::build(
            &empty,
            &table(&[("breaker_call", &["x"]), ("settings_close", &["x"])]),
            "c.toml",
        )
        .unwrap();
    }

    #[test]
    fn key_parsing() {
        assert_eq!(Key::parse("ctrl-C"), Key::parse("ctrl-c"));
        assert_eq!(Key::parse("space").unwrap().to_string(), "Space");
        assert_eq!(Key::parse("f12").unwrap().to_string(), "F12");
        assert_eq!(
            Key::parse("f99"),
            Err(KeyError::NoSuchFunctionKey("f99".into()))
        );
        assert_eq!(Key::parse("shift-tab").unwrap().to_string(), "Shift-Tab");
        assert_eq!(Key::parse("-").unwrap().to_string(), "-");
        assert_eq!(Key::parse("é").unwrap().to_string(), "é");
        assert_eq!(Key::parse("ctrl-é").unwrap().to_string(), "Ctrl-é");
        assert!(Key::parse("ctrlé").is_err());
    }
}
