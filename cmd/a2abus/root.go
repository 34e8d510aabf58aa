package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/logging"
)

// cli is the state shared by the commands of one run: the output streams and
// the persistent flags.
type cli struct {
	stdout, stderr io.Writer
	configFile     string
}

// env is what a command body that needs the configuration receives.
type env struct {
	// Config is the resolved and validated configuration.
	Config *config.Config
	// File is the configuration file that was read, "" when none was.
	File string
	// Log writes to standard error in the configured level and format.
	Log *zap.Logger
	// Out is the command's standard output.
	Out io.Writer
	// Err is the command's standard error (progress, notes).
	Err io.Writer
}

// runFunc is the body of a command that needs the configuration.
type runFunc func(ctx context.Context, e *env, args []string) error

// newRootCmd builds the command tree. Every subcommand is constructed by a
// newXxxCmd(c *cli) function in its own file and added to the list below;
// one that needs the configuration uses RunE: c.withConfig(body).
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cli{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "a2abus",
		Short: "Let AI agents call each other over RabbitMQ, with Redis as working memory",
		Long: "a2abus lets AI agents invoke each other by name and skill over a message bus.\n" +
			"With no bus.url and no redis.url it runs on an embedded in-process bus and memory.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&c.configFile, "config", "", "configuration file (default: "+config.FileName+" in the working directory, then /etc/a2abus/, if present)")
	config.AddFlags(pf)
	root.AddCommand(
		newVersionCmd(c),
		newConfigCmd(c),
		newTopologyCmd(c),
		newBenchCmd(c),
		newInvokeCmd(c),
		newWaitCmd(c),
		newCancelCmd(c),
		newDemoCmd(c),
		newServeCmd(c),
		newAgentsCmd(c),
		newDirectoryCmd(c),
		newMemoryCmd(c),
		newConversationCmd(c),
		newHistoryCmd(c),
	)
	return root
}

// withConfig adapts body to cobra: it loads the configuration (file, A2ABUS_*
// environment, the flags of cmd), builds the logger, runs body and flushes
// the logger. A bad configuration stops here, before body runs.
func (c *cli) withConfig(body runFunc) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		file, err := config.LoadOptions{File: c.configFile}.ResolveFile()
		if err != nil {
			return err
		}
		// The file is resolved: an empty SearchDirs stops Load searching again.
		cfg, err := config.Load(config.LoadOptions{File: file, SearchDirs: []string{}, Flags: cmd.Flags()})
		if err != nil {
			return err
		}
		log, err := logging.NewTo(cfg.Log, c.stderr)
		if err != nil {
			return fmt.Errorf("build logger: %w", err)
		}
		defer func() { _ = log.Sync() }() // best effort: stderr may not support fsync
		return body(cmd.Context(), &env{Config: cfg, File: file, Log: log, Out: c.stdout, Err: c.stderr}, args)
	}
}
