// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"context"
	"fmt"
	"time"
)

// Batcher runs several writes in one round trip: a pipeline, not a
// transaction. Every op kind is idempotent, so a batch that failed with
// ErrUnavailable (its outcome unknown, some ops maybe applied) may simply be
// run again.
type Batcher interface {
	// Batch validates every op, then runs them in order and returns their
	// results in op order. An invalid op fails the whole batch before any op
	// runs, with an error naming its index; a failure while running names the
	// first op that failed (earlier ones may have been applied).
	Batch(ctx context.Context, ops ...Op) ([]OpResult, error)
}

// OpKind is what an Op does.
type OpKind int

// The kinds of Op, each the batch form of the Store, Conversations or Indexes method of the same name.
const (
	OpSet OpKind = iota + 1
	OpSetIfAbsent
	OpDelete
	OpAppendTurnOnce
	OpIndexAdd
	OpIndexRemove
	// OpStreamAdd appends Value to the stream Key (a Redis stream, XADD),
	// trimmed to about MaxLen entries. Unlike the other kinds it is not
	// idempotent: a batch run again appends it again (its readers, log
	// shippers, see the same record twice).
	OpStreamAdd
)

// Op is one write of a batch; build it with SetOp, SetIfAbsentOp, DeleteOp,
// AppendTurnOnceOp, IndexAddOp, IndexRemoveOp or StreamAddOp.
type Op struct {
	Kind OpKind
	// Key is the key of OpSet, OpSetIfAbsent and OpDelete, and the index of OpIndexAdd and OpIndexRemove.
	Key string
	// Value and TTL are the other arguments of OpSet and OpSetIfAbsent.
	Value []byte
	TTL   time.Duration
	// Session, OnceID and Turn are the arguments of OpAppendTurnOnce.
	Session string
	OnceID  string
	Turn    Turn
	// Member is the member of OpIndexAdd and OpIndexRemove; Score the score of OpIndexAdd.
	Member string
	Score  int64
	// MaxLen bounds the stream of OpStreamAdd (trimmed about it, XADD MAXLEN ~).
	MaxLen int64
}

// OpResult is the outcome of one Op.
type OpResult struct {
	// Applied is whether the op changed memory: false for an OpSetIfAbsent
	// that found its key, or an OpAppendTurnOnce whose id was used before;
	// always true for OpSet, OpDelete, OpIndexAdd and OpIndexRemove (even
	// when the member already had that score, or was not in the index).
	Applied bool
	// Turn is, for OpAppendTurnOnce, the turn stored under its id (now or before).
	Turn Turn
}

// SetOp is Store.Set as a batch op.
func SetOp(key string, value []byte, ttl time.Duration) Op {
	return Op{Kind: OpSet, Key: key, Value: value, TTL: ttl}
}

// SetIfAbsentOp is Store.SetIfAbsent as a batch op; OpResult.Applied reports whether it stored.
func SetIfAbsentOp(key string, value []byte, ttl time.Duration) Op {
	return Op{Kind: OpSetIfAbsent, Key: key, Value: value, TTL: ttl}
}

// DeleteOp is Store.Delete as a batch op.
func DeleteOp(key string) Op { return Op{Kind: OpDelete, Key: key} }

// AppendTurnOnceOp is Conversations.AppendTurnOnce as a batch op.
func AppendTurnOnceOp(session, id string, t Turn) Op {
	return Op{Kind: OpAppendTurnOnce, Session: session, OnceID: id, Turn: t}
}

// IndexAddOp is Indexes.IndexAdd as a batch op.
func IndexAddOp(index, member string, score int64) Op {
	return Op{Kind: OpIndexAdd, Key: index, Member: member, Score: score}
}

// IndexRemoveOp is Indexes.IndexRemove as a batch op.
func IndexRemoveOp(index, member string) Op {
	return Op{Kind: OpIndexRemove, Key: index, Member: member}
}

// StreamAddOp appends value to the stream key, trimmed to about maxLen
// entries: the export of records a log shipper reads (XADD key MAXLEN ~
// maxLen * record value on Redis; the in-process memory keeps the last
// maxLen). Applied is always true.
func StreamAddOp(key string, value []byte, maxLen int64) Op {
	return Op{Kind: OpStreamAdd, Key: key, Value: value, MaxLen: maxLen}
}

// StreamReader reads a stream that StreamAddOp appends to; both backends
// Memory implement it (a2abus audit reads the audit stream through it).
type StreamReader interface {
	// StreamTail returns the values of the last n entries of stream key,
	// oldest first; none when the stream does not exist.
	StreamTail(ctx context.Context, key string, n int) ([][]byte, error)
}

// StreamField is the field of a stream entry that holds its value.
const StreamField = "record"

// String names the op and its key (or session and once id, or index and member), for errors.
func (o Op) String() string {
	switch o.Kind {
	case OpSet:
		return fmt.Sprintf("set %q", o.Key)
	case OpSetIfAbsent:
		return fmt.Sprintf("set if absent %q", o.Key)
	case OpDelete:
		return fmt.Sprintf("delete %q", o.Key)
	case OpAppendTurnOnce:
		return fmt.Sprintf("append turn once %q to %q", o.OnceID, o.Session)
	case OpIndexAdd:
		return fmt.Sprintf("index add %q to %q at %d", o.Member, o.Key, o.Score)
	case OpIndexRemove:
		return fmt.Sprintf("index remove %q from %q", o.Member, o.Key)
	case OpStreamAdd:
		return fmt.Sprintf("stream add to %q", o.Key)
	}
	return fmt.Sprintf("op of unknown kind %d", int(o.Kind))
}

// Validate reports whether o may run: a known kind with valid arguments (key
// and TTL; or session, once id and turn, see ValidateTurn; or index, member and score).
func (o Op) Validate() error {
	switch o.Kind {
	case OpSet, OpSetIfAbsent:
		if err := ValidateKey(o.Key); err != nil {
			return err
		}
		return ValidateTTL(o.TTL)
	case OpDelete:
		return ValidateKey(o.Key)
	case OpAppendTurnOnce:
		if err := ValidateSessionID(o.Session); err != nil {
			return err
		}
		if err := ValidateOnceID(o.OnceID); err != nil {
			return err
		}
		return ValidateTurn(o.Turn)
	case OpIndexAdd:
		return ValidateIndexAdd(o.Key, o.Member, o.Score)
	case OpIndexRemove:
		return ValidateIndexRemove(o.Key, o.Member)
	case OpStreamAdd:
		if err := ValidateKey(o.Key); err != nil {
			return err
		}
		if o.MaxLen <= 0 {
			return fmt.Errorf("%w: stream %q: MaxLen must be positive, got %d", ErrInvalidArgument, o.Key, o.MaxLen)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown op kind %d (build ops with SetOp, SetIfAbsentOp, DeleteOp, AppendTurnOnceOp, IndexAddOp, IndexRemoveOp, StreamAddOp)",
		ErrInvalidArgument, int(o.Kind))
}

// ValidateOps validates every op of a batch; the error names the first bad one by index.
func ValidateOps(ops []Op) error {
	for i, o := range ops {
		if err := o.Validate(); err != nil {
			return fmt.Errorf("batch op %d (%s): %w", i, o, err)
		}
	}
	return nil
}
