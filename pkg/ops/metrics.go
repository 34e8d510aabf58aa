// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package ops

import (
	"github.com/a2abus/a2abus/pkg/ops/prom"
)

// Namespace prefixes every metric name.
const Namespace = "a2abus"

// durationBuckets are the buckets, in seconds, of the duration histograms:
// from a millisecond (a local echo) to the half hour of the broker's
// consumer_timeout.
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800}

// metrics are the event-driven metrics: counted as tasks and calls happen.
// Gauges read from the parts' state at scrape time are in collector.go. All
// labels are bounded: agent, caller and target names, skills an agent
// has, error codes and outcomes — never task or session ids.
type metrics struct {
	tasksReceived  *prom.CounterVec   // agent, skill
	tasksCompleted *prom.CounterVec   // agent, skill
	tasksFailed    *prom.CounterVec   // agent, skill, code
	tasksRequeued  *prom.CounterVec   // agent, skill
	taskDuration   *prom.HistogramVec // agent, skill
	redelivered    *prom.CounterVec   // agent
	deadLettered   *prom.CounterVec   // agent

	calls         *prom.CounterVec   // caller, target, outcome, code
	callDuration  *prom.HistogramVec // caller, target
	finalized     *prom.CounterVec   // caller
	late          *prom.CounterVec   // caller
	swept         *prom.CounterVec   // caller
	memoryRetries *prom.CounterVec   // caller, op
}

func newMetrics(reg *prom.Registry) (*metrics, error) {
	counter := func(name, help string, labels ...string) *prom.CounterVec {
		return prom.NewCounterVec(Namespace+"_"+name, help, labels...)
	}
	histogram := func(name, help string, labels ...string) *prom.HistogramVec {
		return prom.NewHistogramVec(Namespace+"_"+name, help, durationBuckets, labels...)
	}
	m := &metrics{
		tasksReceived:  counter("tasks_received_total", "Task requests an agent received (skill empty: one it does not have).", "agent", "skill"),
		tasksCompleted: counter("tasks_completed_total", "Tasks an agent answered with a result.", "agent", "skill"),
		tasksFailed:    counter("tasks_failed_total", "Tasks an agent answered with an error, by error code.", "agent", "skill", "code"),
		tasksRequeued:  counter("tasks_requeued_total", "Tasks an agent put back unanswered (shutdown, lost delivery).", "agent", "skill"),
		taskDuration:   histogram("task_duration_seconds", "Time from a task's receipt to its answer, handler included.", "agent", "skill"),
		redelivered:    counter("tasks_redelivered_total", "Task deliveries that were not the first attempt.", "agent"),
		deadLettered:   counter("tasks_dead_lettered_total", "Task requests sent to the dead-letter queue.", "agent"),
		calls:          counter("calls_total", "Calls a caller finished or refused, by outcome (completed, failed, timeout, refused) and error code.", "caller", "target", "outcome", "code"),
		callDuration:   histogram("call_duration_seconds", "Time from a call's invocation to its stored outcome.", "caller", "target"),
		finalized:      counter("results_finalized_total", "Outcomes (results, errors, timeouts) a caller stored.", "caller"),
		late:           counter("results_late_total", "Results that came after their task was timed out and replaced the TIMEOUT.", "caller"),
		swept:          counter("timeouts_swept_total", "Tasks the deadline sweeper timed out.", "caller"),
		memoryRetries:  counter("memory_retries_total", "Working-memory writes of an outcome that failed and were retried.", "caller", "op"),
	}
	for _, c := range []prom.Collector{m.tasksReceived, m.tasksCompleted, m.tasksFailed, m.tasksRequeued, m.taskDuration,
		m.redelivered, m.deadLettered, m.calls, m.callDuration, m.finalized, m.late, m.swept, m.memoryRetries} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
