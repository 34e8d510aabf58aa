// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// The fast path leaves out no pass that would have changed the text.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"", "plain words only", "dial amqp://a:b@h/ x", "PASSWORD=x", "Pwd: y", "my SeCrEt=1", "TOKEN=2",
		"X-Api-Key: k", "CREDENTIALS=c", "Cookie: c=1", "AUTHORIZATION: Basic YWxhZGRpbg==", "Bearer abc",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "ghp_0123456789abcdefghijABCDEFGHIJ", "github_pat_0123456789abcdefghij_x",
		"sk-proj-0123456789abcdefXYZ", "xoxb-1234-5678-abcdef", "AKIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOP",
		"to\u212aen=x", "pa\u017f\u017fword=x", "http://u:p@h?access_token=t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := builtins(s, scan(s)), builtins(s, famAll); got != want {
			t.Fatalf("scan(%q) = %b: the fast path gives %q, every pass %q", s, scan(s), got, want)
		}
	})
}

func TestNewRefusesBadPatterns(t *testing.T) {
	for _, p := range []string{"(", "a*", ""} {
		if _, err := New([]string{"ok-[0-9]+", p}); !errors.Is(err, ErrPattern) || !strings.Contains(err.Error(), "pattern 1") {
			t.Errorf("New(%q) = %v, want an ErrPattern naming pattern 1", p, err)
		}
	}
	if _, err := New(make([]string, MaxPatterns+1)); !errors.Is(err, ErrPattern) {
		t.Errorf("New(%d patterns) = %v, want ErrPattern", MaxPatterns+1, err)
	}
}

func TestConfiguredPatterns(t *testing.T) {
	r, err := New([]string{`ACME-[0-9]{6}`, `employee=(\d+)`})
	if err != nil {
		t.Fatal(err)
	}
	in := "ticket ACME-123456 for employee=4711, password=pw; ACME-12 stays"
	want := "ticket xxxxx for employee=xxxxx, password=xxxxx; ACME-12 stays"
	if got := r.String(in); got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	if got := String(in); strings.Contains(got, "password=pw") || !strings.Contains(got, "ACME-123456") {
		t.Fatalf("the process's redactor, unset, = %q: built-ins only", got)
	}
	SetDefault(r)
	defer SetDefault(nil)
	if got := String(in); got != want {
		t.Fatalf("String after SetDefault = %q, want %q", got, want)
	}
}

func TestJSON(t *testing.T) {
	var r *Redactor
	clean := []byte(`{"a":"b","list":[1,2,"x<y"]}`)
	if got := r.JSON(clean); string(got) != string(clean) {
		t.Fatalf("JSON without candidates = %s, want it unchanged", got)
	}
	in := []byte(`{"apiKey":"AK-1","n":{"client_secret":42,"note":"dial https://u:pw@h/ now","q":"a \"quoted\" Bearer t0k"},` +
		`"maxTokens":4096,"list":["token=abc","ok"],"html":"<b>"}`)
	got := r.JSON(in)
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("JSON returned invalid JSON %s: %v", got, err)
	}
	for _, secret := range []string{"AK-1", "42", "pw@", "t0k", "abc"} {
		if strings.Contains(string(got), secret) {
			t.Errorf("JSON = %s still holds %q", got, secret)
		}
	}
	for _, kept := range []string{`"maxTokens":4096`, `"ok"`, `"<b>"`, `https://u:xxxxx@h/`} {
		if !strings.Contains(string(got), kept) {
			t.Errorf("JSON = %s lost %q", got, kept)
		}
	}
	if got := string(r.JSON([]byte("not json, token=abc"))); got != "not json, token=xxxxx" {
		t.Errorf("JSON of text = %q", got)
	}
	esc := []byte(`{"\u0070assword":"pw"}`) // an escape the scan cannot read through
	if got := string(r.JSON(esc)); strings.Contains(got, `"pw"`) {
		t.Errorf("JSON(%s) = %s", esc, got)
	}
}

func TestValueCopiesOnlyWhatChanges(t *testing.T) {
	data := map[string]any{"password": "pw", "inner": []any{"ok", map[string]any{"token": "t"}}, "plain": "x"}
	got := (*Redactor)(nil).Value(data).(map[string]any)
	if data["password"] != "pw" || data["inner"].([]any)[1].(map[string]any)["token"] != "t" {
		t.Fatalf("Value changed its argument: %v", data)
	}
	if got["password"] != Secret || got["inner"].([]any)[1].(map[string]any)["token"] != Secret || got["plain"] != "x" {
		t.Fatalf("Value = %v", got)
	}
	same := map[string]any{"a": "b"}
	if got := (*Redactor)(nil).Value(same).(map[string]any); &got == &same || got["a"] != "b" {
		t.Fatalf("Value(%v) = %v", same, got)
	}
}

