package inmem

import (
	"context"
	"fmt"

	"github.com/a2abus/a2abus/memory"
)

// session holds one conversation. changed is closed (and replaced) on every
// append, waking the subscriptions waiting on it.
type session struct {
	turns   []memory.Turn    // turns[i].Seq == i+1
	once    map[string]int64 // AppendTurnOnce id -> Seq
	changed chan struct{}
}

// AppendTurn appends t to session and returns the stored turn with its Seq and Time.
func (m *Memory) AppendTurn(ctx context.Context, sessionID string, t memory.Turn) (memory.Turn, error) {
	stored, _, err := m.appendTurn(sessionID, "", t)
	return stored, err
}

// AppendTurnOnce appends t to session unless a turn was appended with id
// before; it returns the turn stored under id and whether it appended it now.
func (m *Memory) AppendTurnOnce(ctx context.Context, sessionID, id string, t memory.Turn) (memory.Turn, bool, error) {
	if err := memory.ValidateOnceID(id); err != nil {
		return memory.Turn{}, false, fmt.Errorf("append turn once: %w", err)
	}
	return m.appendTurn(sessionID, id, t)
}

// appendTurn appends t, once per id when id is not empty.
func (m *Memory) appendTurn(sessionID, id string, t memory.Turn) (memory.Turn, bool, error) {
	if err := memory.ValidateSessionID(sessionID); err != nil {
		return memory.Turn{}, false, fmt.Errorf("append turn: %w", err)
	}
	t, err := memory.PrepareTurn(t, m.now())
	if err != nil {
		return memory.Turn{}, false, fmt.Errorf("append turn to %q: %w", sessionID, err)
	}
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
	close(s.changed)
	s.changed = make(chan struct{})
	return cloneTurn(t), true, nil
}

// Turns returns the turns of session with Seq > afterSeq, oldest first, at most limit (<= 0: all).
func (m *Memory) Turns(ctx context.Context, sessionID string, afterSeq int64, limit int) ([]memory.Turn, error) {
	if err := validSession(sessionID, afterSeq); err != nil {
		return nil, fmt.Errorf("turns: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("turns of %q", sessionID); err != nil {
		return nil, err
	}
	s := m.sessions[sessionID]
	if s == nil {
		return []memory.Turn{}, nil
	}
	return after(s.turns, afterSeq, limit), nil
}

// SubscribeTurns delivers every turn of session with Seq > afterSeq, stored then live,
// until ctx is done or the memory is closed.
func (m *Memory) SubscribeTurns(ctx context.Context, sessionID string, afterSeq int64) (<-chan memory.Turn, error) {
	if err := validSession(sessionID, afterSeq); err != nil {
		return nil, fmt.Errorf("subscribe turns: %w", err)
	}
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
func (m *Memory) forward(ctx context.Context, sessionID string, last int64, out chan<- memory.Turn) {
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

// session returns the conversation of id, creating it. m.mu must be held.
func (m *Memory) session(id string) *session {
	s := m.sessions[id]
	if s == nil {
		s = &session{once: make(map[string]int64), changed: make(chan struct{})}
		m.sessions[id] = s
	}
	return s
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

func validSession(sessionID string, afterSeq int64) error {
	if err := memory.ValidateSessionID(sessionID); err != nil {
		return err
	}
	return memory.ValidateAfterSeq(afterSeq)
}
