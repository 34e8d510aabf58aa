// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// A turn's stored JSON is written by hand byte for byte as encoding/json
// wrote it (the append script splices "seq" into it): escapes, invalid
// UTF-8, meta keys in order, times in any zone; a time encoding/json
// refuses is refused the same.
func TestEncodeUnsequencedMatchesEncodingJSON(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	turns := []memory.Turn{
		{Role: "user", Content: "hello", Time: now},
		{Role: "notification", Content: "[Agent 'A' completed task t (state=completed)]: <b>ok</b> & \"fine\"\n\t\u2028\xff", Time: now.In(time.FixedZone("x", -(3*3600 + 30*60))),
			Meta: map[string]string{"taskId": "t", "agent": "A", "kind": "notification", "memoryKey": "k<>", "state": "TASK_STATE_COMPLETED", "outcome": "answer", "z": "", "": "\x00"}},
		{Role: "", Content: "", Time: time.Time{}, Meta: map[string]string{}},
		{Role: "tool", Content: "é€😀", Time: now.Add(-time.Hour * 24 * 365 * 100).In(time.FixedZone("odd", 17)), Meta: map[string]string{"b": "2", "a": "1", "B": "3"}},
	}
	for _, turn := range turns {
		want, _ := json.Marshal(unsequenced{Role: turn.Role, Content: turn.Content, Time: turn.Time, Meta: turn.Meta})
		got, err := encodeUnsequenced(turn)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("encodeUnsequenced = %s, %v\nencoding/json      %s", got, err, want)
		}
	}
	far := memory.Turn{Role: "user", Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	_, wantErr := json.Marshal(unsequenced{Role: far.Role, Time: far.Time})
	if _, err := encodeUnsequenced(far); err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Errorf("a time out of range: error %v, encoding/json's %v", err, wantErr)
	}
}
