"""ranker="embeddings" (and toolsift's "hybrid") succeed against a server
that has an embedding provider: the request reworded so that it shares no
word with the tool still finds it."""
from _cave import CATALOG, attempt, cave, emit, raw_search, wire

tools = cave().tools(CATALOG, strategy="deferred", initial_tool_count=0)
status, body = raw_search(
    {"tools": wire(CATALOG), "query": "shoot a message to the customer", "ranker": "hybrid", "max_tools": 3}
)
emit({
    "embeddings": attempt(lambda: tools.search("put something in the customer's inbox", ranker="embeddings", max_tools=3)),
    "hybrid": {"status": status, "method": body.get("method"), "names": [t["name"] for t in body.get("tools", [])]},
})
