// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
)

// wirePayloads are payloads with every shape of A2A content the mirrors
// handle: each part kind, file names, media types, metadata, artifacts, nil
// entries, unspecified roles and states.
func wirePayloads() []Payload {
	msg := &Message{ID: "m-1", ContextID: "c-1", Extensions: []string{"urn:x"}, Metadata: map[string]any{"k": "v"},
		ReferenceTasks: []spec.TaskID{"t-0"}, TaskID: "t-1", Role: MessageRoleAgent, Parts: ContentPartsOf(
			NewTextPart("<b>text & more</b>"),
			&Part{Content: spec.Raw([]byte{0, 1, 2, 255}), Filename: "blob.bin", MediaType: "application/octet-stream"},
			&Part{Content: spec.Data{Value: map[string]any{"n": 1.5, "list": []any{"a", nil, true}}}, Metadata: map[string]any{"m": 1.0}},
			&Part{Content: spec.URL("https://example.com/doc.pdf"), MediaType: "application/pdf"},
			NewTextPart(""),
			nil,
		)}
	unspecified := &Message{ID: "m-2", Parts: ContentPartsOf(NewTextPart("x"))}
	out := append(samplePayloads(),
		&TaskStatus{TaskID: "t-1", Agent: "A", State: spec.TaskStateUnspecified, Message: unspecified, Time: testNow},
		&TaskStatus{TaskID: "t-1", Agent: "A", State: TaskStateWorking, Time: testNow},
		&TaskResult{TaskID: "t-1", Agent: "A", State: TaskStateCompleted, Message: msg, Time: testNow,
			Artifacts: []*Artifact{nil, {ID: "a1", Description: "d", Extensions: []string{"e"}, Metadata: map[string]any{"x": "y"}, Name: "n", Parts: msg.Parts}, {ID: "a2"}}},
		&TaskResult{TaskID: "t-1", Agent: "A", State: TaskStateFailed, Time: testNow},
		&TaskError{TaskID: "t-1", Agent: "A", Code: CodeTimeout, Message: "late", Time: testNow},
	)
	req := sampleRequest()
	req.Message = msg
	return append(out, req, &TaskRequest{TaskID: "t-2"})
}

// ContentPartsOf is a test shorthand for a parts list.
func ContentPartsOf(parts ...*Part) spec.ContentParts { return parts }

// The mirrors write what a2a-go's JSON methods write, for every payload:
// decoded the standard way, both give the same value.
func TestWireMarshalMatchesStandard(t *testing.T) {
	for _, p := range wirePayloads() {
		assertSameEncode(t, p)
	}
}

// assertSameEncode checks marshalPayload writes what json.Marshal writes
// (both decode, the standard way, to the same payload and the same JSON
// values).
func assertSameEncode(t *testing.T, p Payload) {
	t.Helper()
	std, stdErr := json.Marshal(p)
	fast, err := marshalPayload(p)
	if stdErr != nil || err != nil {
		if stdErr == nil || err == nil {
			t.Errorf("%s: encode error %v, standard %v", p.Kind(), err, stdErr)
		}
		return
	}
	want, got := newPayload(p.Kind()), newPayload(p.Kind())
	if err := json.Unmarshal(std, want); err != nil {
		return // a2a-go cannot read its own JSON back (a data part of null): nothing to compare
	}
	if err := json.Unmarshal(fast, got); err != nil {
		t.Fatalf("%s: standard decode of the mirror's JSON: %v\n%s", p.Kind(), err, fast)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: mirror JSON decodes to\n%#v\nstandard JSON to\n%#v", p.Kind(), got, want)
	}
	var gotMap, wantMap map[string]any
	_ = json.Unmarshal(std, &wantMap)
	_ = json.Unmarshal(fast, &gotMap)
	if !reflect.DeepEqual(gotMap, wantMap) {
		t.Errorf("%s: JSON differs beyond key order:\n%s\n%s", p.Kind(), fast, std)
	}
}

