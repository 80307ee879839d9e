"""A wrong or empty key is a 401 through the SDK (urllib's HTTPError); a
request without an authorization header (raw, the SDK always sends one) too.
The right key, as a control, works."""
from _cave import CATALOG, KEY, attempt, cave, emit, raw_search, wire


def search_with(key):
    tools = cave(key).tools(CATALOG, strategy="deferred", initial_tool_count=0)
    return attempt(lambda: tools.search("check service status"))


status, body = raw_search({"tools": wire(CATALOG), "query": "check service status"}, auth=False)
emit({
    "right_key": search_with(KEY),
    "wrong_key": search_with("not-the-key"),
    "empty_key": search_with(""),
    "no_authorization": {"code": status, "body": body},
})
