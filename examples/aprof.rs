use toolsift::catalog::{CatalogSource, load};
use toolsift::engine::Index;
use toolsift::eval::load_queries;
fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let catalog = load(&CatalogSource::Path(dir.join("catalog.json"))).unwrap();
    let queries = load_queries(&dir.join("queries-dev.jsonl")).unwrap();
    let index = Index::build(catalog.tools());
    let mut n = 0;
    for _ in 0..400 {
        for q in &queries {
            n += index.analyze_only(&q.query);
        }
    }
    println!("{n}");
}