// The mirrors read what a2a-go's JSON methods read into the same values,
// and input they do not take falls back to the standard path's result or error.
func TestWireUnmarshalMatchesStandard(t *testing.T) {
	for _, p := range wirePayloads() {
		body, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		assertSameDecode(t, p.Kind(), body)
	}
	odd := map[Kind][]string{
		KindTaskResult: {
			`{"taskId":"t","state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","parts":[{"filename":"f"}]}}`,
			`{"taskId":"t","state":"TASK_STATE_COMPLETED","artifacts":[{"artifactId":"a","parts":[{"text":"x","url":"u"}]}]}`,
			`{"taskId":"t","state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","parts":[{"url":""}]}}`,
			`{"taskId":"t","state":7}`,
			`{"taskId":"t","state":"TASK_STATE_UNSPECIFIED","message":null,"artifacts":null}`,
			`{"TASKID":"t","State":"TASK_STATE_WORKING","MESSAGE":{"ROLE":"ROLE_UNSPECIFIED","Parts":[{"Text":"x"},null]}}`,
		},
		KindTaskRequest: {
			`{"taskId":"t","message":{"role":"ROLE_USER","parts":[{"raw":"not base64!"}]}}`,
			`{"taskId":"t","message":{"role":"ROLE_USER","parts":[{"data":null}]}}`,
			`{"taskId":"t","message":{"role":"ROLE_USER","parts":[{"text":"a","text":"b"}]}}`,
			`{"taskId":"t","message":"nope"}`,
			`{"taskId":"t"`,
		},
		KindTaskStatus: {`{"taskId":"t","state":"TASK_STATE_WORKING","message":{"parts":[{"data":{"a":[1,2]}}]},"progress":0.5}`},
		KindTaskError:  {`{"taskId":"t","state":"TASK_STATE_FAILED","code":"TIMEOUT"}`, `{"state":["x"]}`},
	}
	for kind, bodies := range odd {
		for _, b := range bodies {
			assertSameDecode(t, kind, []byte(b))
		}
	}
}

// assertSameDecode checks unmarshalPayload gives what encoding/json gives.
func assertSameDecode(t *testing.T, kind Kind, body []byte) {
	t.Helper()
	want := newPayload(kind)
	wantErr := json.Unmarshal(body, want)
	got, err := unmarshalPayload(kind, body)
	switch {
	case wantErr != nil || err != nil:
		if wantErr == nil || err == nil || !sameError(err, wantErr) {
			t.Errorf("%s %s: error %v, standard %v", kind, body, err, wantErr)
		}
	case !reflect.DeepEqual(got, want):
		t.Errorf("%s %s:\ngot  %#v\nwant %#v", kind, body, got, want)
	}
}

// FuzzWireDecode checks the mirrors against encoding/json on any input.
func FuzzWireDecode(f *testing.F) {
	addSeeds(f, wirePayloads())
	for kind, body := range scanSeeds {
		f.Add(string(kind), []byte(body))
	}
	for kind, bodies := range turnSeeds {
		for _, body := range bodies {
			f.Add(string(kind), []byte(body))
		}
	}
	f.Fuzz(func(t *testing.T, kind string, body []byte) {
		k := Kind(kind)
		if newPayload(k) == nil {
			return
		}
		assertSameDecode(t, k, body)
		if p, err := unmarshalPayload(k, body); err == nil {
			assertSameEncode(t, p)
		}
	})
}

// sameError compares error messages; a2a-go lists the keys of a part
// without content in map order, so those compare by their prefix.
func sameError(a, b error) bool {
	const unknownPart = "unknown part content type:"
	if strings.HasPrefix(a.Error(), unknownPart) {
		return strings.HasPrefix(b.Error(), unknownPart)
	}
	return a.Error() == b.Error()
}

// scanSeeds are bodies in the shape the hand-written reader takes (wirescan.go).
var scanSeeds = map[Kind]string{
	KindTaskRequest: ` { "taskId":"t-1","sessionId":"s\u00e9-1","caller":"A","target":"B","skill":"echo",` +
		`"message":{"messageId":"m","parts":[{"text":"line\n\"q\" \u20ac é"},{"text":"","mediaType":"text/plain"}],"role":"ROLE_USER"},` +
		`"input":{"cash_flows":[-100, 60.5, 70],"discount_rate":0.12,"s":"}]"},"priority":"high",` +
		`"deadline":"2026-01-02T03:04:05.123456789Z","handoff":[1,{"a":null}],"callChain":["A"],"allowNestedCalls":false,` +
		`"stream":true,"createdAt":"2026-01-02T03:04:05Z"} `,
	KindTaskResult: `{"taskId":"t-1","agent":"B","state":"TASK_STATE_COMPLETED","status":"SUCCESS","confidence":"high",` +
		`"warnings":[],"message":{"messageId":"m","parts":[{"text":"ok"}],"role":"ROLE_AGENT","taskId":"t-1","contextId":"c"},` +
		`"metadata":{"processingTimeMs":12,"agentVersion":"1.0","tokensUsed":-0},"time":"2026-01-02T03:04:05Z"}`,
}

