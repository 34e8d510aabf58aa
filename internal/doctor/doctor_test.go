// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package doctor

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/internal/testenv"
)

// loaded is a resolved configuration on the given servers.
func loaded(t *testing.T, busURL, redisURL string) *cliutil.Loaded {
	t.Helper()
	cfg := config.Default()
	cfg.Bus.URL, cfg.Redis.URL = busURL, redisURL
	cfg.Directory.WellKnownFile = filepath.Join(t.TempDir(), "absent.json") // the default, absent
	return &cliutil.Loaded{Config: cfg, Log: zap.NewNop(), Sources: config.Sources{}}
}

// find returns the check called name.
func find(t *testing.T, rep Report, name string) Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, rep.Checks)
	return Check{}
}

// On the real servers the broker and Redis checks pass: reachable, a
// version, this user's permissions, an eviction policy that keeps results.
func TestRealServersPass(t *testing.T) {
	l := loaded(t, testenv.AMQPURL(t), testenv.RedisURL(t))
	rep := Run(context.Background(), l, Options{CheckTimeout: 5 * time.Second})
	for _, name := range []string{"urls", "broker reachable", "broker version", "broker permissions", "redis reachable", "redis version", "well-known file", "model endpoint"} {
		if c := find(t, rep, name); c.Status != Pass {
			t.Errorf("%s: %s — %s", name, c.Status, c.Detail)
		}
	}
	if c := find(t, rep, "broker version"); !strings.HasPrefix(c.Detail, "RabbitMQ ") {
		t.Errorf("broker version: %q", c.Detail)
	}
	if c := find(t, rep, "redis eviction"); c.Status == Warn {
		t.Errorf("redis eviction: %s — %s", c.Status, c.Detail)
	}
	if rep.Passed+rep.Warned+rep.Failed != len(rep.Checks) || rep.OK != (rep.Failed == 0) {
		t.Errorf("counts %d/%d/%d of %d, ok %v", rep.Passed, rep.Warned, rep.Failed, len(rep.Checks), rep.OK)
	}
}

// A port nobody answers on fails the broker and Redis checks with an
// explanation naming the server, within the check timeout.
func TestDeadPortsFail(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	_ = ln.Close()
	l := loaded(t, "amqp://guest:guest@"+dead+"/", "redis://"+dead+"/0")
	start := time.Now()
	rep := Run(context.Background(), l, Options{CheckTimeout: 2 * time.Second})
	if rep.OK || rep.Failed != 2 {
		t.Errorf("ok %v, %d failed: %+v", rep.OK, rep.Failed, rep.Checks)
	}
	if c := find(t, rep, "broker reachable"); c.Status != Fail || !strings.Contains(c.Detail, "cannot reach RabbitMQ at amqp://guest:xxxxx@"+dead) ||
		!strings.Contains(c.Detail, "connection refused") {
		t.Errorf("broker: %s — %s", c.Status, c.Detail)
	}
	if c := find(t, rep, "redis reachable"); c.Status != Fail || !strings.Contains(c.Detail, "redis://"+dead+"/0 (redis.url)") {
		t.Errorf("redis: %s — %s", c.Status, c.Detail)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s with a 2s bound per check", d)
	}
}

// The eviction check fails on a policy that may evict results when a
// memory limit is set, and says why.
func TestEviction(t *testing.T) {
	for _, tt := range []struct {
		policy, limit string
		want          Status
	}{
		{"noeviction", "1000", Pass},
		{"allkeys-lru", "0", Pass},
		{"allkeys-lru", "1000", Fail},
		{"volatile-ttl", "1000", Fail},
		{"allkeys-random", "1", Fail},
		{"", "", Warn},
	} {
		r := &run{}
		r.eviction(map[string]string{"maxmemory_policy": tt.policy, "maxmemory": tt.limit})
		if got := r.checks[0]; got.Status != tt.want || (tt.want == Fail && !strings.Contains(got.Detail, "set maxmemory-policy noeviction")) {
			t.Errorf("%s/%s: %s — %s", tt.policy, tt.limit, got.Status, got.Detail)
		}
	}
}

func TestPersistence(t *testing.T) {
	for _, tt := range []struct {
		aof, save string
		want      Status
	}{
		{"1", "", Pass}, {"0", "3600 1", Pass}, {"0", "", Warn}, {"0", "?", Warn},
	} {
		r := &run{}
		r.persistence(map[string]string{"aof_enabled": tt.aof}, tt.save)
		if got := r.checks[0]; got.Status != tt.want {
			t.Errorf("aof %s save %q: %s — %s", tt.aof, tt.save, got.Status, got.Detail)
		}
	}
}

