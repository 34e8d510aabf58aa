#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An a2abus agent in Python, written against docs/wire-protocol.md and
docs/topology.md with pika only (no a2abus code). Skills: echo (the text
back), fail (EXECUTION_FAILED with the text), sleep (milliseconds, until
canceled or the deadline) and clarify (asks its caller how to greet the
text, and greets on the later turn that brings the answer, from the
request's history alone). It passes `a2abus conformance`.

    python3 agent.py --name PyEcho --amqp-url amqp://guest:guest@127.0.0.1:5672/

The environment variables of a2abus work too: A2ABUS_BUS_URL,
A2ABUS_BUS_EXCHANGE, A2ABUS_BUS_MAX_ATTEMPTS, A2ABUS_DIRECTORY_ANNOUNCE_SECRET.
SIGTERM or SIGINT stops it: it stops taking tasks, lets running ones finish
(up to --stop-timeout), announces its deregistration and exits 0.
"""

import argparse
import datetime
import hashlib
import hmac
import json
import logging
import os
import re
import signal
import threading
import time
import uuid

import pika
import pika.exceptions

PROTOCOL_VERSION = "1.0"
AGENT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
SKILL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
RFC3339 = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$")
# A2A state of a task.error by code (wire-protocol.md, "task.error").
REJECTED = {"SKILL_NOT_SUPPORTED", "INVALID_INPUT", "FORBIDDEN"}
RETRYABLE = {"TIMEOUT", "EXPIRED_IN_QUEUE", "RATE_LIMITED", "BUSY", "CIRCUIT_OPEN", "UNAVAILABLE"}
SKILLS = ("echo", "fail", "sleep", "clarify")
# clarify's answers (wire-protocol.md, "Turns"): the options of its question, and the greeting of each.
GREETINGS = {"formal": "Good day, %s.", "casual": "Hi %s!"}
OPTIONS = [{"id": "formal", "label": "Formal"}, {"id": "casual", "label": "Casual", "description": "first names"}]
ANNOUNCE_INTERVAL = 60.0
CANCEL_MEMORY = 600.0  # seconds a cancel of a task not running here is remembered

log = logging.getLogger("python-amqp-agent")


class Invalid(Exception):
    """A request that does not decode: the message names the field."""


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(value):
    """RFC 3339 with any number of fraction digits (Go writes nanoseconds)."""
    m = RFC3339.match(value or "") if isinstance(value, str) else None
    if not m:
        raise ValueError("not an RFC 3339 time: %r" % (value,))
    frac = (m.group(2) or ".0")[1:7].ljust(6, "0")
    tz = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.datetime.fromisoformat("%s.%s%s" % (m.group(1), frac, tz))


def text_of(message):
    return "".join(p.get("text", "") for p in message.get("parts", []) if isinstance(p, dict))


def decode_request(body):
    """The request as a dict, checked as the spec requires, or Invalid."""
    try:
        req = json.loads(body)
    except ValueError as e:
        raise Invalid("invalid JSON: %s" % e)
    if not isinstance(req, dict):
        raise Invalid("the body is not a JSON object")
    for field, rule in (("taskId", TASK_ID), ("sessionId", SESSION_ID), ("caller", AGENT_NAME),
                        ("target", AGENT_NAME), ("skill", SKILL_ID)):
        v = req.get(field)
        if not isinstance(v, str) or not rule.match(v) or (field == "sessionId" and ".." in v):
            raise Invalid('field "%s": %r must match %s' % (field, v, rule.pattern))
    msg = req.get("message")
    if not isinstance(msg, dict) or not isinstance(msg.get("parts"), list) or not msg["parts"]:
        raise Invalid('field "message": required, with at least one part')
    try:
        req["_deadline"] = parse_time(req.get("deadline"))
    except ValueError as e:
        raise Invalid('field "deadline": %s' % e)
    # startBy (optional): the wait to be taken, apart from the run
    # (wire-protocol.md, "Waiting and running"). Absent: the deadline bounds both.
    req["_start_by"] = None
    if req.get("startBy") is not None:
        try:
            req["_start_by"] = parse_time(req["startBy"])
        except ValueError as e:
            raise Invalid('field "startBy": %s' % e)
        if req["_start_by"] > req["_deadline"]:
            raise Invalid('field "startBy": %s is after the deadline %s' % (req["startBy"], req["deadline"]))
    chain = req.get("callChain") or []
    if not isinstance(chain, list) or len(chain) > 64 or not all(isinstance(c, str) and AGENT_NAME.match(c) for c in chain):
        raise Invalid('field "callChain": at most 64 agent names')
    turn = req.get("turn", 0)
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 0:
        raise Invalid('field "turn": a whole number, 0 or more')
    for field in ("history", "contextHistory"):
        msgs = req.get(field, [])
        if not isinstance(msgs, list) or len(msgs) > 256 or not all(isinstance(m, dict) and isinstance(m.get("parts"), list) for m in msgs):
            raise Invalid('field "%s": at most 256 messages' % field)
    return req


def attempt_of(headers):
    """x-a2a-attempt: absent or malformed is 1."""
    v = (headers or {}).get("x-a2a-attempt", 1)
    if isinstance(v, bytes):
        v = v.decode("ascii", "replace")
    try:
        return max(int(v), 1)
    except (TypeError, ValueError):
        return 1


def clarify(req, text):
    """Asks how to greet the text on turn 0; a later turn brings the answer.

    The answer is a new task.request for the same task with "turn" n and the
    task's "history" (the first request, the question, the answer, ...), and
    may reach any instance: the greeting is made from the request alone.
    """
    if not req.get("turn"):
        return ("question", "How shall I greet %s?" % (text.strip() or "stranger"))
    history = req.get("history") or []
    name = (text_of(history[0]) if history else "").strip() or "stranger"
    style = text.strip().lower()
    if style not in GREETINGS:  # ask again: this exchange is in the next turn's history
        return ("question", "Please answer formal or casual: how shall I greet %s?" % name)
    return ("result", GREETINGS[style] % name)


class Agent:
    def __init__(self, args):
        self.name = args.name
        self.exchange = args.exchange
        self.dlx = args.exchange + ".dlx"
        self.max_attempts = args.max_attempts
        self.stop_timeout = args.stop_timeout
        self.secret = args.secret.encode() if args.secret else b""
        self.instance = uuid.uuid4().hex
        self.task_queue = "agent.task." + self.name
        self.instance_queue = "a2a.instance.%s.%s" % (self.name, self.instance)
        self.running = {}   # task id -> (caller, threading.Event)
        self.canceled = {}  # task id -> (caller, monotonic time)
        self.stopping = False
        params = pika.URLParameters(args.amqp_url)
        params.client_properties = {"connection_name": "python-amqp agent " + self.name}
        self.conn = pika.BlockingConnection(params)
        self.ch = self.conn.channel()
        self.ch.confirm_delivery()  # every publish waits for the broker's confirm; mandatory ones raise when unroutable
        self.concurrency = args.concurrency

    # --- topology (topology.md) -------------------------------------------

    def declare(self):
        ch = self.ch
        for x in (self.exchange, self.dlx):
            ch.exchange_declare(x, exchange_type="topic", durable=True)
        dead = self.exchange + ".dead"
        ch.queue_declare(dead, durable=True)
        ch.queue_bind(dead, self.dlx, "#")
        ch.queue_declare(self.task_queue, durable=True,
                         arguments={"x-dead-letter-exchange": self.dlx, "x-max-priority": 9})
        ch.queue_bind(self.task_queue, self.exchange, self.task_queue)
        ch.queue_declare(self.instance_queue, exclusive=True, auto_delete=True)
        for key in ("agent.cancel." + self.name, "discovery.query"):
            ch.queue_bind(self.instance_queue, self.exchange, key)
        ch.basic_qos(prefetch_count=self.concurrency)
        ch.basic_consume(self.instance_queue, self.on_instance, auto_ack=True)
        self.task_consumer = ch.basic_consume(self.task_queue, self.on_task)

    # --- publishing ----------------------------------------------------------

    def publish(self, key, kind, payload, correlation_id=None, persistent=True, trace=None, exchange=None):
        body = json.dumps(payload, separators=(",", ":")).encode()
        headers = {"a2a-version": PROTOCOL_VERSION}
        if trace:
            headers["traceparent"] = trace
        props = pika.BasicProperties(
            content_type="application/json", delivery_mode=2 if persistent else 1,
            message_id=str(uuid.uuid4()), correlation_id=correlation_id, type=kind,
            timestamp=int(time.time()), headers=headers)
        if kind == "agent.card" and self.secret:
            signed = ("%s\n%s\n%d\n" % (kind, props.message_id, props.timestamp)).encode() + body
            headers["a2a-signature"] = hmac.new(self.secret, signed, hashlib.sha256).hexdigest()
        self.ch.basic_publish(self.exchange if exchange is None else exchange, key, body, props, mandatory=True)

    def announce(self, deregistering=False):
        card = {"name": self.name, "description": "Echo, fail and sleep, in Python with pika", "version": "1.0.0",
                "skills": [{"id": "echo", "name": "Echo", "description": "the text back"},
                           {"id": "fail", "name": "Fail", "description": "EXECUTION_FAILED with the text"},
                           {"id": "sleep", "name": "Sleep", "description": "waits the milliseconds given"},
                           {"id": "clarify", "name": "Clarify", "description": "asks how to greet the text, then greets"}]}
        ann = {"card": card, "instanceId": self.instance, "time": now_rfc3339()}
        if deregistering:
            ann["deregistering"] = True
        try:
            self.publish("discovery.announce", "agent.card", ann, persistent=False)
        except pika.exceptions.UnroutableError:
            pass  # no directory is running: announcements are not kept (wire-protocol.md)

    def reply(self, req, trace, payload, kind):
        # Every answer echoes the request's turn, and its delivery attempt past the first (wire-protocol.md, "Turns").
        if req.get("turn"):
            payload["turn"] = req["turn"]
        if req.get("_attempt", 1) > 1:
            payload["attempt"] = req["_attempt"]
        self.publish("agent.response." + req["caller"], kind, payload, correlation_id=req["taskId"], trace=trace)

    def try_reply(self, req, trace, payload, kind):
        """reply; False when the caller's response queue does not exist (the reply is unroutable)."""
        try:
            self.reply(req, trace, payload, kind)
            return True
        except pika.exceptions.UnroutableError:
            log.warning("reply unroutable: task %s, caller %s", req["taskId"], req["caller"])
            return False

    def error(self, req, code, message):
        state = "TASK_STATE_CANCELED" if code == "CANCELED" else (
            "TASK_STATE_REJECTED" if code in REJECTED else "TASK_STATE_FAILED")
        return {"taskId": req["taskId"], "agent": self.name, "state": state, "code": code,
                "message": message, "retryable": code in RETRYABLE, "time": now_rfc3339()}

    # --- the instance queue: cancels and discovery queries -------------------

    def on_instance(self, ch, method, props, body):
        try:
            msg = json.loads(body)
        except ValueError:
            log.warning("undecodable instance message dropped")
            return
        if props.type == "task.cancel" and isinstance(msg, dict):
            task_id, caller = msg.get("taskId"), msg.get("caller")
            self.canceled[task_id] = (caller, time.monotonic())
            run = self.running.get(task_id)
            if run and run[0].lower() == str(caller).lower():
                run[1].set()
        elif props.type == "discovery.query":
            self.announce()

    def canceled_by(self, task_id, caller):
        c = self.canceled.get(task_id)
        return c is not None and c[0].lower() == caller.lower() and time.monotonic() - c[1] < CANCEL_MEMORY

    # --- the task queue -------------------------------------------------------

    def on_task(self, ch, method, props, body):
        attempt = attempt_of(props.headers)
        if method.redelivered:
            # The broker redelivered it: the consumer before crashed. That counts as an attempt.
            if attempt > self.max_attempts:
                ch.basic_reject(method.delivery_tag, requeue=False)
                return
            headers = dict(props.headers or {})
            headers["x-a2a-attempt"] = str(attempt + 1)
            headers.setdefault("x-a2a-routing-key", method.routing_key)
            props.headers = headers
            ch.basic_publish("", self.task_queue, body, props, mandatory=True)
            ch.basic_ack(method.delivery_tag)
            return
        if props.type != "task.request":
            log.warning("not a task request (%s): dead-lettered", props.type)
            ch.basic_reject(method.delivery_tag, requeue=False)
            return
        trace = (props.headers or {}).get("traceparent")
        try:
            req = decode_request(body)
        except Invalid as e:
            head = {}
            try:
                head = json.loads(body)
            except ValueError:
                pass
            if isinstance(head, dict) and TASK_ID.match(str(head.get("taskId", ""))) and AGENT_NAME.match(str(head.get("caller", ""))):
                self.try_reply(head, trace, self.error(head, "INVALID_INPUT", "decode task.request: %s" % e), "task.error")
            log.warning("undecodable task dead-lettered: %s", e)
            ch.basic_reject(method.delivery_tag, requeue=False)
            return
        req["_attempt"] = attempt
        refusal = self.refusal(req, attempt)
        if refusal:
            if not self.try_reply(req, trace, self.error(req, *refusal), "task.error"):
                ch.basic_reject(method.delivery_tag, requeue=False)
            elif refusal[0] == "EXECUTION_FAILED":
                ch.basic_reject(method.delivery_tag, requeue=False)  # attempts spent: dead-letter it
            else:
                ch.basic_ack(method.delivery_tag)
            return
        event = threading.Event()
        self.running[req["taskId"]] = (req["caller"], event)
        # The run deadline starts now, when the task is taken: the run time
        # (deadline - startBy) from now, never past the deadline.
        if req["_start_by"] is not None:
            taken = datetime.datetime.now(datetime.timezone.utc)
            req["_deadline"] = min(req["_deadline"], taken + (req["_deadline"] - req["_start_by"]))
        if req.get("stream") or req["_start_by"] is not None:  # with startBy: the take notice
            status = {"taskId": req["taskId"], "agent": self.name, "state": "TASK_STATE_WORKING", "time": now_rfc3339()}
            try:  # advisory: a lost status goes unnoticed
                self.publish("agent.response." + req["caller"], "task.status", status,
                             correlation_id=req["taskId"], persistent=False, trace=trace)
            except pika.exceptions.UnroutableError:
                pass
        tag = method.delivery_tag
        threading.Thread(target=self.work, args=(req, trace, tag, event), daemon=True).start()

    def refusal(self, req, attempt):
        """(code, message) when the task must not run, else None."""
        if req["target"].lower() != self.name.lower():
            return "INVALID_INPUT", "task for agent %r was delivered to %r" % (req["target"], self.name)
        if attempt > self.max_attempts:
            return "EXECUTION_FAILED", "task gave up after %d delivery attempts (limit %d)" % (attempt - 1, self.max_attempts)
        now = datetime.datetime.now(datetime.timezone.utc)
        if req["_start_by"] is not None and attempt <= 1 and req["_start_by"] <= now:
            return "EXPIRED_IN_QUEUE", "no agent took the task from its queue by %s" % req["startBy"]
        if req["_deadline"] <= now:
            return "TIMEOUT", "deadline %s passed before the task started" % req["deadline"]
        if any(c.lower() == self.name.lower() for c in req.get("callChain") or []):
            return "CYCLE_DETECTED", "%s is already in the call chain" % self.name
        if req["skill"] not in SKILLS:
            return "SKILL_NOT_SUPPORTED", "agent %r has no skill %r; it has: %s" % (self.name, req["skill"], ", ".join(SKILLS))
        if self.canceled_by(req["taskId"], req["caller"]):
            return "CANCELED", "task was canceled before it started"
        return None

    def work(self, req, trace, tag, event):
        """Runs the skill on a worker thread; the reply goes out on the connection's thread."""
        start = time.monotonic()
        text = text_of(req["message"])
        outcome = ("error", "EXECUTION_FAILED", text or "failed")
        if req["skill"] == "echo":
            outcome = ("result", text)
        elif req["skill"] == "clarify":
            outcome = clarify(req, text)
        elif req["skill"] == "sleep":
            try:
                ms = int(text.strip())
                if not 0 <= ms <= 86400000:
                    raise ValueError
            except ValueError:
                outcome = ("error", "INVALID_INPUT", "sleep takes milliseconds, 0 to 86400000, got %r" % text)
            else:
                left = (req["_deadline"] - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
                if event.wait(max(min(ms / 1000.0, left), 0)):
                    outcome = ("error", "CANCELED", "task canceled by %s" % req["caller"])
                elif left < ms / 1000.0:
                    outcome = ("error", "TIMEOUT", "task exceeded its deadline")
                else:
                    outcome = ("result", "slept %d ms" % ms)
        took = int((time.monotonic() - start) * 1000)
        self.conn.add_callback_threadsafe(lambda: self.finish(req, trace, tag, outcome, took))

    def finish(self, req, trace, tag, outcome, took):
        self.running.pop(req["taskId"], None)
        if outcome[0] in ("result", "question"):
            kind, payload = "task.result", {
                "taskId": req["taskId"], "agent": self.name, "state": "TASK_STATE_COMPLETED", "status": "SUCCESS",
                "message": {"messageId": str(uuid.uuid4()), "role": "ROLE_AGENT", "parts": [{"text": outcome[1]}]},
                "metadata": {"processingTimeMs": took, "agentVersion": "1.0.0"}, "time": now_rfc3339()}
            if outcome[0] == "result":
                # Required for SUCCESS and PARTIAL (docs/wire-protocol.md): these
                # skills answer exactly what they were asked, nothing inferred.
                payload["confidence"] = "HIGH"
            if outcome[0] == "question":  # the end of a turn, not of the task: no status
                del payload["status"]
                payload["state"] = "TASK_STATE_INPUT_REQUIRED"
                payload["question"] = {"text": outcome[1], "options": OPTIONS}
        else:
            kind, payload = "task.error", self.error(req, outcome[1], outcome[2])
        if not self.try_reply(req, trace, payload, kind):
            self.ch.basic_reject(tag, requeue=False)  # nobody could ever receive it: keep it in the dead queue
            return
        self.ch.basic_ack(tag)  # only after the reply is confirmed
        done = {"result": "completed", "question": "waits for its caller's answer"}.get(outcome[0], "failed: " + outcome[1])
        log.info("task %s turn %d %s (%s, %d ms)", req["taskId"], req.get("turn", 0), done, req["skill"], took)

    # --- life cycle -------------------------------------------------------------

    def run(self):
        self.declare()
        self.announce()
        log.info("agent %s started, instance %s", self.name, self.instance)
        next_announce = time.monotonic() + ANNOUNCE_INTERVAL
        while not self.stopping:
            self.conn.process_data_events(time_limit=0.2)
            if time.monotonic() >= next_announce:
                self.announce()
                next_announce = time.monotonic() + ANNOUNCE_INTERVAL
        self.ch.basic_cancel(self.task_consumer)  # stop taking tasks; unstarted prefetched ones go back
        until = time.monotonic() + self.stop_timeout
        while self.running and time.monotonic() < until:
            self.conn.process_data_events(time_limit=0.1)
        self.announce(deregistering=True)
        self.conn.close()  # the broker requeues what is still unacked; the instance queue is deleted
        log.info("agent %s stopped", self.name)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--name", default="PyEcho")
    p.add_argument("--amqp-url", default=os.environ.get("A2ABUS_BUS_URL", "amqp://guest:guest@127.0.0.1:5672/"))
    p.add_argument("--exchange", default=os.environ.get("A2ABUS_BUS_EXCHANGE", "a2a"))
    p.add_argument("--max-attempts", type=int, default=int(os.environ.get("A2ABUS_BUS_MAX_ATTEMPTS", "5")))
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--stop-timeout", type=float, default=10.0)
    p.add_argument("--secret", default=os.environ.get("A2ABUS_DIRECTORY_ANNOUNCE_SECRET", ""))
    args = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    logging.getLogger("pika").setLevel(logging.WARNING)
    if not AGENT_NAME.match(args.name):
        p.error("--name %r must match %s" % (args.name, AGENT_NAME.pattern))
    agent = Agent(args)

    def stop(signum, frame):
        agent.stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    agent.run()


if __name__ == "__main__":
    main()
