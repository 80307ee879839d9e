#!/usr/bin/env bash
# Builds toolsift's Python wheel (the binary inside, as ruff and uv ship
# theirs) with maturin, then checks it: installed into a fresh venv, its
# `toolsift --version` is this version. Prints the wheel's path and size.
#
#   scripts/build-wheel.sh [--dev] [--out DIR]
#
# --dev builds the debug profile (quick, reusing the tests' build; for
# tests), else release. --out is where the wheel goes (default dist/).
# maturin comes from PyPI into $TOOLSIFT_WHEEL_VENV
# (default ~/.cache/toolsift-wheel-venv) the first time.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
profile=release
out="$root/dist"
while [ $# -gt 0 ]; do
    case "$1" in
        --dev) profile=dev ;;
        --out) out="$2"; shift ;;
        *) echo "build-wheel.sh: unknown argument: $1 (try --dev or --out DIR)" >&2; exit 2 ;;
    esac
    shift
done

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/toolsift-target}
# Run from a cargo process (a test), the variables cargo sets for its
# package would reach this build's build scripts, which watch some of them
# (ring's), and make it, then the next cargo build, compile half the tree
# again: they are not this build's.
for name in $(compgen -e); do
    case "$name" in
        CARGO_PKG_* | CARGO_MANIFEST_* | CARGO_CRATE_NAME | CARGO_PRIMARY_PACKAGE | CARGO_BIN_* | CARGO_TARGET_TMPDIR | OUT_DIR)
            unset "$name" ;;
    esac
done
venv=${TOOLSIFT_WHEEL_VENV:-$HOME/.cache/toolsift-wheel-venv}
if [ ! -x "$venv/bin/maturin" ]; then
    echo "build-wheel.sh: installing maturin into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.9,<2"
fi

mkdir -p "$out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)
rm -f "$out"/toolsift-"$version"-*.whl
# The debug wheel is the tests' own build: tokio with the feature the
# tests turn on (a test build's features), else cargo compiles tokio and
# everything above it again for the wheel.
features=()
[ "$profile" = dev ] && features=(--features tokio/test-util)
(cd "$root" && "$venv/bin/maturin" build --profile "$profile" "${features[@]}" --out "$out" >&2)
wheel=$(ls "$out"/toolsift-"$version"-*.whl)

# The check: a fresh venv, the wheel alone (no index), the binary on its PATH.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
python3 -m venv "$check/venv"
"$check/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel" >&2
said=$("$check/venv/bin/toolsift" --version)
case "$said" in "toolsift $version"*) ;; *)
    echo "build-wheel.sh: the installed wheel says \"$said\", not \"toolsift $version\"" >&2
    exit 1 ;;
esac
echo "$wheel"
echo "$(du -k "$wheel" | cut -f1) KiB, $said, installed and run from a fresh venv" >&2
