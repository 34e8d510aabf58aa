// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/schema"
	"github.com/a2abus/a2abus/pkg/schema/jsonschema"
)

// newTask is a task that only carries a request: enough for handlers that
// publish no status.
func newTask(t *testing.T, skill, text string, input json.RawMessage) *agent.Task {
	t.Helper()
	return &agent.Task{Request: &a2a.TaskRequest{
		TaskID: "t1", SessionID: "s1", Caller: "Tester", Target: DefaultName, Skill: skill,
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, text), Input: input, Deadline: time.Now().Add(time.Minute),
	}}
}

func TestNPVMath(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flows []float64
		rate  float64
		want  float64
	}{
		{"card example", []float64{-100000, 25000, 35000, 45000, 55000}, 0.12, 17206.819749583472},
		{"short card example", []float64{-100000, 25000, 35000}, 0.12, -49776.785714285725},
		// Excel's NPV(10%, -10000, 3000, 4200, 6800) = 1188.44 discounts the first
		// value too: here that is a zero flow at t=0.
		{"excel documentation", []float64{0, -10000, 3000, 4200, 6800}, 0.10, 1188.4434123352216},
		{"t=0 is not discounted", []float64{100}, 0.5, 100},
		{"one period", []float64{-100, 121}, 0.10, 10},
		{"two periods", []float64{0, 0, 121}, 0.10, 100},
		{"zero rate sums", []float64{-1000, 500, 500, 500}, 0, 500},
		{"negative rate", []float64{1, 1, 1}, -0.5, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NPV(tc.flows, tc.rate); math.Abs(got-tc.want) > 1e-6*math.Max(1, math.Abs(tc.want)) {
				t.Fatalf("NPV(%v, %v) = %v, want %v", tc.flows, tc.rate, got, tc.want)
			}
		})
	}
}

func TestNPVRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, input, text, want string
	}{
		{"no input", "", "please compute", "structured input is required"},
		{"missing cash_flows", `{"discount_rate":0.1}`, "", `"cash_flows" is required`},
		{"empty cash_flows", `{"cash_flows":[],"discount_rate":0.1}`, "", `"cash_flows" is required`},
		{"cash_flows not numbers", `{"cash_flows":["a"],"discount_rate":0.1}`, "", `"cash_flows"`},
		{"cash flow out of range", `{"cash_flows":[1e400],"discount_rate":0.1}`, "", `"cash_flows"`},
		{"missing discount_rate", `{"cash_flows":[1]}`, "", `"discount_rate" is required`},
		{"discount_rate -1", `{"cash_flows":[1],"discount_rate":-1}`, "", `"discount_rate" must be a finite number greater than -1, got -1`},
		{"discount_rate below -1", `{"cash_flows":[1],"discount_rate":-2.5}`, "", `got -2.5`},
		{"discount_rate a string", `{"cash_flows":[1],"discount_rate":"12%"}`, "", `"discount_rate"`},
		{"unknown field", `{"cash_flows":[1],"discount_rate":0.1,"periods":12}`, "", `input field "periods" is not one of ["cash_flows" "discount_rate"]`},
		{"field of another case", `{"Cash_Flows":[1],"discount_rate":0.1}`, "", `input field "Cash_Flows" is not one of`},
		{"not JSON text", "", "{cash_flows: 1}", "input"},
		{"overflow", `{"cash_flows":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1e300],"discount_rate":-0.9999999}`, "", "not a finite number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text
			if text == "" {
				text = tc.input
			}
			var input json.RawMessage
			if tc.input != "" {
				input = json.RawMessage(tc.input)
			}
			res, err := npv(context.Background(), newTask(t, SkillNPV, text, input))
			var e *a2a.Error
			if res != nil || !errors.As(err, &e) || e.Code != a2a.CodeInvalidInput {
				t.Fatalf("got %v, %v; want INVALID_INPUT", res, err)
			}
			if !strings.Contains(e.Message, tc.want) {
				t.Fatalf("message %q does not contain %q", e.Message, tc.want)
			}
		})
	}
}

func TestNPVThroughTheBus(t *testing.T) {
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")
	input := mustJSON(t, map[string]any{"cash_flows": []float64{-100000, 25000, 35000, 45000, 55000}, "discount_rate": 0.12})

	for name, req := range map[string]caller.Request{
		"structured input": {Target: DefaultName, Skill: SkillNPV, Text: "npv please", Input: input},
		"JSON text":        {Target: DefaultName, Skill: SkillNPV, Text: string(input)},
	} {
		t.Run(name, func(t *testing.T) {
			out, _ := call(t, c, req)
			if err := out.Err(); err != nil {
				t.Fatal(err)
			}
			if text := out.Result.Text(); !strings.Contains(text, "17206.82") || !strings.Contains(text, "12%") {
				t.Errorf("message %q does not state the NPV and the rate", text)
			}
			var got NPVResult
			decodeData(t, out.Result.Artifacts, &got)
			if math.Abs(got.NPV-17206.819749583472) > 1e-6 || got.DiscountRate != 0.12 || got.Periods != 5 {
				t.Errorf("data part %+v", got)
			}
			if r := out.Result; r.Status != a2a.StatusSuccess || r.Confidence != a2a.ConfidenceHigh || r.Metadata.AgentVersion != Version {
				t.Errorf("contract fields: status %q, confidence %q, agent version %q", r.Status, r.Confidence, r.Metadata.AgentVersion)
			}
		})
	}

	// The agent checks NPVInputSchema before npv runs, naming the path and the rule.
	out, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Input: mustJSON(t, map[string]any{"cash_flows": []float64{1}})})
	wantCode(t, out, a2a.CodeInvalidInput, `skill "npv" of "SampleAgent"`, `/discount_rate: required: missing`)
	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Text: `{"cash_flows":[1,"2"],"discount_rate":"12%","periods":"annual"}`})
	wantCode(t, out, a2a.CodeInvalidInput, `/cash_flows/1: type: got string, want number`,
		`/discount_rate: type: got string, want number`, `/periods: additionalProperties: not allowed`)
	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Text: "npv please"})
	wantCode(t, out, a2a.CodeInvalidInput, `structured input is required`)
	// What the schema cannot say, npv's own checks still catch.
	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Input: json.RawMessage(`{"cash_flows":[1e400],"discount_rate":0.1}`)})
	wantCode(t, out, a2a.CodeInvalidInput, `"cash_flows"`)

	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Input: mustJSON(t, map[string]any{"cash_flows": []float64{0, 110}, "discount_rate": 12})})
	if err := out.Err(); err != nil || len(out.Result.Warnings) != 1 || !strings.Contains(out.Result.Warnings[0], "0.12") {
		t.Errorf("a rate of 12 (1200%%) should complete with a warning, got %v, %v", err, out.Result.Warnings)
	}
}

