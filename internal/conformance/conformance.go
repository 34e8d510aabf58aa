// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package conformance drives a running agent, whatever its language,
// through the a2abus wire protocol (docs/wire-protocol.md) over RabbitMQ and
// reports pass or fail per requirement (docs/conformance.md lists them).
// It speaks AMQP itself (amqp091-go), not through bus.Bus, so that it can
// send what the bus never would — malformed bodies, exhausted attempt
// counts, expired requests — and see exactly what the agent puts on the
// wire. It touches only the agent's queues and its own exclusive ones.
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// ErrInvalidOptions: the kit was given options it cannot run with.
var ErrInvalidOptions = errors.New("conformance: invalid options")

// Level is how binding a requirement is (RFC 2119): a failed MUST fails the run.
type Level string

// Requirement levels.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
)

// Outcome of one check.
type Outcome string

// Outcomes: a skipped check was not run (what it needs was not given); a
// warned one found something the contract asks for missing, which does not
// fail the run.
const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	Skip Outcome = "skip"
	Warn Outcome = "warn"
)

// Options says which agent to drive and how.
type Options struct {
	// URL is the broker's AMQP URL.
	URL string
	// Exchange is the bus exchange; "" means a2a.DefaultExchange.
	Exchange string
	// Agent is the name of the agent under test.
	Agent string
	// Caller is the caller name the kit uses; "" means Conformance<random>.
	Caller string
	// Skill and Input: the round trip's skill (default echo) and text
	// (default "conformance ping"); Expect is text the result must contain
	// ("" means Input; "-" checks nothing).
	Skill, Input, Expect string
	// ErrorSkill answers its Input with a task.error (default fail, input "conformance failure").
	ErrorSkill, ErrorInput string
	// SlowSkill runs for the milliseconds of SlowInput unless canceled (default sleep, "30000").
	SlowSkill, SlowInput string
	// AskSkill is a skill that asks its caller a question on its first turn
	// (default clarify, input AskInput, default "conformance"); AskAnswer is
	// the answer sent on the next turn (default the question's first
	// option's id, else "yes"). The checks of turns are skipped when the
	// card lists no AskSkill or it answers without asking: asking is
	// optional for agents.
	AskSkill, AskInput, AskAnswer string
	// QueueType is the bus.queue_type the agent's task queue was declared with: classic (default) or quorum.
	QueueType string
	// MaxAttempts is the agent's bus.max_attempts (default 5).
	MaxAttempts int
	// Timeout bounds each wait for an answer (default 15s).
	Timeout time.Duration
	// Secret, when set, is directory.announce_secret: announcements must be signed with it.
	Secret []byte
	// Stop, when set, stops the agent after the other checks, so that its
	// deregistration can be checked. Without it, AwaitStop > 0 waits that
	// long for someone else to stop it (Notify is told when); else the
	// check is skipped.
	Stop      func(ctx context.Context) error
	AwaitStop time.Duration
	// Notify receives a line for the operator (e.g. "stop the agent now"); nil discards it.
	Notify func(string)

	instance string // the kit's own instance id
}

