// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// contextEcho answers with the context's history it was given.
func contextEcho(_ context.Context, t *agent.Task) (*agent.Result, error) {
	var said []string
	for _, m := range t.ContextHistory() {
		said = append(said, a2a.MessageText(m))
	}
	return agent.TextResult(fmt.Sprintf("%s [%s]", t.Text(), strings.Join(said, " | "))), nil
}

// Every invoke gets a context (a new one when none is given); the next
// task of the context sees the request and the answer of the earlier ones,
// at most MaxContextMessages of them with a marker for the rest; another
// context, or the same id in another session, sees nothing.
func TestContextHistory(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Echo"), map[string]agent.Handler{"echo": contextEcho})
		c := w.caller(n("Primary"), true, func(o *Options) { o.MaxContextMessages = 4 })
		call := func(text, ctxID, session string) *Outcome {
			t.Helper()
			out, err := c.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: text, ContextID: ctxID, SessionID: session}, nil)
			if err != nil || out.Err() != nil {
				t.Fatalf("call %q: %+v, %v", text, out, err)
			}
			return out
		}
		first := call("one", "", "s-ctx")
		if err := a2a.ValidateContextID(first.ContextID); err != nil {
			t.Fatalf("the new context id %q: %v", first.ContextID, err)
		}
		if got := first.Result.Text(); got != "one []" {
			t.Fatalf("first = %q", got)
		}
		second := call("two", first.ContextID, "s-ctx")
		if got := second.Result.Text(); got != "two [one | one []]" || second.ContextID != first.ContextID {
			t.Fatalf("second = %q in %q", got, second.ContextID)
		}
		if third := call("three", first.ContextID, "s-ctx").Result.Text(); third != "three [one | one [] | two | two [one | one []]]" {
			t.Fatalf("third = %q, want the 4 messages of the first two", third)
		}
		fourth := call("four", first.ContextID, "s-ctx").Result.Text()
		if !strings.HasPrefix(fourth, "four [[3 earlier messages of this context were left out] | two [one | one []] | three | three [") {
			t.Fatalf("fourth = %q, want the last 3 messages after a marker", fourth)
		}
		if got := call("alone", "", "s-ctx").Result.Text(); got != "alone []" {
			t.Fatalf("a new context = %q, want no history", got)
		}
		if got := call("elsewhere", first.ContextID, "s-other").Result.Text(); got != "elsewhere []" {
			t.Fatalf("the context id in another session = %q, want no history", got)
		}
		if _, err := c.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "x", ContextID: "a/b"}); !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("a bad context id: %v, want ErrInvalidRequest", err)
		}
	})
}

// A request that carries more history than the message limit takes leaves
// out the oldest messages, the context's first, with a marker in their place.
func TestRequestHistoryFitsTheMessageLimit(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	c := w.caller("Primary", false, func(o *Options) { o.Codec = a2a.Codec{MaxBodyBytes: 4 << 10} })
	long := strings.Repeat("x", 300)
	msgs := func(k int) []*a2a.Message {
		var out []*a2a.Message
		for i := range k {
			out = append(out, a2a.NewTextMessage(a2a.MessageRoleUser, fmt.Sprintf("%d %s", i, long)))
		}
		return out
	}
	tr := &a2a.TaskRequest{TaskID: "t-1", SessionID: "s", Caller: "Primary", Target: "Echo", Skill: "echo", Turn: 3,
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, "now"), Deadline: time.Now().Add(time.Minute),
		History: msgs(8), ContextHistory: msgs(8)}
	env, spilled, err := c.encodeRequest(tr, a2a.Trace{})
	if err != nil || spilled != nil {
		t.Fatal(err, spilled)
	}
	if len(env.Body) > 4<<10 {
		t.Fatalf("body of %d bytes", len(env.Body))
	}
	back, err := a2a.Codec{MaxBodyBytes: 4 << 10}.Decode(env)
	if err != nil {
		t.Fatal(err)
	}
	got := back.(*a2a.TaskRequest)
	if n := omitted(got.ContextHistory[0]); n == 0 || !strings.Contains(a2a.MessageText(got.ContextHistory[0]), "of this context were left out") {
		t.Fatalf("context history %v: want a marker first", got.ContextHistory)
	}
	if last := got.History[len(got.History)-1]; !strings.HasPrefix(a2a.MessageText(last), "7 ") {
		t.Fatalf("the newest message of the task was dropped: %q", a2a.MessageText(last))
	}
	tr.Message = a2a.NewTextMessage(a2a.MessageRoleUser, strings.Repeat("y", 5<<10))
	if _, _, err := c.encodeRequest(tr, a2a.Trace{}); !errors.Is(err, a2a.ErrTooLarge) {
		t.Fatalf("a message alone over the limit: %v, want ErrTooLarge", err)
	}
}

func TestBoundHistory(t *testing.T) {
	msg := func(s string) *a2a.Message { return a2a.NewTextMessage(a2a.MessageRoleUser, s) }
	texts := func(ms []*a2a.Message) string {
		var out []string
		for _, m := range ms {
			if k := omitted(m); k > 0 {
				out = append(out, fmt.Sprintf("<%d>", k))
				continue
			}
			out = append(out, a2a.MessageText(m))
		}
		return strings.Join(out, " ")
	}
	five := []*a2a.Message{msg("a"), msg("b"), msg("c"), msg("d"), msg("e")}
	for _, tc := range []struct {
		in    []*a2a.Message
		limit int
		want  string
	}{
		{five, 5, "a b c d e"},
		{five, 3, "<3> d e"},
		{five, 1, "<5>"},
		{five, 0, ""},
		{boundHistory(five, 3, "task"), 2, "<4> e"},
		{append(boundHistory(five, 3, "task"), msg("f")), 3, "<4> e f"},
	} {
		if got := texts(boundHistory(tc.in, tc.limit, "task")); got != tc.want {
			t.Errorf("boundHistory(%s, %d) = %q, want %q", texts(tc.in), tc.limit, got, tc.want)
		}
	}
	if texts(five) != "a b c d e" {
		t.Errorf("boundHistory changed its input: %s", texts(five))
	}
}
