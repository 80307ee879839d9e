"""The gateway's figures for docs/benchmarks.md, in one run, through the
official MCP Python SDK (the venv scripts/setup-test-deps.sh makes):

- the latency the gateway adds to a tools/call: N calls of get_current_time
  straight to mcp-server-time, then N through `toolsift gateway` (stdio
  both), p50 and p99 of each and their difference;
- search_tools on the GitHub MCP catalog (served by
  tests/fixtures/mcp/stub_server.py from its recorded tool list): p50 of the
  search itself (the gateway's own log line: arguments read, ranked,
  answered) and of the whole round trip.

    ~/.cache/toolsift-sdk-venv/bin/python scripts/bench-gateway.py \
        target/release/toolsift [--calls 1000] [--searches 500] \
        [--server time|everything] [--progress]

The calls alternate two time zones, so no two in a row are identical (the
breaker would stop the fourth). `--server everything` times server-everything's
`echo` instead (two messages in turn; the server from scripts/setup-test-deps.sh's
npm prefix, $TOOLSIFT_NPM_PREFIX or ~/.cache/toolsift-npm). `--progress` asks
for progress on every call (a progress callback, so a progressToken), both
direct and through the gateway. `--searches 0` skips the search. Prints one
JSON object.
"""

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time

from mcp import Client, StdioServerParameters

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VENV_BIN = os.path.dirname(sys.executable)
GITHUB = os.path.join(os.path.dirname(REPO), "shared", "catalogs", "github-mcp-server.tools.json")
QUERIES = [
    "list the open issues of a repository",
    "create a pull request",
    "who am I",
    "search code for a function",
    "merge a pull request",
    "add a comment to an issue",
    "get the contents of a file",
    "list the branches",
    "create a new repository",
    "look at the workflow runs",
]


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def summary(ms):
    return {"n": len(ms), "p50_ms": round(pct(ms, 50), 3), "p99_ms": round(pct(ms, 99), 3)}


async def time_calls(params, name, wrap, n, arguments, progress):
    out = []

    async def on_progress(progress, total, message):
        pass

    async with Client(params, mode="legacy") as client:
        for i in range(n):
            tool, args = wrap(name, arguments(i))
            t = time.perf_counter()
            r = await client.call_tool(tool, args, progress_callback=on_progress if progress else None)
            out.append((time.perf_counter() - t) * 1000)
            assert not r.is_error, r
    return out


async def time_searches(params, n):
    out = []
    async with Client(params, mode="legacy") as client:
        for i in range(n):
            t = time.perf_counter()
            r = await client.call_tool("search_tools", {"query": QUERIES[i % len(QUERIES)]})
            out.append((time.perf_counter() - t) * 1000)
            assert not r.is_error, r
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("toolsift")
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--searches", type=int, default=500)
    ap.add_argument("--server", choices=["time", "everything"], default="time")
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.server == "time":
        server = [os.path.join(VENV_BIN, "mcp-server-time"), "--local-timezone", "Etc/UTC"]
        tool = "get_current_time"

        def arguments(i):
            return {"timezone": "Asia/Tokyo" if i % 2 else "Europe/Oslo"}
    else:
        npm = os.environ.get("TOOLSIFT_NPM_PREFIX", os.path.expanduser("~/.cache/toolsift-npm"))
        server = [os.path.join(npm, "node_modules", ".bin", "mcp-server-everything")]
        tool = "echo"

        def arguments(i):
            return {"message": "pong" if i % 2 else "ping"}

    direct = StdioServerParameters(command=server[0], args=server[1:], env=env)
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
    # The gateway's stderr (its log) goes to a file: StdioServerParameters
    # has no stderr, so a shell wrapper sends it there.
    gw_line = f"{a.toolsift} gateway --mcp-stdio '{' '.join(server)}' 2>>{log.name}"
    through = StdioServerParameters(command="sh", args=["-c", gw_line], env=env)
    d = asyncio.run(time_calls(direct, tool, lambda n, x: (n, x), a.calls, arguments, a.progress))
    g = asyncio.run(
        time_calls(
            through,
            tool,
            lambda n, x: ("call_tool", {"name": n, "arguments": x}),
            a.calls,
            arguments,
            a.progress,
        )
    )
    gh_line = f"{a.toolsift} gateway --mcp-stdio '{sys.executable} {REPO}/tests/fixtures/mcp/stub_server.py {GITHUB}' 2>>{log.name}"
    open(log.name, "w").close()
    s = []
    if a.searches > 0:
        s = asyncio.run(time_searches(StdioServerParameters(command="sh", args=["-c", gh_line], env=env), a.searches))
    own = [float(m) for m in re.findall(r"search: \d+ tools[^,]*, ([0-9.]+) ms", open(log.name).read())]
    os.unlink(log.name)
    report = {
        "tools_call": {
            "server": a.server,
            "tool": tool,
            "progress": a.progress,
            "direct": summary(d),
            "through_gateway": summary(g),
            "added_p50_ms": round(pct(g, 50) - pct(d, 50), 3),
            "added_p99_ms": round(pct(g, 99) - pct(d, 99), 3),
        },
        "search_tools_github": None
        if not s
        else {
            "round_trip": summary(s),
            "search_itself": summary(own) if own else None,
            "mean_search_itself_ms": round(statistics.mean(own), 3) if own else None,
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
