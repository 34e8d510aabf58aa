// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
)

// NPVInputSchema is the JSON Schema of the npv skill's structured input,
// declared with the skill: callers with a directory and a validator, and an
// agent program that links one (a2abus), refuse input that breaks it with
// INVALID_INPUT before npv runs; npv checks all it says itself
// (agent.WithSelfCheckedInputSchema), so sample-agent links no validator.
const NPVInputSchema = `{
  "type": "object",
  "properties": {
    "cash_flows": {
      "type": "array", "items": {"type": "number"}, "minItems": 1,
      "description": "The cash flows of periods 0, 1, 2, …; the first (t=0) is not discounted."
    },
    "discount_rate": {
      "type": "number", "exclusiveMinimum": -1,
      "description": "The rate per period as a fraction: 0.12 for 12%."
    }
  },
  "required": ["cash_flows", "discount_rate"],
  "additionalProperties": false
}`

// npvInput is the npv skill's structured input (NPVInputSchema); npv checks
// it again, for what a schema cannot say (finite numbers, overflow).
type npvInput struct {
	// CashFlows are the flows of periods 0, 1, 2, …: CashFlows[0] is not discounted.
	CashFlows []float64 `json:"cash_flows"`
	// DiscountRate is the rate per period as a fraction: 0.12 for 12%.
	DiscountRate *float64 `json:"discount_rate"`
}

// NPVResult is the data part of the npv skill's result.
type NPVResult struct {
	NPV          float64 `json:"npv"`
	DiscountRate float64 `json:"discount_rate"`
	// Periods is the number of cash flows (t = 0 … Periods-1).
	Periods int `json:"periods"`
}

// npv computes the net present value of the input's cash flows.
func npv(_ context.Context, t *agent.Task) (*agent.Result, error) {
	var in npvInput
	t = structured(t)
	if err := t.DecodeInput(&in); err != nil {
		return nil, err
	}
	if err := npvFieldsKnown(t.Request.Input); err != nil {
		return nil, err
	}
	if err := in.validate(); err != nil {
		return nil, err
	}
	rate := *in.DiscountRate
	value := NPV(in.CashFlows, rate)
	if math.IsInf(value, 0) || math.IsNaN(value) {
		return nil, a2a.NewError(a2a.CodeInvalidInput,
			"npv: the net present value of these cash flows at discount_rate %v is not a finite number (it overflows)", rate)
	}
	out := NPVResult{NPV: value, DiscountRate: rate, Periods: len(in.CashFlows)}
	res := &agent.Result{
		Message: a2a.NewTextMessage(a2a.MessageRoleAgent,
			fmt.Sprintf("NPV of %d cash flows at %s per period: %.2f", out.Periods, percent(rate), value)),
		Artifacts:  []*a2a.Artifact{{ID: "npv", Name: "npv", Parts: []*a2a.Part{a2a.NewDataPart(out)}}},
		Confidence: a2a.ConfidenceHigh, // a deterministic calculation on the given flows
	}
	if rate > 1 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("discount_rate %v is %s per period; a rate of 12%% is written 0.12", rate, percent(rate)))
	}
	return res, nil
}

// npvFields are the keys of npv's input object (NPVInputSchema's properties).
var npvFields = []string{"cash_flows", "discount_rate"}

// npvFieldsKnown refuses a key of the input object that is none of
// npvFields, as NPVInputSchema's additionalProperties does (decoding alone
// would ignore it, and match "Cash_Flows" to cash_flows).
func npvFieldsKnown(raw json.RawMessage) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return a2a.NewError(a2a.CodeInvalidInput, "npv: input must be a JSON object: %v", err)
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(npvFields, k) {
			return a2a.NewError(a2a.CodeInvalidInput, "npv: input field %q is not one of %q", truncate(k, 40), npvFields)
		}
	}
	return nil
}

// validate names the first missing or out-of-range field.
func (in *npvInput) validate() error {
	if len(in.CashFlows) == 0 {
		return a2a.NewError(a2a.CodeInvalidInput,
			"npv: input field \"cash_flows\" is required: a non-empty list of numbers, the first at t=0, e.g. [-100000, 25000, 35000]")
	}
	for i, cf := range in.CashFlows {
		if math.IsInf(cf, 0) || math.IsNaN(cf) {
			return a2a.NewError(a2a.CodeInvalidInput, "npv: input field \"cash_flows[%d]\" must be a finite number, got %v", i, cf)
		}
	}
	if in.DiscountRate == nil {
		return a2a.NewError(a2a.CodeInvalidInput,
			"npv: input field \"discount_rate\" is required: the rate per period as a fraction, e.g. 0.12 for 12%%")
	}
	r := *in.DiscountRate
	if math.IsInf(r, 0) || math.IsNaN(r) || r <= -1 {
		return a2a.NewError(a2a.CodeInvalidInput, "npv: input field \"discount_rate\" must be a finite number greater than -1, got %v", r)
	}
	return nil
}

// NPV is the net present value of cashFlows at rate per period:
// Σ cashFlows[t] / (1+rate)^t, with cashFlows[0] at t=0. rate must be > -1.
func NPV(cashFlows []float64, rate float64) float64 {
	// Horner's scheme from the last period back: one division per period.
	v := 0.0
	for i := len(cashFlows) - 1; i >= 0; i-- {
		v = cashFlows[i] + v/(1+rate)
	}
	return v
}

// percent formats a fraction as a percentage: 0.12 → "12%".
func percent(r float64) string {
	return fmt.Sprintf("%g%%", math.Round(r*1e6)/1e4)
}
