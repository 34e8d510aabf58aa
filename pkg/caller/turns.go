// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Tasks that talk back (docs/tasks.md). A task runs in turns: turn 0 is
// its first request; an agent that asks a question ends its turn waiting
// for input, and the caller's answer (Reply) starts the next turn, a new
// request for the same task to any replica of the agent. The caller keeps
// the task's state in working memory (memory/keys.go):
//
//   - what the task waits for (memory.TaskWaitKey: a waitState), written by
//     whoever ended a turn with a question;
//   - how each later turn started (memory.TaskTurnKey: a turnStart), set
//     once — the claim of that start, which the caller's answer (Reply), the
//     sweeper's end of the wait (TIMEOUT) and a cancel (CANCELED) race for;
//   - who ended each turn (memory.TaskTurnClaimKey): the first answer of the
//     turn (a question or a final one) or the sweeper's TIMEOUT.
//
// The stored result at the task's memory key is the question while the
// task waits, and its final outcome at the end; while a later turn runs it
// still holds the question that turn answers (Caller.Task tells the two
// apart by the turn's start).

// Who started a turn (turnStart.By).
const (
	startReply    = "reply"
	startTimeout  = "timeout"
	startCanceled = "canceled"
)

// claimQuestion prefixes the claim of a turn that ended with a question.
const claimQuestion = "question"

// waitState is what a task waits for: the latest question and the task's
// history up to it.
type waitState struct {
	// Turn is the turn that ended with the question; the answer starts Turn+1.
	Turn     int           `json:"turn"`
	State    a2a.TaskState `json:"state"`
	Agent    string        `json:"agent"`
	Question *a2a.Question `json:"question"`
	// History is every message of the task so far, oldest first, the
	// question last (bounded by Options.MaxTaskHistory).
	History []*a2a.Message `json:"history"`
	// AnswerBy is when the answer is due.
	AnswerBy time.Time `json:"answerBy"`
}

// encode is the JSON of w through the codec's mirrors of its messages.
func (w *waitState) encode() ([]byte, error) {
	type fields waitState
	return json.Marshal(struct {
		*fields
		State   string `json:"state"`
		History any    `json:"history"`
	}{(*fields)(w), w.State.String(), a2a.MessagesMirror(w.History)})
}

// turnStart is how a later turn of a task started: the caller's answer,
// or the end of the wait for one.
type turnStart struct {
	By string `json:"by"`
	// MessageID identifies the answer (By reply): the same answer again is
	// applied once.
	MessageID string `json:"messageId,omitempty"`
	// Deadline is when the turn's answer is due (By reply).
	Deadline time.Time `json:"deadline,omitzero"`
	// History is the messages before the answer, as the request carried
	// them (By reply).
	History []*a2a.Message `json:"history,omitempty"`
	// Message is the answer (By reply).
	Message *a2a.Message `json:"message,omitempty"`
	At      time.Time    `json:"at"`
}

// encode is the JSON of s through the codec's mirrors of its messages.
func (s *turnStart) encode() ([]byte, error) {
	type fields turnStart
	return json.Marshal(struct {
		*fields
		History any `json:"history,omitempty"`
		Message any `json:"message,omitempty"`
	}{(*fields)(s), a2a.MessagesMirror(s.History), a2a.MessageMirror(s.Message)})
}

// loadWait returns what task rec waits for (its latest question) as
// working memory has it, nil when it never asked one. (Reply first tries
// this process's copy, local.wait.)
func (c *Caller) loadWait(ctx context.Context, rec *Record) (*waitState, error) {
	key, err := memory.TaskWaitKey(c.opts.Name, rec.TaskID)
	if err != nil {
		return nil, err
	}
	var w waitState
	found, err := getJSON(ctx, c.opts.Memory, key, &w)
	if err != nil || !found {
		return nil, err
	}
	return &w, nil
}

// loadStart returns how turn n (1 or more) of task rec started, nil when it
// has not: this process's copy of a start it made, else working memory's.
func (c *Caller) loadStart(ctx context.Context, rec *Record, n int) (*turnStart, error) {
	if s, ok := c.local.start(rec.TaskID, n); ok {
		return s, nil
	}
	key, err := memory.TaskTurnKey(c.opts.Name, rec.TaskID, n)
	if err != nil {
		return nil, err
	}
	var s turnStart
	found, err := getJSON(ctx, c.opts.Memory, key, &s)
	if err != nil || !found {
		return nil, err
	}
	return &s, nil
}

