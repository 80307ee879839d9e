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
use crate::wire::WireMatching;

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

/// The ranker a preview asked for and its catalog's vectors built so far
/// (done, total), while BM25F answers in its place.
type Waiting = (Ranker, (u64, u64));

/// What a search's answer says beside its tools (its note, what the cap
/// left out), from what the steps before found.
struct Said<'a> {
    catalog: &'a Catalog,
    params: &'a SearchRequest,
    plan: &'a Plan,
    /// The loaded set, after the gate.
    tools: &'a [Selected],
    /// What a `select:` could not load; `None` for a ranked search.
    selection: Option<&'a Selection>,
    verdict: &'a Verdict,
    waiting: Option<Waiting>,
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
        let waiting = self.preview_without_vectors(catalog, params, &mut plan);
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
        let verdict = judge(&gate, &plan, &mut tools, selection.is_some());
        let said = Said {
            catalog,
            params,
            plan: &plan,
            tools: &tools,
            selection: selection.as_ref(),
            verdict: &verdict,
            waiting,
        };
        let note = said.note(&gate);
        let matching = said.matching(ranker.as_ref());
        let basis = params.token_basis.unwrap_or(self.config.token_basis);
        let costs = self.costs_for(catalog, basis);
        // A request's figures: its tools' and, under a provider's basis,
        // what any request with tools adds.
        let sent = basis.set_cost(tools.iter().map(|t| costs[t.index]));
        let (session_id, session_tools, session_note) =
            self.session_of(catalog, params, scope, &tools, now, record)?;
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

    /// A preview (the explorer as you type) does not wait for a catalog's
    /// vectors: while they are built in the background BM25F answers
    /// (`plan.ranker` is switched to it), and the ranker asked for with the
    /// build's progress (done, total) is returned for the note.
    fn preview_without_vectors(
        &self,
        catalog: &Catalog,
        params: &SearchRequest,
        plan: &mut Plan,
    ) -> Option<Waiting> {
        if !params.preview || !plan.ranker.needs_embeddings() {
            return None;
        }
        let progress = self.build_in_background(catalog, plan.ranker)?;
        let wanted = std::mem::replace(&mut plan.ranker, Ranker::Bm25);
        Some((wanted, progress))
    }

    /// Step six, the session: recorded (continued or created) when
    /// `record`, with the note when the id asked for was not found; else
    /// left to the caller, the id given or minted (a preview's as given)
    /// with only this search's tools (none for a preview).
    fn session_of(
        &self,
        catalog: &Catalog,
        params: &SearchRequest,
        scope: &str,
        tools: &[Selected],
        now: Instant,
        record: bool,
    ) -> Result<(String, Vec<String>, Option<String>), ServiceError> {
        if record {
            let (id, recorded) = self.record_session(catalog, params, scope, tools, now)?;
            let note = (recorded.new && params.session_id.is_some())
                .then(|| sessions::SESSION_NOT_FOUND.to_string());
            return Ok((id, recorded.loaded, note));
        }
        if params.preview {
            return Ok((
                params.session_id.clone().unwrap_or_default(),
                Vec::new(),
                None,
            ));
        }
        let id = match &params.session_id {
            Some(id) => id.clone(),
            None => sessions::mint_session_id()?,
        };
        let names = tools
            .iter()
            .map(|t| catalog.tools()[t.index].name.clone())
            .collect();
        Ok((id, names, None))
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

/// Step four, the relevance gate on the loaded set; named tools and a
/// pattern's matches are what was asked for, so they pass unjudged.
fn judge(gate: &Gate, plan: &Plan, tools: &mut Vec<Selected>, named: bool) -> Verdict {
    if named || plan.ranker.is_regex() {
        return Verdict::default();
    }
    refine::gate(gate, tools, plan.always.len(), plan.gate, plan.gate_mode)
}

impl Said<'_> {
    /// The answer's note, the first that applies: vectors still being
    /// built, what a selection could not load, why the gate held tools
    /// back, why nothing (or only the always-load tools) came back.
    fn note(&self, gate: &Gate) -> Option<String> {
        if let Some((wanted, (done, total))) = self.waiting {
            return Some(format!(
                "{wanted}: embedding the catalog ({done} of {total} tools); BM25F results until the vectors are ready"
            ));
        }
        if let Some(selection) = self.selection {
            return select_note(selection, self.plan);
        }
        if !self.verdict.held_back.is_empty() {
            return Some(refine::no_fit_note(
                self.catalog,
                gate,
                self.verdict,
                self.plan.always.len(),
            ));
        }
        note_for(self.params, self.plan, self.tools)
    }

    /// What the cap left out: counted for a ranked search that sent tools
    /// (a selection names its tools; "nothing fits" says so; a preview
    /// waiting for vectors ranked with another ranker).
    fn matching(&self, ranker: &dyn CatalogRanker) -> Option<WireMatching> {
        let whole = self.params.whole_request();
        if self.selection.is_some()
            || !self.verdict.held_back.is_empty()
            || whole.trim().is_empty()
            || self.waiting.is_some()
        {
            return None;
        }
        ranker.matching(&whole, context_of(self.params)).map(|m| {
            let sent: Vec<usize> = self.tools.iter().map(|t| t.index).collect();
            super::matching::count(self.catalog, &m, &sent)
        })
    }
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
    let asked = Asked {
        ranker,
        catalog,
        params,
        plan,
        query: whole.as_ref(),
        context: context_of(params),
        room,
    };
    let request = if plan.ranker.is_regex() {
        // A pattern is a pattern: no `select:` nor `+term` in it.
        syntax::Request::Search {
            required: Vec::new(),
        }
    } else {
        syntax::parse(&params.query)
    };
    let required = match request {
        syntax::Request::Select(names) => return Ok(asked.select(&names)),
        syntax::Request::Search { required } => required,
    };
    let (hits, whole) = asked.ranked(&required)?;
    let always_scores = asked.always_scores(&hits)?;
    let hits = hits
        .into_iter()
        .filter(|h| !catalog.tools()[h.doc].always_load)
        .take(room)
        .collect();
    Ok(Ranked {
        hits,
        always_scores,
        selection: None,
        whole,
    })
}

