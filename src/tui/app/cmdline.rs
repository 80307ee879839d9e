//! The command line carried out: its keys, and each command run as its
//! key or the settings popup would (settings go through the same
//! validation, [`App::apply_settings`]); the panes by number and the zoom.

use crossterm::event::{KeyCode, KeyEvent};

use super::{App, Focus, Popup};
use crate::catalog::CatalogSource;
use crate::settings::Settings;
use crate::tui::action::{Action, Context};
use crate::tui::cmdline::LineOutcome;
use crate::tui::cmdline::parse::{Command, parse};
use crate::tui::effect::Effect;
use crate::tui::keymap::Key;

impl App {
    /// A key while the command line is open: Tab completes, the text
    /// boxes' keys edit, Enter runs, Esc leaves; the global keys (Ctrl-C)
    /// still reach.
    pub(super) fn cmdline_key(&mut self, ev: &KeyEvent) -> Vec<Effect> {
        let outcome = match ev.code {
            KeyCode::Tab => self.cmdline.complete(false),
            KeyCode::BackTab => self.cmdline.complete(true),
            _ => {
                if let Some(a) = self.keymap.action_in(Context::Input, ev) {
                    self.cmdline.handle(a)
                } else if let Some(c) = Key::from_event(ev).and_then(|k| k.text()) {
                    self.cmdline.type_text(&c.to_string());
                    LineOutcome::Stay
                } else if let Some(a) = self.keymap.action_in(Context::Global, ev) {
                    return self.act(a);
                } else {
                    LineOutcome::Stay
                }
            }
        };
        self.line_outcome(outcome)
    }

    /// An `input_*` action for the open command line (scripts send these).
    pub(super) fn cmdline_action(&mut self, action: Action) -> Vec<Effect> {
        if action.context() == Context::Global {
            return self.act(action);
        }
        let outcome = self.cmdline.handle(action);
        self.line_outcome(outcome)
    }

    fn line_outcome(&mut self, outcome: LineOutcome) -> Vec<Effect> {
        match outcome {
            LineOutcome::Stay | LineOutcome::Closed => Vec::new(),
            LineOutcome::Say(message) => {
                self.status = Some(message);
                Vec::new()
            }
            LineOutcome::Run(line) => self.run_command(&line),
        }
    }

    /// Runs a line of the command line, or says why not.
    pub(super) fn run_command(&mut self, line: &str) -> Vec<Effect> {
        let command = match parse(line) {
            Ok(c) => c,
            Err(why) => {
                self.status = Some(why.to_string());
                return Vec::new();
            }
        };
        match command {
            Command::Act(action) => self.act(action),
            Command::Cap(cap) => self.set_from_line(
                |s| {
                    if s.max_tools.is_some() {
                        s.max_tools = cap;
                    } else {
                        s.max_loaded_tools = cap;
                    }
                },
                &format!("cap {}", cap.map_or("none".to_string(), |n| n.to_string())),
            ),
            Command::Initial(n) => {
                self.set_from_line(|s| s.initial_tool_count = n, &format!("initial {n}"))
            }
            Command::Ranker(r) => {
                self.set_from_line(|s| s.ranker = r, &format!("ranker {}", r.as_str()))
            }
            Command::Strategy(st) => {
                self.set_from_line(|s| s.strategy = st, &format!("strategy {st}"))
            }
            Command::Gate(on) => self.set_from_line(
                |s| s.gate = on,
                &format!("gate {}", if on { "on" } else { "off" }),
            ),
            Command::Basis(b) => {
                self.set_from_line(|s| s.token_basis = Some(b), &format!("token basis {b}"))
            }
            Command::Sort(sort, reverse) => {
                if self.catalog_view.sort_by(sort, reverse) {
                    self.rebuild_view();
                    self.status = Some(format!(
                        "catalog {}",
                        self.catalog_view
                            .sort_label()
                            .unwrap_or_else(|| "in catalog order".into())
                    ));
                } else {
                    self.status = Some(
                        "no tool of this catalog comes from an MCP server: nothing to sort by server"
                            .into(),
                    );
                }
                Vec::new()
            }
            Command::Search(words) => {
                self.focus = Focus::Query;
                self.query.input.set(&words);
                let outcome = self.query.handle(Action::InputSubmit);
                self.on_query(outcome)
            }
            Command::Open(file) => self.open_catalog(&file),
            Command::Follow(url) => self.follow_from_line(&url),
        }
    }

