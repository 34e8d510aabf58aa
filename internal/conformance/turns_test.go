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
