#!/usr/bin/env bash
# Python BM25 baselines on the BFCL tool-search dev set (see README.md here).
# Creates/reuses a venv, installs the pinned packages once, runs bm25_baselines.py.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${TOOLSIFT_VENV:-$HOME/.cache/toolsift-venv}"
PY="$VENV/bin/python"

# Pinned versions (PyStemmer: latest 3.x).
REQS=("bm25s==0.3.16" "PyStemmer>=3,<4" "rank_bm25==0.2.2" "numpy" "scipy")

if [ ! -x "$PY" ]; then
    echo "creating venv at $VENV" >&2
    mkdir -p "$(dirname "$VENV")"
    python3 -m venv "$VENV"
fi

# Skip the install when the pinned versions are already there.
if ! "$PY" - <<'PYEOF' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
try:
    ok = (version("bm25s") == "0.3.16"
          and version("rank_bm25") == "0.2.2"
          and version("PyStemmer").split(".")[0] == "3")
    version("numpy"); version("scipy")
except PackageNotFoundError:
    ok = False
sys.exit(0 if ok else 1)
PYEOF
then
    echo "installing ${REQS[*]} into $VENV" >&2
    "$PY" -m pip install --quiet --upgrade "${REQS[@]}"
fi

# One thread for every numeric library (bm25s is also run with n_threads=1).
# OPENBLAS_CORETYPE is deliberately left as it is.
export OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS=1
export MKL_NUM_THREADS=1
export NUMEXPR_NUM_THREADS=1

exec "$PY" "$HERE/bm25_baselines.py" "$@"
