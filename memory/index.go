// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"context"
	"fmt"
)

// Indexes keeps sorted sets of members by an integer score (e.g. a caller's pending tasks by deadline).
type Indexes interface {
	// IndexAdd adds member to index with score, or moves it to score.
	IndexAdd(ctx context.Context, index, member string, score int64) error
	// IndexRemove removes member from index; a member not in it is no error.
	IndexRemove(ctx context.Context, index, member string) error
	// IndexRange returns the members of index with score <= max, lowest score first (ties by member), at most limit (<= 0: all).
	IndexRange(ctx context.Context, index string, max int64, limit int) ([]IndexMember, error)
	// IndexScore returns member's score and whether it is in index.
	IndexScore(ctx context.Context, index, member string) (score int64, found bool, err error)
}

// IndexMember is one member of an index and its score.
type IndexMember struct {
	// Member names the member (see ValidateIndexMember).
	Member string
	// Score orders the members of an index (see ValidateIndexScore).
	Score int64
}

// MaxIndexMemberLen is the longest index member in bytes.
const MaxIndexMemberLen = 256

// MaxIndexScore bounds the magnitude of a score: 2^53, the largest integer a
// float64 (Redis's score) holds exactly with all those below it.
const MaxIndexScore = 1 << 53

// ValidateIndex reports whether index may name an index: the rules of a key
// (see ValidateKey). Its error wraps both ErrInvalidArgument and ErrInvalidKey.
func ValidateIndex(index string) error {
	if err := validateKey("index", index); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return nil
}

// ValidateIndexMember reports whether member may be a member of an index: 1 to
// 256 bytes of printable ASCII without spaces. Its error wraps ErrInvalidArgument.
func ValidateIndexMember(member string) error {
	if member == "" {
		return invalidMember(member, "is empty")
	}
	if len(member) > MaxIndexMemberLen {
		return invalidMember(member, fmt.Sprintf("is %d bytes, the limit is %d", len(member), MaxIndexMemberLen))
	}
	for i := 0; i < len(member); i++ {
		if c := member[i]; c <= ' ' || c > '~' {
			return invalidMember(member, fmt.Sprintf("byte %d (%q) is a space, a control character or not ASCII", i, c))
		}
	}
	return nil
}

// ValidateIndexScore reports whether score may be stored in an index:
// -2^53 <= score <= 2^53 (MaxIndexScore). Its error wraps ErrInvalidArgument.
func ValidateIndexScore(score int64) error {
	if score < -MaxIndexScore || score > MaxIndexScore {
		return fmt.Errorf("%w: index score %d is out of range (its magnitude may be at most 2^53 = %d)",
			ErrInvalidArgument, score, int64(MaxIndexScore))
	}
	return nil
}

// ValidateIndexAdd reports whether index, member and score may be passed to IndexAdd.
func ValidateIndexAdd(index, member string, score int64) error {
	if err := ValidateIndexRemove(index, member); err != nil {
		return err
	}
	return ValidateIndexScore(score)
}

// ValidateIndexRemove reports whether index and member may be passed to IndexRemove or IndexScore.
func ValidateIndexRemove(index, member string) error {
	if err := ValidateIndex(index); err != nil {
		return err
	}
	return ValidateIndexMember(member)
}

func invalidMember(member, rule string) error {
	const show = 64
	if len(member) > show {
		member = member[:show] + "..."
	}
	return fmt.Errorf("%w: index member %q %s", ErrInvalidArgument, member, rule)
}