// turnOf is where a task stands: the turn it is in, and what holds it —
// the question it waits on (wait, when it waits), or the turn's start (start,
// for a later turn that runs or whose wait ended).
type turnOf struct {
	turn  int
	wait  *waitState
	start *turnStart
}

// waiting reports whether the task waits for the caller's answer.
func (t turnOf) waiting() bool { return t.wait != nil && t.start == nil }

// locate tells where the task of rec stands, given the stored result at its
// memory key (nil when none): a question there whose answer started the
// next turn means that turn runs.
func (c *Caller) locate(ctx context.Context, rec *Record, stored *StoredResult) (turnOf, error) {
	if stored == nil || !a2a.WaitsForInput(stored.State) {
		if stored != nil {
			return turnOf{turn: stored.Turn}, nil
		}
		return turnOf{}, nil
	}
	start, err := c.loadStart(ctx, rec, stored.Turn+1)
	if err != nil {
		return turnOf{}, err
	}
	if start != nil {
		return turnOf{turn: stored.Turn + 1, start: start}, nil
	}
	return turnOf{turn: stored.Turn, wait: &waitState{Turn: stored.Turn, State: stored.State, Agent: stored.Agent,
		Question: stored.Question, AnswerBy: stored.AnswerBy}}, nil
}

// questionMessage is the message of a question result: the agent's
// message, or the question's text as one.
func questionMessage(s *StoredResult) *a2a.Message {
	if s.Message != nil {
		return s.Message
	}
	text := ""
	if s.Question != nil {
		text = s.Question.Text
	}
	return a2a.NewTextMessage(a2a.MessageRoleAgent, text)
}

// answerMessage is what a task's final outcome adds to its context's
// history: the result's message (else a text of its artifacts), or the
// failure as an agent's message.
func answerMessage(s *StoredResult) *a2a.Message {
	switch {
	case s.Error != nil:
		return a2a.NewTextMessage(a2a.MessageRoleAgent, fmt.Sprintf("[the task failed: %s: %s]", s.Error.Code, s.Error.Message))
	case s.Message != nil:
		return s.Message
	}
	return a2a.NewTextMessage(a2a.MessageRoleAgent, resultPreview(s))
}

// omitted is how many messages marker m stands for, 0 when m is no marker.
func omitted(m *a2a.Message) int { return a2a.OmittedCount(m) }

// omittedMarker is the message that stands for n messages left out.
func omittedMarker(n int, what string) *a2a.Message {
	m := a2a.NewTextMessage(a2a.MessageRoleUser, fmt.Sprintf("[%d earlier messages of this %s were left out]", n, what))
	m.Metadata = map[string]any{a2a.MetadataOmitted: n}
	return m
}

// boundHistory keeps at most limit messages of msgs, the newest: when it
// drops some, the first message kept is a marker saying how many were
// left out (counting those an earlier marker stood for). what names the
// history in the marker ("task", "context"). msgs is not changed; a limit
// of 0 or less keeps nothing.
func boundHistory(msgs []*a2a.Message, limit int, what string) []*a2a.Message {
	switch {
	case limit <= 0:
		return nil
	case len(msgs) <= limit:
		return msgs
	}
	return dropOldest(msgs, droppable(msgs)-(limit-1), what)
}

// droppable is how many messages of a history can be left out: all but
// the marker it starts with, if it does.
func droppable(msgs []*a2a.Message) int {
	if len(msgs) > 0 && omitted(msgs[0]) > 0 {
		return len(msgs) - 1
	}
	return len(msgs)
}

// dropOldest leaves out the n oldest messages of msgs (not counting the
// marker it may start with) and puts one marker in their place, standing
// for them and for those the old marker stood for.
func dropOldest(msgs []*a2a.Message, n int, what string) []*a2a.Message {
	if n <= 0 {
		return msgs
	}
	total, skip := 0, 0
	if len(msgs) > 0 && omitted(msgs[0]) > 0 {
		total, skip = omitted(msgs[0]), 1
	}
	n = min(n, len(msgs)-skip)
	out := make([]*a2a.Message, 0, len(msgs)-skip-n+1)
	return append(append(out, omittedMarker(total+n, what)), msgs[skip+n:]...)
}
