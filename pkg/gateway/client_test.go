// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/agents/sample"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/gateway"
)

var transports = []spec.TransportProtocol{spec.TransportProtocolJSONRPC, spec.TransportProtocolHTTPJSON}

// TestCard: the gateway serves each agent's card — its skills with their
// descriptions and input schemas, the gateway's two interfaces for it,
// its security schemes and capabilities — and the catalog lists it; an
// agent the directory does not know has no card.
func TestCard(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), nil)
	card, err := agentcard.NewResolver(httpClient(aliceKey)).Resolve(context.Background(), m.agentURL(m.sample))
	if err != nil {
		t.Fatal(err)
	}
	if card.Name != m.sample || card.Version != sample.Version || !card.Capabilities.Streaming || card.Capabilities.PushNotifications {
		t.Errorf("card %s %s, streaming %v push %v", card.Name, card.Version, card.Capabilities.Streaming, card.Capabilities.PushNotifications)
	}
	var ids []string
	for _, s := range card.Skills {
		ids = append(ids, s.ID)
		if s.Description == "" {
			t.Errorf("skill %s has no description", s.ID)
		}
	}
	if !slices.Equal(ids, []string{sample.SkillEcho, sample.SkillSleep, sample.SkillFail, sample.SkillNPV, sample.SkillDelegate, sample.SkillConfirm}) {
		t.Errorf("skills %v", ids)
	}
	if len(card.Capabilities.Extensions) != 1 || card.Capabilities.Extensions[0].URI != gateway.InputSchemaExtension {
		t.Fatalf("extensions %+v, want the input schemas", card.Capabilities.Extensions)
	}
	schemas, _ := card.Capabilities.Extensions[0].Params["skills"].(map[string]any)
	if _, ok := schemas[sample.SkillNPV].(map[string]any); !ok || len(schemas) != 1 {
		t.Errorf("input schemas %v, want npv's", schemas)
	}
	want := []string{m.agentURL(m.sample) + " JSONRPC", m.agentURL(m.sample) + "/rest HTTP+JSON"}
	var got []string
	for _, i := range card.SupportedInterfaces {
		got = append(got, i.URL+" "+string(i.ProtocolBinding))
		if i.ProtocolVersion != spec.Version {
			t.Errorf("interface %s speaks %s", i.URL, i.ProtocolVersion)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("interfaces %v, want %v", got, want)
	}
	if _, ok := card.SecuritySchemes[gateway.SchemeAPIKey]; !ok || len(card.SecurityRequirements) != 2 {
		t.Errorf("security %v %v", card.SecuritySchemes, card.SecurityRequirements)
	}

	resp, body := get(t, m.url+gateway.AgentsPath, aliceKey)
	var cat gateway.Catalog
	if err := json.Unmarshal(body, &cat); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("catalog %d %s: %v", resp.StatusCode, body, err)
	}
	var names []string
	for _, e := range cat.Agents {
		names = append(names, e.Name)
	}
	if !slices.Contains(names, m.sample) || !slices.Contains(names, m.whoami) {
		t.Errorf("catalog lists %v", names)
	}
	if resp, body := get(t, m.agentURL("NoSuchAgent")+gateway.CardPath, aliceKey); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the card of an unknown agent: %d %s", resp.StatusCode, body)
	}
}

// get GETs url with key (none when empty).
func get(t testing.TB, url, key string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return do(t, req)
}

func do(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, []byte(b.String())
}

