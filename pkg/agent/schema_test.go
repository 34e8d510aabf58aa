// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/schema"
	"github.com/a2abus/a2abus/pkg/schema/jsonschema"
)

const rateSchema = `{"type":"object","properties":{"rate":{"type":"number","exclusiveMinimum":-1}},"required":["rate"],"additionalProperties":false}`

// TestInputSchemaCheckedBeforeRunning: input that breaks the skill's schema
// is refused with INVALID_INPUT naming the path and the rule, and the
// handler never runs; valid input (structured, or a JSON object as text) runs.
func TestInputSchemaCheckedBeforeRunning(t *testing.T) {
	h := newHarness(t)
	var runs atomic.Int32
	a := h.agent(Options{}, nil)
	err := a.Handle("rate", func(_ context.Context, task *Task) (*Result, error) {
		runs.Add(1)
		return TextResult("ok"), nil
	}, WithInputSchema(json.RawMessage(rateSchema)))
	if err != nil {
		t.Fatal(err)
	}
	h.start(a)

	withInput := func(in string) func(*a2a.TaskRequest) {
		return func(r *a2a.TaskRequest) { r.Input = json.RawMessage(in) }
	}
	for _, tc := range []struct {
		name, text string
		mod        []func(*a2a.TaskRequest)
		want       string
	}{
		{"wrong type", "x", []func(*a2a.TaskRequest){withInput(`{"rate":"12%"}`)}, `/rate: type: got string, want number`},
		{"out of range and extra", "x", []func(*a2a.TaskRequest){withInput(`{"rate":-3,"x":1}`)},
			`/rate: exclusiveMinimum: got -3, want > -1; /x: additionalProperties: not allowed`},
		{"no structured input", "compute please", nil, `structured input is required`},
		{"JSON text breaking the schema", `{"rate":null}`, nil, `/rate: type: got null, want number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := h.send("Worker", "rate", tc.text, tc.mod...)
			e, ok := h.final(req.TaskID).(*a2a.TaskError)
			if !ok || e.Code != a2a.CodeInvalidInput || e.State != a2a.TaskStateRejected || e.Retryable {
				t.Fatalf("reply = %+v, want a rejected INVALID_INPUT", h.final(req.TaskID))
			}
			if !strings.Contains(e.Message, tc.want) || !strings.Contains(e.Message, `skill "rate" of "Worker"`) {
				t.Fatalf("message %q does not name the skill and %q", e.Message, tc.want)
			}
		})
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("the handler ran %d times on refused input", n)
	}
	for _, req := range []*a2a.TaskRequest{
		h.send("Worker", "rate", "x", withInput(`{"rate":0.12}`)),
		h.send("Worker", "rate", ` {"rate": 2} `),
	} {
		if r, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok || r.Status != a2a.StatusSuccess {
			t.Fatalf("valid input: reply %+v", h.final(req.TaskID))
		}
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("the handler ran %d times, want 2", n)
	}
}

// A schema that accepts null lets a task without structured input through.
func TestInputSchemaAcceptingNull(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{}, nil)
	if err := a.Handle("opt", echo, WithInputSchema(json.RawMessage(`{"type":["object","null"]}`))); err != nil {
		t.Fatal(err)
	}
	h.start(a)
	req := h.send("Worker", "opt", "plain text")
	if _, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok {
		t.Fatalf("reply = %+v, want a result", h.final(req.TaskID))
	}
}

func TestBadInputSchemaRefusedAtRegistration(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{}, nil)
	for _, raw := range []string{`{"type":5}`, `not json`, `[]`, ``, `{"$ref":"file:///etc/passwd"}`} {
		err := a.Handle("bad", echo, WithInputSchema(json.RawMessage(raw)))
		if !errors.Is(err, ErrInvalidOptions) || !errors.Is(err, schema.ErrInvalidSchema) {
			t.Fatalf("schema %q: Handle = %v, want ErrInvalidOptions and schema.ErrInvalidSchema", raw, err)
		}
	}
	if len(a.Card().Skills) != 0 || a.InputSchemas() != nil {
		t.Fatalf("a refused skill was registered: %+v %v", a.Card().Skills, a.InputSchemas())
	}
	// Options and middleware mix; nil options are ignored.
	var wrapped atomic.Int32
	mw := Middleware(func(next Handler) Handler {
		return func(ctx context.Context, t *Task) (*Result, error) { wrapped.Add(1); return next(ctx, t) }
	})
	if err := a.Handle("ok", echo, nil, mw, WithInputSchema(json.RawMessage(`{"type":"object"}`))); err != nil {
		t.Fatal(err)
	}
	if got := a.InputSchemas(); len(got) != 1 || string(got["ok"]) != `{"type":"object"}` {
		t.Fatalf("InputSchemas() = %v", got)
	}
	h.start(a)
	req := h.send("Worker", "ok", "x", func(r *a2a.TaskRequest) { r.Input = json.RawMessage(`{}`) })
	if _, ok := h.final(req.TaskID).(*a2a.TaskResult); !ok || wrapped.Load() != 1 {
		t.Fatalf("reply %+v, middleware ran %d times", h.final(req.TaskID), wrapped.Load())
	}
}

// TestInputSchemaNeedsTheValidator: in a program that registered no JSON
// Schema validator, a skill declaring an input schema is refused at
// registration with ErrNotLinked naming what to do (the agent is the last
// check of its input, so it never runs unchecked); other skills register.
func TestInputSchemaNeedsTheValidator(t *testing.T) {
	schema.Register(nil) // as in research-agent; the tests link it (schema_link_test.go)
	t.Cleanup(jsonschema.Register)
	h := newHarness(t)
	a := h.agent(Options{}, nil)
	err := a.Handle("rate", echo, WithInputSchema(json.RawMessage(rateSchema)))
	if !errors.Is(err, schema.ErrNotLinked) || errors.Is(err, ErrInvalidOptions) ||
		!strings.Contains(err.Error(), `skill "rate"`) || !strings.Contains(err.Error(), "jsonschema.Register()") {
		t.Fatalf("Handle = %v, want schema.ErrNotLinked naming the skill and jsonschema.Register()", err)
	}
	if err := a.Handle("echo", echo); err != nil || len(a.Card().Skills) != 1 || a.InputSchemas() != nil {
		t.Fatalf("Handle without a schema = %v; skills %+v, schemas %v", err, a.Card().Skills, a.InputSchemas())
	}
}

// TestSelfCheckedInputSchemaWithoutTheValidator: a skill that checks its
// own input registers its schema in a program without a validator; the
// schema is announced compacted, the handler sees every input and its own
// refusal is the answer. A schema that is no JSON object is still refused,
// and with the validator the agent checks the schema before the handler.
func TestSelfCheckedInputSchemaWithoutTheValidator(t *testing.T) {
	spaced := " {\"type\": \"object\",\n \"required\": [\"rate\"]} "
	own := func(_ context.Context, task *Task) (*Result, error) {
		var in struct{ Rate *float64 }
		if err := task.DecodeInput(&in); err != nil {
			return nil, err
		}
		if in.Rate == nil {
			return nil, a2a.NewError(a2a.CodeInvalidInput, "own check: rate is required")
		}
		return TextResult("ok"), nil
	}

	schema.Register(nil) // as in sample-agent; the tests link it (schema_link_test.go)
	t.Cleanup(jsonschema.Register)
	h := newHarness(t)
	a := h.agent(Options{Card: a2a.AgentCard{Name: "Worker"}}, nil)
	if err := a.Handle("bad", own, WithSelfCheckedInputSchema(json.RawMessage(`["not", "an object"]`))); !errors.Is(err, ErrInvalidOptions) || !errors.Is(err, schema.ErrInvalidSchema) {
		t.Fatalf("Handle with a schema that is no object = %v, want ErrInvalidOptions wrapping schema.ErrInvalidSchema", err)
	}
	if err := a.Handle("rate", own, WithSelfCheckedInputSchema(json.RawMessage(spaced))); err != nil {
		t.Fatalf("Handle without the validator = %v, want the self-checked schema registered", err)
	}
	if got := string(a.InputSchemas()["rate"]); got != `{"type":"object","required":["rate"]}` {
		t.Fatalf("announced schema %s, want it compacted", got)
	}
	h.start(a)
	req := h.send("Worker", "rate", "x", func(r *a2a.TaskRequest) { r.Input = json.RawMessage(`{}`) })
	if e, ok := h.final(req.TaskID).(*a2a.TaskError); !ok || e.Code != a2a.CodeInvalidInput || !strings.Contains(e.Message, "own check") {
		t.Fatalf("reply = %+v, want the handler's own INVALID_INPUT", h.final(req.TaskID))
	}

	jsonschema.Register()
	b := h.agent(Options{Card: a2a.AgentCard{Name: "Checked"}}, nil)
	if err := b.Handle("rate", own, WithSelfCheckedInputSchema(json.RawMessage(spaced))); err != nil {
		t.Fatal(err)
	}
	h.start(b)
	req = h.send("Checked", "rate", "x", func(r *a2a.TaskRequest) { r.Input = json.RawMessage(`{}`) })
	if e, ok := h.final(req.TaskID).(*a2a.TaskError); !ok || e.Code != a2a.CodeInvalidInput || !strings.Contains(e.Message, "required") || strings.Contains(e.Message, "own check") {
		t.Fatalf("reply = %+v, want the agent's schema check before the handler", h.final(req.TaskID))
	}
}

func TestInputSchemasAnnounced(t *testing.T) {
	h := newHarness(t)
	l := listenAnnouncements(t, h)
	a := h.agent(Options{Card: a2a.AgentCard{Name: "Worker"}}, map[string]Handler{"echo": echo})
	if err := a.Handle("rate", echo, WithInputSchema(json.RawMessage(rateSchema))); err != nil {
		t.Fatal(err)
	}
	h.start(a)
	testenv.Eventually(h.t, "the start announcement", func() bool { return l.count() >= 1 })
	got := l.last().InputSchemas
	if len(got) != 1 {
		t.Fatalf("announced schemas %v, want rate's only", got)
	}
	want, _ := schema.New(json.RawMessage(rateSchema))
	if string(got["rate"]) != string(want.Raw()) {
		t.Fatalf("announced %s, want %s", got["rate"], want.Raw())
	}
}
