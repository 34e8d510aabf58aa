package testenv

import (
	"context"
	"fmt"
	"os/exec"
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
