//! A search in six named steps: plan (the request checked and its limits
//! set), rank, assemble the loaded set, the relevance gate on it, count
//! tokens, record the session.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::plan::Plan;
use super::refine::{self, Verdict};
use super::{
    Reason, SearchOutcome, SearchRequest, Selected, Service, ServiceError, lock, pattern, sessions,
};
use crate::catalog::Catalog;
use crate::engine::{CatalogRanker, Gate, Hit, RankError, Ranker, intents, syntax};

/// The ranked part of a search (step two).
struct Ranked {
    /// The best matching tools beyond the always-load ones, best first.
    hits: Vec<Hit>,
    /// Scores of the always-load tools, on the same scale as `hits`.
    always_scores: Vec<f32>,
    /// What a `select:` request named but could not load; `None` for a
    /// ranked search.
    selection: Option<Selection>,
    /// The whole catalog's ranking `hits` were cut from, when kept.
    whole: Option<Vec<Hit>>,
}

/// What a `select:` request named but could not load.
#[derive(Debug, Default)]
struct Selection {
    /// Names no tool has.
    unknown: Vec<String>,
    /// Named tools beyond the cap.
    over_cap: Vec<String>,
}

impl Service {
    /// One search, for the API key `scope` (empty for none).
    pub fn tool_search(
        &self,
        catalog: &Catalog,
        params: &SearchRequest,
        scope: &str,
    ) -> Result<SearchOutcome, ServiceError> {
        self.tool_search_at(catalog, params, scope, Instant::now())
    }

    /// One search whose session the caller keeps (the gateway keeps its
    /// own): nothing is recorded in this service's sessions.
    pub fn tool_search_unrecorded(
        &self,
        catalog: &Catalog,
        params: &SearchRequest,
    ) -> Result<SearchOutcome, ServiceError> {
        self.search_inner(catalog, params, "", Instant::now(), false)
    }

    /// [`Service::tool_search`] at a given time (for session expiry tests):
    /// validate, rank, assemble the loaded set, count tokens, record the
    /// session.
    pub fn tool_search_at(
        &self,
        catalog: &Catalog,
        params: &SearchRequest,
        scope: &str,
        now: Instant,
    ) -> Result<SearchOutcome, ServiceError> {
        self.search_inner(catalog, params, scope, now, !params.unrecorded)
    }

    /// The six steps; with `record` false (`params.unrecorded`, or a
    /// session store outside the service) the session is left to the
    /// caller (the id is minted if absent, and `session_tools` holds only
    /// this search's tools).
    pub(super) fn search_inner(
        &self,
        catalog: &Catalog,
        params: &SearchRequest,
        scope: &str,
        now: Instant,
        record: bool,
    ) -> Result<SearchOutcome, ServiceError> {
        let mut plan = self.plan(catalog, params)?;
        let mut waiting = None;
        if params.preview
            && plan.ranker.needs_embeddings()
            && let Some(progress) = self.build_in_background(catalog, plan.ranker)
        {
            // A preview (the explorer as you type) does not wait for a
            // catalog's vectors: BM25F answers, and the note says so.
            waiting = Some((plan.ranker, progress));
            plan.ranker = Ranker::Bm25;
        }
        if plan.ranker.needs_embeddings() {
            self.learn_dimension(&params.whole_request());
        }
        let ranker = self.ranker_learned(catalog, plan.ranker, params.usage_key.as_deref())?;
        self.searches.fetch_add(1, Ordering::Relaxed);
        let mut ranked =
            rank(ranker.as_ref(), catalog, params, &plan).map_err(|e| ServiceError {
                status: 502,
                code: "ranker_failed",
                message: format!("ranker {} failed: {e}", plan.ranker),
            })?;
        let selection = ranked.selection.take();
        let ranking = ranked.whole.take().map(Arc::new);
        let mut tools = assemble(ranker.as_ref(), params, &plan, ranked, selection.is_some());
        // The gate judges the loaded set's own explanations.
        let gate = Gate::for_ranker(plan.ranker, self.gate_cosine());
        let verdict = if selection.is_some() || plan.ranker.is_regex() {
            // Named tools and a pattern's matches are what was asked for.
            Verdict::default()
        } else {
            refine::gate(
                &gate,
                &mut tools,
                plan.always.len(),
                plan.gate,
                plan.gate_mode,
            )
        };
        let note = match waiting {
            Some((wanted, (done, total))) => Some(format!(
                "{wanted}: embedding the catalog ({done} of {total} tools); BM25F results until the vectors are ready"
            )),
            None if selection.is_some() => selection.as_ref().and_then(|s| select_note(s, &plan)),
            None if !verdict.held_back.is_empty() => Some(refine::no_fit_note(
                catalog,
                &gate,
                &verdict,
                plan.always.len(),
            )),
            None => note_for(params, &plan, &tools),
        };
        // What the cap left out: counted for a ranked search that sent
        // tools (a selection names its tools; "nothing fits" says so).
        let whole = params.whole_request();
        let matching = if selection.is_none()
            && verdict.held_back.is_empty()
            && !whole.trim().is_empty()
            && waiting.is_none()
        {
            ranker.matching(&whole, context_of(params)).map(|m| {
                let sent: Vec<usize> = tools.iter().map(|t| t.index).collect();
                super::matching::count(catalog, &m, &sent)
            })
        } else {
            None
        };
        let basis = params.token_basis.unwrap_or(self.config.token_basis);
        let costs = self.costs_for(catalog, basis);
        // A request's figures: its tools' and, under a provider's basis,
        // what any request with tools adds.
        let sent = basis.set_cost(tools.iter().map(|t| costs[t.index]));
        let mut session_note = None;
        let (session_id, session_tools) = if record {
            let (id, recorded) = self.record_session(catalog, params, scope, &tools, now)?;
            if recorded.new && params.session_id.is_some() {
                session_note = Some(sessions::SESSION_NOT_FOUND.to_string());
            }
            (id, recorded.loaded)
        } else if params.preview {
            (params.session_id.clone().unwrap_or_default(), Vec::new())
        } else {
            let id = match &params.session_id {
                Some(id) => id.clone(),
                None => sessions::mint_session_id()?,
            };
            let names = tools
                .iter()
                .map(|t| catalog.tools()[t.index].name.clone())
                .collect();
            (id, names)
        };
        Ok(SearchOutcome {
            deferred_count: (catalog.len() - tools.len()) as u64,
            tools,
            full_schema_tokens: basis.set_cost(costs.iter().copied()),
            sent_schema_tokens: sent,
            method: plan.ranker,
            token_basis: basis,
            session_id,
            session_tools,
            session_note,
            note,
            tool_tokens: costs,
            embedding: waiting.map(|(_, progress)| progress),
            fit: verdict.best,
            held_back: verdict.held_back,
            matching,
            ranking,
        })
    }

