//! Query expansion in the index: everyday words find tool words, the
//! request's own words still rank first, and a word is counted once
//! whichever of its forms a tool has.

use super::*;
use crate::catalog::Tool;

fn top(index: &Index, tools: &[Tool], query: &str) -> Vec<String> {
    index
        .search(query, None, 3)
        .iter()
        .map(|h| tools[h.doc].name.clone())
        .collect()
}

fn files() -> Vec<Tool> {
    vec![
        Tool::new("create_directory", "Create a new directory."),
        Tool::new("write_file", "Create a new file or overwrite one."),
        Tool::new("list_directory", "List the entries of a directory."),
        Tool::new("get_tiny_image", "Returns a tiny image."),
        Tool::new("fetch", "Fetches a URL from the internet."),
    ]
}

#[test]
fn everyday_words_find_the_words_tools_use() {
    let tools = files();
    let index = Index::build(&tools);
    assert_eq!(
        top(&index, &tools, "make a folder called reports")[0],
        "create_directory"
    );
    assert_eq!(
        top(&index, &tools, "save this text to todo.md")[0],
        "write_file"
    );
    assert_eq!(
        top(&index, &tools, "show me a picture")[0],
        "get_tiny_image"
    );
    assert_eq!(top(&index, &tools, "get https://example.com")[0], "fetch");
    // Without expansion nothing of these requests is in the catalog.
    let plain = Index::build_with(
        &tools,
        Params {
            expansion: false,
            ..Params::default()
        },
    );
    assert!(top(&plain, &tools, "show me a picture").is_empty());
}

#[test]
fn the_explanation_shows_each_expansion() {
    let tools = files();
    let index = Index::build(&tools);
    let e = index.explain("make a folder called reports", None, 0);
    let terms: Vec<&str> = e.matches.iter().map(|m| m.term.as_str()).collect();
    assert!(terms.contains(&"folder → directory"), "{terms:?}");
    assert!(terms.contains(&"make → create"), "{terms:?}");
    let e = index.explain("save this text to todo.md", None, 1);
    assert!(
        e.matches.iter().any(|m| m.term == "todo.md → file"),
        "{:?}",
        e.matches
    );
}

#[test]
fn a_tool_with_the_requests_own_word_ranks_first() {
    let tools = vec![
        Tool::new("create_directory", "Create a directory."),
        Tool::new("create_folder", "Create a folder."),
    ];
    let index = Index::build(&tools);
    assert_eq!(top(&index, &tools, "create a folder")[0], "create_folder");
    assert_eq!(
        top(&index, &tools, "create a directory")[0],
        "create_directory"
    );
}

#[test]
fn a_word_found_in_two_forms_counts_once() {
    // "folder" and its expansion "directory" both in one tool: the tool
    // scores the better of the two, not their sum.
    let tools = vec![
        Tool::new("folder_directory", "Folder and directory."),
        Tool::new("folder_tool", "Folder."),
    ];
    let index = Index::build(&tools);
    let score = index.scores_of("folder", None, &[0])[0];
    let e = index.explain("folder", None, 0);
    assert_eq!(e.matches.len(), 1, "{:?}", e.matches);
    assert!((e.matches[0].score - score).abs() < 1e-5);
    let plain = Index::build_with(
        &tools,
        Params {
            expansion: false,
            ..Params::default()
        },
    );
    let folder = plain.scores_of("folder", None, &[0])[0];
    let directory = plain.scores_of("directory", None, &[0])[0] * index.params().expansion_weight;
    assert!(
        (score - folder.max(directory)).abs() < 1e-5,
        "{score} {folder} {directory}"
    );
}

#[test]
fn contractions_leave_no_word_behind() {
    let tools = vec![Tool::new("s_tool", "S.")];
    let index = Index::build(&tools);
    assert!(index.search("what's", None, 3).is_empty());
}