// turnSeeds are bodies of later turns in the hand-written reader's shape:
// a request with its history, a question with options, a schema and what
// to authenticate with.
var turnSeeds = map[Kind][]string{
	KindTaskRequest: {`{"taskId":"t-1","contextId":"c-1","sessionId":"s","caller":"A","target":"B","skill":"echo","turn":2,` +
		`"message":{"messageId":"m3","parts":[{"text":"yes"}],"role":"ROLE_USER"},"deadline":"2026-01-02T03:04:05Z",` +
		`"history":[{"messageId":"m1","parts":[{"text":"go"}],"role":"ROLE_USER"},{"messageId":"m2","parts":[{"text":"sure?"}],"role":"ROLE_AGENT"}],` +
		`"contextHistory":[]}`,
		`{"taskId":"t-2","sessionId":"s","caller":"A","target":"B","skill":"echo","deadline":"2026-01-02T03:04:05Z",` +
			`"message":{"messageId":"m","parts":[{"text":"go"}],"role":"ROLE_USER"},"allowedTools":["get_from_working_memory"],"maxContextTokens":1200,` +
			`"callerContext":{"messages":[{"role":"user","text":"the budget is 5k","time":"2026-01-02T03:04:00.5Z"},{"role":"assistant","text":"noted"}],"count":2}}`,
		`{"taskId":"t-3","sessionId":"s","caller":"A","target":"B","skill":"echo","deadline":"2026-01-02T03:04:05Z",` +
			`"message":{"messageId":"m","parts":[{"text":"go"}],"role":"ROLE_USER"},"allowedTools":[],` +
			`"callerContext":{"messages":[],"key":"session/s/caller-context/t-3","count":300}}`,
		`{"taskId":"t-4","sessionId":"s","caller":"A","target":"B","skill":"echo","deadline":"2026-01-02T03:04:05Z",` +
			`"message":{"messageId":"m","parts":[{"text":"go"}],"role":"ROLE_USER"},"callerContext":{}}`},
	KindTaskResult: {`{"taskId":"t-1","agent":"B","state":"TASK_STATE_INPUT_REQUIRED","turn":1,"attempt":2,"time":"2026-01-02T03:04:05Z",` +
		`"question":{"text":"which?","options":[{"id":"a","label":"A","description":"the first"},{"id":"b","label":"B"}],` +
		`"inputSchema":{"type":"object"}},"metadata":{}}`,
		`{"taskId":"t-1","agent":"B","state":"TASK_STATE_AUTH_REQUIRED","time":"2026-01-02T03:04:05Z",` +
			`"question":{"text":"sign in","options":[],"auth":{"scheme":"oauth2","resource":"r","scopes":["x",""],"url":"u"}},"metadata":{}}`},
}

func TestWireScanReadsTheCodecsOwnPayloads(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	yes := true
	req := &TaskRequest{TaskID: "t-1", SessionID: "s-1", Caller: "A", Target: "B", Skill: "echo",
		Message: NewTextMessage(MessageRoleUser, "hello \"world\"\n<&>"), Input: json.RawMessage(`{"n":[1,2]}`),
		Priority: PriorityHigh, Deadline: now, CallChain: []string{"A"}, AllowNestedCalls: &yes, Stream: true, CreatedAt: now}
	res := &TaskResult{TaskID: "t-1", Agent: "B", State: TaskStateCompleted, Status: StatusSuccess,
		Message: NewTextMessage(MessageRoleAgent, "héllo"), Warnings: []string{"w"},
		Metadata: ResultMetadata{ProcessingTimeMs: 3, AgentVersion: "1"}, Time: now}
	for _, p := range []Payload{req, res} {
		body, err := marshalPayload(p)
		if err != nil {
			t.Fatal(err)
		}
		r := &jsonReader{b: body}
		var took bool
		switch p.(type) {
		case *TaskRequest:
			took = r.taskRequest(&wireTaskRequest{taskRequestFields: new(taskRequestFields)})
		case *TaskResult:
			took = r.taskResult(&wireTaskResult{taskResultFields: new(taskResultFields)})
		}
		if !took {
			t.Errorf("%s: the hand-written reader gave up on the codec's own body %s", p.Kind(), body)
		}
		assertSameDecode(t, p.Kind(), body)
	}
	for kind, body := range scanSeeds {
		assertSameDecode(t, kind, []byte(body))
	}
	for kind, bodies := range turnSeeds {
		for _, body := range bodies {
			if !scans(kind, []byte(body)) {
				t.Errorf("%s: the hand-written reader gave up on %s", kind, body)
			}
			assertSameDecode(t, kind, []byte(body))
		}
	}
	for _, p := range []Payload{sampleTurnRequest(), sampleQuestion()} {
		body, err := marshalPayload(p)
		if err != nil {
			t.Fatal(err)
		}
		if !scans(p.Kind(), body) {
			t.Errorf("%s: the hand-written reader gave up on the codec's own body %s", p.Kind(), body)
		}
		assertSameDecode(t, p.Kind(), body)
	}
}

