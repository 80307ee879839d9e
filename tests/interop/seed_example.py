"""The seed's Python example (docs: Deferred tools), run against toolsift."""
import sys

from _cave import cave as make_cave, emit

cave = make_cave()

# --- from the seed, unchanged ---
from caveman_cloud import CaveTool

catalog = [CaveTool(
    name="lookup_status",
    description="Look up the current service status",
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    read_only=True,
    idempotent=True,
)]
handlers = {"lookup_status": lambda: {"status": "ok"}}
tools = cave.tools(catalog, strategy="deferred", initial_tool_count=0)
selected = tools.search("check service status", max_tools=1)
# Search returns wire dictionaries, not CaveTool instances.
by_name = {tool.name: tool for tool in catalog}
selected_names = [item["name"] for item in selected.tools]
if len(selected_names) != len(set(selected_names)) or any(name not in by_name for name in selected_names):
    raise ValueError("Search returned unknown or duplicate tools")
selected_tools = [by_name[name] for name in selected_names]
print(selected_names, selected.session_id, file=sys.stderr)  # stdout carries the JSON below
# --- end of the seed ---

emit({
    "initial": [t.name for t in tools.initial],
    "names": selected_names,
    "recovered": [t.name for t in selected_tools],
    "handler": handlers[selected_names[0]]() if selected_names else None,
    "session_id": selected.session_id,
    "sent_schema_tokens": selected.sent_schema_tokens,
    "full_schema_tokens": selected.full_schema_tokens,
    "deferred_count": selected.deferred_count,
    "saved_tokens": selected.saved_tokens,
    "reduction_pct": selected.reduction_pct,
    "method": selected.method,
    "token_basis": selected.token_basis,
    "basis": selected.basis,
})
