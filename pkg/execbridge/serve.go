package execbridge

import (
	"cmp"
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/node"
)

// directoryWait is how long a call to an agent the directory does not know
// yet waits for it to announce itself.
const directoryWait = 2 * time.Second

// Serve runs the agent process of opts as a bus agent on the configured bus
// until ctx is done or, when cfg.Agent.Ephemeral, its task budget or idle
// time runs out (`a2abus serve --exec`). It opens the node, starts the
// process and gets its card, and serves through pkg/node: the agent
// (n.Agent, agent.concurrency requests at once) and a caller of its name for
// the process's invoke frames. A bad command line, a process that does not
// start or sends no usable card, and a crash loop are errors.
func Serve(ctx context.Context, cfg *config.Config, opts Options, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	if cfg == nil {
		return node.ErrNoConfig
	}
	opts.Logger = log
	opts.Concurrency = cfg.Agent.Concurrency
	opts.MaxFrameBytes = cmp.Or(opts.MaxFrameBytes, cfg.Bus.MaxMessageBytes)
	b, err := New(opts) // a bad command line is refused before anything connects
	if err != nil {
		return err
	}
	connName := opts.Name
	if connName == "" && opts.Card != nil {
		connName = opts.Card.AgentName
	}
	n, err := node.Open(ctx, cfg, cmp.Or(connName, "exec-agent"), log)
	if err != nil {
		return err
	}
	if _, err := n.StartOps(ctx); err != nil { // ops.listen: metrics, health, readiness (closed with the node)
		return errors.Join(err, n.Close())
	}
	return ServeOn(ctx, n, b)
}

// ServeOn is Serve on a node opened elsewhere, with a bridge not started
// yet; it closes b and n when it returns, whatever happened.
func ServeOn(ctx context.Context, n *node.Node, b *Bridge) (err error) {
	defer func() { err = errors.Join(err, n.Close()) }()
	if err := b.Start(ctx); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.Close()) }() // after the agent and the caller
	card, err := b.Card()
	if err != nil {
		return err
	}
	a, err := n.Agent(card)
	if err != nil {
		return err
	}
	d, stopDir, err := n.StartDirectory(context.WithoutCancel(ctx), node.Vetter)
	if err != nil {
		return err
	}
	defer stopDir()
	c, err := n.Caller(card.Name, directory.PatientResolver{Directory: d, Wait: directoryWait})
	if err != nil {
		return err
	}
	if err := b.Register(a, c); err != nil {
		return errors.Join(err, c.Close())
	}
	n.Log.Info("serving agent process", zap.String("agent", card.Name), zap.Int("skills", len(card.Skills)),
		zap.Int("concurrency", n.Config.Agent.Concurrency), zap.Bool("ephemeral", n.Config.Agent.Ephemeral))
	return run(ctx, a, c, b)
}

// run runs the agent, its caller and the bridge until ctx is done, the agent
// stops on its own (ephemeral) or one of them fails; then it closes the
// agent (its tasks finish on the process), the caller, and the bridge last
// (by the caller of run).
func run(ctx context.Context, a *agent.Agent, c *caller.Caller, b *Bridge) error {
	agentCtx, stopAgent := context.WithCancel(ctx)
	defer stopAgent()
	bg, stopBg := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBg()
	callerErr, bridgeErr := make(chan error, 1), make(chan error, 1)
	go func() {
		err := c.Run(bg)
		if err != nil {
			stopAgent()
		}
		callerErr <- err
	}()
	go func() {
		err := b.Run(bg)
		if err != nil {
			stopAgent() // no process any more: stop taking tasks
		}
		bridgeErr <- err
	}()
	errs := []error{a.Run(agentCtx), a.Close()}
	if agentCtx.Err() != nil && errors.Is(errs[0], context.Canceled) {
		errs[0] = nil // stopped while starting: a clean stop
	}
	if err := c.Close(); err != nil {
		errs = append(errs, err)
	} else if err := <-callerErr; err != nil && !errors.Is(err, caller.ErrClosed) {
		errs = append(errs, err)
	}
	errs = append(errs, b.Close(), <-bridgeErr)
	return errors.Join(errs...)
}
