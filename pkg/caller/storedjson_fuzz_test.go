// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/a2a/a2afuzz"
)

// The hand-written writers of the stored records (storedjson.go) write
// encoding/json's bytes, and give up where it fails: the standard encoder
// then says why.

// assertSameStored checks the hand-written bytes of r, s and e against encoding/json's.
func assertSameStored(t *testing.T, r *Record, s *StoredResult, e *HistoryEntry) {
	t.Helper()
	same := func(what string, got []byte, ok bool, want []byte, wantErr error) {
		t.Helper()
		switch {
		case !ok && wantErr == nil:
			t.Fatalf("%s: the writer gave up on what encoding/json writes:\n%s", what, want)
		case ok && wantErr != nil:
			t.Fatalf("%s: the writer wrote what encoding/json refuses (%v):\n%s", what, wantErr, got)
		case ok && !bytes.Equal(got, want):
			t.Fatalf("%s: the writer wrote\n%s\nencoding/json\n%s", what, got, want)
		}
	}
	got, ok := r.appendJSON()
	want, err := r.encodeStd()
	same("record", got, ok, want, err)
	if _, err := r.encode(); (err == nil) != (ok || err == nil) {
		t.Fatalf("record: encode's error %v", err)
	}
	got, ok = s.appendJSON()
	want, err = s.encodeStd()
	same("stored result", got, ok, want, err)
	got, ok = e.appendJSON()
	want, err = json.Marshal(e)
	same("history entry", got, ok, want, err)
	entry, record := e.encode(true)
	wantRecord, _ := json.Marshal(auditRecord{AuditKind, e})
	if !bytes.Equal(entry, want) || !bytes.Equal(record, wantRecord) {
		t.Fatalf("history entry and audit record:\n%s\n%s\nencoding/json\n%s\n%s", entry, record, want, wantRecord)
	}
}

// The usual records are written by hand, as encoding/json writes them.
func TestStoredJSONMatchesEncodingJSON(t *testing.T) {
	now := time.Unix(1700000000, 123456789).UTC()
	yes := true
	r := &Record{TaskID: "t1", Caller: "C", Target: "A", Skill: "k", SessionID: "s1", ContextID: "c1", MemoryKey: "m",
		Deadline: now, StartBy: now, SweepFrom: now, CreatedAt: now, Chain: []string{"C"},
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, "hello <b>&"), ContextHistory: []*a2a.Message{a2a.NewTextMessage(a2a.MessageRoleAgent, "x")},
		Priority: "high", CorrelationID: "cor", Handoff: json.RawMessage(` {"a": 1} `), AllowNestedCalls: &yes, Stream: true,
		CallerContext: &a2a.CallerContext{Messages: []a2a.ContextMessage{{Role: "user", Text: "t", Time: now}}, Count: 1},
		AllowedTools:  []string{}, MaxContextTokens: 7}
	s := &StoredResult{TaskID: "t1", Agent: "A", Caller: "C", SessionID: "s1", Skill: "k", State: a2a.TaskStateInputRequired,
		Status: a2a.StatusPartial, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "x"), Confidence: "high", Warnings: []string{"w"},
		Artifacts: []*a2a.Artifact{{ID: "a1", Name: "n", Parts: spec.ContentParts{a2a.NewDataPart(map[string]any{"k": 1.5})}}},
		Metadata:  a2a.ResultMetadata{ProcessingTimeMs: 3, AgentVersion: "v", TokensUsed: 9, Extra: map[string]any{"b": "y", "a": []any{true}}},
		Error:     a2a.NewError(a2a.CodeTimeout, "slow"), Late: true, StoredAt: now,
		Question: &a2a.Question{Text: "q", Options: []a2a.Option{{ID: "a", Label: "A"}}, InputSchema: json.RawMessage(`{"type":"object"}`),
			Auth: &a2a.AuthNeed{Scheme: "oauth2", Scopes: []string{"s"}}}, Turn: 2, ContextID: "c1", AnswerBy: now}
	e := &HistoryEntry{Time: now, CreatedAt: now, TaskID: "t1", SessionID: "s1", Caller: "C", Target: "A", Skill: "k", Chain: []string{"C"},
		Status: "ERROR", State: a2a.TaskStateFailed, Code: a2a.CodeTimeout, Error: "e", Task: "t", Output: "o", DurationMs: 5, Late: true}
	assertSameStored(t, r, s, e)
	assertSameStored(t, &Record{}, &StoredResult{}, &HistoryEntry{})
	for what, ok := range map[string]bool{"record": okOf(r.appendJSON()), "stored result": okOf(s.appendJSON()), "history entry": okOf(e.appendJSON())} {
		if !ok {
			t.Errorf("%s: the writer gave up on a usual record", what)
		}
	}
	for what, b := range map[string][]byte{"record": mustEncode(t, r.encode), "stored result": mustEncode(t, s.encode)} {
		if cap(b) != len(b) { // stored as it is, kept until its batch went out
			t.Errorf("%s: %d bytes in a buffer of %d", what, len(b), cap(b))
		}
	}
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	assertSameStored(t, &Record{Deadline: far}, &StoredResult{StoredAt: far}, &HistoryEntry{Time: far})
	if _, err := (&Record{Deadline: far}).encode(); err == nil {
		t.Error("a record whose deadline encoding/json refuses was encoded")
	}
}

