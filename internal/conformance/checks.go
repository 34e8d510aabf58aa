// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// check is one requirement of docs/conformance.md.
type check struct {
	id    string
	level Level
	title string
	run   func(ctx context.Context) (Outcome, string)
}

// checks lists the requirements in the order they run: discovery first
// (the others read the card), deregistration last (it stops the agent).
func (k *kit) checks() []check {
	return []check{
		{"discovery", Must, "answers discovery.query with a valid agent.card", k.discovery},
		{"queues", Must, "task queue durable with the documented arguments and consumed; instance queue exclusive", k.queues},
		{"round-trip", Must, "answers a request on --skill with a task.result", k.roundTrip},
		{"no-status-unstreamed", Must, "sends no task.status for a request without stream", k.noStatus},
		{"trace", Should, "the reply carries the request's traceparent", k.trace},
		{"confidence", Should, "a SUCCESS or PARTIAL task.result states its confidence (warns, never fails)", k.confidence},
		{"status-streamed", Must, "sends a working task.status before the result of a streamed request", k.streamed},
		{"typed-error", Must, "a failing skill answers a task.error with a code, message, retryable and the code's state", k.typedError},
		{"wrong-target", Must, "a task addressed to another agent is refused INVALID_INPUT", k.wrongTarget},
		{"unknown-skill", Must, "an unknown skill is refused SKILL_NOT_SUPPORTED", k.unknownSkill},
		{"expired", Must, "a task past its deadline is answered TIMEOUT, not run", k.expired},
		{"expired-in-queue", Should, "a first delivery past its startBy is answered EXPIRED_IN_QUEUE, not run", k.expiredInQueue},
		{"take-notice", Should, "an unstreamed request with startBy gets a working task.status (the take notice) before its result", k.takeNotice},
		{"cancel", Must, "a running task canceled by its caller ends CANCELED", k.cancel},
		{"cancel-before-start", Should, "a task canceled before it is dequeued ends CANCELED, not run", k.cancelEarly},
		{"attempts", Must, "a delivery past the attempt limit is answered EXECUTION_FAILED and dead-lettered, not run", k.attempts},
		{"malformed", Must, "an undecodable request is dead-lettered and the agent keeps serving", k.malformed},
		{"malformed-answered", Should, "an invalid request with a readable taskId and caller is answered INVALID_INPUT", k.malformedAnswered},
		{"unknown-fields", Must, "a request with a context history, a caller's context and a field the agent does not know is answered as any", k.unknownFields},
		{"question", Must, "an agent that asks (--ask-skill) ends the turn with a valid question, turn echoed (skipped when it does not ask)", k.question},
		{"later-turn", Must, "the answer, sent as turn 1 with the task's history, is answered with that turn echoed", k.laterTurn},
		{"turn-from-history", Must, "a later turn of a task the instance never saw is answered from the request alone", k.turnFromHistory},
		{"attempt-echo", Should, "the answer to a later turn's second delivery attempt echoes the attempt", k.attemptEcho},
		{"deregistration", Must, "on stop: an agent.card with deregistering, and the instance queue gone", k.deregistration},
	}
}

func (k *kit) discovery(ctx context.Context) (Outcome, string) {
	wctx, cancel := context.WithTimeout(ctx, k.o.Timeout)
	defer cancel()
	// Unroutable while no instance runs: an agent still starting gets the timeout to bind its queue.
	for err := k.sendQuery(wctx); err != nil; err = k.sendQuery(wctx) {
		if !errors.Is(err, errReturned) && wctx.Err() == nil {
			return Fail, err.Error()
		}
		select {
		case <-wctx.Done():
			return Fail, "discovery.query is unroutable: no agent instance queue is bound to it (is the agent running on exchange " + k.o.Exchange + "?)"
		case <-time.After(200 * time.Millisecond):
		}
	}
	var problem string
	k.s.cards.wait(wctx, strings.ToLower(k.o.Agent), func(got []received) bool {
		for _, r := range got {
			a, why := k.announcement(r)
			if why != "" {
				problem = why
				continue
			}
			if !a.Deregistering {
				k.card = a
				return true
			}
		}
		return false
	})
	switch {
	case k.card == nil && problem != "":
		return Fail, problem
	case k.card == nil:
		return Fail, fmt.Sprintf("no agent.card of %q within %s", k.o.Agent, k.o.Timeout)
	case k.card.Card.Name != k.o.Agent:
		return Fail, fmt.Sprintf("the card is named %q: queue names are case-sensitive, run the kit with --agent %s", k.card.Card.Name, k.card.Card.Name)
	}
	ids := make([]string, len(k.card.Card.Skills))
	for i, s := range k.card.Card.Skills {
		ids[i] = s.ID
	}
	return Pass, fmt.Sprintf("instance %s, skills: %s", k.card.InstanceID, strings.Join(ids, ", "))
}

