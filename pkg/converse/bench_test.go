// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse_test

import (
	"testing"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/converse"
)

// BenchmarkTurn measures one turn (a draft and a send with its reply) on
// the real servers: orchestrated (durable record, lease, send marker,
// control log reads) beside the same two calls made directly with Call.
// The difference is the orchestration overhead per turn.
func BenchmarkTurn(b *testing.B) {
	w := testworld.Real(b)
	r := newRig(b, w, rigOptions{})
	c0 := ctx(b)
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			d, err := r.caller.Call(c0, caller.Request{Target: r.local, Skill: skillDraft, Text: "x",
				Input: []byte(`{"turnIndex":1,"objective":"o"}`)}, nil)
			if err != nil || d.Err() != nil {
				b.Fatal(err, d.Err())
			}
			a, err := r.caller.Call(c0, caller.Request{Target: r.remote, Skill: skillAnswer, Text: d.Result.Text()}, nil)
			if err != nil || a.Err() != nil {
				b.Fatal(err, a.Err())
			}
		}
	})
	b.Run("orchestrated", func(b *testing.B) {
		spec := r.spec(converse.FullAuto)
		spec.Limits.MaxTurns = b.N
		c := r.start(spec)
		b.ResetTimer()
		c, err := r.orch.Drive(c0, c.ID)
		if err != nil || c.Exchanges != b.N {
			b.Fatalf("%v: %d exchanges of %d", err, c.Exchanges, b.N)
		}
	})
}
