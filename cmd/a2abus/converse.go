// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/config"
	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/cliutil"
	"github.com/a2abus/a2abus/pkg/a2a"
	"github.com/a2abus/a2abus/pkg/converse"
	"github.com/a2abus/a2abus/pkg/node"
)

// converseFlags are the flags of the converse commands that drive.
type converseFlags struct {
	as            string
	asJSON        bool
	leaseTTL      time.Duration
	directoryWait time.Duration
	leaseWait     time.Duration
	sharedCalls   int
}

// newConverseCmd builds `a2abus converse start|resume|pause|stop|takeover|approve|status`.
func newConverseCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use: "converse",
		Example: "  a2abus converse start --local Drafter --remote Reviewer --objective \"agree on the API\" --allow\n" +
			"  a2abus converse status cv0123456789abcdef0123\n  a2abus converse pause cv0123456789abcdef0123",
		Short: "Orchestrate a conversation between a local and a remote agent",
		Long: "The orchestrator asks the local agent for a draft, sends it to the remote agent, feeds the reply back and\n" +
			"loops, one turn in flight, until a limit, the local agent or a person ends it. The conversation lives in\n" +
			"working memory: any process may control it (pause, resume, stop, takeover, approve) and a killed\n" +
			"orchestrator is replaced with `converse resume ID` without a turn being sent twice. See docs/converse.md.",
	}
	var f converseFlags
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.as, "as", "Converse", "the orchestrator's caller name (the caller the agents see)")
	pf.BoolVar(&f.asJSON, "json", false, "print JSON (events as NDJSON while driving)")
	pf.DurationVar(&f.leaseTTL, "lease-ttl", converse.DefaultLeaseTTL, "how long a killed orchestrator keeps the conversation before another may drive it")
	pf.DurationVar(&f.directoryWait, "directory-wait", 0, "how long an agent the directory does not know yet may take to announce itself (default directory.vet_wait)")
	pf.IntVar(&f.sharedCalls, "max-shared-calls", converse.DefaultMaxSharedCalls, "sends to remote agents in flight at once per local agent, across processes (the same in every process)")
	pf.DurationVar(&f.leaseWait, "lease-wait", 0, "resume: how long to wait for a dead orchestrator's lease to expire (default twice --lease-ttl)")
	cmd.AddCommand(newConverseStartCmd(c, &f), newConverseResumeCmd(c, &f), newConverseStatusCmd(c, &f))
	for _, k := range []struct{ kind, short string }{
		{converse.CmdPause, "Pause: the turn in flight ends, nothing new is sent until resume"},
		{converse.CmdStop, "Stop the conversation for good (a call in flight is canceled)"},
		{converse.CmdTakeover, "Take over: every next message is written by a person (approve --text)"},
		{converse.CmdApprove, "Approve the draft waiting for review, or send --text instead"},
	} {
		cmd.AddCommand(newConverseControlCmd(c, k.kind, k.short))
	}
	return cmd
}

