"""A tool session across searches: the SDK continues it by id, and the
server's session_tools (not exposed by the SDK, so read raw) grows
append-only in first-load order."""
from _cave import CATALOG, cave, emit, raw_search, wire

tools = cave().tools(CATALOG, strategy="deferred", initial_tool_count=0)
first = tools.search("check service status", max_tools=1)
second = tools.search("send an email", max_tools=1, session_id=first.session_id)
status, third = raw_search({
    "tools": wire(CATALOG), "query": "close a support ticket", "max_tools": 1,
    "session_id": first.session_id,
})
fresh = tools.search("check service status", max_tools=1)

emit({
    "first": {"session_id": first.session_id, "names": [t["name"] for t in first.tools]},
    "second": {"session_id": second.session_id, "names": [t["name"] for t in second.tools]},
    "third": {
        "status": status,
        "session_id": third.get("session_id"),
        "names": [t["name"] for t in third.get("tools", [])],
        "session_tools": third.get("session_tools"),
    },
    "fresh_session_id": fresh.session_id,
})
