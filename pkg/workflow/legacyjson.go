// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import "github.com/a2abus/a2abus/memory"

// Values written before the project's JSON became camelCase spell some
// names in snake_case ("task_id", "session_id", "step_session"): a run's
// state lives StateTTL, a report as long as the result that holds it, a
// handoff as long as its request waits in a queue. These types decode
// either spelling (memory.UnmarshalLegacyJSON) and write only camelCase.

// UnmarshalJSON decodes an Output, also from its snake_case form.
func (o *Output) UnmarshalJSON(b []byte) error {
	type plain Output
	return memory.UnmarshalLegacyJSON(b, (*plain)(o))
}

// UnmarshalJSON decodes an Attempt, also from its snake_case form.
func (a *Attempt) UnmarshalJSON(b []byte) error {
	type plain Attempt
	return memory.UnmarshalLegacyJSON(b, (*plain)(a))
}

// UnmarshalJSON decodes a RunState, also from its snake_case form.
func (r *RunState) UnmarshalJSON(b []byte) error {
	type plain RunState
	return memory.UnmarshalLegacyJSON(b, (*plain)(r))
}

// UnmarshalJSON decodes a Report, also from its snake_case form.
func (r *Report) UnmarshalJSON(b []byte) error {
	type plain Report
	return memory.UnmarshalLegacyJSON(b, (*plain)(r))
}

// UnmarshalJSON decodes a StepReport, also from its snake_case form.
func (s *StepReport) UnmarshalJSON(b []byte) error {
	type plain StepReport
	return memory.UnmarshalLegacyJSON(b, (*plain)(s))
}

// UnmarshalJSON decodes a Handoff, also from its snake_case form.
func (h *Handoff) UnmarshalJSON(b []byte) error {
	type plain Handoff
	return memory.UnmarshalLegacyJSON(b, (*plain)(h))
}
