// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// askTwice asks which edition on turn 0, confirms on turn 1 and answers on
// turn 2 with what it was told, read from the history alone.
func askTwice(_ context.Context, t *Task) (*Result, error) {
	switch t.Turn() {
	case 0:
		return Ask("which edition?", a2a.Option{ID: "1", Label: "First"}, a2a.Option{ID: "2", Label: "Second"}), nil
	case 1:
		return Ask("sure about " + t.Text() + "?"), nil
	}
	var said []string
	for _, m := range t.History() {
		said = append(said, string(m.Role)+":"+a2a.MessageText(m))
	}
	return TextResult(strings.Join(said, " | ") + " | now: " + t.Text()), nil
}

// nextTurn is the request of the next turn of req: the answer, the history
// so far (req's history, req's message and the question asked).
func nextTurn(req *a2a.TaskRequest, question *a2a.TaskResult, answer string) func(*a2a.TaskRequest) {
	return func(r *a2a.TaskRequest) {
		r.TaskID, r.Turn = req.TaskID, req.Turn+1
		r.History = append(append(append([]*a2a.Message(nil), req.History...), req.Message), question.Message)
		r.Message = a2a.NewTextMessage(a2a.MessageRoleUser, answer)
	}
}

// replyOfTurn waits for the reply of turn n of task id.
func (r *replies) replyOfTurn(id string, turn int) a2a.Payload {
	r.t.Helper()
	var out a2a.Payload
	testenv.Eventually(r.t, fmt.Sprintf("reply of turn %d of %s", turn, id), func() bool {
		for _, p := range r.all() {
			switch p := p.(type) {
			case *a2a.TaskResult:
				if p.TaskID == id && p.Turn == turn {
					out = p
				}
			case *a2a.TaskError:
				if p.TaskID == id && p.Turn == turn {
					out = p
				}
			}
		}
		return out != nil
	})
	return out
}

// A handler that asks ends its turn: the agent publishes the question
// (INPUT_REQUIRED, the options, the turn) and takes the next turns as they
// come, the handler seeing the turn, the answer and the history.
func TestAskEndsTheTurn(t *testing.T) {
	h := newHarness(t)
	h.start(h.agent(Options{}, map[string]Handler{"book": askTwice}))
	req := h.send("Worker", "book", "find the NPV rule", func(r *a2a.TaskRequest) { r.ContextID = "ctx-1" })
	q0, ok := h.replyOfTurn(req.TaskID, 0).(*a2a.TaskResult)
	if !ok || q0.State != a2a.TaskStateInputRequired || q0.Question == nil || q0.Question.Text != "which edition?" ||
		len(q0.Question.Options) != 2 || q0.Status != "" || a2a.MessageText(q0.Message) != "which edition?" {
		t.Fatalf("turn 0 ended %+v, want the question INPUT_REQUIRED with two options and no status", h.replyOfTurn(req.TaskID, 0))
	}
	turn1 := h.send("Worker", "book", "", nextTurn(req, q0, "2"))
	q1, ok := h.replyOfTurn(req.TaskID, 1).(*a2a.TaskResult)
	if !ok || q1.State != a2a.TaskStateInputRequired || q1.Question.Text != "sure about 2?" {
		t.Fatalf("turn 1 ended %+v, want the second question", h.replyOfTurn(req.TaskID, 1))
	}
	h.send("Worker", "book", "", nextTurn(turn1, q1, "yes"))
	final, ok := h.replyOfTurn(req.TaskID, 2).(*a2a.TaskResult)
	want := "ROLE_USER:find the NPV rule | ROLE_AGENT:which edition? | ROLE_USER:2 | ROLE_AGENT:sure about 2? | now: yes"
	if !ok || final.State != a2a.TaskStateCompleted || final.Status != a2a.StatusSuccess || a2a.MessageText(final.Message) != want {
		t.Fatalf("turn 2 ended %+v, want %q", h.replyOfTurn(req.TaskID, 2), want)
	}
}

// AskAuth ends the turn AUTH_REQUIRED naming what is needed; a question
// with a contract status is no valid result (EXECUTION_FAILED).
func TestAskAuthAndInvalidQuestions(t *testing.T) {
	h := newHarness(t)
	h.start(h.agent(Options{}, map[string]Handler{
		"auth": func(context.Context, *Task) (*Result, error) {
			return AskAuth("sign in to the wiki", a2a.AuthNeed{Scheme: "oauth2", Resource: "wiki", Scopes: []string{"read"}}), nil
		},
		"bad": func(context.Context, *Task) (*Result, error) {
			r := Ask("what?")
			r.Status = a2a.StatusSuccess
			return r, nil
		},
	}))
	auth := h.send("Worker", "auth", "read the page")
	r, ok := h.final(auth.TaskID).(*a2a.TaskResult)
	if !ok || r.State != a2a.TaskStateAuthRequired || r.Question.Auth == nil || r.Question.Auth.Scheme != "oauth2" {
		t.Fatalf("AskAuth ended %+v, want AUTH_REQUIRED naming oauth2", h.final(auth.TaskID))
	}
	bad := h.send("Worker", "bad", "x")
	if code := h.errorCode(bad.TaskID); code != a2a.CodeExecutionFailed {
		t.Fatalf("a question with a status ended %s, want EXECUTION_FAILED", code)
	}
}

