// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"fmt"
	"slices"
	"strings"
)

// Summary is the one JSON line a run prints.
type Summary struct {
	Tasks       int `json:"tasks"`
	Lost        int `json:"lost"`
	Duplicated  int `json:"duplicated"`
	Overwritten int `json:"overwritten"`
	// Stuck is the messages left in task and response queues after the drain.
	Stuck int `json:"stuck"`
	// DeadLettered is the messages in the dead-letter queue; DeadUnexplained
	// those the fault plan does not account for.
	DeadLettered    int            `json:"deadLettered"`
	DeadUnexplained int            `json:"deadUnexplained"`
	DeadReasons     map[string]int `json:"deadReasons"`
	// Faults counts the faults injected, by kind.
	Faults map[FaultKind]int `json:"faults"`
	// FaultsPlanned is the faults the run's plan held (those planned past
	// the end of the load are not injected, FaultsUnreached; and are no
	// failure as long as each kind planned was injected).
	FaultsPlanned int `json:"faultsPlanned"`
	// FaultsPlannedByKind is FaultsPlanned by kind, beside Faults: a kind
	// planned and never injected fails the run (MissedKinds).
	FaultsPlannedByKind map[FaultKind]int `json:"faultsPlannedByKind"`
	// FaultsUnreached counts the planned faults not begun when the load ended.
	FaultsUnreached int `json:"faultsUnreached"`
	// FaultFailures counts the planned faults that could not be injected.
	FaultFailures int `json:"faultFailures"`
	// Abandoned: ledger tasks whose caller was killed before it published them (nothing ran).
	Abandoned int `json:"abandoned"`
	// Refused: tasks whose Invoke or Call failed loudly before publishing.
	Refused int `json:"refused"`
	// RefusedRan: tasks reported as not sent that ran anyway.
	RefusedRan int `json:"refusedRan"`
	// Crashes counts the child processes that exited on their own with an error.
	Crashes int `json:"crashes"`
	// Outcomes counts the final outcomes by state or error code.
	Outcomes map[string]int `json:"outcomes"`
	// Throughput is the final outcomes stored per second of load.
	Throughput float64 `json:"throughputPerSecond"`
	LoadSecs   float64 `json:"loadSeconds"`
	TotalSecs  float64 `json:"totalSeconds"`
	Seed       uint64  `json:"seed"`
	Agents     int     `json:"agents"`
	Callers    int     `json:"callers"`
	// Servers is "private" (the soak's own broker and Redis) or "shared".
	Servers string `json:"servers"`
	// Interrupted: the run was stopped (SIGINT, SIGTERM) during its load;
	// Tasks is then the tasks issued, and nothing was checked.
	Interrupted bool `json:"interrupted,omitempty"`
	// Problems lists the first problems found, for a human.
	Problems []string `json:"problems,omitempty"`
	// FailedBecause is FailReasons when the line is printed: why the run
	// failed, empty when it passed.
	FailedBecause []string `json:"failedBecause,omitempty"`
}

// MissedKinds lists, sorted, the fault kinds the plan held that were never
// injected (FaultsPlannedByKind against Faults).
func (s *Summary) MissedKinds() []FaultKind {
	var missed []FaultKind
	for k, n := range s.FaultsPlannedByKind {
		if n > 0 && s.Faults[k] == 0 {
			missed = append(missed, k)
		}
	}
	slices.Sort(missed)
	return missed
}

// MaxUnsentShare is the share of the tasks that may end refused (Invoke
// or Call failed loudly, nothing sent) or abandoned (their caller killed
// before it published) before the run fails: faults make some, but a run
// that sent few of its tasks tested little.
const MaxUnsentShare = 0.10

// Failed reports whether the run failed: FailReasons has something to say.
func (s *Summary) Failed() bool { return len(s.FailReasons()) > 0 }

// FailReasons says why the run failed, one reason a line: an interrupted
// run (nothing checked), a loss or an
// inconsistency found, or a run that did not test what it was asked to —
// a planned fault that could not be injected, faults planned and none
// injected, a kind planned and none of its faults injected, no task at
// all, or more than MaxUnsentShare of the tasks refused or abandoned.
func (s *Summary) FailReasons() []string {
	var why []string
	if s.Interrupted {
		why = append(why, "interrupted before the check")
	}
	for _, c := range []struct {
		n    int
		what string
	}{
		{s.Lost, "lost"}, {s.Duplicated, "duplicated"}, {s.Overwritten, "overwritten"}, {s.Stuck, "stuck in a queue"},
		{s.DeadUnexplained, "dead-lettered unexplained"}, {s.RefusedRan, "refused yet ran"},
		{s.FaultFailures, "planned faults not injected"},
	} {
		if c.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	injected := 0
	for _, n := range s.Faults {
		injected += n
	}
	if missed := s.MissedKinds(); s.FaultsPlanned > 0 && injected == 0 {
		why = append(why, fmt.Sprintf("none of the %d planned faults was injected", s.FaultsPlanned))
	} else if len(missed) > 0 {
		var each []string
		for _, k := range missed {
			each = append(each, fmt.Sprintf("%s (%d planned)", k, s.FaultsPlannedByKind[k]))
		}
		why = append(why, "fault kinds planned and never injected: "+strings.Join(each, ", "))
	}
	switch unsent := s.Refused + s.Abandoned; {
	case s.Tasks == 0:
		why = append(why, "no task was run")
	case float64(unsent) > MaxUnsentShare*float64(s.Tasks):
		why = append(why, fmt.Sprintf("%d of %d tasks refused or abandoned, over %.0f%%", unsent, s.Tasks, 100*MaxUnsentShare))
	}
	return why
}
