//! What the live screen follows: the traffic held from the start when the
//! explorer follows something (a recorded session told at once), a new
//! source followed in its place (`:follow`), and the misses judged by a
//! catalog.

use super::LivePane;
use crate::catalog::Catalog;
use crate::follow::Source;
use crate::traffic::misses::Judge;
use crate::tui::screen::{Popup, Screens};
use crate::tui::setup::{Follow, MISSES_FILE, Setup};

/// Held from the start when something is followed, and shown first when
/// the explorer was asked to.
pub fn start(setup: &Setup, screens: &mut Screens) {
    let Some(follow) = &setup.follow else {
        return;
    };
    screens.hold(Box::new(pane_for(follow, &setup.catalog)));
    if follow.open_first {
        screens.show(Popup::Live);
    }
}

/// Follows `source` from now on, in place of what was followed: a new
/// screen in front, its misses judged by `catalog` (the one in view) and
/// its misses written where the last one's went.
pub fn follow(source: Source, catalog: &Catalog, screens: &mut Screens) {
    let requests_file = screens.get::<LivePane>().map_or_else(
        || MISSES_FILE.to_string(),
        |l| l.requests_file().to_string(),
    );
    let follow = Follow {
        source,
        requests_file,
        open_first: true,
        blind: None,
    };
    screens.hold(Box::new(pane_for(&follow, catalog)));
    screens.show(Popup::Live);
}

/// The screen's state when following `f`. A recorded session is told at
/// once.
fn pane_for(f: &Follow, catalog: &Catalog) -> LivePane {
    let mut pane = LivePane::new(f.source.clone(), f.requests_file.clone());
    let ended = f.source.recorded().is_some();
    match &f.blind {
        Some(why) => pane.judge_by(Judge::blind(ended), format!("no catalog ({why})")),
        None => pane.judge_by(judge(catalog, ended), said(catalog)),
    }
    pane.message = f.blind_said();
    for note in f.source.recorded().unwrap_or_default() {
        pane.receive(note, 1_000);
    }
    pane
}

/// The misses judged by `catalog`: each tool by its name and, when a
/// catalog of several servers prefixed it, by its name on its server (when
/// no other tool has that name).
pub(super) fn judge(catalog: &Catalog, ended: bool) -> Judge {
    let tools = catalog.tools();
    let mut on_servers: std::collections::HashMap<&str, Vec<bool>> = Default::default();
    for t in tools {
        if let Some(m) = &t.mcp {
            on_servers.entry(&m.name).or_default().push(t.always_load);
        }
    }
    let names = tools.iter().map(|t| (t.name.clone(), t.always_load)).chain(
        on_servers
            .into_iter()
            .filter(|(_, a)| a.len() == 1)
            .map(|(n, a)| (n.to_string(), a[0])),
    );
    // A tool's own name wins over another's name on its server.
    let mut map: std::collections::HashMap<String, bool> = Default::default();
    for (n, a) in names {
        map.entry(n).or_insert(a);
    }
    Judge::by(map, ended)
}

/// The catalog judged by, as the screen says it.
pub(super) fn said(catalog: &Catalog) -> String {
    format!("{} ({} tools)", catalog.name(), catalog.len())
}
