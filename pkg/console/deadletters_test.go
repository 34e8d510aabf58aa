// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/console"
)

const actionToken = "console-actions-token-0123"

// TestDeadLetterActions: with actions on, a dead letter (a task that
// expired in the queue of an agent that is not running) is dropped, and
// another republished to the queue it came from; without them, or without
// the token, nothing is done.
func TestDeadLetterActions(t *testing.T) {
	w := testworld.Real(t)
	m := newMesh(t, w, func(o *console.Options) { o.Actions, o.Token = true, actionToken })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ghost := w.N("Ghost")
	spec, err := bus.TaskQueue(ghost)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.bus.Declare(ctx, spec); err != nil {
		t.Fatal(err)
	}
	expire := func(id string) {
		t.Helper()
		if err := m.bus.Publish(ctx, bus.Message{RoutingKey: spec.Name, Envelope: a2a.Envelope{Kind: a2a.KindTaskRequest, MessageID: id,
			CorrelationID: id + "-task", ContentType: a2a.ContentTypeJSON, Expiration: time.Millisecond, Body: []byte(`{}`)}}); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, "the expired task dead-lettered", func() bool { return m.deadLetter(t, ctx, id) != nil }, testenv.Within(30*time.Second))
	}
	expire("drop-me")
	expire("republish-me")
	if dl := m.deadLetter(t, ctx, "drop-me"); dl.Reason != "expired" || dl.Queue != spec.Name || dl.Agent != ghost || dl.TaskID != "drop-me-task" {
		t.Errorf("the expired task's dead letter: %+v", dl)
	}

	post := func(path string, header ...string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	auth := []string{"Authorization", "Bearer " + actionToken}
	if code := post("/deadletters/drop-me/drop"); code != http.StatusUnauthorized {
		t.Errorf("a drop without the token: %d, want 401", code)
	}
	if code := post("/deadletters/drop-me/drop", append(auth, "Origin", "http://evil.example")...); code != http.StatusForbidden {
		t.Errorf("a cross-site drop: %d, want 403", code)
	}
	if code := post("/deadletters/no-such-letter/drop", auth...); code != http.StatusNotFound {
		t.Errorf("a drop of no letter: %d, want 404", code)
	}
	if code := post("/deadletters/drop-me/drop", auth...); code != http.StatusSeeOther {
		t.Fatalf("a drop: %d, want 303", code)
	}
	if m.deadLetter(t, ctx, "drop-me") != nil || m.deadLetter(t, ctx, "republish-me") == nil {
		t.Error("after the drop: the dropped letter is still there, or the other one is gone")
	}
	if code := post("/deadletters/republish-me/republish", auth...); code != http.StatusSeeOther {
		t.Fatalf("a republish: %d, want 303", code)
	}
	if m.deadLetter(t, ctx, "republish-me") != nil {
		t.Error("the republished letter is still in the dead-letter queue")
	}
	st, err := m.bus.(*rabbitmq.Bus).Inspect(ctx, spec.Name)
	if err != nil || st.Messages != 1 {
		t.Errorf("the queue it came from holds %d messages (%v), want the republished one", st.Messages, err)
	}
	code, body := get(t, m.url+"/deadletters", auth...)
	if code != http.StatusOK || !strings.Contains(body, "actions on") {
		t.Errorf("the dead-letter page with actions: %d\n%s", code, body)
	}
}

// TestActionsNeedAToken: a console with actions and no token is refused.
func TestActionsNeedAToken(t *testing.T) {
	w := testworld.Embedded(t)
	if _, err := console.New(console.Options{Directory: newMesh(t, w, nil).dir, Memory: w.Memory, Actions: true}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Errorf("actions without a token: %v, want a refusal naming the token", err)
	}
}

// deadLetter returns the dead letter of message id, or nil.
func (m *mesh) deadLetter(t *testing.T, ctx context.Context, id string) *console.DeadLetter {
	t.Helper()
	letters, err := m.dead.Peek(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(letters, func(dl console.DeadLetter) bool { return dl.MessageID == id })
	if i < 0 {
		return nil
	}
	return &letters[i]
}
