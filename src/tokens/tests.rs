//! The counters, the cache and the savings arithmetic.

use super::*;
use proptest::prelude::*;

#[test]
fn contract_vectors() {
    // (sent, full) -> (saved, pct)
    let cases = [
        (120, 840, 720, 85.7),
        (50, 200, 150, 75.0),
        (60, 420, 360, 85.7),
        (0, 100, 100, 100.0),
        (197, 400, 203, 50.8),
    ];
    for (sent, full, saved, pct) in cases {
        let s = Savings::new(full, sent);
        assert_eq!(s.saved_tokens, saved, "{sent}/{full}");
        assert_eq!(s.reduction_pct, pct, "{sent}/{full}");
        assert_eq!((s.full_schema_tokens, s.sent_schema_tokens), (full, sent));
    }
    let bad = Savings::new(100, 200);
    assert_eq!(
        (
            bad.full_schema_tokens,
            bad.sent_schema_tokens,
            bad.saved_tokens,
            bad.reduction_pct
        ),
        (0, 0, 0, 0.0)
    );
    assert_eq!(reduction_pct(0, 0), 0.0);
}

#[test]
fn half_up_rounding() {
    // 1/8 saved = 12.5 % exactly; 1/16 = 6.25 % -> 6.3 (half up, not banker's).
    assert_eq!(reduction_pct(8, 7), 12.5);
    assert_eq!(reduction_pct(16, 15), 6.3);
    assert_eq!(reduction_pct(1600, 1500), 6.3);
    // 2/3 = 66.666.. -> 66.7
    assert_eq!(reduction_pct(3, 1), 66.7);
}

proptest! {
    #[test]
    fn pct_matches_float_reference(full in 1u64..10_000_000, frac in 0.0f64..=1.0) {
        let sent = ((full as f64) * frac) as u64;
        let pct = reduction_pct(full, sent);
        let reference = ((full - sent) as f64 * 1000.0 / full as f64 + 0.5).floor() / 10.0;
        prop_assert!((pct - reference).abs() < 0.051, "{pct} vs {reference}");
        prop_assert!((0.0..=100.0).contains(&pct));
        prop_assert_eq!(saved_tokens(full, sent), full - sent);
    }

    #[test]
    fn savings_never_exceed_full(full in any::<u64>(), sent in any::<u64>()) {
        let s = Savings::new(full, sent);
        prop_assert!(s.sent_schema_tokens <= s.full_schema_tokens);
        prop_assert_eq!(s.saved_tokens + s.sent_schema_tokens, s.full_schema_tokens);
        prop_assert!((0.0..=100.0).contains(&s.reduction_pct));
    }
}

#[test]
fn basis_names_round_trip() {
    for b in TokenBasis::ALL {
        assert_eq!(b.as_str().parse::<TokenBasis>(), Ok(b));
        assert_eq!(serde_json::to_value(b).unwrap(), b.as_str());
    }
    assert!("gpt2".parse::<TokenBasis>().is_err());
    assert_eq!(TokenBasis::default(), TokenBasis::O200kBase);
    // Forward and back through the six, wrapping both ways.
    for b in TokenBasis::ALL {
        assert_eq!(b.next().prev(), b);
        assert_eq!(b.prev().next(), b);
    }
    assert_eq!(TokenBasis::O200kBase.prev(), TokenBasis::ANTHROPIC);
}

#[test]
fn real_tokenizers_count() {
    // Known counts of the real vocabularies: "hello world" is 2 tokens in both.
    assert_eq!(TokenBasis::O200kBase.count("hello world"), 2);
    assert_eq!(TokenBasis::Cl100kBase.count("hello world"), 2);
    assert_eq!(TokenBasis::EstimatedBytesDiv4.count("hello world"), 3);
    assert_eq!(TokenBasis::EstimatedBytesDiv4.count(""), 0);
    // The two vocabularies really differ on some text.
    let text = "Получить статус сервиса и список инцидентов за неделю";
    assert_ne!(
        TokenBasis::O200kBase.count(text),
        TokenBasis::Cl100kBase.count(text)
    );
}

fn numbered(i: usize) -> Tool {
    Tool::new(format!("tool_{i}"), format!("Does thing number {i}"))
}

