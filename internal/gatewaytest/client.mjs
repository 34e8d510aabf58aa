// SPDX-License-Identifier: Apache-2.0
// client.mjs drives an agent behind the a2abus gateway with the official
// A2A JavaScript SDK (@a2a-js/sdk): it reads the card, sends (blocking),
// streams, gets the task, answers a task's question with a follow-up
// message, cancels a running one, and sends without a key; it prints what
// it saw as one JSON object on stdout.
//
//   node client.mjs SDK_DIR AGENT_URL KEY JSONRPC|HTTP+JSON
//
// SDK_DIR is the npm prefix the SDK is installed in (outside the repository).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [sdkDir, base, key, transport] = process.argv.slice(2);
if (!sdkDir || !base || !key || !['JSONRPC', 'HTTP+JSON'].includes(transport)) {
  console.error('usage: node client.mjs SDK_DIR AGENT_URL KEY JSONRPC|HTTP+JSON');
  process.exit(2);
}
const require = createRequire(join(sdkDir, 'package.json'));
const load = (path) => import(pathToFileURL(require.resolve(path)).href);
const { Role, TaskState } = await load('@a2a-js/sdk');
const {
  ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory,
} = await load('@a2a-js/sdk/client');

// fetchWith sends every request with the key as a bearer token.
const fetchWith = (k) => (url, init = {}) => {
  const headers = new Headers(init.headers);
  if (k) headers.set('Authorization', `Bearer ${k}`);
  return fetch(url, { ...init, headers });
};

function clientFactory(k) {
  const fetchImpl = fetchWith(k);
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    preferredTransports: [transport],
  }));
}

const state = (s) => TaskState[s] ?? String(s);
const text = (parts) => (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const message = (t, skill) => ({
  message: {
    messageId: randomUUID(), role: Role.ROLE_USER, contextId: '', taskId: '', extensions: [], referenceTaskIds: [], metadata: undefined,
    parts: [{ content: { $case: 'text', value: t }, metadata: undefined, filename: '', mediaType: '' }],
  },
  metadata: { skill },
  configuration: undefined,
  tenant: '',
});

const out = {};
// The base URL ends with a slash: the card's path is resolved against it.
const client = await clientFactory(key).createFromUrl(base + '/');
const card = await client.getAgentCard();
out.card = {
  name: card.name,
  skills: card.skills.map((s) => s.id),
  streaming: card.capabilities?.streaming ?? false,
  interfaces: card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.url}`),
};

const sent = await client.sendMessage(message('hello from js', 'echo'));
out.send = { kind: sent.status ? 'task' : 'message', state: state(sent.status?.state), text: text(sent.artifacts?.[0]?.parts), id: sent.id };

const events = [];
let streamedId = '';
for await (const ev of client.sendMessageStream(message('1500', 'sleep'))) {
  const p = ev.payload;
  if (!p) continue;
  if (p.$case === 'task') { streamedId = p.value.id; events.push(`task:${state(p.value.status?.state)}`); }
  if (p.$case === 'statusUpdate') events.push(`status:${state(p.value.status?.state)}`);
  if (p.$case === 'artifactUpdate') events.push(`artifact:${text(p.value.artifact?.parts)}`);
  if (p.$case === 'message') events.push('message');
}
out.stream = events;

const got = await client.getTask({ id: streamedId, tenant: '' });
out.get = { id: got.id, state: state(got.status?.state), text: text(got.artifacts?.[0]?.parts) };

// A question, then the follow-up message that answers it: it names the
// task and its context.
const asked = await client.sendMessage(message('book the room', 'confirm'));
const reply = message('yes', 'confirm');
reply.message.taskId = asked.id;
reply.message.contextId = asked.contextId;
const confirmed = await client.sendMessage(reply);
out.followUp = {
  asked: state(asked.status?.state),
  question: text(asked.status?.message?.parts),
  state: state(confirmed.status?.state),
  text: text(confirmed.artifacts?.[0]?.parts),
  sameTask: confirmed.id === asked.id && confirmed.contextId === asked.contextId,
};

const long = message('60000', 'sleep');
long.configuration = { returnImmediately: true, acceptedOutputModes: [], taskPushNotificationConfig: undefined };
const running = await client.sendMessage(long);
await new Promise((r) => setTimeout(r, 300));
const canceled = await client.cancelTask({ id: running.id, tenant: '', metadata: undefined });
out.cancel = { state: state(canceled.status?.state), firstState: state(running.status?.state) };
try {
  await client.cancelTask({ id: running.id, tenant: '', metadata: undefined });
  out.cancelAgain = 'no error';
} catch (e) {
  out.cancelAgain = `${e.constructor.name}: ${e.message}`;
}

try {
  await clientFactory('').createFromUrl(base + '/');
  out.noKey = 'no error';
} catch (e) {
  out.noKey = e.message;
}
console.log(JSON.stringify(out));
