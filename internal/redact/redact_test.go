// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"amqp://guest@host/", "amqp://guest@host/"},
		{"amqp://host:5672/", "amqp://host:5672/"},
		{"amqp://guest:guest@host:5672/", "amqp://guest:xxxxx@host:5672/"},
		{"redis://:pw@h:6379/0", "redis://:xxxxx@h:6379/0"},
		{"amqp://u:p@ss@host/", "amqp://u:xxxxx@host/"},       // '@' in the password: does not parse
		{"amqp://u:123/secret@host/", "amqp://u:xxxxx@host/"}, // parses with the password as a path
		{"amqp://u:pa#ss@host/", "amqp://u:xxxxx@host/"},      // '#' in the password
		{"user:pass@host", Secret},                            // no scheme: cannot tell, hide all
		{"redis://cache:6379/0", "redis://cache:6379/0"},
		// Query parameters Redacted leaves: credential-named values hidden, the rest kept.
		{"https://llm.example.com/v1?api-key=sk-abc&deployment=gpt", "https://llm.example.com/v1?api-key=xxxxx&deployment=gpt"},
		{"https://u:pw@h/v1?access_token=t0k#frag", "https://u:xxxxx@h/v1?access_token=xxxxx#frag"},
		{"redis://h:6379/0?password=pw&dial_timeout=1s", "redis://h:6379/0?password=xxxxx&dial_timeout=1s"},
		{"http://h/?page=2", "http://h/?page=2"},
		{"amqp://secret:pw@host/", "amqp://secret:xxxxx@host/"}, // a credential-named user is not a key=value
		{"127.0.0.1:5672", "127.0.0.1:5672"},                    // does not parse, nothing to hide
	}
	for _, tt := range tests {
		if got := URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		in, want string
		secrets  []string // must not survive (checked besides want)
	}{
		{in: "", want: ""},
		{in: "no answer from Echo within 30s", want: "no answer from Echo within 30s"},
		{in: "max_tokens: 4096 exceeded", want: "max_tokens: 4096 exceeded"},
		{in: "dial amqp://agent:s3cr3t@rabbit:5672/ failed: refused",
			want: "dial amqp://agent:xxxxx@rabbit:5672/ failed: refused", secrets: []string{"s3cr3t"}},
		{in: `Post "http://u:pw@127.0.0.1:1/v1/chat/completions": dial tcp: connection refused`, // a quote after the URL stays a quote
			want: `Post "http://u:xxxxx@127.0.0.1:1/v1/chat/completions": dial tcp: connection refused`, secrets: []string{"pw@"}},
		{in: "GET https://api.example.com/v1?access_token=abc123&page=2 returned 401",
			want: "GET https://api.example.com/v1?access_token=xxxxx&page=2 returned 401", secrets: []string{"abc123"}},
		{in: "token=T0pS3cret password=hunter2; api_key: AK-1 apikey=AK-2",
			want: "token=xxxxx password=xxxxx; api_key: xxxxx apikey=xxxxx"},
		{in: `request {"user":"bob","password":"hunter 2","client_secret": 'x y'} rejected`,
			want: `request {"user":"bob","password":"xxxxx","client_secret": 'xxxxx'} rejected`},
		{in: "upstream said: Authorization: Bearer eyJhbGciOi.x-y_z== invalid",
			want: "upstream said: Authorization: xxxxx invalid", secrets: []string{"eyJhbGciOi"}},
		{in: "X-Api-Key: k-123 and DB_PASSWORD=pw GITHUB_TOKEN=ghx",
			want: "X-Api-Key: xxxxx and DB_PASSWORD=xxxxx GITHUB_TOKEN=xxxxx"},
		{in: "sent with bearer abc.def-ghi to the API", want: "sent with bearer xxxxx to the API"},
		{in: "keys: ghp_0123456789abcdefghijABCDEFGHIJ sk-proj-0123456789abcdefXYZ AKIAABCDEFGHIJKLMNOP xoxb-1234-5678-abcdef",
			want: "keys: xxxxx xxxxx xxxxx xxxxx"},
		{in: "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature-1 expired", want: "jwt xxxxx expired"},
	}
	for _, tt := range tests {
		got := String(tt.in)
		if got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		for _, s := range tt.secrets {
			if strings.Contains(got, s) {
				t.Errorf("String(%q) = %q still contains %q", tt.in, got, s)
			}
		}
	}
}

func TestStringIsIdempotent(t *testing.T) {
	in := "password=a token: b amqp://u:p@h Bearer c"
	once := String(in)
	if twice := String(once); twice != once {
		t.Fatalf("String(String(x)) = %q, String(x) = %q", twice, once)
	}
}

// A text Collapse would not change is returned as it is, without a copy;
// any other is collapsed as before.
func TestCollapseKeepsACollapsedText(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\u00a0b", "héllo wörld", "\xff", "\ufffd", "abcde", "abcdef", "ab cd", "a b c d e f"} {
		for _, maxRunes := range []int{0, 5, 1} {
			if got, want := Collapse(s, maxRunes), collapse(s, maxRunes); got != want {
				t.Errorf("Collapse(%q, %d) = %q, want %q", s, maxRunes, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Collapse("the quick brown fox", 120) }); n != 0 {
		t.Errorf("Collapse of a collapsed text allocated %v times, want 0", n)
	}
}
