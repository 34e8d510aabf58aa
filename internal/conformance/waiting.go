// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Waiting is not running (wire-protocol.md, "Waiting and running"): a
// request with startBy may wait that long to be taken, then runs for
// deadline - startBy.

// expiredInQueue sends a first delivery past its startBy (its deadline
// still ahead): no agent took it in time, so it is EXPIRED_IN_QUEUE, not run.
func (k *kit) expiredInQueue(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	now := time.Now().UTC()
	req.StartBy, req.Deadline = now.Add(-time.Second), now.Add(time.Minute) // sent without an expiration, so it reaches the agent
	return k.refused(ctx, req, a2a.CodeExpiredInQueue, nil)
}

// takeNotice sends an unstreamed request with startBy: the agent tells the
// caller it took it (one working task.status before the answer), and runs
// it.
func (k *kit) takeNotice(ctx context.Context) (Outcome, string) {
	req := k.newRequest(k.o.Skill, k.o.Input)
	now := time.Now().UTC()
	req.StartBy = now.Add(k.o.Timeout)
	req.Deadline = req.StartBy.Add(k.o.Timeout)
	if _, err := k.sendRequest(ctx, req, nil); err != nil {
		return Fail, err.Error()
	}
	final, all, ok := k.final(ctx, req.TaskID)
	if !ok {
		return Fail, fmt.Sprintf("no answer within %s", k.o.Timeout)
	}
	if final.d.Type != string(a2a.KindTaskResult) {
		return Fail, fmt.Sprintf("got a %s, want the task.result of --skill", final.d.Type)
	}
	for _, r := range all {
		if isFinal(r) {
			break
		}
		if r.d.Type != string(a2a.KindTaskStatus) {
			continue
		}
		p, err := decode(r.d)
		if err != nil {
			return Fail, fmt.Sprintf("a task.status does not decode: %v", err)
		}
		if st := p.(*a2a.TaskStatus); st.State == a2a.TaskStateWorking {
			return Pass, "a working task.status, then the result"
		}
	}
	return Fail, "no working task.status before the result of a request with startBy (the take notice)"
}
