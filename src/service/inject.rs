//! The tool-session hint on provider calls: the tools a session loaded (and
//! the catalog tools the conversation already calls) added to a provider
//! request's `tools`, in that provider's shape, after the request's own.
//!
//! The request body is edited as text: the client's bytes stay as sent (key
//! order, spacing, numbers) and only the new tool definitions are spliced
//! into its `tools` array (or a `tools` array is added). Nothing the client
//! sent is removed or reordered, and nothing is executed.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::catalog::{Catalog, Tool};
use crate::provider::{ProviderApi, payload_tool};

/// What a session offers a provider call: its loaded tools in first-load
/// order and, when this instance has it, the catalog it was loaded from.
#[derive(Debug, Clone, Default)]
pub struct SessionTools {
    pub loaded: Vec<Tool>,
    pub catalog: Option<std::sync::Arc<Catalog>>,
}

impl SessionTools {
    fn find(&self, name: &str) -> Option<&Tool> {
        self.loaded
            .iter()
            .find(|t| t.name == name)
            .or_else(|| self.catalog.as_deref().and_then(|c| c.get(name)))
    }
}

/// The outcome of [`inject`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Injected {
    /// The body, edited, and the names added in order.
    Added { body: Vec<u8>, names: Vec<String> },
    /// Nothing to add: forward the body as sent.
    Nothing,
    /// The body is not a JSON object with an array (or no) `tools`: it is
    /// forwarded as sent, for the provider to judge.
    NotApplicable,
}

/// Adds to `body` the session's tools missing from its `tools`, then the
/// catalog tools its history calls that are still missing.
pub fn inject(body: &[u8], shape: ProviderApi, session: &SessionTools) -> Injected {
    let Ok(text) = std::str::from_utf8(body) else {
        return Injected::NotApplicable;
    };
    let Ok(top) = serde_json::from_str::<HashMap<String, &RawValue>>(text) else {
        return Injected::NotApplicable;
    };
    let tools_raw = top.get("tools").copied();
    let present: Vec<Value> = match tools_raw.map(|r| serde_json::from_str::<Value>(r.get())) {
        None => Vec::new(),
        Some(Ok(Value::Array(items))) => items,
        Some(Ok(Value::Null)) => return Injected::NotApplicable,
        Some(_) => return Injected::NotApplicable,
    };
    let mut have: HashSet<String> = present.iter().filter_map(tool_name).collect();
    let mut added: Vec<&Tool> = Vec::new();
    for tool in &session.loaded {
        if have.insert(tool.name.clone()) {
            added.push(tool);
        }
    }
    for name in called_names(&top, shape) {
        if have.contains(&name) {
            continue;
        }
        if let Some(tool) = session.find(&name) {
            have.insert(name);
            added.push(tool);
        }
    }
    if added.is_empty() {
        return Injected::Nothing;
    }
    let mut items = String::new();
    for (i, tool) in added.iter().enumerate() {
        if i > 0 {
            items.push(',');
        }
        items.push_str(&payload_tool(tool, shape.tool_format()).to_string());
    }
    let edited = match tools_raw {
        Some(raw) => {
            // The raw value is a slice of `text`: find where its `]` is.
            let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            let end = start + raw.get().len();
            let Some(close) = text[start..end].rfind(']').map(|i| start + i) else {
                return Injected::NotApplicable;
            };
            let sep = if present.is_empty() { "" } else { "," };
            format!("{}{sep}{items}{}", &text[..close], &text[close..])
        }
        None => {
            let Some(open) = text.find('{') else {
                return Injected::NotApplicable;
            };
            let sep = if top.is_empty() { "" } else { "," };
            format!(
                "{}\"tools\":[{items}]{sep}{}",
                &text[..=open],
                &text[open + 1..]
            )
        }
    };
    Injected::Added {
        body: edited.into_bytes(),
        names: added.iter().map(|t| t.name.clone()).collect(),
    }
}

