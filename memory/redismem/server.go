// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"
)

// WithClient opens a client of the Redis opts names as New does (same
// options, TLS and timeout), pings it, runs fn with it and closes it: for
// questions the working memory does not ask, such as a2abus doctor's INFO.
// An unreachable server is an error wrapping memory.ErrUnavailable.
// go-redis's own log lines go to opts.Logger, as with New.
func WithClient(ctx context.Context, opts Options, fn func(context.Context, goredis.UniversalClient) error) error {
	logGoRedisTo(opts.Logger)
	opts, err := opts.withDefaults()
	if err != nil {
		return err
	}
	client, where, err := opts.newClient()
	if err != nil {
		return err
	}
	defer func() { _ = client.Close() }()
	pingCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := client.Ping(pingCtx).Err(); err != nil {
		return fmt.Errorf("memory/redismem: connect to %s: %w", where, classify(ctx, err))
	}
	return fn(ctx, client)
}
