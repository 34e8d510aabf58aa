// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package chat_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/llmtest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/chat"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/tools"
)

// rig is a world with a real SampleAgent, a running directory and a
// caller for the primary loop.
type rig struct {
	w       *testworld.World
	sample  string // SampleAgent's name
	primary string // the caller's name
	dir     *directory.Directory
	caller  *caller.Caller
	session string
}

func newRig(t *testing.T, w *testworld.World) *rig {
	t.Helper()
	r := &rig{w: w, sample: w.N("Sample"), primary: w.N("Primary"), session: "chat-" + strings.ToLower(w.N("s")) + fmt.Sprint(time.Now().UnixNano()%1e6)}
	d, err := directory.New(directory.Options{Bus: w.Connect(t), Exchange: w.Exchange})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, d)
	r.dir = d
	sampletest.Start(t, w.Connect(t), r.sample, func(o *agent.Options) { o.Memory = w.Memory })
	r.caller = r.newCaller(t)
	testenv.Eventually(t, "the directory knows "+r.sample, func() bool {
		_, err := d.Resolve(context.Background(), r.sample, sample.SkillEcho)
		return err == nil
	})
	return r
}

// newCaller starts a replica of the primary's caller on its own connection.
func (r *rig) newCaller(t *testing.T) *caller.Caller {
	t.Helper()
	c, err := caller.New(caller.Options{Name: r.primary, Bus: r.w.Connect(t), Memory: r.w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, c, caller.ErrClosed)
	return c
}

// open builds and runs a session on the rig with the model at srv.
func (r *rig) open(t *testing.T, srv *llmtest.Server, c *caller.Caller, tune func(*chat.Options)) *chat.Session {
	t.Helper()
	opts := chat.Options{
		SessionID: r.session, Model: llmtest.Client(t, srv.URL, "scripted"), Caller: c,
		Agents: tools.DirectoryLister{Directory: r.dir}, Resolver: directory.PatientResolver{Directory: r.dir, Wait: 200 * time.Millisecond},
		Memory: r.w.Memory, Chat: config.ChatConfig{}, PollInterval: 50 * time.Millisecond,
	}
	if tune != nil {
		tune(&opts)
	}
	s, err := chat.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return s
}

// turns reads the conversation from memory.
func (r *rig) turns(t *testing.T) []memory.Turn {
	t.Helper()
	turns, err := r.w.Memory.Turns(context.Background(), r.session, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return turns
}

// kinds names each turn by its chat kind (or role).
func kinds(turns []memory.Turn) []string {
	out := make([]string, len(turns))
	for i, t := range turns {
		out[i] = t.Meta[chat.MetaKind]
		if out[i] == "" {
			out[i] = t.Role
		}
	}
	return out
}

var keyInNotification = regexp.MustCompile(`key '([^']+)'`)

// rockBot is the scripted model of seed 003's flow: list the agents, invoke
// echo on the SampleAgent, say so; on the notification, read the result
// and answer from it. It decides by what the request holds.
func rockBot(t *testing.T, agentName string) func(llmtest.Request) llmtest.Reply {
	return func(req llmtest.Request) llmtest.Reply {
		last := req.Last()
		switch {
		case last.Role == "user" && strings.HasPrefix(last.Content, "[Agent"):
			m := keyInNotification.FindStringSubmatch(last.Content)
			if m == nil {
				t.Errorf("notification without a key: %q", last.Content)
				return llmtest.Reply{Content: "no key"}
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("get_from_working_memory", map[string]string{"key": m[1]})}}
		case last.Role == "user":
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("list_known_agents", map[string]any{})}}
		case last.Role == "tool" && strings.Contains(last.Content, `"agents"`):
			if !strings.Contains(last.Content, agentName) {
				t.Errorf("list_known_agents does not list %s: %s", agentName, last.Content)
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{llmtest.Call("invoke_agent", map[string]any{"agent_name": agentName, "skill": "echo", "message": "hello bus"})}}
		case last.Role == "tool" && strings.Contains(last.Content, `"taskId"`) && strings.Contains(last.Content, `"memoryKey"`) && !strings.Contains(last.Content, `"state"`):
			return llmtest.Reply{Content: "I asked " + agentName + "; I will tell you when it answers."}
		case last.Role == "tool":
			return llmtest.Reply{Content: "The agent answered: " + echoText(last.Content)}
		}
		t.Errorf("unexpected request; last message %+v", last)
		return llmtest.Reply{Content: "?"}
	}
}

// echoText pulls the echoed text out of a stored result.
func echoText(result string) string {
	if strings.Contains(result, "hello bus") {
		return "hello bus"
	}
	return "(nothing)"
}
