// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

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
	// Problems lists the first problems found, for a human.
	Problems []string `json:"problems,omitempty"`
}

// Failed reports whether the run found a loss or an inconsistency.
func (s *Summary) Failed() bool {
	return s.Lost+s.Duplicated+s.Overwritten+s.Stuck+s.DeadUnexplained+s.RefusedRan > 0
}
