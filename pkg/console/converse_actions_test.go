// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/console"
	"github.com/a2abus/a2abus/pkg/converse"
	"github.com/a2abus/a2abus/pkg/node"
)

// drivenConversation starts a manual conversation between two test agents
// of w, driven by an orchestrator of its own: the first draft waits for
// approval. It returns the conversation's id and the drive's outcome.
func drivenConversation(t *testing.T, w *testworld.World) (string, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Caller.SweepInterval = 50 * time.Millisecond
	cfg.Agent.StopTimeout = time.Second
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // not about the policy: every call allowed
	n, err := node.With(cfg, w.Connect(t), w.Memory, nil)
	if err != nil {
		t.Fatal(err)
	}
	local, remote := w.N("Drafter"), w.N("Answerer")
	for _, name := range []string{local, remote} {
		a, err := n.Agent(a2a.AgentCard{Name: name, Description: "test agent", Version: "1.0",
			Skills: []a2a.AgentSkill{{ID: "talk", Name: "talk", Description: "test skill"}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Handle("talk", func(context.Context, *agent.Task) (*agent.Result, error) {
			r := agent.TextResult("a draft")
			r.Confidence = a2a.ConfidenceHigh
			return r, nil
		}); err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, a)
	}
	cl, err := n.Caller(w.N("Converse"), nil)
	if err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, cl, caller.ErrClosed)
	orch, err := converse.New(converse.Options{Caller: cl, Bus: n.Bus, Memory: w.Memory, Policy: converse.Policy{Bus: n.Guard},
		LeaseTTL: 600 * time.Millisecond, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = orch.Close() })
	cv, err := orch.Start(ctx, converse.Spec{Local: local, LocalSkill: "talk", Remote: remote, RemoteSkill: "talk",
		Objective: "test the console's controls", Mode: converse.Manual, Consent: true, Requester: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := orch.Drive(ctx, cv.ID); done <- err }()
	waitConversation(t, w, cv.ID, "the first draft waiting for approval", (*converse.Conversation).AwaitingApproval)
	return cv.ID, done
}

// waitConversation waits until the stored record of conversation id satisfies ok.
func waitConversation(t *testing.T, w *testworld.World, id, what string, ok func(*converse.Conversation) bool) {
	t.Helper()
	testenv.Eventually(t, what, func() bool {
		cv, err := converse.Load(context.Background(), w.Memory, id)
		return err == nil && ok(cv)
	}, testenv.Within(30*time.Second))
}

// postForm posts form to path and returns the status and the redirect's target.
func postForm(t *testing.T, ctx context.Context, path string, form url.Values, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// TestConversationControls: with actions and the token, a driven
// conversation is paused, then stopped, through the console, and its
// stored state follows; without the token, or from another site, the
// console refuses and the conversation is untouched.
func TestConversationControls(t *testing.T) {
	w := testworld.Real(t)
	m := newMesh(t, w, func(o *console.Options) { o.Actions, o.Token = true, actionToken })
	id, done := drivenConversation(t, w)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	auth := []string{"Authorization", "Bearer " + actionToken}

	code, body := get(t, m.url+"/workflows?conversation="+id, auth...)
	for _, c := range []string{"pause", "resume", "stop", "takeover", "approve"} {
		if !strings.Contains(body, `action="/conversations/`+id+`/`+c+`"`) {
			t.Errorf("the page of a conversation waiting for approval (%d) has no %s control:\n%s", code, c, body)
		}
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/"+id+"/pause", nil); code != http.StatusUnauthorized {
		t.Errorf("a pause without the token: %d, want 401", code)
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/"+id+"/pause", nil, append(auth, "Origin", "http://evil.example")...); code != http.StatusForbidden {
		t.Errorf("a cross-site pause: %d, want 403", code)
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/"+id+"/pause", nil, append(auth, "Sec-Fetch-Site", "cross-site")...); code != http.StatusForbidden {
		t.Errorf("a pause from another site (Sec-Fetch-Site): %d, want 403", code)
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/"+id+"/pause", nil, append(auth, "Origin", "null")...); code != http.StatusForbidden {
		t.Errorf("a pause from an opaque origin without Sec-Fetch-Site: %d, want 403", code)
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/"+id+"/explode", nil, auth...); code != http.StatusBadRequest {
		t.Errorf("an unknown control: %d, want 400", code)
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/cv00000000000000000000/pause", nil, auth...); code != http.StatusNotFound {
		t.Errorf("a pause of no conversation: %d, want 404", code)
	}
	if cv, err := converse.Load(ctx, w.Memory, id); err != nil || cv.Paused || cv.State.Terminal() {
		t.Fatalf("the refused requests changed the conversation: %+v, %v", cv, err)
	}

	code, loc := postForm(t, ctx, m.url+"/conversations/"+id+"/pause", nil, append(auth, "Origin", m.url)...)
	if code != http.StatusSeeOther || !strings.Contains(loc, "conversation="+id) {
		t.Fatalf("a pause: %d to %q, want 303 back to the conversation", code, loc)
	}
	waitConversation(t, w, id, "the conversation paused", func(c *converse.Conversation) bool { return c.Status() == converse.Paused })
	_, body = get(t, m.url+loc, auth...)
	if !strings.Contains(body, "pause sent to "+id) {
		t.Errorf("the page after the pause does not say it was sent:\n%s", body)
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/"+id+"/stop", nil, auth...); code != http.StatusSeeOther {
		t.Fatalf("a stop: %d, want 303", code)
	}
	waitConversation(t, w, id, "the conversation stopped", func(c *converse.Conversation) bool { return c.State == converse.Stopped })
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the drive of the stopped conversation: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the drive did not end after the stop")
	}
	if code, body := get(t, m.url+"/workflows?conversation="+id, auth...); code != http.StatusOK || strings.Contains(body, `id="controls"`) {
		t.Errorf("the page of a stopped conversation (%d) still shows controls:\n%s", code, body)
	}
	if code, _ := postForm(t, ctx, m.url+"/conversations/"+id+"/resume", nil, auth...); code != http.StatusBadRequest {
		t.Errorf("a resume of a stopped conversation: %d, want 400", code)
	}
}

// TestConversationWithoutActions: a console without actions shows a
// conversation with no controls and refuses a control sent to it.
func TestConversationWithoutActions(t *testing.T) {
	w := testworld.Real(t)
	m := newMesh(t, w, func(o *console.Options) { o.Token = actionToken })
	id, _ := drivenConversation(t, w)
	auth := []string{"Authorization", "Bearer " + actionToken}
	code, body := get(t, m.url+"/workflows?conversation="+id, auth...)
	if code != http.StatusOK || strings.Contains(body, "/conversations/") || strings.Contains(body, `id="controls"`) || !strings.Contains(body, "--actions") {
		t.Errorf("the page of a conversation without actions (%d) shows controls or no note:\n%s", code, body)
	}
	if code, _ := postForm(t, context.Background(), m.url+"/conversations/"+id+"/stop", nil, auth...); code != http.StatusForbidden {
		t.Errorf("a stop without actions: %d, want 403", code)
	}
	if cv, err := converse.Load(context.Background(), w.Memory, id); err != nil || cv.State.Terminal() || cv.Paused {
		t.Errorf("the refused stop changed the conversation: %+v, %v", cv, err)
	}
}
