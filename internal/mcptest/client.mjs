// SPDX-License-Identifier: Apache-2.0
// client.mjs drives `a2abus mcp` with the official TypeScript MCP client
// (npm @modelcontextprotocol/sdk), as an MCP host would: it lists the tools,
// waits until list_known_agents shows the agent, calls invoke_agent on its
// echo skill, subscribes to the result resource, waits for the
// notifications/resources/updated, reads the result and a result that is not
// there, and prints a JSON summary on stdout for the Go test to check. Over
// HTTP it sends A2ABUS_MCP_TOKEN as a bearer token when set, and records
// what a client without it, or beyond A2ABUS_MCP_MAX_SESSIONS=1, is told.
//
// usage: node client.mjs SDK_DIR AGENT stdio A2ABUS_BINARY
//        node client.mjs SDK_DIR AGENT http URL
//
// SDK_DIR is the npm prefix the SDK is installed in (outside the repository).
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, agent, mode, target] = process.argv.slice(2);
if (!sdkDir || !agent || !["stdio", "http"].includes(mode) || !target) {
  console.error("usage: node client.mjs SDK_DIR AGENT stdio|http BINARY|URL");
  process.exit(2);
}

const require = createRequire(join(sdkDir, "package.json"));
const load = (path) => import(pathToFileURL(require.resolve(path)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ResourceUpdatedNotificationSchema } = await load("@modelcontextprotocol/sdk/types.js");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const deadline = Date.now() + 60_000;
const until = async (what, cond) => {
  for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(wait);
  }
};

// Over HTTP the client sends the server's token (A2ABUS_MCP_TOKEN) when it has one.
const token = process.env.A2ABUS_MCP_TOKEN;
const withToken = token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {};
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["mcp"], env: process.env, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target), withToken);
const client = new Client({ name: "a2abus-ts-test", version: "1.0.0" });
const updated = new Set();
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.add(n.params.uri));

await client.connect(transport);
const summary = { server: client.getServerVersion()?.name, mode };
summary.tools = (await client.listTools()).tools.map((t) => t.name).sort();

const text = (res) => res.content.find((c) => c.type === "text")?.text ?? "";
const listed = await until(`${agent} in list_known_agents`, async () => {
  const res = await client.callTool({ name: "list_known_agents", arguments: { query: agent } });
  const list = JSON.parse(text(res));
  return !res.isError && list.agents.length === 1 ? list : null;
});
summary.listed = listed.agents.map((a) => a.name);

const bad = await client.callTool({ name: "invoke_agent", arguments: { agent_name: "bad name", skill: "echo", message: "x" } });
summary.badCall = { isError: bad.isError === true, code: JSON.parse(text(bad)).error?.code };

const inv = await client.callTool({ name: "invoke_agent", arguments: { agent_name: agent, skill: "echo", message: `hello from ts over ${mode}` } });
if (inv.isError) throw new Error(`invoke_agent failed: ${text(inv)}`);
summary.invoke = JSON.parse(text(inv));
const link = inv.content.find((c) => c.type === "resource_link");
summary.link = link?.uri;

await client.subscribeResource({ uri: link.uri });
const read = await until("the result resource", async () => {
  try {
    return await client.readResource({ uri: link.uri });
  } catch {
    return null; // not there yet: resource not found
  }
});
await until("notifications/resources/updated", () => updated.has(link.uri));
summary.updated = true;
summary.result = JSON.parse(read.contents[0].text);

// A result that is not there: "resource not found", with its code.
try {
  await client.readResource({ uri: link.uri.replace(/\/([^/]+)\/result$/, "/$1-missing/result") });
  summary.notFoundCode = 0;
} catch (e) {
  summary.notFoundCode = e.code ?? null;
}

// Over HTTP: what a client is told when it has no token, or when the
// sessions are full (A2ABUS_MCP_MAX_SESSIONS=1: this client holds the one).
const refusal = async (opts) => {
  const other = new Client({ name: "a2abus-ts-test-2", version: "1.0.0" });
  try {
    await other.connect(new StreamableHTTPClientTransport(new URL(target), opts));
    await other.close();
    return "connected";
  } catch (e) {
    return String(e?.message ?? e);
  }
};
if (mode === "http" && token) summary.noToken = await refusal({});
if (mode === "http" && process.env.A2ABUS_MCP_MAX_SESSIONS === "1") summary.secondClient = await refusal(withToken);

console.log(JSON.stringify(summary));
await client.close();
