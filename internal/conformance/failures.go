// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// refused sends req (edited by edit) and expects a task.error with code.
func (k *kit) refused(ctx context.Context, req *a2a.TaskRequest, code a2a.ErrorCode, edit func(*amqp.Publishing)) (Outcome, string) {
	if _, err := k.sendRequest(ctx, req, edit); err != nil {
		return Fail, err.Error()
	}
	final, _, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s", k.o.Timeout)
	}
	return k.expectError(final, req.TaskID, code)
}

func (k *kit) typedError(ctx context.Context) (Outcome, string) {
	if !k.hasSkill(k.o.ErrorSkill) {
		return Skip, fmt.Sprintf("the card lists no skill %q (--error-skill)", k.o.ErrorSkill)
	}
	return k.refused(ctx, k.newRequest(k.o.ErrorSkill, k.o.ErrorInput), "", nil)
}

func (k *kit) wrongTarget(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	req.Target = "ConformanceNobody" + randomHex(3)
	return k.refused(ctx, req, a2a.CodeInvalidInput, nil)
}

func (k *kit) unknownSkill(ctx context.Context) (Outcome, string) {
	return k.refused(ctx, k.newRequest("conformance.no-such-skill", k.o.Input), a2a.CodeSkillNotSupported, nil)
}

func (k *kit) expired(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	req.Deadline = time.Now().UTC().Add(-time.Second) // sent without an expiration, so it reaches the agent
	return k.refused(ctx, req, a2a.CodeTimeout, nil)
}

func (k *kit) cancel(ctx context.Context) (Outcome, string) {
	if !k.hasSkill(k.o.SlowSkill) {
		return Skip, fmt.Sprintf("the card lists no skill %q (--slow-skill)", k.o.SlowSkill)
	}
	req := k.newRequest(k.o.SlowSkill, k.o.SlowInput)
	req.Stream = true // the working status says it started
	if _, err := k.sendRequest(ctx, req, nil); err != nil {
		return Fail, err.Error()
	}
	wctx, cancel := context.WithTimeout(ctx, k.o.Timeout)
	got, started := k.s.responses.wait(wctx, req.TaskID, func(got []received) bool { return len(got) > 0 })
	cancel()
	switch {
	case !started:
		return Fail, fmt.Sprintf("no task.status within %s: the task did not start", k.o.Timeout)
	case isFinal(got[0]):
		return Fail, fmt.Sprintf("the %s skill answered before it could be canceled (a %s); give it a longer --slow-input", k.o.SlowSkill, got[0].d.Type)
	}
	sent := time.Now()
	if err := k.sendCancel(ctx, req.TaskID); err != nil {
		if errors.Is(err, errReturned) {
			return Fail, "task.cancel is unroutable: no instance queue is bound to agent.cancel." + k.o.Agent
		}
		return Fail, err.Error()
	}
	final, _, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s of the cancel", k.o.Timeout)
	}
	out, why := k.expectError(final, req.TaskID, a2a.CodeCanceled)
	if out == Pass {
		why = fmt.Sprintf("%s, %s after the cancel", why, final.at.Sub(sent).Round(time.Millisecond))
	}
	return out, why
}

// cancelEarly cancels a task before sending it. The cancel and a discovery
// query go to the same instance queue, so the card that answers the query
// shows the cancel was handled before the task is sent.
func (k *kit) cancelEarly(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	before := len(k.s.cards.get(strings.ToLower(k.o.Agent)))
	if err := k.sendCancel(ctx, req.TaskID); err != nil {
		return Fail, err.Error()
	}
	if err := k.sendQuery(ctx); err != nil {
		return Fail, err.Error()
	}
	wctx, cancel := context.WithTimeout(ctx, k.o.Timeout)
	_, ok := k.s.cards.wait(wctx, strings.ToLower(k.o.Agent), func(got []received) bool { return len(got) > before })
	cancel()
	if !ok {
		return Fail, "no agent.card answered the query sent after the cancel"
	}
	return k.refused(ctx, req, a2a.CodeCanceled, nil)
}

