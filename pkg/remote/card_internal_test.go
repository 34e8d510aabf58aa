// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"errors"
	"strings"
	"testing"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/directory"
)

func TestCardURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://w.example.com":                  "https://w.example.com/.well-known/agent-card.json",
		"https://w.example.com/":                 "https://w.example.com/.well-known/agent-card.json",
		"http://127.0.0.1:8080":                  "http://127.0.0.1:8080/.well-known/agent-card.json",
		"https://w.example.com/agents/card.json": "https://w.example.com/agents/card.json",
		"https://w.example.com/a?x=1":            "https://w.example.com/a?x=1",
	} {
		if got := cardURL(in); got != want {
			t.Errorf("cardURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A2A 0.3 cards (url, preferredTransport, additionalInterfaces, and 0.3's
// default of JSON-RPC) become interfaces of protocol version 0.3; 1.0 ones
// are read as they are; a card with no interface is refused.
func TestParseCard(t *testing.T) {
	cases := []struct {
		name, card string
		want       []string // binding version url
		bad        string
	}{
		{"1.0", `{"name":"A","supportedInterfaces":[{"url":"https://a/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"skills":[]}`,
			[]string{"JSONRPC 1.0 https://a/rpc"}, ""},
		{"0.3 with its transports", `{"name":"A","protocolVersion":"0.3.0","url":"https://a/rpc","preferredTransport":"JSONRPC",
			"additionalInterfaces":[{"url":"https://a/rest","transport":"HTTP+JSON"}],"skills":[]}`,
			[]string{"JSONRPC 0.3.0 https://a/rpc", "HTTP+JSON 0.3.0 https://a/rest"}, ""},
		{"0.3 with only a url", `{"name":"A","url":"https://a/","skills":[]}`, []string{"JSONRPC 0.3 https://a/"}, ""},
		{"no interface", `{"name":"A","skills":[]}`, nil, "lists no interface"},
		{"not JSON", `<html>`, nil, "not a usable A2A agent card"},
	}
	for _, c := range cases {
		card, err := parseCard([]byte(c.card))
		if c.bad != "" {
			if !errors.Is(err, errBadCard) || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("%s: %v, want %q", c.name, err, c.bad)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, i := range card.SupportedInterfaces {
			got = append(got, string(i.ProtocolBinding)+" "+string(i.ProtocolVersion)+" "+i.URL)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: interfaces %v, want %v", c.name, got, c.want)
		}
	}
}

// The bus card keeps within what a directory accepts, whatever the
// remote's card holds; skills without a usable id are left out, and a card
// left with none gets DefaultSkill.
func TestBusCardBounds(t *testing.T) {
	remote := &spec.AgentCard{Description: strings.Repeat("d", 20<<10)}
	for i := range 400 {
		remote.Skills = append(remote.Skills, spec.AgentSkill{ID: "skill " + strings.Repeat("x", i%50) + string(rune('a'+i%26)) + strings.Repeat("y", i/26),
			Description: strings.Repeat("s", 10<<10), Examples: []string{strings.Repeat("e", 2000), "b", "c", "d", "e", "f", "g", "h", "i", "j"}})
	}
	card := busCard("Big", remote)
	if len(card.Description) > directory.MaxDescriptionBytes || len(card.Skills) > directory.MaxCardSkills || len(card.Skills) == 0 {
		t.Fatalf("description %d bytes, %d skills", len(card.Description), len(card.Skills))
	}
	if n := cardBytes(card); n > directory.DefaultMaxCardBytes {
		t.Fatalf("the bus card is %d bytes, more than a directory accepts", n)
	}
	for _, s := range card.Skills {
		if len(s.Examples) > maxSkillExamples || len(s.Description) > directory.MaxDescriptionBytes {
			t.Fatalf("skill %s: %d examples, %d bytes of description", s.ID, len(s.Examples), len(s.Description))
		}
	}
	if got := busCard("None", &spec.AgentCard{Skills: []spec.AgentSkill{{ID: "---"}, {ID: ""}}}); len(got.Skills) != 1 || got.Skills[0].ID != DefaultSkill {
		t.Fatalf("skills = %+v, want only %s", got.Skills, DefaultSkill)
	}
	for in, want := range map[string]string{"get weather": "get-weather", "_x": "x", "a/b.c": "a-b.c", "---": "", "ok": "ok", strings.Repeat("z", 80): strings.Repeat("z", 64)} {
		if got := skillID(in); got != want {
			t.Errorf("skillID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"-1":                            0,
		"soon":                          0,
		"Fri, 02 Jan 2026 03:04:35 GMT": 30 * time.Second,
		"Fri, 02 Jan 2026 03:00:00 GMT": 0,
	} {
		if got := retryAfter(in, now); got != want {
			t.Errorf("retryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}
