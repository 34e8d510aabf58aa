// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv_test

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
)

type styleInner struct {
	Bad  string `json:"bad_name"`
	Good string `json:"goodName"`
}

type styleOuter struct {
	styleInner
	Untagged string
	Items    []*styleInner     `json:"items"`
	Meta     map[string]string `json:"meta"`
	Skipped  string            `json:"-"`
	hidden   string
}

func TestNotCamelCaseJSON(t *testing.T) {
	got := testenv.NotCamelCaseJSON(styleOuter{Meta: map[string]string{"ok": "1", "task_id": "2"}, hidden: "h"})
	want := []string{`"bad_name"`, `"Untagged"`, `$.meta: key "task_id"`, `$: key "bad_name"`}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("no report of %s in %q", w, got)
		}
	}
	if got := testenv.NotCamelCaseJSON(struct {
		A string            `json:"aName"`
		B map[string]string `json:"b"`
	}{B: map[string]string{"a2aTask": "x"}}); len(got) != 0 {
		t.Errorf("camelCase reported: %q", got)
	}
}