func newConverseStartCmd(c *cli, f *converseFlags) *cobra.Command {
	var s converse.Spec
	var mode, threshold string
	var allow bool
	cmd := &cobra.Command{
		Use: "start --local AGENT --remote AGENT --objective TEXT",
		Example: "  a2abus converse start --local Drafter --remote Reviewer --objective \"agree on the API\" --mode semi_auto --allow\n" +
			"  a2abus converse start --local Drafter --remote Reviewer --objective \"review the plan\" --mode manual --json",
		Short: "Start a conversation and drive it until it ends",
		Long: "Records a new conversation, prints its id and drives it in the foreground, printing its events. The pair must\n" +
			"be allowed: a policy.rules entry for the local agent whose allow list names the remote, or --allow (a deny\n" +
			"in policy.rules wins). Exit 0 when it completed or was stopped, 2 when it ended in error, 3 when the pair is refused.",
		Args: cobra.NoArgs,
		RunE: c.withConfig(func(ctx context.Context, e *env, _ []string) error {
			if err := checkConverseBounds(s, f); err != nil {
				return err
			}
			m, err := converse.ParseMode(mode)
			if err != nil {
				return fmt.Errorf("--mode: %w", err)
			}
			s.Mode, s.Threshold, s.Consent, s.Requester = m, a2a.Confidence(strings.ToUpper(threshold)), allow, requester()
			return runConverse(ctx, e, f, func(ctx context.Context, o *orchestrator) error {
				if s.LocalSkill, err = o.skillOf(ctx, s.Local, s.LocalSkill, "--local-skill"); err != nil {
					return err
				}
				if s.RemoteSkill, err = o.skillOf(ctx, s.Remote, s.RemoteSkill, "--remote-skill"); err != nil {
					return err
				}
				cv, err := o.Start(ctx, s)
				if errors.Is(err, converse.ErrForbidden) || errors.Is(err, converse.ErrLoop) {
					return &cliutil.ExitError{Code: cliutil.ExitRefused, Err: err} // refused before anything was sent
				}
				if err != nil {
					return err
				}
				if !f.asJSON {
					fmt.Fprintf(e.Out, "conversation %s: %s ⇄ %s, %s\n", cv.ID, cv.Spec.Local, cv.Spec.Remote, cv.Spec.Mode)
				}
				return o.drive(ctx, e, cv.ID)
			})
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&s.Local, "local", "", "the agent that drafts the messages")
	fl.StringVar(&s.Remote, "remote", "", "the agent the messages go to")
	fl.StringVar(&s.Objective, "objective", "", "what the local agent is to achieve")
	fl.StringVar(&s.LocalSkill, "local-skill", "", "the local agent's skill (default: its only skill)")
	fl.StringVar(&s.RemoteSkill, "remote-skill", "", "the remote agent's skill (default: its only skill)")
	fl.StringVar(&mode, "mode", "manual", "manual, semi_auto or full_auto")
	fl.StringVar(&threshold, "threshold", "MEDIUM", "semi_auto: the lowest draft confidence sent without review (HIGH, MEDIUM, LOW, SPECULATIVE)")
	fl.BoolVar(&allow, "allow", false, "allow this pair for this conversation (recorded with it), besides policy.rules")
	fl.IntVar(&s.Limits.MaxTurns, "max-turns", converse.DefaultMaxTurns, "exchanges (send and reply) before it completes")
	fl.DurationVar(&s.Limits.MaxDuration, "max-duration", converse.DefaultMaxDuration, "wall time before it completes, pauses included")
	fl.IntVar(&s.Limits.MaxFailures, "max-failures", converse.DefaultMaxFailures, "consecutive failed calls before it ends in error")
	fl.Int64Var(&s.Limits.TokenBudget, "token-budget", 0, "tokens (as the agents report them) before it completes; 0: no budget")
	fl.DurationVar(&s.Limits.LocalTimeout, "local-timeout", 0, "time allowed for one draft (default 60s, at most that; 120s with --allow-tool-use)")
	fl.BoolVar(&s.AllowToolUse, "allow-tool-use", false, "tell the local agent it may use tools while drafting (raises --local-timeout's default and bound to 120s)")
	fl.DurationVar(&s.Limits.RemoteTimeout, "remote-timeout", converse.DefaultRemoteTimeout, "time allowed for one reply")
	fl.IntVar(&s.History.MaxTurns, "history-turns", converse.DefaultMaxHistoryTurns, "messages of history given to the local agent")
	fl.IntVar(&s.History.MaxChars, "history-chars", converse.DefaultMaxHistoryChars, "characters of history given to the local agent")
	for _, name := range []string{"local", "remote", "objective"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// checkConverseBounds refuses a negative limit or history flag, and a
// local timeout above its bound, naming the flag.
func checkConverseBounds(s converse.Spec, f *converseFlags) error {
	l, h := s.Limits, s.History
	for _, b := range []struct {
		flag  string
		value any
		bad   bool
	}{
		{"--max-shared-calls", f.sharedCalls, f.sharedCalls < 0},
		{"--max-turns", l.MaxTurns, l.MaxTurns < 0}, {"--max-duration", l.MaxDuration, l.MaxDuration < 0},
		{"--max-failures", l.MaxFailures, l.MaxFailures < 0}, {"--token-budget", l.TokenBudget, l.TokenBudget < 0},
		{"--local-timeout", l.LocalTimeout, l.LocalTimeout < 0}, {"--remote-timeout", l.RemoteTimeout, l.RemoteTimeout < 0},
		{"--history-turns", h.MaxTurns, h.MaxTurns < 0}, {"--history-chars", h.MaxChars, h.MaxChars < 0},
	} {
		if b.bad {
			return &cliutil.UsageError{Err: fmt.Errorf("%s: must not be negative, got %v", b.flag, b.value)}
		}
	}
	if bound := converse.DefaultLocalTimeout; !s.AllowToolUse && l.LocalTimeout > bound {
		return &cliutil.UsageError{Err: fmt.Errorf("--local-timeout: %s is above %s, the bound without tool use (--allow-tool-use allows up to %s)",
			l.LocalTimeout, bound, converse.DefaultToolUseTimeout)}
	}
	if bound := converse.DefaultToolUseTimeout; l.LocalTimeout > bound {
		return &cliutil.UsageError{Err: fmt.Errorf("--local-timeout: %s is above %s, the bound with tool use", l.LocalTimeout, bound)}
	}
	return nil
}

func newConverseResumeCmd(c *cli, f *converseFlags) *cobra.Command {
	return &cobra.Command{
		Use:     "resume ID",
		Example: "  a2abus converse resume cv0123456789abcdef0123",
		Short:   "Resume a paused conversation, or drive one whose orchestrator died",
		Long: "When a process drives the conversation, resume is sent to it. Otherwise this process drives it from its\n" +
			"saved state (after the dead orchestrator's lease expires): a send that was made is not made again. A\n" +
			"conversation that ended in error because its local agent was unavailable is reopened at its turn and driven.",
		Args: cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			id := args[0]
			return runConverse(ctx, e, f, func(ctx context.Context, o *orchestrator) error {
				cv, err := converse.Load(ctx, o.n.Memory, id)
				if err != nil {
					return err
				}
				if cv.State == converse.Failed && cv.Cause == converse.CauseLocalUnavailable {
					// The person's action the error asked for: the agent runs again.
					if _, err := o.Reopen(ctx, id, requester()); err != nil {
						return err
					}
					return o.drive(ctx, e, id)
				}
				if cv.State.Terminal() {
					return printConversation(e.Out, cv, f.asJSON)
				}
				_, err = converse.Send(ctx, o.n.Bus, o.n.Memory, id, converse.Command{Kind: converse.CmdResume, By: requester()})
				switch {
				case err == nil:
					fmt.Fprintf(e.Out, "conversation %s: resume sent to the orchestrator driving it\n", id)
					return nil
				case !errors.Is(err, converse.ErrNotDriven):
					return err
				}
				wait := f.leaseWait
				if wait <= 0 {
					wait = 2 * f.leaseTTL
				}
				until := time.Now().Add(wait)
				for {
					err := o.drive(ctx, e, id)
					if !errors.Is(err, converse.ErrDriven) || time.Now().After(until) {
						return err
					}
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(200 * time.Millisecond):
					}
				}
			})
		}),
	}
}

func newConverseControlCmd(c *cli, kind, short string) *cobra.Command {
	var text string
	cmd := &cobra.Command{
		Use:     kind + " ID",
		Example: "  a2abus converse " + kind + " cv0123456789abcdef0123",
		Short:   short,
		Args:    cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			n, err := e.OpenNode(ctx, "a2abus-converse-"+kind)
			if err != nil {
				return err
			}
			defer func() { _ = n.Close() }()
			seq, err := converse.Send(ctx, n.Bus, n.Memory, args[0], converse.Command{Kind: kind, Text: text, By: requester()})
			if errors.Is(err, converse.ErrNotDriven) {
				fmt.Fprintf(e.Err, "a2abus: note: no orchestrator drives %s now; %s is recorded and applies when `a2abus converse resume %s` runs\n", args[0], kind, args[0])
				return nil
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(e.Out, "%s sent to conversation %s (control #%d)\n", kind, args[0], seq)
			return nil
		}),
	}
	if kind == converse.CmdApprove {
		cmd.Flags().StringVar(&text, "text", "", "send this text instead of the draft (required after takeover)")
	}
	return cmd
}