// normalize fills the defaults and checks the names.
func (o *Options) normalize() error {
	if o.URL == "" {
		return fmt.Errorf("%w: no broker URL (bus.url)", ErrInvalidOptions)
	}
	var buf [6]byte
	_, _ = rand.Read(buf[:])
	suffix := hex.EncodeToString(buf[:])
	o.instance = "conf-" + suffix
	o.Exchange = or(o.Exchange, a2a.DefaultExchange)
	o.Caller = or(o.Caller, "Conformance"+suffix)
	o.Skill, o.Input = or(o.Skill, "echo"), or(o.Input, "conformance ping")
	o.ErrorSkill, o.ErrorInput = or(o.ErrorSkill, "fail"), or(o.ErrorInput, "conformance failure")
	o.SlowSkill, o.SlowInput = or(o.SlowSkill, "sleep"), or(o.SlowInput, "30000")
	o.AskSkill, o.AskInput = or(o.AskSkill, "clarify"), or(o.AskInput, "conformance")
	o.QueueType = or(o.QueueType, "classic")
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.Notify == nil {
		o.Notify = func(string) {}
	}
	for _, n := range []struct{ what, v string }{{"--agent", o.Agent}, {"caller name", o.Caller}} {
		if err := a2a.ValidateAgentName(n.v); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalidOptions, n.what, err)
		}
	}
	for _, s := range []string{o.Skill, o.ErrorSkill, o.SlowSkill, o.AskSkill} {
		if err := a2a.ValidateSkillID(s); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidOptions, err)
		}
	}
	if o.QueueType != "classic" && o.QueueType != "quorum" {
		return fmt.Errorf("%w: queue type must be classic or quorum, got %q", ErrInvalidOptions, o.QueueType)
	}
	if a2a.SameAgent(o.Agent, o.Caller) {
		return fmt.Errorf("%w: the caller name %q is the agent's", ErrInvalidOptions, o.Caller)
	}
	return nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Result is the outcome of one requirement.
type Result struct {
	ID      string        `json:"id"`
	Level   Level         `json:"level"`
	Title   string        `json:"title"`
	Outcome Outcome       `json:"outcome"`
	Detail  string        `json:"detail,omitempty"`
	Took    time.Duration `json:"tookNs"`
}

// Report is the outcome of a run.
type Report struct {
	Agent    string   `json:"agent"`
	Exchange string   `json:"exchange"`
	Results  []Result `json:"results"`
}

// Failed reports whether a MUST requirement failed.
func (r *Report) Failed() bool {
	for _, res := range r.Results {
		if res.Outcome == Fail && res.Level == Must {
			return true
		}
	}
	return false
}

// Counts returns how many checks passed (a warning included), failed and
// were skipped.
func (r *Report) Counts() (pass, fail, skip int) {
	for _, res := range r.Results {
		switch res.Outcome {
		case Pass, Warn:
			pass++
		case Fail:
			fail++
		case Skip:
			skip++
		}
	}
	return pass, fail, skip
}

// WriteTable prints one line per requirement and a summary.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "REQUIREMENT\tLEVEL\tRESULT\tTOOK\tDETAIL\n")
	for _, res := range r.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", res.ID, res.Level, strings.ToUpper(string(res.Outcome)),
			res.Took.Round(time.Millisecond), oneLine(or(res.Detail, res.Title)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	p, f, s := r.Counts()
	verdict := "conforms"
	if r.Failed() {
		verdict = "DOES NOT CONFORM"
	}
	warned := ""
	if n := r.Warned(); n > 0 {
		warned = fmt.Sprintf(" (%d with a warning)", n)
	}
	_, err := fmt.Fprintf(w, "%s on %q: %d passed%s, %d failed, %d skipped: %s\n", r.Agent, r.Exchange, p, warned, f, s, verdict)
	return err
}

// Warned returns how many checks passed with a warning.
func (r *Report) Warned() int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == Warn {
			n++
		}
	}
	return n
}

// WriteJSON prints the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// Run connects to the broker and drives opts.Agent through every check,
// in order. Its error is a failure to run at all (bad options, no broker);
// a requirement the agent does not meet is a failed Result.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.normalize(); err != nil {
		return nil, err
	}
	s, err := dial(opts)
	if err != nil {
		return nil, err
	}
	defer s.close()
	k := &kit{s: s, o: opts}
	rep := &Report{Agent: opts.Agent, Exchange: opts.Exchange}
	for _, c := range k.checks() {
		start := time.Now()
		res := Result{ID: c.id, Level: c.level, Title: c.title}
		if err := ctx.Err(); err != nil {
			res.Outcome, res.Detail = Skip, "run interrupted: "+err.Error()
		} else {
			res.Outcome, res.Detail = c.run(ctx)
		}
		res.Took = time.Since(start)
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}
