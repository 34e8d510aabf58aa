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
		sampleTurnRequest(),
		sampleQuestion(),
		&TaskResult{TaskID: "t-1", Agent: "ResearchAgent", State: TaskStateAuthRequired, Time: testNow, Turn: 1, Attempt: 2,
			Question: &Question{Text: "sign in to the wiki", Auth: &AuthNeed{Scheme: "oauth2", Resource: "wiki.example.com", Scopes: []string{"read"}, URL: "https://wiki.example.com/auth"}}},
		&TaskError{TaskID: "t-1", Agent: "ResearchAgent", State: TaskStateCanceled, Code: CodeCanceled, Message: "canceled", Time: testNow, Turn: 2, Attempt: 3},
	}
}

// sampleTurnRequest is the third turn of a task: the caller's second answer.
func sampleTurnRequest() *TaskRequest {
	r := sampleRequest()
	r.Turn = 2
	r.Message = NewTextMessage(MessageRoleUser, "the second one")
	r.History = []*Message{NewTextMessage(MessageRoleUser, "find the NPV rule"), NewTextMessage(MessageRoleAgent, "which book?"),
		NewTextMessage(MessageRoleUser, "finance 101"), NewTextMessage(MessageRoleAgent, "which edition?")}
	r.ContextHistory = []*Message{NewTextMessage(MessageRoleUser, "hello"), NewTextMessage(MessageRoleAgent, "hi")}
	r.CallerContext = &CallerContext{Count: 2, Messages: []ContextMessage{{Role: "user", Text: "keep it short", Time: testNow},
		{Role: "notification", Text: "SampleAgent answered"}}}
	r.AllowedTools, r.MaxContextTokens = []string{}, 800
	return r
}

// sampleQuestion is a turn ending with a question: options and an input schema.
func sampleQuestion() *TaskResult {
	return &TaskResult{TaskID: "t-1", Agent: "ResearchAgent", State: TaskStateInputRequired, Turn: 1,
		Message: NewTextMessage(MessageRoleAgent, "which edition?"), Time: testNow,
		Question: &Question{Text: "which edition?", Options: []Option{{ID: "1", Label: "First"}, {ID: "2", Label: "Second", Description: "2019"}},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"edition":{"type":"integer"}}}`)}}
}
