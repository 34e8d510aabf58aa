// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// testRecord is the record of a task of session, as Invoke would write it.
func testRecord(t *testing.T, session, caller, target string, created time.Time) *Record {
	t.Helper()
	id := uuid.NewString()
	key, err := memory.ResultKey(session, target, id)
	if err != nil {
		t.Fatal(err)
	}
	return &Record{TaskID: id, Caller: caller, Target: target, Skill: "echo", SessionID: session, MemoryKey: key,
		Deadline: created.Add(30 * time.Second), CreatedAt: created, Chain: []string{"Origin", caller}}
}

func (w *world) history(session string) []HistoryEntry {
	w.t.Helper()
	h, err := History(context.Background(), w.mem, session)
	if err != nil {
		w.t.Fatal(err)
	}
	return h
}

func (w *world) apply(ops ...memory.Op) {
	w.t.Helper()
	if _, err := w.mem.Batch(context.Background(), ops...); err != nil {
		w.t.Fatal(err)
	}
}

func TestHistoryRecordsOutcomesOnceAndRedacted(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		core, logs := observer.New(zapcore.InfoLevel)
		c := w.caller(w.N("Auditor"), false, func(o *Options) { o.Logger = zap.New(core); o.ResultTTL = time.Minute; o.AuditTTL = 10 * time.Minute })
		session := "audit-" + uuid.NewString()[:8]
		t0 := time.Now().Add(-time.Minute).UTC().Truncate(time.Millisecond)

		// A success, then a failure whose message carries secrets.
		ok := testRecord(t, session, c.Name(), "Echo", t0)
		okRes := &StoredResult{TaskID: ok.TaskID, Agent: "Echo", State: a2a.TaskStateCompleted, Status: a2a.StatusPartial, StoredAt: t0.Add(1500 * time.Millisecond)}
		bad := testRecord(t, session, c.Name(), "Fetcher", t0.Add(time.Second))
		badRes := &StoredResult{TaskID: bad.TaskID, Agent: "Fetcher", State: a2a.TaskStateFailed, StoredAt: t0.Add(3 * time.Second),
			Error: a2a.NewError(a2a.CodeExecutionFailed, "GET https://bob:hunter2@api.example.com?token=T0K3N failed; Authorization: Bearer abc.def")}
		w.apply(c.appendHistoryOps(nil, c.historyEntry(ok, okRes), false)[0], c.appendHistoryOps(nil, c.historyEntry(bad, badRes), false)[0])
		w.apply(c.appendHistoryOps(nil, c.historyEntry(bad, badRes), false)[0]) // a redelivered response records nothing twice
		c.logOutcome(c.historyEntry(bad, badRes))

		h := w.history(session)
		if len(h) != 2 {
			t.Fatalf("history has %d entries, want 2: %+v", len(h), h)
		}
		first, second := h[0], h[1]
		if first.TaskID != ok.TaskID || first.Status != "PARTIAL" || first.State != a2a.TaskStateCompleted || first.Code != "" ||
			first.DurationMs != 1500 || first.Target != "Echo" || first.Skill != "echo" || first.Caller != c.Name() ||
			strings.Join(first.Chain, ">") != "Origin>"+c.Name() || !first.CreatedAt.Equal(t0) {
			t.Errorf("first entry = %+v", first)
		}
		if second.TaskID != bad.TaskID || second.Status != "ERROR" || second.Code != a2a.CodeExecutionFailed || second.DurationMs != 2000 {
			t.Errorf("second entry = %+v", second)
		}
		for _, secret := range []string{"hunter2", "T0K3N", "abc.def"} {
			if strings.Contains(second.Error, secret) {
				t.Errorf("history error %q leaks %q", second.Error, secret)
			}
		}
		if !strings.Contains(second.Error, "https://bob:xxxxx@api.example.com") {
			t.Errorf("history error = %q, want the redacted URL kept", second.Error)
		}
		key, _ := memory.CallHistoryKey(session, ok.TaskID)
		if ttl, err := w.mem.TTL(context.Background(), key); err != nil || ttl <= 9*time.Minute || ttl > 10*time.Minute {
			t.Errorf("entry TTL = %v, %v; want the AuditTTL (10m), not the ResultTTL (1m)", ttl, err)
		}

		lines := logs.FilterMessage("task finished").All()
		if len(lines) != 1 {
			t.Fatalf("%d log lines, want 1", len(lines))
		}
		f := lines[0].ContextMap()
		if f["task"] != bad.TaskID || f["session"] != session || f["target"] != "Fetcher" || f["code"] != "EXECUTION_FAILED" ||
			f["status"] != "ERROR" || f["state"] != string(a2a.TaskStateFailed) || f["duration"] != 2*time.Second || f["late"] != false ||
			strings.Contains(f["error"].(string), "hunter2") {
			t.Errorf("log fields = %v", f)
		}
	})
}

