// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/uuid"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const leakyAnswer = "use https://svc:hunter2@db.example.com/x with Authorization: Bearer abc.def.ghi and key sk-proj-0123456789abcdefXYZ"

var leakySecrets = []string{"hunter2", "abc.def.ghi", "sk-proj-0123456789abcdefXYZ", "s3cr3t-value"}

// leaky answers with secrets in its text, a data part and an artifact.
func leaky(_ context.Context, _ *agent.Task) (*agent.Result, error) {
	r := agent.TextResult(leakyAnswer)
	r.Message.Parts = append(r.Message.Parts, spec.NewDataPart(map[string]any{"apiKey": "s3cr3t-value", "rows": 3.0}))
	r.Artifacts = []*a2a.Artifact{{ID: "a1", Name: "log", Parts: []*a2a.Part{spec.NewTextPart("token=s3cr3t-value")}}}
	return r, nil
}

func TestStoredResultsAreRedactedUnlessKept(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		name := w.N("Leaky")
		w.agent(name, map[string]agent.Handler{"leak": leaky})
		var lines lockedBuffer
		redacting := w.caller(w.N("Careful"), true, func(o *Options) { o.AuditWriter = &lines; o.PreviewRunes = 40 })
		keeping := w.caller(w.N("Owner"), true, func(o *Options) { o.KeepSecrets = true })
		session := "redact-" + uuid.NewString()[:8]

		out, err := redacting.Call(ctxT(t), Request{Target: name, Skill: "leak", Text: "connect with password=opensesame", SessionID: session}, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("Call = %v, %v", err, out.Err())
		}
		stored, _ := json.Marshal(w.stored(out.MemoryKey))
		for _, s := range leakySecrets {
			if strings.Contains(string(stored), s) {
				t.Errorf("the stored result holds %q: %s", s, stored)
			}
		}
		if !strings.Contains(string(stored), `"rows":3`) || !strings.Contains(string(stored), "https://svc:xxxxx@db.example.com/x") {
			t.Errorf("the stored result lost what is no secret: %s", stored)
		}
		turns := w.turns(session)
		for _, s := range leakySecrets {
			if strings.Contains(turns[len(turns)-1].Content, s) {
				t.Errorf("the notification holds %q: %s", s, turns[len(turns)-1].Content)
			}
		}
		// One JSON line per record, with bounded redacted previews.
		var rec struct {
			Kind string `json:"kind"`
			HistoryEntry
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(lines.String())), &rec); err != nil {
			t.Fatalf("audit line %q: %v", lines.String(), err)
		}
		if rec.Kind != AuditKind || rec.TaskID != out.TaskID || rec.Task != "connect with password=xxxxx" ||
			len([]rune(rec.Output)) != 41 || strings.Contains(rec.Output, "hunter2") {
			t.Errorf("audit line = %+v", rec)
		}

		// KeepSecrets stores the answer as sent; its notification is still redacted.
		session2 := session + "-kept"
		out, err = keeping.Call(ctxT(t), Request{Target: name, Skill: "leak", Text: "x", SessionID: session2}, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("Call = %v, %v", err, out.Err())
		}
		if got := w.stored(out.MemoryKey).Text(); got != leakyAnswer {
			t.Errorf("kept result = %q, want it as sent", got)
		}
		turns = w.turns(session2)
		if last := turns[len(turns)-1].Content; strings.Contains(last, "hunter2") || !strings.Contains(last, redact.Secret) {
			t.Errorf("the notification of a kept result = %q", last)
		}
	})
}

// BenchmarkPerCallAudit measures what this work adds to a call's
// finalization: the answer redacted before it is stored, the audit record's
// previews, and its JSON for the stream — for the bench chain's answer, a
// 2 KiB answer without secrets and one with.
func BenchmarkPerCallAudit(b *testing.B) {
	prose := strings.Repeat("The quarterly report shows revenue growth of 12% driven by new customers in Europe. ", 24)
	c := &Caller{opts: Options{PreviewRunes: DefaultPreviewRunes, AuditStreamMaxLen: 1000}}
	now := time.Now()
	rec := &Record{TaskID: "t1", Caller: "Bench", Target: "Echo", Skill: "echo", SessionID: "s1", MemoryKey: "session/s1/a2a/Echo/t1/result",
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, "hi")}
	for _, tc := range []struct{ name, text string }{{"echo", "echo: hi"}, {"prose-2KiB", prose}, {"secrets-2KiB", prose + leakyAnswer}} {
		proto := StoredResult{TaskID: "t1", Agent: "Echo", State: a2a.TaskStateCompleted, StoredAt: now,
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, tc.text)}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := testenv.ProcessCPU()
			for b.Loop() {
				s := proto // redactResult replaces the parts it changes, never changes them
				redactResult(&s)
				_ = c.exportOps(c.historyEntry(rec, &s))
			}
			b.ReportMetric(float64((testenv.ProcessCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
