//! Approximate heap sizes of what the caches hold, for their byte budgets
//! and `toolsift_cache_bytes`: the bytes asked of the allocator by the
//! containers (std's hash tables, B-trees, vectors, strings), not the
//! allocator's own rounding and bookkeeping.

use std::collections::HashMap;
use std::mem::size_of;

use serde_json::Value;

use crate::catalog::{Catalog, Tool};

/// Bytes of a std hash table with room for `capacity` entries of `slot`
/// bytes: buckets are a power of two, at most 7/8 full, each with a control
/// byte, and one group of control bytes more.
pub fn table(capacity: usize, slot: usize) -> usize {
    if capacity == 0 {
        return 0;
    }
    let buckets = (capacity.saturating_mul(8) / 7).next_power_of_two();
    buckets.saturating_mul(slot + 1) + 16
}

/// Bytes of `map`'s table (not of what its keys and values own).
pub fn hash_map<K, V, S>(map: &HashMap<K, V, S>) -> usize {
    table(map.capacity(), size_of::<(K, V)>())
}

/// A B-tree node of a JSON object: parent link, index and length, then 11
/// keys and 11 values.
const BTREE_LEAF: usize = 16 + 11 * (size_of::<String>() + size_of::<Value>());
/// An internal node: a leaf and 12 child links.
const BTREE_INTERNAL: usize = BTREE_LEAF + 12 * size_of::<usize>();

/// Bytes of the B-tree nodes of a JSON object of `n` entries: one leaf up
/// to 11, and beyond about one leaf per 7 entries (nodes split half full
/// and fill as keys arrive) and an internal node per 8 leaves.
fn btree(n: usize) -> usize {
    match n {
        0 => 0,
        1..=11 => BTREE_LEAF,
        n => {
            let leaves = n.div_ceil(7);
            leaves * BTREE_LEAF + leaves.div_ceil(8) * BTREE_INTERNAL
        }
    }
}

/// Bytes a JSON value owns: string and array buffers, object nodes and
/// keys, and all they hold in turn.
pub fn json(value: &Value) -> usize {
    match value {
        Value::String(s) => s.capacity(),
        Value::Array(items) => {
            items.capacity() * size_of::<Value>() + items.iter().map(json).sum::<usize>()
        }
        Value::Object(map) => {
            btree(map.len())
                + map
                    .iter()
                    .map(|(k, v)| k.capacity() + json(v))
                    .sum::<usize>()
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
    }
}

/// Bytes a tool owns beyond its own struct.
pub fn tool(t: &Tool) -> usize {
    let mcp = t.mcp.as_ref().map_or(0, |m| {
        m.name.capacity() + m.title.as_ref().map_or(0, String::capacity)
    });
    t.name.capacity()
        + t.description.capacity()
        + json(&t.input_schema)
        + t.handler_result.as_ref().map_or(0, json)
        + mcp
}

/// Bytes a catalog holds: its tools and, as a catalog answering lookups by
/// name has built it, its name index (a copy of each name and a table).
pub fn catalog(c: &Catalog) -> usize {
    let tools = c.tools();
    let names: usize = tools.iter().map(|t| t.name.len()).sum();
    size_of::<Catalog>()
        + std::mem::size_of_val(tools)
        + tools.iter().map(tool).sum::<usize>()
        + table(tools.len(), size_of::<(String, usize)>())
        + names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tables_round_up_to_powers_of_two() {
        assert_eq!(table(0, 24), 0);
        assert_eq!(table(3, 24), 4 * 25 + 16);
        assert_eq!(table(7, 24), 8 * 25 + 16);
        assert_eq!(table(8, 24), 16 * 25 + 16);
        assert_eq!(table(896, 24), 1024 * 25 + 16);
        let mut m: HashMap<u64, u64> = HashMap::new();
        assert_eq!(hash_map(&m), 0);
        m.insert(1, 1);
        assert_eq!(hash_map(&m), table(m.capacity(), 16));
    }

    #[test]
    fn json_counts_what_values_own() {
        assert_eq!(json(&json!(1)), 0);
        assert_eq!(json(&Value::String("abc".into())), 3);
        assert_eq!(json(&json!({})), 0);
        assert_eq!(json(&json!({"ab": "cde"})), BTREE_LEAF + 5);
        let list = json!(["x", "yz"]);
        assert_eq!(json(&list), 2 * size_of::<Value>() + 3);
        let wide: serde_json::Map<String, Value> =
            (0..70).map(|i| (format!("{i:02}"), Value::Null)).collect();
        let keys: usize = wide.keys().map(String::capacity).sum();
        assert_eq!(
            json(&Value::Object(wide)),
            10 * BTREE_LEAF + 2 * BTREE_INTERNAL + keys
        );
    }
}
