//! The comparison as a [`Screen`]: opened on the query box's request, its
//! rows as the screen's size allows, and the line of what each side costs
//! with the provider's caching when the Tokens box prices one.

use ratatui::Frame;

use super::{ComparePane, Compared, KEYS, Side, draw};
use crate::caching::Pricing;
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::effect::Effect;
use crate::tui::paint::Theme;
use crate::tui::screen::job::Answer;
use crate::tui::screen::{On, Outcome, Popup, Screen, Screens, Told, Unopened};
use crate::tui::session::{self, TURNS};
use crate::tui::text::short_number;

/// The screen opens on the query box's request, or says why there is
/// nothing to compare.
pub fn open(on: &On, screens: &mut Screens) -> Result<Vec<Effect>, Unopened> {
    let compared = Compared {
        catalog: on.catalog,
        searcher: on.ask.searcher(),
        settings: on.settings,
        handle: on.handle,
        query: on.ask.query(),
        regex: on.ask.regex(),
    };
    let (pane, effects) = ComparePane::open(&compared)?;
    screens.hold(Box::new(pane));
    screens.show(Popup::Compare);
    Ok(effects)
}

impl Screen for ComparePane {
    fn id(&self) -> Popup {
        Popup::Compare
    }

    fn context(&self) -> Context {
        Context::Compare
    }

    fn keys(&self) -> &'static [KeyGroup] {
        KEYS
    }

    fn handle(&mut self, action: Action, on: &On) -> Outcome {
        let rows = draw::list_rows(on.layout.body, on.ask.caching().is_some());
        ComparePane::handle(self, action, rows)
    }

    fn draw(&self, f: &mut Frame, on: &On, theme: &Theme) {
        let area = on.layout.body;
        let caching = on.ask.caching().and_then(|pricing| {
            caching_line(
                on,
                self,
                &pricing,
                usize::from(area.width).saturating_sub(4),
            )
        });
        draw::draw(f, area, self, on.catalog, caching, theme);
    }

    /// The right side's way put in force closes the screen; a refusal is
    /// said under it.
    fn applied(&mut self, refused: Option<String>) -> Told {
        let label = &self.right().way.label;
        match refused {
            Some(e) => Told::Elsewhere(format!("{label} not put in force: {e}")),
            None => Told::Close(format!("{label} is in force (s: the settings)")),
        }
    }

    fn receive(&mut self, answer: &Answer, _on: &On) -> Vec<Effect> {
        self.searched(answer)
    }

    fn of_catalog(&self) -> bool {
        true
    }
}

/// What each side's way costs over the simulated session (strategy `all`:
/// every tool up front; deferred: the tools it found put in the
/// conversation); `None` until the tokens are counted.
fn caching_line(on: &On, pane: &ComparePane, pricing: &Pricing, width: usize) -> Option<String> {
    let costs = on.ask.costs()?;
    let cost = |side: &Side| -> f64 {
        let found: Vec<usize> = side.found().iter().map(|h| h.index).collect();
        let [all, conv, _] = session::costs(
            costs,
            on.catalog,
            on.handle,
            &side.way.settings,
            &found,
            pricing,
        );
        if side.sends_all() { all } else { conv }
    };
    let (left, right) = (cost(pane.left()), cost(pane.right()));
    let label = &pane.right().way.label;
    let n = |c: f64| short_number(c.round() as u64);
    let who = session::who(pricing);
    let candidates = [
        format!(
            "{who} caching over {TURNS} turns (input-token units): in force costs {} · {label} {} ({:.0} %)",
            n(left),
            n(right),
            right / left.max(f64::MIN_POSITIVE) * 100.0
        ),
        format!("{who} cached: in force {} · {label} {}", n(left), n(right)),
    ];
    Some(session::longest_fitting(&candidates, width))
}
