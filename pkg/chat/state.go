// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// state is this process's copy of a session's conversation, fed in order
// by the subscription, and what is derived from it: how far its inputs were
// handled, which sub-tasks it started and which of them were notified.
type state struct {
	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change
	turns    []memory.Turn
	last     int64                  // seq of the newest turn seen
	handled  int64                  // inputs up to this seq were handled, as the answers seen say (max MetaHandledTo)
	cursor   int64                  // inputs up to this seq were handled, as the cursor in memory says (may run ahead of the turns seen)
	started  map[string]int64       // sub-task id → seq of the tool turn that started it
	touched  map[string]touch       // sub-task id → the latest tool turn that started it or answered its question
	notified map[string]memory.Turn // sub-task id → its notification of the latest turn
}

func newState() *state {
	return &state{changed: make(chan struct{}), started: map[string]int64{}, touched: map[string]touch{}, notified: map[string]memory.Turn{}}
}

// add records t, the next turn of the conversation.
func (s *state) add(t memory.Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Seq <= s.last {
		return
	}
	s.turns = append(s.turns, t)
	s.last = t.Seq
	s.handled = max(s.handled, handledTo(t))
	if t.Role == memory.RoleTool {
		id, turn := memory.MetaValue(t.Meta, MetaStartedTask), 0
		if id == "" { // an answer to the task's question: its next turn runs
			id, turn = memory.MetaValue(t.Meta, MetaAnsweredTask), turnOf(t.Meta, MetaAnsweredTurn)
		}
		if id != "" {
			if _, ok := s.started[id]; !ok {
				s.started[id] = t.Seq
			}
			if old, ok := s.touched[id]; !ok || turn >= old.turn {
				s.touched[id] = touch{seq: t.Seq, turn: turn}
			}
		}
	}
	if isNotification(t) {
		if id := memory.MetaValue(t.Meta, caller.MetaTaskID); id != "" {
			if old, ok := s.notified[id]; !ok || turnOf(t.Meta, caller.MetaTurn) >= turnOf(old.Meta, caller.MetaTurn) {
				s.notified[id] = t // a question, then the outcome of the turn its answer started
			}
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// handle raises the cursor to n (read from memory).
func (s *state) handle(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cursor = max(s.cursor, n)
}

// isInput reports whether t asks the model to run: a user's turn, or the
// notification of a sub-task this conversation started. Caller holds mu.
func (s *state) isInput(t memory.Turn) bool {
	if t.Role != memory.RoleUser {
		return false
	}
	if !isNotification(t) {
		return true
	}
	_, ours := s.started[memory.MetaValue(t.Meta, caller.MetaTaskID)]
	return ours
}

// pending returns the seq of the first input not handled yet, 0 when none.
func (s *state) pending() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pendingLocked(max(s.handled, s.cursor))
}

// pendingLocked returns the seq of the first input after mark, 0 when none.
func (s *state) pendingLocked(mark int64) int64 {
	i, _ := slices.BinarySearchFunc(s.turns, mark+1, bySeq)
	for _, t := range s.turns[i:] {
		if s.isInput(t) {
			return t.Seq
		}
	}
	return 0
}

// snapshot returns the turns up to seq n and a copy of the started tasks.
func (s *state) snapshot() (turns []memory.Turn, started map[string]int64, last int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	started = make(map[string]int64, len(s.started))
	for k, v := range s.started {
		started[k] = v
	}
	return slices.Clone(s.turns), started, s.last
}

// Settled is what a conversation came to after a turn: once every input
// from that turn on was handled and no sub-task started (or answered)
// since is pending.
type Settled struct {
	// Answers are the assistant's answers and failures (KindAnswer and
	// KindError turns) since the turn, in order.
	Answers []memory.Turn
	// Notifications are the latest notifications of the sub-tasks started
	// or answered since the turn.
	Notifications []memory.Turn
	// Questions are the notifications of the questions of the
	// conversation's sub-tasks that wait for an answer nobody gave: the
	// model handed them to the user, whose next turn answers them (see
	// Session.Questions).
	Questions []memory.Turn
	// Err joins what failed the turn: each KindError turn (*TurnError)
	// and each sub-task that ended and did not complete (*TaskError); nil
	// when none did. A question is not a failure.
	Err error
}

// TurnError is a run of the model that failed, as recorded in the conversation.
type TurnError struct {
	// Turn is the KindError turn.
	Turn memory.Turn
}

func (e *TurnError) Error() string {
	return fmt.Sprintf("chat: the model could not answer (turn %d, %s): %s", e.Turn.Seq, memory.MetaValue(e.Turn.Meta, MetaErrorCode), e.Turn.Meta[MetaError])
}

// TaskError is a sub-task that failed, timed out or was canceled.
type TaskError struct {
	// Notification is the sub-task's notification turn.
	Notification memory.Turn
}

func (e *TaskError) Error() string {
	m := e.Notification.Meta
	return fmt.Sprintf("chat: sub-task %s of %s ended %s (%s)", m[caller.MetaTaskID], m[caller.MetaAgent], m[caller.MetaState], m[caller.MetaOutcome])
}

// settled reports whether every input from seq from on is handled and no
// sub-task started since is pending, and if so what came of them.
func (s *state) settled(from int64) (*Settled, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pendingLocked(s.handled); p != 0 || s.handled < from {
		return nil, false
	}
	out := &Settled{Questions: s.questionsLocked()}
	var errs []error
	for id, at := range s.touched {
		if at.seq < from {
			continue
		}
		n, ok := s.notified[id]
		if !ok || turnOf(n.Meta, caller.MetaTurn) < at.turn {
			return nil, false
		}
		out.Notifications = append(out.Notifications, n)
		if n.Meta[caller.MetaState] != string(a2a.TaskStateCompleted) && !isQuestion(n) {
			errs = append(errs, &TaskError{Notification: n})
		}
	}
	slices.SortFunc(out.Notifications, func(a, b memory.Turn) int { return cmp.Compare(a.Seq, b.Seq) })
	i, _ := slices.BinarySearchFunc(s.turns, from, bySeq)
	for _, t := range s.turns[i:] {
		switch t.Meta[MetaKind] {
		case KindAnswer:
			out.Answers = append(out.Answers, t)
		case KindError:
			out.Answers = append(out.Answers, t)
			errs = append(errs, &TurnError{Turn: t})
		}
	}
	out.Err = errors.Join(errs...)
	return out, true
}

// answer returns the first answer or failure that handled seq.
func (s *state) answer(seq int64) (memory.Turn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, _ := slices.BinarySearchFunc(s.turns, seq, bySeq)
	for _, t := range s.turns[i:] {
		if k := t.Meta[MetaKind]; (k == KindAnswer || k == KindError) && handledTo(t) >= seq {
			return t, true
		}
	}
	return memory.Turn{}, false
}

// pendingTasks lists the sub-tasks started, or answered, and not notified since.
func (s *state) pendingTasks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id, at := range s.touched {
		if n, ok := s.notified[id]; !ok || turnOf(n.Meta, caller.MetaTurn) < at.turn {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// questions lists the notifications of the questions that wait for an
// answer (see Session.Questions), oldest first.
func (s *state) questions() []memory.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.questionsLocked()
}

// questionsLocked is questions; the caller holds mu.
func (s *state) questionsLocked() []memory.Turn {
	var out []memory.Turn
	for id, n := range s.notified {
		if _, ours := s.started[id]; ours && isQuestion(n) && s.touched[id].turn <= turnOf(n.Meta, caller.MetaTurn) &&
			n.Seq <= max(s.handled, s.cursor) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b memory.Turn) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// touch is a tool turn that started a sub-task (turn 0) or answered its
// question (the turn the answer started).
type touch struct {
	seq  int64
	turn int
}

// turnOf is the turn number at key of meta, 0 when it has none.
func turnOf(meta map[string]string, key string) int {
	n, err := strconv.Atoi(memory.MetaValue(meta, key))
	if err != nil {
		return 0
	}
	return n
}

// isQuestion reports whether notification n says its task asks a question
// (it waits for input).
func isQuestion(n memory.Turn) bool { return n.Meta[caller.MetaOutcome] == caller.OutcomeQuestion }

// wait returns a channel closed at the next change.
func (s *state) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// bySeq orders a turn against a seq, for binary searches.
func bySeq(t memory.Turn, seq int64) int { return cmp.Compare(t.Seq, seq) }
