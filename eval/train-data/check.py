#!/usr/bin/env python3
"""Check queries.jsonl and agent.jsonl against catalog.json (stdlib only)."""
import json, os, sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = {"short", "paraphrase", "app", "vague", "multi", "none"}
errors = []

cat = json.load(open(os.path.join(HERE, "catalog.json")))
server_of = {t["name"]: t["_meta"]["io.toolsift/server"] for t in cat["tools"]}
tools_by_server = defaultdict(list)
for n, s in server_of.items():
    tools_by_server[s].append(n)


def load(name):
    rows = []
    path = os.path.join(HERE, name)
    if not os.path.exists(path):
        return rows
    for i, line in enumerate(open(path), 1):
        if not line.strip():
            errors.append(f"{name}:{i}: empty line")
            continue
        try:
            rows.append(json.loads(line))
        except Exception as e:
            errors.append(f"{name}:{i}: bad json: {e}")
    return rows


def check_names(r, where):
    for n in r.get("expected", []):
        if n not in server_of:
            errors.append(f"{where} {r.get('id')}: unknown tool {n}")
    eqs = r.get("equivalents")
    if eqs is not None:
        if len(eqs) != len(r["expected"]):
            errors.append(f"{where} {r.get('id')}: equivalents length differs from expected")
        for e, grp in zip(r["expected"], eqs):
            if e not in grp:
                errors.append(f"{where} {r.get('id')}: equivalents group lacks {e}")
            for n in grp:
                if n not in server_of:
                    errors.append(f"{where} {r.get('id')}: unknown equivalent {n}")


qs = load("queries.jsonl")
ids = Counter(r.get("id") for r in qs)
for k, v in ids.items():
    if v > 1:
        errors.append(f"queries: duplicate id {k}")
texts = Counter(r.get("query", "").strip().lower() for r in qs)
for k, v in texts.items():
    if v > 1:
        errors.append(f"queries: duplicate query text {k!r}")
byid = {}
for r in qs:
    byid[r.get("id")] = r
    for key in ("id", "category", "server", "query", "expected"):
        if key not in r:
            errors.append(f"queries {r.get('id')}: missing {key}")
    c = r.get("category")
    if c not in CATS:
        errors.append(f"queries {r.get('id')}: bad category {c}")
    check_names(r, "queries")
    exp = r.get("expected", [])
    if c == "none":
        if exp or r.get("server") != "none":
            errors.append(f"queries {r.get('id')}: none must have expected [] and server none")
    else:
        if not exp:
            errors.append(f"queries {r.get('id')}: empty expected in {c}")
        elif exp[0] in server_of and r.get("server") != server_of[exp[0]]:
            errors.append(f"queries {r.get('id')}: server {r.get('server')} != {server_of[exp[0]]}")
    if c == "multi" and len(exp) < 2:
        errors.append(f"queries {r.get('id')}: multi with fewer than 2 steps")

ag = load("agent.jsonl")
aids = Counter(r.get("id") for r in ag)
for k, v in aids.items():
    if v > 1:
        errors.append(f"agent: duplicate id {k}")
for r in ag:
    if r.get("category") != "agent":
        errors.append(f"agent {r.get('id')}: category must be agent")
    src = byid.get(r.get("from"))
    if src is None:
        errors.append(f"agent {r.get('id')}: from {r.get('from')} not a request")
        continue
    check_names(r, "agent")
    want = src["expected"][:1] if src["category"] == "multi" else src["expected"]
    if r.get("expected") != want:
        errors.append(f"agent {r.get('id')}: expected differs from its request")

# counts
n = len(qs)
cc = Counter(r["category"] for r in qs)
print(f"requests: {n}")
print("| style | requests | share |\n|---|---|---|")
for c in ["short", "paraphrase", "app", "vague", "multi", "none"]:
    print(f"| {c} | {cc[c]} | {100*cc[c]/max(n,1):.1f}% |")
covered = set()
for r in qs:
    covered.update(r.get("expected", []))
    for g in r.get("equivalents", []) or []:
        pass
per_server = Counter(r["server"] for r in qs)
print("\n| server | tools | tools expected somewhere | requests (first tool's server) |\n|---|---|---|---|")
for s in sorted(tools_by_server):
    ts = tools_by_server[s]
    cov = sum(1 for t in ts if t in covered)
    print(f"| {s} | {len(ts)} | {cov} | {per_server[s]} |")
print(f"| none | | | {per_server['none']} |")
tot_cov = len(covered & set(server_of))
print(f"\ntool coverage: {tot_cov}/{len(server_of)} = {100*tot_cov/len(server_of):.1f}%")
missing = sorted(set(server_of) - covered)
if missing:
    print("never expected:", ", ".join(missing))
ac = Counter(byid[r["from"]]["category"] for r in ag if r.get("from") in byid)
print(f"\nagent searches: {len(ag)} ({100*len(ag)/max(n,1):.1f}% of requests); by source category: " + ", ".join(f"{k} {v}" for k, v in sorted(ac.items())))
if cc["none"] / max(n, 1) < 0.17:
    errors.append(f"none share {cc['none']/max(n,1):.3f} < 0.17")
if tot_cov / len(server_of) < 0.8:
    errors.append("tool coverage under 80%")
for s, ts in tools_by_server.items():
    cov = sum(1 for t in ts if t in covered)
    if cov / len(ts) < 0.8:
        errors.append(f"server {s}: coverage {cov}/{len(ts)} under 80%")
if errors:
    print(f"\n{len(errors)} problems:")
    for e in errors[:200]:
        print("  " + e)
    sys.exit(1)
print("\nOK")
