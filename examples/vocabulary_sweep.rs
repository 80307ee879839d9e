//! Query expansion's weights on the short MCP requests, bfcl-dev and the
//! GitHub MCP set: `cargo run --release --example vocabulary_sweep`.
//! Prints, per variant: short requests first/top 3, bfcl-dev strict
//! all@10, GitHub MCP all@1.

use toolsift::catalog::{Catalog, CatalogSource, load};
use toolsift::engine::{Index, Params};
use toolsift::eval::{EvalQuery, evaluate, load_queries};

fn set(catalog: &str, queries: &str) -> (Catalog, Vec<EvalQuery>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = match catalog.strip_prefix('@') {
        Some(_) => CatalogSource::parse(catalog),
        None => CatalogSource::Path(root.join(catalog)),
    };
    let catalog = load(&source).expect("catalog");
    let queries = load_queries(&root.join(queries)).expect("queries");
    (catalog, queries)
}

fn main() {
    let sets = [
        set(
            "eval/mcp-short/catalog.json",
            "eval/mcp-short/queries.jsonl",
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
    println!(
        "{:<22} {:>6} {:>6} {:>8} {:>8}",
        "variant", "first", "top3", "bfcl@10", "gh@1"
    );
    for (name, p) in variants {
        let mut row = format!("{name:<22}");
        for (i, (catalog, queries)) in sets.iter().enumerate() {
            let index = Index::build_with(catalog.tools(), p.clone());
            let r = evaluate(catalog, queries, 10, &index, None).expect("eval");
            match i {
                0 => row += &format!(" {:>6.1} {:>6.1}", r.strict.all[0], r.strict.all[1]),
                1 => row += &format!(" {:>8.2}", r.strict.all[3]),
                _ => row += &format!(" {:>8.1}", r.strict.all[0]),
            }
        }
        println!("{row}");
    }
}
