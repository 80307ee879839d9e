"""A generic MCP host on the official Python SDK (the mcp package from PyPI),
run by a script of steps: tests/external/gateway.rs points it at
`toolsift gateway`, over stdio or streamable HTTP, as a real client would.
Run it with the python of the venv scripts/setup-test-deps.sh makes (mcp
2.3.0 is installed there).

    python gateway_host.py (--stdio "CMD ARGS..." | --url URL)
        [--mode auto|legacy|2026-07-28] [--header "Name: value"]...
        [--sessions N] [--timeout SECONDS] [--elicit accept|decline]
        < STEPS_JSON

--stdio runs the command (split like a shell would, with shlex) and talks to
it over its stdin and stdout; it gets this script's whole environment (the
SDK alone would pass only HOME, PATH and a few more). --url connects over
streamable HTTP; each --header is sent with every request (an API key, say;
"{session}" in its value becomes the session's index).
--mode is the SDK's Client(mode=...): "auto" probes server/discover and falls
back to initialize, "legacy" sends initialize, "2026-07-28" adopts that
version without a handshake. --sessions N runs N clients at once, each with
its own connection (its own process for --stdio), each running every step.
--timeout is the SDK's read timeout for every request (default: none).
--elicit makes the host support MCP elicitation (the capability declared)
and answer every question with that action (with --elicit-content, that
JSON object as the content of an accept ("{session}" in it becomes the
session's index), or with "defaults" the
defaults of the form's schema; --elicit-delay waits that long before
answering, and a question cancelled meanwhile is recorded as "cancelled:
MESSAGE"); without it the host declares
no elicitation, as the SDK does by default. --sample makes it support
sampling and answer every request for a completion with TEXT ("{session}"
in it becomes the session's index; model
"gateway-host-test"). --log-level LEVEL asks 2026-07-28 servers for log
messages at LEVEL and above (handshake revisions use the setlevel step).
Every log message received is kept for the logs step.

STEPS_JSON, on stdin, is a JSON array of steps:

  {"op": "list"}                 every page of tools/list; the result is the
                                 array of tools (name, description,
                                 inputSchema, annotations, ... as JSON).
                                 "cache_mode": "use" (the SDK's default),
                                 "refresh" or "bypass" is passed on.
  {"op": "call_each", "timeout": S} waits up to S s (30) for the servers'
                                 tools, then calls each with no arguments.
  {"op": "call", "name": N, "arguments": {...}}
                                 tools/call; the result is the CallToolResult
                                 (content, structuredContent, isError).
                                 "meta": {...} is sent as the request's
                                 _meta (a W3C traceparent, say).
                                 "timeout": seconds for this call alone. The
                                 SDK itself sends a tools/list after a
                                 successful call of a tool it has not seen
                                 listed (to find its output schema).
                                 "timed": true adds "seconds", how long
                                 the call took. "progress": true collects the progress
                                 notifications of this call: the result
                                 gains "progress", a list of
                                 {"progress", "total", "message"}. With
                                 "timeout" the SDK gives the call up after
                                 that many seconds and sends
                                 notifications/cancelled (the result is then
                                 the exception).
  {"op": "resources"}            every page of resources/list (as JSON).
  {"op": "templates"}            every page of resources/templates/list.
  {"op": "read", "uri": U}       resources/read; the result as JSON.
  {"op": "prompts"}              every page of prompts/list.
  {"op": "prompt", "name": N, "arguments": {...}}
                                 prompts/get; the result as JSON.
  {"op": "wait_notification", "method": M, "timeout": S}
                                 waits (default 10 s) for the next
                                 notification M from the server not yet
                                 waited for; the result is {"method": M}.
  {"op": "notifications"}        the methods of every notification received
                                 so far, in order.
  {"op": "listen"}               2026-07-28: opens a subscriptions/listen
                                 stream for tools_list_changed in the
                                 background; each event it brings counts as
                                 a notifications/tools/list_changed for
                                 wait_notification and notifications. The
                                 result is the honored filter.
  {"op": "sleep", "seconds": S}  waits; the result is null.
  {"op": "elicitations"}         the messages of every elicitation the server
                                 sent so far, in order.
  {"op": "samplings"}            the first message's text of every sampling
                                 request received so far, in order.
  {"op": "logs"}                 every log message received so far:
                                 {"level", "logger", "data"}.
  {"op": "setlevel", "level": L} logging/setLevel.
  {"op": "complete", "prompt": N | "template": URI, "argument": A,
   "value": V}                   completion/complete; the result as JSON.
  {"op": "subscribe", "uri": U}  resources/subscribe ("unsubscribe" too).

In a step's arguments, "{session}" anywhere in a string becomes the session's
index (0 to N-1), and a string that is exactly "{session:int}" becomes that
index as a number, so that N sessions can call with different arguments.

Prints one JSON document on stdout (non-ASCII and control characters
escaped):

  {"protocol_version": "...", "server_info": {...}, "instructions": ...,
   "capabilities": {...}, "sessions": [[result of step 1, ...], ...]}

protocol_version, server_info, instructions and capabilities are the first
session's that connected. A step that raises is recorded as
{"exception": "TypeName: message"} and the next step runs; a session that
cannot connect records {"exception": ..., "connect": true} for every step.
The exit status is 0 once the document is printed, 2 on a usage error.
"""

