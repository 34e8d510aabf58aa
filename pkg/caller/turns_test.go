// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// clerk asks which edition on turn 0 and answers on a later turn with
// every message of the task, read from its history alone: what a replica
// that never saw the first turn can tell.
func clerk(runs *atomic.Int32) agent.Handler {
	return func(_ context.Context, t *agent.Task) (*agent.Result, error) {
		runs.Add(1)
		if t.Turn() == 0 {
			return agent.Ask("which edition?", a2a.Option{ID: "1", Label: "First"}, a2a.Option{ID: "2", Label: "Second", Description: "2019"}), nil
		}
		var said []string
		for _, m := range t.History() {
			said = append(said, a2a.MessageText(m))
		}
		return agent.TextResult(fmt.Sprintf("turn %d: %s | %s", t.Turn(), strings.Join(said, " | "), t.Text())), nil
	}
}

// askedWhichEdition checks out is a question of agent on turn 0 that waits for input.
func askedWhichEdition(t *testing.T, out *Outcome, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !out.WaitingForInput() || out.Question() == nil || out.Question().Text != "which edition?" || out.Turn != 0 ||
		a2a.CodeOf(out.Err()) != a2a.CodeInputRequired {
		t.Fatalf("turn 0 ended %+v (err %v), want the question, waiting for input", out.Result, out.Err())
	}
}

// notifications returns the notification turns of task id in session.
func (w *world) notifications(session, id string) []memory.Turn {
	var out []memory.Turn
	for _, turn := range w.turns(session) {
		if turn.Meta[MetaTaskID] == id {
			out = append(out, turn)
		}
	}
	return out
}

// pendingTasks is the caller's pending index.
func (w *world) pendingTasks(caller string) []string {
	w.t.Helper()
	ids, err := PendingTasks(context.Background(), w.mem, caller, 0)
	if err != nil {
		w.t.Fatal(err)
	}
	return ids
}

