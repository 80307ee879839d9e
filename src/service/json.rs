//! The service from a wire request body to a wire response (the HTTP
//! server's call), and the conversions between the wire and typed values.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;

use super::answer::Answer;
use super::parsed::Parsed;
use super::recognise::{ReadBody, Recognised};
use super::{GateMode, SearchRequest, Service, ServiceError, lock};
use crate::catalog::{self, Catalog, SourceKind};
use crate::engine::Ranker;
use crate::engine::intents::MAX_INTENTS;
use crate::tokens::TokenBasis;
use crate::tools_handle::MaxTools;
use crate::wire::{ToolSearchBody, ToolSearchRequest, ToolSearchResponse, WireTool};

impl Service {
    /// A wire request body in, a wire response out. `api_key` scopes the
    /// sessions.
    pub fn tool_search_json(
        &self,
        body: &[u8],
        api_key: Option<&str>,
    ) -> Result<ToolSearchResponse, ServiceError> {
        let (params, catalog) = self.read_request(body)?;
        Ok(self.answer(catalog, &params, api_key)?.into_wire())
    }

    /// Where a search's session goes: this service's own sessions, or
    /// (`record` false) a [`PendingSession`] for the caller's store.
    fn answer_with(
        &self,
        catalog: Arc<Catalog>,
        params: &SearchRequest,
        api_key: Option<&str>,
        record: bool,
    ) -> Result<(Answer, Option<PendingSession>), ServiceError> {
        if record {
            Ok((self.answer(catalog, params, api_key)?, None))
        } else {
            self.answer_deferred(catalog, params, api_key)
        }
    }

    fn answer(
        &self,
        catalog: Arc<Catalog>,
        params: &SearchRequest,
        api_key: Option<&str>,
    ) -> Result<Answer, ServiceError> {
        let outcome = self.tool_search(&catalog, params, api_key.unwrap_or(""))?;
        Ok(Answer::new(catalog, outcome))
    }

    /// [`Service::tool_search_json`] without touching this service's own
    /// sessions: the session (if any) is for the caller's session store to
    /// record, as the returned [`PendingSession`] says.
    pub fn tool_search_json_deferred(
        &self,
        body: &[u8],
        api_key: Option<&str>,
    ) -> Result<(ToolSearchResponse, Option<PendingSession>), ServiceError> {
        let (params, catalog) = self.read_request(body)?;
        let (answer, pending) = self.answer_deferred(catalog, &params, api_key)?;
        Ok((answer.into_wire(), pending))
    }

    fn answer_deferred(
        &self,
        catalog: Arc<Catalog>,
        params: &SearchRequest,
        api_key: Option<&str>,
    ) -> Result<(Answer, Option<PendingSession>), ServiceError> {
        let outcome = self.search_inner(
            &catalog,
            params,
            api_key.unwrap_or(""),
            std::time::Instant::now(),
            false,
        )?;
        let pending = (!params.preview).then(|| PendingSession {
            id: outcome.session_id.clone(),
            scope: api_key.unwrap_or("").to_string(),
            loaded: outcome.session_tools.clone(),
            catalog: catalog.clone(),
            named: params.session_id.is_some(),
        });
        Ok((Answer::new(catalog, outcome), pending))
    }

