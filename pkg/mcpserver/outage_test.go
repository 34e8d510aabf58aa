// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
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
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	w := testworld.Real(t)
	redisURL, err := url.Parse(w.RedisURL)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, redisURL.Host)
	redisURL.Host = p.addr()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mem, err := redismem.New(ctx, redismem.Options{URL: redisURL.String(), KeyPrefix: w.KeyPrefix, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cut(); _ = mem.Close() })
	w.Memory = mem
	session := "outage-" + strings.ToLower(w.N("s"))
	m := newMesh(t, w, mcpserver.Options{SessionID: session, CallTimeout: 3 * time.Second})
	c := connect(t, m.server, legacy)
	waitListed(t, c, m.agent)

	p.blackhole()
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
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	w := testworld.Real(t)
	amqpURL, err := url.Parse(w.AMQPURL)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, amqpURL.Host)
	amqpURL.Host = p.addr()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{URL: amqpURL.String(), Exchange: w.Exchange, PublishTimeout: time.Second, ReconnectMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	m := newMeshOn(t, w, b, mcpserver.Options{CallTimeout: 3 * time.Second})
	c := connect(t, m.server, legacy)
	waitListed(t, c, m.agent)

	p.cut()
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

// proxy forwards TCP connections to a server until told to swallow every
// byte (a server that hangs) or to cut every connection (a server gone).
type proxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu    sync.Mutex
	hole  bool
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, target: target}
	go p.accept()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go p.pipe(out, in)
		go p.pipe(in, out)
	}
}

// pipe copies src to dst, dropping the bytes while the proxy is a black hole.
func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			hole := p.hole
			p.mu.Unlock()
			if !hole {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			if err != io.EOF {
				_ = dst.Close()
			}
			return
		}
	}
}

// blackhole makes the server hang: connections stay open, nothing passes.
func (p *proxy) blackhole() {
	p.mu.Lock()
	p.hole = true
	p.mu.Unlock()
}

// cut closes the listener and every connection: the server is gone.
func (p *proxy) cut() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}
