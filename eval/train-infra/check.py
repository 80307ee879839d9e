#!/usr/bin/env python3
"""Check queries.jsonl and agent.jsonl against catalog.json (stdlib only)."""
import json, os, sys
from collections import Counter, defaultdict

D = os.path.dirname(os.path.abspath(__file__))
CATS = {"short", "paraphrase", "app", "vague", "multi", "none"}
errors = []

cat = json.load(open(os.path.join(D, "catalog.json")))
server_of = {t["name"]: t["_meta"]["io.toolsift/server"] for t in cat["tools"]}
tools_by_server = defaultdict(list)
for n, s in server_of.items():
    tools_by_server[s].append(n)

def load(name):
    rows = []
    p = os.path.join(D, name)
    if not os.path.exists(p):
        return rows
    for i, line in enumerate(open(p), 1):
        if not line.strip():
            errors.append(f"{name}:{i}: blank line"); continue
        try:
            rows.append(json.loads(line))
        except Exception as e:
            errors.append(f"{name}:{i}: {e}")
    return rows

def check_names(r, where):
    for n in r.get("expected", []):
        if n not in server_of:
            errors.append(f"{where} {r.get('id')}: unknown tool {n}")
    eq = r.get("equivalents")
    if eq is not None:
        if len(eq) != len(r["expected"]):
            errors.append(f"{where} {r['id']}: equivalents length")
        for e, group in zip(r["expected"], eq):
            if e not in group:
                errors.append(f"{where} {r['id']}: equivalents group lacks {e}")
            for n in group:
                if n not in server_of:
                    errors.append(f"{where} {r['id']}: unknown equivalent {n}")

qs = load("queries.jsonl")
ids = Counter(r.get("id") for r in qs)
for i, c in ids.items():
    if c > 1: errors.append(f"duplicate id {i}")
texts = Counter(r.get("query", "").strip().lower() for r in qs)
for t, c in texts.items():
    if c > 1: errors.append(f"duplicate query text: {t}")
covered = set()
by_cat = Counter(); by_server = Counter()
for r in qs:
    if not str(r.get("id", "")).startswith("tin-"):
        errors.append(f"bad id {r.get('id')}")
    c = r.get("category")
    if c not in CATS: errors.append(f"{r.get('id')}: bad category {c}")
    by_cat[c] += 1
    check_names(r, "queries")
    exp = r.get("expected", [])
    if c == "none":
        if exp or r.get("server") != "none":
            errors.append(f"{r['id']}: none must have expected [] and server none")
    else:
        if not exp:
            errors.append(f"{r['id']}: empty expected for {c}")
        elif exp[0] in server_of and r.get("server") != server_of[exp[0]]:
            errors.append(f"{r['id']}: server {r.get('server')} != {server_of[exp[0]]}")
        if c == "multi" and len(exp) < 2:
            errors.append(f"{r['id']}: multi with <2 steps")
    by_server[r.get("server")] += 1
    covered.update(exp)
    for g in r.get("equivalents") or []:
        pass

ag = load("agent.jsonl")
qid = {r["id"]: r for r in qs}
aids = Counter(r.get("id") for r in ag)
for i, c in aids.items():
    if c > 1: errors.append(f"duplicate agent id {i}")
froms = Counter()
for r in ag:
    if not str(r.get("id", "")).startswith("tina-"):
        errors.append(f"bad agent id {r.get('id')}")
    if r.get("category") != "agent": errors.append(f"{r['id']}: agent category")
    src = qid.get(r.get("from"))
    if src is None:
        errors.append(f"{r['id']}: from {r.get('from')} not a request"); continue
    froms[src["category"]] += 1
    check_names(r, "agent")
    want = src["expected"][:1] if src["category"] == "multi" else src["expected"]
    if r.get("expected") != want:
        errors.append(f"{r['id']}: expected differs from request {src['id']}")
dup_from = [f for f, c in Counter(r.get("from") for r in ag).items() if c > 1]
if dup_from: errors.append(f"agent rows share a request: {dup_from}")

n = len(qs)
print(f"requests: {n}")
print("| style | requests | share |\n|---|---|---|")
for c in ["short", "paraphrase", "app", "vague", "multi", "none"]:
    print(f"| {c} | {by_cat[c]} | {100*by_cat[c]/max(n,1):.1f}% |")
print("\n| server | tools | requests (first expected tool) | tools expected somewhere |\n|---|---|---|---|")
for s in sorted(tools_by_server):
    cov = sum(1 for t in tools_by_server[s] if t in covered)
    print(f"| {s} | {len(tools_by_server[s])} | {by_server[s]} | {cov} ({100*cov/len(tools_by_server[s]):.0f}%) |")
print(f"| none | | {by_server['none']} | |")
tot = len(server_of); cov = len(covered & set(server_of))
print(f"\ntool coverage: {cov}/{tot} ({100*cov/tot:.1f}%)")
print(f"agent searches: {len(ag)} ({100*len(ag)/max(n,1):.1f}% of requests); by request category: {dict(froms)}")
print(f"none share: {100*by_cat['none']/max(n,1):.1f}%")
uncovered = sorted(set(server_of) - covered)
if uncovered:
    print("never expected:", ", ".join(uncovered))
if errors:
    print(f"\n{len(errors)} ERRORS"); [print(" ", e) for e in errors[:80]]; sys.exit(1)
print("\nOK")
