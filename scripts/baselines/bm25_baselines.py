#!/usr/bin/env python3
"""Python BM25 baselines on the BFCL tool-search dev set.

Runs four engines on the same catalog and requests, in one process:

  rank_bm25 0.2.2 BM25Okapi            lower-case words
  rank_bm25 BM25Okapi                  + Snowball English stem + stop words
  bm25s 0.3.16 (lucene)                lower-case words
  bm25s (lucene)                       + Snowball English stem + stop words

One document per tool, as eval/bfcl-dev/README.md describes the baselines:
name + name split into words + description + parameter names (split) +
parameter descriptions, at all nesting levels of the input schema (enum values
are not indexed). Words are \\w+ on the lower-cased text; the stemmed engines
drop the 33-word Lucene English stop list, then apply PyStemmer's Snowball
English stemmer. Both libraries get exactly the same token lists.

For each engine: index build time (tokenize the corpus + build the index),
then one request at a time on one thread, as a service receives them:
tokenize the request, score the whole catalog, take the top 10. Queries per
second is for that loop only (best of --repeat runs). Metrics come from
eval/bfcl-dev/score.py's compute_metrics (strict and lenient).

Run it through run.sh, which sets up the venv and pins one thread.
"""
import argparse
import datetime
import json
import os
import platform
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
EVAL_DIR = os.path.join(REPO, "eval", "bfcl-dev")

sys.path.insert(0, EVAL_DIR)
from score import compute_metrics, load_catalog, load_queries  # noqa: E402

import numpy as np  # noqa: E402
import bm25s  # noqa: E402
import rank_bm25  # noqa: E402
import Stemmer  # noqa: E402  (PyStemmer)

TOP_K = 10

# Lucene's EnglishAnalyzer default stop set (33 words).
LUCENE_ENGLISH_STOP = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)


# ------------------------------------------------------------- documents ---
_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")        # fooBar -> foo Bar
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")     # HTTPServer -> HTTP Server
_NAME_SEP = re.compile(r"[_.\-/\s]+")


def split_identifier(name):
    """Split an identifier on _ . - / and camelCase boundaries."""
    s = _CAMEL_2.sub(r"\1 \2", _CAMEL_1.sub(r"\1 \2", name))
    return " ".join(w for w in _NAME_SEP.split(s) if w)


def _walk_schema(node, names, descs):
    """Collect parameter names and descriptions at every nesting level:
    "properties" (recursively), "items", anyOf/oneOf/allOf. Enum values are
    deliberately left out (the README baseline does not index them)."""
    if isinstance(node, list):
        for x in node:
            _walk_schema(x, names, descs)
        return
    if not isinstance(node, dict):
        return
    props = node.get("properties")
    if isinstance(props, dict):
        for pname, sub in props.items():
            names.append(split_identifier(pname))
            if isinstance(sub, dict) and isinstance(sub.get("description"), str):
                descs.append(sub["description"])
            _walk_schema(sub, names, descs)
    items = node.get("items")
    if items is not None:
        # a description on the item schema describes the parameter too
        for it in items if isinstance(items, list) else [items]:
            if isinstance(it, dict) and isinstance(it.get("description"), str):
                descs.append(it["description"])
        _walk_schema(items, names, descs)
    for key in ("anyOf", "oneOf", "allOf"):
        subs = node.get(key)
        if isinstance(subs, list):
            for sub in subs:
                if isinstance(sub, dict) and isinstance(sub.get("description"), str):
                    descs.append(sub["description"])
            _walk_schema(subs, names, descs)


def tool_document(tool):
    names, descs = [], []
    _walk_schema(tool.get("input_schema") or {}, names, descs)
    parts = [tool["name"], split_identifier(tool["name"]), tool.get("description") or ""]
    return "\n".join(parts + names + descs)


# ------------------------------------------------------------ tokenizers ---
_WORD = re.compile(r"\w+")


class PlainTokenizer:
    """Lower-case \\w+ words."""

    def __call__(self, text):
        return _WORD.findall(text.lower())


class StemStopTokenizer:
    """Lower-case \\w+ words, Lucene English stop words removed, Snowball
    English stem (PyStemmer)."""

    def __init__(self):
        self.stemmer = Stemmer.Stemmer("english")
        self.stop = LUCENE_ENGLISH_STOP

    def __call__(self, text):
        stop = self.stop
        return self.stemmer.stemWords([w for w in _WORD.findall(text.lower()) if w not in stop])


def top_k(scores, k=TOP_K):
    """Indices of the k best scores, best first; ties broken by catalog order."""
    n = scores.shape[0]
    if n <= k:
        cand = np.arange(n)
    else:
        part = np.argpartition(-scores, k - 1)[:k]
        cand = np.flatnonzero(scores >= scores[part].min())
    order = np.lexsort((cand, -scores[cand]))
    return cand[order[:k]]


# --------------------------------------------------------------- engines ---
class RankBM25Engine:
    def __init__(self, tokenizer):
        self.tok = tokenizer

    def build(self, docs):
        self.bm25 = rank_bm25.BM25Okapi([self.tok(d) for d in docs])

    def search(self, query):
        return top_k(self.bm25.get_scores(self.tok(query)))


