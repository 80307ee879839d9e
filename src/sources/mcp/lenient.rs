//! A server's tools listed one by one: rmcp reads a `tools/list` page as a
//! whole, so a single tool it cannot read (`"readOnlyHint": "true"`, a
//! string) fails the page, and with it the server, at every try. Here a
//! page rmcp cannot read is read again tool by tool; each tool that still
//! cannot be read is skipped and named, and the others are served.

use rmcp::model::{
    ClientRequest, CustomResult, ListToolsRequest, PaginatedRequestParams, ServerResult, Tool,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;

/// Pages of one listing at most (a server that never stops paging).
const MAX_PAGES: usize = 1000;

/// The most a server's tools may weigh in all, as JSON: past it the server
/// fails, saying so, rather than cost the gateway its memory.
pub(super) const MAX_LIST_BYTES: usize = 16 * 1024 * 1024;

/// The most tools one server may list: past it the server is refused and
/// its further pages are not read, so one server can neither exhaust
/// toolsift's memory nor take the catalog the others' tools are searched
/// in.
pub const MAX_SERVER_TOOLS: usize = 10_000;

/// A tool whose name is longer than this is skipped (MCP allows 128): no
/// model can call it, and every line naming it would carry it.
const MAX_NAME_CHARS: usize = 1_000;

/// A tool whose input or output schema weighs more than this as JSON is
/// skipped: a search that found it would hand the host the whole of it
/// (the largest schemas of real servers weigh tens of KiB), and indexing
/// and counting it would cost every search.
pub(super) const MAX_SCHEMA_BYTES: usize = 128 * 1024;

/// Every tool of the server's list, and a sentence for each tool skipped
/// (its name, or its place, and why).
#[derive(Debug, Default)]
pub(super) struct Listing {
    pub(super) tools: Vec<Tool>,
    pub(super) skipped: Vec<String>,
}

/// Lists every page of `peer`'s tools, reading the tools of a page one by
/// one when the page as a whole does not read.
pub(super) async fn list_tools(peer: &Peer<RoleClient>) -> Result<Listing, ServiceError> {
    let mut out = Listing::default();
    let mut cursor: Option<String> = None;
    let (mut weighed, mut bytes) = (0usize, 0usize);
    for _ in 0..MAX_PAGES {
        let params = cursor
            .take()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let answer = peer
            .send_request(ClientRequest::ListToolsRequest(ListToolsRequest {
                method: Default::default(),
                params,
                extensions: Default::default(),
            }))
            .await?;
        let next = match answer {
            ServerResult::ListToolsResult(page) => {
                out.tools.extend(page.tools);
                page.next_cursor
            }
            ServerResult::CustomResult(CustomResult(page)) => read_page(&page, &mut out)?,
            _ => return Err(ServiceError::UnexpectedResponse),
        };
        bounded(&mut out, &mut weighed, &mut bytes)?;
        let next = next.filter(|c| !c.is_empty());
        too_many(out.tools.len(), next.is_some())?;
        match next {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
    Err(ServiceError::UnexpectedResponse)
}

/// Refuses a list past [`MAX_SERVER_TOOLS`]: `listed` tools read so far,
/// `more` pages left unread.
fn too_many(listed: usize, more: bool) -> Result<(), ServiceError> {
    if listed <= MAX_SERVER_TOOLS {
        return Ok(());
    }
    let count = match more {
        false => format!("it lists {} tools", crate::numbers::thousands(listed as u64)),
        true => format!(
            "it lists more than {} tools ({} in the pages read; the rest were not read)",
            crate::numbers::thousands(MAX_SERVER_TOOLS as u64),
            crate::numbers::thousands(listed as u64)
        ),
    };
    Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
        format!(
            "{count}; toolsift takes at most {} from one server: refused, so one server cannot exhaust the memory or crowd out the other servers' tools",
            crate::numbers::thousands(MAX_SERVER_TOOLS as u64)
        ),
        None,
    )))
}

/// Skips the tools listed since the last page whose names are too long,
/// and adds what the others weigh to `bytes`; past [`MAX_LIST_BYTES`] the
/// list is refused.
fn bounded(out: &mut Listing, weighed: &mut usize, bytes: &mut usize) -> Result<(), ServiceError> {
    let fresh = out.tools.split_off((*weighed).min(out.tools.len()));
    for t in fresh {
        let len = t.name.chars().count();
        if len > MAX_NAME_CHARS {
            let head: String = t.name.chars().take(40).collect();
            out.skipped.push(format!(
                "a tool whose name is {len} characters long ({head:?}…) skipped: MCP allows 128"
            ));
            continue;
        }
        if let Some(why) = oversized_schema(&t) {
            out.skipped.push(why);
            continue;
        }
        *bytes += serde_json::to_string(&t).map_or(0, |s| s.len());
        out.tools.push(t);
    }
    *weighed = out.tools.len();
    if *bytes > MAX_LIST_BYTES {
        return Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
            format!(
                "its tools weigh more than {} MiB as JSON ({} tools so far): refused, so one server cannot exhaust the gateway's memory",
                MAX_LIST_BYTES / (1024 * 1024),
                out.tools.len()
            ),
            None,
        )));
    }
    Ok(())
}