// A question asked by one instance of an agent is answered, and the task
// finished, by another that never saw the first turn: everything it needs
// comes with the request. On the way the caller stores the question at the
// memory key, notifies it plainly (options, how to answer), keeps the task
// pending until the answer is due, and records it WAITING.
func TestQuestionAnsweredByAnotherReplica(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		var first, second atomic.Int32
		a := w.agent(n("Books"), map[string]agent.Handler{"find": clerk(&first)})
		c := w.caller(n("Primary"), true, func(o *Options) { o.InputTimeout = time.Hour })
		out, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "find", Text: "the NPV rule", SessionID: "s-q"}, nil)
		askedWhichEdition(t, out, err)
		id := out.TaskID

		stored := w.stored(out.MemoryKey)
		if stored.State != a2a.TaskStateInputRequired || stored.Question == nil || len(stored.Question.Options) != 2 || stored.AnswerBy.IsZero() {
			t.Fatalf("stored %+v, want the question", stored)
		}
		notes := w.notifications("s-q", id)
		if len(notes) != 1 || notes[0].Meta[MetaOutcome] != OutcomeQuestion ||
			!strings.Contains(notes[0].Content, "asks a question") || !strings.Contains(notes[0].Content, "which edition?") ||
			!strings.Contains(notes[0].Content, "2 — Second: 2019") || !strings.Contains(notes[0].Content, "a2abus reply "+id) ||
			!strings.Contains(notes[0].Content, "invoke_agent (task_id '"+id+"' and your answer as the message, or option set to an option's id)") {
			t.Fatalf("notifications %+v, want one that says the question, its options and how to answer", notes)
		}
		info, err := c.Task(ctxT(t), id)
		if err != nil || !info.WaitingForInput() || info.Turn != 0 {
			t.Fatalf("Task = %+v, %v; want waiting for input on turn 0", info, err)
		}
		if e := w.entry("s-q", id); e.Status != HistoryWaiting || e.State != a2a.TaskStateInputRequired {
			t.Fatalf("history entry %+v, want WAITING", e)
		}
		if score, ok, err := w.mem.IndexScore(ctxT(t), mustPendingIndex(t, n("Primary")), id); err != nil || !ok || score != stored.AnswerBy.UnixMilli() {
			t.Fatalf("pending score %d (%v, %v), want the end of the wait %d", score, ok, err, stored.AnswerBy.UnixMilli())
		}

		if err := a.Close(); err != nil { // the instance that asked is gone
			t.Fatal(err)
		}
		w.agent(n("Books"), map[string]agent.Handler{"find": clerk(&second)})
		inv, err := c.Reply(ctxT(t), Reply{TaskID: id, Text: "2"})
		if err != nil || inv.Turn != 1 || inv.TaskID != id || inv.ContextID != out.ContextID {
			t.Fatalf("Reply = %+v, %v", inv, err)
		}
		// Turn 1 runs, or has already ended: the second replica may answer
		// before this read (its outcome is checked below).
		if info, err := c.Task(ctxT(t), id); err != nil || info.WaitingForInput() || (!info.Pending && info.Result == nil) || info.Turn != 1 {
			t.Fatalf("Task after the answer = %+v, %v; want turn 1 running or ended", info, err)
		}
		final, err := c.Wait(ctxT(t), id, nil)
		if err != nil || final.Err() != nil || final.Turn != 1 {
			t.Fatalf("Wait = %+v, %v", final, err)
		}
		if want := "turn 1: the NPV rule | which edition? | 2"; final.Result.Text() != want {
			t.Fatalf("the second replica answered %q, want %q", final.Result.Text(), want)
		}
		if first.Load() != 1 || second.Load() != 1 {
			t.Fatalf("runs: %d by the first instance, %d by the second; want one each", first.Load(), second.Load())
		}
		if got := w.stored(out.MemoryKey); got.State != a2a.TaskStateCompleted || got.Question != nil || got.Turn != 1 {
			t.Fatalf("stored at the end %+v", got)
		}
		notes = w.notifications("s-q", id)
		if len(notes) != 2 || notes[1].Meta[MetaOutcome] != OutcomeAnswer || notes[1].Meta[MetaTurn] != "1" {
			t.Fatalf("notifications %+v, want the question and the answer", notes)
		}
		if e := w.entry("s-q", id); e.Status != string(a2a.StatusSuccess) {
			t.Fatalf("history entry %+v, want SUCCESS", e)
		}
		testenv.Eventually(t, "nothing pending", func() bool { return len(w.pendingTasks(n("Primary"))) == 0 })
	})
}

// runAgent runs an agent of opts with one skill and returns a channel
// closed when its Run returned.
func (w *world) runAgent(opts agent.Options, skill string, h agent.Handler) <-chan struct{} {
	w.t.Helper()
	opts.Bus = w.Connect(w.t)
	a, err := agent.New(opts)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := a.Handle(skill, h); err != nil {
		w.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(context.Background()) }()
	w.t.Cleanup(func() { _ = a.Close() })
	return done
}

