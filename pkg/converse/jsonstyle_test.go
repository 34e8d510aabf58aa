// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package converse

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// TestConverseJSONIsCamelCase: the record the orchestrator stores and
// prints (converse status --json), the draft request it sends the local
// agent and the control envelope of its calls have camelCase names only.
func TestConverseJSONIsCamelCase(t *testing.T) {
	now := time.Unix(1700000000, 0).UTC()
	c := &Conversation{ID: "cv0123", Spec: Spec{Local: "L", LocalSkill: "draft", Remote: "R", RemoteSkill: "reply", Objective: "o", Mode: SemiAuto,
		Threshold: a2a.ConfidenceHigh, Chain: []string{"O"}, Requester: "me", Consent: true,
		Limits:  Limits{MaxTurns: 3, MaxDuration: time.Minute, MaxFailures: 1, TokenBudget: 9, LocalTimeout: time.Second, RemoteTimeout: time.Second},
		History: History{MaxTurns: 5, MaxChars: 100, MaxOutputChars: 50}},
		Orchestrator: "O", Session: "converse-cv0123", TraceID: "t", State: WaitingRemote, Paused: true, TakenOver: true,
		Pending:     &Pending{Turn: 2, LocalTaskID: "l", Draft: "d", HasDraft: true, Review: "r", How: SentAuto, Attempt: 1, RemoteTaskID: "r", SentAt: now, LocalAt: now},
		Transcript:  []Entry{{Turn: 1, Role: RoleLocal, Text: "hi", TaskID: "t", TokensUsed: 3, How: SentAuto, At: now, DurationMs: 4}},
		FailedSends: []string{"x"}, Exchanges: 1, Failures: 1, TokensUsed: 3, Limit: LimitMaxTurns, Reason: "r", AppliedSeq: 2,
		Events: []Event{{At: now, Turn: 1, Kind: EventState, State: Idle, Text: "x", Limit: LimitMaxTurns}}, CreatedAt: now, UpdatedAt: now, EndedAt: now}
	d := &driver{c: c}
	for _, v := range []any{c, draftRequest(c, 2), json.RawMessage(d.meta(2, 1)),
		&controlMessage{Conversation: c.ID, Seq: 1, Command: Command{Kind: CmdApprove, Text: "t", By: "me"}}} {
		if bad := testenv.NotCamelCaseJSON(v); len(bad) > 0 {
			t.Errorf("%T: %q", v, bad)
		}
	}
}