    /// A read body whose search needs nothing but this process's CPU for
    /// a moment: its catalog was recognised (nothing to parse, index or
    /// count), the rest of it is small and reads without error, and its
    /// ranker is BM25F, built, as are its token counts. The server answers
    /// such a body on its own thread ([`Service::tool_search_ready`]); any
    /// other goes to a blocking thread ([`Service::tool_search_read`]) as
    /// it is.
    pub fn ready(&self, body: ReadBody) -> Result<Ready, ReadBody> {
        const SMALL: usize = 16 << 10;
        let ReadBody::Recognised(r) = body else {
            return Err(body);
        };
        let params = (r.rest.len() <= SMALL)
            .then(|| rest_params(&r))
            .flatten()
            .and_then(Result::ok);
        let Some(params) = params else {
            return Err(ReadBody::Recognised(r));
        };
        let ranker = params.ranker.unwrap_or(self.config.default_ranker);
        let basis = params.token_basis.unwrap_or(self.config.token_basis);
        // BM25F only: a dense ranker may call an embedding provider, and
        // a pattern may take long over a large catalog.
        if ranker != Ranker::Bm25 || !self.is_built(r.catalog(), ranker, basis) {
            return Err(ReadBody::Recognised(r));
        }
        let catalog = self.recognised(&r.parsed);
        Ok(Ready { params, catalog })
    }

    /// The search of a [`Ready`] body; with `record` false the session is
    /// left to the caller (see [`Service::tool_search_json_deferred`]).
    pub fn tool_search_ready(
        &self,
        ready: Ready,
        api_key: Option<&str>,
        record: bool,
    ) -> Result<(Answer, Option<PendingSession>), ServiceError> {
        self.answer_with(ready.catalog, &ready.params, api_key, record)
    }

    /// The search of a body read by a [`BodyReader`] (its catalog perhaps
    /// recognised as it arrived); `record` as for
    /// [`Service::tool_search_ready`].
    ///
    /// [`BodyReader`]: super::recognise::BodyReader
    pub fn tool_search_read(
        &self,
        body: ReadBody,
        api_key: Option<&str>,
        record: bool,
    ) -> Result<(Answer, Option<PendingSession>), ServiceError> {
        let (params, catalog) = self.read_body(body)?;
        self.answer_with(catalog, &params, api_key, record)
    }

    /// A read body's parameters and catalog.
    fn read_body(&self, body: ReadBody) -> Result<(SearchRequest, Arc<Catalog>), ServiceError> {
        match body {
            ReadBody::Whole(bytes) => self.read_request(&bytes),
            ReadBody::Recognised(r) => match rest_params(&r) {
                Some(params) => Ok((params?, self.recognised(&r.parsed))),
                // For the error's position, the whole body as it came.
                None => self.read_request(&r.into_whole()),
            },
        }
    }

    /// Counts a recognised catalog and marks it used (the least recently
    /// used is evicted first); the catalog.
    fn recognised(&self, parsed: &Parsed) -> Arc<Catalog> {
        self.catalogs_recognised.fetch_add(1, Ordering::Relaxed);
        self.catalogs_recognised_arriving
            .fetch_add(1, Ordering::Relaxed);
        let ptr = parsed.catalog_ptr();
        lock(&self.parsed).find(|p| p.catalog_ptr() == ptr);
        parsed.catalog().clone()
    }

