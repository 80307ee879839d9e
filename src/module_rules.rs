//! The module rule that matters most, checked on the source: the pure core
//! (`catalog`, `tools_handle`, `tokens`, `engine`, `wire`, `breaker`, `settings`,
//! `traffic`, `caching`, `provider`, `export`, and `heap_size`, the byte
//! sizes its caches count)
//! imports no runtime, terminal or HTTP crate and no module above it; and
//! within the core, the modules that write or count a tool list (`export`,
//! `tokens`) ask `provider`, which asks `catalog`, never back.

use std::path::{Path, PathBuf};

/// The core's modules, and what they may use of this crate.
const CORE: [&str; 12] = [
    "catalog",
    "tools_handle",
    "tokens",
    "engine",
    "wire",
    "breaker",
    "settings",
    "heap_size",
    "traffic",
    "caching",
    "provider",
    "export",
];
const BELOW_THE_CORE: [&str; 4] = ["terminal_text", "numbers", "file_value", "layer"];
/// Within the core: a module and the core modules above it, which it never
/// names (so no import runs in a circle).
const CORE_FLOORS: [(&str, &[&str]); 3] = [
    ("catalog", &["provider", "tokens", "export"]),
    ("provider", &["tokens", "export"]),
    ("tokens", &["export"]),
];
/// Crates the core never uses.
const FORBIDDEN_CRATES: [&str; 6] = ["tokio", "ratatui", "crossterm", "axum", "reqwest", "hyper"];

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
    out
}

/// The `crate::NAME` and external crate paths a file names, outside comments.
fn violations(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
            if let Some(rest) = word.strip_prefix("crate::") {
                let module = rest.split("::").next().unwrap_or("");
                if !module.is_empty()
                    && !CORE.contains(&module)
                    && !BELOW_THE_CORE.contains(&module)
                {
                    found.push(format!("line {}: crate::{module}", n + 1));
                }
            }
            let head = word.split("::").next().unwrap_or("");
            if word.contains("::") && FORBIDDEN_CRATES.contains(&head) {
                found.push(format!("line {}: {word}", n + 1));
            }
        }
    }
    for module in grouped(text) {
        if !CORE.contains(&module.as_str()) && !BELOW_THE_CORE.contains(&module.as_str()) {
            found.push(format!("a group: crate::{module}"));
        }
    }
    found
}

/// The modules named in `crate::{a, b::c}` groups, across lines, outside
/// comments.
fn grouped(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ");
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
/// group), outside comments.
fn named(text: &str) -> Vec<String> {
    let mut found = grouped(text);
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')) {
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

#[test]
fn the_pure_core_imports_nothing_above_it() {
    let mut broken = Vec::new();
    for module in CORE {
        let files = sources(module);
        assert!(!files.is_empty(), "no source for {module}");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for v in violations(&text) {
                broken.push(format!("{}: {v}", file.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "the core reaches up:\n{}",
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
fn the_rule_sees_what_it_forbids() {
    assert_eq!(
        violations(
            "use crate::server::x;\nlet a = tokio::spawn(f); // crate::tui is fine in a comment\nuse crate::wire::X;"
        ),
        ["line 1: crate::server", "line 2: tokio::spawn"]
    );
    assert_eq!(
        violations("use crate::{\n    catalog::Tool,\n    service::Service,\n};"),
        ["a group: crate::service"]
    );
    assert_eq!(
        named(
            "use crate::{\n    catalog::Tool,\n    provider::X,\n};\nlet t = crate::tokens::f(); // crate::export"
        ),
        ["catalog", "provider", "tokens"]
    );
}
