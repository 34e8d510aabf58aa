// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

func TestValidateKey(t *testing.T) {
	cases := []struct {
		key  string
		rule string // a fragment of the error; "" means valid
	}{
		{"a", ""},
		{"session/abc/a2a/Agent/t1/result", ""},
		{"a.b/..c/c..", ""},
		{"{tag}:x/y~!", ""},
		{strings.Repeat("k", memory.MaxKeyLen), ""},
		{"", "is empty"},
		{strings.Repeat("k", memory.MaxKeyLen+1), "513 bytes"},
		{"a//b", "segment 2 is empty"},
		{"/a", "segment 1 is empty"},
		{"a/", "segment 2 is empty"},
		{"a/../b", `segment 2 is ".."`},
		{"a/./b", `segment 2 is "."`},
		{"..", `segment 1 is ".."`},
		{"a b", "byte 1 (' ') is a space"},
		{"a\x7f", "byte 1"},
		{"é", "not ASCII"},
		{"a*b", "glob character"},
		{"a?b", "glob character"},
		{"a[b", "glob character"},
		{"a]b", "glob character"},
		{`a\b`, "glob character"},
	}
	for _, c := range cases {
		err := memory.ValidateKey(c.key)
		if c.rule == "" {
			if err != nil {
				t.Errorf("ValidateKey(%q) = %v, want nil", c.key, err)
			}
			continue
		}
		if !errors.Is(err, memory.ErrInvalidKey) || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("ValidateKey(%.20q) = %v, want ErrInvalidKey mentioning %q", c.key, err, c.rule)
		}
	}
}

