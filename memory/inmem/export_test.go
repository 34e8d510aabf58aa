// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inmem

// Len counts the stored items, expired or not, without removing any.
func (m *Memory) Len() int {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	return len(m.b.items)
}

// Sweep runs one janitor pass.
func (m *Memory) Sweep() { m.b.sweep() }

// Sessions counts the stored conversations, expired or not, without removing any.
func (m *Memory) Sessions() int {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	return len(m.b.sessions)
}

// Stream returns the values kept in stream key (OpStreamAdd).
func (m *Memory) Stream(key string) [][]byte {
	m.b.mu.Lock()
	defer m.b.mu.Unlock()
	return m.b.streams[key]
}
