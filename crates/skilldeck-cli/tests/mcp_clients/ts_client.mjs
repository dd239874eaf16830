// An MCP client we did not write (the official TypeScript SDK, @modelcontextprotocol/sdk on npm)
// driving `skilldeck mcp` over stdio. Prints what it saw as one JSON object; the Rust test
// (crates/skilldeck-cli/tests/mcp.rs) asserts on it and on the files in the workspace.
//
//   node ts_client.mjs CONFIG_JSON   (CONFIG_JSON: {command, env, roots, import_v2, skill, reference})
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { spawnSync } from "node:child_process";

const config = JSON.parse(process.argv[2]);
const client = new Client({ name: "skilldeck-test", version: "0" }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: config.roots.map((uri) => ({ uri })) }));
let changed = null;
const changedOnce = new Promise((resolve) => { changed = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed(Date.now()));

const transport = new StdioClientTransport({
  command: config.command[0],
  args: config.command.slice(1),
  env: { ...process.env, ...config.env },
});
await client.connect(transport);
const call = async (args) => {
  const r = await client.callTool({ name: "view_skill", arguments: args });
  return { isError: Boolean(r.isError), structured: r.structuredContent, text: JSON.parse(r.content[0].text) };
};
const tools = async () => (await client.listTools()).tools.map((t) => ({
  name: t.name, description: t.description, enum: t.inputSchema.properties.name.enum, hasOutputSchema: Boolean(t.outputSchema),
}));

const report = { serverName: client.getServerVersion()?.name, instructions: client.getInstructions() };
report.tools = await tools();
report.l2 = await call({ name: config.skill });
report.l3 = await call({ name: config.skill, path: config.reference });
report.hostile = await call({ name: config.skill, path: "../../etc/passwd" });
const started = Date.now();
const imported = spawnSync(config.import_v2[0], config.import_v2.slice(1), { env: { ...process.env, ...config.env } });
report.import = { code: imported.status };
const at = await Promise.race([changedOnce, new Promise((r) => setTimeout(() => r(null), 10000))]);
report.listChanged = at !== null;
report.listChangedMs = at === null ? null : at - started;
report.toolsAfter = await tools();
report.l2After = await call({ name: config.skill });
await client.close();
console.log(JSON.stringify(report));
