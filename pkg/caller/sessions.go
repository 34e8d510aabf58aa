// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package caller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/a2abus/a2abus/memory"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// Sessions have owners. A session belongs to the caller that first starts a
// task in it (or claims it, ClaimSession): its name is kept at
// session/<id>/a2a-owner in working memory for DefaultSessionOwnerTTL,
// renewed by its calls (at most once every ownedFor). Only the owner, and the agents acting
// within a task started in the session by someone allowed there, may start
// tasks in it — and so have notification turns appended to its
// conversation. Starting a task gives its target a grant on the session
// (session/<id>/a2a-grants/<agent>, written in the batch that records the
// task, before its request is published), which lasts Options.MaxTimeout
// after the newest such task: any longer-lived task is cut at that
// deadline. Any other call in the session is refused with FORBIDDEN
// (wrapping ErrSessionNotOwned), logged, and not recorded in that
// session's call history.
//
// An answer cannot write into a session either: the task's record, not the
// answer, names the session, and an answer from an agent the task was not
// sent to is refused (forgedAnswer).

// DefaultSessionOwnerTTL is how long a session's owner is kept after its
// last call: the default memory.conversation_ttl, so the owner outlives
// the conversation it owns.
const DefaultSessionOwnerTTL = 7 * 24 * time.Hour

// ErrSessionNotOwned: a call in a session that belongs to another caller,
// by a caller with no grant there. The error also carries an *a2a.Error
// with CodeForbidden.
var ErrSessionNotOwned = errors.New("caller: session belongs to another caller")

// ownedFor is how long this process trusts its memory that it owns a
// session, and that it renewed the session's owner, before it reads the
// owner again and renews it: a session's calls within it write only the
// target's grant.
const ownedFor = time.Minute

// maxOwnedCache bounds the sessions remembered as owned.
const maxOwnedCache = 4096

// ownedSessions remembers the sessions this caller owns, for ownedFor.
type ownedSessions struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (o *ownedSessions) has(session string, now time.Time) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	at, ok := o.at[session]
	return ok && now.Sub(at) < ownedFor
}

func (o *ownedSessions) add(session string, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.at == nil || len(o.at) >= maxOwnedCache {
		o.at = map[string]time.Time{}
	}
	o.at[session] = now
}

// SessionOwner returns the caller that owns session, "" when none does.
func SessionOwner(ctx context.Context, m memory.Store, session string) (string, error) {
	if err := memory.ValidateSessionID(session); err != nil {
		return "", fmt.Errorf("caller: session owner: %w", err)
	}
	key, err := memory.SessionOwnerKey(session)
	if err != nil {
		return "", fmt.Errorf("caller: session owner: %w", err)
	}
	b, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("caller: read the owner of session %q: %w", session, err)
	}
	return string(b), nil
}

// ClaimSession makes this caller the owner of session unless another caller
// owns it, which is refused with ErrSessionNotOwned (and FORBIDDEN) — for a
// front end that appends its user's turns itself, before it does.
func (c *Caller) ClaimSession(ctx context.Context, session string) error {
	owner, err := c.claimSession(ctx, session)
	if err != nil {
		return err
	}
	if !a2a.SameAgent(owner, c.opts.Name) {
		return c.notOwned(session, owner, "claim it")
	}
	key, err := memory.SessionOwnerKey(session) // valid: claimSession read it
	if err != nil {
		return err
	}
	_, err = c.opts.Memory.Batch(ctx, memory.SetOp(key, []byte(c.opts.Name), DefaultSessionOwnerTTL))
	if err != nil {
		return fmt.Errorf("caller %q: renew the ownership of session %q: %w", c.opts.Name, session, err)
	}
	return nil
}

