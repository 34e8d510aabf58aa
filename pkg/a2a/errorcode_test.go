// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"os"
	"strings"
	"testing"
)

// knownCodes are the codes a2abus produces, in the order of the docs' table.
var knownCodes = []ErrorCode{
	CodeAgentNotFound, CodeSkillNotSupported, CodeInvalidInput, CodeExecutionFailed, CodeTimeout,
	CodeExpiredInQueue, CodeCanceled, CodeCycleDetected, CodeDepthExceeded, CodeForbidden, CodeRateLimited, CodeBusy,
	CodeCircuitOpen, CodeUnavailable, CodeInternal, CodeResultTooLarge, CodeTaskFinished, CodeInvalidState, CodeInputRequired,
}

// The retry rule per code, decided once.
func TestRetryRulePerCode(t *testing.T) {
	want := map[ErrorCode]Retry{
		CodeAgentNotFound: RetryNever, CodeSkillNotSupported: RetryNever, CodeInvalidInput: RetryNever,
		CodeCanceled: RetryNever, CodeCycleDetected: RetryNever, CodeDepthExceeded: RetryNever,
		CodeForbidden: RetryNever, CodeResultTooLarge: RetryNever,
		CodeTaskFinished: RetryNever, CodeInvalidState: RetryNever, CodeInputRequired: RetryNever,
		CodeTimeout: RetryLater, CodeExpiredInQueue: RetryLater, CodeRateLimited: RetryLater, CodeBusy: RetryLater,
		CodeCircuitOpen: RetryLater, CodeUnavailable: RetryLater,
		CodeExecutionFailed: RetrySenderKnows, CodeInternal: RetrySenderKnows, "SOMETHING_NEWER": RetrySenderKnows,
	}
	for code, r := range want {
		if got := code.Retry(); got != r {
			t.Errorf("%s.Retry() = %s, want %s", code, got, r)
		}
		if got := code.DefaultRetryable(); got != (r == RetryLater) {
			t.Errorf("%s.DefaultRetryable() = %v, want %v", code, got, r == RetryLater)
		}
	}
	if len(want) != len(knownCodes)+1 {
		t.Errorf("the table has %d codes, a2abus knows %d (+1 unknown)", len(want), len(knownCodes))
	}
}

// ShouldRetry: the code decides for never and later, whatever the flag;
// for the others the flag, unless the loop retries failed work.
func TestShouldRetry(t *testing.T) {
	for _, tc := range []struct {
		code      ErrorCode
		flag      bool
		follow    bool // under FollowSender
		failedWrk bool // under RetryFailedWork
	}{
		{CodeInvalidInput, false, false, false},
		{CodeInvalidInput, true, false, false}, // a sender's flag cannot make a wrong call right
		{CodeResultTooLarge, true, false, false},
		{CodeTimeout, false, true, true},
		{CodeBusy, true, true, true},
		{CodeExecutionFailed, false, false, true},
		{CodeExecutionFailed, true, true, true},
		{CodeInternal, false, false, true},
		{"SOMETHING_NEWER", false, false, true},
		{"SOMETHING_NEWER", true, true, true},
	} {
		e := &Error{Code: tc.code, Retryable: tc.flag}
		if got := e.ShouldRetry(FollowSender); got != tc.follow {
			t.Errorf("%s (retryable %v).ShouldRetry(FollowSender) = %v, want %v", tc.code, tc.flag, got, tc.follow)
		}
		if got := e.ShouldRetry(RetryFailedWork); got != tc.failedWrk {
			t.Errorf("%s (retryable %v).ShouldRetry(RetryFailedWork) = %v, want %v", tc.code, tc.flag, got, tc.failedWrk)
		}
	}
}

// docs/wire-protocol.md's table of error codes states each code's retry
// rule and default retryable flag as the code does.
func TestErrorCodeTableMatchesTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/wire-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[ErrorCode][]string{}
	for line := range strings.SplitSeq(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		code := ErrorCode(strings.Trim(strings.TrimSpace(cells[0]), "`"))
		if code.Valid() && len(cells) == 5 {
			rows[code] = cells
		}
	}
	for _, code := range knownCodes {
		cells, ok := rows[code]
		if !ok {
			t.Errorf("%s is missing from the error code table of docs/wire-protocol.md", code)
			continue
		}
		if got := strings.TrimSpace(cells[2]); got != code.Retry().String() {
			t.Errorf("docs: %s retries %q, the code says %q", code, got, code.Retry())
		}
		if got, want := strings.TrimSpace(cells[3]), map[bool]string{true: "true", false: "false"}[code.DefaultRetryable()]; got != want {
			t.Errorf("docs: %s's default retryable is %q, the code says %q", code, got, want)
		}
	}
	if len(rows) != len(knownCodes) {
		t.Errorf("the docs' table has %d codes, a2abus knows %d", len(rows), len(knownCodes))
	}
}
