#!/usr/bin/env bash
# Makes the virtual environment scripts/bench-encoders.py runs in (once):
# PyTorch (PyPI's wheel; it runs on the CPU), sentence-transformers,
# onnxruntime and onnx (the export and the dynamic int8 quantization).
#
#   scripts/bench-encoders-venv.sh     (default: ~/.cache/toolsift-bench-venv,
#                                       or $TOOLSIFT_BENCH_VENV)
#
# Prints the venv's python. benches/encoders.rs runs it when it is there.
set -euo pipefail
venv="${TOOLSIFT_BENCH_VENV:-$HOME/.cache/toolsift-bench-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --upgrade pip >&2
"$venv/bin/pip" install --quiet torch sentence-transformers onnxruntime onnx >&2
echo "$venv/bin/python"
