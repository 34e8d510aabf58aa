// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"strings"
	"testing"
)

// done is a completed result and its notification for session sid.
func done(task, text string) (Stored, Note) {
	r := Stored{Key: "k/" + task, Task: task, State: "TASK_STATE_COMPLETED", Text: text}
	return r, Note{Task: task, Agent: "A", State: r.State, Content: "[Agent 'A' completed task " + task + " (state=completed)]: " + text + ". Call …"}
}

func TestClassifyCountsEachKindOfProblem(t *testing.T) {
	s := &Snapshot{Entries: map[string]Entry{}, Sent: map[string]string{}, Refused: map[string]string{}, Killed: map[string]bool{"p2": true}, Produced: map[string][]string{}}
	obs := map[string]*Observed{}
	add := func(sid, skill, proc string, sent bool) {
		s.Entries[sid] = Entry{Session: sid, Caller: "C", Proc: proc, Target: "A", Skill: skill, Expect: ExpectComplete, Text: sid}
		if sent {
			s.Sent[sid] = "t-" + sid
		}
	}
	// ok: one result, one notification, the handler's answer.
	add("ok", SkillFast, "p1", true)
	r, n := done("t-ok", "fast ok")
	obs["ok"] = &Observed{Results: []Stored{r}, Again: []Stored{r}, Notes: []Note{n}}
	// lost: sent, nothing stored.
	add("lost", SkillFast, "p1", true)
	// abandoned: never marked sent, its caller killed, nothing stored.
	add("gone", SkillFast, "p2", false)
	// refused: Invoke failed.
	add("no", SkillFast, "p1", false)
	s.Refused["no"] = "broker down"
	// withdrawn: Invoke said its outcome unknown, but its caller's withdrawal
	// landed (claimed unsent): never published, refused.
	add("withdrawn", SkillFast, "p1", true)
	obs["withdrawn"] = &Observed{Withdrawn: true}
	// duplicated: two answer notifications.
	add("dup", SkillFast, "p1", true)
	r, n = done("t-dup", "fast dup")
	obs["dup"] = &Observed{Results: []Stored{r}, Again: []Stored{r}, Notes: []Note{n, n}}
	// overwritten: the stored result differs from the notified one.
	add("over", SkillRandom, "p1", true)
	s.Produced["over"] = []string{"first", "second"}
	r, n = done("t-over", "first")
	r2 := r
	r2.Text = "second"
	obs["over"] = &Observed{Results: []Stored{r2}, Again: []Stored{r2}, Notes: []Note{n}}
	// wrong: a random answer the handler never produced.
	add("wrong", SkillRandom, "p1", true)
	s.Produced["wrong"] = []string{"a"}
	r, n = done("t-wrong", "b")
	obs["wrong"] = &Observed{Results: []Stored{r}, Again: []Stored{r}, Notes: []Note{n}}
	// timed out, then answered late: two notifications of different kinds are fine.
	add("late", SkillSlow, "p1", true)
	r, n = done("t-late", "slow late")
	r.Late = true
	swept := Note{Task: "t-late", State: "TASK_STATE_FAILED", Swept: true, Content: "did not answer"}
	obs["late"] = &Observed{Results: []Stored{r}, Again: []Stored{r}, Notes: []Note{swept, n}}

	v := Classify(s, obs)
	want := Verdict{Tasks: 9, Lost: 1, Duplicated: 1, Overwritten: 2, Abandoned: 1, Refused: 2}
	if v.Tasks != want.Tasks || v.Lost != want.Lost || v.Duplicated != want.Duplicated || v.Overwritten != want.Overwritten ||
		v.Abandoned != want.Abandoned || v.Refused != want.Refused || v.RefusedRan != 0 {
		t.Fatalf("verdict %+v, want %+v", v, want)
	}
	if v.Outcomes["completed"] != 4 || v.Outcomes["completed_late"] != 1 {
		t.Errorf("outcomes %v", v.Outcomes)
	}
}

