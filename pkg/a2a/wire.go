// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package a2a

import (
	"encoding/json"

	spec "github.com/a2aproject/a2a-go/v2/a2a"
)

// The codec's fast path. a2a-go's Message, Part, ContentParts, MessageRole
// and TaskState have JSON methods that call encoding/json again for every
// part, role and state: each one a nested Marshal or Unmarshal, which is
// most of the cost of a payload. The mirrors below have plain fields in
// their place, so one encoding/json pass writes or reads a whole payload.
// They write the JSON a2a-go writes (keys may come in another order) and
// read what it reads into the same values; input they would read
// differently — a part without exactly one content, a key given twice (in
// any letter case: wirescan_keys.go), or any JSON error — is decoded again
// the standard way, so results and errors are a2a-go's
// (wire_test.go checks both directions).

// wireMessage mirrors Message.
type wireMessage struct {
	ID             string         `json:"messageId"`
	ContextID      string         `json:"contextId,omitempty"`
	Extensions     []string       `json:"extensions,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	Parts          []*wirePart    `json:"parts"`
	ReferenceTasks []spec.TaskID  `json:"referenceTaskIds,omitempty"`
	Role           string         `json:"role"`
	TaskID         spec.TaskID    `json:"taskId,omitempty"`
}

// wirePart mirrors Part as a2a-go flattens it: one of text, raw, data or url.
type wirePart struct {
	Text      *string        `json:"text,omitempty"`
	Raw       *[]byte        `json:"raw,omitempty"`
	Data      *any           `json:"data,omitempty"`
	URL       *string        `json:"url,omitempty"`
	Filename  string         `json:"filename,omitempty"`
	MediaType string         `json:"mediaType,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`

	text string // where Text points when toWireParts built the part (not encoded)
}

// wireArtifact mirrors Artifact.
type wireArtifact struct {
	ID          spec.ArtifactID `json:"artifactId"`
	Description string          `json:"description,omitempty"`
	Extensions  []string        `json:"extensions,omitempty"`
	Metadata    map[string]any  `json:"metadata,omitempty"`
	Name        string          `json:"name,omitempty"`
	Parts       []*wirePart     `json:"parts"`
}

// The payloads with their A2A fields mirrored. The mirror's own field, at
// depth 0, takes the key from the embedded payload's field of that name.
type (
	taskRequestFields TaskRequest
	taskStatusFields  TaskStatus
	taskResultFields  TaskResult
	taskErrorFields   TaskError

	wireTaskRequest struct {
		*taskRequestFields
		Message        *wireMessage   `json:"message"`
		History        []*wireMessage `json:"history,omitempty"`
		ContextHistory []*wireMessage `json:"contextHistory,omitempty"`
	}
	wireTaskStatus struct {
		*taskStatusFields
		State   string       `json:"state"`
		Message *wireMessage `json:"message,omitempty"`
	}
	wireTaskResult struct {
		*taskResultFields
		State     string          `json:"state"`
		Message   *wireMessage    `json:"message,omitempty"`
		Artifacts []*wireArtifact `json:"artifacts,omitempty"`
	}
	wireTaskError struct {
		*taskErrorFields
		State string `json:"state"`
	}
)

// marshalPayload encodes p as encoding/json would, through its mirror when
// it has one, by hand for the payloads of every call (wireenc.go) unless
// the hand-written writer gives up.
func marshalPayload(p Payload) ([]byte, error) {
	switch v := p.(type) {
	case *TaskRequest:
		if b, ok := encodeTaskRequest(v); ok {
			return b, nil
		}
	case *TaskResult:
		if b, ok := encodeTaskResult(v); ok {
			return b, nil
		}
	}
	return marshalMirror(p)
}

// marshalMirror encodes p through its mirror with encoding/json.
func marshalMirror(p Payload) ([]byte, error) {
	switch v := p.(type) {
	case *TaskRequest:
		return json.Marshal(wireTaskRequest{(*taskRequestFields)(v), toWireMessage(v.Message), toWireMessages(v.History), toWireMessages(v.ContextHistory)})
	case *TaskStatus:
		return json.Marshal(wireTaskStatus{(*taskStatusFields)(v), v.State.String(), toWireMessage(v.Message)})
	case *TaskResult:
		return json.Marshal(wireTaskResult{(*taskResultFields)(v), v.State.String(), toWireMessage(v.Message), toWireArtifacts(v.Artifacts)})
	case *TaskError:
		return json.Marshal(wireTaskError{(*taskErrorFields)(v), v.State.String()})
	}
	return json.Marshal(p)
}

