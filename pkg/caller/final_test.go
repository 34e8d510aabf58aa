// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// outcomeLog returns a caller's logger and counts of its "task finished"
// and "answer ignored" lines for a task.
func outcomeLog() (log *zap.Logger, finished, ignored func(taskID string) int) {
	core, logs := observer.New(zap.InfoLevel)
	count := func(msg string) func(string) int {
		return func(taskID string) int {
			return logs.FilterMessageSnippet(msg).FilterField(zap.String("task", taskID)).Len()
		}
	}
	return zap.New(core), count("task finished"), count("answer ignored")
}

func result(taskID, agent, text string) *a2a.TaskResult {
	return &a2a.TaskResult{TaskID: taskID, Agent: agent, State: a2a.TaskStateCompleted, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, text), Time: time.Now()}
}

func taskError(taskID, agent string, code a2a.ErrorCode) *a2a.TaskError {
	return &a2a.TaskError{TaskID: taskID, Agent: agent, State: a2a.TaskStateFailed, Code: code, Message: "from the agent: " + string(code), Time: time.Now()}
}

// entry returns the call-history entry of a task.
func (w *world) entry(session, taskID string) HistoryEntry {
	w.t.Helper()
	for _, e := range w.history(session) {
		if e.TaskID == taskID {
			return e
		}
	}
	w.t.Fatalf("no history entry for %s in session %s", taskID, session)
	return HistoryEntry{}
}

// A task run again after its reply was confirmed but before its ack answers
// a second time: with another result, or with a TIMEOUT when the run went
// past the deadline. The first answer stays stored and is notified once;
// the second changes nothing and is logged. Both ways of finalizing are
// covered: an answer well before its deadline (claimed in the batch that
// stores it) and one near it (claimed first, by a replica whose clock runs
// 58s ahead and that does not sweep).
func TestSecondAnswerChangesNothing(t *testing.T) {
	seconds := map[string]func(taskID, agent string) a2a.Payload{
		"result":  func(id, ag string) a2a.Payload { return result(id, ag, "second") },
		"timeout": func(id, ag string) a2a.Payload { return taskError(id, ag, a2a.CodeTimeout) },
	}
	paths := map[string]time.Duration{"early": 0, "near deadline": 58 * time.Second}
	each(t, func(t *testing.T, w *world) {
		for pathName, skew := range paths {
			for secondName, second := range seconds {
				t.Run(pathName+"/"+secondName, func(t *testing.T) {
					w := wrap(t, w.World) // its callers stop with the subtest
					n := w.N
					log, finished, ignored := outcomeLog()
					session := "dup-" + strings.ReplaceAll(pathName, " ", "-") + "-" + secondName
					invoker := w.caller(n("Primary"), false)
					w.caller(n("Primary"), true, func(o *Options) {
						o.Logger = log
						o.Now = func() time.Time { return time.Now().Add(skew) }
						o.SweepInterval = time.Hour
					})
					inv, err := invoker.Invoke(ctxT(t), Request{Target: n("Offline"), Skill: "echo", Text: "x", SessionID: session, Timeout: time.Minute})
					if err != nil {
						t.Fatal(err)
					}
					b := w.Connect(t)
					publishAs(t, b, n("Primary"), result(inv.TaskID, n("Offline"), "first"))
					publishAs(t, b, n("Primary"), second(inv.TaskID, n("Offline")))
					// Before the fix the second answer was finished (stored) too.
					testenv.Eventually(t, "the second answer handled", func() bool {
						return ignored(inv.TaskID) >= 1 || finished(inv.TaskID) >= 2
					})
					if s := w.stored(inv.MemoryKey); s.Error != nil || s.Late || s.Text() != "first" {
						t.Fatalf("stored %q (late %v, error %v), want the first answer", s.Text(), s.Late, s.Error)
					}
					if turns := w.turns(session); len(turns) != 1 || !strings.Contains(turns[0].Content, "completed task") {
						t.Fatalf("turns = %+v, want one completion", turns)
					}
					if e := w.entry(session, inv.TaskID); e.Status != "SUCCESS" || e.Code != "" {
						t.Fatalf("history = %+v, want the first answer's", e)
					}
					if f, i := finished(inv.TaskID), ignored(inv.TaskID); f != 1 || i != 1 {
						t.Fatalf("%d finished and %d ignored log lines, want 1 and 1", f, i)
					}
				})
			}
		}
	})
}

