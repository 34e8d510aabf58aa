// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package guard

import (
	"errors"
	"maps"
	"sync"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Stats is a snapshot of a Guard's state, for metrics.
type Stats struct {
	// InFlight is the unfinished admitted calls by caller (lower-cased), callers with none left out.
	InFlight map[string]int
	// Circuits is the state of each target's circuit ("closed", "open",
	// "half-open") by target as first spelled; targets whose circuit is like
	// new are left out (closed).
	Circuits map[string]string
	// Refused counts the calls Admit refused, by code (FORBIDDEN, BUSY,
	// RATE_LIMITED, CIRCUIT_OPEN), since the Guard was built.
	Refused map[a2a.ErrorCode]uint64
	// Shared is whether the Guard has shared limits (Config.Shared);
	// SharedUp whether they answered last time (false: per-process limits only).
	Shared, SharedUp bool
}

// Stats returns a snapshot of g's calls in flight, circuits and refusals.
// A nil Guard has none.
func (g *Guard) Stats() Stats {
	s := Stats{InFlight: map[string]int{}, Circuits: map[string]string{}}
	if g == nil {
		s.Refused = map[a2a.ErrorCode]uint64{}
		return s
	}
	g.mu.Lock()
	maps.Copy(s.InFlight, g.inFlight.byCaller)
	if g.breakers != nil {
		for _, br := range g.breakers.byTarget {
			s.Circuits[br.target] = br.cb.State().String()
		}
	}
	g.mu.Unlock()
	s.Refused = g.refused.snapshot()
	s.Shared, s.SharedUp = g.shared != nil, g.SharedUp()
	return s
}

// refusals counts refused calls by code. The zero value is ready.
type refusals struct {
	mu     sync.Mutex
	byCode map[a2a.ErrorCode]uint64
}

// count records err's refusal, if err is one.
func (r *refusals) count(err error) {
	var e *a2a.Error
	if !errors.As(err, &e) || e == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byCode == nil {
		r.byCode = map[a2a.ErrorCode]uint64{}
	}
	r.byCode[e.Code]++
}

func (r *refusals) snapshot() map[a2a.ErrorCode]uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.byCode)
}
