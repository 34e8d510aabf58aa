// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

// The hand-written reader's part for the fields of later turns (wirescan.go):
// a request's history, context history and caller context, a result's question.

// messages reads an array of messages with text parts only (an empty one is not nil).
func (r *jsonReader) messages(dst *[]*wireMessage) bool {
	out := []*wireMessage{}
	ok := r.elements(func() bool {
		m := &wireMessage{}
		out = append(out, m)
		return r.message(m)
	})
	*dst = out
	return ok
}

// intInto reads an integer into an int.
func (r *jsonReader) intInto(dst *int) bool {
	var n int64
	ok := r.int(&n)
	*dst = int(n)
	return ok && int64(*dst) == n
}

// question reads a question.
func (r *jsonReader) question(q *Question) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "text":
			return strInto(r, &q.Text)
		case "options":
			q.Options = []Option{}
			return r.elements(func() bool {
				q.Options = append(q.Options, Option{})
				return r.option(&q.Options[len(q.Options)-1])
			})
		case "inputSchema":
			return r.raw(&q.InputSchema)
		case "auth":
			q.Auth = &AuthNeed{}
			return r.authNeed(q.Auth)
		}
		return false
	})
}

// option reads one option of a question.
func (r *jsonReader) option(o *Option) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "id":
			return strInto(r, &o.ID)
		case "label":
			return strInto(r, &o.Label)
		case "description":
			return strInto(r, &o.Description)
		}
		return false
	})
}

// authNeed reads what an agent needs to authenticate.
func (r *jsonReader) authNeed(n *AuthNeed) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "scheme":
			return strInto(r, &n.Scheme)
		case "resource":
			return strInto(r, &n.Resource)
		case "scopes":
			return r.strings(&n.Scopes)
		case "url":
			return strInto(r, &n.URL)
		}
		return false
	})
}

// callerContext reads a request's caller context.
func (r *jsonReader) callerContext(c *CallerContext) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "messages":
			c.Messages = []ContextMessage{}
			return r.elements(func() bool {
				c.Messages = append(c.Messages, ContextMessage{})
				return r.contextMessage(&c.Messages[len(c.Messages)-1])
			})
		case "key":
			return strInto(r, &c.Key)
		case "count":
			return r.intInto(&c.Count)
		}
		return false
	})
}

// contextMessage reads one message of a caller's context.
func (r *jsonReader) contextMessage(m *ContextMessage) bool {
	return r.members(func(key []byte) bool {
		switch string(key) {
		case "role":
			return strInto(r, &m.Role)
		case "text":
			return strInto(r, &m.Text)
		case "time":
			return r.time(&m.Time)
		}
		return false
	})
}
