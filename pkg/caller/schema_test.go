// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/schema"
	"github.com/a2abus/a2abus/pkg/schema/jsonschema"
)

// npvSchema is SampleAgent.npv's input schema.
const npvSchema = `{"type":"object","properties":{"cash_flows":{"type":"array","items":{"type":"number"},"minItems":1},` +
	`"discount_rate":{"type":"number","exclusiveMinimum":-1}},"required":["cash_flows","discount_rate"],"additionalProperties":false}`

const badRate = `{"cash_flows":[-100,60,60],"discount_rate":"12%"}`

// wantInvalid fails unless err is INVALID_INPUT naming every fragment.
func wantInvalid(t *testing.T, err error, fragments ...string) {
	t.Helper()
	var e *a2a.Error
	if !errors.As(err, &e) || e.Code != a2a.CodeInvalidInput {
		t.Fatalf("got %v, want INVALID_INPUT", err)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			t.Fatalf("message %q does not contain %q", e.Message, f)
		}
	}
}

// A caller whose resolver is the directory (wrapped in a PatientResolver, as
// the CLI and agents build it) refuses input that breaks the schema before
// publishing: the first task in the agent's queue is the valid one sent after.
func TestInvalidInputRefusedBeforePublishing(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target := w.N("Calc")
		dir := npvDirectory(t, w, target)
		resolver := directory.PatientResolver{Directory: dir, Wait: time.Second}
		c := w.caller(w.N("Primary"), true, func(o *Options) { o.Resolver = resolver })

		for _, req := range []Request{
			{Target: target, Skill: "npv", Text: "npv please", Input: json.RawMessage(badRate)},
			{Target: target, Skill: "npv", Text: badRate}, // JSON text stands for the input
		} {
			_, err := c.Invoke(ctxT(t), req)
			wantInvalid(t, err, "/discount_rate: type: got string, want number")
			if !strings.Contains(err.Error(), "invoke "+target+".npv") {
				t.Errorf("error %q does not say what was refused", err)
			}
			_, err = c.Call(ctxT(t), req, nil)
			wantInvalid(t, err, "/discount_rate: type: got string, want number")
		}
		_, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "npv", Text: "no input"})
		wantInvalid(t, err, "structured input is required", "(root): type: got null, want object")

		valid, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "npv", Input: json.RawMessage(`{"cash_flows":[1],"discount_rate":0.1}`)})
		if err != nil {
			t.Fatal(err)
		}
		if first := firstQueued(t, w, target); first != valid.TaskID {
			t.Fatalf("first task in %s's queue is %s, want the valid %s: a refused one was published", target, first, valid.TaskID)
		}
	})
}

// firstQueued returns the task id of the first request in target's queue.
func firstQueued(t *testing.T, w *world, target string) string {
	t.Helper()
	spec, err := bus.TaskQueue(target)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan string, 1)
	b := w.Connect(t)
	_ = b.Consume(ctx, spec.Name, bus.ConsumeOptions{}, func(_ context.Context, d *bus.Delivery) error {
		select {
		case got <- d.CorrelationID:
			cancel()
		default:
		}
		return d.Nack()
	})
	select {
	case id := <-got:
		return id
	default:
		t.Fatal("no task in the queue")
		return ""
	}
}

// The agent checks again: a caller without a directory publishes bad input,
// the agent answers INVALID_INPUT naming the path and the rule, and the
// handler never runs. Valid input runs. A caller with a directory that
// learnt the schema from the agent's announcement refuses it itself.
func TestInvalidInputRefusedByTheAgent(t *testing.T) {
	each(t, func(t *testing.T, w *world) {
		target := w.N("Calc")
		var runs atomic.Int32
		a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: target, Version: "1.0"}, Bus: w.Connect(t), StopTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		err = a.Handle("npv", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
			runs.Add(1)
			return agent.TextResult("ok"), nil
		}, agent.WithInputSchema(json.RawMessage(npvSchema)))
		if err != nil {
			t.Fatal(err)
		}
		dir, err := directory.New(directory.Options{Bus: w.Connect(t), Exchange: w.Exchange})
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = dir.Run(context.Background()) }()
		t.Cleanup(func() { _ = dir.Close() })
		go func() { _ = a.Run(context.Background()) }()
		t.Cleanup(func() { _ = a.Close() })

		plain := w.caller(w.N("Plain"), true)
		for _, in := range []string{badRate, `{"cash_flows":[],"discount_rate":0.1,"periods":"annual"}`} {
			out, err := plain.Call(ctxT(t), Request{Target: target, Skill: "npv", Text: "npv", Input: json.RawMessage(in)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Result.State != a2a.TaskStateRejected || out.Result.Status != a2a.StatusError {
				t.Errorf("refused task ended in %s with status %q, want rejected, ERROR", out.Result.State, out.Result.Status)
			}
			if in == badRate {
				wantInvalid(t, out.Err(), `skill "npv" of "`+target+`"`, "/discount_rate: type: got string, want number")
			} else {
				wantInvalid(t, out.Err(), "/cash_flows: minItems: got 0 items, want at least 1", "/periods: additionalProperties: not allowed")
			}
		}
		if n := runs.Load(); n != 0 {
			t.Fatalf("the handler ran %d times on refused input", n)
		}
		out, err := plain.Call(ctxT(t), Request{Target: target, Skill: "npv", Input: json.RawMessage(`{"cash_flows":[1,2],"discount_rate":0}`)}, nil)
		if err != nil || out.Err() != nil || runs.Load() != 1 {
			t.Fatalf("valid input: %+v, %v; handler runs %d", out, err, runs.Load())
		}

		// The directory learnt the schema from the agent's announcement.
		testenv.Eventually(t, "the directory to learn the announced schema", func() bool {
			_, ok := dir.InputSchema(target, "npv")
			return ok
		}, testenv.WakeOn(dir.Changes()))
		vetted := w.caller(w.N("Vetted"), true, func(o *Options) { o.Resolver = dir })
		_, err = vetted.Invoke(ctxT(t), Request{Target: target, Skill: "npv", Input: json.RawMessage(badRate)})
		wantInvalid(t, err, "/discount_rate: type: got string, want number")
		if n := runs.Load(); n != 1 {
			t.Fatalf("the handler ran %d times, want 1", n)
		}
	})
}

