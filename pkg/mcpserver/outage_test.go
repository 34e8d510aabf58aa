// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/redismem"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/mcpserver"
	"github.com/a2abus/a2abus/pkg/tools"
)

// TestRedisOutageIsANamedError: working memory stops answering (a proxy
// before the real Redis swallows every byte): tool calls, reads and
// subscriptions fail, within their bound, with errors naming working
// memory (UNAVAILABLE) — never a hung request.
func TestRedisOutageIsANamedError(t *testing.T) {
	w := testworld.Real(t)
	p, redisURL := testenv.ProxyURL(t, w.RedisURL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mem, err := redismem.New(ctx, redismem.Options{URL: redisURL, KeyPrefix: w.KeyPrefix, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Down(); _ = mem.Close() })
	w.Memory = mem
	session := "outage-" + strings.ToLower(w.N("s"))
	m := newMesh(t, w, mcpserver.Options{SessionID: session, CallTimeout: 3 * time.Second})
	c := connect(t, m.server, legacy)
	waitListed(t, c, m.agent)

	p.Hang()
	const down = "working memory is unavailable"
	key := "session/" + session + "/a2a/" + m.agent + "/t1/result"
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"get_from_working_memory", map[string]any{"key": key}},
		{"invoke_agent", map[string]any{"agent_name": m.agent, "skill": "echo", "message": "x"}},
	} {
		text, isErr, _ := c.call(t, call.tool, call.args)
		if !isErr || errorCode(t, text) != string(a2a.CodeUnavailable) || !strings.Contains(text, down) {
			t.Errorf("%s while Redis hangs: %s; want an UNAVAILABLE error saying %q", call.tool, text, down)
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	uri := mcpserver.ResultURI(key)
	var je *jsonrpc.Error
	if _, err := c.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); !errors.As(err, &je) || !strings.Contains(je.Message, down) {
		t.Errorf("resources/read while Redis hangs: %v; want an error saying %q", err, down)
	}
	if err := c.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); !errors.As(err, &je) || !strings.Contains(je.Message, down) {
		t.Errorf("resources/subscribe while Redis hangs: %v; want an error saying %q", err, down)
	}
}

// TestBusOutageIsANamedError: RabbitMQ is gone (a proxy before it closes
// every connection and refuses new ones): invoke_agent fails within its
// bound with an error naming the message bus.
func TestBusOutageIsANamedError(t *testing.T) {
	w := testworld.Real(t)
	p, amqpURL := testenv.ProxyURL(t, w.AMQPURL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: amqpURL, Exchange: w.Exchange, PublishTimeout: time.Second, ReconnectMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	m := newMeshOn(t, w, b, mcpserver.Options{CallTimeout: 3 * time.Second})
	c := connect(t, m.server, legacy)
	waitListed(t, c, m.agent)

	p.Down()
	text, isErr, _ := c.call(t, "invoke_agent", map[string]any{"agent_name": m.agent, "skill": "echo", "message": "x"})
	// A publish fails fast (UNAVAILABLE); the declare of the target queue
	// that comes first waits for a connection until the call's bound, when
	// working memory is found answering, so the bus is named (TIMEOUT).
	published := errorCode(t, text) == string(a2a.CodeUnavailable) && strings.Contains(text, "the message bus did not take the message")
	declared := errorCode(t, text) == string(a2a.CodeTimeout) && strings.Contains(text, "no answer within 3s (working memory answers; the message bus")
	if !isErr || !(published || declared) {
		t.Errorf("invoke_agent while RabbitMQ is gone: %s; want an error naming the message bus", text)
	}
}

// waitListed waits until list_known_agents shows agent.
func waitListed(t *testing.T, c *client, agent string) {
	t.Helper()
	testenv.Eventually(t, agent+" listed", func() bool {
		text, isErr, _ := c.call(t, "list_known_agents", map[string]any{"query": agent})
		var l tools.AgentList
		return !isErr && json.Unmarshal([]byte(text), &l) == nil && len(l.Agents) == 1
	})
}
