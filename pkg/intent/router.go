// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package intent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/agent"
	"github.com/a2abus/a2abus/pkg/caller"
)

// DefaultSkill is the id of the route skill.
const DefaultSkill = "route"

// Invoker is the calling side the Router routes through (*caller.Caller
// implements it).
type Invoker interface {
	Invoke(ctx context.Context, req caller.Request) (caller.Invocation, error)
	Wait(ctx context.Context, taskID string, onStatus caller.StatusFunc) (*caller.Outcome, error)
	Cancel(ctx context.Context, taskID string) error
	Reply(ctx context.Context, r caller.Reply) (caller.Invocation, error)
}

// Directory lists the known agents (*directory.Directory implements it).
type Directory interface {
	List(f directory.Filter) []directory.Entry
}

// LocalSkill is a skill of the Router's own agent it may route to: it runs
// in-process, on the route task, rather than through the bus (an agent
// cannot call itself).
type LocalSkill struct {
	Skill   a2a.AgentSkill
	Handler agent.Handler
}

// Options configures a Router.
type Options struct {
	// Self is the name of the agent the route skill runs on: its card is
	// not a candidate, only its Local skills are. Required.
	Self string
	// Skill is the route skill's id; default DefaultSkill.
	Skill string
	// Directory lists the candidates: every skill of every agent it knows
	// but Self and the agents of the task's call chain. Required.
	Directory Directory
	// Local are Self's skills the Router may route to (the Orchestrator's
	// workflows).
	Local []LocalSkill
	// Classifier classifies; nil means Matcher. When it fails (a model
	// down, a bad answer twice), the Matcher classifies instead and the
	// result says so in a warning.
	Classifier Classifier
	// Caller calls the routed agents. Required.
	Caller Invoker
	// Bounds are the decision's bounds; nil means DefaultBounds.
	Bounds *Bounds
	// MaxQuestions is how many questions one task asks at most before it
	// decides with what it has; 0 means DefaultMaxQuestions.
	MaxQuestions int
	// Logger receives a line per decision; nil logs nowhere.
	Logger *zap.Logger
}

// Router is the route skill's handler (Handle).
type Router struct {
	opts   Options
	bounds Bounds
	local  map[string]LocalSkill
}

