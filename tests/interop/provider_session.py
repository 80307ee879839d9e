"""The seed's second half: search, then pass the selected tools to a
provider through the service with the tool session,
cave.openai(upstream_key).responses.create(body, tool_session_id=...).
TOOLSIFT_URL is a toolsift serve whose openai upstream is the test's fake."""
from _cave import CATALOG, cave as make_cave, emit

cave = make_cave()
tools = cave.tools(CATALOG, strategy="deferred", initial_tool_count=0)
selected = tools.search("check service status", max_tools=1)
by_name = {tool.name: tool for tool in CATALOG}
selected_names = [item["name"] for item in selected.tools]
selected_tools = [by_name[name] for name in selected_names]
# A later search in the same session loads one more tool.
later = tools.search("send an email", max_tools=1, session_id=selected.session_id)

# --- the seed's provider call, with an upstream key and no CAVE_MODEL ---
tool_response = cave.openai("upstream-key").responses.create({
    "model": "gpt-test",
    "input": "Check service status.",
    "tools": [{
        "type": "function", "name": tool.name, "description": tool.description,
        "parameters": tool.input_schema,
    } for tool in selected_tools],
}, tool_session_id=selected.session_id)
# --- end ---

emit({
    "session_id": selected.session_id,
    "later_session_id": later.session_id,
    "names": selected_names,
    "later_names": [t["name"] for t in later.tools],
    "response": tool_response,
})
