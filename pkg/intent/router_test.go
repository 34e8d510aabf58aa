// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
	"github.com/a2abus/a2abus/pkg/intent"
)

// cardsDir is a directory of fixed cards.
type cardsDir []a2a.AgentCard

func (d cardsDir) List(directory.Filter) []directory.Entry {
	out := make([]directory.Entry, len(d))
	for i, c := range d {
		out[i] = directory.Entry{Name: c.Name, Card: c, Status: directory.StatusOnline}
	}
	return out
}

// fakeCaller answers every task at once: answer gives the outcome of a
// new task, afterReply the outcome of one answered.
type fakeCaller struct {
	mu         sync.Mutex
	invoked    []caller.Request
	replies    []caller.Reply
	canceled   []string
	outcomes   map[string]*caller.StoredResult
	answer     func(caller.Request) *caller.StoredResult
	afterReply func(caller.Reply) *caller.StoredResult
}

func newFakeCaller() *fakeCaller {
	return &fakeCaller{outcomes: map[string]*caller.StoredResult{}, answer: func(r caller.Request) *caller.StoredResult {
		return &caller.StoredResult{Agent: r.Target, Skill: r.Skill, State: a2a.TaskStateCompleted, Status: a2a.StatusSuccess,
			Message: a2a.NewTextMessage(a2a.MessageRoleAgent, r.Target+"."+r.Skill+" answers: "+r.Text), Confidence: a2a.ConfidenceHigh}
	}}
}

func (f *fakeCaller) Invoke(_ context.Context, r caller.Request) (caller.Invocation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.invoked = append(f.invoked, r)
	id := fmt.Sprintf("sub-%d", len(f.invoked))
	s := f.answer(r)
	if s != nil {
		s.TaskID = id
	}
	f.outcomes[id] = s
	return caller.Invocation{TaskID: id, Target: r.Target, ContextID: r.ContextID}, nil
}

func (f *fakeCaller) Wait(ctx context.Context, id string, _ caller.StatusFunc) (*caller.Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.outcomes[id]
	if !ok {
		return nil, fmt.Errorf("no task %s", id)
	}
	if s == nil { // a task that never answers
		f.mu.Unlock()
		<-ctx.Done()
		f.mu.Lock()
		return nil, ctx.Err()
	}
	return &caller.Outcome{Invocation: caller.Invocation{TaskID: id}, Result: s}, nil
}

func (f *fakeCaller) Cancel(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.canceled = append(f.canceled, id)
	return nil
}

func (f *fakeCaller) Reply(_ context.Context, r caller.Reply) (caller.Invocation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, r)
	if _, ok := f.outcomes[r.TaskID]; !ok || f.afterReply == nil {
		return caller.Invocation{}, a2a.NewError(a2a.CodeInvalidState, "task %s does not wait for input", r.TaskID)
	}
	f.outcomes[r.TaskID] = f.afterReply(r)
	return caller.Invocation{TaskID: r.TaskID, Turn: 1}, nil
}