// NewRouter checks opts and returns the Router.
func NewRouter(opts Options) (*Router, error) {
	switch {
	case opts.Self == "" || opts.Directory == nil || opts.Caller == nil:
		return nil, fmt.Errorf("%w: Self, Directory and Caller are required", ErrInvalidOptions)
	case opts.MaxQuestions < 0:
		return nil, fmt.Errorf("%w: MaxQuestions must not be negative, got %d", ErrInvalidOptions, opts.MaxQuestions)
	}
	opts.Skill = cmp.Or(opts.Skill, DefaultSkill)
	if opts.MaxQuestions == 0 {
		opts.MaxQuestions = DefaultMaxQuestions
	}
	if opts.Classifier == nil {
		opts.Classifier = Matcher{}
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	b := DefaultBounds()
	if opts.Bounds != nil {
		b = *opts.Bounds
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	r := &Router{opts: opts, bounds: b, local: map[string]LocalSkill{}}
	for _, l := range opts.Local {
		switch {
		case l.Handler == nil:
			return nil, fmt.Errorf("%w: local skill %q has no handler", ErrInvalidOptions, l.Skill.ID)
		case l.Skill.ID == opts.Skill:
			return nil, fmt.Errorf("%w: local skill %q is the route skill itself", ErrInvalidOptions, l.Skill.ID)
		}
		r.local[l.Skill.ID] = l
	}
	return r, nil
}

// Handle is the route skill: it classifies the task's request (on a later
// turn, with the user's answers), decides, and routes, asks or declines.
// Every result carries the Report (ReportArtifactID).
func (r *Router) Handle(ctx context.Context, t *agent.Task) (*agent.Result, error) {
	conv := readConversation(t)
	if conv.request == "" && len(t.Request.Input) == 0 {
		return nil, a2a.NewError(a2a.CodeInvalidInput, "route: the request has no text to classify")
	}
	if last := conv.last; last != nil && last.Relayed && last.RoutedTask != "" {
		return r.relay(ctx, t, last, conv.answer)
	}
	cands := r.candidates(t)
	if t.Turn() > 0 && conv.last == nil && conv.answer != "" {
		// The history lost the question's report (a caller that keeps only
		// the question's text): ask it again of the first request.
		first, _ := r.classify(ctx, t, Request{Text: conv.request, Candidates: cands})
		if first == nil {
			return nil, ctx.Err()
		}
		d, routings := Decide(first, r.bounds, true)
		conv.last = &Report{Classification: *first, Decision: d, Options: options(routings)}
	}
	conv.note(conv.last, conv.answer)
	if last := conv.last; last != nil && last.Decision == DecisionChoose {
		if o, ok := pickOption(last.Options, conv.answer); ok {
			rep := &Report{Classification: last.Classification, Decision: DecisionRoute}
			rep.PrimaryIntent, rep.TargetAgent, rep.TargetCapability, rep.IntentConfidence = o.Intent, o.Agent, o.Capability, 1
			rep.Alternatives = nil
			return r.route(ctx, t, rep, conv)
		}
	}
	req := Request{Text: conv.query(), Candidates: cands}
	cls, warnings := r.classify(ctx, t, req)
	if cls == nil {
		return nil, ctx.Err()
	}
	rep := &Report{Warnings: warnings}
	rep.Classification = *cls
	decision, routings := Decide(cls, r.bounds, t.Turn() < r.opts.MaxQuestions)
	rep.Decision = decision
	r.opts.Logger.Info("route: classified", zap.String("task", t.Request.TaskID), zap.Int("turn", t.Turn()), zap.String("decision", string(decision)),
		zap.String("intent", cls.PrimaryIntent), zap.Float64("confidence", cls.IntentConfidence), zap.String("agent", cls.TargetAgent), zap.String("skill", cls.TargetCapability))
	switch decision {
	case DecisionDecline:
		return r.decline(rep, cands), nil
	case DecisionClarify:
		return r.clarify(rep, cands), nil
	case DecisionChoose:
		return r.choose(rep, routings, cands), nil
	}
	p := routings[0]
	rep.PrimaryIntent, rep.TargetAgent, rep.TargetCapability, rep.IntentConfidence = p.Intent, p.Agent, p.Capability, p.Confidence
	return r.route(ctx, t, rep, conv)
}

// classify classifies req with the classifier, or — when it fails — with
// the matcher, returning a warning that says so. It returns nil only when
// ctx ended.
func (r *Router) classify(ctx context.Context, t *agent.Task, req Request) (*Classification, []string) {
	cls, err := r.opts.Classifier.Classify(ctx, req)
	if err == nil {
		return cls, nil
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	r.opts.Logger.Warn("route: the classifier failed; the matcher classifies instead", zap.String("task", t.Request.TaskID), zap.Error(err))
	return Match(req), []string{"the model could not classify the request (" + text.Cut(err.Error(), 300) + "); the keyword matcher classified it instead"}
}

// options are routings as options "1", "2", ….
func options(routings []Routing) []Option {
	out := make([]Option, len(routings))
	for i, rt := range routings {
		out[i] = Option{ID: fmt.Sprint(i + 1), Routing: rt}
	}
	return out
}

// candidates are the skills the task may be routed to, sorted by agent and
// skill: every skill of the directory's agents but Self's and those of the
// agents in the task's call chain (a call to them would close a cycle),
// then Self's local skills.
func (r *Router) candidates(t *agent.Task) []Candidate {
	skip := func(name string) bool {
		if a2a.SameAgent(name, r.opts.Self) || a2a.SameAgent(name, t.Request.Caller) {
			return true
		}
		return slices.ContainsFunc(t.Request.CallChain, func(c string) bool { return a2a.SameAgent(c, name) })
	}
	var out []Candidate
	for _, e := range r.opts.Directory.List(directory.Filter{}) {
		if skip(e.Name) {
			continue
		}
		for _, s := range e.Card.Skills {
			out = append(out, candidateOf(e.Name, e.Card.Description, len(e.Card.Skills) == 1, s))
		}
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Skill, b.Skill))
	})
	ids := make([]string, 0, len(r.local))
	for id := range r.local {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		out = append(out, candidateOf(r.opts.Self, "", len(ids) == 1, r.local[id].Skill))
	}
	return out
}

// candidateOf is skill s of agent name as a candidate.
func candidateOf(name, agentDesc string, single bool, s a2a.AgentSkill) Candidate {
	return Candidate{Agent: name, Skill: s.ID, Name: s.Name, Description: s.Description, Tags: s.Tags, Examples: s.Examples,
		AgentDescription: agentDesc, SingleSkill: single}
}

