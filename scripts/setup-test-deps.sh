#!/usr/bin/env bash
# Installs what the interop tests (tests/sdk_interop.rs) need: the real
# Caveman Python SDK from PyPI (caveman-sdk, import name caveman_cloud) in a
# virtual environment outside the clone. Idempotent: a second run checks the
# installed version and returns at once.
#
#   TOOLSIFT_SDK_VENV  where the venv goes (default ~/.cache/toolsift-sdk-venv)
#   PYTHON             the interpreter that creates it (default python3; caveman-sdk needs >= 3.11)
#
# The tests find the venv's python at the same default path, or through
# TOOLSIFT_SDK_PYTHON (the path this script prints last).
set -euo pipefail

SDK_VERSION="1.2.0"
VENV="${TOOLSIFT_SDK_VENV:-$HOME/.cache/toolsift-sdk-venv}"
PYTHON="${PYTHON:-python3}"
VPY="$VENV/bin/python"

installed() {
    [ -x "$VPY" ] && "$VPY" - "$SDK_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
import caveman_cloud  # noqa: F401
sys.exit(0 if version("caveman-sdk") == sys.argv[1] else 1)
PY
}

if installed; then
    echo "caveman-sdk $SDK_VERSION already in $VENV"
    echo "$VPY"
    exit 0
fi

make_venv() {
    "$PYTHON" -m venv --clear "$VENV" >/dev/null 2>&1 && "$VPY" -m pip --version >/dev/null 2>&1
}

if [ ! -x "$VPY" ] || ! "$VPY" -m pip --version >/dev/null 2>&1; then
    command -v "$PYTHON" >/dev/null || { echo "error: $PYTHON not found; install Python 3.11 or newer" >&2; exit 1; }
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        { echo "error: caveman-sdk needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1); set PYTHON=/path/to/python3.11" >&2; exit 1; }
    mkdir -p "$(dirname "$VENV")"
    if ! make_venv; then
        # Debian and Ubuntu ship venv's ensurepip separately (python3-venv).
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            echo "$PYTHON -m venv failed; installing python3-venv" >&2
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
            make_venv || { echo "error: cannot create a venv at $VENV with $PYTHON" >&2; exit 1; }
        else
            echo "error: '$PYTHON -m venv $VENV' failed; install your system's venv package (Debian/Ubuntu: sudo apt-get install python3-venv) and rerun" >&2
            exit 1
        fi
    fi
fi

"$VPY" -m pip install --quiet --disable-pip-version-check "caveman-sdk==$SDK_VERSION"
installed || { echo "error: caveman-sdk $SDK_VERSION did not install into $VENV" >&2; exit 1; }
echo "caveman-sdk $SDK_VERSION installed in $VENV"
echo "$VPY"
