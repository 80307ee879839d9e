"""What a follower (`toolsift explore --follow`) costs the gateway it
follows, through the official MCP Python SDK (the venv
scripts/setup-test-deps.sh makes):

the gateway over streamable HTTP in front of mcp-server-time, behind an API
key; N calls of get_current_time from one MCP client, in rounds of three
kinds taken in turn (no follower, 1 follower, 8 followers, each reading
GET /events as fast as it comes); for each kind the calls' p50 and p99
latency and the gateway's CPU time per call (its /proc utime + stime over
the round). Rounds alternate so that a drifting machine moves every kind
alike; each figure is the median over the rounds.

    ~/.cache/toolsift-sdk-venv/bin/python scripts/bench-follow.py \
        target/release/toolsift [--calls 300] [--rounds 5]

Prints one JSON object. The calls alternate two time zones, so no two in a
row are identical (the breaker would stop the fourth).
"""

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

VENV_BIN = os.path.dirname(sys.executable)
KEY = "bench-follow-key"


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Follower(threading.Thread):
    """Reads the event stream until told to stop; counts its events."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url = url
        self.events = 0
        self.stop = False

    def run(self):
        req = urllib.request.Request(self.url, headers={"Authorization": f"Bearer {KEY}"})
        with urllib.request.urlopen(req) as r:
            while not self.stop:
                line = r.readline()
                if not line:
                    return
                if line.startswith(b"data:"):
                    self.events += 1


async def calls(url, n):
    out = []
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {KEY}"}) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            for i in range(n):
                zone = "Asia/Tokyo" if i % 2 else "Europe/Oslo"
                t = time.perf_counter()
                r = await client.call_tool(
                    "call_tool", {"name": "get_current_time", "arguments": {"timezone": zone}}
                )
                out.append((time.perf_counter() - t) * 1000)
                assert not r.is_error, r
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("toolsift")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    env = dict(os.environ, BENCH_FOLLOW_KEY=KEY)
    time_bin = os.path.join(VENV_BIN, "mcp-server-time")
    gw = subprocess.Popen(
        [a.toolsift, "gateway", "--http", "127.0.0.1:0", "--api-key-env", "BENCH_FOLLOW_KEY",
         "--start-wait", "60", "--mcp-stdio", f"{time_bin} --local-timezone Etc/UTC"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = None
    for line in gw.stderr:
        m = re.search(r"listening on (\S+)", line)
        if m:
            url = m.group(1)
            break
    threading.Thread(target=lambda: [None for _ in gw.stderr], daemon=True).start()
    events_url = url.rsplit("/mcp", 1)[0] + "/events"
    kinds = {"none": 0, "1 follower": 1, "8 followers": 8}
    figures = {k: {"p50_ms": [], "p99_ms": [], "cpu_us_per_call": []} for k in kinds}
    seen = {k: 0 for k in kinds}
    try:
        asyncio.run(calls(url, 20))  # warm-up
        for _ in range(a.rounds):
            for kind, n in kinds.items():
                followers = [Follower(events_url) for _ in range(n)]
                for f in followers:
                    f.start()
                time.sleep(0.3)
                before = cpu_seconds(gw.pid)
                ms = asyncio.run(calls(url, a.calls))
                spent = cpu_seconds(gw.pid) - before
                time.sleep(0.3)
                for f in followers:
                    f.stop = True
                    seen[kind] += f.events
                figures[kind]["p50_ms"].append(pct(ms, 50))
                figures[kind]["p99_ms"].append(pct(ms, 99))
                figures[kind]["cpu_us_per_call"].append(spent / a.calls * 1e6)
    finally:
        gw.terminate()
        gw.wait()
    out = {"calls_per_round": a.calls, "rounds": a.rounds}
    for kind in kinds:
        out[kind] = {k: round(statistics.median(v), 3) for k, v in figures[kind].items()}
        out[kind]["events_read"] = seen[kind]
    base = out["none"]
    for kind in list(kinds)[1:]:
        out[kind]["cpu_ratio_to_none"] = round(out[kind]["cpu_us_per_call"] / base["cpu_us_per_call"], 3)
        out[kind]["p50_ratio_to_none"] = round(out[kind]["p50_ms"] / base["p50_ms"], 3)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
