// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// delivery is p as the agent would publish it for task id.
func delivery(t *testing.T, kind a2a.Kind, id string, p any) received {
	t.Helper()
	body, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	pub := publishing(kind, id, body)
	return received{d: amqp.Delivery{Type: pub.Type, MessageId: pub.MessageId, CorrelationId: pub.CorrelationId, ContentType: pub.ContentType,
		DeliveryMode: pub.DeliveryMode, Timestamp: pub.Timestamp, Headers: pub.Headers, Body: pub.Body}}
}

// The end of a later turn is checked for what an agent that asks must do:
// echo the turn, answer with a result (the task's end or another
// question) for the task, from the agent.
func TestExpectTurnEnd(t *testing.T) {
	k := &kit{o: Options{Agent: "Asker"}}
	now := time.Now().UTC()
	done := &a2a.TaskResult{TaskID: "t1", Agent: "Asker", State: a2a.TaskStateCompleted, Status: a2a.StatusSuccess,
		Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "done"), Turn: 1, Time: now}
	asks := &a2a.TaskResult{TaskID: "t1", Agent: "Asker", State: a2a.TaskStateInputRequired, Question: &a2a.Question{Text: "again?"},
		Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "again?"), Turn: 1, Time: now}
	unechoed := *done
	unechoed.Turn = 0
	other := *done
	other.Agent = "Someone"
	failed := &a2a.TaskError{TaskID: "t1", Agent: "Asker", State: a2a.TaskStateRejected, Code: a2a.CodeInvalidInput, Message: "what answer?", Time: now}
	for _, tc := range []struct {
		name string
		r    received
		why  string // "" for a pass
	}{
		{"completed", delivery(t, a2a.KindTaskResult, "t1", done), ""},
		{"another question", delivery(t, a2a.KindTaskResult, "t1", asks), ""},
		{"turn not echoed", delivery(t, a2a.KindTaskResult, "t1", &unechoed), "carries turn 0, want 1"},
		{"another agent", delivery(t, a2a.KindTaskResult, "t1", &other), `answered by "Someone"`},
		{"an error", delivery(t, a2a.KindTaskError, "t1", failed), "got task.error INVALID_INPUT"},
		{"another task", delivery(t, a2a.KindTaskResult, "t2", done), "does not match correlation id"},
	} {
		res, why := k.expectTurnEnd(tc.r, "t1", 1)
		switch {
		case tc.why == "" && (res == nil || why != ""):
			t.Errorf("%s: failed (%s), want a pass", tc.name, why)
		case tc.why != "" && (res != nil || !strings.Contains(why, tc.why)):
			t.Errorf("%s: %v, %q; want a failure saying %q", tc.name, res, why, tc.why)
		}
	}
}

// The round trip's SUCCESS or PARTIAL result without a confidence is a
// warning (the run still conforms); with one it passes; an ERROR result
// needs none.
func TestConfidenceWarns(t *testing.T) {
	now := time.Now().UTC()
	result := func(status a2a.ResultStatus, c a2a.Confidence) *a2a.TaskResult {
		state := a2a.TaskStateCompleted
		if status == a2a.StatusError {
			state = a2a.TaskStateFailed
		}
		return &a2a.TaskResult{TaskID: "t1", Agent: "Py", State: state, Status: status, Confidence: c,
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "ok"), Time: now}
	}
	for _, tt := range []struct {
		res  *a2a.TaskResult
		want Outcome
		says string
	}{
		{result(a2a.StatusSuccess, ""), Warn, "the SUCCESS result states no confidence"},
		{result("", ""), Warn, "the SUCCESS result states no confidence"},
		{result(a2a.StatusPartial, ""), Warn, "the PARTIAL result states no confidence"},
		{result(a2a.StatusSuccess, a2a.ConfidenceMedium), Pass, "confidence MEDIUM"},
		{result(a2a.StatusError, ""), Skip, "needs no confidence"},
	} {
		k := &kit{o: Options{Agent: "Py"}, rt: []received{delivery(t, a2a.KindTaskResult, "t1", tt.res)}}
		got, detail := k.confidence(t.Context())
		if got != tt.want || !strings.Contains(detail, tt.says) {
			t.Errorf("status %q confidence %q: %s %q, want %s saying %q", tt.res.Status, tt.res.Confidence, got, detail, tt.want, tt.says)
		}
	}
	rep := &Report{Agent: "Py", Results: []Result{{ID: "round-trip", Level: Must, Outcome: Pass}, {ID: "confidence", Level: Should, Outcome: Warn}}}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if rep.Failed() || !strings.Contains(b.String(), "WARN") || !strings.Contains(b.String(), "2 passed (1 with a warning), 0 failed, 0 skipped: conforms") {
		t.Errorf("a warning fails the run or is not shown:\n%s", b.String())
	}
}
