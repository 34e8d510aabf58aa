// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/console"
)

// benchConsole is a console over a directory of n well-known agents and mem.
func benchConsole(b *testing.B, n int, mem memory.Memory) http.Handler {
	b.Helper()
	agents := make([]directory.WellKnownAgent, n)
	for i := range agents {
		agents[i] = directory.WellKnownAgent{AgentName: fmt.Sprintf("Agent%05d", i), Description: "agent number " + fmt.Sprint(i),
			Skills: []directory.WellKnownSkill{{ID: "common", Name: "Common"}, {ID: fmt.Sprintf("skill%d", i%100), Name: "Own"}}}
	}
	bb := inproc.New(inproc.Options{})
	b.Cleanup(func() { _ = bb.Close() })
	d, err := directory.New(directory.Options{Bus: bb, WellKnown: agents, MaxAgents: n})
	if err != nil {
		b.Fatal(err)
	}
	c, err := console.New(console.Options{Directory: d, Memory: mem})
	if err != nil {
		b.Fatal(err)
	}
	return c.Handler()
}

// serve runs one request through h and checks the answer.
func serve(b *testing.B, h http.Handler, path, want string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
		b.Fatalf("GET %s: %d, no %q in %.500s", path, rec.Code, want, rec.Body.String())
	}
}

// BenchmarkAgentsPage: a page of the agents of a directory of 10,000
// (100 a page): the first, the last, and a query that keeps 10.
func BenchmarkAgentsPage(b *testing.B) {
	mem := testworld.Embedded(b).Memory
	h := benchConsole(b, 10_000, mem)
	for _, c := range []struct{ name, path, want string }{
		{"agents=10000/page=1", "/agents", "Agent00099"},
		{"agents=10000/page=100", "/agents?page=100", "Agent09999"},
		{"agents=10000/query-10", "/agents?q=Agent0004", "Agent00049"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				serve(b, h, c.path, c.want)
			}
		})
	}
}

// BenchmarkSessionPage: the page of a session of 1,000 tasks and 1,000
// conversation turns (100 tasks and the last 100 turns shown), and the
// page of one task with its stored result, on the embedded memory and on
// the real Redis.
func BenchmarkSessionPage(b *testing.B) {
	for _, kind := range []string{"embedded", "real"} {
		b.Run("memory="+kind, func(b *testing.B) {
			var w *testworld.World
			if kind == "real" {
				w = testworld.Real(b)
			} else {
				w = testworld.Embedded(b)
			}
			const session, tasks = "bench-session", 1000
			first := fillSession(b, w.Memory, session, tasks)
			h := benchConsole(b, 1, w.Memory)
			for _, c := range []struct{ name, path, want string }{
				{"tasks=1000/page=1", "/sessions/" + session, "task-0099"},
				{"tasks=1000/page=10", "/sessions/" + session + "?page=10", "task-0999"},
				{"tasks=1000/task", "/sessions/" + session + "/tasks/" + first, "result of task-0000"},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						serve(b, h, c.path, c.want)
					}
				})
			}
		})
	}
}

// fillSession writes n calls into session's history, with their results
// and notification turns, as the caller stores them; it returns the first task id.
func fillSession(b *testing.B, m memory.Memory, session string, n int) string {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now().Add(-time.Hour)
	for i := range n {
		id := fmt.Sprintf("task-%04d", i)
		created := start.Add(time.Duration(i) * time.Second)
		e := caller.HistoryEntry{Time: created.Add(200 * time.Millisecond), CreatedAt: created, TaskID: id, SessionID: session,
			Caller: "Alice", Target: "SampleAgent", Skill: "echo", Chain: []string{"Alice"}, Status: "SUCCESS", State: a2a.TaskStateCompleted, DurationMs: 200}
		res := caller.StoredResult{TaskID: id, Agent: "SampleAgent", Caller: "Alice", SessionID: session, Skill: "echo", State: a2a.TaskStateCompleted,
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "result of "+id), StoredAt: created}
		hk, err := memory.CallHistoryKey(session, id)
		if err != nil {
			b.Fatal(err)
		}
		rk, err := memory.ResultKey(session, "SampleAgent", id)
		if err != nil {
			b.Fatal(err)
		}
		for key, v := range map[string]any{hk: e, rk: res} {
			raw, err := json.Marshal(v)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Set(ctx, key, raw, time.Hour); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := m.AppendTurn(ctx, session, memory.Turn{Role: memory.RoleUser, Content: "[Agent 'SampleAgent' completed task " + id + "]",
			Meta: map[string]string{caller.MetaKind: caller.KindNotification, caller.MetaTaskID: id}}); err != nil {
			b.Fatal(err)
		}
	}
	return "task-0000"
}
