// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/memorytest"
)

// BenchmarkMemory measures Set, Get and AppendTurn through this package beside
// the same work done with raw go-redis commands in the same run:
// memory/X ÷ raw/X is the package's overhead (validation, timeouts, script).
// AppendTurnOnce and Batch, the rest of the invoke chain (memorytest.Bench),
// run alone.
func BenchmarkMemory(b *testing.B) {
	opts := testOptions(b)
	m := open(b, opts)
	raw := rawClient(b)
	ctx := b.Context()
	value := bytes.Repeat([]byte("v"), 256)
	rawKey := opts.KeyPrefix + "raw:" + randomID(b)
	if err := raw.Set(ctx, rawKey, value, time.Minute).Err(); err != nil {
		b.Fatal(err)
	}

	b.Run("memory", func(b *testing.B) { memorytest.Bench(b, m) })
	b.Run("raw/SET", func(b *testing.B) {
		for b.Loop() {
			if err := raw.Set(ctx, rawKey, value, time.Minute).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw/GET", func(b *testing.B) {
		for b.Loop() {
			if _, err := raw.Get(ctx, rawKey).Bytes(); err != nil {
				b.Fatal(err)
			}
		}
	})
	session := "bench-" + randomID(b)
	b.Run("memory/AppendTurn", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.AppendTurn(ctx, session, memory.Turn{Role: memory.RoleUser, Content: "hello"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	rawList, rawChannel := opts.KeyPrefix+"raw:turns:"+randomID(b), opts.KeyPrefix+"raw:events"
	b.Run("raw/MULTI-RPUSH-PUBLISH", func(b *testing.B) {
		for b.Loop() {
			body, err := json.Marshal(memory.Turn{Role: memory.RoleUser, Content: "hello", Time: time.Now()})
			if err != nil {
				b.Fatal(err)
			}
			pipe := raw.TxPipeline()
			n := pipe.RPush(ctx, rawList, body)
			pipe.Publish(ctx, rawChannel, "1")
			if _, err := pipe.Exec(ctx); err != nil || n.Val() == 0 {
				b.Fatal(err)
			}
		}
	})
}
