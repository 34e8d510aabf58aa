// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// checkSteps fails unless every assistant tool-call turn is followed by
// exactly its results (possibly with other turns in between) — the
// conversation is never half-written.
func checkSteps(t *testing.T, turns []memory.Turn) {
	t.Helper()
	results := map[string]int{}
	for _, tr := range turns {
		if tr.Meta[chat.MetaKind] == chat.KindToolResult {
			results[tr.Meta[chat.MetaToolCallID]]++
		}
	}
	calls := 0
	for _, tr := range turns {
		if tr.Meta[chat.MetaKind] != chat.KindToolCalls {
			continue
		}
		for _, id := range toolCallIDs(t, tr) {
			calls++
			if results[id] != 1 {
				t.Errorf("call %s of turn %d has %d results", id, tr.Seq, results[id])
			}
		}
	}
	if n := len(results); n != calls {
		t.Errorf("%d tool results for %d calls", n, calls)
	}
}

func toolCallIDs(t *testing.T, tr memory.Turn) []string {
	t.Helper()
	var ids []string
	for _, part := range strings.Split(tr.Meta[chat.MetaToolCalls], `"id":"`)[1:] {
		ids = append(ids, part[:strings.IndexByte(part, '"')])
	}
	if len(ids) == 0 {
		t.Errorf("tool-call turn %d names no call: %q", tr.Seq, tr.Meta[chat.MetaToolCalls])
	}
	return ids
}

// TestRockBotDialogue plays seed 003's flow on both buses: the user asks,
// the model lists the agents and invokes the SampleAgent, says so; the
// notification wakes the loop without the user typing; the model reads
// the result from working memory and answers from it.
func TestRockBotDialogue(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		srv := llmtest.NewFunc(t, rockBot(t, r.sample))
		s := r.open(t, srv, r.caller, nil)
		user, err := s.Send(ctx, "please echo 'hello bus' through an agent", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if settled.Err != nil || len(settled.Answers) != 2 || len(settled.Notifications) != 1 {
			t.Fatalf("settled %+v", settled)
		}
		if got := settled.Answers[1].Content; got != "The agent answered: hello bus" {
			t.Fatalf("final answer %q", got)
		}
		turns := r.turns(t)
		checkSteps(t, turns)
		// The echo may answer before the step that invoked it, or the first
		// answer, is stored: the notification lands anywhere after the listing.
		want := []string{chat.KindUser, chat.KindToolCalls, chat.KindToolResult, chat.KindToolCalls, chat.KindToolResult,
			chat.KindAnswer, chat.KindToolCalls, chat.KindToolResult, chat.KindAnswer}
		got := kinds(turns)
		at := slices.Index(got, caller.KindNotification)
		if at < 3 || !slices.Equal(slices.Delete(slices.Clone(got), at, at+1), want) {
			t.Fatalf("conversation kinds %v, want %v with a notification after the listing", got, want)
		}
		reqs := srv.Requests()
		if len(reqs) != 5 {
			t.Fatalf("%d model requests, want 5", len(reqs))
		}
		// The run woken by the notification sees it after the first answer.
		wake := reqs[3].Messages
		if n := len(wake); wake[n-1].Role != "user" || !strings.HasPrefix(wake[n-1].Content, "[Agent '"+r.sample+"' completed") ||
			wake[n-2].Role != "assistant" || !strings.HasPrefix(wake[n-2].Content, "I asked") {
			t.Fatalf("the woken run's history ends with %+v", wake[max(0, n-3):])
		}
		if wake[0].Role != "system" || !strings.Contains(wake[0].Content, "get_from_working_memory") {
			t.Fatalf("system prompt %q", wake[0].Content)
		}
		if tl := reqs[0].Tools; !slices.Contains(tl, "invoke_agent") || !slices.Contains(tl, "list_known_agents") || !slices.Contains(tl, "get_from_working_memory") {
			t.Fatalf("tools offered %v", reqs[0].Tools)
		}
		if len(s.Pending()) != 0 {
			t.Fatalf("pending %v", s.Pending())
		}
	})
}

// TestToolErrorsGoBackToTheModel: an unknown agent and invalid arguments
// come back to the model as tool results it can act on, not failures.
func TestToolErrorsGoBackToTheModel(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		srv := llmtest.New(t,
			llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": "NoSuchAgent", "skill": "echo", "message": "hi"})}},
			llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": r.sample, "skill": "echo"}),
				llmtest.Call("invoke_agent", `{"agent_name": `)}, Expect: lastToolHas("AGENT_NOT_FOUND")},
			llmtest.Reply{Content: "I could not reach an agent.", Expect: func(req llmtest.Request) error {
				n := len(req.Messages)
				if !strings.Contains(req.Messages[n-2].Content, "INVALID_ARGUMENTS") || !strings.Contains(req.Messages[n-2].Content, "message") {
					return errors.New("missing message not reported: " + req.Messages[n-2].Content)
				}
				return lastToolHas("INVALID_ARGUMENTS")(req)
			}},
		)
		s := r.open(t, srv, r.caller, nil)
		user, err := s.Send(ctx, "call someone", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user.Seq)
		if err != nil || settled.Err != nil || len(settled.Answers) != 1 || settled.Answers[0].Content != "I could not reach an agent." {
			t.Fatalf("settled %+v, %v", settled, err)
		}
		turns := r.turns(t)
		checkSteps(t, turns)
		failed := 0
		for _, tr := range turns {
			if tr.Meta[chat.MetaToolError] == "true" {
				failed++
			}
			if tr.Meta[chat.MetaStartedTask] != "" {
				t.Fatalf("a refused call started a task: %+v", tr)
			}
		}
		if failed != 3 {
			t.Fatalf("%d failed tool turns, want 3: %v", failed, kinds(turns))
		}
	})
}

