// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
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
// byte-equal to encoding/json on records built from the input: every
// field, strings with escapes, invalid UTF-8 and HTML characters, times in
// odd zones and out of range, messages, artifacts and metadata of every
// JSON type.
func FuzzStoredJSON(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\xff\x07<a href='x'>&amp;</a>\u2028\xe2\x80\xa9\xc3\x28 \"\\\n\t\x00"))
	f.Add(bytes.Repeat([]byte{0xff, 0x03, 0x11, 0x80, 0x7f}, 40))
	f.Add(bytes.Repeat([]byte{5, 250, 3, 9, 1, 'x', 0xe2, 0x80, 0xa8, 2}, 60))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		assertSameStored(t, g.record(), g.stored(), g.entry())
	})
}

func (g *gen) record() *Record {
	r := &Record{TaskID: g.str(), Caller: g.str(), Target: g.str(), Skill: g.str(), SessionID: g.str(), ContextID: g.str(),
		MemoryKey: g.str(), Deadline: g.time(), StartBy: g.time(), SweepFrom: g.time(), CreatedAt: g.time(), Chain: g.strs(),
		Message: g.message(), ContextHistory: g.messages(), Priority: a2a.Priority(g.str()), CorrelationID: g.str(),
		Handoff: g.raw(), Stream: g.n(2) == 1, AllowedTools: g.strs(), MaxContextTokens: g.n(3) - 1}
	if g.n(3) == 0 {
		b := g.n(2) == 1
		r.AllowNestedCalls = &b
	}
	if g.n(3) == 0 {
		r.CallerContext = &a2a.CallerContext{Key: g.str(), Count: g.n(4)}
		for range g.n(3) {
			r.CallerContext.Messages = append(r.CallerContext.Messages, a2a.ContextMessage{Role: g.str(), Text: g.str(), Time: g.time()})
		}
	}
	return r
}

func (g *gen) stored() *StoredResult {
	s := &StoredResult{TaskID: g.str(), Agent: g.str(), Caller: g.str(), SessionID: g.str(), Skill: g.str(),
		State: a2a.TaskState(g.str()), Status: a2a.ResultStatus(g.str()), Message: g.message(), Confidence: a2a.Confidence(g.str()),
		Warnings: g.strs(), Metadata: a2a.ResultMetadata{ProcessingTimeMs: int64(g.u64()), AgentVersion: g.str(), TokensUsed: int64(g.n(3)), Extra: g.meta(0)},
		Late: g.n(2) == 1, StoredAt: g.time(), Turn: g.n(3), ContextID: g.str(), AnswerBy: g.time()}
	for range g.n(3) {
		var a *a2a.Artifact
		if g.n(5) > 0 {
			a = &a2a.Artifact{ID: spec.ArtifactID(g.str()), Description: g.str(), Extensions: g.strs(), Metadata: g.meta(0), Name: g.str(), Parts: g.parts()}
		}
		s.Artifacts = append(s.Artifacts, a)
	}
	if g.n(2) == 0 {
		s.Error = &a2a.Error{Code: a2a.ErrorCode(g.str()), Message: g.str(), Retryable: g.n(2) == 1}
	}
	if g.n(3) == 0 {
		q := &a2a.Question{Text: g.str(), InputSchema: g.raw()}
		for range g.n(3) {
			q.Options = append(q.Options, a2a.Option{ID: g.str(), Label: g.str(), Description: g.str()})
		}
		if g.n(2) == 0 {
			q.Auth = &a2a.AuthNeed{Scheme: g.str(), Resource: g.str(), Scopes: g.strs(), URL: g.str()}
		}
		s.Question = q
	}
	return s
}

func (g *gen) entry() *HistoryEntry {
	return &HistoryEntry{Time: g.time(), CreatedAt: g.time(), TaskID: g.str(), SessionID: g.str(), Caller: g.str(), Target: g.str(),
		Skill: g.str(), Chain: g.strs(), Status: g.str(), State: a2a.TaskState(g.str()), Code: a2a.ErrorCode(g.str()),
		Error: g.str(), Task: g.str(), Output: g.str(), DurationMs: int64(g.u64()), Late: g.n(2) == 1}
}

// What follows is pkg/a2a's generator of FuzzWireEncode (wireenc_test.go).

// gen builds payloads from fuzz input: each choice takes the next byte (0
// once the input is used up).
type gen struct {
	data []byte
	i    int
}

func (g *gen) byte() byte {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return g.data[g.i-1]
}

func (g *gen) n(k int) int { return int(g.byte()) % k }

var genStrings = []string{"", "a", "<b>x & y</b>", "\u2028\u2029", "é€😀", "\x00\x1f\x7f", `"\/`, "\xff\xfe", "\ufffd",
	"line\nbreak\ttab\r\b\f", "\xe2\x80", "ROLE_USER", "TASK_STATE_COMPLETED"}

// str is a string of the pool or a slice of the input (any bytes).
func (g *gen) str() string {
	if k := g.n(len(genStrings) + 1); k < len(genStrings) {
		return genStrings[k]
	}
	l := g.n(24)
	if g.i+l > len(g.data) {
		l = len(g.data) - g.i
	}
	s := string(g.data[g.i : g.i+l])
	g.i += l
	return s
}

