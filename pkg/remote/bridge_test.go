// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/ops"
	"github.com/a2abus/a2abus/pkg/remote"
)

// keepOpen leaves the world's memory open when a node closes.
type keepOpen struct{ memory.Memory }

func (keepOpen) Close() error { return nil }

func testConfig(w *testworld.World) *config.Config {
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Agent.StopTimeout = 5 * time.Second
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // every call: these tests are not about the policy (policy.default stays deny)
	cfg.Remote.PollInterval = 50 * time.Millisecond
	cfg.Remote.RetryMin = 20 * time.Millisecond
	cfg.Remote.RetryMax = 200 * time.Millisecond
	cfg.Remote.CardTimeout = 5 * time.Second
	return cfg
}

// rig is a world with a remote A2A server bridged onto its bus, and a caller.
type rig struct {
	t      *testing.T
	w      *testworld.World
	srv    *remoteServer
	name   string
	tester *caller.Caller
	logs   *observer.ObservedLogs
	spans  *tracetest.InMemoryExporter
}

// newRig bridges srv as a remote agent (spec changes it) with cfg (nil: testConfig).
func newRig(t *testing.T, w *testworld.World, srv *remoteServer, cfg *config.Config, change func(*remote.Spec)) *rig {
	t.Helper()
	if cfg == nil {
		cfg = testConfig(w)
	}
	s := remote.Spec{Name: w.N("Weather"), CardURL: srv.URL, Auth: config.RemoteAgent{BearerToken: "bridge-token"}, Source: "test"}
	if change != nil {
		change(&s)
	}
	r := &rig{t: t, w: w, srv: srv, name: s.Name}
	r.logs, r.spans = serve(t, w, cfg, remote.BuildSpecs(s))
	r.tester = callers.Start(t, w, w.N("Tester"))
	return r
}

// serve serves build on a node of cfg, traced into the exporter it
// returns, until the test ends, which must then stop cleanly.
func serve(t *testing.T, w *testworld.World, cfg *config.Config, build node.Build) (*observer.ObservedLogs, *tracetest.InMemoryExporter) {
	t.Helper()
	core, logs := observer.New(zap.DebugLevel)
	n, err := node.With(cfg, w.Connect(t), keepOpen{w.Memory}, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	if n.Ops, err = ops.New(ops.Options{Metrics: true, TracerProvider: tp, CloseTracer: true}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := node.NewHost(n)
	if err := build(ctx, h); err != nil {
		cancel()
		_ = h.Close()
		t.Fatalf("build: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("host Run = %v, want a clean stop", err)
		}
	})
	return logs, exp
}

// statuses records a call's status updates.
type statuses struct {
	mu   sync.Mutex
	seen []string
}

func (s *statuses) add(st *a2a.TaskStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, a2a.MessageText(st.Message))
}

func (s *statuses) texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// call calls the bridged agent and returns the outcome and the statuses seen.
func (r *rig) call(skill, text string, timeout time.Duration) (*caller.Outcome, *statuses) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	st := &statuses{}
	out, err := r.tester.Call(ctx, caller.Request{Target: r.name, Skill: skill, Text: text, Timeout: timeout}, st.add)
	if err != nil {
		r.t.Fatalf("call %s %q: %v", skill, text, err)
	}
	return out, st
}

func wantCode(t *testing.T, out *caller.Outcome, code a2a.ErrorCode, parts ...string) {
	t.Helper()
	var typed *a2a.Error
	if err := out.Err(); !errors.As(err, &typed) || typed.Code != code {
		t.Fatalf("outcome error = %v, want %s", err, code)
	}
	for _, p := range parts {
		if !strings.Contains(typed.Message, p) {
			t.Fatalf("outcome error = %v, want it to contain %q", typed, p)
		}
	}
}

// artifactText joins the text parts of a result's artifacts, by artifact.
func artifactTexts(res *caller.StoredResult) []string {
	var out []string
	for _, a := range res.Artifacts {
		var b strings.Builder
		for _, p := range a.Parts {
			b.WriteString(p.Text())
		}
		out = append(out, a.Name+"="+b.String())
	}
	return out
}

