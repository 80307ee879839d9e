#!/usr/bin/env bash
# The learned ranking, trained again from the dev sets only: the features
# of each dev request's candidates (with the model built into toolsift,
# assets/encoder, which scripts/train-encoder.py trains), then
# scripts/train-ranker.py, which writes assets/ranking/hybrid.json.
# The held-out sets (eval/people-heldout, eval/kinds-heldout,
# eval/mcp-heldout) are never read here.
#
#   scripts/train-ranker.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/toolsift-target}"
cargo build --release --locked --quiet
T="$CARGO_TARGET_DIR/release/toolsift"
F=eval/ranking/features
mkdir -p "$F"
dump() {
    # The built-in model ranks: hybrid with no provider named.
    TOOLSIFT_MODEL=on "$T" eval "$1" "$2" --ranker hybrid --time-budget-ms 0 \
        --features-out "$F/$3.jsonl" > /dev/null
    gzip -n -9 -f "$F/$3.jsonl"
}
dump eval/people-dev/catalog.json eval/people-dev/queries.jsonl people-dev-queries
dump eval/people-dev/catalog.json eval/people-dev/agent.jsonl people-dev-agent
dump eval/bfcl-dev/catalog.json eval/bfcl-dev/queries-dev.jsonl bfcl-dev
files=("$F/people-dev-queries.jsonl.gz" "$F/people-dev-agent.jsonl.gz" "$F/bfcl-dev.jsonl.gz")
for d in eval/train-*/; do
    n=$(basename "$d")
    for q in queries agent; do
        dump "$d/catalog.json" "$d/$q.jsonl" "$n-$q"
        files+=("$F/$n-$q.jsonl.gz")
    done
done
# numpy: the training venv has it (scripts/train-encoder.sh makes it).
PY="${TOOLSIFT_TRAIN_VENV:-$HOME/.cache/toolsift-train/venv}/bin/python"
[ -x "$PY" ] || PY=python3
"$PY" scripts/train-ranker.py assets/ranking/hybrid.json "${files[@]}"
