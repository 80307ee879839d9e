//! The servers' resources and prompts, passed on to the host: each list is
//! every server's, gathered at once; a prompt name two servers share is
//! prefixed `server__` in both, as tools are; a resource keeps its URI (its
//! server needs it back), and the gateway remembers which server listed it
//! (or the template it fits) to route `resources/read`. Their text is
//! cleaned of hidden characters as tools' is (`--hidden-text`); a server
//! that fails to answer is left out of the list and logged.

use std::collections::{BTreeMap, HashMap, HashSet};

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::catalog::strip_json;
use crate::gateway::policy::hidden;
use crate::gateway::{Gateway, HiddenText, Reach};
use crate::sources::mcp::{McpCallError, Offer, ServerList};
use crate::terminal_text::escape;

/// Where the gateway sends a resource read or a prompt get.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    /// Each listed resource's URI: its server.
    resources: HashMap<String, String>,
    /// Each template's fixed start (before its first `{`) and its server.
    templates: Vec<(String, String)>,
    /// Each prompt's name as the host sees it: its server, and its name there.
    prompts: HashMap<String, (String, String)>,
    /// The URIs of resources left out of the list for their hidden text
    /// (they cannot be read either).
    left_out: HashSet<String>,
    /// The names of prompts left out for theirs.
    prompts_left_out: HashSet<String>,
}

impl Routes {
    /// The server of `uri`: the one that listed it, else the one whose
    /// template's fixed start is the longest that `uri` starts with.
    fn resource(&self, uri: &str) -> Option<String> {
        if let Some(server) = self.resources.get(uri) {
            return Some(server.clone());
        }
        self.templates
            .iter()
            .filter(|(start, _)| !start.is_empty() && uri.starts_with(start.as_str()))
            .max_by_key(|(start, _)| start.len())
            .map(|(_, server)| server.clone())
    }
}

impl Gateway {
    /// `f` over the routes of `reach` (keys that reach alike share them).
    fn routes<R>(&self, reach: &Reach, f: impl FnOnce(&mut Routes) -> R) -> R {
        let mut all = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        f(all.entry(reach.profile().to_string()).or_default())
    }

    /// The lists that came, the failures logged; a server `reach` does
    /// not reach is left out, and so is one the tool rules deny whole
    /// (`--deny 'server/*'`): its prompts and resources are denied with
    /// its tools.
    fn answered<T>(
        &self,
        what: &str,
        lists: Vec<ServerList<T>>,
        reach: &Reach,
    ) -> Vec<(String, Vec<T>)> {
        lists
            .into_iter()
            .filter(|l| reach.server(&l.server, &self.config.rules))
            .filter_map(|l| match l.items {
                Ok(items) => Some((l.server, items)),
                Err(e) => {
                    self.recorder.warn(&format!(
                        "{}: listing its {what} failed, so the host's list lacks them: {}",
                        l.server,
                        escape(&e.to_string())
                    ));
                    None
                }
            })
            .collect()
    }

    /// `resources/list`: every server's resources, URIs as they are; a URI
    /// two servers list is served by the first.
    pub(crate) async fn list_resources(&self, reach: &Reach) -> ListResourcesResult {
        let lists = self.host.list_resources().await;
        let mut out: Vec<Resource> = Vec::new();
        let mut routes: HashMap<String, String> = HashMap::new();
        let mut left_out = HashSet::new();
        for (server, items) in self.answered("resources", lists, reach) {
            for item in items {
                // The URI is what names it (a hidden name is cleaned).
                let uri = item.uri.clone();
                let Some(item) = self.clean(item, "resource", &server, &["uri"]) else {
                    left_out.insert(uri);
                    continue;
                };
                if let Some(first) = routes.get(&item.uri) {
                    self.recorder.warn(&format!(
                        "{server}: resource {} is listed by {first} too; reads go to {first}",
                        escape(&item.uri)
                    ));
                    continue;
                }
                routes.insert(item.uri.clone(), server.clone());
                out.push(item);
            }
        }
        self.routes(reach, |all| {
            all.resources = routes;
            all.left_out = left_out;
        });
        ListResourcesResult::with_all_items(out)
    }

    /// `resources/templates/list`: every server's templates.
    pub(crate) async fn list_resource_templates(
        &self,
        reach: &Reach,
    ) -> ListResourceTemplatesResult {
        let lists = self.host.list_resource_templates().await;
        let mut out: Vec<ResourceTemplate> = Vec::new();
        let mut starts = Vec::new();
        for (server, items) in self.answered("resource templates", lists, reach) {
            for item in items {
                let keep = ["uriTemplate"];
                let Some(item) = self.clean(item, "resource template", &server, &keep) else {
                    continue;
                };
                let start = item
                    .uri_template
                    .split('{')
                    .next()
                    .unwrap_or_default()
                    .to_string();
                starts.push((start, server.clone()));
                out.push(item);
            }
        }
        self.routes(reach, |all| all.templates = starts);
        ListResourceTemplatesResult::with_all_items(out)
    }

