// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agent

import (
	"context"
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// A SUCCESS or PARTIAL result always carries a confidence (the contract
// requires it): the handler's, else DefaultConfidence. An ERROR result and
// a question carry none unless the handler set one.
func TestResultConfidence(t *testing.T) {
	h := newHarness(t)
	a := h.agent(Options{Card: a2a.AgentCard{Name: "Worker"}}, map[string]Handler{
		"unstated": echo,
		"stated": func(_ context.Context, t *Task) (*Result, error) {
			return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, t.Text()), Confidence: a2a.ConfidenceHigh}, nil
		},
		"partial": func(_ context.Context, t *Task) (*Result, error) {
			return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, t.Text()), Status: a2a.StatusPartial, Warnings: []string{"half"}}, nil
		},
		"error": func(_ context.Context, t *Task) (*Result, error) {
			return &Result{Message: a2a.NewTextMessage(a2a.MessageRoleAgent, t.Text()), Status: a2a.StatusError}, nil
		},
		"ask": func(context.Context, *Task) (*Result, error) { return Ask("which one?"), nil },
	})
	h.start(a)
	for skill, want := range map[string]a2a.Confidence{
		"unstated": DefaultConfidence, "stated": a2a.ConfidenceHigh, "partial": DefaultConfidence, "error": "", "ask": "",
	} {
		for range 2 { // the second result of a skill is defaulted as the first (the warning is logged once)
			req := h.send("Worker", skill, "x")
			res, ok := h.final(req.TaskID).(*a2a.TaskResult)
			if !ok {
				t.Fatalf("%s: want a result, got %#v", skill, h.final(req.TaskID))
			}
			if res.Confidence != want {
				t.Errorf("%s: confidence %q, want %q", skill, res.Confidence, want)
			}
		}
	}
}
