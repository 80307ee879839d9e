//! `cargo run --release --example why -- "query"`: top 5 on bfcl-dev (or the
//! catalog file `CATALOG` names) with explanations.
use toolsift::catalog::{CatalogSource, load};
use toolsift::engine::Index;
fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let path = std::env::var_os("CATALOG").map_or(dir.join("catalog.json"), Into::into);
    let catalog = load(&CatalogSource::Path(path)).expect("catalog");
    let index = Index::build(catalog.tools());
    let q = std::env::args().nth(1).expect("query");
    for h in index.search(&q, None, 5) {
        let e = index.explain(&q, None, h.doc);
        println!(
            "{:.3} {} {}",
            h.score,
            catalog.tools()[h.doc].name,
            if h.exact { "EXACT" } else { "" }
        );
        for m in e.matches {
            println!("     {:.3} {:?} {:?}", m.score, m.term, m.fields);
        }
    }
}