func TestClassifySeesAResultChangingAfterTheCheck(t *testing.T) {
	r, n := done("t1", "fast s")
	later := r
	later.Text = "fast other"
	s := &Snapshot{Entries: map[string]Entry{"s": {Session: "s", Target: "A", Skill: SkillFast, Expect: ExpectComplete, Text: "s"}},
		Sent: map[string]string{"s": "t1"}, Refused: map[string]string{}, Killed: map[string]bool{}, Produced: map[string][]string{}}
	v := Classify(s, map[string]*Observed{"s": {Results: []Stored{r}, Again: []Stored{later}, Notes: []Note{n}}})
	if v.Overwritten != 1 {
		t.Fatalf("verdict %+v, want one overwritten", v)
	}
}

// Each branch of the checker, alone: a task that is wrong in one way only
// is counted in its place, with a problem that says what was wrong.
func TestClassifyEachBranch(t *testing.T) {
	sent := func(sid string) *Snapshot {
		return &Snapshot{Entries: map[string]Entry{sid: {Session: sid, Caller: "C", Proc: "p1", Target: "A", Skill: SkillFast, Expect: ExpectComplete, Text: sid}},
			Sent: map[string]string{sid: "t-" + sid}, Refused: map[string]string{}, Killed: map[string]bool{}, Produced: map[string][]string{}}
	}
	r, n := done("t-s", "fast s")
	failedNote := n
	failedNote.State = "TASK_STATE_FAILED"
	timeout := Note{Task: "t-s", State: "TASK_STATE_FAILED", Swept: true, Content: "did not answer"}
	refused := sent("s")
	delete(refused.Sent, "s")
	refused.Refused["s"] = "broker down"
	for _, c := range []struct {
		name    string
		snap    *Snapshot
		obs     *Observed
		count   func(Verdict) int
		problem string
	}{
		{"stored state is not the announced one", sent("s"), &Observed{Results: []Stored{r}, Again: []Stored{r}, Notes: []Note{failedNote}},
			func(v Verdict) int { return v.Overwritten }, "stored state TASK_STATE_COMPLETED, notified TASK_STATE_FAILED"},
		{"a refused task ran", refused, &Observed{Results: []Stored{r}, Again: []Stored{r}, Notes: []Note{n}},
			func(v Verdict) int { return v.RefusedRan }, "refused (broker down) but an outcome was stored"},
		{"two stored results", sent("s"), &Observed{Results: []Stored{r, r}, Again: []Stored{r, r}, Notes: []Note{n}},
			func(v Verdict) int { return v.Duplicated }, "2 results stored for one request"},
		{"two timeout notifications", sent("s"), &Observed{Results: []Stored{r}, Again: []Stored{r}, Notes: []Note{timeout, timeout, n}},
			func(v Verdict) int { return v.Duplicated }, "notified 3 times (1 answers, 2 timeouts)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(c.snap, map[string]*Observed{"s": c.obs})
			if c.count(v) != 1 || len(v.Problems) != 1 || !strings.Contains(v.Problems[0], c.problem) {
				t.Fatalf("verdict %+v: want it counted once, with a problem saying %q", v, c.problem)
			}
		})
	}
}

// TestMismatchReadsThePreviewAsTheCallerCutsIt: a long error message whose
// 200-character cut falls on a space is notified without that space before
// the ellipsis ("MOVED…"); the checker must not call it overwritten (a
// cluster soak reported one: stored "… MOVED …", notified "… MOVED…").
func TestMismatchReadsThePreviewAsTheCallerCutsIt(t *testing.T) {
	msg := "nested: call SoakAgent0.fast: " + strings.Repeat("x", 199-len("nested: call SoakAgent0.fast: ")) + " MOVED 1234 127.0.0.1:7001"
	r := Stored{Task: "t1", State: "TASK_STATE_FAILED", Code: "EXECUTION_FAILED", Text: msg}
	n := Note{Task: "t1", State: "TASK_STATE_FAILED",
		Content: "[Agent 'SoakAgent2' failed task t1 (state=failed, code=EXECUTION_FAILED)]: " +
			msg[:199] + "…. Call get_from_working_memory with key 'k' for the details."}
	if why := mismatch(r, n); why != "" {
		t.Fatalf("mismatch: %s", why)
	}
}
