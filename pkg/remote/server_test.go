// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote_test

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// remoteServer is an A2A server built with a2a-go's a2asrv, whose agent
// acts on the first word of the message:
//
//	echo TEXT  working, an artifact "echo" of TEXT and one more chunk "!", completed "echoed"
//	slow       a working status every 50ms until canceled
//	ask        input required "which city?"; the answer completes "weather in ANSWER"
//	login      auth required
//	fail       failed "no good"
//	reject     rejected "not for me"
//	hello      a message, no task
//
// Its HTTP front can answer the next requests with an HTTP error first
// (failNext), take its card down, and records what it was sent.
type remoteServer struct {
	*httptest.Server
	card *spec.AgentCard

	mu       sync.Mutex
	faults   []fault
	cardDown bool
	requests []seen   // every request, in order
	cancels  []string // the task ids CancelTask reached the agent for
	contexts []string // the context ids of the messages that started tasks
	answers  []answer // the later turns: task and context ids with the text
}

type fault struct {
	code       int
	retryAfter string
	cutAfter   int // with code 0: the connection is closed after this many writes of the answer
}

type seen struct {
	method, path, traceparent, auth string
}

type answer struct{ task, context, text string }

// newRemoteServer starts a server offering JSON-RPC and HTTP+JSON (A2A
// 1.0), streaming or not.
func newRemoteServer(t *testing.T, streaming bool) *remoteServer {
	t.Helper()
	r := &remoteServer{}
	handler := a2asrv.NewHandler(&remoteAgent{r: r})
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(handler))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(handler)))
	mux.HandleFunc(a2asrv.WellKnownAgentCardPath, func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		down, card := r.cardDown, r.card
		r.mu.Unlock()
		if down {
			http.Error(w, "down for now", http.StatusServiceUnavailable)
			return
		}
		a2asrv.NewStaticAgentCardHandler(card).ServeHTTP(w, req)
	})
	r.Server = httptest.NewServer(r.front(mux))
	t.Cleanup(r.Close)
	r.card = &spec.AgentCard{
		Name: "Weather Service", Description: "Tells the weather.", Version: "2.1",
		SupportedInterfaces: []*spec.AgentInterface{
			{URL: r.URL + "/rpc", ProtocolBinding: spec.TransportProtocolJSONRPC, ProtocolVersion: spec.Version},
			{URL: r.URL + "/rest", ProtocolBinding: spec.TransportProtocolHTTPJSON, ProtocolVersion: spec.Version},
		},
		Capabilities:       spec.AgentCapabilities{Streaming: streaming},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []spec.AgentSkill{
			{ID: "forecast", Name: "Forecast", Description: "The weather of a city.", Tags: []string{"weather"}},
			{ID: "weather alerts", Name: "Alerts", Description: "Warnings.", Tags: []string{}},
		},
	}
	return r
}

// front records every request and answers the pending faults first.
func (r *remoteServer) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, seen{method: req.Method, path: req.URL.Path, traceparent: req.Header.Get("traceparent"), auth: req.Header.Get("Authorization")})
		var f *fault
		if len(r.faults) > 0 && req.Method == http.MethodPost {
			f = &r.faults[0]
			r.faults = r.faults[1:]
		}
		r.mu.Unlock()
		if f != nil && f.code == 0 {
			next.ServeHTTP(&cutWriter{ResponseWriter: w, left: f.cutAfter}, req)
			return
		}
		if f != nil {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			http.Error(w, http.StatusText(f.code), f.code)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// cutWriter closes the connection under a response after a number of
// writes: a stream cut in the middle.
type cutWriter struct {
	http.ResponseWriter
	left int
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.left <= 0 {
		if conn, _, err := http.NewResponseController(c.ResponseWriter).Hijack(); err == nil {
			_ = conn.Close()
		}
		return 0, errors.New("cut")
	}
	c.left--
	return c.ResponseWriter.Write(p)
}

func (c *cutWriter) Flush() { _ = http.NewResponseController(c.ResponseWriter).Flush() }

func (c *cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// failNext makes the next calls (POST) answer these faults, in order.
func (r *remoteServer) failNext(faults ...fault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, faults...)
}

func (r *remoteServer) setCardDown(down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cardDown = down
}

func (r *remoteServer) seenRequests() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.requests...)
}

// posts counts the POST requests to path.
func (r *remoteServer) posts(path string) int {
	n := 0
	for _, s := range r.seenRequests() {
		if s.method == http.MethodPost && strings.HasPrefix(s.path, path) {
			n++
		}
	}
	return n
}

func (r *remoteServer) canceled() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.cancels...)
}

func (r *remoteServer) turns() []answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]answer(nil), r.answers...)
}

func (r *remoteServer) contextIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.contexts...)
}

// remoteAgent is the a2asrv.AgentExecutor of remoteServer.
type remoteAgent struct{ r *remoteServer }

func agentText(s string) *spec.Message {
	return spec.NewMessage(spec.MessageRoleAgent, spec.NewTextPart(s))
}

func messageText(m *spec.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.Content.(spec.Text); ok {
			b.WriteString(string(t))
		}
	}
	return b.String()
}

func (a *remoteAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[spec.Event, error] {
	return func(yield func(spec.Event, error) bool) {
		text := messageText(ec.Message)
		status := func(state spec.TaskState, msg string) bool {
			var m *spec.Message
			if msg != "" {
				m = agentText(msg)
			}
			return yield(spec.NewStatusUpdateEvent(ec, state, m), nil)
		}
		if ec.StoredTask != nil { // the answer to "ask"
			a.r.mu.Lock()
			a.r.answers = append(a.r.answers, answer{task: string(ec.TaskID), context: ec.ContextID, text: text})
			a.r.mu.Unlock()
			if !status(spec.TaskStateWorking, "looking it up") {
				return
			}
			status(spec.TaskStateCompleted, "weather in "+text)
			return
		}
		word, rest, _ := strings.Cut(text, " ")
		if word == "hello" {
			yield(agentText("hello yourself"), nil)
			return
		}
		a.r.mu.Lock()
		a.r.contexts = append(a.r.contexts, ec.ContextID)
		a.r.mu.Unlock()
		if !yield(spec.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		switch word {
		case "echo":
			if !status(spec.TaskStateWorking, "echoing") {
				return
			}
			first := spec.NewArtifactEvent(ec, spec.NewTextPart(rest))
			first.Artifact.Name = "echo"
			if !yield(first, nil) || !yield(spec.NewArtifactUpdateEvent(ec, first.Artifact.ID, spec.NewTextPart("!")), nil) {
				return
			}
			status(spec.TaskStateCompleted, "echoed")
		case "slow":
			for i := 0; ; i++ {
				select {
				case <-ctx.Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
				if !status(spec.TaskStateWorking, "tick") {
					return
				}
			}
		case "ask":
			status(spec.TaskStateInputRequired, "which city?")
		case "login":
			status(spec.TaskStateAuthRequired, "log in first")
		case "fail":
			status(spec.TaskStateFailed, "no good")
		case "reject":
			status(spec.TaskStateRejected, "not for me")
		default:
			status(spec.TaskStateCompleted, "did "+text)
		}
	}
}

func (a *remoteAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[spec.Event, error] {
	return func(yield func(spec.Event, error) bool) {
		a.r.mu.Lock()
		a.r.cancels = append(a.r.cancels, string(ec.TaskID))
		a.r.mu.Unlock()
		yield(spec.NewStatusUpdateEvent(ec, spec.TaskStateCanceled, agentText("canceled as asked")), nil)
	}
}
