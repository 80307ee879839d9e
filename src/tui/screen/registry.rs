//! The registry of screens: the ones held (open, or kept while closed)
//! and the order they are shown in. The app dispatches through it; it
//! knows no screen by name.

use std::any::Any;

use super::{Popup, Screen};

/// The screens held, and which are shown (the front last).
#[derive(Default)]
pub struct Screens {
    held: Vec<Box<dyn Screen>>,
    /// Shown, bottom first: help opens over another screen and closes
    /// back to it. [`Popup::Detail`] is the detail pane's popup (no
    /// screen of its own).
    shown: Vec<Popup>,
}

impl Screens {
    /// The screen (or popup) in front.
    pub fn front(&self) -> Option<Popup> {
        self.shown.last().copied()
    }

    /// The screen in front, when it is one.
    pub fn front_screen(&self) -> Option<&dyn Screen> {
        let id = self.front()?;
        self.held.iter().find(|s| s.id() == id).map(|s| s.as_ref())
    }

    /// The screen in front, to change.
    pub fn front_screen_mut(&mut self) -> Option<&mut (dyn Screen + 'static)> {
        let id = self.front()?;
        self.held
            .iter_mut()
            .find(|s| s.id() == id)
            .map(|s| s.as_mut())
    }

    /// The held screen `id`, to change.
    pub fn held_mut(&mut self, id: Popup) -> Option<&mut (dyn Screen + 'static)> {
        self.held
            .iter_mut()
            .find(|s| s.id() == id)
            .map(|s| s.as_mut())
    }

    /// The held screen of type `T`.
    pub fn get<T: Screen>(&self) -> Option<&T> {
        self.held
            .iter()
            .find_map(|s| (s.as_ref() as &dyn Any).downcast_ref::<T>())
    }

    /// The held screen of type `T`, to change.
    pub fn get_mut<T: Screen>(&mut self) -> Option<&mut T> {
        self.held
            .iter_mut()
            .find_map(|s| (s.as_mut() as &mut dyn Any).downcast_mut::<T>())
    }

    /// The held screen of type `T`, made first if none is.
    pub fn kept_mut<T: Screen>(&mut self, make: impl FnOnce() -> T) -> &mut T {
        if self.get::<T>().is_none() {
            self.hold(Box::new(make()));
        }
        self.get_mut::<T>()
            .expect("a screen held just now is found by its type")
    }

    /// Holds `screen` (in place of one with its id).
    pub fn hold(&mut self, screen: Box<dyn Screen>) {
        let id = screen.id();
        self.held.retain(|s| s.id() != id);
        self.held.push(screen);
    }

    /// The held screen that follows traffic, if one does.
    pub fn follower(&self) -> Option<&dyn Screen> {
        self.held
            .iter()
            .find(|s| s.follows().is_some())
            .map(|s| s.as_ref())
    }

    /// The held screen that follows traffic, to change.
    pub fn follower_mut(&mut self) -> Option<&mut (dyn Screen + 'static)> {
        self.held
            .iter_mut()
            .find(|s| s.follows().is_some())
            .map(|s| s.as_mut())
    }

    /// Every held screen, to change.
    pub fn each_mut(&mut self) -> impl Iterator<Item = &mut (dyn Screen + 'static)> {
        self.held.iter_mut().map(|s| s.as_mut())
    }

    /// Tells every held screen but the one in front that the settings in
    /// force were replaced ([`Screen::settings_replaced`]).
    pub fn settings_replaced(&mut self, settings: &crate::settings::Settings) {
        let front = self.front();
        for screen in self.held.iter_mut().filter(|s| Some(s.id()) != front) {
            screen.settings_replaced(settings);
        }
    }

    /// Shows `id` in front: a screen shown over others (help) over what
    /// is shown, any other alone.
    pub fn show(&mut self, id: Popup) {
        if self.front() == Some(id) {
            return;
        }
        let over = self.held.iter().any(|s| s.id() == id && s.over());
        if !over {
            self.close_all();
        }
        self.shown.push(id);
    }

    /// The front goes (dropped unless kept); what it was shown over is in
    /// front again.
    pub fn close(&mut self) {
        if let Some(id) = self.shown.pop() {
            self.drop_unless_kept(id);
        }
    }

    /// Every screen shown goes; the main screen is in front.
    pub fn close_all(&mut self) {
        while self.front().is_some() {
            self.close();
        }
    }

    /// Screens opened on the catalog's tools go (and the detail popup).
    pub fn drop_of_catalog(&mut self) {
        self.held.retain(|s| !s.of_catalog());
        let held: Vec<Popup> = self.held.iter().map(|s| s.id()).collect();
        self.shown.retain(|id| held.contains(id));
    }

    fn drop_unless_kept(&mut self, id: Popup) {
        if self.shown.contains(&id) {
            return;
        }
        self.held.retain(|s| s.id() != id || s.kept());
    }
}

#[cfg(test)]
mod tests;
