// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package pythonamqp_test runs the Python agent of this folder (agent.py,
// pika only) against the real RabbitMQ and drives it through the
// conformance kit. ensure-pika.sh installs python3-pika with apt-get when
// no python3 can import pika (as root); without it the test skips, and
// fails under CI=true.
package pythonamqp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/conformance"
	"github.com/a2abus/a2abus/internal/conformance/conformancetest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// python returns an interpreter that imports pika, installing it if it can.
func python(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "sh", "ensure-pika.sh")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := fmt.Sprintf("pika is not available: %v\n%s", err, &stderr)
		if testenv.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return strings.TrimSpace(string(out))
}

// start runs agent.py named name on w's broker until the test ends; the
// function returned stops it with SIGTERM and wants exit 0.
func start(t *testing.T, w *testworld.World, py, name string) func(context.Context) error {
	t.Helper()
	cmd := exec.Command(py, "agent.py", "--name", name, "--amqp-url", w.AMQPURL, "--exchange", w.Exchange, "--stop-timeout", "2")
	var logs testenv.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	stop := func(ctx context.Context) error {
		stopped = true
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return err
		}
		select {
		case err := <-exited:
			if err != nil {
				return fmt.Errorf("agent.py exited with %w", err)
			}
			return nil
		case <-ctx.Done():
			return errors.New("agent.py did not exit after SIGTERM")
		}
	}
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
		t.Logf("agent.py output:\n%s", logs.String())
	})
	return stop
}

func TestPythonAgentConforms(t *testing.T) {
	w := testworld.Real(t) // skips without servers (fails under CI=true); removes the queues
	py := python(t)
	name := w.N("PyEcho")
	stop := start(t, w, py, name)
	conformancetest.RequireAll(t, conformance.Options{
		URL: w.AMQPURL, Exchange: w.Exchange, Agent: name, Caller: w.N("PyKit"), Stop: stop, Timeout: 20 * time.Second,
	})
}

// A Go caller asks the Python agent's clarify skill to greet Ada: it asks
// how, its caller answers something it does not offer and is asked again,
// then answers an option and gets the greeting.
func TestPythonAgentAsksAGoCaller(t *testing.T) {
	w := testworld.Real(t)
	py := python(t)
	name := w.N("PyAsks")
	start(t, w, py, name)
	tester := callers.Start(t, w, w.N("PyCaller"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := tester.Call(ctx, caller.Request{Target: name, Skill: "clarify", Text: "Ada", Timeout: 30 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := out.Question(); q == nil || q.Text != "How shall I greet Ada?" || len(q.Options) != 2 {
		t.Fatalf("clarify = %+v, want the question with two options", out.Result)
	}
	out, err = tester.Continue(ctx, caller.Reply{TaskID: out.TaskID, Text: "loudly"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := out.Question(); q == nil || !strings.HasPrefix(q.Text, "Please answer formal or casual") || out.Turn != 1 {
		t.Fatalf("after an answer it does not offer = %+v (turn %d), want the question again", out.Result, out.Turn)
	}
	out, err = tester.Continue(ctx, caller.Reply{TaskID: out.TaskID, Text: "casual"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Err() != nil || out.Result.Text() != "Hi Ada!" || out.Result.Turn != 2 {
		t.Fatalf("answered = %+v, %v; want Hi Ada! on turn 2", out.Result, out.Err())
	}
}

// A cold start: the Python agent starts after a Go caller's call, later
// than the call's timeout, takes the task within its wait bound (sending
// the take notice), and completes it.
func TestPythonAgentColdStart(t *testing.T) {
	w := testworld.Real(t)
	py := python(t)
	name := w.N("PyCold")
	tester := callers.Start(t, w, w.N("PyColdCaller"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const run = 2 * time.Second
	inv, err := tester.Invoke(ctx, caller.Request{Target: name, Skill: "echo", Text: "cold", Timeout: run, WaitTimeout: 45 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(run) // the cold start outlasts the run time: one deadline would have expired
	start(t, w, py, name)
	var notices int
	out, err := tester.Wait(ctx, inv.TaskID, func(st *a2a.TaskStatus) {
		if st.State == a2a.TaskStateWorking {
			notices++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Err() != nil || out.Result.Text() != "cold" {
		t.Fatalf("outcome %+v, %v; want the echo", out.Result, out.Err())
	}
	if notices == 0 {
		t.Fatal("no take notice (a working task.status) reached the caller")
	}
}
