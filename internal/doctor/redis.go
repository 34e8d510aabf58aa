// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package doctor

import (
	"context"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/memory/redismem"
)

// redis checks the working memory: reachable, its version, an eviction
// policy that cannot drop results, and persistence.
func (r *run) redis(ctx context.Context) {
	cfg := r.l.Config.Redis
	if cfg.Embedded() {
		r.add("redis reachable", Pass, "the embedded in-process memory (nothing outside this process reaches it; it ends with the process)")
		return
	}
	tc, err := cfg.ClientTLS()
	if err != nil {
		r.add("redis reachable", Fail, "%v", err)
		return
	}
	where := redact.URL(cfg.URL)
	if cfg.URL == "" {
		where = "redis.addrs " + strings.Join(cfg.Addrs, ",")
	}
	ctx, cancel := r.bounded(ctx)
	defer cancel()
	var server, mem, persist map[string]string
	var save string
	err = redismem.WithClient(ctx, redismem.Options{URL: cfg.URL, Addrs: cfg.Addrs, MasterName: cfg.MasterName, Username: cfg.Username,
		Password: cfg.Password, DB: cfg.DB, KeyPrefix: cfg.KeyPrefix, Timeout: cfg.Timeout, TLS: tc,
		Logger: zap.NewNop()}, // go-redis's own lines (a pool that cannot dial) would repeat the finding
		func(ctx context.Context, c goredis.UniversalClient) error {
			var err error
			if server, err = info(ctx, c, "server"); err != nil {
				return err
			}
			if mem, err = info(ctx, c, "memory"); err != nil {
				return err
			}
			if persist, err = info(ctx, c, "persistence"); err != nil {
				return err
			}
			if v, err := c.ConfigGet(ctx, "save").Result(); err == nil { // CONFIG may be disabled: then unknown
				save = v["save"]
			} else {
				save = "?"
			}
			return nil
		})
	if err != nil {
		r.add("redis reachable", Fail, "%s (%s): %v", where, originKey(cfg.URL), err)
		return
	}
	r.add("redis reachable", Pass, "connected to %s", where)
	r.add("redis version", Pass, "Redis %s (%s mode)", server["redis_version"], orUnknown(server["redis_mode"]))
	r.eviction(mem)
	r.persistence(persist, save)
}

// originKey names the key that sets the Redis address.
func originKey(url string) string {
	if url == "" {
		return "redis.addrs"
	}
	return "redis.url"
}

// info is one section of INFO as key → value.
func info(ctx context.Context, c goredis.UniversalClient, section string) (map[string]string, error) {
	text, err := c.Info(ctx, section).Result()
	if err != nil {
		return nil, fmt.Errorf("INFO %s: %w", section, err)
	}
	return parseInfo(text), nil
}

// parseInfo reads INFO's "key:value" lines, skipping "# Section" headers.
func parseInfo(text string) map[string]string {
	out := map[string]string{}
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// eviction fails on a policy that may evict keys (results, task records,
// conversations) when a memory limit is set.
func (r *run) eviction(mem map[string]string) {
	const name = "redis eviction"
	policy, limit := mem["maxmemory_policy"], mem["maxmemory"]
	switch {
	case policy == "":
		r.add(name, Warn, "INFO memory does not say the maxmemory-policy: make sure it is noeviction")
	case policy == "noeviction":
		r.add(name, Pass, "maxmemory-policy noeviction: a full Redis refuses writes (retried) instead of dropping results")
	case limit == "0":
		r.add(name, Pass, "maxmemory-policy %s, but maxmemory is 0 (no limit), so nothing is evicted; set noeviction before setting a limit", policy)
	default:
		r.add(name, Fail, "maxmemory-policy %s with maxmemory %s bytes: once full, Redis evicts keys — stored results, task records and "+
			"conversations vanish before their TTL and callers lose them; set maxmemory-policy noeviction (a full Redis then refuses writes, "+
			"which a2abus retries)", policy, limit)
	}
}

// persistence warns when Redis keeps nothing on disk: a restart loses
// every result and task record.
func (r *run) persistence(p map[string]string, save string) {
	const name = "redis persistence"
	aof := p["aof_enabled"] == "1"
	rdb := save != "" && save != "?"
	switch {
	case aof && rdb:
		r.add(name, Pass, "AOF on and RDB snapshots (save %q)", save)
	case aof:
		r.add(name, Pass, "AOF on")
	case rdb:
		r.add(name, Pass, "RDB snapshots (save %q); AOF off: a crash loses the writes since the last snapshot", save)
	case save == "?":
		r.add(name, Warn, "AOF off and CONFIG GET save is not allowed: if RDB snapshots are off too, a restart loses every stored result and task record")
	default:
		r.add(name, Warn, "none (AOF off, no RDB snapshots): a restart loses every stored result, task record and conversation; "+
			"enable appendonly yes, or save snapshots, where results must survive")
	}
}