// announcement decodes and, with a secret, verifies an agent.card; why says what is wrong with it.
func (k *kit) announcement(r received) (a *a2a.Announcement, why string) {
	env := envelope(r.d)
	if len(k.o.Secret) > 0 {
		if err := a2a.Verify(env, k.o.Secret, time.Now()); err != nil {
			return nil, err.Error()
		}
	}
	p, err := decode(r.d)
	if err != nil {
		return nil, err.Error()
	}
	a, ok := p.(*a2a.Announcement)
	if !ok {
		return nil, fmt.Sprintf("a %s on discovery.announce", r.d.Type)
	}
	return a, ""
}

func (k *kit) queues(context.Context) (Outcome, string) {
	q, _ := a2a.TaskRoutingKey(k.o.Agent)
	consumers, err := k.s.probeQueue(q)
	if err != nil {
		return Fail, fmt.Sprintf("task queue %q: %v", q, err)
	}
	if consumers == 0 {
		return Fail, fmt.Sprintf("task queue %q has no consumer", q)
	}
	args := amqp.Table{"x-dead-letter-exchange": a2a.DeadLetterExchange(k.o.Exchange)}
	if k.o.QueueType == "quorum" {
		args["x-queue-type"] = "quorum"
	} else {
		args["x-max-priority"] = int32(9)
	}
	if err := k.s.redeclare(q, true, args); err != nil {
		return Fail, fmt.Sprintf("task queue %q is not declared durable with %v (%s queues): %v", q, args, k.o.QueueType, err)
	}
	if k.card == nil {
		return Fail, "task queue ok; the instance queue is unknown (no announcement)"
	}
	inst, err := a2a.InstanceQueue(k.o.Agent, k.card.InstanceID)
	if err != nil {
		return Fail, err.Error()
	}
	switch _, err := k.s.probeQueue(inst); {
	case err == nil:
		return Fail, fmt.Sprintf("instance queue %q is not exclusive", inst)
	case amqpCode(err) == amqp.NotFound:
		return Fail, fmt.Sprintf("no instance queue %q (the announcement's instanceId)", inst)
	case amqpCode(err) != amqp.ResourceLocked:
		return Fail, fmt.Sprintf("instance queue %q: %v", inst, err)
	}
	return Pass, fmt.Sprintf("%q: %d consumer(s), durable, %v; %q exclusive", q, consumers, args, inst)
}

func (k *kit) roundTrip(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	k.rtTrace = "00-" + randomHex(16) + "-" + randomHex(8) + "-01"
	if _, err := k.sendRequest(ctx, req, func(p *amqp.Publishing) { p.Headers[a2a.HeaderTraceParent] = k.rtTrace }); err != nil {
		return Fail, err.Error()
	}
	final, all, ok := k.final(ctx, req.TaskID)
	k.rt = all
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s", k.o.Timeout)
	}
	return k.expectResult(final, req.TaskID)
}

