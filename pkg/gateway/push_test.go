// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/gateway"
	"github.com/a2abus/a2abus/pkg/ops/prom"
	"github.com/a2abus/a2abus/pkg/ops/prom/promtest"
)

// webhook records the pushes it receives; it answers 503 to the first
// failFirst of them.
type webhook struct {
	*httptest.Server
	mu        sync.Mutex
	failFirst int
	got       []push
}

type push struct {
	task        spec.Task
	token, auth string
	contentType string
}

func newWebhook(t *testing.T, failFirst int) *webhook {
	h := &webhook{failFirst: failFirst}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.failFirst > 0 {
			h.failFirst--
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var sr spec.StreamResponse
		if err := json.Unmarshal(b, &sr); err != nil {
			t.Errorf("a push that is not a StreamResponse: %v: %s", err, b)
			return
		}
		task, _ := sr.Event.(*spec.Task)
		if task == nil {
			t.Errorf("a push without a task: %s", b)
			return
		}
		h.got = append(h.got, push{task: *task, token: r.Header.Get("A2A-Notification-Token"), auth: r.Header.Get("Authorization"),
			contentType: r.Header.Get("Content-Type")})
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *webhook) pushes() []push {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]push(nil), h.got...)
}

// TestPush: a send with a push config has its final task POSTed to the
// webhook with the config's token and authentication, again after a
// failed attempt (503); a config set on a task that has ended is pushed at
// once; configs are listed and deleted; a webhook at an address the
// allow-list refuses (another host, link-local, IPv6 loopback) is refused
// when it is set, and with no allow-list push notifications are off.
func TestPush(t *testing.T) {
	hook := newWebhook(t, 1)
	m := newMesh(t, testworld.Embedded(t), func(o *gateway.Options) {
		o.Push = gateway.PushOptions{Allow: []string{"127.0.0.1/32"}, RetryMin: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond}
	})
	ctx := context.Background()
	c := m.client(t, m.alice, m.sample, spec.TransportProtocolJSONRPC)
	card, err := c.GetExtendedAgentCard(ctx, &spec.GetExtendedAgentCardRequest{})
	if err == nil {
		t.Errorf("an extended card: %+v", card)
	}
	req := send("pushed", sample.SkillEcho)
	req.Config = &spec.SendMessageConfig{ReturnImmediately: true, PushConfig: &spec.PushConfig{URL: hook.URL + "/hook", Token: "tok-1",
		Auth: &spec.PushAuthInfo{Scheme: "Bearer", Credentials: "hook-secret"}}}
	res, err := c.SendMessage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*spec.Task).ID
	testenv.Eventually(t, "the completed task is pushed", func() bool { return len(hook.pushes()) == 1 })
	p := hook.pushes()[0]
	if p.task.ID != id || p.task.Status.State != spec.TaskStateCompleted || taskText(&p.task) != "pushed" ||
		p.token != "tok-1" || p.auth != "Bearer hook-secret" || p.contentType != "application/json" {
		t.Errorf("push %+v", p)
	}

	cfgs, err := c.ListTaskPushConfigs(ctx, &spec.ListTaskPushConfigRequest{TaskID: id})
	if err != nil || len(cfgs) != 1 || cfgs[0].URL != hook.URL+"/hook" || cfgs[0].ID == "" {
		t.Fatalf("configs %+v, %v", cfgs, err)
	}
	later, err := c.CreateTaskPushConfig(ctx, &spec.PushConfig{TaskID: id, ID: "later", URL: hook.URL + "/later"})
	if err != nil || later.ID != "later" {
		t.Fatalf("a config set after the end: %+v, %v", later, err)
	}
	testenv.Eventually(t, "a config set after the task ended is pushed at once", func() bool { return len(hook.pushes()) >= 2 })
	if err := c.DeleteTaskPushConfig(ctx, &spec.DeleteTaskPushConfigRequest{TaskID: id, ID: "later"}); err != nil {
		t.Fatal(err)
	}
	if cfgs, err := c.ListTaskPushConfigs(ctx, &spec.ListTaskPushConfigRequest{TaskID: id}); err != nil || len(cfgs) != 1 {
		t.Errorf("after the delete: %+v, %v", cfgs, err)
	}

	for _, url := range []string{"http://10.1.2.3/hook", "http://169.254.169.254/latest/meta-data", "http://[::1]:9/hook", "ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x"} {
		req := send("refused", sample.SkillEcho)
		req.Config = &spec.SendMessageConfig{PushConfig: &spec.PushConfig{URL: url}}
		if _, err := c.SendMessage(ctx, req); !errors.Is(err, spec.ErrInvalidParams) {
			t.Errorf("a push to %s: %v, want refused (invalid params)", url, err)
		}
		if _, err := c.CreateTaskPushConfig(ctx, &spec.PushConfig{TaskID: id, URL: url}); !errors.Is(err, spec.ErrInvalidParams) {
			t.Errorf("a config for %s: %v, want refused", url, err)
		}
	}

	off := newMesh(t, testworld.Embedded(t), nil)
	oc := off.client(t, off.alice, off.sample, spec.TransportProtocolJSONRPC)
	req = send("x", sample.SkillEcho)
	req.Config = &spec.SendMessageConfig{PushConfig: &spec.PushConfig{URL: hook.URL}}
	if _, err := oc.SendMessage(ctx, req); !errors.Is(err, spec.ErrPushNotificationNotSupported) {
		t.Errorf("a push config where they are off: %v", err)
	}
}

// TestPushAllowListByHostName: a host named by the allow-list is reached
// at a public address, never at a loopback one it resolves to.
func TestPushAllowListByHostName(t *testing.T) {
	reg := prom.NewRegistry()
	m := newMesh(t, testworld.Embedded(t), func(o *gateway.Options) {
		o.Push.Allow, o.Registerer = []string{"localhost", "*.example.com"}, reg
	})
	c := m.client(t, m.alice, m.sample, spec.TransportProtocolJSONRPC)
	hook := newWebhook(t, 0)
	req := send("to localhost", sample.SkillEcho)
	req.Config = &spec.SendMessageConfig{PushConfig: &spec.PushConfig{URL: "http://localhost:" + hook.URL[len("http://127.0.0.1:"):] + "/hook"}}
	if _, err := c.SendMessage(context.Background(), req); err != nil {
		t.Fatal(err) // the host is listed: set, and checked again at the dial
	}
	testenv.Eventually(t, "the push fails", func() bool {
		return counterOf(t, reg, "a2abus_gateway_pushes_total", "outcome", "failed") == 1
	})
	if n := len(hook.pushes()); n != 0 {
		t.Errorf("a listed host resolving to loopback got %d pushes, want none", n)
	}
}

// counterOf is the value of the counter name{label=value} in reg.
func counterOf(t *testing.T, reg *prom.Registry, name, label, value string) float64 {
	t.Helper()
	families, err := promtest.Gather(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
