//! A message posted to the MCP endpoint (or a line on stdin), read whole
//! and checked before rmcp reads it, so that what rmcp would refuse in plain text (or take
//! for something else) is answered in JSON-RPC, as the streamable HTTP
//! transport asks: a body that is not JSON (-32700), a batch or a message
//! of no JSON-RPC shape (-32600), a `tools/call` without a tool's name
//! (-32602, not rmcp's -32601), an `initialize` on a session already live
//! (-32600), a body over the limit (413, read to its end first so the
//! client sees the answer, not a broken pipe).

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::http::body::{BodyFault, read_limited};
use crate::numbers::thousands;

/// The most one message may weigh (rmcp's default, which it is given too).
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// How long a message's body may take to arrive.
const BODY_WAIT: Duration = Duration::from_secs(30);

/// JSON-RPC's codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// Reads a POST's body and checks its message; the request to pass on
/// (its body put back) or the answer to give. `live` says the request
/// names a session of its key's that is open. Bodies that do not claim to
/// be JSON pass unread: rmcp answers their content type.
pub(crate) async fn checked(request: Request, live: bool) -> Result<Request, Response> {
    let claims_json = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    if !claims_json {
        return Ok(request);
    }
    let (parts, body) = request.into_parts();
    let deadline = Instant::now() + BODY_WAIT;
    let bytes = read_limited(
        MAX_MESSAGE_BYTES,
        deadline,
        &parts.headers,
        body,
        Vec::with_capacity,
    )
    .await
    .map_err(refused)?;
    if let Err((status, body)) = judge(&bytes, live) {
        return Err(answer(status, body));
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// The answer to a body that was not read whole; the connection closes.
fn refused(fault: BodyFault) -> Response {
    let (status, message) = match fault {
        BodyFault::TooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the message is over this gateway's limit of {} bytes",
                thousands(MAX_MESSAGE_BYTES as u64)
            ),
        ),
        BodyFault::TimedOut => (
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the message did not arrive within {} s",
                BODY_WAIT.as_secs()
            ),
        ),
        BodyFault::Broken(e) => (StatusCode::BAD_REQUEST, format!("reading the message: {e}")),
    };
    let mut response = answer(status, error(Value::Null, INVALID_REQUEST, message));
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

fn answer(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// What is wrong with a message (posted, or a line on stdin), if
/// anything: the HTTP status and the JSON-RPC error to answer. `Ok(true)`
/// for an `initialize`.
pub(crate) fn judge(bytes: &[u8], live: bool) -> Result<bool, Refusal> {
    let message: Value = serde_json::from_slice(bytes).map_err(|e| {
        bad(
            Value::Null,
            PARSE_ERROR,
            format!("Parse error: the message is not JSON ({e})"),
        )
    })?;
    let object = one_object(&message)?;
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    check_envelope(object, &id)?;
    let Some(method) = method_of(object, &id)? else {
        return Ok(false);
    };
    match method {
        "initialize" if live => Err(bad(
            id,
            INVALID_REQUEST,
            "Invalid Request: this session is already initialized; an initialize opens a new session (over HTTP, a POST without the mcp-session-id header)".into(),
        )),
        "initialize" => Ok(true),
        "tools/call" => match call_params_fault(object.get("params")) {
            Some(why) => Err((
                StatusCode::OK,
                error(id, INVALID_PARAMS, format!("Invalid params: {why}")),
            )),
            None => Ok(false),
        },
        _ => Ok(false),
    }
}

/// A message refused before rmcp reads it: the HTTP status and the
/// JSON-RPC error answered.
pub(crate) type Refusal = (StatusCode, Value);

/// A refusal of a message that is not a JSON-RPC request (400).
fn bad(id: Value, code: i64, message: String) -> Refusal {
    (StatusCode::BAD_REQUEST, error(id, code, message))
}

/// The message as one JSON-RPC object: a batch, or a value of another
/// kind, is refused.
fn one_object(message: &Value) -> Result<&serde_json::Map<String, Value>, Refusal> {
    match message {
        Value::Object(o) => Ok(o),
        Value::Array(batch) => Err(bad(
            Value::Null,
            INVALID_REQUEST,
            format!(
                "Invalid Request: a batch (a JSON array of {}) is not accepted: MCP posts one message per request since 2025-06-18; post each message on its own",
                crate::numbers::counted(batch.len(), "message")
            ),
        )),
        other => Err(bad(
            Value::Null,
            INVALID_REQUEST,
            format!(
                "Invalid Request: a JSON-RPC message is an object, not {}",
                kind(other)
            ),
        )),
    }
}

/// The message's `"jsonrpc": "2.0"` and its id's kind (a string, a
/// number, or none).
fn check_envelope(object: &serde_json::Map<String, Value>, id: &Value) -> Result<(), Refusal> {
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(bad(
            id.clone(),
            INVALID_REQUEST,
            "Invalid Request: a JSON-RPC message carries \"jsonrpc\": \"2.0\"".into(),
        ));
    }
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return Err(bad(
            Value::Null,
            INVALID_REQUEST,
            format!(
                "Invalid Request: a message's id is a string or a number, not {}",
                kind(id)
            ),
        ));
    }
    Ok(())
}