// After the sweeper's TIMEOUT: the agent's CANCELED (answering the cancel)
// does not replace it; the first real result does, marked late and
// notified; a second late result changes nothing.
func TestOnlyTheFirstLateResultReplacesTheTimeout(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		n := w.N
		log, finished, ignored := outcomeLog()
		c := w.caller(n("Primary"), true, func(o *Options) { o.Logger = log })
		inv, err := c.Invoke(ctxT(t), Request{Target: n("Offline"), Skill: "echo", Text: "x", SessionID: "late", Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		out, err := c.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil || a2a.CodeOf(out.Err()) != a2a.CodeTimeout {
			t.Fatalf("wait = %+v, %v; want the TIMEOUT", out, err)
		}
		b := w.Connect(t)
		publishAs(t, b, n("Primary"), taskError(inv.TaskID, n("Offline"), a2a.CodeCanceled))
		publishAs(t, b, n("Primary"), result(inv.TaskID, n("Offline"), "late one"))
		publishAs(t, b, n("Primary"), result(inv.TaskID, n("Offline"), "late two"))
		testenv.Eventually(t, "the three answers handled", func() bool {
			return ignored(inv.TaskID)+finished(inv.TaskID) >= 4 // the TIMEOUT, and three answers
		})
		if s := w.stored(inv.MemoryKey); s.Error != nil || !s.Late || s.Text() != "late one" {
			t.Fatalf("stored %q (late %v, error %v), want the first late result", s.Text(), s.Late, s.Error)
		}
		turns := w.turns("late")
		if len(turns) != 2 || !strings.Contains(turns[0].Content, "did not answer") ||
			!strings.Contains(turns[1].Content, "late") || !strings.Contains(turns[1].Content, "late one") {
			t.Fatalf("turns = %+v, want the TIMEOUT and the first late result", turns)
		}
		if e := w.entry("late", inv.TaskID); e.Status != "SUCCESS" || !e.Late {
			t.Fatalf("history = %+v, want the late result", e)
		}
		if f, i := finished(inv.TaskID), ignored(inv.TaskID); f != 2 || i != 2 {
			t.Fatalf("%d finished and %d ignored log lines, want 2 and 2", f, i)
		}
	})
}

// flakyMemory fails the first n writes of a result with err (default
// ErrUnavailable, like Redis down).
type flakyMemory struct {
	memory.Memory
	mu   sync.Mutex
	fail int
	err  error
}

func (f *flakyMemory) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if f.failing(key) {
		return fmt.Errorf("set %q: %w", key, f.error())
	}
	return f.Memory.Set(ctx, key, v, ttl)
}

// Batch fails a batch that stores a result, like Set.
func (f *flakyMemory) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	for _, o := range ops {
		if (o.Kind == memory.OpSet || o.Kind == memory.OpSetIfAbsent) && f.failing(o.Key) {
			return nil, fmt.Errorf("batch: %s: %w", o, f.error())
		}
	}
	return f.Memory.Batch(ctx, ops...)
}

func (f *flakyMemory) error() error {
	if f.err != nil {
		return f.err
	}
	return memory.ErrUnavailable
}

// failing reports whether a write of key (a result, under session/) fails
// now, counting the failure.
func (f *flakyMemory) failing(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasPrefix(key, "session/") || !strings.HasSuffix(key, "/result") || f.fail == 0 {
		return false
	}
	f.fail--
	return true
}

// left is how many failures are still to come.
func (f *flakyMemory) left() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fail
}

// Working memory that refuses writes with an error other than
// ErrUnavailable (a replica made read-only, maxmemory reached) delays the
// result until it accepts them; it is never dead-lettered nor replaced by a
// TIMEOUT. (Before the fix it was requeued at once until dead-lettered.)
func TestMemoryErrorsDelayButLoseNothing(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	errs := map[string]error{
		// As memory/redismem reports them.
		"readonly": fmt.Errorf("%w: READONLY You can't write against a read only replica.", memory.ErrUnavailable),
		"oom":      fmt.Errorf("%w: OOM command not allowed when used memory > 'maxmemory'.", memory.ErrRefused),
	}
	each(t, func(t *testing.T, w *world) {
		for name, merr := range errs {
			t.Run(name, func(t *testing.T) {
				w := wrap(t, w.World) // its callers and agents stop with the subtest
				n := w.N
				flaky := &flakyMemory{Memory: w.mem, fail: 6, err: merr} // more than bus.max_attempts (5)
				w.agent(n("Echo"), map[string]agent.Handler{"echo": echo})
				c := w.caller(n("Primary"), true, func(o *Options) { o.Memory = flaky })
				session := "memerr-" + name
				out, err := c.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "persist", SessionID: session, Timeout: 10 * time.Second}, nil)
				if err != nil || out.Err() != nil || out.Result.Text() != "echo: persist" {
					if out != nil {
						t.Fatalf("call = %q (error %v), %v; want the echo", out.Result.Text(), out.Err(), err)
					}
					t.Fatalf("call: %v", err)
				}
				if left := flaky.left(); left != 0 {
					t.Fatalf("failures not exercised: %d left", left)
				}
				if turns := w.turns(session); len(turns) != 1 || !strings.Contains(turns[0].Content, "completed task") {
					t.Fatalf("turns = %+v, want one completion", turns)
				}
			})
		}
	})
}

