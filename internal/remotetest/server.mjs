// SPDX-License-Identifier: Apache-2.0
// server.mjs is a remote A2A agent built with the official JavaScript SDK
// (npm @a2a-js/sdk): its DefaultRequestHandler, InMemoryTaskStore and
// JSON-RPC transport handler behind node:http (the SDK's Express routers,
// written the same way, need Express). It speaks A2A 1.0 with SDK 1.x and
// A2A 0.3 with SDK 0.3.x. Its agent acts on the message's first word:
//
//   echo TEXT  working "echoing", an artifact "echo" of TEXT and a chunk "!", completed "echoed"
//   slow       working "tick" every 50ms until canceled
//   fail       failed "no good"
//   ask        input required "which city?"; the answer completes "weather in ANSWER"
//
// It prints "listening URL" once it serves, "started TASK" when a task
// starts and "canceled TASK" when a cancel reaches the agent.
//
// usage: node server.mjs SDK_DIR
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [sdkDir] = process.argv.slice(2);
if (!sdkDir) {
  console.error("usage: node server.mjs SDK_DIR");
  process.exit(2);
}
const require = createRequire(join(sdkDir, "package.json"));
const sdk = require("@a2a-js/sdk");
const server = require("@a2a-js/sdk/server");
const version = JSON.parse(readFileSync(join(sdkDir, "node_modules", "@a2a-js", "sdk", "package.json"), "utf8")).version;
const v1 = !version.startsWith("0.");

// The two generations of the SDK model events differently: 1.x as the
// protocol's proto messages (enums, $case parts) published as AgentEvents,
// 0.3.x as JSON objects with a "kind".
const text = (parts) =>
  (parts ?? []).map((p) => (v1 ? (p.content?.$case === "text" ? p.content.value : "") : p.kind === "text" ? p.text : "")).join("");
const textPart = (s) => (v1 ? { content: { $case: "text", value: s }, metadata: undefined, filename: "", mediaType: "" } : { kind: "text", text: s });
const agentMessage = (s, taskId, contextId) =>
  v1
    ? { messageId: randomUUID(), contextId, taskId, role: sdk.Role.ROLE_AGENT, parts: [textPart(s)], metadata: undefined, extensions: [], referenceTaskIds: [] }
    : { kind: "message", messageId: randomUUID(), contextId, taskId, role: "agent", parts: [textPart(s)] };
const STATE = v1
  ? { submitted: sdk.TaskState.TASK_STATE_SUBMITTED, working: sdk.TaskState.TASK_STATE_WORKING, completed: sdk.TaskState.TASK_STATE_COMPLETED,
      failed: sdk.TaskState.TASK_STATE_FAILED, canceled: sdk.TaskState.TASK_STATE_CANCELED }
  : { submitted: "submitted", working: "working", completed: "completed", failed: "failed", canceled: "canceled" };
const terminal = (s) => s === STATE.completed || s === STATE.failed || s === STATE.canceled;

function events(bus, taskId, contextId) {
  const status = (state, msg) => {
    const ev = { taskId, contextId, status: { state, message: msg && agentMessage(msg, taskId, contextId), timestamp: new Date().toISOString() }, metadata: undefined };
    bus.publish(v1 ? server.AgentEvent.statusUpdate(ev) : { kind: "status-update", final: terminal(state), ...ev });
  };
  const artifact = (artifactId, name, s, append) => {
    const ev = { taskId, contextId, append, lastChunk: false, metadata: undefined,
      artifact: { artifactId, name, description: "", parts: [textPart(s)], metadata: undefined, extensions: [] } };
    bus.publish(v1 ? server.AgentEvent.artifactUpdate(ev) : { kind: "artifact-update", ...ev });
  };
  return { status, artifact };
}

const running = new Map(); // taskId → the slow loop's stop
const contexts = new Map(); // taskId → its contextId

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const said = text(ctx.userMessage.parts);
    const { status, artifact } = events(bus, taskId, contextId);
    if (ctx.task) { // the answer to "ask": the task as stored (still waiting for input) comes first, as the SDK requires
      bus.publish(v1 ? server.AgentEvent.task(ctx.task) : { kind: "task", ...ctx.task });
      console.log(`answered ${taskId} ${contextId} ${said}`);
      status(STATE.working, "looking it up");
      status(STATE.completed, `weather in ${said}`);
      bus.finished();
      return;
    }
    const task = { id: taskId, contextId, status: { state: STATE.submitted, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [], history: [ctx.userMessage], metadata: undefined };
    bus.publish(v1 ? server.AgentEvent.task(task) : { kind: "task", ...task });
    contexts.set(taskId, contextId);
    console.log(`started ${taskId}`);
    const [word, ...rest] = said.split(" ");
    if (word === "echo") {
      status(STATE.working, "echoing");
      const id = randomUUID();
      artifact(id, "echo", rest.join(" "), false);
      artifact(id, "echo", "!", true);
      status(STATE.completed, "echoed");
    } else if (word === "slow") {
      await new Promise((resolve) => {
        const timer = setInterval(() => status(STATE.working, "tick"), 50);
        running.set(taskId, () => { clearInterval(timer); resolve(); });
      });
    } else if (word === "ask") {
      status(v1 ? sdk.TaskState.TASK_STATE_INPUT_REQUIRED : "input-required", "which city?");
    } else if (word === "fail") {
      status(STATE.failed, "no good");
    } else {
      status(STATE.completed, `did ${said}`);
    }
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    console.log(`canceled ${taskId}`);
    running.get(taskId)?.();
    running.delete(taskId);
    events(bus, taskId, contexts.get(taskId) ?? "").status(STATE.canceled, "canceled as asked");
    bus.finished();
  },
};

const http = createServer();
await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${http.address().port}`;
const skills = [{ id: "forecast", name: "Forecast", description: "The weather of a city.", tags: ["weather"], examples: [], inputModes: [], outputModes: [] }];
const card = v1
  ? { name: "JS Weather", description: "A remote agent of the JavaScript SDK.", version: "1.0.0",
      supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
      provider: undefined, capabilities: { streaming: true, pushNotifications: false, extensions: [] }, securitySchemes: {},
      securityRequirements: [], defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills, signatures: [] }
  : { name: "JS Weather", description: "A remote agent of the JavaScript SDK.", version: "1.0.0", protocolVersion: "0.3.0",
      url: `${base}/rpc`, preferredTransport: "JSONRPC", capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills };
const store = new server.InMemoryTaskStore();
const handler = new server.DefaultRequestHandler(card, store, executor);
const rpc = new server.JsonRpcTransportHandler(handler);

http.on("request", async (req, res) => {
  if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(card));
    return;
  }
  if (req.method !== "POST" || req.url !== "/rpc") {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  let body;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    res.writeHead(200, { "Content-Type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }));
    return;
  }
  const context = v1
    ? server.defaultServerCallContextBuilder({ user: new server.UnauthenticatedUser(), headers: req.headers, requestedVersion: req.headers["a2a-version"] })
    : new server.ServerCallContext(undefined, new server.UnauthenticatedUser());
  const out = await rpc.handle(body, context);
  if (typeof out?.[Symbol.asyncIterator] !== "function") {
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(out));
    return;
  }
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
  try {
    for await (const ev of out) res.write(`data: ${JSON.stringify(ev)}\n\n`);
  } catch (err) {
    res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: body.id ?? null, error: { code: -32603, message: String(err) } })}\n\n`);
  }
  res.end();
});
console.log(`listening ${base}`);
