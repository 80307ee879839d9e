//! The main screen's panes, one file each with its keys: the catalog, the
//! query box, the results, the detail, and the provider's counts. Drawing
//! each is the file of the same name in [`super::ui`]; the screens over
//! them are in [`super::screen`].

pub mod catalog;
pub mod detail;
pub mod exact;
pub mod query;
pub mod results;
