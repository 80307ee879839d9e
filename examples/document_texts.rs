//! `cargo run --release --example document_texts -- CATALOG...`: each
//! tool's text as the dense rankers embed it, one JSON line per tool
//! (`{"catalog", "name", "server", "text"}`), for scripts/train-encoder.py.
use toolsift::catalog::{CatalogSource, load};
use toolsift::embed::ranker::document_text;

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let catalog = match load(&CatalogSource::Path(path.clone().into())) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
                continue;
            }
        };
        for tool in catalog.tools() {
            let server = tool.mcp.as_ref().map_or("", |m| &*m.server);
            let line = serde_json::json!({
                "catalog": path,
                "name": tool.name,
                "server": server,
                "text": document_text(tool),
            });
            println!("{line}");
        }
    }
    if failed {
        std::process::exit(1);
    }
}
