// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/console"
	"github.com/a2abus/a2abus/pkg/converse"
)

// page serves path through h and returns its status and body.
func page(h http.Handler, path string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// TestAgentWaitingForAnInstance: a well-known agent with tasks waiting in
// its queue and no instance (a KEDA one-shot agent between jobs) is shown
// as such, with its queue's depth.
func TestAgentWaitingForAnInstance(t *testing.T) {
	w := testworld.RealBus(t)
	b := w.Connect(t)
	ghost := w.N("Ghost")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	spec, err := bus.TaskQueue(ghost)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Declare(ctx, spec); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := b.Publish(ctx, bus.Message{RoutingKey: spec.Name, Envelope: a2a.Envelope{Kind: a2a.KindTaskRequest,
			MessageID: "m" + string(rune('0'+i)), ContentType: a2a.ContentTypeJSON, Body: []byte(`{}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := directory.New(directory.Options{Bus: b, WellKnown: []directory.WellKnownAgent{{AgentName: ghost, Description: "one task a job",
		Skills: []directory.WellKnownSkill{{ID: "research", Name: "Research"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := console.New(console.Options{Directory: d, Memory: testworld.Embedded(t).Memory, Queues: b.(*rabbitmq.Bus)})
	if err != nil {
		t.Fatal(err)
	}
	code, body := page(c.Handler(), "/agents")
	if code != http.StatusOK || !strings.Contains(body, "waiting for an instance (KEDA)") || !strings.Contains(body, "3 waiting") {
		t.Errorf("the agents page (%d) does not show %s waiting for an instance with 3 tasks:\n%s", code, ghost, body)
	}
}

// TestConversationTimelineShownAsText: an orchestrated conversation's
// timeline shows, its texts escaped.
func TestConversationTimelineShownAsText(t *testing.T) {
	w := testworld.Embedded(t)
	m := newMesh(t, w, nil)
	key, err := memory.ConversationKey("cv0123456789abcdef0123")
	if err != nil {
		t.Fatal(err)
	}
	rec := converse.Conversation{ID: "cv0123456789abcdef0123", Session: "converse-cv0123456789abcdef0123", State: converse.State("ACTIVE"), Exchanges: 2,
		Events: []converse.Event{{At: time.Now(), Turn: 1, Kind: "sent", Text: "<script>window.__pwned = 5</script>hello"}}}
	raw, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Memory.Set(context.Background(), key, raw, time.Hour); err != nil {
		t.Fatal(err)
	}
	code, body := page(m.con.Handler(), "/workflows?conversation=cv0123456789abcdef0123&run=no-such-run")
	if code != http.StatusOK || !strings.Contains(body, "&lt;script&gt;window.__pwned = 5&lt;/script&gt;hello") || strings.Contains(body, "<script>window") {
		t.Errorf("the conversation's timeline (%d) is missing or not escaped:\n%s", code, body)
	}
	if !strings.Contains(body, "unknown run") {
		t.Errorf("an unknown run is not named:\n%s", body)
	}
}