// A task canceled by its caller stays canceled for every later turn: its
// next turn is answered CANCELED without running, and the answer says
// which turn (and which attempt) it ends.
func TestCanceledTaskStaysCanceledForLaterTurns(t *testing.T) {
	h := newHarness(t)
	ran := make(chan int, 4)
	a := h.agent(Options{}, map[string]Handler{"book": func(ctx context.Context, t *Task) (*Result, error) {
		ran <- t.Turn()
		return askTwice(ctx, t)
	}})
	h.start(a)
	req := h.send("Worker", "book", "go")
	q0 := h.replyOfTurn(req.TaskID, 0).(*a2a.TaskResult)
	<-ran
	env, err := h.codec.Encode(&a2a.TaskCancel{TaskID: req.TaskID, Caller: testCaller, Target: "Worker", Time: time.Now()}, a2a.Trace{})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := a2a.CancelRoutingKey("Worker")
	if err := h.b.Publish(context.Background(), bus.Message{Envelope: env, RoutingKey: key}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the cancel remembered", func() bool {
		a.running.mu.Lock()
		defer a.running.mu.Unlock()
		return a.running.canceledBy(req.TaskID, testCaller)
	})
	h.send("Worker", "book", "", nextTurn(req, q0, "1"))
	e, ok := h.replyOfTurn(req.TaskID, 1).(*a2a.TaskError)
	if !ok || e.Code != a2a.CodeCanceled || e.Turn != 1 {
		t.Fatalf("turn 1 of a canceled task ended %+v, want CANCELED for turn 1", h.replyOfTurn(req.TaskID, 1))
	}
	select {
	case turn := <-ran:
		t.Fatalf("the handler ran turn %d of a canceled task", turn)
	default:
	}
}

// A later turn's input answers the agent's question: the skill's input
// schema (for its first request) does not apply to it.
func TestLaterTurnSkipsTheSkillsInputSchema(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{}, nil)
	schema := json.RawMessage(`{"type":"object","required":["q"]}`)
	if err := a.Handle("ask", func(_ context.Context, t *Task) (*Result, error) {
		if t.Turn() == 0 {
			return Ask("really?"), nil
		}
		return TextResult("ok: " + t.Text()), nil
	}, WithInputSchema(schema)); err != nil {
		t.Fatal(err)
	}
	h.start(a)
	req := h.send("Worker", "ask", "", func(r *a2a.TaskRequest) { r.Input = json.RawMessage(`{"q":"x"}`) })
	q0 := h.replyOfTurn(req.TaskID, 0).(*a2a.TaskResult)
	h.send("Worker", "ask", "", nextTurn(req, q0, "yes"))
	if r, ok := h.replyOfTurn(req.TaskID, 1).(*a2a.TaskResult); !ok || a2a.MessageText(r.Message) != "ok: yes" {
		t.Fatalf("turn 1 ended %+v, want ok: yes", h.replyOfTurn(req.TaskID, 1))
	}
}

// An answer to a request delivered again says which attempt it answers, so
// the caller knows the task may have answered before; a first one says
// nothing.
func TestAnswerEchoesTheAttempt(t *testing.T) {
	h := newHarness(t)
	started := make(chan struct{})
	first := h.agent(Options{StopTimeout: 100 * time.Millisecond}, map[string]Handler{"book": func(ctx context.Context, _ *Task) (*Result, error) {
		close(started)
		<-ctx.Done() // interrupted by the stop: requeued
		return nil, ctx.Err()
	}})
	h.start(first)
	req := h.send("Worker", "book", "go")
	<-started
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	h.start(h.agent(Options{}, map[string]Handler{"book": askTwice}))
	if q, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok || q.Attempt != 2 {
		t.Fatalf("answer of the second attempt: %+v, want attempt 2", h.final(req.TaskID))
	}
	again := h.send("Worker", "book", "go")
	if q, ok := h.final(again.TaskID).(*a2a.TaskResult); !ok || q.Attempt != 0 {
		t.Fatalf("answer of a first attempt: %+v, want no attempt", h.final(again.TaskID))
	}
}
