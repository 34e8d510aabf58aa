package redis_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
)

// BenchmarkMemory measures Set, Get and AppendTurn through this package beside
// the same work done with raw go-redis commands in the same run:
// memory/X ÷ raw/X is the package's overhead (validation, timeouts, script).
func BenchmarkMemory(b *testing.B) {
	opts := testOptions(b)
	m := open(b, opts)
	raw := rawClient(b)
	ctx := b.Context()
	value := bytes.Repeat([]byte("v"), 256)
	key := "bench/" + randomID(b)
	rawKey := opts.KeyPrefix + "raw:" + randomID(b)
	if err := m.Set(ctx, key, value, time.Minute); err != nil {
		b.Fatal(err)
	}
	if err := raw.Set(ctx, rawKey, value, time.Minute).Err(); err != nil {
		b.Fatal(err)
	}

	b.Run("memory/Set", func(b *testing.B) {
		for b.Loop() {
			if err := m.Set(ctx, key, value, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw/SET", func(b *testing.B) {
		for b.Loop() {
			if err := raw.Set(ctx, rawKey, value, time.Minute).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("memory/Get", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.Get(ctx, key); err != nil {
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
