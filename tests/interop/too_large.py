"""A catalog over the server's body limit through the SDK: it sends the whole
body before reading (urllib), so it sees the 413 and its JSON message only if
the server reads the rest of the body away before answering. A small search
after it, as a control, works."""
from _cave import CATALOG, attempt, cave, emit, tool

big = [tool(f"bulk_tool_{i}", "Bulk tool number %d " % i + "padding " * 40) for i in range(2000)]
emit({
    "too_large": attempt(lambda: cave().tools(big, strategy="deferred", initial_tool_count=0).search("bulk")),
    "control": attempt(lambda: cave().tools(CATALOG, strategy="deferred", initial_tool_count=0).search("check service status")),
})
