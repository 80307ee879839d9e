#!/usr/bin/env python3
"""A hostile probe of `toolsift serve`: starts the binary it is given on a
free loopback port, with a recording upstream of its own (also on loopback),
tries what an attacker or an unlucky client would, and prints one line per
case: what was sent, what came back, and whether that is what the service
promises (docs: the service's security section). Exits 1 if any promise is
broken.

    scripts/probe-serve.py --bin target/release/toolsift
    scripts/probe-serve.py --bin target/release/toolsift --load   # and the memory loads
    scripts/probe-serve.py --bin ... --sessions redis://127.0.0.1:6379/0   # session ids against Redis

`--load` adds two loads and prints the server's RSS (VmRSS) before, at its
peak and after each: 150 connections each sending a 15 MiB provider call
body, and a stream of searches with 10,000 new tool definitions each
(previews, so no session is made). Everything stays on 127.0.0.1 and every
loop is bounded.

Only the standard library is used.
"""
import argparse
import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

KEY = "probe-key"
OPERATOR_KEY = "sk-probe-operator"


class Upstream:
    """Records every request (path and headers); reads bodies away."""

    def __init__(self):
        self.seen = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                length = int(self.headers.get("content-length") or 0)
                remaining = length
                while remaining > 0:
                    chunk = self.rfile.read(min(remaining, 1 << 20))
                    if not chunk:
                        break
                    remaining -= len(chunk)
                with outer.lock:
                    outer.seen.append((self.command, self.path, dict(self.headers)))
                body = b'{"ok":true}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = handle_one

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Server:
    def __init__(self, binary, upstream, extra=()):
        env = dict(os.environ, PROBE_KEY=KEY, PROBE_OPKEY=OPERATOR_KEY)
        args = [
            binary, "serve", "--addr", "127.0.0.1:0", "--api-key-env", "PROBE_KEY",
            "--upstream", "openai=%s/tenant-a/openai/v1" % upstream.url,
            "--upstream", "anthropic=%s/tenant-a/anthropic" % upstream.url,
            "--upstream-key-env", "openai=PROBE_OPKEY",
            "--upstream-key-env", "anthropic=PROBE_OPKEY",
        ] + list(extra)
        self.proc = subprocess.Popen(
            args, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on http://"):
            raise SystemExit("the server did not start: %r" % line)
        host, port = line[len("listening on http://"):].split(":")
        self.addr = (host, int(port))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def exchange(addr, data, timeout=15.0):
    """Sends `data` on a new connection and reads until the server closes."""
    s = socket.create_connection(addr, timeout=timeout)
    try:
        try:
            s.sendall(data)
        except OSError:
            pass
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def answer(raw):
    """(status, JSON body or None) of a raw answer; (None, None) for none."""
    if not raw:
        return None, None
    head, _, body = raw.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ")[1])
    except (IndexError, ValueError):
        return None, None
    if b"transfer-encoding: chunked" in head.lower():
        plain, rest = b"", body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size or b"0", 16)
            if n == 0:
                break
            plain, rest = plain + rest[:n], rest[n + 2:]
        body = plain
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