// TestSendGetCancelList: an a2aclient, over JSON-RPC and REST, sends
// (blocking: the completed task; not blocking: the submitted task, which
// GetTask then finds completed), cancels a running task (answered with
// its canceled state; a second cancel is refused), gets a failure with
// the bus's error, and lists its own tasks, newest first.
func TestSendGetCancelList(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := newMesh(t, w, nil)
		for _, tr := range transports {
			t.Run(string(tr), func(t *testing.T) {
				ctx := context.Background()
				c := m.client(t, m.alice, m.sample, tr)
				res, err := c.SendMessage(ctx, send("hello gateway", sample.SkillEcho))
				if err != nil {
					t.Fatal(err)
				}
				done, ok := res.(*spec.Task)
				if !ok || done.Status.State != spec.TaskStateCompleted || taskText(done) != "hello gateway" {
					t.Fatalf("blocking send: %#v", res)
				}
				if done.ContextID == "" || done.Status.Message == nil || done.Status.Message.Parts[0].Text() != "hello gateway" {
					t.Errorf("the completed task has context %q and status message %+v", done.ContextID, done.Status.Message)
				}

				req := send("later", sample.SkillEcho)
				req.Config = &spec.SendMessageConfig{ReturnImmediately: true}
				res, err = c.SendMessage(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				sub := res.(*spec.Task)
				if sub.Status.State != spec.TaskStateSubmitted {
					t.Fatalf("a non-blocking send answered %s", sub.Status.State)
				}
				testenv.Eventually(t, "the non-blocking task completes and GetTask says so", func() bool {
					got, err := c.GetTask(ctx, &spec.GetTaskRequest{ID: sub.ID})
					return err == nil && got.Status.State == spec.TaskStateCompleted && taskText(got) == "later"
				})

				req = send("60000", sample.SkillSleep)
				req.Config = &spec.SendMessageConfig{ReturnImmediately: true}
				res, err = c.SendMessage(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				sleeping := res.(*spec.Task)
				time.Sleep(200 * time.Millisecond) // let the agent start it (a queued one is canceled as well)
				canceled, err := c.CancelTask(ctx, &spec.CancelTaskRequest{ID: sleeping.ID})
				if err != nil || canceled.Status.State != spec.TaskStateCanceled {
					t.Fatalf("cancel: %+v, %v", canceled, err)
				}
				if _, err := c.CancelTask(ctx, &spec.CancelTaskRequest{ID: sleeping.ID}); !errors.Is(err, spec.ErrTaskNotCancelable) {
					t.Errorf("a second cancel: %v, want task not cancelable", err)
				}

				res, err = c.SendMessage(ctx, send("bad order 42", sample.SkillFail))
				if err != nil {
					t.Fatal(err)
				}
				failed := res.(*spec.Task)
				meta, _ := failed.Metadata[gateway.MetadataKey].(map[string]any)
				busErr, _ := meta["error"].(map[string]any)
				if failed.Status.State != spec.TaskStateFailed || busErr["code"] != "EXECUTION_FAILED" ||
					!strings.Contains(failed.Status.Message.Parts[0].Text(), "bad order 42") {
					t.Errorf("a failed task: %s %v %+v", failed.Status.State, busErr, failed.Status.Message)
				}

				list, err := c.ListTasks(ctx, &spec.ListTasksRequest{PageSize: 3})
				if err != nil {
					t.Fatal(err)
				}
				var ids []spec.TaskID
				for _, tk := range list.Tasks {
					ids = append(ids, tk.ID)
				}
				if !slices.Equal(ids, []spec.TaskID{failed.ID, sleeping.ID, sub.ID}) || list.NextPageToken == "" {
					t.Errorf("list %v (next %q), want the 3 newest: %v", ids, list.NextPageToken, []spec.TaskID{failed.ID, sleeping.ID, sub.ID})
				}
				byContext, err := c.ListTasks(ctx, &spec.ListTasksRequest{ContextID: done.ContextID})
				if err != nil || len(byContext.Tasks) != 1 || byContext.Tasks[0].ID != done.ID {
					t.Errorf("list by context: %+v, %v", byContext, err)
				}
				bobs, err := m.client(t, m.bob, m.sample, tr).ListTasks(ctx, &spec.ListTasksRequest{})
				if err != nil || len(bobs.Tasks) != 0 {
					t.Errorf("Bob lists %+v, %v: none of Alice's tasks", bobs, err)
				}
			})
		}
	})
}

