// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// An answer that picks an option by its id sends that id, as the agent
// spelled it, whatever the case it was given in; an option the question
// does not offer, or a text that names another, is INVALID_INPUT naming
// the options, and the task still waits (the right answer goes through).
func TestReplyPicksAnOption(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		var runs atomic.Int32
		release := make(chan struct{})
		w.agent(n("Books"), map[string]agent.Handler{
			"find": clerk(&runs),
			"free": func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
				if t.Turn() == 0 {
					return agent.Ask("what title?"), nil
				}
				select {
				case <-release:
					return agent.TextResult("got " + t.Text()), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
		})
		c := w.caller(n("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "find", Text: "x", SessionID: "s-o"}, nil)
		askedWhichEdition(t, out, err)
		id := out.TaskID

		if _, err := c.Reply(ctxT(t), Reply{TaskID: id, Option: "3"}); a2a.CodeOf(err) != a2a.CodeInvalidInput || !strings.Contains(err.Error(), "its options are: 1, 2") {
			t.Fatalf("an option the question does not offer: %v, want INVALID_INPUT listing 1, 2", err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: id, Option: "2", Text: "First"}); a2a.CodeOf(err) != a2a.CodeInvalidInput || !strings.Contains(err.Error(), `option "2"`) {
			t.Fatalf("an option with the text of another: %v, want INVALID_INPUT", err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: id, Option: "no such id!"}); !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("a malformed option id: %v, want ErrInvalidRequest", err)
		}
		final, err := c.Continue(ctxT(t), Reply{TaskID: id, Option: "2", Text: "second"}, nil)
		if err != nil || final.Result.Text() != "turn 1: x | which edition? | 2" {
			t.Fatalf("an option picked with its label as the text: %+v, %v; want the id sent", final, err)
		}

		free, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "free", Text: "x", SessionID: "s-o"}, nil)
		if err != nil || !free.WaitingForInput() {
			t.Fatalf("free = %+v, %v", free, err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: free.TaskID, Option: "1"}); a2a.CodeOf(err) != a2a.CodeInvalidInput || !strings.Contains(err.Error(), "offers no options") {
			t.Fatalf("an option to a question without options: %v, want INVALID_INPUT", err)
		}
		inv, watch, err := c.ReplyWatched(ctxT(t), Reply{TaskID: free.TaskID, Text: "Dune"})
		if err != nil {
			t.Fatal(err)
		}
		defer watch.Close()
		if inv.Turn != 1 || watch.Invocation() != inv {
			t.Fatalf("ReplyWatched = %+v, watch %+v", inv, watch.Invocation())
		}
		info, err := c.Task(ctxT(t), free.TaskID)
		if err != nil || info.Turn != 1 || !info.Pending || info.WaitingForInput() || !info.Deadline.Equal(inv.Deadline) {
			t.Fatalf("Task while the answer's turn runs = %+v, %v; want turn 1 running, due %s", info, err, inv.Deadline)
		}
		close(release)
		if got, err := watch.Wait(ctxT(t), nil); err != nil || got.Result.Text() != "got Dune" || got.Turn != 1 {
			t.Fatalf("the watched answer's turn ended %+v, %v", got, err)
		}
		if _, _, err := c.ReplyWatched(ctxT(t), Reply{TaskID: free.TaskID, Text: "again"}); a2a.CodeOf(err) != a2a.CodeTaskFinished {
			t.Fatalf("ReplyWatched to a finished task: %v, want TASK_FINISHED", err)
		}
	})
}