/// What step two ranks with and for: the ranker, the request's words and
/// the room the cap leaves beyond the always-load tools.
struct Asked<'a> {
    ranker: &'a dyn CatalogRanker,
    catalog: &'a Catalog,
    params: &'a SearchRequest,
    plan: &'a Plan,
    /// The query and the intents given apart, as one request.
    query: &'a str,
    context: Option<&'a str>,
    /// Places left beyond the always-load tools.
    room: usize,
}

impl Asked<'_> {
    /// A `select:` request: the named tools that are not always-load, as
    /// many as there is room for; the rest named as over the cap, and the
    /// names no tool has as unknown.
    fn select(&self, names: &[String]) -> Ranked {
        let tools = self.catalog.tools();
        let (hits, unknown) = refine::select(self.catalog, names);
        let mut hits: Vec<Hit> = hits
            .into_iter()
            .filter(|h| !tools[h.doc].always_load)
            .collect();
        let over_cap = hits
            .split_off(self.room.min(hits.len()))
            .iter()
            .map(|h| tools[h.doc].name.clone())
            .collect();
        Ranked {
            hits,
            always_scores: vec![0.0; self.plan.always.len()],
            selection: Some(Selection { unknown, over_cap }),
            whole: None,
        }
    }

    /// The ranking's best tools (always-load ones among them, cut later),
    /// with the words `+term` requires; and the whole catalog's ranking
    /// when the request keeps it.
    fn ranked(&self, required: &[String]) -> Result<(Vec<Hit>, Option<Vec<Hit>>), RankError> {
        let (ranker, params, query, context) = (self.ranker, self.params, self.query, self.context);
        let (room, always) = (self.room, self.plan.always.len());
        if params.keep_ranking && required.is_empty() && !query.trim().is_empty() {
            // One ranking answers: rank every tool once (a request of
            // several intents, their rankings merged), and cut the answer
            // from it (the first k of a deeper ranking are the k it gives),
            // so where a tool stood is told from the ranking that chose the
            // answer.
            let all = intents::rank(ranker, query, &params.queries, context, self.catalog.len())?;
            let k = room.saturating_add(always).min(all.len());
            let hits = if room == 0 {
                Vec::new()
            } else {
                all[..k].to_vec()
            };
            return Ok((hits, Some(all)));
        }
        let hits = if room == 0 {
            Vec::new()
        } else if required.is_empty() {
            let k = room.saturating_add(always);
            intents::rank(ranker, query, &params.queries, context, k)?
        } else {
            // Every tool that matches, then those with the required words.
            let all = ranker.rank(query, context, self.catalog.len())?;
            refine::require(ranker, query, context, all, required)
        };
        Ok((hits, None))
    }

    /// The always-load tools' scores on the same scale as `hits`: from
    /// the hits where they ranked, else scored apart by the same ranking
    /// (0 for an empty query, or a tool it cannot score).
    fn always_scores(&self, hits: &[Hit]) -> Result<Vec<f32>, RankError> {
        let always = &self.plan.always;
        let mut scores: Vec<Option<f32>> = always
            .iter()
            .map(|d| hits.iter().find(|h| h.doc == *d).map(|h| h.score))
            .collect();
        if scores.iter().any(Option::is_none) && !self.query.trim().is_empty() {
            // Some always-load tools ranked below the cut: score them with
            // the same ranking so their scores compare with the others'.
            let missing: Vec<usize> = always
                .iter()
                .zip(&scores)
                .filter(|(_, s)| s.is_none())
                .map(|(d, _)| *d)
                .collect();
            let mut found = self
                .ranker
                .score(self.query, self.context, &missing)?
                .into_iter();
            for slot in scores.iter_mut().filter(|s| s.is_none()) {
                *slot = found.next();
            }
        }
        Ok(scores.into_iter().map(|s| s.unwrap_or(0.0)).collect())
    }
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
