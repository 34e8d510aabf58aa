// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/agent"
)

// A transient caller's response queue expires (redeclaring it durable is a
// topology mismatch on both buses) and carries its results like a durable
// one; a caller of the other mode under the same name is refused with an
// error that names its mode.
func TestTransientCaller(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Echo"), map[string]agent.Handler{"echo": echo})
		c := w.caller(n("Short"), true, func(o *Options) { o.Transient = true })
		out, err := c.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi", SessionID: "s1"}, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("Call through a transient caller = %+v, %v", out, err)
		}
		spec, err := bus.ResponseQueue(n("Short"))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Connect(t).Declare(ctxT(t), spec); !errors.Is(err, bus.ErrTopologyMismatch) {
			t.Fatalf("declaring the transient caller's queue durable = %v, want bus.ErrTopologyMismatch", err)
		}
		spec.Expires = DefaultTransientExpiry
		if err := w.Connect(t).Declare(ctxT(t), spec); err != nil {
			t.Fatalf("declaring it with the default expiry again = %v", err)
		}

		durable := w.caller(n("Short"), false)
		_, err = durable.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi", SessionID: "s2"})
		if !errors.Is(err, bus.ErrTopologyMismatch) || !strings.Contains(err.Error(), "durable caller") {
			t.Errorf("a durable caller over a transient one's queue: Invoke = %v, want a mismatch naming the durable mode", err)
		}
		if _, err := w.caller(n("Long"), false).Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi", SessionID: "s3"}); err != nil {
			t.Fatal(err)
		}
		transient := w.caller(n("Long"), false, func(o *Options) { o.Transient = true })
		_, err = transient.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "hi", SessionID: "s4"})
		if !errors.Is(err, bus.ErrTopologyMismatch) || !strings.Contains(err.Error(), "transient caller") {
			t.Errorf("a transient caller over a durable one's queue: Invoke = %v, want a mismatch naming the transient mode", err)
		}
	})
}

func TestTransientExpiryOption(t *testing.T) {
	tw := testworld.Embedded(t)
	o := Options{Name: "X", Bus: tw.Connect(t), Memory: tw.Memory, Transient: true, TransientExpiry: 500 * time.Microsecond}
	if _, err := New(o); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("TransientExpiry below a millisecond: New = %v, want ErrInvalidOptions", err)
	}
	o.TransientExpiry = 0
	c, err := New(o)
	if err != nil || c.opts.TransientExpiry != DefaultTransientExpiry {
		t.Fatalf("New = %v; TransientExpiry = %v, want the default", err, c.opts.TransientExpiry)
	}
}
