//! The gateway's spans, through the OpenTelemetry API alone: a host's
//! request (its parent the host's W3C `traceparent`, from its `_meta` or
//! the HTTP header), the search and the call under it, and what a server
//! asks the host during the call. Each rides with its future as the
//! current context ([`Traced::run`]); what the recorder notes lands on the
//! current span ([`note`]); a call to a server carries the current span in
//! its `_meta` ([`inject`]). While telemetry is off every function here
//! does nothing and costs a flag's read: no span, no `_meta` touched.
//!
//! Names are untrusted (servers choose their own and their tools'): every
//! one is escaped and cut before it becomes an attribute. Nothing of a
//! call's arguments or result, nor a search's query text, is ever put on a
//! span.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::context::FutureExt;
use opentelemetry::propagation::{Extractor, Injector};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue, global};
use serde_json::{Map, Value};

/// Set once the exporters are installed: spans are made from then on.
static ON: AtomicBool = AtomicBool::new(false);

/// The longest name put on a span, in characters.
const NAME_MAX: usize = 256;

/// The W3C trace context keys, in `_meta` and as HTTP headers.
const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

#[cfg(feature = "otel")]
pub(super) fn turn_on() {
    ON.store(true, Ordering::Release);
}

/// Whether spans are made (an OTLP endpoint named, the exporter started).
pub fn on() -> bool {
    ON.load(Ordering::Acquire)
}

/// An untrusted name as an attribute: escaped, at most [`NAME_MAX`]
/// characters.
fn name(text: &str) -> String {
    crate::terminal_text::escape(text)
        .chars()
        .take(NAME_MAX)
        .collect()
}

/// Where a host's request says its trace is: its `_meta` (first), else the
/// HTTP request's headers.
#[derive(Default, Clone, Copy)]
pub struct Parent<'a> {
    pub meta: Option<&'a Map<String, Value>>,
    pub traceparent: Option<&'a str>,
    pub tracestate: Option<&'a str>,
}

/// `_meta`'s string values, as the propagator reads them.
struct MetaReader<'a>(&'a Map<String, Value>);

impl Extractor for MetaReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// Two HTTP headers, as the propagator reads them.
struct HeaderReader<'a>([(&'static str, Option<&'a str>); 2]);

impl Extractor for HeaderReader<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| *k == key).and_then(|(_, v)| *v)
    }
    fn keys(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(_, v)| v.is_some())
            .map(|(k, _)| *k)
            .collect()
    }
}

/// The context a host's request continues: the host's span as a remote
/// parent, or none (a new trace).
fn parent_context(parent: Parent<'_>) -> Context {
    let from_meta = parent
        .meta
        .filter(|m| m.get(TRACEPARENT).is_some_and(Value::is_string));
    global::get_text_map_propagator(|p| match from_meta {
        Some(meta) => p.extract(&MetaReader(meta)),
        None => p.extract(&HeaderReader([
            (TRACEPARENT, parent.traceparent),
            (TRACESTATE, parent.tracestate),
        ])),
    })
}

/// A span in progress and its context; ended by [`Traced::run`] or when
/// dropped.
pub struct Traced(Option<Context>);

impl Traced {
    /// Runs `work` with this span as the current context, then ends it.
    pub async fn run<F: Future>(self, work: F) -> F::Output {
        let Some(cx) = &self.0 else {
            return work.await;
        };
        work.with_context(cx.clone()).await
    }
}

impl Drop for Traced {
    fn drop(&mut self) {
        if let Some(cx) = &self.0 {
            cx.span().end();
        }
    }
}

/// What the gateway's host asked: its MCP method, the meta-tool or tool
/// named, the session's label and the key it proved, by name (`[gateway.keys]`), else by digest.
pub struct Request<'a> {
    pub method: &'a str,
    pub target: Option<&'a str>,
    pub session: &'a str,
    pub key: Option<&'a str>,
}

/// The span of a host's request (kind server), child of the host's span
/// when it sent one.
pub fn request(asked: &Request<'_>, parent: Parent<'_>) -> Traced {
    if !on() {
        return Traced(None);
    }
    let parent_cx = parent_context(parent);
    let title = match asked.target {
        Some(t) => format!("{} {}", asked.method, name(t)),
        None => asked.method.to_string(),
    };
    let mut attributes = vec![
        KeyValue::new("mcp.method.name", asked.method.to_string()),
        KeyValue::new("mcp.session.id", name(asked.session)),
    ];
    if let Some(target) = asked.target {
        attributes.push(KeyValue::new("gen_ai.tool.name", name(target)));
    }
    if let Some(key) = asked.key {
        attributes.push(KeyValue::new("toolsift.key", name(key)));
    }
    let tracer = global::tracer("toolsift");
    let span = tracer
        .span_builder(title)
        .with_kind(SpanKind::Server)
        .with_attributes(attributes)
        .start_with_context(&tracer, &parent_cx);
    Traced(Some(parent_cx.with_span(span)))
}