func (k *kit) attempts(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	attempt := k.o.MaxAttempts + 1
	id, err := k.sendRequest(ctx, req, func(p *amqp.Publishing) { p.Headers["x-a2a-attempt"] = strconv.Itoa(attempt) })
	if err != nil {
		return Fail, err.Error()
	}
	final, _, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s to a delivery at attempt %d", k.o.Timeout, attempt)
	}
	out, why := k.expectError(final, req.TaskID, a2a.CodeExecutionFailed)
	if out != Pass {
		return out, why
	}
	dead, ok := k.deadLettered(ctx, id)
	if !ok {
		return Fail, fmt.Sprintf("answered (%s) but not dead-lettered to %s within %s", why, a2a.DeadLetterExchange(k.o.Exchange), k.o.Timeout)
	}
	return Pass, fmt.Sprintf("attempt %d: %s; dead-lettered (%s)", attempt, why, deathReason(dead.d))
}

func (k *kit) malformed(ctx context.Context) (Outcome, string) {
	taskID := "conf-" + randomHex(8)
	p := publishing(a2a.KindTaskRequest, taskID, []byte(`{"taskId": "`+taskID+`", "caller": "`+k.o.Caller+`", "skill": `))
	p.ReplyTo = k.s.responseQueue
	if err := k.sendRaw(ctx, p); err != nil {
		return Fail, err.Error()
	}
	dead, ok := k.deadLettered(ctx, p.MessageId)
	if !ok {
		return Fail, fmt.Sprintf("a request with a truncated JSON body was not dead-lettered to %s within %s", a2a.DeadLetterExchange(k.o.Exchange), k.o.Timeout)
	}
	req := k.newRequest(k.o.Skill, k.o.Input)
	if _, err := k.sendRequest(ctx, req, nil); err != nil {
		return Fail, err.Error()
	}
	final, _, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("dead-lettered, but the next request got no answer within %s", k.o.Timeout)
	}
	if out, why := k.expectResult(final, req.TaskID); out != Pass {
		return out, "dead-lettered, but the next request: " + why
	}
	return Pass, fmt.Sprintf("dead-lettered (%s); the next request answered", deathReason(dead.d))
}

func (k *kit) malformedAnswered(ctx context.Context) (Outcome, string) {
	taskID := "conf-" + randomHex(8)
	body, _ := json.Marshal(map[string]any{"taskId": taskID, "caller": k.o.Caller, "target": k.o.Agent,
		"sessionId": "conformance-" + k.o.instance, "deadline": time.Now().UTC().Add(time.Minute)}) // no skill, no message
	p := publishing(a2a.KindTaskRequest, taskID, body)
	p.ReplyTo = k.s.responseQueue
	if err := k.sendRaw(ctx, p); err != nil {
		return Fail, err.Error()
	}
	final, _, ok := k.final(ctx, taskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s to a request without skill and message", k.o.Timeout)
	}
	out, why := k.expectError(final, taskID, a2a.CodeInvalidInput)
	if out != Pass {
		return out, why
	}
	if _, ok := k.deadLettered(ctx, p.MessageId); !ok {
		return Fail, "answered (" + why + ") but not dead-lettered"
	}
	return Pass, why + "; dead-lettered"
}

func (k *kit) deregistration(ctx context.Context) (Outcome, string) {
	if k.card == nil {
		return Fail, "no announcement: the instance is unknown"
	}
	wait := k.o.Timeout
	switch {
	case k.o.Stop != nil:
		if err := k.o.Stop(ctx); err != nil {
			return Fail, "stopping the agent: " + err.Error()
		}
	case k.o.AwaitStop > 0:
		wait = k.o.AwaitStop
		k.o.Notify(fmt.Sprintf("conformance: stop agent %s (instance %s) now; waiting %s for its deregistration", k.o.Agent, k.card.InstanceID, wait))
	default:
		return Skip, "not told it may stop the agent (--await-stop)"
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_, ok := k.s.cards.wait(wctx, strings.ToLower(k.o.Agent), func(got []received) bool {
		for _, r := range got {
			if a, why := k.announcement(r); why == "" && a.Deregistering && a.InstanceID == k.card.InstanceID {
				return true
			}
		}
		return false
	})
	if !ok {
		return Fail, fmt.Sprintf("no agent.card with deregistering for instance %s within %s", k.card.InstanceID, wait)
	}
	inst, _ := a2a.InstanceQueue(k.o.Agent, k.card.InstanceID)
	for {
		if _, err := k.s.probeQueue(inst); amqpCode(err) == amqp.NotFound {
			return Pass, fmt.Sprintf("deregistered instance %s; %q deleted", k.card.InstanceID, inst)
		}
		select {
		case <-wctx.Done():
			return Fail, fmt.Sprintf("deregistered, but the instance queue %q still exists after %s", inst, wait)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