func lastToolHas(s string) func(llmtest.Request) error {
	return func(req llmtest.Request) error {
		if last := req.Last(); last.Role != "tool" || !strings.Contains(last.Content, s) {
			return errors.New("last message is not a tool result with " + s + ": " + last.Content)
		}
		return nil
	}
}

// TestModelDown: a model that cannot be reached gives one clear KindError
// turn; a model that fails mid-turn leaves its finished steps whole.
func TestModelDown(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		srv := llmtest.New(t,
			llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", map[string]any{})}},
			llmtest.Reply{Status: 503},
		)
		s := r.open(t, srv, r.caller, nil)
		user, err := s.Send(ctx, "list the agents", nil)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := s.WaitAnswer(ctx, user.Seq)
		var te *chat.TurnError
		if !errors.As(err, &te) || ans.Meta[chat.MetaErrorCode] != "model" || !strings.Contains(ans.Content, srv.URL) || !strings.Contains(ans.Content, "503") {
			t.Fatalf("answer %+v, %v", ans, err)
		}
		srv.Close()
		user2, err := s.Send(ctx, "again", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user2.Seq)
		if err != nil || !errors.As(settled.Err, &te) || !strings.Contains(te.Error(), "unavailable") {
			t.Fatalf("settled %+v, %v", settled, err)
		}
		turns := r.turns(t)
		checkSteps(t, turns)
		want := []string{chat.KindUser, chat.KindToolCalls, chat.KindToolResult, chat.KindError, chat.KindUser, chat.KindError}
		if got := kinds(turns); !slices.Equal(got, want) {
			t.Fatalf("kinds %v, want %v", got, want)
		}
	})
}

// TestNotificationRacesRunningTurn: a notification that lands while the
// model is still answering is queued and answered once, by the next run.
func TestNotificationRacesRunningTurn(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		play := rockBot(t, r.sample)
		srv := llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
			reply := play(req)
			if strings.HasPrefix(reply.Content, "I asked") {
				// Hold the answer until the notification is in the conversation.
				testenv.Eventually(t, "the notification lands while the model runs", func() bool {
					turns, _ := w.Memory.Turns(ctx, r.session, 0, 0)
					return slices.Contains(kinds(turns), caller.KindNotification)
				})
			}
			return reply
		})
		s := r.open(t, srv, r.caller, nil)
		user, err := s.Send(ctx, "echo please", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user.Seq)
		if err != nil || settled.Err != nil || len(settled.Answers) != 2 {
			t.Fatalf("settled %+v, %v", settled, err)
		}
		turns := r.turns(t)
		var note memory.Turn
		for _, tr := range turns {
			if tr.Meta[chat.MetaKind] == caller.KindNotification {
				note = tr
			}
		}
		first, second := settled.Answers[0], settled.Answers[1]
		if !(note.Seq < first.Seq) || first.Meta[chat.MetaHandledTo] != strconv.FormatInt(user.Seq, 10) {
			t.Fatalf("the notification (%d) did not race the first answer %+v", note.Seq, first)
		}
		if h, _ := strconv.ParseInt(second.Meta[chat.MetaHandledTo], 10, 64); h < first.Seq {
			t.Fatalf("second answer %+v does not handle the notification", second)
		}
		if n := len(srv.Requests()); n != 5 {
			t.Fatalf("%d requests, want 5: the notification answered once", n)
		}
	})
}

// TestTwoLoopsOneSession: two loops (two callers, replicas of one name)
// on one session answer every input exactly once.
func TestTwoLoopsOneSession(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		srv := llmtest.NewFunc(t, rockBot(t, r.sample))
		a := r.open(t, srv, r.caller, func(o *chat.Options) { o.Owner = "loop-a" })
		b := r.open(t, srv, r.newCaller(t), func(o *chat.Options) { o.Owner = "loop-b" })
		const rounds = 3
		for i := range rounds {
			sender := a
			if i%2 == 1 {
				sender = b
			}
			user, err := sender.Send(ctx, "echo round "+strconv.Itoa(i), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*chat.Session{a, b} {
				settled, err := s.Wait(ctx, user.Seq)
				if err != nil || settled.Err != nil || len(settled.Answers) != 2 {
					t.Fatalf("round %d: settled %+v, %v", i, settled, err)
				}
			}
		}
		turns := r.turns(t)
		checkSteps(t, turns)
		answers := 0
		for _, tr := range turns {
			if tr.Meta[chat.MetaKind] == chat.KindAnswer {
				answers++
			}
		}
		if answers != 2*rounds || len(srv.Requests()) != 5*rounds {
			t.Fatalf("%d answers and %d model requests for %d rounds: %v", answers, len(srv.Requests()), rounds, kinds(turns))
		}
	})
}

