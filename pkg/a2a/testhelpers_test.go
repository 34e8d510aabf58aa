// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"
	"time"
)

var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func testCodec() Codec {
	n := 0
	return Codec{
		Now:   func() time.Time { return testNow },
		NewID: func() string { n++; return "msg-" + string(rune('a'+n%26)) },
	}
}

func sampleRequest() *TaskRequest {
	return &TaskRequest{
		TaskID:        "t-1",
		ContextID:     "ctx-1",
		SessionID:     "sess-1",
		Caller:        "Primary",
		Target:        "ResearchAgent",
		Skill:         "research",
		Message:       NewTextMessage(MessageRoleUser, "find the NPV rule"),
		Input:         json.RawMessage(`{"q":"npv"}`),
		Priority:      PriorityHigh,
		Deadline:      testNow.Add(30 * time.Second),
		CorrelationID: "wf-9",
		Handoff:       json.RawMessage(`{"note":"from A"}`),
		CallChain:     []string{"Origin", "Primary"},
		CreatedAt:     testNow,
	}
}

func samplePayloads() []Payload {
	progress := 0.5
	return []Payload{
		sampleRequest(),
		&TaskStatus{TaskID: "t-1", Agent: "ResearchAgent", State: TaskStateWorking, Message: NewTextMessage(MessageRoleAgent, "searching"), Progress: &progress, Time: testNow},
		&TaskResult{TaskID: "t-1", Agent: "ResearchAgent", State: TaskStateCompleted, Status: StatusSuccess,
			Message:    NewTextMessage(MessageRoleAgent, "done"),
			Artifacts:  []*Artifact{{ID: "a1", Name: "passages", Parts: []*Part{NewTextPart("p1"), NewDataPart(map[string]any{"score": 0.9})}}},
			Confidence: ConfidenceHigh, Warnings: []string{"partial index"},
			Metadata: ResultMetadata{ProcessingTimeMs: 12, AgentVersion: "1.0", TokensUsed: 42}, Time: testNow},
		&TaskError{TaskID: "t-1", Agent: "ResearchAgent", State: TaskStateFailed, Code: CodeExecutionFailed, Message: "boom", Retryable: false, Time: testNow},
		&TaskCancel{TaskID: "t-1", Caller: "Primary", Target: "ResearchAgent", Reason: "user", Time: testNow},
		&Announcement{Card: &AgentCard{Name: "ResearchAgent", Version: "1.0", Skills: []AgentSkill{{ID: "research", Name: "Research"}}}, InstanceID: "i-1", Time: testNow},
		&DiscoveryQuery{From: "Primary", Time: testNow},
	}
}
