// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"testing"

	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestConfidence(t *testing.T) {
	passages := []Passage{
		newPassage("a.md", "", "RabbitMQ quorum queues replicate messages with Raft."),
		newPassage("b.md", "", "Quorum queues in RabbitMQ replicate every message."),
		newPassage("a.md", "", "Classic queues keep messages on one node."),
		newPassage("c.md", "", "Redis streams hold entries."),
	}
	for _, tt := range []struct {
		query string
		want  a2a.Confidence
	}{
		{"rabbitmq quorum queues replicate", a2a.ConfidenceHigh},       // every term in the best passage, two documents
		{"raft quorum", a2a.ConfidenceMedium},                          // every term in the best passage, one document
		{"quorum raft consensus election", a2a.ConfidenceMedium},       // half the terms
		{"redis cluster failover sentinel", a2a.ConfidenceSpeculative}, // one term of four
		{"redis cluster failover", a2a.ConfidenceLow},                  // one term of three
		{"kubernetes", a2a.ConfidenceLow},                              // nothing matched
	} {
		terms := Tokenize(tt.query)
		all := Rank(passages, terms, 0)
		top := all[:min(len(all), TopPassages)]
		if got := Confidence(terms, all, top); got != tt.want {
			t.Errorf("Confidence(%q) = %s, want %s", tt.query, got, tt.want)
		}
	}
	if capped(a2a.ConfidenceHigh, a2a.ConfidenceLow) != a2a.ConfidenceLow || capped(a2a.ConfidenceSpeculative, a2a.ConfidenceLow) != a2a.ConfidenceSpeculative {
		t.Error("capped does not lower to the limit only")
	}
}
