// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// The checks of tasks that talk back (docs/tasks.md): asking is optional
// for an agent, so the checks of a question and of the turns after it are
// skipped for an agent that does not ask; what every agent must do is read
// a request carrying the fields of contexts and later protocol versions.

// asked is what the question check saw, for the checks of the later turns.
type asked struct {
	req      *a2a.TaskRequest // the first request
	result   *a2a.TaskResult  // its question
	answer   string           // the answer the kit sends
	endState a2a.TaskState    // how the answered turn ended (later-turn), for turn-from-history
}

// unknownFields sends a request on --skill with a context id, a context
// history, a caller's context and narrowing, and a field no version of the
// protocol has: the agent must answer it as any request.
func (k *kit) unknownFields(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	req.ContextID = "conf-ctx-" + randomHex(6)
	req.ContextHistory = []*a2a.Message{
		a2a.NewTextMessage(a2a.MessageRoleUser, "an earlier request of this context"),
		a2a.NewTextMessage(a2a.MessageRoleAgent, "its answer"),
	}
	req.CallerContext = &a2a.CallerContext{Count: 1, Messages: []a2a.ContextMessage{{Role: "user", Text: "the caller's own conversation", Time: time.Now().UTC()}}}
	req.AllowedTools, req.MaxContextTokens = []string{}, 500
	body, err := json.Marshal(req)
	if err != nil {
		return Fail, err.Error()
	}
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	m["conformanceFutureField"] = map[string]any{"readers": "MUST ignore fields they do not know", "n": 1}
	body, _ = json.Marshal(m)
	p := publishing(a2a.KindTaskRequest, req.TaskID, body)
	p.ReplyTo = k.s.responseQueue
	p.Expiration = fmt.Sprint(max(time.Until(req.Deadline).Milliseconds(), 1))
	if err := k.sendRaw(ctx, p); err != nil {
		return Fail, err.Error()
	}
	final, _, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s to a request with a context history and an unknown field", k.o.Timeout)
	}
	return k.expectResult(final, req.TaskID)
}

// question sends a request on --ask-skill and checks the question it
// answers with; an agent that answers without asking, or lists no such
// skill, is skipped: asking is optional.
func (k *kit) question(ctx context.Context) (Outcome, string) {
	if !k.hasSkill(k.o.AskSkill) {
		return Skip, fmt.Sprintf("the card lists no skill %q (--ask-skill): asking its caller (input-required) is optional for agents", k.o.AskSkill)
	}
	req := k.newRequest(k.o.AskSkill, k.o.AskInput)
	req.ContextID = "conf-ctx-" + randomHex(6)
	if _, err := k.sendRequest(ctx, req, nil); err != nil {
		return Fail, err.Error()
	}
	final, _, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s", k.o.Timeout)
	}
	res, why := k.expectTurnEnd(final, req.TaskID, 0)
	if res == nil {
		return Fail, why
	}
	if !a2a.WaitsForInput(res.State) {
		return Skip, fmt.Sprintf("skill %q answered without asking (%s): asking its caller (input-required) is optional for agents", k.o.AskSkill, res.State)
	}
	k.asked = &asked{req: req, result: res, answer: k.answerTo(res.Question)}
	detail := fmt.Sprintf("%s: %q, %d option(s)", res.State, res.Question.Text, len(res.Question.Options))
	if got := a2a.MessageText(res.Message); got != res.Question.Text {
		detail += fmt.Sprintf("; its message %q is not the question's text (SHOULD be)", got)
	}
	return Pass, detail
}

// answerTo is the kit's answer to q: --ask-answer, else the first option's id, else "yes".
func (k *kit) answerTo(q *a2a.Question) string {
	switch {
	case k.o.AskAnswer != "":
		return k.o.AskAnswer
	case len(q.Options) > 0:
		return q.Options[0].ID
	}
	return "yes"
}

// laterTurn answers the question as turn 1 of the same task, with the
// task's history: the agent must answer that turn, echoing it.
func (k *kit) laterTurn(ctx context.Context) (Outcome, string) {
	if k.asked == nil {
		return Skip, "the agent asked no question (the question check)"
	}
	res, why := k.answerTurn(ctx, k.asked.req.TaskID, 0)
	if res == nil {
		return Fail, why
	}
	k.asked.endState = res.State
	return Pass, why
}

// turnFromHistory sends the same answer as turn 1 of a task the agent
// never saw: a later turn may reach any instance (one that never saw the
// earlier turns, a new one-shot job), which needs nothing but the request.
func (k *kit) turnFromHistory(ctx context.Context) (Outcome, string) {
	if k.asked == nil || k.asked.endState == "" {
		return Skip, "the agent asked no question, or did not answer its later turn"
	}
	res, why := k.answerTurn(ctx, "conf-"+randomHex(8), 0)
	switch {
	case res == nil:
		return Fail, why + " (a later turn of a task this instance never saw: it must need nothing but the request)"
	case res.State != k.asked.endState:
		return Fail, fmt.Sprintf("ended %s, but %s when the instance had seen the first turn: a later turn must be answered from the request alone",
			res.State, k.asked.endState)
	}
	return Pass, why
}

