// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/memory"
)

// scanCount is the COUNT hint of each SCAN step of List. SCAN walks the
// whole keyspace whatever it matches, so on a Redis holding many keys the
// round trips of small steps dominate: 10,000 keys a step take a few
// milliseconds of the server's time and a tenth of the round trips of 1,000.
const scanCount = 10_000

// Set stores value under key: SET, with an expiry when ttl > 0.
func (m *backend) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return m.call(ctx, fmt.Sprintf("set %q", key), func(ctx context.Context) error {
		return m.client.Set(ctx, m.kvKey(key), value, redisTTL(ttl)).Err()
	})
}

// SetIfAbsent stores value under key unless it exists (SET NX) and reports
// whether it did. An ErrUnavailable leaves the outcome unknown: the marker may be set.
func (m *backend) SetIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	var set bool
	err := m.call(ctx, fmt.Sprintf("set if absent %q", key), func(ctx context.Context) error {
		var err error
		set, err = m.client.SetNX(ctx, m.kvKey(key), value, redisTTL(ttl)).Result()
		return err
	})
	return set, err
}

// Get returns the value of key.
func (m *backend) Get(ctx context.Context, key string) ([]byte, error) {
	var value []byte
	err := m.call(ctx, fmt.Sprintf("get %q", key), func(ctx context.Context) error {
		var err error
		value, err = m.client.Get(ctx, m.kvKey(key)).Bytes()
		return err
	})
	return value, err
}

// GetMany reads keys with one pipeline of GETs (one round trip per server,
// bounded by the timeout as one call; a Cluster spreads them over their
// slots' masters, which one MGET could not); nil for a missing key.
func (m *backend) GetMany(ctx context.Context, keys ...string) ([][]byte, error) {
	out := make([][]byte, len(keys))
	if len(keys) == 0 {
		return out, m.call(ctx, "get many", func(context.Context) error { return nil })
	}
	err := m.call(ctx, fmt.Sprintf("get many (%d keys, first %q)", len(keys), keys[0]), func(ctx context.Context) error {
		pipe := m.client.Pipeline()
		cmds := make([]*goredis.StringCmd, len(keys))
		for i, k := range keys {
			cmds[i] = pipe.Get(ctx, m.kvKey(k))
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
			return err
		}
		for i, c := range cmds {
			b, err := c.Bytes()
			switch {
			case errors.Is(err, goredis.Nil):
			case err != nil:
				return err
			default:
				out[i] = b
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TTL returns the remaining time to live of key (PTTL); 0 when it has none.
func (m *backend) TTL(ctx context.Context, key string) (time.Duration, error) {
	var ttl time.Duration
	err := m.call(ctx, fmt.Sprintf("ttl %q", key), func(ctx context.Context) error {
		ms, err := m.client.Do(ctx, "pttl", m.kvKey(key)).Int64()
		switch {
		case err != nil:
			return err
		case ms == -2:
			return goredis.Nil
		case ms == -1:
			ttl = 0
		default:
			ttl = max(time.Duration(ms)*time.Millisecond, time.Millisecond) // 0 would read as "no expiry"
		}
		return nil
	})
	return ttl, err
}

// Delete removes key; a missing key is not an error.
func (m *backend) Delete(ctx context.Context, key string) error {
	return m.call(ctx, fmt.Sprintf("delete %q", key), func(ctx context.Context) error {
		return m.client.Del(ctx, m.kvKey(key)).Err()
	})
}

// List returns the keys starting with prefix, sorted: SCAN MATCH over every
// master (each SCAN step bounded by the timeout, the whole by ctx).
func (m *backend) List(ctx context.Context, prefix string) ([]string, error) {
	op := fmt.Sprintf("list %q", prefix)
	if m.closed.Load() {
		return nil, fmt.Errorf("%s: %w", op, memory.ErrClosed)
	}
	match := escapeGlob(m.kvKey(prefix)) + "*"
	strip := len(m.kvKey(""))
	found := map[string]struct{}{}
	var mu sync.Mutex // ForEachMaster scans masters concurrently
	scan := func(ctx context.Context, c goredis.Cmdable) error {
		var cursor uint64
		for {
			var keys []string
			err := m.call(ctx, op, func(ctx context.Context) error {
				var err error
				keys, cursor, err = c.Scan(ctx, cursor, match, scanCount).Result()
				return err
			})
			if err != nil {
				return err
			}
			mu.Lock()
			for _, k := range keys {
				found[k[strip:]] = struct{}{}
			}
			mu.Unlock()
			if cursor == 0 {
				return nil
			}
		}
	}
	if cluster, ok := m.client.(*goredis.ClusterClient); ok {
		var scanErr error
		err := cluster.ForEachMaster(ctx, func(ctx context.Context, c *goredis.Client) error {
			err := scan(ctx, c)
			if err != nil {
				mu.Lock()
				scanErr = err
				mu.Unlock()
			}
			return err
		})
		switch {
		case scanErr != nil:
			return nil, scanErr
		case err != nil: // the cluster's state could not be loaded
			return nil, fmt.Errorf("%s: %w", op, classify(ctx, err))
		}
	} else if err := scan(ctx, m.client); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, nil
}

// escapeGlob escapes the characters SCAN MATCH treats as a pattern. Keys
// cannot hold them (memory.ValidateKey, checked by memory.Checked); a KeyPrefix can.
func escapeGlob(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// redisTTL is ttl as go-redis expects it: at least 1ms when positive (PX 0 is an error).
func redisTTL(ttl time.Duration) time.Duration {
	if ttl > 0 && ttl < time.Millisecond {
		return time.Millisecond
	}
	return ttl
}
