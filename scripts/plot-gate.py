#!/usr/bin/env python3
"""The relevance gate's curves as an SVG: for each `toolsift eval --abstain
--json` report given, the share of irrelevant questions answered with
nothing against the share of relevant ones with every expected tool loaded,
as the gate's evidence threshold moves (the default marked).

    toolsift eval --abstain eval/bfcl-dev/abstain-dev.jsonl --json > bm25.json
    scripts/plot-gate.py docs/gate-curves.svg bm25.json hybrid.json
"""
import json
import sys

W, H, M = 560, 420, 60
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def xy(nothing, relevant, lo_y):
    x = M + (W - 2 * M) * nothing / 100.0
    y = H - M - (H - 2 * M) * (relevant - lo_y) / (100.0 - lo_y)
    return x, y


def main():
    out, reports = sys.argv[1], sys.argv[2:]
    data = [json.load(open(p)) for p in reports]
    lo_y = 40.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
    ]
    for i in range(0, 101, 20):
        x, _ = xy(i, lo_y, lo_y)
        parts.append(f'<line x1="{x}" y1="{M}" x2="{x}" y2="{H - M}" stroke="#eee"/>')
        parts.append(f'<text x="{x}" y="{H - M + 16}" text-anchor="middle">{i}</text>')
    for v in range(int(lo_y), 101, 10):
        _, y = xy(0, v, lo_y)
        parts.append(f'<line x1="{M}" y1="{y}" x2="{W - M}" y2="{y}" stroke="#eee"/>')
        parts.append(f'<text x="{M - 6}" y="{y + 4}" text-anchor="end">{v}</text>')
    parts.append(f'<text x="{W / 2}" y="{H - 18}" text-anchor="middle">irrelevant questions answered with nothing (%)</text>')
    parts.append(f'<text x="16" y="{H / 2}" text-anchor="middle" transform="rotate(-90 16 {H / 2})">relevant questions with every expected tool (%)</text>')
    parts.append(f'<text x="{W / 2}" y="24" text-anchor="middle" font-size="14">the relevance gate on abstain-dev (evidence threshold moving)</text>')
    for n, (path, r) in enumerate(zip(reports, data)):
        colour = COLOURS[n % len(COLOURS)]
        cosine = r["gate"].get("min_cosine")
        points = [p for p in r["curve"] if p.get("min_cosine") == cosine]
        pts = " ".join("%.1f,%.1f" % xy(p["nothing_on_irrelevant"], p["all_on_relevant"], lo_y) for p in points)
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for p in points:
            x, y = xy(p["nothing_on_irrelevant"], p["all_on_relevant"], lo_y)
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"/>')
        on = r["on"]
        x, y = xy(on["nothing_on_irrelevant"], on["all_on_relevant"], lo_y)
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" fill="none" stroke="{colour}" stroke-width="2"/>')
        label = r["ranker"] + (f" (cosine {cosine})" if cosine is not None else "")
        parts.append(f'<text x="{M + 10}" y="{H - M - 40 + 18 * n}" fill="{colour}">{label}; circle: the default</text>')
    # The targets: >= 85 % nothing on irrelevant, >= 97 % on relevant.
    x, y = xy(85, 97, lo_y)
    parts.append(f'<rect x="{x:.1f}" y="{M}" width="{W - M - x:.1f}" height="{y - M:.1f}" fill="#2ca02c" fill-opacity="0.12" stroke="#2ca02c" stroke-dasharray="4 3"/>')
    parts.append(f'<text x="{x + 4:.1f}" y="{M + 14}" fill="#2ca02c">target</text>')
    parts.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
