#!/usr/bin/env bash
# toolsift's search benchmarks and the Python BM25 baselines, in one run on
# the same machine and data, then a Markdown report for docs/benchmarks.md.
#
#   scripts/bench.sh [OUT_DIR]        (default: ${TMPDIR:-/tmp}/toolsift-bench)
#
# Needs cargo and python3 (the baselines' venv is made on first use, see
# scripts/baselines/README.md). The load run of `toolsift serve` (with the
# naive Python service) uses loopback only and takes about a minute; set
# TOOLSIFT_SKIP_LOAD=1 to leave it out.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/toolsift-target}"
out="${1:-${TMPDIR:-/tmp}/toolsift-bench}"
mkdir -p "$out"

echo "== toolsift eval (quality, release build)" >&2
cargo build --release --quiet
"$CARGO_TARGET_DIR/release/toolsift" eval eval/bfcl-dev/catalog.json eval/bfcl-dev/queries-dev.jsonl --json > "$out/eval.json"
"$CARGO_TARGET_DIR/release/toolsift" eval eval/bfcl-dev/catalog.json eval/bfcl-dev/queries-dev.jsonl \
    --extra-catalog eval/bfcl-dev/distractors.json --json > "$out/eval-distractors.json"

echo "== toolsift search benchmarks" >&2
cargo bench --quiet --bench search -- --json "$out/toolsift.json" >&2

echo "== explorer benchmarks" >&2
cargo bench --quiet --bench tui -- --json "$out/tui.json" >&2

echo "== Python baselines" >&2
scripts/baselines/run.sh --json-out "$out/baselines.json" >&2

if [ -z "${TOOLSIFT_SKIP_LOAD:-}" ]; then
    echo "== toolsift serve under load, and the naive Python service (loopback)" >&2
    cargo bench --quiet --bench serve_load -- --json "$out/serve_load.json" >&2
fi

python3 scripts/bench_report.py "$out"
