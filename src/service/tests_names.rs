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

fn two_servers() -> Catalog {
    let tool = |server: &str, name: &str, description: &str| {
        let mut t = crate::catalog::Tool::new(name, description);
        t.mcp = Some(crate::catalog::McpOrigin::new(server, name));
        t
    };
    let mut tools = vec![
        tool("github", "search", "Search code in repositories"),
        tool("slack", "search", "Search messages in channels"),
        tool("fetch", "fetch", "Fetch a URL from the internet"),
    ];
    for i in 0..12 {
        tools.push(tool(
            "github",
            &format!("list_issues_{i}"),
            "List the issues of a repository",
        ));
    }
    for i in 0..3 {
        tools.push(tool(
            "linear",
            &format!("issue_board_{i}"),
            "Issues of a team",
        ));
    }
    // Two tools both called `search`: a catalog of servers names them
    // apart only by the server.
    let mut tools2 = tools;
    tools2[1].name = "search_slack".into();
    Catalog::new("servers", tools2).unwrap()
}

#[test]
fn server_slash_tool_comes_first_even_for_a_one_word_name_in_a_sentence() {
    let c = two_servers();
    let s = Service::default();
    for query in [
        "use fetch/fetch on example.com",
        "call github/search for the parser",
        "mcp__fetch__fetch https://example.com",
    ] {
        let o = s.tool_search(&c, &super::tests::params(query), "").unwrap();
        let first = &o.tools[0];
        assert_eq!(first.reason, Reason::ExactName, "{query}");
        let server = c.tools()[first.index]
            .mcp
            .as_ref()
            .unwrap()
            .server
            .to_string();
        assert!(
            query.contains(&format!("{server}/")) || query.contains(&format!("{server}__")),
            "{query}: {server}"
        );
    }
    // A server's name before a tool of another server names nothing.
    let o = s
        .tool_search(
            &c,
            &super::tests::params("use slack/fetch on example.com"),
            "",
        )
        .unwrap();
    assert!(o.tools.iter().all(|t| t.reason != Reason::ExactName));
}

#[test]
fn an_answer_says_how_many_matched_beyond_the_cap_and_where() {
    let c = two_servers();
    let s = Service::default();
    let mut p = super::tests::params("list the issues");
    p.max_tools = crate::tools_handle::MaxTools::new(3);
    let o = s.tool_search(&c, &p, "").unwrap();
    assert_eq!(o.tools.len(), 3);
    let m = o
        .matching
        .clone()
        .expect("a ranked search counts its matches");
    assert_eq!((m.sent, m.total), (3, 15), "{m:?}");
    assert_eq!(
        matching::note(&m).unwrap(),
        "3 of 15 matching; 9 more in server github, 3 in server linear"
    );
    // On the wire too.
    let v = serde_json::to_value(to_wire(&c, &o)).unwrap();
    assert_eq!(v["matching"]["total"], 15, "{v}");
    // The count is of the catalog's matches, whatever the cap.
    for cap in [1, 8, 20] {
        let mut p = super::tests::params("list the issues");
        p.max_tools = crate::tools_handle::MaxTools::new(cap);
        let m = s.tool_search(&c, &p, "").unwrap().matching.unwrap();
        assert_eq!(m.total, 15, "cap {cap}: {m:?}");
        assert!(m.sent <= m.total && m.sent <= cap, "cap {cap}: {m:?}");
    }
    assert_eq!(v["matching"]["more"][0]["server"], "github", "{v}");
    // A selection names its tools: nothing to count.
    let o = s
        .tool_search(&c, &super::tests::params("select:fetch"), "")
        .unwrap();
    assert_eq!(o.matching, None);
}
