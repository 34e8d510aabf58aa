// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/tools"
)

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The secrets an agent's answer carries: an API key, a bearer token, a
// password in a URL and a configured pattern's match.
var leaks = []string{"sk-proj-0123456789abcdefXYZ", "abc.def.ghi", "hunter2", "ACME-123456"}

const leaky = "key sk-proj-0123456789abcdefXYZ, Authorization: Bearer abc.def.ghi, db https://svc:hunter2@db.example.com/x, ticket ACME-123456. "

// noLeak fails when s holds one of the secrets.
func noLeak(t *testing.T, where, s string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(s, l) {
			t.Errorf("%s holds %q: %s", where, l, s)
		}
	}
}

// On the real servers: the answer's secrets reach the notification turn,
// the tool result, the stored result, the log and the audit redacted; the
// audit record outlives the result and carries bounded previews; the
// export stream receives it.
func TestAuditAndRedactionOnTheRealServers(t *testing.T) {
	defer redact.SetDefault(nil)
	w := testworld.Real(t) // its exchange and key prefix, removed at the end with the queues of w.N's names
	id := uuid.NewString()[:8]
	cfg := config.Default()
	cfg.Bus.URL, cfg.Bus.Exchange, cfg.Redis.URL, cfg.Redis.KeyPrefix = w.AMQPURL, w.Exchange, w.RedisURL, w.KeyPrefix
	cfg.Policy.Default = "allow"
	cfg.Memory.ResultTTL = 2 * time.Second
	cfg.Audit.Retention, cfg.Audit.PreviewChars, cfg.Audit.Export = time.Hour, 80, config.AuditExportStream
	cfg.Redact.Patterns = []string{`ACME-[0-9]{6}`}
	cfg.Log.Format = "json"
	var logs syncBuffer
	log, err := node.NewLogger(cfg.Log, &logs)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	n, err := node.Open(ctx, cfg, "audit-test", log)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	opts, err := goredis.ParseURL(cfg.Redis.URL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(opts)
	defer rdb.Close()
	stream := cfg.Redis.KeyPrefix + "kv:" + memory.AuditStreamKey
	defer rdb.Del(context.WithoutCancel(ctx), stream)

	name := w.N("Leaky")
	ag, err := n.Agent(a2a.AgentCard{Name: name, Version: "1.0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Handle("leak", func(ctx context.Context, tk *agent.Task) (*agent.Result, error) {
		return agent.TextResult(leaky + strings.Repeat("filler words ", 40)), nil
	}); err != nil {
		t.Fatal(err)
	}
	c, err := n.Caller(w.N("Auditor"), nil)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = ag.Run(runCtx) })
	wg.Go(func() { _ = c.Run(runCtx) })
	defer wg.Wait()
	defer stop()

	session := "audit-" + id
	out, err := c.Call(ctx, caller.Request{Target: name, Skill: "leak", Text: "please use password=opensesame", SessionID: session}, nil)
	if err != nil || out.Err() != nil {
		t.Fatalf("Call = %v, %v", err, out.Err())
	}
	noLeak(t, "the outcome", out.Result.Text())
	if !strings.Contains(out.Result.Text(), redact.Secret) {
		t.Fatalf("the outcome %q hides nothing", out.Result.Text())
	}

	// The tool result a model reads, and the notification turn.
	set, err := tools.New(tools.Deps{Caller: c, Memory: n.Memory, SessionID: session, Only: []string{"get_from_working_memory"}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	got, err := set.Dispatch(ctx, "get_from_working_memory", json.RawMessage(`{"key":"`+out.MemoryKey+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	noLeak(t, "get_from_working_memory", string(got))
	turns, err := n.Memory.Turns(ctx, session, 0, 0)
	if err != nil || len(turns) == 0 {
		t.Fatalf("turns = %v, %v", turns, err)
	}
	noLeak(t, "the notification turn", turns[len(turns)-1].Content)

	// The log: a line that carries the raw text.
	n.Log.Info("agent said", zap.String("text", leaky), zap.Error(errors.New(leaky)))
	noLeak(t, "the log", logs.String())
	if !strings.Contains(logs.String(), "agent said") {
		t.Fatalf("the log line is missing: %s", logs.String())
	}

	// The audit record outlives the result, with bounded redacted previews.
	testenv.Eventually(t, "the result to expire", func() bool {
		_, err := n.Memory.Get(ctx, out.MemoryKey)
		return errors.Is(err, memory.ErrNotFound)
	})
	hist, err := caller.History(ctx, n.Memory, session)
	if err != nil || len(hist) != 1 {
		t.Fatalf("History = %v, %v; want the one call", hist, err)
	}
	e := hist[0]
	noLeak(t, "the audit output", e.Output)
	if e.Task != "please use password=xxxxx" || e.Status != "SUCCESS" || e.Target != name || e.DurationMs < 0 {
		t.Errorf("audit record = %+v", e)
	}
	if n := len([]rune(e.Output)); n == 0 || n > 81 || !strings.HasSuffix(e.Output, "…") {
		t.Errorf("output preview is %d runes, want 1..80 and the ellipsis: %q", n, e.Output)
	}
	if ttl, err := n.Memory.TTL(ctx, mustKey(t, session, e.TaskID)); err != nil || ttl < 30*time.Minute {
		t.Errorf("the record's TTL = %s, %v; want audit.retention (1h)", ttl, err)
	}

	// The export stream received it.
	msgs, err := rdb.XRange(ctx, stream, "-", "+").Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("stream %s = %v, %v; want one record", stream, msgs, err)
	}
	rec, _ := msgs[0].Values[memory.StreamField].(string)
	noLeak(t, "the stream record", rec)
	if !strings.Contains(rec, `"kind":"a2abus.audit"`) || !strings.Contains(rec, e.TaskID) {
		t.Errorf("stream record = %s", rec)
	}
}

func mustKey(t *testing.T, session, task string) string {
	k, err := memory.CallHistoryKey(session, task)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
