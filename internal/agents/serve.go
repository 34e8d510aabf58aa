// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package agents runs the reference agents of a2abus by kind: SampleAgent
// (internal/agents/sample), always on, and ResearchAgent
// (internal/agents/research), one-shot for KEDA. Serve is what `a2abus serve`
// and the cmd/sample-agent and cmd/research-agent mains call.
package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/llm"
	"github.com/a2abus/a2abus/pkg/node"
)

// The kinds of agent Serve runs.
const (
	KindSample   = sample.DefaultName
	KindResearch = research.DefaultName
)

// Errors of Serve.
var (
	// ErrUnknownKind: the kind is not SampleAgent, ResearchAgent or Primary.
	ErrUnknownKind = errors.New("agents: unknown agent kind")
	// ErrNoConfig: Serve was given no configuration.
	ErrNoConfig = errors.New("agents: no configuration")
)

// ParseKind returns the canonical spelling of kind (case-insensitive), or an
// error wrapping ErrUnknownKind that lists the kinds.
func ParseKind(kind string) (string, error) {
	for _, k := range []string{KindSample, KindResearch, KindPrimary} {
		if strings.EqualFold(kind, k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("%w %q: want %s or %s (reference agents), or %s (the chat loop)", ErrUnknownKind, kind, KindSample, KindResearch, KindPrimary)
}

// Serve runs the agent of kind (SampleAgent or ResearchAgent, any case) under
// name (default: the kind) on the configured bus until ctx is done or, when
// cfg.Agent.Ephemeral, its task budget or idle time runs out. It runs on a
// node.Host, which stops the parts in its order; SampleAgent also gets a
// caller of its own name for its delegate skill. A clean stop returns nil.
func Serve(ctx context.Context, cfg *config.Config, kind, name string, log *zap.Logger) error {
	kind, err := ParseKind(kind)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, kind, name, log, builder(kind))
}

// serve is Serve of a parsed kind with its builder. The agent mains call it
// with their kind's builder alone, so that they do not link the other
// kinds' code (the Primary's chat loop and tools).
func serve(ctx context.Context, cfg *config.Config, kind, name string, log *zap.Logger, build kindBuild) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return ErrNoConfig
	}
	if name == "" {
		name = kind
	}
	if err := a2a.ValidateAgentName(name); err != nil {
		return fmt.Errorf("agents: serve %s: %w", kind, err)
	}
	add := build.add
	if build.prepare != nil {
		prepCtx, cancel := context.WithCancel(ctx)
		var stop func()
		add, stop = build.prepare(prepCtx, cfg)
		defer stop()
		defer cancel() // before stop: what was prepared and not used ends first
	}
	return node.Serve(ctx, cfg, name, log, referenceWith(kind, name, add))
}

// kindBuild adds the reference agent of one kind to a host.
type kindBuild struct {
	// add adds the agent, called name, to h.
	add func(h *node.Host, name string) error
	// prepare, when set, is called by serve before the node opens: it
	// starts what the agent needs that does not need the servers (ResearchAgent's
	// docs, read beside the dials) and returns the add that uses it, and a
	// stop that waits for it to end once ctx has.
	prepare func(ctx context.Context, cfg *config.Config) (add func(h *node.Host, name string) error, stop func())
}

// builder is the kindBuild of kind (canonical spelling).
func builder(kind string) kindBuild {
	switch kind {
	case KindPrimary:
		return kindBuild{add: buildPrimary}
	case KindSample:
		return buildSample
	default:
		return buildResearch
	}
}

// reference builds the reference agent of kind under name: SampleAgent with
// a caller of its name (its delegate skill vets targets through the host's
// directory), ResearchAgent alone, or the Primary.
func reference(kind, name string) node.Build { return referenceWith(kind, name, builder(kind).add) }

// referenceWith logs what it serves and lets build add the agent of kind.
func referenceWith(kind, name string, build func(h *node.Host, name string) error) node.Build {
	return func(ctx context.Context, h *node.Host) error {
		cfg, log := h.Node.Config, h.Node.Log
		where := "rabbitmq"
		if cfg.Bus.Embedded() {
			where = "embedded (reachable from this process only)"
		}
		log.Info("serving agent", zap.String("kind", kind), zap.String("agent", name), zap.String("bus", where),
			zap.Bool("ephemeral", cfg.Agent.Ephemeral))
		if kind == KindResearch && cfg.Research.SearchURL == "" {
			if st, err := os.Stat(cfg.Research.DocsDir); err != nil || !st.IsDir() {
				log.Warn("docs folder not found: every research task will fail until it exists", zap.String("docs_dir", cfg.Research.DocsDir))
			}
		}
		return build(h, name)
	}
}

