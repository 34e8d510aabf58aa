// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remotetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/remote"
)

// TestJavaScriptQuestionBothWays: a JavaScript agent that asks for input
// ends the turn with its question; the answer, taken by another replica of
// the bridge, reaches the same JavaScript task and context — though the
// SDK sends the task as stored, still asking, before its answer (the
// bridge takes that for the question it answers, not a new one).
func TestJavaScriptQuestionBothWays(t *testing.T) {
	nodeBin := testenv.Command(t, "node")
	for _, v := range []struct{ protocol, sdk string }{{"1.0", JSSDKVersion}, {"0.3", JSSDK03Version}} {
		t.Run("A2A "+v.protocol, func(t *testing.T) {
			srv := startServer(t, nodeBin, testenv.NPMPackage(t, "@a2a-js/sdk", v.sdk))
			first, replica := bridge(t, srv.url), bridge(t, srv.url)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			busContext := a2a.NewContextID()
			res, err := first.Handle(ctx, turn("task-1", busContext, "ask", 0))
			if err != nil {
				t.Fatal(err)
			}
			if res.Question == nil || res.Question.Text != "which city?" {
				t.Fatalf("result %+v: want the question which city?", res)
			}
			remoteTask, _ := res.Message.Metadata[remote.MetaRemoteTaskID].(string)
			res, err = replica.Handle(ctx, turn("task-1", busContext, "Paris", 1, a2a.NewTextMessage(a2a.MessageRoleUser, "ask"), res.Message))
			if err != nil {
				t.Fatal(err)
			}
			if got := a2a.MessageText(res.Message); got != "weather in Paris" || res.Question != nil {
				t.Fatalf("the answer's turn = %q (question %+v), want weather in Paris", got, res.Question)
			}
			answered := strings.Fields(srv.await(t, "answered "))
			if len(answered) != 3 || answered[0] != remoteTask || answered[1] != busContext || answered[2] != "Paris" {
				t.Fatalf("the JavaScript agent answered %v, want Paris for task %s in context %s", answered, remoteTask, busContext)
			}
		})
	}
}

// bridge starts a bridge of the card at url, not on a bus: its handler is
// called directly.
func bridge(t *testing.T, url string) *remote.Bridge {
	t.Helper()
	b, err := remote.New(remote.Options{Spec: remote.Spec{Name: "JsWeather", CardURL: url, Source: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func turn(taskID, contextID, text string, n int, history ...*a2a.Message) *agent.Task {
	return &agent.Task{Request: &a2a.TaskRequest{TaskID: taskID, ContextID: contextID, Target: "JsWeather", Skill: "forecast", Caller: "Tester",
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, text), Deadline: time.Now().Add(30 * time.Second), Turn: n, History: history}}
}
