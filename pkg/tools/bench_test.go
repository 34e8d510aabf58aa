package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// BenchmarkInvokeAgent measures invoke_agent's own cost (schema validation,
// decoding, resolving, encoding) around a fake caller.
func BenchmarkInvokeAgent(b *testing.B) {
	f := newFixture(b, fakeResolver{"Echo": {"echo"}})
	args := json.RawMessage(`{"agent_name":"echo","skill":"echo","message":"summarise the report","input":{"pages":[1,2,3]},"timeout_seconds":60,"priority":"high"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.set.Dispatch(ctx, "invoke_agent", args); err != nil {
			b.Fatal(err)
		}
		f.inv.reqs = f.inv.reqs[:0]
	}
}

// BenchmarkGetFromWorkingMemory measures reading a 4 KiB JSON result from the in-memory store.
func BenchmarkGetFromWorkingMemory(b *testing.B) {
	f := newFixture(b, nil)
	ctx := context.Background()
	value, _ := json.Marshal(map[string]string{"text": strings.Repeat("The quick brown fox jumps over the lazy dog. ", 93)})
	if err := f.mem.Set(ctx, "session/s1/a2a/Echo/t1/result", value, time.Hour); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"key":"session/s1/a2a/Echo/t1/result"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.set.Dispatch(ctx, "get_from_working_memory", args); err != nil {
			b.Fatal(err)
		}
	}
}
