#!/usr/bin/env python3
"""Packs the toolsift binary inside a built wheel as a release archive.

    scripts/release-archive.py WHEEL TARGET OUT_DIR

The binary is taken out of the wheel itself (`toolsift-VERSION.data/scripts/`),
so the archive holds the very binary PyPI gets. It goes, with README.md,
LICENSE and CHANGELOG.md, into `toolsift-VERSION-TARGET/` inside
`toolsift-VERSION-TARGET.tar.gz` (`.zip` for a Windows target). When the
binary runs on this machine, its `--version` must name the wheel's version.
Prints the archive's path.
"""

import io
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "LICENSE", "CHANGELOG.md"]


def binary_in(wheel):
    """The wheel's version and its toolsift binary: (version, name, bytes)."""
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            parts = info.filename.split("/")
            if (
                len(parts) == 3
                and parts[0].endswith(".data")
                and parts[1] == "scripts"
                and parts[2] in ("toolsift", "toolsift.exe")
            ):
                version = parts[0][: -len(".data")].split("-", 1)[1]
                return version, parts[2], z.read(info)
    sys.exit(f"release-archive.py: {wheel} holds no toolsift binary")


def check_runs(name, data, version):
    """Runs the binary's --version where this machine can; it must say `version`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, 0o755)
        try:
            said = subprocess.run(
                [path, "--version"], capture_output=True, text=True, timeout=60
            ).stdout.strip()
        except OSError:
            print(f"release-archive.py: {name} does not run here; not run", file=sys.stderr)
            return
    if not said.startswith(f"toolsift {version}"):
        sys.exit(f'release-archive.py: the binary says "{said}", not "toolsift {version}"')


def write_tar(path, top, name, data):
    """A tar.gz: the binary, executable, and the docs under `top/`."""
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(f"{top}/{name}")
        info.size, info.mode = len(data), 0o755
        tar.addfile(info, io.BytesIO(data))
        for doc in DOCS:
            tar.add(os.path.join(ROOT, doc), f"{top}/{doc}")


def write_zip(path, top, name, data):
    """A zip: the binary and the docs under `top/`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo(f"{top}/{name}")
        info.external_attr = 0o755 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, data)
        for doc in DOCS:
            z.write(os.path.join(ROOT, doc), f"{top}/{doc}")


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: release-archive.py WHEEL TARGET OUT_DIR")
    wheel, target, out = sys.argv[1:]
    version, name, data = binary_in(wheel)
    check_runs(name, data, version)
    top = f"toolsift-{version}-{target}"
    os.makedirs(out, exist_ok=True)
    if "windows" in target:
        path = os.path.join(out, f"{top}.zip")
        write_zip(path, top, name, data)
    else:
        path = os.path.join(out, f"{top}.tar.gz")
        write_tar(path, top, name, data)
    print(path)


if __name__ == "__main__":
    main()
