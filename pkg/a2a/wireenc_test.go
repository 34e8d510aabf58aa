// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
)

// assertSameBytes checks the hand-written writer's bytes (or error) are
// encoding/json's for p's mirror.
func assertSameBytes(t *testing.T, p Payload) {
	t.Helper()
	want, wantErr := marshalMirror(p)
	got, err := marshalPayload(p)
	switch {
	case wantErr != nil || err != nil:
		if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%s: error %v, encoding/json's %v", p.Kind(), err, wantErr)
		}
	case !bytes.Equal(got, want):
		t.Fatalf("%s: the writer wrote\n%s\nencoding/json\n%s", p.Kind(), got, want)
	}
}

// The writer writes encoding/json's bytes for every sample payload, and
// takes the codec's usual payloads itself (no fallback).
func TestWireEncodeMatchesEncodingJSON(t *testing.T) {
	for _, p := range append(wirePayloads(), sampleTurnRequest(), sampleQuestion()) {
		assertSameBytes(t, p)
	}
	for _, p := range []Payload{sampleRequest(), sampleTurnRequest(), sampleQuestion(), samplePayloads()[2]} {
		var ok bool
		switch v := p.(type) {
		case *TaskRequest:
			_, ok = encodeTaskRequest(v)
		case *TaskResult:
			_, ok = encodeTaskResult(v)
		}
		if !ok {
			t.Errorf("%s: the hand-written writer gave up on a usual payload", p.Kind())
		}
	}
}

// What encoding/json refuses, the writer leaves to it: the same error.
func TestWireEncodeFallsBackOnWhatEncodingJSONRefuses(t *testing.T) {
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := map[string]Payload{
		"time out of range": &TaskResult{TaskID: "t", Agent: "A", State: TaskStateCompleted, Time: far},
		"NaN in data": &TaskResult{TaskID: "t", Agent: "A", State: TaskStateCompleted, Time: testNow,
			Message: &Message{Parts: ContentPartsOf(NewDataPart(map[string]any{"x": math.NaN()}))}},
		"invalid raw":  &TaskRequest{TaskID: "t", Input: json.RawMessage(`{"a":`), Deadline: testNow},
		"channel":      &TaskRequest{TaskID: "t", Message: &Message{Metadata: map[string]any{"c": make(chan int)}}},
		"offset a day": &TaskRequest{TaskID: "t", Deadline: testNow.In(time.FixedZone("x", 24*3600))},
	}
	for name, p := range cases {
		if _, err := marshalMirror(p); err == nil {
			t.Fatalf("%s: encoding/json took it", name)
		}
		t.Run(name, func(t *testing.T) { assertSameBytes(t, p) })
	}
}

// FuzzWireEncode holds the hand-written writer byte-equal to encoding/json
// on payloads built from the input: every field, strings with escapes,
// invalid UTF-8 and HTML characters, times in odd zones and out of range,
// metadata maps and data values of every JSON type, nested parts.
func FuzzWireEncode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x01\xff\x07<a href='x'>&amp;</a>\u2028\xe2\x80\xa9\xc3\x28 \"\\\n\t\x00"))
	f.Add(bytes.Repeat([]byte{0xff, 0x03, 0x11, 0x80, 0x7f}, 40))
	f.Add(bytes.Repeat([]byte{5, 250, 3, 9, 1, 'x', 0xe2, 0x80, 0xa8, 2}, 60))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		assertSameBytes(t, g.request())
		assertSameBytes(t, g.result())
	})
}

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
		return testNow
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

func (g *gen) part() *Part {
	if g.n(8) == 0 {
		return nil
	}
	p := &Part{Filename: g.str(), MediaType: g.str(), Metadata: g.meta(0)}
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

var genRoles = []spec.MessageRole{MessageRoleUser, MessageRoleAgent, spec.MessageRoleUnspecified, "ROLE_OTHER<>"}

func (g *gen) message() *Message {
	if g.n(6) == 0 {
		return nil
	}
	m := &Message{ID: g.str(), ContextID: g.str(), Extensions: g.strs(), Metadata: g.meta(0), Parts: g.parts(),
		Role: genRoles[g.n(len(genRoles))], TaskID: spec.TaskID(g.str())}
	for _, s := range g.strs() {
		m.ReferenceTasks = append(m.ReferenceTasks, spec.TaskID(s))
	}
	return m
}

func (g *gen) messages() []*Message {
	if g.n(3) == 0 {
		return nil
	}
	out := make([]*Message, g.n(3))
	for i := range out {
		out[i] = g.message()
	}
	return out
}

func (g *gen) request() *TaskRequest {
	r := &TaskRequest{TaskID: g.str(), ContextID: g.str(), SessionID: g.str(), Caller: g.str(), Target: g.str(), Skill: g.str(),
		Message: g.message(), Input: g.raw(), Priority: Priority(g.str()), Deadline: g.time(), StartBy: g.time(),
		CorrelationID: g.str(), Handoff: g.raw(), CallChain: g.strs(), Stream: g.n(2) == 1, CreatedAt: g.time(),
		Turn: g.n(5) - 1, History: g.messages(), ContextHistory: g.messages(), AllowedTools: g.strs(), MaxContextTokens: g.n(3) * 500}
	if k := g.n(3); k > 0 {
		b := k == 1
		r.AllowNestedCalls = &b
	}
	if g.n(3) == 0 {
		c := &CallerContext{Key: g.str(), Count: g.n(4)}
		for range g.n(3) {
			c.Messages = append(c.Messages, ContextMessage{Role: g.str(), Text: g.str(), Time: g.time()})
		}
		r.CallerContext = c
	}
	return r
}

func (g *gen) result() *TaskResult {
	r := &TaskResult{TaskID: g.str(), Agent: g.str(), State: TaskState(g.str()), Status: ResultStatus(g.str()), Message: g.message(),
		Confidence: Confidence(g.str()), Warnings: g.strs(), Time: g.time(), Turn: g.n(3), Attempt: g.n(3),
		Metadata: ResultMetadata{ProcessingTimeMs: int64(g.u64() >> g.n(64)), AgentVersion: g.str(), TokensUsed: -int64(g.n(3)), Extra: g.meta(0)}}
	if g.n(3) == 0 {
		r.State = spec.TaskStateUnspecified
	}
	if g.n(2) == 0 {
		for range g.n(4) {
			var a *Artifact
			if g.n(5) > 0 {
				a = &Artifact{ID: spec.ArtifactID(g.str()), Description: g.str(), Extensions: g.strs(), Metadata: g.meta(0), Name: g.str(), Parts: g.parts()}
			}
			r.Artifacts = append(r.Artifacts, a)
		}
	}
	if g.n(3) == 0 {
		q := &Question{Text: g.str(), InputSchema: g.raw()}
		for range g.n(3) {
			q.Options = append(q.Options, Option{ID: g.str(), Label: g.str(), Description: g.str()})
		}
		if g.n(2) == 0 {
			q.Options = []Option{}
		}
		if g.n(2) == 0 {
			q.Auth = &AuthNeed{Scheme: g.str(), Resource: g.str(), Scopes: g.strs(), URL: g.str()}
		}
		r.Question = q
	}
	return r
}