// A permanent failure (an invalid argument: a bug) is not retried; a
// persistent one is retried until the bound, and the error says so.
func TestRetryStopsOnPermanentErrorsAndAtTheBound(t *testing.T) {
	w := wrap(t, testworld.Embedded(t))
	c := w.caller("Primary", false)
	calls := 0
	err := c.retry(context.Background(), "store", func(context.Context) error {
		calls++
		return fmt.Errorf("set: %w", memory.ErrInvalidArgument)
	})
	if !errors.Is(err, memory.ErrInvalidArgument) || calls != 1 {
		t.Fatalf("retry of a permanent error = %v after %d calls, want it at once", err, calls)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), 300*time.Millisecond, errRetryBound)
	defer cancel()
	oom := fmt.Errorf("%w: OOM command not allowed", memory.ErrRefused)
	calls = 0
	err = c.retry(ctx, "store", func(context.Context) error { calls++; return oom })
	if !errors.Is(err, errRetryBound) || !errors.Is(err, oom) || calls < 2 {
		t.Fatalf("retry past the bound = %v after %d calls, want the bound and the last error", err, calls)
	}
}

// unconfirmedBus delivers task requests but reports them unconfirmed, as
// when the connection drops between the publish and its confirm; or, with
// unroutable, drops them and reports them unroutable.
type unconfirmedBus struct {
	bus.Bus
	unroutable, notSent bool
}

func (u *unconfirmedBus) Publish(ctx context.Context, m bus.Message) error {
	if !strings.HasPrefix(m.RoutingKey, "agent.task.") {
		return u.Bus.Publish(ctx, m)
	}
	if u.unroutable {
		return fmt.Errorf("%w: 312 NO_ROUTE", bus.ErrUnroutable)
	}
	if u.notSent {
		return fmt.Errorf("%w (%w): no channel", bus.ErrNotConfirmed, bus.ErrNotSent)
	}
	if err := u.Bus.Publish(ctx, m); err != nil {
		return err
	}
	return fmt.Errorf("%w: connection lost before the confirm", bus.ErrNotConfirmed)
}

