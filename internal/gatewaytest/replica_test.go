// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gatewaytest

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/agents/sample/sampletest"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/caller"
)

const replicaKey = "replica-key-0123456789abcdef"

// keyed sends the key with every request.
type keyed struct{}

func (keyed) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+replicaKey)
	return http.DefaultTransport.RoundTrip(r)
}

func client(t *testing.T, g *gateway, agent string) *a2aclient.Client {
	t.Helper()
	hc := &http.Client{Transport: keyed{}, Timeout: 2 * time.Minute}
	card, err := agentcard.NewResolver(hc).Resolve(context.Background(), g.url+"/agents/"+agent)
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(context.Background(), card, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestReplicaKilledDuringAStream: a client streams a task from one gateway
// replica; the replica is killed (SIGKILL) while the task runs; the client
// resubscribes to the other replica and receives the task's final state,
// and GetTask there returns it. In working memory the task has one record,
// one result, one call-history entry, one notification, no pending entry,
// and one entry in its principal's list.
func TestReplicaKilledDuringAStream(t *testing.T) {
	w := testworld.Real(t)
	bin := testenv.Build(t, "./cmd/a2abus")
	agent, principal := w.N("SampleAgent"), w.N("Replicated")
	sampletest.Start(t, w.Connect(t), agent)
	env := environ(w, "A2ABUS_GATEWAY_KEYS="+principal+"="+replicaKey, "A2ABUS_CALLER_SWEEP_INTERVAL=200ms")
	a, b := startGateway(t, bin, env), startGateway(t, bin, env)
	waitForCard(t, a, agent, replicaKey)
	waitForCard(t, b, agent, replicaKey)

	ctx := context.Background()
	var id spec.TaskID
	req := &spec.SendMessageRequest{Message: spec.NewMessage(spec.MessageRoleUser, spec.NewTextPart("4000")),
		Metadata: map[string]any{"skill": sample.SkillSleep}}
	for ev, err := range client(t, a, agent).SendStreamingMessage(ctx, req) {
		if err != nil {
			t.Fatalf("the stream failed before the kill: %v\nreplica A: %s", err, a.stderr)
		}
		if task, ok := ev.(*spec.Task); ok {
			id = task.ID
		}
		if st, ok := ev.(*spec.TaskStatusUpdateEvent); ok && st.Status.State == spec.TaskStateWorking {
			break // the task runs: kill the replica that streams it
		}
	}
	if id == "" {
		t.Fatal("no task before the kill")
	}
	t.Logf("killing A at %s", time.Now().Format("15:04:05.000"))
	a.kill(t)

	var kinds []string
	var final *spec.TaskStatusUpdateEvent
	for ev, err := range client(t, b, agent).SubscribeToTask(ctx, &spec.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			t.Fatalf("resubscribe on replica B: %v\nreplica B: %s", err, b.stderr)
		}
		switch e := ev.(type) {
		case *spec.Task:
			kinds = append(kinds, "task:"+string(e.Status.State))
		case *spec.TaskStatusUpdateEvent:
			kinds = append(kinds, "status:"+string(e.Status.State))
			final = e
		case *spec.TaskArtifactUpdateEvent:
			kinds = append(kinds, "artifact")
		}
	}
	t.Logf("events on replica B: %v at %s", kinds, time.Now().Format("15:04:05.000"))
	if final == nil || final.Status.State != spec.TaskStateCompleted || final.Status.Message.Parts[0].Text() != "slept 4s" {
		t.Fatalf("the resubscription on replica B ended with %+v (events %v)", final, kinds)
	}
	got, err := client(t, b, agent).GetTask(ctx, &spec.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != spec.TaskStateCompleted {
		t.Fatalf("GetTask on replica B: %+v, %v", got, err)
	}

	// Working memory holds the task once.
	reader, err := caller.New(caller.Options{Name: principal, Bus: w.Connect(t), Memory: w.Memory})
	if err != nil {
		t.Fatal(err)
	}
	info, err := reader.Task(ctx, string(id))
	if err != nil || info.Pending || info.Result == nil || info.Result.State != spec.TaskStateCompleted {
		t.Fatalf("the task in working memory: %+v, %v", info, err)
	}
	history, err := caller.History(ctx, w.Memory, info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(history, func(e caller.HistoryEntry) bool { return e.TaskID == string(id) }); n != 1 {
		t.Errorf("%d call-history entries of the task, want 1: %+v", n, history)
	}
	turns, err := w.Memory.Turns(ctx, info.SessionID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(turns, func(tn memory.Turn) bool { return tn.Meta["taskId"] == string(id) }); n != 1 {
		t.Errorf("%d notifications of the task, want 1: %+v", n, turns)
	}
	if pending, err := caller.PendingTasks(ctx, w.Memory, principal, 0); err != nil || slices.Contains(pending, string(id)) {
		t.Errorf("pending tasks %v, %v: the task is still pending", pending, err)
	}
	idx, err := memory.GatewayTasksIndex(principal)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := w.Memory.IndexRange(ctx, idx, 0, 0)
	if err != nil || count(listed, func(m memory.IndexMember) bool { return m.Member == string(id) }) != 1 {
		t.Errorf("the principal's list %v, %v: want the task once", listed, err)
	}
}

func count[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}