func (g *gen) strs() []string {
	switch g.n(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, g.n(4)+1)
	for i := range out {
		out[i] = g.str()
	}
	return out
}

func (g *gen) u64() uint64 {
	var b [8]byte
	for i := range b {
		b[i] = g.byte()
	}
	return binary.LittleEndian.Uint64(b[:])
}

var genZones = []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("CET", 3600), time.FixedZone("odd", -(5*3600 + 17)),
	time.FixedZone("day", 24*3600), time.FixedZone("min", -59)}

func (g *gen) time() time.Time {
	switch g.n(5) {
	case 0:
		return time.Time{}
	case 1:
		return genNow
	case 2:
		return time.Date(10000+g.n(3)-2, 12, 31, 23, 59, 59, 999999999, genZones[g.n(len(genZones))]) // year 9998..10000
	}
	sec := int64(g.u64() % (400 * 365 * 86400))
	return time.Unix(sec-200*365*86400, int64(g.u64()%1e9)).In(genZones[g.n(len(genZones))])
}

func (g *gen) float() float64 {
	switch g.n(6) {
	case 0:
		return math.Float64frombits(g.u64())
	case 1:
		return math.Inf(1)
	case 2:
		return 1e-7 * float64(g.n(100))
	case 3:
		return 1e21 * float64(g.n(100))
	case 4:
		return math.Copysign(0, -1) // a negative zero
	}
	return float64(g.n(256)) / 8
}

func (g *gen) anyValue(depth int) any {
	switch g.n(12) {
	case 0:
		return nil
	case 1, 2:
		return g.str()
	case 3:
		return g.n(2) == 1
	case 4:
		return g.float()
	case 5:
		if depth < 4 {
			return g.meta(depth + 1)
		}
	case 6:
		if depth < 4 {
			if g.n(4) == 0 {
				return []any(nil)
			}
			out := make([]any, g.n(4))
			for i := range out {
				out[i] = g.anyValue(depth + 1)
			}
			return out
		}
	case 7:
		return g.n(1000) - 500 // an int: through json.Marshal
	case 8:
		return json.Number(g.str())
	case 9:
		return json.RawMessage(g.raw())
	case 10:
		return struct {
			A string `json:"a"`
			B []byte `json:"b,omitempty"`
		}{g.str(), []byte(g.str())}
	case 11:
		return map[string]any(nil)
	}
	return g.str()
}

func (g *gen) meta(depth int) map[string]any {
	switch g.n(4) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	}
	m := map[string]any{}
	for range g.n(6) + 1 {
		m[g.str()] = g.anyValue(depth)
	}
	return m
}

var genRaws = []string{"", `{"a":1}`, ` { "a" : [1, 2] } `, `"<&>"`, "\"\u2028\"", `[1,`, `null`, "\t7\n", `{"k":"\u00e9"}`, "\"\xff\""}

func (g *gen) raw() json.RawMessage {
	if k := g.n(len(genRaws) + 1); k < len(genRaws) {
		if k == 0 && g.n(2) == 0 {
			return nil
		}
		return json.RawMessage(genRaws[k])
	}
	return json.RawMessage(g.str())
}

func (g *gen) part() *a2a.Part {
	if g.n(8) == 0 {
		return nil
	}
	p := &a2a.Part{Filename: g.str(), MediaType: g.str(), Metadata: g.meta(0)}
	switch g.n(6) {
	case 0:
		p.Content = spec.Text(g.str())
	case 1:
		if g.n(3) > 0 {
			p.Content = spec.Raw(g.str())
		} else {
			p.Content = spec.Raw(nil)
		}
	case 2:
		p.Content = spec.Data{Value: g.anyValue(0)}
	case 3:
		p.Content = spec.URL(g.str())
	case 4:
		p.Content = nil
	default:
		p.Content = spec.Text("plain text")
	}
	return p
}

func (g *gen) parts() spec.ContentParts {
	if g.n(6) == 0 {
		return nil
	}
	out := make(spec.ContentParts, g.n(4))
	for i := range out {
		out[i] = g.part()
	}
	return out
}

var genRoles = []spec.MessageRole{a2a.MessageRoleUser, a2a.MessageRoleAgent, spec.MessageRoleUnspecified, "ROLE_OTHER<>"}

func (g *gen) message() *a2a.Message {
	if g.n(6) == 0 {
		return nil
	}
	m := &a2a.Message{ID: g.str(), ContextID: g.str(), Extensions: g.strs(), Metadata: g.meta(0), Parts: g.parts(),
		Role: genRoles[g.n(len(genRoles))], TaskID: spec.TaskID(g.str())}
	for _, s := range g.strs() {
		m.ReferenceTasks = append(m.ReferenceTasks, spec.TaskID(s))
	}
	return m
}

func (g *gen) messages() []*a2a.Message {
	if g.n(3) == 0 {
		return nil
	}
	out := make([]*a2a.Message, g.n(3))
	for i := range out {
		out[i] = g.message()
	}
	return out
}

var genNow = time.Unix(1700000000, 0).UTC()
