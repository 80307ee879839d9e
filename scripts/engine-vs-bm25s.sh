#!/usr/bin/env bash
# The engine's ranking speed beside bm25s, one run on one machine: every
# bfcl-dev request, then the long multi-sentence ones (the parallel and
# parallel_multiple categories). Prints queries/s and the ratio to the best
# bm25s configuration for each set.
#
#   scripts/engine-vs-bm25s.sh [OUT_DIR]   (default: ${TMPDIR:-/tmp}/toolsift-engine)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/toolsift-target}"
out="${1:-${TMPDIR:-/tmp}/toolsift-engine}"
mkdir -p "$out"
long="parallel,parallel_multiple"

cargo bench --quiet --bench search -- --json "$out/toolsift.json" >&2
scripts/baselines/run.sh --json-out "$out/bm25s-all.json" >&2
scripts/baselines/run.sh --categories "$long" --json-out "$out/bm25s-long.json" >&2

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
ts = json.load(open(f"{out}/toolsift.json"))["bfcl"]
rows = [("every bfcl-dev request", ts["queries"], ts["queries_per_second"], "bm25s-all"),
        ("long requests (parallel, parallel_multiple)", ts["long"]["queries"],
         ts["long"]["queries_per_second"], "bm25s-long")]
print("| requests | n | toolsift queries/s | best bm25s queries/s | ratio |")
print("|---|---|---|---|---|")
for label, n, qps, base in rows:
    b = json.load(open(f"{out}/{base}.json"))
    best = max((e for e in b["engines"] if e["name"].startswith("bm25s")),
               key=lambda e: e["queries_per_second"])
    print(f"| {label} | {n} | {qps:,.0f} | {best['queries_per_second']:,.0f} ({best['name']}) "
          f"| {qps / best['queries_per_second']:.1f}x |")
PY
