// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// TestTaskAndInvokeWatched: a watched task's first status update (sent as
// soon as the agent starts it) is seen, Task reports it pending then with
// its outcome, and an unknown or malformed id is ErrUnknownTask.
func TestTaskAndInvokeWatched(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		ctx := ctxT(t)
		release := make(chan struct{})
		w.agent(w.N("Slow"), map[string]agent.Handler{"slow": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
			if err := task.Progress(ctx, "started", 0); err != nil {
				return nil, err
			}
			<-release
			return agent.TextResult("ok"), nil
		}})
		c := w.caller(w.N("Primary"), true)

		inv, watch, err := c.InvokeWatched(ctx, Request{Target: w.N("Slow"), Skill: "slow", Text: "go", SessionID: "s-watch", Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer watch.Close()
		if watch.Invocation() != inv {
			t.Fatalf("watch of %+v, invoked %+v", watch.Invocation(), inv)
		}
		info, err := c.Task(ctx, inv.TaskID)
		if err != nil || !info.Pending || info.Result != nil || info.Expired() || info.SessionID != "s-watch" || info.MemoryKey != inv.MemoryKey {
			t.Fatalf("Task while running = %+v, %v", info, err)
		}
		var texts []string
		statuses := make(chan struct{}, 8)
		go func() {
			for range 2 { // "working", then "started"
				<-statuses
			}
			close(release)
		}()
		out, err := watch.Wait(ctx, func(st *a2a.TaskStatus) {
			texts = append(texts, string(st.State)+":"+a2a.MessageText(st.Message))
			statuses <- struct{}{}
		})
		if err != nil || out.Result.Text() != "ok" {
			t.Fatalf("Wait = %+v, %v", out, err)
		}
		if len(texts) < 2 || texts[0] != string(a2a.TaskStateWorking)+":" || texts[1] != string(a2a.TaskStateWorking)+":started" {
			t.Fatalf("status updates %v: the first ones slipped by", texts)
		}
		info, err = c.Task(ctx, inv.TaskID)
		if err != nil || info.Pending || info.Result == nil || info.Result.Text() != "ok" {
			t.Fatalf("Task after the outcome = %+v, %v", info, err)
		}
		// Waiting again returns the stored outcome at once.
		if again, err := watch.Wait(ctx, nil); err != nil || again.Result.Text() != "ok" {
			t.Fatalf("second Wait = %+v, %v", again, err)
		}
		for _, id := range []string{"no-such-task", "a/b", ""} {
			if _, err := c.Task(ctx, id); !errors.Is(err, ErrUnknownTask) {
				t.Errorf("Task(%q) = %v, want ErrUnknownTask", id, err)
			}
		}
	})
}

// A refused InvokeWatched leaves no watch behind.
func TestInvokeWatchedRefused(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	c := w.caller("Primary", false)
	_, watch, err := c.InvokeWatched(context.Background(), Request{Target: "Echo", Skill: "echo", Text: ""})
	if !errors.Is(err, ErrInvalidRequest) || watch != nil {
		t.Fatalf("InvokeWatched(no text) = %v, %v", watch, err)
	}
	c.waiters.mu.Lock()
	n := len(c.waiters.byID)
	c.waiters.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d waiters left after a refused call", n)
	}
	_ = c.Close()
	if _, _, err := c.InvokeWatched(context.Background(), Request{Target: "Echo", Skill: "echo", Text: "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("InvokeWatched after Close = %v", err)
	}
}
