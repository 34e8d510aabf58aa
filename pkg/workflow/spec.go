// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// MaxRetries bounds a step's retries.
const MaxRetries = 10

// Workflow is a named sequence of steps and parallel groups. Build one in Go
// or load it from YAML (Parse, Load, LoadDir); Validate checks every rule.
type Workflow struct {
	// Name names the workflow; it is the skill id the Orchestrator exposes.
	Name string `json:"name" yaml:"name"`
	// Description says what the workflow does (the skill's description).
	Description string `json:"description,omitempty" yaml:"description"`
	// Defaults are input fields a run's input does not give (top level).
	Defaults map[string]any `json:"defaults,omitempty" yaml:"defaults"`
	// Constraints are the run's constraints, passed to every step in the
	// handoff context; a run's own constraints override them by key.
	Constraints map[string]any `json:"constraints,omitempty" yaml:"constraints"`
	// Steps run in order; a Node is one step or one parallel group.
	Steps []*Node `json:"steps" yaml:"steps"`
	// File is where the workflow was loaded from ("" for one built in Go).
	File string `json:"file,omitempty" yaml:"-"`
}

// Node is one element of a workflow's sequence: a Step, or a Group whose
// steps run in parallel. Exactly one is set.
type Node struct {
	Step  *Step  `json:"step,omitempty"`
	Group *Group `json:"group,omitempty"`
}

// Group runs its steps in parallel (fan-out) and waits for all of them, or
// for Quorum of them to succeed (the others are then canceled).
type Group struct {
	// ID names the group in reports (default "group<N>").
	ID string `json:"id,omitempty"`
	// Quorum is how many steps must succeed; 0 means all of them.
	Quorum int     `json:"quorum,omitempty"`
	Steps  []*Step `json:"steps"`
}

// Step invokes one agent's skill.
type Step struct {
	// ID names the step; later steps refer to its output as ${steps.<ID>…}.
	ID string `json:"id" yaml:"id"`
	// Title describes the step for people ("Financial Analysis"); default ID.
	Title string `json:"title,omitempty" yaml:"title"`
	Agent string `json:"agent" yaml:"agent"`
	Skill string `json:"skill" yaml:"skill"`
	// Text is the message sent (templated, see Render); Input the structured
	// input, a JSON value whose strings are templated.
	Text  string `json:"text,omitempty" yaml:"text"`
	Input any    `json:"input,omitempty" yaml:"input"`
	// Timeout is each attempt's time allowed; 0 means the caller's default.
	Timeout time.Duration `json:"timeout,omitempty" yaml:"timeout"`
	// Retries is how many more attempts a failed attempt gets (0..MaxRetries),
	// unless its error cannot be cured by retrying (see a2a.Error.ShouldRetry).
	Retries int `json:"retries,omitempty" yaml:"retries"`
	// Optional steps that fail make the run PARTIAL instead of ERROR.
	Optional bool `json:"optional,omitempty" yaml:"optional"`
	// NoCompare leaves the step's data out of the conflict check.
	NoCompare bool `json:"noCompare,omitempty" yaml:"no_compare"`
}

// Name is the step's title, or its ID without one.
func (s *Step) Name() string {
	if s.Title != "" {
		return s.Title
	}
	return s.ID
}

// ErrInvalid is wrapped by every *SpecError.
var ErrInvalid = errors.New("workflow: invalid workflow")

// SpecError names what is wrong with a workflow: the file, the field path
// (steps[1].parallel[0].agent) and the rule broken.
type SpecError struct {
	File, Field, Rule string
	Err               error
}

// Error formats the file, field and rule.
func (e *SpecError) Error() string {
	var b strings.Builder
	b.WriteString("workflow")
	if e.File != "" {
		b.WriteString(" " + e.File)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Rule)
	return b.String()
}

// Unwrap returns ErrInvalid and the cause, if any.
func (e *SpecError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalid, e.Err}
	}
	return []error{ErrInvalid}
}

// stepIDRule is the rule of step and group ids; stepIDPattern checks it
// but the length (at most 64), checked apart by validStepID: a counted
// repetition compiles to a program of one step per count, which every
// process built at start.
const stepIDRule = `^[A-Za-z][A-Za-z0-9_]{0,63}$`

var stepIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// validStepID reports whether id follows stepIDRule.
func validStepID(id string) bool { return len(id) <= 64 && stepIDPattern.MatchString(id) }

