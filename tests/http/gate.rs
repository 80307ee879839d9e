//! The relevance gate over HTTP: off by default (Caveman clients expect up
//! to max_tools tools), a request option, and `serve --gate on`.

use serde_json::{Value, json};

use crate::common::Server;
use crate::common::answer_names;
use crate::serve::{catalog, search};

fn body(gate: Option<bool>) -> Value {
    let mut b = json!({"tools": catalog(), "query": "a taxi for the customer"});
    if let Some(g) = gate {
        b["gate"] = json!(g);
    }
    b
}

#[test]
fn the_gate_is_off_by_default_and_a_request_turns_it_on() {
    let server = Server::start(&[], &[]);
    let (status, v) = search(&server.url, None, &body(None));
    assert_eq!(status, 200, "{v}");
    assert_eq!(answer_names(&v), ["page_oncall", "send_invoice"]);
    assert!(v.get("held_back").is_none(), "{v}");
    let (status, v) = search(&server.url, None, &body(Some(true)));
    assert_eq!(status, 200, "{v}");
    assert_eq!(answer_names(&v), ["page_oncall"]);
    assert_eq!(v["held_back"][0]["name"], "send_invoice");
    assert_eq!(v["held_back"][0]["evidence"], 1.0);
    assert!(
        v["note"]
            .as_str()
            .unwrap()
            .starts_with("no tool fits this request"),
        "{v}"
    );
    let (status, v) = search(
        &server.url,
        None,
        &json!({"tools": catalog(), "query": "x", "gate": 1}),
    );
    assert_eq!(status, 400);
    assert_eq!(
        v["error"]["message"],
        "gate must be a boolean, \"any\" or \"each\""
    );
}

#[test]
fn serve_gate_on_sets_the_default_and_a_request_may_turn_it_off() {
    let server = Server::start(&["--gate", "on"], &[]);
    let (_, v) = search(&server.url, None, &body(None));
    assert_eq!(answer_names(&v), ["page_oncall"]);
    let (_, v) = search(&server.url, None, &body(Some(false)));
    assert_eq!(answer_names(&v), ["page_oncall", "send_invoice"]);
}
