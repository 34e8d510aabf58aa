// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/a2abus/a2abus/internal/testenv"
)

// doctorReport is the shape doctor --json promises.
type doctorReport struct {
	OK     bool `json:"ok"`
	Passed int  `json:"passed"`
	Warned int  `json:"warned"`
	Failed int  `json:"failed"`
	Checks []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Detail string `json:"detail"`
	} `json:"checks"`
}

// On the real servers doctor exits 0 (its warnings allowed), one line per
// check and a summary; --json prints the same checks.
func TestDoctorOnRealServers(t *testing.T) {
	p := isolate(t, "")
	amqpURL, redisURL := testenv.AMQPURL(t), testenv.RedisURL(t)
	code, out, errOut := runCLI(t, "doctor", "--config", p, "--amqp-url", amqpURL, "--redis-url", redisURL)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"✓ broker reachable — connected to ", "✓ broker permissions — declared a2a.instance.Doctor.", "✓ redis reachable — ", " failed: a2abus works"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "doctor", "--config", p, "--amqp-url", amqpURL, "--redis-url", redisURL, "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK || rep.Failed != 0 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if len(rep.Checks) != rep.Passed+rep.Warned || len(rep.Checks) < 10 {
		t.Errorf("%d checks, %d passed, %d warned:\n%s", len(rep.Checks), rep.Passed, rep.Warned, out)
	}
	for _, c := range rep.Checks {
		if c.Name == "" || c.Detail == "" || (c.Status != "pass" && c.Status != "warn") {
			t.Errorf("check %+v", c)
		}
	}
}

// A server nobody answers exits 1, explaining which and why, and --json
// says so (ok false) with no second error object.
func TestDoctorDeadPort(t *testing.T) {
	p := isolate(t, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	_ = ln.Close()
	args := []string{"doctor", "--config", p, "--amqp-url", "amqp://guest:guest@" + dead + "/", "--redis-url", "redis://" + dead + "/0", "--check-timeout", "2s"}
	code, out, errOut := runCLI(t, args...)
	if code != 1 || !strings.Contains(out, "✗ broker reachable — cannot reach RabbitMQ at amqp://guest:xxxxx@"+dead) ||
		!strings.Contains(out, "✗ redis reachable — redis://"+dead) || !strings.Contains(out, "2 failed: a2abus will not work as configured") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if errOut != "a2abus: doctor: checks failed: 2 of 6\n" {
		t.Errorf("stderr %q", errOut)
	}
	code, out, _ = runCLI(t, append(args, "--json")...)
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || rep.Failed != 2 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
}

// A configuration that does not load is one failed check, not a crash.
func TestDoctorBadConfig(t *testing.T) {
	p := isolate(t, "bus:\n  exchnage: x\n")
	code, out, _ := runCLI(t, "doctor", "--config", p)
	if code != 1 || !strings.Contains(out, "✗ configuration — config: bus.exchnage: unknown key") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