import argparse
import asyncio
import json
import os
import shlex
import sys
import time
from contextlib import AsyncExitStack

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

MODES = ("auto", "legacy", "2026-07-28")


def parse_args():
    parser = argparse.ArgumentParser(description="Runs MCP steps read on stdin against a server.")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--stdio", metavar="COMMAND", help="the server's command line")
    target.add_argument("--url", help="the server's streamable HTTP endpoint")
    parser.add_argument("--mode", default="auto", choices=MODES)
    parser.add_argument("--header", action="append", default=[], metavar="NAME: VALUE")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--elicit", choices=("accept", "decline"), default=None)
    parser.add_argument("--elicit-content", default=None, metavar="JSON")
    parser.add_argument("--elicit-delay", type=float, default=0, metavar="SECONDS")
    parser.add_argument("--sample", default=None, metavar="TEXT")
    parser.add_argument("--log-level", default=None, metavar="LEVEL")
    args = parser.parse_args()
    args.headers = {}
    for header in args.header:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            parser.error(f"--header {header!r} is not 'Name: value'")
        args.headers[name.strip()] = value.strip()
    if args.headers and not args.url:
        parser.error("--header needs --url")
    if args.sessions < 1:
        parser.error("--sessions must be at least 1")
    if args.stdio is not None and not shlex.split(args.stdio):
        parser.error("--stdio needs a command")
    return args