    /// The cosine the gate asks of a dense ranker's best tool.
    pub fn gate_cosine(&self) -> f32 {
        self.config
            .embeddings
            .as_ref()
            .map_or(Gate::MIN_COSINE, |e| e.gate_cosine())
    }

    /// Step five: continues (or creates) the session, unless this is a
    /// preview, which records nothing.
    fn record_session(
        &self,
        catalog: &Catalog,
        params: &SearchRequest,
        scope: &str,
        tools: &[Selected],
        now: Instant,
    ) -> Result<(String, sessions::Recorded), ServiceError> {
        if params.preview {
            let id = params.session_id.clone().unwrap_or_default();
            return Ok((id, sessions::Recorded::default()));
        }
        let id = match &params.session_id {
            Some(id) => id.clone(),
            None => sessions::mint_session_id()?,
        };
        let names: Vec<&str> = tools
            .iter()
            .map(|t| catalog.tools()[t.index].name.as_str())
            .collect();
        let loaded = lock(&self.sessions).record(catalog, &id, scope, &names, now);
        Ok((id, loaded))
    }
}

fn context_of(params: &SearchRequest) -> Option<&str> {
    params.context.as_deref().filter(|c| !c.trim().is_empty())
}

/// Step two: the best tools beyond the always-load ones (those a
/// `select:` names, or the ranking's, with the words `+term` requires), and
/// the always-load tools' scores from the same ranking.
fn rank(
    ranker: &dyn CatalogRanker,
    catalog: &Catalog,
    params: &SearchRequest,
    plan: &Plan,
) -> Result<Ranked, RankError> {
    let room = plan.cap - plan.always.len();
    // The query and the intents given apart, ranked as one request.
    let whole = params.whole_request();
    let (query, context) = (whole.as_ref(), context_of(params));
    let request = if plan.ranker.is_regex() {
        // A pattern is a pattern: no `select:` nor `+term` in it.
        syntax::Request::Search {
            required: Vec::new(),
        }
    } else {
        syntax::parse(&params.query)
    };
    let required = match request {
        syntax::Request::Select(names) => {
            let (hits, unknown) = refine::select(catalog, &names);
            let mut hits: Vec<Hit> = hits
                .into_iter()
                .filter(|h| !catalog.tools()[h.doc].always_load)
                .collect();
            let over_cap = hits
                .split_off(room.min(hits.len()))
                .iter()
                .map(|h| catalog.tools()[h.doc].name.clone())
                .collect();
            return Ok(Ranked {
                hits,
                always_scores: vec![0.0; plan.always.len()],
                selection: Some(Selection { unknown, over_cap }),
                whole: None,
            });
        }
        syntax::Request::Search { required } => required,
    };
    let mut whole = None;
    let hits = if params.keep_ranking && required.is_empty() && !query.trim().is_empty() {
        // One ranking answers: rank every tool once (a request of several
        // intents, their rankings merged), and cut the answer from it (the
        // first k of a deeper ranking are the k it gives), so where a tool
        // stood is told from the ranking that chose the answer.
        let all = intents::rank(ranker, query, &params.queries, context, catalog.len())?;
        let k = room.saturating_add(plan.always.len()).min(all.len());
        let hits = if room == 0 {
            Vec::new()
        } else {
            all[..k].to_vec()
        };
        whole = Some(all);
        hits
    } else if room == 0 {
        Vec::new()
    } else if required.is_empty() {
        let k = room.saturating_add(plan.always.len());
        intents::rank(ranker, query, &params.queries, context, k)?
    } else {
        // Every tool that matches, then those with the required words.
        let all = ranker.rank(query, context, catalog.len())?;
        refine::require(ranker, query, context, all, &required)
    };
    let mut always_scores: Vec<Option<f32>> = plan
        .always
        .iter()
        .map(|d| hits.iter().find(|h| h.doc == *d).map(|h| h.score))
        .collect();
    if always_scores.iter().any(Option::is_none) && !query.trim().is_empty() {
        // Some always-load tools ranked below the cut: score them with the
        // same ranking so their scores compare with the others'.
        let missing: Vec<usize> = plan
            .always
            .iter()
            .zip(&always_scores)
            .filter(|(_, s)| s.is_none())
            .map(|(d, _)| *d)
            .collect();
        let mut scores = ranker.score(query, context, &missing)?.into_iter();
        for slot in always_scores.iter_mut().filter(|s| s.is_none()) {
            *slot = scores.next();
        }
    }
    let hits = hits
        .into_iter()
        .filter(|h| !catalog.tools()[h.doc].always_load)
        .take(room)
        .collect();
    Ok(Ranked {
        hits,
        always_scores: always_scores
            .into_iter()
            .map(|s| s.unwrap_or(0.0))
            .collect(),
        selection: None,
        whole,
    })
}