    /// A request body's parameters and catalog. A catalog already parsed
    /// is recognised from the body's bytes ([`Service::seen_catalog`]);
    /// any other body is parsed whole.
    fn read_request(&self, body: &[u8]) -> Result<(SearchRequest, Arc<Catalog>), ServiceError> {
        if let Some((rest, catalog)) = self.seen_catalog(body) {
            // The rest of the body, read as the whole one would be; should
            // it fail, the whole body is read, for the error's position.
            if let Ok(request) = serde_json::from_slice::<ToolSearchRequest<'_>>(&rest) {
                self.catalogs_recognised.fetch_add(1, Ordering::Relaxed);
                return Ok((params_from_wire(&request)?, catalog));
            }
        }
        let request: ToolSearchRequest<'_> = serde_json::from_slice(body).map_err(|e| {
            ServiceError::bad_request("invalid_request", format!("request body: {e}"))
        })?;
        let params = params_from_wire(&request)?;
        let catalog = self.request_catalog(request.tools.get())?;
        Ok((params, catalog))
    }

    /// A catalog already parsed whose exact text is the body's `tools`
    /// value, and the body without it (`tools` set to `[]`). The body is
    /// not read past the members before `tools`: its bytes there are
    /// compared with each catalog's text. Equal bytes are the same
    /// catalog, whoever sends them, so no hash decides (a crafted
    /// collision gains nothing), and a key never sees what another key's
    /// catalog holds: only the same bytes it sent itself.
    fn seen_catalog(&self, body: &[u8]) -> Option<(Vec<u8>, Arc<Catalog>)> {
        let start = crate::wire::tools_value_start(body)?;
        let value = &body[start..];
        let (len, catalog) = lock(&self.parsed)
            .find(|p| value.starts_with(p.text()))
            .map(|p| (p.text().len(), p.catalog().clone()))?;
        Some((crate::wire::without_tools(body, start, len), catalog))
    }

    /// The catalog of a request, parsed once per exact text. The hash
    /// finds a catalog; its text must be the same bytes to be used (a
    /// colliding text is parsed as the new catalog it is).
    fn request_catalog(&self, raw: &str) -> Result<Arc<Catalog>, ServiceError> {
        let key = xxhash_rust::xxh3::xxh3_128(raw.as_bytes());
        if let Some(p) = lock(&self.parsed).get(&key)
            && p.text() == raw.as_bytes()
        {
            return Ok(p.catalog().clone());
        }
        self.catalog_parses.fetch_add(1, Ordering::Relaxed);
        let c = catalog::parse(raw, "request", "request", SourceKind::Json)
            .map_err(|e| ServiceError::bad_request("invalid_catalog", e.to_string()))?;
        let c = Arc::new(c);
        let weight = crate::heap_size::catalog(&c);
        let parsed = Parsed::new(raw, c.clone());
        lock(&self.parsed).get_or_insert(key, weight + raw.len(), || parsed);
        lock(&self.by_fingerprint).get_or_insert(c.fingerprint(), weight, || c.clone());
        Ok(c)
    }
}

/// The parameters of a recognised body's rest: `None` when it does not
/// read as a request (the whole body is then read, for the error).
fn rest_params(r: &Recognised) -> Option<Result<SearchRequest, ServiceError>> {
    let request = serde_json::from_slice::<ToolSearchRequest<'_>>(&r.rest).ok()?;
    Some(params_from_wire(&request))
}

/// A body read and checked, whose search can run at once
/// ([`Service::ready`]).
pub struct Ready {
    params: SearchRequest,
    catalog: Arc<Catalog>,
}

impl Ready {
    pub fn query(&self) -> &str {
        &self.params.query
    }
}

/// A search's session, for a session store to record.
#[derive(Debug, Clone)]
pub struct PendingSession {
    pub id: String,
    /// The API key (empty for none); stores keep a hash of it.
    pub scope: String,
    /// This search's loaded tools, in order.
    pub loaded: Vec<String>,
    pub catalog: Arc<Catalog>,
    /// The request named the session (else the service minted its id).
    pub named: bool,
}

fn optional_string(value: &Option<Value>, field: &str) -> Result<Option<String>, ServiceError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ServiceError::bad_request(
            "invalid_request",
            format!("{field} must be a string"),
        )),
    }
}

impl SearchRequest {
    /// The wire body of this request over `catalog` (the full catalog): what a
    /// remote searcher sends; [`params_from_wire`] reads it back.
    pub fn body<'a>(&'a self, catalog: &Catalog) -> ToolSearchBody<'a> {
        ToolSearchBody {
            tools: catalog.tools().iter().map(WireTool::from).collect(),
            query: &self.query,
            context: self.context.as_deref(),
            max_tools: self.max_tools,
            session_id: self.session_id.as_deref(),
            ranker: self.ranker,
            token_basis: ToolSearchBody::basis(self.token_basis),
            preview: self.preview,
            gate: match (self.gate, self.gate_mode) {
                (None, _) => None,
                (Some(true), GateMode::Each) => Some(Value::from(GateMode::Each.as_str())),
                (Some(on), _) => Some(Value::Bool(on)),
            },
            omit_always_load: self.omit_always_load,
            queries: &self.queries,
        }
    }
}

