#!/usr/bin/env python3
"""Markdown report from scripts/bench.sh's JSON files (standard library only)."""
import datetime
import json
import os
import platform
import sys

out = sys.argv[1]
load = lambda name: json.load(open(os.path.join(out, name)))
ev, evd, ts, bl = load("eval.json"), load("eval-distractors.json"), load("toolsift.json"), load("baselines.json")
tui = load("tui.json")

cpu = "unknown"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
print(f"Machine: {cpu}, {os.cpu_count()} cores, {platform.platform()}; "
      f"Python {bl['machine']['python']}; date {datetime.date.today().isoformat()}.\n")

print("### Quality on bfcl-dev (504 requests, 2,101 tools)\n")
print("| engine | strict all@1 | all@5 | all@10 | MRR@10 | lenient all@1 | all@5 | all@10 |")
print("|---|---|---|---|---|---|---|---|")
s, l = ev["strict"], ev["lenient"]
print(f"| **toolsift BM25F** | **{s['all@1']:.1f}** | **{s['all@5']:.1f}** | **{s['all@10']:.1f}** | "
      f"**{s['mrr@10']:.3f}** | **{l['all@1']:.1f}** | **{l['all@5']:.1f}** | **{l['all@10']:.1f}** |")
for e in bl["engines"]:
    s, l = e["strict"], e["lenient"]
    print(f"| {e['name']} | {100*s['all@1']:.1f} | {100*s['all@5']:.1f} | {100*s['all@10']:.1f} | "
          f"{s['mrr@10']:.3f} | {100*l['all@1']:.1f} | {100*l['all@5']:.1f} | {100*l['all@10']:.1f} |")
s, l = evd["strict"], evd["lenient"]
print(f"| toolsift, + 629 distractors (2,730 tools) | {s['all@1']:.1f} | {s['all@5']:.1f} | {s['all@10']:.1f} | "
      f"{s['mrr@10']:.3f} | {l['all@1']:.1f} | {l['all@5']:.1f} | {l['all@10']:.1f} |")

print("\n### Speed on bfcl-dev (one thread; ranking only, index already built)\n")
best = max(bl["engines"], key=lambda e: e["queries_per_second"])
b = ts["bfcl"]
print("| engine | queries/s | index build ms |")
print("|---|---|---|")
print(f"| **toolsift** | **{b['queries_per_second']:,.0f}** ({b['queries_per_second'] / best['queries_per_second']:.1f}x {best['name'].split(',')[0]}, best baseline) | **{b['build_ms_p50']:.1f}** (p50) |")
for e in bl["engines"]:
    print(f"| {e['name']} | {e['queries_per_second']:,.0f} | {e['build_ms']:.0f} |")
print(f"\ntoolsift latency per request: p50 {b['latency_us_p50']:.1f} µs, p95 {b['latency_us_p95']:.1f} µs.")

sy = ts["synthetic_10k"]
print("\n### Synthetic 10,000-tool catalog\n")
print(f"Index build p50 {sy['build_ms_p50']:.1f} ms; query p50 {sy['query_ms_p50']*1000:.1f} µs, p95 {sy['query_ms_p95']*1000:.1f} µs.")
sv = ts["service"]
print("\n### Service core, the bfcl catalog in every request body\n")
print(f"First request {sv['first_request_ms']:.0f} ms; repeated catalog p50 {sv['repeat_request_ms_p50']:.2f} ms, "
      f"p95 {sv['repeat_request_ms_p95']:.2f} ms; after {sv['requests']} requests: {sv['index_builds']} index build, "
      f"{sv['tokenized']} tools tokenized (all in the first request).")

print(f"\n### Explorer, synthetic {tui['tools']:,}-tool catalog, 120x35\n")
print("| measure | figure | target |")
print("|---|---|---|")
print(f"| keystroke to updated frame while typing (update + search + draw), p95 | {tui['typing_ms_p95']:.2f} ms (p50 {tui['typing_ms_p50']:.2f}) | <= 16 ms |")
print(f"| moving, sorting, filtering, p95 | {tui['moving_ms_p95']:.2f} ms | <= 16 ms |")
if tui.get("first_frame_ms") is not None:
    print(f"| first frame after spawn (real binary in a pty) | {tui['first_frame_ms']:.0f} ms | <= 300 ms |")
    print(f"| first search and all token counts on screen | {tui['ready_ms']:.0f} ms | |")
    print(f"| idle for 3 s | {tui['idle_cpu_pct']:.2f} % CPU, {tui['idle_bytes']} bytes drawn | ~0 %, no redraws |")
    print(f"| resident memory (peak) | {tui['rss_mb']:.0f} MB ({tui['peak_rss_mb']:.0f} MB) | <= 150 MB |")
