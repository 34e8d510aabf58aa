// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/a2abus/a2abus/internal/redact"
)

// Stored is a task outcome as read from working memory at its result key.
type Stored struct {
	Key   string
	Task  string
	State string // the A2A state, e.g. TASK_STATE_COMPLETED
	Code  string // the error code; "" when it completed
	Text  string // the message text, or the error message
	Late  bool
}

// Note is a notification turn of a session's conversation.
type Note struct {
	Task    string
	Agent   string
	State   string
	Swept   bool // the deadline sweeper's TIMEOUT, not an answer
	Content string
}

// Observed is what working memory holds for one ledger task (its session):
// the results stored under its target, read twice around a quiet period,
// and the notification turns about its target's tasks.
type Observed struct {
	Results []Stored
	Again   []Stored
	Notes   []Note
	// Withdrawn: the task's final claim is its caller's "unsent" (pkg/caller
	// withdrew it, never published, though Invoke could only say its
	// outcome was unknown).
	Withdrawn bool
}

// Verdict is the checker's account of a run.
type Verdict struct {
	Tasks       int
	Lost        int
	Duplicated  int
	Overwritten int
	// Abandoned: the caller process was killed between the ledger and the publish, and nothing ran.
	Abandoned int
	// Refused: Invoke or Call failed before publishing (an error to the caller, not a loss).
	Refused int
	// RefusedRan: refused, yet an outcome was stored (the caller was told "not sent" wrongly).
	RefusedRan int
	// Outcomes counts the final outcomes by state or error code.
	Outcomes map[string]int
	// Problems describes the first problems found, for the report.
	Problems []string
	// ranRefused holds the sessions counted in RefusedRan.
	ranRefused map[string]bool
}

// maxProblems bounds Verdict.Problems.
const maxProblems = 20

func (v *Verdict) problem(format string, args ...any) {
	if len(v.Problems) < maxProblems {
		v.Problems = append(v.Problems, fmt.Sprintf(format, args...))
	}
}

// Classify checks every ledger task against what was observed for it.
func Classify(s *Snapshot, obs map[string]*Observed) Verdict {
	v := Verdict{Outcomes: map[string]int{}, ranRefused: map[string]bool{}}
	sids := make([]string, 0, len(s.Entries))
	for sid := range s.Entries {
		sids = append(sids, sid)
	}
	sort.Strings(sids)
	for _, sid := range sids {
		e := s.Entries[sid]
		v.Tasks++
		o := obs[sid]
		if o == nil {
			o = &Observed{}
		}
		_, sent := s.Sent[sid]
		cause, refused := s.Refused[sid]
		switch {
		case (refused || o.Withdrawn) && len(o.Results) == 0 && len(o.Notes) == 0:
			v.Refused++
			continue
		case refused:
			v.RefusedRan++
			v.ranRefused[sid] = true
			v.problem("%s: refused (%s) but an outcome was stored", sid, cause)
		case !sent && s.Killed[e.Proc] && len(o.Results) == 0 && len(o.Notes) == 0:
			v.Abandoned++
			continue
		}
		classifyTask(&v, sid, e, s.Produced[sid], o)
	}
	return v
}

// classifyTask checks one task that was (or may have been) published.
func classifyTask(v *Verdict, sid string, e Entry, produced []string, o *Observed) {
	if len(o.Results) == 0 {
		v.Lost++
		v.problem("%s: %s.%s (%s, %s): no outcome stored (%d notifications)", sid, e.Target, e.Skill, e.Mode, e.Caller, len(o.Notes))
		return
	}
	if len(o.Results) > 1 {
		v.Duplicated++
		v.problem("%s: %d results stored for one request", sid, len(o.Results))
		return
	}
	r := o.Results[0]
	v.Outcomes[outcomeName(r)]++
	var answers, swept []Note
	for _, n := range o.Notes {
		if n.Task != r.Task {
			continue
		}
		if n.Swept {
			swept = append(swept, n)
		} else {
			answers = append(answers, n)
		}
	}
	switch {
	case len(answers) > 1 || len(swept) > 1:
		v.Duplicated++
		v.problem("%s: task %s notified %d times (%d answers, %d timeouts)", sid, r.Task, len(answers)+len(swept), len(answers), len(swept))
		return
	case len(answers)+len(swept) == 0:
		v.Lost++
		v.problem("%s: task %s stored but never notified", sid, r.Task)
		return
	}
	last := swept[0:]
	if len(answers) == 1 {
		last = answers
	}
	if why := mismatch(r, last[0]); why != "" {
		v.Overwritten++
		runs := ""
		if e.Skill == SkillRandom {
			runs = fmt.Sprintf(", %d runs recorded", len(produced))
		}
		v.problem("%s: task %s (%s%s): the stored result is not the notified one: %s", sid, r.Task, e.Skill, runs, why)
		return
	}
	if why := wrongAnswer(r, e, produced); why != "" {
		v.Overwritten++
		v.problem("%s: task %s (%s): %s", sid, r.Task, e.Skill, why)
		return
	}
	if len(o.Again) != 1 || o.Again[0] != r {
		v.Overwritten++
		v.problem("%s: task %s: the stored result changed during the quiet period: %+v then %+v", sid, r.Task, r, o.Again)
	}
}

// outcomeName is the state, or the error code, of a stored outcome.
func outcomeName(r Stored) string {
	if r.Code != "" {
		return r.Code
	}
	name := strings.ToLower(strings.TrimPrefix(r.State, "TASK_STATE_"))
	if r.Late {
		name += "_late"
	}
	return name
}

// mismatch says how the stored result differs from the notification that
// announced it, or "" when it does not.
func mismatch(r Stored, n Note) string {
	if n.State != r.State {
		return fmt.Sprintf("stored state %s, notified %s", r.State, n.State)
	}
	if p := preview(r.Text); !strings.Contains(n.Content, p) {
		return fmt.Sprintf("stored %q, notified %q", p, n.Content)
	}
	return ""
}

// wrongAnswer says how a completed result differs from what the handler
// produced on its successful run, or "" when it does not.
func wrongAnswer(r Stored, e Entry, produced []string) string {
	if r.Code != "" {
		if e.Expect == ExpectFail && r.Code != "EXECUTION_FAILED" && r.Code != "TIMEOUT" {
			return "failed with " + r.Code + ", want EXECUTION_FAILED"
		}
		return ""
	}
	if e.Expect == ExpectFail {
		return "completed a task whose handler always fails: " + r.Text
	}
	if e.Skill == SkillRandom {
		if !slices.Contains(produced, r.Text) {
			return fmt.Sprintf("stored %q, not one of the %d answers the handler produced", r.Text, len(produced))
		}
		return ""
	}
	if want := Answer(e.Skill, e.Text); r.Text != want {
		return fmt.Sprintf("stored %q, the handler answers %q", r.Text, want)
	}
	return ""
}

// Answer is what the deterministic skills answer to text (nested answers
// with its sub-call's fast answer).
func Answer(skill, text string) string {
	switch skill {
	case SkillNested:
		return "fast " + text
	}
	return skill + " " + text
}

// previewRunes is pkg/caller's bound on the preview in a notification turn.
const previewRunes = 200

// preview is how pkg/caller shows a text in a notification turn: its
// preview (redact's, which also drops the space before a cut's ellipsis).
func preview(s string) string { return redact.Default().Preview(s, previewRunes) }
