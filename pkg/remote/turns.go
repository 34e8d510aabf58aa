// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// The metadata keys of a question's message that name the remote task it
// comes from: the caller keeps the message in the task's history and sends
// it with the answer, so any replica of the bridge sends the answer to
// that task.
const (
	MetaRemoteTaskID    = "remoteTaskId"
	MetaRemoteContextID = "remoteContextId"
	// MetaRemoteMessageID is the id of the remote's status message that
	// asked: the answer's turn does not take that question, still stored
	// by the remote (SDKs send the task as stored first), for a new one.
	MetaRemoteMessageID = "remoteMessageId"
)

// remoteIDs name a remote task and its context, and the question it asked.
type remoteIDs struct {
	Task     spec.TaskID
	Context  string
	Question string // the id of the remote's message that asked
	Text     string // its text
	at       time.Time
}

// remoteTurns remembers the remote task of each bus task this process sent,
// for the answers whose history lost the question's metadata: bounded,
// the oldest forgotten first.
type remoteTurns struct {
	mu sync.Mutex
	m  map[string]remoteIDs
}

// Bounds of remoteTurns.
const (
	maxRemoteTurns = 10_000
	remoteTurnsTTL = 24 * time.Hour
)

func newRemoteTurns() *remoteTurns { return &remoteTurns{m: map[string]remoteIDs{}} }

func (r *remoteTurns) remember(busTask string, ids remoteIDs) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids.at = time.Now()
	r.m[busTask] = ids
	if len(r.m) <= maxRemoteTurns {
		return
	}
	oldest, first := "", time.Time{}
	for k, v := range r.m {
		if time.Since(v.at) > remoteTurnsTTL {
			delete(r.m, k)
		} else if first.IsZero() || v.at.Before(first) {
			oldest, first = k, v.at
		}
	}
	if len(r.m) > maxRemoteTurns {
		delete(r.m, oldest)
	}
}

func (r *remoteTurns) lookup(busTask string) (remoteIDs, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids, ok := r.m[busTask]
	return ids, ok && time.Since(ids.at) <= remoteTurnsTTL
}

// message is what the remote is sent for a turn of t: the request's parts,
// its structured input as a data part; on a later turn, the answer, for the
// remote task (and context) that asked. The first turn carries the bus
// task's context id, so the remote groups the tasks of one context.
func (b *Bridge) message(t *agent.Task) (*spec.Message, remoteIDs, error) {
	var parts spec.ContentParts
	if m := t.Request.Message; m != nil {
		for _, p := range m.Parts {
			if p != nil && p.Content != nil {
				parts = append(parts, p)
			}
		}
	}
	if len(t.Request.Input) > 0 && string(t.Request.Input) != "null" {
		var v any
		if err := json.Unmarshal(t.Request.Input, &v); err != nil {
			return nil, remoteIDs{}, a2a.NewError(a2a.CodeInvalidInput, "input: %v", err)
		}
		parts = append(parts, spec.NewDataPart(v))
	}
	if len(parts) == 0 {
		return nil, remoteIDs{}, a2a.NewError(a2a.CodeInvalidInput, "nothing to send to remote agent %q: the request has neither text nor input", b.name)
	}
	msg := spec.NewMessage(spec.MessageRoleUser, parts...)
	msg.ID = fmt.Sprintf("%s-%d", t.Request.TaskID, t.Turn()) // the same on every retry and redelivery
	if t.Turn() == 0 {
		msg.ContextID = t.ContextID()
		return msg, remoteIDs{}, nil
	}
	ids, ok := b.askedBy(t)
	if !ok {
		return nil, remoteIDs{}, a2a.NewError(a2a.CodeExecutionFailed, "remote agent %q: turn %d of task %s answers a question whose remote task is unknown "+
			"(neither the task's history nor this bridge names it)", b.name, t.Turn(), t.Request.TaskID)
	}
	msg.TaskID, msg.ContextID = ids.Task, ids.Context
	return msg, ids, nil
}

// stale reports whether a status that waits for input is the question this
// turn answers, as the remote still stored it when the answer came: on a
// later turn, before the remote task was seen in any other state.
func (x *exchange) stale(st spec.TaskStatus) bool {
	if x.t.Turn() == 0 || x.moved || !a2a.WaitsForInput(st.State) {
		return false
	}
	m := st.Message
	return m == nil || (x.asked.Question != "" && string(m.ID) == x.asked.Question) || (x.asked.Text != "" && a2a.MessageText(m) == x.asked.Text)
}

