// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem

import (
	"context"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// compareAndSetScript replaces a value only if it is the expected one.
// KEYS[1]: the key. ARGV[1]: the expected value. ARGV[2]: the new value.
// ARGV[3]: the TTL in ms, 0 for none. It returns 1 when it set the key, 0
// when the key was missing (or expired) or held another value.
var compareAndSetScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1
`)

// compareAndDeleteScript deletes a key only if it holds the expected value.
// KEYS[1]: the key. ARGV[1]: the expected value. It returns 1 when it
// deleted the key, 0 when the key was missing (or expired) or held another value.
var compareAndDeleteScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
return redis.call('DEL', KEYS[1])
`)

// CompareAndSet replaces key's value and TTL with value and ttl if it holds
// old, in one script (EVALSHA, EVAL when the server lacks it), and reports
// whether it did. An ErrUnavailable leaves the outcome unknown.
func (m *backend) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	var set bool
	err := m.call(ctx, fmt.Sprintf("compare and set %q", key), func(ctx context.Context) error {
		n, err := compareAndSetScript.Run(ctx, m.client, []string{m.kvKey(key)},
			old, value, redisTTL(ttl).Milliseconds()).Int64()
		set = n == 1
		return err
	})
	return set, err
}

// CompareAndDelete deletes key if it holds old, in one script (EVALSHA, EVAL
// when the server lacks it), and reports whether it did. An ErrUnavailable
// leaves the outcome unknown.
func (m *backend) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	var deleted bool
	err := m.call(ctx, fmt.Sprintf("compare and delete %q", key), func(ctx context.Context) error {
		n, err := compareAndDeleteScript.Run(ctx, m.client, []string{m.kvKey(key)}, old).Int64()
		deleted = n == 1
		return err
	})
	return deleted, err
}