// TestBounds: too many tool rounds and a spent token budget end the run
// with a KindError turn; a spent budget never asks the model.
func TestBounds(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		list := func() llmtest.Reply {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", map[string]any{})}, Usage: llm.Usage{TotalTokens: 40}}
		}
		srv := llmtest.New(t, list(), list(), list())
		s := r.open(t, srv, r.caller, func(o *chat.Options) { o.Chat.MaxToolRounds = 2; o.Chat.TokenBudget = 100 })
		user, err := s.Send(ctx, "loop", nil)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := s.WaitAnswer(ctx, user.Seq)
		if te := (*chat.TurnError)(nil); !errors.As(err, &te) || ans.Meta[chat.MetaErrorCode] != "tool_rounds" || !strings.Contains(ans.Content, "too many tool rounds") {
			t.Fatalf("answer %+v, %v", ans, err)
		}
		user2, err := s.Send(ctx, "more", nil)
		if err != nil {
			t.Fatal(err)
		}
		ans, _ = s.WaitAnswer(ctx, user2.Seq)
		if ans.Meta[chat.MetaErrorCode] != "budget" || !strings.Contains(ans.Content, "120 tokens of its budget of 100") {
			t.Fatalf("answer %+v", ans)
		}
		if n := len(srv.Requests()); n != 3 {
			t.Fatalf("%d requests, want 3 (none once the budget is spent)", n)
		}
		checkSteps(t, r.turns(t))
	})
}

func TestNewRefusesBadOptions(t *testing.T) {
	w := testworld.Embedded(t)
	c, err := caller.New(caller.Options{Name: "P", Bus: w.Connect(t), Memory: w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	good := func() chat.Options {
		return chat.Options{SessionID: "s1", Model: llmtest.Client(t, srv.URL, "scripted"), Caller: c, Agents: emptyLister{}, Memory: w.Memory}
	}
	cases := map[string]func(*chat.Options){
		"Agents, Model required": func(o *chat.Options) { o.Model, o.Agents = nil, nil },
		"session id":             func(o *chat.Options) { o.SessionID = "../x" },
		"chat.token_budget":      func(o *chat.Options) { o.Chat.TokenBudget = -1 },
		"negative duration":      func(o *chat.Options) { o.LeaseTTL = -time.Second },
	}
	for want, tune := range cases {
		o := good()
		tune(&o)
		if _, err := chat.New(o); !errors.Is(err, chat.ErrInvalidOptions) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
	s, err := chat.New(good())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(context.Background(), "  ", nil); !errors.Is(err, chat.ErrEmptyMessage) {
		t.Fatalf("empty message: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); !errors.Is(err, chat.ErrClosed) {
		t.Fatalf("Run after Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

type emptyLister struct{}

func (emptyLister) ListAgents(string, string) []tools.AgentInfo { return nil }

// TestStatusUpdatesReachTheFrontEnd: the progress of a sub-task this
// process started is reported as EventStatus, never put into the model's context.
func TestStatusUpdatesReachTheFrontEnd(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx := timeout(t)
		r := newRig(t, w)
		srv := llmtest.NewFunc(t, func(req llmtest.Request) llmtest.Reply {
			switch last := req.Last(); {
			case last.Role == "user" && !strings.HasPrefix(last.Content, "[Agent"):
				return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": r.sample, "skill": "sleep", "message": "1200"})}}
			case last.Role == "user":
				return llmtest.Reply{Content: "it slept"}
			}
			return llmtest.Reply{Content: "sleeping"}
		})
		var mu sync.Mutex
		var progress []string
		s := r.open(t, srv, r.caller, func(o *chat.Options) {
			o.OnEvent = func(ev chat.Event) {
				if ev.Kind == chat.EventStatus {
					mu.Lock()
					progress = append(progress, ev.Status.Agent+": "+a2a.MessageText(ev.Status.Message))
					mu.Unlock()
				}
			}
		})
		user, err := s.Send(ctx, "sleep a while", nil)
		if err != nil {
			t.Fatal(err)
		}
		settled, err := s.Wait(ctx, user.Seq)
		if err != nil || settled.Err != nil || len(settled.Answers) != 2 {
			t.Fatalf("settled %+v, %v", settled, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.ContainsFunc(progress, func(p string) bool { return strings.HasPrefix(p, r.sample+": slept ") }) {
			t.Fatalf("status events %q", progress)
		}
		for _, req := range srv.Requests() {
			for _, m := range req.Messages {
				if strings.Contains(m.Content, "slept ") && !strings.Contains(m.Content, "slept 1.2s") {
					t.Fatalf("a status update reached the model: %q", m.Content)
				}
			}
		}
	})
}
