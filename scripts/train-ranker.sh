#!/usr/bin/env bash
# The learned ranking, trained again from the dev sets only: the features
# of each dev request's candidates (with the packaged all-MiniLM-L6-v2),
# then scripts/train-ranker.py, which writes assets/ranking/hybrid.json.
# The held-out sets (eval/people-heldout) are never read here.
#
#   scripts/train-ranker.sh
#   MINILM=DIR   the all-MiniLM-L6-v2 directory (default ~/.cache/toolsift-models/all-MiniLM-L6-v2)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/toolsift-target}"
cargo build --release --locked --quiet
T="$CARGO_TARGET_DIR/release/toolsift"
M="${MINILM:-$HOME/.cache/toolsift-models/all-MiniLM-L6-v2}"
F=eval/ranking/features
mkdir -p "$F"
dump() {
    # The packaged model's features do not depend on its weights: the
    # candidates are each list's best, whatever the model.
    "$T" eval "$1" "$2" --ranker hybrid --embeddings-local "$M" --time-budget-ms 0 \
        --features-out "$F/$3.jsonl" > /dev/null
    gzip -n -9 -f "$F/$3.jsonl"
}
dump eval/people-dev/catalog.json eval/people-dev/queries.jsonl people-dev-queries
dump eval/people-dev/catalog.json eval/people-dev/agent.jsonl people-dev-agent
dump eval/bfcl-dev/catalog.json eval/bfcl-dev/queries-dev.jsonl bfcl-dev
python3 scripts/train-ranker.py assets/ranking/hybrid.json \
    "$F/people-dev-queries.jsonl.gz" "$F/people-dev-agent.jsonl.gz" "$F/bfcl-dev.jsonl.gz"
