// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// spans records the two latencies the benchmark measures.
type spans struct {
	mu        sync.Mutex
	toolCall  time.Time       // when the model's invoke_agent call came back
	published []time.Duration // model's tool call → task published (Invoke returned)
	woken     []time.Duration // notification appended → next model request sent
}

// timedModel is the model with clocks: it notes when an invoke_agent call
// comes back, and, for a request whose last message is a notification, how
// long after the notification's append it is sent.
type timedModel struct {
	inner llm.Client
	sp    *spans
}

func (m timedModel) Complete(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if last := req.Messages[len(req.Messages)-1]; last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "[Agent") {
		at := notifiedAt.Load(last.Content)
		m.sp.mu.Lock()
		m.sp.woken = append(m.sp.woken, time.Since(at))
		m.sp.mu.Unlock()
	}
	resp, err := m.inner.Complete(ctx, req)
	if err == nil && len(resp.Message.ToolCalls) > 0 && resp.Message.ToolCalls[0].Name == "invoke_agent" {
		m.sp.mu.Lock()
		m.sp.toolCall = time.Now()
		m.sp.mu.Unlock()
	}
	return resp, err
}

// notifiedAt maps a notification's text to its append time, read from the conversation.
var notifiedAt = &appendTimes{m: map[string]time.Time{}}

type appendTimes struct {
	mu sync.Mutex
	m  map[string]time.Time
}

func (a *appendTimes) Store(text string, at time.Time) { a.mu.Lock(); a.m[text] = at; a.mu.Unlock() }
func (a *appendTimes) Load(text string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m[text]
}

// timedCaller notes when the tools' invoke returned: the task is published.
type timedCaller struct {
	*caller.Caller
	sp *spans
}

func (c timedCaller) InvokeWatched(ctx context.Context, req caller.Request) (caller.Invocation, *caller.Watch, error) {
	inv, watch, err := c.Caller.InvokeWatched(ctx, req)
	c.sp.mu.Lock()
	c.sp.published = append(c.sp.published, time.Since(c.sp.toolCall))
	c.sp.mu.Unlock()
	return inv, watch, err
}

// BenchmarkLoopOverhead measures the loop's own latency on the real
// RabbitMQ and Redis with an instant scripted model and a real
// SampleAgent: the model's invoke_agent call → the task published, and a
// notification appended → the next model request sent. One op is one
// user turn: invoke, answer, notification, answer. The session changes
// every 25 ops, so the history stays at a realistic length.
func BenchmarkLoopOverhead(b *testing.B) {
	w := testworld.Real(b)
	name, primary := w.N("BenchSample"), w.N("BenchPrimary")
	d, err := directory.New(directory.Options{Bus: w.Connect(b), Exchange: w.Exchange})
	if err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, d)
	sampletest.Start(b, w.Connect(b), name, func(o *agent.Options) { o.Concurrency = 4 })
	c, err := caller.New(caller.Options{Name: primary, Bus: w.Connect(b), Memory: w.Memory})
	if err != nil {
		b.Fatal(err)
	}
	testworld.Start(b, c, caller.ErrClosed)
	testenv.Eventually(b, "the directory knows "+name, func() bool {
		_, err := d.Resolve(context.Background(), name, sample.SkillEcho)
		return err == nil
	})
	srv := llmtest.NewFunc(b, func(req llmtest.Request) llmtest.Reply {
		switch last := req.Last(); {
		case last.Role == "user" && strings.HasPrefix(last.Content, "[Agent"):
			return llmtest.Reply{Content: "done"}
		case last.Role == "user":
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": name, "skill": "echo", "message": last.Content})}}
		}
		return llmtest.Reply{Content: "asked"}
	})
	sp := &spans{}
	model := timedModel{inner: llmtest.Client(b, srv.URL, "scripted"), sp: sp}
	var s *chat.Session
	open := func(i int) {
		if s != nil {
			_ = s.Close()
		}
		s, err = chat.New(chat.Options{SessionID: fmt.Sprintf("bench-%s-%d", strings.ToLower(w.N("x")), i), Model: model,
			Caller: timedCaller{Caller: c, sp: sp}, Agents: tools.DirectoryLister{Directory: d}, Resolver: directory.PatientResolver{Directory: d, Wait: time.Second},
			Memory: w.Memory, OnEvent: func(ev chat.Event) {
				if ev.Kind == chat.EventTurn && ev.Turn.Meta[chat.MetaKind] == caller.KindNotification {
					notifiedAt.Store(ev.Turn.Content, ev.Turn.Time)
				}
			}})
		if err != nil {
			b.Fatal(err)
		}
		go func() { _ = s.Run(context.Background()) }()
	}
	b.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if i%25 == 0 {
			open(i)
		}
		turn, err := s.Send(ctx, fmt.Sprintf("echo %d", i), nil)
		if err != nil {
			b.Fatal(err)
		}
		st, err := s.Wait(ctx, turn.Seq)
		if err != nil || st.Err != nil || len(st.Answers) != 2 {
			b.Fatalf("op %d: %+v, %v", i, st, err)
		}
	}
	b.StopTimer()
	report(b, "publish", sp.published)
	report(b, "wake", sp.woken)
}

// report adds the p50 and p95 of ds, in microseconds.
func report(b *testing.B, what string, ds []time.Duration) {
	if len(ds) == 0 {
		b.Fatalf("no %s samples", what)
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), what+"-p50-µs")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds()), what+"-p95-µs")
}
