// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/tools"
)

func TestInvokeAgentResolvesAndInvokes(t *testing.T) {
	f := newFixture(t, fakeResolver{"Echo": {"echo", "shout"}})
	got, err := f.call(t, "invoke_agent",
		`{"agent_name":"echo","skill":"shout","message":"hi there","input":{"n":1},"timeout_seconds":30.0,"priority":"high"}`)
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.inv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d invocations, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Target != "Echo" || r.Skill != "shout" || r.Text != "hi there" || string(r.Input) != `{"n":1}` ||
		r.SessionID != session || r.Timeout != 30*time.Second || r.Priority != a2a.PriorityHigh {
		t.Fatalf("request %+v: want the canonical target Echo, the session, 30s, high priority and the input", r)
	}
	res, ok := got.(map[string]any)
	if !ok {
		t.Fatalf("result %v is not an object", got)
	}
	keys := slices.Sorted(maps.Keys(res))
	if !slices.Equal(keys, []string{"memoryKey", "note", "status", "taskId"}) {
		t.Fatalf("result keys %v", keys)
	}
	key := "session/s1/a2a/Echo/task-1/result"
	if res["taskId"] != "task-1" || res["memoryKey"] != key || res["status"] != tools.StatusSubmitted {
		t.Fatalf("result %v", res)
	}
	note, _ := res["note"].(string)
	if !strings.Contains(note, "get_from_working_memory") || !strings.Contains(note, "'"+key+"'") || !strings.Contains(note, "notification") {
		t.Fatalf("note %q does not say how the result comes back", note)
	}
}

func TestInvokeAgentDefaults(t *testing.T) {
	f := newFixture(t, nil) // no resolver: the name goes as given
	cases := []struct {
		args    string
		timeout time.Duration
		input   string
	}{
		{`{"agent_name":"echo","skill":"echo","message":"hi"}`, 0, ""},
		{`{"agent_name":"echo","skill":"echo","message":"hi","input":null,"timeout_seconds":3e2}`, 300 * time.Second, ""},
		{`{"agent_name":"echo","skill":"echo","message":"hi","input":"plain","timeout_seconds":1}`, time.Second, `"plain"`},
	}
	for i, c := range cases {
		if _, err := f.call(t, "invoke_agent", c.args); err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		r := f.inv.requests()[i]
		if r.Target != "echo" || r.Timeout != c.timeout || string(r.Input) != c.input || r.Priority != a2a.PriorityNormal {
			t.Errorf("%s: request %+v; want target echo, timeout %v, input %q, normal priority", c.args, r, c.timeout, c.input)
		}
	}
}

func TestInvokeAgentErrors(t *testing.T) {
	resolver := fakeResolver{"Echo": {"echo"}}
	cases := []struct {
		name, args string
		invokeErr  error
		code       string
		want       string
		invoked    bool
	}{
		{"unknown agent", `{"agent_name":"Ecoh","skill":"echo","message":"hi"}`, nil,
			"AGENT_NOT_FOUND", `invoke_agent: AGENT_NOT_FOUND: no agent named "Ecoh"`, false},
		{"unsupported skill", `{"agent_name":"ECHO","skill":"sing","message":"hi"}`, nil,
			"SKILL_NOT_SUPPORTED", `invoke_agent: SKILL_NOT_SUPPORTED: agent "Echo" has no skill "sing" (skills: echo)`, false},
		{"rejected request", `{"agent_name":"echo","skill":"echo","message":"hi"}`, fmt.Errorf("%w: text: too long", caller.ErrInvalidRequest),
			"INVALID_INPUT", `invoke_agent: invoke skill "echo" of "Echo": caller: invalid request: text: too long`, true},
		{"refused", `{"agent_name":"echo","skill":"echo","message":"hi"}`, a2a.NewError(a2a.CodeRateLimited, "slow down"),
			"RATE_LIMITED", `invoke_agent: invoke skill "echo" of "Echo": RATE_LIMITED: slow down`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, resolver)
			f.inv.err = c.invokeErr
			_, err := f.call(t, "invoke_agent", c.args)
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if errors.Is(err, tools.ErrInvalidArguments) {
				t.Fatalf("a failure of the call is reported as bad arguments: %v", err)
			}
			if c.invokeErr != nil && !errors.Is(err, c.invokeErr) {
				t.Fatalf("error %v does not wrap %v", err, c.invokeErr)
			}
			var out struct{ Error struct{ Code string } }
			if err := json.Unmarshal(tools.ErrorResult(err), &out); err != nil || out.Error.Code != c.code {
				t.Fatalf("ErrorResult code %q, want %q", out.Error.Code, c.code)
			}
			if got := len(f.inv.requests()) > 0; got != c.invoked {
				t.Fatalf("invoked = %v, want %v", got, c.invoked)
			}
		})
	}
}

// A task the bus did not confirm is reported with its id and key as
// "unconfirmed", not as an error: invoking it again could run it twice.
func TestInvokeAgentUnconfirmedIsNotAnError(t *testing.T) {
	f := newFixture(t, fakeResolver{"Echo": {"echo"}})
	f.inv.err = fmt.Errorf("publish: %w: %w", caller.ErrOutcomeUnknown, bus.ErrNotConfirmed)
	got, err := f.call(t, "invoke_agent", `{"agent_name":"echo","skill":"echo","message":"hi"}`)
	if err != nil {
		t.Fatalf("invoke_agent with the outcome unknown = %v, want a result", err)
	}
	m, _ := got.(map[string]any)
	if m["status"] != tools.StatusUnconfirmed || m["taskId"] != "task-1" || !strings.Contains(m["note"].(string), "Do not invoke it again") ||
		!strings.HasSuffix(m["memoryKey"].(string), "/task-1/result") {
		t.Fatalf("result = %v", got)
	}
}
