//! The house's floors, checked on the source: ARCHITECTURE.md's floor table
//! is read, and every module's real imports (`crate::NAME`, alone or in
//! `crate::{…}` groups, outside comments) must stay on its floor or go
//! below it, never in a circle within a floor; no module uses a crate its
//! floor's row says it never uses; every module of `lib.rs` is on exactly
//! one floor. Within the core, the modules that write or count a tool
//! list (`export`, `tokens`) ask `provider`, which asks `catalog`, never
//! back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ARCHITECTURE: &str = include_str!("../ARCHITECTURE.md");
const LIB: &str = include_str!("lib.rs");

/// Within the core: a module and the core modules above it, which it never
/// names.
const CORE_FLOORS: [(&str, &[&str]); 3] = [
    ("catalog", &["provider", "tokens", "export"]),
    ("provider", &["tokens", "export"]),
    ("tokens", &["export"]),
];

/// A row of the floor table.
#[derive(Debug)]
struct Floor {
    name: String,
    modules: Vec<String>,
    never: Vec<String>,
}

/// The names between backticks in a cell, `tui/` and `main.rs` as `tui`
/// and `main`.
fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(|n| n.trim_end_matches('/').trim_end_matches(".rs").to_string())
        .collect()
}

/// ARCHITECTURE.md's floor table, from the top.
fn floors(page: &str) -> Vec<Floor> {
    let mut lines = page
        .lines()
        .skip_while(|l| !l.starts_with("| floor | modules | never uses |"))
        .skip(2);
    let mut out = Vec::new();
    for line in lines.by_ref() {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        assert!(cells.len() >= 6, "a floor row of four cells: {line}");
        let cells = &cells[1..];
        out.push(Floor {
            name: cells[0].to_string(),
            modules: ticked(cells[1]),
            never: ticked(cells[2]),
        });
    }
    out
}

/// The modules `lib.rs` declares, but this one.
fn lib_modules() -> Vec<String> {
    LIB.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("pub mod ").or(l.strip_prefix("mod ")))
        .map(|m| m.trim_end_matches(';').to_string())
        .filter(|m| m != "module_rules")
        .collect()
}

fn sources(module: &str) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let file = src.join(format!("{module}.rs"));
    let mut out = Vec::new();
    if file.is_file() {
        out.push(file);
    }
    let mut dirs = vec![src.join(module)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A file's code: each line without its comment.
fn code(text: &str) -> Vec<&str> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect()
}

fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
}

/// The modules named in `crate::{a, b::c}` groups, across lines.
fn grouped(text: &str) -> Vec<String> {
    let code = code(text).join(" ");
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::{") {
        rest = &rest[at + "crate::{".len()..];
        let end = rest.find('}').unwrap_or(rest.len());
        for item in rest[..end].split(',') {
            let module = item.trim().split("::").next().unwrap_or("").trim();
            if !module.is_empty() && module != "self" {
                found.push(module.to_string());
            }
        }
    }
    found
}

/// Every module of this crate a file names (`crate::NAME`, alone or in a
/// group).
fn named(text: &str) -> Vec<String> {
    let mut found = grouped(text);
    for line in code(text) {
        for word in words(line) {
            if let Some(rest) = word.strip_prefix("crate::") {
                let module = rest.split("::").next().unwrap_or("");
                if !module.is_empty() {
                    found.push(module.to_string());
                }
            }
        }
    }
    found
}

/// Where a file uses one of `crates` (`tokio::spawn`, `use axum::…`).
fn uses(text: &str, crates: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in code(text).into_iter().enumerate() {
        for word in words(line) {
            let head = word.split("::").next().unwrap_or("");
            if word.contains("::") && crates.iter().any(|c| c == head) {
                found.push(format!("line {}: {word}", n + 1));
            }
        }
    }
    found
}

/// Each module and the modules of this crate it imports.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for module in lib_modules() {
        let mut names = BTreeSet::new();
        for file in sources(&module) {
            let text = std::fs::read_to_string(&file).unwrap();
            names.extend(named(&text).into_iter().filter(|n| *n != module));
        }
        out.insert(module, names);
    }
    out
}