func TestHistoryLateResultReplacesTimeout(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		c := w.caller(w.N("Auditor"), false)
		session := "late-" + uuid.NewString()[:8]
		t0 := time.Now().UTC()
		rec := testRecord(t, session, c.Name(), "Slow", t0)
		timeout := &StoredResult{TaskID: rec.TaskID, Agent: "Slow", State: a2a.TaskStateFailed, Error: a2a.NewError(a2a.CodeTimeout, "no answer"), StoredAt: t0.Add(time.Second)}
		late := &StoredResult{TaskID: rec.TaskID, Agent: "Slow", State: a2a.TaskStateCompleted, Late: true, StoredAt: t0.Add(2 * time.Second)}

		w.apply(c.appendHistoryOps(nil, c.historyEntry(rec, timeout), false)[0])
		if h := w.history(session); len(h) != 1 || h[0].Status != "TIMEOUT" || h[0].Code != a2a.CodeTimeout || h[0].Late {
			t.Fatalf("after the timeout: %+v", h)
		}
		w.apply(c.appendHistoryOps(nil, c.historyEntry(rec, late), false)[0])
		w.apply(c.appendHistoryOps(nil, c.historyEntry(rec, timeout), false)[0]) // the sweeper's batch, retried after the late result: no effect
		h := w.history(session)
		if len(h) != 1 || h[0].Status != "SUCCESS" || !h[0].Late || h[0].Code != "" || h[0].DurationMs != 2000 {
			t.Fatalf("after the late result: %+v", h)
		}
	})
}

func TestRefusedCallsAreRecorded(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		core, logs := observer.New(zapcore.InfoLevel)
		name := w.N("Refuser")
		c := w.caller(name, false, func(o *Options) { o.Logger = zap.New(core); o.MaxDepth = 3 })
		session := "refused-" + uuid.NewString()[:8]
		ctx := ctxT(t)

		// Self-call: CYCLE_DETECTED, in the given session.
		if _, err := c.Invoke(ctx, Request{Target: name, Skill: "echo", Text: "x", SessionID: session}); a2a.CodeOf(err) != a2a.CodeCycleDetected {
			t.Fatalf("self-call: %v", err)
		}
		// From a handler: the session and chain are inherited; the chain is too long.
		parent := &a2a.TaskRequest{TaskID: uuid.NewString(), SessionID: session, Caller: "A", Target: name, Skill: "s",
			CallChain: []string{"A", "B"}, Deadline: time.Now().Add(time.Minute)}
		if _, err := c.Invoke(a2a.WithTask(ctx, parent, a2a.Trace{}), Request{Target: "Other", Skill: "echo", Text: "x"}); a2a.CodeOf(err) != a2a.CodeDepthExceeded {
			t.Fatalf("deep call: %v", err)
		}
		// No session known: logged, not stored. An untyped error: neither.
		if _, err := c.Invoke(ctx, Request{Target: name, Skill: "echo", Text: "x"}); a2a.CodeOf(err) != a2a.CodeCycleDetected {
			t.Fatalf("self-call without a session: %v", err)
		}
		if _, err := c.Invoke(ctx, Request{Target: "Other", Skill: "echo", SessionID: session}); err == nil || a2a.CodeOf(err) != "" {
			t.Fatalf("request without text: %v", err)
		}
		// Call refuses through the same audit as Invoke.
		callSession := session + "-call"
		if _, err := c.Call(ctx, Request{Target: name, Skill: "echo", Text: "x", SessionID: callSession}, nil); a2a.CodeOf(err) != a2a.CodeCycleDetected {
			t.Fatalf("self-call with Call: %v", err)
		}
		if h := w.history(callSession); len(h) != 1 || h[0].Code != a2a.CodeCycleDetected || h[0].Status != HistoryRefused {
			t.Fatalf("history of the Call refusal = %+v", h)
		}

		h := w.history(session)
		if len(h) != 2 {
			t.Fatalf("history = %+v, want 2 refusals", h)
		}
		byCode := map[a2a.ErrorCode]HistoryEntry{h[0].Code: h[0], h[1].Code: h[1]}
		cyc, deep := byCode[a2a.CodeCycleDetected], byCode[a2a.CodeDepthExceeded]
		if cyc.Status != HistoryRefused || cyc.State != a2a.TaskStateRejected || cyc.Target != name || cyc.Caller != name ||
			a2a.ValidateTaskID(cyc.TaskID) != nil || strings.Join(cyc.Chain, ">") != name || cyc.Error == "" {
			t.Errorf("cycle entry = %+v", cyc)
		}
		if deep.Status != HistoryRefused || deep.Target != "Other" || strings.Join(deep.Chain, ">") != "A>B>"+name {
			t.Errorf("depth entry = %+v", deep)
		}
		if n := logs.FilterMessage("call refused").Len(); n != 4 {
			t.Errorf("%d refusal log lines, want 4 (one per refusal)", n)
		}
		b, _ := json.Marshal(h[0])
		if !strings.Contains(string(b), `"status":"REFUSED"`) {
			t.Errorf("entry JSON = %s", b)
		}
	})
}

