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

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/research"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/backends"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// The kinds of agent Serve runs.
const (
	KindSample   = sample.DefaultName
	KindResearch = research.DefaultName
)

// Errors of Serve.
var (
	// ErrUnknownKind: the kind is neither SampleAgent nor ResearchAgent.
	ErrUnknownKind = errors.New("agents: unknown agent kind")
	// ErrNoConfig: Serve was given no configuration.
	ErrNoConfig = errors.New("agents: no configuration")
)

// ParseKind returns the canonical spelling of kind (case-insensitive), or an
// error wrapping ErrUnknownKind that lists the kinds.
func ParseKind(kind string) (string, error) {
	for _, k := range []string{KindSample, KindResearch} {
		if strings.EqualFold(kind, k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("%w %q: want %s or %s", ErrUnknownKind, kind, KindSample, KindResearch)
}

// Serve runs the agent of kind (SampleAgent or ResearchAgent, any case) under
// name (default: the kind) on the configured bus until ctx is done or, when
// cfg.Agent.Ephemeral, its task budget or idle time runs out. Every agent
// gets working memory (cancels recorded while it was not running);
// SampleAgent also a caller of its own name for its delegate skill.
// Everything is closed in order — agent, caller, bus and memory — and a
// clean stop returns nil.
func Serve(ctx context.Context, cfg *config.Config, kind, name string, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return ErrNoConfig
	}
	if err := cfg.Validate(); err != nil {
		return err
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
	b, err := backends.Bus(ctx, cfg.Bus, name, log)
	if err != nil {
		return err
	}
	// Working memory: SampleAgent's delegations, and every agent's cancels recorded while it was not running.
	m, err := backends.Memory(ctx, cfg.Redis, log)
	if err != nil {
		return errors.Join(err, backends.CloseAll(b))
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
	return serve(ctx, cfg, kind, name, b, m, log)
}

// delegateDirectoryWait is how long a delegation to an agent the directory
// does not know yet waits for it to announce itself.
const delegateDirectoryWait = 2 * time.Second

// serve builds the agent of kind on b (and m) and runs it; it closes b and m
// when it returns, whatever happened.
func serve(ctx context.Context, cfg *config.Config, kind, name string, b bus.Bus, m memory.Memory, log *zap.Logger) (err error) {
	defer func() { err = errors.Join(err, backends.CloseAll(b, m)) }() // a nil m is skipped
	codec := a2a.Codec{MaxBodyBytes: cfg.Bus.MaxMessageBytes}
	// One guard: the policy vets the callers of its tasks, and policy and limits its own delegations.
	g, err := backends.Guard(cfg, log)
	if err != nil {
		return err
	}
	card := research.Card()
	if kind == KindSample {
		card = sample.Card(name)
	}
	card.Name = name
	a, err := agent.New(agent.Options{
		Card: card, Bus: b, Concurrency: cfg.Agent.Concurrency, MaxAttempts: cfg.Bus.MaxAttempts,
		StopTimeout: cfg.Agent.StopTimeout, Ephemeral: cfg.Agent.Ephemeral, MaxTasks: cfg.Agent.MaxTasks,
		IdleTimeout: cfg.Agent.IdleTimeout, AnnounceInterval: cfg.Agent.AnnounceInterval, MaxDepth: cfg.Caller.MaxDepth,
		AnnounceSecret: []byte(cfg.Directory.AnnounceSecret), Codec: codec, Logger: log,
		Memory: m, // a nil memory.Memory is a nil Store: cancels only while running
		Policy: g,
	})
	if err != nil {
		return fmt.Errorf("agents: build %s %q: %w", kind, name, err)
	}
	var c *caller.Caller
	switch kind {
	case KindSample:
		// Delegation vets its targets through a directory running beside the agent.
		d, derr := backends.VettingDirectory(cfg, b, log)
		if derr != nil {
			return derr
		}
		dirCtx, stopDir := context.WithCancel(context.WithoutCancel(ctx))
		dirDone := make(chan struct{})
		go func() { defer close(dirDone); _ = d.Run(dirCtx) }()
		defer func() { stopDir(); <-dirDone }() // before the bus closes
		c, err = caller.New(caller.Options{
			Name: name, Bus: b, Memory: m, ResultTTL: cfg.Memory.ResultTTL,
			Resolver:       directory.PatientResolver{Ctx: dirCtx, Directory: d, Wait: delegateDirectoryWait},
			Guard:          g,
			DefaultTimeout: cfg.Caller.DefaultTimeout, MaxTimeout: cfg.Caller.MaxTimeout,
			SweepInterval: cfg.Caller.SweepInterval, MaxDepth: cfg.Caller.MaxDepth, Codec: codec, Logger: log,
		})
		if err != nil {
			return fmt.Errorf("agents: build the caller of %q: %w", name, err)
		}
		err = sample.Register(a, c)
	case KindResearch:
		err = research.Register(a, cfg.Research.DocsDir)
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
