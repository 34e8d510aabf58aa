// Package cliutil is the command-line plumbing the a2abus mains share: the
// configuration flags, loading the configuration with them and building the
// logger, and running a cobra command under a context that SIGINT and
// SIGTERM cancel.
package cliutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/internal/logging"
)

// AddConfigFlags defines --config (stored in file) and the flags of
// config.AddFlags (--amqp-url, --redis-url, --log-level, --log-format) on fs.
func AddConfigFlags(fs *pflag.FlagSet, file *string) {
	fs.StringVar(file, "config", "", "configuration file (default: "+config.FileName+" in the working directory, then /etc/a2abus/, if present)")
	config.AddFlags(fs)
}

// LoadConfig resolves the configuration of cmd — defaults, configFile (or
// the a2abus.yaml found), A2ABUS_* environment variables, then cmd's flags —
// and builds the logger it names, writing to cmd's standard error.
func LoadConfig(cmd *cobra.Command, configFile string) (*config.Config, *zap.Logger, error) {
	file, err := config.LoadOptions{File: configFile}.ResolveFile()
	if err != nil {
		return nil, nil, err
	}
	// The file is resolved: an empty SearchDirs stops Load searching again.
	cfg, err := config.Load(config.LoadOptions{File: file, SearchDirs: []string{}, Flags: cmd.Flags()})
	if err != nil {
		return nil, nil, err
	}
	log, err := logging.NewTo(cfg.Log, cmd.ErrOrStderr())
	if err != nil {
		return nil, nil, fmt.Errorf("build logger: %w", err)
	}
	return cfg, log, nil
}

// Execute runs root with args under a context cancelled by the first SIGINT
// or SIGTERM (a second one kills the process), prints a failure to stderr as
// "<root name>: <error>" — one line per error of a joined error — and
// returns the exit code: 0, or 1 on failure.
func Execute(root *cobra.Command, args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // restore the default handling: a second signal ends the process at once
	}()
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.SetErr(stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap() // one line per error (e.g. per bad configuration key)
	}
	for _, e := range errs {
		fmt.Fprintf(stderr, "%s: %v\n", root.Name(), e)
	}
	return 1
}