    /// The server that serves resource `uri`: the one that listed it (or
    /// a template it fits), listed again once if none has; else the one
    /// server with resources, if there is one.
    pub(crate) async fn resource_server(
        &self,
        uri: &str,
        reach: &Reach,
    ) -> Result<String, ErrorData> {
        if self.routes(reach, |r| r.left_out.contains(uri)) {
            return Err(left_out("resource", uri, self.config.hidden_text));
        }
        let mut server = self.routes(reach, |r| r.resource(uri));
        if server.is_none() {
            // Not listed yet in this gateway's life: list, then look again.
            self.list_resources(reach).await;
            self.list_resource_templates(reach).await;
            server = self.routes(reach, |r| r.resource(uri));
        }
        let not_found = || {
            ErrorData::resource_not_found(
                format!(
                    "no MCP server behind this gateway lists resource {} or a template it fits",
                    escape(uri)
                ),
                None,
            )
        };
        let denied = |s: &String| !reach.server(s, &self.config.rules);
        match server {
            Some(s) if denied(&s) => Err(not_found()),
            Some(s) => Ok(s),
            None => {
                let offering = self.host.servers_offering(Offer::Resources);
                let open: Vec<&String> = offering.iter().filter(|s| !denied(s)).collect();
                match open.as_slice() {
                    [only] => Ok((*only).clone()),
                    _ => Err(not_found()),
                }
            }
        }
    }

    /// `resources/read` of `uri`, on the server that listed it (or whose
    /// template it fits; or the only server with resources).
    pub(crate) async fn read_resource(
        &self,
        uri: &str,
        reach: &Reach,
    ) -> Result<ReadResourceResult, ErrorData> {
        // A read that fails names the URI in its error's data, as the
        // specification asks of a resource not found.
        let with_uri = |mut e: ErrorData| {
            e.data
                .get_or_insert_with(|| serde_json::json!({ "uri": uri }));
            e
        };
        let server = self.resource_server(uri, reach).await.map_err(with_uri)?;
        let read = self
            .host
            .read_resource(&server, uri)
            .await
            .map_err(|e| with_uri(upstream_error(&e)))?;
        self.clean_answer(read, "resource", uri, &server, &["contents"])
    }