/// A request's parameters, typed, with the service's messages for bad ones.
pub fn params_from_wire(request: &ToolSearchRequest<'_>) -> Result<SearchRequest, ServiceError> {
    let Value::String(query) = &request.query else {
        return Err(ServiceError::bad_request(
            "invalid_request",
            "query must be a string",
        ));
    };
    let max_tools = match &request.max_tools {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            MaxTools::from_json(v)
                .map_err(|e| ServiceError::bad_request(e.code(), e.to_string()))?,
        ),
    };
    let token_basis = match optional_string(&request.token_basis, "token_basis")? {
        None => None,
        Some(b) => Some(
            b.parse::<TokenBasis>()
                .map_err(|e| ServiceError::bad_request("invalid_request", e.to_string()))?,
        ),
    };
    let ranker = match optional_string(&request.ranker, "ranker")? {
        None => None,
        Some(name) => Some(
            name.parse::<Ranker>()
                .map_err(|e| ServiceError::bad_request("unknown_ranker", e.to_string()))?,
        ),
    };
    let preview = match &request.preview {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ServiceError::bad_request(
                "invalid_request",
                "preview must be a boolean",
            ));
        }
    };
    let (gate, gate_mode) = match &request.gate {
        None | Some(Value::Null) => (None, GateMode::Any),
        Some(Value::Bool(b)) => (Some(*b), GateMode::Any),
        Some(Value::String(s)) if s == "any" => (Some(true), GateMode::Any),
        Some(Value::String(s)) if s == "each" => (Some(true), GateMode::Each),
        Some(_) => {
            return Err(ServiceError::bad_request(
                "invalid_request",
                "gate must be a boolean, \"any\" or \"each\"",
            ));
        }
    };
    let omit_always_load = match &request.omit_always_load {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ServiceError::bad_request(
                "invalid_request",
                "omit_always_load must be a boolean",
            ));
        }
    };
    let queries = queries_from_wire(request.queries.as_ref())?;
    Ok(SearchRequest {
        query: query.clone(),
        queries,
        context: optional_string(&request.context, "context")?,
        max_tools,
        session_id: optional_string(&request.session_id, "session_id")?,
        ranker,
        token_basis,
        preview,
        gate,
        gate_mode,
        omit_always_load,
        unrecorded: false,
        keep_ranking: false,
        usage_key: None,
    })
}

/// `queries`: an array of at most [`MAX_INTENTS`] strings, or nothing.
fn queries_from_wire(value: Option<&Value>) -> Result<Vec<String>, ServiceError> {
    queries_of(value).map_err(|m| ServiceError::bad_request("invalid_queries", m.to_string()))
}

/// A request's `queries` (the wire's, `search_tools`'): at most
/// [`MAX_INTENTS`] non-empty strings, or nothing; the message names the
/// bad item and what it is.
pub fn queries_of(value: Option<&Value>) -> Result<Vec<String>, BadQueries> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => return Err(BadQueries::NotAnArray(json_kind(other))),
    };
    if items.len() > MAX_INTENTS {
        return Err(BadQueries::TooMany(items.len()));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
            Value::String(_) => Err(BadQueries::Empty(i)),
            other => Err(BadQueries::NotAString(i, json_kind(other))),
        })
        .collect()
}

/// A request's `queries` refused: the item and what it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadQueries {
    #[error("`queries` must be an array of strings, not {0}")]
    NotAnArray(&'static str),
    #[error("`queries` holds {0} items; at most {MAX_INTENTS}")]
    TooMany(usize),
    #[error("`queries[{0}]` is empty")]
    Empty(usize),
    #[error("`queries[{0}]` must be a string, not {1}")]
    NotAString(usize, &'static str),
}

/// What a JSON value is, for messages: "a string", "an array", ...
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
