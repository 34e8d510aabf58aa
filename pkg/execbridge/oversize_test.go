// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/internal/testworld/callers"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/execbridge"
)

// A line over the line limit that answers a request ends that request at
// once — a task.result or task.question with RESULT_TOO_LARGE, a task.error with its code —
// wherever the program's JSON put the request_id; a long task.progress is
// skipped and the request goes on. The caller never waits for its deadline.
func TestOverLongLinesEndTheirRequest(t *testing.T) {
	w := testworld.Embedded(t)
	opts := childCommand(t, "oversize") // the default line limit: bus.max_message_bytes, 4 MiB
	name, logs := serveBridge(t, w, opts)
	r := &rig{t: t, w: w, name: name, logs: logs, tester: callers.Start(t, w, w.N("Tester"))}
	six := strconv.Itoa(6 << 20)

	out, _ := r.call("echo", six, nil, "") // before its deadline: a timeout is another code
	wantCode(t, out, a2a.CodeResultTooLarge, "task.result line of ")
	out, _ = r.call("ask", six, nil, "")
	wantCode(t, out, a2a.CodeResultTooLarge, "task.question line of ")
	out, _ = r.call("fail", six, nil, "")
	wantCode(t, out, a2a.CodeInvalidInput, "task.error line of ")
	out, _ = r.call("progress", six, nil, "")
	if err := out.Err(); err != nil || out.Result.Text() != "after the long progress" {
		t.Fatalf("progress = %+v, %v; want the short result after the long progress", out.Result, err)
	}
	out, _ = r.call("call", six, nil, "")
	if err := out.Err(); err != nil || !strings.HasPrefix(out.Result.Text(), "c-big ERROR: INVALID_INPUT: refused: its invoke line of ") {
		t.Fatalf("call = %+v, %v; want the invoke answered with INVALID_INPUT", out.Result, err)
	}
	testenv.Eventually(t, "the long progress line logged as a violation", func() bool {
		return logged(logs, "protocol violation: line ignored", "what", "task.progress line of ")
	})
}

// A card line over the line limit is refused as what it is, at once, not as
// a card that never came.
func TestOverLongCardIsNamed(t *testing.T) {
	opts := childCommand(t, "bigcard")
	opts.StopTimeout = 2 * time.Second
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	err = b.Start(context.Background())
	if !errors.Is(err, execbridge.ErrBadCard) || !strings.Contains(err.Error(), "agent.card line of ") || !strings.Contains(err.Error(), "longer than the line limit") {
		t.Fatalf("Start = %v, want ErrBadCard saying the card line is too long", err)
	}
}