// TestStream: a streamed send yields the task, its status updates (the
// sleep skill's progress), the result as an artifact-update and the final
// status; a resubscription to the running task yields its updates and
// final state; one to the ended task yields the task.
func TestStream(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := newMesh(t, w, nil)
		for _, tr := range transports {
			t.Run(string(tr), func(t *testing.T) {
				ctx := context.Background()
				c := m.client(t, m.alice, m.sample, tr)
				var events []spec.Event
				for ev, err := range c.SendStreamingMessage(ctx, send("2500", sample.SkillSleep)) {
					if err != nil {
						t.Fatal(err)
					}
					events = append(events, ev)
				}
				kinds := eventKinds(events)
				t.Logf("events: %v", kinds)
				if len(kinds) < 4 || kinds[0] != "task:TASK_STATE_SUBMITTED" || !slices.Contains(kinds, "status:TASK_STATE_WORKING") ||
					kinds[len(kinds)-2] != "artifact" || kinds[len(kinds)-1] != "status:TASK_STATE_COMPLETED" {
					t.Errorf("events %v: want the task, working updates, an artifact and the completed status", kinds)
				}
				id := events[0].(*spec.Task).ID

				var again []spec.Event
				for ev, err := range c.SubscribeToTask(ctx, &spec.SubscribeToTaskRequest{ID: id}) {
					if err != nil {
						t.Fatal(err)
					}
					again = append(again, ev)
				}
				if k := eventKinds(again); !slices.Equal(k, []string{"task:TASK_STATE_COMPLETED"}) {
					t.Errorf("a subscription to the ended task: %v", k)
				}

				req := send("2000", sample.SkillSleep)
				req.Config = &spec.SendMessageConfig{ReturnImmediately: true}
				res, err := c.SendMessage(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				var sub []spec.Event
				for ev, err := range c.SubscribeToTask(ctx, &spec.SubscribeToTaskRequest{ID: res.(*spec.Task).ID}) {
					if err != nil {
						t.Fatal(err)
					}
					sub = append(sub, ev)
				}
				if k := eventKinds(sub); k[0] != "task:TASK_STATE_SUBMITTED" || k[len(k)-1] != "status:TASK_STATE_COMPLETED" {
					t.Errorf("a subscription to the running task: %v", k)
				}
			})
		}
	})
}

func eventKinds(events []spec.Event) []string {
	var out []string
	for _, ev := range events {
		switch e := ev.(type) {
		case *spec.Task:
			out = append(out, "task:"+string(e.Status.State))
		case *spec.TaskStatusUpdateEvent:
			out = append(out, "status:"+string(e.Status.State))
		case *spec.TaskArtifactUpdateEvent:
			out = append(out, "artifact")
		case *spec.Message:
			out = append(out, "message")
		}
	}
	return out
}

