// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package testenv

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync/atomic"
	"testing"
	"time"
)

// BrokerControlBound bounds a rabbitmqctl command (a restart takes seconds).
const BrokerControlBound = 90 * time.Second

// Rabbitmqctl runs one rabbitmqctl command against the local broker.
func Rabbitmqctl(t testing.TB, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), BrokerControlBound)
	defer cancel()
	out, err := exec.CommandContext(ctx, "rabbitmqctl", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("rabbitmqctl %v: %w: %s", args, err, out)
	}
	return nil
}

// NeedRabbitmqctl skips the test — fails it under CI=true — when the broker
// cannot be controlled from here.
func NeedRabbitmqctl(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("rabbitmqctl"); err != nil {
		if InCI() {
			t.Fatalf("rabbitmqctl not found under CI=true: %v", err)
		}
		t.Skipf("rabbitmqctl not found: %v", err)
	}
}

// FaultsEnv opts into the fault tests (A2ABUS_TEST_FAULTS=1): they close the
// broker's connections, stop the broker or pause Redis, which would break
// any test running beside them, so `make faults` runs them alone, one
// package at a time, and `make unit` leaves them out.
const FaultsEnv = "A2ABUS_TEST_FAULTS"

// NeedFaults skips a fault test unless FaultsEnv is 1, naming the step that runs it.
func NeedFaults(t testing.TB) {
	t.Helper()
	if os.Getenv(FaultsEnv) != "1" {
		t.Skipf("a fault test disturbs the shared servers: `make faults` runs it (%s=1)", FaultsEnv)
	}
}

// RejectPublishes makes the local broker nack every publish to queue (a
// policy of max-length 0 with overflow reject-publish: no queue argument
// the bus would disagree with, and scoped to that one name) until the
// returned lift is called; the test's end lifts it too.
func RejectPublishes(t testing.TB, queue string) (lift func()) {
	t.Helper()
	NeedRabbitmqctl(t)
	name := "a2abus-test-reject-" + rand.Text()[:12]
	if err := Rabbitmqctl(t, "set_policy", "--apply-to", "queues", "--priority", "100", name,
		"^"+regexp.QuoteMeta(queue)+"$", `{"max-length":0,"overflow":"reject-publish"}`); err != nil {
		t.Fatal(err)
	}
	var lifted atomic.Bool
	lift = func() {
		if lifted.CompareAndSwap(false, true) {
			if err := Rabbitmqctl(t, "clear_policy", name); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(lift)
	return lift
}
