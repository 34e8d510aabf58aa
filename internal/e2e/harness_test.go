// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
)

// build compiles the three binaries, once (testenv.Build), and returns
// the folder that holds them.
func build(t *testing.T) string {
	t.Helper()
	var dir string
	for _, cmd := range []string{"a2abus", "sample-agent", "research-agent"} {
		dir = filepath.Dir(testenv.Build(t, "./cmd/"+cmd))
	}
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuilds()
	os.Exit(code)
}

// env is one test's private installation on the real servers: its own
// exchange, key prefix and agent names, and the processes it started.
type env struct {
	t         *testing.T
	w         *testworld.World
	bin       string
	caller    string
	wellKnown string   // the test's well-known agents file (see known)
	dir       string   // working directory of run, "" for the test's
	extra     []string // more environment for every process
	procs     []*proc
}

func newEnv(t *testing.T) *env {
	t.Helper()
	w := testworld.Real(t)
	e := &env{t: t, w: w, bin: build(t)}
	e.caller = w.N("Cli")
	e.wellKnown = filepath.Join(t.TempDir(), "well-known-agents.json")
	e.known() // none yet
	t.Cleanup(e.stopAll)
	return e
}

// known adds agents to the test's well-known file, so that the CLI accepts
// tasks for them before they run (as for a KEDA-scaled agent); skills are
// those of the reference agents.
func (e *env) known(names ...string) {
	e.t.Helper()
	var entries []string
	for _, n := range names {
		entries = append(entries, fmt.Sprintf(`{"agentName":%q,"description":"test agent","version":"1.0","skills":[`+
			`{"id":"echo","name":"Echo","description":"d"},{"id":"sleep","name":"Sleep","description":"d"},`+
			`{"id":"research","name":"Research","description":"d"}]}`, n))
	}
	if err := os.WriteFile(e.wellKnown, []byte("["+strings.Join(entries, ",")+"]"), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// environ is the process environment: this one without any A2ABUS_*
// setting, plus the test's servers, exchange, key prefix and caller name.
func (e *env) environ(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			out = append(out, kv)
		}
	}
	out = append(out,
		"A2ABUS_BUS_URL="+e.w.AMQPURL, "A2ABUS_REDIS_URL="+e.w.RedisURL,
		"A2ABUS_BUS_EXCHANGE="+e.w.Exchange, "A2ABUS_REDIS_KEY_PREFIX="+e.w.KeyPrefix,
		"A2ABUS_CALLER_NAME="+e.caller, "A2ABUS_LOG_LEVEL=warn", "A2ABUS_LOG_FORMAT=console",
		"A2ABUS_DIRECTORY_WELL_KNOWN_FILE="+e.wellKnown, "A2ABUS_DIRECTORY_KNOWN_AGENTS_FILE=",
		`A2ABUS_POLICY_RULES=[{"caller":"*","allow":["*"]}]`, // every call: not about the policy (policy.default stays deny)
	)
	out = append(out, e.extra...)
	return append(out, extra...)
}

// proc is a started process with its captured output.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr *testenv.Buffer
	done           chan struct{}
	err            error
}

// start runs a binary in the background; stopAll ends it at cleanup.
func (e *env) start(name string, args ...string) *proc {
	e.t.Helper()
	p := &proc{cmd: exec.Command(filepath.Join(e.bin, name), args...), stdout: &testenv.Buffer{}, stderr: &testenv.Buffer{}, done: make(chan struct{})}
	p.cmd.Env = e.environ()
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		e.t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	e.procs = append(e.procs, p)
	return p
}

// wait waits up to d for p to exit and returns its exit code.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("%s did not exit within %s\nstdout: %s\nstderr: %s", p.cmd.Path, d, p.stdout, p.stderr)
		return -1
	}
}

func (e *env) stopAll() {
	for _, p := range e.procs {
		select {
		case <-p.done:
			continue
		default:
		}
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// run runs a binary to completion (bounded) and returns its exit code and output.
func (e *env) run(name string, args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return runWithEnv(ctx, e, e.environ(), name, args...)
}

// turns reads a session's conversation from the test's working memory.
func (e *env) turns(session string) []memory.Turn {
	e.t.Helper()
	turns, err := e.w.Memory.Turns(context.Background(), session, 0, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return turns
}

// eventually is testenv.Eventually bounded at 30s: the processes of these
// tests start slowly on a loaded machine.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testenv.Eventually(t, what, cond, testenv.Within(30*time.Second))
}

func session(prefix string) string { return prefix + "-" + strings.ToLower(rand.Text()[:8]) }

// runWithEnv runs a binary with exactly env (in dir, when set) and returns
// its exit code and output.
func runWithEnv(ctx context.Context, e *env, environ []string, name string, args ...string) (int, string, string) {
	e.t.Helper()
	cmd := exec.CommandContext(ctx, filepath.Join(e.bin, name), args...)
	cmd.Env = environ
	cmd.Dir = e.dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		e.t.Fatalf("run %s: %v", name, err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}
