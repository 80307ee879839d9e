"""max_loaded_tools is the handle's default search cap; max_tools overrides it."""
from _cave import CATALOG, cave, emit

c = cave()
query = "support ticket"
capped = c.tools(CATALOG, strategy="deferred", initial_tool_count=8, max_loaded_tools=2)
uncapped = c.tools(CATALOG, strategy="deferred", initial_tool_count=0)


def names(result):
    return [t["name"] for t in result.tools]


emit({
    "catalog": len(CATALOG),
    "initial": [t.name for t in capped.initial],
    "default_cap": names(capped.search(query)),
    "explicit_3": names(capped.search(query, max_tools=3)),
    "uncapped": names(uncapped.search(query)),
})
