//! The caches' weights against what the allocator is really asked for: a
//! parsed catalog and its BM25F index, measured by a counting allocator
//! (this test binary's own), are within a tenth of `toolsift::heap_size`'s
//! estimates, which the caches' byte budgets and `toolsift_cache_bytes` use.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicIsize, Ordering};

use toolsift::catalog::{self, SourceKind};
use toolsift::engine::Index;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to the system allocator as it came.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        LIVE.fetch_add(size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Measurements run one at a time (the counter is the whole process's).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Bytes `f`'s result holds: live bytes after `f` minus before.
fn measured<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    let value = f();
    let after = LIVE.load(Ordering::Relaxed);
    (value, (after - before).max(0) as usize)
}

fn assert_close(what: &str, estimate: usize, real: usize) {
    let ratio = estimate as f64 / real as f64;
    assert!(
        (0.9..=1.1).contains(&ratio),
        "{what}: estimated {estimate} bytes, really {real} ({ratio:.2})"
    );
}

/// `n` tools with schemas of a few properties, as catalogs have.
fn text(n: usize) -> String {
    let tools: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name":"tool_{i}","description":"Looks up record {i} in the order service and returns its status","input_schema":{{"type":"object","properties":{{"id":{{"type":"string","description":"The record's id"}},"limit":{{"type":"integer","minimum":1}},"fields":{{"type":"array","items":{{"type":"string"}}}}}},"required":["id"]}}}}"#
            )
        })
        .collect();
    format!("[{}]", tools.join(","))
}

#[test]
fn a_parsed_catalog_and_its_index_weigh_what_they_hold() {
    let _one = ONE_AT_A_TIME.lock().unwrap();
    for n in [50, 2_000] {
        let raw = text(n);
        let (catalog, real) = measured(|| {
            let c = catalog::parse(&raw, "request", "request", SourceKind::Json).unwrap();
            // The name index a catalog builds on its first lookup.
            assert!(c.get("tool_0").is_some());
            c
        });
        assert_close(
            &format!("catalog of {n}"),
            toolsift::heap_size::catalog(&catalog),
            real,
        );
        assert!(real > 3 * raw.len(), "parsed is bigger than its text");
        // The bundled vocabulary, read once for the whole process on the
        // first index built, belongs to no index.
        drop(Index::build(&catalog.tools()[..1]));
        let (index, real) = measured(|| Index::build(catalog.tools()));
        assert_close(&format!("index of {n}"), index.heap_bytes(), real);
    }
}
