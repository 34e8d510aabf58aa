// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"testing"
	"time"
)

// BenchmarkCodec measures encoding and decoding of the messages of one call.
func BenchmarkCodec(b *testing.B) {
	now := time.Now()
	req := &TaskRequest{TaskID: "8d4f1c2e-0b5a-4c1e-9f3a-2b7c6d5e4f30", SessionID: "bench-session", Caller: "BenchCaller", Target: "BenchEcho",
		Skill: "echo", Message: NewTextMessage(MessageRoleUser, "the quick brown fox jumps over the lazy dog, twice over"), Deadline: now.Add(30 * time.Second),
		CallChain: []string{"BenchCaller"}, CreatedAt: now}
	res := &TaskResult{TaskID: req.TaskID, Agent: "BenchEcho", State: TaskStateCompleted, Status: StatusSuccess,
		Message: NewTextMessage(MessageRoleAgent, "the quick brown fox jumps over the lazy dog, twice over"), Metadata: ResultMetadata{ProcessingTimeMs: 1, AgentVersion: "bench"}, Time: now}
	var c Codec
	for _, p := range []Payload{req, res} {
		env, err := c.Encode(p, Trace{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run("encode/"+string(p.Kind()), func(b *testing.B) {
			for b.Loop() {
				if _, err := c.Encode(p, Trace{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("decode/"+string(p.Kind()), func(b *testing.B) {
			for b.Loop() {
				if _, err := c.Decode(env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
