// The seed's TypeScript example (docs: Deferred tools) run end to end with
// the real Caveman TypeScript SDK (@caveman-ai/sdk 1.0.0, compiled by
// scripts/setup-test-deps.sh) against `toolsift serve`, plus the sessions,
// token counts and errors around it. Plain JavaScript: the seed's code with
// its type annotations removed.
//
// tests/external/typescript_sdk.rs passes TOOLSIFT_TS_SDK_DIST (the compiled SDK's
// directory), TOOLSIFT_URL and TOOLSIFT_KEY (a toolsift serve that takes the
// key, has provider access to the test's fake openai upstream) and
// CAVE_MODEL. Prints one JSON object: what each part saw, or what it threw.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const sdk = join(process.env.TOOLSIFT_TS_SDK_DIST, "index.js");
const { Cave, RetryLoopError } = await import(pathToFileURL(sdk).href);

const BASE = process.env.TOOLSIFT_URL;
const KEY = process.env.TOOLSIFT_KEY;
const AGENT = "toolsift-interop";
const OBJECT = { type: "object", properties: {}, additionalProperties: false };

/** The quickstart's `cave`. */
function makeCave(apiKey = KEY) {
  return new Cave({ apiKey, baseURL: BASE, agent: AGENT });
}

/** A catalog entry whose handler says which tool ran. */
function tool(name, description, flags = {}) {
  return {
    name,
    description,
    inputSchema: OBJECT,
    readOnly: false,
    idempotent: false,
    ...flags,
    handler: () => ({ ran: name }),
  };
}

// Seven tools for the multi-tool parts; the seed has its own one-tool catalog.
const CATALOG = [
  tool("lookup_status", "Look up the current service status", { readOnly: true, idempotent: true }),
  tool("send_email", "Send an email message to a recipient"),
  tool("create_ticket", "Create a support ticket"),
  tool("get_ticket", "Get a support ticket by id", { readOnly: true, idempotent: true }),
  tool("update_ticket", "Update the fields of a support ticket", { idempotent: true }),
  tool("close_ticket", "Close a support ticket"),
  tool("search_tickets", "Search support tickets by text", { readOnly: true, idempotent: true }),
];

/** The catalog as the SDK sends it (index.ts, toolSearch). */
function wire(catalog) {
  return catalog.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema,
    read_only: t.readOnly,
    idempotent: t.idempotent,
    always_load: t.alwaysLoad ?? false,
  }));
}

/** POSTs `body` to /sdk/v1/tool-search with the SDK's headers; the SDK's
 *  own errors carry no body, so this reads what toolsift answered. */
