//! toolsift's rendering of functions as OpenAI's models see them
//! (`provider::openai`) against the reference, the npm package
//! openai-chat-tokens (scripts/setup-test-deps.sh installs it; a missing
//! package FAILS the test): the same text, character for character, and the
//! same count under cl100k_base, on real catalogs and on schemas chosen for
//! their edge cases. Where toolsift renders differently on purpose, the
//! last test shows both.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use toolsift::catalog::{self, Catalog, CatalogSource, Tool};
use toolsift::provider::openai::{REQUEST_OVERHEAD, render_block};
use toolsift::tokens::TokenBasis;

fn node_path() -> PathBuf {
    let prefix = std::env::var_os("TOOLSIFT_NPM_PREFIX")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/toolsift-npm")
        });
    let modules = prefix.join("node_modules");
    assert!(
        modules.join("openai-chat-tokens/package.json").is_file(),
        "openai-chat-tokens is not installed in {}: run scripts/setup-test-deps.sh once",
        modules.display()
    );
    modules
}

/// The reference's rendering and count of `tools`.
fn reference(tools: &[Tool]) -> (String, u64) {
    let functions: Vec<Value> = tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "parameters": t.input_schema}),
        )
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("functions.json");
    std::fs::write(&path, serde_json::to_string(&functions).unwrap()).unwrap();
    let out = Command::new("node")
        .env("NODE_PATH", node_path())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/interop/openai_functions.cjs"
        ))
        .arg(&path)
        .output()
        .expect("node runs");
    assert!(out.status.success(), "openai_functions.cjs: {out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (
        v["rendered"].as_str().unwrap().to_string(),
        v["tokens"].as_u64().unwrap(),
    )
}

/// Compares toolsift's block for `catalog` with the reference's, line by
/// line. Lines may differ only where the reference writes `undefined` (the
/// deliberate differences, returned as (reference, toolsift)); the counts
/// are checked both ways: toolsift's tokenizer on the reference's text gives
/// the reference's count, and on identical text the two counts are equal.
fn compare(catalog: &Catalog) -> Vec<(String, String)> {
    let tools = catalog.tools();
    let (text, tokens) = reference(tools);
    let ours = render_block(tools);
    assert_eq!(
        TokenBasis::Cl100kBase.count(&text) + REQUEST_OVERHEAD,
        tokens,
        "{}: the same text counts the same",
        catalog.name()
    );
    let (a, b): (Vec<&str>, Vec<&str>) = (text.lines().collect(), ours.lines().collect());
    assert_eq!(a.len(), b.len(), "{}: line counts differ", catalog.name());
    let mut deliberate = Vec::new();
    for (n, (r, o)) in a.iter().zip(&b).enumerate() {
        if r != o {
            assert!(
                r.contains("undefined"),
                "{}: line {} differs:\nref:  {r:?}\nours: {o:?}",
                catalog.name(),
                n + 1
            );
            deliberate.push((r.to_string(), o.to_string()));
        }
    }
    if deliberate.is_empty() {
        assert_eq!(
            TokenBasis::Cl100kBase.count(&ours) + REQUEST_OVERHEAD,
            tokens
        );
    }
    deliberate
}

fn same_as_reference(catalog: &Catalog) {
    let deliberate = compare(catalog);
    assert!(deliberate.is_empty(), "{}: {deliberate:?}", catalog.name());
}

fn in_repo(path: &str) -> String {
    let p = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    assert!(
        std::path::Path::new(&p).is_file(),
        "{p} is missing from the repository"
    );
    p
}

#[test]
fn the_github_mcp_catalog_renders_as_the_reference_does() {
    let github = catalog::load(&CatalogSource::parse("@github-mcp")).unwrap();
    // One property lists its types (`"type": ["string", "number",
    // "boolean"]`), two arrays' items are a `oneOf`: the reference writes
    // `undefined`, toolsift the union and `any[]`. Every other line of the
    // 117 tools is the same.
    let deliberate = compare(&github);
    let pairs = |r: &str, o: &str| (r.to_string(), o.to_string());
    assert_eq!(
        deliberate,
        [
            pairs(
                "  value?: undefined,",
                "  value?: string | number | boolean,"
            ),
            pairs("assignees: undefined[],", "assignees: any[],"),
            pairs("labels: undefined[],", "labels: any[],"),
        ]
    );
    let (_, tokens) = reference(github.tools());
    let ours = TokenBasis::Cl100kBase.count(&render_block(github.tools())) + REQUEST_OVERHEAD;
    let line = |l: &str| TokenBasis::Cl100kBase.count(l) as i64;
    let by_lines: i64 = deliberate.iter().map(|(r, o)| line(o) - line(r)).sum();
    assert_eq!(
        ours as i64 - tokens as i64,
        by_lines,
        "the counts differ by those lines alone"
    );
}

