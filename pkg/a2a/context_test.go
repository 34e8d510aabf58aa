// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"context"
	"strings"
	"testing"
)

func TestTaskInContext(t *testing.T) {
	if _, _, ok := TaskFromContext(context.Background()); ok {
		t.Fatal("empty context carries a task")
	}
	req := sampleRequest()
	tr := Trace{Parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	got, gotTrace, ok := TaskFromContext(WithTask(context.Background(), req, tr))
	if !ok || got != req || gotTrace != tr {
		t.Fatalf("TaskFromContext = %v %v %v", got, gotTrace, ok)
	}
}

func TestCheckChain(t *testing.T) {
	cases := []struct {
		chain          []string
		caller, target string
		code           ErrorCode
		text           string
	}{
		{[]string{"Cli", "A"}, "A", "B", "", ""},
		{[]string{"Cli", "A"}, "A", "a", CodeCycleDetected, "may not call itself"},
		{[]string{"Cli", "A", "B"}, "B", "A", CodeCycleDetected, "A -> B -> A"},
		{[]string{"Cli", "A", "B", "C", "D"}, "D", "E", CodeDepthExceeded, "limit is 5"},
		{[]string{"Cli", "A", "B", "C"}, "C", "D", "", ""},
	}
	for _, tc := range cases {
		err := CheckChain(tc.chain, tc.caller, tc.target, DefaultMaxDepth)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%v -> %s: %v", tc.chain, tc.target, err)
			}
			continue
		}
		if err == nil || err.Code != tc.code || !strings.Contains(err.Message, tc.text) {
			t.Errorf("%v -> %s: %v, want %s containing %q", tc.chain, tc.target, err, tc.code, tc.text)
		}
	}
}
