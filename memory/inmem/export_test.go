package inmem

// Len counts the stored items, expired or not, without removing any.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}

// Sweep runs one janitor pass.
func (m *Memory) Sweep() { m.sweep() }