func TestPreview(t *testing.T) {
	var r *Redactor
	if got := r.Preview("  a\n\tb  c ", 10); got != "a b c" {
		t.Errorf("Preview = %q", got)
	}
	if got := r.Preview("héllo wörld", 5); got != "héllo…" {
		t.Errorf("Preview cut = %q", got)
	}
	// A secret that a cut would have left unrecognisable is hidden before the cut.
	if got := r.Preview("key sk-proj-0123456789abcdefXYZ end", 12); strings.Contains(got, "sk-proj") {
		t.Errorf("Preview = %q holds part of the key", got)
	}
	// A long text: a secret across the window's edge does not slide into the preview.
	long := "jwt eyJ" + strings.Repeat("a", previewWindow) + ".bbbbbb.c " + strings.Repeat("z", previewWindow) + " password=hunter2"
	got := r.Preview(long, 2000)
	if strings.Contains(got, "hunter2") || strings.Contains(got, "eyJ") {
		t.Errorf("Preview of a long text holds a secret: %q", got[:80])
	}
	if n := len([]rune(got)); n > 2001 {
		t.Errorf("Preview is %d runes, want at most 2000 and the ellipsis", n)
	}
}

// kvRe is the regular expression replaceKV replaced (it cost a millisecond
// per 2 KiB): the reference the hand-written reader is held to.
var kvRe = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|authorization|cookie)["']?\s*[:=]\s*)` +
	`("[^"]*"|'[^']*'|(?:(?:bearer|basic|token)\s+)?[^\s"'&,;)}\]]+)`)

// replaceKVRe is replaceKV by kvRe.
func replaceKVRe(s string) string {
	return kvRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := kvRe.FindStringSubmatch(m)
		v := sub[2]
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			return sub[1] + string(v[0]) + Secret + string(v[0])
		}
		return sub[1] + Secret
	})
}

func FuzzReplaceKV(f *testing.F) {
	for _, s := range []string{"token=T0pS3cret password=hunter2; api_key: AK-1 apikey=AK-2", `{"password":"hunter 2","client_secret": 'x y'}`,
		"Authorization: Bearer eyJ.x-y_z== invalid", "X-Api-Key: k-123 and DB_PASSWORD=pw", "tokenpassword=x", "token=\"unclosed",
		"Authorization: Bearer ", "cookie=a&b=c", "private-key = 'k'", "max_tokens: 4096", "secret:  \t token  abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\u212a\u017f") { // (?i) folds them to k and s; the reader reads ASCII
			return
		}
		if got, want := replaceKV(s), replaceKVRe(s); got != want {
			t.Fatalf("replaceKV(%q)\n = %q\nregexp %q", s, got, want)
		}
	})
}

// The regular expressions the hand-written passes replaced: their reference.
var (
	urlRe    = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://\S+`)
	bearerRe = regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*`)
	shapes   = regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*` +
		`|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}|\bsk-[A-Za-z0-9_-]{16,}` +
		`|\bxox[abposr]-[A-Za-z0-9-]{10,}|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)
)

func FuzzPasses(f *testing.F) {
	for _, s := range []string{"dial amqp://agent:s3cr3t@rabbit:5672/ failed", `Post "http://u:pw@127.0.0.1:1/v1": refused`, "a://b://c d",
		" ://x 1a://y", "x-y.z://u:p@h", "Authorization: Bearer eyJ.x-y_z== ok", "abearer x", "bearer\t\tabc== tail", "BEARER /",
		"keys: ghp_0123456789abcdefghijABCDEFGHIJ sk-proj-0123456789abcdefXYZ AKIAABCDEFGHIJKLMNOP xoxb-1234-5678-abcdef",
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature-1 x", "_sk-0123456789abcdef0 AKIAABCDEFGHIJKLMNOPQ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := replaceURLs(s), urlRe.ReplaceAllStringFunc(s, URL); got != want {
			t.Fatalf("replaceURLs(%q)\n = %q\nregexp %q", s, got, want)
		}
		if got, want := replaceBearers(s), bearerRe.ReplaceAllString(s, "${1} "+Secret); got != want {
			t.Fatalf("replaceBearers(%q)\n = %q\nregexp %q", s, got, want)
		}
		if got, want := replaceShapes(s), shapes.ReplaceAllString(s, Secret); got != want {
			t.Fatalf("replaceShapes(%q)\n = %q\nregexp %q", s, got, want)
		}
	})
}
