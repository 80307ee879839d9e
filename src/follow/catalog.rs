//! The catalog a followed gateway searches (`GET /catalog`), so that the
//! explorer judges its traffic by the tools the agent could have been
//! given: Caveman descriptors (the flags included), and for each tool that
//! came from an MCP server, that server and the tool's name there (calls
//! in the traffic name a tool as its server does).

use std::time::Duration;

use serde_json::{Value, json};

use super::FollowError;
use crate::catalog::{Catalog, McpOrigin, SourceKind};
use crate::provider::{PayloadFormat, payload_tool};

/// The path a gateway serves its catalog on, beside `/events`.
pub const CATALOG_PATH: &str = "/catalog";

/// The biggest answer read (a catalog of some thousands of tools).
const MOST_BYTES: usize = 64 << 20;

/// `catalog` as the route answers it.
pub fn wire(catalog: &Catalog) -> Value {
    let tools: Vec<Value> = catalog
        .tools()
        .iter()
        .map(|t| payload_tool(t, PayloadFormat::Caveman))
        .collect();
    let servers: serde_json::Map<String, Value> = catalog
        .tools()
        .iter()
        .filter_map(|t| {
            let m = t.mcp.as_ref()?;
            Some((t.name.clone(), json!([&*m.server, m.name])))
        })
        .collect();
    json!({"name": catalog.name(), "tools": tools, "servers": servers})
}

/// The address of the catalog beside an events stream's address.
pub fn address(events_url: &str) -> Result<reqwest::Url, FollowError> {
    let mut url = reqwest::Url::parse(events_url).map_err(|e| FollowError::BadEventsUrl {
        url: events_url.to_string(),
        why: e.to_string(),
    })?;
    let path = url.path().trim_end_matches('/');
    let base = path
        .strip_suffix(crate::http::events::EVENTS_PATH)
        .unwrap_or(path)
        .to_string();
    url.set_path(&format!("{base}{CATALOG_PATH}"));
    Ok(url)
}

/// The followed gateway's catalog, read once (blocking, with a short
/// timeout): the explorer takes it before its terminal opens.
pub fn fetch(events_url: &str, key: Option<&str>) -> Result<Catalog, FollowError> {
    let url = address(events_url)?;
    let client = crate::http::client::blocking_builder()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| FollowError::Client(e.to_string()))?;
    let mut request = client.get(url.clone());
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let shown = url.to_string();
    let unreachable = |e: reqwest::Error| FollowError::Unreachable {
        url: shown.clone(),
        why: super::sse::plain(&e),
    };
    let response = request.send().map_err(unreachable)?;
    let status = response.status();
    if status == reqwest::StatusCode::UNAUTHORIZED {
        return Err(FollowError::Unauthorized { url: shown });
    }
    if status == reqwest::StatusCode::NOT_FOUND {
        return Err(FollowError::NoCatalog { url: shown });
    }
    if !status.is_success() {
        return Err(FollowError::Status {
            url: shown,
            status: status.to_string(),
        });
    }
    let bytes = response.bytes().map_err(unreachable)?;
    if bytes.len() > MOST_BYTES {
        return Err(FollowError::TooLarge {
            url: shown,
            most: MOST_BYTES,
        });
    }
    let text = String::from_utf8_lossy(&bytes);
    read(&text, url.as_str())
}

/// The route's answer as a catalog, each tool's server set again.
pub fn read(text: &str, origin: &str) -> Result<Catalog, FollowError> {
    let value: Value = serde_json::from_str(text).map_err(|e| FollowError::NotJson {
        origin: origin.to_string(),
        why: e.to_string(),
    })?;
    let name = value["name"].as_str().unwrap_or("gateway").to_string();
    let parsed = crate::catalog::parse(text, origin, &name, SourceKind::Json)?;
    let servers = value["servers"].as_object();
    let mut tools = parsed.tools().to_vec();
    for t in &mut tools {
        let at = servers
            .and_then(|s| s.get(&t.name))
            .and_then(Value::as_array);
        if let Some([Value::String(server), Value::String(on_server)]) = at.map(Vec::as_slice) {
            t.mcp = Some(McpOrigin::new(server, on_server));
        }
    }
    Ok(Catalog::new(name, tools)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Tool;

    #[test]
    fn a_catalog_goes_over_the_wire_and_back_with_its_servers_and_flags() {
        let mut a = Tool::new("git__status", "Working tree status");
        a.mcp = Some(McpOrigin::new("git", "status"));
        a.always_load = true;
        let b = Tool::new("send_email", "Send an email");
        let catalog = Catalog::new("gw", vec![a, b]).unwrap();
        let text = wire(&catalog).to_string();
        let back = read(&text, "http://h/catalog").unwrap();
        assert_eq!(back.name(), "gw");
        assert_eq!(back.len(), 2);
        let t = &back.tools()[0];
        assert!(t.always_load);
        let m = t.mcp.as_ref().unwrap();
        assert_eq!((&*m.server, m.name.as_str()), ("git", "status"));
        assert!(back.tools()[1].mcp.is_none());
    }

    #[test]
    fn the_address_is_beside_the_events() {
        for (events, catalog) in [
            ("http://h:1/events", "http://h:1/catalog"),
            ("http://h:1/gw/events", "http://h:1/gw/catalog"),
        ] {
            assert_eq!(address(events).unwrap().as_str(), catalog);
        }
    }
}
