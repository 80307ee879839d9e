//! The MCP source's pure parts: always-load patterns and server summaries.

use super::*;

#[test]
fn patterns() {
    let mut t = Tool::new("a__get_time", "");
    t.mcp = Some(McpOrigin {
        server: Arc::from("a"),
        name: "get_time".into(),
        title: None,
    });
    assert!(matches_pattern("a/*", "a", &t));
    assert!(!matches_pattern("b/*", "a", &t));
    assert!(matches_pattern("a/get_time", "a", &t));
    assert!(matches_pattern("get_time", "a", &t));
    assert!(matches_pattern("a__get_time", "a", &t));
    assert!(!matches_pattern("time", "a", &t));
}

#[test]
fn summaries() {
    let s = ServerStatus {
        name: "git".into(),
        state: ServerState::Failed {
            why: "did not answer within 2 s".into(),
            stderr_tail: "boom\n".into(),
        },
    };
    assert_eq!(
        s.summary(),
        "git: failed: did not answer within 2 s; its stderr ended with: boom"
    );
}