    /// `prompts/list`: every server's prompts, a name two servers share
    /// prefixed `server__` in both.
    pub(crate) async fn list_prompts(&self, reach: &Reach) -> ListPromptsResult {
        let lists = self.host.list_prompts().await;
        let lists = self.answered("prompts", lists, reach);
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, items) in &lists {
            for p in items {
                *count.entry(p.name.as_str()).or_default() += 1;
            }
        }
        let shared: Vec<String> = count
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(name, _)| name.to_string())
            .collect();
        let mut out: Vec<Prompt> = Vec::new();
        let mut routes = HashMap::new();
        let mut left_out = HashSet::new();
        for (server, items) in lists {
            for item in items {
                let name = item.name.clone();
                let Some(mut item) = self.clean(item, "prompt", &server, &["name"]) else {
                    left_out.insert(name);
                    continue;
                };
                let original = item.name.clone();
                if shared.contains(&original) {
                    item.name = format!("{server}__{original}");
                }
                routes.insert(item.name.clone(), (server.clone(), original));
                out.push(item);
            }
        }
        self.routes(reach, |all| {
            all.prompts = routes;
            all.prompts_left_out = left_out;
        });
        ListPromptsResult::with_all_items(out)
    }

    /// The server of prompt `name` (as the host saw it listed) and its
    /// name there, listed again once if unknown.
    pub(crate) async fn prompt_route(
        &self,
        name: &str,
        reach: &Reach,
    ) -> Result<(String, String), ErrorData> {
        let mut route = self.routes(reach, |r| r.prompts.get(name).cloned());
        if route.is_none() {
            self.list_prompts(reach).await;
            route = self.routes(reach, |r| r.prompts.get(name).cloned());
        }
        let unknown = || {
            ErrorData::invalid_params(
                format!(
                    "no MCP server behind this gateway has a prompt named {}",
                    escape(name)
                ),
                None,
            )
        };
        let Some(route) = route else {
            if self.routes(reach, |r| r.prompts_left_out.contains(name)) {
                return Err(left_out("prompt", name, self.config.hidden_text));
            }
            return Err(unknown());
        };
        if !reach.server(&route.0, &self.config.rules) {
            return Err(unknown());
        }
        Ok(route)
    }

    /// `prompts/get` of `name` (as the host saw it listed).
    pub(crate) async fn get_prompt(
        &self,
        name: &str,
        reach: &Reach,
        arguments: Option<JsonObject>,
    ) -> Result<GetPromptResult, ErrorData> {
        let (server, original) = self.prompt_route(name, reach).await?;
        let got = self
            .host
            .get_prompt(&server, &original, arguments)
            .await
            .map_err(|e| upstream_error(&e))?;
        self.clean_answer(got, "prompt", name, &server, &["description", "messages"])
    }

    /// A read resource or a got prompt as `--hidden-text` has the host see
    /// it: cleaned (strip), refused (drop) or as it came (keep); a change
    /// logged and counted.
    fn clean_answer<T: Serialize + DeserializeOwned>(
        &self,
        mut answer: T,
        what: &str,
        label: &str,
        server: &str,
        parts: &[&str],
    ) -> Result<T, ErrorData> {
        let mode = self.config.hidden_text;
        let changed = match mode {
            HiddenText::Keep => false,
            HiddenText::Drop => hidden::answer_hides(&answer, parts),
            HiddenText::Strip => hidden::clean_answer(&mut answer, parts),
        };
        if !changed {
            return Ok(answer);
        }
        metrics::counter!(
            "toolsift_gateway_hidden_text_results_total",
            "server" => server.to_string()
        )
        .increment(1);
        let label = escape(label);
        if mode == HiddenText::Drop {
            self.recorder.warn(&format!(
                "{server}: {what} \"{label}\" refused: its text hides characters (--hidden-text drop)"
            ));
            return Err(ErrorData::invalid_request(
                format!(
                    "the {what} {label} of server {server} hides text a reader cannot see, and this gateway leaves such text out (--hidden-text drop)"
                ),
                None,
            ));
        }
        self.recorder.warn(&format!(
            "{server}: {what} \"{label}\": hidden text taken out of what it gave (--hidden-text strip)"
        ));
        Ok(answer)
    }

    /// `item` as the host should read it under `--hidden-text`: its text
    /// cleaned (strip) or the item left out (drop, or an identifier in
    /// `keys` that hides something); each change logged.
    fn clean<T: Serialize + DeserializeOwned>(
        &self,
        item: T,
        what: &str,
        server: &str,
        keys: &[&str],
    ) -> Option<T> {
        let mode = self.config.hidden_text;
        if mode == HiddenText::Keep {
            return Some(item);
        }
        let Ok(mut value) = serde_json::to_value(&item) else {
            return Some(item);
        };
        let identifiers: Vec<Option<serde_json::Value>> =
            keys.iter().map(|k| value.get(*k).cloned()).collect();
        if !strip_json(&mut value) {
            return Some(item);
        }
        let label = identifiers
            .iter()
            .flatten()
            .next()
            .and_then(|v| v.as_str())
            .map(escape)
            .unwrap_or_default();
        let identifier_hides = keys
            .iter()
            .zip(&identifiers)
            .any(|(k, before)| value.get(*k) != before.as_ref());
        if mode == HiddenText::Drop || identifier_hides {
            self.recorder.warn(&format!(
                "{server}: {what} \"{label}\" left out: its text hides characters (--hidden-text {mode})"
            ));
            return None;
        }
        self.recorder.warn(&format!(
            "{server}: {what} \"{label}\": hidden text taken out (--hidden-text strip)"
        ));
        serde_json::from_value(value).ok()
    }
}

/// The answer to a read or get of what the list left out.
fn left_out(what: &str, name: &str, mode: HiddenText) -> ErrorData {
    let text = format!(
        "the {what} {} was left out of the list because its text hides characters a reader cannot see (--hidden-text {mode}), so it is not served either",
        escape(name)
    );
    if what == "resource" {
        ErrorData::resource_not_found(text, None)
    } else {
        ErrorData::invalid_params(text, None)
    }
}

/// A server's failure as the host gets it: the server's own JSON-RPC
/// error (its code kept, the server named), else an internal error.
pub(crate) fn upstream_error(e: &McpCallError) -> ErrorData {
    match e {
        McpCallError::Answered { code, .. } => {
            ErrorData::new(rmcp::model::ErrorCode(*code), e.to_string(), None)
        }
        _ => ErrorData::internal_error(e.to_string(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_goes_to_the_server_that_listed_it_else_the_longest_template_start() {
        let mut routes = Routes::default();
        routes
            .resources
            .insert("file:///notes/a.md".into(), "files".into());
        routes.templates = vec![
            ("file:///".into(), "files".into()),
            ("file:///notes/drafts/".into(), "drafts".into()),
            // A template that starts with its variable fits nothing.
            (String::new(), "any".into()),
        ];
        assert_eq!(
            routes.resource("file:///notes/a.md").as_deref(),
            Some("files")
        );
        assert_eq!(
            routes.resource("file:///notes/drafts/b.md").as_deref(),
            Some("drafts")
        );
        assert_eq!(
            routes.resource("file:///etc/hosts").as_deref(),
            Some("files")
        );
        assert_eq!(routes.resource("git://repo"), None);
    }
}
