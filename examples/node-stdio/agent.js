#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// An a2abus agent in Node.js, no dependencies, speaking the NDJSON protocol
// of docs/ndjson.md on stdin/stdout. Run it on the bus with:
//
//   a2abus serve --exec 'node examples/node-stdio/agent.js'
//
// Skills: greet (a greeting for the text), count (counts to the number in
// the text, reporting progress; stops when cancelled), ask (calls another
// agent's skill: input {"agent": ..., "skill": ..., "text": ...}, and answers
// with what it said) and clarify (asks its caller how to greet the name in
// the text, then greets on the turn that brings the answer, from the
// request's history alone). Requests run concurrently: each is a promise.
'use strict';

const readline = require('node:readline');

const CARD = {
  agentName: 'NodeAgent',
  description: 'Example agent in Node.js over stdio: greets, counts and asks other agents.',
  version: '1.0',
  skills: [
    { id: 'greet', name: 'Greet', description: 'Greets the name given as text.' },
    { id: 'count', name: 'Count', description: 'Counts to the number given as text (at most 20), reporting progress.' },
    { id: 'ask', name: 'Ask', description: 'Calls another agent. Input: {"agent": "SampleAgent", "skill": "echo", "text": "hi"}.' },
    { id: 'clarify', name: 'Clarify', description: 'Asks how to greet the name given as text (formal or casual), then greets.' },
  ],
  inputSchemas: {
    ask: {
      type: 'object',
      required: ['agent', 'skill', 'text'],
      properties: { agent: { type: 'string' }, skill: { type: 'string' }, text: { type: 'string' } },
    },
  },
};

const cancels = new Map(); // request_id -> AbortController, aborted by task.cancel
const calls = new Map(); // call_id -> resolve of the invoke.result
let nextCall = 0;

// send writes one frame as one line (one write per line: lines never interleave).
function send(frame) {
  process.stdout.write(JSON.stringify(frame) + '\n');
}

class TaskError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// invoke calls another agent on behalf of requestId and resolves with its invoke.result.
function invoke(requestId, agent, skill, text) {
  const callId = `${requestId}/${++nextCall}`;
  return new Promise((resolve) => {
    calls.set(callId, resolve);
    send({ type: 'invoke', request_id: requestId, call_id: callId, agent, skill, text });
  });
}

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(timer); reject(new TaskError('CANCELED', 'cancelled')); }, { once: true });
});

const STYLES = { formal: (name) => `Good day, ${name}.`, casual: (name) => `Hi ${name}!` };

// question is a task.question: it ends the request's turn waiting for the
// caller's answer, which comes as a later task.request of the same task.
const question = (text) => ({
  type: 'task.question',
  text,
  options: [{ id: 'formal', label: 'Formal' }, { id: 'casual', label: 'Casual', description: 'first names' }],
});

const skills = {
  async greet(req) {
    const name = (req.text || '').trim() || 'stranger';
    return { text: `Hello, ${name}! (from Node)`, confidence: 'HIGH' };
  },
  async count(req, signal) {
    const n = Number.parseInt((req.text || '').trim(), 10);
    if (!Number.isInteger(n) || n < 1 || n > 20) {
      throw new TaskError('INVALID_INPUT', `count: the text must be a whole number within 1..20, got ${JSON.stringify(req.text)}`);
    }
    for (let i = 1; i <= n; i++) {
      await sleep(20, signal);
      send({ type: 'task.progress', request_id: req.request_id, message: `counted ${i} of ${n}`, percent: (100 * i) / n });
    }
    return { text: `counted to ${n}`, data: { count: n } };
  },
  async ask(req) {
    const args = req.input || {};
    const res = await invoke(req.request_id, args.agent, args.skill, args.text);
    if (res.status === 'ERROR') throw new TaskError(res.code || 'EXECUTION_FAILED', `ask: ${res.message}`);
    return { text: `${res.agent} answered: ${res.text || ''}` };
  },
  // clarify asks on turn 0; a later turn ("turn" n) brings the answer and the
  // task's "history" (the first request, the question, the answer, ...), maybe
  // to another process: nothing is kept between turns.
  async clarify(req) {
    if (!req.turn) return question(`How shall I greet ${(req.text || '').trim() || 'stranger'}?`);
    const name = (req.history[0].text || '').trim() || 'stranger';
    const style = (req.text || '').trim().toLowerCase();
    if (!Object.hasOwn(STYLES, style)) return question(`Please answer formal or casual: how shall I greet ${name}?`);
    return { text: `${STYLES[style](name)} (from Node, after ${req.turn} question(s))` };
  },
};

async function run(req) {
  const abort = new AbortController();
  cancels.set(req.request_id, abort);
  try {
    const skill = skills[req.skill];
    if (!skill) throw new TaskError('SKILL_NOT_SUPPORTED', `no skill ${req.skill}`);
    const result = await skill(req, abort.signal);
    send({ ...result, type: result.type || 'task.result', request_id: req.request_id });
  } catch (e) {
    send({ type: 'task.error', request_id: req.request_id, code: e.code || 'EXECUTION_FAILED', message: e.message });
  } finally {
    cancels.delete(req.request_id);
  }
}

send({ type: 'agent.card', version: 1, card: CARD });

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  let frame;
  try {
    frame = JSON.parse(line);
  } catch {
    console.error('not JSON from host:', line.slice(0, 200)); // stderr goes to the host's log
    return;
  }
  switch (frame.type) {
    case 'hello':
      console.error(`host speaks protocol version ${frame.version}, concurrency ${frame.concurrency}`);
      break;
    case 'task.request':
      run(frame);
      break;
    case 'task.cancel':
      cancels.get(frame.request_id)?.abort();
      break;
    case 'invoke.result': {
      const resolve = calls.get(frame.call_id);
      calls.delete(frame.call_id);
      resolve?.(frame);
      break;
    }
  }
});
lines.on('close', () => process.exit(0)); // end of input: the host is stopping us