// A one-shot agent (KEDA's: ephemeral, one task) asks and exits; a new one
// takes the answer and finishes the task.
func TestOneShotAgentAsksExitsAndAnotherFinishes(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		var runs atomic.Int32
		oneShot := agent.Options{Card: a2a.AgentCard{Name: n("Job")}, Ephemeral: true, MaxTasks: 1, IdleTimeout: time.Minute, StopTimeout: time.Second}
		c := w.caller(n("Primary"), true)
		exited := w.runAgent(oneShot, "find", clerk(&runs))
		out, err := c.Call(ctxT(t), Request{Target: n("Job"), Skill: "find", Text: "the NPV rule", SessionID: "s-job"}, nil)
		askedWhichEdition(t, out, err)
		select {
		case <-exited:
		case <-time.After(testenv.WaitBound):
			t.Fatal("the one-shot agent did not exit after its task")
		}
		exited = w.runAgent(oneShot, "find", clerk(&runs)) // the next job
		var statuses atomic.Int32
		final, err := c.Continue(ctxT(t), Reply{TaskID: out.TaskID, Text: "1"}, func(*a2a.TaskStatus) { statuses.Add(1) })
		if err != nil || final.Result.Text() != "turn 1: the NPV rule | which edition? | 1" {
			t.Fatalf("Continue = %+v, %v", final, err)
		}
		if statuses.Load() == 0 {
			t.Error("Continue with a status function saw no status of the turn")
		}
		select {
		case <-exited:
		case <-time.After(testenv.WaitBound):
			t.Fatal("the second one-shot agent did not exit after its task")
		}
		if runs.Load() != 2 {
			t.Fatalf("%d runs, want 2", runs.Load())
		}
	})
}

// A question nobody answers ends the task TIMEOUT once the answer is due:
// stored, notified once, saying nobody answered, nothing left pending; an
// answer after it is TASK_FINISHED.
func TestUnansweredQuestionTimesOut(t *testing.T) {
	t.Parallel() // it mostly waits
	each(t, func(t *testing.T, w *world) {
		n := w.N
		var runs atomic.Int32
		w.agent(n("Books"), map[string]agent.Handler{"find": clerk(&runs)})
		c := w.caller(n("Primary"), true, func(o *Options) { o.InputTimeout = 700 * time.Millisecond })
		w.caller(n("Primary"), true, func(o *Options) { o.InputTimeout = 700 * time.Millisecond }) // a second replica sweeps too
		out, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "find", Text: "x", SessionID: "s-to"}, nil)
		askedWhichEdition(t, out, err)
		var info *TaskInfo
		testenv.Eventually(t, "the task timed out", func() bool {
			info, err = c.Task(ctxT(t), out.TaskID)
			return err == nil && !info.Pending
		})
		if info.Result == nil || a2a.CodeOf(info.Result.Error) != a2a.CodeTimeout || !strings.Contains(info.Result.Error.Message, "nobody answered") {
			t.Fatalf("outcome %+v, want TIMEOUT saying nobody answered", info.Result)
		}
		final, err := c.Wait(ctxT(t), out.TaskID, nil)
		if err != nil || a2a.CodeOf(final.Err()) != a2a.CodeTimeout {
			t.Fatalf("Wait = %+v, %v", final, err)
		}
		time.Sleep(200 * time.Millisecond) // a few more sweeps of both replicas
		notes := w.notifications("s-to", out.TaskID)
		if len(notes) != 2 || notes[1].Meta[MetaOutcome] != OutcomeSwept || !strings.Contains(notes[1].Content, "nobody answered") {
			t.Fatalf("notifications %+v, want the question and one TIMEOUT", notes)
		}
		if ids := w.pendingTasks(n("Primary")); len(ids) != 0 {
			t.Fatalf("still pending: %v", ids)
		}
		_, err = c.Reply(ctxT(t), Reply{TaskID: out.TaskID, Text: "too late"})
		if a2a.CodeOf(err) != a2a.CodeTaskFinished || !strings.Contains(err.Error(), out.TaskID) {
			t.Fatalf("a late answer: %v, want TASK_FINISHED naming the task", err)
		}
		if runs.Load() != 1 {
			t.Fatalf("%d runs, want 1", runs.Load())
		}
	})
}

