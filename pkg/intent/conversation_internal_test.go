// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import "testing"

func TestPickOption(t *testing.T) {
	opts := []Option{
		{ID: "1", Routing: Routing{Intent: "net_present_value", Agent: "Analyst", Capability: "npv"}},
		{ID: "2", Routing: Routing{Intent: "financial_projection", Agent: "Analyst", Capability: "projection"}},
		{ID: "3", Routing: Routing{Intent: "write_document", Agent: "Writer", Capability: "document"}},
	}
	for answer, want := range map[string]string{
		"2": "2", " 2. ": "2", "option 3": "3", "#1": "1", "the second one": "2", "last": "3", "first": "1",
		"npv": "1", "Analyst/projection": "2", "analyst.npv": "1", "financial projection": "2", "the Writer please": "3",
		"I meant the projection, for next year": "2",
		"4":                                     "", "0": "", "the Analyst": "", "npv or projection": "", "something else entirely": "", "": "", "fifth": "",
	} {
		o, ok := pickOption(opts, answer)
		if got := map[bool]string{true: o.ID}[ok]; got != want {
			t.Errorf("pickOption(%q) = %q, want %q", answer, got, want)
		}
	}
	if _, ok := pickOption(nil, "1"); ok {
		t.Error("an option picked among none")
	}
}

func TestContainsWord(t *testing.T) {
	for _, tc := range []struct {
		s, w string
		want bool
	}{
		{"the npv please", "npv", true}, {"npvs", "npv", false}, {"an npv", "npv", true}, {"xnpv npv", "npv", true},
		{"écrire npvé", "npv", false}, {"", "npv", false},
	} {
		if got := containsWord(tc.s, tc.w); got != tc.want {
			t.Errorf("containsWord(%q, %q) = %v", tc.s, tc.w, got)
		}
	}
}
