// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory/inmem"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/console"
)

// TestPagesShowWhatAgentsWroteAsText: a card, a skill and a result with
// markup and script are escaped on every page, and every answer carries a
// policy that runs no inline script.
func TestPagesShowWhatAgentsWroteAsText(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := m.caller.Call(ctx, caller.Request{Target: m.hostile, Skill: "echo", Text: "<b>hi</b>", SessionID: "s-hostile"}, nil)
	if err != nil || out.Result == nil || out.Result.Failed() {
		t.Fatalf("call the hostile agent: %+v, %v", out, err)
	}
	for _, path := range []string{"/agents", "/agents/" + m.hostile, "/sessions/s-hostile", "/sessions/s-hostile/tasks/" + out.Invocation.TaskID} {
		code, body := get(t, m.url+path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		if strings.Contains(body, "<script>window") || strings.Contains(body, `<img src="x"`) || strings.Contains(body, "<b>") {
			t.Errorf("%s: markup an agent wrote is in the page as markup:\n%s", path, body)
		}
		if !strings.Contains(body, "&lt;script&gt;window.__pwned") {
			t.Errorf("%s: the agent's script is not shown as text", path)
		}
	}
	resp, err := http.Get(m.url + "/agents")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q lets inline script run", csp)
	}
}

// TestSessionShowsFailedTaskCodeAndTree: a failed task shows its code, the
// tree shows the nested call, and the stored result is redacted.
func TestSessionShowsFailedTaskCodeAndTree(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := m.caller.Call(ctx, caller.Request{Target: m.sample, Skill: "fail", Text: "bad order; password=hunter2secret", SessionID: "s-fail"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := m.caller.Call(ctx, caller.Request{Target: m.sample, Skill: "delegate", Text: "nested",
		Input: json.RawMessage(`{"agent":"` + m.hostile + `","skill":"echo","text":"nested"}`), SessionID: "s-fail"}, nil); err != nil || out.Result == nil {
		t.Fatal(err)
	}
	code, body := get(t, m.url+"/sessions/s-fail")
	if code != http.StatusOK || !strings.Contains(body, `<td class="code">EXECUTION_FAILED</td>`) {
		t.Fatalf("session page %d: no EXECUTION_FAILED code:\n%s", code, body)
	}
	if !strings.Contains(body, `class="notification"`) && !strings.Contains(body, `notification"`) {
		t.Errorf("no notification turn highlighted:\n%s", body)
	}
	// The tree: Alice → SampleAgent → Hostile (the nested echo).
	if i := strings.Index(body, `<ul class="tree">`); i < 0 || !strings.Contains(body[i:], `<span class="agent">`+m.sample+`</span> <span class="tag">2 tasks, 1 failed</span><ul><li><span class="agent">`+m.hostile+`</span>`) {
		t.Errorf("the tree of calls does not show the nested call:\n%s", body)
	}
	code, body = get(t, m.url+"/sessions/s-fail/tasks/"+out.Invocation.TaskID)
	if code != http.StatusOK || strings.Contains(body, "hunter2secret") || !strings.Contains(body, "EXECUTION_FAILED") {
		t.Errorf("task page %d: the code missing or the password shown:\n%s", code, body)
	}
}

// TestListenNeedsLoopbackOrToken: an address other than loopback is refused
// without a token; with one, every request must carry it.
func TestListenNeedsLoopbackOrToken(t *testing.T) {
	mem := inmem.New(inmem.Options{})
	t.Cleanup(func() { _ = mem.Close() })
	b := inproc.New(inproc.Options{})
	t.Cleanup(func() { _ = b.Close() })
	d, err := directory.New(directory.Options{Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	c, err := console.New(console.Options{Directory: d, Memory: mem})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Listen("0.0.0.0:0"); !errors.Is(err, console.ErrNotLoopback) {
		t.Errorf("Listen(0.0.0.0:0) without a token: %v, want ErrNotLoopback", err)
	}
	_ = c.Close()
	if _, err := console.New(console.Options{Directory: d, Memory: mem, Token: "short"}); !errors.Is(err, console.ErrInvalidOptions) {
		t.Errorf("a 5-byte token: %v, want ErrInvalidOptions", err)
	}
	const token = "console-token-0123456789"
	c, err = console.New(console.Options{Directory: d, Memory: mem, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := c.Listen("0.0.0.0:0")
	if err != nil {
		t.Fatalf("Listen(0.0.0.0:0) with a token: %v", err)
	}
	testworld.Start(t, c)
	url := "http://127.0.0.1:" + addr.String()[strings.LastIndex(addr.String(), ":")+1:]
	if code, _ := get(t, url+"/agents"); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _ := get(t, url+"/agents", "Authorization", "Bearer wrong-token-0123456789"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", code)
	}
	if code, _ := get(t, url+"/agents", "Authorization", "Bearer "+token); code != http.StatusOK {
		t.Errorf("the token: %d, want 200", code)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(url + "/health?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		cookie = ck
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/health" || cookie == nil || !cookie.HttpOnly {
		t.Fatalf("?token=: %d to %q, cookie %+v; want 303 to /health with an HttpOnly cookie", resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	if code, _ := get(t, url+"/health", "Cookie", cookie.Name+"="+cookie.Value); code != http.StatusOK {
		t.Errorf("the cookie: %d, want 200", code)
	}
}