#[test]
fn cache_stays_within_its_bytes_under_new_definitions() {
    let budget = 64 << 10;
    let counter = TokenCounter::with_cache_bytes(budget);
    let basis = TokenBasis::EstimatedBytesDiv4;
    let hot = Tool::new("hot", "Used at every turn");
    counter.tool_tokens(&hot, basis);
    let mut most = 0;
    for i in 0..50_000 {
        counter.tool_tokens(&numbered(i), basis);
        if i % 500 == 0 {
            // A definition in use stays cached, whatever streams past.
            let before = counter.tokenized_count();
            counter.tool_tokens(&hot, basis);
            assert_eq!(counter.tokenized_count(), before, "hot evicted at {i}");
        }
        assert!(
            counter.cache_bytes() <= budget,
            "{} at {i}",
            counter.cache_bytes()
        );
        most = most.max(counter.cached_count());
    }
    assert_eq!(counter.tokenized_count(), 50_001);
    // Full generations: the budget is used, not a fraction of it.
    assert!(
        counter.cache_bytes() > budget / 2,
        "{}",
        counter.cache_bytes()
    );
    assert!(most > 1000 && most < 50_000, "{most}");
    // The most recent are kept (a generation's worth: 896 here); the
    // first are long gone.
    let before = counter.tokenized_count();
    for i in (49_200..50_000).rev() {
        counter.tool_tokens(&numbered(i), basis);
    }
    assert_eq!(counter.tokenized_count(), before, "recent ones re-counted");
    counter.tool_tokens(&numbered(0), basis);
    assert_eq!(counter.tokenized_count(), before + 1);
}

#[test]
fn cache_budgets() {
    // Nothing cached under a budget too small for a table.
    let none = TokenCounter::with_cache_bytes(0);
    let t = numbered(1);
    none.tool_tokens(&t, TokenBasis::EstimatedBytesDiv4);
    none.tool_tokens(&t, TokenBasis::EstimatedBytesDiv4);
    assert_eq!((none.tokenized_count(), none.cached_count()), (2, 0));
    assert_eq!(none.cache_bytes(), 0);
    // Two generations of 7/8 of the largest power-of-two table that fits.
    let slot = std::mem::size_of::<(Key, u64)>() + 1;
    assert_eq!(slot, 25);
    assert_eq!(Counts::new(2 * (1024 * slot + 16)).per_generation, 896);
    assert_eq!(Counts::new(2 * (1024 * slot + 15)).per_generation, 448);
    assert_eq!(table_bytes(896), 1024 * slot + 16);
    assert_eq!(table_bytes(0), 0);
    // 8 MiB a generation: 335,544 slots, so a table of 262,144.
    assert_eq!(TokenCounter::new().cache().per_generation, 229_376);
}

#[test]
fn provider_json_shape_and_cache() {
    let mut tool = Tool::new("lookup_status", "Look up the current service status");
    tool.input_schema =
        serde_json::json!({"type":"object","properties":{},"additionalProperties":false});
    assert_eq!(
        provider_json(&tool),
        r#"{"type":"function","name":"lookup_status","description":"Look up the current service status","parameters":{"additionalProperties":false,"properties":{},"type":"object"}}"#
    );
    let counter = TokenCounter::new();
    let a = counter.tool_tokens(&tool, TokenBasis::O200kBase);
    let b = counter.tool_tokens(&tool, TokenBasis::O200kBase);
    assert_eq!(a, b);
    assert_eq!(a, TokenBasis::O200kBase.count(&provider_json(&tool)));
    assert_eq!(
        counter.tokenized_count(),
        1,
        "second count came from the cache"
    );
    counter.tool_tokens(&tool, TokenBasis::Cl100kBase);
    assert_eq!(counter.tokenized_count(), 2, "cache is per basis");
    tool.description.push('!');
    counter.tool_tokens(&tool, TokenBasis::O200kBase);
    assert_eq!(
        counter.tokenized_count(),
        3,
        "changed content is re-counted"
    );
    let bytes = provider_json(&tool).len() as u64;
    assert_eq!(
        counter.tool_tokens(&tool, TokenBasis::EstimatedBytesDiv4),
        bytes.div_ceil(4)
    );
}
