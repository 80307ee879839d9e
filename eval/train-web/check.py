#!/usr/bin/env python3
"""Checks queries.jsonl and agent.jsonl against catalog.json (stdlib only).

Run from anywhere: python3 eval/train-web/check.py
Exits non-zero on any error; prints the counts tables used in README.md.
"""
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = {"short", "paraphrase", "app", "vague", "multi", "none"}
errors = []


def err(msg):
    errors.append(msg)


def load_jsonl(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                err(f"{name}:{n}: blank line")
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{name}:{n}: bad JSON: {e}")
    return rows


with open(os.path.join(HERE, "catalog.json"), encoding="utf-8") as fh:
    catalog = json.load(fh)
server_of = {t["name"]: t["_meta"]["io.toolsift/server"] for t in catalog["tools"]}
if len(server_of) != len(catalog["tools"]):
    err("catalog.json: duplicate tool names")
tools_per_server = collections.Counter(server_of.values())


def check_names(row, where):
    exp = row.get("expected")
    if not isinstance(exp, list):
        err(f"{where}: expected is not a list")
        return
    for name in exp:
        if name not in server_of:
            err(f"{where}: unknown tool {name!r}")
    if "equivalents" in row:
        eq = row["equivalents"]
        if not isinstance(eq, list) or len(eq) != len(exp):
            err(f"{where}: equivalents must be a list with one group per expected tool")
            return
        for name, group in zip(exp, eq):
            if name not in group:
                err(f"{where}: equivalents group for {name} does not include it")
            for g in group:
                if g not in server_of:
                    err(f"{where}: unknown equivalent {g!r}")


queries = load_jsonl("queries.jsonl")
ids = collections.Counter(q.get("id") for q in queries)
for i, c in ids.items():
    if c > 1:
        err(f"queries: duplicate id {i}")
texts = collections.Counter(q.get("query", "").strip().lower() for q in queries)
for t, c in texts.items():
    if c > 1:
        err(f"queries: duplicate query text {t!r}")
by_id = {}
for q in queries:
    where = f"queries {q.get('id')}"
    by_id[q.get("id")] = q
    if not str(q.get("id", "")).startswith("twb-"):
        err(f"{where}: id prefix")
    cat = q.get("category")
    if cat not in CATS:
        err(f"{where}: bad category {cat!r}")
    check_names(q, where)
    exp = q.get("expected") or []
    if cat == "none":
        if exp or q.get("server") != "none":
            err(f"{where}: none request must have expected [] and server none")
    else:
        if not exp:
            err(f"{where}: empty expected outside none")
        elif exp[0] in server_of and q.get("server") != server_of[exp[0]]:
            err(f"{where}: server {q.get('server')!r} != {server_of[exp[0]]!r}")
    if cat == "multi" and len(exp) < 2:
        err(f"{where}: multi with fewer than two steps")

agent = load_jsonl("agent.jsonl")
aids = collections.Counter(a.get("id") for a in agent)
for i, c in aids.items():
    if c > 1:
        err(f"agent: duplicate id {i}")
froms = collections.Counter(a.get("from") for a in agent)
for f, c in froms.items():
    if c > 1:
        err(f"agent: request {f} searched twice")
for a in agent:
    where = f"agent {a.get('id')}"
    if a.get("category") != "agent" or not str(a.get("id", "")).startswith("twba-"):
        err(f"{where}: bad id or category")
    src = by_id.get(a.get("from"))
    if src is None:
        err(f"{where}: unknown from {a.get('from')!r}")
        continue
    check_names(a, where)
    want = src["expected"][:1] if src["category"] == "multi" else src["expected"]
    if a.get("expected") != want:
        err(f"{where}: expected {a.get('expected')} != request's {want}")

# ---- tables ----
n = len(queries)
cats = collections.Counter(q["category"] for q in queries)
print(f"requests: {n}")
print("| style | requests | share |\n|---|---|---|")
for c in ["short", "paraphrase", "app", "vague", "multi", "none"]:
    print(f"| {c} | {cats[c]} | {100 * cats[c] / n:.1f}% |")
none_share = cats["none"] / n
if none_share < 0.17:
    err(f"none share {none_share:.1%} below 17%")

used = set()
for q in queries:
    used.update(q["expected"])
per_server = collections.Counter(q["server"] for q in queries)
cov = collections.Counter(server_of[t] for t in used)
print("\n| server | tools | requests | tools expected somewhere |\n|---|---|---|---|")
for s in sorted(tools_per_server):
    print(f"| {s} | {tools_per_server[s]} | {per_server[s]} | {cov[s]}/{tools_per_server[s]} |")
    if cov[s] < 0.8 * tools_per_server[s]:
        err(f"coverage of {s} below 80%")
print(f"| none | | {per_server['none']} | |")
print(f"\ntools expected somewhere: {len(used)}/{len(server_of)} ({100 * len(used) / len(server_of):.1f}%)")

acats = collections.Counter(by_id[a["from"]]["category"] for a in agent if a.get("from") in by_id)
print(f"\nagent searches: {len(agent)} ({100 * len(agent) / n:.1f}% of requests)")
print("| from style | searches |\n|---|---|")
for c in ["short", "paraphrase", "app", "vague", "multi", "none"]:
    print(f"| {c} | {acats[c]} |")
if len(agent) < 0.3 * n:
    err("agent searches below 30% of requests")

if errors:
    print(f"\n{len(errors)} error(s):", file=sys.stderr)
    for e in errors:
        print("  " + e, file=sys.stderr)
    sys.exit(1)
print("\nOK")
