// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/mcpserver"
	"github.com/a2abus/a2abus/pkg/tools"
)

// TestToolsAreTheSet: every tool of the set is an MCP tool with the set's
// own name, description and schema — nothing is defined twice.
func TestToolsAreTheSet(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{})
	c := connect(t, m.server, latest)
	listed, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	deps := m.deps
	deps.SessionID = "s1"
	set, err := tools.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	want := set.Tools()
	if len(listed.Tools) != len(want) {
		t.Fatalf("listed %d tools, the set has %d", len(listed.Tools), len(want))
	}
	for _, wt := range want {
		i := slices.IndexFunc(listed.Tools, func(lt *mcp.Tool) bool { return lt.Name == wt.Name })
		if i < 0 {
			t.Fatalf("tool %s is not listed", wt.Name)
		}
		lt := listed.Tools[i]
		got, err := json.Marshal(lt.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if lt.Description != wt.Description || !jsonEqual(t, got, wt.Parameters) {
			t.Errorf("tool %s listed as %q %s, the set has %q %s", wt.Name, lt.Description, got, wt.Description, wt.Parameters)
		}
	}
}

// TestInvokeReadAndSubscribe: an MCP client lists SampleAgent, invokes it,
// subscribes to the result resource before it lands, is notified when it
// does and reads it — on the embedded and on the real bus and memory.
func TestInvokeReadAndSubscribe(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := newMesh(t, w, mcpserver.Options{})
		for _, protocol := range []string{latest, legacy} {
			invokeReadAndSubscribe(t, m, connect(t, m.server, protocol))
		}
	})
}

func invokeReadAndSubscribe(t *testing.T, m *mesh, c *client) {
	t.Helper()
	var listed tools.AgentList
	testenv.Eventually(t, "SampleAgent listed", func() bool {
		text, isErr, _ := c.call(t, "list_known_agents", map[string]any{"query": m.agent})
		return !isErr && json.Unmarshal([]byte(text), &listed) == nil && len(listed.Agents) == 1
	})
	if listed.Agents[0].Name != m.agent || !slices.ContainsFunc(listed.Agents[0].Skills, func(s tools.SkillInfo) bool { return s.ID == "sleep" }) {
		t.Fatalf("list_known_agents = %+v", listed)
	}

	text, isErr, res := c.call(t, "invoke_agent", map[string]any{"agent_name": m.agent, "skill": "sleep", "message": "700"})
	if isErr {
		t.Fatalf("invoke_agent failed: %s", text)
	}
	var inv tools.InvokeResult
	if err := json.Unmarshal([]byte(text), &inv); err != nil || inv.Status != tools.StatusSubmitted {
		t.Fatalf("invoke_agent = %s (%v)", text, err)
	}
	uri := mcpserver.ResultURI(inv.MemoryKey)
	if len(res.Content) != 2 {
		t.Fatalf("invoke_agent content %d items, want the JSON and a link to %s", len(res.Content), uri)
	}
	if link, ok := res.Content[1].(*mcp.ResourceLink); !ok || link.URI != uri {
		t.Fatalf("invoke_agent second content %#v, want a link to %s", res.Content[1], uri)
	}
	if sc, err := json.Marshal(res.StructuredContent); err != nil || !jsonEqual(t, sc, []byte(text)) {
		t.Errorf("structured content %s, want the text %s", sc, text)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); !c.isResourceNotFound(err) && !slices.Contains(c.updates(), uri) {
		t.Fatalf("read before the result landed: %v, want resource not found", err)
	}
	testenv.Eventually(t, "resources/updated for "+uri, func() bool { return slices.Contains(c.updates(), uri) })

	read, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	var stored caller.StoredResult
	if len(read.Contents) != 1 || json.Unmarshal([]byte(read.Contents[0].Text), &stored) != nil {
		t.Fatalf("read %s = %+v", uri, read.Contents)
	}
	if stored.TaskID != inv.TaskID || stored.State != a2a.TaskStateCompleted || a2a.MessageText(stored.Message) != "slept 700ms" ||
		read.Contents[0].MIMEType != "application/json" {
		t.Fatalf("result resource = %s", read.Contents[0].Text)
	}
	// The tool reads the same bytes as the resource.
	got, isErr, _ := c.call(t, "get_from_working_memory", map[string]any{"key": inv.MemoryKey})
	if isErr || !jsonEqual(t, []byte(got), []byte(read.Contents[0].Text)) {
		t.Fatalf("get_from_working_memory = %s, resource = %s", got, read.Contents[0].Text)
	}
}