// maxListedSkills bounds the skills a decline lists.
const maxListedSkills = 20

// decline is the completed result saying no agent fits, and what the mesh
// can do.
func (r *Router) decline(rep *Report, cands []Candidate) *agent.Result {
	var b strings.Builder
	b.WriteString("None of the agents I can reach can do this.")
	if len(cands) == 0 {
		b.WriteString(" No agent is known right now.")
	} else {
		b.WriteString(" What they can do:")
		writeSkills(&b, cands)
	}
	res := agent.TextResult(b.String())
	res.Artifacts = []*a2a.Artifact{rep.artifact()}
	res.Warnings = append([]string{"no agent fits the request"}, rep.Warnings...)
	res.Confidence = Level(1 - rep.IntentConfidence) // the weaker the best fit, the surer that nothing fits
	return res
}

// Level maps a confidence within 0..1 onto the contract's levels: HIGH from
// 0.85, MEDIUM from 0.6, LOW from 0.3, SPECULATIVE below.
func Level(p float64) a2a.Confidence {
	switch {
	case p >= 0.85:
		return a2a.ConfidenceHigh
	case p >= 0.6:
		return a2a.ConfidenceMedium
	case p >= 0.3:
		return a2a.ConfidenceLow
	}
	return a2a.ConfidenceSpeculative
}

// writeSkills lists cands' skills, one a line, at most maxListedSkills.
func writeSkills(b *strings.Builder, cands []Candidate) {
	for i, c := range cands {
		if i == maxListedSkills {
			fmt.Fprintf(b, "\n- and %d more", len(cands)-i)
			break
		}
		fmt.Fprintf(b, "\n- %s", describe(c))
	}
}

// describe is "Name (agent): description" of c, cut for a list.
func describe(c Candidate) string {
	d := c.Description
	if d == "" && c.SingleSkill {
		d = c.AgentDescription
	}
	s := cmp.Or(c.Name, c.Skill) + " (" + c.Agent + ")"
	if d != "" {
		s += ": " + text.Cut(strings.Join(strings.Fields(d), " "), 160)
	}
	return s
}

// find is the candidate of target t.
func find(cands []Candidate, t Target) (Candidate, bool) {
	for _, c := range cands {
		if c.Target() == t {
			return c, true
		}
	}
	return Candidate{}, false
}

// clarify asks the user to say more, naming the closest routing.
func (r *Router) clarify(rep *Report, cands []Candidate) *agent.Result {
	q := "I am not sure what you need. Could you say more about what you want done?"
	if c, ok := find(cands, Target{Agent: rep.TargetAgent, Capability: rep.TargetCapability}); ok {
		q += " The closest thing I can do is " + describe(c)
	}
	return ask(rep, q)
}

// choose offers routings as options "1", "2", ….
func (r *Router) choose(rep *Report, routings []Routing, cands []Candidate) *agent.Result {
	var b strings.Builder
	b.WriteString("Several agents could do this. Which do you mean? Answer with the number or the name.")
	var opts []a2a.Option
	rep.Options = options(routings)
	for _, o := range rep.Options {
		rt := o.Routing
		c, _ := find(cands, rt.Target())
		label := cmp.Or(c.Name, rt.Capability) + " (" + rt.Agent + ")"
		desc := text.Cut(strings.Join(strings.Fields(cmp.Or(c.Description, c.AgentDescription)), " "), 160)
		opts = append(opts, a2a.Option{ID: o.ID, Label: label, Description: desc})
		fmt.Fprintf(&b, "\n%s. %s", o.ID, describe(c))
	}
	res := ask(rep, b.String())
	res.Question.Options = opts
	return res
}

// ask is a question ending the turn: its message carries the report as a
// data part (the task's history keeps it for the next turn), and the
// artifact too.
func ask(rep *Report, q string) *agent.Result {
	res := agent.Ask(q)
	res.Message.Parts = append(res.Message.Parts, a2a.NewDataPart(rep.data()))
	res.Artifacts = []*a2a.Artifact{rep.artifact()}
	res.Warnings = rep.Warnings
	return res
}

// errNoRouting: a routed call's outcome was lost.
var errNoRouting = errors.New("intent: the routed task has no outcome")
