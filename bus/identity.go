// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bus

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// Identity modes: how a receiver learns who sent a message (identity.mode).
const (
	// IdentityAuto is IdentityBroker for a process that connects as its own
	// (unshared) broker user, IdentityBody for one on a shared user (guest).
	// A message published by an unshared user is always checked.
	IdentityAuto = "auto"
	// IdentityBroker takes the sender from the message's user_id, which the
	// broker validated against the publishing connection's user; a message
	// without one, or from a shared user, names nobody and is refused.
	IdentityBroker = "broker"
	// IdentityBody trusts the body's caller/agent field (development: anyone
	// who can connect can be anyone).
	IdentityBody = "body"
)

// DefaultSharedUsers are the broker users taken as shared by many processes
// when Identities.SharedUsers is nil: RabbitMQ's development user.
var DefaultSharedUsers = []string{"guest"}

// ErrInvalidIdentity: an identity setting (mode, user mapping) is malformed.
var ErrInvalidIdentity = errors.New("bus: invalid identity setting")

// Identities maps the broker users that publish messages to the agent names
// they may act as. The zero value is IdentityAuto with DefaultSharedUsers and
// the convention that a user acts as the agent of its own name.
type Identities struct {
	mode   string
	shared []string
	users  map[string][]string // lower-cased user → names
}

// NewIdentities builds the mapping of mode (empty: IdentityAuto), the shared
// users (nil: DefaultSharedUsers) and users, entries "user=AgentName" (a user
// may appear several times, once per name it acts as). A user that no entry
// lists acts as the agent of its own name, when that is a valid agent name.
func NewIdentities(mode string, shared, users []string) (*Identities, error) {
	switch mode {
	case "":
		mode = IdentityAuto
	case IdentityAuto, IdentityBroker, IdentityBody:
	default:
		return nil, fmt.Errorf("%w: mode %q must be %s, %s or %s", ErrInvalidIdentity, mode, IdentityAuto, IdentityBroker, IdentityBody)
	}
	ids := &Identities{mode: mode, shared: DefaultSharedUsers, users: map[string][]string{}}
	if shared != nil {
		ids.shared = nil
		for _, u := range shared {
			if u = strings.TrimSpace(u); u == "" {
				return nil, fmt.Errorf("%w: a shared user is empty", ErrInvalidIdentity)
			}
			ids.shared = append(ids.shared, u)
		}
	}
	for _, e := range users {
		user, name, ok := strings.Cut(e, "=")
		user, name = strings.TrimSpace(user), strings.TrimSpace(name)
		if !ok || user == "" {
			return nil, fmt.Errorf("%w: user mapping %q must be user=AgentName", ErrInvalidIdentity, e)
		}
		if err := a2a.ValidateAgentName(name); err != nil {
			return nil, fmt.Errorf("%w: user mapping %q: %w", ErrInvalidIdentity, e, err)
		}
		if ids.isShared(user) {
			return nil, fmt.Errorf("%w: user mapping %q: %q is a shared user, which names nobody", ErrInvalidIdentity, e, user)
		}
		k := strings.ToLower(user)
		ids.users[k] = append(ids.users[k], name)
	}
	return ids, nil
}

// Mode is the identity mode (IdentityAuto, IdentityBroker or IdentityBody).
func (ids *Identities) Mode() string {
	if ids == nil {
		return IdentityAuto
	}
	return ids.mode
}

// Shared reports whether user is a shared user (or empty): it names nobody.
func (ids *Identities) Shared(user string) bool {
	return user == "" || ids.isShared(user)
}

func (ids *Identities) isShared(user string) bool {
	shared := DefaultSharedUsers
	if ids != nil {
		shared = ids.shared
	}
	return slices.ContainsFunc(shared, func(s string) bool { return strings.EqualFold(s, user) })
}

// Names are the agent names user may act as: its mapped names, else its own
// name when it is a valid agent name; none for a shared user.
func (ids *Identities) Names(user string) []string {
	if ids.Shared(user) {
		return nil
	}
	if ids != nil {
		if names, ok := ids.users[strings.ToLower(user)]; ok {
			return slices.Clone(names)
		}
	}
	if a2a.ValidateAgentName(user) != nil {
		return nil
	}
	return []string{user}
}

// Enforced reports whether a process connected as own must take every
// sender's identity from the broker (IdentityBroker, or IdentityAuto on an
// unshared user).
func (ids *Identities) Enforced(own string) bool {
	switch ids.Mode() {
	case IdentityBroker:
		return true
	case IdentityBody:
		return false
	}
	return !ids.Shared(own)
}

// Sender is who sent one message, as its receiver must treat it.
type Sender struct {
	// User is the broker user that published the message (Message.UserID).
	User string
	// Names are the agent names User may act as.
	Names []string
	// Verified is set when the names come from the broker: the body's
	// caller/agent must be one of them. Unset, the body is trusted (shared
	// user or IdentityBody: development).
	Verified bool
}

// Sender resolves the sender of m for a receiver connected as own (see
// UserOf). A message from an unshared user is always verified; one without
// a user, or from a shared user, is verified (and names nobody) only when
// Enforced(own).
func (ids *Identities) Sender(own string, m *Message) Sender {
	s := Sender{User: m.UserID}
	if ids.Mode() == IdentityBody {
		return s
	}
	if !ids.Shared(m.UserID) {
		s.Names, s.Verified = ids.Names(m.UserID), true
		return s
	}
	s.Verified = ids.Enforced(own)
	return s
}

// Allows reports whether the sender may claim to be name: always when not
// verified, else when name is one of its names.
func (s Sender) Allows(name string) bool {
	if !s.Verified {
		return true
	}
	return slices.ContainsFunc(s.Names, func(n string) bool { return a2a.SameAgent(n, name) })
}

// Name is the sender's single verified name, or "" (unverified, or a user
// acting as none or several).
func (s Sender) Name() string {
	if s.Verified && len(s.Names) == 1 {
		return s.Names[0]
	}
	return ""
}

// String describes the sender for logs: `user "x" (names A, B)`.
func (s Sender) String() string {
	user := s.User
	if user == "" {
		user = "<none>"
	}
	if !s.Verified {
		return fmt.Sprintf("user %q (unverified)", user)
	}
	if len(s.Names) == 0 {
		return fmt.Sprintf("user %q (acting as no agent)", user)
	}
	return fmt.Sprintf("user %q (acting as %s)", user, strings.Join(s.Names, ", "))
}

// Identified is a Bus that knows the broker user it connects as.
type Identified interface {
	// User is the broker user of the connection; "" when it has none.
	User() string
}

// UserOf returns the broker user b connects as, or "" when b does not say.
func UserOf(b any) string {
	if i, ok := b.(Identified); ok {
		return i.User()
	}
	return ""
}
