//! A session's identity, the same in both stores: the hash of its API key
//! (its scope) and its id, encoded so that no two (scope, id) pairs ever name
//! the same session, whatever the id holds (separators such as `:`, nothing
//! at all, any length).
//!
//! The id is written as the hex digits of its bytes when it has at most
//! [`MAX_VERBATIM_ID`] bytes (every id a client may send), else as `h` and
//! 32 hex digits of its 128-bit hash, so what is stored stays bounded. `h` is
//! no hex digit: a hashed id never equals a verbatim one. In Redis the
//! session is two keys under two prefixes, neither a prefix of the other,
//! then the scope's 32 hex digits (a fixed width) and the encoded id:
//!
//! - `toolsift:session:{<scope>:<id>}`, a hash: `fp` and `t:{name}`;
//! - `toolsift:order:{<scope>:<id>}`, a list: the loaded names in order.
//!
//! Read from the left, a key gives back its kind, its scope and its encoded
//! id, so distinct sessions have disjoint keys and a session's two keys
//! differ. The braces are a Redis Cluster hash tag: a session's two keys
//! hash to one slot (hex digits and `h` hold no brace), so one script
//! updates both on any cluster.

use std::fmt::Write as _;

use xxhash_rust::xxh3::xxh3_128;

/// Ids of at most this many bytes are kept verbatim (as hex); longer ones
/// by hash.
pub(crate) const MAX_VERBATIM_ID: usize = 128;

#[cfg_attr(not(feature = "redis"), allow(dead_code))]
const HASH_PREFIX: &str = "toolsift:session:";
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
const ORDER_PREFIX: &str = "toolsift:order:";

/// The hash of an API key (empty for none): sessions of one key are never
/// seen with another.
pub(crate) fn scope_hash(scope: &str) -> u128 {
    xxh3_128(scope.as_bytes())
}

/// `id` as stored: hex digits of its bytes, or `h` and its hash's hex
/// digits when it is longer than [`MAX_VERBATIM_ID`] bytes.
pub(crate) fn encode_id(id: &str) -> String {
    if id.len() > MAX_VERBATIM_ID {
        return format!("h{:032x}", xxh3_128(id.as_bytes()));
    }
    let mut out = String::with_capacity(2 * id.len());
    for b in id.bytes() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// A session's key in the memory store.
pub(crate) type MemoryKey = (u128, String);

/// Session `id` of `scope` in the memory store.
pub(crate) fn memory_key(id: &str, scope: &str) -> MemoryKey {
    (scope_hash(scope), encode_id(id))
}

/// Session `id` of `scope` in Redis: its hash and its order list.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) fn redis_keys(id: &str, scope: &str) -> (String, String) {
    let tail = format!("{{{:032x}:{}}}", scope_hash(scope), encode_id(id));
    (
        format!("{HASH_PREFIX}{tail}"),
        format!("{ORDER_PREFIX}{tail}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn separators_never_reach_another_sessions_keys() {
        let (hash, order) = redis_keys("S", "k");
        for id in ["S:order", "S:", ":order", "S:order:order", "S.order", ""] {
            let (h, o) = redis_keys(id, "k");
            assert!(
                ![&h, &o].contains(&&hash) && ![&h, &o].contains(&&order),
                "{id:?}"
            );
            assert_ne!(h, o, "{id:?}");
        }
        assert_eq!(encode_id("S:o"), "533a6f");
        assert!(hash.starts_with("toolsift:session:{") && hash.ends_with(":53}"));
        assert!(order.starts_with("toolsift:order:{") && order.ends_with(":53}"));
    }

    #[test]
    fn long_ids_are_stored_by_hash_of_bounded_length() {
        let at = "a".repeat(MAX_VERBATIM_ID);
        assert_eq!(encode_id(&at).len(), 2 * MAX_VERBATIM_ID);
        let long = "a".repeat(MAX_VERBATIM_ID + 1);
        let longer = "a".repeat(100_000);
        assert_eq!(encode_id(&long).len(), 33);
        assert!(encode_id(&long).starts_with('h'));
        assert_ne!(encode_id(&long), encode_id(&longer));
        assert!(redis_keys(&longer, "k").0.len() < 100);
    }

    /// Ids of every kind: the characters clients send and the separators,
    /// empty, control and non-ASCII characters, and ids around and far over
    /// the verbatim limit.
    /// What Redis Cluster hashes: the text between the first `{` and the
    /// next `}`.
    fn hash_tag(key: &str) -> &str {
        let open = key.find('{').expect("a tag");
        let close = open + key[open..].find('}').expect("a closed tag");
        &key[open + 1..close]
    }

    fn id() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z0-9:._-]{0,12}",
            "[:a-z]{0,6}(:order)?",
            any::<String>(),
            "[a-z:]{126,130}",
            (126usize..=130).prop_map(|n| ":".repeat(n)),
            "[a-z:]{129,300}",
        ]
    }

    fn scope() -> impl Strategy<Value = String> {
        prop_oneof!["[a-z]{0,3}", any::<String>()]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        #[test]
        fn distinct_sessions_have_disjoint_keys(
            a in (id(), scope()),
            b in (id(), scope()),
        ) {
            let (ha, oa) = redis_keys(&a.0, &a.1);
            let (hb, ob) = redis_keys(&b.0, &b.1);
            prop_assert_ne!(&ha, &oa);
            prop_assert_eq!(hash_tag(&ha), hash_tag(&oa));
            prop_assert_ne!(&ha, &ob);
            prop_assert_ne!(&oa, &hb);
            if a != b {
                prop_assert_ne!(&ha, &hb);
                prop_assert_ne!(&oa, &ob);
                prop_assert_ne!(memory_key(&a.0, &a.1), memory_key(&b.0, &b.1));
            } else {
                prop_assert_eq!(&ha, &hb);
                prop_assert_eq!(memory_key(&a.0, &a.1), memory_key(&b.0, &b.1));
            }
        }

        #[test]
        fn an_id_and_its_suffixed_forms_never_share_a_key(
            base in "[a-zA-Z0-9._-]{0,20}",
            suffix in "[:._-][a-z:]{0,8}",
        ) {
            let (h, o) = redis_keys(&base, "k");
            let (hs, os) = redis_keys(&format!("{base}{suffix}"), "k");
            for k in [&hs, &os] {
                prop_assert!(k != &h && k != &o);
            }
        }
    }
}
