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
	CodeCanceled          ErrorCode = "CANCELED"
	CodeCycleDetected     ErrorCode = "CYCLE_DETECTED"
	CodeDepthExceeded     ErrorCode = "DEPTH_EXCEEDED"
	CodeForbidden         ErrorCode = "FORBIDDEN"
	CodeRateLimited       ErrorCode = "RATE_LIMITED"
	CodeBusy              ErrorCode = "BUSY"
	CodeCircuitOpen       ErrorCode = "CIRCUIT_OPEN"
	CodeUnavailable       ErrorCode = "UNAVAILABLE"
	CodeInternal          ErrorCode = "INTERNAL"
	// CodeResultTooLarge: the skill's result exceeds the bus's message size
	// limit, so it can never be delivered; not retryable.
	CodeResultTooLarge ErrorCode = "RESULT_TOO_LARGE"
)

// Valid reports whether c is well formed (upper case, digits and '_').
func (c ErrorCode) Valid() bool { return errorCodePattern.match(string(c)) }

// DefaultRetryable reports whether a failure with this code is worth retrying by default.
func (c ErrorCode) DefaultRetryable() bool {
	switch c {
	case CodeTimeout, CodeRateLimited, CodeBusy, CodeCircuitOpen, CodeUnavailable:
		return true
	}
	return false
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
