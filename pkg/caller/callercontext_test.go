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

	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// contextReport answers with the caller context it got (role: text, …),
// whether it went by reference, and what the caller narrowed; on turn 0 of
// the skill "ask" it asks first, so that a later turn reports it too.
func contextReport(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	if t.Request.Skill == "ask" && t.Turn() == 0 {
		return agent.Ask("go on?"), nil
	}
	msgs, err := t.CallerContext(ctx)
	if err != nil {
		return nil, err
	}
	var said []string
	for _, m := range msgs {
		said = append(said, m.Role+": "+text.Cut(m.Text, 24)) // the answer must fit a small message limit
	}
	cc := t.Request.CallerContext
	how := "none"
	switch {
	case cc != nil && cc.Key != "":
		how = fmt.Sprintf("by reference (%d)", cc.Count)
	case cc != nil:
		how = fmt.Sprintf("inline (%d)", cc.Count)
	}
	return agent.TextResult(fmt.Sprintf("turn %d, %s [%s] tools=%v/%v budget=%d", t.Turn(), how, strings.Join(said, " | "),
		t.AllowsTool("invoke_agent"), t.AllowsTool("get_from_working_memory"), t.ContextTokens(4000))), nil
}

// converse appends turns to session: (role, text, age) each, oldest first;
// the role "notification" is a caller's notification turn.
func (w *world) converse(session string, now time.Time, turns ...struct {
	role, text string
	age        time.Duration
}) {
	w.t.Helper()
	for _, tt := range turns {
		turn := memory.Turn{Role: tt.role, Content: tt.text, Time: now.Add(-tt.age)}
		if tt.role == RoleNotification {
			turn.Role, turn.Meta = memory.RoleUser, map[string]string{MetaKind: KindNotification}
		}
		if _, err := w.mem.AppendTurn(context.Background(), session, turn); err != nil {
			w.t.Fatal(err)
		}
	}
}

type said = struct {
	role, text string
	age        time.Duration
}

// The part of the session's conversation the filter chooses travels with
// the task — by role, age, count and token budget — and so do the tools
// and budget the caller narrows; without a filter nothing travels.
func TestCallerContextTravelsWithTheTask(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Ctx"), map[string]agent.Handler{"report": contextReport})
		c := w.caller(n("Primary"), true)
		conversation := func() string { // a session of its own per call: each call's outcome is notified into it
			session := n("conv") + "-" + a2a.NewContextID()[:8]
			w.converse(session, time.Now(),
				said{"user", "an old question", 2 * time.Hour}, said{"assistant", "an old answer", 2 * time.Hour},
				said{"user", "the budget is 5k", time.Minute}, said{"tool", "a tool's output", time.Minute},
				said{"assistant", "noted", time.Minute}, said{RoleNotification, "SampleAgent answered", time.Minute},
				said{"user", "last", 0})
			return session
		}
		session := conversation()
		call := func(req Request) string {
			t.Helper()
			req.Target, req.Skill, req.Text, req.SessionID = n("Ctx"), "report", "go", conversation()
			out, err := c.Call(ctxT(t), req, nil)
			if err != nil || out.Err() != nil {
				t.Fatalf("call %+v: %+v, %v", req, out, err)
			}
			return out.Result.Text()
		}
		for _, tc := range []struct {
			name string
			req  Request
			want string
		}{
			{"no context", Request{SessionID: session},
				"turn 0, none [] tools=true/true budget=4000"},
			{"last 3 of the last hour, user and assistant", Request{SessionID: session, CallerContext: &ContextFilter{LastMessages: 3, MaxAge: time.Hour}},
				"turn 0, inline (3) [user: the budget is 5k | assistant: noted | user: last] tools=true/true budget=4000"},
			{"user and notification", Request{SessionID: session, CallerContext: &ContextFilter{Roles: []string{"user", RoleNotification}}},
				"turn 0, inline (4) [user: an old question | user: the budget is 5k | notification: SampleAgent answered | user: last] tools=true/true budget=4000"},
			{"a budget of 2 tokens, no tools", Request{SessionID: session, CallerContext: &ContextFilter{}, MaxContextTokens: 2, AllowedTools: []string{}},
				"turn 0, inline (1) [user: last] tools=false/false budget=2"},
			{"one tool, a budget above the agent's", Request{SessionID: session, AllowedTools: []string{"get_from_working_memory"}, MaxContextTokens: 9000},
				"turn 0, none [] tools=false/true budget=4000"},
		} {
			if got := call(tc.req); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
			}
		}
		for _, bad := range []Request{
			{CallerContext: &ContextFilter{}}, // a new session
			{SessionID: session, CallerContext: &ContextFilter{Roles: []string{"robot"}}},
			{SessionID: session, CallerContext: &ContextFilter{LastMessages: -1}},
			{SessionID: session, AllowedTools: []string{"no spaces"}},
			{SessionID: session, MaxContextTokens: -5},
		} {
			bad.Target, bad.Skill, bad.Text = n("Ctx"), "report", "go"
			if _, err := c.Invoke(ctxT(t), bad); !errors.Is(err, ErrInvalidRequest) {
				t.Errorf("%+v: %v, want ErrInvalidRequest", bad, err)
			}
		}
	})
}

