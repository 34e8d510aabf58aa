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
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
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
// cfg.Agent.Ephemeral, its task budget or idle time runs out. The agent is
// assembled from cfg (internal/assemble); SampleAgent also gets a caller of
// its own name for its delegate skill. Everything is closed in order —
// agent, caller, directory, bus and memory — and a clean stop returns nil.
func Serve(ctx context.Context, cfg *config.Config, kind, name string, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return ErrNoConfig
	}
	kind, err := ParseKind(kind)
	if err != nil {
		return err
	}
	if name == "" {
		name = kind
	}
	if err := a2a.ValidateAgentName(name); err != nil {
		return fmt.Errorf("agents: serve %s: %w", kind, err)
	}
	n, err := node.Open(ctx, cfg, name, log)
	if err != nil {
		return err
	}
	if _, err := n.StartOps(ctx); err != nil { // ops.listen: metrics, health, readiness (closed with the node)
		return errors.Join(err, n.Close())
	}
	where := "rabbitmq"
	if cfg.Bus.Embedded() {
		where = "embedded (reachable from this process only)"
	}
	log.Info("serving agent", zap.String("kind", kind), zap.String("agent", name), zap.String("bus", where),
		zap.Bool("ephemeral", cfg.Agent.Ephemeral))
	if kind == KindResearch {
		if st, err := os.Stat(cfg.Research.DocsDir); err != nil || !st.IsDir() {
			log.Warn("docs folder not found: every research task will fail until it exists", zap.String("docs_dir", cfg.Research.DocsDir))
		}
	}
	return serve(ctx, n, kind, name)
}

// delegateDirectoryWait is how long a delegation to an agent the directory
// does not know yet waits for it to announce itself.
const delegateDirectoryWait = 2 * time.Second

// serve builds the agent of kind on s and runs it; it closes s when it
// returns, whatever happened.
func serve(ctx context.Context, n *node.Node, kind, name string) (err error) {
	defer func() { err = errors.Join(err, n.Close()) }()
	if kind == KindPrimary {
		return servePrimary(ctx, n, name)
	}
	card := research.Card()
	if kind == KindSample {
		card = sample.Card(name)
	}
	card.Name = name
	a, err := n.Agent(card)
	if err != nil {
		return err
	}
	var c *caller.Caller
	switch kind {
	case KindSample:
		// Delegation vets its targets through a directory running beside the
		// agent; it stops after the caller, before the bus closes.
		d, stopDir, derr := n.StartDirectory(context.WithoutCancel(ctx), node.Vetter)
		if derr != nil {
			return derr
		}
		defer stopDir()
		if c, err = n.Caller(name, directory.PatientResolver{Directory: d, Wait: delegateDirectoryWait}); err != nil {
			return err
		}
		err = sample.Register(a, c)
	case KindResearch:
		err = registerResearch(a, n)
	}
	if err != nil {
		return err
	}
	return run(ctx, a, c)
}

// run runs a, and c beside it when c is not nil, until ctx is done or a
// stops on its own (ephemeral). c outlives a, so the delegations of tasks
// that finish during a's shutdown still get their answers; a c that fails
// stops a. Then a and c are closed, in that order.
func run(ctx context.Context, a *agent.Agent, c *caller.Caller) error {
	agentCtx, stopAgent := context.WithCancel(ctx)
	defer stopAgent()
	callerErr := make(chan error, 1)
	if c != nil {
		callerCtx, stopCaller := context.WithCancel(context.WithoutCancel(ctx))
		defer stopCaller()
		go func() {
			err := c.Run(callerCtx)
			if err != nil {
				stopAgent() // without its caller the agent could no longer delegate
			}
			callerErr <- err
		}()
	}
	errs := []error{a.Run(agentCtx), a.Close()}
	if agentCtx.Err() != nil && errors.Is(errs[0], context.Canceled) {
		errs[0] = nil // stopped while starting: a clean stop
	}
	if c != nil {
		if err := c.Close(); err != nil {
			errs = append(errs, err)
		} else if err := <-callerErr; !errors.Is(err, caller.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// registerResearch registers ResearchAgent's skill on a: with the model of
// the llm section when one is configured (a sourced answer from the top
// passages), else ranking passages only (offline).
func registerResearch(a *agent.Agent, n *node.Node) error {
	if !n.Config.LLM.Configured() {
		return research.Register(a, n.Config.Research.DocsDir)
	}
	m, err := n.Model()
	if err != nil {
		return err
	}
	return research.RegisterWithModel(a, n.Config.Research.DocsDir,
		research.Model{Client: m, Endpoint: redact.URL(n.Config.LLM.BaseURL), MaxTokens: n.Config.LLM.MaxTokens})
}