// expectResult checks that r is the agent's completed task.result for
// taskID, with the envelope the spec asks for, containing the expected text.
func (k *kit) expectResult(r received, taskID string) (Outcome, string) {
	p, err := decode(r.d)
	if err != nil {
		return Fail, fmt.Sprintf("the %s does not decode: %v", r.d.Type, err)
	}
	if e, ok := p.(*a2a.TaskError); ok {
		return Fail, fmt.Sprintf("got task.error %s: %s", e.Code, e.Message)
	}
	res, ok := p.(*a2a.TaskResult)
	if !ok {
		return Fail, fmt.Sprintf("got a %s, want a task.result", r.d.Type)
	}
	text := a2a.MessageText(res.Message)
	expect := or(k.o.Expect, k.o.Input)
	switch {
	case r.d.CorrelationId != taskID:
		return Fail, fmt.Sprintf("correlation_id %q, want the task id %q", r.d.CorrelationId, taskID)
	case r.d.MessageId == "":
		return Fail, "the task.result has no message_id"
	case r.d.DeliveryMode != amqp.Persistent:
		return Fail, fmt.Sprintf("delivery_mode %d, want 2 (persistent)", r.d.DeliveryMode)
	case r.d.ContentType != a2a.ContentTypeJSON:
		return Fail, fmt.Sprintf("content_type %q, want %s", r.d.ContentType, a2a.ContentTypeJSON)
	case !a2a.SameAgent(res.Agent, k.o.Agent):
		return Fail, fmt.Sprintf("answered by %q, want %q", res.Agent, k.o.Agent)
	case res.State != a2a.TaskStateCompleted:
		return Fail, fmt.Sprintf("state %s, want %s", res.State, a2a.TaskStateCompleted)
	case expect != "-" && !strings.Contains(text, expect):
		return Fail, fmt.Sprintf("result text %q does not contain %q", text, expect)
	}
	return Pass, fmt.Sprintf("%s %s: %q", res.State, or(string(res.Status), "(no status)"), text)
}

func (k *kit) noStatus(context.Context) (Outcome, string) {
	if len(k.rt) == 0 {
		return Fail, "the round trip got no answer"
	}
	for _, r := range k.rt {
		if r.d.Type == string(a2a.KindTaskStatus) {
			return Fail, "a task.status came for a request without stream"
		}
	}
	return Pass, fmt.Sprintf("%d message(s), no task.status", len(k.rt))
}

func (k *kit) trace(context.Context) (Outcome, string) {
	for _, r := range k.rt {
		if isFinal(r) {
			if got, _ := r.d.Headers[a2a.HeaderTraceParent].(string); got != k.rtTrace {
				return Fail, fmt.Sprintf("traceparent %q, want %q", got, k.rtTrace)
			}
			return Pass, "traceparent " + k.rtTrace
		}
	}
	return Fail, "the round trip got no answer"
}

// confidence warns when the round trip's SUCCESS or PARTIAL result has no
// confidence: the contract requires one, the bus does not refuse it.
func (k *kit) confidence(context.Context) (Outcome, string) {
	for _, r := range k.rt {
		if !isFinal(r) {
			continue
		}
		p, err := decode(r.d)
		if err != nil {
			return Skip, "the round trip's answer does not decode"
		}
		res, ok := p.(*a2a.TaskResult)
		switch {
		case !ok:
			return Skip, fmt.Sprintf("the round trip got a %s, not a task.result", r.d.Type)
		case res.Status != "" && res.Status != a2a.StatusSuccess && res.Status != a2a.StatusPartial:
			return Skip, fmt.Sprintf("the round trip's result is %s, which needs no confidence", res.Status)
		case res.Confidence == "":
			return Warn, fmt.Sprintf("the %s result states no confidence: the contract requires one (HIGH, MEDIUM, LOW or SPECULATIVE) for SUCCESS and PARTIAL",
				or(string(res.Status), "SUCCESS"))
		}
		return Pass, "confidence " + string(res.Confidence)
	}
	return Skip, "the round trip got no answer"
}

func (k *kit) streamed(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	req.Stream = true
	if _, err := k.sendRequest(ctx, req, nil); err != nil {
		return Fail, err.Error()
	}
	final, all, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s", k.o.Timeout)
	}
	statuses, transient, done := 0, 0, false
	for _, r := range all { // in the order they arrived
		if isFinal(r) {
			done = true
		}
		if r.d.Type != string(a2a.KindTaskStatus) {
			continue
		}
		if done {
			return Fail, "a task.status came after the result"
		}
		p, err := decode(r.d)
		if err != nil {
			return Fail, fmt.Sprintf("a task.status does not decode: %v", err)
		}
		st := p.(*a2a.TaskStatus)
		if statuses == 0 && st.State != a2a.TaskStateWorking {
			return Fail, fmt.Sprintf("first task.status in state %s, want %s", st.State, a2a.TaskStateWorking)
		}
		statuses++
		if r.d.DeliveryMode != amqp.Persistent {
			transient++
		}
	}
	if statuses == 0 {
		return Fail, "no task.status before the result"
	}
	if out, why := k.expectResult(final, req.TaskID); out != Pass {
		return out, why
	}
	return Pass, fmt.Sprintf("%d task.status (%d transient) before the task.result", statuses, transient)
}