def request(method, path, headers=(), body=b"", auth=True, close=True):
    lines = ["%s %s HTTP/1.1" % (method, path), "host: probe"]
    if auth:
        lines.append("authorization: Bearer " + KEY)
    lines += list(headers)
    if body or method == "POST":
        lines.append("content-length: %d" % len(body))
    if close:
        lines.append("connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


RESULTS = []


def report(case, ok, got):
    RESULTS.append(ok)
    print("%-4s %-58s %s" % ("ok" if ok else "FAIL", case, got))
    sys.stdout.flush()


def json_error(raw, status):
    s, body = answer(raw)
    ok = s == status and isinstance(body, dict) and isinstance(body.get("error"), dict)
    code = body["error"].get("code") if ok else None
    return ok, "%s %s" % (s, code if code else (raw[:60] if raw else "no answer"))


def probe(binary, upstream, sessions):
    srv = Server(binary, upstream, ["--head-timeout-ms", "1000", "--idle-timeout-ms", "2000",
                                    "--max-connections", "32", "--max-body-bytes", "1000000",
                                    "--sessions", sessions])
    try:
        for path in ["/openai/v1/%2e%2e/%2e%2e/admin", "/openai/v1/%2E%2E/admin",
                     "/openai/v1/.%2e/admin", "/openai/v1/../../admin", "/openai/v1/..\\..\\admin",
                     "/openai/v1/x%2f..%2f..%2fadmin", "/anthropic/../openai/v1/models"]:
            before = len(upstream.seen)
            raw = exchange(srv.addr, request("GET", path))
            s, _ = answer(raw)
            report("traversal " + path, s in (400, 404) and len(upstream.seen) == before,
                   "%s, upstream saw %d" % (s, len(upstream.seen) - before))
        raw = exchange(srv.addr, request("GET", "/openai/v1/models"))
        last = upstream.seen[-1] if upstream.seen else ("", "", {})
        report("a path under the base", answer(raw)[0] == 200 and last[1] == "/tenant-a/openai/v1/models",
               "%s -> %s" % (answer(raw)[0], last[1]))

        t = time.monotonic()
        raw = exchange(srv.addr, b"GET /healthz HTTP/1.1\r\nhost: probe\r\n")
        took = time.monotonic() - t
        ok, got = json_error(raw, 408)
        report("half-sent head (head limit 1 s)", ok and took < 5, "%s after %.1f s" % (got, took))
        t = time.monotonic()
        raw = exchange(srv.addr, b"")
        took = time.monotonic() - t
        report("idle connection (idle limit 2 s)", not raw and 1.5 < took < 6, "closed after %.1f s" % took)

        held = []
        for _ in range(32):
            c = socket.create_connection(srv.addr)
            c.sendall(b"GET /healthz HTTP/1.1\r\n")
            held.append(c)
        time.sleep(0.3)
        ok, got = json_error(exchange(srv.addr, request("GET", "/healthz", auth=False)), 503)
        report("33rd connection (limit 32)", ok, got)
        for c in held:
            c.close()
        time.sleep(0.3)

        cases = [
            ("bad content-length", b"POST / HTTP/1.1\r\nhost: p\r\ncontent-length: x\r\n\r\n", 400),
            ("negative content-length", b"POST / HTTP/1.1\r\nhost: p\r\ncontent-length: -1\r\n\r\n", 400),
            ("two content-lengths", b"POST / HTTP/1.1\r\nhost: p\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab", 400),
            ("TE xchunked", b"POST / HTTP/1.1\r\nhost: p\r\ntransfer-encoding: xchunked\r\n\r\n", 400),
            ("HTTP/9.9", b"GET / HTTP/9.9\r\nhost: p\r\n\r\n", 400),
            ("binary garbage", bytes(range(1, 40)) + b"\r\n\r\n", 400),
            ("obs-fold", b"GET / HTTP/1.1\r\nhost: p\r\nx: a\r\n b\r\n\r\n", 400),
            ("control byte in a header", b"GET / HTTP/1.1\r\nhost: p\r\nx: a\x01b\r\n\r\n", 400),
            ("2 MB header", b"GET / HTTP/1.1\r\nhost: p\r\nx: " + b"a" * (2 << 20) + b"\r\n\r\n", 431),
            ("5,000 headers", b"GET / HTTP/1.1\r\nhost: p\r\n" + b"".join(b"x%d: v\r\n" % i for i in range(5000)) + b"\r\n", 431),
            ("64 KB path", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nhost: p\r\n\r\n", 414),
        ]
        for what, data, status in cases:
            ok, got = json_error(exchange(srv.addr, data), status)
            report("protocol error: " + what, ok, got)

        body = b" " * (3 << 20)
        ok, got = json_error(exchange(srv.addr, request(
            "POST", "/sdk/v1/tool-search", ["content-type: application/json"], body)), 413)
        report("3 MiB body over a 1 MB limit, sent whole first", ok, got)
        small = json.dumps({"tools": [{"name": "a", "description": "b", "input_schema": {"type": "object"}}],
                            "query": "b"}).encode()
        raw = exchange(srv.addr, request("POST", "/sdk/v1/tool-search",
                                         ["content-type: application/json"], small, auth=False)
                       .replace(b"host: probe", b"host: probe\r\nauthorization: bearer " + KEY.encode()))
        report("lower-case bearer", answer(raw)[0] == 200, str(answer(raw)[0]))
        ok, got = json_error(exchange(srv.addr, request(
            "POST", "/sdk/v1/tool-search", ["content-type: application/json", "content-encoding: gzip"],
            b"\x1f\x8b\x08\x00")), 415)
        report("gzip body", ok, got)
        ok, got = json_error(exchange(srv.addr, request(
            "POST", "/sdk/v1/tool-search", ["content-type: application/json; charset=utf-16"],
            '{"query":"x"}'.encode("utf-16-le"))), 415)
        report("utf-16 body", ok, got)
        first = json.dumps({"tools": json.loads(small)["tools"], "query": "b", "session_id": "S"}).encode()
        exchange(srv.addr, request("POST", "/sdk/v1/tool-search", ["content-type: application/json"], first))
        for sid in ["S:order", "S:", ":", "S\\x", "toolsift:s:x"]:
            body = json.dumps({"tools": json.loads(small)["tools"], "query": "b", "session_id": sid}).encode()
            s, _ = answer(exchange(srv.addr, request("POST", "/sdk/v1/tool-search",
                                                     ["content-type: application/json"], body)))
            report("session id %r" % sid, s in (200, 400), str(s))

        half = socket.create_connection(srv.addr)
        half.sendall(b"POST /sdk/v1/tool-search HTTP/1.1\r\nhost: probe\r\n")
        time.sleep(0.2)
        t = time.monotonic()
        srv.proc.send_signal(signal.SIGTERM)
        try:
            srv.proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            pass
        took = time.monotonic() - t
        report("SIGTERM with a half-sent head open", srv.proc.poll() is not None and took < 5,
               "exited after %.1f s" % took)
        half.close()
    finally:
        srv.stop()


def load(binary, upstream):
    srv = Server(binary, upstream, ["--max-body-bytes", str(16 << 20)])
    pid = srv.proc.pid
    try:
        start = rss_mb(pid)
        peak = [start]
        stop = threading.Event()

        def watch():
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb(pid))
                time.sleep(0.05)

        threading.Thread(target=watch, daemon=True).start()
        body = b'{"input":"' + b"p" * (15 << 20) + b'"}'
        head = request("POST", "/openai/v1/embeddings", ["content-type: application/json"], b"")
        head = head.replace(b"content-length: 0", b"content-length: %d" % len(body))
        statuses = {}

        def one():
            try:
                s, _ = answer(exchange(srv.addr, head + body, timeout=120))
            except OSError:
                s = "error"
            statuses[s] = statuses.get(s, 0) + 1

        threads = [threading.Thread(target=one) for _ in range(150)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        time.sleep(2)
        after = rss_mb(pid)
        print("load: 150 connections x 15 MiB provider bodies: RSS %.0f MB -> peak %.0f MB -> after %.0f MB; answers %s"
              % (start, peak[0], after, statuses))

        start = rss_mb(pid)
        peak[0] = start
        for i in range(int(os.environ.get("PROBE_DEFINITION_REQUESTS", "200"))):
            tools = [{"name": "t%d_%d" % (i, j), "description": "tool %d of batch %d" % (j, i),
                      "input_schema": {"type": "object", "properties": {"p%d" % j: {"type": "string"}}}}
                     for j in range(10000)]
            data = json.dumps({"tools": tools, "query": "tool", "preview": True}).encode()
            exchange(srv.addr, request("POST", "/sdk/v1/tool-search", ["content-type: application/json"], data),
                     timeout=120)
        time.sleep(2)
        stop.set()
        print("load: searches with 10,000 new definitions each: RSS %.0f MB -> peak %.0f MB -> after %.0f MB"
              % (start, peak[0], rss_mb(pid)))
    finally:
        srv.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="the toolsift binary")
    parser.add_argument("--load", action="store_true", help="also run the memory loads")
    parser.add_argument("--load-only", action="store_true", help="only the memory loads")
    parser.add_argument("--sessions", default="memory", help="the session store (memory or a Redis URL)")
    args = parser.parse_args()
    upstream = Upstream()
    if not args.load_only:
        probe(args.bin, upstream, args.sessions)
    if args.load or args.load_only:
        load(args.bin, upstream)
    failed = RESULTS.count(False)
    print("%d passed, %d failed" % (RESULTS.count(True), failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
