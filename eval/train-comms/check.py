#!/usr/bin/env python3
"""Check queries.jsonl and agent.jsonl against catalog.json (stdlib only)."""
import collections, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = {"short", "paraphrase", "app", "vague", "multi", "none"}
problems = []

tools = json.load(open(os.path.join(HERE, "catalog.json")))["tools"]
server_of = {t["name"]: t["_meta"]["io.toolsift/server"] for t in tools}


def load(name):
    rows = []
    for n, line in enumerate(open(os.path.join(HERE, name)), 1):
        try:
            rows.append(json.loads(line))
        except ValueError as e:
            problems.append(f"{name}:{n}: does not parse: {e}")
    return rows


def check_names(where, r):
    exp = r.get("expected", [])
    for n in exp:
        if n not in server_of:
            problems.append(f"{where}: unknown expected tool {n}")
    eqs = r.get("equivalents")
    if eqs is not None:
        if len(eqs) != len(exp):
            problems.append(f"{where}: equivalents length differs from expected")
        for e, al in zip(exp, eqs):
            if e not in al:
                problems.append(f"{where}: equivalents group lacks its expected tool {e}")
            for n in al:
                if n not in server_of:
                    problems.append(f"{where}: unknown equivalent tool {n}")


queries = load("queries.jsonl")
agents = load("agent.jsonl")
ids = collections.Counter(r.get("id") for r in queries + agents)
for i, c in ids.items():
    if c > 1:
        problems.append(f"duplicate id {i}")
texts = collections.Counter(r.get("query", "").strip().lower() for r in queries)
for t, c in texts.items():
    if c > 1:
        problems.append(f"duplicate request text: {t}")

by_id = {}
for r in queries:
    w = r.get("id")
    by_id[w] = r
    if not str(w).startswith("tcm-"):
        problems.append(f"{w}: id prefix")
    if r.get("category") not in CATS:
        problems.append(f"{w}: bad category {r.get('category')}")
    check_names(w, r)
    exp = r.get("expected", [])
    if r.get("category") == "none":
        if exp or r.get("server") != "none":
            problems.append(f"{w}: none request with tools or server")
    else:
        if not exp:
            problems.append(f"{w}: no expected tool")
        elif server_of.get(exp[0]) != r.get("server"):
            problems.append(f"{w}: server {r.get('server')} != {server_of.get(exp[0])}")
        if r.get("category") == "multi" and len(exp) < 2:
            problems.append(f"{w}: multi with one step")

for a in agents:
    w = a.get("id")
    if not str(w).startswith("tcma-") or a.get("category") != "agent":
        problems.append(f"{w}: agent id/category")
    src = by_id.get(a.get("from"))
    if src is None:
        problems.append(f"{w}: from unknown request")
        continue
    check_names(w, a)
    if a.get("expected") != src.get("expected", [])[:1]:
        problems.append(f"{w}: expected differs from its request's first step")

n = len(queries)
cat = collections.Counter(r["category"] for r in queries)
print("| style | requests | share |\n|---|---|---|")
for c in ["short", "paraphrase", "app", "vague", "multi", "none"]:
    print(f"| {c} | {cat[c]} | {100 * cat[c] / n:.1f}% |")
print(f"| **total** | **{n}** | |")
per = collections.Counter(r["server"] for r in queries)
print("\nrequests per server: " + ", ".join(f"{s} {c}" for s, c in per.most_common()))
used = set()
for r in queries:
    used.update(r["expected"])
print(f"\ntools expected somewhere: {len(used)} of {len(server_of)} ({100 * len(used) / len(server_of):.1f}%)")
for s in sorted(set(server_of.values())):
    st = [t for t, v in server_of.items() if v == s]
    u = [t for t in st if t in used]
    print(f"  {s}: {len(u)}/{len(st)}" + ("" if len(u) == len(st) else "  missing: " + ", ".join(t for t in st if t not in used)))
an = collections.Counter(by_id[a["from"]]["category"] for a in agents if a.get("from") in by_id)
print(f"\nagent searches: {len(agents)} ({100 * len(agents) / n:.1f}% of requests); by request style: "
      + ", ".join(f"{c} {an[c]}" for c in ["short", "paraphrase", "app", "vague", "multi", "none"]))
print(f"none share: {100 * cat['none'] / n:.1f}%")
if len(used) < 0.8 * len(server_of):
    problems.append("tool coverage under 80%")
if cat["none"] < 0.17 * n:
    problems.append("none share under 17%")
if len(agents) < 0.3 * n:
    problems.append("agent searches under 30% of requests")
print("\n" + ("OK: no problems" if not problems else f"{len(problems)} problems:"))
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
