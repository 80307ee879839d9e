//! What the gateway saves a host: the tokens of `tools/list` straight from
//! the servers (every tool, as they list it) and through the gateway (the
//! always-load tools and the three meta-tools). Under a JSON basis, counted
//! on the JSON a host receives; under a provider basis (`openai`,
//! `anthropic`), on what the host's model is billed for those tools: each
//! as that provider takes it, and the request's overhead once.

use serde::Serialize;
use serde_json::json;

use super::Snapshot;
use super::answer::meta::listing;
use crate::tokens::TokenBasis;
use crate::tools_handle::MaxTools;

/// `tools/list` direct and through the gateway.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListSaving {
    pub basis: &'static str,
    /// The basis as people read it (an estimate says so).
    #[serde(skip)]
    pub label: &'static str,
    pub direct_tools: usize,
    pub direct_tokens: u64,
    pub gateway_tools: usize,
    pub gateway_tokens: u64,
    /// The tools a `search_tools` answer holds at most (`--max-tools`).
    pub answer_tools: usize,
    /// Tokens of a `search_tools` result (text and structured content, as
    /// the host receives it) holding the largest tools...
    pub answer_tokens_max: u64,
    /// ... and holding tools of the median size.
    pub answer_tokens_median: u64,
    /// Each server's share of the direct list, in the catalog's order (a
    /// catalog file's tools as `(catalog files)`).
    #[serde(rename = "direct_by_server")]
    pub servers: Vec<ServerShare>,
    /// The always-load tools (listed through the gateway with the
    /// meta-tools).
    pub always_load: Vec<String>,
}

/// One server's tools in the direct `tools/list`: what its own list costs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerShare {
    pub server: String,
    pub tools: usize,
    pub tokens: u64,
}

impl ListSaving {
    /// Tokens the gateway saves per `tools/list`.
    pub fn saved(&self) -> u64 {
        self.direct_tokens.saturating_sub(self.gateway_tokens)
    }

    /// The saving as a percentage of the direct list.
    pub fn saved_pct(&self) -> f64 {
        if self.direct_tokens == 0 {
            0.0
        } else {
            self.saved() as f64 * 100.0 / self.direct_tokens as f64
        }
    }
}

pub(crate) fn saving_of(snapshot: &Snapshot, max_tools: MaxTools, basis: TokenBasis) -> ListSaving {
    let direct: Vec<&rmcp::model::Tool> = snapshot
        .catalog
        .tools()
        .iter()
        .zip(&snapshot.listed)
        .map(|(_, listed)| listed)
        .collect();
    let through = listing(snapshot, max_tools, &[], &snapshot.search_description);
    let provider = basis.request_overhead() > 0;
    let count = |tools: &[&rmcp::model::Tool]| {
        if provider {
            basis.set_cost(
                tools
                    .iter()
                    .map(|t| basis.count(&basis.tool_text(&as_tool(t)))),
            )
        } else {
            basis.count(&json!({ "tools": tools }).to_string())
        }
    };
    let through: Vec<&rmcp::model::Tool> = through.iter().collect();
    let (answer_tools, answer_tokens_max, answer_tokens_median) =
        answer_tokens(snapshot, max_tools, basis);
    let mut groups: Vec<(String, Vec<&rmcp::model::Tool>)> = Vec::new();
    for (tool, listed) in snapshot.catalog.tools().iter().zip(&snapshot.listed) {
        let server = tool
            .mcp
            .as_ref()
            .map_or_else(|| "(catalog files)".to_string(), |m| m.server.to_string());
        match groups.iter_mut().find(|(s, _)| *s == server) {
            Some((_, tools)) => tools.push(listed),
            None => groups.push((server, vec![listed])),
        }
    }
    let servers = groups
        .iter()
        .map(|(server, tools)| ServerShare {
            server: server.clone(),
            tools: tools.len(),
            tokens: count(tools),
        })
        .collect();
    let always_load = snapshot
        .catalog
        .tools()
        .iter()
        .filter(|t| t.always_load)
        .map(|t| t.name.clone())
        .collect();
    ListSaving {
        basis: basis.as_str(),
        label: basis.label(),
        direct_tools: direct.len(),
        direct_tokens: count(&direct),
        gateway_tools: through.len(),
        gateway_tokens: count(&through),
        answer_tools,
        answer_tokens_max,
        answer_tokens_median,
        servers,
        always_load,
    }
}

/// What a `search_tools` answer of up to `max_tools` tools costs (the
/// tools not always-load; counted on the result as the host receives it:
/// the compact text and the structured content): with the largest
/// tools, and with tools of the median size.
fn answer_tokens(snapshot: &Snapshot, max_tools: MaxTools, basis: TokenBasis) -> (usize, u64, u64) {
    use crate::service::Reason;
    let mut found: Vec<serde_json::Value> = snapshot
        .catalog
        .tools()
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.always_load)
        .map(|(i, _)| {
            super::answer::find::found_tool(snapshot, i, Reason::Ranked, &Default::default())
        })
        .collect();
    found.sort_by_key(|v| std::cmp::Reverse(v.to_string().len()));
    let n = max_tools.to_usize().min(found.len());
    let cost = |tools: &[serde_json::Value]| {
        let answer = json!({"query": "", "tools": tools, "ranker": "bm25"});
        let result = super::answer::results::search_result(answer);
        basis.count(&serde_json::to_string(&result).unwrap_or_default())
    };
    let middle = found.len().saturating_sub(n) / 2;
    (n, cost(&found[..n]), cost(&found[middle..middle + n]))
}

/// A listed tool as a provider is given it: name, description, schema.
fn as_tool(t: &rmcp::model::Tool) -> crate::catalog::Tool {
    let mut tool = crate::catalog::Tool::new(
        t.name.to_string(),
        t.description.as_deref().unwrap_or("").to_string(),
    );
    tool.input_schema = serde_json::Value::Object((*t.input_schema).clone());
    tool
}

/// The saving of `gateway` as of now.
pub fn list_saving(gateway: &super::Gateway, basis: TokenBasis) -> ListSaving {
    saving_of(&gateway.snapshot(), gateway.config.max_tools, basis)
}
