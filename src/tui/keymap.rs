//! Keys to actions: the defaults of `assets/config.toml`, with the user's
//! `[keys]` table over them (an action the user sets loses its default keys).

use std::collections::BTreeMap;
use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

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

impl Key {
    /// Parses `q`, `G`, `?`, `ctrl-c`, `alt-x`, `shift-tab`, `f1`, `space`, `enter`, ...
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut rest = text.trim();
        let (mut ctrl, mut alt) = (false, false);
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.chars().count() > 1 && lower.starts_with("ctrl-") {
                ctrl = true;
                rest = &rest[5..];
            } else if rest.chars().count() > 1 && lower.starts_with("alt-") {
                alt = true;
                rest = &rest[4..];
            } else {
                break;
            }
        }
        let lower = rest.to_ascii_lowercase();
        let code = if rest.chars().count() == 1 {
            let c = rest.chars().next().unwrap_or(' ');
            KeyCodeOrd::Char(if ctrl { c.to_ascii_lowercase() } else { c })
        } else if lower == "space" {
            KeyCodeOrd::Char(' ')
        } else if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
            if !(1..=24).contains(&n) {
                return Err(format!("unknown key {text:?}"));
            }
            KeyCodeOrd::F(n)
        } else if let Some(i) = NAMED.iter().position(|(n, _)| *n == lower) {
            KeyCodeOrd::Named(i as u8)
        } else {
            return Err(format!(
                "unknown key {text:?} (keys look like \"q\", \"G\", \"ctrl-c\", \"shift-tab\", \"enter\", \"f1\", \"space\")"
            ));
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

/// The live keymap.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    bindings: BTreeMap<Key, Action>,
}

impl Keymap {
    /// Builds the keymap from the default bindings and the user's, per action
    /// name. `origin` names the user's file in errors.
    pub fn build(
        defaults: &BTreeMap<String, Vec<String>>,
        user: &BTreeMap<String, Vec<String>>,
        origin: &str,
    ) -> Result<Keymap, String> {
        let mut bindings = BTreeMap::new();
        let parse_all = |table: &BTreeMap<String, Vec<String>>,
                         origin: &str|
         -> Result<Vec<(Action, Vec<Key>)>, String> {
            table
                .iter()
                .map(|(name, keys)| {
                    let action = Action::from_name(name).ok_or_else(|| {
                        format!(
                            "{origin}: [keys]: unknown action {name:?} (actions: {})",
                            Action::ALL.map(|a| a.name()).join(", ")
                        )
                    })?;
                    let keys = keys
                        .iter()
                        .map(|k| Key::parse(k).map_err(|e| format!("{origin}: [keys] {name}: {e}")))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((action, keys))
                })
                .collect()
        };
        let user = parse_all(user, origin)?;
        for (action, keys) in parse_all(defaults, "built-in config")? {
            if user.iter().any(|(a, _)| *a == action) {
                continue;
            }
            for k in keys {
                bindings.insert(k, action);
            }
        }
        for (action, keys) in user {
            for k in keys {
                bindings.insert(k, action);
            }
        }
        Ok(Keymap { bindings })
    }

    /// The built-in keymap.
    pub fn defaults() -> Keymap {
        let config = crate::config::parse(crate::config::DEFAULT_CONFIG, "built-in config")
            .unwrap_or_default();
        let defaults = config
            .keys
            .iter()
            .map(|(a, k)| (a.clone(), k.to_vec()))
            .collect();
        Keymap::build(&defaults, &BTreeMap::new(), "built-in config").unwrap_or(Keymap {
            bindings: BTreeMap::new(),
        })
    }

    pub fn action(&self, ev: &KeyEvent) -> Option<Action> {
        Key::from_event(ev).and_then(|k| self.bindings.get(&k).copied())
    }

    /// The keys bound to `action`: plain keys first, then in key order.
    pub fn keys_for(&self, action: Action) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .bindings
            .iter()
            .filter(|(_, a)| **a == action)
            .map(|(k, _)| *k)
            .collect();
        keys.sort_by_key(|k| (k.ctrl || k.alt, *k));
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
}

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

    #[test]
    fn defaults_map_the_documented_keys() {
        let k = Keymap::defaults();
        let none = KeyModifiers::NONE;
        assert_eq!(k.action(&ev(KeyCode::Char('q'), none)), Some(Action::Quit));
        assert_eq!(
            k.action(&ev(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
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
        assert_eq!(k.action(&ev(KeyCode::Char('z'), none)), None);
        assert_eq!(k.label(Action::Help), "? F1");
        // Every action has a key.
        for a in Action::ALL {
            assert!(!k.keys_for(a).is_empty(), "{a:?} unbound");
        }
    }

    #[test]
    fn user_keys_replace_an_actions_defaults() {
        let defaults = [
            (
                "quit".to_string(),
                vec!["q".to_string(), "ctrl-c".to_string()],
            ),
            ("help".to_string(), vec!["?".to_string()]),
        ]
        .into_iter()
        .collect();
        let user = [("quit".to_string(), vec!["x".to_string(), "?".to_string()])]
            .into_iter()
            .collect();
        let k = Keymap::build(&defaults, &user, "u.toml").unwrap();
        let none = KeyModifiers::NONE;
        assert_eq!(k.action(&ev(KeyCode::Char('x'), none)), Some(Action::Quit));
        assert_eq!(k.action(&ev(KeyCode::Char('q'), none)), None);
        // The user's binding wins over another action's default.
        assert_eq!(k.action(&ev(KeyCode::Char('?'), none)), Some(Action::Quit));
    }

    #[test]
    fn bad_names_and_keys_are_errors() {
        let empty = BTreeMap::new();
        let user = [("quitt".to_string(), vec!["x".to_string()])]
            .into_iter()
            .collect();
        let err = Keymap::build(&empty, &user, "u.toml").unwrap_err();
        assert!(
            err.starts_with("u.toml: [keys]: unknown action \"quitt\""),
            "{err}"
        );
        let user = [(
            "quit".to_string(),
            vec!["ctrl-".to_string(), "hyper-x".to_string()],
        )]
        .into_iter()
        .collect();
        let err = Keymap::build(&empty, &user, "u.toml").unwrap_err();
        assert!(err.contains("unknown key"), "{err}");
    }

    #[test]
    fn key_parsing() {
        assert_eq!(Key::parse("ctrl-C"), Key::parse("ctrl-c"));
        assert_eq!(Key::parse("space").unwrap().to_string(), "Space");
        assert_eq!(Key::parse("f12").unwrap().to_string(), "F12");
        assert!(Key::parse("f99").is_err());
        assert_eq!(Key::parse("shift-tab").unwrap().to_string(), "Shift-Tab");
        assert_eq!(Key::parse("-").unwrap().to_string(), "-");
    }
}
