//! The servers' tool lists as one catalog, through the MCP importer.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::catalog::pattern::glob;
use crate::catalog::{self, Catalog, McpOrigin, SourceKind, Tool};

use super::{McpServer, ServerState, ServerStatus};

/// One server's tools as it listed them, and what it says of itself.
pub(super) struct Listed {
    pub(super) server: McpServer,
    pub(super) tools: Vec<rmcp::model::Tool>,
    /// The tools it listed that could not be read (sentences).
    pub(super) skipped: Vec<String>,
    pub(super) about: Option<Arc<str>>,
}

/// At most this many characters of what a server says of itself are kept
/// (and searched): its title, description and instructions.
pub const ABOUT_CHARS: usize = 500;

/// What a server says of itself in its `initialize` answer: its name,
/// title and description (`serverInfo`) and its `instructions`, one text of
/// at most [`ABOUT_CHARS`] characters; `None` when it says nothing.
pub(super) fn about(info: Option<&rmcp::model::ServerPeerInfo>) -> Option<Arc<str>> {
    let info = info?;
    let server = info.server_info.as_ref();
    let parts = [
        server.map(|s| s.name.as_str()),
        server.and_then(|s| s.title.as_deref()),
        server.and_then(|s| s.description.as_deref()),
        info.instructions.as_deref(),
    ];
    let text: String = parts
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
        .chars()
        .take(ABOUT_CHARS)
        .collect();
    (!text.is_empty()).then(|| Arc::from(text))
}

/// The most of the servers' tools one catalog holds (the gateway's, the
/// CLI's): a server whose tools would take it past is left out, named,
/// until there is room (each server lists at most
/// [`super::lenient::MAX_SERVER_TOOLS`]).
pub const MAX_CATALOG_TOOLS: usize = 50_000;

/// Why a server's tools do not go through the MCP importer.
#[derive(Debug, thiserror::Error)]
enum ImportError {
    /// The tools could not be written as JSON for the importer.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The importer's checks, naming the tool and field.
    #[error("{0}")]
    Catalog(#[from] catalog::CatalogError),
}

/// `tools` through the MCP importer (an empty list is refused there, so
/// the caller passes a list with tools).
fn import(tools: &[rmcp::model::Tool], origin: &str, server: &str) -> Result<Vec<Tool>, ImportError> {
    if tools.is_empty() {
        return Ok(Vec::new());
    }
    let text = serde_json::to_string(tools)?;
    Ok(catalog::parse(&text, origin, server, SourceKind::Json)?.tools().to_vec())
}

/// One server's tools (as the catalog has them), and the sentences of
/// those skipped.
type PerServer = (McpServer, Vec<Tool>, Vec<String>);

/// The servers that failed while their tools were made one catalog, each
/// one's state failed with why.
struct Failures<'a> {
    statuses: &'a mut [ServerStatus],
    failed: Vec<String>,
}

impl Failures<'_> {
    /// Server `server` failed: its state says `why`.
    fn fail(&mut self, server: &str, why: String) {
        if let Some(s) = self.statuses.iter_mut().find(|s| s.name == server) {
            s.state = ServerState::Failed {
                why,
                stderr_tail: String::new(),
            };
        }
        self.failed.push(server.to_string());
    }
}

/// The servers' tools as one catalog: each server's list through the MCP
/// importer (a server whose list fails its checks is failed, naming the
/// tool and field), names present in two servers prefixed `server__` in
/// both, always-load from the config. Returns the failed servers too, and
/// the servers left out for room (by name, why): past
/// [`MAX_CATALOG_TOOLS`], the servers later in the list wait.
///
/// A name once given (`given`: server and its name for the tool → the
/// catalog's name) never changes while the host lives: a server that comes
/// later with a name in use takes the prefix, and a prefixed name stays
/// prefixed when the other server goes. A model keeps calling what it found.
pub(super) fn build_catalog(
    listed: Vec<Listed>,
    always_load: &[String],
    statuses: &mut [ServerStatus],
    given: &mut HashMap<(String, String), String>,
) -> (Option<Catalog>, Vec<String>, HashMap<String, String>) {
    let mut failures = Failures {
        statuses,
        failed: Vec::new(),
    };
    let mut per_server: Vec<PerServer> = Vec::new();
    for one in listed {
        match import_server(one) {
            Ok(imported) => per_server.push(imported),
            Err((server, why)) => failures.fail(&server, why),
        }
    }
    let crowded = make_room(&mut per_server, failures.statuses, MAX_CATALOG_TOOLS);
    let names = catalog_names(&per_server, given);
    let all = settle(per_server, names, always_load, failures.statuses);
    if all.is_empty() {
        return (None, failures.failed, crowded);
    }
    let catalog = one_catalog(all, &mut failures);
    (catalog, failures.failed, crowded)
}

