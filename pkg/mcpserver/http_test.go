// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/a2abus/a2abus/internal/httpserve"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/mcpserver"
	"github.com/a2abus/a2abus/pkg/tools"
)

// listenHTTP serves m's server over streamable HTTP on loopback.
func listenHTTP(t *testing.T, m *mesh, o mcpserver.HTTPOptions) *mcpserver.HTTPServer {
	t.Helper()
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	hs, err := m.server.ListenHTTP(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hs.Close() })
	return hs
}

// initialize sends an MCP initialize request (a new session) and returns
// the status, the session id, the body and the headers.
func initialize(t *testing.T, url, token string) (int, string, []byte, http.Header) {
	t.Helper()
	a := post(url, token)
	if a.err != nil {
		t.Fatal(a.err)
	}
	return a.status, a.id, a.body, a.header
}

// answer is what an initialize request got.
type answer struct {
	status int
	id     string
	body   []byte
	header http.Header
	err    error
}

// post sends an initialize request; it may run on any goroutine.
func post(url, token string) answer {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacy +
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, id: resp.Header.Get("Mcp-Session-Id"), body: got, header: resp.Header, err: err}
}

// tooManySessions checks a refusal: 503, Retry-After, and a JSON-RPC error
// whose message says what happened and what to do.
func tooManySessions(t *testing.T, status int, body []byte, header http.Header, max int) {
	t.Helper()
	var msg struct {
		Error struct {
			Code    int64
			Message string
			Data    struct {
				MaxSessions int `json:"max_sessions"`
			}
		}
	}
	if status != http.StatusServiceUnavailable || header.Get("Retry-After") == "" || json.Unmarshal(body, &msg) != nil {
		t.Fatalf("a session beyond the cap: %d (Retry-After %q) %s, want 503 with a JSON-RPC error", status, header.Get("Retry-After"), body)
	}
	want := fmt.Sprintf("too many sessions: %d are open, the most allowed (mcp.max_sessions)", max)
	if msg.Error.Code != mcpserver.CodeTooManySessions || !strings.Contains(msg.Error.Message, want) || msg.Error.Data.MaxSessions != max {
		t.Fatalf("a session beyond the cap: error %+v, want code %d saying %q", msg.Error, mcpserver.CodeTooManySessions, want)
	}
}

// TestSessionCap: of many clients opening sessions at once, MaxSessions
// get one and the others a 503 that says why; a session closed by its
// client frees its place.
func TestSessionCap(t *testing.T) {
	const max, clients = 5, 40
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{MaxSessions: max})
	hs := listenHTTP(t, m, mcpserver.HTTPOptions{})
	answers := make(chan answer, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() { answers <- post(hs.URL(), "") })
	}
	wg.Wait()
	close(answers)
	var opened []string
	for a := range answers {
		switch {
		case a.err != nil:
			t.Fatal(a.err)
		case a.status == http.StatusOK && a.id != "":
			opened = append(opened, a.id)
		default:
			tooManySessions(t, a.status, a.body, a.header, max)
		}
	}
	if len(opened) != max {
		t.Fatalf("%d clients at once: %d sessions opened, want %d (the others refused)", clients, len(opened), max)
	}

	// The SDK's client is told too, and gets in once a session is closed.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "capped", Version: "1"}, nil)
	transport := func() *mcp.StreamableClientTransport {
		return &mcp.StreamableClientTransport{Endpoint: hs.URL(), MaxRetries: -1}
	}
	if cs, err := client.Connect(ctx, transport(), &mcp.ClientSessionOptions{ProtocolVersion: legacy}); err == nil {
		_ = cs.Close()
		t.Fatal("the SDK's client opened a session beyond the cap")
	}
	del, err := http.NewRequest(http.MethodDelete, hs.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	del.Header.Set("Mcp-Session-Id", opened[0])
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	var cs *mcp.ClientSession
	testenv.Eventually(t, "a session opened once one was closed", func() bool {
		cs, err = client.Connect(ctx, transport(), &mcp.ClientSessionOptions{ProtocolVersion: legacy})
		return err == nil
	})
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// TestIdleSessionsAreClosed: a session that sends nothing for IdleTimeout
// is closed, which frees its place for a new client.
func TestIdleSessionsAreClosed(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{MaxSessions: 1, IdleTimeout: time.Second})
	hs := listenHTTP(t, m, mcpserver.HTTPOptions{})
	status, id, body, _ := initialize(t, hs.URL(), "")
	if status != http.StatusOK || id == "" {
		t.Fatalf("first session: %d %s", status, body)
	}
	status, _, body, header := initialize(t, hs.URL(), "")
	tooManySessions(t, status, body, header, 1)
	testenv.Eventually(t, "a new session once the idle one was closed", func() bool {
		status, _, _, _ := initialize(t, hs.URL(), "")
		return status == http.StatusOK
	})
}