// askedBy finds the remote task a later turn answers: in the metadata of
// the newest question of the task's history, else in this process's memory.
func (b *Bridge) askedBy(t *agent.Task) (remoteIDs, bool) {
	h := t.History()
	for i := len(h) - 1; i >= 0; i-- {
		m := h[i]
		if m == nil || m.Role != spec.MessageRoleAgent {
			continue
		}
		if id, ok := m.Metadata[MetaRemoteTaskID].(string); ok && id != "" {
			ctx, _ := m.Metadata[MetaRemoteContextID].(string)
			question, _ := m.Metadata[MetaRemoteMessageID].(string)
			return remoteIDs{Task: spec.TaskID(id), Context: ctx, Question: question, Text: a2a.MessageText(m)}, true
		}
	}
	return b.turns.lookup(t.Request.TaskID)
}

// outcome is the bus result of the turn that ended: the remote's answer
// and artifacts, a question when it waits for input, a typed error when it
// failed, was rejected or canceled.
func (x *exchange) outcome() (*agent.Result, error) {
	extra := map[string]any{"remote": x.b.name}
	if x.taskID != "" {
		extra[MetaRemoteTaskID], extra[MetaRemoteContextID], extra["remoteState"] = string(x.taskID), x.contextID, string(x.state)
	}
	res := &agent.Result{Artifacts: busArtifacts(x.arts), Extra: extra}
	switch {
	case x.reply != nil:
		res.Message = busMessage(x.reply)
	case x.state == spec.TaskStateCompleted:
		res.Message = busMessage(x.status)
	case a2a.WaitsForInput(x.state):
		return x.question(res), nil
	default:
		return nil, x.b.stateError(x.taskID, x.state, x.status)
	}
	if res.Message == nil && len(res.Artifacts) == 0 {
		res.Message = a2a.NewTextMessage(a2a.MessageRoleAgent, fmt.Sprintf("remote agent %q completed the task without a message or artifact", x.b.name))
	}
	return res, nil
}

// question ends the bus task's turn with the remote's question; its
// message names the remote task, for the answer (MetaRemoteTaskID).
func (x *exchange) question(res *agent.Result) *agent.Result {
	q := text.Cut(a2a.MessageText(x.status), a2a.MaxQuestionTextBytes)
	if q == "" {
		q = fmt.Sprintf("remote agent %q asks for more input", x.b.name)
	}
	msg := a2a.NewTextMessage(a2a.MessageRoleAgent, q)
	asked := remoteIDs{Task: x.taskID, Context: x.contextID, Text: q}
	if x.status != nil {
		asked.Question = x.status.ID
	}
	msg.Metadata = map[string]any{MetaRemoteTaskID: string(x.taskID), MetaRemoteContextID: x.contextID, MetaRemoteMessageID: asked.Question}
	res.Message, res.Question = msg, &a2a.Question{Text: q}
	if x.state == spec.TaskStateAuthRequired {
		res.Question.Auth = &a2a.AuthNeed{Scheme: authScheme(x.card), Resource: x.b.cardURL}
	}
	x.b.turns.remember(x.t.Request.TaskID, asked)
	return res
}

// authScheme names the kind of credential the remote's card asks for
// (its first security scheme), "bearer" when it names none.
func authScheme(card *spec.AgentCard) string {
	if card != nil {
		for _, s := range card.SecuritySchemes {
			switch v := s.(type) {
			case spec.APIKeySecurityScheme:
				return "apiKey"
			case spec.HTTPAuthSecurityScheme:
				if v.Scheme != "" {
					return text.Cut(v.Scheme, 64)
				}
			case spec.OAuth2SecurityScheme:
				return "oauth2"
			case spec.OpenIDConnectSecurityScheme:
				return "openIdConnect"
			case spec.MutualTLSSecurityScheme:
				return "mutualTLS"
			}
		}
	}
	return "bearer"
}

// busMessage is m as an agent's message on the bus: parts with content
// only; nil when none is left.
func busMessage(m *spec.Message) *a2a.Message {
	if m == nil {
		return nil
	}
	parts := contentParts(m.Parts)
	if len(parts) == 0 {
		return nil
	}
	out := spec.NewMessage(spec.MessageRoleAgent, parts...)
	out.Metadata = m.Metadata
	return out
}

// busArtifacts are the remote's artifacts with content, each with an id.
func busArtifacts(arts []*spec.Artifact) []*a2a.Artifact {
	var out []*a2a.Artifact
	for i, a := range arts {
		if a == nil {
			continue
		}
		parts := contentParts(a.Parts)
		if len(parts) == 0 {
			continue
		}
		c := *a
		c.Parts = parts
		if c.ID == "" {
			c.ID = spec.ArtifactID(fmt.Sprintf("artifact-%d", i+1))
		}
		out = append(out, &c)
	}
	return out
}

func contentParts(parts spec.ContentParts) spec.ContentParts {
	var out spec.ContentParts
	for _, p := range parts {
		if p != nil && p.Content != nil {
			out = append(out, p)
		}
	}
	return out
}
