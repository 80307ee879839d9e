// The reference for OpenAI's function rendering: reads a JSON array of
// {name, description, parameters} from the file named on the command line
// and prints {"tokens", "rendered"} as the npm package openai-chat-tokens
// counts and renders them (cl100k_base; "tokens" includes the request's
// overhead of 9). tests/external/openai_rendering.rs runs it with node, with
// NODE_PATH at the npm prefix that scripts/setup-test-deps.sh fills.
const fs = require("fs");
const { functionsTokensEstimate } = require("openai-chat-tokens");
const { formatFunctionDefinitions } = require("openai-chat-tokens/dist/functions");

const functions = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
process.stdout.write(
  JSON.stringify({
    tokens: functionsTokensEstimate(functions),
    rendered: formatFunctionDefinitions(functions),
  }),
);
