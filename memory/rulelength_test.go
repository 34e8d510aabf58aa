// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"strings"
	"testing"

	"github.com/a2abus/a2abus/memory"
)

// TestKeyRulesBoundLengths: a key part (a run or step id) is 1 to 128
// characters and an exchange 1 to 200, as their rules say; the lengths are
// checked beside the patterns, and these are the boundaries.
func TestKeyRulesBoundLengths(t *testing.T) {
	for _, c := range []struct {
		run  string
		want bool
	}{{"a", true}, {strings.Repeat("r", 128), true}, {strings.Repeat("r", 129), false}, {"", false}, {"-a", false}, {"a..b", false}} {
		_, err := memory.WorkflowRunKey(c.run)
		if (err == nil) != c.want {
			t.Errorf("WorkflowRunKey(%d characters %.8q) = %v, want ok %v", len(c.run), c.run, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$") {
			t.Errorf("WorkflowRunKey(%.8q): %v does not state the rule", c.run, err)
		}
	}
	for _, c := range []struct {
		exchange string
		want     bool
	}{{"a2abus", true}, {strings.Repeat("x", 200), true}, {strings.Repeat("x", 201), false}, {"", false}, {"..", false}, {"a/b", false}} {
		if _, err := memory.DirectoryListingKey(c.exchange); (err == nil) != c.want {
			t.Errorf("DirectoryListingKey(%d characters %.8q) = %v, want ok %v", len(c.exchange), c.exchange, err, c.want)
		}
	}
}