func newConverseStatusCmd(c *cli, f *converseFlags) *cobra.Command {
	return &cobra.Command{
		Use:     "status ID",
		Example: "  a2abus converse status cv0123456789abcdef0123 --json",
		Short:   "Print a conversation's state, limits, transcript and recent events",
		Args:    cobra.ExactArgs(1),
		RunE: c.withConfig(func(ctx context.Context, e *env, args []string) error {
			m, err := node.Memory(ctx, e.Config, e.Log)
			if err != nil {
				return err
			}
			defer func() { _ = m.Close() }()
			cv, err := converse.Load(ctx, m, args[0])
			if err != nil {
				return err
			}
			return printConversation(e.Out, cv, f.asJSON)
		}),
	}
}

// orchestrator is the converse machinery of one command: node, directory,
// running caller and orchestrator.
type orchestrator struct {
	*converse.Orchestrator
	n   *node.Node
	vet directory.PatientResolver
	f   *converseFlags
}

// runConverse assembles an orchestrator through pkg/node and runs body on it.
func runConverse(ctx context.Context, e *env, f *converseFlags, body func(context.Context, *orchestrator) error) error {
	e.Config.Caller.Name = f.as // the orchestrator's caller, as the agents see it
	// It calls only the two agents of a conversation converse's own policy
	// admitted (deny by default: a policy.rules allow for the pair, or
	// --allow); a rule of the configuration for it wins.
	e.Config.Policy.Rules = withRules(e.Config.Policy.Rules, config.PolicyRule{Caller: f.as, Allow: []string{"*"}})
	oc, err := openCaller(ctx, e, max(f.directoryWait, 0)) // a directory always runs: the skills are found in it
	if err != nil {
		return err
	}
	defer oc.closeAll()
	if err := oc.run(); err != nil {
		return err
	}
	vet, err := oc.host.Resolver()
	if err != nil {
		return err
	}
	cl, n := oc.cl, oc.node
	out := eventPrinter(e.Out, f.asJSON)
	o, err := converse.New(converse.Options{
		Caller: cl, Bus: n.Bus, Memory: n.Memory, LeaseTTL: f.leaseTTL, MaxSharedCalls: f.sharedCalls, MemoryRetryBound: e.Config.Memory.RetryBound, Logger: e.Log,
		Policy:  converse.Policy{Rules: node.Policy(e.Config).Rules, Bus: n.Guard},
		OnEvent: func(c *converse.Conversation, ev converse.Event) { out(c, ev) },
	})
	if err != nil {
		return err
	}
	if err := oc.host.OnStop(node.TierWork, "converse orchestrator", o.Close); err != nil {
		return err
	}
	return body(ctx, &orchestrator{Orchestrator: o, n: n, vet: vet, f: f})
}

