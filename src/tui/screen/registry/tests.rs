//! The registry's order: help over a screen closes back to it, a screen
//! not kept goes when closed, a kept one stays, the catalog's screens go
//! when it is read again; settings replaced are told to all but the front.

use std::any::Any;

use ratatui::Frame;

use super::Screens;
use crate::tui::action::{Action, Context, KeyGroup};
use crate::tui::paint::Theme;
use crate::tui::screen::{On, Outcome, Popup, Screen};

/// A screen with an id and the two flags, counting its keys.
struct Probe {
    id: Popup,
    kept: bool,
    of_catalog: bool,
    keys: usize,
    /// Times told the settings were replaced.
    replaced: usize,
}

fn probe(id: Popup, kept: bool, of_catalog: bool) -> Box<Probe> {
    Box::new(Probe {
        id,
        kept,
        of_catalog,
        keys: 0,
        replaced: 0,
    })
}

impl Screen for Probe {
    fn id(&self) -> Popup {
        self.id
    }
    fn context(&self) -> Context {
        Context::Main
    }
    fn keys(&self) -> &'static [KeyGroup] {
        &[]
    }
    fn handle(&mut self, _action: Action, _on: &On) -> Outcome {
        self.keys += 1;
        Outcome::Stay
    }
    fn draw(&self, _f: &mut Frame, _on: &On, _theme: &Theme) {}
    fn over(&self) -> bool {
        self.id == Popup::Help
    }
    fn kept(&self) -> bool {
        self.kept
    }
    fn of_catalog(&self) -> bool {
        self.of_catalog
    }
    fn settings_replaced(&mut self, _settings: &crate::settings::Settings) {
        self.replaced += 1;
    }
}

/// A second type, to find screens by their type.
struct Other;

impl Screen for Other {
    fn id(&self) -> Popup {
        Popup::History
    }
    fn context(&self) -> Context {
        Context::History
    }
    fn keys(&self) -> &'static [KeyGroup] {
        &[]
    }
    fn handle(&mut self, _action: Action, _on: &On) -> Outcome {
        Outcome::Close
    }
    fn draw(&self, _f: &mut Frame, _on: &On, _theme: &Theme) {}
}

#[test]
fn help_opens_over_a_screen_and_closes_back_to_it() {
    let mut s = Screens::default();
    s.hold(probe(Popup::Tune, true, false));
    s.hold(probe(Popup::Help, true, false));
    s.show(Popup::Tune);
    s.show(Popup::Help);
    assert_eq!(s.front(), Some(Popup::Help));
    s.close();
    assert_eq!(s.front(), Some(Popup::Tune));
    s.close();
    assert_eq!(s.front(), None);
    assert!(s.get::<Probe>().is_some(), "kept screens stay held");
}

#[test]
fn another_screen_opens_alone_and_one_not_kept_goes_when_closed() {
    let mut s = Screens::default();
    s.hold(probe(Popup::Compare, false, true));
    s.show(Popup::Compare);
    s.hold(Box::new(Other));
    s.show(Popup::History);
    assert_eq!(s.front(), Some(Popup::History));
    assert!(s.get::<Probe>().is_none(), "compare was closed, not kept");
    assert!(s.get::<Other>().is_some());
    s.close();
    assert!(s.get::<Other>().is_none());
    assert_eq!(s.front(), None);
}

#[test]
fn the_front_screen_is_found_by_its_id_and_changed_in_place() {
    let mut s = Screens::default();
    s.hold(probe(Popup::Breaker, true, true));
    assert!(s.front_screen().is_none(), "held, not shown");
    s.show(Popup::Breaker);
    assert_eq!(s.front_screen().map(|f| f.id()), Some(Popup::Breaker));
    let made = s.kept_mut(|| Probe {
        id: Popup::Breaker,
        kept: true,
        of_catalog: true,
        keys: 7,
        replaced: 0,
    });
    assert_eq!(made.keys, 0, "the held one, not a new one");
    made.keys = 3;
    assert_eq!(s.get::<Probe>().map(|p| p.keys), Some(3));
}

#[test]
fn the_catalog_read_again_drops_its_screens_and_the_detail_popup() {
    let mut s = Screens::default();
    s.hold(probe(Popup::Breaker, true, true));
    s.hold(Box::new(Other));
    s.show(Popup::Breaker);
    s.drop_of_catalog();
    assert_eq!(s.front(), None, "the breaker shown went with it");
    assert!(s.get::<Probe>().is_none());
    assert!(
        s.get::<Other>().is_some(),
        "a screen not of the catalog stays"
    );
    s.show(Popup::Detail);
    assert!(s.front_screen().is_none(), "the detail popup is no screen");
    s.drop_of_catalog();
    assert_eq!(s.front(), None);
}

/// How often the held screen `id` (a probe) was told of settings replaced.
fn replaced(s: &mut Screens, id: Popup) -> usize {
    let screen = s.held_mut(id).expect("held") as &mut dyn Any;
    screen.downcast_mut::<Probe>().expect("a probe").replaced
}

#[test]
fn settings_replaced_are_told_to_every_held_screen_but_the_front() {
    let mut s = Screens::default();
    s.hold(probe(Popup::Settings, true, false));
    s.hold(probe(Popup::Tune, true, false));
    s.show(Popup::Tune);
    s.settings_replaced(&crate::settings::Settings::default());
    assert_eq!(replaced(&mut s, Popup::Settings), 1, "held, not in front");
    assert_eq!(replaced(&mut s, Popup::Tune), 0, "in front: as it was");
    s.close_all();
    s.settings_replaced(&crate::settings::Settings::default());
    assert_eq!(replaced(&mut s, Popup::Tune), 1, "kept while closed");
}

#[test]
fn no_screen_follows_until_one_says_it_does() {
    let mut s = Screens::default();
    s.hold(probe(Popup::Breaker, true, false));
    s.hold(Box::new(Other));
    assert!(s.follower().is_none());
    assert!(s.follower_mut().is_none());
    assert_eq!(s.each_mut().count(), 2, "every held screen");
}
