// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// queues fills in the stuck and dead-lettered messages, once every process stopped.
func (r *runner) queues(ctx context.Context, sum *Summary, faults map[FaultKind]int, snap *Snapshot, counted map[string]bool) {
	if r.broker == nil {
		return // on the shared broker the queues are not the soak's alone to count
	}
	depths, err := r.broker.QueueDepths(ctx)
	if err != nil {
		sum.Problems = append(sum.Problems, "queue depths: "+err.Error())
	} else {
		sum.Stuck = r.stuck(depths)
		for q, d := range depths {
			if d > 0 && sum.Stuck > 0 && !strings.HasSuffix(q, ".dead") {
				sum.Problems = append(sum.Problems, fmt.Sprintf("stuck: %s holds %d", q, d))
			}
		}
	}
	dead, err := readDeadLetters(ctx, r.o.AMQPURL, a2a.DeadLetterQueue("soak-"+r.run))
	if err != nil {
		sum.Problems = append(sum.Problems, "dead letters: "+err.Error())
		return
	}
	sum.DeadLettered = len(dead)
	ranRefused(sum, snap, dead, counted)
	for _, d := range dead {
		sum.DeadReasons[d.Reason+" "+d.Type]++
		if !d.explained(faults) {
			sum.DeadUnexplained++
			if len(sum.Problems) < 2*maxProblems {
				sum.Problems = append(sum.Problems, fmt.Sprintf("unexplained dead letter: %s of task %s from %s (%s)", d.Type, d.Task, d.Queue, d.Reason))
			}
		}
	}
}

// refusedTask finds the task id in a refusal's message ("publish task <id> …").
var refusedTask = regexp.MustCompile(`task ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

// ranRefused counts the refused tasks that ran all the same: a response
// to them was dead-lettered (the caller had forgotten the task it reported
// as not sent). Sessions in counted were counted already (an outcome was stored).
func ranRefused(sum *Summary, snap *Snapshot, dead []DeadLetter, counted map[string]bool) {
	deadTasks := map[string]int{}
	for _, d := range dead {
		if strings.HasPrefix(d.Type, "task.") && d.Type != string(a2a.KindTaskRequest) {
			deadTasks[d.Task]++
		}
	}
	sids := make([]string, 0, len(snap.Refused))
	for sid := range snap.Refused {
		sids = append(sids, sid)
	}
	sort.Strings(sids)
	for _, sid := range sids {
		m := refusedTask.FindStringSubmatch(snap.Refused[sid])
		if m == nil || deadTasks[m[1]] == 0 || counted[sid] {
			continue
		}
		sum.RefusedRan++
		sum.Refused--
		if len(sum.Problems) < 2*maxProblems {
			sum.Problems = append(sum.Problems, fmt.Sprintf("%s: refused (%s) yet task %s ran: %d responses dead-lettered", sid, snap.Refused[sid], m[1], deadTasks[m[1]]))
		}
	}
}