// scans reports whether the hand-written reader takes body of kind.
func scans(kind Kind, body []byte) bool {
	r := &jsonReader{b: body}
	switch kind {
	case KindTaskRequest:
		return r.taskRequest(&wireTaskRequest{taskRequestFields: new(taskRequestFields)})
	case KindTaskResult:
		return r.taskResult(&wireTaskResult{taskResultFields: new(taskResultFields)})
	}
	return false
}

// The reader gives up on what encoding/json reads otherwise (a key twice:
// it keeps the last), so the standard path decodes it.
func TestWireScanGivesUpOnARepeatedKey(t *testing.T) {
	body := []byte(`{"taskId":"t-1","agent":"A","taskId":"t-2","state":"TASK_STATE_COMPLETED","time":"2026-01-02T03:04:05Z"}`)
	if (&jsonReader{b: body}).taskResult(&wireTaskResult{taskResultFields: new(taskResultFields)}) {
		t.Error("the reader took a body with a key twice")
	}
	assertSameDecode(t, KindTaskResult, body)
}

// A key given twice, in any letter case, is read twice by encoding/json:
// a bad earlier value refuses the body even though the last one is good,
// and the mirrors agree (the standard path decides such a body).
func TestWireDecodeRepeatedKeyAsEncodingJSON(t *testing.T) {
	many := `{"taskId":"t","state":"TASK_STATE_COMPLETED","message":{"role":"ROLE_AGENT","parts":[{"data":{` +
		`"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"A":19,"\u0061":20}}]},` +
		`"artifacts":[{"artifactId":"a","parts":[{}]}],"Artifacts":[]}`
	cases := map[Kind][]string{
		KindTaskRequest: {
			`{"ConteXthistorY":[{"pArts":[{}]}],"ConteXtHistorY":[]}`,
			`{"taskId":"t","message":{"role":"ROLE_USER","parts":[{}]},"message":{"role":"ROLE_USER","parts":[{"text":"x"}]}}`,
			`{"taskId":"t","message":{"role":"ROLE_USER","parts":[{}],"PARTS":[{"text":"x"}]}}`,
			`{"taskId":"t","message":{"role":"ROLE_USER","metadata":{"k":1,"K":2},"parts":[{"text":"x"}]}}`,
		},
		KindTaskStatus: {`{"taskId":"t","state":"TASK_STATE_WORKING","message":{"parts":[{}]},"Message":{"parts":[{"text":"x"}]}}`},
		KindTaskResult: {many, `{"taskId":"t","state":"TASK_STATE_COMPLETED","artifacts":[{"artifactId":"a","parts":[{"url":"u","text":"x"}]}],"ARTIFACTS":null}`},
	}
	for kind, bodies := range cases {
		for _, b := range bodies {
			assertSameDecode(t, kind, []byte(b))
		}
	}
	for body, want := range map[string]bool{`{"a":1,"A":2}`: true, `[{"K":1},{"k":2}]`: false, `{"k":{"K":1},"\u212a":2}`: true,
		`{"ſ":1,"S":2}`: true, `{"a":{"b":1},"c":{"b":2}}`: false, `{}`: false, `"x"`: false} {
		if got := repeatsAKey([]byte(body)); got != want {
			t.Errorf("repeatsAKey(%s) = %v, want %v", body, got, want)
		}
	}
}
