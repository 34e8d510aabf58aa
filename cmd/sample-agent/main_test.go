package main

import (
	"bytes"
	"github.com/a2abus/a2abus/internal/testenv"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the logger and the test at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func isolate(t *testing.T) { testenv.IsolateConfig(t, "") }

func TestSIGTERMStopsGracefully(t *testing.T) {
	isolate(t)
	var stderr syncBuffer
	code := make(chan int, 1)
	go func() { code <- run([]string{"--name", "SignalTest"}, &stderr) }()

	deadline := time.After(10 * time.Second)
	for !strings.Contains(stderr.String(), "agent started") {
		select {
		case c := <-code:
			t.Fatalf("exited %d before starting:\n%s", c, stderr.String())
		case <-deadline:
			t.Fatalf("never started:\n%s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The signal handler is installed before the command runs.
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != 0 || !strings.Contains(stderr.String(), "agent stopped") {
			t.Fatalf("exit %d, want 0 after a clean stop:\n%s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not stop the agent")
	}
}

func TestFailureExitsOneWithPrefix(t *testing.T) {
	isolate(t)
	var stderr syncBuffer
	if c := run([]string{"--max-tasks", "0"}, &stderr); c != 1 || stderr.String() != "sample-agent: --max-tasks must be at least 1, got 0\n" {
		t.Fatalf("exit %d, stderr %q", c, stderr.String())
	}
}