// A caller context too large for the message limit goes to working memory
// and the request names its key: the agent reads it back whole, on the
// first turn and on a later one (which names the key again). An agent
// without working memory cannot read it: UNAVAILABLE.
func TestLargeCallerContextGoesByReference(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Ctx"), map[string]agent.Handler{"report": contextReport, "ask": contextReport}, func(o *agent.Options) { o.Memory = w.mem })
		w.agent(n("Amnesic"), map[string]agent.Handler{"report": contextReport})
		c := w.caller(n("Primary"), true, func(o *Options) { o.Codec = a2a.Codec{MaxBodyBytes: 4 << 10} })
		session := n("big")
		var turns []said
		for i := range 20 {
			turns = append(turns, said{"user", fmt.Sprintf("%02d %s", i, strings.Repeat("x", 300)), 0})
		}
		w.converse(session, time.Now(), turns...)
		req := Request{Target: n("Ctx"), Skill: "report", Text: "go", SessionID: session, CallerContext: &ContextFilter{}, MaxContextTokens: 100000}
		out, err := c.Call(ctxT(t), req, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("call: %+v, %v", out, err)
		}
		got := out.Result.Text()
		if !strings.HasPrefix(got, "turn 0, by reference (20) [user: 00 x") || strings.Count(got, "user: ") != 20 || !strings.Contains(got, "user: 19 x") {
			t.Fatalf("report = %q, want the 20 messages read by reference", got)
		}
		key, _ := memory.CallerContextKey(session, out.TaskID)
		if ttl, err := w.mem.TTL(context.Background(), key); err != nil || ttl <= 0 {
			t.Fatalf("the caller context at %q: ttl %v, %v; want it stored with a TTL", key, ttl, err)
		}
		// A later turn carries the reference again.
		req.Skill = "ask"
		asked, err := c.Call(ctxT(t), req, nil)
		if err != nil || !asked.WaitingForInput() {
			t.Fatalf("ask: %+v, %v", asked, err)
		}
		done, err := c.Continue(ctxT(t), Reply{TaskID: asked.TaskID, Text: "yes"}, nil)
		if err != nil || done.Err() != nil {
			t.Fatalf("answer: %+v, %v", done, err)
		}
		if got := done.Result.Text(); !strings.HasPrefix(got, "turn 1, by reference (20) [user: 00 x") || strings.Count(got, "user: ") != 20 {
			t.Fatalf("turn 1 = %q, want the 20 messages by reference", got)
		}
		req.Target, req.Skill = n("Amnesic"), "report"
		out, err = c.Call(ctxT(t), req, nil)
		var e *a2a.Error
		if err != nil || !errors.As(out.Err(), &e) || e.Code != a2a.CodeUnavailable || !strings.Contains(e.Message, "no working memory") {
			t.Fatalf("an agent without working memory: %+v, %v; want UNAVAILABLE", out.Err(), err)
		}
	})
}

// The filter is pure: same turns, same messages.
func TestFilterContext(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	turns := []memory.Turn{
		{Seq: 1, Role: "user", Content: "a", Time: now.Add(-time.Hour)},
		{Seq: 2, Role: "assistant", Content: "b", Time: now.Add(-time.Minute)},
		{Seq: 3, Role: "system", Content: "c", Time: now},
	}
	got := FilterContext(turns, ContextFilter{}, 0, now)
	if len(got) != 2 || got[0].Text != "a" || got[1].Role != "assistant" || !got[1].Time.Equal(now.Add(-time.Minute)) {
		t.Fatalf("default filter = %+v, want a and b", got)
	}
	if got := FilterContext(turns, ContextFilter{Roles: ContextRoles, MaxAge: 2 * time.Minute}, 0, now); len(got) != 2 || got[0].Text != "b" {
		t.Fatalf("two minutes of every role = %+v, want b and c", got)
	}
	if got := FilterContext(make([]memory.Turn, 300), ContextFilter{Roles: []string{""}}, 1<<20, now); len(got) != a2a.MaxCallerContextMessages {
		t.Fatalf("%d messages, want at most %d", len(got), a2a.MaxCallerContextMessages)
	}
}
