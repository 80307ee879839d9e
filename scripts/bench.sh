#!/usr/bin/env bash
# toolsift's search benchmarks and the Python BM25 baselines, in one run on
# the same machine and data, then a Markdown report for BENCHMARKS.md.
#
#   scripts/bench.sh [OUT_DIR]        (default: ${TMPDIR:-/tmp}/toolsift-bench)
#
# Needs cargo and python3 (the baselines' venv is made on first use, see
# scripts/baselines/README.md).
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

python3 scripts/bench_report.py "$out"