    /// Settings changed by a command: validated and put in force as the
    /// settings popup does, or refused with the SDK's message.
    fn set_from_line(&mut self, change: impl FnOnce(&mut Settings), what: &str) -> Vec<Effect> {
        let mut edited = self.settings.clone();
        change(&mut edited);
        let (effects, said) = match self.apply_settings(edited) {
            Ok(effects) => (effects, format!("{what}: in force")),
            Err(why) => (
                Vec::new(),
                format!("{what} refused, the settings stay: {why}"),
            ),
        };
        self.status = Some(said);
        effects
    }

    /// `:open FILE`: the catalog read from FILE takes the place of the one
    /// in view, as a changed file does.
    fn open_catalog(&mut self, file: &str) -> Vec<Effect> {
        let source = CatalogSource::parse(file);
        if source == CatalogSource::Stdin {
            self.status = Some(":open reads a file or @name, not standard input".into());
            return Vec::new();
        }
        self.opening = Some((file.to_string(), vec![source.clone()]));
        self.status = Some(format!("reading {}…", crate::terminal_text::escape(file)));
        vec![Effect::LoadCatalog {
            sources: vec![source],
        }]
    }

    /// `:follow URL [KEY_ENV]`: the live screen on another gateway's or
    /// service's traffic (or a recorded file), its key read from the
    /// variable named, as `explore --follow URL --follow-key-env NAME`.
    fn follow_from_line(&mut self, arg: &str) -> Vec<Effect> {
        let mut words = arg.split_whitespace();
        let (Some(url), env, None) = (words.next(), words.next(), words.next()) else {
            self.status = Some(":follow takes a URL and, if it needs a key, the variable that holds it: :follow URL [KEY_ENV]".into());
            return Vec::new();
        };
        let key = match env {
            Some(name) => match std::env::var(name) {
                Ok(v) if !v.is_empty() => Some(v),
                _ => {
                    self.status = Some(format!(
                        ":follow {}: the variable {} is not set (it holds the followed server's key)",
                        crate::terminal_text::escape(url),
                        crate::terminal_text::escape(name)
                    ));
                    return Vec::new();
                }
            },
            None => None,
        };
        match crate::follow::Source::parse(url, key) {
            Ok(source) => self.start_following(source),
            Err(why) => {
                self.status = Some(format!(
                    ":follow {}: {}",
                    crate::terminal_text::escape(url),
                    crate::terminal_text::escape(&why.to_string())
                ));
                Vec::new()
            }
        }
    }

    /// `1` `2` `3`: the catalog, the results or the detail pane (the
    /// detail's popup on narrow terminals).
    pub(super) fn focus_pane(&mut self, pane: Focus) {
        self.catalog_view.typing = false;
        if pane == Focus::Detail && self.layout.detail_is_popup() {
            self.detail.open();
            self.screens.show(Popup::Detail);
            return;
        }
        if matches!(pane, Focus::Catalog | Focus::Results) {
            self.last_list = pane;
        }
        self.focus = pane;
    }

    /// The zoom on or off (it follows the focused pane).
    pub(super) fn toggle_zoom(&mut self) {
        self.zoomed = !self.zoomed;
        let key = self.keymap.label(Action::Zoom);
        self.status = Some(if self.zoomed {
            format!(
                "zoomed ({key} again: back; {} zooms the next pane)",
                self.keymap.label(Action::NextPane)
            )
        } else {
            "zoom off: every pane back".into()
        });
    }

    /// The pane the zoom shows (none: no zoom).
    pub fn zoomed_pane(&self) -> Option<Focus> {
        if !self.zoomed {
            return None;
        }
        Some(match self.focus {
            Focus::Query => self.last_list,
            other => other,
        })
    }

    /// A key bound to nothing on the main screen: said, with help's key.
    pub(super) fn unbound_here(&mut self, key: &KeyEvent) {
        let name = Key::from_event(key).map_or_else(|| "that key".to_string(), |k| k.to_string());
        self.status = Some(format!(
            "{} does nothing here ({} lists the keys, {} runs a command by name)",
            crate::terminal_text::escape(&name),
            self.keymap.label(Action::Help),
            self.keymap.label(Action::CommandLine)
        ));
    }
}
