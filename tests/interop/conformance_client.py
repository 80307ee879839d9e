"""The client the MCP conformance suite runs for its client scenarios:
the official Python SDK as the host, `toolsift gateway` between it and the
suite's server, so the gateway is the client the suite judges.

    python conformance_client.py TOOLSIFT_BINARY SERVER_URL

The suite appends SERVER_URL and says the scenario in
MCP_CONFORMANCE_SCENARIO. Per scenario, the host (gateway_host.py) does
what a user's host would:

  initialize        lists the tools (the gateway connected and initialized);
  tools_call        calls add_numbers;
  elicitation-sep1034-client-defaults
                    calls test_client_elicitation_defaults and accepts the
                    form with its defaults, as a host's prefilled form is;
  sse-retry         calls test_reconnection (the server drops the stream;
                    the gateway's client reconnects).

Exits with the host's status; its JSON document goes to stderr.
"""

import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

STEPS = {
    "initialize": [{"op": "list"}],
    "tools_call": [{"op": "call", "name": "add_numbers", "arguments": {"a": 2, "b": 3}}],
    "elicitation-sep1034-client-defaults": [
        {"op": "call", "name": "test_client_elicitation_defaults", "arguments": {}}
    ],
    "sse-retry": [{"op": "list"}, {"op": "call", "name": "test_reconnection", "arguments": {}}],
}


def main():
    toolsift, url = sys.argv[1], sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    steps = STEPS.get(scenario, [{"op": "list"}])
    gateway = [toolsift, "gateway", "--offline", "--mcp-url", url, "--always-load", "*", "--start-wait", "30"]
    host = [sys.executable, os.path.join(HERE, "gateway_host.py"), "--stdio", shlex.join(gateway)]
    host += ["--mode", "legacy", "--timeout", "30"]
    if scenario.startswith("elicitation"):
        host += ["--elicit", "accept", "--elicit-content", "defaults"]
    done = subprocess.run(host, input=json.dumps(steps), capture_output=True, text=True, check=False)
    sys.stderr.write(done.stdout)
    sys.stderr.write(done.stderr)
    document = json.loads(done.stdout or "{}")
    failed = [r for r in document.get("sessions", [[]])[0] if isinstance(r, dict) and ("exception" in r or r.get("isError"))]
    sys.exit(done.returncode or (1 if failed else 0))


if __name__ == "__main__":
    main()
