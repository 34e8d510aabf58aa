#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""An a2abus agent in Python, standard library only, speaking the NDJSON
protocol of docs/ndjson.md on stdin/stdout. Run it on the bus with:

    a2abus serve --exec 'python3 examples/python-stdio/agent.py'

Skills: greet (a greeting for the text), count (counts to the number in the
text, reporting progress; stops when cancelled), ask (calls another agent's
skill: input {"agent": ..., "skill": ..., "text": ...}, and answers with what
it said) and clarify (asks its caller how to greet the name in the text —
formal or casual — and greets on the turn that brings the answer, from the
request's history alone). Requests are handled concurrently, one thread each.
"""
import json
import sys
import threading
import time

CARD = {
    "agentName": "PythonAgent",
    "description": "Example agent in Python over stdio: greets, counts and asks other agents.",
    "version": "1.0",
    "skills": [
        {"id": "greet", "name": "Greet", "description": "Greets the name given as text."},
        {"id": "count", "name": "Count", "description": "Counts to the number given as text (at most 20), reporting progress."},
        {"id": "ask", "name": "Ask", "description": "Calls another agent. Input: {\"agent\": \"SampleAgent\", \"skill\": \"echo\", \"text\": \"hi\"}."},
        {"id": "clarify", "name": "Clarify", "description": "Asks how to greet the name given as text (formal or casual), then greets."},
    ],
    "inputSchemas": {
        "ask": {
            "type": "object",
            "required": ["agent", "skill", "text"],
            "properties": {"agent": {"type": "string"}, "skill": {"type": "string"}, "text": {"type": "string"}},
        }
    },
}

_out = threading.Lock()
_state = threading.Lock()
_cancels = {}  # request_id -> threading.Event, set by task.cancel
_calls = {}  # call_id -> [threading.Event, the invoke.result frame]


def send(frame):
    """Writes one frame as one line; threads take turns."""
    line = json.dumps(frame, separators=(",", ":"))
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def log(*args):
    """stderr goes to the host's log, line by line."""
    print(*args, file=sys.stderr, flush=True)


def invoke(request_id, agent, skill, text):
    """Calls another agent on behalf of request_id and waits for its invoke.result."""
    call_id = "%s/%d" % (request_id, time.monotonic_ns())
    waiter = [threading.Event(), None]
    with _state:
        _calls[call_id] = waiter
    send({"type": "invoke", "request_id": request_id, "call_id": call_id, "agent": agent, "skill": skill, "text": text})
    waiter[0].wait()
    return waiter[1]


def greet(req, cancelled):
    name = req.get("text", "").strip() or "stranger"
    return {"text": "Hello, %s! (from Python)" % name, "confidence": "HIGH"}


def count(req, cancelled):
    try:
        n = int(req.get("text", "").strip())
    except ValueError:
        raise TaskError("INVALID_INPUT", "count: the text must be a whole number such as \"5\"")
    if not 1 <= n <= 20:
        raise TaskError("INVALID_INPUT", "count: the number must be within 1..20, got %d" % n)
    for i in range(1, n + 1):
        if cancelled.wait(0.02):
            raise TaskError("CANCELED", "count: cancelled at %d" % i)
        send({"type": "task.progress", "request_id": req["request_id"], "message": "counted %d of %d" % (i, n), "percent": 100.0 * i / n})
    return {"text": "counted to %d" % n, "data": {"count": n}}


def ask(req, cancelled):
    args = req.get("input") or {}
    res = invoke(req["request_id"], args.get("agent", ""), args.get("skill", ""), args.get("text", ""))
    if res.get("status") == "ERROR":
        raise TaskError(res.get("code", "EXECUTION_FAILED"), "ask: %s" % res.get("message", ""))
    return {"text": "%s answered: %s" % (res.get("agent"), res.get("text", ""))}


STYLES = {"formal": "Good day, %s.", "casual": "Hi %s!"}


def clarify(req, cancelled):
    """Asks its caller a question, and answers on a later turn.

    Turn 0 answers with a task.question instead of a result. The caller's
    answer comes as a new task.request for the same task_id with "turn" 1
    (2, ...) and the task's "history" (the first request, the question, the
    answer, ...), perhaps to another process: nothing is kept between turns.
    """
    if not req.get("turn"):
        name = req.get("text", "").strip() or "stranger"
        return question("How shall I greet %s?" % name)
    name = req["history"][0].get("text", "").strip() or "stranger"
    style = req.get("text", "").strip().lower()
    if style not in STYLES:  # ask again: the next turn has this exchange in its history too
        return question("Please answer formal or casual: how shall I greet %s?" % name)
    return {"text": (STYLES[style] % name) + " (from Python, after %d question(s))" % req["turn"]}


def question(text):
    """A task.question offering two answers (the caller may answer anything)."""
    return {
        "type": "task.question",
        "text": text,
        "options": [
            {"id": "formal", "label": "Formal"},
            {"id": "casual", "label": "Casual", "description": "first names"},
        ],
    }


SKILLS = {"greet": greet, "count": count, "ask": ask, "clarify": clarify}


class TaskError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def run(req):
    rid = req["request_id"]
    cancelled = threading.Event()
    with _state:
        _cancels[rid] = cancelled
    try:
        skill = SKILLS.get(req.get("skill"))
        if skill is None:
            raise TaskError("SKILL_NOT_SUPPORTED", "no skill %r" % req.get("skill"))
        result = skill(req, cancelled)
        send(dict(result, type=result.get("type", "task.result"), request_id=rid))
    except TaskError as e:
        send({"type": "task.error", "request_id": rid, "code": e.code, "message": e.message})
    except Exception as e:  # a bug here is the task's failure, not the process's
        send({"type": "task.error", "request_id": rid, "code": "EXECUTION_FAILED", "message": repr(e)})
    finally:
        with _state:
            _cancels.pop(rid, None)


def main():
    send({"type": "agent.card", "version": 1, "card": CARD})
    for line in sys.stdin:
        try:
            frame = json.loads(line)
        except ValueError:
            log("not JSON from host:", line[:200])
            continue
        kind = frame.get("type")
        if kind == "hello":
            log("host speaks protocol version", frame.get("version"), "concurrency", frame.get("concurrency"))
        elif kind == "task.request":
            threading.Thread(target=run, args=(frame,), daemon=True).start()
        elif kind == "task.cancel":
            with _state:
                ev = _cancels.get(frame.get("request_id"))
            if ev:
                ev.set()
        elif kind == "invoke.result":
            with _state:
                waiter = _calls.pop(frame.get("call_id"), None)
            if waiter:
                waiter[1] = frame
                waiter[0].set()
    # End of input: the host is stopping us.


if __name__ == "__main__":
    main()
