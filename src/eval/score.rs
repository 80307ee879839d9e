//! Scoring an eval's rankings: the metrics of `eval/bfcl-dev/score.py`
//! (all@k, any@k, MRR@10), strict and lenient, overall and per category,
//! and the requests whose expected tool is not in the top k.

use std::collections::BTreeMap;

use super::{CategoryMetrics, EvalQuery, KS, Metrics, Miss, NothingFits};

/// The counts behind one set of [`Metrics`].
#[derive(Debug, Default)]
pub(super) struct Tally {
    n: usize,
    all: [usize; 4],
    any: [usize; 4],
    rr: f64,
}

impl Tally {
    /// `positions`: for each expected tool, its 1-based rank if found.
    pub(super) fn add(&mut self, positions: &[Option<usize>]) {
        self.n += 1;
        for (i, &k) in KS.iter().enumerate() {
            if positions.iter().all(|p| p.is_some_and(|p| p <= k)) {
                self.all[i] += 1;
            }
            if positions.iter().any(|p| p.is_some_and(|p| p <= k)) {
                self.any[i] += 1;
            }
        }
        if let Some(best) = positions.iter().flatten().filter(|&&p| p <= 10).min() {
            self.rr += 1.0 / *best as f64;
        }
    }

    pub(super) fn metrics(&self) -> Metrics {
        let n = self.n.max(1) as f64;
        Metrics {
            all: self.all.map(|c| 100.0 * c as f64 / n),
            any: self.any.map(|c| 100.0 * c as f64 / n),
            mrr10: self.rr / n,
        }
    }
}

/// First 1-based rank at which any name of `group` appears.
fn rank_of(ranked: &[&str], group: &[String]) -> Option<usize> {
    ranked
        .iter()
        .position(|n| group.iter().any(|g| g == n))
        .map(|p| p + 1)
}

/// An eval's scores, added one request at a time.
#[derive(Debug, Default)]
pub(super) struct Scoring {
    pub(super) strict: Tally,
    pub(super) lenient: Tally,
    /// Strict and lenient, by category.
    per_category: BTreeMap<String, (Tally, Tally)>,
    pub(super) misses: Vec<Miss>,
    /// The requests that expect no tool, when there are any.
    pub(super) nothing: Option<NothingFits>,
}

impl Scoring {
    /// Scores one request's ranking (tool names, best first); `k` is the
    /// cut-off for the list of misses. A request that expects no tool is
    /// counted apart.
    pub(super) fn add(&mut self, q: &EvalQuery, names: &[&str], k: usize) {
        let top = || names.iter().take(k).map(|s| s.to_string()).collect();
        if q.expected.is_empty() {
            let n = self.nothing.get_or_insert(NothingFits {
                requests: 0,
                answered_nothing: 0,
                loaded: Vec::new(),
            });
            n.requests += 1;
            if names.is_empty() {
                n.answered_nothing += 1;
            } else {
                n.loaded.push(Miss {
                    id: q.id.clone(),
                    query: q.query.clone(),
                    expected: Vec::new(),
                    missing: Vec::new(),
                    top: top(),
                });
            }
            return;
        }
        let strict_pos: Vec<Option<usize>> = q
            .expected
            .iter()
            .map(|e| rank_of(names, std::slice::from_ref(e)))
            .collect();
        let lenient_pos: Vec<Option<usize>> =
            q.equivalents.iter().map(|g| rank_of(names, g)).collect();
        self.strict.add(&strict_pos);
        self.lenient.add(&lenient_pos);
        let cat = self.per_category.entry(q.category.clone()).or_default();
        cat.0.add(&strict_pos);
        cat.1.add(&lenient_pos);
        let missing: Vec<String> = q
            .expected
            .iter()
            .zip(&strict_pos)
            .filter(|(_, p)| !p.is_some_and(|p| p <= k))
            .map(|(e, _)| e.clone())
            .collect();
        if !missing.is_empty() {
            self.misses.push(Miss {
                id: q.id.clone(),
                query: q.query.clone(),
                expected: q.expected.clone(),
                missing,
                top: top(),
            });
        }
    }

    /// How many requests that expect no tool were scored.
    pub(super) fn expecting_nothing(&self) -> usize {
        self.nothing.as_ref().map_or(0, |n| n.requests)
    }

    /// The metrics of each category, by name.
    pub(super) fn per_category(&self) -> BTreeMap<String, CategoryMetrics> {
        self.per_category
            .iter()
            .map(|(c, (s, l))| {
                (
                    c.clone(),
                    CategoryMetrics {
                        queries: s.n,
                        strict: s.metrics(),
                        lenient: l.metrics(),
                    },
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_match_score_py_definitions() {
        let mut t = Tally::default();
        t.add(&[Some(1)]); // hit everywhere
        t.add(&[Some(4), None]); // two tools, one missing
        t.add(&[Some(2), Some(3)]);
        let m = t.metrics();
        assert_eq!(m.all, [100.0 / 3.0, 200.0 / 3.0, 200.0 / 3.0, 200.0 / 3.0]);
        assert_eq!(m.any, [100.0 / 3.0, 200.0 / 3.0, 100.0, 100.0]);
        assert!((m.mrr10 - (1.0 + 0.25 + 0.5) / 3.0).abs() < 1e-12);
    }

    #[test]
    fn scoring_counts_misses_and_requests_expecting_nothing_apart() {
        let q = |id: &str, expected: &[&str], category: &str| EvalQuery {
            id: id.into(),
            category: category.into(),
            query: format!("request {id}"),
            expected: expected.iter().map(|s| s.to_string()).collect(),
            equivalents: expected.iter().map(|s| vec![s.to_string()]).collect(),
        };
        let mut s = Scoring::default();
        s.add(&q("a", &["x"], "c1"), &["x", "y"], 1);
        s.add(&q("b", &["y"], "c2"), &["x", "y"], 1);
        s.add(&q("n1", &[], ""), &[], 1);
        s.add(&q("n2", &[], ""), &["x", "y"], 1);
        assert_eq!(s.strict.metrics().all[0], 50.0);
        assert_eq!(s.misses.len(), 1);
        assert_eq!(
            (s.misses[0].id.as_str(), &s.misses[0].top[..]),
            ("b", &["x".to_string()][..])
        );
        assert_eq!(s.expecting_nothing(), 2);
        let n = s.nothing.as_ref().unwrap();
        assert_eq!((n.answered_nothing, n.loaded[0].id.as_str()), (1, "n2"));
        let cats = s.per_category();
        assert_eq!((cats["c1"].queries, cats["c1"].strict.all[0]), (1, 100.0));
        assert_eq!(cats["c2"].strict.all[0], 0.0);
    }
}
