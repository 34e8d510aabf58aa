// Package backends opens the bus and working memory a configuration names:
// RabbitMQ and Redis when their URLs are set, the embedded in-process bus
// and memory otherwise. Every main (a2abus, the sample agents) opens them
// through here, so they agree on what a configuration means.
package backends

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/inproc"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/inmem"
	memredis "github.com/a2abus/a2abus/memory/redis"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Bus opens the configured bus: RabbitMQ for bus.url, else a new embedded broker.
func Bus(ctx context.Context, cfg config.BusConfig, name string, log *zap.Logger) (bus.Bus, error) {
	if cfg.Embedded() {
		return inproc.New(inproc.Options{Exchange: cfg.Exchange, Logger: log}), nil
	}
	b, err := rabbitmq.Dial(ctx, rabbitmq.Options{
		URL: cfg.URL, Exchange: cfg.Exchange, QueueType: cfg.QueueType, ConnectionName: name,
		PublishTimeout: cfg.PublishTimeout, ReconnectMin: cfg.ReconnectMin, ReconnectMax: cfg.ReconnectMax, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("open bus: %w", err)
	}
	return b, nil
}

// Memory opens the configured working memory: Redis for redis.url or
// redis.addrs, else a new in-process memory.
func Memory(ctx context.Context, cfg config.RedisConfig, log *zap.Logger) (memory.Memory, error) {
	if cfg.Embedded() {
		return inmem.New(inmem.Options{Logger: log}), nil
	}
	m, err := memredis.New(ctx, memredis.Options{
		URL: cfg.URL, Addrs: cfg.Addrs, MasterName: cfg.MasterName, Username: cfg.Username, Password: cfg.Password,
		DB: cfg.DB, KeyPrefix: cfg.KeyPrefix, Timeout: cfg.Timeout, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("open working memory: %w", err)
	}
	return m, nil
}

// closeTimeout bounds CloseAll.
const closeTimeout = 10 * time.Second

// CloseAll closes what was opened, in order, within a bound, joining errors.
func CloseAll(closers ...interface{ Close() error }) error {
	done := make(chan error, 1)
	go func() {
		var first error
		for _, c := range closers {
			if c == nil {
				continue
			}
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
		done <- first
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(closeTimeout):
		return fmt.Errorf("backends: close did not finish within %s", closeTimeout)
	}
}

// WellKnown loads the configured well-known agents. A missing file at the
// default path means none (a warning is logged); any other problem — an
// explicitly configured file that is missing, or a bad file — is an error.
func WellKnown(cfg *config.Config, log *zap.Logger) ([]directory.WellKnownAgent, error) {
	path := cfg.Directory.WellKnownFile
	if path == "" {
		return nil, nil
	}
	agents, err := directory.LoadWellKnown(path)
	if errors.Is(err, fs.ErrNotExist) && path == config.DefaultWellKnownFile {
		if log == nil {
			log = zap.NewNop()
		}
		log.Warn("no well-known agents file; only announced agents are known", zap.String("file", path))
		return nil, nil
	}
	return agents, err
}

// Directory builds the agent directory on b from the configuration; persist
// selects whether it reads and writes directory.known_agents_file (a
// long-running directory) or only listens (a one-off command).
func Directory(cfg *config.Config, b bus.Bus, persist bool, log *zap.Logger) (*directory.Directory, error) {
	return newDirectory(cfg, b, persist, false, log)
}

// VettingDirectory builds a directory that only vets the targets of calls
// (a2abus invoke, SampleAgent's delegations): it asks the running agents to
// announce only when a look-up misses (directory.Options.QueryOnMiss), so
// starting one does not make every agent re-announce.
func VettingDirectory(cfg *config.Config, b bus.Bus, log *zap.Logger) (*directory.Directory, error) {
	return newDirectory(cfg, b, false, true, log)
}

func newDirectory(cfg *config.Config, b bus.Bus, persist, queryOnMiss bool, log *zap.Logger) (*directory.Directory, error) {
	wk, err := WellKnown(cfg, log)
	if err != nil {
		return nil, err
	}
	known := ""
	if persist {
		known = cfg.Directory.KnownAgentsFile
	}
	if cfg.Directory.AnnounceSecret == "" && !cfg.Bus.Embedded() && log != nil {
		log.Warn("directory.announce_secret is not set: any process on the bus can announce a card")
	}
	return directory.New(directory.Options{
		Bus: b, Exchange: cfg.Bus.Exchange, WellKnown: wk, KnownAgentsFile: known, AnnounceSecret: []byte(cfg.Directory.AnnounceSecret),
		StaleAfter: cfg.EffectiveStaleAfter(), ForgetAfter: cfg.Directory.ForgetAfter, QueryOnMiss: queryOnMiss,
		Codec: a2a.Codec{MaxBodyBytes: cfg.Bus.MaxMessageBytes}, Logger: log,
	})
}