// unmarshalPayload decodes body into a new payload of kind k as
// encoding/json would into newPayload(k), through its mirror when it has
// one; whatever the mirror does not take as a2a-go would is decoded the
// standard way.
func unmarshalPayload(k Kind, body []byte) (Payload, error) {
	p := newPayload(k)
	if fastUnmarshal(p, body) {
		return p, nil
	}
	p = newPayload(k)
	if err := json.Unmarshal(body, p); err != nil {
		return nil, err
	}
	return p, nil
}

// fastUnmarshal decodes body into p through its mirror; false when p has
// none or the body needs the standard path.
func fastUnmarshal(p Payload, body []byte) bool {
	var ok bool
	switch v := p.(type) {
	case *TaskRequest:
		w := wireTaskRequest{taskRequestFields: (*taskRequestFields)(v)}
		if !(&jsonReader{b: body}).taskRequest(&w) { // wirescan.go; else the encoding/json pass
			*v, w.Message, w.History, w.ContextHistory = TaskRequest{}, nil, nil, nil
			if json.Unmarshal(body, &w) != nil || repeatsAKey(body) { // wirescan_keys.go
				return false
			}
		}
		v.Message, ok = fromWireMessage(w.Message)
		if ok {
			v.History, ok = fromWireMessages(w.History)
		}
		if ok {
			v.ContextHistory, ok = fromWireMessages(w.ContextHistory)
		}
	case *TaskStatus:
		w := wireTaskStatus{taskStatusFields: (*taskStatusFields)(v)}
		if json.Unmarshal(body, &w) != nil || repeatsAKey(body) {
			return false
		}
		v.State = fromWireState(w.State)
		v.Message, ok = fromWireMessage(w.Message)
	case *TaskResult:
		w := wireTaskResult{taskResultFields: (*taskResultFields)(v)}
		if !(&jsonReader{b: body}).taskResult(&w) { // wirescan.go; else the encoding/json pass
			*v, w.State, w.Message = TaskResult{}, "", nil
			if json.Unmarshal(body, &w) != nil || repeatsAKey(body) {
				return false
			}
		}
		v.State = fromWireState(w.State)
		v.Message, ok = fromWireMessage(w.Message)
		if ok {
			v.Artifacts, ok = fromWireArtifacts(w.Artifacts)
		}
	case *TaskError:
		w := wireTaskError{taskErrorFields: (*taskErrorFields)(v)}
		if json.Unmarshal(body, &w) != nil {
			return false
		}
		v.State, ok = fromWireState(w.State), true
	}
	return ok
}

// fromWireState reads a state as TaskState.UnmarshalJSON does.
func fromWireState(s string) TaskState {
	if s == spec.TaskStateUnspecified.String() {
		return spec.TaskStateUnspecified
	}
	return TaskState(s)
}

func toWireMessage(m *Message) *wireMessage {
	if m == nil {
		return nil
	}
	return &wireMessage{ID: m.ID, ContextID: m.ContextID, Extensions: m.Extensions, Metadata: m.Metadata,
		Parts: toWireParts(m.Parts), ReferenceTasks: m.ReferenceTasks, Role: m.Role.String(), TaskID: m.TaskID}
}

// fromWireMessage builds the Message a2a-go would have decoded; false when
// one of its parts needs the standard path.
func fromWireMessage(w *wireMessage) (*Message, bool) {
	if w == nil {
		return nil, true
	}
	parts, ok := fromWireParts(w.Parts)
	if !ok {
		return nil, false
	}
	role := spec.MessageRole(w.Role)
	if w.Role == spec.MessageRoleUnspecified.String() {
		role = spec.MessageRoleUnspecified
	}
	return &Message{ID: w.ID, ContextID: w.ContextID, Extensions: w.Extensions, Metadata: w.Metadata,
		Parts: parts, ReferenceTasks: w.ReferenceTasks, Role: role, TaskID: w.TaskID}, true
}

// toWireMessages mirrors a list of messages (nil stays nil, empty stays empty).
func toWireMessages(ms []*Message) []*wireMessage {
	if ms == nil {
		return nil
	}
	out := make([]*wireMessage, len(ms))
	for i, m := range ms {
		out[i] = toWireMessage(m)
	}
	return out
}