/// Step three: the loaded set, always-load tools first, with explanations
/// (none for the tools a `select:` named).
fn assemble(
    ranker: &dyn CatalogRanker,
    params: &SearchRequest,
    plan: &Plan,
    ranked: Ranked,
    named: bool,
) -> Vec<Selected> {
    let docs: Vec<usize> = plan
        .always
        .iter()
        .copied()
        .chain(ranked.hits.iter().map(|h| h.doc))
        .collect();
    let explanations = if named {
        // Named, not matched: a selection's words explain nothing.
        docs.iter()
            .map(|d| crate::engine::Explanation {
                exact_name: !plan.always.contains(d),
                ..Default::default()
            })
            .collect()
    } else {
        ranker.explain(&params.whole_request(), context_of(params), &docs)
    };
    let always = plan
        .always
        .iter()
        .zip(&ranked.always_scores)
        .map(|(&doc, &score)| (doc, score, Reason::AlwaysLoad));
    let others = ranked.hits.iter().map(|h| {
        let reason = if h.exact {
            Reason::ExactName
        } else {
            Reason::Ranked
        };
        (h.doc, h.score, reason)
    });
    always
        .chain(others)
        .zip(explanations)
        .map(|((index, score, reason), explanation)| Selected {
            index,
            score,
            reason,
            explanation,
        })
        .collect()
}

/// What a `select:` request could not load: names no tool has, and named
/// tools beyond the cap.
fn select_note(selection: &Selection, plan: &Plan) -> Option<String> {
    let Selection { unknown, over_cap } = selection;
    let quoted = |names: &[String]| {
        names
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !unknown.is_empty() {
        parts.push(format!("select: no tool is named {}", quoted(unknown)));
    }
    if !over_cap.is_empty() {
        parts.push(format!(
            "max_tools {} leaves no room for {}",
            plan.cap,
            quoted(over_cap)
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Why nothing (or only the always-load tools) came back.
fn note_for(params: &SearchRequest, plan: &Plan, tools: &[Selected]) -> Option<String> {
    let always = plan.always.len();
    if tools.len() > always {
        None
    } else if plan.cap == always {
        Some(format!(
            "max_tools {} leaves no room beyond the {always} always-load tools",
            plan.cap
        ))
    } else if params.whole_request().trim().is_empty() && context_of(params).is_none() {
        Some(if always == 0 {
            "empty query: nothing to rank, so no tool is loaded".to_string()
        } else {
            "empty query: only the always-load tools are loaded".to_string()
        })
    } else if tools.iter().any(|t| !t.explanation.matches.is_empty()) {
        // The request's words matched always-load tools only: saying that
        // nothing matched would contradict the matches they show.
        Some(
            "no tool beyond the always-load ones matches the query; only the always-load tools are loaded"
                .to_string(),
        )
    } else {
        let why = if plan.ranker.is_regex() {
            pattern::NO_MATCH
        } else {
            "none of its words (after stop words) appears in any tool's name, description or schema"
        };
        Some(format!(
            "no tool matches the query: {why}{}",
            if always == 0 {
                ""
            } else {
                "; only the always-load tools are loaded"
            }
        ))
    }
}
