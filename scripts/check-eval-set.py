#!/usr/bin/env python3
"""Checks an evaluation set of the eval/train-* shape against its catalog
(stdlib only): `queries.jsonl` (requests with the tools they expect) and
`agent.jsonl` (the words an agent would search with for a request's first
step), both against `catalog.json`. Prints the set's make-up and exits 1
naming every problem (file, line or id, what is wrong).

    scripts/check-eval-set.py eval/train-web [eval/train-data ...]

The rules, for every set alike:
- every line parses; ids are unique across both files and share the set's
  prefix (`twb-` for requests, `twba-` for agent rows);
- a request has an id, a category (short, paraphrase, app, vague, multi,
  none), a server, non-empty words and its expected tools; the words are not
  repeated (any case);
- expected tools exist in the catalog, once each (a `multi` may come back
  to a tool in a later step); `equivalents` runs parallel
  to `expected` and each group holds its expected tool;
- a `none` request expects nothing and names server `none`; any other
  expects a tool, and its server is the first expected tool's; a `multi`
  expects two steps or more;
- an agent row comes from a request, no two from the same one, and expects
  its request's first step (all of it for a request of one step);
- the make-up: at least 17 % `none`, agent rows for at least 30 % of the
  requests, and at least 80 % of the catalog's tools (and of each server's)
  expected somewhere.
"""
import collections
import json
import os
import sys

CATEGORIES = ["short", "paraphrase", "app", "vague", "multi", "none"]


def check(folder):
    errors = []
    catalog = json.load(open(os.path.join(folder, "catalog.json")))
    names = [t["name"] for t in catalog["tools"]]
    if len(names) != len(set(names)):
        errors.append("catalog.json: a tool name is repeated")
    server_of = {t["name"]: t.get("_meta", {}).get("io.toolsift/server", "") for t in catalog["tools"]}
    tools_by_server = collections.defaultdict(list)
    for name, server in server_of.items():
        tools_by_server[server].append(name)

    def load(file):
        rows, path = [], os.path.join(folder, file)
        if not os.path.exists(path):
            return rows
        for i, line in enumerate(open(path), 1):
            if not line.strip():
                errors.append(f"{file}:{i}: empty line")
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                errors.append(f"{file}:{i}: does not parse: {e}")
        return rows

    def check_names(row, where):
        expected = row.get("expected")
        if not isinstance(expected, list):
            errors.append(f"{where}: expected is not a list")
            return
        for name in expected:
            if name not in server_of:
                errors.append(f"{where}: unknown tool {name!r}")
        if row.get("category") != "multi" and len(set(expected)) != len(expected):
            errors.append(f"{where}: an expected tool is repeated")
        groups = row.get("equivalents")
        if groups is None:
            return
        if len(groups) != len(expected):
            errors.append(f"{where}: equivalents not parallel to expected")
        for want, group in zip(expected, groups):
            if want not in group:
                errors.append(f"{where}: an equivalents group lacks {want!r}")
            errors.extend(f"{where}: unknown equivalent {n!r}" for n in group if n not in server_of)

    requests, agent = load("queries.jsonl"), load("agent.jsonl")
    for id_, count in collections.Counter(r.get("id") for r in requests + agent).items():
        if count > 1:
            errors.append(f"id {id_!r} used {count} times")
    prefix = str(requests[0].get("id", "")).split("-")[0] + "-" if requests else ""
    by_id = {}
    for r in requests:
        where = f"queries.jsonl {r.get('id')}"
        by_id[r.get("id")] = r
        missing = [k for k in ("id", "category", "server", "query", "expected") if k not in r]
        if missing:
            errors.append(f"{where}: missing {', '.join(missing)}")
            continue
        if not str(r["id"]).startswith(prefix):
            errors.append(f"{where}: id does not start with {prefix!r}")
        category, expected = r["category"], r["expected"]
        if category not in CATEGORIES:
            errors.append(f"{where}: bad category {category!r}")
        if not str(r["query"]).strip():
            errors.append(f"{where}: empty query")
        check_names(r, where)
        if category == "none":
            if expected or r["server"] != "none":
                errors.append(f"{where}: a none request expects [] and names server none")
        elif not expected:
            errors.append(f"{where}: empty expected for {category}")
        elif expected[0] in server_of and r["server"] != server_of[expected[0]]:
            errors.append(f"{where}: server {r['server']!r} is not {server_of[expected[0]]!r}")
        if category == "multi" and len(expected) < 2:
            errors.append(f"{where}: multi with fewer than 2 steps")
    for words, count in collections.Counter(str(r.get("query", "")).strip().lower() for r in requests).items():
        if count > 1:
            errors.append(f"queries.jsonl: the words {words!r} are repeated {count} times")

    agent_prefix = prefix[:-1] + "a-"
    for a in agent:
        where = f"agent.jsonl {a.get('id')}"
        if not str(a.get("id", "")).startswith(agent_prefix) or a.get("category") != "agent":
            errors.append(f"{where}: an agent row's id starts with {agent_prefix!r} and its category is agent")
        source = by_id.get(a.get("from"))
        if source is None or "expected" not in source:
            errors.append(f"{where}: from {a.get('from')!r} is not a request")
            continue
        check_names(a, where)
        want = source["expected"][:1] if source.get("category") == "multi" else source["expected"]
        if a.get("expected") != want:
            errors.append(f"{where}: expected differs from its request's first step")
    for source, count in collections.Counter(a.get("from") for a in agent).items():
        if count > 1:
            errors.append(f"agent.jsonl: {count} rows come from request {source!r}")

    n = max(len(requests), 1)
    categories = collections.Counter(r.get("category") for r in requests)
    covered = {t for r in requests for t in r.get("expected", []) if t in server_of}
    print(f"{folder}: {len(requests)} requests, {len(agent)} agent rows, {len(server_of)} tools")
    print("| style | requests | share |\n|---|---|---|")
    for c in CATEGORIES:
        print(f"| {c} | {categories[c]} | {100 * categories[c] / n:.1f}% |")
    print("\n| server | tools | expected somewhere |\n|---|---|---|")
    for server in sorted(tools_by_server):
        tools = tools_by_server[server]
        share = sum(t in covered for t in tools)
        print(f"| {server} | {len(tools)} | {share} |")
        if share < 0.8 * len(tools):
            errors.append(f"server {server}: {share} of {len(tools)} tools expected somewhere, under 80%")
    print(f"\ntool coverage: {len(covered)}/{len(server_of)}")
    if categories["none"] < 0.17 * n:
        errors.append(f"none share {categories['none'] / n:.3f} is under 0.17")
    if len(agent) < 0.3 * n:
        errors.append(f"agent rows for {len(agent)} of {n} requests, under 30%")
    if len(covered) < 0.8 * len(server_of):
        errors.append("tool coverage under 80%")
    return errors


def main(folders):
    if not folders:
        sys.exit(__doc__)
    failed = False
    for folder in folders:
        errors = check(folder)
        if errors:
            failed = True
            print(f"\n{folder}: {len(errors)} problems:")
            print("\n".join("  " + e for e in errors))
        else:
            print(f"{folder}: OK\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
