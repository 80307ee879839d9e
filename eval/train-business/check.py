#!/usr/bin/env python3
"""Check queries.jsonl and agent.jsonl against catalog.json (stdlib only)."""
import json, os, sys
from collections import Counter, defaultdict

D = os.path.dirname(os.path.abspath(__file__))
CATS = ["short", "paraphrase", "app", "vague", "multi", "none"]
errs = []

cat = json.load(open(os.path.join(D, "catalog.json")))
server_of = {t["name"]: t["_meta"]["io.toolsift/server"] for t in cat["tools"]}
tools_by_server = defaultdict(list)
for n, s in server_of.items():
    tools_by_server[s].append(n)

def load(fn):
    rows = []
    for i, line in enumerate(open(os.path.join(D, fn)), 1):
        if not line.strip():
            errs.append(f"{fn}:{i}: blank line"); continue
        try:
            rows.append(json.loads(line))
        except Exception as e:
            errs.append(f"{fn}:{i}: {e}")
    return rows

def check_names(r, where):
    exp = r.get("expected")
    if not isinstance(exp, list):
        errs.append(f"{where}: expected not a list"); return
    for n in exp:
        if n not in server_of:
            errs.append(f"{where}: unknown tool {n}")
    if len(set(exp)) != len(exp) and r.get("category") != "multi":
        errs.append(f"{where}: duplicate expected")
    eq = r.get("equivalents")
    if eq is not None:
        if len(eq) != len(exp):
            errs.append(f"{where}: equivalents length {len(eq)} != expected {len(exp)}")
        for j, grp in enumerate(eq):
            for n in grp:
                if n not in server_of:
                    errs.append(f"{where}: unknown equivalent {n}")
            if j < len(exp) and exp[j] not in grp:
                errs.append(f"{where}: equivalents[{j}] lacks {exp[j]}")

qs = load("queries.jsonl")
ids = Counter(r.get("id") for r in qs)
for k, v in ids.items():
    if v > 1: errs.append(f"duplicate id {k}")
texts = Counter(r.get("query", "").strip().lower() for r in qs)
for k, v in texts.items():
    if v > 1: errs.append(f"duplicate query text: {k}")
qbyid = {}
covered = set()
for r in qs:
    w = f"queries {r.get('id')}"
    qbyid[r.get("id")] = r
    if not str(r.get("id", "")).startswith("tbz-"): errs.append(f"{w}: bad id")
    c = r.get("category")
    if c not in CATS: errs.append(f"{w}: bad category {c}")
    if not r.get("query"): errs.append(f"{w}: empty query")
    check_names(r, w)
    exp = r.get("expected", [])
    if c == "none":
        if exp: errs.append(f"{w}: none with expected")
        if r.get("server") != "none": errs.append(f"{w}: none server must be 'none'")
    else:
        if not exp: errs.append(f"{w}: empty expected")
        elif exp[0] in server_of and r.get("server") != server_of[exp[0]]:
            errs.append(f"{w}: server {r.get('server')} != {server_of[exp[0]]}")
        if c == "multi" and len(exp) < 2: errs.append(f"{w}: multi with <2 steps")
    covered.update(n for n in exp if n in server_of)

ag = load("agent.jsonl")
aids = Counter(r.get("id") for r in ag)
for k, v in aids.items():
    if v > 1: errs.append(f"duplicate agent id {k}")
froms = Counter(r.get("from") for r in ag)
for k, v in froms.items():
    if v > 1: errs.append(f"agent: request {k} searched twice")
for r in ag:
    w = f"agent {r.get('id')}"
    if not str(r.get("id", "")).startswith("tbza-"): errs.append(f"{w}: bad id")
    if r.get("category") != "agent": errs.append(f"{w}: category must be agent")
    src = qbyid.get(r.get("from"))
    if not src:
        errs.append(f"{w}: from {r.get('from')} unknown"); continue
    check_names(r, w)
    want = src["expected"][:1] if src["category"] == "multi" else src["expected"]
    if r.get("expected") != want:
        errs.append(f"{w}: expected {r.get('expected')} != request's {want}")

# tables
n = len(qs)
cc = Counter(r["category"] for r in qs)
print(f"requests: {n}   agent searches: {len(ag)} ({len(ag)/max(n,1):.1%} of requests)")
print("| style | requests | share |\n|---|---|---|")
for c in CATS:
    print(f"| {c} | {cc[c]} | {cc[c]/max(n,1):.1%} |")
acat = Counter(qbyid[r['from']]['category'] for r in ag if r.get('from') in qbyid)
print("\nagent searches by request style: " + ", ".join(f"{c} {acat[c]}" for c in CATS))
print(f"none requests searched: {acat['none']} of {cc['none']} ({acat['none']/max(cc['none'],1):.1%})")
ps = Counter(r["server"] for r in qs)
print("\n| server | tools | tools expected | requests (first tool) |\n|---|---|---|---|")
tot_cov = 0
for s in sorted(tools_by_server):
    cov = sum(1 for t in tools_by_server[s] if t in covered)
    tot_cov += cov
    print(f"| {s} | {len(tools_by_server[s])} | {cov} ({cov/len(tools_by_server[s]):.0%}) | {ps[s]} |")
print(f"| none | | | {ps['none']} |")
print(f"\ntool coverage: {tot_cov} of {len(server_of)} ({tot_cov/len(server_of):.1%})")
low = [s for s in tools_by_server if sum(1 for t in tools_by_server[s] if t in covered) / len(tools_by_server[s]) < 0.8]
if low: print("servers under 80% coverage: " + ", ".join(sorted(low)))
if errs:
    print(f"\n{len(errs)} problems:")
    for e in errs[:200]: print("  " + e)
    sys.exit(1)
print("\nclean")