// The result of a streaming remote: its final message, its artifact
// (chunks appended), its status updates passed on, the remote's ids in
// the result's metadata; every request carries the credential and the
// task's trace; the bus card has the remote's skills (ids made valid).
func TestStreamingRemoteResultArtifactsAndStatus(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		srv := newRemoteServer(t, true)
		r := newRig(t, w, srv, nil, nil)
		out, st := r.call("forecast", "echo hello", 20*time.Second)
		if err := out.Err(); err != nil {
			t.Fatal(err)
		}
		if got := out.Result.Text(); got != "echoed" {
			t.Errorf("result text = %q, want echoed", got)
		}
		if got := artifactTexts(out.Result); !slices.Equal(got, []string{"echo=hello!"}) {
			t.Errorf("artifacts = %v, want echo=hello!", got)
		}
		texts := st.texts()
		if !slices.Contains(texts, "echoing") || !slices.Contains(texts, "artifact echo") {
			t.Errorf("statuses = %q, want the remote's echoing and the artifact", texts)
		}
		extra := out.Result.Metadata.Extra
		if extra[remote.MetaRemoteTaskID] == "" || extra["remoteState"] != "TASK_STATE_COMPLETED" || extra["remote"] != r.name {
			t.Errorf("result metadata = %v", extra)
		}
		spans := map[string]bool{} // the a2a.remote spans' ids, a child each of the task's a2a.handle
		for _, sp := range r.spans.GetSpans() {
			if sp.Name == ops.SpanRemote {
				spans[sp.SpanContext.SpanID().String()] = true
			}
		}
		for _, s := range srv.seenRequests() {
			parts := strings.Split(s.traceparent, "-")
			if s.path == "/rpc" && (s.auth != "Bearer bridge-token" || len(parts) != 4 || !spans[parts[2]]) {
				t.Errorf("request %+v: want the bearer token and the traceparent of an a2a.remote span (%v)", s, spans)
			}
		}
		if srv.posts("/rest") != 0 {
			t.Errorf("the REST interface was used, want JSON-RPC (the card's first)")
		}
	})
}

// A remote that does not stream is sent the message and read until done;
// one preferred over HTTP+JSON is called there; a message answer (no task)
// is the result.
func TestPollingRESTAndMessageAnswers(t *testing.T) {
	w := testworld.Embedded(t)
	srv := newRemoteServer(t, false)
	r := newRig(t, w, srv, nil, func(s *remote.Spec) { s.Auth.Transport = config.RemoteTransportHTTPJSON })
	out, _ := r.call("forecast", "echo polled", 20*time.Second)
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	if out.Result.Text() != "echoed" || !slices.Equal(artifactTexts(out.Result), []string{"echo=polled!"}) {
		t.Errorf("result %q, artifacts %v", out.Result.Text(), artifactTexts(out.Result))
	}
	if srv.posts("/rest") == 0 || srv.posts("/rpc") != 0 {
		t.Errorf("REST posts %d, JSON-RPC posts %d: want HTTP+JSON only", srv.posts("/rest"), srv.posts("/rpc"))
	}
	out, _ = r.call("forecast", "hello", 20*time.Second)
	if err := out.Err(); err != nil || out.Result.Text() != "hello yourself" {
		t.Fatalf("hello = %+v, %v", out.Result, err)
	}
}

// A cancel of the bus task, and its deadline, reach the remote task.
func TestCancelAndDeadlineForwarded(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		t.Run(map[bool]string{true: "streaming", false: "polling"}[streaming], func(t *testing.T) {
			w := testworld.Embedded(t)
			srv := newRemoteServer(t, streaming)
			r := newRig(t, w, srv, nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			inv, err := r.tester.Invoke(ctx, caller.Request{Target: r.name, Skill: "forecast", Text: "slow", Timeout: 30 * time.Second, Stream: true})
			if err != nil {
				t.Fatal(err)
			}
			testenv.Eventually(t, "the remote task running", func() bool { return len(srv.contextIDs()) == 1 })
			if err := r.tester.Cancel(ctx, inv.TaskID); err != nil {
				t.Fatal(err)
			}
			out, err := r.tester.Wait(ctx, inv.TaskID, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantCode(t, out, a2a.CodeCanceled)
			testenv.Eventually(t, "the cancel forwarded", func() bool { return len(srv.canceled()) == 1 })

			// The deadline: the task times out, and the remote's is canceled.
			out, _ = r.call("forecast", "slow", 2*time.Second)
			wantCode(t, out, a2a.CodeTimeout)
			testenv.Eventually(t, "the deadline's cancel forwarded", func() bool { return len(srv.canceled()) == 2 })
		})
	}
}

// 503, 502, 504 and 429 (after its Retry-After) are retried within the
// deadline; the call then succeeds, the message sent again.
func TestTransientFailuresRetried(t *testing.T) {
	w := testworld.Embedded(t)
	srv := newRemoteServer(t, true)
	r := newRig(t, w, srv, nil, nil)
	srv.failNext(fault{code: 503}, fault{code: 502}, fault{code: 504})
	out, _ := r.call("forecast", "echo again", 20*time.Second)
	if err := out.Err(); err != nil || out.Result.Text() != "echoed" {
		t.Fatalf("after three transient failures: %+v, %v", out.Result, err)
	}
	if n := srv.posts("/rpc"); n != 4 {
		t.Errorf("%d sends, want 4 (three refused, one answered)", n)
	}
	srv.failNext(fault{code: 429, retryAfter: "1"})
	start := time.Now()
	out, _ = r.call("forecast", "echo later", 20*time.Second)
	if err := out.Err(); err != nil || out.Result.Text() != "echoed" {
		t.Fatalf("after 429: %+v, %v", out.Result, err)
	}
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("answered after %s: the retry did not wait for Retry-After: 1", took)
	}
}

