#!/usr/bin/env python3
"""Check queries.jsonl and agent.jsonl against catalog.json (stdlib only)."""
import collections, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATS = {"short", "paraphrase", "app", "vague", "multi", "none"}
errors = []

tools = json.load(open(os.path.join(HERE, "catalog.json")))["tools"]
server_of = {t["name"]: t["_meta"]["io.toolsift/server"] for t in tools}
if len(server_of) != len(tools):
    errors.append("duplicate tool names in catalog.json")


def load(name):
    rows = []
    for n, line in enumerate(open(os.path.join(HERE, name)), 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            errors.append(f"{name}:{n}: does not parse: {e}")
    return rows


def check_names(row, where):
    exp = row.get("expected")
    if not isinstance(exp, list):
        errors.append(f"{where}: expected is not a list")
        return
    for t in exp:
        if t not in server_of:
            errors.append(f"{where}: unknown tool {t!r}")
    if len(set(exp)) != len(exp) and row.get("category") != "multi":
        errors.append(f"{where}: repeated expected tool")
    eq = row.get("equivalents")
    if eq is not None:
        if len(eq) != len(exp):
            errors.append(f"{where}: equivalents not parallel to expected")
        for i, group in enumerate(eq):
            for t in group:
                if t not in server_of:
                    errors.append(f"{where}: unknown equivalent {t!r}")
            if i < len(exp) and exp[i] not in group:
                errors.append(f"{where}: equivalents[{i}] lacks {exp[i]!r}")


queries = load("queries.jsonl")
agent = load("agent.jsonl")
ids = collections.Counter(r.get("id") for r in queries + agent)
for i, c in ids.items():
    if c > 1:
        errors.append(f"id {i} used {c} times")

by_id = {}
for r in queries:
    where = r.get("id", "?")
    by_id[where] = r
    if not where.startswith("tdv-"):
        errors.append(f"{where}: id prefix")
    cat = r.get("category")
    if cat not in CATS:
        errors.append(f"{where}: bad category {cat!r}")
    if not r.get("query", "").strip():
        errors.append(f"{where}: empty query")
    check_names(r, where)
    exp = r.get("expected", [])
    if cat == "none":
        if exp or r.get("server") != "none":
            errors.append(f"{where}: none request must have expected [] and server none")
    else:
        if not exp:
            errors.append(f"{where}: empty expected outside none")
        elif r.get("server") != server_of.get(exp[0]):
            errors.append(f"{where}: server {r.get('server')!r} != {server_of.get(exp[0])!r}")
    if cat == "multi" and len(exp) < 2:
        errors.append(f"{where}: multi with fewer than 2 steps")

texts = collections.Counter(r.get("query", "").strip().lower() for r in queries)
for t, c in texts.items():
    if c > 1:
        errors.append(f"query repeated {c} times: {t!r}")

for a in agent:
    where = a.get("id", "?")
    if not where.startswith("tdva-") or a.get("category") != "agent":
        errors.append(f"{where}: agent id/category")
    src = by_id.get(a.get("from"))
    if src is None:
        errors.append(f"{where}: from {a.get('from')!r} not a request")
        continue
    check_names(a, where)
    want = src["expected"][:1]
    if a.get("expected") != want:
        errors.append(f"{where}: expected differs from its request's first step")
    if "equivalents" in src and a.get("equivalents") != src["equivalents"][:1]:
        errors.append(f"{where}: equivalents differ from its request's")

# counts
n = len(queries)
cats = collections.Counter(r["category"] for r in queries)
print(f"catalog: {len(tools)} tools over {len(set(server_of.values()))} servers")
print(f"requests: {n}")
print("| style | requests | share |\n|---|---|---|")
for c in ["short", "paraphrase", "app", "vague", "multi", "none"]:
    print(f"| {c} | {cats[c]} | {100 * cats[c] / n:.1f}% |")
per = collections.Counter(r["server"] for r in queries)
tools_per = collections.Counter(server_of.values())
covered = {t for r in queries for t in r["expected"]}
print("\n| server | tools | requests (first step) | tools expected somewhere |\n|---|---|---|---|")
for s in sorted(tools_per, key=lambda s: (-tools_per[s], s)):
    cov = sum(1 for t, sv in server_of.items() if sv == s and t in covered)
    print(f"| {s} | {tools_per[s]} | {per[s]} | {cov} |")
print(f"| none | | {per['none']} | |")
print(f"\ntool coverage: {len(covered)}/{len(tools)} ({100 * len(covered) / len(tools):.1f}%)")
if len(covered) < 0.8 * len(tools):
    errors.append("tool coverage under 80%")
acats = collections.Counter(by_id[a["from"]]["category"] for a in agent if a.get("from") in by_id)
print(f"agent searches: {len(agent)} ({100 * len(agent) / n:.1f}% of requests); by request style: "
      + ", ".join(f"{c} {acats[c]}" for c in ["short", "paraphrase", "app", "vague", "multi", "none"]))
if len(agent) < 0.3 * n:
    errors.append("agent searches under 30% of requests")
if cats["none"] < 0.17 * n:
    errors.append("none share under 17%")

if errors:
    print("\nERRORS:")
    for e in errors:
        print(" ", e)
    sys.exit(1)
print("\nOK")