// claimSession returns the owner of session, claiming it for this caller
// when it has none.
func (c *Caller) claimSession(ctx context.Context, session string) (string, error) {
	owner, err := SessionOwner(ctx, c.opts.Memory, session)
	if err != nil || owner != "" {
		return owner, err
	}
	key, err := memory.SessionOwnerKey(session) // valid: SessionOwner read it
	if err != nil {
		return "", err
	}
	claimed, err := c.opts.Memory.SetIfAbsent(ctx, key, []byte(c.opts.Name), DefaultSessionOwnerTTL)
	if err != nil {
		return "", fmt.Errorf("caller %q: claim session %q: %w", c.opts.Name, session, err)
	}
	if claimed {
		c.log.Debug("session claimed", zap.String("session", session))
		return c.opts.Name, nil
	}
	return SessionOwner(ctx, c.opts.Memory, session) // another caller claimed it just before
}

// sessionOps checks that this caller may start rec's task in its session
// and returns the writes that go with the task's record: the owner's
// renewal (when it is the owner, and did not renew it within ownedFor) and
// the target's grant. A session made up for the task by this caller is its
// own without a look-up; it is remembered as owned once the task's record
// landed (ownedSession).
func (c *Caller) sessionOps(ctx context.Context, rec *Record) ([]memory.Op, error) {
	session, now := rec.SessionID, c.opts.Now()
	ownerKey, err := memory.SessionOwnerKey(session)
	if err != nil {
		return nil, err
	}
	grantKey, err := memory.SessionGrantKey(session, rec.Target)
	if err != nil {
		return nil, err
	}
	grant := memory.SetOp(grantKey, []byte(c.opts.Name), c.opts.MaxTimeout)
	renew := memory.SetOp(ownerKey, []byte(c.opts.Name), DefaultSessionOwnerTTL)
	if c.owned.has(session, now) {
		return []memory.Op{grant}, nil // owned, and renewed within ownedFor
	}
	if rec.freshSession {
		return []memory.Op{renew, grant}, nil
	}
	owner, err := c.claimSession(ctx, session)
	if err != nil {
		return nil, err
	}
	if a2a.SameAgent(owner, c.opts.Name) {
		c.owned.add(session, now)
		return []memory.Op{renew, grant}, nil
	}
	ownGrant, err := memory.SessionGrantKey(session, c.opts.Name)
	if err != nil {
		return nil, err
	}
	_, err = c.opts.Memory.Get(ctx, ownGrant)
	switch {
	case err == nil:
		return []memory.Op{grant}, nil
	case !errors.Is(err, memory.ErrNotFound):
		return nil, fmt.Errorf("caller %q: read its grant on session %q: %w", c.opts.Name, session, err)
	}
	return nil, c.notOwned(session, owner, fmt.Sprintf("start a task of %s.%s in it", rec.Target, rec.Skill))
}

// ownedSession remembers rec's session as this caller's, renewed now, once
// the batch that wrote its owner (the task's record) landed: a session made
// up for the task is owned only then.
func (c *Caller) ownedSession(rec *Record) {
	if rec.freshSession {
		c.owned.add(rec.SessionID, c.opts.Now())
	}
}

// notOwned is the refusal of what, in session, owned by owner.
func (c *Caller) notOwned(session, owner, what string) error {
	ae := a2a.NewError(a2a.CodeForbidden, "session %q belongs to caller %q: %q may %s only while it acts within a task started in that session (no task of the session reached %q in the last %s)",
		session, owner, c.opts.Name, what, c.opts.Name, c.opts.MaxTimeout)
	c.log.Warn("session refused: it belongs to another caller", zap.String("session", session), zap.String("owner", owner),
		zap.String("code", string(a2a.CodeForbidden)), zap.String("error", ae.Message))
	return fmt.Errorf("caller %q: %w: %w", c.opts.Name, ErrSessionNotOwned, ae)
}

// forgedAnswer is the refusal of an answer to the task of rec from agent,
// which the task was not sent to: it cannot write into the task's session.
func forgedAnswer(rec *Record, agent string) error {
	return fmt.Errorf("%w: %w", ErrUnknownTask, a2a.NewError(a2a.CodeForbidden,
		"task %s of session %q was sent to %q: an answer from %q cannot write into that session", rec.TaskID, rec.SessionID, rec.Target, agent))
}