// A stream cut once the remote named its task is not sent again: the
// bridge reads the task (and follows it) until it ends its turn.
func TestCutStreamResumedWithoutResending(t *testing.T) {
	w := testworld.Embedded(t)
	srv := newRemoteServer(t, true)
	r := newRig(t, w, srv, nil, nil)
	srv.failNext(fault{cutAfter: 2}) // the first event (its id and data lines), then the connection is gone
	out, _ := r.call("forecast", "echo cut", 20*time.Second)
	if err := out.Err(); err != nil || out.Result.Text() != "echoed" || !slices.Equal(artifactTexts(out.Result), []string{"echo=cut!"}) {
		t.Fatalf("after the cut: %+v, %v", out.Result, err)
	}
	if n := len(srv.contextIDs()); n != 1 {
		t.Errorf("the remote started %d tasks, want 1: the message was sent again", n)
	}
	if n := srv.posts("/rpc"); n < 2 {
		t.Errorf("%d calls: want the cut stream and at least one reading the task after it", n)
	}
}

// Every other failure is a typed error naming the remote: the remote's
// failed, rejected task; a refused credential; a rate limit longer than
// the deadline; an outage that outlasts the deadline; a remote that is gone.
func TestFailuresTypedNamingTheRemote(t *testing.T) {
	w := testworld.Embedded(t)
	srv := newRemoteServer(t, true)
	r := newRig(t, w, srv, nil, nil)
	out, _ := r.call("forecast", "fail", 20*time.Second)
	wantCode(t, out, a2a.CodeExecutionFailed, r.name, "failed the task", "no good")
	out, _ = r.call("forecast", "reject", 20*time.Second)
	wantCode(t, out, a2a.CodeExecutionFailed, r.name, "rejected the task", "not for me")

	srv.failNext(fault{code: 401})
	out, _ = r.call("forecast", "echo x", 20*time.Second)
	wantCode(t, out, a2a.CodeForbidden, r.name, "refused the bridge's credential", "401")

	srv.failNext(fault{code: 429, retryAfter: "3600"})
	start := time.Now()
	out, _ = r.call("forecast", "echo x", 20*time.Second)
	wantCode(t, out, a2a.CodeRateLimited, r.name, "Retry-After 1h0m0s", "no time left")
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("a Retry-After past the deadline took %s to answer, want at once", took)
	}

	outage := make([]fault, 1000)
	for i := range outage {
		outage[i] = fault{code: 503}
	}
	srv.failNext(outage...)
	// A deadline long enough that the answer's margin (a quarter of it, at
	// most 1s) holds on a loaded machine.
	out, _ = r.call("forecast", "echo x", 6*time.Second)
	wantCode(t, out, a2a.CodeUnavailable, r.name, "503", "attempts")
	srv.mu.Lock()
	srv.faults = nil
	srv.mu.Unlock()

	srv.Close()
	out, _ = r.call("forecast", "echo x", 6*time.Second)
	wantCode(t, out, a2a.CodeUnavailable, r.name, "unreachable")
}

// A remote task that waits for input ends the bus task's turn with its
// question; the caller's answer goes to the same remote task and context.
// It needs the caller's Reply and the agent's questions of tasks that talk
// back: it is skipped while they are the skeleton's.
func TestInputRequiredRoundTrip(t *testing.T) {
	w := testworld.Embedded(t)
	srv := newRemoteServer(t, true)
	r := newRig(t, w, srv, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inv, err := r.tester.Invoke(ctx, caller.Request{Target: r.name, Skill: "forecast", Text: "ask", Timeout: 20 * time.Second, ContextID: a2a.NewContextID()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.tester.Wait(ctx, inv.TaskID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !out.WaitingForInput() || out.Question() == nil || out.Question().Text != "which city?" {
		t.Fatalf("outcome %+v: want it waiting for the answer to which city?", out.Result)
	}
	next, err := r.tester.Reply(ctx, caller.Reply{TaskID: inv.TaskID, Text: "Paris"})
	if err != nil {
		t.Fatal(err)
	}
	out, err = r.tester.Wait(ctx, next.TaskID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Err(); err != nil || out.Result.Text() != "weather in Paris" {
		t.Fatalf("answer = %+v, %v", out.Result, err)
	}
	turns, ctxs := srv.turns(), srv.contextIDs()
	if len(turns) != 1 || turns[0].text != "Paris" || len(ctxs) != 1 || turns[0].context != ctxs[0] || ctxs[0] != inv.ContextID {
		t.Fatalf("the remote saw answers %+v and contexts %v: want Paris in the first task's context %s", turns, ctxs, inv.ContextID)
	}
}
