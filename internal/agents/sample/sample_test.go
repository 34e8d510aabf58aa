// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package sample

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/caller"
)

func TestCardAgreesWithWellKnownFile(t *testing.T) {
	known, err := directory.LoadWellKnown("../../../well-known-agents.json")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(known, func(k directory.WellKnownAgent) bool { return k.AgentName == DefaultName })
	if i < 0 {
		t.Fatalf("%s is not in well-known-agents.json", DefaultName)
	}
	want := known[i].Card()
	got := Card(DefaultName)
	if got.Name != want.Name || got.Description != want.Description || got.Version != want.Version {
		t.Errorf("card header: got %q %q %q, want %q %q %q", got.Name, got.Description, got.Version, want.Name, want.Description, want.Version)
	}
	if len(got.Skills) != len(want.Skills) {
		t.Fatalf("got %d skills, want %d", len(got.Skills), len(want.Skills))
	}
	for i, g := range got.Skills {
		w := want.Skills[i]
		if g.ID != w.ID || g.Name != w.Name || g.Description != w.Description || !slices.Equal(g.Tags, w.Tags) || !slices.Equal(g.Examples, w.Examples) {
			t.Errorf("skill %d: got %+v, want %+v", i, g, w)
		}
	}
	if other := Card("Helper"); other.Name != "Helper" || len(other.Skills) != len(got.Skills) {
		t.Errorf("Card(Helper) = %q with %d skills", other.Name, len(other.Skills))
	}
}

func TestRegisterRefusesNilAgent(t *testing.T) {
	if err := Register(nil, nil); !errors.Is(err, ErrNilAgent) {
		t.Fatalf("Register(nil) = %v, want ErrNilAgent", err)
	}
}

func TestEchoAndFail(t *testing.T) {
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")

	out, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillEcho, Text: "hello, bus"})
	wantText(t, out, "hello, bus")
	if out.Result.Metadata.AgentVersion != Version {
		t.Errorf("agent version %q, want %q", out.Result.Metadata.AgentVersion, Version)
	}

	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: SkillFail, Text: "bad order id"})
	wantCode(t, out, a2a.CodeExecutionFailed)
	if msg := out.Result.Error.Message; msg != "bad order id" {
		t.Errorf("fail message %q, want the request text", msg)
	}
	if out.Result.State != a2a.TaskStateFailed {
		t.Errorf("fail state %s, want failed", out.Result.State)
	}

	out, _ = call(t, c, caller.Request{Target: DefaultName, Skill: "nope", Text: "x"})
	wantCode(t, out, a2a.CodeSkillNotSupported, "delegate, echo, fail, npv, sleep")
}

func TestSleepCompletesWithProgress(t *testing.T) {
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")

	out, statuses := call(t, c, caller.Request{Target: DefaultName, Skill: SkillSleep, Text: " 1100 "})
	wantText(t, out, "slept 1.1s")
	var fractions []float64
	for _, st := range statuses {
		if st.Progress != nil {
			fractions = append(fractions, *st.Progress)
			if !strings.Contains(a2a.MessageText(st.Message), "of 1.1s") {
				t.Errorf("progress text %q does not say how long of the total", a2a.MessageText(st.Message))
			}
		}
	}
	if len(fractions) == 0 || fractions[0] <= 0 || fractions[0] >= 1 {
		t.Fatalf("want a progress fraction within (0,1) after about a second, got %v", fractions)
	}
}

func TestSleepRefusesBadText(t *testing.T) {
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")
	for _, tc := range []struct{ text, want string }{
		{"soon", `got "soon"`},
		{"1.5", `whole number of milliseconds`},
		{"-5", "must not be negative, got -5"},
		{"99999999999999", "at most 86400000"},
		{"   ", "empty text"},
	} {
		out, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillSleep, Text: tc.text})
		wantCode(t, out, a2a.CodeInvalidInput, tc.want)
		if out.Result.State != a2a.TaskStateRejected {
			t.Errorf("%q: state %s, want rejected", tc.text, out.Result.State)
		}
	}
}

func TestSleepCanceledByCaller(t *testing.T) {
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")
	ctx := testCtx(t)

	inv, err := c.Invoke(ctx, caller.Request{Target: DefaultName, Skill: SkillSleep, Text: "60000", Timeout: time.Minute, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	working := make(chan struct{}, 1)
	type result struct {
		out *caller.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.Wait(ctx, inv.TaskID, func(*a2a.TaskStatus) {
			select {
			case working <- struct{}{}:
			default:
			}
		})
		done <- result{out, err}
	}()
	select {
	case <-working: // the handler is running
	case <-ctx.Done():
		t.Fatal("no working status")
	}
	if err := c.Cancel(ctx, inv.TaskID); err != nil {
		t.Fatal(err)
	}
	// Without a working cancel the task would run for a minute and the test
	// context (20s) would end the wait first.
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	wantCode(t, r.out, a2a.CodeCanceled)
	if r.out.Result.State != a2a.TaskStateCanceled {
		t.Errorf("state %s, want canceled", r.out.Result.State)
	}
}

func TestSleepPastDeadlineTimesOut(t *testing.T) {
	w := newWorld(t)
	w.sample(DefaultName, false)
	c := w.caller("Tester")
	out, _ := call(t, c, caller.Request{Target: DefaultName, Skill: SkillSleep, Text: "60000", Timeout: 300 * time.Millisecond})
	wantCode(t, out, a2a.CodeTimeout)
}

func TestSleepReturnsAtOnceWhenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	task := newTask(t, SkillSleep, "60000", nil)
	res, err := sleep(ctx, task)
	if res != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep on a canceled context = %v, %v; want context.Canceled", res, err)
	}
}
