// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Spec is one task of the mix: what a caller invokes for task number n.
type Spec struct {
	N       int64
	Target  string
	Skill   string
	Expect  string
	Mode    string        // invoke, call, call-stream
	Timeout time.Duration // 0: the default
	// CancelAfter, when set, cancels the task that long after it was invoked.
	CancelAfter time.Duration
}

// The modes of a task.
const (
	ModeInvoke     = "invoke"      // Invoke, not streamed; the outcome is waited for or left to the replicas
	ModeCall       = "call"        // Call without status updates
	ModeCallStream = "call-stream" // Call with a status function (streamed)
)

// Mix draws task n of the run: deterministic for (seed, n). The shares:
// fast 35%, slow 20% (a fifth of them timed out, a fifth cancelled),
// random 20%, nested 15%, fail 10%.
func Mix(seed uint64, n int64, agents []string) Spec {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	s := Spec{N: n, Target: agents[rng.IntN(len(agents))], Expect: ExpectComplete}
	switch p := rng.IntN(100); {
	case p < 35:
		s.Skill = SkillFast
	case p < 55:
		s.Skill = SkillSlow
		switch rng.IntN(5) {
		case 0:
			s.Expect, s.Timeout = ExpectTimeout, time.Duration(100+rng.IntN(50))*time.Millisecond
		case 1:
			s.Expect, s.CancelAfter = ExpectCancel, time.Duration(10+rng.IntN(40))*time.Millisecond
		}
	case p < 75:
		s.Skill = SkillRandom
	case p < 90:
		s.Skill = SkillNested
	default:
		s.Skill, s.Expect = SkillFail, ExpectFail
	}
	switch rng.IntN(3) {
	case 0:
		s.Mode = ModeInvoke
	case 1:
		s.Mode = ModeCall
	default:
		s.Mode = ModeCallStream
	}
	if s.CancelAfter > 0 {
		s.Mode = ModeInvoke // a cancel needs the task id at once
	}
	return s
}

// SessionID is the session of task n of run: one session per task, the ledger's key.
func SessionID(run string, n int64) string { return fmt.Sprintf("soak-%s-%d", run, n) }