/// The message's method, or `None` for a response to a request of the
/// gateway's (an elicitation); a message with neither is refused.
fn method_of<'a>(
    object: &'a serde_json::Map<String, Value>,
    id: &Value,
) -> Result<Option<&'a str>, Refusal> {
    match object.get("method") {
        Some(Value::String(m)) => Ok(Some(m.as_str())),
        Some(other) => Err(bad(
            id.clone(),
            INVALID_REQUEST,
            format!(
                "Invalid Request: a message's method is a string, not {}",
                kind(other)
            ),
        )),
        None if object.contains_key("result") || object.contains_key("error") => Ok(None),
        None => Err(bad(
            id.clone(),
            INVALID_REQUEST,
            "Invalid Request: the message has no method, result or error".into(),
        )),
    }
}

/// What is wrong with a `tools/call`'s params, if anything.
fn call_params_fault(params: Option<&Value>) -> Option<String> {
    let Some(Value::Object(params)) = params else {
        return Some("tools/call needs params with name, the tool to call (a string)".into());
    };
    match params.get("name") {
        Some(Value::String(name)) if !name.is_empty() => {}
        Some(Value::String(_)) => return Some("tools/call's params.name is empty".into()),
        None => {
            return Some(
                "tools/call needs params.name, the tool to call (a string); it is missing".into(),
            );
        }
        Some(other) => {
            return Some(format!(
                "tools/call's params.name is the tool to call, a string, not {}",
                kind(other)
            ));
        }
    }
    match params.get("arguments") {
        None | Some(Value::Object(_)) | Some(Value::Null) => None,
        Some(other) => Some(format!(
            "tools/call's params.arguments is an object of the tool's arguments, not {}",
            kind(other)
        )),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(bytes: &str, live: bool) -> Option<(u16, i64, Value)> {
        judge(bytes.as_bytes(), live).err().map(|(status, body)| {
            (
                status.as_u16(),
                body["error"]["code"].as_i64().unwrap(),
                body["id"].clone(),
            )
        })
    }

    #[test]
    fn what_rmcp_would_refuse_in_plain_text_is_a_json_rpc_error() {
        assert_eq!(code("{not json", false), Some((400, -32700, Value::Null)));
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#;
        assert_eq!(code(batch, true), Some((400, -32600, Value::Null)));
        assert_eq!(code("42", true), Some((400, -32600, Value::Null)));
        assert_eq!(
            code(r#"{"id":3,"method":"ping"}"#, true),
            Some((400, -32600, json!(3)))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":3}"#, true),
            Some((400, -32600, json!(3)))
        );
        let bad_id = r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#;
        assert_eq!(code(bad_id, true), Some((400, -32600, Value::Null)));
    }

    #[test]
    fn a_call_without_a_tools_name_is_invalid_params_under_its_id() {
        for params in [
            "",
            r#","params":{}"#,
            r#","params":{"arguments":{}}"#,
            r#","params":{"name":5}"#,
            r#","params":{"name":""}"#,
            r#","params":{"name":"echo","arguments":[1]}"#,
        ] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":"c1","method":"tools/call"{params}}}"#);
            assert_eq!(
                code(&body, true),
                Some((200, -32602, json!("c1"))),
                "{body}"
            );
        }
        let fine = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#;
        assert_eq!(code(fine, true), None);
    }

    #[test]
    fn an_initialize_is_refused_only_on_a_live_session() {
        let init = r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}"#;
        assert_eq!(code(init, true), Some((400, -32600, json!(7))));
        assert_eq!(code(init, false), None);
    }

    #[test]
    fn responses_and_notifications_pass() {
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, true), None);
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                true
            ),
            None
        );
    }
}
