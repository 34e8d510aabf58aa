// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package workflow runs multi-agent workflows on the bus: a
// workflow (YAML, see Parse, or built in Go) is a sequence of steps and
// parallel groups (wait for all, or for a quorum); each step names an
// agent, a skill, a templated text and input (see Templates in
// template.go: ${input…}, ${request}, ${steps.<id>…}), a timeout, retries,
// and whether it is optional.
//
// An Engine runs workflows through one pkg/caller Caller. Every step's task
// request carries the contract's handoff context in ONE place — the request's
// handoff field (a2a.TaskRequest.Handoff), a JSON Handoff: session and user
// id, original request, "Step 3 of 5 (Financial Analysis)", prior agents
// and their outputs, constraints. The engine builds it from the run's state
// for every step; agents read it with HandoffOf.
//
// The outcome is a Report: SUCCESS when every required step succeeded;
// PARTIAL, with warnings naming what failed or timed out, when only optional
// steps (or quorum members) did, the results kept; ERROR naming the failed
// step otherwise. Steps are reported in workflow order with their own
// confidence, and data fields on which steps disagree are listed as
// Conflicts.
//
// State is durable in working memory (keys workflow/<run>/…): each
// attempt's intent is recorded before its task is invoked and its task id
// right after, each outcome as it lands. A killed engine, restarted,
// resumes a run with Execute or Resume and the same run id: no step whose
// result landed runs again, a task in flight is waited for, not invoked
// again, and no step is lost. A lease (LeaseTTL) keeps two engines from
// driving one run at once.
package workflow
