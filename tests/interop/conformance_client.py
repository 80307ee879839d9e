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
                    the gateway's client reconnects);
  auth/*            calls each tool of the server, which asks for an OAuth
                    login: the gateway logs in as the first time a server
                    needs it, its login page opened by tests/interop/browser.py
                    as $BROWSER (it follows the page's redirect to the
                    gateway's loopback callback), the tokens kept in a file
                    under a config directory of the test's own. The server is
                    given in a servers file with its `oauth` entry: the
                    scenario's pre-registered client (MCP_CONFORMANCE_CONTEXT)
                    or a client ID metadata document URL.

Exits with the host's status; its JSON document goes to stderr.
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile

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
    servers = ["--mcp-url", url]
    if scenario.startswith("auth/"):
        steps = [{"op": "call_each", "timeout": 15}]
        home = tempfile.mkdtemp(prefix="toolsift-login-")
        os.environ["XDG_CONFIG_HOME"] = home
        os.environ["TOOLSIFT_TOKEN_STORE"] = "file"
        os.environ["BROWSER"] = f"{shlex.quote(sys.executable)} {shlex.quote(os.path.join(HERE, 'browser.py'))}"
        os.environ.pop("TOOLSIFT_NO_BROWSER", None)
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
        oauth = {"client_metadata_url": "https://conformance-test.local/client-metadata.json"}
        if context.get("client_id"):
            oauth = {"client_id": context["client_id"], "client_secret": context.get("client_secret")}
        servers_file = os.path.join(home, "servers.json")
        with open(servers_file, "w", encoding="utf-8") as f:
            json.dump({"mcpServers": {"suite": {"type": "http", "url": url, "oauth": oauth}}}, f)
        servers = ["--mcp", servers_file, "--trace", os.path.join(home, "trace.jsonl")]
    gateway = [toolsift, "gateway", "--offline", *servers, "--always-load", "*", "--start-wait", "30"]
    host = [sys.executable, os.path.join(HERE, "gateway_host.py"), "--stdio", shlex.join(gateway)]
    host += ["--mode", "legacy", "--timeout", "30"]
    if scenario.startswith("elicitation"):
        host += ["--elicit", "accept", "--elicit-content", "defaults"]
    done = subprocess.run(host, input=json.dumps(steps), capture_output=True, text=True, check=False)
    sys.stderr.write(done.stdout)
    sys.stderr.write(done.stderr)
    if scenario.startswith("auth/"):
        # No token in anything the gateway wrote: its stderr (its log), its
        # trace, the kept login aside. The suite's tokens start so.
        written = done.stderr + done.stdout
        trace = os.path.join(os.environ["XDG_CONFIG_HOME"], "trace.jsonl")
        if os.path.exists(trace):
            with open(trace, encoding="utf-8") as f:
                written += f.read()
        for mark in ("test-token", "refresh-token", "cc-token"):
            if mark in written:
                sys.stderr.write(f"a token ({mark}...) is in the gateway's output\n")
                sys.exit(3)
    document = json.loads(done.stdout or "{}")
    failed = [r for r in document.get("sessions", [[]])[0] if isinstance(r, dict) and ("exception" in r or r.get("isError"))]
    sys.exit(done.returncode or (1 if failed else 0))


if __name__ == "__main__":
    main()
