// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/pkg/execbridge"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"python3 agent.py --flag", []string{"python3", "agent.py", "--flag"}},
		{"  node   'my agent.js'\t--name \"Ada Lovelace\" ", []string{"node", "my agent.js", "--name", "Ada Lovelace"}},
		{`a\ b "q\"uote" 'it'\''s' "back\\slash" "keep\n"`, []string{"a b", `q"uote`, "it's", `back\slash`, `keep\n`}},
		{"cmd \\\n  --next", []string{"cmd", "--next"}},
		{`say '$HOME | ;' "5$" $`, []string{"say", "$HOME | ;", "5$", "$"}},
		{`empty "" ''`, []string{"empty", "", ""}},
		{"glob *.py ~/x", []string{"glob", "*.py", "~/x"}},
	} {
		got, err := execbridge.SplitCommand(tc.line)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ line, reason string }{
		{"", "no program to run"},
		{"   \t", "no program to run"},
		{"python3 'agent.py", "unterminated single quote"},
		{`python3 "agent.py`, "unterminated double quote"},
		{`python3 agent.py \`, "trailing backslash"},
		{"python3 agent.py | tee log", `"|" is a shell operator`},
		{"a; b", `";" is a shell operator`},
		{"a > out", `">" is a shell operator`},
		{"python3 $AGENT", `"$A" starts a shell expansion`},
		{`python3 "$(pwd)/a.py"`, `"$(" starts a shell expansion`},
		{"python3 `which a`", "starts a shell expansion"},
	} {
		_, err := execbridge.SplitCommand(tc.line)
		var ce *execbridge.CommandError
		if !errors.Is(err, execbridge.ErrBadCommand) || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("SplitCommand(%q) = %v, want a CommandError saying %q", tc.line, err, tc.reason)
		}
	}
}

// QuoteCommand writes argv so that SplitCommand gives it back, word for word.
func TestQuoteCommand(t *testing.T) {
	for _, argv := range [][]string{
		{"python3", "agent.py", "--flag=x", "a/b.c:1,2+3@4%5-6"},
		{"node", "my agent.js", "it's", `"quoted"`, `back\slash`, ""},
		{"sh", "-c", "echo $HOME | tee out; `x` > y & (z)", "#not a comment", "line\nbreak", "tab\there"},
		{"ünïcode", "~/x", "*.py"},
	} {
		line := execbridge.QuoteCommand(argv)
		got, err := execbridge.SplitCommand(line)
		if err != nil || !slices.Equal(got, argv) {
			t.Errorf("SplitCommand(QuoteCommand(%q)) = SplitCommand(%q) = %q, %v", argv, line, got, err)
		}
	}
	if got := execbridge.QuoteCommand([]string{"python3", "agent.py"}); got != "python3 agent.py" {
		t.Errorf("plain words are quoted: %q", got)
	}
}

func TestParseCard(t *testing.T) {
	c, err := execbridge.ParseCard([]byte(childCard))
	if err != nil || c.AgentName != "GoChild" || len(c.Skills) != 12 {
		t.Fatalf("ParseCard(childCard) = %+v, %v", c, err)
	}
	for _, tc := range []struct{ card, reason string }{
		{`[]`, "want a JSON object"},
		{`{"agentName":"A","skills":[{"id":"x"}],"colour":"red"}`, "unknown field"},
		{`{"agentName":"no.dots","skills":[{"id":"x"}]}`, "agentName"},
		{`{"agentName":"A","skills":[]}`, "lists no skills"},
		{`{"agentName":"A","skills":[{"id":"x"},{"id":"x"}]}`, "duplicate skill id"},
		{`{"agentName":"A","skills":[{"id":""}]}`, "skills[0]"},
		{`{"agentName":"A","skills":[{"id":"x"}],"inputSchemas":{"y":{"type":"object"}}}`, "inputSchemas"},
		{`{"agentName":"A","skills":[{"id":"x"}],"inputSchemas":{"x":{"type":12}}}`, "inputSchemas"},
	} {
		_, err := execbridge.ParseCard([]byte(tc.card))
		if !errors.Is(err, execbridge.ErrBadCard) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ParseCard(%s) = %v, want ErrBadCard saying %q", tc.card, err, tc.reason)
		}
	}
	dir := t.TempDir()
	one, arr := filepath.Join(dir, "one.json"), filepath.Join(dir, "arr.json")
	_ = os.WriteFile(one, []byte(childCard), 0o600)
	_ = os.WriteFile(arr, []byte("["+childCard+","+strings.Replace(childCard, "GoChild", "Other", 1)+"]"), 0o600)
	if c, err := execbridge.LoadCard(one); err != nil || c.AgentName != "GoChild" {
		t.Errorf("LoadCard(one) = %+v, %v", c, err)
	}
	if _, err := execbridge.LoadCard(arr); !errors.Is(err, execbridge.ErrBadCard) || !strings.Contains(err.Error(), "holds 2 agents") {
		t.Errorf("LoadCard(two agents) = %v, want ErrBadCard", err)
	}
}

// Start refuses a process that cannot run, sends no card, or a card of a
// later protocol version — at once, with a typed error, and stops it.
func TestStartErrors(t *testing.T) {
	t.Parallel() // it mostly waits (deadlines, timeouts): overlapping saves the suite's time
	ctx := context.Background()
	start := func(opts execbridge.Options) error {
		opts.CardTimeout, opts.StopTimeout = 2*time.Second, 2*time.Second
		b, err := execbridge.New(opts)
		if err != nil {
			return err
		}
		defer func() { _ = b.Close() }()
		return b.Start(ctx)
	}
	if err := start(execbridge.Options{Command: "/no/such/program --x"}); err == nil || !strings.Contains(err.Error(), "/no/such/program") {
		t.Errorf("missing program: %v", err)
	}
	if err := start(execbridge.Options{Command: "python3 'a.py"}); !errors.Is(err, execbridge.ErrBadCommand) {
		t.Errorf("bad command line: %v", err)
	}
	if err := start(execbridge.Options{Command: "python3 a.py", Argv: []string{"python3", "a.py"}}); !errors.Is(err, execbridge.ErrBadCommand) ||
		!strings.Contains(err.Error(), "not both") {
		t.Errorf("a command line and argv: %v", err)
	}
	if err := start(execbridge.Options{Argv: []string{"", "a.py"}}); !errors.Is(err, execbridge.ErrBadCommand) || !strings.Contains(err.Error(), "name is empty") {
		t.Errorf("argv without a program: %v", err)
	}
	if err := start(childCommand(t, "nocard")); !errors.Is(err, execbridge.ErrNoCard) {
		t.Errorf("no card before exit: %v", err)
	}
	if err := start(childCommand(t, "silent")); !errors.Is(err, execbridge.ErrNoCard) || !strings.Contains(err.Error(), "within 2s") {
		t.Errorf("silent child: %v", err)
	}
	if err := start(childCommand(t, "future")); !errors.Is(err, execbridge.ErrVersion) {
		t.Errorf("later version: %v", err)
	}
	// With a card given, a child that sends none is fine.
	opts := childCommand(t, "nocard")
	card, err := execbridge.ParseCard([]byte(childCard))
	if err != nil {
		t.Fatal(err)
	}
	opts.Card = card
	if err := start(opts); err != nil {
		t.Errorf("--card with a child that sends none: %v", err)
	}
}

// A process that keeps exiting is restarted MaxCrashes times with a
// backoff, then Run gives up with ErrCrashLoop.
func TestCrashLoopEndsRun(t *testing.T) {
	opts := childCommand(t, "crashy")
	opts.MaxCrashes, opts.MinBackoff, opts.MaxBackoff = 2, 10*time.Millisecond, 20*time.Millisecond
	b, err := execbridge.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- b.Run(context.Background()) }()
	select {
	case err := <-done:
		if !errors.Is(err, execbridge.ErrCrashLoop) || !strings.Contains(err.Error(), "exit status 3") {
			t.Fatalf("Run = %v, want ErrCrashLoop naming the exit", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not give up")
	}
}
