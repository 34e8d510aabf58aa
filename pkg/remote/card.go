// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/a2abus/a2abus/directory"
	"github.com/a2abus/a2abus/internal/text"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// WellKnownCardPath is where a card is looked for under a card URL that
// names no path.
const WellKnownCardPath = "/.well-known/agent-card.json"

// DefaultSkill is the one skill of a remote whose card lists none (or none
// with a usable id): a task for it is sent to the remote as any other.
const DefaultSkill = "message"

// cardURL is u, or u's origin with WellKnownCardPath when u names no path.
func cardURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Path != "" && p.Path != "/") {
		return u
	}
	p.Path = WellKnownCardPath
	return p.String()
}

// fetchCard gets and parses the remote's card (A2A 1.0, or 0.3 converted),
// bounded by MaxCardBytes; a card offering no interface is refused.
func (b *Bridge) fetchCard(ctx context.Context) (*spec.AgentCard, error) {
	ctx, done := b.startCall(ctx, "card", a2a.Trace{})
	card, err := b.getCard(ctx)
	done(err)
	return card, err
}

func (b *Bridge) getCard(ctx context.Context) (*spec.AgentCard, error) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.CardTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("card %s: %w", b.cardURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := b.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("card %s: %w", b.cardURL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("card %s: HTTP %s", b.cardURL, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, b.opts.MaxCardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("card %s: %w", b.cardURL, err)
	}
	if int64(len(data)) > b.opts.MaxCardBytes {
		return nil, fmt.Errorf("card %s: %w: more than %d bytes (remote.max_card_bytes)", b.cardURL, errBadCard, b.opts.MaxCardBytes)
	}
	card, err := parseCard(data)
	if err != nil {
		return nil, fmt.Errorf("card %s: %w", b.cardURL, err)
	}
	return card, nil
}

// errBadCard: the card is not one the bridge can use; not retried.
var errBadCard = errors.New("not a usable A2A agent card")

// parseCard reads an A2A 1.0 card, or a 0.3 one (url, preferredTransport,
// additionalInterfaces: its interfaces get protocol version 0.3, and a url
// without a preferredTransport is JSON-RPC, 0.3's default).
func parseCard(data []byte) (*spec.AgentCard, error) {
	card, err := a2av0.NewAgentCardParser()(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadCard, err)
	}
	if len(card.SupportedInterfaces) == 0 {
		var legacy struct {
			URL             string `json:"url"`
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(data, &legacy) // it parsed above
		if legacy.URL != "" {
			v := spec.ProtocolVersion(legacy.ProtocolVersion)
			if v == "" {
				v = a2av0.Version
			}
			card.SupportedInterfaces = []*spec.AgentInterface{{URL: legacy.URL, ProtocolBinding: spec.TransportProtocolJSONRPC, ProtocolVersion: v}}
		}
	}
	card.SupportedInterfaces = slices.DeleteFunc(card.SupportedInterfaces, func(i *spec.AgentInterface) bool { return i == nil || i.URL == "" })
	if len(card.SupportedInterfaces) == 0 {
		return nil, fmt.Errorf("%w: it lists no interface (supportedInterfaces, or 0.3's url)", errBadCard)
	}
	return card, nil
}

// Bounds of the bus card made of a remote's: what a directory accepts.
const (
	maxSkillExamples = 8
	maxExampleBytes  = 512
	maxSkillTags     = 16
	maxTagBytes      = 64
)

// busCard is the card of the bus agent name bridging remote: its skills
// (ids made valid bus skill ids, at most directory.MaxCardSkills), its
// description, version, provider and interfaces (where it really runs),
// every text cut to the directory's bounds. A card without a usable skill
// gets DefaultSkill.
func busCard(name string, remote *spec.AgentCard) a2a.AgentCard {
	card := a2a.AgentCard{
		Name: name, Description: text.Cut(remote.Description, directory.MaxDescriptionBytes), Version: text.Cut(remote.Version, 256),
		Provider: remote.Provider, DocumentationURL: remote.DocumentationURL, Capabilities: spec.AgentCapabilities{Streaming: remote.Capabilities.Streaming},
		DefaultInputModes: remote.DefaultInputModes, DefaultOutputModes: remote.DefaultOutputModes,
		SupportedInterfaces: remote.SupportedInterfaces,
	}
	seen := map[string]bool{}
	for _, s := range remote.Skills {
		id := skillID(s.ID)
		if id == "" || seen[id] || len(card.Skills) == directory.MaxCardSkills {
			continue
		}
		seen[id] = true
		out := spec.AgentSkill{ID: id, Name: text.Cut(s.Name, 256), Description: text.Cut(s.Description, directory.MaxDescriptionBytes),
			Tags: []string{}, InputModes: s.InputModes, OutputModes: s.OutputModes}
		if out.Name == "" {
			out.Name = id
		}
		for _, tag := range s.Tags[:min(len(s.Tags), maxSkillTags)] {
			out.Tags = append(out.Tags, text.Cut(tag, maxTagBytes))
		}
		for _, ex := range s.Examples[:min(len(s.Examples), maxSkillExamples)] {
			out.Examples = append(out.Examples, text.Cut(ex, maxExampleBytes))
		}
		card.Skills = append(card.Skills, out)
	}
	if len(card.Skills) == 0 {
		card.Skills = []spec.AgentSkill{{ID: DefaultSkill, Name: DefaultSkill, Description: "A message to the remote agent.", Tags: []string{}}}
	}
	for len(card.Skills) > 1 && cardBytes(card) > directory.DefaultMaxCardBytes*3/4 {
		card.Skills = card.Skills[:len(card.Skills)*3/4] // the announcement must fit the directory's bound
	}
	return card
}

// cardBytes is the size of card's JSON.
func cardBytes(card a2a.AgentCard) int {
	data, err := json.Marshal(card)
	if err != nil {
		return 0
	}
	return len(data)
}

// skillID makes a remote skill id a bus skill id: characters other than
// letters, digits, '_', '.' and '-' become '-', a leading one that is no
// letter or digit is dropped, at most 64; "" when nothing is left.
func skillID(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() == 0:
		case r == '_' || r == '.' || r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() == 64 {
			break
		}
	}
	s := b.String()
	if a2a.ValidateSkillID(s) != nil {
		return ""
	}
	return s
}

// sameSkills reports whether two cards list the same skill ids in order.
func sameSkills(a, b a2a.AgentCard) bool {
	return slices.EqualFunc(a.Skills, b.Skills, func(x, y spec.AgentSkill) bool { return x.ID == y.ID })
}
