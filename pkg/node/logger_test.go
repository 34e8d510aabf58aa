// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// count is how many JSON lines b holds per message.
func count(t *testing.T, b *testenv.Buffer) map[string]int {
	n := map[string]int{}
	for line := range bytes.Lines(b.Bytes()) {
		var e struct {
			Msg string `json:"msg"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("not a JSON log line: %q: %v", line, err)
		}
		n[e.Msg]++
	}
	return n
}

// The logger NewLogger gives keeps every per-task audit line: 3,000 tasks
// (one in ten failing) and 3,000 refused calls on the embedded node write
// 3,000 "task finished", 2,700 "task completed", 300 "task failed" and 3,000
// "call refused" lines. A sampling logger over the same writer keeps far fewer.
func TestNewLoggerKeepsEveryAuditLine(t *testing.T) {
	const tasks, workers = 3000, 8 // workers stay below limits.max_in_flight
	var out testenv.Buffer
	log, err := NewLogger(config.LogConfig{Level: "info", Format: "json"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cfg := config.Default()
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "Auditor", Allow: []string{"Audited"}}}
	n, err := Open(ctx, cfg, "test", log)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = n.Close() }()
	a, err := n.Agent(a2a.AgentCard{Name: "Audited", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("work", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		if task.Text() == "fail" {
			return nil, a2a.NewError(a2a.CodeExecutionFailed, "asked to fail")
		}
		return agent.TextResult("done"), nil
	}); err != nil {
		t.Fatal(err)
	}
	c, err := n.Caller("Auditor", nil)
	if err != nil {
		t.Fatal(err)
	}
	var runs sync.WaitGroup
	for _, r := range []interface{ Run(context.Context) error }{a, c} {
		runs.Go(func() { _ = r.Run(ctx) })
	}
	defer func() { cancel(); runs.Wait() }()

	jobs := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				text := "ok"
				if i%10 == 0 {
					text = "fail"
				}
				if _, err := c.Call(ctx, caller.Request{Target: "Audited", Skill: "work", Text: text, SessionID: "s1"}, nil); err != nil {
					errs <- err
					return
				}
				_, err := c.Invoke(ctx, caller.Request{Target: "Auditor", Skill: "work", Text: text, SessionID: "s1"})
				if ae := (*a2a.Error)(nil); !errors.As(err, &ae) || ae.Code != a2a.CodeCycleDetected {
					errs <- fmt.Errorf("a self-call: %v, want CYCLE_DETECTED", err)
					return
				}
			}
		})
	}
	for i := range tasks {
		select {
		case jobs <- i:
		case err := <-errs:
			t.Fatal(err)
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := count(t, &out)
	want := map[string]int{"task finished": tasks, "task completed": tasks * 9 / 10, "task failed": tasks / 10, "call refused": tasks}
	for msg, w := range want {
		if got[msg] != w {
			t.Errorf("%q lines = %d, want %d", msg, got[msg], w)
		}
	}

	// The guidance is needed: zap.NewProduction's sampler over the same core drops them.
	var sampledOut testenv.Buffer
	core := zapcore.NewSamplerWithOptions(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()),
		zapcore.AddSync(&sampledOut), zap.InfoLevel), time.Second, 100, 100)
	sampled, err := caller.New(caller.Options{Name: "Sampled", Bus: n.Bus, Memory: n.Memory, Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sampled.Close() }()
	for range tasks {
		_, _ = sampled.Invoke(ctx, caller.Request{Target: "Sampled", Skill: "work", SessionID: "s1"})
	}
	if kept := count(t, &sampledOut)["call refused"]; kept >= tasks {
		t.Errorf("a sampling logger kept all %d refusals: the guidance would be needless", kept)
	}
}

// nilStringer panics in String, as a nil pointer's method would.
type nilStringer struct{ p *int }

func (n nilStringer) String() string { return fmt.Sprint(*n.p) }

// Every line of the binaries' logger is redacted: message, strings, errors, Stringers.
func TestLoggerRedactsEveryLine(t *testing.T) {
	var buf bytes.Buffer
	log, err := NewLogger(config.LogConfig{Level: "info", Format: "json"}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	log.With(zap.String("dsn", "postgres://app:hunter2@db/x")).Info("sent token=T0K3N",
		zap.String("text", "Authorization: Bearer abc.def"), zap.Error(errors.New("key sk-proj-0123456789abcdefXYZ refused")),
		zap.Stringer("url", stringer("redis://:pw9@h:6379/0")), zap.Stringer("nil", nilStringer{}), zap.Int("n", 3))
	out := buf.String()
	for _, secret := range []string{"hunter2", "T0K3N", "abc.def", "sk-proj", "pw9"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log line holds %q: %s", secret, out)
		}
	}
	for _, kept := range []string{`"n":3`, "postgres://app:xxxxx@db/x", `"nilError"`} {
		if !strings.Contains(out, kept) {
			t.Errorf("the log line lost %q: %s", kept, out)
		}
	}
}

type stringer string

func (s stringer) String() string { return string(s) }