async function raw(body, apiKey = KEY) {
  const response = await fetch(`${BASE}/sdk/v1/tool-search`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${apiKey}`,
      "x-cave-agent": AGENT,
      "x-cave-workflow": "unlabeled-workflow",
      "x-cave-retention": "metadata",
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const names = (tools) => tools.map((t) => t.name);

/** What a search result says about tokens, as the SDK computed it. */
function counts(result) {
  const { sentSchemaTokens, fullSchemaTokens, deferredCount, savedTokens, reductionPct, tokenBasis, basis, method } =
    result;
  return { sentSchemaTokens, fullSchemaTokens, deferredCount, savedTokens, reductionPct, tokenBasis, basis, method };
}

/** `{ok: value}`, or `{error: {...}}` with what the SDK threw. */
async function attempt(call) {
  try {
    return { ok: await call() };
  } catch (error) {
    return { error: thrown(error) };
  }
}

function thrown(error) {
  return {
    class: error?.constructor?.name ?? typeof error,
    name: error?.name,
    message: error?.message ?? String(error),
    status: error?.status ?? null,
    isError: error instanceof Error,
  };
}

async function seed() {
  const cave = makeCave();
  // --- from the seed ---
  const catalog = [{
    name: "lookup_status",
    description: "Look up the current service status",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    readOnly: true,
    idempotent: true,
    handler: () => ({ status: "ok" }),
  }];
  const tools = cave.tools({ catalog, strategy: "deferred", initialToolCount: 0 });
  const selected = await tools.search("check service status", { maxTools: 1 });
  console.error(selected.tools.map((tool) => tool.name), selected.sessionId); // stdout carries the JSON
  // --- end of the seed ---
  const first = selected.tools[0];
  return {
    strategy: tools.strategy,
    initial: names(tools.initial),
    names: names(selected.tools),
    // Reattached from the local catalog: the very descriptor, handler and all.
    localDescriptor: first === catalog[0],
    keys: first ? Object.keys(first) : [],
    handlerType: typeof first?.handler,
    handler: typeof first?.handler === "function" ? await first.handler() : null,
    sessionId: selected.sessionId ?? null,
    counts: counts(selected),
  };
}

/** The counts with most of a catalog deferred, beside the wire's own. */
async function tokenCounts() {
  const tools = makeCave().tools({ catalog: CATALOG, strategy: "deferred", initialToolCount: 0 });
  const selected = await tools.search("check service status", { maxTools: 1 });
  const wireAnswer = await raw({ tools: wire(CATALOG), query: "check service status", max_tools: 1 });
  return {
    catalog: CATALOG.length,
    names: names(selected.tools),
    counts: counts(selected),
    wire: {
      status: wireAnswer.status,
      names: names(wireAnswer.body.tools ?? []),
      sent_schema_tokens: wireAnswer.body.sent_schema_tokens,
      full_schema_tokens: wireAnswer.body.full_schema_tokens,
      deferred_count: wireAnswer.body.deferred_count,
      token_basis: wireAnswer.body.token_basis,
      method: wireAnswer.body.method,
    },
  };
}

/** A tool session across searches: the SDK continues it with the search
 *  option toolSessionId; the server's session_tools (which the SDK drops)
 *  is read raw. */
async function session() {
  const tools = makeCave().tools({ catalog: CATALOG, strategy: "deferred", initialToolCount: 0 });
  const first = await tools.search("check service status", { maxTools: 1 });
  const second = await tools.search("send an email", { maxTools: 1, toolSessionId: first.sessionId });
  const third = await raw({
    tools: wire(CATALOG),
    query: "close a support ticket",
    max_tools: 1,
    session_id: first.sessionId,
  });
  const fresh = await tools.search("check service status", { maxTools: 1 });
  const sent = second.tools[0];
  return {
    first: { sessionId: first.sessionId ?? null, names: names(first.tools) },
    second: {
      sessionId: second.sessionId ?? null,
      names: names(second.tools),
      localDescriptor: sent === CATALOG.find((t) => t.name === sent?.name),
      handler: typeof sent?.handler === "function" ? await sent.handler() : null,
    },
    third: {
      status: third.status,
      sessionId: third.body.session_id ?? null,
      names: names(third.body.tools ?? []),
      sessionTools: third.body.session_tools ?? null,
    },
    freshSessionId: fresh.sessionId ?? null,
  };
}

/** The SDK's errors: a non-2xx search throws (never an empty result); a bad
 *  option fails before any request. */
async function errors() {
  const search = (options, cave = makeCave()) =>
    cave.tools({ catalog: CATALOG, strategy: "deferred", initialToolCount: 0 })
      .search("check service status", options)
      .then((r) => names(r.tools));
  const body = (extra) => ({ tools: wire(CATALOG), query: "check service status", ...extra });
  return {
    control: await attempt(() => search({ maxTools: 1 })),
    wrongKey: await attempt(() => search({ maxTools: 1 }, makeCave("not-the-key"))),
    wrongKeyWire: await raw(body({}), "not-the-key"),
    // Plain JavaScript passes what the TypeScript types would refuse.
    unknownRanker: await attempt(() => search({ ranker: "tfidf" })),
    unknownRankerWire: await raw(body({ ranker: "tfidf" })),
    // No embedding provider on this server.
    embeddings: await attempt(() => search({ ranker: "embeddings" })),
    embeddingsWire: await raw(body({ ranker: "embeddings" })),
    maxToolsZero: await attempt(() => search({ maxTools: 0 })),
    emptyKey: await attempt(async () => makeCave("")),
  };
}

/** The seed's provider call through toolsift's pass-through, after a later
 *  search loaded one more tool into the session: first as the seed has it
 *  (the service has provider access, CAVE_MODEL names the model), then with
 *  an upstream key of the caller's. */
async function provider() {
  const cave = makeCave();
  const tools = cave.tools({ catalog: CATALOG, strategy: "deferred", initialToolCount: 0 });
  const selected = await tools.search("check service status", { maxTools: 1 });
  const later = await tools.search("send an email", { maxTools: 1, toolSessionId: selected.sessionId });
  // --- from the seed ---
  const toolResponse = await cave.openai().responses.create({
    model: process.env.CAVE_MODEL,
    input: "Check service status.",
    tools: selected.tools.map((tool) => ({
      type: "function", name: tool.name, description: tool.description,
      parameters: tool.inputSchema,
    })),
  }, { cave: { toolSessionId: selected.sessionId } });
  console.error(toolResponse); // stdout carries the JSON
  // --- end of the seed ---
  const withKey = await cave.openai({ upstreamKey: "sk-caller" }).responses.create({
    model: process.env.CAVE_MODEL,
    input: "Check service status.",
    tools: [],
  }, { cave: { toolSessionId: selected.sessionId } });
  return {
    sessionId: selected.sessionId ?? null,
    names: names(selected.tools),
    laterSessionId: later.sessionId ?? null,
    laterNames: names(later.tools),
    response: toolResponse,
    withKey,
  };
}

/** The seed's retry-loop example, counting the handler's runs; then a fifth
 *  identical call (the breaker does not reset on firing) and reset(). */
async function retryLoop() {
  let runs = 0;
  const handler = () => {
    runs += 1;
    return { status: "ok" };
  };
  const returned = [];
  let caught = null;
  let attempts = 0;
  // --- from the seed ---
  const breaker = makeCave().retryLoopBreaker(3);
  try {
    for (let attempt = 0; attempt < 4; attempt++) {
      attempts += 1;
      returned.push(await breaker.guard("lookup_status", {}, handler));
    }
  } catch (error) {
    if (!(error instanceof RetryLoopError)) throw error;
    console.error("Stopped repeated tool calls", error.repeats); // stdout carries the JSON
    caught = error;
  }
  // --- end of the seed ---
  const again = async () => {
    try {
      return { returned: await breaker.guard("lookup_status", {}, handler) };
    } catch (error) {
      return { isRetryLoopError: error instanceof RetryLoopError, repeats: error?.repeats ?? null };
    }
  };
  const fifth = await again();
  const runsBeforeReset = runs;
  breaker.reset();
  const afterReset = await again();
  return {
    attempts,
    handlerRuns: runsBeforeReset,
    returned,
    caught: caught && {
      ...thrown(caught),
      isRetryLoopError: caught instanceof RetryLoopError,
      repeats: caught.repeats,
      threshold: caught.threshold,
      signature: caught.signature,
    },
    fifth,
    afterReset,
  };
}

/** Runs one part; what it throws is reported, so the other parts still run. */
async function part(run) {
  try {
    return await run();
  } catch (error) {
    return { threw: { ...thrown(error), stack: error?.stack ?? null } };
  }
}

const out = {};
for (const [name, run] of Object.entries({ seed, tokenCounts, session, errors, provider, retryLoop })) {
  out[name] = await part(run);
}
process.stdout.write(JSON.stringify(out) + "\n");
