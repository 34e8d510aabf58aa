// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// kit runs the checks of one Run.
type kit struct {
	s    *session
	o    Options
	card *a2a.Announcement // the agent's announcement, once discovered
	// rt is what the plain round trip received, for the checks that read it.
	rt      []received
	rtTrace string
	asked   *asked // the question the agent asked, when it asks
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newRequest is a valid request from the kit to the agent, due well after
// every wait of the kit.
func (k *kit) newRequest(skill, text string) *a2a.TaskRequest {
	now := time.Now().UTC()
	return &a2a.TaskRequest{
		TaskID: "conf-" + randomHex(8), SessionID: "conformance-" + k.o.instance,
		Caller: k.o.Caller, Target: k.o.Agent, Skill: skill,
		Message:  a2a.NewTextMessage(a2a.MessageRoleUser, text),
		Priority: a2a.PriorityNormal, Deadline: now.Add(max(4*k.o.Timeout, time.Minute)),
		CallChain: []string{k.o.Caller}, CreatedAt: now,
	}
}

// publishing is the envelope of a message of kind with body, as the spec
// writes it: a new message id, the correlation id, JSON, persistent, the
// protocol version.
func publishing(kind a2a.Kind, correlationID string, body []byte) amqp.Publishing {
	return amqp.Publishing{
		Type: string(kind), MessageId: uuid.NewString(), CorrelationId: correlationID,
		ContentType: a2a.ContentTypeJSON, DeliveryMode: amqp.Persistent, Timestamp: time.Now(),
		Headers: amqp.Table{a2a.HeaderVersion: a2a.ProtocolVersion}, Body: body,
	}
}

// sendRequest publishes req to the agent's task queue, encoded by hand (so
// that a request past its deadline can be sent), with reply_to, priority
// and the expiration left to its deadline; edit changes the publishing
// last. It returns the message id.
func (k *kit) sendRequest(ctx context.Context, req *a2a.TaskRequest, edit func(*amqp.Publishing)) (string, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return "", fmt.Errorf("encode request: %w", err)
	}
	p := publishing(a2a.KindTaskRequest, req.TaskID, body)
	p.ReplyTo = k.s.responseQueue
	p.Priority = req.Priority.AMQP()
	if left := time.Until(req.TakeBy()); left > 0 {
		p.Expiration = fmt.Sprint(max(left.Milliseconds(), 1))
	}
	if edit != nil {
		edit(&p)
	}
	return p.MessageId, k.sendRaw(ctx, p)
}

// sendRaw publishes p to the agent's task queue.
func (k *kit) sendRaw(ctx context.Context, p amqp.Publishing) error {
	key, _ := a2a.TaskRoutingKey(k.o.Agent)
	return k.s.publish(ctx, k.o.Exchange, key, p)
}

// sendCancel publishes a task.cancel of taskID from the kit to every instance of the agent.
func (k *kit) sendCancel(ctx context.Context, taskID string) error {
	body, _ := json.Marshal(&a2a.TaskCancel{TaskID: taskID, Caller: k.o.Caller, Target: k.o.Agent, Reason: "conformance", Time: time.Now().UTC()})
	key, _ := a2a.CancelRoutingKey(k.o.Agent)
	return k.s.publish(ctx, k.o.Exchange, key, publishing(a2a.KindTaskCancel, taskID, body))
}

// sendQuery publishes a discovery.query.
func (k *kit) sendQuery(ctx context.Context) error {
	body, _ := json.Marshal(&a2a.DiscoveryQuery{From: k.o.Caller, Time: time.Now().UTC()})
	p := publishing(a2a.KindDiscoveryQuery, "", body)
	p.DeliveryMode = amqp.Transient
	return k.s.publish(ctx, k.o.Exchange, a2a.RoutingKeyDiscoveryQuery, p)
}

// envelope is the protocol view of a delivery (string headers only).
func envelope(d amqp.Delivery) a2a.Envelope {
	h := map[string]string{}
	for key, v := range d.Headers {
		switch v := v.(type) {
		case string:
			h[key] = v
		case []byte:
			h[key] = string(v)
		}
	}
	return a2a.Envelope{Kind: a2a.Kind(d.Type), MessageID: d.MessageId, CorrelationID: d.CorrelationId, ReplyTo: d.ReplyTo,
		ContentType: d.ContentType, Priority: d.Priority, Timestamp: d.Timestamp, Headers: h, Body: d.Body}
}

