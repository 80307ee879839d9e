#!/usr/bin/env python3
"""Counts that say how easy the house is to live in, at a revision (default:
the working tree): functions that return `Result<_, String>` (all, and those
`pub` or `pub(crate)`), outside test files; and the test helpers defined
more than once under tests/: by name, and by body (the same code, whatever
its name, in more than one place).

    scripts/house-counts.py [REV] [-v]
"""
import collections
import re
import subprocess
import sys

args = [a for a in sys.argv[1:] if a != "-v"]
verbose = "-v" in sys.argv
rev = args[0] if args else None


def files(under):
    if rev:
        out = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, under],
                             capture_output=True, text=True, check=True).stdout
    else:
        out = subprocess.run(["git", "ls-files", under], capture_output=True, text=True, check=True).stdout
    return [f for f in out.split() if f.endswith(".rs")]


def text(path):
    if rev:
        return subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True).stdout
    with open(path) as f:
        return f.read()


SIG = re.compile(r"((?:pub(?:\([a-z]+\))?\s+)?)(?:async\s+)?fn\s+(\w+)[^{;]*?->\s*Result<[^{;]*,\s*String>\s*(?:where[^{]*)?\{", re.S)
every, public = [], []
for f in files("src"):
    if re.search(r"tests?(_[a-z_]+)?\.rs$", f) or "/tests/" in f:
        continue
    body = re.split(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text(f))[0]
    for m in SIG.finditer(body):
        every.append(f"{f}: {m.group(2)}")
        if m.group(1).strip() in ("pub", "pub(crate)"):
            public.append(f"{f}: {m.group(2)}")
print(f"Result<_, String>: {len(every)} functions, {len(public)} of them pub or pub(crate)")
if verbose:
    print("\n".join("  " + p for p in public))

HELPER = re.compile(r"^\s*(?:pub(?:\(crate\))?\s+)?fn\s+(\w+)\s*[(<]", re.M)
defined = collections.defaultdict(set)
for f in files("tests"):
    for name in HELPER.findall(text(f)):
        defined[name].add(f)
twice = {n: fs for n, fs in defined.items() if len(fs) > 1 and n not in ("drop", "new", "main")}
print(f"test helpers defined in more than one file: {len(twice)} names, {sum(len(v) for v in twice.values())} definitions")
if verbose:
    for n, fs in sorted(twice.items(), key=lambda kv: -len(kv[1])):
        print(f"  {n}: {', '.join(sorted(fs))}")


def bodies(source):
    """Each function's (name, body) in `source`, the body's whitespace collapsed."""
    out = []
    for m in HELPER.finditer(source):
        open_at = source.find("{", m.end())
        semi = source.find(";", m.end())
        if open_at < 0 or (0 <= semi < open_at):
            continue
        depth, i = 0, open_at
        while i < len(source):
            depth += {"{": 1, "}": -1}.get(source[i], 0)
            if depth == 0:
                break
            i += 1
        out.append((m.group(1), " ".join(source[open_at:i + 1].split())))
    return out


same = collections.defaultdict(list)
for f in files("tests"):
    for name, body in bodies(text(f)):
        if len(body) > 40 and name not in ("drop", "new", "main"):
            same[body].append(f"{f}: {name}")
copies = {b: at for b, at in same.items() if len(at) > 1}
print(f"test helpers whose body is written out more than once: {len(copies)} bodies, {sum(len(v) for v in copies.values())} definitions")
if verbose:
    for at in copies.values():
        print(f"  {', '.join(at)}")