/// One server's listed tools through the importer, each with its origin
/// (the server, what it says of itself, its name and title for the tool).
/// A tool the importer refuses (a schema that is not an object, say) is
/// skipped and named, the rest kept; a list that still fails fails the
/// server (its name, why).
fn import_server(listed: Listed) -> Result<PerServer, (String, String)> {
    let Listed {
        server,
        mut tools,
        mut skipped,
        about,
    } = listed;
    if tools.is_empty() {
        return Ok((server, Vec::new(), skipped));
    }
    let origin = format!("MCP server {}", server.name);
    let imported = match import(&tools, &origin, &server.name) {
        Ok(c) => c,
        Err(whole) => {
            let mut kept = Vec::new();
            for tool in std::mem::take(&mut tools) {
                match import(std::slice::from_ref(&tool), &origin, &server.name) {
                    Ok(_) => kept.push(tool),
                    Err(e) => skipped.push(format!("tool {:?} skipped: {e}", tool.name)),
                }
            }
            tools = kept;
            import(&tools, &origin, &server.name).map_err(|_| {
                (
                    server.name.clone(),
                    format!("its tools/list is not a valid catalog: {whole}"),
                )
            })?
        }
    };
    let server_name: Arc<str> = Arc::from(server.name.as_str());
    let with_origin = imported
        .into_iter()
        .zip(&tools)
        .map(|(mut tool, listed)| {
            tool.mcp = Some(McpOrigin {
                server: server_name.clone(),
                about: about.clone(),
                name: tool.name.clone(),
                title: listed
                    .title
                    .clone()
                    .or_else(|| listed.annotations.as_ref().and_then(|a| a.title.clone())),
            });
            tool
        })
        .collect();
    Ok((server, with_origin, skipped))
}

/// The catalog's name for each tool, in the order of `per_server`: the
/// name given before, else the tool's own, prefixed `server__` when
/// another server's tool has it (both, when both are new). `given` learns
/// every name decided.
fn catalog_names(
    per_server: &[PerServer],
    given: &mut HashMap<(String, String), String>,
) -> Vec<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, tools, _) in per_server {
        for t in tools {
            *count.entry(t.name.as_str()).or_default() += 1;
        }
    }
    // The bare names given to a server's tool, and to which server.
    let bare: HashMap<&str, &str> = given
        .iter()
        .filter(|((_, original), name)| original == *name)
        .map(|((server, _), name)| (name.as_str(), server.as_str()))
        .collect();
    let mut decided: Vec<((String, String), String)> = Vec::new();
    for (server, tools, _) in per_server {
        for tool in tools {
            let key = (server.name.clone(), tool.name.clone());
            let name = match given.get(&key) {
                Some(name) => name.clone(),
                None => {
                    let taken = bare
                        .get(tool.name.as_str())
                        .is_some_and(|owner| *owner != server.name);
                    // Two servers new with one name: both prefixed; a
                    // name given before: the newcomer alone (the other
                    // keeps what it was given).
                    let clash = count.get(tool.name.as_str()).copied().unwrap_or(0) > 1;
                    if taken || clash {
                        format!("{}__{}", server.name, tool.name)
                    } else {
                        tool.name.clone()
                    }
                }
            };
            decided.push((key, name));
        }
    }
    drop(bare);
    given.extend(decided.iter().cloned());
    decided.into_iter().map(|(_, name)| name).collect()
}