// A publish whose outcome is unknown keeps the task: Invoke says so, naming
// the task and its memory key, and the agent's answer is stored and
// notified (before the fix the record was deleted and the answer
// dead-lettered as unknown). Call waits for it. A definite failure
// (unroutable) still forgets the task.
func TestUnconfirmedPublishKeepsTheTask(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		n := w.N
		w.agent(n("Echo"), map[string]agent.Handler{"echo": echo})
		c := w.caller(n("Primary"), true, func(o *Options) { o.Bus = &unconfirmedBus{Bus: o.Bus} })
		inv, err := c.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "maybe", SessionID: "unconfirmed"})
		if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, bus.ErrNotConfirmed) || inv.TaskID == "" ||
			!strings.Contains(err.Error(), inv.TaskID) || !strings.Contains(err.Error(), inv.MemoryKey) {
			t.Fatalf("invoke = %+v, %v; want ErrOutcomeUnknown naming the task and its key", inv, err)
		}
		out, err := c.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil || out.Err() != nil || out.Result.Text() != "echo: maybe" {
			t.Fatalf("wait = %+v, %v", out, err)
		}
		if turns := w.turns("unconfirmed"); len(turns) != 1 || !strings.Contains(turns[0].Content, "completed task") {
			t.Fatalf("turns = %+v, want one completion", turns)
		}
		out, err = c.Call(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "call", SessionID: "unconfirmed"}, nil)
		if err != nil || out.Err() != nil || out.Result.Text() != "echo: call" {
			t.Fatalf("call = %+v, %v", out, err)
		}

		lost := w.caller(n("Other"), false, func(o *Options) { o.Bus = &unconfirmedBus{Bus: o.Bus, unroutable: true} })
		inv, err = lost.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "never", SessionID: "unconfirmed-lost"})
		if !errors.Is(err, bus.ErrUnroutable) || errors.Is(err, ErrOutcomeUnknown) || inv.TaskID != "" {
			t.Fatalf("invoke unroutable = %+v, %v", inv, err)
		}
		tasks, err := w.mem.List(context.Background(), "a2a/tasks/"+n("Other")+"/")
		if err != nil || len(tasks) != 0 {
			t.Fatalf("records of an unroutable task: %v, %v; want none", tasks, err)
		}
		// Surely never sent (no channel): forgotten too, not kept for a TIMEOUT.
		unsent := w.caller(n("Unsent"), false, func(o *Options) { o.Bus = &unconfirmedBus{Bus: o.Bus, notSent: true} })
		inv, err = unsent.Invoke(ctxT(t), Request{Target: n("Echo"), Skill: "echo", Text: "never", SessionID: "unconfirmed-unsent"})
		if !errors.Is(err, bus.ErrNotSent) || errors.Is(err, ErrOutcomeUnknown) || inv.TaskID != "" {
			t.Fatalf("invoke not sent = %+v, %v", inv, err)
		}
		if tasks, err := w.mem.List(context.Background(), "a2a/tasks/"+n("Unsent")+"/"); err != nil || len(tasks) != 0 {
			t.Fatalf("records of a task never sent: %v, %v; want none", tasks, err)
		}
	})
}

// stalledBus holds task requests until stalled reports the deadline passed
// (the sweeper stored its TIMEOUT), then reports them surely not sent — a
// publish that waited for a lost connection past its task's deadline.
type stalledBus struct {
	bus.Bus
	swept func() bool
}

func (s *stalledBus) Publish(ctx context.Context, m bus.Message) error {
	if !strings.HasPrefix(m.RoutingKey, "agent.task.") {
		return s.Bus.Publish(ctx, m)
	}
	for !s.swept() && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("%w (%w): wait for publish connection: %w", bus.ErrNotConfirmed, bus.ErrNotSent, context.DeadlineExceeded)
}

// A task that was never sent has no outcome, and one that has an outcome
// was not refused: when the sweeper timed a task out while its publish
// still waited (found by the soak: "refused, but an outcome was stored"),
// Invoke keeps it and says so (ErrOutcomeUnknown), and its TIMEOUT is its
// one outcome. Withdrawn before the deadline, a task is never swept.
func TestUnsentTaskEitherRefusedOrSwept(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		n := w.N
		session := "stalled-" + n("s")
		c := w.caller(n("Primary"), true, func(o *Options) {
			o.Bus = &stalledBus{Bus: o.Bus, swept: func() bool { return len(w.turns(session)) > 0 }}
		})
		inv, err := c.Invoke(ctxT(t), Request{Target: n("Nobody"), Skill: "echo", Text: "late", SessionID: session, Timeout: time.Second})
		if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, bus.ErrNotSent) || inv.TaskID == "" {
			t.Fatalf("invoke swept while publishing = %+v, %v; want the task kept (ErrOutcomeUnknown)", inv, err)
		}
		out, err := c.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil || out.Result.Error == nil || out.Result.Error.Code != a2a.CodeTimeout {
			t.Fatalf("wait = %+v, %v; want its TIMEOUT", out, err)
		}
		if turns := w.turns(session); len(turns) != 1 {
			t.Fatalf("turns = %+v, want the one TIMEOUT", turns)
		}

		// Refused in time: withdrawn, and a sweep past its deadline finds nothing.
		session2 := "unsent-" + n("s")
		unsent := w.caller(n("Unsent"), true, func(o *Options) {
			o.Bus = &stalledBus{Bus: o.Bus, swept: func() bool { return true }}
		})
		inv, err = unsent.Invoke(ctxT(t), Request{Target: n("Nobody"), Skill: "echo", Text: "never", SessionID: session2, Timeout: time.Second})
		if !errors.Is(err, bus.ErrNotSent) || errors.Is(err, ErrOutcomeUnknown) || inv.TaskID != "" {
			t.Fatalf("invoke not sent = %+v, %v; want refused", inv, err)
		}
		// Nothing is left for a sweep past its deadline: no record, no
		// pending entry, and its final outcome is claimed as withdrawn.
		if tasks, err := w.mem.List(context.Background(), "a2a/tasks/"+n("Unsent")+"/"); err != nil || len(tasks) != 0 {
			t.Fatalf("records of a task never sent: %v, %v; want none", tasks, err)
		}
		if pending, err := w.mem.IndexRange(context.Background(), mustPendingIndex(t, n("Unsent")), math.MaxInt64, 10); err != nil || len(pending) != 0 {
			t.Fatalf("pending entries of a task never sent: %v, %v; want none", pending, err)
		}
		if err := unsent.sweep(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if turns := w.turns(session2); len(turns) != 0 {
			t.Fatalf("turns of a refused task = %+v, want none", turns)
		}
	})
}

