use std::time::Instant;
use toolsift::catalog::{CatalogSource, load};
use toolsift::engine::Index;
use toolsift::eval::load_queries;
fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let catalog = load(&CatalogSource::Path(dir.join("catalog.json"))).unwrap();
    let queries = load_queries(&dir.join("queries-dev.jsonl")).unwrap();
    let mut params = toolsift::engine::Params::default();
    if std::env::var_os("NOSENT").is_some() {
        params.min_sentences = 100000;
    }
    if std::env::var_os("NOEXACT").is_some() {
        params.exact_names = false;
    }
    let index = Index::build_with(catalog.tools(), params);
    let (mut terms, mut posts, mut multi) = (0, 0, 0);
    let mut big = Vec::new();
    for q in &queries {
        let (t, p, s) = index.postings_walked(&q.query);
        terms += t;
        posts += p;
        if s > 0 {
            multi += 1;
        }
        big.push(p);
    }
    big.sort();
    println!(
        "avg terms {:.1}, avg postings {:.0}, p50 {}, p90 {}, max {}, multi-sentence {}",
        terms as f64 / queries.len() as f64,
        posts as f64 / queries.len() as f64,
        big[big.len() / 2],
        big[big.len() * 9 / 10],
        big[big.len() - 1],
        multi
    );
    for _ in 0..3 {
        let t = Instant::now();
        let mut n = 0;
        for _ in 0..20 {
            for q in &queries {
                n += index.analyze_only(&q.query);
            }
        }
        let a = t.elapsed().as_secs_f64() / (20.0 * queries.len() as f64) * 1e6;
        let t = Instant::now();
        for _ in 0..20 {
            for q in &queries {
                n += index.search(&q.query, None, 10).len();
            }
        }
        let s = t.elapsed().as_secs_f64() / (20.0 * queries.len() as f64) * 1e6;
        println!("analyze {a:.2} µs  search {s:.2} µs  ({n})");
    }
    if std::env::args().nth(1).is_some() {
        for _ in 0..200 {
            for q in &queries {
                std::hint::black_box(index.search(&q.query, None, 10));
            }
        }
    }
}
#[allow(dead_code)]
fn stats() {}
