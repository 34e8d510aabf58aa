// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	spec "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abus/a2abus/internal/redact"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// redactResult hides the secrets of an agent's answer before it is stored
// (unless Options.KeepSecrets): the text and data of its message's and
// artifacts' parts, URL parts, its warnings, its error message and its
// question, through the process's redactor. Parts are replaced, not
// changed, only where something is hidden; answers without secrets cost a
// scan of their text.
func redactResult(s *StoredResult) {
	s.redacted = true
	r := redact.Default()
	if s.Message != nil {
		if parts, changed := redactParts(r, s.Message.Parts); changed {
			m := *s.Message
			m.Parts = parts
			s.Message = &m
		}
	}
	copied := false
	for i, a := range s.Artifacts {
		if a == nil {
			continue
		}
		if parts, changed := redactParts(r, a.Parts); changed {
			if !copied {
				s.Artifacts, copied = append([]*a2a.Artifact(nil), s.Artifacts...), true
			}
			na := *a
			na.Parts = parts
			s.Artifacts[i] = &na
		}
	}
	if w, changed := r.ValueChanged(s.Warnings); changed {
		s.Warnings = w.([]string)
	}
	if s.Error != nil {
		e := *s.Error
		e.Message = r.String(e.Message)
		s.Error = &e
	}
	if q := s.Question; q != nil {
		nq := *q
		nq.Text = r.String(q.Text)
		nq.Options = append([]a2a.Option(nil), q.Options...)
		for i := range nq.Options {
			nq.Options[i].Label = r.String(nq.Options[i].Label)
			nq.Options[i].Description = r.String(nq.Options[i].Description)
		}
		if q.Auth != nil {
			auth := *q.Auth
			auth.URL = redact.URL(auth.URL)
			nq.Auth = &auth
		}
		s.Question = &nq
	}
	if extra, changed := r.ValueChanged(s.Metadata.Extra); changed {
		s.Metadata.Extra = extra.(map[string]any)
	}
}

// redactParts returns parts with the secrets of their text, data and URLs
// hidden, and whether anything was (else parts itself).
func redactParts(r *redact.Redactor, parts []*a2a.Part) ([]*a2a.Part, bool) {
	var out []*a2a.Part
	for i, p := range parts {
		np := redactPart(r, p)
		if np == p {
			continue
		}
		if out == nil {
			out = append([]*a2a.Part(nil), parts...)
		}
		out[i] = np
	}
	if out == nil {
		return parts, false
	}
	return out, true
}

// redactPart returns p, or a copy with its secrets hidden.
func redactPart(r *redact.Redactor, p *a2a.Part) *a2a.Part {
	if p == nil {
		return p
	}
	var np *a2a.Part
	switch c := p.Content.(type) {
	case spec.Text:
		if t := r.String(string(c)); t != string(c) {
			np = spec.NewTextPart(t)
		}
	case spec.Data:
		if v, changed := r.ValueChanged(c.Value); changed {
			np = spec.NewDataPart(v)
		}
	case spec.URL:
		if u := redact.URL(string(c)); u != string(c) {
			np = spec.NewFileURLPart(spec.URL(u), p.MediaType)
		}
	}
	if np == nil {
		return p
	}
	np.Filename, np.MediaType, np.Metadata = p.Filename, p.MediaType, p.Metadata
	return np
}
