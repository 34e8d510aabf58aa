// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Keys of the soak's own bookkeeping in Redis (outside the working
// memory's key prefix), each after the run's prefix "soak:<run>:".
const (
	keyLedger   = "ledger"    // hash: session id → Entry (JSON), written before publishing
	keyState    = "state"     // hash: session id → "sent:<taskId>" or "refused:<error>"
	keyKilled   = "killed"    // set: process ids killed by the fault plan
	keyProduced = "produced:" // list per session id: every answer the random skill produced
	keyIssued   = "issued"    // counter: the task numbers callers have taken (the budget)
	keyIdle     = "idle:"     // per always-on caller process: set once the budget is spent and its calls ended
)

// The skills of the soak agents.
const (
	SkillFast   = "fast"
	SkillSlow   = "slow"
	SkillFail   = "fail"
	SkillNested = "nested"
	SkillRandom = "random"
)

// What a ledger entry expects of its task.
const (
	ExpectComplete = "complete" // completes with the handler's answer
	ExpectFail     = "fail"     // fails with EXECUTION_FAILED
	ExpectTimeout  = "timeout"  // its deadline is shorter than the work: TIMEOUT (or a late answer)
	ExpectCancel   = "cancel"   // cancelled by its caller: CANCELED (or the answer, if it finished first)
)

// Entry is one task in the ledger, written by its caller before it publishes.
// The task id is the Invoke's, known only after it: the session id, one per
// task, is the ledger's key.
type Entry struct {
	Session string `json:"session"`
	Caller  string `json:"caller"`
	Proc    string `json:"proc"` // the caller process (its soak process id)
	Target  string `json:"target"`
	Skill   string `json:"skill"`
	Mode    string `json:"mode"` // invoke, call, call-stream
	Expect  string `json:"expect"`
	Text    string `json:"text"`
}

// Ledger writes and reads the soak's bookkeeping in Redis.
type Ledger struct {
	rdb    *redis.Client
	prefix string
}

// NewLedger opens the ledger of run at the Redis url.
func NewLedger(url, run string) (*Ledger, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("soak: ledger: parse redis url: %w", err)
	}
	return &Ledger{rdb: redis.NewClient(opt), prefix: "soak:" + run + ":"}, nil
}

// key is the Redis key of the run's part name.
func (l *Ledger) key(name string) string { return l.prefix + name }

// Close closes the Redis client.
func (l *Ledger) Close() error { return l.rdb.Close() }

// Client is the ledger's Redis client (fault injection and read-backs).
func (l *Ledger) Client() *redis.Client { return l.rdb }

// Intend records e before its task is published.
func (l *Ledger) Intend(ctx context.Context, e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("soak: ledger: encode %s: %w", e.Session, err)
	}
	if err := l.rdb.HSet(ctx, l.key(keyLedger), e.Session, b).Err(); err != nil {
		return fmt.Errorf("soak: ledger: record %s: %w", e.Session, err)
	}
	return nil
}

// Sent records that the task of session was published as taskID.
func (l *Ledger) Sent(ctx context.Context, session, taskID string) error {
	if err := l.rdb.HSet(ctx, l.key(keyState), session, "sent:"+taskID).Err(); err != nil {
		return fmt.Errorf("soak: ledger: mark %s sent: %w", session, err)
	}
	return nil
}

// Refused records that the task of session was not published (its Invoke or Call failed with cause).
func (l *Ledger) Refused(ctx context.Context, session string, cause error) error {
	if err := l.rdb.HSet(ctx, l.key(keyState), session, "refused:"+cause.Error()).Err(); err != nil {
		return fmt.Errorf("soak: ledger: mark %s refused: %w", session, err)
	}
	return nil
}

// Produced records an answer the random skill produced for session's task.
func (l *Ledger) Produced(ctx context.Context, session, answer string) error {
	if err := l.rdb.RPush(ctx, l.key(keyProduced+session), answer).Err(); err != nil {
		return fmt.Errorf("soak: ledger: record answer of %s: %w", session, err)
	}
	return nil
}

// Killed records that the process proc was killed by the fault plan.
func (l *Ledger) Killed(ctx context.Context, proc string) error {
	if err := l.rdb.SAdd(ctx, l.key(keyKilled), proc).Err(); err != nil {
		return fmt.Errorf("soak: ledger: record kill of %s: %w", proc, err)
	}
	return nil
}

// Snapshot is everything the ledger holds.
type Snapshot struct {
	Entries  map[string]Entry    // by session
	Sent     map[string]string   // session → task id
	Refused  map[string]string   // session → error
	Killed   map[string]bool     // process ids
	Produced map[string][]string // session → answers (random skill)
}

// Read loads the whole ledger.
func (l *Ledger) Read(ctx context.Context) (*Snapshot, error) {
	s := &Snapshot{Entries: map[string]Entry{}, Sent: map[string]string{}, Refused: map[string]string{}, Killed: map[string]bool{}, Produced: map[string][]string{}}
	raw, err := l.rdb.HGetAll(ctx, l.key(keyLedger)).Result()
	if err != nil {
		return nil, fmt.Errorf("soak: read ledger: %w", err)
	}
	for sid, v := range raw {
		var e Entry
		if err := json.Unmarshal([]byte(v), &e); err != nil {
			return nil, fmt.Errorf("soak: read ledger entry %s: %w", sid, err)
		}
		s.Entries[sid] = e
	}
	states, err := l.rdb.HGetAll(ctx, l.key(keyState)).Result()
	if err != nil {
		return nil, fmt.Errorf("soak: read task states: %w", err)
	}
	for sid, v := range states {
		if id, ok := strings.CutPrefix(v, "sent:"); ok {
			s.Sent[sid] = id
		} else {
			s.Refused[sid] = strings.TrimPrefix(v, "refused:")
		}
	}
	killed, err := l.rdb.SMembers(ctx, l.key(keyKilled)).Result()
	if err != nil {
		return nil, fmt.Errorf("soak: read killed processes: %w", err)
	}
	for _, p := range killed {
		s.Killed[p] = true
	}
	for sid, e := range s.Entries {
		if e.Skill != SkillRandom {
			continue
		}
		answers, err := l.rdb.LRange(ctx, l.key(keyProduced+sid), 0, -1).Result()
		if err != nil {
			return nil, fmt.Errorf("soak: read answers of %s: %w", sid, err)
		}
		s.Produced[sid] = answers
	}
	return s, nil
}

// Drop deletes the run's keys, the working memory's included (on a shared
// Redis, where nothing else removes them).
func (l *Ledger) Drop(ctx context.Context) error {
	iter := l.rdb.Scan(ctx, 0, l.prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("soak: list the ledger's keys: %w", err)
	}
	for len(keys) > 0 {
		n := min(len(keys), 500)
		if err := l.rdb.Del(ctx, keys[:n]...).Err(); err != nil {
			return fmt.Errorf("soak: delete the ledger: %w", err)
		}
		keys = keys[n:]
	}
	return nil
}
