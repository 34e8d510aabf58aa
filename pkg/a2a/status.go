// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

// Valid reports whether s is one of the four contract statuses.
func (s ResultStatus) Valid() bool {
	switch s {
	case StatusSuccess, StatusPartial, StatusError, StatusTimeout:
		return true
	}
	return false
}

// State is the A2A task state a result with status s ends in: SUCCESS and
// PARTIAL complete the task, ERROR and TIMEOUT fail it; "" for an unknown status.
func (s ResultStatus) State() TaskState {
	switch s {
	case StatusSuccess, StatusPartial:
		return TaskStateCompleted
	case StatusError, StatusTimeout:
		return TaskStateFailed
	}
	return ""
}

// StatusFor derives the contract status of a terminal outcome that carries
// none (a task.error, or a result from a peer that omits it): TIMEOUT when
// the code is TIMEOUT or EXPIRED_IN_QUEUE, SUCCESS for a completed task, ERROR for any other
// terminal state (failed, rejected, canceled); "" while the task is not over.
func StatusFor(state TaskState, code ErrorCode) ResultStatus {
	switch {
	case !validState(state) || !state.Terminal():
		return ""
	case code.TimedOut():
		return StatusTimeout
	case state == TaskStateCompleted && code == "":
		return StatusSuccess
	}
	return StatusError
}
