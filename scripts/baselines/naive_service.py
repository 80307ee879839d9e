#!/usr/bin/env python3
"""A naive Python tool-search service: the baseline of `cargo bench --bench
serve_load` (docs/benchmarks.md, "The service under load").

Answers POST /sdk/v1/tool-search like `toolsift serve` (same request and
response shape, CONTRACT §3-4) the obvious way: parse the body, build a bm25s
index over the request's catalog for EVERY request (no cache), rank, return
the top max_tools tools. One document per tool: its name, the name split into
words and its description; lower-case \\w+ words, Lucene's English stop
words dropped, Snowball English stem (PyStemmer), as
scripts/baselines/bm25_baselines.py tokenizes. Token figures are approximate
(JSON bytes / 4); sessions are echoed, never stored.

    naive_service.py [--addr 127.0.0.1:0]

Prints `listening on http://HOST:PORT` on stdout once it accepts
connections (as `toolsift serve` does); loopback addresses only. Run it with
the baselines' venv (scripts/baselines/run.sh makes it).
"""
import argparse
import ipaddress
import json
import re
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import bm25s
import numpy as np
import Stemmer

PATH = "/sdk/v1/tool-search"
DEFAULT_MAX_TOOLS = 8
MAX_BODY = 16 << 20

LUCENE_ENGLISH_STOP = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)
_WORD = re.compile(r"\w+")
_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_NAME_SEP = re.compile(r"[_.\-/\s]+")


def split_identifier(name):
    s = _CAMEL_2.sub(r"\1 \2", _CAMEL_1.sub(r"\1 \2", name))
    return " ".join(w for w in _NAME_SEP.split(s) if w)


def tokenize(stemmer, text):
    return stemmer.stemWords([w for w in _WORD.findall(text.lower()) if w not in LUCENE_ENGLISH_STOP])


def search(tools, query, k):
    """Indices of the k best tools for query, best first (bm25s, lucene)."""
    stemmer = Stemmer.Stemmer("english")  # per request: PyStemmer objects are not thread-safe
    docs = []
    for t in tools:
        name = t.get("name") or ""
        docs.append(tokenize(stemmer, "%s\n%s\n%s" % (name, split_identifier(name), t.get("description") or "")))
    index = bm25s.BM25(method="lucene", backend="numpy")
    index.index(docs, show_progress=False)
    ids = index.get_tokens_ids(tokenize(stemmer, query))
    if not ids:
        return []
    scores = index.get_scores_from_ids(ids)
    k = min(k, len(tools))
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.lexsort((best, -scores[best]))]
    return [(int(i), float(scores[i])) for i in best if scores[i] > 0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as clients expect

    def log_message(self, *args):  # no access log
        pass

    def reply(self, status, obj):
        body = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, code, message):
        self.reply(status, {"error": {"code": code, "message": message}})

    def do_GET(self):
        if self.path == "/healthz":
            self.reply(200, {"status": "ok"})
        else:
            self.error(404, "not_found", "no such endpoint")

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            self.close_connection = True
            return self.error(413, "body_too_large", "body over %d bytes" % MAX_BODY)
        body = self.rfile.read(length)
        if self.path != PATH:
            return self.error(404, "not_found", "no such endpoint")
        try:
            req = json.loads(body)
            tools = req["tools"]
            query = req["query"]
            k = int(req.get("max_tools") or DEFAULT_MAX_TOOLS)
            if not isinstance(tools, list) or not isinstance(query, str) or k < 1:
                raise ValueError("tools must be a list, query a string, max_tools >= 1")
        except (ValueError, KeyError, TypeError) as e:
            return self.error(400, "invalid_request", str(e))
        hits = search(tools, query, k)
        sizes = [len(json.dumps(t, ensure_ascii=False)) // 4 for t in tools]
        chosen = []
        for i, score in hits:
            t = dict(tools[i])
            t["score"] = score
            t["reason"] = "ranked"
            chosen.append(t)
        self.reply(200, {
            "tools": chosen,
            "sent_schema_tokens": sum(sizes[i] for i, _ in hits),
            "full_schema_tokens": sum(sizes),
            "deferred_count": len(tools) - len(hits),
            "method": "bm25s",
            "token_basis": "bytes/4",
            "session_id": req.get("session_id") or uuid.uuid4().hex,
        })


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--addr", default="127.0.0.1:0")
    args = ap.parse_args()
    host, _, port = args.addr.rpartition(":")
    if not ipaddress.ip_address(host).is_loopback:
        raise SystemExit("naive_service.py listens on loopback addresses only")
    server = ThreadingHTTPServer((host, int(port)), Handler)
    server.daemon_threads = True
    h, p = server.server_address[:2]
    print("listening on http://%s:%d" % (h, p), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
