// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// A real Redis that refuses the caller's writes (NOPERM: its user lost the
// write commands, as after an ACL mistake) while a result arrives: the
// result waits, unacked, until the server takes writes again, and is then
// stored and notified once — not dead-lettered, not timed out. The server is
// a private redis-server, so its ACL change touches nobody else.
func TestRealRedisRefusingWritesDelaysTheResult(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, admin := privateRedis(ctx, t)
	w := testworld.Real(t)
	mem, err := redismem.New(ctx, redismem.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()

	refused := make(chan struct{})
	target := w.N("Echo")
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: target}, Bus: w.Connect(t), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("echo", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		// The caller's record is written; from now on its writes are refused.
		if err := admin.Do(ctx, "ACL", "SETUSER", "default", "-@write").Err(); err != nil {
			return nil, err
		}
		close(refused)
		return agent.TextResult("kept: " + task.Text()), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)

	core, logs := observer.New(zap.WarnLevel)
	c, err := caller.New(caller.Options{Name: w.N("Primary"), Bus: w.Connect(t), Memory: mem, SweepInterval: 50 * time.Millisecond, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c)
	inv, err := c.Invoke(ctx, caller.Request{Target: target, Skill: "echo", Text: "x", SessionID: "refused", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	<-refused
	testenv.Eventually(t, "the refused write logged", func() bool {
		return logs.FilterMessageSnippet("working memory failed").Len() > 0
	})
	if err := admin.Do(ctx, "ACL", "SETUSER", "default", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	out, err := c.Wait(ctx, inv.TaskID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Err() != nil || out.Result.Text() != "kept: x" || out.Result.Late {
		t.Fatalf("outcome %+v, %v; want the agent's result, not late", out.Result, out.Err())
	}
	if e := logs.FilterMessageSnippet("working memory failed").All()[0]; !strings.Contains(e.ContextMap()["error"].(string), "NOPERM") {
		t.Errorf("the retry's log does not name the server's refusal: %v", e.ContextMap())
	}
	turns, err := mem.Turns(ctx, "refused", 0, 0)
	if err != nil || len(turns) != 1 {
		t.Fatalf("turns %+v, %v; want one notification", turns, err)
	}
}