func TestHistoryOfUnknownOrBadSession(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	if h, err := History(context.Background(), w.mem, "nobody"); err != nil || len(h) != 0 {
		t.Fatalf("unknown session: %v, %v", h, err)
	}
	if _, err := History(context.Background(), w.mem, "../x"); err == nil {
		t.Fatal("a bad session id was accepted")
	}
	key, _ := memory.CallHistoryKey("broken", uuid.NewString())
	if err := w.mem.Set(context.Background(), key, []byte("{"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := History(context.Background(), w.mem, "broken"); err == nil || !strings.Contains(err.Error(), key) {
		t.Fatalf("undecodable entry: %v", err)
	}
}

func TestTruncateKeepsRunes(t *testing.T) {
	if got := text.Cut("héllo wörld", 6); got != "hé…" {
		t.Fatalf("truncate = %q", got)
	}
	if got := text.Cut("short", 10); got != "short" {
		t.Fatalf("truncate = %q", got)
	}
	long := strings.Repeat("password=secret ", 100)
	if got := safeMessage(long); len(got) > maxHistoryError || strings.Contains(got, "secret") {
		t.Fatalf("safeMessage = %q", got)
	}
}

// Every finalized call lands in its session's history: a success, a failure
// with a secret in its message, and a TIMEOUT from the sweeper.
func TestHistoryOfFinishedCalls(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		target := w.N("Echo")
		w.agent(target, map[string]agent.Handler{"echo": echo,
			"fail": func(context.Context, *agent.Task) (*agent.Result, error) {
				return nil, errors.New("dial redis://:hunter2@cache:6379 failed")
			}})
		c := w.caller(w.N("Primary"), true)
		session := "wired-" + uuid.NewString()[:8]
		ctx := ctxT(t)
		for _, req := range []Request{
			{Target: target, Skill: "echo", Text: "x", SessionID: session},
			{Target: target, Skill: "fail", Text: "x", SessionID: session},
			{Target: w.N("Nobody"), Skill: "echo", Text: "x", SessionID: session, Timeout: time.Second}, // room for the declarations under load
		} {
			if _, err := c.Call(ctx, req, nil); err != nil {
				t.Fatal(err)
			}
		}
		h := w.history(session)
		if len(h) != 3 || h[0].Status != "SUCCESS" || h[1].Status != "ERROR" || h[1].Code != a2a.CodeExecutionFailed ||
			h[1].Error != "dial redis://:xxxxx@cache:6379 failed" || h[2].Status != "TIMEOUT" || h[2].Target != w.N("Nobody") {
			t.Fatalf("history = %+v", h)
		}
	})
}

// StoredResult.encode writes what json.Marshal writes (keys aside).
func TestStoredResultEncodeMatchesJSON(t *testing.T) {
	now := time.Now()
	for _, s := range []*StoredResult{
		{TaskID: "t", Agent: "A", State: a2a.TaskStateCompleted, Status: a2a.StatusSuccess, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "x <&>"),
			Artifacts:  []*a2a.Artifact{{ID: "a", Name: "n", Parts: []*a2a.Part{a2a.NewDataPart(map[string]any{"v": 1.0}), a2a.NewTextPart("p")}}},
			Confidence: a2a.ConfidenceHigh, Warnings: []string{"w"}, Metadata: a2a.ResultMetadata{ProcessingTimeMs: 3}, Late: true, StoredAt: now},
		{TaskID: "t", Agent: "A", State: a2a.TaskStateFailed, Error: a2a.NewError(a2a.CodeTimeout, "late"), Artifacts: []*a2a.Artifact{}, StoredAt: now},
		{},
	} {
		std, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := s.encode()
		if err != nil {
			t.Fatal(err)
		}
		var a, b map[string]any
		if err := json.Unmarshal(std, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(fast, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("encode:\n%s\njson.Marshal:\n%s", fast, std)
		}
	}
}

// PendingTasks lists a published task until it is finalized (here, timed
// out by the sweeper), then no more.
func TestPendingTasks(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		c := w.caller(w.N("Primary"), true)
		inv, err := c.Invoke(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if ids, err := PendingTasks(ctxT(t), w.mem, w.N("Primary"), 10); err != nil || !slices.Equal(ids, []string{inv.TaskID}) {
			t.Fatalf("pending = %v, %v; want [%s]", ids, err, inv.TaskID)
		}
		if _, err := c.Wait(ctxT(t), inv.TaskID, nil); err != nil {
			t.Fatal(err)
		}
		if ids, err := PendingTasks(ctxT(t), w.mem, w.N("Primary"), 10); err != nil || len(ids) != 0 {
			t.Fatalf("pending after the TIMEOUT = %v, %v; want none", ids, err)
		}
	})
}
