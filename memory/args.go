// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"fmt"
	"maps"
	"time"
)

// ValidateTTL reports whether ttl may be passed to Set or SetIfAbsent (>= 0).
func ValidateTTL(ttl time.Duration) error {
	if ttl < 0 {
		return fmt.Errorf("%w: ttl %v is negative (0 means no expiry)", ErrInvalidArgument, ttl)
	}
	return nil
}

// ValidateAfterSeq reports whether afterSeq may be passed to Turns or SubscribeTurns (>= 0).
func ValidateAfterSeq(afterSeq int64) error {
	if afterSeq < 0 {
		return fmt.Errorf("%w: afterSeq %d is negative", ErrInvalidArgument, afterSeq)
	}
	return nil
}

// ValidateRole reports whether role is one of the four turn roles.
func ValidateRole(role string) error {
	switch role {
	case RoleUser, RoleAssistant, RoleSystem, RoleTool:
		return nil
	}
	return fmt.Errorf("%w: turn role %q must be one of %s, %s, %s, %s",
		ErrInvalidArgument, role, RoleUser, RoleAssistant, RoleSystem, RoleTool)
}

// ValidateTurn reports whether t may be given to AppendTurn: Seq 0 (AppendTurn
// assigns it) and a known role.
func ValidateTurn(t Turn) error {
	if t.Seq != 0 {
		return fmt.Errorf("%w: turn seq is assigned by AppendTurn, got %d", ErrInvalidArgument, t.Seq)
	}
	return ValidateRole(t.Role)
}

// PrepareTurn returns the copy a backend stores of a turn ValidateTurn
// accepted: Seq still 0, Time set to now when zero and in UTC without a
// monotonic reading, Meta copied (nil when empty).
func PrepareTurn(t Turn, now time.Time) Turn {
	if t.Time.IsZero() {
		t.Time = now
	}
	t.Time = t.Time.UTC().Round(0)
	t.Meta = CloneMeta(t.Meta)
	return t
}

// CloneMeta copies a turn's Meta; an empty map becomes nil.
func CloneMeta(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