// TestSubscribeAfterTheResultLanded: a subscription to a result already
// stored is notified too (the conversation is replayed from its start).
func TestSubscribeAfterTheResultLanded(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{SessionID: "fixed-" + strings.ToLower(t.Name())})
	c := connect(t, m.server, latest)
	text, isErr, _ := c.call(t, "invoke_agent", map[string]any{"agent_name": m.agent, "skill": "echo", "message": "hi"})
	if isErr {
		t.Fatal(text)
	}
	var inv tools.InvokeResult
	if err := json.Unmarshal([]byte(text), &inv); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the result stored", func() bool {
		_, err := m.w.Memory.Get(context.Background(), inv.MemoryKey)
		return err == nil
	})
	uri := mcpserver.ResultURI(inv.MemoryKey)
	if err := c.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "resources/updated for "+uri, func() bool { return slices.Contains(c.updates(), uri) })
	if !strings.HasPrefix(inv.MemoryKey, "session/fixed-") {
		t.Errorf("memory key %s is not in the --session given", inv.MemoryKey)
	}
}

// TestErrorsAreToolErrors: a failed call is an isError result whose text
// is exactly tools.ErrorResult of the error the set returns for the same
// call, so MCP hosts see the codes the chat loop and the CLI use.
func TestErrorsAreToolErrors(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := newMesh(t, w, mcpserver.Options{SessionID: "errs-" + strings.ToLower(w.N("s"))})
		c := connect(t, m.server, latest)
		deps := m.deps
		deps.SessionID = "errs-" + strings.ToLower(w.N("s"))
		set, err := tools.New(deps)
		if err != nil {
			t.Fatal(err)
		}
		other := "session/other/a2a/X/t1/result"
		for _, tc := range []struct {
			tool, args, code string
		}{
			{"invoke_agent", `{"agent_name":"bad name","skill":"echo","message":"x"}`, tools.CodeInvalidArguments},
			{"invoke_agent", `{"agent_name":"` + m.agent + `","skill":"echo","message":"x","surprise":1}`, tools.CodeInvalidArguments},
			{"get_from_working_memory", `{"key":"` + other + `"}`, tools.CodeInvalidArguments},
			{"get_from_working_memory", `{"key":"session/` + deps.SessionID + `/a2a/X/t1/result"}`, tools.CodeNotFound},
			{"list_known_agents", `{"limit":1000}`, tools.CodeInvalidArguments},
		} {
			text, isErr, res := c.call(t, tc.tool, json.RawMessage(tc.args))
			if !isErr {
				t.Errorf("%s %s: not an error: %s", tc.tool, tc.args, text)
				continue
			}
			if code := errorCode(t, text); code != tc.code {
				t.Errorf("%s %s: code %s, want %s (%s)", tc.tool, tc.args, code, tc.code, text)
			}
			_, want := set.Dispatch(context.Background(), tc.tool, json.RawMessage(tc.args))
			if !bytes.Equal([]byte(text), tools.ErrorResult(want)) {
				t.Errorf("%s %s:\n MCP  %s\n chat %s", tc.tool, tc.args, text, tools.ErrorResult(want))
			}
			if sc, _ := json.Marshal(res.StructuredContent); !jsonEqual(t, sc, []byte(text)) {
				t.Errorf("%s: structured content %s, want %s", tc.tool, sc, text)
			}
		}
		// An agent nobody runs is refused by the directory, as an error result.
		text, isErr, _ := c.call(t, "invoke_agent", map[string]any{"agent_name": w.N("Nobody"), "skill": "echo", "message": "x"})
		if !isErr || errorCode(t, text) == "" {
			t.Errorf("invoke_agent on an unknown agent: %s", text)
		}
	})
}

