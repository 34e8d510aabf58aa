// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
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
