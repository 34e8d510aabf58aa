// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remotetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

// TestJavaScriptRemoteAgents: a bus caller invokes agents of the official
// JavaScript SDK, speaking A2A 1.0 and 0.3, through `a2abus serve
// --remote`: the result with its artifact, the stream of statuses, a
// cancel that reaches the JavaScript agent, and its failure as a typed
// error naming the remote.
func TestJavaScriptRemoteAgents(t *testing.T) {
	nodeBin := testenv.Command(t, "node")
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	tester := callers.Start(t, w, w.N("JsCaller"))
	for _, v := range []struct{ protocol, sdk string }{{"1.0", JSSDKVersion}, {"0.3", JSSDK03Version}} {
		t.Run("A2A "+v.protocol, func(t *testing.T) {
			sdk := testenv.NPMPackage(t, "@a2a-js/sdk", v.sdk)
			srv := startServer(t, nodeBin, sdk)
			name := w.N("JsWeather")
			startBridge(t, bin, w, name, srv.url)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			var mu sync.Mutex
			var statuses []string
			out, err := tester.Call(ctx, caller.Request{Target: name, Skill: "forecast", Text: "echo hello", Timeout: time.Minute}, func(st *a2a.TaskStatus) {
				mu.Lock()
				defer mu.Unlock()
				statuses = append(statuses, a2a.MessageText(st.Message))
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := out.Err(); err != nil {
				t.Fatalf("echo: %v", err)
			}
			res := out.Result
			if res.Text() != "echoed" || len(res.Artifacts) != 1 || res.Artifacts[0].Name != "echo" || partsText(res.Artifacts[0].Parts) != "hello!" {
				t.Errorf("echo result %q, artifacts %+v: want echoed and the artifact echo of hello!", res.Text(), res.Artifacts)
			}
			mu.Lock()
			if !slices.Contains(statuses, "echoing") || !slices.Contains(statuses, "artifact echo") {
				t.Errorf("statuses %q: want the JavaScript agent's echoing and its artifact", statuses)
			}
			mu.Unlock()

			srv.skip() // the lines of the calls so far
			inv, err := tester.Invoke(ctx, caller.Request{Target: name, Skill: "forecast", Text: "slow", Timeout: time.Minute, Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			started := srv.await(t, "started ")
			if err := tester.Cancel(ctx, inv.TaskID); err != nil {
				t.Fatal(err)
			}
			out, err = tester.Wait(ctx, inv.TaskID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if code := a2a.CodeOf(out.Err()); code != a2a.CodeCanceled {
				t.Errorf("the cancelled task ended %v, want CANCELED", out.Err())
			}
			if canceled := srv.await(t, "canceled "); canceled != started {
				t.Errorf("the JavaScript agent canceled task %s, want %s (the one that started)", canceled, started)
			}

			out, err = tester.Call(ctx, caller.Request{Target: name, Skill: "forecast", Text: "fail", Timeout: time.Minute}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var typed *a2a.Error
			if !errors.As(out.Err(), &typed) || typed.Code != a2a.CodeExecutionFailed || !strings.Contains(typed.Message, name) || !strings.Contains(typed.Message, "no good") {
				t.Errorf("fail = %v, want EXECUTION_FAILED naming %s and quoting no good", out.Err(), name)
			}

			// The question and its answer, through the caller.
			inv, err = tester.Invoke(ctx, caller.Request{Target: name, Skill: "forecast", Text: "ask", Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if out, err = tester.Wait(ctx, inv.TaskID, nil); err != nil {
				t.Fatal(err)
			}
			if q := out.Question(); q == nil || q.Text != "which city?" {
				t.Fatalf("ask = %+v: want the question which city?", out.Result)
			}
			next, err := tester.Reply(ctx, caller.Reply{TaskID: inv.TaskID, Text: "Paris"})
			if err != nil {
				t.Fatal(err)
			}
			if out, err = tester.Wait(ctx, next.TaskID, nil); err != nil {
				t.Fatal(err)
			}
			if err := out.Err(); err != nil || out.Result.Text() != "weather in Paris" {
				t.Fatalf("the answer = %+v, %v: want weather in Paris", out.Result, err)
			}
		})
	}
}

func partsText(parts []*a2a.Part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text())
	}
	return b.String()
}

// jsServer is a running server.mjs and the lines it printed.
type jsServer struct {
	url   string
	mu    sync.Mutex
	lines []string
	next  int // the first line await has not returned
}

// skip makes await look only at the lines printed from now on.
func (s *jsServer) skip() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = len(s.lines)
}

// await returns the rest of the next line starting with prefix (bounded).
func (s *jsServer) await(t *testing.T, prefix string) string {
	t.Helper()
	var got string
	testenv.Eventually(t, "server.mjs printing "+strings.TrimSpace(prefix), func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := s.next; i < len(s.lines); i++ {
			if rest, ok := strings.CutPrefix(s.lines[i], prefix); ok {
				got, s.next = rest, i+1
				return true
			}
		}
		return false
	})
	return got
}

// startServer runs server.mjs with the SDK of sdk until the test ends.
func startServer(t *testing.T, nodeBin, sdk string) *jsServer {
	t.Helper()
	script, err := filepath.Abs("server.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodeBin, script, sdk)
	cmd.Dir = t.TempDir()
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &jsServer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("server.mjs stderr:\n%s", stderr)
		}
	})
	s.url = "http://" + strings.TrimPrefix(s.await(t, "listening "), "http://")
	return s
}

// startBridge runs `a2abus serve --remote name` for the card at url until
// the test ends, which must then stop it cleanly.
func startBridge(t *testing.T, bin string, w *testworld.World, name, url string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--remote", name)
	cmd.Env = append(environ(w),
		fmt.Sprintf(`A2ABUS_REMOTE_AGENTS=[{"name": %q, "card_url": %q}]`, name, url),
		"A2ABUS_REMOTE_CARD_CHECK_INTERVAL=2s")
	cmd.Dir = t.TempDir()
	stderr := &testenv.Buffer{}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("a2abus serve --remote exited with %v after an interrupt\n%s", err, stderr)
			}
		case <-time.After(45 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("a2abus serve --remote did not stop within 45s of an interrupt\n%s", stderr)
		}
		if t.Failed() {
			t.Logf("a2abus serve --remote:\n%s", stderr)
		}
	})
}

// environ is this process's environment without A2ABUS_* settings, plus
// the world's servers, exchange and key prefix.
func environ(w *testworld.World) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "A2ABUS_") {
			out = append(out, kv)
		}
	}
	return append(out,
		"A2ABUS_BUS_URL="+w.AMQPURL, "A2ABUS_REDIS_URL="+w.RedisURL,
		"A2ABUS_BUS_EXCHANGE="+w.Exchange, "A2ABUS_REDIS_KEY_PREFIX="+w.KeyPrefix,
		"A2ABUS_LOG_LEVEL=info", "A2ABUS_LOG_FORMAT=console", "A2ABUS_AGENT_STOP_TIMEOUT=5s",
		`A2ABUS_POLICY_RULES=[{"caller":"*","allow":["*"]}]`, // every call: not about the policy (policy.default stays deny)
	)
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuilds()
	os.Exit(code)
}
