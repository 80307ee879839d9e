//! Parameter sweep on the bfcl-dev set: `cargo run --release --example tune`.
//! Prints strict all@1/5/10, lenient all@10 and strict MRR@10 per variant.

use toolsift::catalog::{CatalogSource, load};
use toolsift::engine::Index;
use toolsift::engine::Params;
use toolsift::eval::{evaluate, load_queries};

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("eval/bfcl-dev");
    let catalog = load(&CatalogSource::Path(dir.join("catalog.json"))).expect("catalog");
    let queries = load_queries(&dir.join("queries-dev.jsonl")).expect("queries");
    let base = Params::default();
    let mut variants: Vec<(String, Params)> = vec![("default".into(), base.clone())];
    let mut add = |name: &str, f: &dyn Fn(&mut Params)| {
        let mut p = base.clone();
        f(&mut p);
        variants.push((name.to_string(), p));
    };
    add("no filler", &|p| p.query_filler = &[]);
    add("small filler", &|p| {
        p.query_filler = &[
            "please", "help", "want", "me", "could", "would", "can", "you", "i", "my", "need",
            "like",
        ]
    });
    const SMALL: &[&str] = &[
        "please", "help", "want", "me", "could", "would", "can", "you", "i", "my", "need", "like",
    ];
    let groups: &[(&str, &[&str])] = &[
        (
            "+pron",
            &[
                "your", "we", "our", "us", "i'm", "im", "pls", "kindly", "wants", "wanted", "needs",
            ],
        ),
        (
            "+modal",
            &["should", "shall", "may", "might", "do", "does", "did"],
        ),
        (
            "+chat",
            &[
                "also", "just", "hey", "hi", "hello", "thanks", "thank", "tell", "let", "know",
                "so", "some",
            ],
        ),
        (
            "+wh",
            &[
                "what", "which", "who", "whom", "how", "when", "where", "why",
            ],
        ),
        (
            "+aux",
            &[
                "am", "been", "being", "have", "has", "had", "its", "them", "those", "here",
            ],
        ),
        (
            "+misc",
            &[
                "from", "about", "all", "any", "using", "use", "via", "able", "going", "gonna",
                "got",
            ],
        ),
        (
            "+spec",
            &["currently", "specific", "given", "provide", "provided"],
        ),
        ("+find", &["find", "get", "show", "give"]),
    ];
    for (name, extra) in groups {
        let list: Vec<&'static str> = SMALL.iter().chain(extra.iter()).copied().collect();
        let list: &'static [&'static str] = Box::leak(list.into_boxed_slice());
        add(name, &|p| p.query_filler = list);
    }
    add("no exact", &|p| p.exact_names = false);
    add("no sentences", &|p| p.min_sentences = 1000);
    add("sentence w 0.5", &|p| p.sentence_weight = 0.5);
    add("sentence w 1.5", &|p| p.sentence_weight = 1.5);
    add("min sentences 3", &|p| p.min_sentences = 3);
    add("name w 6", &|p| p.fields[0].weight = 6.0);
    add("name w 11", &|p| p.fields[0].weight = 11.0);
    add("desc b 0.75", &|p| p.fields[1].b = 0.75);
    add("desc b 0.3", &|p| p.fields[1].b = 0.3);
    add("idf 0.4", &|p| p.idf_power = 0.4);
    add("idf 0.7", &|p| p.idf_power = 0.7);
    add("k1 0.9", &|p| p.k1 = 0.9);
    add("k1 1.6", &|p| p.k1 = 1.6);
    add("pdesc w 0.5", &|p| p.fields[3].weight = 0.5);
    add("pdesc w 1.5", &|p| p.fields[3].weight = 1.5);
    add("pname w 1", &|p| p.fields[2].weight = 1.0);
    add("pname w 3", &|p| p.fields[2].weight = 3.0);
    add("dbigram 0", &|p| p.fields[5].weight = 0.0);
    add("dbigram 0.5", &|p| p.fields[5].weight = 0.5);
    add("nbigram 0", &|p| p.fields[4].weight = 0.0);
    add("nbigram 2", &|p| p.fields[4].weight = 2.0);
    for arg in std::env::args().skip(1) {
        // extra variants as name=value pairs, e.g. k1=1.0
        let (k, v) = arg.split_once('=').expect("name=value");
        let v: f32 = v.parse().expect("number");
        add(&arg, &|p| match k {
            "k1" => p.k1 = v,
            "idf" => p.idf_power = v,
            "sw" => p.sentence_weight = v,
            "num" => p.number_weight = v,
            f => {
                let (i, what) = f.split_at(1);
                let i: usize = i.parse().expect("field index");
                if what == "w" {
                    p.fields[i].weight = v
                } else {
                    p.fields[i].b = v
                }
            }
        });
    }
    println!(
        "{:<18} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "variant", "s@1", "s@5", "s@10", "l@10", "mrr"
    );
    let _ = &variants;
    for (name, params) in variants {
        let index = Index::build_with(catalog.tools(), params);
        let r = evaluate(&catalog, &queries, 10, &index, None).expect("eval");
        println!(
            "{:<18} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>6.3}",
            name,
            r.strict.all[0],
            r.strict.all[2],
            r.strict.all[3],
            r.lenient.all[3],
            r.strict.mrr10
        );
    }
}
