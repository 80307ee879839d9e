"""Sessions are scoped per API key: key B continuing key A's session id
does not see A's loaded tools. Keys come from TOOLSIFT_KEY_A and TOOLSIFT_KEY_B."""
import os

from _cave import CATALOG, cave, emit, raw_search, wire

key_a, key_b = os.environ["TOOLSIFT_KEY_A"], os.environ["TOOLSIFT_KEY_B"]
a = cave(key_a).tools(CATALOG, strategy="deferred", initial_tool_count=0)
first = a.search("check service status", max_tools=1)


def continue_as(key, query):
    status, body = raw_search({
        "tools": wire(CATALOG), "query": query, "max_tools": 1,
        "session_id": first.session_id,
    }, key=key)
    return {"status": status, "session_id": body.get("session_id"),
            "names": [t["name"] for t in body.get("tools", [])],
            "session_tools": body.get("session_tools")}


emit({
    "a_session_id": first.session_id,
    "a_names": [t["name"] for t in first.tools],
    "b": continue_as(key_b, "send an email"),
    "a_again": continue_as(key_a, "close a support ticket"),
})