// A task that waits for input is canceled by its caller itself (no agent
// runs it): stored CANCELED, notified, nothing pending; the agent does not
// run again, and an answer after it is TASK_FINISHED.
func TestCancelWhileWaiting(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		var runs atomic.Int32
		w.agent(n("Books"), map[string]agent.Handler{"find": clerk(&runs)})
		c := w.caller(n("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "find", Text: "x", SessionID: "s-cw"}, nil)
		askedWhichEdition(t, out, err)
		if err := c.Cancel(ctxT(t), out.TaskID); err != nil {
			t.Fatal(err)
		}
		final, err := c.Wait(ctxT(t), out.TaskID, nil)
		if err != nil || a2a.CodeOf(final.Err()) != a2a.CodeCanceled || final.Result.State != a2a.TaskStateCanceled {
			t.Fatalf("Wait = %+v, %v; want CANCELED", final, err)
		}
		notes := w.notifications("s-cw", out.TaskID)
		if len(notes) != 2 || notes[1].Meta[MetaOutcome] != OutcomeCanceled {
			t.Fatalf("notifications %+v, want the question and the cancel", notes)
		}
		if ids := w.pendingTasks(n("Primary")); len(ids) != 0 {
			t.Fatalf("still pending: %v", ids)
		}
		if err := c.Cancel(ctxT(t), out.TaskID); err != nil { // again: nothing more happens
			t.Fatal(err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: out.TaskID, Text: "1"}); a2a.CodeOf(err) != a2a.CodeTaskFinished {
			t.Fatalf("an answer after the cancel: %v, want TASK_FINISHED", err)
		}
		if len(w.notifications("s-cw", out.TaskID)) != 2 || runs.Load() != 1 {
			t.Fatalf("after a second cancel: %d notifications, %d runs", len(w.notifications("s-cw", out.TaskID)), runs.Load())
		}
	})
}