func TestParseInfo(t *testing.T) {
	got := parseInfo("# Server\r\nredis_version:7.2.4\r\nredis_mode:standalone\r\n\r\n# Memory\r\nmaxmemory_policy:noeviction\r\n")
	if got["redis_version"] != "7.2.4" || got["redis_mode"] != "standalone" || got["maxmemory_policy"] != "noeviction" || len(got) != 3 {
		t.Errorf("%v", got)
	}
}

// The consumer timeout a policy sets on the task queues is compared with
// the longest deadline; none readable is a warning, never a failure.
func TestConsumerTimeout(t *testing.T) {
	policies := `[{"name":"short","pattern":"^agent\\.task\\.","apply-to":"queues","definition":{"consumer-timeout":600000}}]`
	mgmt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if u, p, _ := req.BasicAuth(); req.URL.EscapedPath() != "/api/policies/%2F" || u != "guest" || p != "guest" {
			http.Error(w, "unexpected "+req.URL.EscapedPath(), http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(policies))
	}))
	defer mgmt.Close()
	l := loaded(t, "amqp://guest:guest@127.0.0.1:5672/", "")
	r := &run{l: l, opts: Options{CheckTimeout: time.Second, HTTP: mgmt.Client(), ManagementURL: mgmt.URL}}
	r.consumerTimeout(context.Background())
	if c := r.checks[0]; c.Status != Fail || !strings.Contains(c.Detail, "the policy short sets consumer-timeout 10m0s, not above 25m0s (agent.max_task_duration)") {
		t.Errorf("a 10m policy: %s — %s", c.Status, c.Detail)
	}
	policies = `[]`
	r.checks = nil
	r.consumerTimeout(context.Background())
	if c := r.checks[0]; c.Status != Warn || !strings.Contains(c.Detail, "no policy sets consumer-timeout") {
		t.Errorf("no policy: %s — %s", c.Status, c.Detail)
	}
	r.opts.ManagementURL, r.checks = "http://127.0.0.1:1", nil
	r.consumerTimeout(context.Background())
	if c := r.checks[0]; c.Status != Warn || !strings.Contains(c.Detail, "could not be read") {
		t.Errorf("no management API: %s — %s", c.Status, c.Detail)
	}
}

// The model endpoint is checked only when configured: GET /models must
// answer and list llm.model.
func TestModelEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/v1/models" || req.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"data":[{"id":"llama3.1"},{"id":"qwen"}]}`))
	}))
	defer srv.Close()
	for _, tt := range []struct {
		base, key, model string
		want             Status
		detail           string
	}{
		{"", "", "", Pass, "none configured"},
		{srv.URL + "/v1", "sk-test", "llama3.1", Pass, `lists llm.model "llama3.1"`},
		{srv.URL + "/v1", "sk-test", "gpt-x", Warn, `does not list llm.model "gpt-x" (it lists llama3.1, qwen)`},
		{srv.URL + "/v1", "wrong", "llama3.1", Fail, "401 Unauthorized: check llm.api_key"},
		{"http://127.0.0.1:1/v1", "", "m", Fail, "connection refused"},
	} {
		l := loaded(t, "", "")
		l.Config.LLM.BaseURL, l.Config.LLM.APIKey, l.Config.LLM.Model = tt.base, tt.key, tt.model
		r := &run{l: l, opts: Options{CheckTimeout: time.Second, HTTP: srv.Client()}}
		r.model(context.Background())
		if c := r.checks[0]; c.Status != tt.want || !strings.Contains(c.Detail, tt.detail) || strings.Contains(c.Detail, "sk-test") {
			t.Errorf("%s %s: %s — %s", tt.base, tt.model, c.Status, c.Detail)
		}
	}
}

// The well-known file: the default one absent passes silently, one the
// user named must exist and parse.
func TestWellKnown(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`[{"agentName":"SampleAgent","description":"d","skills":[{"id":"echo","name":"Echo","description":"e"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"agentName":""}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path   string
		asked  bool
		want   Status
		detail string
	}{
		{filepath.Join(dir, "absent.json"), false, Pass, "is absent"},
		{filepath.Join(dir, "absent.json"), true, Fail, "does not exist"},
		{good, true, Pass, "1 valid agent(s): SampleAgent"},
		{bad, true, Fail, "agentName"},
	} {
		l := loaded(t, "", "")
		l.Config.Directory.WellKnownFile = tt.path
		if tt.asked {
			l.Sources["directory.well_known_file"] = config.SourceFile
		}
		r := &run{l: l}
		r.wellKnown()
		if c := r.checks[0]; c.Status != tt.want || !strings.Contains(c.Detail, tt.detail) {
			t.Errorf("%s (asked %v): %s — %s", filepath.Base(tt.path), tt.asked, c.Status, c.Detail)
		}
	}
}
