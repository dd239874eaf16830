// An MCP client we did not write (the official TypeScript SDK, @modelcontextprotocol/sdk on npm)
// driving `skilldeck mcp` over stdio or Streamable HTTP. Prints what it saw as one JSON object; the Rust test
// (crates/skilldeck-cli/tests/mcp.rs) asserts on it and on the files in the workspace.
//
//   node ts_client.mjs CONFIG_JSON
//   CONFIG_JSON: {command | url + token (+ bad_token), env, roots, import_v2, skill, reference}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawnSync } from "node:child_process";

const config = JSON.parse(process.argv[2]);
const client = new Client({ name: "skilldeck-test", version: "0" }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: config.roots.map((uri) => ({ uri })) }));
// Every notification the server sends, by method (and the URI of each resources/updated).
const seen = new Set();
let changed = null;
const changedOnce = new Promise((resolve) => { changed = resolve; });
client.fallbackNotificationHandler = async (n) => {
  seen.add(n.method);
  if (n.method === "notifications/resources/updated") seen.add(`updated ${n.params.uri}`);
  if (n.method === "notifications/tools/list_changed") changed(Date.now());
};

// Streamable HTTP with the bearer token the server asks for, or the server as a child process.
const httpTransport = (token) =>
  new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
const transport = config.url
  ? httpTransport(config.token)
  : new StdioClientTransport({ command: config.command[0], args: config.command.slice(1), env: { ...process.env, ...config.env } });

const report = {};
if (config.bad_token) {
  // A wrong token must be refused before any session exists.
  const intruder = new Client({ name: "skilldeck-intruder", version: "0" });
  try {
    await intruder.connect(httpTransport(config.bad_token));
    report.badToken = { refused: false };
    await intruder.close();
  } catch (e) {
    report.badToken = { refused: true, code: e.code ?? null, message: String(e.message ?? e) };
  }
}
await client.connect(transport);
const call = async (args) => {
  const r = await client.callTool({ name: "view_skill", arguments: args });
  return { isError: Boolean(r.isError), structured: r.structuredContent, text: JSON.parse(r.content[0].text) };
};
const tools = async () => (await client.listTools()).tools.map((t) => ({
  name: t.name,
  description: t.description,
  enum: t.inputSchema.properties.name.enum,
  required: t.inputSchema.required ?? null,
  hasOutputSchema: Boolean(t.outputSchema),
}));

report.serverName = client.getServerVersion()?.name;
report.toolsListChanged = Boolean(client.getServerCapabilities()?.tools?.listChanged);
report.instructions = client.getInstructions();
report.tools = await tools();
report.l2 = await call({ name: config.skill });
report.l3 = await call({ name: config.skill, path: config.reference });
report.hostile = await call({ name: config.skill, path: "../../etc/passwd" });
report.unknown = await call({ name: `${config.skill}x` });
if (config.subscribe) await client.subscribeResource({ uri: config.subscribe });
const started = Date.now();
const imported = spawnSync(config.import_v2[0], config.import_v2.slice(1), { env: { ...process.env, ...config.env } });
report.import = { code: imported.status, stderr: String(imported.stderr) };
const at = await Promise.race([changedOnce, new Promise((r) => setTimeout(() => r(null), 10000))]);
report.listChanged = at !== null;
report.listChangedMs = at === null ? null : at - started;
await new Promise((r) => setTimeout(r, 200));
report.notifications = [...seen].sort();
report.toolsAfter = await tools();
report.l2After = await call({ name: config.skill });
await client.close();
console.log(JSON.stringify(report));