// TestNPVThroughTheBusWithoutAValidator: in a program that links no JSON
// Schema validator (sample-agent), SampleAgent still starts with npv's
// schema declared, and npv's own checks refuse what the schema refuses.
func TestNPVThroughTheBusWithoutAValidator(t *testing.T) {
	schema.Register(nil) // as in sample-agent; the tests link it (schema_link_test.go)
	t.Cleanup(jsonschema.Register)
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")
	out, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Input: mustJSON(t, map[string]any{"cash_flows": []float64{1}})})
	wantCode(t, out, a2a.CodeInvalidInput, `npv: input field "discount_rate" is required`)
	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Text: `{"cash_flows":[1],"discount_rate":0.1,"periods":"annual"}`})
	wantCode(t, out, a2a.CodeInvalidInput, `npv: input field "periods" is not one of`)
	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Text: `{"cash_flows":[1,"2"],"discount_rate":0.1}`})
	wantCode(t, out, a2a.CodeInvalidInput, `input field "cash_flows`)
	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillNPV, Input: json.RawMessage(`{"cash_flows":[0,110],"discount_rate":0.1}`)})
	if err := out.Err(); err != nil || !strings.Contains(out.Result.Text(), "100.00") {
		t.Fatalf("valid input: %v, %q", err, out.Result.Text())
	}
}

// decodeData decodes the data part of the only artifact into v.
func decodeData(t *testing.T, arts []*a2a.Artifact, v any) {
	t.Helper()
	if len(arts) != 1 || len(arts[0].Parts) != 1 {
		t.Fatalf("want one artifact with one part, got %d artifacts", len(arts))
	}
	b, err := json.Marshal(arts[0].Parts[0])
	if err != nil {
		t.Fatal(err)
	}
	var part struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &part); err != nil || len(part.Data) == 0 {
		t.Fatalf("artifact part %s has no data: %v", b, err)
	}
	if err := json.Unmarshal(part.Data, v); err != nil {
		t.Fatal(err)
	}
}

// NPVInputSchema and npv's own checks agree: what the schema accepts npv
// computes, and what the schema refuses npv refuses too (npv's schema is
// self-checked: sample-agent links no validator).
func TestNPVInputSchemaAgreesWithTheHandler(t *testing.T) {
	s, err := schema.New(json.RawMessage(NPVInputSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		input string
		valid bool
	}{
		{`{"cash_flows":[-100000,25000,35000],"discount_rate":0.12}`, true},
		{`{"cash_flows":[0],"discount_rate":-0.5}`, true},
		{`{"cash_flows":[],"discount_rate":0.1}`, false},
		{`{"cash_flows":["a"],"discount_rate":0.1}`, false},
		{`{"discount_rate":0.1}`, false},
		{`{"cash_flows":[1]}`, false},
		{`{"cash_flows":[1],"discount_rate":-1}`, false},
		{`{"cash_flows":[1],"discount_rate":"12%"}`, false},
		{`{"cash_flows":[1],"discount_rate":0.1,"periods":"annual"}`, false},
		{`{"Cash_Flows":[1],"discount_rate":0.1}`, false},
		{`[1]`, false},
	} {
		schemaErr := s.Validate(json.RawMessage(tc.input))
		if (schemaErr == nil) != tc.valid {
			t.Errorf("schema on %s: %v, want valid=%v", tc.input, schemaErr, tc.valid)
		}
		_, handlerErr := npv(context.Background(), newTask(t, SkillNPV, "x", json.RawMessage(tc.input)))
		if tc.valid && handlerErr != nil {
			t.Errorf("npv refused %s, which the schema accepts: %v", tc.input, handlerErr)
		}
		if !tc.valid && handlerErr == nil {
			t.Errorf("npv accepted %s, which the schema refuses", tc.input)
		}
	}
	a, err := agent.New(agent.Options{Card: Card(DefaultName), Bus: newWorld(t).Connect(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := Register(a, nil); err != nil {
		t.Fatal(err)
	}
	if got := a.InputSchemas(); len(got) != 1 || string(got[SkillNPV]) != string(s.Raw()) {
		t.Fatalf("SampleAgent declares %v, want npv's schema only", got)
	}
}
