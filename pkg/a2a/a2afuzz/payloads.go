// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2afuzz

import (
	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Request is a task request with every field: messages, raw input and
// handoff, times, maybe a caller context, and the nested-calls choice
// unset, true or false.
func (g *Gen) Request() *a2a.TaskRequest {
	r := &a2a.TaskRequest{TaskID: g.Str(), ContextID: g.Str(), SessionID: g.Str(), Caller: g.Str(), Target: g.Str(), Skill: g.Str(),
		Message: g.Message(), Input: g.Raw(), Priority: a2a.Priority(g.Str()), Deadline: g.Time(), StartBy: g.Time(),
		CorrelationID: g.Str(), Handoff: g.Raw(), CallChain: g.Strs(), Stream: g.N(2) == 1, CreatedAt: g.Time(),
		Turn: g.N(5) - 1, History: g.Messages(), ContextHistory: g.Messages(), AllowedTools: g.Strs(), MaxContextTokens: g.N(3) * 500}
	if k := g.N(3); k > 0 {
		b := k == 1
		r.AllowNestedCalls = &b
	}
	r.CallerContext = g.CallerContext()
	return r
}

// CallerContext is nil two times in three, else a caller context with up
// to two messages.
func (g *Gen) CallerContext() *a2a.CallerContext {
	if g.N(3) != 0 {
		return nil
	}
	c := &a2a.CallerContext{Key: g.Str(), Count: g.N(4)}
	for range g.N(3) {
		c.Messages = append(c.Messages, a2a.ContextMessage{Role: g.Str(), Text: g.Str(), Time: g.Time()})
	}
	return c
}

// Result is a task result with every field: any state (unknown and
// unspecified ones included), maybe artifacts, metadata, maybe a question.
func (g *Gen) Result() *a2a.TaskResult {
	r := &a2a.TaskResult{TaskID: g.Str(), Agent: g.Str(), State: a2a.TaskState(g.Str()), Status: a2a.ResultStatus(g.Str()), Message: g.Message(),
		Confidence: a2a.Confidence(g.Str()), Warnings: g.Strs(), Time: g.Time(), Turn: g.N(3), Attempt: g.N(3),
		Metadata: a2a.ResultMetadata{ProcessingTimeMs: int64(g.U64() >> g.N(64)), AgentVersion: g.Str(), TokensUsed: -int64(g.N(3)), Extra: g.Meta(0)}}
	if g.N(3) == 0 {
		r.State = spec.TaskStateUnspecified
	}
	if g.N(2) == 0 {
		for range g.N(4) {
			r.Artifacts = append(r.Artifacts, g.Artifact())
		}
	}
	r.Question = g.Question()
	return r
}

// Artifact is nil one time in five, else an artifact with every field.
func (g *Gen) Artifact() *a2a.Artifact {
	if g.N(5) == 0 {
		return nil
	}
	return &a2a.Artifact{ID: spec.ArtifactID(g.Str()), Description: g.Str(), Extensions: g.Strs(), Metadata: g.Meta(0), Name: g.Str(), Parts: g.Parts()}
}

// Question is nil two times in three, else a question with raw input
// schema, up to two options (or an empty list), maybe an auth need.
func (g *Gen) Question() *a2a.Question {
	if g.N(3) != 0 {
		return nil
	}
	q := &a2a.Question{Text: g.Str(), InputSchema: g.Raw()}
	for range g.N(3) {
		q.Options = append(q.Options, a2a.Option{ID: g.Str(), Label: g.Str(), Description: g.Str()})
	}
	if g.N(2) == 0 {
		q.Options = []a2a.Option{}
	}
	if g.N(2) == 0 {
		q.Auth = &a2a.AuthNeed{Scheme: g.Str(), Resource: g.Str(), Scopes: g.Strs(), URL: g.Str()}
	}
	return q
}
