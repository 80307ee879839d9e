//! Sessions over HTTP: scoped to the API key that made them, and an answer
//! that says when the session a request named was not held (a new one
//! then starts under its id), in the body and in a header.

use crate::common;
use crate::serve::{assert_error, catalog, good, search};

use common::Server;
use serde_json::json;

#[test]
fn keys_scope_sessions_and_guard_the_service() {
    let server = Server::start(
        &["--api-key-env", "KEY_A", "--api-key-env", "KEY_B"],
        &[("KEY_A", "alpha-secret"), ("KEY_B", "beta-secret")],
    );
    let url = server.url.as_str();
    assert_error(&search(url, None, &good()), 401, "unauthorized");
    assert_error(&search(url, Some("wrong"), &good()), 401, "unauthorized");
    let (status, a) = search(url, Some("alpha-secret"), &good());
    assert_eq!(status, 200);
    let id = a["session_id"].as_str().unwrap();
    // Key B with A's session id starts a fresh session: none of A's tools.
    let mut b = json!({"tools": catalog(), "query": "send an invoice", "session_id": id});
    let (_, rb) = search(url, Some("beta-secret"), &b);
    assert_eq!(rb["session_tools"], json!(["page_oncall", "send_invoice"]));
    // ... and the answer says so.
    let note = rb["session_note"]
        .as_str()
        .unwrap_or_else(|| panic!("{rb}"));
    assert!(
        note.starts_with("no session with this session_id was held for this API key"),
        "{note}"
    );
    // A's session still holds its own tools.
    b["query"] = json!("nothing matches zzz");
    let (_, ra) = search(url, Some("alpha-secret"), &b);
    assert_eq!(ra["session_tools"], json!(["page_oncall", "lookup_status"]));
    let log = server.log();
    assert!(
        !log.contains("alpha-secret") && !log.contains("beta-secret"),
        "{log}"
    );
}

#[test]
fn a_session_id_the_service_does_not_hold_is_answered_as_new_in_body_and_header() {
    let server = Server::start(&[], &[]);
    let post = |session: Option<&str>| {
        let mut body = good();
        if let Some(id) = session {
            body["session_id"] = json!(id);
        }
        let r = common::http_client()
            .post(format!("{}/sdk/v1/tool-search", server.url))
            .json(&body)
            .send()
            .unwrap();
        let state = r
            .headers()
            .get("x-toolsift-tool-session")
            .map(|v| v.to_str().unwrap().to_string());
        let v: serde_json::Value = r.json().unwrap();
        (state, v)
    };
    // Minted: nothing to say.
    let (state, minted) = post(None);
    assert_eq!(state, None);
    assert!(minted.get("session_note").is_none(), "{minted}");
    // Continued: nothing to say.
    let id = minted["session_id"].as_str().unwrap();
    let (state, continued) = post(Some(id));
    assert_eq!(state, None);
    assert!(continued.get("session_note").is_none(), "{continued}");
    // Named but not held (expired, or from before a restart): new.
    let (state, fresh) = post(Some("not-held-here"));
    assert_eq!(state.as_deref(), Some("new"));
    assert!(
        fresh["session_note"]
            .as_str()
            .is_some_and(|n| n.contains("a new session starts under it")),
        "{fresh}"
    );
    assert_eq!(fresh["session_id"], "not-held-here");
    let (state, _) = post(Some("not-held-here"));
    assert_eq!(state, None, "held since the search before");
}
