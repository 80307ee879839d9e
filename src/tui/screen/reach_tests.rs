//! How far a screen reaches outside its folder: every production file of
//! `src/` that names a screen (its module path, its state's type, its
//! `Popup` or `Context` variant), outside `screen/<name>/` and the registry
//! (`screen/mod.rs`: its `pub mod`, its `Popup` variant, its line in
//! `OPENED_BY`). A screen-specific match added anywhere else fails here:
//! give the screen a say through [`super::Screen`] instead, or, if it
//! truly belongs outside, add it to [`REACH`] with why.

use std::path::{Path, PathBuf};

/// Each screen: its folder, its state's type, its `Popup`/`Context`
/// variant, and the files outside its folder and the registry that name
/// it today.
const REACH: &[(&str, &str, &str, &[&str])] = &[
    // A screen as `history/` is: its folder and its lines in the registry.
    ("history", "HistoryList", "History", &[]),
    ("breaker", "BreakerPane", "Breaker", &[]),
    ("compare", "ComparePane", "Compare", &[]),
    // What it writes comes through `On` (the tools taken out, and where
    // from); its outcome carries the write and the format chosen.
    ("export", "ExportBox", "Export", &[]),
    // Help opens over any screen (`Screen::over`), and `/` finds words in
    // it as in the detail (`Screen::find`).
    ("help", "HelpState", "Help", &[]),
    // Held from the start when something is followed (`STARTED`); the
    // app finds it as the screen that follows (`Screen::follows`), hands
    // it the traffic (`Screen::followed`) and the catalog in view
    // (`Screen::catalog_in_view`), and carries out its miss explained
    // (`Outcome::Explain`).
    ("live", "LivePane", "Live", &[]),
    // Held from the start (`STARTED`); told of settings it did not ask
    // for (`Screen::settings_replaced`), and shows its own refusals
    // (`Screen::applied`).
    ("settings", "SettingsEditor", "Settings", &[]),
    // Held from the start, on the request file the explorer was given.
    ("tune", "TunePane", "Tune", &[]),
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's production text: none for a test file, else the file up to
/// its tests module.
fn production(path: &str, text: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.starts_with("tests") || name.ends_with("tests.rs") {
        return None;
    }
    let end = text.find("#[cfg(test)]\nmod tests {").unwrap_or(text.len());
    Some(text[..end].to_string())
}

/// Whether `text` holds `word` with no identifier character right after.
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let after = text[i + word.len()..].chars().next();
        let before = text[..i].chars().next_back();
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        !after.is_some_and(ident) && !before.is_some_and(ident)
    })
}

/// The production files outside `screen/<folder>/` and the registry that
/// name the screen.
fn reached(root: &Path, files: &[PathBuf], folder: &str, ty: &str, variant: &str) -> Vec<String> {
    let own = format!("src/tui/screen/{folder}/");
    let words = [
        format!("screen::{folder}"),
        ty.to_string(),
        format!("Popup::{variant}"),
        format!("Context::{variant}"),
    ];
    let mut found: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(root)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            if rel.starts_with(&own) || rel == "src/tui/screen/mod.rs" {
                return None;
            }
            let text = production(&rel, &std::fs::read_to_string(p).ok()?)?;
            words.iter().any(|w| names(&text, w)).then_some(rel)
        })
        .collect();
    found.sort();
    found
}

#[test]
fn a_screen_reaches_outside_its_folder_only_where_the_table_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let folders: Vec<String> = std::fs::read_dir(root.join("src/tui/screen"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir() && e.file_name() != "registry")
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for folder in &folders {
        assert!(
            REACH.iter().any(|(f, ..)| f == folder),
            "screen/{folder}/ is not in REACH: add its row"
        );
    }
    for (folder, ty, variant, allowed) in REACH {
        let found = reached(root, &files, folder, ty, variant);
        assert_eq!(
            found, *allowed,
            "{folder}: the files outside its folder and the registry that name it"
        );
    }
    // A screen such as the history: its folder and its lines in the
    // registry, its actions and their keys declared in its folder.
    let history = reached(root, &files, "history", "HistoryList", "History");
    assert!(history.is_empty(), "{history:?}");
}

#[test]
fn a_name_is_found_as_a_whole_word() {
    assert!(names("use x::TunePane;", "TunePane"));
    assert!(!names("TunePaneX", "TunePane"));
    assert!(!names("Popup::Helper", "Popup::Help"));
    assert!(names("Some(Popup::Help) =>", "Popup::Help"));
}
