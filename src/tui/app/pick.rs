//! A hand-picked set of tools (Space): marked in the panes, and while it
//! holds any, what `a` toggles always-load on and what `x` exports.

use super::{App, Focus};
use crate::terminal_text::escape;
use crate::tui::action::Action;
use crate::tui::effect::Effect;

impl App {
    /// Picks or unpicks the highlighted tool and moves on to the next row.
    pub(super) fn toggle_pick(&mut self) {
        let Some((index, _)) = self.current_tool() else {
            self.status = Some("no tool to pick: the list under the cursor is empty".into());
            return;
        };
        if !self.picked.remove(&index) {
            self.picked.insert(index);
        }
        let name = escape(&self.catalog.tools()[index].name).into_owned();
        let n = self.picked.len();
        self.status = Some(if self.picked.contains(&index) {
            // The keys first: a narrow bottom line cuts the name, not them.
            format!(
                "{n} picked: {} always-load, {} export, {} unpick · {name}",
                self.keymap.label(Action::ToggleAlwaysLoad),
                self.keymap.label(Action::Export),
                self.keymap.label(Action::Escape),
            )
        } else {
            format!("{n} picked · {name} unpicked")
        });
        if matches!(self.focus, Focus::Catalog | Focus::Results) {
            self.move_in(self.focus, Action::Down);
        }
    }

    /// Forgets the picked set: true when there was one.
    pub(super) fn unpick_all(&mut self) -> bool {
        if self.picked.is_empty() {
            return false;
        }
        let n = self.picked.len();
        self.picked.clear();
        self.status = Some(format!(
            "{} unpicked",
            crate::tui::text::count(n as u64, "tool", "tools")
        ));
        true
    }

    /// Always-load set on every picked tool (off if all have it already),
    /// checked as one change: the SDK's refusal keeps them all as they were.
    pub(super) fn toggle_always_load_picked(&mut self) -> Vec<Effect> {
        let value = !self
            .picked
            .iter()
            .all(|&i| self.catalog.tools()[i].always_load);
        let mut picked = self.picked.iter();
        let Some(&first) = picked.next() else {
            return Vec::new();
        };
        let mut catalog = self.catalog.with_always_load(first, value);
        for &i in picked {
            catalog = catalog.with_always_load(i, value);
        }
        let n = crate::tui::text::count(self.picked.len() as u64, "picked tool", "picked tools");
        let said = format!(
            "always-load {} on {n}",
            if value { "set" } else { "cleared" }
        );
        self.put_always_load(catalog, said, format!("always-load not changed on {n}"))
    }
}