class BM25sEngine:
    def __init__(self, tokenizer):
        self.tok = tokenizer

    def build(self, docs):
        self.bm25 = bm25s.BM25(method="lucene", backend="numpy")
        self.bm25.index([self.tok(d) for d in docs], show_progress=False)
        self.n_docs = len(docs)

    def search(self, query):
        # Single request, caller's thread (same as retrieve(..., n_threads=1)
        # minus its batching/progress overhead): ids -> sparse scores -> top 10.
        ids = self.bm25.get_tokens_ids(self.tok(query))
        if ids:
            scores = self.bm25.get_scores_from_ids(ids)
        else:
            scores = np.zeros(self.n_docs, dtype=np.float32)
        return top_k(scores)


ENGINES = [
    ("rank_bm25 0.2.2 BM25Okapi", "lower-case words", RankBM25Engine, PlainTokenizer),
    ("rank_bm25 BM25Okapi", "+ Snowball stem + stop words", RankBM25Engine, StemStopTokenizer),
    ("bm25s 0.3.16 (lucene)", "lower-case words", BM25sEngine, PlainTokenizer),
    ("bm25s (lucene)", "+ Snowball stem + stop words", BM25sEngine, StemStopTokenizer),
]


# ----------------------------------------------------------------- info ---
def _pkg_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001
        return None


def machine_info():
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "cpu model", "processor\t: ")) and ":" in line:
                    val = line.split(":", 1)[1].strip()
                    if val and not val.isdigit():
                        cpu = val
                        break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu or platform.processor() or None,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "packages": {p: _pkg_version(p) for p in ("bm25s", "rank_bm25", "PyStemmer", "numpy", "scipy")},
        "env": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")},
    }


# ----------------------------------------------------------------- main ---
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--catalog", default=os.path.join(EVAL_DIR, "catalog.json"))
    ap.add_argument("--extra-catalog", action="append", default=[],
                    help="more tool files appended to the catalog (e.g. distractors.json); repeatable")
    ap.add_argument("--queries", default=os.path.join(EVAL_DIR, "queries-dev.jsonl"))
    ap.add_argument("--json-out", help="write machine info, metrics (fractions) and timings as JSON")
    ap.add_argument("--repeat", type=int, default=3, help="time the query loop N times, report the best")
    ap.add_argument("--categories", help="only the requests of these categories (comma-separated, e.g. parallel,parallel_multiple)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")

    catalog = load_catalog([args.catalog] + args.extra_catalog)
    queries = load_queries(args.queries)
    if args.categories:
        wanted = set(args.categories.split(","))
        queries = [q for q in queries if q.get("category") in wanted]
        if not queries:
            raise SystemExit(f"no request of categories {args.categories} in {args.queries}")
    names = [t["name"] for t in catalog]
    known = set(names)
    for q in queries:
        for e in q["expected"]:
            if e not in known:
                raise SystemExit(f"{q['id']}: expected tool {e} not in catalog")
    docs = [tool_document(t) for t in catalog]
    texts = [q["query"] for q in queries]
    print(f"catalog: {len(catalog)} tools; queries: {len(queries)}; repeat: {args.repeat}", file=sys.stderr)

    rows, out_engines = [], []
    for label, tokens, engine_cls, tok_cls in ENGINES:
        engine = engine_cls(tok_cls())
        t0 = time.perf_counter()
        engine.build(docs)
        build_ms = (time.perf_counter() - t0) * 1000.0

        best, ranked_idx = None, None
        for _ in range(args.repeat):
            search = engine.search
            t0 = time.perf_counter()
            run = [search(text) for text in texts]
            dt = time.perf_counter() - t0
            if best is None or dt < best:
                best = dt
            ranked_idx = run
        qps = len(texts) / best if best > 0 else float("inf")

        results = [(q, [names[i] for i in idx]) for q, idx in zip(queries, ranked_idx)]
        m = compute_metrics(results)
        s, l = m["strict"], m["name"]
        pct = lambda x: "%.1f" % (100.0 * x)  # noqa: E731
        rows.append([f"{label}, {tokens}",
                     pct(s["all@1"]), pct(s["all@5"]), pct(s["all@10"]), "%.3f" % s["mrr@10"],
                     pct(l["all@1"]), pct(l["all@5"]), pct(l["all@10"]),
                     "%.0f" % build_ms, "{:,.0f}".format(qps)])
        out_engines.append({"name": f"{label}, {tokens}", "strict": s, "lenient": l,
                            "build_ms": build_ms, "queries_per_second": qps})
        print(f"  done: {label}, {tokens} ({build_ms:.0f} ms build, {qps:,.0f} q/s)", file=sys.stderr)

    header = ["engine", "strict all@1", "all@5", "all@10", "MRR@10",
              "lenient all@1", "all@5", "all@10", "build ms", "queries/s"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")

    if args.json_out:
        payload = {
            "machine": machine_info(),
            "date": datetime.date.today().isoformat(),
            "catalog_tools": len(catalog),
            "queries": len(queries),
            "catalog_files": [args.catalog] + args.extra_catalog,
            "queries_file": args.queries,
            "categories": args.categories,
            "repeat": args.repeat,
            "top_k": TOP_K,
            "engines": out_engines,
        }
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
