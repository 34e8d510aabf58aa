// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/gateway"
	"github.com/a2abus/a2abus/pkg/node"
)

// mesh is a world with SampleAgent, Whoami (answers its caller's name)
// and Asker (asks a question, then answers) running, callers Alice and Bob
// assembled through pkg/node, and a gateway on them listening on loopback.
type mesh struct {
	w       *testworld.World
	url     string
	sample  string // SampleAgent's name in this world
	whoami  string
	asker   string
	alice   string // the principals' caller names
	bob     string
	keys    map[string]string // caller name → key
	gw      *gateway.Gateway
	callers map[string]*caller.Caller
	dir     *directory.Directory
	cfg     *config.Config
}

// Keys of the principals.
const (
	aliceKey = "alice-key-0123456789abcdef"
	bobKey   = "bob-key-0123456789abcdef00"
)

// newMesh starts the agents, the callers and a gateway; mod adjusts the
// gateway's options and cfgMod the node's configuration (policy, limits).
func newMesh(t testing.TB, w *testworld.World, mod func(*gateway.Options), cfgMod ...func(*config.Config)) *mesh {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cfg := config.Default()
	cfg.Bus.Exchange = w.Exchange
	cfg.Directory.WellKnownFile = ""
	cfg.Caller.SweepInterval = 100 * time.Millisecond
	cfg.Policy.Rules = []config.PolicyRule{{Caller: "*", Allow: []string{"*"}}} // every call: these tests are not about the policy (policy.default stays deny)
	cfg.Limits.MaxInFlight = 0
	for _, f := range cfgMod {
		f(cfg)
	}
	b := w.Connect(t)
	n, err := node.With(cfg, b, w.Memory, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &mesh{w: w, sample: w.N("SampleAgent"), whoami: w.N("Whoami"), asker: w.N("Asker"), alice: w.N("Alice"), bob: w.N("Bob"),
		callers: map[string]*caller.Caller{}, cfg: cfg}
	m.keys = map[string]string{m.alice: aliceKey, m.bob: bobKey}
	sampletest.Start(t, b, m.sample)
	startWhoami(t, b, m.whoami)
	startAsker(t, b, m.asker)
	d, stop, err := n.StartDirectory(ctx, node.Lister)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	m.dir = d
	resolver := directory.PatientResolver{Directory: d, Wait: 5 * time.Second}
	var cs []*caller.Caller
	for _, name := range []string{m.alice, m.bob} {
		c, err := n.Caller(name, resolver)
		if err != nil {
			t.Fatal(err)
		}
		testworld.Start(t, c, caller.ErrClosed)
		m.callers[name] = c
		cs = append(cs, c)
	}
	o := gateway.Options{Callers: cs, Directory: d, Memory: w.Memory,
		Keys:   []gateway.Key{{Name: m.alice, Secret: aliceKey}, {Name: m.bob, Secret: bobKey}},
		Limits: cfg.HTTP.Limits(), Rate: -1}
	if mod != nil {
		mod(&o)
	}
	m.gw, m.url = startGateway(t, o)
	m.waitListed(t, m.sample, m.whoami, m.asker)
	return m
}

// startGateway builds, listens and runs a gateway until the test ends.
func startGateway(t testing.TB, o gateway.Options) (*gateway.Gateway, string) {
	t.Helper()
	g, err := gateway.New(o)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := g.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("gateway Run: %v", err)
		}
	})
	return g, "http://" + addr.String()
}

// waitListed waits until the directory lists the agents online.
func (m *mesh) waitListed(t testing.TB, names ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, n := range names {
		for {
			if e, ok := m.dir.Lookup(n); ok && e.Status == directory.StatusOnline {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("agent %s not listed online", n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// agentURL is the base URL of an agent on the gateway.
func (m *mesh) agentURL(name string) string { return m.url + gateway.AgentsPath + "/" + name }

// authTransport adds a credential header to every request.
type authTransport struct {
	header, value string
}

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if a.header != "" {
		r.Header.Set(a.header, a.value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// httpClient sends key as a bearer token.
func httpClient(key string) *http.Client {
	return &http.Client{Transport: authTransport{header: "Authorization", value: "Bearer " + key}, Timeout: time.Minute}
}

// client is an a2aclient for agent, acting as principal (its key), over
// transport (JSONRPC or HTTP+JSON).
func (m *mesh) client(t testing.TB, principal, agentName string, transport spec.TransportProtocol) *a2aclient.Client {
	t.Helper()
	hc := httpClient(m.keys[principal])
	card, err := agentcard.NewResolver(hc).Resolve(context.Background(), m.agentURL(agentName))
	if err != nil {
		t.Fatalf("resolve the card of %s: %v", agentName, err)
	}
	c, err := a2aclient.NewFromCard(context.Background(), card,
		a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []spec.TransportProtocol{transport}}))
	if err != nil {
		t.Fatalf("client of %s: %v", agentName, err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// send is a message of text for skill.
func send(text, skill string) *spec.SendMessageRequest {
	return &spec.SendMessageRequest{Message: spec.NewMessage(spec.MessageRoleUser, spec.NewTextPart(text)),
		Metadata: map[string]any{gateway.MetaSkill: skill}}
}

// taskText is the text of a task's artifacts.
func taskText(t *spec.Task) string {
	var out []string
	for _, a := range t.Artifacts {
		out = append(out, textOf(a.Parts))
	}
	return strings.Join(out, "\n")
}

// textOf is the text of parts.
func textOf(parts spec.ContentParts) string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Text())
	}
	return strings.Join(out, "\n")
}

// startWhoami runs an agent whose skill whoami answers the caller and the
// call chain its tasks came with.
func startWhoami(t testing.TB, b bus.Bus, name string) {
	t.Helper()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Description: "says who called",
		Skills: []a2a.AgentSkill{{ID: "whoami", Name: "Who am I", Description: "answers the caller's name"}}}, Bus: b, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("whoami", func(_ context.Context, task *agent.Task) (*agent.Result, error) {
		return agent.TextResult(fmt.Sprintf("caller=%s chain=%s session=%s traceparent=%s", task.Request.Caller,
			strings.Join(task.Request.CallChain, ","), task.Request.SessionID, task.Trace.Parent)), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
}

// startAsker runs an agent whose skill ask asks which color on its first
// turn and, on the next, reports its progress and answers "you said
// <answer>".
func startAsker(t testing.TB, b bus.Bus, name string) {
	t.Helper()
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: name, Description: "asks first",
		Skills: []a2a.AgentSkill{{ID: "ask", Name: "Ask", Description: "asks a question, then answers"}}}, Bus: b, StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("ask", func(ctx context.Context, task *agent.Task) (*agent.Result, error) {
		if task.Turn() == 0 {
			return agent.Ask("which color?"), nil
		}
		if err := task.Progress(ctx, "mixing "+task.Text(), 0.5); err != nil { // sent when the answer is streamed
			return nil, err
		}
		return agent.TextResult("you said " + task.Text()), nil
	}); err != nil {
		t.Fatal(err)
	}
	testworld.Start(t, a)
}