def describe(error):
    """The exception as "TypeName: message", looking through groups of one."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def template(value, session):
    if isinstance(value, str):
        if value == "{session:int}":
            return session
        return value.replace("{session}", str(session))
    if isinstance(value, list):
        return [template(v, session) for v in value]
    if isinstance(value, dict):
        return {template(k, session): template(v, session) for k, v in value.items()}
    return value


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


class Notifications:
    """The notifications a session received, for the wait_notification step."""

    def __init__(self):
        self.methods = []
        self.elicited = []
        self.sampled = []
        self.logs = []
        self.waited = {}
        self.changed = asyncio.Event()
        self.tasks = []

    async def handler(self, message):
        if isinstance(message, Exception):
            return
        method = getattr(message, "method", None)
        if method is not None:
            self.methods.append(method)
            self.changed.set()

    async def wait(self, method, timeout):
        async def arrived():
            while self.methods.count(method) <= self.waited.get(method, 0):
                self.changed.clear()
                await self.changed.wait()

        await asyncio.wait_for(arrived(), timeout)
        self.waited[method] = self.waited.get(method, 0) + 1


async def list_all(client, cache_mode):
    tools = []
    cursor = None
    for _ in range(1000):
        page = await client.list_tools(cursor=cursor, cache_mode=cache_mode)
        tools.extend(dump(tool) for tool in page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools
    raise RuntimeError("tools/list gave more than 1000 pages")


async def pages(list_page, field):
    """Every page of a paginated list, its items as JSON."""
    items = []
    cursor = None
    for _ in range(1000):
        page = await list_page(cursor=cursor)
        items.extend(dump(item) for item in getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            return items
    raise RuntimeError(f"{field} gave more than 1000 pages")


async def run_step(client, notifications, step, session):
    op = step.get("op")
    if op == "list":
        return await list_all(client, step.get("cache_mode", "use"))
    if op == "call_each":
        # Every tool the servers behind the gateway listed (not the
        # gateway's own), once some are listed (a server that logs in
        # first joins a moment later), each called with no arguments.
        own = {"search_tools", "call_read_tool", "call_tool"}
        deadline = asyncio.get_running_loop().time() + step.get("timeout", 30)
        while True:
            listed = (await client.list_tools()).tools
            names = [t.name for t in listed if t.name not in own]
            if names or asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.3)
        results = []
        for name in names:
            result = await client.call_tool(name, {})
            results.append({"name": name, "isError": bool(getattr(result, "is_error", getattr(result, "isError", False)))})
        return results
    if op == "call":
        arguments = template(step.get("arguments") or {}, session)
        reports = []

        async def progress(value, total, message):
            reports.append({"progress": value, "total": total, "message": message})

        started = time.perf_counter()
        result = await client.call_tool(
            step["name"],
            arguments,
            read_timeout_seconds=step.get("timeout"),
            progress_callback=progress if step.get("progress") else None,
            meta=step.get("meta"),
        )
        out = dump(result)
        if step.get("progress"):
            out["progress"] = reports
        if step.get("timed"):
            out["seconds"] = time.perf_counter() - started
        return out
    if op == "resources":
        return await pages(client.list_resources, "resources")
    if op == "templates":
        return await pages(client.list_resource_templates, "resource_templates")
    if op == "read":
        return dump(await client.read_resource(step["uri"]))
    if op == "prompts":
        return await pages(client.list_prompts, "prompts")
    if op == "prompt":
        return dump(await client.get_prompt(step["name"], step.get("arguments")))
    if op == "wait_notification":
        await notifications.wait(step["method"], step.get("timeout", 10))
        return {"method": step["method"]}
    if op == "notifications":
        return list(notifications.methods)
    if op == "elicitations":
        return list(notifications.elicited)
    if op == "samplings":
        return list(notifications.sampled)
    if op == "logs":
        return list(notifications.logs)
    if op == "setlevel":
        return dump(await client.set_logging_level(step["level"]))
    if op == "complete":
        if "prompt" in step:
            ref = types.PromptReference(type="ref/prompt", name=step["prompt"])
        else:
            ref = types.ResourceTemplateReference(type="ref/resource", uri=step["template"])
        argument = {"name": step["argument"], "value": step.get("value", "")}
        return dump(await client.complete(ref, argument))
    if op == "subscribe":
        return dump(await client.subscribe_resource(step["uri"]))
    if op == "unsubscribe":
        return dump(await client.unsubscribe_resource(step["uri"]))
    if op == "listen":
        acked = asyncio.get_running_loop().create_future()

        async def follow():
            try:
                async with client.listen(tools_list_changed=True) as sub:
                    acked.set_result(dump(sub.honored) if sub.honored is not None else None)
                    async for event in sub:
                        kind = type(event).__name__
                        notifications.methods.append(
                            "notifications/tools/list_changed" if "Tool" in kind else kind
                        )
                        notifications.changed.set()
            except Exception as error:  # noqa: BLE001: said as the step's result
                if not acked.done():
                    acked.set_exception(error)

        notifications.tasks.append(asyncio.create_task(follow()))
        return await asyncio.wait_for(acked, 30)
    if op == "sleep":
        await asyncio.sleep(step.get("seconds", 0))
        return None
    if op == "write":
        # A file the gateway reads changes mid-session (its servers file).
        with open(step["path"], "w", encoding="utf-8") as f:
            f.write(step["text"])
        return None
    raise ValueError(f"unknown op {op!r}")


async def run_session(args, steps, session, info):
    notifications = Notifications()
    results = []
    async with AsyncExitStack() as stack:
        try:
            if args.url is None:
                words = shlex.split(args.stdio)
                server = StdioServerParameters(command=words[0], args=words[1:], env=dict(os.environ))
            elif args.headers:
                headers = {name: str(template(value, session)) for name, value in args.headers.items()}
                http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
                server = streamable_http_client(args.url, http_client=http)
            else:
                server = args.url
            extra = {}
            if args.elicit is not None:

                given = args.elicit_content

                async def elicit(context, params):
                    notifications.elicited.append(params.message)
                    try:
                        await asyncio.sleep(args.elicit_delay)
                    except asyncio.CancelledError:
                        # The server (through the gateway) gave its request up.
                        notifications.elicited.append(f"cancelled: {params.message}")
                        raise
                    if args.elicit != "accept":
                        return types.ElicitResult(action=args.elicit, content=None)
                    if given == "defaults":
                        # As a host's form prefilled with the schema's defaults.
                        schema = getattr(params, "requested_schema", None) or {}
                        if not isinstance(schema, dict):
                            schema = schema.model_dump(by_alias=True)
                        properties = schema.get("properties") or {}
                        content = {k: v["default"] for k, v in properties.items() if isinstance(v, dict) and "default" in v}
                    else:
                        content = json.loads(template(given, session)) if given else {}
                    return types.ElicitResult(action="accept", content=content)

                extra["elicitation_callback"] = elicit
            if args.sample is not None:

                async def sample(context, params):
                    first = params.messages[0].content if params.messages else None
                    notifications.sampled.append(getattr(first, "text", None))
                    return types.CreateMessageResult(
                        role="assistant",
                        content=types.TextContent(type="text", text=template(args.sample, session)),
                        model="gateway-host-test",
                        stop_reason="endTurn",
                    )

                extra["sampling_callback"] = sample

            async def log(params):
                notifications.logs.append({"level": params.level, "logger": params.logger, "data": params.data})

            extra["logging_callback"] = log
            if args.log_level is not None:
                extra["log_level"] = args.log_level
            client = Client(
                server,
                mode=args.mode,
                read_timeout_seconds=args.timeout,
                message_handler=notifications.handler,
                **extra,
            )
            await stack.enter_async_context(client)
        except Exception as error:  # noqa: BLE001: recorded, the other sessions go on
            failure = {"exception": describe(error), "connect": True}
            return [failure for _ in steps]
        if not info:
            capabilities = client.server_capabilities
            server_info = client.server_info
            info.update(
                protocol_version=client.protocol_version,
                server_info=dump(server_info) if server_info is not None else None,
                instructions=client.instructions,
                capabilities=dump(capabilities) if capabilities is not None else None,
            )
        for step in steps:
            try:
                results.append(await run_step(client, notifications, step, session))
            except Exception as error:  # noqa: BLE001: recorded, the next step runs
                results.append({"exception": describe(error)})
        for task in notifications.tasks:
            task.cancel()
        try:
            await stack.aclose()
        except Exception as error:  # noqa: BLE001: the steps are done; only say so
            print(f"session {session}: closing: {describe(error)}", file=sys.stderr)
    return results


async def main():
    args = parse_args()
    try:
        steps = json.load(sys.stdin)
    except ValueError as error:
        steps = error
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        print("gateway_host.py: stdin must hold a JSON array of step objects", file=sys.stderr)
        sys.exit(2)
    info = {}
    sessions = await asyncio.gather(*(run_session(args, steps, n, info) for n in range(args.sessions)))
    document = {
        "protocol_version": info.get("protocol_version"),
        "server_info": info.get("server_info"),
        "instructions": info.get("instructions"),
        "capabilities": info.get("capabilities"),
        "sessions": sessions,
    }
    sys.stdout.write(json.dumps(document) + "\n")
    sys.stdout.flush()


asyncio.run(main())
