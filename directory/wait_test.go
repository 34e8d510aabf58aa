// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package directory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A well-known agent's tasks wait its waitTimeout, else the directory's
// WellKnownWait (10m by default); an announced-only agent has no wait of
// its own (the caller's default applies); "0s" says no wait bound.
func TestWaitBound(t *testing.T) {
	agents, err := ParseWellKnown("wk.json", []byte(`[
 {"agentName":"Research","skills":[{"id":"r"}]},
 {"agentName":"Slow","skills":[{"id":"s"}],"waitTimeout":"25m"},
 {"agentName":"Always","skills":[{"id":"a"}],"waitTimeout":"0s"}]`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Options{Bus: embeddedBus(t), WellKnown: agents})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		agent string
		want  time.Duration
		ok    bool
	}{
		{"research", DefaultWellKnownWait, true}, {"Slow", 25 * time.Minute, true}, {"Always", 0, true}, {"Announced", 0, false},
	} {
		if got, ok := d.WaitBound(tc.agent); got != tc.want || ok != tc.ok {
			t.Errorf("WaitBound(%s) = %s, %v; want %s, %v", tc.agent, got, ok, tc.want, tc.ok)
		}
	}
	short, err := New(Options{Bus: embeddedBus(t), WellKnown: agents, WellKnownWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := (PatientResolver{Directory: short}).WaitBound("Research"); got != time.Minute {
		t.Errorf("WellKnownWait 1m: %s", got)
	}
	if _, err := New(Options{Bus: embeddedBus(t), WellKnownWait: -time.Second}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("a negative WellKnownWait: %v", err)
	}
}

func TestWaitTimeoutInvalid(t *testing.T) {
	for _, bad := range []string{`"ten minutes"`, `"-1m"`} {
		_, err := ParseWellKnown("wk.json", []byte(`[{"agentName":"R","skills":[{"id":"r"}],"waitTimeout":`+bad+`}]`))
		if !errors.Is(err, ErrInvalidWellKnown) || !strings.Contains(err.Error(), "waitTimeout") || !strings.Contains(err.Error(), `entry 0 "R"`) {
			t.Errorf("waitTimeout %s: %v", bad, err)
		}
	}
}
