//! The catalog's names close to a name that is not in it (a misspelling,
//! another spelling of the same words): what "did you mean" offers.

use crate::catalog::Catalog;
use crate::engine::analyzer::name_key;

/// Up to `n` tool names of `catalog` close to `name` (the same words in
/// another spelling, one containing the other, or a few letters apart),
/// closest first.
pub fn close_names<'a>(catalog: &'a Catalog, name: &str, n: usize) -> Vec<&'a str> {
    // A name is at most this long for the comparison (a flag may be long).
    const LONGEST: usize = 128;
    let wanted_text: String = name.to_lowercase().chars().take(LONGEST).collect();
    let wanted_len = wanted_text.chars().count();
    let key = name_key(&wanted_text);
    let mut found: Vec<(usize, &str)> = catalog
        .tools()
        .iter()
        .filter_map(|t| {
            let lower_text: String = t.name.to_lowercase().chars().take(LONGEST).collect();
            // Edit distance in characters.
            let d = strsim::levenshtein(&wanted_text, &lower_text);
            let same_words = !key.is_empty() && name_key(&t.name) == key;
            let contains = wanted_len >= 3
                && (lower_text.contains(&wanted_text) || wanted_text.contains(&lower_text));
            let near = d <= (wanted_len / 3).max(2);
            (same_words || contains || near)
                .then_some((if same_words { 0 } else { d }, t.name.as_str()))
        })
        .collect();
    found.sort();
    found.into_iter().take(n).map(|(_, name)| name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_find_typos_and_other_spellings() {
        let catalog = crate::catalog::load(&crate::catalog::CatalogSource::demo()).unwrap();
        assert_eq!(
            close_names(&catalog, "refund_paymnt", 3)[0],
            "refund_payment"
        );
        assert_eq!(
            close_names(&catalog, "RefundPayment", 3)[0],
            "refund_payment"
        );
        assert!(close_names(&catalog, "zzzzzzzzzzzzzzzz", 3).is_empty());
        let text = "x".repeat(10_000);
        assert!(close_names(&catalog, &text, 3).is_empty());
    }
}
