// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package inmem

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/memory"
)

// IndexAdd adds member to index with score, or moves it to score.
func (m *backend) IndexAdd(ctx context.Context, index, member string, score int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("index add %q to %q", member, index); err != nil {
		return err
	}
	members := m.indexes[index]
	if members == nil {
		members = make(map[string]int64)
		m.indexes[index] = members
	}
	members[member] = score
	return nil
}

// IndexRemove removes member from index, and the index when it empties; a missing member is no error.
func (m *backend) IndexRemove(ctx context.Context, index, member string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("index remove %q from %q", member, index); err != nil {
		return err
	}
	members := m.indexes[index]
	delete(members, member)
	if len(members) == 0 {
		delete(m.indexes, index)
	}
	return nil
}

// IndexRange returns the members of index with score <= max, lowest score
// first, ties in byte order of member (as Redis), at most limit (<= 0: all).
func (m *backend) IndexRange(ctx context.Context, index string, max int64, limit int) ([]memory.IndexMember, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("index range %q", index); err != nil {
		return nil, err
	}
	out := []memory.IndexMember{}
	for member, score := range m.indexes[index] {
		if score <= max {
			out = append(out, memory.IndexMember{Member: member, Score: score})
		}
	}
	slices.SortFunc(out, func(a, b memory.IndexMember) int {
		return cmp.Or(cmp.Compare(a.Score, b.Score), strings.Compare(a.Member, b.Member))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit:limit]
	}
	return out, nil
}

// IndexScore returns member's score and whether it is in index.
func (m *backend) IndexScore(ctx context.Context, index, member string) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check("index score %q in %q", member, index); err != nil {
		return 0, false, err
	}
	score, ok := m.indexes[index][member]
	return score, ok, nil
}
