// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gatewaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
)

// summary is what client.mjs prints.
type summary struct {
	Card struct {
		Name       string   `json:"name"`
		Skills     []string `json:"skills"`
		Streaming  bool     `json:"streaming"`
		Interfaces []string `json:"interfaces"`
	} `json:"card"`
	Send struct {
		Kind, State, Text, ID string
	} `json:"send"`
	Stream []string `json:"stream"`
	Get    struct {
		ID, State, Text string
	} `json:"get"`
	FollowUp struct {
		Asked, Question, State, Text string
		SameTask                     bool `json:"sameTask"`
	} `json:"followUp"`
	Cancel struct {
		State      string `json:"state"`
		FirstState string `json:"firstState"`
	} `json:"cancel"`
	CancelAgain string `json:"cancelAgain"`
	NoKey       string `json:"noKey"`
}

const jsKey = "js-client-key-0123456789abcdef"

// TestJavaScriptClient: the official A2A JavaScript SDK, over JSON-RPC and
// over HTTP+JSON, reads an agent's card from the gateway, sends to it and
// gets the completed task, streams (the task, working updates, the result
// as an artifact, the completed status), gets the streamed task, answers
// a question (INPUT_REQUIRED) with a follow-up message naming the task and
// its context (the same task completes with the answer), cancels a
// running task (its canceled state; a second cancel is the SDK's
// TaskNotCancelable error), and without a key is refused the card (401).
func TestJavaScriptClient(t *testing.T) {
	nodeBin := testenv.Command(t, "node")
	sdk := testenv.NPMPackage(t, "@a2a-js/sdk", JSSDKVersion)
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	agent := w.N("SampleAgent")
	sampletest.Start(t, w.Connect(t), agent)
	g := startGateway(t, bin, environ(w, "A2ABUS_GATEWAY_KEYS="+w.N("JsClient")+"="+jsKey))
	waitForCard(t, g, agent, jsKey)
	for _, transport := range []string{"JSONRPC", "HTTP+JSON"} {
		t.Run(transport, func(t *testing.T) {
			out := runClient(t, nodeBin, sdk, g.url+"/agents/"+agent, transport)
			t.Logf("client.mjs: %s", out)
			var s summary
			if err := json.Unmarshal(out, &s); err != nil {
				t.Fatalf("client output is not a summary: %v\n%s", err, out)
			}
			agentURL := g.url + "/agents/" + agent
			if s.Card.Name != agent || !slices.Contains(s.Card.Skills, "echo") || !s.Card.Streaming ||
				!slices.Equal(s.Card.Interfaces, []string{"JSONRPC " + agentURL, "HTTP+JSON " + agentURL + "/rest"}) {
				t.Errorf("card %+v", s.Card)
			}
			if s.Send.Kind != "task" || s.Send.State != "TASK_STATE_COMPLETED" || s.Send.Text != "hello from js" {
				t.Errorf("send %+v", s.Send)
			}
			if len(s.Stream) < 4 || s.Stream[0] != "task:TASK_STATE_SUBMITTED" || !slices.Contains(s.Stream, "status:TASK_STATE_WORKING") ||
				s.Stream[len(s.Stream)-2] != "artifact:slept 1.5s" || s.Stream[len(s.Stream)-1] != "status:TASK_STATE_COMPLETED" {
				t.Errorf("stream %v", s.Stream)
			}
			if s.Get.State != "TASK_STATE_COMPLETED" || s.Get.Text != "slept 1.5s" {
				t.Errorf("get %+v", s.Get)
			}
			if f := s.FollowUp; f.Asked != "TASK_STATE_INPUT_REQUIRED" || !strings.HasPrefix(f.Question, "Confirm: book the room?") ||
				f.State != "TASK_STATE_COMPLETED" || f.Text != "Confirmed: book the room" || !f.SameTask {
				t.Errorf("follow-up %+v", f)
			}
			if s.Cancel.FirstState != "TASK_STATE_SUBMITTED" || s.Cancel.State != "TASK_STATE_CANCELED" || !strings.Contains(s.CancelAgain, "TaskNotCancelable") {
				t.Errorf("cancel %+v, again %q", s.Cancel, s.CancelAgain)
			}
			if !strings.Contains(s.NoKey, "401") {
				t.Errorf("without a key: %q", s.NoKey)
			}
		})
	}
}

// runClient runs client.mjs to completion (bounded) and returns its stdout.
func runClient(t *testing.T, nodeBin, sdk, agentURL, transport string) []byte {
	t.Helper()
	script, err := filepath.Abs("client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, script, sdk, agentURL, jsKey, transport)
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client.mjs %s: %v\nstdout: %s\nstderr: %s", transport, err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}