/// Why `tool` is skipped for a schema over [`MAX_SCHEMA_BYTES`]: the
/// tool named (its name cut), the schema and its weight.
fn oversized_schema(tool: &Tool) -> Option<String> {
    let weigh = |schema: &serde_json::Map<String, Value>| {
        serde_json::to_vec(schema).map_or(0, |s| s.len())
    };
    let schemas = [
        ("input", Some(weigh(&tool.input_schema))),
        ("output", tool.output_schema.as_deref().map(weigh)),
    ];
    let (which, len) = schemas
        .into_iter()
        .filter_map(|(which, len)| Some((which, len?)))
        .find(|(_, len)| *len > MAX_SCHEMA_BYTES)?;
    let name: String = tool.name.chars().take(80).collect();
    Some(format!(
        "tool {name:?} skipped: its {which} schema weighs {} as JSON, more than the {} KiB a tool's schema may weigh here",
        crate::numbers::bytes(len as u64),
        MAX_SCHEMA_BYTES / 1024
    ))
}

/// The tools of a page rmcp could not read, each on its own; its next
/// cursor.
fn read_page(page: &Value, out: &mut Listing) -> Result<Option<String>, ServiceError> {
    let Some(tools) = page.get("tools").and_then(Value::as_array) else {
        return Err(ServiceError::UnexpectedResponse);
    };
    for (i, raw) in tools.iter().enumerate() {
        match serde_json::from_value::<Tool>(raw.clone()) {
            Ok(tool) => out.tools.push(tool),
            Err(e) => {
                let which = match raw.get("name").and_then(Value::as_str) {
                    Some(name) => format!("tool {name:?}"),
                    None => format!("the tool at place {} of a page", i + 1),
                };
                out.skipped.push(format!(
                    "{which} skipped: its definition does not read as an MCP tool ({e})"
                ));
            }
        }
    }
    Ok(page
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_is_read_tool_by_tool_and_the_bad_ones_named() {
        let page = json!({
            "tools": [
                {"name": "good", "inputSchema": {"type": "object"}},
                {"name": "bad", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "true"}},
                {"inputSchema": 3},
            ],
            "nextCursor": "p2"
        });
        let mut out = Listing::default();
        assert_eq!(read_page(&page, &mut out).unwrap().as_deref(), Some("p2"));
        assert_eq!(out.tools.len(), 1);
        assert_eq!(out.tools[0].name, "good");
        assert_eq!(out.skipped.len(), 2, "{:?}", out.skipped);
        assert!(
            out.skipped[0].starts_with("tool \"bad\" skipped"),
            "{}",
            out.skipped[0]
        );
        assert!(out.skipped[1].contains("place 3"), "{}", out.skipped[1]);
        assert!(read_page(&json!({"nope": 1}), &mut out).is_err());
    }

    #[test]
    fn a_tool_whose_schema_is_too_heavy_is_skipped_and_named_with_its_weight() {
        let properties: serde_json::Map<String, Value> = (0..100_000)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        let page = json!({"tools": [
            {"name": "huge", "inputSchema": {"type": "object", "properties": properties}},
            {"name": "huge_out", "inputSchema": {"type": "object"},
             "outputSchema": {"type": "object", "properties": properties}},
            {"name": "fine", "inputSchema": {"type": "object"}},
        ]});
        let mut out = Listing::default();
        read_page(&page, &mut out).unwrap();
        let (mut weighed, mut bytes) = (0, 0);
        bounded(&mut out, &mut weighed, &mut bytes).unwrap();
        let kept: Vec<&str> = out.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(kept, ["fine"]);
        assert_eq!(out.skipped.len(), 2, "{:?}", out.skipped);
        assert!(
            out.skipped[0].starts_with("tool \"huge\" skipped: its input schema weighs 2.")
                && out.skipped[0].contains(" MB as JSON, more than the 128 KiB"),
            "{}",
            out.skipped[0]
        );
        assert!(out.skipped[1].contains("its output schema"), "{}", out.skipped[1]);
        assert!(out.skipped.iter().all(|s| s.len() < 200), "{:?}", out.skipped);
    }

    #[test]
    fn a_name_too_long_is_skipped_and_a_list_too_heavy_refused() {
        let page = json!({"tools": [
            {"name": "n".repeat(60_000), "inputSchema": {"type": "object"}},
            {"name": "fine", "inputSchema": {"type": "object"}},
        ]});
        let mut out = Listing::default();
        read_page(&page, &mut out).unwrap();
        let (mut weighed, mut bytes) = (0, 0);
        bounded(&mut out, &mut weighed, &mut bytes).unwrap();
        assert_eq!(out.tools.len(), 1);
        assert!(out.skipped[0].contains("60000 characters long"), "{:?}", out.skipped);
        assert!(out.skipped[0].len() < 200);
        let heavy = "d".repeat(MAX_LIST_BYTES / 4);
        let page = json!({"tools": (0..5).map(|i| json!({"name": format!("t{i}"), "description": heavy, "inputSchema": {"type": "object"}})).collect::<Vec<_>>()});
        read_page(&page, &mut out).unwrap();
        let e = bounded(&mut out, &mut weighed, &mut bytes).unwrap_err().to_string();
        assert!(e.contains("16 MiB"), "{e}");
    }

    #[test]
    fn a_list_past_the_servers_limit_is_refused_with_its_count() {
        assert!(too_many(MAX_SERVER_TOOLS, false).is_ok());
        assert!(too_many(MAX_SERVER_TOOLS, true).is_ok());
        let whole = too_many(120_000, false).unwrap_err().to_string();
        assert!(whole.contains("it lists 120,000 tools;"), "{whole}");
        assert!(whole.contains("takes at most 10,000 from one server"), "{whole}");
        let partial = too_many(10_200, true).unwrap_err().to_string();
        assert!(
            partial.contains("more than 10,000 tools (10,200 in the pages read"),
            "{partial}"
        );
    }
}
