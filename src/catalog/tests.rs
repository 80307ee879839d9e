use super::*;
use proptest::prelude::*;
use serde_json::json;

fn parse_json(text: &str) -> Result<Catalog, CatalogError> {
    parse(text, "t.json", "t", SourceKind::Json)
}

fn parse_toml(text: &str) -> Result<Catalog, CatalogError> {
    parse(text, "t.toml", "t", SourceKind::Toml)
}

fn fixture(name: &str) -> Catalog {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/catalogs")
        .join(name);
    load(&CatalogSource::Path(path)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Every fixture describes the same two tools; flags differ by what the format can say.
fn assert_two_tools(c: &Catalog) {
    assert_eq!(c.len(), 2);
    let status = &c.tools()[0];
    assert_eq!(status.name, "lookup_status");
    assert_eq!(status.description, "Look up the current service status");
    assert_eq!(status.input_schema["type"], "object");
    let invoice = &c.tools()[1];
    assert_eq!(invoice.name, "send_invoice");
    assert!(!invoice.read_only && !invoice.always_load);
    assert!(invoice.input_schema["properties"].is_object());
}

#[test]
fn every_format_fixture_loads() {
    let cases = [
        ("caveman.json", Format::Caveman, true, true),
        ("camel.json", Format::CamelCase, true, true),
        ("mcp.json", Format::Mcp, true, false),
        ("openai-chat.json", Format::OpenAiChat, false, false),
        (
            "openai-responses.json",
            Format::OpenAiResponses,
            false,
            false,
        ),
        ("anthropic.json", Format::Anthropic, false, false),
        ("native.toml", Format::Toml, true, true),
    ];
    for (file, format, read_only, always_load) in cases {
        let c = fixture(file);
        assert_two_tools(&c);
        assert_eq!(c.formats(), [format], "{file}");
        assert_eq!(c.tools()[0].read_only, read_only, "{file}");
        assert_eq!(c.tools()[0].always_load, always_load, "{file}");
        assert!(c.notes().is_empty(), "{file}: {:?}", c.notes());
    }
    let toml = fixture("native.toml");
    assert_eq!(toml.name(), "fixture");
    assert_eq!(
        toml.tools()[0].handler_result,
        Some(json!({"status": "ok"}))
    );
    assert_eq!(
        toml.tools()[1].input_schema["required"],
        json!(["customer_id"])
    );
    assert_eq!(fixture("anthropic.json").name(), "anthropic.json");
    // MCP annotations give the flags.
    assert!(fixture("mcp.json").tools()[0].idempotent);
}

#[test]
fn builtin_catalogs_load() {
    let demo = load(&CatalogSource::demo()).unwrap();
    assert!((50..=80).contains(&demo.len()), "{}", demo.len());
    assert_eq!(demo.name(), "demo");
    assert!(!demo.always_load_names().is_empty());
    assert!(demo.tools().iter().all(|t| t.handler_result.is_some()));
    assert!(lint(&demo).is_empty(), "{:?}", lint(&demo));
    let github = load(&CatalogSource::parse("@github-mcp")).unwrap();
    assert_eq!(github.len(), 117);
    assert_eq!(github.formats(), [Format::Mcp]);
    assert_eq!(github.tools().iter().filter(|t| t.read_only).count(), 58);
    let err = load(&CatalogSource::parse("@nope"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("@nope") && err.contains("@demo"), "{err}");
}

#[test]
fn stdin_style_sniffing() {
    let toml = "[[tool]]\nname = \"a\"\n[tool.input_schema]\ntype = \"object\"\n";
    let c = parse(toml, "<stdin>", "stdin", SourceKind::Sniff).unwrap();
    assert_eq!(c.formats(), [Format::Toml]);
    let c = parse(
        "[{\"name\":\"a\",\"input_schema\":{}}]",
        "<stdin>",
        "s",
        SourceKind::Sniff,
    )
    .unwrap();
    assert_eq!(c.formats(), [Format::Anthropic]);
    let c = parse(
        " {\"tools\":[{\"name\":\"a\",\"inputSchema\":{}}]}",
        "-",
        "s",
        SourceKind::Sniff,
    )
    .unwrap();
    assert_eq!(c.formats(), [Format::CamelCase]);
    let c = parse(
        "# comment\n[catalog]\nname=\"x\"\n[[tool]]\nname=\"b\"\n",
        "-",
        "s",
        SourceKind::Sniff,
    )
    .unwrap();
    assert_eq!(c.name(), "x");
    assert!(matches!(
        parse("   ", "-", "s", SourceKind::Sniff),
        Err(CatalogError::Empty { .. })
    ));
}

#[test]
fn json_syntax_error_names_file_line_column() {
    let err = parse_json("[\n  {\"name\": \"a\",\n   \"input_schema\": {},\n}\n]").unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("t.json:4:1: invalid JSON: "), "{msg}");
    match err {
        CatalogError::Syntax { line, column, .. } => assert_eq!((line, column), (4, 1)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn toml_syntax_error_names_line() {
    let err = parse_toml("[[tool]]\nname = \"a\"\ndescription = oops\n").unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("t.toml:3:"), "{msg}");
    assert!(msg.contains("invalid TOML"), "{msg}");
}

#[test]
fn toml_wrong_table_name_is_explained() {
    let err = parse_toml("[[tools]]\nname = \"a\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("t.toml:1:"), "{err}");
    assert!(err.contains("`tools`") && err.contains("[[tool]]"), "{err}");
    let err = parse_toml("[catalog]\nname = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no tools") && err.contains("[[tool]]"),
        "{err}"
    );
}

#[test]
fn duplicate_names_both_positions() {
    let err = parse_json(
        "[\n{\"name\":\"a\",\"input_schema\":{}},\n{\"name\":\"b\",\"input_schema\":{}},\n{\"name\":\"a\",\"input_schema\":{}}\n]",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "duplicate tool name \"a\": defined at t.json: tool #1 (line 2) and again at t.json: tool #3 (line 4)"
    );
    let err = parse_toml("[[tool]]\nname = \"x\"\n\n[[tool]]\nname = \"x\"\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "duplicate tool name \"x\": defined at t.toml: tool #1 (line 1) and again at t.toml: tool #2 (line 4)"
    );
}

#[test]
fn empty_name_names_position() {
    let err = parse_json(
        "[{\"name\":\"ok\",\"input_schema\":{}},\n {\"name\":\" \",\"input_schema\":{}}]",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.json: tool #2 (line 2): tool name is empty"
    );
    let err = parse_json("[{\"description\":\"no name\",\"input_schema\":{}}]").unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.json: tool #1 (line 1): missing field `name`"
    );
}

#[test]
fn non_object_schema_is_an_error() {
    for schema in ["\"object\"", "[]", "null", "3"] {
        let text = format!("[{{\"name\":\"a\",\"input_schema\":{schema}}}]");
        let err = parse_json(&text).unwrap_err().to_string();
        assert!(err.contains("tool #1") && err.contains("\"a\""), "{err}");
        assert!(
            err.contains("`input_schema` must be a JSON object"),
            "{err}"
        );
    }
    let err = parse_toml("[[tool]]\nname = \"a\"\ninput_schema = \"object\"\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("t.toml: tool #1 (line 1) \"a\""), "{err}");
    let err = parse_json("[{\"name\":\"a\",\"inputSchema\":[1]}]")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`inputSchema` must be a JSON object, got an array"),
        "{err}"
    );
    let err =
        parse_json("[{\"type\":\"function\",\"function\":{\"name\":\"a\",\"parameters\":\"x\"}}]")
            .unwrap_err()
            .to_string();
    assert!(err.contains("`parameters` must be a JSON object"), "{err}");
}

#[test]
fn wrong_field_types_name_the_field() {
    let err = parse_json("[{\"name\":\"a\",\"input_schema\":{},\"read_only\":\"yes\"}]")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "t.json: tool #1 (line 1) \"a\": field `read_only` must be true or false, got the string \"yes\""
    );
    let err = parse_json("[{\"name\":5}]").unwrap_err().to_string();
    assert!(
        err.contains("field `name` must be a string, got the number 5"),
        "{err}"
    );
    let err = parse_json("[{\"name\":\"a\",\"description\":[]}]")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("field `description` must be a string"),
        "{err}"
    );
    let err = parse_json("[{\"name\":\"a\",\"annotations\":{\"readOnlyHint\":1}}]")
        .unwrap_err()
        .to_string();
    assert!(err.contains("annotations: field `readOnlyHint`"), "{err}");
    let err = parse_json("[3]").unwrap_err().to_string();
    assert!(
        err.contains("expected a tool object, got the number 3"),
        "{err}"
    );
}

#[test]
fn shape_errors() {
    let err = parse_json("{\"items\": []}").unwrap_err().to_string();
    assert!(err.contains("found an object with keys items"), "{err}");
    let err = parse_json("{\"tools\": {}}").unwrap_err().to_string();
    assert!(err.contains("`tools` must be an array"), "{err}");
    let err = parse_json("\"x\"").unwrap_err().to_string();
    assert!(err.contains("got the string"), "{err}");
    assert!(matches!(parse_json("[]"), Err(CatalogError::Empty { .. })));
    let err = parse_json("[{\"type\":\"web_search\",\"name\":\"web\"}]")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a function tool"), "{err}");
}

#[test]
fn single_tool_object_and_missing_schema() {
    let c = parse_json("{\"name\":\"solo\",\"description\":\"d\"}").unwrap();
    assert_eq!(c.len(), 1);
    assert_eq!(
        c.tools()[0].input_schema,
        json!({"type":"object","properties":{}})
    );
    assert_eq!(c.notes().len(), 1);
    assert!(c.notes()[0].to_string().contains("no `input_schema`"));
}

#[test]
fn unknown_fields_are_noted_not_lost() {
    let c = parse_json("[{\"name\":\"a\",\"input_schema\":{},\"alwaysload\":true}]").unwrap();
    assert!(!c.tools()[0].always_load);
    let note = c.notes()[0].to_string();
    assert_eq!(
        note,
        "t.json: tool #1 (line 1) \"a\": unknown field `alwaysload` ignored"
    );
}

#[test]
fn explicit_flags_beat_mcp_hints() {
    let c = parse_json(
        "[{\"name\":\"a\",\"inputSchema\":{},\"readOnly\":false,\"annotations\":{\"readOnlyHint\":true,\"idempotentHint\":true}}]",
    )
    .unwrap();
    assert!(!c.tools()[0].read_only);
    assert!(c.tools()[0].idempotent);
    assert_eq!(c.formats(), [Format::Mcp]);
}

#[test]
fn toml_datetimes_and_mixed_arrays_become_json() {
    let c = parse_toml(
        "[[tool]]\nname = \"a\"\n[tool.handler]\nresult = { at = 2026-11-30T05:00:00Z, points = [[\"x\", 1], [\"y\", 2.5]] }\n",
    )
    .unwrap();
    assert_eq!(
        c.tools()[0].handler_result,
        Some(json!({"at": "2026-11-30T05:00:00Z", "points": [["x", 1], ["y", 2.5]]}))
    );
    let err = parse_toml("[[tool]]\nname = \"a\"\nhandler = { reslt = 1 }\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("`handler` has unknown field `reslt`"), "{err}");
}

#[test]
fn merge_reports_cross_file_duplicates() {
    let a = parse(
        "[{\"name\":\"x\",\"input_schema\":{}}]",
        "a.json",
        "a",
        SourceKind::Json,
    )
    .unwrap();
    let b = parse(
        "[[tool]]\nname = \"y\"\n\n[[tool]]\nname = \"x\"\n",
        "b.toml",
        "b",
        SourceKind::Toml,
    )
    .unwrap();
    let err = Catalog::merge(vec![a.clone(), b]).unwrap_err().to_string();
    assert_eq!(
        err,
        "duplicate tool name \"x\": defined at a.json: tool #1 (line 1) and again at b.toml: tool #2 (line 4)"
    );
    let c = parse(
        "[{\"name\":\"z\",\"inputSchema\":{}}]",
        "c.json",
        "c",
        SourceKind::Json,
    )
    .unwrap();
    let merged = Catalog::merge(vec![a, c]).unwrap();
    assert_eq!(merged.name(), "a + c");
    assert_eq!(merged.formats(), [Format::Anthropic, Format::CamelCase]);
}

#[test]
fn lints() {
    let long = "d".repeat(LARGE_TOOL_BYTES);
    let c = parse_json(&format!(
        "[{{\"name\":\"ok_name\",\"description\":\"fine\",\"input_schema\":{{\"type\":\"object\"}}}},
          {{\"name\":\"has space\",\"description\":\"\",\"input_schema\":{{}}}},
          {{\"name\":\"{}\",\"description\":\"x\",\"input_schema\":{{\"type\":\"object\"}}}},
          {{\"name\":\"dotted.name\",\"description\":\"{long}\",\"input_schema\":{{\"type\":\"object\"}}}}]",
        "n".repeat(100)
    ))
    .unwrap();
    let lints = lint(&c);
    let about = |name: &str| -> Vec<String> {
        lints
            .iter()
            .filter(|l| l.tool.starts_with(name))
            .map(|l| l.message.clone())
            .collect()
    };
    assert!(about("ok_name").is_empty());
    let space = about("has space");
    assert_eq!(space.len(), 4, "{space:?}"); // OpenAI, MCP, empty description, no type
    let long_name = about("nnnn");
    assert_eq!(long_name.len(), 1, "{long_name:?}"); // OpenAI only (MCP allows 128)
    assert!(long_name[0].contains("OpenAI"));
    let dotted = about("dotted.name");
    assert_eq!(dotted.len(), 2, "{dotted:?}"); // OpenAI rejects '.', and it is large
    assert!(dotted.iter().any(|m| m.contains("unusually large")));
}

#[test]
fn error_positions_are_exact_lines_for_pretty_json() {
    let text = "{\n  \"tools\": [\n    {\n      \"name\": \"a\",\n      \"inputSchema\": {}\n    },\n    {\n      \"name\": \"b\",\n      \"inputSchema\": 7\n    }\n  ]\n}\n";
    let err = parse_json(text).unwrap_err().to_string();
    assert!(err.starts_with("t.json: tool #2 (line 7) \"b\""), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        for kind in [SourceKind::Json, SourceKind::Toml, SourceKind::Sniff] {
            let _ = parse(&text, "fuzz", "fuzz", kind);
        }
    }

    #[test]
    fn random_json_never_panics(v in arb_json()) {
        let text = v.to_string();
        if let Ok(c) = parse(&text, "fuzz", "fuzz", SourceKind::Sniff) {
            // Whatever loads is valid.
            prop_assert!(!c.is_empty());
            for t in c.tools() {
                prop_assert!(!t.name.trim().is_empty());
                prop_assert!(t.input_schema.is_object());
            }
        }
    }

    #[test]
    fn generated_catalogs_round_trip_through_every_json_format(
        tools in proptest::collection::vec(("[a-z][a-z0-9_]{0,12}", ".{0,30}", any::<bool>(), any::<bool>(), any::<bool>()), 1..12)
    ) {
        let mut seen = std::collections::HashSet::new();
        let tools: Vec<_> = tools.into_iter().filter(|t| seen.insert(t.0.clone())).collect();
        let snake: Vec<_> = tools.iter().map(|(n, d, r, i, a)| json!({
            "name": n, "description": d, "input_schema": {"type":"object","properties":{"q":{"type":"string"}}},
            "read_only": r, "idempotent": i, "always_load": a})).collect();
        let camel: Vec<_> = tools.iter().map(|(n, d, r, i, a)| json!({
            "name": n, "description": d, "inputSchema": {"type":"object","properties":{"q":{"type":"string"}}},
            "readOnly": r, "idempotent": i, "alwaysLoad": a})).collect();
        let chat: Vec<_> = tools.iter().map(|(n, d, _, _, _)| json!({"type":"function","function":{
            "name": n, "description": d, "parameters": {"type":"object","properties":{"q":{"type":"string"}}}}})).collect();
        for (text, flags) in [
            (json!(snake).to_string(), true),
            (json!({"tools": camel}).to_string(), true),
            (json!(chat).to_string(), false),
        ] {
            let c = parse(&text, "gen", "gen", SourceKind::Sniff).unwrap();
            prop_assert_eq!(c.len(), tools.len());
            for (t, (n, d, r, i, a)) in c.tools().iter().zip(&tools) {
                prop_assert_eq!(&t.name, n);
                prop_assert_eq!(&t.description, d);
                if flags {
                    prop_assert_eq!((t.read_only, t.idempotent, t.always_load), (*r, *i, *a));
                }
            }
        }
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let key = prop_oneof![
        Just("name".to_string()),
        Just("tools".to_string()),
        Just("input_schema".to_string()),
        Just("inputSchema".to_string()),
        Just("type".to_string()),
        Just("function".to_string()),
        Just("read_only".to_string()),
        Just("result".to_string()),
        Just("parameters".to_string()),
        "[a-z]{1,4}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        Just(Value::String("function".into())),
        ".{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map(key.clone(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn fingerprint_tracks_content_not_flags() {
    let a = fixture("caveman.json");
    let b = fixture("anthropic.json");
    // Same names, descriptions and schemas except the first tool's schema.
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint(), fixture("caveman.json").fingerprint());
    // Equality is about content, not about what was cached.
    let fresh = fixture("caveman.json");
    assert_eq!(a.index_of("send_invoice"), Some(1));
    assert_eq!(a, fresh);
    assert_eq!(a.get("nope"), None);
    let flipped = a.with_always_load(1, true);
    assert_eq!(flipped.fingerprint(), a.fingerprint());
    let mut tools = a.tools().to_vec();
    tools[1].description.push('!');
    assert_ne!(
        Catalog::new("x", tools).unwrap().fingerprint(),
        a.fingerprint()
    );
}

#[test]
fn a_tools_schema_is_written_once_as_serde_json_writes_it() {
    let mut odd = Tool::new("odd", "quotes \" and \\ and \u{2028} and 🦀");
    odd.input_schema = serde_json::json!({
        "type": "object",
        "properties": {"q\"x": {"type": "string", "description": "</script>\n\u{0}"}},
        "x-big": 1e300, "x-neg": -0.0,
    });
    let catalog = Catalog::new("c", vec![Tool::new("plain", "p"), odd]).unwrap();
    for (i, tool) in catalog.tools().iter().enumerate() {
        let text = catalog.schema_json(i).get();
        assert_eq!(text, serde_json::to_string(&tool.input_schema).unwrap());
        let back: Value = serde_json::from_str(text).unwrap();
        assert_eq!(back, tool.input_schema);
        // The same text every time: written once.
        assert!(std::ptr::eq(catalog.schema_json(i), catalog.schema_json(i)));
    }
}