/// Every server's tools under their catalog names (`names`, in order),
/// always-load as the server or a pattern says; each server's state
/// loaded with its count, its prefixed names, the text its tools hide and
/// the tools it skipped. A server waiting for a login keeps saying so.
fn settle(
    per_server: Vec<PerServer>,
    names: Vec<String>,
    always_load: &[String],
    statuses: &mut [ServerStatus],
) -> Vec<Tool> {
    let mut names_of = names.into_iter();
    let mut all = Vec::new();
    for (server, tools, skipped) in per_server {
        let mut prefixed = 0;
        let mut hidden_text = Vec::new();
        let n = tools.len();
        for mut tool in tools {
            if let Some(name) = names_of.next()
                && name != tool.name
            {
                tool.name = name;
                prefixed += 1;
            }
            // A server's tools reach the model as it wrote them: what they
            // hide is reported with the server.
            hidden_text.extend(
                catalog::lint_tool(&tool)
                    .iter()
                    .filter(|l| l.hidden_text)
                    .map(ToString::to_string),
            );
            tool.always_load = tool.always_load
                || server.always_load
                || always_load
                    .iter()
                    .any(|p| matches_pattern(p, &server.name, &tool));
            all.push(tool);
        }
        if let Some(s) = statuses
            .iter_mut()
            .find(|s| s.name == server.name && !matches!(s.state, ServerState::WaitingForLogin { .. }))
        {
            s.state = ServerState::Loaded {
                tools: n,
                prefixed,
                hidden_text,
                skipped,
            };
        }
    }
    all
}

/// The loaded servers' tools as one catalog named after them; none when
/// two prefixed names still clash, every loaded server then failed.
fn one_catalog(all: Vec<Tool>, failures: &mut Failures<'_>) -> Option<Catalog> {
    let names: Vec<&str> = failures
        .statuses
        .iter()
        .filter(|s| matches!(s.state, ServerState::Loaded { .. }))
        .map(|s| s.name.as_str())
        .collect();
    let name = format!("mcp: {}", names.join(", "));
    match Catalog::build(name, all, vec![catalog::Format::Mcp], Vec::new(), "") {
        Ok(c) => Some(c),
        Err(e) => {
            // Only a prefixed name that another server also uses gets here.
            let loaded: Vec<String> = failures
                .statuses
                .iter()
                .filter(|s| matches!(s.state, ServerState::Loaded { .. }))
                .map(|s| s.name.clone())
                .collect();
            for server in loaded {
                failures.fail(
                    &server,
                    format!("the servers' tools do not form one catalog: {e}"),
                );
            }
            None
        }
    }
}

/// Leaves out of `per_server` each server whose tools would take the
/// catalog past `limit` tools (in the servers' order), its state failed
/// with its count and the limit; those servers, and why.
pub(super) fn make_room(
    per_server: &mut Vec<PerServer>,
    statuses: &mut [ServerStatus],
    limit: usize,
) -> HashMap<String, String> {
    let mut crowded = HashMap::new();
    let mut room = limit;
    per_server.retain(|(server, tools, _)| {
        if tools.len() <= room {
            room -= tools.len();
            return true;
        }
        let why = format!(
            "its {} would take the catalog past {} of the servers' tools: left out until the others leave room",
            crate::numbers::counted(tools.len(), "tool"),
            crate::numbers::thousands(limit as u64)
        );
        if let Some(s) = statuses.iter_mut().find(|s| s.name == server.name) {
            s.state = ServerState::Failed {
                why: why.clone(),
                stderr_tail: String::new(),
            };
        }
        crowded.insert(server.name.clone(), why);
        false
    });
    crowded
}

/// The always-load patterns that match no tool of `catalog` (a typo, or a
/// server that did not start), in the order given.
pub fn unmatched_always_load<'a>(
    patterns: &'a [String],
    catalog: &crate::catalog::Catalog,
) -> Vec<&'a str> {
    patterns
        .iter()
        .filter(|p| {
            !catalog.tools().iter().any(|t| {
                t.mcp
                    .as_ref()
                    .is_some_and(|m| matches_pattern(p, &m.server, t))
            })
        })
        .map(String::as_str)
        .collect()
}

/// `server/*`, `server/tool`, or `tool` (the server's name for it or the
/// catalog's); `*` alone, or `*/*`, every tool of every server. Only a
/// whole part is a wildcard here (`server/get_*` names no tool), each
/// part matched by [`glob`].
pub(super) fn matches_pattern(pattern: &str, server: &str, tool: &Tool) -> bool {
    let original = tool
        .mcp
        .as_ref()
        .map_or(tool.name.as_str(), |m| m.name.as_str());
    let fits = |part: &str, text: &str| (part == "*" || !part.contains('*')) && glob(part, text);
    match pattern.split_once('/') {
        Some((s, "*")) => fits(s, server),
        Some((s, t)) => s == server && (fits(t, original) || fits(t, &tool.name)),
        None => fits(pattern, original) || fits(pattern, &tool.name),
    }
}