func newRouter(t *testing.T, fc *fakeCaller, edit func(*intent.Options)) *intent.Router {
	t.Helper()
	opts := intent.Options{Self: "Orchestrator", Directory: cardsDir(testCards()), Caller: fc}
	if edit != nil {
		edit(&opts)
	}
	r, err := intent.NewRouter(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// firstTurn is the route task of text, from Client.
func firstTurn(text string) *agent.Task {
	return &agent.Task{Request: &a2a.TaskRequest{TaskID: "task-1", Caller: "Client", Target: "Orchestrator", Skill: "route", SessionID: "sess-1",
		ContextID: "ctx-1", Message: a2a.NewTextMessage(a2a.MessageRoleUser, text), Deadline: time.Now().Add(time.Minute),
		Handoff: json.RawMessage(`{"userId":"user-1"}`)}}
}

// nextTurn is the turn after prev, whose result was res, answered with answer.
func nextTurn(prev *agent.Task, res *agent.Result, answer string) *agent.Task {
	req := *prev.Request
	req.History = append(append(append([]*a2a.Message(nil), prev.Request.History...), prev.Request.Message), res.Message)
	req.Turn++
	req.Message = a2a.NewTextMessage(a2a.MessageRoleUser, answer)
	return &agent.Task{Request: &req}
}

// handle runs the route skill on task.
func handle(t *testing.T, r *intent.Router, task *agent.Task) *agent.Result {
	t.Helper()
	res, err := r.Handle(context.Background(), task)
	if err != nil {
		t.Fatalf("turn %d: %v", task.Turn(), err)
	}
	return res
}

// report is the result's report, checked to be in the protocol's shape.
func report(t *testing.T, res *agent.Result) *intent.Report {
	t.Helper()
	rep, ok := intent.ReportFrom(res.Artifacts)
	if !ok {
		t.Fatalf("no report in %+v", res.Artifacts)
	}
	var raw map[string]any
	b, _ := json.Marshal(rep)
	_ = json.Unmarshal(b, &raw)
	for _, k := range []string{"primaryIntent", "intentConfidence", "targetAgent", "targetCapability", "secondaryIntents", "secondaryTargets", "decision"} {
		if _, ok := raw[k]; !ok {
			t.Fatalf("the report has no %s: %s", k, b)
		}
	}
	return rep
}

// asks checks res ends the turn with a valid INPUT_REQUIRED question
// carrying the report, and returns the question.
func asks(t *testing.T, res *agent.Result, want intent.Decision) *a2a.Question {
	t.Helper()
	if res.Question == nil || res.Question.Auth != nil || res.Status != "" {
		t.Fatalf("not a question: %+v", res)
	}
	tr := &a2a.TaskResult{TaskID: "task-1", Agent: "Orchestrator", State: a2a.TaskStateInputRequired, Message: res.Message, Artifacts: res.Artifacts,
		Question: res.Question, Warnings: res.Warnings, Time: time.Now()}
	if err := tr.Validate(); err != nil {
		t.Fatalf("the question is not a valid INPUT_REQUIRED result: %v", err)
	}
	if rep := report(t, res); rep.Decision != want {
		t.Fatalf("decision %s, want %s", rep.Decision, want)
	}
	return res.Question
}

// TestRouterRoutes: a clear request goes to its skill with the task's
// context, handoff and input; the answer is the routed agent's, with the
// classification attached.
func TestRouterRoutes(t *testing.T) {
	fc := newFakeCaller()
	r := newRouter(t, fc, nil)
	task := firstTurn("Compute the net present value of these cash flows at 10%")
	task.Request.Input = json.RawMessage(`{"cash_flows":[-100,50,70]}`)
	res := handle(t, r, task)
	if len(fc.invoked) != 1 {
		t.Fatalf("invoked %+v", fc.invoked)
	}
	sub := fc.invoked[0]
	if sub.Target != "Analyst" || sub.Skill != "npv" || sub.Text != task.Text() || sub.ContextID != "ctx-1" ||
		string(sub.Handoff) != `{"userId":"user-1"}` || string(sub.Input) != `{"cash_flows":[-100,50,70]}` || sub.Timeout <= 0 || sub.Timeout > time.Minute {
		t.Fatalf("routed request %+v", sub)
	}
	if got := a2a.MessageText(res.Message); got != "Analyst.npv answers: "+task.Text() || res.Question != nil || res.Confidence != a2a.ConfidenceHigh {
		t.Fatalf("result %q %+v", got, res)
	}
	rep := report(t, res)
	if rep.Decision != intent.DecisionRoute || rep.TargetAgent != "Analyst" || rep.TargetCapability != "npv" || rep.RoutedTask != "sub-1" ||
		rep.PrimaryIntent != "net_present_value" || rep.IntentConfidence < intent.DefaultThreshold || rep.Classifier != "matcher" {
		t.Fatalf("report %+v", rep)
	}
}

// TestRouterDeclines: a request no skill fits completes with a plain
// answer listing what the mesh can do; nothing is routed.
func TestRouterDeclines(t *testing.T) {
	fc := newFakeCaller()
	res := handle(t, newRouter(t, fc, nil), firstTurn("What's the weather tomorrow in Paris?"))
	txt := a2a.MessageText(res.Message)
	if len(fc.invoked) != 0 || res.Question != nil || res.Status != "" ||
		!strings.HasPrefix(txt, "None of the agents I can reach can do this. What they can do:") ||
		!strings.Contains(txt, "\n- Net present value (Analyst): Computes the net present value") || !strings.Contains(txt, "\n- Translate (Translator)") {
		t.Fatalf("%d invoked, result %q %+v", len(fc.invoked), txt, res)
	}
	if rep := report(t, res); rep.Decision != intent.DecisionDecline || rep.TargetAgent != "" {
		t.Fatalf("report %+v", rep)
	}
	// With no agent known at all, it says so.
	res = handle(t, newRouter(t, fc, func(o *intent.Options) { o.Directory = cardsDir(nil) }), firstTurn("Compute an NPV"))
	if txt := a2a.MessageText(res.Message); txt != "None of the agents I can reach can do this. No agent is known right now." {
		t.Fatalf("empty mesh: %q", txt)
	}
}

// TestRouterClarifiesThenRoutes: a vague request gets a clarifying
// question; the answer, on the task's next turn, completes the request,
// which is routed with what the user added.
func TestRouterClarifiesThenRoutes(t *testing.T) {
	fc := newFakeCaller()
	r := newRouter(t, fc, nil)
	first := firstTurn("I want to know more about the quarterly numbers of our northern branch and the staff survey of last year")
	res := handle(t, r, first)
	q := asks(t, res, intent.DecisionClarify)
	if len(q.Options) != 0 || !strings.HasPrefix(q.Text, "I am not sure what you need.") || !strings.Contains(q.Text, "Financial projection (Analyst)") || len(fc.invoked) != 0 {
		t.Fatalf("question %+v, %d invoked", q, len(fc.invoked))
	}
	second := nextTurn(first, res, "A revenue forecast and projection for next year, please.")
	res = handle(t, r, second)
	if len(fc.invoked) != 1 || fc.invoked[0].Skill != "projection" ||
		fc.invoked[0].Text != first.Text()+"\n\nThe user added, when asked: A revenue forecast and projection for next year, please." {
		t.Fatalf("invoked %+v", fc.invoked)
	}
	if rep := report(t, res); rep.Decision != intent.DecisionRoute || res.Question != nil {
		t.Fatalf("second turn: %+v %+v", rep, res)
	}
}

// TestRouterOffersOptions: a request two skills fit equally gets a
// question offering both; an answer naming an option (by number, or by
// name) routes there, with the original request.
func TestRouterOffersOptions(t *testing.T) {
	for _, answer := range []string{"2", "the projection one"} {
		fc := newFakeCaller()
		r := newRouter(t, fc, nil)
		first := firstTurn("cash flows")
		res := handle(t, r, first)
		q := asks(t, res, intent.DecisionChoose)
		if len(q.Options) != 2 || q.Options[0].ID != "1" || q.Options[0].Label != "Net present value (Analyst)" ||
			q.Options[1].Label != "Financial projection (Analyst)" || !strings.HasPrefix(q.Options[1].Description, "Projects revenue") ||
			!strings.Contains(q.Text, "\n2. Financial projection (Analyst): Projects revenue") {
			t.Fatalf("question %+v", q)
		}
		if opts := report(t, res).Options; len(opts) != 2 || opts[1].Capability != "projection" {
			t.Fatalf("report options %+v", opts)
		}
		res = handle(t, r, nextTurn(first, res, answer))
		if len(fc.invoked) != 1 || fc.invoked[0].Skill != "projection" || fc.invoked[0].Text != "cash flows" {
			t.Fatalf("%q: invoked %+v", answer, fc.invoked)
		}
		if rep := report(t, res); rep.Decision != intent.DecisionRoute || rep.TargetCapability != "projection" || rep.IntentConfidence != 1 {
			t.Fatalf("%q: report %+v", answer, rep)
		}
	}
}

// TestRouterAnswerPicksNothing: an answer to the options that names none
// of them is read as more about the request.
func TestRouterAnswerPicksNothing(t *testing.T) {
	fc := newFakeCaller()
	r := newRouter(t, fc, nil)
	first := firstTurn("cash flows")
	res := handle(t, r, first)
	asks(t, res, intent.DecisionChoose)
	handle(t, r, nextTurn(first, res, "I need them discounted at a rate of 8%"))
	if len(fc.invoked) != 1 || fc.invoked[0].Skill != "npv" || !strings.Contains(fc.invoked[0].Text, "The user added, when asked: I need them discounted") {
		t.Fatalf("invoked %+v", fc.invoked)
	}
}

// TestRouterQuestionBound: past orchestrator.route_max_questions the skill
// asks no more: it routes to the best fit, or declines.
func TestRouterQuestionBound(t *testing.T) {
	fc := newFakeCaller()
	r := newRouter(t, fc, func(o *intent.Options) { o.MaxQuestions = 1 })
	first := firstTurn("cash flows")
	res := handle(t, r, first)
	asks(t, res, intent.DecisionChoose)
	res = handle(t, r, nextTurn(first, res, "hmm, not sure"))
	if len(fc.invoked) != 1 || fc.invoked[0].Skill != "npv" || res.Question != nil {
		t.Fatalf("invoked %+v, result %+v", fc.invoked, res)
	}
}

// TestRouterRoutedFailure: the routed task's failure is the route task's,
// its code kept; a refused call names the target.
func TestRouterRoutedFailure(t *testing.T) {
	fc := newFakeCaller()
	fc.answer = func(r caller.Request) *caller.StoredResult {
		return &caller.StoredResult{Agent: r.Target, State: a2a.TaskStateRejected, Error: a2a.NewError(a2a.CodeInvalidInput, "cash_flows: required")}
	}
	_, err := newRouter(t, fc, nil).Handle(context.Background(), firstTurn("Compute the net present value of my cash flows"))
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Code != a2a.CodeInvalidInput || ae.Message != "cash_flows: required" {
		t.Fatalf("%v", err)
	}
}

// TestRouterRelaysQuestion: when the routed agent asks a question, the
// route task asks it in turn; the answer goes back to the routed task,
// whose answer ends the route task.
func TestRouterRelaysQuestion(t *testing.T) {
	fc := newFakeCaller()
	fc.answer = func(r caller.Request) *caller.StoredResult {
		return &caller.StoredResult{Agent: r.Target, State: a2a.TaskStateInputRequired, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "Which rate?"),
			Question: &a2a.Question{Text: "Which discount rate?", Options: []a2a.Option{{ID: "r8", Label: "8%"}, {ID: "r10", Label: "10%"}}}}
	}
	fc.afterReply = func(rp caller.Reply) *caller.StoredResult {
		return &caller.StoredResult{Agent: "Analyst", State: a2a.TaskStateCompleted, Status: a2a.StatusSuccess, Message: a2a.NewTextMessage(a2a.MessageRoleAgent, "NPV at "+rp.Text+": 42")}
	}
	r := newRouter(t, fc, nil)
	first := firstTurn("Compute the net present value of my cash flows")
	res := handle(t, r, first)
	q := asks(t, res, intent.DecisionRoute)
	if q.Text != "Which discount rate?" || len(q.Options) != 2 || q.Options[1].ID != "r10" {
		t.Fatalf("relayed question %+v", q)
	}
	if rep := report(t, res); !rep.Relayed || rep.RoutedTask != "sub-1" {
		t.Fatalf("report %+v", rep)
	}
	res = handle(t, r, nextTurn(first, res, "r10"))
	if len(fc.invoked) != 1 || len(fc.replies) != 1 || fc.replies[0].TaskID != "sub-1" || fc.replies[0].Text != "r10" {
		t.Fatalf("invoked %d, replies %+v", len(fc.invoked), fc.replies)
	}
	if txt := a2a.MessageText(res.Message); txt != "NPV at r10: 42" || res.Question != nil {
		t.Fatalf("%q %+v", txt, res)
	}
}

// TestRouterLocalSkill: a skill of the Orchestrator itself (a workflow)
// runs in-process on the task, with the request as its message.
func TestRouterLocalSkill(t *testing.T) {
	fc := newFakeCaller()
	var got *agent.Task
	r := newRouter(t, fc, func(o *intent.Options) {
		o.Local = []intent.LocalSkill{{Skill: a2a.AgentSkill{ID: "business-case", Name: "Business case", Description: "Builds a business case for a market entry."},
			Handler: func(_ context.Context, t *agent.Task) (*agent.Result, error) {
				got = t
				return agent.TextResult("the case"), nil
			}}}
	})
	res := handle(t, r, firstTurn("Build a business case for our market entry in Spain"))
	if len(fc.invoked) != 0 || got == nil || got.Request.Skill != "business-case" || got.Text() != "Build a business case for our market entry in Spain" || got.Request.TaskID != "task-1" {
		t.Fatalf("invoked %+v, local task %+v", fc.invoked, got)
	}
	if rep := report(t, res); rep.TargetAgent != "Orchestrator" || rep.TargetCapability != "business-case" || a2a.MessageText(res.Message) != "the case" {
		t.Fatalf("%+v", rep)
	}
}

// TestRouterCandidates: the Orchestrator itself, the task's caller and the
// agents of its call chain are never routed to (the call would close a
// cycle).
func TestRouterCandidates(t *testing.T) {
	cards := append(testCards(),
		a2a.AgentCard{Name: "Orchestrator", Skills: []a2a.AgentSkill{{ID: "horoscope", Description: "Reads horoscopes."}}},
		a2a.AgentCard{Name: "Client", Skills: []a2a.AgentSkill{{ID: "horoscope", Description: "Reads horoscopes."}}},
		a2a.AgentCard{Name: "Primary", Skills: []a2a.AgentSkill{{ID: "horoscope", Description: "Reads horoscopes."}}})
	fc := newFakeCaller()
	task := firstTurn("Read my horoscope")
	task.Request.CallChain = []string{"Primary", "Client"}
	res := handle(t, newRouter(t, fc, func(o *intent.Options) { o.Directory = cardsDir(cards) }), task)
	if rep := report(t, res); rep.Decision != intent.DecisionDecline || len(fc.invoked) != 0 || strings.Contains(a2a.MessageText(res.Message), "horoscope") {
		t.Fatalf("%+v %q", rep, a2a.MessageText(res.Message))
	}
}

func TestNewRouter(t *testing.T) {
	fc := newFakeCaller()
	h := func(context.Context, *agent.Task) (*agent.Result, error) { return nil, nil }
	for name, o := range map[string]intent.Options{
		"no self":          {Directory: cardsDir(nil), Caller: fc},
		"no directory":     {Self: "O", Caller: fc},
		"no caller":        {Self: "O", Directory: cardsDir(nil)},
		"negative bound":   {Self: "O", Directory: cardsDir(nil), Caller: fc, MaxQuestions: -1},
		"bad bounds":       {Self: "O", Directory: cardsDir(nil), Caller: fc, Bounds: &intent.Bounds{Threshold: 0.5, Floor: 0.7}},
		"local route":      {Self: "O", Directory: cardsDir(nil), Caller: fc, Local: []intent.LocalSkill{{Skill: a2a.AgentSkill{ID: "route"}, Handler: h}}},
		"local no handler": {Self: "O", Directory: cardsDir(nil), Caller: fc, Local: []intent.LocalSkill{{Skill: a2a.AgentSkill{ID: "x"}}}},
	} {
		if _, err := intent.NewRouter(o); !errors.Is(err, intent.ErrInvalidOptions) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := newRouter(t, fc, nil).Handle(context.Background(), firstTurn("")); err == nil {
		t.Error("an empty request was classified")
	}
}

// TestRouterHistoryWithoutReport: when the task's history kept only the
// question's text (not its data), the answer is read against the first
// request's classification again: an option's number still picks it.
func TestRouterHistoryWithoutReport(t *testing.T) {
	fc := newFakeCaller()
	r := newRouter(t, fc, nil)
	first := firstTurn("cash flows")
	res := handle(t, r, first)
	q := asks(t, res, intent.DecisionChoose)
	res.Message = a2a.NewTextMessage(a2a.MessageRoleAgent, q.Text)
	handle(t, r, nextTurn(first, res, "2"))
	if len(fc.invoked) != 1 || fc.invoked[0].Skill != "projection" || fc.invoked[0].Text != "cash flows" {
		t.Fatalf("invoked %+v", fc.invoked)
	}
}

// TestRouterCancelsRoutedTask: when the route task ends (canceled, or its
// deadline passed) while the routed task runs, the routed task is
// canceled too.
func TestRouterCancelsRoutedTask(t *testing.T) {
	fc := newFakeCaller()
	fc.answer = func(caller.Request) *caller.StoredResult { return nil }
	r := newRouter(t, fc, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.Handle(ctx, firstTurn("Compute the net present value of my cash flows"))
		done <- err
	}()
	testenv.Eventually(t, "the request is routed", func() bool {
		fc.mu.Lock()
		defer fc.mu.Unlock()
		return len(fc.invoked) == 1
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if len(fc.canceled) != 1 || fc.canceled[0] != "sub-1" {
		t.Fatalf("canceled %v", fc.canceled)
	}
}
