// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package agents

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/agent"
)

// Flags are the command-line overrides of a served agent: --name,
// --ephemeral, --max-tasks, --idle-timeout and --docs. The agent mains and
// `a2abus serve` share them.
type Flags struct {
	name        string
	docs        string
	ephemeral   bool
	maxTasks    int
	idleTimeout time.Duration
	// oneShot makes --ephemeral default to true and always apply (research-agent).
	oneShot bool
}

// AddFlags registers the overrides on fs. oneShot makes the agent ephemeral
// unless --ephemeral=false (research-agent's default).
func AddFlags(fs *pflag.FlagSet, oneShot bool) *Flags {
	f := &Flags{oneShot: oneShot}
	fs.StringVar(&f.name, "name", "", "the agent's name on the bus (default: the agent's own name)")
	if oneShot {
		fs.BoolVar(&f.ephemeral, "ephemeral", true, "run --max-tasks tasks (or wait --idle-timeout for one), then exit; --ephemeral=false serves until stopped (overrides agent.ephemeral)")
	} else {
		fs.BoolVar(&f.ephemeral, "ephemeral", false, "run --max-tasks tasks (or wait --idle-timeout for one), then exit (agent.ephemeral)")
	}
	fs.IntVar(&f.maxTasks, "max-tasks", agent.DefaultMaxTasks, "tasks an ephemeral agent runs before it exits (agent.max_tasks)")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", agent.DefaultIdleTimeout, "how long an ephemeral agent waits for a task before it exits (agent.idle_timeout)")
	fs.StringVar(&f.docs, "docs", "", "ResearchAgent: folder of .md and .txt files to search (research.docs_dir; default "+config.DefaultDocsDir+")")
	return f
}

// Name is the --name given, "" for the agent's own name.
func (f *Flags) Name() string { return f.name }

// SampleCommand is the root command of cmd/sample-agent: SampleAgent, always
// on unless --ephemeral, named by --name; `sample-agent version` prints
// version and commit.
func SampleCommand(b cliutil.Build) *cobra.Command {
	return newCommand(KindSample, buildSample, b)
}

// ResearchCommand is the root command of cmd/research-agent: ResearchAgent,
// one-shot unless --ephemeral=false, searching --docs; `research-agent
// version` prints version and commit.
func ResearchCommand(b cliutil.Build) *cobra.Command {
	return newCommand(KindResearch, buildResearch, b)
}

// newCommand builds the root command of kind's main, which serves what
// build adds (only its kind's code is linked). Both mains take
// a2abus's configuration flags and file, and the overrides of Flags; they
// run as cliutil.Daemon (the local servers when bus.url / redis.url are
// unset, JSON logs at info).
func newCommand(kind string, build kindBuild, b cliutil.Build) *cobra.Command {
	var configFile string
	cmd := &cobra.Command{
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.CompletionOptions.DisableDefaultCmd = true
	cliutil.SetProfile(cmd, cliutil.Daemon)
	cliutil.AddConfigFlags(cmd.PersistentFlags(), &configFile)
	switch kind {
	case KindSample:
		cmd.Use = "sample-agent"
		cmd.Short = "Run SampleAgent, the always-on reference agent (echo, sleep, fail, npv, delegate)"
		cmd.Example = "  sample-agent\n" +
			"  sample-agent --name Sampler --amqp-url amqp://user:pass@rabbit:5672/ --redis-url redis://redis:6379/0\n" +
			"  sample-agent version"
	case KindResearch:
		cmd.Use = "research-agent"
		cmd.Short = "Run ResearchAgent, the one-shot reference agent for KEDA: answer one research task, then exit"
		cmd.Example = "  research-agent --docs ./docs\n" +
			"  research-agent --docs ./docs --ephemeral=false\n" +
			"  research-agent version"
	}
	cliutil.AddVersion(cmd, b)
	f := AddFlags(cmd.Flags(), kind == KindResearch)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		l, err := cliutil.LoadConfig(cmd, configFile)
		if err != nil {
			return err
		}
		defer func() { _ = l.Log.Sync() }() // best effort: stderr may not support fsync
		if err := f.Apply(cmd.Flags(), l.Config); err != nil {
			return err
		}
		return l.Explain(serve(cmd.Context(), l.Config, kind, f.name, l.Log, build))
	}
	return cmd
}

// Apply copies the flags given on the command line into cfg — and, for a
// one-shot main, --ephemeral always — and validates the result.
func (f *Flags) Apply(fs *pflag.FlagSet, cfg *config.Config) error {
	if fs.Changed("max-tasks") {
		if f.maxTasks < 1 {
			return fmt.Errorf("--max-tasks must be at least 1, got %d", f.maxTasks)
		}
		cfg.Agent.MaxTasks = f.maxTasks
	}
	if fs.Changed("idle-timeout") {
		if f.idleTimeout <= 0 {
			return fmt.Errorf("--idle-timeout must be a positive duration such as \"30s\", got %s", f.idleTimeout)
		}
		cfg.Agent.IdleTimeout = f.idleTimeout
	}
	if fs.Changed("ephemeral") || f.oneShot {
		cfg.Agent.Ephemeral = f.ephemeral
	}
	if fs.Changed("docs") {
		if f.docs == "" {
			return fmt.Errorf("--docs must name a folder, got \"\"")
		}
		cfg.Research.DocsDir = f.docs
	}
	return cfg.Validate()
}
