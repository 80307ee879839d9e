//! A remote service as a [`CatalogRanker`], for eval.

use super::*;

/// A remote service as a ranker: each `rank` is one search for `k` tools
/// (always-load tools, which a service puts first, count among them). Each
/// call's latency is kept for the eval report.
#[derive(Debug)]
pub(super) struct RemoteRanker {
    pub(super) client: Arc<Client>,
    pub(super) catalog: Arc<Catalog>,
    pub(super) ranker: crate::engine::Ranker,
    pub(super) latencies: std::sync::Mutex<Vec<std::time::Duration>>,
}

impl CatalogRanker for RemoteRanker {
    fn ranker(&self) -> crate::engine::Ranker {
        self.ranker
    }

    fn len(&self) -> usize {
        self.catalog.len()
    }

    fn rank(&self, query: &str, context: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError> {
        if k == 0 {
            return Ok(Vec::new());
        }
        let request = SearchRequest {
            query: query.to_string(),
            context: context.map(str::to_string),
            max_tools: crate::tools_handle::MaxTools::new(k as u64),
            ranker: Some(self.ranker),
            preview: true,
            ..SearchRequest::default()
        };
        let (response, elapsed) = self.client.timed_search(&self.catalog, &request);
        if let Ok(mut l) = self.latencies.lock() {
            l.push(elapsed);
        }
        let result = response
            .map_err(SearchError::from)
            .and_then(|r| accept(&self.catalog, r))
            .map_err(|e| RankError(e.to_string()))?;
        Ok(result
            .tools
            .iter()
            .map(|h| Hit {
                doc: h.index,
                score: h.score.unwrap_or(0.0),
                exact: h.reason == Some(Reason::ExactName),
            })
            .collect())
    }

    fn explain(&self, _query: &str, _context: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        vec![Explanation::default(); docs.len()]
    }

    fn explains(&self) -> bool {
        false
    }

    fn latencies(&self) -> Vec<std::time::Duration> {
        self.latencies.lock().map(|l| l.clone()).unwrap_or_default()
    }
}