// claimFailingMemory fails every batch that claims a task's final outcome
// unsent (memory unavailable to the withdrawal, for longer than it retries),
// and works otherwise.
type claimFailingMemory struct {
	memory.Memory
}

func (m *claimFailingMemory) Batch(ctx context.Context, ops ...memory.Op) ([]memory.OpResult, error) {
	if len(ops) == 1 && ops[0].Kind == memory.OpSetIfAbsent && strings.HasPrefix(ops[0].Key, "a2a/final/") && string(ops[0].Value) == claimUnsent {
		return nil, fmt.Errorf("%w: injected", memory.ErrUnavailable)
	}
	return m.Memory.Batch(ctx, ops...)
}

// A task whose publish surely failed, but whose withdrawal memory could not
// record for as long as it is retried, is kept (nothing can say it was not
// swept meanwhile): Invoke says ErrOutcomeUnknown, and the task ends with
// its one TIMEOUT — never refused with an outcome stored after all.
func TestUnsentTaskKeptWhenItsWithdrawalFails(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		n := w.N
		session := "unsent-kept-" + n("s")
		c := w.caller(n("Primary"), true, func(o *Options) {
			o.Bus = &stalledBus{Bus: o.Bus, swept: func() bool { return true }}
			o.Memory = &claimFailingMemory{Memory: w.mem}
			o.MemoryRetryBound = 300 * time.Millisecond // the withdrawal's retries too
		})
		inv, err := c.Invoke(ctxT(t), Request{Target: n("Nobody"), Skill: "echo", Text: "kept", SessionID: session, Timeout: 3 * time.Second}) // not 1 s: under load the send alone took 1.46 s, past the deadline
		if !errors.Is(err, ErrOutcomeUnknown) || !errors.Is(err, bus.ErrNotSent) || inv.TaskID == "" {
			t.Fatalf("invoke whose withdrawal failed = %+v, %v; want the task kept (ErrOutcomeUnknown)", inv, err)
		}
		out, err := c.Wait(ctxT(t), inv.TaskID, nil)
		if err != nil || out.Result.Error == nil || out.Result.Error.Code != a2a.CodeTimeout {
			t.Fatalf("wait = %+v, %v; want its TIMEOUT", out, err)
		}
		if turns := w.turns(session); len(turns) != 1 {
			t.Fatalf("turns = %+v, want the one TIMEOUT", turns)
		}
	})
}

// A call whose deadline passes before it can be sent (everything before the
// publish took the time allowed: under load, or a nanosecond allowed) is
// refused as a TIMEOUT, not reported as a request with an invalid field,
// and leaves nothing pending.
func TestDeadlinePassedBeforeSendIsATimeoutRefusal(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		name := w.N("Primary")
		c := w.caller(name, true)
		_, err := c.Invoke(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: time.Nanosecond})
		refusal(t, err, a2a.CodeTimeout, "deadline passed before it could be sent")
		if errors.Is(err, ErrInvalidRequest) {
			t.Errorf("refusal %v reads as an invalid request", err)
		}
		if tasks, err := w.mem.List(context.Background(), "a2a/tasks/"+name+"/"); err != nil || len(tasks) != 0 {
			t.Fatalf("records of a task never sent: %v, %v; want none", tasks, err)
		}
	})
}

// mustPendingIndex is memory.PendingIndex of a valid caller name.
func mustPendingIndex(t *testing.T, caller string) string {
	t.Helper()
	index, err := memory.PendingIndex(caller)
	if err != nil {
		t.Fatal(err)
	}
	return index
}
