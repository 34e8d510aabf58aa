// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/remote"
)

// startBridge starts a bridge of srv (not on a bus: its handler is called directly).
func startBridge(t *testing.T, srv *remoteServer) *remote.Bridge {
	t.Helper()
	b, err := remote.New(remote.Options{Spec: remote.Spec{Name: "Weather", CardURL: srv.URL, Source: "test"},
		RetryMin: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func turn(taskID, contextID, text string, n int, history ...*a2a.Message) *agent.Task {
	return &agent.Task{Request: &a2a.TaskRequest{TaskID: taskID, ContextID: contextID, Target: "Weather", Skill: "forecast", Caller: "Tester",
		Message: a2a.NewTextMessage(a2a.MessageRoleUser, text), Deadline: time.Now().Add(20 * time.Second), Turn: n, History: history}}
}

// Input required both ways, without the caller: a remote task that waits
// for input ends the turn with its question, whose message names the
// remote task; the next turn, on another replica of the bridge (which
// never saw the first), is sent to that remote task and context.
func TestInputRequiredMapsBothWays(t *testing.T) {
	for _, streaming := range []bool{true, false} {
		srv := newRemoteServer(t, streaming)
		first, replica := startBridge(t, srv), startBridge(t, srv)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		busContext := a2a.NewContextID()
		res, err := first.Handle(ctx, turn("task-1", busContext, "ask", 0))
		if err != nil {
			t.Fatal(err)
		}
		if res.Question == nil || res.Question.Text != "which city?" || res.Question.Auth != nil || a2a.MessageText(res.Message) != "which city?" {
			t.Fatalf("streaming %v: result %+v, question %+v: want the remote's question", streaming, res, res.Question)
		}
		remoteTask, _ := res.Message.Metadata[remote.MetaRemoteTaskID].(string)
		remoteContext, _ := res.Message.Metadata[remote.MetaRemoteContextID].(string)
		if remoteTask == "" || remoteContext != busContext {
			t.Fatalf("question metadata %v: want the remote task and the bus context %s", res.Message.Metadata, busContext)
		}
		history := []*a2a.Message{a2a.NewTextMessage(a2a.MessageRoleUser, "ask"), res.Message}
		res, err = replica.Handle(ctx, turn("task-1", busContext, "Paris", 1, history...))
		if err != nil {
			t.Fatal(err)
		}
		if got := a2a.MessageText(res.Message); got != "weather in Paris" {
			t.Fatalf("answer turn = %q, want weather in Paris", got)
		}
		answers := srv.turns()
		if len(answers) != 1 || answers[0].task != remoteTask || answers[0].context != remoteContext || answers[0].text != "Paris" {
			t.Fatalf("the remote saw %+v, want Paris for task %s in context %s", answers, remoteTask, remoteContext)
		}

		// Auth required: a question with what to authenticate with.
		res, err = first.Handle(ctx, turn("task-2", "", "login", 0))
		if err != nil || res.Question == nil || res.Question.Auth == nil || res.Question.Auth.Scheme != "bearer" || res.Question.Text != "log in first" {
			t.Fatalf("login = %+v, %v", res, err)
		}

		// A later turn whose remote task nobody knows is refused, naming it.
		_, err = replica.Handle(ctx, turn("task-3", "", "Rome", 1, a2a.NewTextMessage(a2a.MessageRoleUser, "ask")))
		var typed *a2a.Error
		if !errors.As(err, &typed) || typed.Code != a2a.CodeExecutionFailed || !strings.Contains(typed.Message, "remote task is unknown") {
			t.Fatalf("an answer to an unknown question = %v", err)
		}
	}
}

// A response past remote.max_response_bytes fails the turn, naming the bound.
func TestResponseBound(t *testing.T) {
	srv := newRemoteServer(t, false)
	b, err := remote.New(remote.Options{Spec: remote.Spec{Name: "Weather", CardURL: srv.URL, Source: "test"}, MaxResponseBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	_, err = b.Handle(context.Background(), turn("task-big", "", "echo "+strings.Repeat("x", 4<<10), 0))
	var typed *a2a.Error
	if !errors.As(err, &typed) || typed.Code != a2a.CodeExecutionFailed || !strings.Contains(typed.Message, "remote.max_response_bytes") {
		t.Fatalf("a 4 KiB answer with a 1 KiB bound = %v", err)
	}
}

// The bus card: the remote's skills, ids made bus skill ids; a bridge with
// neither a card nor a fallback does not start, naming the remote.
func TestCardAndStart(t *testing.T) {
	srv := newRemoteServer(t, true)
	b := startBridge(t, srv)
	card, err := b.Card()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range card.Skills {
		ids = append(ids, s.ID)
	}
	if card.Name != "Weather" || card.Description != "Tells the weather." || strings.Join(ids, ",") != "forecast,weather-alerts" ||
		len(card.SupportedInterfaces) != 2 || !card.Capabilities.Streaming {
		t.Fatalf("bus card = %+v (skills %v)", card, ids)
	}

	srv.setCardDown(true)
	b, err = remote.New(remote.Options{Spec: remote.Spec{Name: "Down", CardURL: srv.URL, Source: "test"}, CardTimeout: time.Second,
		RetryMin: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	err = b.Start(context.Background())
	if !errors.Is(err, remote.ErrNoCard) || !strings.Contains(err.Error(), `remote agent "Down"`) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Start with the card down = %v", err)
	}
	fallback := &a2a.AgentCard{Name: "Down", Skills: []spec.AgentSkill{{ID: "forecast", Name: "forecast", Tags: []string{}}}}
	b, err = remote.New(remote.Options{Spec: remote.Spec{Name: "Down", CardURL: srv.URL, Source: "test", Fallback: fallback}, CardTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		t.Fatalf("Start with a fallback = %v", err)
	}
	if card, _ := b.Card(); card.Name != "Down" || len(card.Skills) != 1 || card.Skills[0].ID != "forecast" {
		t.Fatalf("fallback card = %+v", card)
	}
	// Once the card is back, a task fetches it and runs.
	srv.setCardDown(false)
	res, err := b.Handle(context.Background(), turn("task-fb", "", "echo back", 0))
	if err != nil || a2a.MessageText(res.Message) != "echoed" {
		t.Fatalf("a task after the card came back = %+v, %v", res, err)
	}
}

// The options a bad spec is refused with.
func TestNewRefusesBadSpecs(t *testing.T) {
	for _, s := range []remote.Spec{
		{Name: "not a name", CardURL: "https://x.example.com"},
		{Name: "Weather", CardURL: "ftp://x.example.com"},
		{Name: "Weather", CardURL: "https://user:pw@x.example.com"},
	} {
		if _, err := remote.New(remote.Options{Spec: s}); !errors.Is(err, remote.ErrInvalidOptions) || strings.Contains(err.Error(), "pw@") {
			t.Errorf("New(%+v) = %v, want ErrInvalidOptions", s, err)
		}
	}
}
