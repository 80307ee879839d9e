//! Tools named in a query the way an agent was shown them.

use super::*;
use serde_json::{Value, json};

#[test]
fn a_namespaced_name_finds_the_tool() {
    let tool = |name: &str, description: &str| json!({"name": name, "description": description, "input_schema": {"type": "object"}});
    let body = json!({
        "tools": [
            tool("list_issues", "List the issues of a repository"),
            tool("create_issue_comment", "Comment on an issue"),
            tool("create_issue", "Create an issue in a repository"),
            tool("issue", "Show one issue"),
        ],
        "query": "mcp__github__create_issue",
    });
    let s = Service::default();
    let r = s
        .tool_search_json(body.to_string().as_bytes(), None)
        .unwrap();
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["tools"][0]["name"], "create_issue", "{v}");
    assert_eq!(v["tools"][0]["reason"], "exact_name", "{v}");
    let exact: Vec<&Value> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["reason"] == "exact_name")
        .collect();
    assert_eq!(exact.len(), 1, "{v}");
}
