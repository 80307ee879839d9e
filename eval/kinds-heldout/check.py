#!/usr/bin/env python3
"""Checks queries.jsonl and agent.jsonl against catalog.json (stdlib only).

Run from anywhere: python3 eval/kinds-heldout/check.py
Prints the counts tables of the README; exits 1 on any problem."""
import json, os, sys
from collections import Counter, defaultdict

D = os.path.dirname(os.path.abspath(__file__))
CATS = {'short', 'paraphrase', 'app', 'vague', 'multi', 'none'}
errors = []

cat = json.load(open(os.path.join(D, 'catalog.json')))
server_of = {}
for t in cat['tools']:
    if t['name'] in server_of:
        errors.append('duplicate tool name in catalog: %s' % t['name'])
    server_of[t['name']] = t['_meta']['io.toolsift/server']
tools_per_server = Counter(server_of.values())


def load(name):
    rows = []
    with open(os.path.join(D, name)) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                errors.append('%s:%d: empty line' % (name, n))
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                errors.append('%s:%d: does not parse: %s' % (name, n, e))
    return rows


def check_names(r, where):
    exp = r.get('expected')
    if not isinstance(exp, list):
        errors.append('%s: expected is not a list' % where)
        return
    for name in exp:
        if name not in server_of:
            errors.append('%s: unknown tool %r' % (where, name))
    eq = r.get('equivalents')
    if eq is not None:
        if len(eq) != len(exp):
            errors.append('%s: equivalents has %d lists for %d expected' % (where, len(eq), len(exp)))
        for i, alts in enumerate(eq):
            for name in alts:
                if name not in server_of:
                    errors.append('%s: unknown equivalent %r' % (where, name))
            if i < len(exp) and exp[i] not in alts:
                errors.append('%s: equivalents[%d] lacks its expected tool %s' % (where, i, exp[i]))


queries = load('queries.jsonl')
agent = load('agent.jsonl')
ids = Counter(r.get('id') for r in queries + agent)
for i, n in ids.items():
    if n > 1:
        errors.append('duplicate id %s' % i)
texts = Counter(r.get('query', '').strip().lower() for r in queries)
for q, n in texts.items():
    if n > 1:
        errors.append('duplicate query text %r' % q)

by_id = {}
covered = set()
per_server = defaultdict(Counter)
for r in queries:
    rid = r.get('id', '?')
    by_id[rid] = r
    if not str(rid).startswith('kh-'):
        errors.append('%s: id prefix' % rid)
    c = r.get('category')
    if c not in CATS:
        errors.append('%s: bad category %r' % (rid, c))
    check_names(r, rid)
    exp = r.get('expected', [])
    if c == 'none':
        if exp or r.get('server') != 'none':
            errors.append('%s: none request must have expected [] and server none' % rid)
    else:
        if not exp:
            errors.append('%s: %s request without expected tools' % (rid, c))
        elif r.get('server') != server_of.get(exp[0]):
            errors.append('%s: server %r but first expected tool is on %r' % (rid, r.get('server'), server_of.get(exp[0])))
    if c == 'multi' and len(exp) < 2:
        errors.append('%s: multi with fewer than 2 steps' % rid)
    if c != 'multi' and len(exp) > 1:
        errors.append('%s: %s with several expected tools' % (rid, c))
    for name in exp:
        covered.add(name)
    for alts in r.get('equivalents') or []:
        pass
    per_server[r.get('server')][c] += 1

agent_from = Counter()
for r in agent:
    rid = r.get('id', '?')
    if not str(rid).startswith('kha-'):
        errors.append('%s: id prefix' % rid)
    if r.get('category') != 'agent':
        errors.append('%s: category must be agent' % rid)
    src = by_id.get(r.get('from'))
    if src is None:
        errors.append('%s: from %r is no request' % (rid, r.get('from')))
        continue
    agent_from[src['category']] += 1
    check_names(r, rid)
    if r.get('expected') != src['expected'][:1]:
        errors.append('%s: expected differs from the first step of %s' % (rid, src['id']))

# report
n = len(queries)
cats = Counter(r['category'] for r in queries)
print('| style | requests | share | agent searches |')
print('|---|---|---|---|')
for c in ['short', 'paraphrase', 'app', 'vague', 'multi', 'none']:
    print('| %s | %d | %.1f%% | %d |' % (c, cats[c], 100.0 * cats[c] / n, agent_from[c]))
print('| **total** | **%d** | | **%d** (%.1f%%) |' % (n, len(agent), 100.0 * len(agent) / n))
print()
print('| server | tools | tools expected | requests | short | paraphrase | app | vague | multi |')
print('|---|---|---|---|---|---|---|---|---|')
for s in sorted(tools_per_server):
    k = per_server[s]
    cov = sum(1 for t, sv in server_of.items() if sv == s and t in covered)
    print('| %s | %d | %d | %d | %d | %d | %d | %d | %d |' % (
        s, tools_per_server[s], cov, sum(k.values()), k['short'], k['paraphrase'], k['app'], k['vague'], k['multi']))
print('| none | | | %d | | | | | |' % per_server['none']['none'])
print()
print('tools: %d, expected somewhere: %d (%.1f%%)' % (len(server_of), len(covered), 100.0 * len(covered) / len(server_of)))
for s in sorted(tools_per_server):
    cov = sum(1 for t, sv in server_of.items() if sv == s and t in covered)
    if cov < 0.8 * tools_per_server[s]:
        errors.append('server %s: only %d of %d tools expected somewhere' % (s, cov, tools_per_server[s]))
if cats['none'] < 0.17 * n:
    errors.append('none share %.1f%% is under 17%%' % (100.0 * cats['none'] / n))
missing = sorted(t for t in server_of if t not in covered)
if missing:
    print('never expected:', ', '.join(missing))
if errors:
    print('\n%d problem(s):' % len(errors))
    for e in errors:
        print(' -', e)
    sys.exit(1)
print('clean')