// attemptEcho sends the later turn as a second delivery attempt: the
// answer should echo the attempt.
func (k *kit) attemptEcho(ctx context.Context) (Outcome, string) {
	if k.asked == nil || k.asked.endState == "" {
		return Skip, "the agent asked no question, or did not answer its later turn"
	}
	res, why := k.answerTurn(ctx, "conf-"+randomHex(8), 2)
	switch {
	case res == nil:
		return Fail, why
	case res.Attempt != 2:
		return Fail, fmt.Sprintf("the answer to a request at x-a2a-attempt 2 carries attempt %d, want 2", res.Attempt)
	}
	return Pass, "attempt 2 echoed; " + why
}

// answerTurn sends the kit's answer to the question asked as turn 1 of
// task taskID (the first request's task, or a new id), with the task's
// history (the first request's message, the question's), at delivery
// attempt (0: the first), and checks the answer: a task.result for turn 1
// — the task's end or another question. The result is nil when it fails,
// with why.
func (k *kit) answerTurn(ctx context.Context, taskID string, attempt int) (*a2a.TaskResult, string) {
	first := k.asked.req
	question := k.asked.result.Message
	if question == nil {
		question = a2a.NewTextMessage(a2a.MessageRoleAgent, k.asked.result.Question.Text)
	}
	req := k.newRequest(first.Skill, k.asked.answer)
	req.TaskID, req.ContextID, req.Turn = taskID, first.ContextID, 1
	req.History = []*a2a.Message{first.Message, question}
	before := len(k.s.responses.get(taskID))
	var edit func(*amqp.Publishing)
	if attempt > 1 {
		edit = func(p *amqp.Publishing) { p.Headers["x-a2a-attempt"] = fmt.Sprint(attempt) }
	}
	if _, err := k.sendRequest(ctx, req, edit); err != nil {
		return nil, err.Error()
	}
	wctx, cancel := context.WithTimeout(ctx, k.o.Timeout)
	defer cancel()
	got, ok := k.s.responses.wait(wctx, taskID, func(got []received) bool { return finalAfter(got, before) >= 0 })
	if !ok {
		return nil, fmt.Sprintf("no answer within %s to turn 1 (the answer %q to the question)", k.o.Timeout, k.asked.answer)
	}
	res, why := k.expectTurnEnd(got[finalAfter(got, before)], taskID, 1)
	if res == nil {
		return nil, why
	}
	what := fmt.Sprintf("turn 1 answered %q ended %s", k.asked.answer, res.State)
	if a2a.WaitsForInput(res.State) {
		what += fmt.Sprintf(", asking %q", res.Question.Text)
	} else {
		what += fmt.Sprintf(": %q", a2a.MessageText(res.Message))
	}
	return res, what
}

// finalAfter is the index of the first final answer in got past index
// from, -1 when none came.
func finalAfter(got []received, from int) int {
	for i := from; i < len(got); i++ {
		if isFinal(got[i]) {
			return i
		}
	}
	return -1
}

// expectTurnEnd checks that r is the agent's task.result ending turn of
// taskID — completed, or a question — with the envelope the spec asks for
// and the turn echoed; a task.error fails it. The result is nil when it
// fails, with why.
func (k *kit) expectTurnEnd(r received, taskID string, turn int) (*a2a.TaskResult, string) {
	p, err := decode(r.d)
	if err != nil {
		return nil, fmt.Sprintf("the %s does not decode: %v", r.d.Type, err)
	}
	if e, ok := p.(*a2a.TaskError); ok {
		return nil, fmt.Sprintf("got task.error %s: %s", e.Code, e.Message)
	}
	res, ok := p.(*a2a.TaskResult)
	switch {
	case !ok:
		return nil, fmt.Sprintf("got a %s, want a task.result", r.d.Type)
	case r.d.CorrelationId != taskID || res.TaskID != taskID:
		return nil, fmt.Sprintf("correlation_id %q and taskId %q, want the task id %q", r.d.CorrelationId, res.TaskID, taskID)
	case r.d.DeliveryMode != amqp.Persistent:
		return nil, fmt.Sprintf("delivery_mode %d, want 2 (persistent)", r.d.DeliveryMode)
	case !a2a.SameAgent(res.Agent, k.o.Agent):
		return nil, fmt.Sprintf("answered by %q, want %q", res.Agent, k.o.Agent)
	case res.Turn != turn:
		return nil, fmt.Sprintf("the answer carries turn %d, want %d: an agent that asks MUST echo the request's turn", res.Turn, turn)
	case res.State != a2a.TaskStateCompleted && !a2a.WaitsForInput(res.State):
		return nil, fmt.Sprintf("state %s, want %s or a question (%s, %s)", res.State, a2a.TaskStateCompleted,
			a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired)
	case a2a.WaitsForInput(res.State) && strings.TrimSpace(res.Question.Text) == "":
		return nil, "the question has no text"
	}
	return res, ""
}