// In a program that registered no JSON Schema validator the caller does not
// check input before publishing (the agent checks it), without an error;
// the directory keeps the schema it was given. An answer to a
// question that has an input schema is refused with schema.ErrNotLinked:
// nobody else would check it.
func TestWithoutTheValidator(t *testing.T) {
	schema.Register(nil) // as in research-agent; the tests link it (schema_link_test.go)
	t.Cleanup(jsonschema.Register)
	each(t, func(t *testing.T, w *world) {
		target := w.N("Calc")
		dir := npvDirectory(t, w, target)
		if raw, ok := dir.InputSchema(target, "npv"); !ok || string(raw) != npvSchema {
			t.Fatalf("the directory keeps %s, %v; want the schema", raw, ok)
		}
		core, logs := observer.New(zap.WarnLevel)
		c := w.caller(w.N("Primary"), true, func(o *Options) {
			o.Resolver, o.Logger = directory.PatientResolver{Directory: dir, Wait: time.Second}, zap.New(core)
		})
		bad, err := c.Invoke(ctxT(t), Request{Target: target, Skill: "npv", Input: json.RawMessage(badRate)})
		if err != nil {
			t.Fatalf("Invoke without a validator = %v, want the input published unchecked", err)
		}
		if n := logs.Len(); n != 0 {
			t.Fatalf("Invoke without a validator logged %d warnings, first %q; want none", n, logs.All()[0].Message)
		}
		if first := firstQueued(t, w, target); first != bad.TaskID {
			t.Fatalf("first task in %s's queue is %s, want %s", target, first, bad.TaskID)
		}

		asker := w.N("Asker")
		w.agent(asker, map[string]agent.Handler{"form": func(context.Context, *agent.Task) (*agent.Result, error) {
			r := agent.Ask("how many?")
			r.Question.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
			return r, nil
		}})
		c = w.caller(w.N("Answerer"), true)
		form, err := c.Call(ctxT(t), Request{Target: asker, Skill: "form", Text: "x"}, nil)
		if err != nil || !form.WaitingForInput() {
			t.Fatalf("form = %+v, %v", form, err)
		}
		_, err = c.Reply(ctxT(t), Reply{TaskID: form.TaskID, Input: json.RawMessage(`{"n":"three"}`)})
		if !errors.Is(err, schema.ErrNotLinked) || !strings.Contains(err.Error(), form.TaskID) || !strings.Contains(err.Error(), "jsonschema.Register()") {
			t.Fatalf("an answer to a question with a schema = %v, want schema.ErrNotLinked naming the task and jsonschema.Register()", err)
		}
	})
}

// A stored failure carries its contract status: TIMEOUT for a task nobody
// answered in time (the sweeper's), ERROR otherwise (above).
func TestStoredTimeoutCarriesItsStatus(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	each(t, func(t *testing.T, w *world) {
		c := w.caller(w.N("Primary"), true)
		out, err := c.Call(ctxT(t), Request{Target: w.N("Nobody"), Skill: "echo", Text: "x", Timeout: time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if a2a.CodeOf(out.Err()) != a2a.CodeTimeout || out.Result.Status != a2a.StatusTimeout || out.Result.State != a2a.TaskStateFailed {
			t.Fatalf("outcome: state %s, status %q, err %v; want failed, TIMEOUT", out.Result.State, out.Result.Status, out.Err())
		}
	})
}

// The directory, and the resolver the CLI and agents wrap it in, are resolvers.
var (
	_ Resolver = (*directory.Directory)(nil)
	_ Resolver = directory.PatientResolver{}
)

// npvDirectory is a directory that knows target, from the well-known
// file, with an npv skill whose input schema is npvSchema.
func npvDirectory(t *testing.T, w *world, target string) *directory.Directory {
	t.Helper()
	wk := directory.WellKnownAgent{AgentName: target, Skills: []directory.WellKnownSkill{{ID: "npv"}},
		InputSchemas: map[string]json.RawMessage{"npv": json.RawMessage(npvSchema)}}
	dir, err := directory.New(directory.Options{Bus: w.Connect(t), WellKnown: []directory.WellKnownAgent{wk}})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
