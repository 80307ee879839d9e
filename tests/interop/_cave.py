"""Shared by the interop scripts: a Cave pointed at the toolsift under test,
a small catalog, a raw POST with the SDK's own headers, and JSON output.

The Rust test (tests/external/python_sdk.rs) passes TOOLSIFT_URL and TOOLSIFT_KEY.
"""
import json
import os
import sys
import urllib.error
import urllib.request

from caveman_cloud import Cave, CaveTool
from caveman_cloud.core import headers

URL = os.environ["TOOLSIFT_URL"]
KEY = os.environ.get("TOOLSIFT_KEY", "")
OBJECT = {"type": "object", "properties": {}, "additionalProperties": False}


def cave(key=KEY):
    return Cave(api_key=key, base_url=URL, agent="toolsift-interop")


def tool(name, description, **flags):
    return CaveTool(name=name, description=description, input_schema=OBJECT, **flags)


# Six tools for the multi-tool cases; the seed case has its own one-tool catalog.
CATALOG = [
    tool("lookup_status", "Look up the current service status", read_only=True, idempotent=True),
    tool("send_email", "Send an email message to a recipient"),
    tool("create_ticket", "Create a support ticket"),
    tool("get_ticket", "Get a support ticket by id", read_only=True, idempotent=True),
    tool("update_ticket", "Update the fields of a support ticket", idempotent=True),
    tool("close_ticket", "Close a support ticket"),
    tool("search_tickets", "Search support tickets by text", read_only=True, idempotent=True),
]


def raw_search(body, key=KEY, auth=True):
    """POSTs `body` to /sdk/v1/tool-search with the SDK's headers (without
    authorization when auth is false); returns (status, JSON body)."""
    h = headers(cave(key), "unlabeled-workflow")
    if not auth:
        del h["authorization"]
    req = urllib.request.Request(
        f"{URL}/sdk/v1/tool-search", data=json.dumps(body).encode(), headers=h, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def wire(tools):
    """The catalog as the SDK sends it."""
    return [
        {
            "name": t.name,
            "description": t.description,
            "input_schema": t.input_schema,
            "read_only": t.read_only,
            "idempotent": t.idempotent,
            "always_load": t.always_load,
        }
        for t in tools
    ]


def attempt(call):
    """Runs an SDK search: {"ok": names}, or {"error": ...} with what the
    HTTPError it raised carried (its class, status and JSON body)."""
    try:
        result = call()
    except urllib.error.HTTPError as error:
        body = error.read()
        try:
            body = json.loads(body)
        except ValueError:
            body = body.decode(errors="replace")
        kind = type(error).__module__ + "." + type(error).__name__
        return {"error": {"type": kind, "code": error.code, "body": body}}
    return {"ok": [t["name"] for t in result.tools]}


def emit(value):
    json.dump(value, sys.stdout)
    sys.stdout.write("\n")