// buildSample adds SampleAgent with a caller of its name.
var buildSample = kindBuild{add: addSample}

// addSample adds SampleAgent with a caller of its name.
func addSample(h *node.Host, name string) error {
	c, err := h.Caller(name)
	if err != nil {
		return err
	}
	_, err = h.Agent(sample.Card(name), func(a *agent.Agent) error { return sample.Register(a, c) })
	return err
}

// buildResearch adds ResearchAgent; served, it starts reading its docs
// folder before it connects (prepareResearch).
var buildResearch = kindBuild{add: addResearchUnread, prepare: prepareResearch}

// addResearchUnread adds ResearchAgent, whose first task reads the docs folder.
func addResearchUnread(h *node.Host, name string) error { return addResearch(h, name, research.Docs{}) }

// preloadDocs starts reading docs in the background (research.Docs.Preload);
// a variable for tests.
var preloadDocs = func(ctx context.Context, docs research.Docs) (wait func()) { return docs.Preload(ctx) }

// prepareResearch starts reading and indexing the docs folder when
// ResearchAgent will search it (no research.search_url): a one-shot job's
// task then finds it read while the job connected and declared its queues,
// instead of reading it after. The task still lists the folder and reads
// it again if a file changed since (research.Docs).
func prepareResearch(ctx context.Context, cfg *config.Config) (func(h *node.Host, name string) error, func()) {
	if cfg.Research.SearchURL != "" || cfg.Research.DocsDir == "" {
		return addResearchUnread, func() {}
	}
	docs := research.Folder(cfg.Research.DocsDir)
	wait := preloadDocs(ctx, docs)
	return func(h *node.Host, name string) error { return addResearch(h, name, docs) }, wait
}

// addResearch adds ResearchAgent, searching docs when it is set (a Folder
// being read) and the docs folder is to be searched.
func addResearch(h *node.Host, name string, docs research.Docs) error {
	card := research.Card()
	card.Name = name
	_, err := h.Agent(card, func(a *agent.Agent) error { return registerResearch(a, h.Node, docs) })
	return err
}

// registerResearch registers ResearchAgent's skill on a: searching the web
// when research.search_url is set (the web backend, registered by the
// program's main), else the docs folder (offline; docs, when it is set, is
// that folder, being read); with the model of the
// llm section when one is configured (a sourced answer from the top
// passages), else ranking passages only. A program that linked no model
// client (research-agent) refuses a configured model rather than answer
// without it, and one without the web backend a configured search_url.
func registerResearch(a *agent.Agent, n *node.Node, docs research.Docs) error {
	var m research.Model
	if n.Config.LLM.Configured() {
		client, err := n.Model()
		if errors.Is(err, llm.ErrNotLinked) {
			return fmt.Errorf("agents: %s with a model (llm.base_url is set): %w; "+
				"run it with a2abus serve --agent ResearchAgent, which links the model client, or unset llm.base_url to rank passages only", a.Card().Name, err)
		}
		if err != nil {
			return err
		}
		m = research.Model{Client: client, Endpoint: redact.URL(n.Config.LLM.BaseURL), MaxTokens: n.Config.LLM.MaxTokens}
	}
	rc := n.Config.Research
	if rc.SearchURL == "" {
		if docs.String() != "" {
			return research.RegisterDocs(a, docs, m)
		}
		return research.RegisterWithModel(a, rc.DocsDir, m)
	}
	w, err := research.NewWeb(research.WebConfig{SearchURL: rc.SearchURL, MaxPages: rc.MaxPages, FetchTimeout: rc.FetchTimeout,
		MaxPageBytes: int64(rc.MaxPageBytes), AllowPrivate: rc.AllowPrivateAddresses})
	if errors.Is(err, research.ErrWebNotLinked) {
		return fmt.Errorf("agents: %s searching the web (research.search_url is set): %w; "+
			"run research-agent or a2abus serve --agent ResearchAgent, which link it, or unset research.search_url to search research.docs_dir", a.Card().Name, err)
	}
	if err != nil {
		return fmt.Errorf("agents: %s: %w", a.Card().Name, err)
	}
	return research.RegisterWeb(a, w, m)
}
