// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// cleanupTimeout bounds the clean-up, which runs even when the bench was
// interrupted: a run leaves tens of thousands of keys, which a Redis shared
// with millions of others scans slowly.
const cleanupTimeout = 2 * time.Minute

// cleanupCallTimeout bounds each SCAN or UNLINK of the clean-up, above
// redis.timeout: a step over a large keyspace on a loaded server may take
// seconds, and one that times out would leave the rest of the run's keys.
const cleanupCallTimeout = 10 * time.Second

// scanBatch is the COUNT hint of each SCAN step of the key clean-up.
const scanBatch = 10000

// deleteQueues deletes queues (and any messages left in them) on a
// connection of its own; a queue that is already gone is not an error.
func deleteQueues(amqpURL string, queues []string) error {
	conn, err := dialAMQP(amqpURL, "a2abus-bench-cleanup")
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	var errs []error
	for _, q := range queues {
		ch, err := conn.Channel()
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("delete queue %q: open channel: %w", q, err))...)
		}
		if _, err := ch.QueueDelete(q, false, false, false); err != nil {
			var ae *amqp.Error
			if !errors.As(err, &ae) || ae.Code != amqp.NotFound {
				errs = append(errs, fmt.Errorf("delete queue %q: %w", q, err))
			}
		}
		_ = ch.Close()
	}
	return errors.Join(errs...)
}

// deleteKeys deletes every Redis key under keyPrefix whose name contains
// runID (both chains put the run id in every key they write) and returns
// how many it deleted.
func deleteKeys(ctx context.Context, redisURL string, timeout time.Duration, keyPrefix, runID string) (int, error) {
	c, err := dialRedis(ctx, redisURL, timeout)
	if err != nil {
		return 0, err
	}
	defer func() { _ = c.Close() }()
	match := escapeGlob(keyPrefix) + "*" + escapeGlob(runID) + "*"
	deleted := 0
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, match, scanBatch).Result()
		if err != nil {
			return deleted, fmt.Errorf("scan Redis keys matching %q: %w", match, err)
		}
		if len(keys) > 0 {
			n, err := c.Unlink(ctx, keys...).Result()
			if err != nil {
				return deleted, fmt.Errorf("delete %d Redis keys matching %q: %w", len(keys), match, err)
			}
			deleted += int(n)
		}
		if cursor = next; cursor == 0 {
			return deleted, nil
		}
	}
}

// escapeGlob escapes the characters SCAN MATCH treats as a pattern.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
