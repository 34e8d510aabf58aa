// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redismem_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/internal/testenv"
	"github.com/a2abus/a2abus/internal/testworld"
	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/memory/memorytest"
	"github.com/a2abus/a2abus/memory/redismem"
)

// randomID returns a random hex id for key prefixes, keys and sessions.
func randomID(tb testing.TB) string {
	tb.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		tb.Fatalf("random id: %v", err)
	}
	return hex.EncodeToString(b)
}

// rawClient is a plain go-redis client on the test server, closed at the end of tb.
func rawClient(tb testing.TB) *goredis.Client {
	tb.Helper()
	opt, err := goredis.ParseURL(testenv.RedisURL(tb))
	if err != nil {
		tb.Fatalf("parse test redis url: %v", err)
	}
	c := goredis.NewClient(opt)
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// testOptions returns Options on the test server with a unique KeyPrefix
// whose keys are deleted when tb ends.
func testOptions(tb testing.TB) redismem.Options {
	tb.Helper()
	raw := rawClient(tb)
	prefix := "a2abustest:" + randomID(tb) + ":"
	tb.Cleanup(func() { deleteKeys(tb, raw, prefix) })
	return redismem.Options{URL: testenv.RedisURL(tb), KeyPrefix: prefix}
}

// deleteKeys removes every key starting with prefix (which holds no glob character).
func deleteKeys(tb testing.TB, raw *goredis.Client, prefix string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := testworld.DeleteKeys(ctx, raw, prefix); err != nil {
		tb.Errorf("cleanup: %v", err)
	}
}

// open is New with opts, closed when tb ends.
func open(tb testing.TB, opts redismem.Options) *redismem.Memory {
	tb.Helper()
	m, err := redismem.New(context.Background(), opts)
	if err != nil {
		tb.Fatalf("new: %v", err)
	}
	tb.Cleanup(func() { _ = m.Close() })
	return m
}

func TestConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) memory.Memory { return open(t, testOptions(t)) })
}

func TestNewUnreachable(t *testing.T) {
	for _, opts := range []redismem.Options{
		{Addrs: []string{"127.0.0.1:1"}},
		{URL: "redis://user:s3cret@127.0.0.1:1/0"},
	} {
		_, err := redismem.New(t.Context(), opts)
		if !errors.Is(err, memory.ErrUnavailable) || !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Errorf("New(%+v) = %v, want ErrUnavailable naming 127.0.0.1:1", opts, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error reveals the password: %v", err)
		}
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	cases := []struct {
		name string
		opts redismem.Options
		want string
	}{
		{"nothing", redismem.Options{}, "neither URL nor Addrs"},
		{"both", redismem.Options{URL: "redis://a", Addrs: []string{"b:1"}}, "both URL and Addrs"},
		{"scheme", redismem.Options{URL: "http://user:s3cret@host/"}, "invalid URL scheme"},
		{"unparsable", redismem.Options{URL: "redis://user:s3cret@host:port/"}, "URL"},
		{"url+master", redismem.Options{URL: "redis://a", MasterName: "m"}, "MasterName"},
		{"timeout", redismem.Options{Addrs: []string{"a:1"}, Timeout: -time.Second}, "Timeout -1s"},
		{"conversation ttl", redismem.Options{Addrs: []string{"a:1"}, ConversationTTL: -1}, "ConversationTTL"},
		{"db", redismem.Options{Addrs: []string{"a:1"}, DB: -1}, "DB -1"},
		{"cluster db", redismem.Options{Addrs: []string{"a:1", "b:1"}, DB: 2}, "Cluster supports only DB 0"},
		{"empty addr", redismem.Options{Addrs: []string{"a:1", " "}}, "Addrs[1]"},
		{"prefix space", redismem.Options{Addrs: []string{"a:1"}, KeyPrefix: "a b:"}, "KeyPrefix"},
		{"prefix long", redismem.Options{Addrs: []string{"a:1"}, KeyPrefix: strings.Repeat("p", 129)}, "KeyPrefix"},
	}
	for _, c := range cases {
		_, err := redismem.New(t.Context(), c.opts)
		if !errors.Is(err, memory.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New = %v, want ErrInvalidArgument mentioning %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: error reveals the password: %v", c.name, err)
		}
	}
}

func TestAddrsOption(t *testing.T) {
	opts := testOptions(t)
	u, err := url.Parse(opts.URL)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.Trim(u.Path, "/")
	opts.URL, opts.Addrs = "", []string{u.Host}
	if db != "" && db != "0" {
		t.Skipf("test redis URL selects db %s; this test uses db 0", db)
	}
	m := open(t, opts)
	key := "t/" + randomID(t)
	if err := m.Set(t.Context(), key, []byte("v"), time.Minute); err != nil {
		t.Fatalf("set through Addrs: %v", err)
	}
	if got, err := m.Get(t.Context(), key); err != nil || string(got) != "v" {
		t.Fatalf("get through Addrs = %q, %v", got, err)
	}
}

func TestCredentialsOverrideURL(t *testing.T) {
	opts := testOptions(t)
	opts.Username, opts.Password = "a2abus-no-such-user-"+randomID(t), "s3cret"
	_, err := redismem.New(t.Context(), opts)
	if err == nil {
		t.Fatalf("New with unknown user %q succeeded: Username/Password did not replace the URL's", opts.Username)
	}
	if errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("rejected credentials are a configuration error, not unavailability: %v", err)
	}
	if strings.Contains(err.Error(), opts.Password) {
		t.Fatalf("error reveals the password: %v", err)
	}
}

