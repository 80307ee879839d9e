//! The built-in keys where they are declared (the embedded config for the
//! panes and text boxes, each screen's folder for its own) and where they
//! are written for users (docs/explorer.md), so neither drifts.

use super::*;

/// The embedded config's `[keys]`.
fn config_table() -> KeyTable {
    crate::config::parse(crate::config::DEFAULT_CONFIG, BUILT_IN)
        .map(|c| Keymap::table_of(&c))
        .unwrap()
}

#[test]
fn a_screens_keys_are_declared_in_its_folder_and_the_rest_in_the_config() {
    let config = config_table();
    for name in config.keys() {
        let action = Action::from_name(name).unwrap();
        assert!(
            !matches!(action, Action::Screen(_)),
            "{name}: a screen's default keys are declared in its folder"
        );
    }
    let all = Keymap::default_table();
    for &action in Action::ALL {
        let keys = &all[action.name()];
        match action {
            Action::Screen(_) => assert_eq!(keys, &action.declared_keys().to_vec()),
            _ => assert_eq!(keys, &config[action.name()]),
        }
        for k in keys {
            Key::parse(k).unwrap_or_else(|e| panic!("{}: {e}", action.name()));
        }
    }
    assert_eq!(all.len(), Action::ALL.len());
    // A name the built-in config sets wins over a screen's declared keys.
    let mut mine = KeyTable::new();
    mine.insert("tune_close".into(), vec!["x".into()]);
    assert_eq!(Keymap::with_declared(&mine)["tune_close"], ["x"]);
    assert_eq!(Keymap::with_declared(&mine)["tune_apply"], ["a"]);
}

/// A key as the docs' tables write it: a character between backticks
/// (Space, and named keys, as help shows them; Delete in full).
fn written(key: &Key) -> String {
    match key.to_string().as_str() {
        "Del" => "Delete".to_string(),
        "Space" => "Space".to_string(),
        shown if key.text().is_some() => format!("`{shown}`"),
        shown => shown.to_string(),
    }
}

#[test]
fn the_docs_list_every_action_with_its_default_keys() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("docs/explorer.md")).unwrap();
    let rows: BTreeMap<&str, &str> = docs
        .lines()
        .filter_map(|line| {
            let mut cells = line.strip_prefix("| `")?.splitn(3, " | ");
            let name = cells.next()?.strip_suffix('`')?;
            Some((name, cells.next()?))
        })
        .collect();
    let keymap = Keymap::defaults();
    let wrong: Vec<String> = Action::ALL
        .iter()
        .filter_map(|&action| {
            let keys = keymap
                .keys_for(action)
                .iter()
                .map(written)
                .collect::<Vec<_>>();
            let keys = keys.join(", ");
            let row = rows.get(action.name()).copied();
            (row != Some(keys.as_str())).then(|| format!("{}: {row:?}, not {keys}", action.name()))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "docs/explorer.md's default keys:\n{}",
        wrong.join("\n")
    );
}
