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
