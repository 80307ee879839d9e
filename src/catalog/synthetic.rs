//! Synthetic catalogs of any size, for benchmarks and stress tests: plausible
//! tool names, descriptions and schemas drawn deterministically from a small
//! vocabulary (same `n` and `seed`, same catalog).

use serde_json::{Map, Value, json};

use super::{Catalog, Position, Tool};

const VERBS: &[&str] = &[
    "get",
    "list",
    "create",
    "update",
    "delete",
    "search",
    "send",
    "fetch",
    "sync",
    "archive",
    "restore",
    "export",
    "import",
    "approve",
    "reject",
    "assign",
    "close",
    "open",
    "merge",
    "tag",
    "schedule",
    "cancel",
    "refund",
    "charge",
    "notify",
    "render",
    "resolve",
    "rotate",
    "query",
    "summarize",
];
const NOUNS: &[&str] = &[
    "ticket",
    "invoice",
    "customer",
    "order",
    "payment",
    "repository",
    "issue",
    "branch",
    "commit",
    "deployment",
    "incident",
    "alert",
    "metric",
    "dashboard",
    "event",
    "calendar",
    "meeting",
    "document",
    "folder",
    "file",
    "message",
    "channel",
    "user",
    "team",
    "project",
    "task",
    "subscription",
    "refund",
    "report",
    "log",
    "trace",
    "service",
    "cluster",
    "secret",
    "key",
    "contact",
    "lead",
    "opportunity",
    "account",
    "shipment",
    "product",
    "price",
    "coupon",
    "webhook",
    "workflow",
    "pipeline",
    "build",
    "release",
    "comment",
    "review",
];
const DOMAINS: &[&str] = &[
    "crm",
    "billing",
    "support",
    "github",
    "gitlab",
    "jira",
    "slack",
    "calendar",
    "drive",
    "datadog",
    "pagerduty",
    "stripe",
    "shop",
    "hr",
    "k8s",
    "aws",
    "search",
    "mail",
];
const FILLER: &[&str] = &[
    "the",
    "selected",
    "current",
    "given",
    "matching",
    "recent",
    "active",
    "archived",
    "pending",
    "by",
    "status",
    "date",
    "owner",
    "priority",
    "label",
    "region",
    "name",
    "identifier",
    "and",
    "optionally",
    "filtered",
    "sorted",
    "within",
    "a",
    "time",
    "range",
    "for",
    "with",
    "details",
    "all",
    "fields",
    "returns",
    "results",
    "page",
    "limit",
];

/// A tiny deterministic generator (SplitMix64), enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.below(list.len())]
    }

    /// Between `min` and `min + spread - 1` words.
    fn sentence(&mut self, min: usize, spread: usize) -> String {
        let words = min + self.below(spread);
        let mut out = Vec::with_capacity(words);
        for _ in 0..words {
            let list = match self.below(4) {
                0 => VERBS,
                1 => NOUNS,
                _ => FILLER,
            };
            out.push(self.pick(list));
        }
        out.join(" ")
    }
}

/// A catalog of `n` (at least 1) distinct synthetic tools.
pub fn generate(n: usize, seed: u64) -> Catalog {
    let mut rng = Rng(seed);
    let mut tools = Vec::with_capacity(n);
    for i in 0..n.max(1) {
        let domain = rng.pick(DOMAINS);
        let verb = rng.pick(VERBS);
        let noun = rng.pick(NOUNS);
        let name = format!("{domain}_{verb}_{noun}_{i}");
        let description = format!(
            "{} {noun} in {domain}: {}.",
            capitalize(verb),
            rng.sentence(8, 24)
        );
        let mut props = Map::new();
        let params = 1 + rng.below(7);
        let mut required = Vec::new();
        for p in 0..params {
            let pname = format!(
                "{}_{}",
                rng.pick(NOUNS),
                rng.pick(&["id", "name", "filter", "limit", "since", "status"])
            );
            let mut schema = json!({
                "type": if p % 3 == 2 { "integer" } else { "string" },
                "description": rng.sentence(4, 12),
            });
            if rng.below(4) == 0 {
                schema["enum"] = json!([rng.pick(FILLER), rng.pick(NOUNS), rng.pick(VERBS)]);
            }
            if p == 0 {
                required.push(Value::String(pname.clone()));
            }
            props.insert(pname, schema);
        }
        let mut tool = Tool::new(name, description);
        tool.input_schema = json!({"type": "object", "properties": props, "required": required});
        tool.read_only = matches!(verb, "get" | "list" | "search" | "fetch" | "query");
        tool.idempotent = tool.read_only;
        tool.always_load = i % 1000 == 500 && i < 3000;
        tool.position = Position {
            origin: "@synthetic".into(),
            index: i,
            line: None,
        };
        tools.push(tool);
    }
    // Names carry their index, so they are unique and the catalog is valid.
    Catalog::new(format!("synthetic-{n}"), tools).unwrap_or_else(|_| unreachable!())
}

fn capitalize(word: &str) -> String {
    let mut c = word.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn deterministic_and_valid() {
        let a = super::generate(500, 7);
        let b = super::generate(500, 7);
        assert_eq!(a, b);
        assert_eq!(a.len(), 500);
        assert_ne!(a, super::generate(500, 8));
        assert_eq!(super::generate(0, 1).len(), 1);
    }
}
