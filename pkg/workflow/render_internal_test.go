// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestRenderStopsAtTheBound: rendering stops as soon as the output would
// pass the bound — it allocates about the bound, not the 60 MB twenty
// references to a 3 MB value would make — and what fits renders as before.
func TestRenderStopsAtTheBound(t *testing.T) {
	const limit = 4 << 20
	big := strings.Repeat("x", 3<<20)
	newScope := func() *scope {
		return &scope{input: map[string]any{"q": big, "n": 1.5, "list": []any{"a", true, nil}}, request: "req", outputs: map[string]*Output{}, limit: limit}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := newScope().renderText(strings.Repeat("${input.q} ", 20))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrRenderTooLarge) || !strings.Contains(err.Error(), "workflow.max_render_bytes (4 MiB (4194304 bytes)) at ${input.q}") {
		t.Fatalf("text: err = %v, want ErrRenderTooLarge naming the bound and the reference", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 24<<20 {
		t.Errorf("rendering allocated %d bytes with a bound of %d", alloc, limit)
	}

	fields := map[string]any{}
	for _, k := range []string{"a", "b"} {
		fields[k] = "${input.q}" // each takes the 3 MB value: 6 MB of JSON
	}
	if _, err := newScope().renderValue(fields); !errors.Is(err, ErrRenderTooLarge) {
		t.Errorf("input of two whole references: err = %v, want ErrRenderTooLarge", err)
	}
	if _, err := newScope().renderValue(map[string]any{"a": "${input}", "b": "${input}"}); !errors.Is(err, ErrRenderTooLarge) {
		t.Errorf("input of the whole input twice: err = %v, want ErrRenderTooLarge", err)
	}
	sc := newScope()
	text, err := sc.renderText("q is ${input.q}; n is ${input.n}; list ${input.list}")
	if err != nil || text != "q is "+big+"; n is 1.5; list [\"a\",true,null]" {
		t.Errorf("one reference within the bound: %.40q…, %v", text, err)
	}
	if v, err := sc.renderValue(map[string]any{"n": "${input.n}"}); err != nil || v.(map[string]any)["n"] != 1.5 {
		t.Errorf("a number within the bound stays a number: %v, %v", v, err)
	}
	unbounded := newScope()
	unbounded.limit = 0
	if text, err := unbounded.renderText(strings.Repeat("${input.n}", 3)); err != nil || text != "1.51.51.5" {
		t.Errorf("no bound: %q, %v", text, err)
	}
}

// TestJSONSizeCountsWhatEncodingWrites: the size charged for a value is
// close to its encoding (escapes included) and stops counting past the limit.
func TestJSONSizeCountsWhatEncodingWrites(t *testing.T) {
	v := map[string]any{"a": []any{"x<y", 1.25, true, nil, map[string]any{"q\"": "line\nnext"}}, "w": []string{"one", "two"}}
	got, want := jsonSize(v, 1<<20), len(textOf(v))
	if got < want || got > want+8 {
		t.Errorf("jsonSize = %d, the encoding has %d bytes", got, want)
	}
	long := []any{strings.Repeat("x", 1000), strings.Repeat("y", 1000), strings.Repeat("z", 1000)}
	if n := jsonSize(long, 500); n <= 500 || n > 1100 {
		t.Errorf("jsonSize past a limit of 500 = %d, want it to stop soon after the limit", n)
	}
}
