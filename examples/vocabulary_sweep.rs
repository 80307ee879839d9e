//! Query expansion's weights, the server field and the hold-back of
//! destructive tools on the short MCP requests (and their multi-step
//! ones), the held-out short requests, bfcl-dev and the GitHub MCP set:
//! `cargo run --release --example vocabulary_sweep`. Prints, per variant:
//! short requests first/top 3, multi-step all@5, held-out first/top 3,
//! bfcl-dev strict all@10, GitHub MCP all@1.

use toolsift::catalog::{Catalog, CatalogSource, load};
use toolsift::engine::{Field, Gate, Index, Params, Ranker};
use toolsift::eval::{EvalQuery, evaluate, load_queries};

fn set(catalog: &str, queries: &str) -> Option<(Catalog, Vec<EvalQuery>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = match catalog.strip_prefix('@') {
        Some(_) => CatalogSource::parse(catalog),
        None => CatalogSource::Path(root.join(catalog)),
    };
    let catalog = load(&source).ok()?;
    let queries = load_queries(&root.join(queries)).ok()?;
    Some((catalog, queries))
}

fn main() {
    let sets = [
        set(
            "eval/mcp-short/catalog.json",
            "eval/mcp-short/queries.jsonl",
        ),
        set("eval/mcp-short/catalog.json", "eval/mcp-short/multi.jsonl"),
        set(
            "eval/mcp-heldout/catalog.json",
            "eval/mcp-heldout/queries.jsonl",
        ),
        set(
            "eval/bfcl-dev/catalog.json",
            "eval/bfcl-dev/queries-dev.jsonl",
        ),
        set("@github-mcp", "eval/github-mcp/queries.jsonl"),
    ];
    let base = Params::default();
    let mut variants: Vec<(String, Params)> = vec![("default".into(), base.clone())];
    let mut add = |name: &str, f: &dyn Fn(&mut Params)| {
        let mut p = base.clone();
        f(&mut p);
        variants.push((name.to_string(), p));
    };
    add("no expansion", &|p| p.expansion = false);
    for tw in [0.8, 0.95] {
        for generic in [0.25, 0.5, 1.0] {
            add(&format!("t{tw} g{generic}"), &|p| {
                p.expansion_weight = tw;
                p.generic_expansion = generic;
            });
        }
    }
    add("wordnet 0", &|p| p.wordnet_weight = 0.0);
    add("wordnet 0.15", &|p| p.wordnet_weight = 0.15);
    for d in [1.0, 0.9, 0.7, 0.6] {
        add(&format!("destructive {d}"), &|p| p.unasked_destructive = d);
    }
    for w in [0.0, 0.25, 1.0] {
        add(&format!("server {w}"), &|p| {
            p.fields[Field::Server as usize].weight = w
        });
    }
    println!(
        "{:<22} {:>6} {:>6} {:>6} {:>6} {:>6} {:>8} {:>8}",
        "variant", "first", "top3", "multi5", "hoFst", "hoTop3", "bfcl@10", "gh@1"
    );
    for (name, p) in variants {
        let mut row = format!("{name:<22}");
        for (i, set) in sets.iter().enumerate() {
            let Some((catalog, queries)) = set else {
                row += if i == 2 { "      -      -" } else { "       -" };
                continue;
            };
            let index = Index::build_with(catalog.tools(), p.clone());
            let gate = (i == 0 || i == 2).then(|| Gate::for_ranker(Ranker::Bm25, 0.0));
            let r = evaluate(catalog, queries, 10, &index, gate.as_ref()).expect("eval");
            match i {
                0 | 2 => row += &format!(" {:>6.1} {:>6.1}", r.strict.all[0], r.strict.all[1]),
                1 => row += &format!(" {:>6.1}", r.strict.all[2]),
                3 => row += &format!(" {:>8.2}", r.strict.all[3]),
                _ => row += &format!(" {:>8.1}", r.strict.all[0]),
            }
        }
        println!("{row}");
    }
}