// fromWireMessages builds the messages a2a-go would have decoded; false
// when one of them needs the standard path.
func fromWireMessages(ws []*wireMessage) ([]*Message, bool) {
	if ws == nil {
		return nil, true
	}
	out := make([]*Message, len(ws))
	for i, w := range ws {
		m, ok := fromWireMessage(w)
		if !ok {
			return nil, false
		}
		out[i] = m
	}
	return out, true
}

func toWireArtifacts(as []*Artifact) []*wireArtifact {
	if as == nil {
		return nil
	}
	out := make([]*wireArtifact, len(as))
	for i, a := range as {
		if a != nil {
			out[i] = &wireArtifact{ID: a.ID, Description: a.Description, Extensions: a.Extensions, Metadata: a.Metadata,
				Name: a.Name, Parts: toWireParts(a.Parts)}
		}
	}
	return out
}

func fromWireArtifacts(ws []*wireArtifact) ([]*Artifact, bool) {
	if ws == nil {
		return nil, true
	}
	out := make([]*Artifact, len(ws))
	for i, w := range ws {
		if w == nil {
			continue
		}
		parts, ok := fromWireParts(w.Parts)
		if !ok {
			return nil, false
		}
		out[i] = &Artifact{ID: w.ID, Description: w.Description, Extensions: w.Extensions, Metadata: w.Metadata,
			Name: w.Name, Parts: parts}
	}
	return out, true
}

// toWireParts flattens parts as Part.MarshalJSON does.
func toWireParts(ps spec.ContentParts) []*wirePart {
	if ps == nil {
		return nil
	}
	out := pointersTo[wirePart](len(ps))
	for i, p := range ps {
		if p == nil {
			out[i] = nil
			continue
		}
		w := out[i]
		*w = wirePart{Filename: p.Filename, MediaType: p.MediaType, Metadata: p.Metadata}
		switch c := p.Content.(type) {
		case spec.Text:
			w.text = string(c)
			w.Text = &w.text
		case spec.Raw:
			b := []byte(c)
			w.Raw = &b
		case spec.Data:
			v := c.Value
			w.Data = &v
		case spec.URL:
			if c != "" {
				s := string(c)
				w.URL = &s
			}
		}
		out[i] = w
	}
	return out
}

// fromWireParts hydrates parts as Part.UnmarshalJSON does; false when a
// part has no content or several (a2a-go's error is then the standard path's).
func fromWireParts(ws []*wirePart) (spec.ContentParts, bool) {
	if ws == nil {
		return nil, true
	}
	out := spec.ContentParts(pointersTo[Part](len(ws)))
	for i, w := range ws {
		if w == nil {
			out[i] = nil
			continue
		}
		var content spec.PartContent
		n := 0
		if w.Text != nil {
			content, n = spec.Text(*w.Text), n+1
		}
		if w.Raw != nil {
			content, n = spec.Raw(*w.Raw), n+1
		}
		if w.Data != nil {
			content, n = spec.Data{Value: *w.Data}, n+1
		}
		if w.URL != nil && *w.URL != "" {
			content, n = spec.URL(*w.URL), n+1
		}
		if n != 1 {
			return nil, false
		}
		*out[i] = Part{Content: content, Filename: w.Filename, MediaType: w.MediaType, Metadata: w.Metadata}
	}
	return out, true
}

// pointersTo is n pointers to n zero values, in two allocations (one when
// n is 1, a message's usual count of parts) instead of n+1.
func pointersTo[T any](n int) []*T {
	if n == 1 {
		one := new(struct {
			ptr [1]*T
			v   T
		})
		one.ptr[0] = &one.v
		return one.ptr[:]
	}
	out, vs := make([]*T, n), make([]T, n)
	for i := range out {
		out[i] = &vs[i]
	}
	return out
}

// MessageMirror is a value that encodes to JSON as m does, without a2a-go's
// nested JSON calls, for types outside this package that embed a message;
// nil (so that omitempty omits it) when m is nil.
func MessageMirror(m *Message) any {
	if m == nil {
		return nil
	}
	return toWireMessage(m)
}

// MessagesMirror is a value that encodes to JSON as ms does, without
// a2a-go's nested JSON calls; nil when ms is empty (omitempty omits both).
func MessagesMirror(ms []*Message) any {
	if len(ms) == 0 {
		return nil
	}
	return toWireMessages(ms)
}

// ArtifactsMirror is a value that encodes to JSON as as does, without
// a2a-go's nested JSON calls; nil when as is empty (omitempty omits both).
func ArtifactsMirror(as []*Artifact) any {
	if len(as) == 0 {
		return nil
	}
	return toWireArtifacts(as)
}