func okOf(_ []byte, ok bool) bool { return ok }

func mustEncode(t *testing.T, encode func() ([]byte, error)) []byte {
	t.Helper()
	b, err := encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzStoredJSON holds the hand-written writers of the stored records
// byte-equal to encoding/json on records built from the input (a2afuzz):
// every field, strings with escapes, invalid UTF-8 and HTML characters,
// times in odd zones and out of range, messages, artifacts and metadata of
// every JSON type.
func FuzzStoredJSON(f *testing.F) {
	a2afuzz.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := a2afuzz.New(data)
		assertSameStored(t, genRecord(g), genStored(g), genEntry(g))
	})
}

// genRecord is a task record with every field, of g's values.
func genRecord(g *a2afuzz.Gen) *Record {
	r := &Record{TaskID: g.Str(), Caller: g.Str(), Target: g.Str(), Skill: g.Str(), SessionID: g.Str(), ContextID: g.Str(),
		MemoryKey: g.Str(), Deadline: g.Time(), StartBy: g.Time(), SweepFrom: g.Time(), CreatedAt: g.Time(), Chain: g.Strs(),
		Message: g.Message(), ContextHistory: g.Messages(), Priority: a2a.Priority(g.Str()), CorrelationID: g.Str(),
		Handoff: g.Raw(), Stream: g.N(2) == 1, AllowedTools: g.Strs(), MaxContextTokens: g.N(3) - 1}
	if g.N(3) == 0 {
		b := g.N(2) == 1
		r.AllowNestedCalls = &b
	}
	r.CallerContext = g.CallerContext()
	return r
}

// genStored is a stored result with every field, of g's values.
func genStored(g *a2afuzz.Gen) *StoredResult {
	s := &StoredResult{TaskID: g.Str(), Agent: g.Str(), Caller: g.Str(), SessionID: g.Str(), Skill: g.Str(),
		State: a2a.TaskState(g.Str()), Status: a2a.ResultStatus(g.Str()), Message: g.Message(), Confidence: a2a.Confidence(g.Str()),
		Warnings: g.Strs(), Metadata: a2a.ResultMetadata{ProcessingTimeMs: int64(g.U64()), AgentVersion: g.Str(), TokensUsed: int64(g.N(3)), Extra: g.Meta(0)},
		Late: g.N(2) == 1, StoredAt: g.Time(), Turn: g.N(3), ContextID: g.Str(), AnswerBy: g.Time()}
	for range g.N(3) {
		s.Artifacts = append(s.Artifacts, g.Artifact())
	}
	if g.N(2) == 0 {
		s.Error = &a2a.Error{Code: a2a.ErrorCode(g.Str()), Message: g.Str(), Retryable: g.N(2) == 1}
	}
	s.Question = g.Question()
	return s
}

// genEntry is a history entry with every field, of g's values.
func genEntry(g *a2afuzz.Gen) *HistoryEntry {
	return &HistoryEntry{Time: g.Time(), CreatedAt: g.Time(), TaskID: g.Str(), SessionID: g.Str(), Caller: g.Str(), Target: g.Str(),
		Skill: g.Str(), Chain: g.Strs(), Status: g.Str(), State: a2a.TaskState(g.Str()), Code: a2a.ErrorCode(g.Str()),
		Error: g.Str(), Task: g.Str(), Output: g.Str(), DurationMs: int64(g.U64()), Late: g.N(2) == 1}
}