func TestValidatePrefix(t *testing.T) {
	for _, p := range []string{"", "a", "a/", "session/s1/", "a/b"} {
		if err := memory.ValidatePrefix(p); err != nil {
			t.Errorf("ValidatePrefix(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"/", "a//", "//", "/a/", "a*", "a/../", strings.Repeat("p", memory.MaxKeyLen) + "/"} {
		if err := memory.ValidatePrefix(p); !errors.Is(err, memory.ErrInvalidKey) {
			t.Errorf("ValidatePrefix(%.20q) = %v, want ErrInvalidKey", p, err)
		}
	}
}

func TestValidateSessionID(t *testing.T) {
	for _, id := range []string{"a", "A1", "s_1.x:y-z", strings.Repeat("s", 128)} {
		if err := memory.ValidateSessionID(id); err != nil {
			t.Errorf("ValidateSessionID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", "a/b", "..", "a..b", ".a", "_a", "a b", "a*", "é", strings.Repeat("s", 129)} {
		err := memory.ValidateSessionID(id)
		if !errors.Is(err, memory.ErrInvalidKey) || !errors.Is(err, a2a.ErrInvalidName) || !strings.Contains(err.Error(), "session id") {
			t.Errorf("ValidateSessionID(%.20q) = %v, want ErrInvalidKey naming the session id", id, err)
		}
	}
}

func TestResultKey(t *testing.T) {
	got, err := memory.ResultKey("s1", "Researcher", "task-1")
	if err != nil || got != "session/s1/a2a/Researcher/task-1/result" {
		t.Fatalf("ResultKey = %q, %v", got, err)
	}
	if err := memory.ValidateKey(got); err != nil {
		t.Fatalf("ResultKey built an invalid key: %v", err)
	}
	prefix, err := memory.SessionPrefix("s1")
	if err != nil || !strings.HasPrefix(got, prefix) || prefix != "session/s1/" {
		t.Fatalf("SessionPrefix = %q, %v; not a prefix of %q", prefix, err, got)
	}

	bad := []struct{ session, agent, task, field string }{
		{"", "a", "t", "session id"},
		{"s/x", "a", "t", "session id"},
		{"s", "", "t", "agent name"},
		{"s", "a/b", "t", "agent name"},
		{"s", "1a", "t", "agent name"},
		{"s", "a", "", "task id"},
		{"s", "a", "t/x", "task id"},
		{"s", "a", "t.x", "task id"},
	}
	for _, b := range bad {
		_, err := memory.ResultKey(b.session, b.agent, b.task)
		if !errors.Is(err, memory.ErrInvalidKey) || !strings.Contains(err.Error(), b.field) {
			t.Errorf("ResultKey(%q, %q, %q) = %v, want ErrInvalidKey naming the %s", b.session, b.agent, b.task, err, b.field)
		}
	}
}

// TestResultKeyNeverCollides builds keys from parts that would collide under
// naive concatenation and checks every (session, agent, task) gets its own key.
func TestResultKeyNeverCollides(t *testing.T) {
	parts := []string{"a", "b", "ab", "a-b", "a_b", "A", "a1", "1"}
	seen := map[string][3]string{}
	for _, s := range append(parts, "a.b", "a:b", "s.1") {
		for _, a := range parts {
			for _, k := range parts {
				key, err := memory.ResultKey(s, a, k)
				if err != nil {
					continue // "1" is no agent name
				}
				if prev, dup := seen[key]; dup {
					t.Fatalf("ResultKey%v and ResultKey%v both give %q", prev, [3]string{s, a, k}, key)
				}
				seen[key] = [3]string{s, a, k}
			}
		}
	}
	if len(seen) < 500 {
		t.Fatalf("only %d keys built; the table is wrong", len(seen))
	}
}

func TestPrepareTurn(t *testing.T) {
	now := time.Date(2025, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 3600))
	meta := map[string]string{"k": "v"}
	got := memory.PrepareTurn(memory.Turn{Role: memory.RoleTool, Meta: meta}, now)
	if !got.Time.Equal(now) || got.Time.Location() != time.UTC || got.Seq != 0 {
		t.Fatalf("prepared turn %+v: want time %v in UTC and seq 0", got, now)
	}
	meta["k"] = "changed"
	if got.Meta["k"] != "v" {
		t.Fatal("PrepareTurn kept the caller's meta map")
	}
	if got := memory.PrepareTurn(memory.Turn{Role: memory.RoleUser, Meta: map[string]string{}}, now); got.Meta != nil {
		t.Fatalf("empty meta not normalised to nil: %#v", got.Meta)
	}
	at := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	if got := memory.PrepareTurn(memory.Turn{Role: memory.RoleUser, Time: at}, now); !got.Time.Equal(at) {
		t.Fatalf("a turn's own time %v replaced by %v", at, got.Time)
	}
}

func TestValidateTurn(t *testing.T) {
	for _, ok := range []memory.Turn{{Role: memory.RoleUser}, {Role: memory.RoleTool, Content: "x", Meta: map[string]string{"k": "v"}}} {
		if err := memory.ValidateTurn(ok); err != nil {
			t.Errorf("ValidateTurn(%+v) = %v", ok, err)
		}
	}
	for _, bad := range []memory.Turn{{}, {Role: "bot"}, {Role: memory.RoleUser, Seq: 1}, {Role: memory.RoleUser, Seq: -1}} {
		if err := memory.ValidateTurn(bad); !errors.Is(err, memory.ErrInvalidArgument) {
			t.Errorf("ValidateTurn(%+v) = %v, want ErrInvalidArgument", bad, err)
		}
	}
}

func TestValidateTTLAndAfterSeq(t *testing.T) {
	if memory.ValidateTTL(0) != nil || memory.ValidateTTL(time.Second) != nil {
		t.Fatal("ValidateTTL rejects a legal ttl")
	}
	if err := memory.ValidateTTL(-time.Nanosecond); !errors.Is(err, memory.ErrInvalidArgument) {
		t.Fatalf("ValidateTTL(-1ns) = %v", err)
	}
	if memory.ValidateAfterSeq(0) != nil {
		t.Fatal("ValidateAfterSeq(0) failed")
	}
	if err := memory.ValidateAfterSeq(-1); !errors.Is(err, memory.ErrInvalidArgument) {
		t.Fatalf("ValidateAfterSeq(-1) = %v", err)
	}
}

func TestCancelIndexAndMembers(t *testing.T) {
	index, err := memory.CancelIndex("ResearchAgent")
	if err != nil || index != "a2a/canceled/ResearchAgent" || memory.ValidateIndex(index) != nil {
		t.Fatalf("memory.CancelIndex = %q, %v", index, err)
	}
	if _, err := memory.CancelIndex("bad name"); !errors.Is(err, memory.ErrInvalidKey) {
		t.Fatalf("memory.CancelIndex of a bad name: %v", err)
	}
	member, err := memory.CancelMember("task-1", "Cli")
	if err != nil || member != "task-1/Cli" || memory.ValidateIndexMember(member) != nil {
		t.Fatalf("memory.CancelMember = %q, %v", member, err)
	}
	if id, caller, ok := memory.ParseCancelMember(member); !ok || id != "task-1" || caller != "Cli" {
		t.Fatalf("memory.ParseCancelMember(%q) = %q, %q, %v", member, id, caller, ok)
	}
	for _, bad := range [][2]string{{"", "Cli"}, {"task 1", "Cli"}, {"task-1", ""}, {"task-1", "a/b"}} {
		if _, err := memory.CancelMember(bad[0], bad[1]); !errors.Is(err, memory.ErrInvalidArgument) {
			t.Errorf("memory.CancelMember(%q, %q): %v, want memory.ErrInvalidArgument", bad[0], bad[1], err)
		}
	}
	for _, bad := range []string{"", "task-1", "/Cli", "task-1/", "task 1/Cli", "task-1/bad name"} {
		if _, _, ok := memory.ParseCancelMember(bad); ok {
			t.Errorf("memory.ParseCancelMember(%q) accepted it", bad)
		}
	}
}

// TestSchemaKeys pins every key the builders make: the strings are the
// stored schema, so data written before an upgrade stays readable.
func TestSchemaKeys(t *testing.T) {
	must := func(k string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		check := memory.ValidateKey
		if strings.HasSuffix(k, "/") {
			check = memory.ValidatePrefix
		}
		if err := check(k); err != nil {
			t.Fatalf("built an invalid key: %v", err)
		}
		return k
	}
	chat, err := memory.ChatStateKeys("s1")
	if err != nil {
		t.Fatal(err)
	}
	for got, want := range map[string]string{
		must(memory.ResultPrefix("s1", "Researcher")):       "session/s1/a2a/Researcher/",
		must(memory.SessionOwnerKey("s1")):                  "session/s1/a2a-owner",
		must(memory.SessionGrantKey("s1", "ResearchAgent")): "session/s1/a2a-grants/researchagent",
		must(memory.CallHistoryPrefix("s1")):                "session/s1/calls/",
		must(memory.CallHistoryKey("s1", "task-1")):         "session/s1/calls/task-1",
		chat.Lease:   "session/s1/chat/lease",
		chat.Handled: "session/s1/chat/handled",
		chat.Tokens:  "session/s1/chat/tokens",
		must(memory.TaskRecordKey("Cli", "task-1")):           "a2a/tasks/Cli/task-1",
		must(memory.TaskClaimKey("Cli", "task-1")):            "a2a/final/Cli/task-1",
		must(memory.TaskLateClaimKey("Cli", "task-1")):        "a2a/final/Cli/task-1/late",
		must(memory.PendingIndex("Cli")):                      "a2a/pending/Cli",
		must(memory.DirectoryListingKey("a2a")):               "a2a/directory/a2a/known-agents",
		must(memory.TaskWaitKey("Cli", "task-1")):             "a2a/tasks/Cli/task-1/wait",
		must(memory.TaskTakenKey("Cli", "task-1")):            "a2a/tasks/Cli/task-1/taken",
		must(memory.TaskTurnKey("Cli", "task-1", 2)):          "a2a/tasks/Cli/task-1/turns/2",
		must(memory.TaskTurnClaimKey("Cli", "task-1", 0)):     "a2a/final/Cli/task-1",
		must(memory.TaskTurnClaimKey("Cli", "task-1", 3)):     "a2a/final/Cli/task-1/turn/3",
		must(memory.TaskTurnLateClaimKey("Cli", "task-1", 0)): "a2a/final/Cli/task-1/late",
		must(memory.TaskTurnLateClaimKey("Cli", "task-1", 3)): "a2a/final/Cli/task-1/turn/3/late",
		must(memory.TaskOwnerKey("task-1")):                   "a2a/owners/task-1",
		must(memory.ContextHistoryKey("s1", "ctx-1")):         "session/s1/contexts/ctx-1",
		must(memory.CallerContextKey("s1", "task-1")):         "session/s1/caller-context/task-1",
		must(memory.NotifyTurnOnceID("task-1", 0, "result")):  "a2a-notify/task-1/result",
		must(memory.NotifyTurnOnceID("task-1", 2, "result")):  "a2a-notify/task-1/turn-2/result",
		must(memory.WorkflowRunKey("run-1")):                  "workflow/run-1/run",
		must(memory.WorkflowStepKey("run-1", "npv")):          "workflow/run-1/steps/npv",
		must(memory.WorkflowLeaseKey("run-1")):                "workflow/run-1/lease",
		must(memory.WorkflowStepSession("run-1")):             "wf-run-1",
		must(memory.ConversationKey("cv0123")):                "converse/cv0123",
		must(memory.ConversationLeaseKey("cv0123")):           "converse/cv0123/lease",
		must(memory.ConversationSentKey("cv0123", 3, 1)):      "converse/cv0123/sent/3-1",
		must(memory.ConversationSession("cv0123")):            "converse-cv0123",
		must(memory.ConversationControlSession("cv0123")):     "converse-cv0123.control",
		must(memory.LocalPromptKey("Drafter")):                "converse-local/drafter/prompt",
		must(memory.LocalSharedCallKey("Drafter", 2)):         "converse-local/drafter/shared/2",
		must(memory.NotifyOnceID("task-1", "timeout")):        "a2a-notify/task-1/timeout",
		must(memory.ChatAnswerOnceID(7)):                      "chat/7/answer",
		must(memory.ChatStepOnceID(7, "ab12cd34", 2, 1)):      "chat/7/ab12cd34/2/1",
		must(memory.PrimaryRequestOnceID("task-1")):           "primary/task-1",
		must(memory.InFlightSlotsKey("Cli")):                  "a2a/in-flight/cli",
		must(memory.RateKey("Cli", "ResearchAgent")):          "a2a/rate/cli/researchagent",
		must(memory.CircuitKey("ResearchAgent")):              "a2a/circuit/researchagent",
		"session/{session}/a2a/{agent}/{task}/result":         memory.ResultKeyTemplate,
	} {
		if got != want {
			t.Errorf("built %q, want %q", got, want)
		}
	}
}

// TestSchemaKeysRefuseBadParts checks each builder names the part that
// breaks its rule, so no part can add a segment or collide.
func TestSchemaKeysRefuseBadParts(t *testing.T) {
	cases := []struct {
		name string
		err  error
		part string
	}{
		{"owner of a/b", err2(memory.SessionOwnerKey("a/b")), "session id"},
		{"grant of bad agent", err2(memory.SessionGrantKey("s1", "a/b")), "agent name"},
		{"history of bad task", err2(memory.CallHistoryKey("s1", "t/x")), "task id"},
		{"chat of bad session", err2(memory.ChatStateKeys("..")), "session id"},
		{"record of bad caller", err2(memory.TaskRecordKey("1Cli", "t")), "caller"},
		{"claim of bad task", err2(memory.TaskClaimKey("Cli", "t x")), "task id"},
		{"late claim of empty task", err2(memory.TaskLateClaimKey("Cli", "")), "task id"},
		{"pending of bad caller", err2(memory.PendingIndex("")), "caller"},
		{"run of a/b", err2(memory.WorkflowRunKey("a/b")), "run id"},
		{"run of ..", err2(memory.WorkflowRunKey("a..b")), "run id"},
		{"step of a/b", err2(memory.WorkflowStepKey("r", "a/b")), "step id"},
		{"lease of empty run", err2(memory.WorkflowLeaseKey("")), "run id"},
		{"step session too long", err2(memory.WorkflowStepSession(strings.Repeat("r", 127))), "session id"},
		{"conversation of a/b", err2(memory.ConversationKey("a/b")), "conversation id"},
		{"lease of *", err2(memory.ConversationLeaseKey("cv*")), "conversation id"},
		{"sent of negative turn", err2(memory.ConversationSentKey("cv1", -1, 0)), "negative"},
		{"session of empty conversation", err2(memory.ConversationSession("")), "conversation id"},
		{"prompt lock of bad agent", err2(memory.LocalPromptKey("a/b")), "local agent"},
		{"shared slot of negative slot", err2(memory.LocalSharedCallKey("a", -1)), "slot"},
		{"notify of bad outcome", err2(memory.NotifyOnceID("t", "a/b")), "outcome"},
		{"answer of negative seq", err2(memory.ChatAnswerOnceID(-1)), "negative"},
		{"chat step of bad run", err2(memory.ChatStepOnceID(1, "a/b", 0, 0)), "chat run id"},
		{"primary of bad task", err2(memory.PrimaryRequestOnceID("t/x")), "task id"},
		{"result prefix of bad agent", err2(memory.ResultPrefix("s", "a b")), "agent name"},
		{"wait of bad task", err2(memory.TaskWaitKey("Cli", "t/x")), "task id"},
		{"turn 0", err2(memory.TaskTurnKey("Cli", "t", 0)), "turn"},
		{"turn claim of negative turn", err2(memory.TaskTurnClaimKey("Cli", "t", -1)), "turn"},
		{"late turn claim of bad caller", err2(memory.TaskTurnLateClaimKey("a.b", "t", 2)), "caller"},
		{"owner of bad task", err2(memory.TaskOwnerKey("t x")), "task id"},
		{"context of bad id", err2(memory.ContextHistoryKey("s1", "c/x")), "context id"},
		{"context of bad session", err2(memory.ContextHistoryKey("a/b", "c")), "session id"},
		{"caller context of bad task", err2(memory.CallerContextKey("s1", "t/x")), "task id"},
		{"caller context of bad session", err2(memory.CallerContextKey("..", "t")), "session id"},
		{"turn notify of negative turn", err2(memory.NotifyTurnOnceID("t", -1, "result")), "turn"},
		{"in-flight slots of bad caller", err2(memory.InFlightSlotsKey("a/b")), "caller"},
		{"rate of bad target", err2(memory.RateKey("Cli", "a b")), "target"},
		{"circuit of empty target", err2(memory.CircuitKey("")), "target"},
	}
	for _, c := range cases {
		if !errors.Is(c.err, memory.ErrInvalidKey) || !strings.Contains(c.err.Error(), c.part) {
			t.Errorf("%s: %v, want ErrInvalidKey naming the %s", c.name, c.err, c.part)
		}
	}
}

func err2[T any](_ T, err error) error { return err }

func TestParseResultKey(t *testing.T) {
	key, _ := memory.ResultKey("s1", "Researcher", "task-1")
	if s, a, k, ok := memory.ParseResultKey(key); !ok || s != "s1" || a != "Researcher" || k != "task-1" {
		t.Fatalf("ParseResultKey(%q) = %q, %q, %q, %v", key, s, a, k, ok)
	}
	for _, bad := range []string{"", "session/s1/a2a/R/t/result/x", "session/s1/a2a/R/t/other", "sessions/s1/a2a/R/t/result",
		"session/s1/b2b/R/t/result", "session/../a2a/R/t/result", "session/s1/a2a/1R/t/result", "session/s1/a2a/R/t.x/result"} {
		if _, _, _, ok := memory.ParseResultKey(bad); ok {
			t.Errorf("ParseResultKey(%q) accepted it", bad)
		}
	}
}