func TestKeysStartWithPrefix(t *testing.T) {
	opts := testOptions(t)
	m := open(t, opts)
	ctx := t.Context()
	u := randomID(t)
	session := "s-" + u
	if err := m.Set(ctx, "t/"+u, []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := m.SetIfAbsent(ctx, "t/"+u+"/marker", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.AppendTurnOnce(ctx, session, "once", memory.Turn{Role: memory.RoleUser}); err != nil {
		t.Fatal(err)
	}
	keys, err := rawClient(t).Keys(ctx, "*"+u+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		opts.KeyPrefix + "kv:t/" + u:                    true,
		opts.KeyPrefix + "kv:t/" + u + "/marker":        true,
		opts.KeyPrefix + "conv:{" + session + "}:turns": true,
		opts.KeyPrefix + "conv:{" + session + "}:once":  true,
	}
	if len(keys) != len(want) {
		t.Fatalf("redis keys holding %s: %q, want %d", u, keys, len(want))
	}
	for _, k := range keys {
		if !want[k] {
			t.Errorf("unexpected redis key %q (prefix %q)", k, opts.KeyPrefix)
		}
	}
}

func TestKeyPrefixGlobIsEscaped(t *testing.T) {
	base := testOptions(t)
	plain, globbed := base, base
	plain.KeyPrefix += "a:"
	globbed.KeyPrefix += "[ab]*:"
	other, m := open(t, plain), open(t, globbed)
	if err := other.Set(t.Context(), "k", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if keys, err := m.List(t.Context(), ""); err != nil || len(keys) != 0 {
		t.Fatalf("list under prefix %q = %q, %v; want nothing (the prefix's glob must be escaped)", globbed.KeyPrefix, keys, err)
	}
	if err := m.Set(t.Context(), "mine", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if keys, err := m.List(t.Context(), ""); err != nil || len(keys) != 1 || keys[0] != "mine" {
		t.Fatalf("list under prefix %q = %q, %v; want [mine]", globbed.KeyPrefix, keys, err)
	}
}

func TestTurnJSONShape(t *testing.T) {
	opts := testOptions(t)
	m := open(t, opts)
	session := "s-" + randomID(t)
	at := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	if _, err := m.AppendTurn(t.Context(), session, memory.Turn{
		Role: memory.RoleTool, Content: `say "hi"`, Time: at, Meta: map[string]string{"task": "t1"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AppendTurn(t.Context(), session, memory.Turn{Role: memory.RoleUser, Time: at}); err != nil {
		t.Fatal(err)
	}
	got, err := rawClient(t).LRange(t.Context(), opts.KeyPrefix+"conv:{"+session+"}:turns", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"seq":1,"role":"tool","content":"say \"hi\"","time":"2024-01-02T03:04:05.000000006Z","meta":{"task":"t1"}}`,
		`{"seq":2,"role":"user","content":"","time":"2024-01-02T03:04:05.000000006Z"}`,
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("stored turns:\n got  %q\n want %q", got, want)
	}
}

func TestConversationTTL(t *testing.T) {
	for _, ttl := range []time.Duration{0, time.Hour} {
		opts := testOptions(t)
		opts.ConversationTTL = ttl
		m := open(t, opts)
		session := "s-" + randomID(t)
		if _, _, err := m.AppendTurnOnce(t.Context(), session, "once", memory.Turn{Role: memory.RoleUser}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.AppendTurn(t.Context(), session, memory.Turn{Role: memory.RoleUser}); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"turns", "once"} {
			got, err := rawClient(t).PTTL(t.Context(), opts.KeyPrefix+"conv:{"+session+"}:"+key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if (ttl == 0 && got != -1) || (ttl > 0 && (got <= 0 || got > ttl)) {
				t.Errorf("ConversationTTL %v: PTTL of the %s key = %v", ttl, key, got)
			}
		}
	}
}

func TestSubscriberSeesAppendsOfAnotherClient(t *testing.T) {
	opts := testOptions(t)
	reader, writer := open(t, opts), open(t, opts)
	session := "s-" + randomID(t)
	ch, err := reader.SubscribeTurns(t.Context(), session, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		sent, err := writer.AppendTurn(t.Context(), session, memory.Turn{Role: memory.RoleAssistant, Content: string(rune('a' + i))})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-ch:
			if got.Seq != sent.Seq || got.Content != sent.Content {
				t.Fatalf("received %+v, want %+v", got, sent)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("turn %d appended by another client never arrived", sent.Seq)
		}
	}
}

func TestCancelledCallIsNotUnavailable(t *testing.T) {
	m := open(t, testOptions(t))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := m.Set(ctx, "k", []byte("v"), 0)
	if !errors.Is(err, context.Canceled) || errors.Is(err, memory.ErrUnavailable) {
		t.Fatalf("set with a cancelled context = %v, want context.Canceled and not ErrUnavailable", err)
	}
}

func TestSubMillisecondTTL(t *testing.T) {
	m := open(t, testOptions(t))
	if err := m.Set(t.Context(), "k", []byte("v"), time.Microsecond); err != nil {
		t.Fatalf("set with a 1µs ttl: %v", err)
	}
}

func TestBatchRunsTheAppendScriptAfterRedisForgotIt(t *testing.T) {
	opts := testOptions(t)
	m := open(t, opts)
	raw := rawClient(t)
	ctx := t.Context()
	session := "s-" + randomID(t)
	turn := func(text string) memory.Turn { return memory.Turn{Role: memory.RoleUser, Content: text} }
	batch := func(ids ...string) []memory.OpResult {
		t.Helper()
		ops := []memory.Op{memory.SetOp("k-"+session, []byte("v"), time.Minute)}
		for _, id := range ids {
			ops = append(ops, memory.AppendTurnOnceOp(session, id, turn("turn "+id)))
		}
		res, err := m.Batch(ctx, ops...)
		if err != nil {
			t.Fatalf("batch appending %v: %v", ids, err)
		}
		return res[1:]
	}
	// As after a restart: the server no longer has the script the batches run by digest.
	for round, wantApplied := range []bool{true, false} {
		if err := raw.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		for i, r := range batch("a", "b") {
			if r.Applied != wantApplied || r.Turn.Seq != int64(i+1) || r.Turn.Content != "turn "+[]string{"a", "b"}[i] {
				t.Errorf("round %d, append %d: applied %v, turn %+v; want applied %v, seq %d", round, i, r.Applied, r.Turn, wantApplied, i+1)
			}
		}
	}
	if r := batch("c"); !r[0].Applied || r[0].Turn.Seq != 3 { // the script is known again
		t.Errorf("append after the re-run: %+v", r[0])
	}
	turns, err := m.Turns(ctx, session, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tu := range turns {
		got = append(got, tu.Content)
	}
	if strings.Join(got, ",") != "turn a,turn b,turn c" {
		t.Errorf("turns %q, want turn a, turn b, turn c once each", got)
	}
}