// The rules of an answer: the same answer twice (one message id) is
// applied once and returns the same invocation; an answer to a finished
// task is TASK_FINISHED, to another caller's task FORBIDDEN, to a running
// task or an answered question INVALID_STATE, one its question's schema
// refuses INVALID_INPUT, to a task nobody knows ErrUnknownTask.
func TestReplyRules(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		var runs atomic.Int32
		release, formRelease := make(chan struct{}), make(chan struct{})
		w.agent(n("Books"), map[string]agent.Handler{
			"find": clerk(&runs),
			"hold": func(ctx context.Context, _ *agent.Task) (*agent.Result, error) {
				select {
				case <-release:
					return agent.TextResult("held"), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
			"form": func(ctx context.Context, t *agent.Task) (*agent.Result, error) {
				if t.Turn() == 0 {
					r := agent.Ask("how many?")
					r.Question.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
					return r, nil
				}
				select {
				case <-formRelease:
					return agent.TextResult("got " + string(t.Request.Input)), nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
		})
		c := w.caller(n("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "find", Text: "x", SessionID: "s-r"}, nil)
		askedWhichEdition(t, out, err)
		id := out.TaskID

		if _, err := w.caller(n("Other"), false).Reply(ctxT(t), Reply{TaskID: id, Text: "1"}); a2a.CodeOf(err) != a2a.CodeForbidden || !strings.Contains(err.Error(), id) {
			t.Fatalf("another caller's answer: %v, want FORBIDDEN naming the task", err)
		}
		first, err := c.Reply(ctxT(t), Reply{TaskID: id, Text: "1", MessageID: "answer-1"})
		if err != nil {
			t.Fatal(err)
		}
		again, err := c.Reply(ctxT(t), Reply{TaskID: id, Text: "1", MessageID: "answer-1"}) // a retried CLI call
		if err != nil || again != first {
			t.Fatalf("the same answer again = %+v, %v; want %+v", again, err, first)
		}
		fresh := w.caller(n("Primary"), false) // a replica with nothing cached: the same answer again
		if again, err := fresh.Reply(ctxT(t), Reply{TaskID: id, Text: "1", MessageID: "answer-1"}); err != nil || again.Turn != 1 || !again.Deadline.Equal(first.Deadline) {
			t.Fatalf("the same answer to another replica = %+v, %v; want %+v", again, err, first)
		}
		final, err := c.Wait(ctxT(t), id, nil)
		if err != nil || final.Result.Text() != "turn 1: x | which edition? | 1" {
			t.Fatalf("Wait = %+v, %v", final, err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: id, Text: "2", MessageID: "answer-2"}); a2a.CodeOf(err) != a2a.CodeTaskFinished || !strings.Contains(err.Error(), id) {
			t.Fatalf("an answer to a finished task: %v, want TASK_FINISHED naming it", err)
		}
		if runs.Load() != 2 || len(w.notifications("s-r", id)) != 2 {
			t.Fatalf("%d runs, %d notifications; want 2 and 2 (the answer applied once)", runs.Load(), len(w.notifications("s-r", id)))
		}

		held, err := c.Invoke(ctxT(t), Request{Target: n("Books"), Skill: "hold", Text: "x", SessionID: "s-r"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: held.TaskID, Text: "hello?"}); a2a.CodeOf(err) != a2a.CodeInvalidState || !strings.Contains(err.Error(), held.TaskID) {
			t.Fatalf("an answer to a running task: %v, want INVALID_STATE naming it", err)
		}
		close(release)

		form, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "form", Text: "x", SessionID: "s-r"}, nil)
		if err != nil || !form.WaitingForInput() {
			t.Fatalf("form = %+v, %v", form, err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: form.TaskID, Text: "three"}); a2a.CodeOf(err) != a2a.CodeInvalidInput || !strings.Contains(err.Error(), "required") {
			t.Fatalf("an answer the schema refuses: %v, want INVALID_INPUT", err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: form.TaskID, Input: json.RawMessage(`{"n":3}`), MessageID: "form-a"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: form.TaskID, Input: json.RawMessage(`{"n":4}`), MessageID: "form-b"}); a2a.CodeOf(err) != a2a.CodeInvalidState ||
			!strings.Contains(err.Error(), "answered already") {
			t.Fatalf("a second, other answer while its turn runs: %v, want INVALID_STATE saying it was answered", err)
		}
		if _, err := w.caller(n("Primary"), false).Reply(ctxT(t), Reply{TaskID: form.TaskID, Text: "5"}); a2a.CodeOf(err) != a2a.CodeInvalidState {
			t.Fatalf("another answer to another replica while the turn runs: %v, want INVALID_STATE", err)
		}
		close(formRelease)
		if out, err := c.Wait(ctxT(t), form.TaskID, nil); err != nil || out.Result.Text() != `got {"n":3}` {
			t.Fatalf("Wait = %+v, %v", out, err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: "no-such-task", Text: "x"}); !errors.Is(err, ErrUnknownTask) {
			t.Fatalf("an answer to an unknown task: %v, want ErrUnknownTask", err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: form.TaskID}); !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("an empty answer: %v, want ErrInvalidRequest", err)
		}
	})
}

// A later turn whose agent never answers ends TIMEOUT at its own deadline
// (the sweeper's, for that turn), with a cancel sent as for a first turn.
func TestLaterTurnTimesOut(t *testing.T) {
	t.Parallel() // it mostly waits
	each(t, func(t *testing.T, w *world) {
		n := w.N
		var runs atomic.Int32
		a := w.agent(n("Books"), map[string]agent.Handler{"find": clerk(&runs)})
		c := w.caller(n("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: n("Books"), Skill: "find", Text: "x", SessionID: "s-lt"}, nil)
		askedWhichEdition(t, out, err)
		if err := a.Close(); err != nil { // nobody takes the answer
			t.Fatal(err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: out.TaskID, Text: "1", Timeout: 500 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		final, err := c.Wait(ctxT(t), out.TaskID, nil)
		if err != nil || a2a.CodeOf(final.Err()) != a2a.CodeTimeout || final.Turn != 1 {
			t.Fatalf("Wait = %+v, %v; want TIMEOUT of turn 1", final, err)
		}
		notes := w.notifications("s-lt", out.TaskID)
		if len(notes) != 2 || notes[1].Meta[MetaOutcome] != OutcomeSwept || notes[1].Meta[MetaTurn] != "1" {
			t.Fatalf("notifications %+v", notes)
		}
		if ids := w.pendingTasks(n("Primary")); len(ids) != 0 {
			t.Fatalf("still pending: %v", ids)
		}
	})
}

// A question delivered again after its wait ended (its first publish went
// unconfirmed and the agent sent it again, or the caller crashed before
// its ack) changes nothing: the task's outcome stays, nothing is pending
// again, nothing more is notified. An answer of a turn that never started
// changes nothing either.
func TestQuestionAgainAfterTheTaskEnded(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		core, logs := observer.New(zap.InfoLevel)
		c := w.caller(n("Primary"), true, func(o *Options) { o.Logger = zap.New(core) })
		inv, err := c.Invoke(ctxT(t), Request{Target: n("Offline"), Skill: "find", Text: "x", SessionID: "s-again"})
		if err != nil {
			t.Fatal(err)
		}
		question := &a2a.TaskResult{TaskID: inv.TaskID, Agent: n("Offline"), State: a2a.TaskStateInputRequired, Time: time.Now(),
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "which?"), Question: &a2a.Question{Text: "which?"}}
		env, err := a2a.Codec{}.Encode(question, a2a.Trace{})
		if err != nil {
			t.Fatal(err)
		}
		b := w.Connect(t)
		key, _ := a2a.ResponseRoutingKey(n("Primary"))
		publish := func(env a2a.Envelope) {
			if err := b.Publish(ctxT(t), busMessage(env, key)); err != nil {
				t.Fatal(err)
			}
		}
		publish(env)
		if out, err := c.Wait(ctxT(t), inv.TaskID, nil); err != nil || !out.WaitingForInput() {
			t.Fatalf("Wait = %+v, %v", out, err)
		}
		if _, err := c.Reply(ctxT(t), Reply{TaskID: inv.TaskID, Text: "this"}); err != nil {
			t.Fatal(err)
		}
		stray := result(inv.TaskID, n("Offline"), "an answer to turn 5")
		stray.Turn = 5
		publishAs(t, b, n("Primary"), stray)
		final := result(inv.TaskID, n("Offline"), "done")
		final.Turn = 1
		publishAs(t, b, n("Primary"), final)
		testenv.Eventually(t, "the task completed", func() bool {
			info, err := c.Task(ctxT(t), inv.TaskID)
			return err == nil && !info.Pending && info.Result != nil && info.Result.Text() == "done"
		})
		publish(env) // the question once more
		after := result(inv.TaskID, n("Offline"), "a marker handled after the question")
		after.Turn = 7
		publishAs(t, b, n("Primary"), after) // a task's responses are handled in order
		testenv.Eventually(t, "the question handled again", func() bool {
			return logs.FilterMessageSnippet("answer ignored").FilterField(zap.Int("turn", 7)).Len() > 0
		})
		if got := w.stored(inv.MemoryKey); got.State != a2a.TaskStateCompleted || got.Text() != "done" {
			t.Fatalf("stored %+v, want the outcome kept", got)
		}
		if ids := w.pendingTasks(n("Primary")); len(ids) != 0 {
			t.Fatalf("pending again: %v", ids)
		}
		if notes := w.notifications("s-again", inv.TaskID); len(notes) != 2 {
			t.Fatalf("%d notifications, want the question and the outcome: %+v", len(notes), notes)
		}
		if logs.FilterMessageSnippet("answer ignored").FilterField(zap.Int("turn", 5)).Len() != 1 {
			t.Error("the answer of a turn that never started was not logged as ignored")
		}
	})
}

// busMessage is env published with routing key.
func busMessage(env a2a.Envelope, key string) bus.Message {
	return bus.Message{Envelope: env, RoutingKey: key}
}