// TestFollowUpAnswersInputRequired: over JSON-RPC and REST, on both
// buses, a task whose agent asks a question ends its first turn
// INPUT_REQUIRED, the question its status message; a follow-up message
// naming the task (and its context) answers it, and the send waits for
// the next turn (the completed task), streams it (the task, the turn's
// progress, the answer as an artifact, the completed status), or returns at once
// (GetTask then finds the task completed). A follow-up naming another
// context is refused, as is an answer to a task that ended; a new task
// sent in an earlier task's context is in that context (the bus's).
func TestFollowUpAnswersInputRequired(t *testing.T) {
	testworld.Each(t, func(t *testing.T, w *testworld.World) {
		m := newMesh(t, w, nil)
		for _, tr := range transports {
			t.Run(string(tr), func(t *testing.T) {
				ctx := context.Background()
				c := m.client(t, m.alice, m.asker, tr)
				ask := func() *spec.Task {
					t.Helper()
					res, err := c.SendMessage(ctx, send("paint it", "ask"))
					if err != nil {
						t.Fatal(err)
					}
					asked := res.(*spec.Task)
					if asked.Status.State != spec.TaskStateInputRequired || asked.ContextID == "" {
						t.Fatalf("the first turn ended %s (context %q), want INPUT_REQUIRED in a context", asked.Status.State, asked.ContextID)
					}
					if q := asked.Status.Message; q == nil || q.Parts[0].Text() != "which color?" {
						t.Errorf("the question: %+v", q)
					}
					return asked
				}
				answer := func(asked *spec.Task, text, contextID string) *spec.SendMessageRequest {
					msg := spec.NewMessage(spec.MessageRoleUser, spec.NewTextPart(text))
					msg.TaskID, msg.ContextID = asked.ID, contextID
					return &spec.SendMessageRequest{Message: msg}
				}

				asked := ask()
				if _, err := c.SendMessage(ctx, answer(asked, "blue", "another-context")); !errors.Is(err, spec.ErrInvalidParams) {
					t.Errorf("an answer naming another context: %v, want invalid params", err)
				}
				res, err := c.SendMessage(ctx, answer(asked, "blue", asked.ContextID))
				if err != nil {
					t.Fatal(err)
				}
				if done := res.(*spec.Task); done.ID != asked.ID || done.ContextID != asked.ContextID ||
					done.Status.State != spec.TaskStateCompleted || taskText(done) != "you said blue" {
					t.Errorf("after the answer: %s in %s, %s %q", done.ID, done.ContextID, done.Status.State, taskText(done))
				}
				if _, err := c.SendMessage(ctx, answer(asked, "red", "")); !errors.Is(err, spec.ErrUnsupportedOperation) {
					t.Errorf("an answer to a task that ended: %v, want unsupported operation (TASK_FINISHED)", err)
				}

				streamed := ask()
				var events []spec.Event
				for ev, err := range c.SendStreamingMessage(ctx, answer(streamed, "red", "")) {
					if err != nil {
						t.Fatal(err)
					}
					events = append(events, ev)
				}
				kinds := eventKinds(events)
				if len(kinds) < 4 || kinds[0] != "task:TASK_STATE_SUBMITTED" || events[0].(*spec.Task).ID != streamed.ID ||
					!slices.Contains(kinds, "status:TASK_STATE_WORKING") ||
					kinds[len(kinds)-2] != "artifact" || kinds[len(kinds)-1] != "status:TASK_STATE_COMPLETED" ||
					textOf(events[len(events)-2].(*spec.TaskArtifactUpdateEvent).Artifact.Parts) != "you said red" {
					t.Errorf("a streamed answer: %v, want the task, the turn's progress, the answer as an artifact and the completed status", kinds)
				}

				later := ask()
				req := answer(later, "green", later.ContextID)
				req.Config = &spec.SendMessageConfig{ReturnImmediately: true}
				res, err = c.SendMessage(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if got := res.(*spec.Task); got.ID != later.ID || got.Status.State.Terminal() {
					t.Errorf("a non-blocking answer: %s %s, want the task, not ended", got.ID, got.Status.State)
				}
				testenv.Eventually(t, "the answered task completes and GetTask says so", func() bool {
					got, err := c.GetTask(ctx, &spec.GetTaskRequest{ID: later.ID})
					return err == nil && got.Status.State == spec.TaskStateCompleted && taskText(got) == "you said green"
				})

				again := send("paint it", "ask")
				again.Message.ContextID = asked.ContextID
				res, err = c.SendMessage(ctx, again)
				if err != nil {
					t.Fatal(err)
				}
				next := res.(*spec.Task)
				if next.ID == asked.ID || next.ContextID != asked.ContextID {
					t.Errorf("a new task in the first one's context: %s in %s, want a new task in %s", next.ID, next.ContextID, asked.ContextID)
				}
				list, err := c.ListTasks(ctx, &spec.ListTasksRequest{ContextID: asked.ContextID})
				var ids []spec.TaskID
				for _, tk := range list.Tasks {
					ids = append(ids, tk.ID)
				}
				if err != nil || !slices.Equal(ids, []spec.TaskID{next.ID, asked.ID}) {
					t.Errorf("the context's tasks: %v, %v; want %v", ids, err, []spec.TaskID{next.ID, asked.ID})
				}
			})
		}
	})
}

// TestOfflineAgents: an agent that stops (and is not well-known) loses its
// card and its place in the catalog, and takes no new task, but its tasks
// can still be read; a well-known agent that does not run keeps its card,
// and a task sent to it waits in its queue.
func TestOfflineAgents(t *testing.T) {
	w := testworld.Embedded(t)
	sleeper := "WellKnownSleeper"
	m := newMesh(t, w, nil, func(c *config.Config) { c.Directory.WellKnownFile = wellKnown(t, sleeper, "nap") })
	leaver := w.N("Leaver")
	a, err := agent.New(agent.Options{Card: a2a.AgentCard{Name: leaver, Skills: []a2a.AgentSkill{{ID: "say", Name: "say"}}}, Bus: w.Connect(t), StopTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Handle("say", func(_ context.Context, task *agent.Task) (*agent.Result, error) { return agent.TextResult("bye"), nil }); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(context.Background()) }()
	m.waitListed(t, leaver)
	ctx := context.Background()
	res, err := m.client(t, m.alice, leaver, spec.TransportProtocolJSONRPC).SendMessage(ctx, send("hi", "say"))
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*spec.Task).ID
	c := m.client(t, m.alice, leaver, spec.TransportProtocolJSONRPC) // its card read while it runs
	_ = a.Close()
	<-done
	testenv.Eventually(t, "the stopped agent is offline", func() bool {
		e, ok := m.dir.Lookup(leaver)
		return ok && e.Status == directory.StatusOffline
	})
	if resp, _ := get(t, m.agentURL(leaver)+gateway.CardPath, aliceKey); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the card of an offline agent: %d", resp.StatusCode)
	}
	_, body := get(t, m.url+gateway.AgentsPath, aliceKey)
	if strings.Contains(string(body), `"`+leaver+`"`) {
		t.Errorf("the catalog lists the offline agent: %s", body)
	}
	if got, err := c.GetTask(ctx, &spec.GetTaskRequest{ID: id}); err != nil || got.Status.State != spec.TaskStateCompleted {
		t.Errorf("a task of the offline agent: %+v, %v", got, err)
	}
	if _, err := c.SendMessage(ctx, send("again", "say")); !errors.Is(err, spec.ErrUnsupportedOperation) {
		t.Errorf("a send to the offline agent: %v, want unsupported operation", err)
	}

	wk := m.client(t, m.alice, sleeper, spec.TransportProtocolJSONRPC)
	req := send("later", "nap")
	req.Config = &spec.SendMessageConfig{ReturnImmediately: true}
	res, err = wk.SendMessage(ctx, req)
	if err != nil || res.(*spec.Task).Status.State != spec.TaskStateSubmitted {
		t.Fatalf("a send to a well-known agent that does not run: %+v, %v", res, err)
	}
	if got, err := wk.GetTask(ctx, &spec.GetTaskRequest{ID: res.(*spec.Task).ID}); err != nil || got.Status.State != spec.TaskStateSubmitted {
		t.Errorf("its task: %+v, %v (it waits in the queue)", got, err)
	}
}

