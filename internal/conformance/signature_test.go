// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// The test vector of docs/wire-protocol.md ("Signing announcements") is what
// a2a.Sign computes, and a2a.Verify accepts it.
func TestSignatureVectorOfTheSpec(t *testing.T) {
	doc, err := os.ReadFile("../../docs/wire-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- signature-vector -->\n```\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/wire-protocol.md has no signature vector block")
	}
	v := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		k, val, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("vector line %q", line)
		}
		v[k] = strings.TrimSpace(val)
	}
	ts, err := strconv.ParseInt(v["timestamp"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	env := a2a.Envelope{Kind: a2a.Kind(v["type"]), MessageID: v["message_id"], Timestamp: time.Unix(ts, 0), Body: []byte(v["body"])}
	a2a.Sign(&env, []byte(v["secret"]))
	if got := env.Headers[a2a.HeaderSignature]; got != v["signature"] {
		t.Errorf("a2a.Sign gives %s, the spec says %s", got, v["signature"])
	}
	if err := a2a.Verify(env, []byte(v["secret"]), time.Unix(ts, 0).Add(time.Minute)); err != nil {
		t.Errorf("Verify: %v", err)
	}
	env.Body = append(env.Body, ' ')
	if err := a2a.Verify(env, []byte(v["secret"]), time.Unix(ts, 0)); err == nil {
		t.Error("a changed body still verifies")
	}
}
