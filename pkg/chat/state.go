// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
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
	last     int64            // seq of the newest turn seen
	handled  int64            // inputs up to this seq were handled, as the answers seen say (max MetaHandledTo)
	cursor   int64            // inputs up to this seq were handled, as the cursor in memory says (may run ahead of the turns seen)
	started  map[string]int64 // sub-task id → seq of the tool turn that started it
	notified map[string]memory.Turn
}

func newState() *state {
	return &state{changed: make(chan struct{}), started: map[string]int64{}, notified: map[string]memory.Turn{}}
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
	if id := memory.MetaValue(t.Meta, MetaStartedTask); id != "" && t.Role == memory.RoleTool {
		if _, ok := s.started[id]; !ok {
			s.started[id] = t.Seq
		}
	}
	if isNotification(t) {
		if id := memory.MetaValue(t.Meta, caller.MetaTaskID); id != "" {
			if _, ok := s.notified[id]; !ok {
				s.notified[id] = t
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
// from that turn on was handled and no sub-task started since is pending.
type Settled struct {
	// Answers are the assistant's answers and failures (KindAnswer and
	// KindError turns) since the turn, in order.
	Answers []memory.Turn
	// Notifications are the notifications of the sub-tasks started since the turn.
	Notifications []memory.Turn
	// Err joins what failed the turn: each KindError turn (*TurnError)
	// and each sub-task that did not complete (*TaskError); nil when none did.
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
	out := &Settled{}
	var errs []error
	for id, at := range s.started {
		if at < from {
			continue
		}
		n, ok := s.notified[id]
		if !ok {
			return nil, false
		}
		out.Notifications = append(out.Notifications, n)
		if n.Meta[caller.MetaState] != string(a2a.TaskStateCompleted) {
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

// pendingTasks lists the sub-tasks started and not notified yet.
func (s *state) pendingTasks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id := range s.started {
		if _, ok := s.notified[id]; !ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// wait returns a channel closed at the next change.
func (s *state) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// bySeq orders a turn against a seq, for binary searches.
func bySeq(t memory.Turn, seq int64) int { return cmp.Compare(t.Seq, seq) }
