//! The hybrid recipe, measured: `cargo run --release --example hybrid_sweep
//! -- CATALOG QUERIES.jsonl [MODEL_DIR]` ranks every request with BM25F and
//! with the local model once, then scores fusion recipes over the same
//! lists (BENCHMARKS.md records the bfcl-dev run). The catalog's vectors are
//! cached on disk as `toolsift` caches them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use toolsift::catalog::{CatalogSource, Tool, load};
use toolsift::embed::local::LocalModel;
use toolsift::embed::ranker::document_text;
use toolsift::embed::{Embeddings, Role, VectorCache};
use toolsift::engine::dense::{Vectors, fuse, scores_of, top_k};
use toolsift::engine::{CatalogRanker, Explanation, Hit, Index, RankError, Ranker};
use toolsift::eval::{EvalQuery, evaluate, load_queries};

/// Rankings made beforehand, served by query text.
#[derive(Debug)]
struct Fixed {
    n: usize,
    lists: HashMap<String, Vec<Hit>>,
}

impl CatalogRanker for Fixed {
    fn ranker(&self) -> Ranker {
        Ranker::Hybrid
    }
    fn len(&self) -> usize {
        self.n
    }
    fn rank(&self, query: &str, _: Option<&str>, k: usize) -> Result<Vec<Hit>, RankError> {
        let mut l = self.lists.get(query).cloned().unwrap_or_default();
        l.truncate(k);
        Ok(l)
    }
    fn explain(&self, _: &str, _: Option<&str>, docs: &[usize]) -> Vec<Explanation> {
        vec![Explanation::default(); docs.len()]
    }
}

struct Lists {
    bm25: Vec<f32>,
    exact: Vec<usize>,
    cos: Vec<f32>,
    /// Best cosine of any sentence, per tool.
    cos_sentences: Vec<f32>,
    sentences: usize,
    words: usize,
}

fn ranked(scores: &[f32], exact: &[usize], k: usize) -> Vec<Hit> {
    let mut hits: Vec<Hit> = exact
        .iter()
        .map(|&d| Hit {
            doc: d,
            score: f32::MAX,
            exact: true,
        })
        .collect();
    for (doc, score) in top_k(scores, k + exact.len()) {
        if !exact.contains(&doc) && hits.len() < k {
            hits.push(Hit {
                doc,
                score,
                exact: false,
            });
        }
    }
    hits
}

fn rrf(a: &[f32], b: &[f32], wa: f32, k: f32, a_matches_only: bool) -> Vec<f32> {
    let ra = toolsift::engine::dense::ranks(a);
    let rb = toolsift::engine::dense::ranks(b);
    (0..a.len())
        .map(|i| {
            let la = if a_matches_only && a[i] <= 0.0 {
                0.0
            } else {
                wa / (k + ra[i] as f32)
            };
            la + (1.0 - wa) / (k + rb[i] as f32)
        })
        .collect()
}

fn report(
    name: &str,
    catalog: &toolsift::catalog::Catalog,
    queries: &[EvalQuery],
    lists: HashMap<String, Vec<Hit>>,
) {
    let r = evaluate(
        catalog,
        queries,
        10,
        &Fixed {
            n: catalog.len(),
            lists,
        },
        None,
    )
    .expect("eval");
    println!(
        "{name:<44} strict all@1 {:>5.1} all@5 {:>5.1} all@10 {:>5.1} MRR {:.3} | lenient all@1 {:>5.1} all@10 {:>5.1}",
        r.strict.all[0],
        r.strict.all[2],
        r.strict.all[3],
        r.strict.mrr10,
        r.lenient.all[0],
        r.lenient.all[3]
    );
}

fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '\n' {
            out.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push(c);
        if matches!(c, '.' | '?' | '!' | ';') && chars.get(i + 1).is_some_and(|n| n.is_whitespace())
        {
            out.push(std::mem::take(&mut cur));
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The tool's text, then "Parameters: " and each top-level parameter as
/// `describe` writes it (joined by `sep`), if it has any.
fn with_parameters(
    tool: &Tool,
    sep: &str,
    describe: impl Fn(String, &serde_json::Value) -> String,
) -> String {
    let mut t = document_text(tool);
    let parts: Vec<String> = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .into_iter()
        .flatten()
        .map(|(k, v)| describe(toolsift::engine::analyzer::name_words(k).join(" "), v))
        .collect();
    if !parts.is_empty() {
        t.push_str(" Parameters: ");
        t.push_str(&parts.join(sep));
    }
    t
}

fn with_params(tool: &Tool) -> String {
    with_parameters(tool, ", ", |name, _| name)
}

fn with_param_docs(tool: &Tool) -> String {
    with_parameters(tool, "; ", |name, v| {
        match v.get("description").and_then(|d| d.as_str()) {
            Some(d) if !d.trim().is_empty() => format!("{name} ({})", d.trim()),
            _ => name,
        }
    })
}

fn z(scores: &[f32]) -> Vec<f32> {
    toolsift::engine::dense::zscores(scores)
}

/// Standard scores with mean and deviation taken over `mask`ed entries
/// only; the rest get `floor`.
fn z_over(scores: &[f32], mask: &[bool], floor: Option<f32>) -> Vec<f32> {
    let vals: Vec<f64> = scores
        .iter()
        .zip(mask)
        .filter(|(_, m)| **m)
        .map(|(x, _)| f64::from(*x))
        .collect();
    if vals.len() < 2 {
        return vec![0.0; scores.len()];
    }
    let mean = vals.iter().sum::<f64>() / vals.len() as f64;
    let sd = (vals.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / vals.len() as f64).sqrt();
    let sd = sd.max(1e-9);
    let zs: Vec<f32> = scores
        .iter()
        .map(|&x| ((f64::from(x) - mean) / sd) as f32)
        .collect();
    let min = zs
        .iter()
        .zip(mask)
        .filter(|(_, m)| **m)
        .map(|(z, _)| *z)
        .fold(f32::MAX, f32::min);
    zs.iter()
        .zip(mask)
        .map(|(z, m)| if *m { *z } else { floor.unwrap_or(min) })
        .collect()
}

fn top_mask(scores: &[f32], n: usize) -> Vec<bool> {
    let mut m = vec![false; scores.len()];
    for (d, _) in top_k(scores, n) {
        m[d] = true;
    }
    m
}

fn mix(a: &[f32], b: &[f32], w: f32) -> Vec<f32> {
    a.iter()
        .zip(b)
        .map(|(x, y)| w * x + (1.0 - w) * y)
        .collect()
}

/// The fused list's top `k - r`, then the dense list's best not yet in,
/// as `r` more, then the rest of the fused list.
fn reserve(fused: &[f32], dense: &[f32], k: usize, r: usize) -> Vec<f32> {
    let mut out = fused.to_vec();
    let top: Vec<usize> = top_k(fused, k - r).into_iter().map(|(d, _)| d).collect();
    let bonus = 1e6;
    for (i, &d) in top.iter().enumerate() {
        out[d] = bonus * 2.0 - i as f32;
    }
    let mut added = 0;
    for (d, _) in top_k(dense, k) {
        if added == r {
            break;
        }
        if !top.contains(&d) {
            out[d] = bonus - added as f32;
            added += 1;
        }
    }
    out
}

/// A request, its BM25F scores, exact hits, three cosine lists (name words +
/// description; + parameter docs; + parameter names) and its sentences.
type EnsembleRow = (
    String,
    Vec<f32>,
    Vec<usize>,
    Vec<f32>,
    Vec<f32>,
    Vec<f32>,
    usize,
);

/// A dense list from the three cosine lists.
type EnsembleDense<'a> = dyn Fn(&[f32], &[f32], &[f32]) -> Vec<f32> + 'a;

/// A fusion of (BM25F, cosines a, b, c, sentences).
type EnsembleRecipe<'a> = dyn Fn(&[f32], &[f32], &[f32], &[f32], usize) -> Vec<f32> + 'a;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let catalog = load(&CatalogSource::parse(&args[1])).expect("catalog");
    let queries = load_queries(std::path::Path::new(&args[2])).expect("queries");
    let dir = args.get(3).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var("HOME").unwrap_or_default())
            .join(".cache/toolsift-models/all-MiniLM-L6-v2")
    });
    let model = Arc::new(LocalModel::load(&dir).expect("model"));
    let cache = Arc::new(VectorCache::new(100_000, VectorCache::default_dir()));
    let emb = Embeddings::new(model, cache);
    let index = Index::build(catalog.tools());
    let variants: Vec<(&str, Vec<String>)> = vec![
        (
            "name words + description",
            catalog.tools().iter().map(document_text).collect(),
        ),
        (
            "+ parameter names",
            catalog.tools().iter().map(with_params).collect(),
        ),
        (
            "description only",
            catalog
                .tools()
                .iter()
                .map(|t| {
                    let d = t.description.trim();
                    if d.is_empty() {
                        document_text(t)
                    } else {
                        d.to_string()
                    }
                })
                .collect(),
        ),
        (
            "name words + first sentence of the description",
            catalog
                .tools()
                .iter()
                .map(|t| {
                    let words = toolsift::engine::analyzer::name_words(&t.name).join(" ");
                    let first = sentences(&t.description)
                        .into_iter()
                        .next()
                        .unwrap_or_default();
                    format!("{words}: {first}")
                })
                .collect(),
        ),
        (
            "+ parameter names and descriptions",
            catalog.tools().iter().map(with_param_docs).collect(),
        ),
    ];
    if std::env::var_os("SWEEP_ENSEMBLE").is_some() {
        // Two texts per tool, one vector each: the dense score is their
        // cosines' mean (or best).
        let vecs = |texts: &Vec<String>| {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let rows = emb.embed_all(&refs, Role::Document).expect("embed");
            Vectors::new(rows[0].len(), &rows).expect("vectors")
        };
        let a = vecs(&variants[0].1);
        let b = vecs(&variants[4].1);
        let c = vecs(&variants[1].1);
        let mut rows: Vec<EnsembleRow> = Vec::new();
        for q in &queries {
            let hits = index.search(&q.query, None, catalog.len());
            let bm25 = scores_of(&hits, catalog.len());
            let exact: Vec<usize> = hits.iter().filter(|h| h.exact).map(|h| h.doc).collect();
            let qv = emb.embed_query(&q.query).expect("query");
            rows.push((
                q.query.clone(),
                bm25,
                exact,
                a.cosines(&qv),
                b.cosines(&qv),
                c.cosines(&qv),
                sentences(&q.query).len(),
            ));
        }
        let run = |name: &str, f: &EnsembleRecipe<'_>| {
            let lists = rows
                .iter()
                .map(|(q, bm, ex, ca, cb, cc, s)| {
                    (q.clone(), ranked(&f(bm, ca, cb, cc, *s), ex, 10))
                })
                .collect();
            report(name, &catalog, &queries, lists);
        };
        let mean = |x: &[f32], y: &[f32]| {
            x.iter()
                .zip(y)
                .map(|(p, q)| (p + q) / 2.0)
                .collect::<Vec<f32>>()
        };
        let max = |x: &[f32], y: &[f32]| {
            x.iter()
                .zip(y)
                .map(|(p, q)| p.max(*q))
                .collect::<Vec<f32>>()
        };
        run("dense mean(text, +param docs)", &|_, a, b, _, _| mean(a, b));
        run("dense max(text, +param docs)", &|_, a, b, _, _| max(a, b));
        run("dense mean(text, +param names)", &|_, a, _, c, _| {
            mean(a, c)
        });
        // The dense list of each ensemble, then fused with BM25F (alone
        // from four sentences on).
        let dense: [(&str, &EnsembleDense<'_>); 3] = [
            ("mean(text, +param docs)", &|a, b, _| mean(a, b)),
            ("max(text, +param docs)", &|a, b, _| max(a, b)),
            ("mean(text, +param names)", &|a, _, c| mean(a, c)),
        ];
        for w in [0.4f32, 0.5, 0.6] {
            for (name, d) in &dense {
                run(&format!("hybrid {w}, dense {name}"), &|bm, a, b, c, s| {
                    if s >= 4 {
                        bm.to_vec()
                    } else {
                        fuse(bm, &d(a, b, c), w)
                    }
                });
            }
            run(
                &format!("hybrid {w}, three-way z mix (bm25, text, +param docs)"),
                &|bm, a, b, _, s| {
                    if s >= 4 {
                        return bm.to_vec();
                    }
                    let (zb, za, zd) = (z(bm), z(a), z(b));
                    zb.iter()
                        .zip(&za)
                        .zip(&zd)
                        .map(|((x, y), v)| w * x + (1.0 - w) / 2.0 * (y + v))
                        .collect()
                },
            );
        }
        return;
    }
    for (vi, (vname, texts)) in variants.iter().enumerate() {
        if vi > 0 && std::env::var_os("SWEEP_TEXTS").is_none() {
            break;
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let t = std::time::Instant::now();
        let rows = emb.embed_all(&refs, Role::Document).expect("embed");
        eprintln!(
            "{vname}: catalog embedded in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        let vectors = Vectors::new(rows[0].len(), &rows).expect("vectors");
        let mut all = HashMap::new();
        for q in &queries {
            let hits = index.search(&q.query, None, catalog.len());
            let bm25 = scores_of(&hits, catalog.len());
            let exact: Vec<usize> = hits.iter().filter(|h| h.exact).map(|h| h.doc).collect();
            let qv = emb.embed_query(&q.query).expect("query");
            let cos = vectors.cosines(&qv);
            let ss = sentences(&q.query);
            let mut cos_sentences = cos.clone();
            if ss.len() > 1 {
                for s in &ss {
                    let c = vectors.cosines(&emb.embed_query(s).expect("sentence"));
                    for (m, x) in cos_sentences.iter_mut().zip(c) {
                        *m = m.max(x);
                    }
                }
            }
            all.insert(
                q.query.clone(),
                Lists {
                    bm25,
                    exact,
                    cos,
                    cos_sentences,
                    sentences: ss.len(),
                    words: q.query.split_whitespace().count(),
                },
            );
        }
        println!("== document text: {vname}");
        let run = |name: &str, f: &dyn Fn(&Lists) -> Vec<f32>| {
            let lists = all
                .iter()
                .map(|(q, l)| (q.clone(), ranked(&f(l), &l.exact, 10)))
                .collect();
            report(name, &catalog, &queries, lists);
        };
        if std::env::var_os("SWEEP_DIAG").is_some() {
            let rank_of = |scores: &[f32], doc: usize| {
                let r = toolsift::engine::dense::ranks(scores);
                r[doc]
            };
            for q in &queries {
                let l = &all[&q.query];
                let fused = if l.sentences >= 4 {
                    l.bm25.clone()
                } else {
                    fuse(&l.bm25, &l.cos, 0.5)
                };
                let top: Vec<usize> = ranked(&fused, &l.exact, 10).iter().map(|h| h.doc).collect();
                let names: Vec<&str> = q.expected.iter().map(String::as_str).collect();
                let docs: Vec<usize> = names
                    .iter()
                    .filter_map(|n| catalog.tools().iter().position(|t| t.name == *n))
                    .collect();
                if docs.iter().all(|d| top.contains(d)) {
                    continue;
                }
                let info: Vec<String> = docs
                    .iter()
                    .map(|&d| {
                        format!(
                            "{} bm25#{}({:.1}) cos#{}({:.2}) fused#{}",
                            catalog.tools()[d].name,
                            if l.bm25[d] > 0.0 {
                                rank_of(&l.bm25, d)
                            } else {
                                9999
                            },
                            l.bm25[d],
                            rank_of(&l.cos, d),
                            l.cos[d],
                            rank_of(&fused, d)
                        )
                    })
                    .collect();
                let top3: Vec<String> = top[..3.min(top.len())]
                    .iter()
                    .map(|&d| {
                        format!(
                            "{}({:.1}/{:.2})",
                            catalog.tools()[d].name,
                            l.bm25[d],
                            l.cos[d]
                        )
                    })
                    .collect();
                println!(
                    "MISS {} s={} | {} | {} | top: {}",
                    q.id,
                    l.sentences,
                    q.query.chars().take(110).collect::<String>(),
                    info.join("; "),
                    top3.join(", ")
                );
            }
        }
        run("bm25f", &|l| l.bm25.clone());
        run("dense (cosine)", &|l| l.cos.clone());
        run("dense, max over sentences", &|l| l.cos_sentences.clone());
        for w in [0.3, 0.4, 0.5, 0.6, 0.7] {
            run(&format!("z-mix w={w}"), &|l| fuse(&l.bm25, &l.cos, w));
        }
        run("z-mix 0.5, sentences max", &|l| {
            fuse(&l.bm25, &l.cos_sentences, 0.5)
        });
        run("z-mix 0.5, bm25 alone for >= 2 sentences", &|l| {
            if l.sentences >= 2 {
                l.bm25.clone()
            } else {
                fuse(&l.bm25, &l.cos, 0.5)
            }
        });
        run("z-mix 0.5, bm25 alone for >= 4 sentences", &|l| {
            if l.sentences >= 4 {
                l.bm25.clone()
            } else {
                fuse(&l.bm25, &l.cos, 0.5)
            }
        });
        let pick = |l: &Lists| {
            if l.sentences >= 4 {
                l.bm25.clone()
            } else {
                fuse(&l.bm25, &l.cos, 0.5)
            }
        };
        let _ = pick;
        for w in [0.4f32, 0.5, 0.6] {
            run(&format!("z(log1p bm25) w={w}"), &|l| {
                let lg: Vec<f32> = l.bm25.iter().map(|x| x.ln_1p()).collect();
                mix(&z(&lg), &z(&l.cos), w)
            });
            run(&format!("bm25 z over matches (floor=min) w={w}"), &|l| {
                let m: Vec<bool> = l.bm25.iter().map(|x| *x > 0.0).collect();
                mix(&z_over(&l.bm25, &m, None), &z(&l.cos), w)
            });
            for n in [50usize, 100, 200] {
                run(&format!("z over union top-{n} w={w}"), &|l| {
                    let mb = top_mask(&l.bm25, n);
                    let md = top_mask(&l.cos, n);
                    let u: Vec<bool> = mb.iter().zip(&md).map(|(a, b)| *a || *b).collect();
                    let zb = z_over(&l.bm25, &u, None);
                    let zd = z_over(&l.cos, &u, None);
                    let f = mix(&zb, &zd, w);
                    f.iter()
                        .zip(&u)
                        .map(|(x, m)| if *m { *x } else { -1e9 })
                        .collect()
                });
            }
        }
        if std::env::var_os("SWEEP_MORE").is_some() {
            for clip in [2.0f32, 3.0, 4.0, 6.0, 8.0] {
                for w in [0.5f32, 0.6] {
                    run(&format!("z clipped at {clip}, w={w} (4+ bm25)"), &|l| {
                        if l.sentences >= 4 {
                            return l.bm25.clone();
                        }
                        let c =
                            |v: Vec<f32>| v.into_iter().map(|x| x.min(clip)).collect::<Vec<_>>();
                        mix(&c(z(&l.bm25)), &c(z(&l.cos)), w)
                    });
                }
            }
            for (short_w, long_w, cut) in [
                (0.4f32, 0.6f32, 12usize),
                (0.4, 0.6, 20),
                (0.45, 0.55, 15),
                (0.5, 0.7, 20),
                (0.3, 0.6, 15),
            ] {
                run(
                    &format!("w={short_w} up to {cut} words, else {long_w} (4+ bm25)"),
                    &|l| {
                        if l.sentences >= 4 {
                            return l.bm25.clone();
                        }
                        let w = if l.words <= cut { short_w } else { long_w };
                        fuse(&l.bm25, &l.cos, w)
                    },
                );
            }
        }
        for w in [0.5f32, 0.6, 0.7, 0.8] {
            run(
                &format!("chosen, but 4+ sentences: {w} with sentence-max cosine"),
                &|l| {
                    if l.sentences >= 4 {
                        fuse(&l.bm25, &l.cos_sentences, w)
                    } else {
                        fuse(&l.bm25, &l.cos, 0.5)
                    }
                },
            );
        }
        for m in [1usize, 2, 3] {
            run(
                &format!("chosen + each list's top {m} kept in the top 10"),
                &|l| {
                    let fused = pick(l);
                    let mut keep: Vec<usize> = Vec::new();
                    for list in [&l.bm25, &l.cos] {
                        for (d, v) in top_k(list, m) {
                            if v > 0.0 && !keep.contains(&d) {
                                keep.push(d);
                            }
                        }
                    }
                    let top: Vec<usize> = top_k(&fused, 10).into_iter().map(|(d, _)| d).collect();
                    let missing: Vec<usize> =
                        keep.iter().copied().filter(|d| !top.contains(d)).collect();
                    // The missing ones take the last places of the top 10 that
                    // are not kept ones themselves.
                    let mut out = fused.clone();
                    let mut order = top.clone();
                    for &d in &missing {
                        if let Some(at) = order.iter().rposition(|x| !keep.contains(x)) {
                            order.remove(at);
                            order.push(d);
                        }
                    }
                    for (i, &d) in order.iter().enumerate() {
                        out[d] = 1e6 - i as f32;
                    }
                    out
                },
            );
        }
        for r in [1usize, 2] {
            run(&format!("z-mix 0.5 (4+ bm25), dense reserve {r}"), &|l| {
                reserve(&pick(l), &l.cos, 10, r)
            });
        }
        run("rrf k=60 equal", &|l| {
            rrf(&l.bm25, &l.cos, 0.5, 60.0, false)
        });
        run("rrf k=60, bm25 matches only", &|l| {
            rrf(&l.bm25, &l.cos, 0.5, 60.0, true)
        });
        run("rrf k=10, w=0.6", &|l| {
            rrf(&l.bm25, &l.cos, 0.6, 10.0, true)
        });
    }
}