// decode decodes and validates a delivery as the Go codec does.
func decode(d amqp.Delivery) (a2a.Payload, error) { return a2a.Codec{}.Decode(envelope(d)) }

// isFinal reports whether r is a task's final answer.
func isFinal(r received) bool {
	return r.d.Type == string(a2a.KindTaskResult) || r.d.Type == string(a2a.KindTaskError)
}

// final waits up to the kit's timeout for the final answer to taskID and
// returns it with everything received for the task; ok is false when none came.
func (k *kit) final(ctx context.Context, taskID string) (final received, all []received, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, k.o.Timeout)
	defer cancel()
	all, ok = k.s.responses.wait(ctx, taskID, func(got []received) bool {
		for _, r := range got {
			if isFinal(r) {
				return true
			}
		}
		return false
	})
	for _, r := range all {
		if isFinal(r) {
			return r, all, true
		}
	}
	return received{}, all, false
}

// deadLettered waits up to the kit's timeout for a dead-lettered copy of message id.
func (k *kit) deadLettered(ctx context.Context, messageID string) (received, bool) {
	ctx, cancel := context.WithTimeout(ctx, k.o.Timeout)
	defer cancel()
	got, ok := k.s.dead.wait(ctx, messageID, func(got []received) bool { return len(got) > 0 })
	if !ok {
		return received{}, false
	}
	return got[0], true
}

// deathReason is the reason a dead letter carries: the bus's header (a copy
// sent to the dead-letter exchange) or the broker's (basic.reject).
func deathReason(d amqp.Delivery) string {
	for _, h := range []string{"x-a2a-death-reason", "x-first-death-reason"} {
		if v, ok := d.Headers[h].(string); ok && v != "" {
			return h + "=" + v
		}
	}
	return "no death reason header"
}

// expectError checks that r is a task.error of the agent for taskID with
// code (any code when code is "") and the state the spec gives that code.
func (k *kit) expectError(r received, taskID string, code a2a.ErrorCode) (Outcome, string) {
	p, err := decode(r.d)
	if err != nil {
		return Fail, fmt.Sprintf("the %s does not decode: %v", r.d.Type, err)
	}
	e, ok := p.(*a2a.TaskError)
	if !ok {
		return Fail, fmt.Sprintf("got a %s, want a task.error%s", r.d.Type, codeSuffix(code))
	}
	switch {
	case e.TaskID != taskID:
		return Fail, fmt.Sprintf("task.error for task %q, want %q", e.TaskID, taskID)
	case !a2a.SameAgent(e.Agent, k.o.Agent):
		return Fail, fmt.Sprintf("task.error from agent %q, want %q", e.Agent, k.o.Agent)
	case code != "" && e.Code != code:
		return Fail, fmt.Sprintf("code %s (%s), want %s", e.Code, e.Message, code)
	case e.State != stateFor(e.Code):
		return Fail, fmt.Sprintf("code %s in state %s, want %s", e.Code, e.State, stateFor(e.Code))
	case !hasKey(r.d.Body, "retryable"):
		return Fail, "the task.error has no \"retryable\""
	}
	return Pass, fmt.Sprintf("%s (%s): %s", e.Code, e.State, e.Message)
}

func codeSuffix(code a2a.ErrorCode) string {
	if code == "" {
		return ""
	}
	return " " + string(code)
}

// stateFor is the A2A state of a task.error with code.
func stateFor(code a2a.ErrorCode) a2a.TaskState {
	switch code {
	case a2a.CodeCanceled:
		return a2a.TaskStateCanceled
	case a2a.CodeSkillNotSupported, a2a.CodeInvalidInput, a2a.CodeForbidden:
		return a2a.TaskStateRejected
	}
	return a2a.TaskStateFailed
}

func hasKey(body []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// hasSkill reports whether the discovered card lists skill.
func (k *kit) hasSkill(skill string) bool {
	if k.card == nil {
		return false
	}
	for _, s := range k.card.Card.Skills {
		if s.ID == skill {
			return true
		}
	}
	return false
}
