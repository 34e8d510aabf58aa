// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

//go:build linux

package execbridge_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/execbridge"
	"github.com/a2abus/a2abus/pkg/node"
)

// escape is a shell function for agent programs: it starts a process in a
// session of its own (out of reach of the program's process group) that
// holds the program's stdin, stdout and stderr, as a Python
// Popen(..., start_new_session=True) does, records its pid in $DIR/escaped
// and returns once it has escaped.
const escape = `escape() {
	setsid sh -c 'echo $$ >>"$DIR/escaped"; : >"$DIR/up.$1"; exec sleep 300' escape "$1" &
	while [ ! -e "$DIR/up.$1" ]; do sleep 0.05; done
}
escape $$
`

// escapeScript is an agent program that leaves an escaped process behind;
// on its first run it then exits; on later runs it reads its input until its
// end, and exits.
const escapeScript = escape + `if [ ! -e "$DIR/ran" ]; then
	: >"$DIR/ran"
	exit 3
fi
while read -r line; do :; done
`

// escapeCommand writes the script and returns its options (with the test
// child's card given, since the script sends none), the observed log and the
// script's directory ($DIR). The escaped processes are killed when the test
// ends.
func escapeCommand(t *testing.T, script string) (execbridge.Options, *observer.ObservedLogs, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	card, err := execbridge.ParseCard([]byte(childCard))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b, _ := os.ReadFile(filepath.Join(dir, "escaped"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	core, logs := observer.New(zap.DebugLevel)
	return execbridge.Options{Command: "sh '" + path + "'", Env: append(os.Environ(), "DIR="+dir), Card: card,
		Logger: zap.New(core), MinBackoff: 20 * time.Millisecond}, logs, dir
}

// A program that exits leaving a process outside its process group that
// holds its output open is still seen to exit (its pipes are drained for
// DrainTimeout, not for as long as the other process lives) and restarted;
// and stopping a program in the same state ends within its bound.
func TestExitSeenThoughItsOutputIsHeldOpen(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	opts, logs, _ := escapeCommand(t, escapeScript)
	opts.DrainTimeout, opts.StopTimeout = 500*time.Millisecond, 2*time.Second
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- b.Run(context.Background()) }()
	testenv.Eventually(t, "the program restarted after its exit", func() bool {
		return len(logs.FilterMessage("agent process restarted").All()) == 1
	})
	if err := b.Close(); err != nil { // bounded: an error past StopTimeout and a margin
		t.Fatalf("Close = %v, want a stop within its bound", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run = %v, want nil after Close", err)
	}
	if !logged(logs, "agent process exited: restarting it", "reason", "exit status 3") {
		t.Errorf("the exit is not logged with its status:\n%v", logs.All())
	}
}

// A program that exits at the end of its input but whose output another
// process holds open has stopped: stopping it does not claim it still runs.
func TestStopSaysOnlyWhatIsTrue(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	opts, logs, dir := escapeCommand(t, escape+"while read -r line; do :; done\n")
	opts.DrainTimeout, opts.StopTimeout = 5*time.Second, 3*time.Second // the drain outlasts the stop
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the escaped process started", func() bool {
		data, _ := os.ReadFile(filepath.Join(dir, "escaped"))
		return len(strings.TrimSpace(string(data))) > 0
	})
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return: the stop waits for the escaped process")
	}
	if n := len(logs.FilterMessage("agent process did not stop: killing it").All()); n != 0 {
		t.Errorf("a program that exited at the end of its input is said not to have stopped:\n%v", logs.All())
	}
}

// A program that does not read its input is killed WriteTimeout after it
// was sent a frame, though the frame fitted in the pipe, and restarted; the
// request it was sent fails at once, saying why.
func TestProgramNotReadingItsInputIsKilled(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	w := testworld.Embedded(t)
	opts, _, _ := escapeCommand(t, "exec sleep 300\n") // reads nothing, writes nothing
	opts.WriteTimeout, opts.StopTimeout = time.Second, 2*time.Second
	name, logs := serveBridge(t, w, opts)
	r := &rig{t: t, w: w, name: name, logs: logs, tester: callers.Start(t, w, w.N("Tester"))}
	out, _ := r.call("echo", "hello?", nil, "") // due in 20s: before that, a timeout is another code
	wantCode(t, out, a2a.CodeExecutionFailed, "did not read its input for 1s")
	testenv.Eventually(t, "the program restarted", func() bool {
		return len(logs.FilterMessage("agent process restarted").All()) >= 1
	})
}

// TestReadinessFollowsTheProcess: the bridge is ready while its process runs
// and reads its input; a program that leaves a request unread is reported
// before it is killed, and the bridge is ready again once it restarted.
func TestReadinessFollowsTheProcess(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	w := testworld.Embedded(t)
	opts, logs, _ := escapeCommand(t, "exec sleep 300\n") // reads nothing
	opts.WriteTimeout, opts.StopTimeout = 4*time.Second, 2*time.Second
	opts.Name = w.N("Ready")
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Ready(); !errors.Is(err, execbridge.ErrNotReady) {
		t.Fatalf("before Start: Ready = %v, want ErrNotReady", err)
	}
	n, err := node.With(testConfig(w), w.Connect(t), keepOpen{w.Memory}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- node.ServeOn(ctx, n, b.Build) }()
	t.Cleanup(func() { cancel(); <-done })
	testenv.Eventually(t, "the bridge is ready (the hello frame alone may stay unread)", func() bool { return b.Ready() == nil })
	r := &rig{t: t, w: w, name: opts.Name, logs: logs, tester: callers.Start(t, w, w.N("Tester"))}
	called := make(chan struct{})
	go func() { defer close(called); _, _ = r.call("echo", "hello?", nil, "") }()
	testenv.Eventually(t, "Ready says the input is left unread", func() bool {
		err := b.Ready()
		return errors.Is(err, execbridge.ErrNotReady) && strings.Contains(err.Error(), "input unread")
	})
	<-called
	testenv.Eventually(t, "ready again once restarted", func() bool { return b.Ready() == nil })
}
