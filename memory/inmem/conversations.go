// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inmem

import (
	"context"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// session holds one conversation. changed is closed (and replaced) on every
// append, waking the subscriptions waiting on it.
type session struct {
	turns   []memory.Turn    // turns[i].Seq == i+1
	once    map[string]int64 // AppendTurnOnce id -> Seq
	changed chan struct{}
	expires time.Time // zero: never; turns, sequence and once ids expire together
}

// expired reports whether the conversation's TTL has run out at now.
func (s *session) expired(now time.Time) bool {
	return !s.expires.IsZero() && !now.Before(s.expires)
}

// AppendTurn appends t to session and returns the stored turn with its Seq and Time.
func (m *backend) AppendTurn(ctx context.Context, sessionID string, t memory.Turn) (memory.Turn, error) {
	stored, _, err := m.appendTurn(sessionID, "", t)
	return stored, err
}

// AppendTurnOnce appends t to session unless a turn was appended with id
// before; it returns the turn stored under id and whether it appended it now.
func (m *backend) AppendTurnOnce(ctx context.Context, sessionID, id string, t memory.Turn) (memory.Turn, bool, error) {
	return m.appendTurn(sessionID, id, t)
}

// appendTurn appends t, once per id when id is not empty.
func (m *backend) appendTurn(sessionID, id string, t memory.Turn) (memory.Turn, bool, error) {
	t = memory.PrepareTurn(t, m.now())
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("append turn to %q", sessionID); err != nil {
		return memory.Turn{}, false, err
	}
	s := m.session(sessionID)
	if seq, seen := s.once[id]; seen {
		return cloneTurn(s.turns[seq-1]), false, nil
	}
	t.Seq = int64(len(s.turns)) + 1
	s.turns = append(s.turns, t)
	if id != "" {
		s.once[id] = t.Seq
	}
	m.touch(s)
	close(s.changed)
	s.changed = make(chan struct{})
	return cloneTurn(t), true, nil
}

// Turns returns the turns of session with Seq > afterSeq, oldest first, at most limit (<= 0: all).
func (m *backend) Turns(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]memory.Turn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("turns of %q", sessionID); err != nil {
		return nil, err
	}
	s := m.liveSession(sessionID)
	if s == nil {
		return []memory.Turn{}, nil
	}
	return after(s.turns, afterSeq, limit), nil
}

// SubscribeTurns delivers every turn of session with Seq > afterSeq, stored then live,
// until ctx is done or the memory is closed.
func (m *backend) SubscribeTurns(ctx context.Context, sessionID string, afterSeq int64) (<-chan memory.Turn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("subscribe turns of %q", sessionID); err != nil {
		return nil, err
	}
	out := make(chan memory.Turn)
	m.wg.Add(1)
	go m.forward(ctx, sessionID, afterSeq, out)
	return out, nil
}

// forward sends the turns after last to out, then waits for more, until ctx
// is done or the memory is closed. It reads from the session under the lock
// and sends without it, so a slow subscriber never blocks an append.
func (m *backend) forward(ctx context.Context, sessionID string, last int64, out chan<- memory.Turn) {
	defer m.wg.Done()
	defer close(out)
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return
		}
		s := m.session(sessionID)
		batch, changed := after(s.turns, last, 0), s.changed
		m.mu.Unlock()

		for _, t := range batch {
			select {
			case out <- t:
				last = t.Seq
			case <-ctx.Done():
				return
			case <-m.done:
				return
			}
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-m.done:
			return
		}
	}
}

// session returns the conversation of id, creating it (a new one, when the
// old one expired). m.mu must be held.
func (m *backend) session(id string) *session {
	s := m.liveSession(id)
	if s == nil {
		s = &session{once: make(map[string]int64), changed: make(chan struct{})}
		m.touch(s) // a session only subscribed to expires too
		m.sessions[id] = s
	}
	return s
}

// liveSession returns the unexpired conversation of id, or nil, removing an
// expired one; the clock is read only when s may expire. m.mu must be held.
func (m *backend) liveSession(id string) *session {
	s := m.sessions[id]
	if s != nil && !s.expires.IsZero() && s.expired(m.now()) {
		m.dropSession(id, s)
		return nil
	}
	return s
}

// dropSession removes the expired conversation s of id and wakes its
// subscriptions, which then wait on the session that replaces it. m.mu must be held.
func (m *backend) dropSession(id string, s *session) {
	delete(m.sessions, id)
	close(s.changed)
}

// touch starts s's TTL again (when conversations expire). m.mu must be held.
func (m *backend) touch(s *session) {
	if m.convTTL > 0 {
		s.expires = m.now().Add(m.convTTL)
	}
}

// after copies the turns with Seq > afterSeq, at most limit (<= 0: all).
func after(turns []memory.Turn, afterSeq int64, limit int) []memory.Turn {
	if afterSeq >= int64(len(turns)) {
		return []memory.Turn{}
	}
	rest := turns[afterSeq:]
	if limit > 0 && limit < len(rest) {
		rest = rest[:limit]
	}
	out := make([]memory.Turn, len(rest))
	for i, t := range rest {
		out[i] = cloneTurn(t)
	}
	return out
}

func cloneTurn(t memory.Turn) memory.Turn {
	t.Meta = memory.CloneMeta(t.Meta)
	return t
}
