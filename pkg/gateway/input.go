// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// The keys of a message's (or its request's) metadata the gateway reads;
// every other key — a caller, a call chain, a session — is ignored: the
// caller is the principal, always.
const (
	// MetaSkill names the skill to call; default the first on the agent's card.
	MetaSkill = "skill"
	// MetaTimeout is the time the task gets: a duration ("90s") or a number
	// of seconds; default caller.default_timeout, at most caller.max_timeout.
	MetaTimeout = "timeout"
)

// sendInput is what a send asks for, checked.
type sendInput struct {
	taskID, messageID, contextID string
	text                         string
	input                        json.RawMessage
	skill                        string
	timeout                      time.Duration
	push                         *spec.PushConfig
}

// parseSend reads a send: the text parts (joined by newlines) are the
// task's text, one data part its structured input; file parts are refused
// (content type not supported: the bus carries text and JSON). The skill
// and the timeout come from the metadata.
func parseSend(rq *request, req *spec.SendMessageRequest) (*sendInput, error) {
	m := req.Message
	in := &sendInput{taskID: string(m.TaskID), messageID: m.ID, contextID: m.ContextID}
	var texts []string
	for i, p := range m.Parts {
		if p == nil || p.Content == nil {
			return nil, invalidParams(fmt.Sprintf("message.parts[%d] has no content", i))
		}
		switch c := p.Content.(type) {
		case spec.Text:
			texts = append(texts, string(c))
		case spec.Data:
			if in.input != nil {
				return nil, invalidParams(fmt.Sprintf("message.parts[%d]: at most one data part (the task's structured input)", i))
			}
			raw, err := json.Marshal(c.Value)
			if err != nil {
				return nil, invalidParams(fmt.Sprintf("message.parts[%d]: %v", i, err))
			}
			in.input = raw
		default:
			return nil, spec.NewError(spec.ErrUnsupportedContentType, fmt.Sprintf(
				"message.parts[%d] is a file (raw bytes or a URL): the bus carries text and JSON data parts only", i))
		}
	}
	in.text = strings.Join(texts, "\n")
	if in.text == "" && in.input == nil {
		return nil, invalidParams("the message has no text and no data part")
	}
	var err error
	if in.timeout, err = timeoutOf(req); err != nil {
		return nil, err
	}
	if req.Config != nil {
		in.push = req.Config.PushConfig
	}
	if in.taskID != "" {
		return in, nil // an answer: the task has its skill
	}
	if in.skill, err = skillOf(rq, req); err != nil {
		return nil, err
	}
	if req.Config != nil {
		if err := checkOutputModes(rq, in.skill, req.Config.AcceptedOutputModes); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// meta is the value of key in the request's metadata, else the message's.
func meta(req *spec.SendMessageRequest, key string) (any, bool) {
	for _, md := range []map[string]any{req.Metadata, req.Message.Metadata} {
		if v, ok := md[key]; ok {
			return v, true
		}
	}
	return nil, false
}

// skillOf is the skill the metadata names, else the card's first.
func skillOf(rq *request, req *spec.SendMessageRequest) (string, error) {
	if v, ok := meta(req, MetaSkill); ok {
		s, _ := v.(string)
		if s == "" {
			return "", invalidParams(fmt.Sprintf("metadata.%s must be a skill id (a string)", MetaSkill))
		}
		return s, nil
	}
	if len(rq.agent.Card.Skills) == 0 {
		return "", invalidParams(fmt.Sprintf("agent %s lists no skills", rq.agent.Name))
	}
	return rq.agent.Card.Skills[0].ID, nil
}

// maxTimeout bounds the timeout a send may ask for before the caller
// clamps it (caller.max_timeout): beyond, it is surely a mistake.
const maxTimeout = 365 * 24 * time.Hour

func timeoutOf(req *spec.SendMessageRequest) (time.Duration, error) {
	v, ok := meta(req, MetaTimeout)
	if !ok {
		return 0, nil
	}
	var d time.Duration
	switch t := v.(type) {
	case string:
		var err error
		if d, err = time.ParseDuration(t); err != nil {
			return 0, invalidParams(fmt.Sprintf("metadata.%s %q is not a duration (\"90s\") or a number of seconds", MetaTimeout, t))
		}
	case float64:
		if math.IsNaN(t) || t > maxTimeout.Seconds() {
			return 0, invalidParams(fmt.Sprintf("metadata.%s %v is out of range", MetaTimeout, t))
		}
		d = time.Duration(t * float64(time.Second))
	default:
		return 0, invalidParams(fmt.Sprintf("metadata.%s must be a duration (\"90s\") or a number of seconds", MetaTimeout))
	}
	if d <= 0 || d > maxTimeout {
		return 0, invalidParams(fmt.Sprintf("metadata.%s must be positive and at most a year, got %s", MetaTimeout, d))
	}
	return d, nil
}

// defaultModes are the media types a bus agent answers in when its card
// says nothing: text, and JSON in data parts.
var defaultModes = []string{"text/plain", "application/json"}

// checkOutputModes refuses a send whose accepted output modes the skill
// cannot answer in (content type not supported).
func checkOutputModes(rq *request, skill string, accepted []string) error {
	if len(accepted) == 0 {
		return nil
	}
	offered := outputModes(rq.agent.Card, skill)
	for _, a := range accepted {
		for _, o := range offered {
			if mediaMatch(a, o) {
				return nil
			}
		}
	}
	return spec.NewError(spec.ErrUnsupportedContentType, fmt.Sprintf("skill %s of %s answers in %s, none of the accepted output modes %s",
		skill, rq.agent.Name, strings.Join(offered, ", "), strings.Join(accepted, ", ")))
}

func outputModes(card a2a.AgentCard, skill string) []string {
	for _, s := range card.Skills {
		if s.ID == skill && len(s.OutputModes) > 0 {
			return s.OutputModes
		}
	}
	if len(card.DefaultOutputModes) > 0 {
		return card.DefaultOutputModes
	}
	return defaultModes
}

// mediaMatch reports whether the accepted media range a covers type o.
func mediaMatch(a, o string) bool {
	a, o = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(o))
	if i := strings.IndexByte(a, ';'); i >= 0 {
		a = strings.TrimSpace(a[:i])
	}
	switch {
	case a == o || a == "*/*" || a == "*":
		return true
	case strings.HasSuffix(a, "/*"):
		return strings.HasPrefix(o, strings.TrimSuffix(a, "*"))
	}
	return false
}