// TestTraceparentReachesTheAgent: a request's traceparent travels with its
// task over the bus to the agent (here with no tracer in between, as it
// came); a malformed one is dropped.
func TestTraceparentReachesTheAgent(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), nil)
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	for _, tc := range []struct{ header, want string }{{tp, "traceparent=" + tp}, {"00-bad", "traceparent="}} {
		_, a := post(t, m.agentURL(m.whoami), "application/json", rpc("SendMessage", sendParams("who", "whoami", nil)),
			"Authorization", "Bearer "+aliceKey, "traceparent", tc.header)
		if a.Error != nil || !strings.Contains(string(a.Result), tc.want+`"`) {
			t.Errorf("traceparent %q: the agent saw %s %+v, want %s", tc.header, a.Result, a.Error, tc.want)
		}
	}
}

// TestAClientThatGoesAwayLosesNothing: a client that gives up on a
// blocking send leaves the task running; its principal finds it in the
// list and gets it completed.
func TestAClientThatGoesAwayLosesNothing(t *testing.T) {
	m := newMesh(t, testworld.Embedded(t), nil)
	c := m.client(t, m.alice, m.sample, spec.TransportProtocolJSONRPC)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err := c.SendMessage(ctx, send("1500", sample.SkillSleep))
	cancel()
	if err == nil {
		t.Fatal("the send ended before the client gave up")
	}
	list, err := c.ListTasks(context.Background(), &spec.ListTasksRequest{PageSize: 1})
	if err != nil || len(list.Tasks) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	id := list.Tasks[0].ID
	testenv.Eventually(t, "the abandoned task completes", func() bool {
		got, err := c.GetTask(context.Background(), &spec.GetTaskRequest{ID: id})
		return err == nil && got.Status.State == spec.TaskStateCompleted && taskText(got) == "slept 1.5s"
	})
}
