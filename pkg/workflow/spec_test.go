// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"errors"
	"strings"
	"testing"
)

// TestParseRefusesBadWorkflows: each broken rule is a *SpecError naming the
// field and the rule.
func TestParseRefusesBadWorkflows(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"not yaml", "name: [", "not a valid workflow"},
		{"unknown field", "name: a\nstepz: []", "line 2: unknown field stepz; the fields here are name, description"},
		{"bad name", "name: 'a b'\nsteps: [{id: s, agent: A, skill: k, text: t}]", "name:"},
		{"no steps", "name: a\nsteps: []", "at least one step"},
		{"bad step id", "name: a\nsteps: [{id: 1x, agent: A, skill: k, text: t}]", "steps[0].id"},
		{"duplicate id", "name: a\nsteps: [{id: s, agent: A, skill: k, text: t}, {id: s, agent: A, skill: k, text: t}]", "already used"},
		{"bad agent", "name: a\nsteps: [{id: s, agent: a.b, skill: k, text: t}]", "steps[0].agent"},
		{"no text or input", "name: a\nsteps: [{id: s, agent: A, skill: k}]", "needs a text or an input"},
		{"bad timeout", "name: a\nsteps: [{id: s, agent: A, skill: k, text: t, timeout: soon}]", "steps[0].timeout"},
		{"retries", "name: a\nsteps: [{id: s, agent: A, skill: k, text: t, retries: 11}]", "steps[0].retries"},
		{"quorum", "name: a\nsteps: [{parallel: [{id: s, agent: A, skill: k, text: t}], quorum: 2}]", "steps[0].quorum"},
		{"group with agent", "name: a\nsteps: [{agent: A, parallel: [{id: s, agent: A, skill: k, text: t}]}]", "takes only id, quorum and parallel"},
		{"nested group", "name: a\nsteps: [{parallel: [{parallel: []}]}]", "do not nest"},
		{"later step", "name: a\nsteps: [{id: s, agent: A, skill: k, text: '${steps.t.text}'}, {id: t, agent: A, skill: k, text: x}]", "does not run before"},
		{"sibling step", "name: a\nsteps: [{parallel: [{id: s, agent: A, skill: k, text: x}, {id: t, agent: A, skill: k, text: '${steps.s.text}'}]}]", "in parallel with or after"},
		{"bad root", "name: a\nsteps: [{id: s, agent: A, skill: k, text: '${env.HOME}'}]", "starts with input, request or steps"},
		{"bad output field", "name: a\nsteps: [{id: s, agent: A, skill: k, text: x}, {id: t, agent: A, skill: k, text: '${steps.s.body}'}]", "not body"},
		{"two documents", "name: a\nsteps: [{id: s, agent: A, skill: k, text: x}]\n---\nname: b", "second YAML document"},
	}
	for _, c := range cases {
		_, err := Parse("f.yaml", []byte(c.src))
		var se *SpecError
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "workflow f.yaml") {
			t.Errorf("%s: %v, want a SpecError containing %q", c.name, err, c.want)
		}
	}
}

// TestTemplates: a whole-string reference keeps its JSON type, embedded
// ones are written into the text, a step that did not succeed gives null,
// and missing fields are errors naming them.
func TestTemplates(t *testing.T) {
	sc := &scope{input: map[string]any{"flows": []any{-1.0, 2.0}, "name": "x"}, request: "req",
		outputs: map[string]*Output{"s": {Agent: "A", Text: "hi", Data: []byte(`{"n":{"m":[7]}}`), Confidence: "HIGH"}}}
	v, err := sc.renderValue(map[string]any{"a": "${input.flows}", "b": "n=${steps.s.data.n.m[0]} ${request}", "c": "${steps.gone.text}", "d": "${steps.s.confidence}"})
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if f, ok := m["a"].([]any); !ok || len(f) != 2 || m["b"] != "n=7 req" || m["c"] != nil || m["d"] != "HIGH" {
		t.Fatalf("rendered %#v", m)
	}
	for ref, want := range map[string]string{"${input.nope}": `no field "nope"`, "${input.flows[5]}": "no element flows[5]", "${steps.s.data.q}": `step "s"'s data has no field "q"`} {
		if _, err := sc.renderText("x " + ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", ref, err, want)
		}
	}
}