// drive drives conversation id to its end and prints the outcome; an
// ended-in-error conversation exits 2.
func (o *orchestrator) drive(ctx context.Context, e *env, id string) error {
	cv, err := o.Drive(ctx, id)
	if err != nil {
		if cv != nil && ctx.Err() != nil {
			fmt.Fprintf(e.Err, "a2abus: conversation %s left %s; `a2abus converse resume %s` drives it again\n", id, cv.Status(), id)
		}
		return err
	}
	if err := printConversation(e.Out, cv, o.f.asJSON); err != nil {
		return err
	}
	if cv.State == converse.Failed {
		return taskFailed(fmt.Errorf("conversation %s ended in error: %s", id, cv.Reason))
	}
	return nil
}

// skillOf is skill, or the only skill of agent's card when skill is "".
func (o *orchestrator) skillOf(ctx context.Context, agent, skill, flag string) (string, error) {
	if skill != "" {
		return skill, nil
	}
	if err := a2a.ValidateAgentName(agent); err != nil {
		return "", err
	}
	// A patient look-up makes the directory learn the agent (it asks the
	// running agents to announce); the skill named is only a probe.
	_, _ = o.vet.Resolve(ctx, agent, "converse-probe")
	en, ok := o.vet.Directory.Lookup(agent)
	if !ok {
		return "", fmt.Errorf("%s: agent %s is not known (not running, not well known): name its skill or start it", flag, agent)
	}
	ids := en.SkillIDs()
	if len(ids) != 1 {
		return "", fmt.Errorf("%s: %s has skills %s: name one", flag, en.Name, strings.Join(ids, ", "))
	}
	return ids[0], nil
}

