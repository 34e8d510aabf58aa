// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"errors"
	"fmt"
)

// ErrorCode is a stable upper-case code carried by task.error messages.
type ErrorCode string

// The error codes a2abus produces. Other well-formed codes may arrive from
// newer peers and are passed through.
const (
	CodeAgentNotFound     ErrorCode = "AGENT_NOT_FOUND"
	CodeSkillNotSupported ErrorCode = "SKILL_NOT_SUPPORTED"
	CodeInvalidInput      ErrorCode = "INVALID_INPUT"
	CodeExecutionFailed   ErrorCode = "EXECUTION_FAILED"
	CodeTimeout           ErrorCode = "TIMEOUT"
	// CodeExpiredInQueue: no agent took the task from its queue within its
	// wait bound (the request's startBy); it never ran. Retry later (the
	// agent may be starting); its contract status is TIMEOUT.
	CodeExpiredInQueue ErrorCode = "EXPIRED_IN_QUEUE"
	CodeCanceled       ErrorCode = "CANCELED"
	CodeCycleDetected  ErrorCode = "CYCLE_DETECTED"
	CodeDepthExceeded  ErrorCode = "DEPTH_EXCEEDED"
	CodeForbidden      ErrorCode = "FORBIDDEN"
	CodeRateLimited    ErrorCode = "RATE_LIMITED"
	CodeBusy           ErrorCode = "BUSY"
	CodeCircuitOpen    ErrorCode = "CIRCUIT_OPEN"
	CodeUnavailable    ErrorCode = "UNAVAILABLE"
	CodeInternal       ErrorCode = "INTERNAL"
	// CodeResultTooLarge: the skill's result exceeds the bus's message size
	// limit, so it can never be delivered; not retryable.
	CodeResultTooLarge ErrorCode = "RESULT_TOO_LARGE"
	// CodeTaskFinished: an answer (a follow-up message) was sent to a task
	// that has already ended; never sent on the bus (the caller refuses it).
	CodeTaskFinished ErrorCode = "TASK_FINISHED"
	// CodeInvalidState: an answer was sent to a task that does not wait for
	// one (it is running, or this question was already answered); never
	// sent on the bus.
	CodeInvalidState ErrorCode = "INVALID_STATE"
	// CodeInputRequired: the task waits for its caller's answer to a
	// question (or for authentication): not a failure of the task but the
	// end of a turn, reported by an outcome's Err so that code which
	// expects a final answer does not take the question for one.
	CodeInputRequired ErrorCode = "INPUT_REQUIRED"
)

// TimedOut reports whether c says a bound passed with no answer: TIMEOUT
// (the run, or the one deadline of an older request) or EXPIRED_IN_QUEUE
// (the wait to be taken). Both have the contract status TIMEOUT.
func (c ErrorCode) TimedOut() bool { return c == CodeTimeout || c == CodeExpiredInQueue }

// Valid reports whether c is well formed (upper case, digits and '_').
func (c ErrorCode) Valid() bool { return errorCodePattern.match(string(c)) }

// Retry is an error code's answer to "may the same call pass if it is made
// again?": the one rule every retry loop of a2abus follows (see
// ErrorCode.Retry and Error.ShouldRetry).
type Retry uint8

const (
	// RetryNever: the same call fails the same way. Its input, address,
	// permission or call chain is wrong, it was canceled, or its result can
	// never be delivered. No loop tries it again, whatever the error's
	// retryable flag says.
	RetryNever Retry = iota
	// RetryLater: a passing condition (a deadline, load, a limit, an open
	// circuit, an outage). The call may pass after a wait; every loop tries
	// it again.
	RetryLater
	// RetrySenderKnows: the work itself failed, or the code is one this
	// version does not know. Only the sender knows whether another attempt
	// can pass, and says so in the error's retryable flag; a loop with its
	// own, explicit bound on attempts may try anyway (RetryFailedWork).
	RetrySenderKnows
)

// String names r as the docs do.
func (r Retry) String() string {
	switch r {
	case RetryNever:
		return "never"
	case RetryLater:
		return "later"
	case RetrySenderKnows:
		return "sender knows"
	}
	return fmt.Sprintf("Retry(%d)", uint8(r))
}

// Retry is this code's retry rule; docs/wire-protocol.md has the table.
func (c ErrorCode) Retry() Retry {
	switch c {
	case CodeTimeout, CodeExpiredInQueue, CodeRateLimited, CodeBusy, CodeCircuitOpen, CodeUnavailable:
		return RetryLater
	case CodeAgentNotFound, CodeSkillNotSupported, CodeInvalidInput, CodeCanceled, CodeCycleDetected,
		CodeDepthExceeded, CodeForbidden, CodeResultTooLarge, CodeTaskFinished, CodeInvalidState, CodeInputRequired:
		return RetryNever
	}
	return RetrySenderKnows // EXECUTION_FAILED, INTERNAL, and codes of newer peers
}

// DefaultRetryable is the retryable flag of an error with this code when
// its sender does not choose: true for the RetryLater codes.
func (c ErrorCode) DefaultRetryable() bool { return c.Retry() == RetryLater }

// RetryPolicy is how a retry loop treats a failure whose code leaves the
// choice to its sender (RetrySenderKnows). The codes that say never or
// later mean the same to every loop.
type RetryPolicy uint8

const (
	// FollowSender tries such a failure again only when its error says retryable.
	FollowSender RetryPolicy = iota
	// RetryFailedWork tries it again whatever the flag says: for a loop whose
	// user set an explicit bound on the attempts (a workflow step's
	// retries, a conversation's max_failures).
	RetryFailedWork
)

// ShouldRetry reports whether a retry loop under policy p makes the call
// that failed with e again: never for a RetryNever code, always for a
// RetryLater one, and for the others as e.Retryable and p say.
func (e *Error) ShouldRetry(p RetryPolicy) bool {
	switch e.Code.Retry() {
	case RetryNever:
		return false
	case RetryLater:
		return true
	}
	return e.Retryable || p == RetryFailedWork
}

// Error is a typed failure of a call: a code, a human message and whether a
// retry may succeed. errors.Is matches two *Error values by code. Its JSON
// is camelCase, as everything else a2abus stores or sends ({"code",
// "message", "retryable"}); JSON written before the tags (Go field names)
// still reads, encoding/json matching keys regardless of case.
type Error struct {
	Code      ErrorCode `json:"code"`
	Message   string    `json:"message"`
	Retryable bool      `json:"retryable"`
}

// NewError returns an *Error with the code's default retryability.
func NewError(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: code.DefaultRetryable()}
}

// Error formats the code and the message.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Is matches any *Error with the same code.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// CodeOf returns the code of the first *Error in err's chain, or "" when there is none.
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