/// The name a request's tool entry defines: `name` (Responses, Anthropic) or
/// `function.name` (Chat Completions).
fn tool_name(item: &Value) -> Option<String> {
    item.get("name")
        .or_else(|| item.get("function").and_then(|f| f.get("name")))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// The tools the conversation calls, in order of appearance: Responses
/// `function_call` items of `input`, Chat `tool_calls` (and the older
/// `function_call`) of assistant messages, Anthropic `tool_use` blocks.
fn called_names(top: &HashMap<String, &RawValue>, shape: ProviderApi) -> Vec<String> {
    let field = match shape {
        ProviderApi::OpenaiResponses => "input",
        ProviderApi::OpenaiChat | ProviderApi::AnthropicMessages => "messages",
    };
    let Some(Ok(Value::Array(items))) = top
        .get(field)
        .map(|r| serde_json::from_str::<Value>(r.get()))
    else {
        return Vec::new();
    };
    let mut names = Vec::new();
    let mut push = |v: Option<&Value>| {
        if let Some(n) = v.and_then(Value::as_str) {
            names.push(n.to_string());
        }
    };
    for item in &items {
        match shape {
            ProviderApi::OpenaiResponses => {
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    push(item.get("name"));
                }
            }
            ProviderApi::OpenaiChat => {
                if let Some(Value::Array(calls)) = item.get("tool_calls") {
                    for call in calls {
                        push(call.get("function").and_then(|f| f.get("name")));
                    }
                }
                push(item.get("function_call").and_then(|f| f.get("name")));
            }
            ProviderApi::AnthropicMessages => {
                if let Some(Value::Array(blocks)) = item.get("content") {
                    for block in blocks {
                        if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                            push(block.get("name"));
                        }
                    }
                }
            }
        }
    }
    names
}

