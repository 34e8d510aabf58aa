// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// world is an embedded bus and working memory shared by the agents and
// callers of one test.
type world struct {
	*testworld.World
	t *testing.T
}

func newWorld(t *testing.T) *world { return &world{World: testworld.Embedded(t), t: t} }

// caller returns a running caller named name.
func (w *world) caller(name string) *caller.Caller { return callers.Start(w.t, w.World, name) }

// sample runs SampleAgent's skills under name, with a caller of the same
// name for its delegations (nil when withCaller is false).
func (w *world) sample(name string, withCaller bool) *agent.Agent {
	w.t.Helper()
	// With working memory, as when served (internal/agents): an instance still
	// starting when a cancel is sent reads it from there.
	a, err := agent.New(agent.Options{Card: Card(name), Bus: w.Connect(w.t), Memory: w.Memory, StopTimeout: time.Second})
	if err != nil {
		w.t.Fatal(err)
	}
	var c *caller.Caller
	if withCaller {
		c = w.caller(name)
	}
	if err := Register(a, c); err != nil {
		w.t.Fatal(err)
	}
	w.run(a)
	return a
}

// run runs a until the test ends.
func (w *world) run(a *agent.Agent) { testworld.Start(w.t, a) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// call invokes and waits, collecting the status texts.
func call(t *testing.T, c *caller.Caller, req caller.Request) (*caller.Outcome, []*a2a.TaskStatus) {
	t.Helper()
	var mu sync.Mutex
	var statuses []*a2a.TaskStatus
	out, err := c.Call(testCtx(t), req, func(st *a2a.TaskStatus) {
		mu.Lock()
		defer mu.Unlock()
		statuses = append(statuses, st)
	})
	if err != nil {
		t.Fatalf("call %s/%s: %v", req.Target, req.Skill, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out, statuses
}

// wantCode asserts that the outcome failed with code and a message containing every part.
func wantCode(t *testing.T, out *caller.Outcome, code a2a.ErrorCode, parts ...string) {
	t.Helper()
	err := out.Err()
	if err == nil {
		t.Fatalf("want %s, got a result: %q", code, out.Result.Text())
	}
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("want code %s, got %v", code, err)
	}
	for _, p := range parts {
		if !strings.Contains(e.Message, p) {
			t.Errorf("error message %q does not contain %q", e.Message, p)
		}
	}
}

// wantText asserts that the outcome completed with text.
func wantText(t *testing.T, out *caller.Outcome, text string) {
	t.Helper()
	if err := out.Err(); err != nil {
		t.Fatalf("want %q, got error %v", text, err)
	}
	if got := out.Result.Text(); got != text {
		t.Fatalf("want text %q, got %q", text, got)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