// requester names the person at the terminal, for the audit.
func requester() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "cli"
}

// eventPrinter prints events as lines, or as NDJSON.
func eventPrinter(w io.Writer, asJSON bool) func(*converse.Conversation, converse.Event) {
	enc := json.NewEncoder(w)
	return func(c *converse.Conversation, ev converse.Event) {
		if asJSON {
			_ = enc.Encode(map[string]any{"conversation": c.ID, "event": ev})
			return
		}
		text := ev.Text
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		text = cliutil.Printable(strings.ReplaceAll(text, "\n", " "))
		switch ev.Kind {
		case converse.EventLimit:
			fmt.Fprintf(w, "*** %s ***\n", text)
		case converse.EventReview:
			fmt.Fprintf(w, "turn %d: %s — a2abus converse approve %s\n", ev.Turn, text, c.ID)
		default:
			fmt.Fprintf(w, "turn %d %-9s [%s] %s\n", ev.Turn, ev.Kind, ev.State, text)
		}
	}
}

// printConversation prints a conversation's record.
func printConversation(w io.Writer, c *converse.Conversation, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(c)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "conversation %s: %s ⇄ %s (%s), state %s", c.ID, c.Spec.Local, c.Spec.Remote, c.Spec.Mode, c.Status())
	if c.Limit != "" {
		fmt.Fprintf(&b, ", limit %s", c.Limit)
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, ": %s", c.Reason)
	}
	fmt.Fprintf(&b, "\nobjective: %s\nexchanges %d/%d, failures %d/%d, tokens %d", c.Spec.Objective, c.Exchanges,
		c.Spec.Limits.MaxTurns, c.Failures, c.Spec.Limits.MaxFailures, c.TokensUsed)
	if c.Spec.Limits.TokenBudget > 0 {
		fmt.Fprintf(&b, "/%d", c.Spec.Limits.TokenBudget)
	}
	fmt.Fprintf(&b, ", orchestrator %s\n", c.Orchestrator)
	for _, en := range c.Transcript {
		how := ""
		if en.How != "" {
			how = " (" + en.How + ")"
		}
		fmt.Fprintf(&b, "  [%d] %s%s: %s\n", en.Turn, en.Role, how, en.Text)
	}
	if c.AwaitingApproval() {
		fmt.Fprintf(&b, "waiting for approval (%s): %s\n", c.Pending.Review, c.Pending.Draft)
	}
	_, err := io.WriteString(w, cliutil.Printable(b.String())) // the agents' text must not drive the terminal
	return err
}