// TestTrickledInitializeIsCutOff: a client that sends its initialize a
// byte at a time is cut off within the read bound, and the place it held
// is given back.
func TestTrickledInitializeIsCutOff(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{MaxSessions: 1})
	hs := listenHTTP(t, m, mcpserver.HTTPOptions{Limits: httpserve.Limits{ReadTimeout: 500 * time.Millisecond}})
	addr := strings.TrimSuffix(strings.TrimPrefix(hs.URL(), "http://"), mcpserver.Path)
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", addr)
	testenv.Trickle(t, "initialize (read timeout 500ms)", addr, head, ' ')
	testenv.Eventually(t, "a session opened after the trickle was cut", func() bool {
		status, _, _, _ := initialize(t, hs.URL(), "")
		return status == http.StatusOK
	})
}

// countingTransport counts the GET requests (event streams) a client makes.
type countingTransport struct {
	gets  atomic.Int32
	token string
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.gets.Add(1)
	}
	if c.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+c.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestStreamsOutliveTheBounds: with read and write bounds of 300ms, a
// session's event stream (GET) carries a resources/updated notification
// sent seconds after it opened, and a call that waits 2s for its task
// streams its progress and result over its POST — on one event stream,
// never cut and reopened.
func TestStreamsOutliveTheBounds(t *testing.T) {
	t.Parallel() // it mostly waits: overlapping saves the suite's time
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{})
	bounds := httpserve.Limits{ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond}
	hs := listenHTTP(t, m, mcpserver.HTTPOptions{Limits: bounds})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var (
		mu       sync.Mutex
		updated  []string
		progress int
	)
	client := mcp.NewClient(&mcp.Implementation{Name: "streams", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			mu.Lock()
			updated = append(updated, req.Params.URI)
			mu.Unlock()
		},
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress++
			mu.Unlock()
		},
	})
	rt := &countingTransport{}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL(), HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	testenv.Eventually(t, "the event stream opened", func() bool { return rt.gets.Load() == 1 })
	time.Sleep(3 * max(bounds.ReadTimeout, bounds.WriteTimeout)) // the stream now outlives both bounds

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "invoke_agent", Arguments: map[string]any{"agent_name": m.agent, "skill": "sleep", "message": "2000"}})
	if err != nil || res.IsError {
		t.Fatalf("invoke_agent: %+v, %v", res, err)
	}
	var inv tools.InvokeResult
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &inv); err != nil {
		t.Fatal(err)
	}
	uri := mcpserver.ResultURI(inv.MemoryKey)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "resources/updated over the event stream", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(updated, uri)
	})

	params := &mcp.CallToolParams{Name: "invoke_agent", Arguments: map[string]any{"agent_name": m.agent, "skill": "sleep", "message": "2000", "wait": true}}
	params.SetProgressToken("p1")
	res, err = cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("invoke_agent with wait: %+v, %v", res, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "slept 2s") {
		t.Errorf("invoke_agent with wait = %s, want the result", text)
	}
	mu.Lock()
	seen := progress
	mu.Unlock()
	if seen == 0 {
		t.Error("no progress notification over the call's stream")
	}
	if n := rt.gets.Load(); n != 1 {
		t.Errorf("the event stream was opened %d times: it was cut", n)
	}
}

// TestBearerToken: with a token, a request without it (or with another)
// is refused 401 and opens no session; the SDK's client sending it works.
// Without a token only loopback is served, unless InsecureNoAuth.
func TestBearerToken(t *testing.T) {
	const token = "mcp-test-token-0123456789"
	m := newMesh(t, testworld.Embedded(t), mcpserver.Options{MaxSessions: 1})
	hs := listenHTTP(t, m, mcpserver.HTTPOptions{Token: token})
	for _, bad := range []string{"", "wrong-token-0123456789"} {
		status, id, body, header := initialize(t, hs.URL(), bad)
		if status != http.StatusUnauthorized || id != "" || !strings.HasPrefix(header.Get("WWW-Authenticate"), "Bearer ") || strings.Contains(string(body), token) {
			t.Errorf("token %q: %d %q %q, want 401 with a Bearer challenge", bad, status, id, body)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "authed", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL(), HTTPClient: &http.Client{Transport: &countingTransport{token: token}}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatalf("with the token (the refused requests took no place): %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		o    mcpserver.HTTPOptions
		fail bool
	}{
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:0"}, true},
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:0", InsecureNoAuth: true}, false},
		{mcpserver.HTTPOptions{Addr: "0.0.0.0:0", Token: token}, false},
		{mcpserver.HTTPOptions{Addr: "127.0.0.1:0"}, false},
	} {
		hs, err := m.server.ListenHTTP(context.Background(), tc.o)
		if tc.fail {
			if !errors.Is(err, mcpserver.ErrNoAuth) || !strings.Contains(err.Error(), "mcp.token") {
				t.Errorf("%+v: %v, want ErrNoAuth naming mcp.token", tc.o, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tc.o, err)
			continue
		}
		_ = hs.Close()
	}
}
