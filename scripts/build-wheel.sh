#!/usr/bin/env bash
# Builds toolsift's Python wheel (the binary inside, as ruff and uv ship
# theirs) with maturin, then checks it: installed into a fresh venv, its
# `toolsift --version` is this version. Prints the wheel's path and size.
#
#   scripts/build-wheel.sh [--dev] [--musl] [--out DIR]
#
# --dev builds the debug profile (quick, reusing the tests' build; for
# tests), else release. --out is where the wheel goes (default dist/).
# --musl builds the musllinux wheel (x86_64-unknown-linux-musl, a static
# binary) instead of the manylinux one; it needs that target's standard
# library: rustup's (`rustup target add x86_64-unknown-linux-musl`), or,
# where rustup's servers cannot be reached, built here from the library
# source of the pinned release (TOOLSIFT_RUST_LIBRARY: the `library`
# folder of Rust's source for rust-toolchain.toml's version), linked by
# musl-gcc (musl-tools), with a libunwind.a for musl on its library path
# (docs/release.md). The musllinux wheel is checked in a venv that uv
# installs it into for that platform (pip installs a wheel for its own).
# maturin (and uv, for --musl) come from PyPI into $TOOLSIFT_WHEEL_VENV
# (default ~/.cache/toolsift-wheel-venv) the first time.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
profile=release
musl=
out="$root/dist"
while [ $# -gt 0 ]; do
    case "$1" in
        --dev) profile=dev ;;
        --musl) musl=1 ;;
        --out) out="$2"; shift ;;
        *) echo "build-wheel.sh: unknown argument: $1 (try --dev, --musl or --out DIR)" >&2; exit 2 ;;
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
if [ ! -x "$venv/bin/maturin" ] || { [ -n "$musl" ] && [ ! -x "$venv/bin/uv" ]; }; then
    echo "build-wheel.sh: installing maturin and uv into $venv" >&2
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.9,<2" uv
fi

# The musl target's standard library: rustup's when installed (nothing to
# add), else built from TOOLSIFT_RUST_LIBRARY (maturin's flag added to
# `platform`, the environment it needs exported).
musl_std() {
    rustup target list --installed 2>/dev/null | grep -qx x86_64-unknown-linux-musl && return
    local library=${TOOLSIFT_RUST_LIBRARY:-}
    if [ -z "$library" ] || [ ! -f "$library/std/Cargo.toml" ]; then
        echo "build-wheel.sh: no standard library for x86_64-unknown-linux-musl: rustup target add x86_64-unknown-linux-musl, or set TOOLSIFT_RUST_LIBRARY to the library folder of Rust's source for this toolchain" >&2
        exit 1
    fi
    command -v musl-gcc >/dev/null || { echo "build-wheel.sh: --musl links with musl-gcc (Debian's musl-tools)" >&2; exit 1; }
    # A static binary, no program interpreter: it runs with or without musl
    # installed, as rustup's musl target links it. musl-gcc's start file
    # does not relocate itself, so rustc's -static-pie becomes a static
    # executable at a fixed address (the wrapper takes -static-pie). A
    # fixed path, so cargo's fingerprints stay put from one build to the
    # next; its name ends in "cc", so rustc passes it a C compiler's flags.
    local linker="$CARGO_TARGET_DIR/musl-static-pie-cc"
    mkdir -p "$CARGO_TARGET_DIR"
    cat > "$linker.new" <<'EOF'
#!/bin/sh
for arg; do
    shift
    if [ "$arg" = -static-pie ]; then set -- "$@" -static -no-pie; else set -- "$@" "$arg"; fi
done
exec musl-gcc "$@"
EOF
    chmod +x "$linker.new"
    cmp -s "$linker.new" "$linker" && rm "$linker.new" || mv "$linker.new" "$linker"
    export RUSTC_BOOTSTRAP=1 __CARGO_TESTS_ONLY_SRC_ROOT="$library"
    export CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_LINKER="$linker" CC_x86_64_unknown_linux_musl=musl-gcc
    export CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C link-self-contained=no"
    platform+=(-Zbuild-std=std,panic_abort)
}

mkdir -p "$out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)
# The debug wheel is the tests' own build: tokio with the feature the
# tests turn on (a test build's features), else cargo compiles tokio and
# everything above it again for the wheel.
features=()
[ "$profile" = dev ] && features=(--features tokio/test-util)
platform=()
tag=manylinux
if [ -n "$musl" ]; then
    platform=(--target x86_64-unknown-linux-musl --compatibility musllinux_1_2)
    tag=musllinux
    # A build directory of its own: the standard library built here, and
    # the build scripts run beside it, never churn the tests' build.
    export CARGO_TARGET_DIR="$CARGO_TARGET_DIR/musl"
    musl_std
fi
rm -f "$out"/toolsift-"$version"-*"$tag"*.whl
(cd "$root" && "$venv/bin/maturin" build --profile "$profile" "${features[@]}" "${platform[@]}" --out "$out" >&2)
wheel=$(ls "$out"/toolsift-"$version"-*"$tag"*.whl)

# The check: a fresh venv, the wheel alone (no index), the binary on its PATH.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
python3 -m venv "$check/venv"
if [ -n "$musl" ]; then
    "$venv/bin/uv" pip install --quiet --python "$check/venv/bin/python" --offline --no-index \
        --python-platform x86_64-unknown-linux-musl "$wheel" >&2
else
    "$check/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel" >&2
fi
said=$("$check/venv/bin/toolsift" --version)
case "$said" in "toolsift $version"*) ;; *)
    echo "build-wheel.sh: the installed wheel says \"$said\", not \"toolsift $version\"" >&2
    exit 1 ;;
esac
echo "$wheel"
echo "$(du -k "$wheel" | cut -f1) KiB, $said, installed and run from a fresh venv" >&2
