// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/caller"
)

// TestReadinessFollowsTheBroker runs an agent and a caller on RabbitMQ
// through a proxy: ready once they consume, not ready while the proxy cuts
// the connections, ready again once they are re-dialled (a reconnect
// counted), and not ready once the process drains.
func TestReadinessFollowsTheBroker(t *testing.T) {
	w := testworld.Real(t)
	p, amqpURL := testenv.ProxyURL(t, w.AMQPURL)
	dialCtx, cancelDial := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelDial()
	b, err := rabbitmq.Dial(dialCtx, rabbitmq.Options{URL: amqpURL, Exchange: w.Exchange, ReconnectMin: 10 * time.Millisecond, ReconnectMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	n := newNode(t, testConfig(w), w, b)
	ctx, drain := context.WithCancel(context.Background())
	defer drain()
	srv, err := n.StartOps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	readyz := "http://" + srv.Addr().String() + "/readyz"
	ready := func() (bool, string) {
		status, body := get(t, readyz)
		return status == 200, body
	}

	c, err := n.Caller(w.N("ReadyCaller"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, body := ready(); ok || !strings.Contains(body, "caller") {
		t.Fatalf("ready before the caller runs: %q", body)
	}
	testworld.Start(t, c, caller.ErrClosed)
	startAgent(t, n, w.N("ReadyAgent"), nil)
	testenv.Eventually(t, "ready once the caller and agent consume", func() bool { ok, _ := ready(); return ok })

	p.Down()
	testenv.Eventually(t, "not ready while the broker is unreachable", func() bool {
		ok, body := ready()
		return !ok && strings.Contains(body, "broker")
	})
	if got, err := value(n.Ops.Registry(), "a2abus_broker_connected", map[string]string{}); err != nil || got != 0 {
		t.Errorf("a2abus_broker_connected while cut = %v (%v), want 0", got, err)
	}
	p.Up()
	testenv.Eventually(t, "ready again once reconnected", func() bool { ok, _ := ready(); return ok })
	if got, err := value(n.Ops.Registry(), "a2abus_broker_reconnects_total", map[string]string{}); err != nil || got < 1 {
		t.Errorf("a2abus_broker_reconnects_total = %v (%v), want at least 1", got, err)
	}

	drain()
	testenv.Eventually(t, "not ready while draining", func() bool {
		ok, body := ready()
		return !ok && strings.Contains(body, "draining")
	})
	if status, _ := get(t, "http://"+srv.Addr().String()+"/healthz"); status != 200 {
		t.Errorf("/healthz while draining: %d, want 200", status)
	}
}

// TestPProfOnlyWhenAsked: /debug/pprof/ is absent by default and served
// with ops.pprof; /healthz answers either way.
func TestPProfOnlyWhenAsked(t *testing.T) {
	for _, on := range []bool{false, true} {
		w := testworld.Embedded(t)
		cfg := testConfig(w)
		cfg.Ops.PProf = on
		n := newNode(t, cfg, w, w.Connect(t))
		srv, err := n.StartOps(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		base := "http://" + srv.Addr().String()
		status, _ := get(t, base+"/debug/pprof/")
		if want := map[bool]int{false: 404, true: 200}[on]; status != want {
			t.Errorf("ops.pprof %v: /debug/pprof/ answered %d, want %d", on, status, want)
		}
		if status, body := get(t, base+"/healthz"); status != 200 || strings.TrimSpace(body) != "ok" {
			t.Errorf("/healthz: %d %q", status, body)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// TestNoListenerByDefault: the default configuration starts no listener
// and counts no metrics (the parts get no observer).
func TestNoListenerByDefault(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	w := testworld.Embedded(t)
	cfg := testConfig(w)
	cfg.Ops.Listen = ""
	n := newNode(t, cfg, w, w.Connect(t))
	if n.Ops != nil {
		t.Errorf("node.Ops = %v with ops.listen empty and no OTEL_* variables, want nil", n.Ops)
	}
	srv, err := n.StartOps(context.Background())
	if err != nil || srv != nil {
		t.Errorf("StartOps = %v, %v; want no server", srv, err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close of no server: %v", err)
	}
}