#[test]
fn the_demo_and_bfcl_catalogs_render_as_the_reference_does() {
    same_as_reference(&catalog::load(&CatalogSource::parse("@demo")).unwrap());
    same_as_reference(
        &catalog::load(&CatalogSource::parse(&in_repo(
            "eval/bfcl-dev/catalog.json",
        )))
        .unwrap(),
    );
}

#[test]
fn the_block_costs_its_header_its_tools_and_its_footer() {
    use toolsift::provider::openai::{FOOTER, HEADER, render_tool};
    let github = catalog::load(&CatalogSource::parse("@github-mcp")).unwrap();
    let parts = |basis: TokenBasis| -> u64 {
        basis.count(HEADER)
            + github
                .tools()
                .iter()
                .map(|t| basis.count(&render_tool(t)))
                .sum::<u64>()
            + basis.count(FOOTER)
    };
    let block = |basis: TokenBasis| basis.count(&render_block(github.tools()));
    // cl100k_base splits at the line breaks between functions: each tool's
    // share adds up to the block exactly.
    assert_eq!(parts(TokenBasis::Cl100kBase), block(TokenBasis::Cl100kBase));
    // o200k_base merges the break after a function with the next one's
    // `//` (";\n\n//" is one token): the shares overstate the block by at
    // most a token per function.
    let (p, b) = (parts(TokenBasis::O200kBase), block(TokenBasis::O200kBase));
    assert!(b <= p && p - b <= github.len() as u64, "{p} vs {b}");
}

fn tool(name: &str, description: &str, schema: Value) -> Tool {
    let mut t = Tool::new(name, description);
    t.input_schema = schema;
    t
}

#[test]
fn edge_case_schemas_render_as_the_reference_does() {
    let tools = vec![
        tool(
            "no_params",
            "No parameters at all",
            json!({"type": "object"}),
        ),
        tool(
            "empty_props",
            "",
            json!({"type": "object", "properties": {}}),
        ),
        tool(
            "no_description",
            "",
            json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        ),
        tool(
            "enums",
            "String, integer and number enums",
            json!({"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["fast", "slow", "with \"quotes\""], "description": "How"},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "ratio": {"type": "number", "enum": [0.5, 2]}
        }, "required": ["mode"]}),
        ),
        tool(
            "nested",
            "Nested objects, three deep",
            json!({"type": "object", "properties": {
                "outer": {"type": "object", "description": "shown", "properties": {
                    "inner": {"type": "object", "description": "not shown (two deep)", "properties": {
                        "leaf": {"type": "boolean", "description": "not shown"}
                    }, "required": ["leaf"]}
                }}
            }}),
        ),
        tool(
            "arrays",
            "Arrays of strings, of objects, and without items",
            json!({"type": "object", "properties": {
            "names": {"type": "array", "items": {"type": "string"}},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}, "required": ["id"]}},
            "anything": {"type": "array"}
        }, "required": ["rows"]}),
        ),
        tool(
            "unions",
            "anyOf and null",
            json!({"type": "object", "properties": {
                "id": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "nothing": {"type": "null"}
            }}),
        ),
        tool(
            "unicode_名前",
            "Ünïcödé description — 日本語 and emoji 🚀",
            json!({"type": "object", "properties": {
            "città": {"type": "string", "description": "Città di partenza 🚉"}
        }, "required": ["città"]}),
        ),
        tool(
            "multiline",
            "First line\nsecond line",
            json!({"type": "object", "properties": {"x": {"type": "number", "description": "a\nb"}}}),
        ),
    ];
    let catalog = Catalog::new("edge cases", tools).unwrap();
    same_as_reference(&catalog);
}

#[test]
fn where_toolsift_renders_differently_on_purpose() {
    // The reference writes JavaScript's `undefined` where a schema gives no
    // usable type; toolsift writes the type a model is meant to read.
    let t = tool(
        "loose",
        "",
        json!({"type": "object", "properties": {
            "untyped": {"description": "no type"},
            "nullable": {"type": ["string", "null"]},
            "items_untyped": {"type": "array", "items": {}}
        }}),
    );
    let (text, tokens) = reference(std::slice::from_ref(&t));
    let ours = render_block([&t]);
    assert!(
        text.contains("untyped?: undefined,") && ours.contains("untyped?: any,"),
        "{text}\n{ours}"
    );
    assert!(text.contains("nullable?: undefined,") && ours.contains("nullable?: string | null,"));
    assert!(
        text.contains("items_untyped?: undefined[],") && ours.contains("items_untyped?: any[],")
    );
    let ours_tokens = TokenBasis::Cl100kBase.count(&ours) + REQUEST_OVERHEAD;
    assert_ne!(ours_tokens, 0);
    assert!(
        ours_tokens.abs_diff(tokens) <= 6,
        "{ours_tokens} vs {tokens}"
    );
}
