// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package cliutil

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/a2abus/a2abus/config"
)

// The servers a command uses when bus.url / redis.url are unset: the local
// RabbitMQ and Redis of a development machine (the defaults of
// `docker compose up` and of the test set-up).
const (
	LocalAMQPURL  = "amqp://guest:guest@127.0.0.1:5672/"
	LocalRedisURL = "redis://127.0.0.1:6379/0"
)

// EmbeddedFlag is the flag that asks for the embedded in-process bus and
// memory instead of the local servers when bus.url / redis.url are unset.
const EmbeddedFlag = "embedded"

// Profile says how a command's configuration is completed once loaded: which
// bus and memory it uses when none is configured, and how it logs when the
// log level and format are not asked for. It is the one place these defaults
// are decided; a command chooses its profile with SetProfile.
type Profile string

// The profiles of the a2abus commands.
const (
	// Interactive (the default): bus.url / redis.url unset mean LocalAMQPURL
	// and LocalRedisURL (--embedded: the embedded ones); logs at warn in
	// console format unless log.level / log.format are set (file, A2ABUS_LOG_*,
	// --log-level / --log-format). Every short command that talks to other processes.
	Interactive Profile = "interactive"
	// Daemon is a long-running process (serve, directory, mcp, the agent
	// mains): the local servers as Interactive, the configuration's logging
	// (JSON at info by default: its logs are read by machines).
	Daemon Profile = "daemon"
	// Demo runs everything in one process: the embedded bus and memory unless
	// bus.url / redis.url are set; logs as Interactive.
	Demo Profile = "demo"
	// AsConfigured completes nothing: bench chooses its servers and log
	// level itself.
	AsConfigured Profile = "as-configured"
)

// profileAnnotation is the cobra annotation SetProfile stores a profile in.
const profileAnnotation = "a2abus.profile"

// SetProfile makes LoadConfig complete cmd's configuration with p and
// returns cmd; a command without a profile is Interactive.
func SetProfile(cmd *cobra.Command, p Profile) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[profileAnnotation] = string(p)
	return cmd
}

// ProfileOf returns the profile SetProfile gave cmd, Interactive when none.
func ProfileOf(cmd *cobra.Command) Profile {
	switch p := Profile(cmd.Annotations[profileAnnotation]); p {
	case Daemon, Demo, AsConfigured:
		return p
	}
	return Interactive
}

// Origin says where a server URL of a completed configuration came from.
type Origin int

const (
	// Configured: bus.url / redis.url (or redis.addrs) was set.
	Configured Origin = iota
	// LocalDefault: unset, so the local server (LocalAMQPURL, LocalRedisURL).
	LocalDefault
	// Embedded: the embedded in-process one: config.EmbeddedURL, or unset
	// under Demo or --embedded.
	Embedded
)

// Origins says where the bus and the memory of a completed configuration come from.
type Origins struct{ Bus, Memory Origin }

// apply completes cfg for p: the servers, then the logging. fs holds the
// command's flags (--embedded); given, the keys the file, the environment
// or a flag set. The embedded bus or memory it chooses is written as
// config.EmbeddedURL: asked for, so node.Open does not warn about it.
func (p Profile) apply(cfg *config.Config, fs *pflag.FlagSet, given config.Given) Origins {
	var o Origins
	embedded := p == Demo
	if f := fs.Lookup(EmbeddedFlag); f != nil && f.Changed {
		embedded = f.Value.String() == "true"
	}
	if cfg.Bus.URL == config.EmbeddedURL {
		o.Bus = Embedded
	}
	if cfg.Redis.URL == config.EmbeddedURL {
		o.Memory = Embedded
	}
	if p != AsConfigured {
		if cfg.Bus.URL == "" {
			cfg.Bus.URL, o.Bus = config.EmbeddedURL, Embedded
			if !embedded {
				cfg.Bus.URL, o.Bus = LocalAMQPURL, LocalDefault
			}
		}
		if cfg.Redis.URL == "" && len(cfg.Redis.Addrs) == 0 {
			cfg.Redis.URL, o.Memory = config.EmbeddedURL, Embedded
			if !embedded {
				cfg.Redis.URL, o.Memory = LocalRedisURL, LocalDefault
			}
		}
	}
	if p == Daemon || p == AsConfigured {
		return o
	}
	if !given["log.level"] {
		cfg.Log.Level = "warn"
	}
	if !given["log.format"] {
		cfg.Log.Format = "console"
	}
	return o
}
