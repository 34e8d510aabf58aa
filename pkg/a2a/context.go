// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import "context"

// taskKey is the context key of the task a handler is running.
type taskKey struct{}

type taskInContext struct {
	req   *TaskRequest
	trace Trace
}

// WithTask returns ctx carrying the task a handler runs, so that calls it
// makes inherit the task's session, correlation id, call chain, deadline and
// trace without passing them by hand.
func WithTask(ctx context.Context, req *TaskRequest, trace Trace) context.Context {
	return context.WithValue(ctx, taskKey{}, taskInContext{req: req, trace: trace})
}

// TaskFromContext returns the task ctx carries (see WithTask).
func TaskFromContext(ctx context.Context) (*TaskRequest, Trace, bool) {
	t, ok := ctx.Value(taskKey{}).(taskInContext)
	return t.req, t.trace, ok && t.req != nil
}

// DefaultMaxDepth is the longest call chain (origin included) a call may extend.
const DefaultMaxDepth = 5

// CheckChain refuses a call from caller to target that would close a cycle
// (target already in chain, or caller calling itself: CYCLE_DETECTED) or
// make the chain longer than maxDepth agents (DEPTH_EXCEEDED). chain runs
// from the origin to caller, caller included.
func CheckChain(chain []string, caller, target string, maxDepth int) *Error {
	if SameAgent(caller, target) {
		return NewError(CodeCycleDetected, "agent %q may not call itself", caller)
	}
	for i, name := range chain {
		if SameAgent(name, target) {
			path := append(append([]string(nil), chain[i:]...), target)
			return NewError(CodeCycleDetected, "calling %s would close a cycle: %s", target, joinChain(path))
		}
	}
	if maxDepth > 0 && len(chain) >= maxDepth {
		return NewError(CodeDepthExceeded, "the call chain %s already has %d agents, the limit is %d", joinChain(chain), len(chain), maxDepth)
	}
	return nil
}

func joinChain(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += " -> "
		}
		out += n
	}
	return out
}
