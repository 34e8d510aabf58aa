// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A request with a wait bound expires in its queue at startBy, round-trips
// it, and derives its run time from the two bounds; one without it (an
// older caller's) is read as before: the deadline bounds both.
func TestStartBySeparatesWaitAndRun(t *testing.T) {
	c := testCodec()
	req := sampleRequest()
	req.StartBy = testNow.Add(10 * time.Minute)
	req.Deadline = req.StartBy.Add(30 * time.Second)
	env, err := c.Encode(req, Trace{})
	if err != nil {
		t.Fatal(err)
	}
	if env.Expiration != 10*time.Minute {
		t.Errorf("expiration = %v, want the 10m left to startBy", env.Expiration)
	}
	if !strings.Contains(string(env.Body), `"startBy":"2026-11-22T12:10:00Z"`) {
		t.Errorf("body has no startBy: %s", env.Body)
	}
	p, err := c.Decode(env)
	if err != nil {
		t.Fatal(err)
	}
	got := p.(*TaskRequest)
	if !got.StartBy.Equal(req.StartBy) || got.RunTimeout() != 30*time.Second || !got.TakeBy().Equal(req.StartBy) {
		t.Errorf("decoded startBy %v, run timeout %v, take by %v", got.StartBy, got.RunTimeout(), got.TakeBy())
	}

	old := sampleRequest() // no startBy: the body has none, the deadline is the take-by time
	env, err = c.Encode(old, Trace{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env.Body), "startBy") || env.Expiration != 30*time.Second {
		t.Errorf("an old request changed: expiration %v, body %s", env.Expiration, env.Body)
	}
	p, _ = c.Decode(env)
	if o := p.(*TaskRequest); o.RunTimeout() != 0 || !o.TakeBy().Equal(old.Deadline) {
		t.Errorf("old request: run timeout %v, take by %v", o.RunTimeout(), o.TakeBy())
	}
}

func TestStartByRefused(t *testing.T) {
	c := testCodec()
	late := sampleRequest()
	late.StartBy = late.Deadline.Add(time.Second)
	if err := late.Validate(); !errors.Is(err, ErrInvalidField) || !strings.Contains(err.Error(), "startBy") {
		t.Errorf("startBy after the deadline: %v", err)
	}
	passed := sampleRequest()
	passed.StartBy = testNow.Add(-time.Second) // the deadline is still ahead, but nobody may take it
	if _, err := c.Encode(passed, Trace{}); !errors.Is(err, ErrInvalidField) || !strings.Contains(err.Error(), "startBy") {
		t.Errorf("encode with startBy passed: %v", err)
	}
}
