// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/tools"
)

func TestGetFromWorkingMemory(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	values := map[string]string{
		"session/s1/a2a/Echo/t1/result": `{"taskId":"t1","artifacts":[{"n":1}],"ok":true}`,
		"session/s1/notes/plain":        "just text, not JSON",
		"session/s1/notes/number":       " 42 ",
	}
	for k, v := range values {
		if err := f.mem.Set(ctx, k, []byte(v), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ key, want string }{
		{"session/s1/a2a/Echo/t1/result", `{"taskId":"t1","artifacts":[{"n":1}],"ok":true}`},
		{"session/s1/notes/plain", `"just text, not JSON"`},
		{"session/s1/notes/number", `42`},
	}
	for _, c := range cases {
		out, err := f.set.Dispatch(ctx, "get_from_working_memory", json.RawMessage(`{"key":"`+c.key+`"}`))
		if err != nil || string(out) != c.want {
			t.Errorf("get %q = %s, %v; want %s", c.key, out, err, c.want)
		}
	}
}

func TestGetFromWorkingMemoryMissingOrExpired(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	key := "session/s1/a2a/Echo/t2/result"
	check := func(when string) {
		t.Helper()
		_, err := f.call(t, "get_from_working_memory", `{"key":"`+key+`"}`)
		want := "no value at key '" + key + "': it was never stored or has expired (results are kept for a limited time)"
		var nf *tools.NotFoundError
		if err == nil || err.Error() != want || !errors.Is(err, memory.ErrNotFound) || !errors.As(err, &nf) || nf.Key != key {
			t.Fatalf("%s: error %v, want %q wrapping memory.ErrNotFound", when, err, want)
		}
		var out struct {
			Error struct {
				Code, Message string
				Retryable     bool
			}
		}
		if err := json.Unmarshal(tools.ErrorResult(err), &out); err != nil || out.Error.Code != tools.CodeNotFound || out.Error.Message != want {
			t.Fatalf("%s: ErrorResult = %+v", when, out)
		}
	}
	check("never stored")
	if err := f.mem.Set(ctx, key, []byte(`"done"`), time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := f.call(t, "get_from_working_memory", `{"key":"`+key+`"}`); err != nil || got != "done" {
		t.Fatalf("stored value = %v, %v", got, err)
	}
	f.clock.Advance(time.Minute + time.Second)
	check("expired")
}

func TestGetFromWorkingMemoryBackendFailure(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.mem.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := f.call(t, "get_from_working_memory", `{"key":"session/s1/x"}`)
	if !errors.Is(err, memory.ErrClosed) || errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("error %v, want one wrapping memory.ErrClosed", err)
	}
	if want := `get_from_working_memory: read "session/s1/x": `; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("error %q does not say what was being done", err)
	}
}