/// A span under the current one: `toolsift.search`, `toolsift.call`, a
/// relayed request.
pub fn child(title: &'static str, kind: SpanKind) -> Traced {
    if !on() {
        return Traced(None);
    }
    let tracer = global::tracer("toolsift");
    let parent = Context::current();
    let span = tracer
        .span_builder(title)
        .with_kind(kind)
        .start_with_context(&tracer, &parent);
    Traced(Some(parent.with_span(span)))
}

/// The span of a `search_tools` (its attributes noted when it is recorded).
pub fn search() -> Traced {
    child("toolsift.search", SpanKind::Internal)
}

/// The span of a call to a tool (server, tool and outcome noted when it is
/// recorded).
pub fn call() -> Traced {
    child("toolsift.call", SpanKind::Client)
}

/// A search's attributes on the current span: the ranker, the query's
/// length in characters (never its text), the tools returned and those
/// the gate held back.
pub fn note_search(ranker: &str, query_chars: usize, returned: usize, held_back: usize) {
    if !on() {
        return;
    }
    let cx = Context::current();
    let span = cx.span();
    span.set_attribute(KeyValue::new("toolsift.ranker", name(ranker)));
    span.set_attribute(KeyValue::new("toolsift.query.length", query_chars as i64));
    span.set_attribute(KeyValue::new("toolsift.search.returned", returned as i64));
    span.set_attribute(KeyValue::new("toolsift.search.held_back", held_back as i64));
}

/// A call's attributes on the current span: its server (none: answered
/// from a catalog file), tool and outcome (`ok`, `tool_error`, `blocked`,
/// `refused`, `upstream_error`, or `input_required`: the server asks a
/// 2026-07-28 host first); anything but `ok` and `input_required` is the
/// span's error.
pub fn note_call(server: Option<&str>, tool: &str, outcome: &'static str) {
    if !on() {
        return;
    }
    let cx = Context::current();
    let span = cx.span();
    if let Some(server) = server {
        span.set_attribute(KeyValue::new("toolsift.server", name(server)));
    }
    span.set_attribute(KeyValue::new("gen_ai.tool.name", name(tool)));
    span.set_attribute(KeyValue::new("toolsift.outcome", outcome));
    if outcome != "ok" && outcome != "input_required" {
        span.set_status(Status::error(outcome));
    }
}

/// The current span's context, kept to make a span under it later from
/// another task (what a server asks during a call arrives on its
/// connection's task, not the call's).
#[derive(Clone, Default)]
pub struct Carried(Option<Context>);

/// The current context, to carry (nothing while telemetry is off).
pub fn carry() -> Carried {
    Carried(on().then(Context::current))
}

impl Carried {
    /// Runs `work` (what the server asked of the host, by its MCP
    /// `method`) in a span under the carried one, named for `server`;
    /// an `Err` is the span's error.
    pub async fn relayed<T, E, F>(
        &self,
        method: &'static str,
        server: &str,
        work: F,
    ) -> Result<T, E>
    where
        F: Future<Output = Result<T, E>>,
    {
        let Some(parent) = &self.0 else {
            return work.await;
        };
        let tracer = global::tracer("toolsift");
        let span = tracer
            .span_builder(method)
            .with_kind(SpanKind::Client)
            .with_attributes([
                KeyValue::new("mcp.method.name", method),
                KeyValue::new("toolsift.server", name(server)),
            ])
            .start_with_context(&tracer, parent);
        let cx = parent.with_span(span);
        let answer = work.with_context(cx.clone()).await;
        if answer.is_err() {
            cx.span()
                .set_status(Status::error("the host did not answer"));
        }
        cx.span().end();
        answer
    }

    /// Runs `work` with the carried context as the current one (a task
    /// spawned for a call keeps its span).
    pub async fn within<F: Future>(self, work: F) -> F::Output {
        match self.0 {
            Some(cx) => work.with_context(cx).await,
            None => work.await,
        }
    }
}

/// `_meta`, as the propagator writes it.
struct MetaWriter<'a>(&'a mut Map<String, Value>);

impl Injector for MetaWriter<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), Value::String(value));
    }
}

/// The current span as `traceparent` (and `tracestate`) in a request's
/// `_meta`, for the server it goes to; nothing while telemetry is off or
/// outside a span.
pub fn inject(meta: &mut Map<String, Value>) {
    if !on() {
        return;
    }
    let cx = Context::current();
    if !cx.span().span_context().is_valid() {
        return;
    }
    global::get_text_map_propagator(|p| p.inject_context(&cx, &mut MetaWriter(meta)));
}
