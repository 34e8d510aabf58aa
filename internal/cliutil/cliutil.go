// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package cliutil is the command-line plumbing the a2abus mains share: the
// configuration flags, loading the configuration with them and completing it
// with the command's Profile (which servers when bus.url / redis.url are
// unset, how it logs), opening the servers with a one-line error when one
// cannot be reached, the exit codes, and running a cobra command under a
// context that SIGINT and SIGTERM cancel.
package cliutil

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/pkg/node"
)

// AddConfigFlags defines --config (stored in file), the flags of
// config.AddFlags (--amqp-url, --redis-url, --log-level, --log-format) and
// --embedded on fs; their help states the defaults of Profile.
func AddConfigFlags(fs *pflag.FlagSet, file *string) {
	fs.StringVar(file, "config", "", "configuration file (default: "+config.FileName+" in the working directory, then /etc/a2abus/, if present)")
	config.AddFlags(fs)
	fs.Lookup("amqp-url").Usage = "RabbitMQ URL, amqp:// or amqps://, or " + config.EmbeddedURL + " (bus.url, " + config.EnvName("bus.url") +
		"; default " + LocalAMQPURL + ", demo: the embedded bus)"
	fs.Lookup("redis-url").Usage = "Redis URL, redis:// or rediss://, or " + config.EmbeddedURL + " (redis.url, " + config.EnvName("redis.url") +
		"; default " + LocalRedisURL + ", demo: the embedded memory)"
	fs.Lookup("log-level").Usage = "log level: debug|info|warn|error (log.level; default warn, info for serve, directory, mcp and the agents)"
	fs.Lookup("log-format").Usage = "log format: json|console (log.format; default console, json for serve, directory, mcp and the agents)"
	fs.Bool(EmbeddedFlag, false, "with bus.url / redis.url unset, use an embedded in-process bus / memory instead of the local servers "+
		"(nothing outside this process reaches them)")
}

// Loaded is a command's resolved configuration and the logger it names.
type Loaded struct {
	// Config is the resolved and validated configuration.
	Config *config.Config
	// File is the configuration file that was read, "" when none was.
	File string
	// Log writes to the command's standard error in the configured level and format.
	Log *zap.Logger
	// Origins says whether the bus and memory were configured, are the
	// local defaults or the embedded ones (see Profile).
	Origins Origins
	// Sources says where each key's value came from (default, file, env, flag).
	Sources config.Sources
}

// LoadConfig resolves the configuration of cmd — defaults, configFile (or
// the a2abus.yaml found), A2ABUS_* environment variables, then cmd's flags —
// completes it with cmd's Profile (servers and logging when unset) and
// builds the logger it names, writing to cmd's standard error; an A2ABUS_*
// variable that sets no key is logged as a warning. A bad configuration is
// an error naming every bad key.
func LoadConfig(cmd *cobra.Command, configFile string) (*Loaded, error) {
	return load(cmd, configFile, cmd.ErrOrStderr())
}

// LoadQuiet is LoadConfig with a logger that writes nowhere: for shell
// completion, whose output the shell reads.
func LoadQuiet(cmd *cobra.Command, configFile string) (*Loaded, error) {
	return load(cmd, configFile, nil)
}

func load(cmd *cobra.Command, configFile string, logTo io.Writer) (*Loaded, error) {
	file, err := config.LoadOptions{File: configFile}.ResolveFile()
	if err != nil {
		return nil, err
	}
	// The file is resolved: an empty SearchDirs stops Load searching again.
	var warnings []string // A2ABUS_* variables that set nothing, logged once the logger is built
	cfg, sources, err := config.LoadSourced(config.LoadOptions{File: file, SearchDirs: []string{}, Flags: cmd.Flags(),
		Warn: func(w string) { warnings = append(warnings, w) }})
	if err != nil {
		return nil, err
	}
	origins := ProfileOf(cmd).apply(cfg, cmd.Flags(), sources.Given())
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logTo == nil {
		return &Loaded{Config: cfg, File: file, Log: zap.NewNop(), Origins: origins, Sources: sources}, nil
	}
	log, err := node.NewLogger(cfg.Log, logTo)
	if err != nil {
		return nil, fmt.Errorf("build logger: %w", err)
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	return &Loaded{Config: cfg, File: file, Log: log, Origins: origins, Sources: sources}, nil
}