// Validate checks every rule: a valid name (a skill id), at least one step,
// unique step ids usable in templates, valid agent names and skills, a text
// or an input per step, timeouts and retries in range, quorums within their
// groups, and templates that refer only to the input, the request and
// steps that end before the referring step starts.
func (w *Workflow) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &SpecError{File: w.File, Field: field, Rule: fmt.Sprintf(format, args...)}
	}
	if err := a2a.ValidateSkillID(w.Name); err != nil {
		return bad("name", "%v", err)
	}
	if len(w.Steps) == 0 {
		return bad("steps", "a workflow needs at least one step")
	}
	earlier := map[string]bool{} // steps that end before the current node starts
	seen := map[string]string{}
	groups := map[string]bool{}
	for i, n := range w.Steps {
		field := fmt.Sprintf("steps[%d]", i)
		switch {
		case n == nil || (n.Step == nil) == (n.Group == nil):
			return bad(field, "must be a step (id, agent, skill…) or a parallel group (parallel: [steps]), not both or neither")
		case n.Step != nil:
			if err := w.checkStep(field, n.Step, earlier, seen); err != nil {
				return err
			}
			earlier[n.Step.ID] = true
		default:
			g := n.Group
			if g.ID == "" {
				g.ID = fmt.Sprintf("group%d", i+1)
			}
			if !validStepID(g.ID) || groups[g.ID] {
				return bad(field+".id", "group id %q must be unique and match %s", g.ID, stepIDRule)
			}
			groups[g.ID] = true
			if len(g.Steps) == 0 {
				return bad(field+".parallel", "a parallel group needs at least one step")
			}
			if g.Quorum < 0 || g.Quorum > len(g.Steps) {
				return bad(field+".quorum", "must be between 1 and the group's %d steps (0 or absent: all), got %d", len(g.Steps), g.Quorum)
			}
			for j, s := range g.Steps {
				if err := w.checkStep(fmt.Sprintf("%s.parallel[%d]", field, j), s, earlier, seen); err != nil {
					return err
				}
			}
			for _, s := range g.Steps {
				earlier[s.ID] = true
			}
		}
	}
	return nil
}

func (w *Workflow) checkStep(field string, s *Step, earlier map[string]bool, seen map[string]string) error {
	bad := func(sub, format string, args ...any) error {
		return &SpecError{File: w.File, Field: field + sub, Rule: fmt.Sprintf(format, args...)}
	}
	if s == nil {
		return bad("", "empty step")
	}
	if !validStepID(s.ID) {
		return bad(".id", "step id %q must match %s (it is used in templates)", s.ID, stepIDRule)
	}
	if prev, ok := seen[s.ID]; ok {
		return bad(".id", "step id %q is already used by %s", s.ID, prev)
	}
	seen[s.ID] = field
	if err := a2a.ValidateAgentName(s.Agent); err != nil {
		return bad(".agent", "%v", err)
	}
	if err := a2a.ValidateSkillID(s.Skill); err != nil {
		return bad(".skill", "%v", err)
	}
	if strings.TrimSpace(s.Text) == "" && s.Input == nil {
		return bad("", "step %q needs a text or an input", s.ID)
	}
	if s.Timeout < 0 {
		return bad(".timeout", "must not be negative, got %s", s.Timeout)
	}
	if s.Retries < 0 || s.Retries > MaxRetries {
		return bad(".retries", "must be between 0 and %d, got %d", MaxRetries, s.Retries)
	}
	refs, err := references(s.Text)
	if err != nil {
		return bad(".text", "%v", err)
	}
	more, err := valueReferences(s.Input)
	if err != nil {
		return bad(".input", "%v", err)
	}
	for _, r := range append(refs, more...) {
		if r.root == rootSteps && !earlier[r.step] {
			if _, ok := seen[r.step]; ok && r.step != s.ID {
				return bad("", "%s refers to step %q, which runs in parallel with or after step %q", r.raw, r.step, s.ID)
			}
			return bad("", "%s refers to step %q, which does not run before step %q", r.raw, r.step, s.ID)
		}
	}
	return nil
}

// Digest identifies what w runs — everything but the file it was loaded
// from — as the hex SHA-256 of its JSON. A stored run keeps the digest of
// the workflow it started with; Execute resumes it only with that workflow.
func (w *Workflow) Digest() (string, error) {
	c := *w
	c.File = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("workflow: digest of %s: %w", w.Name, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// StepList is the workflow's steps in workflow order, groups flattened.
func (w *Workflow) StepList() []*Step {
	var out []*Step
	for _, n := range w.Steps {
		if n.Step != nil {
			out = append(out, n.Step)
		} else if n.Group != nil {
			out = append(out, n.Group.Steps...)
		}
	}
	return out
}

// members returns n's steps (the one step, or the group's), the group's id
// ("" for a step) and its quorum (0: all of them).
func (n *Node) members() ([]*Step, string, int) {
	if n.Group != nil {
		return n.Group.Steps, n.Group.ID, n.Group.Quorum
	}
	return []*Step{n.Step}, "", 0
}
