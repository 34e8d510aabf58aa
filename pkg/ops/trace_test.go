// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops_test

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
	"github.com/a2abus/a2abus/pkg/ops"
)

// TestTraceTree calls an agent that calls another, on both buses, and
// checks that the spans recorded by the SDK's in-memory exporter form one
// trace: invoke → handle → (invoke → handle → finalize) and finalize.
func TestTraceTree(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

		cfg := testConfig(w)
		cfg.Ops.Listen = "" // tracing only
		// Each agent in a process of its own (its own node and connection).
		relayName, leafName, origin := w.N("Relay"), w.N("Leaf"), w.N("Origin")
		nodes := make(map[string]*nodeWithOps)
		for _, name := range []string{relayName, leafName, origin} {
			n := newNode(t, cfg, w, w.Connect(t))
			system := ""
			if w.Kind == "real" {
				system = "rabbitmq"
			}
			o, err := ops.New(ops.Options{TracerProvider: tp, MessagingSystem: system})
			if err != nil {
				t.Fatal(err)
			}
			o.Watch(n.Bus, n.Memory, n.Guard)
			n.Ops = o
			nodes[name] = &nodeWithOps{n}
		}
		startAgent(t, nodes[leafName].Node, leafName, nil)
		relayCaller, err := nodes[relayName].Caller(relayName, nil)
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, relayCaller, caller.ErrClosed)
		startAgent(t, nodes[relayName].Node, relayName, map[string]agent.Handler{
			"relay": func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
				out, err := relayCaller.Call(ctx, caller.Request{Target: leafName, Skill: "echo", Text: a2a.MessageText(task.Request.Message)}, nil)
				if err != nil {
					return nil, err
				}
				if err := out.Err(); err != nil {
					return nil, err
				}
				return agent.TextResult("relayed"), nil
			},
		})
		c, err := nodes[origin].Caller(origin, nil)
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, c, caller.ErrClosed)
		out, err := c.Call(ctx, caller.Request{Target: relayName, Skill: "relay", Text: "hi"}, nil)
		if err != nil || out.Err() != nil {
			t.Fatalf("call: %v %v", err, out.Err())
		}

		testenv.Eventually(t, "six spans", func() bool { return len(exp.GetSpans()) >= 6 },
			testenv.Explain(func() string { return spanNames(exp.GetSpans()) }))
		spans := exp.GetSpans()
		if len(spans) != 6 {
			t.Fatalf("spans: %s, want 6", spanNames(spans))
		}
		byID := map[trace.SpanID]tracetest.SpanStub{}
		for _, s := range spans {
			byID[s.SpanContext.SpanID()] = s
			if s.SpanContext.TraceID() != spans[0].SpanContext.TraceID() {
				t.Errorf("span %s is in trace %s, not %s", s.Name, s.SpanContext.TraceID(), spans[0].SpanContext.TraceID())
			}
		}
		find := func(name, key, value string) tracetest.SpanStub {
			t.Helper()
			for _, s := range spans {
				if s.Name != name {
					continue
				}
				for _, a := range s.Attributes {
					if string(a.Key) == key && a.Value.AsString() == value {
						return s
					}
				}
			}
			t.Fatalf("no %s span with %s=%s in %s", name, key, value, spanNames(spans))
			return tracetest.SpanStub{}
		}
		parentOf := func(s tracetest.SpanStub) string {
			p, ok := byID[s.Parent.SpanID()]
			if !ok {
				return "(root)"
			}
			return p.Name + "/" + p.SpanContext.SpanID().String()
		}
		invokeRelay := find(ops.SpanInvoke, "a2a.target", relayName)
		handleRelay := find(ops.SpanHandle, "a2a.agent", relayName)
		invokeLeaf := find(ops.SpanInvoke, "a2a.target", leafName)
		handleLeaf := find(ops.SpanHandle, "a2a.agent", leafName)
		finalizeRelay := find(ops.SpanFinalize, "a2a.caller", relayName)
		finalizeOrigin := find(ops.SpanFinalize, "a2a.caller", origin)
		edges := []struct {
			child, parent tracetest.SpanStub
			what          string
		}{
			{handleRelay, invokeRelay, "the relay's handling under the origin's invoke"},
			{invokeLeaf, handleRelay, "the sub-call under the relay's handling"},
			{handleLeaf, invokeLeaf, "the leaf's handling under the sub-call"},
			{finalizeRelay, handleLeaf, "the sub-call's result under the leaf's handling"},
			{finalizeOrigin, handleRelay, "the result under the relay's handling"},
		}
		for _, e := range edges {
			if e.child.Parent.SpanID() != e.parent.SpanContext.SpanID() {
				t.Errorf("%s: %s's parent is %s, want %s/%s", e.what, e.child.Name, parentOf(e.child), e.parent.Name, e.parent.SpanContext.SpanID())
			}
		}
		// The messaging attributes: the operation, the queue crossed, the
		// task as the conversation, and the system only on RabbitMQ.
		attr := func(s tracetest.SpanStub, key string) string {
			for _, a := range s.Attributes {
				if string(a.Key) == key {
					return a.Value.AsString()
				}
			}
			return ""
		}
		for _, c := range []struct {
			span            tracetest.SpanStub
			op, queue, conv string
		}{
			{invokeRelay, "send", "agent.task." + relayName, attr(invokeRelay, "a2a.task_id")},
			{handleLeaf, "process", "agent.task." + leafName, attr(handleLeaf, "a2a.task_id")},
			{finalizeOrigin, "process", "agent.response." + origin, ""},
		} {
			got := [3]string{attr(c.span, "messaging.operation.type"), attr(c.span, "messaging.destination.name"), attr(c.span, "messaging.message.conversation_id")}
			if want := [3]string{c.op, c.queue, c.conv}; got != want {
				t.Errorf("%s: messaging operation, destination, conversation = %q, want %q", c.span.Name, got, want)
			}
			if want := map[string]string{"real": "rabbitmq"}[w.Kind]; attr(c.span, "messaging.system") != want {
				t.Errorf("%s: messaging.system = %q, want %q", c.span.Name, attr(c.span, "messaging.system"), want)
			}
		}
		if attr(invokeRelay, "a2a.task_id") == "" {
			t.Error("the invoke span has no a2a.task_id")
		}
		if invokeRelay.Parent.IsValid() {
			t.Errorf("the origin's invoke has a parent: %s", parentOf(invokeRelay))
		}
	})
}

// nodeWithOps names a test's node (one per simulated process).
type nodeWithOps struct{ *node.Node }

func spanNames(spans tracetest.SpanStubs) string {
	s := ""
	for _, sp := range spans {
		s += sp.Name + " "
	}
	return s
}