#[test]
fn every_module_is_on_exactly_one_floor() {
    let floors = floors(ARCHITECTURE);
    assert!(floors.len() >= 5, "no floor table read: {floors:?}");
    let listed: Vec<&String> = floors.iter().flat_map(|f| &f.modules).collect();
    let mut problems = Vec::new();
    for module in lib_modules() {
        match listed.iter().filter(|m| ***m == module).count() {
            1 => {}
            0 => problems.push(format!("{module} is on no floor")),
            n => problems.push(format!("{module} is on {n} floors")),
        }
    }
    let top = &floors[0];
    for module in listed {
        if sources(module).is_empty() && !(top.modules.contains(module)) {
            problems.push(format!("{module} has no source"));
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert!(src.join("main.rs").is_file() && src.join("cli").is_dir());
    assert!(
        problems.is_empty(),
        "the floor table:\n{}",
        problems.join("\n")
    );
}

#[test]
fn no_import_runs_up_or_in_a_circle() {
    let floors = floors(ARCHITECTURE);
    let floor_of = |m: &str| floors.iter().position(|f| f.modules.iter().any(|x| x == m));
    let imports = imports();
    let mut problems = Vec::new();
    for (module, names) in &imports {
        let Some(at) = floor_of(module) else { continue };
        for name in names {
            match floor_of(name) {
                Some(to) if to < at => problems.push(format!(
                    "{module} ({}) imports {name}, above it ({})",
                    floors[at].name, floors[to].name
                )),
                None if imports.contains_key(name) => {
                    problems.push(format!("{module} imports {name}, on no floor"))
                }
                _ => {}
            }
        }
    }
    // Within a floor: no circle.
    for floor in &floors {
        let within = |m: &String| -> Vec<&String> {
            imports
                .get(m)
                .map(|n| n.iter().filter(|x| floor.modules.contains(x)).collect())
                .unwrap_or_default()
        };
        for start in &floor.modules {
            let mut seen = BTreeSet::new();
            let mut stack = within(start);
            while let Some(m) = stack.pop() {
                if m == start {
                    problems.push(format!("{start} imports itself through {}", floor.name));
                    break;
                }
                if seen.insert(m) {
                    stack.extend(within(m));
                }
            }
        }
    }
    assert!(problems.is_empty(), "the floors:\n{}", problems.join("\n"));
}

#[test]
fn no_floor_uses_a_crate_it_never_uses() {
    let mut broken = Vec::new();
    for floor in floors(ARCHITECTURE) {
        for module in &floor.modules {
            for file in sources(module) {
                let text = std::fs::read_to_string(&file).unwrap();
                for v in uses(&text, &floor.never) {
                    broken.push(format!("{} ({}): {v}", file.display(), floor.name));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "crates a floor never uses:\n{}",
        broken.join("\n")
    );
}

#[test]
fn within_the_core_no_import_runs_back_down() {
    let mut broken = Vec::new();
    for (module, above) in CORE_FLOORS {
        for file in sources(module) {
            let text = std::fs::read_to_string(&file).unwrap();
            for name in named(&text) {
                if above.contains(&name.as_str()) {
                    broken.push(format!("{}: crate::{name}", file.display()));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "the core reaches up within itself:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_rules_see_what_they_forbid() {
    let never = ["tokio".to_string()];
    assert_eq!(
        uses(
            "use crate::server::x;\nlet a = tokio::spawn(f); // tokio::x in a comment\n",
            &never
        ),
        ["line 2: tokio::spawn"]
    );
    assert_eq!(
        named(
            "use crate::{\n    catalog::Tool,\n    provider::X,\n};\nlet t = crate::tokens::f(); // crate::export"
        ),
        ["catalog", "provider", "tokens"]
    );
    let table = "| floor | modules | never uses | what |\n| --- | --- | --- | --- |\n\
                 | top | `main.rs`, `cli/` | | x |\n| low | `a`, `b/` | `tokio` | y |\n\nafter";
    let read = floors(table);
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].modules, ["main", "cli"]);
    assert_eq!(read[1].modules, ["a", "b"]);
    assert_eq!(read[1].never, ["tokio"]);
}