// TestResourcesOfOtherSessionsAreNotServed: a session reads and subscribes
// only to its own results.
func TestResourcesOfOtherSessionsAreNotServed(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{SessionID: "mine"})
	c := connect(t, m.server, legacy) // the latest protocol's client does not report a refused subscription
	ctx := context.Background()
	key := "session/theirs/a2a/Agent/t1/result"
	if err := m.w.Memory.Set(ctx, key, []byte(`{"secret":true}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ResultURI(key)}); !c.isResourceNotFound(err) {
		t.Errorf("read of another session's result: %v, want resource not found", err)
	}
	for _, uri := range []string{mcpserver.ResultURI(key), "a2a://session/mine/notes", "file:///etc/passwd"} {
		err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("subscribe %s: %v, want invalid params", uri, err)
		}
	}
}

func TestResultKey(t *testing.T) {
	key := "session/s1/a2a/SampleAgent/task-1/result"
	if got, err := mcpserver.ResultKey(mcpserver.ResultURI(key)); err != nil || got != key {
		t.Fatalf("ResultKey(ResultURI(%q)) = %q, %v", key, got, err)
	}
	for _, bad := range []string{
		"", "a2a://", "http://session/s1/a2a/A/t/result", "a2a://session/s1/a2a/A/t", "a2a://session/s1/a2a/A/t/result/x",
		"a2a://session/s1/b2b/A/t/result", "a2a://session/../a2a/A/t/result", "a2a://session/s1/a2a/bad name/t/result",
	} {
		if _, err := mcpserver.ResultKey(bad); !errors.Is(err, mcpserver.ErrInvalidURI) {
			t.Errorf("ResultKey(%q) = %v, want ErrInvalidURI", bad, err)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	w := testworld.Embedded(t)
	ok := mcpserver.SetTools(tools.Deps{})
	for name, o := range map[string]mcpserver.Options{
		"no tools":       {Memory: w.Memory},
		"no memory":      {NewTools: ok},
		"bad session":    {NewTools: ok, Memory: w.Memory, SessionID: "a/b"},
		"negative bound": {NewTools: ok, Memory: w.Memory, CallTimeout: -time.Second},
		"negative wait":  {NewTools: ok, Memory: w.Memory, WaitTimeout: -time.Second},
		"negative idle":  {NewTools: ok, Memory: w.Memory, IdleTimeout: -time.Second},
		"negative cap":   {NewTools: ok, Memory: w.Memory, MaxSessions: -1},
	} {
		if _, err := mcpserver.New(o); !errors.Is(err, mcpserver.ErrInvalidOptions) {
			t.Errorf("%s: %v, want ErrInvalidOptions", name, err)
		}
	}
}

// isResourceNotFound reports whether err is "resource not found" with the
// code of the client's protocol: -32002 up to 2025-11-25, -32602 from 2026-07-28.
func (c *client) isResourceNotFound(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == notFoundCode(c.protocol)
}

func notFoundCode(protocol string) int64 {
	if protocol == legacy {
		return mcpserver.CodeResourceNotFound
	}
	return jsonrpc.CodeInvalidParams
}

// TestResourceNotFoundCode: a read of a result that is not there, of
// another session's result or of a URI that is no result is "resource not
// found" with the code docs/mcp.md gives: -32002 under 2025-11-25 (as the
// specification of that version says), -32602 under 2026-07-28 (as that
// one requires), the URI in its data either way.
func TestResourceNotFoundCode(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{SessionID: "nf"})
	ctx := context.Background()
	for _, protocol := range []string{legacy, latest} {
		c := connect(t, m.server, protocol)
		for _, uri := range []string{
			mcpserver.ResultURI("session/nf/a2a/Agent/missing/result"),
			mcpserver.ResultURI("session/other/a2a/Agent/t1/result"),
			"a2a://session/nf/notes",
		} {
			_, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != notFoundCode(protocol) || je.Message != "Resource not found" {
				t.Errorf("protocol %q: read %s: %v, want resource not found (%d)", protocol, uri, err, notFoundCode(protocol))
				continue
			}
			var data struct{ URI string }
			if json.Unmarshal(je.Data, &data) != nil || data.URI != uri {
				t.Errorf("protocol %q: read %s: error data %s, want the URI", protocol, uri, je.Data)
			}
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %s", a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// A result resource goes to the client's model: it is read redacted even
// when the result was stored as the agent sent it.
func TestResultResourceIsRedacted(t *testing.T) {
	session := "fixed-" + strings.ToLower(t.Name())
	w := testworld.Embedded(t)
	m := newMesh(t, w, mcpserver.Options{SessionID: session})
	c := connect(t, m.server, latest)
	key, err := memory.ResultKey(session, m.agent, "0f9c2d7e-5b1a-4c3e-9d2f-7a8b6c5d4e3f")
	if err != nil {
		t.Fatal(err)
	}
	raw := `{"taskId":"0f9c2d7e-5b1a-4c3e-9d2f-7a8b6c5d4e3f","message":{"parts":[{"text":"db https://svc:hunter2@db/x, Bearer abc.def"}]},"apiKey":"s3cr3t"}`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.Memory.Set(ctx, key, []byte(raw), time.Minute); err != nil {
		t.Fatal(err)
	}
	read, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ResultURI(key)})
	if err != nil || len(read.Contents) != 1 {
		t.Fatalf("read = %+v, %v", read, err)
	}
	got := read.Contents[0].Text
	for _, secret := range []string{"hunter2", "abc.def", "s3cr3t"} {
		if strings.Contains(got, secret) {
			t.Errorf("the resource holds %q: %s", secret, got)
		}
	}
	if !json.Valid([]byte(got)) || !strings.Contains(got, "https://svc:xxxxx@db/x") {
		t.Errorf("the resource = %s", got)
	}
}