/// Tool names for a response header: comma-separated, each byte outside
/// `[A-Za-z0-9._:@/+-]` written as `%XX` (names may hold anything).
pub fn header_list(names: &[String]) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        for b in name.bytes() {
            if b.is_ascii_alphanumeric() || b"._:@/+-~".contains(&b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str) -> Tool {
        let mut t = Tool::new(name, format!("{name} does things"));
        t.input_schema = json!({"type": "object", "properties": {"x": {"type": "string"}}});
        t
    }

    fn session(names: &[&str], catalog: &[&str]) -> SessionTools {
        SessionTools {
            loaded: names.iter().map(|n| tool(n)).collect(),
            catalog: Some(std::sync::Arc::new(
                Catalog::new("c", catalog.iter().map(|n| tool(n)).collect()).unwrap(),
            )),
        }
    }

    fn added(body: &Value, shape: ProviderApi, s: &SessionTools) -> (Value, Vec<String>) {
        match inject(body.to_string().as_bytes(), shape, s) {
            Injected::Added { body, names } => (serde_json::from_slice(&body).unwrap(), names),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn responses_appends_after_the_clients_own_in_first_load_order() {
        let s = session(&["b", "a", "c"], &["a", "b", "c", "d"]);
        let body = json!({"model": "m", "input": "hi", "tools": [
            {"type": "function", "name": "a", "description": "mine", "parameters": {}},
            {"type": "web_search"}
        ]});
        let (out, names) = added(&body, ProviderApi::OpenaiResponses, &s);
        assert_eq!(names, ["b", "c"]);
        let tools = out["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 4);
        assert_eq!(tools[0]["description"], "mine");
        assert_eq!(tools[1]["type"], "web_search");
        assert_eq!(tools[2]["name"], "b");
        assert_eq!(tools[2]["type"], "function");
        assert_eq!(tools[2]["parameters"]["type"], "object");
        assert_eq!(tools[3]["name"], "c");
        assert_eq!(out["model"], "m");
    }

    #[test]
    fn history_calls_define_catalog_tools_once() {
        let s = session(&["a"], &["a", "b", "d"]);
        let body = json!({"input": [
            {"role": "user", "content": "x"},
            {"type": "function_call", "name": "d", "call_id": "1", "arguments": "{}"},
            {"type": "function_call", "name": "d", "call_id": "2", "arguments": "{}"},
            {"type": "function_call", "name": "not_in_catalog", "call_id": "3", "arguments": "{}"},
            {"type": "function_call", "name": "a", "call_id": "4", "arguments": "{}"}
        ]});
        let (out, names) = added(&body, ProviderApi::OpenaiResponses, &s);
        assert_eq!(names, ["a", "d"]);
        assert_eq!(out["tools"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn chat_and_anthropic_shapes() {
        let s = session(&["a", "b"], &["a", "b", "z"]);
        let chat = json!({"messages": [
            {"role": "assistant", "tool_calls": [{"id": "1", "type": "function", "function": {"name": "z", "arguments": "{}"}}]}
        ], "tools": [{"type": "function", "function": {"name": "b", "parameters": {}}}]});
        let (out, names) = added(&chat, ProviderApi::OpenaiChat, &s);
        assert_eq!(names, ["a", "z"]);
        assert_eq!(out["tools"][0]["function"]["name"], "b");
        assert_eq!(out["tools"][1]["function"]["name"], "a");
        assert_eq!(out["tools"][2]["function"]["name"], "z");
        let anthropic = json!({"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "z", "input": {}}]}
        ]});
        let (out, names) = added(&anthropic, ProviderApi::AnthropicMessages, &s);
        assert_eq!(names, ["a", "b", "z"]);
        assert_eq!(out["tools"][0].as_object().unwrap().len(), 3);
        assert_eq!(out["tools"][2]["input_schema"]["type"], "object");
    }

    #[test]
    fn the_clients_bytes_stay_as_sent() {
        let s = session(&["a"], &["a"]);
        let text = r#"{ "z": 1.50, "tools" : [ {"name":"q"} ] , "a": "é" }"#;
        let Injected::Added { body, .. } =
            inject(text.as_bytes(), ProviderApi::AnthropicMessages, &s)
        else {
            panic!()
        };
        let body = String::from_utf8(body).unwrap();
        assert!(
            body.starts_with(r#"{ "z": 1.50, "tools" : [ {"name":"q"} ,{"#),
            "{body}"
        );
        assert!(body.ends_with(r#"}] , "a": "é" }"#), "{body}");
        let text = r#"{"model":"m"}"#;
        let Injected::Added { body, .. } = inject(text.as_bytes(), ProviderApi::OpenaiChat, &s)
        else {
            panic!()
        };
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["model"], "m");
        assert_eq!(v["tools"][0]["function"]["name"], "a");
        let Injected::Added { body, .. } = inject(b"{}", ProviderApi::OpenaiChat, &s) else {
            panic!()
        };
        assert!(serde_json::from_slice::<Value>(&body).is_ok());
        let Injected::Added { body, .. } = inject(br#"{"tools":[]}"#, ProviderApi::OpenaiChat, &s)
        else {
            panic!()
        };
        assert!(serde_json::from_slice::<Value>(&body).is_ok());
    }

    #[test]
    fn nothing_or_not_applicable() {
        let s = session(&["a"], &["a"]);
        let has = json!({"tools": [{"type": "function", "name": "a"}]}).to_string();
        assert_eq!(
            inject(has.as_bytes(), ProviderApi::OpenaiResponses, &s),
            Injected::Nothing
        );
        for bad in [&b"[1]"[..], b"not json", b"{\"tools\": 3}", b"\xff"] {
            assert_eq!(
                inject(bad, ProviderApi::OpenaiResponses, &s),
                Injected::NotApplicable
            );
        }
        assert_eq!(
            inject(
                b"{}",
                ProviderApi::OpenaiResponses,
                &SessionTools::default()
            ),
            Injected::Nothing
        );
    }

    #[test]
    fn hostile_names_in_headers() {
        let names = vec!["ok_name".to_string(), "a,b\r\n\u{1b}é".to_string()];
        let h = header_list(&names);
        assert_eq!(h, "ok_name,a%2Cb%0D%0A%1B%C3%A9");
        assert!(axum::http::HeaderValue::from_str(&h).is_ok());
    }
}
