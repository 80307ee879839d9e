//! Approvals: a call a rule marks `ask` goes to the tool only when the user
//! says yes through the host (MCP elicitation); and every result says which
//! tool ran, so a host that shows it can tell `call_tool` calls apart.

use std::collections::BTreeMap;

use rmcp::model::{
    CallToolResult, ElicitRequestParams, ElicitationAction, ElicitationSchema, MetaObject,
};
use serde_json::{Value, json};

use crate::catalog::Tool;
use crate::terminal_text::escape;

/// The `_meta` key of a result that names the tool that ran.
pub const TOOL_META: &str = "io.toolsift/tool";

/// How long the user has to answer the host's question.
const ASK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// The arguments, as the user is shown them, at most this many characters.
const SHOWN_ARGUMENTS: usize = 600;

/// Asks the user, through `host`, whether `tool` may run with `arguments`:
/// `Ok` on yes; otherwise the refusal the model gets (the user said no, or
/// the host cannot ask: then the model is told to ask the user).
pub(crate) async fn ask(
    host: Option<&rmcp::Peer<rmcp::RoleServer>>,
    tool: &Tool,
    arguments: &Value,
) -> Result<(), String> {
    let cannot_ask = || {
        format!(
            "{} needs the user's approval on this gateway (rule \"ask\"), and this host cannot ask for it (no MCP elicitation), so the call was not sent. Tell the user which tool you want to run and with which arguments, and let them run it or allow the tool in the gateway's [gateway.tools].",
            tool.name
        )
    };
    let Some(host) = host.filter(|h| {
        h.peer_info()
            .is_some_and(|i| i.capabilities.elicitation.is_some())
    }) else {
        return Err(cannot_ask());
    };
    let mut shown = arguments.to_string();
    if shown.chars().count() > SHOWN_ARGUMENTS {
        shown = shown.chars().take(SHOWN_ARGUMENTS).collect::<String>() + "…";
    }
    let server = tool
        .mcp
        .as_ref()
        .map(|m| format!(" (server {})", escape(&m.server)))
        .unwrap_or_default();
    let message = format!(
        "Allow the tool {}{server} to run with these arguments?\n{}",
        escape(&tool.name),
        escape(&shown)
    );
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    };
    match host
        .create_elicitation_with_timeout(params, Some(ASK_TIMEOUT))
        .await
    {
        Ok(answer) if answer.action == ElicitationAction::Accept => Ok(()),
        Ok(answer) => Err(format!(
            "the user {} running {} through the host's prompt, so the call was not sent. Do not try it again unless the user asks.",
            match answer.action {
                ElicitationAction::Decline => "declined",
                _ => "cancelled",
            },
            tool.name
        )),
        // A host that declared elicitation and then fails (or a revision
        // that forbids asking): refused, never run unasked.
        Err(e) => Err(format!(
            "{}. (Asking the host failed: {})",
            cannot_ask(),
            escape(&e.to_string())
        )),
    }
}

/// Names in `result`'s `_meta` the tool that ran, its server and its
/// annotations as the server listed them (`listed`).
pub(crate) fn tell_host(result: &mut CallToolResult, tool: &Tool, listed: &rmcp::model::Tool) {
    let mut about = json!({ "name": tool.name });
    if let Some(m) = &tool.mcp {
        about["server"] = json!(m.server.as_ref());
    }
    if let Some(a) = listed
        .annotations
        .as_ref()
        .and_then(|a| serde_json::to_value(a).ok())
    {
        about["annotations"] = a;
    }
    let meta = result
        .meta
        .get_or_insert_with(|| MetaObject(Default::default()));
    meta.0.insert(TOOL_META.to_string(), about);
}
