//! The simulator's keys, by what has the keyboard: the question before a
//! real call, the trace's path being typed, a call opened whole, the
//! arguments being edited, else the simulator's own keys.

use std::sync::Arc;

use super::{BreakerPane, LiveCall, MAX_LOOP, Outcome, jobs};
use crate::catalog::Catalog;
use crate::sources::mcp::McpHost;
use crate::tui::action::Action;
use crate::tui::line_input::LineInput;
use crate::tui::list::Scroll;

/// What the simulator works on: the catalog, the catalog pane's rows (what
/// next and previous tool step through), and the MCP servers' host when
/// the explorer has their connections (MCP tools are then called for real).
pub struct Breaking<'a> {
    pub catalog: &'a Catalog,
    pub tools: &'a [usize],
    pub host: Option<&'a Arc<McpHost>>,
}

/// Real calls to send as effects (none without the servers' host).
fn send(on: &Breaking, calls: Vec<LiveCall>) -> Outcome {
    match on.host {
        Some(host) if !calls.is_empty() => {
            Outcome::Effects(calls.into_iter().map(|c| c.effect(host)).collect())
        }
        _ => Outcome::Stay,
    }
}

impl BreakerPane {
    /// The simulator's keys: `breaker_*` actions, `input_*` ones while a
    /// text box has the keyboard, `confirm_*` ones while a real call waits
    /// for a yes. A trace to read and real calls to send come back as
    /// effects.
    pub fn handle(&mut self, action: Action, on: &Breaking) -> Outcome {
        if self.confirm.is_some() {
            return match action {
                Action::ConfirmYes => send(on, self.answer(true)),
                Action::ConfirmNo => send(on, self.answer(false)),
                _ => Outcome::Stay,
            };
        }
        if self.path.is_some() {
            return self.handle_path(action);
        }
        if self.view.is_some() {
            self.handle_view(action);
            return Outcome::Stay;
        }
        if self.editing {
            return self.handle_editing(action, on);
        }
        self.handle_simulator(action, on)
    }

    /// The trace's path being typed: edited, given up, or read (a job).
    fn handle_path(&mut self, action: Action) -> Outcome {
        let Some(path) = &mut self.path else {
            return Outcome::Stay;
        };
        match action {
            Action::InputCancel => self.path = None,
            Action::InputSubmit => {
                let p = path.text.trim().to_string();
                self.path = None;
                return Outcome::Effects(vec![jobs::read_trace(p)]);
            }
            other => {
                path.edit(other);
            }
        }
        Outcome::Stay
    }

    /// The opened call's keys: scroll, or close.
    fn handle_view(&mut self, action: Action) {
        let Some((_, scroll)) = &mut self.view else {
            return;
        };
        match action {
            Action::BreakerLogDown => {
                scroll.handle(Action::Down, 1);
            }
            Action::BreakerLogUp => {
                scroll.handle(Action::Up, 1);
            }
            Action::BreakerViewCall | Action::BreakerClose => self.view = None,
            _ => {}
        }
    }

    /// The arguments being edited: edited, given up, or sent as the call.
    fn handle_editing(&mut self, action: Action, on: &Breaking) -> Outcome {
        let (catalog, live) = (on.catalog, on.host.is_some());
        match action {
            Action::InputCancel => self.editing = false,
            Action::InputSubmit => {
                // Sent: the keyboard goes back to the simulator's keys.
                self.editing = false;
                return send(on, self.request(catalog, live));
            }
            other => {
                self.args.edit(other);
            }
        }
        Outcome::Stay
    }

    /// The simulator's own keys: call, loop, the knobs, the tool, the
    /// trace, and the log.
    fn handle_simulator(&mut self, action: Action, on: &Breaking) -> Outcome {
        let (catalog, tools, live) = (on.catalog, on.tools, on.host.is_some());
        match action {
            Action::BreakerClose => return Outcome::Close,
            Action::BreakerCall => return send(on, self.request(catalog, live)),
            Action::BreakerEdit => self.editing = true,
            Action::BreakerLoop => return send(on, self.request_loop(catalog, live)),
            Action::BreakerThresholdUp => self.change_threshold(1),
            Action::BreakerThresholdDown => self.change_threshold(-1),
            Action::BreakerLoopMore => self.loop_count = (self.loop_count + 1).min(MAX_LOOP),
            Action::BreakerLoopLess => self.loop_count = self.loop_count.saturating_sub(1).max(1),
            Action::BreakerReset => self.reset(),
            Action::BreakerNextTool => self.step_tool(catalog, tools, true),
            Action::BreakerPrevTool => self.step_tool(catalog, tools, false),
            Action::BreakerOpenTrace => {
                self.trace_error = None;
                self.path = Some(LineInput::offered(
                    self.trace
                        .as_ref()
                        .map_or("@example", |t| t.origin.as_str()),
                ));
            }
            Action::BreakerStep => {
                self.step(catalog);
            }
            Action::BreakerRunTrace => self.run_trace(catalog),
            Action::BreakerLogUp => self.pick_row(-1),
            Action::BreakerLogDown => self.pick_row(1),
            Action::BreakerViewCall => match self.picked_row() {
                Some(row) => self.view = Some((row, Scroll::default())),
                None => self.message = Some("no calls yet: nothing to open".into()),
            },
            _ => {}
        }
        Outcome::Stay
    }

    /// The next (or previous) tool of the catalog pane's rows, round; the
    /// first when the tool is not among them.
    fn step_tool(&mut self, catalog: &Catalog, tools: &[usize], next: bool) {
        if let Some(pos) = tools.iter().position(|&i| i == self.tool) {
            let n = tools.len();
            let to = if next {
                (pos + 1) % n
            } else {
                (pos + n - 1) % n
            };
            self.pick(catalog, tools[to]);
        } else if let Some(&first) = tools.first() {
            self.pick(catalog, first);
        }
    }

    /// Picks an older (`-1`) or newer (`+1`) log row.
    fn pick_row(&mut self, delta: isize) {
        let Some(row) = self.picked_row() else {
            self.message = Some("no calls yet: nothing to pick".into());
            return;
        };
        let last = self.log.len() - 1;
        let row = (row as isize + delta).clamp(0, last as isize) as usize;
        // The newest row follows new calls.
        self.picked = (row != last).then_some(row);
    }
}
